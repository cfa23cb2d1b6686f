//! Mutual information between a label and a set of features under the naive Bayes model
//! (feature selection, Mitrovic et al. 2017 §6.2).

use super::{Properties, SetFunction};
use crate::data::{CodeColumn, Codes};
use crate::error::{Error, Result};
use crate::privacy::Sensitivity;
use rayon::prelude::*;

/// Default cap on the number of feature-value configurations the state may hold (4 Mi; with
/// a binary label, 128 MiB of state).
pub const DEFAULT_CONFIGURATION_LIMIT: usize = 1 << 22;
/// Below this much work (configurations × values × classes) a `gains` call runs on the
/// calling thread.
const PARALLEL_MIN_WORK: usize = 1 << 14;

/// f(S) = I(Y; X_S) in bits, for categorical features X_1, …, X_m and a categorical label Y,
/// under the naive Bayes model estimated from counts (Mitrovic et al. 2017 §6.2):
///
/// p(y, x_S) = p(y) · Π_{j∈S} p(x_j | y),  p(y) = n_y / n,  p(x_j = a | y) = n_{j,a,y} / n_y,
///
/// I(Y; X_S) = Σ_y Σ_{x_S} p(y, x_S) · log₂( p(y, x_S) / (p(y) · p(x_S)) ),
///
/// where x_S ranges over the whole product space of the selected features' values (the
/// model's distribution, not only the value combinations observed in the data) and
/// p(x_S) = Σ_y p(y, x_S). Terms with p(y, x_S) = 0 are 0.
///
/// Monotone and submodular because the features are conditionally independent given Y under
/// the model (Krause & Guestrin 2005); not decomposable.
///
/// ```
/// use disguise::objective::{MutualInformation, SetFunction};
/// // Feature 0 copies the label, feature 1 is independent of it.
/// let labels = [0, 0, 1, 1];
/// let features = [vec![0, 0, 1, 1], vec![0, 1, 0, 1]];
/// let f = MutualInformation::new(&features, &[2, 2], &labels, 2)?;
/// let mut g = [0.0; 2];
/// f.gains(&f.empty(), &[0, 1], &mut g);
/// assert!((g[0] - 1.0).abs() < 1e-12); // one full bit
/// assert!(g[1].abs() < 1e-12);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Sensitivity
/// Neighbouring datasets replace one record; n, the number of records, is public. Write
/// f(T) = H(Y) + V(T) with V(T) = −H(Y | X_T) under the model. For every set T of t features,
/// V moves by at most
///
/// A(τ_t) = τ_t + (1 + τ_t)·h₂(τ_t/(1 + τ_t)),  τ_t = min(1, (2t + 1)/n)
///
/// (h₂ the binary entropy in bits), for any number of classes, features and arities: the
/// model moves by at most (2t + 1)/n in total variation, only on two labels, and conditional
/// entropy is continuous in total variation (Alicki–Fannes–Winter). The proof is in
/// `docs/proofs/mutual-information.md` ([`crate::privacy::proofs::mutual_information`]).
///
/// * [`SetFunction::sensitivity`]`(round)` = A(τ_{round+1}): a greedy round's scores
///   f(S ∪ {v}) − f(S) = V(S ∪ {v}) − V(S) are shifted values of size round + 1, and every
///   selector depends only on score differences
///   ([`crate::privacy::proofs::gains_and_values`]).
/// * [`SetFunction::gain_sensitivity`]`(round)` = A(τ_round) + A(τ_{round+1}): a gain on
///   its own, for scores that combine gains at different sets (the sampled gradient of the
///   continuous greedy, k-submodular [`Separable`](super::Separable) parts).
///
/// Mitrovic et al. (2017) state instead, as Claim 6.2 without a proof, that iteration
/// i = 1, …, k has sensitivity (2i + 1)·log₂(n)/n. At n = 17,698 with a binary label, A is
/// 6% above that in round 0 and 14% below it in round 9; A grows like
/// (2t + 1)·(log₂ n − log₂(2t + 1) + 2.44)/n.
///
/// ```
/// use disguise::objective::{MutualInformation, SetFunction};
/// let f = MutualInformation::new(&[vec![0, 1, 1, 0]], &[2], &[0, 1, 1, 1], 2)?;
/// // n = 4, round 0: τ = 3/4, A = 3/4 + (7/4)·h₂(3/7).
/// let h = |p: f64| -p * p.log2() - (1.0 - p) * (1.0 - p).log2();
/// let a = 0.75 + 1.75 * h(3.0 / 7.0);
/// assert!((f.sensitivity(0).get() - a).abs() < 1e-9);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Exactness
/// Gains are computed in f64 from logarithms: f(S ∪ {v}) − f(S) up to a relative error of
/// about 1e-15 times the number of configurations, clamped at 0 (the exact gain is never
/// negative).
///
/// # Runtime
/// The state keeps one entry per configuration x_S of positive probability (each holding
/// p(y, x_S) for every y): at most Π_{j∈S} a_j entries, pruned of zero-probability ones.
/// A round of `gains` costs O(|configurations| · Σ_v a_v · |Y|), parallel over candidates,
/// exponential in |S|; [`MutualInformation::max_features`] gives the largest |S| that
/// provably fits the configuration limit. The counts are computed once, O(n·m), at
/// construction.
#[derive(Debug, Clone)]
pub struct MutualInformation {
    n: usize,
    arities: Vec<usize>,
    classes: usize,
    /// p(y).
    prior: Vec<f64>,
    /// p(x_j = a | y) at `cond[j][a * classes + y]`.
    cond: Vec<Vec<f64>>,
    /// log₂ p(x_j = a | y) (−∞ for zero, never used since such terms are skipped).
    log_cond: Vec<Vec<f64>>,
    limit: usize,
}

/// The incremental state of [`MutualInformation`]: the joint p(y, x_S) for every
/// configuration x_S of positive probability.
#[derive(Debug, Clone, PartialEq)]
pub struct MutualInformationState {
    selected: Vec<bool>,
    /// p(y, x_S) at `joint[c * classes + y]`.
    joint: Vec<f64>,
    /// log₂ Π_{j∈S} p(x_j | y) (valid where the joint is positive).
    log_lik: Vec<f64>,
    value: f64,
}

impl MutualInformationState {
    /// The number of configurations x_S of positive probability held.
    pub fn configurations(&self, classes: usize) -> usize {
        self.joint.len() / classes.max(1)
    }
}

impl MutualInformation {
    /// Estimates the model from a table: `features[j][i]` is record i's value of feature j
    /// (column-major), in `0..arities[j]`; `labels[i] ∈ 0..label_arity`.
    ///
    /// Errors if the shapes disagree, a value is out of its arity, an arity is 0, or there
    /// are fewer than 2 records.
    pub fn new(
        features: &[Vec<u32>],
        arities: &[u32],
        labels: &[u32],
        label_arity: u32,
    ) -> Result<Self> {
        Self::estimate(features, arities, labels, label_arity)
    }

    /// As [`MutualInformation::new`] on compact columns (e.g. those of a
    /// [`Table`](crate::data::Table)), read in place: only the counts n_{j,a,y} are kept, so
    /// the columns can be dropped afterwards.
    ///
    /// ```
    /// use disguise::data::Codes;
    /// use disguise::objective::{MutualInformation, SetFunction};
    /// let labels = Codes::from(vec![0, 0, 1, 1]);
    /// let features = [Codes::from(vec![0, 0, 1, 1])];
    /// let f = MutualInformation::from_codes(&features, &[2], &labels, 2)?;
    /// assert!((f.evaluate(&[0]) - 1.0).abs() < 1e-12);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`MutualInformation::new`].
    pub fn from_codes(
        features: &[Codes],
        arities: &[u32],
        labels: &Codes,
        label_arity: u32,
    ) -> Result<Self> {
        Self::estimate(features, arities, labels, label_arity)
    }

    fn estimate<F: CodeColumn, L: CodeColumn + ?Sized>(
        features: &[F],
        arities: &[u32],
        labels: &L,
        label_arity: u32,
    ) -> Result<Self> {
        let counts = Self::count(features, arities, labels, label_arity)?;
        Self::from_counts(arities, label_arity, &counts)
    }

    /// The counts the model is estimated from, as one vector: n_y for every class y, then for
    /// every feature j the counts n_{j,a,y} at `a · classes + y`. Counts of disjoint sets of
    /// records add up to the counts of their union, which is how a distributed run estimates
    /// the model ([`MutualInformation::from_counts`]).
    ///
    /// # Errors
    /// As [`MutualInformation::new`], except that any number of records is allowed.
    pub fn count_codes(
        features: &[Codes],
        arities: &[u32],
        labels: &Codes,
        label_arity: u32,
    ) -> Result<Vec<u64>> {
        Self::count(features, arities, labels, label_arity)
    }

    fn count<F: CodeColumn, L: CodeColumn + ?Sized>(
        features: &[F],
        arities: &[u32],
        labels: &L,
        label_arity: u32,
    ) -> Result<Vec<u64>> {
        let n = labels.code_count();
        if arities.len() != features.len() {
            return Err(Error::param(
                "arities",
                format!("{} arities for {} features", arities.len(), features.len()),
            ));
        }
        if label_arity == 0 {
            return Err(Error::param("label_arity", "must be at least 1"));
        }
        let classes = label_arity as usize;
        let mut out = vec![0u64; classes];
        let mut bad_label = None;
        labels.for_each_code(|i, y| {
            if y >= label_arity {
                bad_label.get_or_insert((i, y));
            } else {
                out[y as usize] += 1;
            }
        });
        if let Some((i, y)) = bad_label {
            return Err(Error::param(
                "labels",
                format!("label of record {i} is {y}, not below {label_arity}"),
            ));
        }
        for (j, (col, &arity)) in features.iter().zip(arities).enumerate() {
            if arity == 0 {
                return Err(Error::param("arities", format!("feature {j} has arity 0")));
            }
            if col.code_count() != n {
                return Err(Error::param(
                    "features",
                    format!(
                        "feature {j} has {} values for {n} records",
                        col.code_count()
                    ),
                ));
            }
            // Read in place: the compact columns are never copied.
            let start = out.len();
            out.resize(start + arity as usize * classes, 0);
            let counts = &mut out[start..];
            let mut bad = None;
            col.for_each_code(|i, a| {
                if a >= arity {
                    bad.get_or_insert((i, a));
                } else {
                    counts[a as usize * classes + labels.code_at(i) as usize] += 1;
                }
            });
            if let Some((i, a)) = bad {
                return Err(Error::param(
                    "features",
                    format!("feature {j} of record {i} is {a}, not below {arity}"),
                ));
            }
        }
        Ok(out)
    }

    /// The model of the counts of [`MutualInformation::count_codes`] (summed over parts of the
    /// data, or not): the same objective, bit for bit, as [`MutualInformation::from_codes`] on
    /// all the records.
    ///
    /// ```
    /// use disguise::data::Codes;
    /// use disguise::objective::{MutualInformation, SetFunction};
    /// let (labels, feature) = (vec![0, 0, 1, 1, 1, 0], vec![0, 1, 1, 1, 0, 0]);
    /// let count = |r: std::ops::Range<usize>| MutualInformation::count_codes(
    ///     &[Codes::from(feature[r.clone()].to_vec())], &[2], &Codes::from(labels[r].to_vec()), 2);
    /// let (a, b) = (count(0..2)?, count(2..6)?);
    /// let sum: Vec<u64> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    /// let whole = MutualInformation::from_codes(&[Codes::from(feature)], &[2], &Codes::from(labels), 2)?;
    /// let parts = MutualInformation::from_counts(&[2], 2, &sum)?;
    /// assert_eq!(parts.evaluate(&[0]).to_bits(), whole.evaluate(&[0]).to_bits());
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// If the counts do not have the layout of these arities, or there are fewer than 2
    /// records.
    pub fn from_counts(arities: &[u32], label_arity: u32, counts: &[u64]) -> Result<Self> {
        let classes = label_arity as usize;
        let expected = classes + arities.iter().map(|&a| a as usize * classes).sum::<usize>();
        if classes == 0 || counts.len() != expected {
            return Err(Error::param(
                "counts",
                format!(
                    "{} counts for {} features and {classes} classes ({expected} expected)",
                    counts.len(),
                    arities.len()
                ),
            ));
        }
        if let Some(j) = arities.iter().position(|&a| a == 0) {
            return Err(Error::param("arities", format!("feature {j} has arity 0")));
        }
        let class_counts = &counts[..classes];
        let n64: u64 = class_counts.iter().sum();
        let n = n64 as usize;
        if n < 2 {
            return Err(Error::param(
                "labels",
                format!("at least 2 records are needed, got {n}"),
            ));
        }
        let prior: Vec<f64> = class_counts.iter().map(|&c| c as f64 / n as f64).collect();
        let mut cond = Vec::with_capacity(arities.len());
        let mut start = classes;
        for &arity in arities {
            let end = start + arity as usize * classes;
            let probs: Vec<f64> = counts[start..end]
                .iter()
                .enumerate()
                .map(|(k, &c)| {
                    let ny = class_counts[k % classes];
                    if ny == 0 { 0.0 } else { c as f64 / ny as f64 }
                })
                .collect();
            cond.push(probs);
            start = end;
        }
        let log_cond = cond
            .iter()
            .map(|p| p.iter().map(|&t| t.log2()).collect())
            .collect();
        Ok(Self {
            n,
            arities: arities.iter().map(|&a| a as usize).collect(),
            classes,
            prior,
            cond,
            log_cond,
            limit: DEFAULT_CONFIGURATION_LIMIT,
        })
    }

    /// Sets the cap on the number of configurations the state may hold (default
    /// [`DEFAULT_CONFIGURATION_LIMIT`]). Errors if `limit` is 0.
    pub fn with_configuration_limit(mut self, limit: usize) -> Result<Self> {
        if limit == 0 {
            return Err(Error::param("configuration limit", "must be at least 1"));
        }
        self.limit = limit;
        Ok(self)
    }

    /// The number of records n.
    pub fn num_records(&self) -> usize {
        self.n
    }

    /// The number of label classes.
    pub fn num_classes(&self) -> usize {
        self.classes
    }

    /// The number of records n the model was estimated from (public under replace-one
    /// neighbours; the sensitivity depends on it).
    pub fn records(&self) -> usize {
        self.n
    }

    /// A(τ_t) = τ + (1 + τ)·h₂(τ/(1 + τ)) with τ = min(1, (2t + 1)/n): the most the shifted
    /// value −H(Y | X_T) of any set of t features moves between neighbouring datasets
    /// (`docs/proofs/mutual-information.md`), rounded up.
    fn continuity_bound(&self, t: usize) -> f64 {
        let tau = ((2 * t + 1) as f64 / self.n as f64).min(1.0);
        // τ + (1 + τ)·log₂(1 + τ) − τ·log₂ τ = τ + (1 + τ)·h₂(τ/(1 + τ)); each term is ≥ 0.
        let a = tau + (1.0 + tau) * tau.ln_1p() / std::f64::consts::LN_2 - tau * tau.log2();
        // A few roundings of relative size 2⁻⁵³ each: a margin of 10⁻¹² covers them.
        a * (1.0 + 1e-12)
    }

    /// The largest k such that any k features fit the configuration limit (the product of
    /// the k largest arities is at most the limit): selecting up to this many features
    /// never fails.
    pub fn max_features(&self) -> usize {
        let mut sorted = self.arities.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let mut product = 1usize;
        let mut k = 0;
        for a in sorted {
            product = product.saturating_mul(a);
            if product > self.limit {
                break;
            }
            k += 1;
        }
        k
    }

    /// Σ over configurations x_S and values a of v of the terms of I(Y; X_{S ∪ {v}}).
    fn value_with(&self, state: &MutualInformationState, v: usize) -> f64 {
        let k = self.classes;
        let (t, lt) = (&self.cond[v], &self.log_cond[v]);
        let mut total = 0.0;
        for (q, ll) in state
            .joint
            .chunks_exact(k)
            .zip(state.log_lik.chunks_exact(k))
        {
            for (ta, lta) in t.chunks_exact(k).zip(lt.chunks_exact(k)) {
                total += term(q, ll, ta, lta);
            }
        }
        total
    }
}

/// Σ_y r_y·log₂(r_y / (p(y)·P)) for r_y = q_y·t_y and P = Σ_y r_y, using
/// log₂(r_y / p(y)) = ll_y + lt_y. Zero terms are skipped.
#[inline]
fn term(q: &[f64], ll: &[f64], t: &[f64], lt: &[f64]) -> f64 {
    let mut mass = 0.0;
    let mut sum = 0.0;
    for y in 0..q.len() {
        let r = q[y] * t[y];
        if r > 0.0 {
            mass += r;
            sum += r * (ll[y] + lt[y]);
        }
    }
    if mass > 0.0 {
        sum - mass * mass.log2()
    } else {
        0.0
    }
}

impl SetFunction for MutualInformation {
    type State = MutualInformationState;

    fn ground_size(&self) -> usize {
        self.arities.len()
    }

    fn empty(&self) -> MutualInformationState {
        MutualInformationState {
            selected: vec![false; self.arities.len()],
            joint: self.prior.clone(),
            log_lik: vec![0.0; self.classes],
            value: 0.0,
        }
    }

    /// Panics if a candidate is ≥ `ground_size()` or the lengths differ. An already selected
    /// feature has gain 0.
    fn gains(&self, state: &MutualInformationState, candidates: &[usize], out: &mut [f64]) {
        assert_eq!(candidates.len(), out.len(), "one output per candidate");
        let gain = |(o, &v): (&mut f64, &usize)| {
            *o = if state.selected[v] {
                0.0
            } else {
                (self.value_with(state, v) - state.value).max(0.0)
            };
        };
        let work: usize =
            candidates.iter().map(|&v| self.arities[v]).sum::<usize>() * state.joint.len();
        if work < PARALLEL_MIN_WORK {
            out.iter_mut().zip(candidates).for_each(gain);
        } else {
            out.par_iter_mut().zip(candidates).for_each(gain);
        }
    }

    /// Splits every configuration by the values of `v`, dropping those of probability 0.
    ///
    /// Panics if the configurations would exceed the configuration limit, which cannot happen
    /// while |S| ≤ [`MutualInformation::max_features`] (= [`SetFunction::max_solution_size`]).
    fn insert(&self, state: &mut MutualInformationState, v: usize) {
        if state.selected[v] {
            return;
        }
        let k = self.classes;
        let (t, lt) = (&self.cond[v], &self.log_cond[v]);
        let mut joint = Vec::new();
        let mut log_lik = Vec::new();
        let mut value = 0.0;
        for (q, ll) in state
            .joint
            .chunks_exact(k)
            .zip(state.log_lik.chunks_exact(k))
        {
            for (ta, lta) in t.chunks_exact(k).zip(lt.chunks_exact(k)) {
                let x = term(q, ll, ta, lta);
                if q.iter().zip(ta).any(|(q, t)| q * t > 0.0) {
                    value += x;
                    joint.extend(q.iter().zip(ta).map(|(q, t)| q * t));
                    log_lik.extend(ll.iter().zip(lta).map(|(l, lt)| l + lt));
                }
            }
        }
        assert!(
            joint.len() / k <= self.limit,
            "mutual information: {} configurations exceed the limit {}; select at most \
             max_solution_size() = {} features or raise the limit",
            joint.len() / k,
            self.limit,
            self.max_features()
        );
        state.joint = joint;
        state.log_lik = log_lik;
        state.selected[v] = true;
        state.value = value.max(state.value);
    }

    fn value(&self, state: &MutualInformationState) -> f64 {
        state.value
    }

    /// A(τ_{round+1}): the largest change of the shifted values V(S ∪ {v}) = −H(Y | X_{S∪v})
    /// with |S| = round (see *Sensitivity* on the type).
    fn sensitivity(&self, round: usize) -> Sensitivity {
        Sensitivity::new(self.continuity_bound(round + 1))
            .expect("A(τ) is finite and positive for τ > 0")
    }

    /// A(τ_round) + A(τ_{round+1}): a gain V(S ∪ {v}) − V(S) with |S| = round taken on its own
    /// (see *Sensitivity* on the type).
    fn gain_sensitivity(&self, round: usize) -> Sensitivity {
        Sensitivity::new(self.continuity_bound(round) + self.continuity_bound(round + 1))
            .expect("A(τ) is finite and positive for τ > 0")
    }

    /// Monotone, not decomposable.
    fn properties(&self) -> Properties {
        Properties::MONOTONE
    }

    fn name(&self) -> &'static str {
        "mutual-information"
    }

    fn max_solution_size(&self) -> usize {
        self.max_features()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_tables_are_errors() {
        let ok = [vec![0, 1, 1]];
        assert!(MutualInformation::new(&ok, &[2], &[0, 1, 0], 2).is_ok());
        assert!(MutualInformation::new(&ok, &[2], &[0], 2).is_err()); // n < 2 and shape
        assert!(MutualInformation::new(&ok, &[1], &[0, 1, 0], 2).is_err()); // value ≥ arity
        assert!(MutualInformation::new(&ok, &[0], &[0, 1, 0], 2).is_err());
        assert!(MutualInformation::new(&ok, &[2, 2], &[0, 1, 0], 2).is_err());
        assert!(MutualInformation::new(&ok, &[2], &[0, 2, 0], 2).is_err());
        assert!(MutualInformation::new(&ok, &[2], &[0, 1, 0], 0).is_err());
        assert!(MutualInformation::new(&[vec![0, 1]], &[2], &[0, 1, 0], 2).is_err());
    }

    #[test]
    fn configuration_limit_bounds_the_solution_size() {
        let cols = vec![vec![0, 1]; 5];
        let f = MutualInformation::new(&cols, &[2, 3, 2, 2, 4], &[0, 1], 2)
            .unwrap()
            .with_configuration_limit(24)
            .unwrap();
        // Largest arities 4·3·2 = 24 fit, ·2 = 48 does not.
        assert_eq!(f.max_features(), 3);
        assert_eq!(f.max_solution_size(), 3);
    }
}
