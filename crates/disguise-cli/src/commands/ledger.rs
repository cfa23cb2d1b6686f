//! `disguise ledger`: create a privacy budget ledger, set a data set's limit, show what is
//! spent and left, export the audit log ([`disguise::ledger`]).

use crate::output::{Format, flagged, print_report};
use anyhow::bail;
use disguise::ledger::{Filter, Ledger, Limit, Name};
use disguise::text::{default_limit_line, releases_csv, releases_written, status_line};
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

  # many small releases: the zCDP filter admits more of them than basic composition
  disguise ledger limit --dataset logs --epsilon 1 --delta 1e-6 --rule zcdp

  # a new data set whose name is one or two edits from an existing one (adult-2 beside
  # adult) is refused as a typo unless confirmed new
  disguise ledger limit --dataset adult-2 --new-dataset --epsilon 1

  # a default limit, recorded for each new data set at its first release
  disguise ledger init team.ledger --default-limit 1,1e-6

Every command that releases something takes --ledger FILE (or $DISGUISE_LEDGER) and
--dataset NAME. A new name one or two edits from an existing one (a typo would give the
same people a second budget) is refused with \"did you mean\" unless --new-dataset confirms
it; a name that differs only by case or white space is always refused. Before it reads the
data it records its cost; if the data set's limit does not admit it (or it has none, and
the ledger no default), it releases nothing and exits with code 3. The rule (a privacy filter: basic composition, or zCDP for pure and
exponential-mechanism releases) is fixed with the limit; after the first release a limit
can be lowered, not raised.";

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
    /// A default limit `EPSILON[,DELTA]`, recorded for each new data set at its first
    /// release. Without it, a release into a data set without a limit is refused. Example:
    /// `--default-limit 1,1e-6`.
    #[arg(long, value_name = "EPSILON[,DELTA]")]
    default_limit: Option<String>,
    /// The filter of the default limit.
    #[arg(long, value_name = "RULE", default_value = "basic", value_parser = super::common::names::named::<Filter>())]
    default_rule: Filter,
}

/// Arguments of `disguise ledger limit`.
#[derive(clap::Args)]
pub struct LimitArgs {
    #[command(flatten)]
    file: FileArg,
    /// The data set (as its releases name it with --dataset).
    #[arg(
        long,
        value_name = "NAME",
        required_unless_present = "default",
        conflicts_with = "default"
    )]
    dataset: Option<String>,
    /// Confirm that --dataset names a new data set: a name one or two edits from an existing
    /// one (`nursry` beside `nursery`; one edit when a name has at most 3 characters) is
    /// refused as a typo unless this flag says it is a different data set (it would give
    /// the same people a second budget). A name that differs only by case, white space or
    /// invisible characters is refused even so.
    #[arg(long, requires = "dataset", conflicts_with = "default")]
    new_dataset: bool,
    /// Set the ledger's default limit instead: the limit each new data set gets at its first
    /// release.
    #[arg(long)]
    default: bool,
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
    /// The privacy filter that stops the releases at the limit, fixed with it: `basic`
    /// (the releases' ε and δ add up; a release at exactly the limit fits) or `zcdp` (pure
    /// and exponential-mechanism releases add up ρ = ε²/2 or ε²/8; many more small releases
    /// fit; needs δ > 0).
    #[arg(long, value_name = "RULE", default_value = "basic", value_parser = super::common::names::named::<Filter>())]
    rule: Filter,
    /// With `--rule zcdp`: the ε of the limit set aside for approximate releases ((ε, δ)-DP
    /// with δ > 0, the large margin mechanisms), spent by basic composition. Default 0.
    #[arg(
        long,
        value_name = "E",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    approximate_epsilon: f64,
    /// With `--rule zcdp`: the δ of the limit set aside for approximate releases. Default
    /// 0, which refuses them.
    #[arg(
        long,
        value_name = "D",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    approximate_delta: f64,
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
    /// --dataset, what is left, or null without a limit; otherwise one such entry per data
    /// set: `epsilon` and `delta` — under `--rule zcdp` the (ε, δ) that the ρ left is worth
    /// —, and under zcdp `rho`, `pure_epsilon`, `approximate_epsilon` and
    /// `approximate_delta`), with `datasets` (limit, spend and what is left of each).
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
    /// Write the CSV to this file (atomically) instead of standard output (`-`: standard
    /// output).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// Runs `disguise ledger …`.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Init(args) => init(args),
        Command::Limit(args) => limit(args),
        Command::Show(args) => show(args),
        Command::Export(args) => export(args),
    }
}

fn init(args: InitArgs) -> anyhow::Result<()> {
    // The default is checked before the file exists: a refused option leaves nothing.
    let flag = |_: &str| "--default-limit".to_string();
    let default = (args.default_limit.as_deref())
        .map(|text| Limit::parse(text, args.default_rule).map_err(|e| flagged(e, &flag)))
        .transpose()?;
    let ledger = Ledger::create(&args.file)?;
    if default.is_some() {
        ledger.set_default_limit(default)?;
    }
    println!("created the ledger {}", args.file.display());
    if let Some(limit) = default {
        println!("{}", default_limit_line(&limit));
    }
    Ok(())
}

fn limit(args: LimitArgs) -> anyhow::Result<()> {
    let flag = |p: &str| match p {
        "approximate" => "--approximate-epsilon/--approximate-delta".to_string(),
        other => format!("--{other}"),
    };
    // The limit's ε and δ, then the part of it set aside for approximate releases.
    let (part_e, part_d) = (args.approximate_epsilon, args.approximate_delta);
    let limit = Limit::of(args.epsilon, args.delta, args.rule, part_e, part_d, &flag)
        .map_err(|e| flagged(e, &flag))?;
    let dataset = match &args.dataset {
        Some(name) => Some(
            disguise::ledger::check_name(name)
                .map_err(|e| flagged(e, &|_| "--dataset".into()))?
                .to_string(),
        ),
        None => None,
    };
    let ledger = args.file.open()?;
    match dataset {
        Some(dataset) => {
            let name = if args.new_dataset {
                Name::new_dataset(&dataset)
            } else {
                Name::from(&dataset)
            };
            ledger
                .set_limit(name, limit)
                .map_err(|e| flagged(e, &flag))?;
            println!("{}", status_line(&ledger.status(&dataset)?));
        }
        None => {
            ledger.set_default_limit(Some(limit))?;
            println!("{}", default_limit_line(&limit));
        }
    }
    Ok(())
}

fn show(args: ShowArgs) -> anyhow::Result<()> {
    let ledger = args.file.open()?;
    let flag = |p: &str| format!("--{p}");
    let overview = ledger
        .overview(args.dataset.as_deref())
        .map_err(|e| flagged(e, &flag))?;
    print_report(args.format, &overview, false, || {
        disguise::text::overview_text(&overview)
    })
}

fn export(args: ExportArgs) -> anyhow::Result<()> {
    let ledger = args.file.open()?;
    // The data set as the ledger holds it: a name alike to another is refused, as by `show`.
    let dataset = args
        .dataset
        .as_deref()
        .map(|d| ledger.resolve(d))
        .transpose()
        .map_err(|e| flagged(e, &|p: &str| format!("--{p}")))?;
    let releases = ledger.releases(dataset.as_deref())?;
    // `--out -` is standard output, as no `--out` is.
    match args.out.as_deref().filter(|p| *p != Path::new("-")) {
        Some(path) => {
            let mut file = disguise::files::AtomicFile::create(path, &[ledger.path()])?;
            releases_csv(&releases, file.writer())?;
            file.commit()?;
            eprintln!("{}", releases_written(releases.len(), path));
            Ok(())
        }
        None => {
            releases_csv(&releases, std::io::stdout().lock())?;
            Ok(())
        }
    }
}
