//! The budget solver's plan for people: every rule's per-round budget, the best one, and
//! why none fits.

use crate::numeric::display::{budget, input, thousands};
use crate::privacy::budget::{BudgetPlan, CallKind};
use std::fmt::Write as _;

/// The calls of a plan in words.
fn kind_phrase(kind: CallKind) -> &'static str {
    match kind {
        CallKind::BoundedRange => "exponential-mechanism (bounded-range)",
        CallKind::Pure => "pure ε₀-DP",
        CallKind::Approximate => "approximate (ε₀, δ₀)",
    }
}

/// The table of a budget plan: the total, one aligned row per composition rule (per-round
/// ε₀ and δ₀ rounded down, whether it applies, why not) and the best rule. Each line ends
/// with `\n`.
///
/// ```
/// use disguise::privacy::budget::{BudgetQuery, plan};
/// let p = plan(&BudgetQuery::new(1.0, 1e-6, 10)?)?;
/// let table = disguise::text::budget_table(&p);
/// assert!(table.starts_with("total budget ε = 1, δ = "));
/// assert!(table.lines().next().unwrap().contains(" over 10 rounds of "));
/// assert!(table.lines().any(|l| l.starts_with("best: ")));
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn budget_table(p: &BudgetPlan) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "total budget ε = {}, δ = {} over {} rounds of {} calls{}",
        input(*p.epsilon),
        input(*p.delta),
        thousands(*p.rounds),
        kind_phrase(*p.kind),
        if *p.decomposable {
            ", decomposable objective"
        } else {
            ""
        }
    );
    out.push('\n');
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
    let mut line = |cells: [&str; 5]| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            text.push_str(cell);
            if i + 1 < cells.len() {
                text.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(header);
    for row in &rows {
        line([&row[0], &row[1], &row[2], &row[3], &row[4]]);
    }
    out.push('\n');
    out.push_str("(per-round values rounded down: spending them stays within the total)\n");
    let _ = match p.best {
        Some(b) => writeln!(
            out,
            "best: {} — ε₀ = {} per round{}",
            b.rule,
            budget(b.per_round_epsilon),
            if b.per_round_delta > 0.0 {
                format!(", δ₀ = {}", budget(b.per_round_delta))
            } else {
                String::new()
            }
        ),
        None => writeln!(out, "best: none — no composition rule fits this budget"),
    };
    out
}

/// One line saying that no rule fits a plan, with each rule's distinct reason; `None` when
/// one fits.
pub fn no_rule_fits(p: &BudgetPlan) -> Option<String> {
    if p.best.is_some() {
        return None;
    }
    let mut reasons: Vec<String> = Vec::new();
    for r in &p.rules {
        if let Some(note) = &r.note
            && !reasons.iter().any(|seen| seen.ends_with(note.as_str()))
        {
            reasons.push(format!("{}: {note}", r.rule));
        }
    }
    Some(format!(
        "no composition rule fits a total (ε, δ) = ({}, {}) over {} rounds of {} calls ({})",
        input(*p.epsilon),
        input(*p.delta),
        thousands(*p.rounds),
        kind_phrase(*p.kind),
        reasons.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::budget::{BudgetQuery, plan};

    #[test]
    fn a_budget_too_small_for_every_rule_says_why() {
        let query = BudgetQuery::new(1e-300, 0.0, u64::MAX).unwrap();
        let p = plan(&query).unwrap();
        if p.best.is_none() {
            let line = no_rule_fits(&p).unwrap();
            assert!(
                line.starts_with("no composition rule fits a total"),
                "{line}"
            );
            assert!(budget_table(&p).contains("best: none"));
        }
        let fits = plan(&BudgetQuery::new(1.0, 0.0, 2).unwrap()).unwrap();
        assert_eq!(no_rule_fits(&fits), None);
    }
}
