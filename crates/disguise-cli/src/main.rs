//! `disguise`: differentially private selection from the command line.
//!
//! A thin shell over the `disguise` library: parse, call, print. Errors become one readable
//! line on stderr and exit code 2. A panic — a bug, never the user's input — becomes one line
//! and exit code 70 ([`INTERNAL_ERROR`]); a closed stdout (`disguise … | head`) ends the run
//! quietly.

mod commands;
mod output;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Differentially private selection and submodular maximization.
#[derive(Parser)]
#[command(name = "disguise", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start here: privately choose 3 waiting spots for synthetic Manhattan pickups (no file
    /// needed), print the picks and the guarantee, and write a map.
    Demo(commands::demo::Args),
    /// Per-round ε₀ for a total (ε, δ) budget under every composition rule, and the best one.
    Budget(commands::budget::Args),
    /// Run a selection mechanism many times on a score file and count what it picks.
    Sample(commands::sample::Args),
    /// Private facility location: choose k public candidate locations serving private points.
    Select(commands::select::Args),
    /// Private maximum coverage: choose k candidates that cover the most people (sets, or
    /// the friend lists of a graph).
    Cover(commands::cover::Args),
    /// Private maximum cut: choose at most k vertices that cut the most edges of a graph
    /// whose edges are private (a non-monotone objective; subsample-greedy)
    Cut(commands::cut::Args),
    /// Private feature selection: choose the k columns most informative about a label.
    Features(commands::features::Args),
    /// Private frequent itemsets: the most frequent itemsets of size r in transactions.
    Itemsets(commands::itemsets::Args),
    /// Private hypothesis selection: the decision stump with the smallest training error.
    Hypothesis(commands::hypothesis::Args),
    /// Draft a table schema (docs/schema.md) from a file's header row, for you to fill in.
    Schema(commands::schema::Args),
    /// Write synthetic data for benchmarks and tests (e.g. clustered points in parts).
    Generate(commands::generate::Args),
    /// Reproduce a paper's experiment: tidy CSV tables and figures (PNG + SVG) in --out.
    Experiment(commands::experiment::Args),
    /// Release a differentially private projected histogram of a table as synthetic data.
    Histogram(commands::histogram::Args),
    /// Release a private synthetic copy of a whole table (every column): MST on disguise's
    /// engine — noisy 1-way marginals, a private tree of pairs, noisy 2-ways, a fitted model.
    Synth(commands::synth::Args),
    /// Private k-type facility location: choose locations and give each one of k types,
    /// serving every private point by a location of its own type (k-submodular greedy).
    Assign(commands::assign::Args),
    /// The privacy budget ledger: create one, set a data set's limit, show what is spent and
    /// left, export the audit log.
    #[command(subcommand)]
    Ledger(commands::ledger::Command),
    /// Private k-topic influence maximization: choose seeds and a topic for each so that the
    /// most people are reached (k-submodular greedy)
    Topics(commands::topics::Args),
    /// Distributed runs: make the key that authenticates and encrypts the links between
    /// processes.
    #[command(subcommand)]
    Cluster(commands::cluster::Command),
}

/// Exit code of an internal error (a panic): `EX_SOFTWARE` of sysexits.h.
const INTERNAL_ERROR: i32 = 70;

/// Exit code when stdout was closed by its reader: what a process killed by SIGPIPE reports
/// to a shell (128 + 13), as `cat` or `grep` would.
const BROKEN_PIPE: i32 = 141;

/// The last line of defence: a panic prints one line naming it as a bug, with its location,
/// and exits with [`INTERNAL_ERROR`] — no backtrace. Writing to a closed stdout (the standard
/// library's print macros panic on it) ends the run quietly instead.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(BROKEN_PIPE);
        }
        // A distributed run's peer closed its connection: timely's threads fail, and the run
        // reports it as one error line (disguise::cluster). Not a bug of ours.
        if message.starts_with("timely communication error")
            || message.contains("MergeQueue poisoned")
        {
            return;
        }
        let mut line: String = message.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.chars().count() > 300 {
            line = line.chars().take(300).collect::<String>() + "…";
        }
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!(
            "error: internal error: {line}{at} (this is a bug in disguise; please report it)"
        );
        std::process::exit(INTERNAL_ERROR);
    }));
}

/// Whether `err` is a write to a closed pipe (the reader of stdout went away).
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(|e| e.io_error_kind())
                .is_some_and(|k| k == std::io::ErrorKind::BrokenPipe)
            || cause.downcast_ref::<csv::Error>().is_some_and(|e| {
                matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe)
            })
    })
}

/// Whether `err` is the ledger's refusal of a release over a data set's limit.
fn is_budget_exceeded(err: &anyhow::Error) -> bool {
    matches!(
        err.downcast_ref::<disguise::Error>(),
        Some(disguise::Error::BudgetExceeded { .. })
    )
}

fn main() -> ExitCode {
    install_panic_hook();
    // The test of the hook needs a panic, and no user input may cause one: this variable is
    // the only way to raise it.
    if std::env::var_os("DISGUISE_TEST_INTERNAL_ERROR").is_some() {
        panic!("deliberate panic (DISGUISE_TEST_INTERNAL_ERROR is set)");
    }
    use clap::{CommandFactory, FromArgMatches};
    let command = Cli::command();
    let cli = match command
        .clone()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)))
    {
        Ok((cli, matches)) => {
            // What a distributed run's processes must agree on.
            commands::common::cluster::remember_request(&command, &matches);
            let diagnostics = matches
                .subcommand()
                .and_then(|(_, m)| m.try_get_one::<bool>("diagnostics").ok().flatten())
                .copied()
                .unwrap_or(false);
            (cli, diagnostics)
        }
        Err(err) => return usage_error(err),
    };
    let (cli, diagnostics) = cli;
    let result =
        commands::common::cluster::hold_public_streams().and_then(|()| match cli.command {
            Command::Demo(args) => commands::demo::run(args),
            Command::Budget(args) => commands::budget::run(args),
            Command::Sample(args) => commands::sample::run(args),
            Command::Select(args) => commands::select::run(args),
            Command::Cover(args) => commands::cover::run(args),
            Command::Cut(args) => commands::cut::run(args),
            Command::Features(args) => commands::features::run(args),
            Command::Itemsets(args) => commands::itemsets::run(args),
            Command::Hypothesis(args) => commands::hypothesis::run(args),
            Command::Experiment(args) => commands::experiment::run(args),
            Command::Generate(args) => commands::generate::run(args),
            Command::Schema(args) => commands::schema::run(args),
            Command::Histogram(args) => commands::histogram::run(args),
            Command::Synth(args) => commands::synth::run(args),
            Command::Assign(args) => commands::assign::run(args),
            Command::Topics(args) => commands::topics::run(args),
            Command::Ledger(command) => commands::ledger::run(command),
            Command::Cluster(command) => commands::cluster::run(command),
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if is_broken_pipe(&err) => ExitCode::from(BROKEN_PIPE as u8),
        Err(err) if is_budget_exceeded(&err) => {
            eprintln!("error: {err}");
            ExitCode::from(output::BUDGET_EXCEEDED)
        }
        Err(err) if err.is::<output::NothingReleased>() => {
            eprintln!("nothing released: {err}");
            ExitCode::from(output::NOTHING_RELEASED)
        }
        Err(err) => {
            // A bug caught before anything was released exits as a panic does.
            let internal = matches!(
                err.downcast_ref::<disguise::Error>(),
                Some(disguise::Error::Internal(_))
            );
            // One readable line: the error and its causes, joined.
            let mut line = err.to_string();
            for cause in err.chain().skip(1) {
                line.push_str(": ");
                line.push_str(&cause.to_string());
            }
            // One line, whatever a cause contains (a quoted cell with a line break).
            let line: String = line.lines().collect::<Vec<_>>().join(" ");
            // Before a ledger's reservation the error may say what it found (the curator's own
            // data; nothing was released); after it, what stays charged, the same for every
            // data set ([`disguise::text::failure_line`]).
            let charged = commands::common::ledger::charged();
            let line = disguise::text::failure_line(&line, charged, diagnostics, &output::flag_of);
            eprintln!("error: {line}");
            ExitCode::from(if internal { INTERNAL_ERROR as u8 } else { 2 })
        }
    }
}

/// Help and version go to stdout as clap renders them; a usage error becomes one line on stderr
/// (clap's first line, which names the flag and the problem) and exit code 2.
fn usage_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = err.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = err.print();
            ExitCode::from(2)
        }
        _ => {
            // Clap's first line names the problem; when it ends with ':' the next lines list
            // what it refers to (e.g. the missing flags), so join those onto the same line.
            let text = err.to_string();
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let first = lines.next().unwrap_or("invalid usage");
            let mut line = first.strip_prefix("error: ").unwrap_or(first).to_string();
            if line.ends_with(':') {
                let items: Vec<&str> = lines.take_while(|l| !l.starts_with("Usage:")).collect();
                line = format!("{line} {}", items.join(", "));
            }
            eprintln!("error: {line} (see --help)");
            ExitCode::from(2)
        }
    }
}
