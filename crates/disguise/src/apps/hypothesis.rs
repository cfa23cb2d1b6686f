//! Private hypothesis selection (chaudhuri2014, Section 4.2): choose, privately, the
//! hypothesis with the smallest empirical error from a finite class — here decision stumps
//! (threshold classifiers) over the columns of a labelled table.
//!
//! # The class
//! [`StumpClass`] holds, in this order: the two constant classifiers (always 0, always 1);
//! for every numeric column with public bounds [lo, hi] and each of the N grid thresholds
//! t_k = lo + (hi − lo)·k/(N + 1), k = 1..N, the two stumps "x ≤ t_k → 1, else 0" and
//! "x ≤ t_k → 0, else 1"; for every categorical column and each level v, "x = v → 1, else 0"
//! and "x = v → 0, else 1". |H| = 2 + 2·N·(numeric columns) + 2·(levels). The thresholds come
//! from the **public** bounds only (e.g. a schema), never from the data — otherwise the class
//! itself would leak records. A missing numeric value (NaN) takes the "else" branch; a
//! missing categorical value equals no level.
//!
//! # Score and neighbours
//! The score of h is its number of correctly classified records, n·(1 − err(h, D)) — the
//! paper's 1 − err with sensitivity 1/n, scaled by the public n. Replacing one record changes
//! every count by at most 1, so λ = 1 for datasets of n records differing in one record.
//! Any [`crate::select::Selector`] then gives its own guarantee (one call).

use crate::data::Codes;
use crate::disclosure::{Diagnostic, Disclose, Public, Released};
use crate::error::{Error, Result};
use crate::histogram::{ColumnType, ColumnValues, Table};
use crate::noise::SecureRng;
use crate::privacy::compose::{Accountant, ComposeOptions};
use crate::privacy::{Delta, Epsilon, Guarantee, PrivacyCost, Sensitivity};
use crate::select::SelectorKind;
use serde::Serialize;

/// The largest class [`StumpClass::new`] builds: 10⁸ hypotheses. Selecting from |H|
/// hypotheses holds |H| scores (8 bytes each) and, for the large margin mechanisms, a sorted
/// copy with indices (16 bytes each): about 2.5 GB at the limit (measured), a fraction of a
/// 24 GB machine. A finer grid than that cannot help either: n records take at most n + 1
/// distinct positions between thresholds.
pub const MAX_HYPOTHESES: usize = 100_000_000;

/// What a stump tests.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum StumpRule {
    /// No test: the constant classifier.
    Constant,
    /// x[column] ≤ threshold (NaN: false).
    LessEq {
        /// The column's index in the feature list.
        column: usize,
        /// The grid threshold.
        threshold: f64,
    },
    /// x[column] = level (missing: false).
    Equals {
        /// The column's index in the feature list.
        column: usize,
        /// The level's code.
        level: u32,
    },
}

/// A decision stump: predicts `if_true` when its rule holds, `!if_true` otherwise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stump {
    /// The test.
    pub rule: StumpRule,
    /// The label predicted when the test holds (for [`StumpRule::Constant`]: always).
    pub if_true: bool,
}

/// The public description of one feature column.
#[derive(Debug, Clone, PartialEq)]
pub enum FeatureSpec {
    /// A numeric column with public bounds [lo, hi].
    Numeric {
        /// Column name (for descriptions).
        name: String,
        /// Public lower bound.
        lo: f64,
        /// Public upper bound.
        hi: f64,
    },
    /// A categorical column with public levels (codes 0..levels.len(); any other code is
    /// missing).
    Categorical {
        /// Column name.
        name: String,
        /// Level names.
        levels: Vec<String>,
    },
}

/// A feature column's values, borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ColumnRef<'a> {
    /// Numbers; NaN = missing.
    Numeric(&'a [f64]),
    /// Level codes (compact, as a [`Table`] holds them); codes ≥ the number of levels =
    /// missing.
    Categorical(&'a Codes),
}

/// The finite class of decision stumps over some feature columns (see the module docs for
/// the layout).
#[derive(Debug, Clone, PartialEq)]
pub struct StumpClass {
    specs: Vec<FeatureSpec>,
    thresholds: usize,
    constants: bool,
    /// For each feature, the index of its first stump.
    offsets: Vec<usize>,
    len: usize,
}

impl StumpClass {
    /// The class over `specs` with `thresholds` grid thresholds per numeric column, with the
    /// two constant classifiers first if `constants`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for bounds that are not finite with lo < hi, or an empty
    /// class; [`Error::LimitExceeded`] for a class of more than [`MAX_HYPOTHESES`]
    /// (checked before anything is allocated).
    ///
    /// ```
    /// use disguise::apps::hypothesis::{FeatureSpec, StumpClass};
    /// let class = StumpClass::new(
    ///     vec![FeatureSpec::Numeric { name: "age".into(), lo: 0.0, hi: 100.0 }], 9, true)?;
    /// assert_eq!(class.len(), 2 + 2 * 9);
    /// assert_eq!(class.describe(2, "yes", "no"), "age ≤ 10 → yes, else no");
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn new(specs: Vec<FeatureSpec>, thresholds: usize, constants: bool) -> Result<Self> {
        let mut offsets = Vec::with_capacity(specs.len());
        // |H| in u128: no count of columns, thresholds or levels can overflow it.
        let mut len: u128 = if constants { 2 } else { 0 };
        let (mut numeric, mut levels_total) = (0u128, 0u128);
        for spec in &specs {
            offsets.push(usize::try_from(len).unwrap_or(usize::MAX));
            len += match spec {
                FeatureSpec::Numeric { name, lo, hi } => {
                    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                        return Err(Error::param(
                            "bounds",
                            format!("column {name}: need finite lo < hi, got [{lo}, {hi}]"),
                        ));
                    }
                    if thresholds == 0 {
                        return Err(Error::param(
                            "thresholds",
                            format!("column {name} is numeric: need at least 1 threshold"),
                        ));
                    }
                    numeric += 1;
                    2 * thresholds as u128
                }
                FeatureSpec::Categorical { levels, .. } => {
                    levels_total += levels.len() as u128;
                    2 * levels.len() as u128
                }
            };
        }
        if len > MAX_HYPOTHESES as u128 {
            let mut terms = vec![format!(
                "2 directions × {thresholds} thresholds × {numeric} numeric columns"
            )];
            if levels_total > 0 {
                terms.push(format!("2 × {levels_total} levels"));
            }
            if constants {
                terms.push("2 constants".into());
            }
            return Err(Error::LimitExceeded {
                what: format!(
                    "the class of decision stumps would hold {} = {len} hypotheses, each \
                     scored in memory; use fewer thresholds",
                    terms.join(" + ")
                ),
                limit: MAX_HYPOTHESES as u64,
                raise: None,
            });
        }
        let len = len as usize;
        if len == 0 {
            return Err(Error::EmptyCandidates);
        }
        Ok(Self {
            specs,
            thresholds,
            constants,
            offsets,
            len,
        })
    }

    /// The class over every column of `table` except `label`, bounds and levels from the
    /// table's (resolved) schema.
    ///
    /// # Errors
    /// As [`StumpClass::new`]; [`Error::InvalidParameter`] if `label` is out of range.
    pub fn for_table(table: &Table, label: usize, thresholds: usize) -> Result<Self> {
        if label >= table.width() {
            return Err(Error::param("label", format!("no column {label}")));
        }
        let specs = feature_columns(table, label)
            .into_iter()
            .map(|c| {
                let col = &table.schema().columns[c];
                match col.kind {
                    ColumnType::Numeric => {
                        let [lo, hi] = col.bounds.expect("resolved schema has bounds");
                        FeatureSpec::Numeric {
                            name: col.name.clone(),
                            lo,
                            hi,
                        }
                    }
                    ColumnType::Categorical => FeatureSpec::Categorical {
                        name: col.name.clone(),
                        levels: table.levels(c).unwrap_or(&[]).to_vec(),
                    },
                }
            })
            .collect();
        Self::new(specs, thresholds, true)
    }

    /// |H|.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the class is empty (never: construction refuses it).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The feature columns.
    pub fn specs(&self) -> &[FeatureSpec] {
        &self.specs
    }

    /// The `k`-th grid threshold (0-based) of a numeric column with bounds [lo, hi].
    fn threshold(&self, lo: f64, hi: f64, k: usize) -> f64 {
        lo + (hi - lo) * (k + 1) as f64 / (self.thresholds + 1) as f64
    }

    /// The `i`-th stump.
    ///
    /// # Panics
    /// If `i` ≥ |H| (an internal invariant for indices coming from the class's own scores).
    pub fn stump(&self, i: usize) -> Stump {
        assert!(i < self.len, "stump index out of range");
        if self.constants && i < 2 {
            return Stump {
                rule: StumpRule::Constant,
                if_true: i == 1,
            };
        }
        let column = self.offsets.partition_point(|&o| o <= i) - 1;
        let within = i - self.offsets[column];
        let if_true = within.is_multiple_of(2);
        let rule = match &self.specs[column] {
            FeatureSpec::Numeric { lo, hi, .. } => StumpRule::LessEq {
                column,
                threshold: self.threshold(*lo, *hi, within / 2),
            },
            FeatureSpec::Categorical { .. } => StumpRule::Equals {
                column,
                level: (within / 2) as u32,
            },
        };
        Stump { rule, if_true }
    }

    /// A human-readable description of stump `i`, naming the labels `pos` (true) and `neg`.
    pub fn describe(&self, i: usize, pos: &str, neg: &str) -> String {
        let s = self.stump(i);
        let (yes, no) = if s.if_true { (pos, neg) } else { (neg, pos) };
        match s.rule {
            StumpRule::Constant => format!("always {yes}"),
            StumpRule::LessEq { column, threshold } => {
                let FeatureSpec::Numeric { name, .. } = &self.specs[column] else {
                    unreachable!()
                };
                // Ten significant digits: `3.333333333`, not `3.3333333333333335` (the exact
                // threshold is the public grid point `i` names).
                let shown: f64 = format!("{threshold:.9e}").parse().unwrap_or(threshold);
                format!("{name} ≤ {shown} → {yes}, else {no}")
            }
            StumpRule::Equals { column, level } => {
                let FeatureSpec::Categorical { name, levels } = &self.specs[column] else {
                    unreachable!()
                };
                format!("{name} = {} → {yes}, else {no}", levels[level as usize])
            }
        }
    }

    /// The number of records each stump classifies correctly, in stump order (as `f64`
    /// scores for a selector; sensitivity 1 under replacement of one record).
    ///
    /// *Runtime*: O(n log n + N) per numeric column (one sort and a sweep over the grid),
    /// O(n + levels) per categorical column.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if the columns do not match the specs in number, kind or
    /// length.
    pub fn correct_counts(&self, columns: &[ColumnRef<'_>], labels: &[bool]) -> Result<Vec<f64>> {
        if columns.len() != self.specs.len() {
            return Err(Error::param(
                "columns",
                format!(
                    "{} columns for {} features",
                    columns.len(),
                    self.specs.len()
                ),
            ));
        }
        let n = labels.len();
        let pos_total = labels.iter().filter(|&&y| y).count() as u64;
        let neg_total = n as u64 - pos_total;
        let mut out: Vec<f64> = Vec::new();
        out.try_reserve_exact(self.len)
            .map_err(|_| Error::OutOfMemory(format!("the scores of {} hypotheses", self.len)))?;
        if self.constants {
            out.push(neg_total as f64);
            out.push(pos_total as f64);
        }
        // For counts (p, q) of positives and negatives on which the test holds.
        let push_pair = |out: &mut Vec<f64>, p: u64, q: u64| {
            out.push((p + neg_total - q) as f64); // test → 1
            out.push((q + pos_total - p) as f64); // test → 0
        };
        for (spec, col) in self.specs.iter().zip(columns) {
            match (spec, col) {
                (FeatureSpec::Numeric { lo, hi, .. }, ColumnRef::Numeric(values)) => {
                    check_len(values.len(), n)?;
                    let mut pairs: Vec<(f64, bool)> = values
                        .iter()
                        .zip(labels)
                        .filter(|(x, _)| !x.is_nan())
                        .map(|(&x, &y)| (x, y))
                        .collect();
                    pairs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
                    let (mut j, mut p, mut q) = (0usize, 0u64, 0u64);
                    for k in 0..self.thresholds {
                        let t = self.threshold(*lo, *hi, k);
                        while j < pairs.len() && pairs[j].0 <= t {
                            if pairs[j].1 {
                                p += 1;
                            } else {
                                q += 1;
                            }
                            j += 1;
                        }
                        push_pair(&mut out, p, q);
                    }
                }
                (FeatureSpec::Categorical { levels, .. }, ColumnRef::Categorical(codes)) => {
                    check_len(codes.len(), n)?;
                    let mut p = vec![0u64; levels.len()];
                    let mut q = vec![0u64; levels.len()];
                    for (c, &y) in codes.iter().zip(labels) {
                        if let Some(slot) = if y {
                            p.get_mut(c as usize)
                        } else {
                            q.get_mut(c as usize)
                        } {
                            *slot += 1;
                        }
                    }
                    for v in 0..levels.len() {
                        push_pair(&mut out, p[v], q[v]);
                    }
                }
                _ => {
                    return Err(Error::param(
                        "columns",
                        "a column's kind does not match its feature spec",
                    ));
                }
            }
        }
        Ok(out)
    }

    /// The prediction of stump `i` on row `row` of `columns`.
    pub fn predict(&self, i: usize, columns: &[ColumnRef<'_>], row: usize) -> bool {
        let s = self.stump(i);
        let holds = match s.rule {
            StumpRule::Constant => true,
            StumpRule::LessEq { column, threshold } => match columns[column] {
                ColumnRef::Numeric(v) => v[row] <= threshold,
                ColumnRef::Categorical(_) => false,
            },
            StumpRule::Equals { column, level } => match columns[column] {
                ColumnRef::Categorical(v) => v.get(row) == level,
                ColumnRef::Numeric(_) => false,
            },
        };
        holds == s.if_true
    }

    /// The fraction of rows stump `i` misclassifies (evaluation, e.g. on held-out data).
    pub fn error_rate(&self, i: usize, columns: &[ColumnRef<'_>], labels: &[bool]) -> f64 {
        let wrong = (0..labels.len())
            .filter(|&r| self.predict(i, columns, r) != labels[r])
            .count();
        wrong as f64 / labels.len().max(1) as f64
    }
}

fn check_len(got: usize, n: usize) -> Result<()> {
    if got == n {
        Ok(())
    } else {
        Err(Error::param(
            "columns",
            format!("a column has {got} values for {n} labels"),
        ))
    }
}

/// The feature columns of `table`: every column but `label`, in order.
fn feature_columns(table: &Table, label: usize) -> Vec<usize> {
    (0..table.width()).filter(|&c| c != label).collect()
}

/// The feature columns of `table` (all but `label`) as [`ColumnRef`]s, matching
/// [`StumpClass::for_table`].
pub fn table_columns(table: &Table, label: usize) -> Vec<ColumnRef<'_>> {
    feature_columns(table, label)
        .into_iter()
        .map(|c| match table.column(c) {
            ColumnValues::Numeric(v) => ColumnRef::Numeric(v),
            ColumnValues::Categorical(v) => ColumnRef::Categorical(v),
        })
        .collect()
}

/// Binary labels from column `label` of `table`: for a categorical column, true iff the
/// level is `positive` (default: the level `1` if the column has exactly two levels and one
/// is `1`, else required); for a numeric column, values must be 0 or 1.
///
/// Returns the labels and the names of the positive and negative classes.
///
/// # Errors
/// [`Error::InvalidParameter`] for an unknown `positive` level, a missing default, or a
/// numeric label other than 0/1 ([`Error::Parse`] naming its `file:line:column`).
pub fn table_labels(
    table: &Table,
    label: usize,
    positive: Option<&str>,
) -> Result<(Vec<bool>, String, String)> {
    match table.column(label) {
        ColumnValues::Categorical(codes) => {
            let levels = table.levels(label).unwrap_or(&[]);
            let pos = match positive {
                Some(p) => levels.iter().position(|l| l == p).ok_or_else(|| {
                    Error::param(
                        "positive",
                        format!("{p:?} is not a level of the label ({})", levels.join(", ")),
                    )
                })?,
                None if levels.len() == 2 && levels.iter().any(|l| l == "1") => {
                    levels.iter().position(|l| l == "1").expect("present")
                }
                None => {
                    return Err(Error::param(
                        "positive",
                        format!("name the positive class, one of: {}", levels.join(", ")),
                    ));
                }
            };
            let neg = if levels.len() == 2 {
                levels[1 - pos].clone()
            } else {
                format!("not {}", levels[pos])
            };
            Ok((
                codes.iter().map(|c| c as usize == pos).collect(),
                levels[pos].clone(),
                neg,
            ))
        }
        ColumnValues::Numeric(values) => {
            let labels = values
                .iter()
                .enumerate()
                .map(|(r, &v)| match v {
                    1.0 => Ok(true),
                    0.0 => Ok(false),
                    _ => {
                        let got = if v.is_nan() {
                            "the missing marker".to_string()
                        } else {
                            v.to_string()
                        };
                        Err(Error::parse(format!(
                            "{}: column '{}': a numeric label must be 0 or 1, got {got}",
                            table.place(r, label),
                            table.schema().columns[label].name.trim()
                        )))
                    }
                })
                .collect::<Result<Vec<bool>>>()?;
            Ok((labels, "1".into(), "0".into()))
        }
    }
}

/// Public bounds `LO:HI` of every feature (`--bounds 0:255`), finite with LO < HI.
///
/// ```
/// use disguise::apps::hypothesis::parse_bounds;
/// assert_eq!(parse_bounds("0:255")?, (0.0, 255.0));
/// assert!(parse_bounds("5:1").is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] naming `bounds`: not two numbers, or not finite LO < HI.
pub fn parse_bounds(text: &str) -> Result<(f64, f64)> {
    let Some((lo, hi)) = text.split_once(':') else {
        return Err(Error::param("bounds", "expected LO:HI, e.g. 0:255"));
    };
    let number = |s: &str| {
        (s.trim().parse::<f64>())
            .map_err(|_| Error::param("bounds", format!("{s:?} is not a number")))
    };
    let (lo, hi) = (number(lo)?, number(hi)?);
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        return Err(Error::param("bounds", "need finite LO < HI"));
    }
    Ok((lo, hi))
}

/// The schema of a delimited file given without one, for hypothesis selection: its header's
/// columns (read with `layout`), all numeric with `bounds` (or none, to be taken from the
/// data); the `label` column numeric 0/1, or categorical when `positive` names its positive
/// class (its levels then from the data, which only an exploration that takes every domain
/// from the data may do: the set of labels that occur is not public).
///
/// # Errors
/// The header reader's; [`Error::InvalidParameter`] (`positive`) for a categorical label
/// with `bounds` (its levels are not public), whose reason names the options as `flag`
/// spells them (`schema`, `bounds_from_data`).
pub fn header_schema(
    path: &std::path::Path,
    layout: crate::data::TableLayout,
    label: &str,
    bounds: Option<(f64, f64)>,
    positive: Option<&str>,
    flag: &dyn Fn(&str) -> String,
) -> Result<crate::histogram::Schema> {
    use crate::histogram::{ColumnSpec, Schema};
    let header = crate::data::read_header_with_layout(path, layout)?;
    let mut columns = Vec::new();
    for name in header.names().iter().map(String::as_str) {
        let spec = if !name.eq_ignore_ascii_case(label) {
            let mut spec = ColumnSpec::numeric(name, 0.0, 1.0);
            spec.bounds = bounds.map(|(lo, hi)| [lo, hi]);
            spec
        } else if positive.is_some() {
            if bounds.is_some() {
                return Err(Error::param(
                    "positive",
                    format!(
                        "a categorical label needs its public levels: list them in a {} \
                         (`levels = [...]`), or explore with {} (NOT private)",
                        flag("schema"),
                        flag("bounds_from_data")
                    ),
                ));
            }
            let mut spec = ColumnSpec::categorical(name, &[]);
            spec.levels = None;
            spec
        } else {
            ColumnSpec::numeric(name, 0.0, 1.0)
        };
        columns.push(spec);
    }
    let mut schema = Schema::new(columns)?;
    schema.has_header = layout.has_header;
    schema.delimiter = char::from(layout.delimiter).to_string();
    Ok(schema)
}

/// How to select a hypothesis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HypothesisQuery {
    /// The selection: `em`, `lmm`, `lmm-chaudhuri`, `report-noisy-max`, or `max` (the
    /// non-private baseline). There are no monotone variants here: counts of correct answers
    /// are not monotone under replacement.
    pub mechanism: SelectorKind,
    /// ε of the one selection.
    pub epsilon: Epsilon,
    /// δ (> 0 for the large margin mechanisms).
    pub delta: Delta,
}

/// The result of [`select_hypothesis`]: the released choice, the public size of the class
/// and the guarantee; the training accuracies, computed on the private records, are
/// [`Diagnostic`]s ([`crate::disclosure`]). The non-private `max` releases nothing: its
/// choice is the data's exact optimum, and front ends show it only as a diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct HypothesisSelection {
    /// Index of the chosen stump in the class.
    pub index: Released<usize>,
    /// The chosen stump.
    pub stump: Released<Stump>,
    /// The margin ℓ (large margin mechanisms).
    pub margin: Released<Option<usize>>,
    /// |H|.
    pub hypotheses: Public<usize>,
    /// Training accuracy of the chosen stump (NOT private).
    #[serde(skip)]
    pub training_accuracy: Diagnostic<f64>,
    /// The best training accuracy in the class (NOT private).
    #[serde(skip)]
    pub best_training_accuracy: Diagnostic<f64>,
    /// The guarantee (`None` for the non-private `max`).
    pub guarantee: Option<Guarantee>,
    /// Whether the generator was keyed by the operating system (a seeded run is
    /// reproducible by anyone and protects no one, whatever the guarantee says).
    pub secure_rng: Public<bool>,
}

/// What the one selection of `query` spends — its cost and guarantee — computed from the
/// query alone, before any record is read (what a budget ledger reserves first); `None`
/// guarantee for the non-private `max`.
///
/// # Errors
/// A selector the query cannot build (δ = 0 with a large margin mechanism).
pub fn hypothesis_spend(query: &HypothesisQuery) -> Result<(PrivacyCost, Option<Guarantee>)> {
    let selector = query.mechanism.build(query.epsilon, query.delta)?;
    one_call(selector.cost(), query.delta)
}

/// One call of cost `cost`, composed by the accountant at δ `delta`.
fn one_call(cost: PrivacyCost, delta: Delta) -> Result<(PrivacyCost, Option<Guarantee>)> {
    let mut accountant = Accountant::new();
    accountant.record(cost);
    let guarantee = accountant.compose(delta, ComposeOptions::default())?.best;
    Ok((cost, guarantee))
}

/// Selects a stump privately from `class` given its correct-count `scores` (from
/// [`StumpClass::correct_counts`]) on `n` records.
///
/// # Guarantee
/// The selector's own guarantee for one call, at sensitivity 1 (replacing one of the n
/// records changes every count by at most 1): ε-DP for `em`/`report-noisy-max`, (ε, δ)-DP
/// for the large margin mechanisms (chaudhuri2014 Thm 2, Corollary 2 for the utility).
///
/// # Errors
/// [`Error::InvalidParameter`] for an unknown or monotone mechanism name, or δ = 0 with a
/// large margin mechanism; the selector's errors otherwise.
pub fn select_hypothesis(
    class: &StumpClass,
    scores: &[f64],
    n: usize,
    query: &HypothesisQuery,
    rng: &mut SecureRng,
) -> Result<HypothesisSelection> {
    if scores.len() != class.len() {
        return Err(Error::param(
            "scores",
            format!("{} scores for {} hypotheses", scores.len(), class.len()),
        ));
    }
    let selector = query.mechanism.build(query.epsilon, query.delta)?;
    let pick = selector.select(scores, Sensitivity::new(1.0)?, rng)?;
    let (_, guarantee) = one_call(selector.cost(), query.delta)?;
    let best = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let denom = n.max(1) as f64;
    Ok(HypothesisSelection {
        index: Released::new(pick.index),
        stump: Released::new(class.stump(pick.index)),
        margin: Released::new(pick.margin),
        // The class is built from the public domains and grid.
        hypotheses: Public::new(class.len()),
        training_accuracy: Diagnostic::new(scores[pick.index] / denom),
        best_training_accuracy: Diagnostic::new(best / denom),
        guarantee,
        secure_rng: Public::new(rng.is_secure()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(class: &StumpClass, cols: &[ColumnRef<'_>], labels: &[bool]) -> Vec<f64> {
        (0..class.len())
            .map(|i| {
                (0..labels.len())
                    .filter(|&r| class.predict(i, cols, r) == labels[r])
                    .count() as f64
            })
            .collect()
    }

    #[test]
    fn sweep_counts_equal_brute_force() {
        let x = [0.5, 3.0, 7.5, f64::NAN, 2.0, 9.9, 5.0, 5.0, 0.0, 10.0];
        let c = Codes::from(vec![0, 1, 2, 0, 1, 9, 2, 2, 1, 0]); // 9 = missing
        let y = [
            true, false, true, true, false, false, true, true, false, true,
        ];
        let class = StumpClass::new(
            vec![
                FeatureSpec::Numeric {
                    name: "x".into(),
                    lo: 0.0,
                    hi: 10.0,
                },
                FeatureSpec::Categorical {
                    name: "c".into(),
                    levels: vec!["a".into(), "b".into(), "c".into()],
                },
            ],
            19,
            true,
        )
        .unwrap();
        assert_eq!(class.len(), 2 + 38 + 6);
        let cols = [ColumnRef::Numeric(&x), ColumnRef::Categorical(&c)];
        let fast = class.correct_counts(&cols, &y).unwrap();
        assert_eq!(fast, brute(&class, &cols, &y));
        // Complementary stumps: counts add up to n.
        for pair in fast.chunks(2) {
            assert_eq!(pair[0] + pair[1], 10.0);
        }
    }

    #[test]
    fn layout_and_descriptions() {
        let class = StumpClass::new(
            vec![FeatureSpec::Categorical {
                name: "colour".into(),
                levels: vec!["red".into(), "blue".into()],
            }],
            5,
            true,
        )
        .unwrap();
        assert_eq!(class.describe(0, "yes", "no"), "always no");
        assert_eq!(class.describe(1, "yes", "no"), "always yes");
        assert_eq!(
            class.describe(4, "yes", "no"),
            "colour = blue → yes, else no"
        );
        assert_eq!(
            class.describe(5, "yes", "no"),
            "colour = blue → no, else yes"
        );
        assert!(StumpClass::new(vec![], 3, false).is_err());
        assert!(
            StumpClass::new(
                vec![FeatureSpec::Numeric {
                    name: "x".into(),
                    lo: 1.0,
                    hi: 1.0
                }],
                3,
                true
            )
            .is_err()
        );
    }
}
