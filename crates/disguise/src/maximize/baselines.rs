//! Non-private baselines that users compare the private algorithms against: lazy greedy
//! (Minoux 1978), stochastic greedy (Mirzasoleiman et al. 2015) and random greedy
//! (Buchbinder et al. 2014).

use super::Solution;
use super::driver::{Policy, Run, check_sizes, drive};
use crate::constraint::{Cardinality, Independence};
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::noise::bernoulli::uniform_below;
use crate::objective::SetFunction;
use crate::privacy::{Delta, PrivacyCost, Sensitivity};
use crate::select::{Argmax, Selection, Selector};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Lazy greedy (Minoux 1978): the standard greedy algorithm with stale marginal gains kept in
/// a priority queue as upper bounds.
///
/// By submodularity a gain computed against an earlier (smaller) solution bounds the current
/// one, so an element whose freshly recomputed gain is still at the top of the queue is the
/// true argmax. Ties go to the lowest index, exactly as in
/// [`standard_greedy`](super::standard_greedy): on a submodular objective both return the
/// same elements in the same order. Works under any constraint (elements that become
/// infeasible are dropped for good, which is exact for a downward-closed family).
///
/// # Guarantee
/// None (not private).
///
/// # Utility
/// Identical to standard greedy: (1 − 1/e)·OPT under a cardinality constraint and OPT/(p+1)
/// over a p-extendible system, for monotone submodular f.
///
/// # Runtime
/// |V| gain evaluations up front (one bulk call), then one per stale queue top; in the worst
/// case as many as standard greedy, usually far fewer. O(log |V|) per queue operation.
///
/// # Errors
/// Mismatched ground sizes, or a non-finite gain.
///
/// ```
/// use disguise::constraint::Cardinality;
/// use disguise::maximize::lazy_greedy;
/// use disguise::objective::Coverage;
/// let f = Coverage::new(4, &[vec![1], vec![1], vec![1], vec![3], vec![3], vec![0]])?;
/// let s = lazy_greedy(&f, &Cardinality::new(4, 2))?;
/// assert_eq!(s.elements, vec![1, 3]);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn lazy_greedy<F, C>(objective: &F, constraint: &C) -> Result<Solution>
where
    F: SetFunction + ?Sized,
    C: Independence + ?Sized,
{
    let n = objective.ground_size();
    check_sizes(n, constraint)?;
    let mut state = objective.empty();
    let mut cstate = constraint.empty();
    let mut solution = non_private_solution("lazy-greedy", objective, constraint.name());
    solution.value = objective.value(&state);
    let rank = constraint.rank_bound();

    let feasible: Vec<usize> = (0..n).filter(|&v| constraint.can_add(&cstate, v)).collect();
    let mut gains = vec![0.0; feasible.len()];
    objective.gains(&state, &feasible, &mut gains);
    solution.gain_evaluations = feasible.len() as u64;
    let mut heap = BinaryHeap::with_capacity(feasible.len());
    for (&v, &g) in feasible.iter().zip(&gains) {
        heap.push(Entry::new(v, g, 0)?);
    }
    while solution.elements.len() < rank {
        let Some(top) = heap.pop() else { break };
        if !constraint.can_add(&cstate, top.v) {
            continue; // infeasible now, hence forever
        }
        let round = solution.elements.len();
        if top.round == round {
            // Fresh, and no other bound exceeds it: the argmax (lowest index on ties).
            objective.insert(&mut state, top.v);
            constraint.insert(&mut cstate, top.v);
            solution.elements.push(top.v);
            solution.value = objective.value(&state);
            solution.values.push(solution.value);
        } else {
            let mut g = [0.0];
            objective.gains(&state, &[top.v], &mut g);
            solution.gain_evaluations += 1;
            heap.push(Entry::new(top.v, g[0], round)?);
        }
    }
    Ok(solution)
}

/// A queue entry: an upper bound on `v`'s gain, computed when `round` elements were chosen.
/// Ordered by bound (largest first), then by index (smallest first) to match argmax.
struct Entry {
    bound: f64,
    v: usize,
    round: usize,
}

impl Entry {
    fn new(v: usize, gain: f64, round: usize) -> Result<Self> {
        if !gain.is_finite() {
            return Err(Error::NonFiniteScore {
                index: v,
                value: gain,
            });
        }
        // `+ 0.0` turns −0.0 into +0.0: argmax treats them as equal, `total_cmp` would not.
        Ok(Self {
            bound: gain + 0.0,
            v,
            round,
        })
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.bound
            .total_cmp(&other.bound)
            .then_with(|| other.v.cmp(&self.v))
    }
}

/// Stochastic greedy ("lazier than lazy greedy", Mirzasoleiman et al. 2015): in each of k
/// rounds, the best element of a uniform random sample of ⌈(|V|/k)·ln(1/α)⌉ elements not yet
/// chosen.
///
/// `accuracy` is α ∈ (0, 1) (the paper's ε, renamed so it is not mistaken for a privacy
/// parameter).
///
/// # Guarantee
/// None (not private; the sample is drawn from `rng`).
///
/// # Utility
/// For monotone submodular f: E[f(S)] ≥ (1 − 1/e − α)·OPT (Mirzasoleiman et al. 2015).
///
/// # Runtime
/// At most k·⌈(|V|/k)·ln(1/α)⌉ ≈ |V|·ln(1/α) gain evaluations — independent of k.
///
/// # Errors
/// α outside (0, 1), or a non-finite gain.
///
/// ```
/// use disguise::maximize::stochastic_greedy;
/// use disguise::SecureRng;
/// use disguise::objective::Coverage;
/// let mut rng = SecureRng::from_os()?;
/// let records: Vec<Vec<usize>> = (0..300).map(|i| vec![i % 100]).collect();
/// let f = Coverage::new(100, &records)?;
/// let s = stochastic_greedy(&f, 5, 0.1, &mut rng)?;
/// assert_eq!(s.elements.len(), 5);
/// assert!(s.gain_evaluations <= 5 * 47);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn stochastic_greedy<F>(
    objective: &F,
    k: usize,
    accuracy: f64,
    rng: &mut SecureRng,
) -> Result<Solution>
where
    F: SetFunction + ?Sized,
{
    if !(accuracy > 0.0 && accuracy < 1.0) {
        return Err(Error::param(
            "accuracy",
            format!("must be in (0, 1), got {accuracy}"),
        ));
    }
    let n = objective.ground_size();
    let sample = if k == 0 {
        0
    } else {
        // (n/k)·ln(1/α) as f64 is exact enough: the sample size only trades time for accuracy.
        let s = (n as f64 / k as f64 * (1.0 / accuracy).ln()).ceil();
        if s >= n as f64 {
            n
        } else {
            (s as usize).max(1)
        }
    };
    let constraint = Cardinality::new(n, k);
    let run = Run {
        algorithm: "stochastic-greedy",
        selector: &Argmax,
        planned_rounds: constraint.rank_bound(),
        delta: Delta::ZERO,
        decomposable: false,
        split: None,
    };
    drive(run, objective, &constraint, Policy::Sample(sample), rng)
}

/// Random greedy (Buchbinder, Feldman, Naor & Schwartz 2014): in each of k rounds, choose
/// uniformly among the k candidates with the largest marginal gains, where k zero-gain dummy
/// elements stand in for "add nothing" (choosing one adds nothing).
///
/// # Guarantee
/// None (not private).
///
/// # Utility
/// E[f(S)] ≥ OPT/e for any non-negative submodular f, and ≥ (1 − 1/e)·OPT for monotone f
/// (Buchbinder et al. 2014).
///
/// # Runtime
/// At most k·|V| gain evaluations (one bulk call per round) and O(|V| + k) work per round
/// to find the top k.
///
/// ```
/// use disguise::maximize::random_greedy;
/// use disguise::SecureRng;
/// # use disguise::objective::{Properties, SetFunction};
/// # use disguise::privacy::Sensitivity;
/// # struct Weights(Vec<f64>);
/// # impl SetFunction for Weights {
/// #     type State = f64;
/// #     fn ground_size(&self) -> usize { self.0.len() }
/// #     fn empty(&self) -> f64 { 0.0 }
/// #     fn gains(&self, _: &f64, c: &[usize], out: &mut [f64]) {
/// #         for (o, &v) in out.iter_mut().zip(c) { *o = self.0[v]; }
/// #     }
/// #     fn insert(&self, s: &mut f64, v: usize) { *s += self.0[v]; }
/// #     fn value(&self, s: &f64) -> f64 { *s }
/// #     fn sensitivity(&self, _: usize) -> Sensitivity { Sensitivity::new(1.0).unwrap() }
/// #     fn properties(&self) -> Properties {
/// #         Properties::NONE
/// #     }
/// #     fn name(&self) -> &'static str { "weights" }
/// # }
/// let mut rng = SecureRng::from_os()?;
/// // Only one element has positive gain: the other top-2 slot is a dummy.
/// let s = random_greedy(&Weights(vec![-1.0, 6.0, -2.0]), 2, &mut rng)?;
/// assert!(s.elements.iter().all(|&v| v == 1));
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn random_greedy<F>(objective: &F, k: usize, rng: &mut SecureRng) -> Result<Solution>
where
    F: SetFunction + ?Sized,
{
    let n = objective.ground_size();
    let constraint = Cardinality::new(n, k);
    let selector = UniformTopK { k };
    let run = Run {
        algorithm: "random-greedy",
        selector: &selector,
        planned_rounds: k,
        delta: Delta::ZERO,
        decomposable: false,
        split: None,
    };
    drive(run, objective, &constraint, Policy::AllPlusDummies(k), rng)
}

/// Random greedy's selection step: uniform among the `k` largest scores (a non-private
/// selector; ties are broken towards lower indices when choosing the top set).
struct UniformTopK {
    k: usize,
}

impl Selector for UniformTopK {
    fn select(
        &self,
        scores: &[f64],
        _sensitivity: Sensitivity,
        rng: &mut SecureRng,
    ) -> Result<Selection> {
        Argmax::argmax(scores)?; // validates: non-empty, all finite
        let mut order: Vec<usize> = (0..scores.len()).collect();
        let top = self.k.clamp(1, scores.len());
        if top < order.len() {
            // Largest scores first; among equal scores, lower indices first.
            let by_score = |a: &usize, b: &usize| {
                (scores[*b] + 0.0)
                    .total_cmp(&(scores[*a] + 0.0))
                    .then_with(|| a.cmp(b))
            };
            order.select_nth_unstable_by(top - 1, by_score);
        }
        let index = order[uniform_below(rng, top as u64) as usize];
        Ok(Selection {
            index,
            margin: None,
        })
    }
    fn cost(&self) -> PrivacyCost {
        PrivacyCost::NonPrivate
    }
    fn name(&self) -> &'static str {
        "uniform-top-k"
    }
}

/// An empty non-private solution for algorithms that do not go through the driver.
pub(super) fn non_private_solution<F: SetFunction + ?Sized>(
    algorithm: &'static str,
    objective: &F,
    constraint: &'static str,
) -> Solution {
    Solution::empty(algorithm, objective.name(), constraint, "max", 0.0)
}
