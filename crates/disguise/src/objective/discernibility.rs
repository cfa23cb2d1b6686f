//! k-discernibility (Vinterbo 2012, Section 2.2): how many record pairs with different
//! targets a set of attributes tells apart.
//!
//! For records x₁..xₙ with predictor attributes A and target f, an attribute set S ⊆ A
//! *discerns* the ordered pair (x, y) if some a ∈ S has a(x) ≠ a(y). With π(S) the discerned
//! pairs and π(f) the pairs with different targets,
//!
//! ```text
//! F(S) = |π(S) ∩ π(f)| / n        (equation (9); ordered pairs, as in the paper)
//! ```
//!
//! F is monotone and submodular (Lemma 1). Maximizing it over |S| = k picks the attributes
//! that best preserve the conditional target frequencies (Proposition 2).
//!
//! # Computing gains by partition refinement
//! S partitions the records into classes of equal S-values. The pairs with different targets
//! that S does **not** discern are exactly the pairs inside a class with different targets;
//! with P(S) = Σ_classes (C(size, 2) − Σ_labels C(count, 2)) of them (unordered),
//! F(S) = 2·(P(∅) − P(S))/n and the gain of attribute a is
//! F(S ∪ {a}) − F(S) = 2·(P(S) − P(S ∪ {a}))/n, where P(S ∪ {a}) refines each class by a's
//! value. The state keeps the current partition (records grouped by class); classes whose
//! records all share one target can never contribute again and are dropped. A gain costs
//! O(n) (one pass with a small scratch table per candidate), an insertion O(n log n) (each
//! class sorted by the new attribute's value in place, so the state never needs more than
//! its one index per record), so PRIVATEKD runs in O(k·d·n + k·n log n) — not O(n²).
//!
//! # Memory
//! The columns are held as compact [`Codes`] (one byte per record and column for up to 256
//! values) behind [`Arc`]s, so a table's columns can be shared without a copy
//! ([`Discernibility::from_codes`]); the state is one `u32` per record still in a mixed
//! class.
//!
//! # Sensitivity
//! Replace-one neighbours (same n, one record changed). Only the 2(n − 1) ordered pairs that
//! involve the changed record can change status, so F(S) — and every marginal gain
//! F(S ∪ {a}) − F(S), which counts a set of pairs — changes by at most 2(n − 1)/n < 2.
//! [`SetFunction::sensitivity`] is therefore 2, the paper's Δ(F) ≤ 2 (proof of Theorem 1).
//!
//! *Mapping to PRIVATEKD's ε′.* Algorithm 1 picks a with P(a) ∝ exp(ε′·gain(a)) and the
//! paper's proof charges 2·Δ(F)·ε′ = 4ε′ per round (4kε′ in total). Our
//! [`Exponential`](crate::select::Exponential) selector with budget ε₀ and sensitivity λ = 2
//! weights candidates by exp(ε₀·gain/(2λ)) = exp(ε₀·gain/4) and is ε₀-DP: with ε₀ = 4ε′ the
//! sampling distribution and the per-round cost are exactly the paper's, and k rounds of
//! ε₀ = ε_p/k cost ε_p (Corollary 1).

use super::{Properties, SetFunction};
use crate::data::{Code, Codes, with_slice};
use crate::error::{Error, Result};
use crate::privacy::Sensitivity;
use rayon::prelude::*;
use std::sync::Arc;

/// The k-discernibility objective F(S) = |π(S) ∩ π(f)|/n over the predictor attributes of a
/// discretized table. See the [module documentation](self) for the maths, the sensitivity
/// (λ = 2) and the runtime.
///
/// Ground element i is predictor attribute i (the order of the `columns` given to
/// [`Discernibility::new`]).
///
/// ```
/// use disguise::objective::{Discernibility, SetFunction};
/// // 4 records, 2 attributes; attribute 0 separates the targets, attribute 1 does not.
/// let f = Discernibility::new(
///     vec![vec![0, 0, 1, 1], vec![0, 1, 0, 1]],
///     vec![2, 2],
///     vec![0, 0, 1, 1],
///     2,
/// )?;
/// // 4 unordered pairs have different targets: 8 ordered pairs, F(A) = 8/4 = 2.
/// assert_eq!(f.evaluate(&[0]), 2.0);
/// assert_eq!(f.evaluate(&[1]), 1.0); // discerns (0,3) and (1,2) only: 4 ordered pairs
/// let mut g = [0.0; 2];
/// f.gains(&f.empty(), &[0, 1], &mut g);
/// assert_eq!(g, [2.0, 1.0]);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Discernibility {
    columns: Vec<Arc<Codes>>,
    radices: Vec<u32>,
    labels: Arc<Codes>,
    label_count: u32,
    n: usize,
    /// P(∅): unordered pairs with different targets.
    base_pairs: u64,
}

/// The current partition of the records by the chosen attributes (only the classes that
/// still hold two different targets), and the number of undiscerned different-target pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscernibilityState {
    /// Records of the impure classes, grouped by class.
    order: Vec<u32>,
    /// Class boundaries in `order` (length = classes + 1).
    starts: Vec<u32>,
    /// P(S): unordered pairs with different targets inside a class.
    undiscerned: u64,
}

impl DiscernibilityState {
    /// P(S): the number of unordered record pairs with different targets that the chosen
    /// attributes do not tell apart.
    pub fn undiscerned_pairs(&self) -> u64 {
        self.undiscerned
    }

    /// The number of classes that still mix targets.
    pub fn impure_classes(&self) -> usize {
        self.starts.len() - 1
    }
}

impl Discernibility {
    /// The objective over predictor `columns` (column-major codes, `columns[a][i] <
    /// radices[a]`) and target `labels` (`labels[i] < label_count`). The codes are stored
    /// compactly (see [`Discernibility::from_codes`]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for no record, ≥ 2^32 records, mismatched lengths, or a
    /// code or label out of range.
    pub fn new(
        columns: Vec<Vec<u32>>,
        radices: Vec<u32>,
        labels: Vec<u32>,
        label_count: u32,
    ) -> Result<Self> {
        Self::from_codes(
            columns
                .into_iter()
                .map(|c| Arc::new(Codes::from(c)))
                .collect(),
            radices,
            Arc::new(Codes::from(labels)),
            label_count,
        )
    }

    /// As [`Discernibility::new`] on compact columns, shared rather than copied (e.g. the
    /// columns of a [`Discretized`](crate::histogram::Discretized) table).
    ///
    /// # Errors
    /// As [`Discernibility::new`].
    pub fn from_codes(
        columns: Vec<Arc<Codes>>,
        radices: Vec<u32>,
        labels: Arc<Codes>,
        label_count: u32,
    ) -> Result<Self> {
        let n = labels.len();
        if n == 0 {
            return Err(Error::param("labels", "no records"));
        }
        if n as u64 >= 1 << 32 {
            return Err(Error::param("labels", "at most 2^32 − 1 records"));
        }
        check_codes(&columns, &radices, &labels, label_count)?;
        let mut counts = vec![0u64; label_count as usize];
        for l in labels.iter() {
            counts[l as usize] += 1;
        }
        let base_pairs = impure_pairs(n as u64, &counts);
        Ok(Self {
            columns,
            radices,
            labels,
            label_count,
            n,
            base_pairs,
        })
    }

    /// The same objective on a subset of the records (given by index, in any order;
    /// duplicates count twice), e.g. one part of a data split.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty subset or an index ≥ n.
    pub fn subset(&self, rows: &[usize]) -> Result<Self> {
        if let Some(&bad) = rows.iter().find(|&&r| r >= self.n) {
            return Err(Error::param(
                "rows",
                format!("row {bad} is outside the {} records", self.n),
            ));
        }
        Self::from_codes(
            self.columns
                .iter()
                .map(|col| Arc::new(col.select(rows)))
                .collect(),
            self.radices.clone(),
            Arc::new(self.labels.select(rows)),
            self.label_count,
        )
    }

    /// The number of records n.
    pub fn records(&self) -> usize {
        self.n
    }

    /// The number of target classes q.
    pub fn label_count(&self) -> u32 {
        self.label_count
    }

    /// |π(f)| / n = 2·P(∅)/n: the largest value F can reach (when every pair with different
    /// targets is discerned).
    pub fn max_value(&self) -> f64 {
        2.0 * self.base_pairs as f64 / self.n as f64
    }

    /// F(A): the value of all attributes together.
    pub fn full_value(&self) -> f64 {
        let all: Vec<usize> = (0..self.columns.len()).collect();
        self.evaluate(&all)
    }

    /// P(S ∪ {a}) for the partition `state`: one pass over the impure classes.
    fn refined_pairs(&self, state: &DiscernibilityState, a: usize) -> u64 {
        let q = self.label_count as usize;
        let r = self.radices[a] as usize;
        with_slice!(&*self.columns[a], col => with_slice!(&*self.labels, labels => {
            refined_pairs(state, col, labels, r, q)
        }))
    }
}

/// [`Discernibility::refined_pairs`] on one column's and the labels' codes.
fn refined_pairs<C: Code, L: Code>(
    state: &DiscernibilityState,
    col: &[C],
    labels: &[L],
    r: usize,
    q: usize,
) -> u64 {
    let mut cnt = vec![0u64; r * q];
    let mut vcnt = vec![0u64; r];
    let mut touched: Vec<u32> = Vec::new();
    let mut total = 0u64;
    for w in state.starts.windows(2) {
        for &rec in &state.order[w[0] as usize..w[1] as usize] {
            let v = col[rec as usize].index();
            if vcnt[v] == 0 {
                touched.push(v as u32);
            }
            vcnt[v] += 1;
            cnt[v * q + labels[rec as usize].index()] += 1;
        }
        for v in touched.drain(..) {
            let v = v as usize;
            let row = &mut cnt[v * q..(v + 1) * q];
            total += impure_pairs(vcnt[v], row);
            row.fill(0);
            vcnt[v] = 0;
        }
    }
    total
}

/// Splits every class of `state` by the values of `col`, in place: each class's records
/// are sorted by value within their own stretch of `order`, and the (class, value) groups
/// that still mix targets are moved down to the front (a group never moves up, so nothing
/// unread is overwritten). The only extra memory is the new class boundaries.
fn refine_in_place<C: Code, L: Code>(
    state: &mut DiscernibilityState,
    col: &[C],
    labels: &[L],
    q: usize,
) {
    let mut label_counts = vec![0u64; q];
    let old_starts = std::mem::take(&mut state.starts);
    let order = &mut state.order;
    let mut starts = vec![0u32];
    let mut undiscerned = 0u64;
    let mut kept = 0usize;
    for w in old_starts.windows(2) {
        let (begin, end) = (w[0] as usize, w[1] as usize);
        order[begin..end].sort_unstable_by_key(|&rec| col[rec as usize].index());
        let mut g = begin;
        while g < end {
            let value = col[order[g] as usize].index();
            let mut h = g;
            while h < end && col[order[h] as usize].index() == value {
                label_counts[labels[order[h] as usize].index()] += 1;
                h += 1;
            }
            let pairs = impure_pairs((h - g) as u64, &label_counts);
            label_counts.fill(0);
            if pairs > 0 {
                undiscerned += pairs;
                order.copy_within(g..h, kept);
                kept += h - g;
                starts.push(kept as u32);
            }
            g = h;
        }
    }
    order.truncate(kept);
    state.starts = starts;
    state.undiscerned = undiscerned;
}

/// Checks that the columns and labels have one code per record, each below its radix (the
/// label below `label_count` ≥ 1). Shared with distributed discernibility (`cluster`).
pub(crate) fn check_codes(
    columns: &[Arc<Codes>],
    radices: &[u32],
    labels: &Codes,
    label_count: u32,
) -> Result<()> {
    let n = labels.len();
    if columns.len() != radices.len() {
        return Err(Error::param(
            "radices",
            format!("{} radices for {} columns", radices.len(), columns.len()),
        ));
    }
    if label_count == 0 || labels.max().is_some_and(|l| l >= label_count) {
        return Err(Error::param(
            "labels",
            format!("every label must be < label_count = {label_count}"),
        ));
    }
    for (a, (col, &r)) in columns.iter().zip(radices).enumerate() {
        if col.len() != n {
            return Err(Error::param(
                "columns",
                format!("column {a} has {} values for {n} records", col.len()),
            ));
        }
        if col.max().is_some_and(|v| v >= r) {
            return Err(Error::param(
                "columns",
                format!("column {a} has a code ≥ its radix {r}"),
            ));
        }
    }
    Ok(())
}

/// 2·pairs/n: the value (or gain) of `pairs` discerned unordered pairs with different
/// targets, counted as ordered pairs per record (equation (9)). One formula for one process
/// and for the sum of workers' counts (`cluster`), so both give the same bits.
#[inline]
pub(crate) fn pairs_value(pairs: u64, n: f64) -> f64 {
    2.0 * pairs as f64 / n
}

/// λ = 2 (see *Sensitivity* in the module documentation).
pub(crate) fn sensitivity() -> Sensitivity {
    Sensitivity::new(2.0).expect("2 is a valid sensitivity")
}

/// C(size, 2) − Σ C(cᵢ, 2) = (size² − Σ cᵢ²)/2 for label counts cᵢ summing to `size`.
#[inline]
pub(crate) fn impure_pairs(size: u64, counts: &[u64]) -> u64 {
    let same: u64 = counts.iter().map(|&c| c * c).sum();
    (size * size - same) / 2
}

impl SetFunction for Discernibility {
    type State = DiscernibilityState;

    fn ground_size(&self) -> usize {
        self.columns.len()
    }

    fn empty(&self) -> DiscernibilityState {
        if self.base_pairs == 0 {
            return DiscernibilityState {
                order: Vec::new(),
                starts: vec![0],
                undiscerned: 0,
            };
        }
        DiscernibilityState {
            order: (0..self.n as u32).collect(),
            starts: vec![0, self.n as u32],
            undiscerned: self.base_pairs,
        }
    }

    fn gains(&self, state: &DiscernibilityState, candidates: &[usize], out: &mut [f64]) {
        assert_eq!(candidates.len(), out.len(), "gains: output length");
        let n = self.n as f64;
        let gain = |a: usize| -> f64 {
            if state.undiscerned == 0 {
                return 0.0;
            }
            let refined = self.refined_pairs(state, a);
            pairs_value(state.undiscerned - refined, n)
        };
        // Parallel over candidates when there is enough work to pay for the threads.
        if state.order.len().saturating_mul(candidates.len()) >= 1 << 16 {
            out.par_iter_mut()
                .zip(candidates.par_iter())
                .for_each(|(o, &a)| *o = gain(a));
        } else {
            for (o, &a) in out.iter_mut().zip(candidates) {
                *o = gain(a);
            }
        }
    }

    fn insert(&self, state: &mut DiscernibilityState, a: usize) {
        if state.undiscerned == 0 {
            return;
        }
        let q = self.label_count as usize;
        with_slice!(&*self.columns[a], col => with_slice!(&*self.labels, labels => {
            refine_in_place(state, col, labels, q)
        }));
    }

    fn value(&self, state: &DiscernibilityState) -> f64 {
        pairs_value(self.base_pairs - state.undiscerned, self.n as f64)
    }

    /// λ = 2 in every round (see the module documentation).
    fn sensitivity(&self, _round: usize) -> Sensitivity {
        sensitivity()
    }

    /// The same λ: it is a bound on every single marginal gain (see *Sensitivity*).
    fn gain_sensitivity(&self, round: usize) -> Sensitivity {
        self.sensitivity(round)
    }

    /// Monotone (Lemma 1); not decomposable in the sense of Gupta et al. (each record's term
    /// Fᵢ depends on all other records).
    fn properties(&self) -> Properties {
        Properties::MONOTONE
    }

    fn name(&self) -> &'static str {
        "discernibility"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pure_targets_have_nothing_to_discern() {
        let f = Discernibility::new(vec![vec![0, 1, 0]], vec![2], vec![1, 1, 1], 2).unwrap();
        assert_eq!(f.max_value(), 0.0);
        let mut g = [1.0];
        f.gains(&f.empty(), &[0], &mut g);
        assert_eq!(g, [0.0]);
        assert_eq!(f.full_value(), 0.0);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(Discernibility::new(vec![], vec![], vec![], 2).is_err());
        assert!(Discernibility::new(vec![vec![0, 2]], vec![2], vec![0, 1], 2).is_err());
        assert!(Discernibility::new(vec![vec![0, 1]], vec![2], vec![0, 2], 2).is_err());
        assert!(Discernibility::new(vec![vec![0]], vec![2], vec![0, 1], 2).is_err());
    }
}
