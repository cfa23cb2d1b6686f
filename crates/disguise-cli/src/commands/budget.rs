//! `disguise budget`: the per-round ε₀ a total (ε, δ) budget allows under every composition
//! rule, and the best one.

use super::common::names::named;
use crate::output::{Format, budget, input, print_json, thousands};
use disguise::privacy::budget::{BudgetPlan, BudgetQuery, CallKind, plan};

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
    match args.format {
        Format::Json => print_json(&result)?,
        Format::Table => print_table(&result),
    }
    if result.best.is_none() {
        // The table (or JSON) above says rule by rule why; the error line sums it up.
        let mut reasons: Vec<String> = Vec::new();
        for r in &result.rules {
            if let Some(note) = &r.note
                && !reasons.iter().any(|seen| seen.ends_with(note.as_str()))
            {
                reasons.push(format!("{}: {note}", r.rule));
            }
        }
        anyhow::bail!(
            "no composition rule fits a total (ε, δ) = ({}, {}) over {} rounds of {} calls ({})",
            input(result.epsilon),
            input(result.delta),
            thousands(result.rounds),
            kind_phrase(result.kind),
            reasons.join("; ")
        );
    }
    Ok(())
}

fn kind_phrase(kind: CallKind) -> &'static str {
    match kind {
        CallKind::BoundedRange => "exponential-mechanism (bounded-range)",
        CallKind::Pure => "pure ε₀-DP",
        CallKind::Approximate => "approximate (ε₀, δ₀)",
    }
}

fn print_table(p: &BudgetPlan) {
    println!(
        "total budget ε = {}, δ = {} over {} rounds of {} calls{}",
        input(p.epsilon),
        input(p.delta),
        thousands(p.rounds),
        kind_phrase(p.kind),
        if p.decomposable {
            ", decomposable objective"
        } else {
            ""
        }
    );
    println!();
    let rows: Vec<[String; 5]> = p
        .rules
        .iter()
        .map(|r| {
            [
                r.rule.to_string(),
                r.per_round_epsilon.map_or_else(|| "-".to_string(), budget),
                r.per_round_delta.map_or_else(|| "-".to_string(), budget),
                if r.valid { "yes" } else { "no" }.to_string(),
                r.note.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let header = ["rule", "per-round ε₀", "per-round δ₀", "valid", "note"];
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 5]| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                out.push_str(cell);
            } else {
                out.push_str(cell);
                out.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
            }
        }
        println!("{}", out.trim_end());
    };
    line(header);
    for row in &rows {
        line([&row[0], &row[1], &row[2], &row[3], &row[4]]);
    }
    println!();
    println!("(per-round values rounded down: spending them stays within the total)");
    match p.best {
        Some(b) => println!(
            "best: {} — ε₀ = {} per round{}",
            b.rule,
            budget(b.per_round_epsilon),
            if b.per_round_delta > 0.0 {
                format!(", δ₀ = {}", budget(b.per_round_delta))
            } else {
                String::new()
            }
        ),
        None => println!("best: none — no composition rule fits this budget"),
    }
}
