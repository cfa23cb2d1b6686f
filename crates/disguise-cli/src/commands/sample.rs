//! `disguise sample`: run a selection mechanism many times on a score file and count its picks.
//!
//! A tool for looking at a mechanism's output distribution (and for auditing it from the
//! outside). Each run is one private selection with the stated (ε, δ); the *counts* of many
//! runs on the same data are not a private release (N runs compose to N·ε).

use crate::output::{Format, print_json, warn_insecure_seed};
use anyhow::bail;
use disguise::prelude::*;
use disguise::select::selector_by_name;
use serde::Serialize;

/// Arguments of `disguise sample`.
#[derive(clap::Args)]
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
    /// δ ∈ [0, 1) of one selection; the large margin mechanisms need δ > 0.
    /// Example: `--delta 1e-6`.
    #[arg(
        long,
        value_name = "D",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    delta: f64,
    /// The selector: em, lmm, lmm-chaudhuri, report-noisy-max, max (non-private), or the
    /// monotone-score variants em-monotone and report-noisy-max-monotone.
    /// Example: `--mechanism lmm`.
    #[arg(long, value_name = "NAME")]
    mechanism: String,
    /// How many independent selections to run (≥ 1). Example: `--trials 10000`.
    #[arg(long, value_name = "N")]
    trials: u64,
    /// Seed for a reproducible run. INSECURE: the output is then predictable and carries
    /// no privacy guarantee (for tests and experiments only). Example: `--seed 42`.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// The (ε, δ) of one selection; both `null` for the non-private `max`.
#[derive(Serialize)]
struct PerSelection {
    epsilon: Option<f64>,
    delta: Option<f64>,
}

/// The JSON document printed with `--format json`.
#[derive(Serialize)]
struct Report<'a> {
    mechanism: &'a str,
    trials: u64,
    counts: Vec<u64>,
    guarantee: PerSelection,
}

/// Runs `disguise sample`.
pub fn run(args: Args) -> anyhow::Result<()> {
    // Validate everything before reading input or touching the generator.
    let epsilon = Epsilon::new(args.epsilon)?;
    let delta = Delta::new(args.delta)?;
    let sensitivity = Sensitivity::new(args.sensitivity)?;
    let selector = selector_by_name(&args.mechanism, epsilon, delta)?;
    if args.trials == 0 {
        bail!("--trials must be at least 1");
    }
    let scores = read_scores(&args.scores)?;

    let mut rng = match args.seed {
        Some(seed) => {
            warn_insecure_seed(seed);
            SecureRng::insecure_from_seed(seed)
        }
        None => SecureRng::from_os()?,
    };
    let mut counts = vec![0u64; scores.len()];
    for _ in 0..args.trials {
        let pick = selector.select(&scores, sensitivity, &mut rng)?;
        counts[pick.index] += 1;
    }

    let (eps, del) = match selector.cost().epsilon_delta() {
        Some((e, d)) => (Some(e), Some(d)),
        None => (None, None),
    };
    match args.format {
        Format::Json => print_json(&Report {
            mechanism: selector.name(),
            trials: args.trials,
            counts,
            guarantee: PerSelection {
                epsilon: eps,
                delta: del,
            },
        })?,
        Format::Table => {
            match (eps, del) {
                (Some(e), Some(d)) => println!(
                    "{}: {} runs, each ({e}, {d})-DP (the counts of all runs together are \
                     not a private release)",
                    selector.name(),
                    args.trials
                ),
                _ => println!(
                    "{}: {} runs, NOT private (non-private baseline)",
                    selector.name(),
                    args.trials
                ),
            }
            println!(
                "{:>8}  {:>14}  {:>10}  {:>8}",
                "index", "score", "count", "share"
            );
            for (i, (&count, score)) in counts.iter().zip(&scores).enumerate() {
                let share = count as f64 / args.trials as f64;
                println!("{i:>8}  {score:>14}  {count:>10}  {share:>8.4}");
            }
        }
    }
    Ok(())
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
