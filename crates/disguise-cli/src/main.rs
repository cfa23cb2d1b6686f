//! `disguise`: differentially private selection from the command line.
//!
//! A thin shell over the `disguise` library: parse, call, print. Errors become one readable
//! line on stderr and exit code 2.

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
    /// Run one private selection on an embedded synthetic example and print the guarantee.
    Demo(commands::demo::Args),
    /// Per-round ε₀ for a total (ε, δ) budget under every composition rule, and the best one.
    Budget(commands::budget::Args),
    /// Run a selection mechanism many times on a score file and count what it picks.
    Sample(commands::sample::Args),
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
            let text = err.to_string();
            let line = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid usage");
            let line = line.strip_prefix("error: ").unwrap_or(line);
            eprintln!("error: {line} (see --help)");
            ExitCode::from(2)
        }
    }
}
