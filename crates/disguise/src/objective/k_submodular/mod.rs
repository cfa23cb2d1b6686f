//! k-submodular objectives: functions of k disjoint sets (X₁, …, X_k), i.e. of an assignment
//! of some elements to one of k *types* — Rafiey & Yoshida (2020) §5.
//!
//! An assignment is a vector x ∈ {0, 1, …, k}^V with X_i = {v : x(v) = i}; in code types are
//! 0-based (`0..k`) and "unassigned" is the absence of a pair. f is **k-submodular** when
//! f(x) + f(y) ≥ f(x ⊓ y) + f(x ⊔ y) for all x, y (Huber & Kolmogorov 2012); equivalently
//! (Ward & Živný 2014) it is *orthant submodular* — Δ_{v,i}f(x) ≥ Δ_{v,i}f(y) whenever x ⪯ y
//! and v ∉ supp(y) — and *pairwise monotone* — Δ_{v,i}f(x) + Δ_{v,j}f(x) ≥ 0 for i ≠ j.
//! Here Δ_{v,i}f(x) = f(X₁, …, X_i ∪ {v}, …, X_k) − f(X₁, …, X_k) is the marginal gain of
//! assigning v (unassigned) to type i; f is monotone when every such gain is ≥ 0.
//!
//! | objective | paper | structure | λ |
//! |---|---|---|---|
//! | [`Separable`] over [`FacilityLocation`](super::FacilityLocation) ([`k_type_facility_location`]) | Example 5.2 | Σᵢ fᵢ(Xᵢ) | 1 |
//! | [`Separable`] over [`Coverage`](super::Coverage) ([`ad_allocation`]) | Example 5.1 | Σᵢ \|N_{Gᵢ}(Xᵢ)\| | 1 |
//! | [`TopicCoverage`] | Example 1.2 (k-topic influence, live-edge form) | \|∪ᵢ N_{Gᵢ}(Xᵢ)\| | 1 (w_max) |

mod separable;
mod topics;

pub use separable::{Separable, ad_allocation, k_type_facility_location};
pub use topics::TopicCoverage;

use crate::privacy::Sensitivity;

/// A k-submodular function f_D with incremental, bulk evaluation of the marginal gains
/// Δ_{v,i} f and a proven sensitivity of those gains.
///
/// The private data is touched in one place per round, [`KSubmodularFunction::gains`], which
/// evaluates every (element, type) pair of a candidate list against the current assignment.
pub trait KSubmodularFunction: Sync {
    /// Incremental state of the current assignment.
    type State: Clone + Send + Sync;

    /// |V|: elements are `0..ground_size()`.
    fn ground_size(&self) -> usize;

    /// k ≥ 1: types are `0..types()`.
    fn types(&self) -> usize;

    /// The state of the empty assignment.
    fn empty(&self) -> Self::State;

    /// Writes Δ_{v,i} f(x) into `out[j·k + i]` for each `v = elements[j]` and type i < k
    /// (`out.len()` = `elements.len()`·k), where x is the assignment `state` represents and
    /// every v is unassigned in it. One pass over the data for all pairs.
    fn gains(&self, state: &Self::State, elements: &[usize], out: &mut [f64]);

    /// Assigns the unassigned element `v` to type `t`.
    fn insert(&self, state: &mut Self::State, v: usize, t: usize);

    /// f(x).
    fn value(&self, state: &Self::State) -> f64;

    /// The sensitivity λ of the marginal gains in round `round` (0-based: the number of
    /// elements already assigned): the largest change of any Δ_{v,i} f_D(x) with |supp x| =
    /// `round` between neighbouring datasets D ∼ D′.
    fn sensitivity(&self, round: usize) -> Sensitivity;

    /// Whether f is monotone (every marginal gain ≥ 0), as proven for this objective.
    fn monotone(&self) -> bool;

    /// A short name for output.
    fn name(&self) -> &'static str;

    /// f(x) for an explicit assignment `(element, type)` (tests and exhaustive search).
    fn evaluate(&self, assignment: &[(usize, usize)]) -> f64 {
        let mut state = self.empty();
        for &(v, t) in assignment {
            self.insert(&mut state, v, t);
        }
        self.value(&state)
    }
}
