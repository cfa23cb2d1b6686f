//! `disguise budget`: the per-round ε₀ a total (ε, δ) budget allows under every composition
//! rule, and the best one.

use super::common::names::named;
use crate::output::{Format, print_report};
use disguise::privacy::budget::{BudgetQuery, CallKind, plan};

const EXAMPLES: &str = "\
Examples:
  # 10 rounds of the exponential mechanism within (ε, δ) = (0.1, 1e-6) in total
  disguise budget --epsilon 0.1 --delta 1e-6 --rounds 10

  # a decomposable objective (facility location, greedy with the exponential mechanism)
  disguise budget --epsilon 1 --delta 1e-6 --rounds 1000 --decomposable

  # the large margin mechanisms: (ε₀, δ₀) per round, basic and advanced composition only
  disguise budget --epsilon 1 --delta 1e-6 --rounds 5 --kind approximate --format json

Per-round values in the table are rounded down (spending them never exceeds the total); the
JSON output has every digit. The command fails (exit code 2) when no rule fits the budget,
after printing the table that says why.";

/// Arguments of `disguise budget`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Total privacy budget ε of the whole run (finite, > 0), e.g. `--epsilon 0.1`.
    #[arg(long, allow_negative_numbers = true)]
    epsilon: f64,
    /// Total δ of the whole run, in [0, 1), e.g. `--delta 1e-6`.
    #[arg(long, allow_negative_numbers = true)]
    delta: f64,
    /// Number of rounds k (adaptive selections), at least 1, e.g. `--rounds 10`.
    #[arg(long, allow_negative_numbers = true)]
    rounds: i64,
    /// The objective is decomposable (a sum over records of monotone per-record parts, such as
    /// facility location) and every round is the private greedy's exponential mechanism: also
    /// offer the k-independent decomposable rule ε = (e^{ε₀/2} − 1)·G(δ), proven for
    /// replace-one neighbours in docs/proofs/decomposable-greedy.md (after Gupta et al.,
    /// mitrovic2017 Thm 3.1, which is stated for add/remove neighbours).
    #[arg(long)]
    decomposable: bool,
    /// The selector called in every round.
    #[arg(long, value_parser = named::<CallKind>(), default_value_t)]
    kind: CallKind,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Runs `disguise budget`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.rounds < 1 {
        anyhow::bail!("invalid rounds: must be at least 1, got {}", args.rounds);
    }
    crate::output::check_epsilon("--epsilon", args.epsilon)?;
    let query = BudgetQuery::new(args.epsilon, args.delta, args.rounds as u64)?
        .with_kind(args.kind)
        .with_decomposable(args.decomposable);
    let result = plan(&query)?;
    print_report(args.format, &result, false, || {
        disguise::text::budget_table(&result)
    })?;
    // The table (or JSON) above says rule by rule why; the error line sums it up.
    if let Some(line) = disguise::text::no_rule_fits(&result) {
        anyhow::bail!(line);
    }
    Ok(())
}
