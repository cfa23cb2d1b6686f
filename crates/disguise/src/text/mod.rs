//! Reports for people: the lines and tables a front end prints for a task's report, the
//! budget ledger's state and the single releases (itemsets, projected histograms, stumps).
//!
//! Pure formatting, kept apart from the tasks as a printer is kept apart from the program
//! that calls it: every function takes a report (and, where a line repeats it, the budget
//! as the user typed it) and returns text; nothing here reads a file or prints. Multi-line
//! renderings end each line with `\n`; one-line renderings have no line end. Numbers
//! follow [`crate::numeric::display`] (a budget rounded down, a guarantee up) and
//! [`crate::numeric::decimal`] (a ledger's budgets as typed). What only a front end knows —
//! the name of its options, the file it wrote — is left to it: a function returns `None`
//! where the line it would write depends on it (a non-private run).

mod budget;
#[cfg(feature = "ledger")]
mod ledger;
mod picks;
mod releases;
mod sample;
mod tasks;

pub use budget::{budget_table, no_rule_fits};
#[cfg(feature = "ledger")]
pub use ledger::{
    charged_line, command_line, default_limit_line, failure_line, limit_words, overview_text,
    releases_csv, releases_table, releases_written, status_line,
};
pub use picks::{Labels, picks_closing, picks_opening, trial_csv_rows, trial_line};
pub use releases::{
    demo_table, histogram_columns_note, histogram_nothing_released, histogram_summary,
    hypothesis_table, itemsets_nothing_released, itemsets_table, itemsets_truncated, kept_summary,
    synth_noise_warning, synth_summary,
};
pub use sample::sample_table;
pub use tasks::{
    assign_preamble, coverage_preamble, cut_preamble, features_preamble, metric_line,
    select_preamble, topics_preamble,
};

use crate::disclosure::{Diagnostic, Public};
use crate::numeric::display::{budget, fixed, guarantee, input, thousands};
use crate::task::{Picks, PrivacyReport, Usefulness};

/// The line that follows a guarantee of a run made with a seeded (insecure) generator, its
/// indentation under the word `guarantee:`.
pub const SEEDED: &str =
    "\n           (only with a secure generator: this seeded run is NOT private)";

/// What a front end prints of a run's a-priori usefulness, as (level, text): a vacuous
/// worst-case bound is a `note` that the theorem says nothing at these parameters; a vacuous
/// expectation about the release itself is a `warning`. `None` when the bound is not vacuous.
pub fn usefulness_line(usefulness: &Usefulness) -> Option<(&'static str, String)> {
    if !usefulness.vacuous {
        return None;
    }
    let advice = usefulness
        .advice
        .as_deref()
        .unwrap_or("a larger ε would tighten it");
    Some(if usefulness.worst_case {
        (
            "note",
            format!(
                "the worst-case guarantee says nothing at these parameters (the release may \
                 still be good): {}; {advice}",
                usefulness.bound
            ),
        )
    } else {
        (
            "warning",
            format!(
                "most of the release is expected to be noise: {}; {advice}",
                usefulness.bound
            ),
        )
    })
}

/// The line that says what [`Parts::write`](crate::data::generate::Parts::write) wrote:
/// the points in their part files, and the candidates.
///
/// ```
/// use disguise::data::generate::{PartFormat, Parts, Written};
/// let request = Parts { n: 100, parts: 1, candidates: 5, format: PartFormat::Csv, seed: 1 };
/// let written = Written {
///     folder: "out/points".into(),
///     files: vec!["out/points/part-00000.csv".into()],
///     candidates: "out/candidates.csv".into(),
/// };
/// assert_eq!(
///     disguise::text::generated_line(&request, &written),
///     "wrote 100 points in 1 csv part to out/points and 5 candidates to out/candidates.csv"
/// );
/// ```
pub fn generated_line(
    request: &crate::data::generate::Parts,
    written: &crate::data::generate::Written,
) -> String {
    let parts = request.parts;
    format!(
        "wrote {} points in {parts} {} part{} to {} and {} candidates to {}",
        request.n,
        request.format.extension(),
        if parts == 1 { "" } else { "s" },
        written.folder.display(),
        request.candidates,
        written.candidates.display(),
    )
}

/// The budget line of a greedy run: the total (ε, δ) as typed and how it was split into the
/// per-round ε₀ (and δ₀); `None` for a run without a budget (non-private).
///
/// ```
/// use disguise::task::{Select, WithPrivacy};
/// let plan = Select::new(3).epsilon(1.0).plan(10)?;
/// let line = disguise::text::budget_line(&plan, 1.0, 0.0).unwrap();
/// assert!(line.starts_with("budget: total ε = 1, δ = 0, split by"));
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn budget_line(report: &PrivacyReport, epsilon: f64, delta: f64) -> Option<String> {
    let (e0, rule) = (*report.per_round_epsilon?, report.composition?);
    let d0 = match report.per_round_delta.map(Public::into_inner) {
        Some(d0) if d0 > 0.0 => format!(", δ₀ = {}", budget(d0)),
        _ => String::new(),
    };
    let mut estimate = report.estimate_epsilon.map_or_else(String::new, |e| {
        format!(
            ";\n        and ε = {} for the utility estimate",
            guarantee(*e)
        )
    });
    if let Some(e) = report.edges_epsilon {
        estimate.push_str(&format!(
            ";\n        and first ε = {} for private bin edges",
            guarantee(*e)
        ));
    }
    Some(format!(
        "budget: total ε = {}, δ = {}, split by {rule} composition into ε₀ = {}{d0} per round \
         over {} rounds{estimate}",
        input(epsilon),
        input(delta),
        budget(e0),
        report.rounds
    ))
}

/// The line of a private utility estimate: the estimate and its interval, rounded as
/// people read them (3 decimals; the interval outward), and what it spent.
///
/// ```
/// use disguise::disclosure::{Public, Released};
/// use disguise::task::UtilityEstimate;
/// let e = UtilityEstimate {
///     estimate: Released::new(0.8712), low: Released::new(0.8493),
///     high: Released::new(0.8931), confidence: Public::new(0.95), epsilon: Public::new(0.1),
///     sensitivity: Public::new(1e-4), noise_scale: Public::new(1e-3), mechanism: "laplace",
/// };
/// assert_eq!(
///     disguise::text::utility_estimate_line(&e),
///     "utility estimate (private, Laplace, ε = 0.1): 0.871, 95 % interval [0.849, 0.894]"
/// );
/// ```
pub fn utility_estimate_line(e: &crate::task::UtilityEstimate) -> String {
    let down = |x: f64| fixed((x * 1000.0).floor() / 1000.0, 3);
    let up = |x: f64| fixed((x * 1000.0).ceil() / 1000.0, 3);
    format!(
        "utility estimate (private, Laplace, ε = {}): {}, {} % interval [{}, {}]",
        guarantee(*e.epsilon),
        fixed(*e.estimate, 3),
        fixed(*e.confidence * 100.0, 0),
        down(*e.low),
        up(*e.high)
    )
}

/// The guarantee line of a greedy run, saying what neighbouring data sets differ in (the
/// report's unit), with a second line for `trials` runs released together and one for a
/// seeded run ([`SEEDED`]); `None` for a non-private run.
pub fn guarantee_line(report: &PrivacyReport, trials: Option<u64>, secure: bool) -> Option<String> {
    let g = report.guarantee?;
    let neighbours = report.unit.neighbours();
    let mut line = match (
        report.selection_guarantee,
        report.estimate_epsilon.map(Public::into_inner),
    ) {
        (Some(picks), Some(e)) => format!(
            "guarantee: ({}, {})-differentially private for the picks and the utility estimate \
             together ({neighbours})\n           by basic composition of the picks' ({}, {}), \
             proved by {} composition, and the estimate's ε = {}",
            guarantee(g.epsilon),
            guarantee(g.delta),
            guarantee(picks.epsilon),
            guarantee(picks.delta),
            picks.rule,
            guarantee(e)
        ),
        _ => format!(
            "guarantee: ({}, {})-differentially private, proved by {} composition ({neighbours})",
            guarantee(g.epsilon),
            guarantee(g.delta),
            g.rule
        ),
    };
    if let Some(n) = trials {
        let n = thousands(n);
        line.push_str(&format!(
            "\n           for each trial; the {n} trials together spend {n} times as much"
        ));
    }
    if !secure {
        line.push_str(SEEDED);
    }
    Some(line)
}

/// The guarantee as CSV cells: per-round ε, ε, δ, rule (each empty when there is none),
/// every number in full (Rust's shortest round-trip form).
pub fn guarantee_cells(report: &PrivacyReport) -> [String; 4] {
    let opt = |x: Option<f64>| x.map_or_else(String::new, |v| format!("{v:?}"));
    [
        opt(report.per_round_epsilon.map(Public::into_inner)),
        opt(report.guarantee.map(|g| g.epsilon)),
        opt(report.guarantee.map(|g| g.delta)),
        report
            .guarantee
            .map_or_else(String::new, |g| g.rule.name().to_string()),
    ]
}

/// The CSV header of a greedy run's picks, one row per pick of every trial (`typed`: with
/// each pick's type; `diagnostics`: with the exact value and utility after the pick, in
/// columns named `not_private_…`), the rows being [`pick_cells`] followed by
/// [`guarantee_cells`].
pub fn picks_csv_header(typed: bool, diagnostics: bool) -> Vec<&'static str> {
    let mut header = vec!["trial", "pick", "index", "name"];
    if typed {
        header.push("type");
    }
    if diagnostics {
        header.extend(["not_private_value", "not_private_utility"]);
    }
    header.extend(["per_round_epsilon", "epsilon", "delta", "rule"]);
    header
}

/// The first cells of a CSV row of [`picks_csv_header`]: trial and pick (from 1), the
/// element's index and name, its type's name when there is one, and with diagnostics the
/// exact value and utility after the pick, in full.
pub fn pick_cells(
    trial: u64,
    pick: usize,
    element: usize,
    name: &str,
    type_name: Option<&str>,
    exact: Option<Diagnostic<(f64, f64)>>,
) -> Vec<String> {
    let mut row = vec![
        (trial + 1).to_string(),
        (pick + 1).to_string(),
        element.to_string(),
        name.to_string(),
    ];
    if let Some(t) = type_name {
        row.push(t.to_string());
    }
    if let Some(exact) = exact {
        let (value, utility) = exact.into_revealed();
        row.push(format!("{value:?}"));
        row.push(format!("{utility:?}"));
    }
    row
}

/// The header of the one-line-per-trial table of a run of several trials.
pub fn trials_header(typed: bool) -> String {
    let chosen = if typed { "chosen (type)" } else { "chosen" };
    format!("{:>6}  {chosen}, in order", "trial")
}

/// One line of the trials table: the trial (from 1) and its picks in order (as
/// [`pick_label`] names them).
pub fn trial_row(trial: u64, chosen: &[String]) -> String {
    format!("{:>6}  {}", trial + 1, chosen.join("; "))
}

/// The final utility of many trials (exact: a diagnostic), summarised: its mean and
/// standard deviation over the trials.
pub fn trials_summary(trials: u64, mean: f64, std: f64) -> String {
    format!(
        "over {} trials: mean {}, standard deviation {}",
        thousands(trials),
        fixed(mean, 6),
        fixed(std, 6)
    )
}

/// A pick as the trials table names it: `name`, or `name (type)` for a typed run.
pub fn pick_label(name: &str, type_name: Option<&str>) -> String {
    match type_name {
        Some(t) => format!("{name} ({t})"),
        None => name.to_string(),
    }
}

/// The table of one run's picks: a header, then one line per pick (with its type for a
/// typed run: `types` names them); `names` names the elements. Each line ends with `\n`.
/// The picks' exact values are diagnostics ([`not_private_section`]).
///
/// ```
/// use disguise::disclosure::{Diagnostic, Released};
/// use disguise::task::Picks;
/// let picks = Picks {
///     selected: Released::new(vec![1]),
///     types: None,
///     names: None,
///     values: Diagnostic::new(vec![2.5]),
///     utility: Diagnostic::new(vec![0.25]),
///     final_utility: Diagnostic::new(0.25),
///     gain_evaluations: Diagnostic::new(2),
/// };
/// let names = ["a".to_string(), "b".to_string()];
/// let table = disguise::text::picks_table(&picks, &names, None);
/// assert_eq!(table.lines().nth(1).unwrap().split_whitespace().collect::<Vec<_>>(),
///            ["1", "1", "b"]);
/// assert!(!table.contains("2.5"));
/// ```
pub fn picks_table(picks: &Picks, names: &[String], types: Option<&[String]>) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let type_header = if types.is_some() { "  type" } else { "" };
    let _ = writeln!(out, "{:>4}  {:>6}  name{type_header}", "pick", "index");
    for (i, &v) in picks.selected.iter().enumerate() {
        let ty = match (types, picks.types.as_ref().and_then(|t| t.get(i))) {
            (Some(type_names), Some(&t)) => format!("  {}", type_names[t]),
            _ => String::new(),
        };
        let _ = writeln!(out, "{:>4}  {v:>6}  {}{ty}", i + 1, names[v]);
    }
    if picks.selected.is_empty() {
        out.push_str("(nothing was chosen)\n");
    }
    out
}

/// The heading of a report's diagnostics, as a front end prints them after the release.
pub const NOT_PRIVATE_HEADING: &str = "not private — computed on the data without noise, NOT \
     covered by the guarantee (shown on request; do not forward):";

/// The diagnostics of a report ([`Disclose::not_private`](crate::disclosure::Disclose)) as
/// indented lines under [`NOT_PRIVATE_HEADING`], each key with its value: numbers in full,
/// lists of more than `MAX_LISTED` numbers cut short (the JSON report holds them all). Each
/// line ends with `\n`; empty when there are none.
///
/// ```
/// let v = serde_json::json!({"edges": 4, "values": [1.0, 2.5], "picks": [{"true_count": 3}]});
/// let text = disguise::text::not_private_section(Some(&v));
/// assert!(text.starts_with("not private"));
/// assert!(text.contains("\n  edges: 4\n"), "{text}");
/// assert!(text.contains("\n  values: 1.0, 2.5\n"), "{text}");
/// assert!(text.contains("\n  picks:\n    1. true_count: 3\n"), "{text}");
/// assert_eq!(disguise::text::not_private_section(None), "");
/// ```
pub fn not_private_section(not_private: Option<&serde_json::Value>) -> String {
    let Some(value) = not_private else {
        return String::new();
    };
    let mut out = format!("{NOT_PRIVATE_HEADING}\n");
    diagnostic_lines(&mut out, value, 1);
    out
}

/// A single release for people: its `table`, then with `diagnostics` a blank line and the
/// report's diagnostics ([`not_private_section`]), the whole output of a release printed as
/// text.
///
/// ```
/// use disguise::disclosure::{Diagnostic, Disclose, Public};
/// #[derive(serde::Serialize, Disclose)]
/// struct Counted {
///     records: Public<u64>,
///     #[serde(skip)]
///     exact: Diagnostic<u64>,
/// }
/// let r = Counted { records: Public::new(10), exact: Diagnostic::new(7) };
/// assert_eq!(disguise::text::with_not_private("10 records\n".into(), &r, false), "10 records\n");
/// let shown = disguise::text::with_not_private("10 records\n".into(), &r, true);
/// assert!(shown.starts_with("10 records\n\nnot private"), "{shown}");
/// assert!(shown.ends_with("\n  exact: 7\n"), "{shown}");
/// ```
pub fn with_not_private<T: crate::disclosure::Disclose>(
    table: String,
    report: &T,
    diagnostics: bool,
) -> String {
    if !diagnostics {
        return table;
    }
    format!(
        "{table}\n{}",
        not_private_section(report.not_private().as_ref())
    )
}

/// Lists of numbers longer than this are cut short in text.
const MAX_LISTED: usize = 20;

fn diagnostic_lines(out: &mut String, value: &serde_json::Value, depth: usize) {
    use serde_json::Value;
    use std::fmt::Write;
    let indent = "  ".repeat(depth);
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match v {
                    Value::Object(_) => {
                        let _ = writeln!(out, "{indent}{key}:");
                        diagnostic_lines(out, v, depth + 1);
                    }
                    Value::Array(items) if items.iter().any(|i| i.is_object()) => {
                        let _ = writeln!(out, "{indent}{key}:");
                        for (i, item) in items.iter().enumerate() {
                            let mut inner = String::new();
                            diagnostic_lines(&mut inner, item, 0);
                            let inner = inner.trim_end().replace('\n', "; ");
                            let _ = writeln!(out, "{indent}  {}. {inner}", i + 1);
                        }
                    }
                    _ => {
                        let _ = writeln!(out, "{indent}{key}: {}", scalar_text(v));
                    }
                }
            }
        }
        other => {
            let _ = writeln!(out, "{indent}{}", scalar_text(other));
        }
    }
}

/// A value on one line: lists comma-separated (cut after [`MAX_LISTED`] items), strings
/// bare.
fn scalar_text(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Null => "none".into(),
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let shown: Vec<String> = items.iter().take(MAX_LISTED).map(scalar_text).collect();
            let more = items.len().saturating_sub(MAX_LISTED);
            if more > 0 {
                format!(
                    "{}, … ({} in all; --format json lists every one)",
                    shown.join(", "),
                    thousands(items.len() as u64)
                )
            } else if items.iter().any(Value::is_array) {
                format!("[{}]", shown.join("], ["))
            } else {
                shown.join(", ")
            }
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disclosure::Released;
    use crate::privacy::Guarantee;
    use crate::privacy::compose::Rule;

    fn report(guarantee: Option<Guarantee>) -> PrivacyReport {
        PrivacyReport {
            per_round_epsilon: guarantee.map(|_| Public::new(0.25)),
            per_round_delta: None,
            composition: guarantee.map(|_| "basic"),
            ..PrivacyReport::stating(guarantee, 4, Vec::new())
        }
    }

    #[test]
    fn a_non_private_run_has_no_budget_or_guarantee_line() {
        let r = report(None);
        assert_eq!(budget_line(&r, 1.0, 0.0), None);
        assert_eq!(guarantee_line(&r, Some(3), false), None);
        assert_eq!(guarantee_cells(&r), [""; 4].map(String::from));
    }

    #[test]
    fn the_guarantee_line_says_trials_and_a_seeded_run() {
        let g = Guarantee {
            epsilon: 1.0,
            delta: 0.0,
            rule: Rule::Basic,
        };
        let r = report(Some(g));
        assert_eq!(
            budget_line(&r, 1.0, 0.0).unwrap(),
            "budget: total ε = 1, δ = 0, split by basic composition into ε₀ = 0.25 per round \
             over 4 rounds"
        );
        let line = guarantee_line(&r, Some(1000), false).unwrap();
        let lines: Vec<&str> = line.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[0].contains("(neighbouring datasets differ in one record)"),
            "{line}"
        );
        let edge = PrivacyReport {
            unit: crate::privacy::Unit::Edge,
            ..r
        };
        let line = guarantee_line(&edge, None, true).unwrap();
        assert!(line.contains("differ in one edge"), "{line}");
        assert!(lines[1].contains("the 1,000 trials together"), "{line}");
        assert!(lines[2].contains("seeded run is NOT private"), "{line}");
    }

    #[test]
    fn an_empty_choice_says_so() {
        let picks = Picks {
            selected: Released::new(vec![]),
            types: None,
            names: None,
            values: Diagnostic::new(vec![]),
            utility: Diagnostic::new(vec![]),
            final_utility: Diagnostic::new(0.0),
            gain_evaluations: Diagnostic::new(0),
        };
        let table = picks_table(&picks, &[], Some(&["t".to_string()]));
        assert!(table.ends_with("(nothing was chosen)\n"), "{table}");
        assert_eq!(pick_label("a", Some("t")), "a (t)");
    }
}
