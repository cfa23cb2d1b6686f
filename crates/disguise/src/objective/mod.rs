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
    /// f_D = Σ_{x ∈ D} f_x (plus a data-independent constant) with every f_x **monotone**
    /// and f_x(S) − f_x(∅) ∈ [0, λ], for the λ of every round ([`SetFunction::sensitivity`]),
    /// exactly for the gains returned: lets [`crate::maximize::greedy`] with the exponential
    /// mechanism use the decomposable composition rule (proof for replace-one neighbours:
    /// [`crate::privacy::proofs::decomposable_greedy`]).
    pub decomposable: bool,
}

impl Properties {
    /// Monotone, not (known to be) decomposable.
    pub const MONOTONE: Self = Self {
        monotone: true,
        decomposable: false,
    };
    /// Monotone and decomposable (facility location, coverage).
    pub const MONOTONE_DECOMPOSABLE: Self = Self {
        monotone: true,
        decomposable: true,
    };
    /// Neither: only the algorithms for non-monotone objectives apply.
    pub const NONE: Self = Self {
        monotone: false,
        decomposable: false,
    };
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

    /// The λ a selector is called with in round `round` (0-based: the number of elements
    /// already chosen) of a greedy-type algorithm, whose score vector is the marginal gains
    /// f_D(S ∪ {v}) − f_D(S) at one common S with |S| = `round`, possibly next to zero
    /// scores of dummies. Between neighbouring datasets D ∼ D′ it must be either
    ///
    /// * a **gain bound**: every |Δ(f(S ∪ {v}) − f(S))| ≤ λ with |S| = `round`
    ///   (facility location, coverage, cut, discernibility, user closures), or
    /// * a **value bound** up to a constant: f_D(T) = V_D(T) + c(D) with c(D) the same for
    ///   every T, and every |V_D(T) − V_D′(T)| ≤ λ with |T| ∈ {`round`, `round` + 1} (mutual
    ///   information: V(T) = −H(Y | X_T), c = H(Y); `docs/proofs/mutual-information.md`).
    ///
    /// Either is enough for that score vector: every selector's output depends only on
    /// score differences, and gains at one S (and the zero of a dummy, f(S) − f(S)) are the
    /// values V(S ∪ {v}) shifted by the common V(S) (`docs/proofs/gains-and-values.md`,
    /// [`crate::privacy::proofs::gains_and_values`]). Scores built from gains at
    /// *different* sets must use [`SetFunction::gain_sensitivity`] instead.
    fn sensitivity(&self, round: usize) -> Sensitivity;

    /// A **gain bound** for round `round`: the largest change, between neighbouring
    /// datasets, of any single marginal gain f(S ∪ {v}) − f(S) with |S| = `round`, taken on
    /// its own (no common shift with other scores). Used where scores combine gains at
    /// different sets: the sampled gradient of the multilinear extension (a random set per
    /// sample, R ∖ {v} differing per coordinate) and the k-submodular scores of
    /// [`Separable`] (a different set Xᵢ per type).
    ///
    /// The default, 2·[`SetFunction::sensitivity`], is valid for either kind of bound:
    /// a value bound λ bounds f(S ∪ {v}) and f(S) by λ each. Objectives whose
    /// `sensitivity` is already a gain bound override it to return the same λ.
    fn gain_sensitivity(&self, round: usize) -> Sensitivity {
        let lambda = self.sensitivity(round).get();
        // Saturates at f64::MAX for λ > f64::MAX/2, where every noise scale overflows anyway.
        Sensitivity::new(2.0 * lambda)
            .unwrap_or_else(|_| Sensitivity::new(f64::MAX).expect("f64::MAX is a valid λ"))
    }

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

/// A borrowed objective is the objective: wrappers such as [`Penalized`] can then be laid
/// over one built once (e.g. a large facility location) without copying it.
impl<F: SetFunction + ?Sized> SetFunction for &F {
    type State = F::State;

    fn ground_size(&self) -> usize {
        (**self).ground_size()
    }
    fn empty(&self) -> Self::State {
        (**self).empty()
    }
    fn gains(&self, state: &Self::State, candidates: &[usize], out: &mut [f64]) {
        (**self).gains(state, candidates, out)
    }
    fn insert(&self, state: &mut Self::State, v: usize) {
        (**self).insert(state, v)
    }
    fn value(&self, state: &Self::State) -> f64 {
        (**self).value(state)
    }
    fn sensitivity(&self, round: usize) -> Sensitivity {
        (**self).sensitivity(round)
    }
    fn gain_sensitivity(&self, round: usize) -> Sensitivity {
        (**self).gain_sensitivity(round)
    }
    fn properties(&self) -> Properties {
        (**self).properties()
    }
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn max_solution_size(&self) -> usize {
        (**self).max_solution_size()
    }
}

pub mod closure;
pub mod coverage;
pub mod cut;
pub mod discernibility;
pub mod facility_location;
pub mod k_submodular;
pub mod metric;
pub mod modular;
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
pub use modular::Modular;
pub use multilinear::{
    ClosedForm, CoverageMultilinear, ErrorBound, FacilityMultilinear, Gradient, GradientOracle,
    SampledGradient, enumerate_multilinear, hoeffding_samples, hoeffding_tolerance,
};
pub use mutual_information::{MutualInformation, MutualInformationState};
pub use penalized::{Penalized, PenalizedState};
