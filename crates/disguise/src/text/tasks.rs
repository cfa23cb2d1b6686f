//! The opening lines of the selection tasks' tables: what was read, how distances are
//! measured, and the algorithm. A file is named as the front end names it (`points`,
//! `candidates`, `data`); an option as `flag` spells it.

use crate::numeric::display::{fixed, input, thousands};
use crate::objective::Metric;
use crate::task::{
    AssignParams, AssignReport, CoverageInput, CoverageParams, CutParams, FeatureObjective,
    FeaturesParams, SelectParams,
};
use std::fmt::Write as _;

/// The line naming the metric and the normaliser `m` in force, with its unit and where it
/// came from (`given` with the option `flag("normalizer")` names, or the default: the
/// candidates' bounding box).
///
/// ```
/// use disguise::objective::Metric;
/// let flag = |name: &str| format!("--{name}");
/// assert_eq!(
///     disguise::text::metric_line(Metric::Haversine, 2.5, true, &flag),
///     "metric haversine, normaliser m = 2.5 km (given with --normalizer)"
/// );
/// ```
pub fn metric_line(metric: Metric, m: f64, given: bool, flag: &dyn Fn(&str) -> String) -> String {
    let source = if given {
        format!("given with {}", flag("normalizer"))
    } else {
        "default: the diameter of the candidates' bounding box".to_string()
    };
    let unit = if metric == Metric::Haversine {
        " km"
    } else {
        ""
    };
    format!(
        "metric {}, normaliser m = {}{unit} ({source})",
        metric.name(),
        input(m)
    )
}

/// The opening lines of facility location: the points (in `points`) and candidates (in
/// `candidates`), the metric line ([`metric_line`]), the algorithm and any cost.
pub fn select_preamble(t: &SelectParams, points: &str, candidates: &str, metric: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "facility location: {} points ({points}), {} candidates ({candidates})",
        thousands(t.points as u64),
        thousands(t.candidates as u64),
    );
    let _ = writeln!(out, "{metric}");
    let _ = writeln!(
        out,
        "algorithm {}, mechanism {}, constraint {}, k = {}",
        t.algorithm, t.mechanism, t.constraint, t.k
    );
    if t.cost > 0.0 {
        let _ = writeln!(
            out,
            "cost per location: {} points served (objective f(S) − cost·|S|, non-monotone)",
            t.cost
        );
    }
    out
}

/// The opening lines of k-type facility location: the points of each type (in `points`),
/// the candidates (in `candidates`), the metric line ([`metric_line`]) and the algorithm.
pub fn assign_preamble(r: &AssignReport, points: &str, candidates: &str, metric: &str) -> String {
    let t = &r.task;
    let per_type = t.points_per_type.as_deref().unwrap_or(&[]);
    let types: Vec<String> = t
        .type_names
        .iter()
        .zip(per_type)
        .map(|(t, c)| format!("{t}: {}", thousands(*c as u64)))
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "k-type facility location: {} points ({points}) of {} types ({}), {} candidates \
         ({candidates})",
        thousands(t.records as u64),
        t.type_names.len(),
        types.join(", "),
        thousands(t.candidates as u64),
    );
    let _ = writeln!(out, "{metric}");
    let _ = writeln!(
        out,
        "algorithm {}, mechanism {}, constraint {}, {} gain evaluations",
        t.algorithm,
        t.mechanism,
        t.constraint,
        thousands(r.choice.gain_evaluations)
    );
    out
}

/// The opening lines of k-topic influence: the people, seeds and topics, the pairs left
/// out (`dropped`) and the algorithm.
pub fn topics_preamble(t: &AssignParams, dropped: u64, flag: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "k-topic influence: {} people, {} seeds, topics {}; {} pairs left out (not in {} or \
         {})",
        thousands(t.records as u64),
        thousands(t.candidates as u64),
        t.type_names.join(", "),
        thousands(dropped),
        flag("candidates"),
        flag("types")
    );
    let _ = writeln!(
        out,
        "algorithm {}, mechanism {}, constraint {}",
        t.algorithm, t.mechanism, t.constraint,
    );
    out
}

/// The opening lines of maximum coverage: the people, the candidates, what was left out,
/// the algorithm and the privacy unit.
pub fn coverage_preamble(t: &CoverageParams, flag: &dyn Fn(&str) -> String) -> String {
    let what = match t.input {
        CoverageInput::Edges => "people (friend lists)",
        CoverageInput::Sets => "people (sets)",
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "maximum coverage: {} {what}, {} candidates; {} left out (not in {})",
        thousands(t.records as u64),
        thousands(t.candidates as u64),
        thousands(t.dropped.unwrap_or(0)),
        flag("candidates")
    );
    let _ = writeln!(
        out,
        "algorithm {}, mechanism {}, k = {}",
        t.algorithm, t.mechanism, t.k
    );
    let _ = writeln!(out, "privacy unit: {}", t.privacy_unit);
    out
}

/// The opening lines of maximum cut: the graph, what was left out (`dropped`), the
/// algorithm and the privacy unit.
pub fn cut_preamble(t: &CutParams, dropped: u64, flag: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "maximum cut: {} vertices, {} edges; {} left out (not in {}, or self-loops)",
        thousands(t.vertices as u64),
        thousands(t.edges as u64),
        thousands(dropped),
        flag("vertices")
    );
    let _ = writeln!(
        out,
        "algorithm {}, mechanism {}, at most k = {}",
        t.algorithm, t.mechanism, t.k
    );
    let _ = writeln!(out, "privacy unit: {}", t.privacy_unit);
    out
}

/// The opening lines of feature selection: the records (in `data`), the features, the
/// `label` and its `levels` (a schema's, or read from the data), the objective with its unit
/// and `scale` (the label's entropy or the most pairs told apart, from the data), and the
/// algorithm.
pub fn features_preamble(
    t: &FeaturesParams,
    data: &str,
    label: &str,
    (levels, from_schema): (&[String], bool),
    objective: FeatureObjective,
    scale: f64,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "feature selection: {} records ({data}), {} features, label '{label}' with levels {} \
         ({})",
        thousands(t.records as u64),
        t.features.len(),
        levels.join(", "),
        if from_schema {
            "the schema's"
        } else {
            "read from the data"
        }
    );
    let unit = match objective {
        FeatureObjective::MutualInformation => format!(
            "values in bits, utility = I/H(label) with H = {} bits, from the data (not private)",
            fixed(scale, 6)
        ),
        FeatureObjective::Discernibility => format!(
            "utility = F/F_max with F_max = {}, from the data (not private)",
            fixed(scale, 6)
        ),
    };
    let _ = writeln!(out, "objective {} ({unit})", t.objective);
    let _ = writeln!(
        out,
        "algorithm {}, mechanism {}, k = {}",
        t.algorithm, t.mechanism, t.k
    );
    out
}
