//! `disguise sample`: run a selection mechanism many times on a score file and count its picks.
//!
//! A tool for looking at a mechanism's output distribution (and for auditing it from the
//! outside). Each run is one private selection with the stated (ε, δ); the *counts* of many
//! runs on the same data are not a private release (N runs compose to N·ε).

use super::common::DeltaArg;
use super::common::names::named;
use crate::output::{Format, flag_of, flagged, print_report, rng_from_seed};
use disguise::select::SelectorKind;
use disguise::task::Sample;

const EXAMPLES: &str = "\
Examples:
  # 10,000 runs of the exponential mechanism on the scores in scores.txt (one per line)
  disguise sample --scores scores.txt --sensitivity 1 --epsilon 0.5 --mechanism em --trials 10000

  # the large margin mechanism, scores from standard input, the 5 candidates picked most
  printf '10\\n9\\n1\\n' | disguise sample --scores - --sensitivity 1 --epsilon 1 --delta 1e-6 \\
      --mechanism lmm --trials 1000 --top 5

  # one line per score (index, score, count, share), or every count as JSON
  disguise sample --scores scores.txt --sensitivity 1 --epsilon 0.5 --mechanism em \\
      --trials 10000 --per-score
  disguise sample --scores scores.txt --sensitivity 1 --epsilon 0.5 --mechanism em \\
      --trials 10000 --format json

By default the table shows the candidates picked most (--top N of them); --per-score lists every
score. Each run is one private selection; the counts of all runs together are not a private
release (N runs on the same scores compose to N times the budget).";

/// Arguments of `disguise sample`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// File with one score per line, or `-` for standard input; blank lines are skipped.
    /// Example: `--scores scores.txt`.
    #[arg(long, value_name = "FILE")]
    scores: String,
    /// Sensitivity λ > 0: the largest change of any one score between neighbouring datasets.
    /// Example: `--sensitivity 1`.
    #[arg(long, value_name = "L", allow_negative_numbers = true)]
    sensitivity: f64,
    /// Privacy budget ε > 0 of one selection. Example: `--epsilon 0.5`.
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: f64,
    #[command(flatten)]
    delta: DeltaArg,
    /// The selector (the `-monotone` variants are private only for monotone scores).
    /// Example: `--mechanism lmm`.
    #[arg(long, value_name = "NAME", value_parser = named::<SelectorKind>())]
    mechanism: SelectorKind,
    /// How many independent selections to run (≥ 1). Example: `--trials 10000`.
    #[arg(long, value_name = "N")]
    trials: u64,
    /// Seed for a reproducible run. INSECURE: the output is then predictable and carries
    /// no privacy guarantee (for tests and experiments only). Example: `--seed 42`.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// How many of the candidates picked most the table shows. Example: `--top 20`.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10,
        conflicts_with = "per_score"
    )]
    top: u64,
    /// Print one line per score (index, score, count, share) instead of the summary.
    #[arg(long)]
    per_score: bool,
    /// Output format (JSON always has every count).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Runs `disguise sample`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let request = Sample {
        mechanism: args.mechanism,
        epsilon: args.epsilon,
        delta: args.delta.value,
        sensitivity: args.sensitivity,
        trials: args.trials,
    };
    // Everything is validated before the scores are read or the generator is keyed.
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    let scores = read_scores(&args.scores)?;
    if let Some(u) = &request.usefulness(&scores) {
        super::common::warn_if_vacuous(u);
    }
    let mut rng = rng_from_seed(args.seed)?;
    let report = request.run(&scores, &mut rng)?;
    let (top, per_score) = (args.top, args.per_score);
    print_report(args.format, &report, false, || {
        disguise::text::sample_table(&report, &scores, top, per_score, &flag_of)
    })
}

/// Reads one finite score per line from `path` (`-` = standard input), streaming; errors
/// name the source, line and field: `scores.txt:3:1: not a number: "abc"`.
fn read_scores(path: &str) -> anyhow::Result<Vec<f64>> {
    Ok(if path == "-" {
        disguise::data::read_scores_from(std::io::stdin(), "<stdin>")?
    } else {
        disguise::data::read_scores(std::path::Path::new(path))?
    })
}
