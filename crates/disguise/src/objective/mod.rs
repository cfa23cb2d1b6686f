//! Objectives: monotone or non-monotone submodular set functions f_D over a ground set
//! V = {0, …, n−1}, evaluated incrementally and in bulk.
//!
//! The private data is touched in exactly one place per round, [`SetFunction::gains`], which
//! evaluates many candidates against the current solution in one pass. Incremental
//! [`SetFunction::State`] (for facility location, each record's current best similarity)
//! keeps a round linear in the data.

use crate::privacy::Sensitivity;
use serde::Serialize;

/// What the maximization algorithms and the accountant may assume about an objective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Properties {
    /// f(S) ≤ f(T) whenever S ⊆ T.
    pub monotone: bool,
    /// f_D = Σ_{x ∈ D} f_x with each f_x ∈ [0, λ] (Gupta et al. 2010; mitrovic2017 Thm 3.1):
    /// enables the decomposable composition rule.
    pub decomposable: bool,
}

/// A set function f_D with incremental, bulk evaluation of marginal gains and a proven
/// per-round sensitivity of those gains.
pub trait SetFunction: Sync {
    /// Incremental state for a current solution S (e.g. each record's best similarity).
    type State: Clone + Send + Sync;

    /// |V|: candidates are `0..ground_size()`.
    fn ground_size(&self) -> usize;

    /// The state of the empty set.
    fn empty(&self) -> Self::State;

    /// Writes f(S ∪ {v}) − f(S) for each `v` in `candidates` into `out` (same length), where S
    /// is the set `state` represents. One pass over the data for all candidates.
    fn gains(&self, state: &Self::State, candidates: &[usize], out: &mut [f64]);

    /// Adds `v` to the solution.
    fn insert(&self, state: &mut Self::State, v: usize);

    /// f(S).
    fn value(&self, state: &Self::State) -> f64;

    /// The sensitivity λ of the marginal gains in round `round` (0-based: the number of
    /// elements already chosen), i.e. the largest change of any f_D(S ∪ {v}) − f_D(S) with
    /// |S| = round between neighbouring datasets D ~ D′, as the paper proves it.
    fn sensitivity(&self, round: usize) -> Sensitivity;

    /// Monotonicity and decomposability, as proven for this objective.
    fn properties(&self) -> Properties;

    /// A short name for output (`facility-location`, `mutual-information`, …).
    fn name(&self) -> &'static str;

    /// The largest |S| this objective can represent (default: `ground_size()`). Algorithms
    /// must not insert more elements; they should check their k against it and return an
    /// error. Objectives whose state grows with |S| (mutual information: one entry per
    /// feature-value configuration) override it.
    fn max_solution_size(&self) -> usize {
        self.ground_size()
    }

    /// f(S) for an explicit set, from scratch (tests and exhaustive search).
    fn evaluate(&self, set: &[usize]) -> f64 {
        let mut state = self.empty();
        for &v in set {
            self.insert(&mut state, v);
        }
        self.value(&state)
    }
}

pub mod closure;
pub mod coverage;
pub mod cut;
pub mod discernibility;
pub mod facility_location;
pub mod k_submodular;
pub mod metric;
pub mod multilinear;
pub mod mutual_information;
pub mod penalized;

pub use closure::{FnObjective, FnState};
pub use coverage::{Coverage, CoverageState};
pub use cut::{GraphCut, GraphCutState};
pub use discernibility::{Discernibility, DiscernibilityState};
pub use facility_location::{FacilityLocation, FacilityState};
pub use k_submodular::{
    KSubmodularFunction, Separable, TopicCoverage, ad_allocation, k_type_facility_location,
};
pub use metric::{EARTH_RADIUS_KM, Metric, Normalizer};
pub use multilinear::{
    ClosedForm, CoverageMultilinear, ErrorBound, FacilityMultilinear, Gradient, GradientOracle,
    SampledGradient, enumerate_multilinear, hoeffding_samples, hoeffding_tolerance,
};
pub use mutual_information::{MutualInformation, MutualInformationState};
pub use penalized::{Penalized, PenalizedState};
