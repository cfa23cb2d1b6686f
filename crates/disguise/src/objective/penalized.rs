//! A submodular objective minus a public per-element cost: the standard way to obtain a
//! non-monotone submodular function (e.g. facility location − c·|S|).

use super::{Properties, SetFunction};
use crate::error::{Error, Result};
use crate::privacy::Sensitivity;

/// Costs are rounded to multiples of 2^-22, the grid of [`FacilityLocation`](super::FacilityLocation)
/// gains, so that gain − cost is computed without rounding.
const COST_UNIT: f64 = 1.0 / (1u64 << 22) as f64;
/// Largest |cost|: keeps gain − cost and the cost of a solution exact in f64.
pub(crate) const MAX_COST: f64 = (1u64 << 29) as f64;

/// f(S) = g(S) − Σ_{v ∈ S} c_v for a submodular g and public costs c_v (often one cost c for
/// every element: g(S) − c·|S|).
///
/// *Why it is submodular*: S ↦ Σ_{v∈S} c_v is modular (its marginal gains c_v do not depend
/// on S), and adding a modular function to a submodular one leaves the diminishing-returns
/// inequality g(A ∪ v) − g(A) ≥ g(B ∪ v) − g(B) (A ⊆ B) unchanged, since c_v appears on both
/// sides. With positive costs f is non-monotone as soon as some marginal gain of g drops
/// below its cost, which makes it the test objective of the non-monotone algorithms
/// (random/subsample greedy, Mitrovic et al. 2017 §4).
///
/// ```
/// use disguise::objective::{FacilityLocation, Penalized, SetFunction};
/// // Two records, two candidates; each candidate serves one record perfectly.
/// let fl = FacilityLocation::from_similarities(2, 2, &[1.0, 0.0, 0.0, 1.0])?;
/// let f = Penalized::new(fl, 0.75)?;
/// assert_eq!(f.evaluate(&[0]), 0.25);
/// assert_eq!(f.evaluate(&[0, 1]), 0.5);
/// assert!(!f.properties().monotone);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Sensitivity
/// The sensitivity of g in every round: the costs do not depend on the data, so
/// f_D(S ∪ v) − f_D(S) − (f_D′(S ∪ v) − f_D′(S)) = g_D(S ∪ v) − g_D(S) − (g_D′(S ∪ v) − g_D′(S)).
/// For facility location that is λ = 1. Not decomposable once a cost is non-zero (the
/// decomposable accounting of Gupta et al. needs f = Σ_x f_x with every f_x monotone and in
/// [0, λ]); monotone only if g is and no cost is positive.
///
/// # Exactness
/// Costs are rounded to the nearest multiple of 2^-22 (and must satisfy |c| ≤ 2^29). When g's
/// gains are multiples of 2^-22 of magnitude at most 2^30, as for
/// [`FacilityLocation`](super::FacilityLocation) (and [`Coverage`](super::Coverage) or
/// [`GraphCut`](super::GraphCut) with w_max ∈ [4, 8) and gains up to 2^30), gain − cost is
/// a multiple of 2^-22 below 2^31 and is computed exactly, so g's sensitivity bound holds
/// exactly for the returned gains. For other inner objectives the subtraction may round by
/// half an ulp (a relative 1e-16).
///
/// # Runtime
/// That of g, plus O(|candidates|).
#[derive(Debug, Clone)]
pub struct Penalized<F> {
    inner: F,
    costs: Vec<f64>,
}

/// The incremental state of [`Penalized`]: the inner state, which elements are in S, and the
/// total cost in units of 2^-22.
#[derive(Debug, Clone, PartialEq)]
pub struct PenalizedState<S> {
    inner: S,
    chosen: Vec<bool>,
    cost_units: i64,
}

impl<F: SetFunction> Penalized<F> {
    /// g(S) − c·|S|. Errors if `cost` is not finite or |cost| > 2^29.
    pub fn new(inner: F, cost: f64) -> Result<Self> {
        let m = inner.ground_size();
        Self::with_costs(inner, vec![cost; m])
    }

    /// g(S) − Σ_{v∈S} c_v with one cost per element. Errors if the length differs from the
    /// ground set, or a cost is not finite or above 2^29 in magnitude.
    pub fn with_costs(inner: F, costs: Vec<f64>) -> Result<Self> {
        if costs.len() != inner.ground_size() {
            return Err(Error::param(
                "costs",
                format!(
                    "{} costs for a ground set of {}",
                    costs.len(),
                    inner.ground_size()
                ),
            ));
        }
        if let Some((v, c)) = costs
            .iter()
            .enumerate()
            .find(|(_, c)| !(c.is_finite() && c.abs() <= MAX_COST))
        {
            return Err(Error::param(
                "costs",
                format!("cost of element {v} is {c}; it must be finite and at most 2^29"),
            ));
        }
        let costs = costs
            .into_iter()
            .map(|c| (c / COST_UNIT).round() * COST_UNIT)
            .collect();
        Ok(Self { inner, costs })
    }

    /// The inner objective g.
    pub fn inner(&self) -> &F {
        &self.inner
    }

    /// The (rounded) cost of each element.
    pub fn costs(&self) -> &[f64] {
        &self.costs
    }
}

impl<F: SetFunction> SetFunction for Penalized<F> {
    type State = PenalizedState<F::State>;

    fn ground_size(&self) -> usize {
        self.inner.ground_size()
    }

    fn empty(&self) -> Self::State {
        PenalizedState {
            inner: self.inner.empty(),
            chosen: vec![false; self.costs.len()],
            cost_units: 0,
        }
    }

    /// g's gains minus the costs; 0 for elements already in S.
    fn gains(&self, state: &Self::State, candidates: &[usize], out: &mut [f64]) {
        self.inner.gains(&state.inner, candidates, out);
        for (o, &v) in out.iter_mut().zip(candidates) {
            *o = if state.chosen[v] {
                0.0
            } else {
                *o - self.costs[v]
            };
        }
    }

    fn insert(&self, state: &mut Self::State, v: usize) {
        if !state.chosen[v] {
            state.chosen[v] = true;
            state.cost_units += (self.costs[v] / COST_UNIT) as i64;
            self.inner.insert(&mut state.inner, v);
        }
    }

    fn value(&self, state: &Self::State) -> f64 {
        self.inner.value(&state.inner) - state.cost_units as f64 * COST_UNIT
    }

    /// The inner objective's sensitivity (see *Sensitivity* on the type).
    fn sensitivity(&self, round: usize) -> Sensitivity {
        self.inner.sensitivity(round)
    }

    /// The inner objective's: the costs are public and the same on neighbouring datasets, so
    /// a gain g(S ∪ {v}) − g(S) − c_v moves exactly as g's gain does.
    fn gain_sensitivity(&self, round: usize) -> Sensitivity {
        self.inner.gain_sensitivity(round)
    }

    fn properties(&self) -> Properties {
        let inner = self.inner.properties();
        Properties {
            monotone: inner.monotone && self.costs.iter().all(|&c| c <= 0.0),
            decomposable: inner.decomposable && self.costs.iter().all(|&c| c == 0.0),
        }
    }

    fn name(&self) -> &'static str {
        "penalized"
    }

    fn max_solution_size(&self) -> usize {
        self.inner.max_solution_size()
    }
}
