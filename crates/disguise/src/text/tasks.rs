//! The opening lines of the selection tasks' tables: what was read, how distances are
//! measured, and the algorithm. A file is named as the front end names it (`points`,
//! `candidates`, `data`); an option as `flag` spells it.

use crate::numeric::display::{input, thousands};
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
        thousands(*t.points as u64),
        thousands(*t.candidates as u64),
    );
    let _ = writeln!(out, "{metric}");
    let _ = writeln!(
        out,
        "algorithm {}, mechanism {}, constraint {}, k = {}",
        t.algorithm, t.mechanism, t.constraint, t.k
    );
    if *t.cost > 0.0 {
        let _ = writeln!(
            out,
            "cost per location: {} points served (objective f(S) − cost·|S|, non-monotone)",
            t.cost
        );
    }
    out
}

/// The opening lines of k-type facility location: the typed points (in `points`), the
/// candidates (in `candidates`), the metric line ([`metric_line`]) and the algorithm.
pub fn assign_preamble(r: &AssignReport, points: &str, candidates: &str, metric: &str) -> String {
    let t = &r.task;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "k-type facility location: {} points ({points}) of {} types ({}), {} candidates \
         ({candidates})",
        thousands(*t.records as u64),
        t.type_names.len(),
        t.type_names.join(", "),
        thousands(*t.candidates as u64),
    );
    let _ = writeln!(out, "{metric}");
    let _ = writeln!(
        out,
        "algorithm {}, mechanism {}, constraint {}",
        t.algorithm, t.mechanism, t.constraint,
    );
    out
}

/// The opening lines of k-topic influence: the people, seeds and topics, and the algorithm.
pub fn topics_preamble(t: &AssignParams) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "k-topic influence: {} people, {} seeds, topics {}",
        thousands(*t.records as u64),
        thousands(*t.candidates as u64),
        t.type_names.join(", "),
    );
    let _ = writeln!(
        out,
        "algorithm {}, mechanism {}, constraint {}",
        t.algorithm, t.mechanism, t.constraint,
    );
    out
}

/// The opening lines of maximum coverage: the people, the candidates, the algorithm and the
/// privacy unit.
pub fn coverage_preamble(t: &CoverageParams) -> String {
    let what = match *t.input {
        CoverageInput::Edges => "people (friend lists)",
        CoverageInput::Sets => "people (sets)",
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "maximum coverage: {} {what}, {} candidates",
        thousands(*t.records as u64),
        thousands(*t.candidates as u64),
    );
    let _ = writeln!(
        out,
        "algorithm {}, mechanism {}, k = {}",
        t.algorithm, t.mechanism, t.k
    );
    let _ = writeln!(out, "privacy unit: {}", t.privacy_unit);
    out
}

/// The opening lines of maximum cut: the graph (its public vertices and the edge list's
/// lines), the algorithm and the privacy unit.
pub fn cut_preamble(t: &CutParams) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "maximum cut: {} vertices, {} edge-list lines",
        thousands(*t.vertices as u64),
        thousands(*t.records as u64),
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
/// label `label` (with its levels when they are public: the report's), the objective and
/// the algorithm.
pub fn features_preamble(
    t: &FeaturesParams,
    data: &str,
    label: &str,
    objective: FeatureObjective,
) -> String {
    let mut out = String::new();
    let levels = match &t.label_levels {
        Some(levels) => format!(" with levels {} (the schema's)", levels.join(", ")),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "feature selection: {} records ({data}), {} features, label '{label}'{levels}",
        thousands(*t.records as u64),
        t.features.len(),
    );
    let unit = match objective {
        FeatureObjective::MutualInformation => "values in bits, utility = I/H(label)",
        FeatureObjective::Discernibility => "utility = F/F_max",
    };
    let _ = writeln!(out, "objective {} ({unit})", t.objective);
    let _ = writeln!(
        out,
        "algorithm {}, mechanism {}, k = {}",
        t.algorithm, t.mechanism, t.k
    );
    out
}
