//! `disguise experiment NAME --out DIR`: runs one of the experiments of the papers (the
//! `disguise-experiments` crate) and prints its report.

use crate::output::{Format, print_report};
use disguise_experiments::Experiment;

/// Arguments of `disguise experiment`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    experiment: Experiment,
    /// Output format of the final summary on stdout.
    #[arg(long, value_enum, default_value_t, global = true)]
    format: Format,
}

/// Runs `disguise experiment`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let report = disguise_experiments::run(args.experiment)?;
    print_report(args.format, &report, false, || report.to_string())
}
