//! Many runs of one selector for people: how often each candidate was picked.

use crate::numeric::display::{fixed, guarantee, input, thousands};
use crate::task::SampleReport;
use std::fmt::Write as _;

/// The table of a sample of runs on `scores`: a line on the runs' guarantee, then the
/// `top` candidates picked most (most first, ties by index; the rest summed as `others`),
/// or with `per_score` one line per score. A line that names an option names it as `flag`
/// spells it (`top`, `per_score`, `format`). Each line ends with `\n`.
pub fn sample_table(
    report: &SampleReport,
    scores: &[f64],
    top: u64,
    per_score: bool,
    flag: &dyn Fn(&str) -> String,
) -> String {
    let mut out = String::new();
    let (mechanism, counts) = (report.mechanism, &*report.counts);
    let trials = thousands(*report.trials);
    let guaranteed = (report.guarantee.epsilon.zip(report.guarantee.delta)).map(|(e, d)| (*e, *d));
    let _ = match guaranteed {
        Some((e, d)) => writeln!(
            out,
            "{mechanism}: {trials} runs, each ({}, {})-DP (the counts of all runs together are \
             not a private release)",
            guarantee(e),
            guarantee(d)
        ),
        None => writeln!(
            out,
            "{mechanism}: {trials} runs, NOT private (non-private baseline)"
        ),
    };
    let share = |count: u64| fixed(count as f64 / *report.trials as f64, 4);
    let row = |out: &mut String, i: usize| {
        let _ = writeln!(
            out,
            "{i:>8}  {:>14}  {:>12}  {:>8}",
            input(scores[i]),
            thousands(counts[i]),
            share(counts[i])
        );
    };
    let header = |out: &mut String| {
        let _ = writeln!(
            out,
            "{:>8}  {:>14}  {:>12}  {:>8}",
            "index", "score", "count", "share"
        );
    };
    if per_score {
        header(&mut out);
        (0..scores.len()).for_each(|i| row(&mut out, i));
        return out;
    }
    // The candidates picked at least once, most picked first (ties by index).
    let mut picked: Vec<usize> = (0..counts.len()).filter(|&i| counts[i] > 0).collect();
    picked.sort_unstable_by_key(|&i| (std::cmp::Reverse(counts[i]), i));
    let shown = picked.len().min(usize::try_from(top).unwrap_or(usize::MAX));
    let best = scores
        .iter()
        .enumerate()
        .fold(0, |b, (i, &s)| if s > scores[b] { i } else { b });
    let _ = writeln!(
        out,
        "{} scores (highest {} at index {best}); {} of them picked at least once",
        thousands(scores.len() as u64),
        input(scores[best]),
        thousands(picked.len() as u64)
    );
    out.push('\n');
    if shown == 0 {
        let _ = writeln!(out, "({} 0: no rows)", flag("top"));
    } else {
        let _ = writeln!(
            out,
            "picked most ({} of {}):",
            thousands(shown as u64),
            thousands(picked.len() as u64)
        );
        header(&mut out);
        picked[..shown].iter().for_each(|&i| row(&mut out, i));
    }
    let rest: u64 = picked[shown..].iter().map(|&i| counts[i]).sum();
    if rest > 0 {
        let _ = writeln!(
            out,
            "{:>8}  {:>14}  {:>12}  {:>8}",
            "others",
            "",
            thousands(rest),
            share(rest)
        );
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "({} lists every score, {} json gives every count)",
        flag("per_score"),
        flag("format")
    );
    out
}
