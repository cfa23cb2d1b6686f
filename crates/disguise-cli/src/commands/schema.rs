//! `disguise schema`: a draft schema (docs/schema.md) for a CSV file, from its header row
//! only — the column names are the only thing read, so no private statistic leaks into the
//! draft. The user fills in every domain from public knowledge.

use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  # a draft for wdbc.csv, to edit: every column numeric with bounds to fill in
  disguise schema --data wdbc.csv --target diagnosis --categorical diagnosis > wdbc.toml

  # a headerless file: name the columns
  disguise schema --columns buying,maint,doors,persons,lug_boot,safety,class --target class \\
      --categorical buying,maint,doors,persons,lug_boot,safety,class > car.toml

Only the header row is read (or nothing, with --columns). Domains are left for you to fill in
from public knowledge — the draft does not parse until you do, so that no domain is taken
from the data by accident.";

/// Arguments of `disguise schema`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// A CSV file with a header row: only that row is read. Example: `--data wdbc.csv`.
    #[arg(long, value_name = "FILE", required_unless_present = "columns")]
    data: Option<PathBuf>,
    /// The column names of a headerless file, comma-separated, in file order (the draft then
    /// says `has_header = false`). Example: `--columns a,b,class`.
    #[arg(
        long,
        value_name = "A,B,…",
        value_delimiter = ',',
        conflicts_with = "data"
    )]
    columns: Vec<String>,
    /// Columns to draft as categorical (the others are numeric), comma-separated.
    /// Example: `--categorical sex,diagnosis`.
    #[arg(long, value_name = "A,B,…", value_delimiter = ',')]
    categorical: Vec<String>,
    /// The target (label) column. Example: `--target diagnosis`.
    #[arg(long, value_name = "COL")]
    target: Option<String>,
}

/// Runs `disguise schema`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let (names, has_header) = match &args.data {
        Some(path) => {
            let header = disguise::data::read_header(path)
                .with_context(|| format!("reading the header of {}", path.display()))?;
            (header.names().to_vec(), true)
        }
        None => (
            args.columns.iter().map(|c| c.trim().to_string()).collect(),
            false,
        ),
    };
    let known = |name: &str| names.iter().any(|n| n.eq_ignore_ascii_case(name));
    for name in args.categorical.iter().chain(&args.target) {
        if !known(name.trim()) {
            anyhow::bail!("no column {:?} (columns: {})", name, names.join(", "));
        }
    }
    let is_categorical = |name: &str| {
        args.categorical
            .iter()
            .any(|c| c.trim().eq_ignore_ascii_case(name))
    };
    let mut out = String::new();
    out.push_str("# Draft schema (docs/schema.md). Fill in every domain from PUBLIC knowledge —\n");
    out.push_str("# documentation, standards, round figures — never from the data itself.\n");
    out.push_str(&format!("has_header = {has_header}\ndelimiter = \",\"\n"));
    if let Some(target) = &args.target {
        out.push_str(&format!("target = {}\n", toml_string(target.trim())));
    }
    for name in &names {
        out.push_str(&format!("\n[[columns]]\nname = {}\n", toml_string(name)));
        if is_categorical(name) {
            out.push_str("type = \"categorical\"\nlevels = [] # FILL IN: every possible value\n");
        } else {
            out.push_str(
                "type = \"numeric\"\nbounds = [] # FILL IN: [min, max]\n# bins = 8  # optional\n",
            );
        }
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
