//! `disguise`: differentially private selection from the command line.
//!
//! A thin shell over the `disguise` library: parse, call, print. Errors become one readable
//! line on stderr and exit code 2.

mod commands;
mod output;
mod plot;

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
    /// Private feature selection: choose the k columns most informative about a label.
    /// Private frequent itemsets: the most frequent itemsets of size r in transactions.
    Itemsets(commands::itemsets::Args),
    /// Private hypothesis selection: the decision stump with the smallest training error.
    Hypothesis(commands::hypothesis::Args),
    Features(commands::features::Args),
    /// Reproduce a paper's experiment: tidy CSV tables and figures (PNG + SVG) in --out.
    Experiment(commands::experiment::Args),
    /// Release a differentially private projected histogram of a table as synthetic data.
    Histogram(commands::histogram::Args),
    /// Private k-type facility location: choose locations and give each one of k types,
    /// serving every private point by a location of its own type (k-submodular greedy).
    Assign(commands::assign::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    let result = match cli.command {
        Command::Demo(args) => commands::demo::run(args),
        Command::Budget(args) => commands::budget::run(args),
        Command::Sample(args) => commands::sample::run(args),
        Command::Select(args) => commands::select::run(args),
        Command::Features(args) => commands::features::run(args),
        Command::Itemsets(args) => commands::itemsets::run(args),
        Command::Hypothesis(args) => commands::hypothesis::run(args),
        Command::Experiment(args) => commands::experiment::run(args),
        Command::Histogram(args) => commands::histogram::run(args),
        Command::Assign(args) => commands::assign::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One readable line: the error and its causes, joined.
            let mut line = err.to_string();
            for cause in err.chain().skip(1) {
                line.push_str(": ");
                line.push_str(&cause.to_string());
            }
            eprintln!("error: {line}");
            ExitCode::from(2)
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
