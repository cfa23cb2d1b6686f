//! `disguise ledger`: create a privacy budget ledger, set a data set's limit, show what is
//! spent and left, export the audit log ([`disguise::ledger`]).

use crate::output::{Format, check_epsilon, guarantee, print_json, thousands};
use anyhow::bail;
use disguise::ledger::{Ledger, Limit, Release, Status};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

const EXAMPLES: &str = "\
Examples:
  # a ledger, a budget of (ε, δ) = (2, 1e-6) for the Adult data, and releases charged to it
  disguise ledger init budget.ledger
  export DISGUISE_LEDGER=budget.ledger
  disguise ledger limit --dataset adult --epsilon 2 --delta 1e-6
  disguise features --data adult.csv --label income --k 3 --epsilon 0.5 --dataset adult
  disguise histogram --data adult.csv --schema adult.toml --target income --epsilon 1 \\
      --out synthetic.csv --dataset adult

  # what is spent and left, for people and for scripts
  disguise ledger show --dataset adult
  disguise ledger show --dataset adult --format json | jq .remaining.epsilon

  # the audit log as CSV
  disguise ledger export --out releases.csv

Every command that releases something takes --ledger FILE (or $DISGUISE_LEDGER) and
--dataset NAME (default: the SHA-256 of its input files). Before it prints or writes
anything it records its cost; if the data set's releases would then compose to more than
its limit, it releases nothing and exits with code 3.";

/// The `ledger` subcommands.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Create an empty ledger file (refused if the file exists).
    #[command(after_help = EXAMPLES)]
    Init(InitArgs),
    /// Set (or change) the total budget of a data set; every change is kept.
    #[command(after_help = EXAMPLES)]
    Limit(LimitArgs),
    /// The releases recorded and, per data set, the limit, the composed spend and what is
    /// left.
    #[command(after_help = EXAMPLES)]
    Show(ShowArgs),
    /// The audit log: one CSV row per release.
    #[command(after_help = EXAMPLES)]
    Export(ExportArgs),
}

/// The ledger file of `limit`, `show` and `export`.
#[derive(clap::Args, Debug, Clone)]
pub struct FileArg {
    /// The ledger file. Default: $DISGUISE_LEDGER.
    #[arg(long, value_name = "FILE", env = "DISGUISE_LEDGER", hide_env = true)]
    ledger: Option<PathBuf>,
    /// Seconds to wait while another process holds the ledger.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        allow_negative_numbers = true
    )]
    ledger_timeout: f64,
}

impl FileArg {
    fn open(&self) -> anyhow::Result<Ledger> {
        let Some(file) = self.ledger.as_deref().filter(|p| !p.as_os_str().is_empty()) else {
            bail!("missing --ledger FILE (or $DISGUISE_LEDGER): the ledger to use");
        };
        super::common::ledger::open_ledger(file, self.ledger_timeout)
    }
}

/// Arguments of `disguise ledger init`.
#[derive(clap::Args)]
pub struct InitArgs {
    /// The ledger file to create.
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

/// Arguments of `disguise ledger limit`.
#[derive(clap::Args)]
pub struct LimitArgs {
    #[command(flatten)]
    file: FileArg,
    /// The data set (as its releases name it with --dataset, or `sha256:…`).
    #[arg(long, value_name = "NAME")]
    dataset: String,
    /// Total ε all its releases together may spend. Example: `--epsilon 2`.
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: f64,
    /// Total δ ∈ [0, 1); 0 (the default) admits pure ε-DP releases only. Example:
    /// `--delta 1e-6`.
    #[arg(
        long,
        value_name = "D",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    delta: f64,
}

/// Arguments of `disguise ledger show`.
#[derive(clap::Args)]
pub struct ShowArgs {
    #[command(flatten)]
    file: FileArg,
    /// Only this data set.
    #[arg(long, value_name = "NAME")]
    dataset: Option<String>,
    /// Output format. JSON: `releases` (one entry per release) and `remaining` (with
    /// --dataset, the ε and δ left, or null without a limit; otherwise one such entry per
    /// data set), with `datasets` (limit, spend and what is left of each).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Arguments of `disguise ledger export`.
#[derive(clap::Args)]
pub struct ExportArgs {
    #[command(flatten)]
    file: FileArg,
    /// Only this data set.
    #[arg(long, value_name = "NAME")]
    dataset: Option<String>,
    /// Write the CSV to this file (atomically) instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// Runs `disguise ledger …`.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Init(args) => {
            Ledger::create(&args.file)?;
            println!("created the ledger {}", args.file.display());
            Ok(())
        }
        Command::Limit(args) => limit(args),
        Command::Show(args) => show(args),
        Command::Export(args) => export(args),
    }
}

fn limit(args: LimitArgs) -> anyhow::Result<()> {
    check_epsilon("--epsilon", args.epsilon)?;
    if !(0.0..1.0).contains(&args.delta) {
        bail!("invalid --delta: must be in [0, 1), got {}", args.delta);
    }
    disguise::ledger::check_name(&args.dataset)
        .map_err(|e| anyhow::anyhow!("invalid --dataset: {}", reason(e)))?;
    let ledger = args.file.open()?;
    ledger.set_limit(&args.dataset, Limit::new(args.epsilon, args.delta)?)?;
    let status = ledger.status(&args.dataset)?;
    println!("{}", status_line(&status));
    Ok(())
}

/// The reason of a parameter error, without its name.
fn reason(e: disguise::Error) -> String {
    match e {
        disguise::Error::InvalidParameter { reason, .. } => reason,
        other => other.to_string(),
    }
}

/// One line per data set: its limit, its spend and what is left.
fn status_line(s: &Status) -> String {
    let limit = match s.limit {
        Some(l) => format!(
            "limit ε = {}, δ = {}",
            guarantee(l.epsilon),
            guarantee(l.delta)
        ),
        None => "no limit".to_string(),
    };
    let releases = format!(
        "{} release{}",
        thousands(s.releases),
        if s.releases == 1 { "" } else { "s" }
    );
    let spent = match s.spent {
        Some(g) => format!(
            "spent ε = {}, δ = {} by {} composition in {releases}",
            guarantee(g.epsilon),
            guarantee(g.delta),
            g.rule.name()
        ),
        None if s.releases == 0 => "nothing spent".to_string(),
        None => format!("{releases} exceed the limit"),
    };
    let left = match s.remaining {
        Some(r) => format!(
            "; left ε = {}, δ = {}",
            guarantee(r.epsilon),
            guarantee(r.delta)
        ),
        None => String::new(),
    };
    let unit = match s.unit {
        Some(u) => format!(" ({u}-level)"),
        None => String::new(),
    };
    format!("data set {}{unit}: {limit}; {spent}{left}", s.dataset)
}

fn show(args: ShowArgs) -> anyhow::Result<()> {
    let ledger = args.file.open()?;
    let datasets = match &args.dataset {
        Some(d) => vec![d.clone()],
        None => ledger.datasets()?,
    };
    let statuses: Vec<Status> = datasets
        .iter()
        .map(|d| ledger.status(d))
        .collect::<disguise::Result<_>>()?;
    let releases = ledger.releases(args.dataset.as_deref())?;
    match args.format {
        Format::Json => {
            #[derive(Serialize)]
            #[serde(untagged)]
            enum RemainingOut {
                One(Option<disguise::ledger::Remaining>),
                Each(BTreeMap<String, Option<disguise::ledger::Remaining>>),
            }
            #[derive(Serialize)]
            struct Document<'a> {
                ledger: &'a Path,
                releases: &'a [Release],
                remaining: RemainingOut,
                datasets: &'a [Status],
            }
            let remaining = match &args.dataset {
                Some(_) => RemainingOut::One(statuses.first().and_then(|s| s.remaining)),
                None => RemainingOut::Each(
                    statuses
                        .iter()
                        .map(|s| (s.dataset.clone(), s.remaining))
                        .collect(),
                ),
            };
            print_json(&Document {
                ledger: ledger.path(),
                releases: &releases,
                remaining,
                datasets: &statuses,
            })
        }
        Format::Table => {
            println!("ledger {}", ledger.path().display());
            if statuses.is_empty() {
                println!("(no data set: set a limit with `disguise ledger limit`)");
            }
            for s in &statuses {
                println!("{}", status_line(s));
            }
            if !releases.is_empty() {
                println!();
                println!(
                    "{:>5}  {:<24}  {:<12}  {:>5}  {:>9}  {:>9}  {:<12}  command",
                    "id", "time (UTC)", "data set", "runs", "ε", "δ", "rule"
                );
                for r in &releases {
                    let mut dataset = r.dataset.clone();
                    if dataset.chars().count() > 12 {
                        dataset = dataset.chars().take(11).collect::<String>() + "…";
                    }
                    let insecure = if r.secure {
                        ""
                    } else {
                        " (seeded: NOT private)"
                    };
                    println!(
                        "{:>5}  {:<24}  {:<12}  {:>5}  {:>9}  {:>9}  {:<12}  {}{insecure}",
                        r.id,
                        r.time,
                        dataset,
                        thousands(r.runs),
                        guarantee(r.epsilon),
                        guarantee(r.delta),
                        r.rule,
                        r.command
                    );
                }
            }
            Ok(())
        }
    }
}

fn export(args: ExportArgs) -> anyhow::Result<()> {
    let ledger = args.file.open()?;
    let releases = ledger.releases(args.dataset.as_deref())?;
    let write = |out: &mut dyn Write| -> anyhow::Result<()> {
        let mut csv = csv::Writer::from_writer(out);
        csv.write_record([
            "id",
            "time",
            "dataset",
            "command",
            "mechanism",
            "runs",
            "epsilon",
            "delta",
            "rule",
            "calls",
            "secure",
            "unit",
        ])?;
        for r in &releases {
            let calls: Vec<String> = r
                .calls
                .iter()
                .map(|c| format!("{}:{:?}:{:?}x{}", c.kind, c.epsilon, c.delta, c.count))
                .collect();
            csv.write_record([
                r.id.to_string(),
                r.time.clone(),
                r.dataset.clone(),
                r.command.clone(),
                r.mechanism.clone(),
                r.runs.to_string(),
                format!("{:?}", r.epsilon),
                format!("{:?}", r.delta),
                r.rule.clone(),
                calls.join(";"),
                r.secure.to_string(),
                r.unit.to_string(),
            ])?;
        }
        csv.flush()?;
        Ok(())
    };
    match &args.out {
        Some(path) => {
            let mut file = disguise::files::AtomicFile::create(path, &[ledger.path()])?;
            write(file.writer())?;
            file.commit()?;
            eprintln!(
                "wrote {} release{} to {}",
                thousands(releases.len() as u64),
                if releases.len() == 1 { "" } else { "s" },
                path.display()
            );
            Ok(())
        }
        None => {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            write(&mut lock)
        }
    }
}
