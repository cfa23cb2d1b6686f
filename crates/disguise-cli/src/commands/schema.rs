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

  # a semicolon-separated file without a header row: columns drafted as c1 … cN
  disguise schema --data scores.csv --no-header --delimiter ';' > scores.toml

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
    /// The file has no header row: its columns are named `c1` … `cN` (or give the names with
    /// --columns instead of --data), and the draft says `has_header = false`.
    #[arg(long)]
    no_header: bool,
    /// The field separator, one ASCII character, or `tab` (the draft says so). Example:
    /// `--delimiter ';'`.
    #[arg(long, value_name = "CHAR", value_parser = super::common::parse_delimiter)]
    delimiter: Option<u8>,
}

/// Runs `disguise schema`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let delimiter = args.delimiter.unwrap_or(b',');
    let (names, has_header) = match &args.data {
        Some(path) => {
            let layout = disguise::data::TableLayout {
                delimiter,
                has_header: !args.no_header,
            };
            let header = disguise::data::read_header_with_layout(path, layout)
                .with_context(|| format!("reading the header of {}", path.display()))?;
            (header.names().to_vec(), layout.has_header)
        }
        None => (
            args.columns.iter().map(|c| c.trim().to_string()).collect(),
            false,
        ),
    };
    let layout = disguise::data::TableLayout {
        delimiter,
        has_header,
    };
    let target = args.target.as_deref();
    let out = disguise::histogram::draft_schema(&names, &args.categorical, target, layout)?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}
