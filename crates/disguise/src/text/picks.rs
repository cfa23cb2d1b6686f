//! A greedy run's picks as a front end prints them while its trials run: how the picks are
//! named and valued ([`Labels`]), the table's opening lines, one trial's line or CSV rows,
//! and the closing lines (the picks of a single run, the guarantee, the diagnostics).

use super::{
    budget_line, guarantee_cells, guarantee_line, not_private_section, pick_cells, pick_label,
    picks_table, trial_row, trials_header, trials_summary, utility_estimate_line,
};
use crate::disclosure::{Diagnostic, Disclose};
use crate::numeric::stats::MeanStd;
use crate::task::{Params, Picked, PrivacyReport, Report};

/// How a greedy run's picks are named and valued for people: element names, type names
/// (k-submodular runs) and the task's utility of an objective value.
pub struct Labels<'a> {
    /// Name of every element.
    pub names: &'a [String],
    /// Name of every type; `None` for runs without types.
    pub types: Option<&'a [String]>,
    /// The utility of an objective value (e.g. f(S)/n): the task's.
    pub utility: &'a dyn Fn(f64) -> f64,
    /// What the diagnostics' values and utilities are, said under their heading.
    pub note: &'a str,
}

impl<'a> Labels<'a> {
    /// Untyped picks named by `names`, valued by `utility`, the diagnostics saying `note`
    /// on what the values are (`""`: nothing).
    pub fn new(names: &'a [String], utility: &'a dyn Fn(f64) -> f64, note: &'a str) -> Self {
        Self {
            names,
            types: None,
            utility,
            note,
        }
    }

    /// The same, each pick with one of `types`.
    pub fn typed(self, types: &'a [String]) -> Self {
        Self {
            types: Some(types),
            ..self
        }
    }

    /// The name of the type of pick `i` of a run whose picks have `types`, for a typed run.
    pub fn type_of(&self, types: Option<&[usize]>, i: usize) -> Option<&str> {
        match (self.types, types.and_then(|t| t.get(i))) {
            (Some(names), Some(&t)) => Some(&names[t]),
            _ => None,
        }
    }
}

/// The lines of a picks table between the task's opening lines and the picks: the budget
/// line ([`budget_line`]; for a run without a budget, that `--mechanism max` is the
/// non-private baseline, the option named by `flag`), a blank line, and for a run of
/// several `trials` the header of their table. `epsilon` and `delta` are the budget as
/// typed. Each line ends with `\n`.
///
/// ```
/// use disguise::task::{Select, WithPrivacy};
/// let plan = Select::new(3).epsilon(1.0).plan(10)?;
/// let flag = |p: &str| format!("--{p}");
/// let report = disguise::task::Report {
///     task: (), usefulness: None, choice: (), utility_estimate: None, privacy: plan,
///     secure_rng: disguise::disclosure::Public::new(true),
/// };
/// let text = disguise::text::picks_opening(&report, Some(1.0), 0.0, true, false, &flag);
/// assert!(text.starts_with("budget: total ε = 1, δ = 0, split by"), "{text}");
/// assert!(text.ends_with("\n\n trial  chosen, in order\n"), "{text}");
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn picks_opening<P, C>(
    report: &Report<P, C>,
    epsilon: Option<f64>,
    delta: f64,
    trials: bool,
    typed: bool,
    flag: &dyn Fn(&str) -> String,
) -> String {
    let budget = budget_line(&report.privacy, epsilon.unwrap_or(f64::NAN), delta);
    let budget = budget.unwrap_or_else(|| {
        let max = flag("mechanism");
        format!("budget: none ({max} max is the non-private baseline)")
    });
    let header = if trials {
        format!("{}\n", trials_header(typed))
    } else {
        String::new()
    };
    format!("{budget}\n\n{header}")
}

/// The line of trial `t` in the table of several trials: its picks in order, each named
/// as [`pick_label`] names it. Without `\n`.
pub fn trial_line<T: Picked>(t: u64, trial: &T, labels: &Labels<'_>) -> String {
    let chosen: Vec<String> = (trial.solution().elements.iter().enumerate())
        .map(|(i, &v)| pick_label(&labels.names[v], labels.type_of(trial.types(), i)))
        .collect();
    trial_row(t, &chosen)
}

/// The CSV rows of trial `t`, one per pick ([`pick_cells`], with diagnostics the exact
/// value and utility after the pick), each followed by the guarantee's cells
/// ([`guarantee_cells`] of `privacy`, the first trial's): the rows of
/// [`picks_csv_header`](super::picks_csv_header).
pub fn trial_csv_rows<T: Picked>(
    t: u64,
    trial: &T,
    labels: &Labels<'_>,
    privacy: &PrivacyReport,
    diagnostics: bool,
) -> Vec<Vec<String>> {
    let s = trial.solution();
    let cells = guarantee_cells(privacy);
    let rows = s.elements.iter().enumerate().map(|(i, &v)| {
        let type_name = labels.type_of(trial.types(), i);
        // The exact value after the pick: a diagnostic, in its own columns.
        let exact = diagnostics.then(|| {
            let value = s.values[i];
            Diagnostic::new((value, (labels.utility)(value)))
        });
        let mut row = pick_cells(t, i, v, &labels.names[v], type_name, exact);
        row.extend(cells.iter().cloned());
        row
    });
    rows.collect()
}

/// The end of a picks table, after its opening and the trials' lines: the picks of a
/// single run ([`picks_table`]; none for several trials), a blank line, the utility
/// estimate if one was released, the guarantee ([`guarantee_line`]; for a non-private run,
/// that it has none, `--mechanism` named by `flag`) and with `diagnostics` a blank line and
/// the diagnostics' section: one run's exact values and what the task counted, or for
/// several trials (`trials`: their number and final utilities) the final utilities
/// summarised ([`trials_summary`]), under the labels' note. `first` is the first trial's
/// report. Each line ends with `\n`.
pub fn picks_closing<P: Params>(
    first: &Report<P>,
    labels: &Labels<'_>,
    trials: Option<(u64, Diagnostic<MeanStd>)>,
    diagnostics: bool,
    flag: &dyn Fn(&str) -> String,
) -> String {
    let mut out = match trials {
        Some(_) => String::new(),
        None => picks_table(&first.choice, labels.names, labels.types),
    };
    out.push('\n');
    if let Some(e) = &first.utility_estimate {
        out.push_str(&format!("{}\n", utility_estimate_line(e)));
    }
    let count = trials.as_ref().map(|(n, _)| *n);
    let line = guarantee_line(&first.privacy, count, *first.secure_rng).unwrap_or_else(|| {
        let max = flag("mechanism");
        format!("guarantee: NONE — NOT private ({max} max is the non-private greedy baseline)")
    });
    out.push_str(&format!("{line}\n"));
    if !diagnostics {
        return out;
    }
    let mut section = match trials {
        // One run: its picks' values and utilities, and what the task counted.
        None => first.not_private(),
        // Many: their final utilities, summarised (every trial's in JSON).
        Some((n, finals)) => {
            let f = finals.into_revealed();
            let mut m = serde_json::Map::new();
            m.insert(
                "final_utility".into(),
                serde_json::json!(trials_summary(n, f.mean(), f.std())),
            );
            if let Some(serde_json::Value::Object(task)) = first.task.not_private() {
                m.extend(task);
            }
            Some(serde_json::Value::Object(m))
        }
    };
    if let (Some(serde_json::Value::Object(m)), false) = (section.as_mut(), labels.note.is_empty())
    {
        m.insert("note".into(), serde_json::json!(labels.note));
    }
    out.push('\n');
    out.push_str(&not_private_section(section.as_ref()));
    out
}
