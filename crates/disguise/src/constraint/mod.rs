//! Constraints: downward-closed families of feasible sets (independence systems) over the
//! ground set V = {0, …, n−1} — cardinality, matroids, and p-extendible systems.
//!
//! * [`Cardinality`] (|S| ≤ k) and [`Uniform`] (at most k from a shortlist) — uniform matroids;
//! * [`Partition`] — groups with capacities, loadable from a CSV file ([`Partition::from_file`]);
//! * [`Graphic`] — forests of a graph (elements are edges), tracked with a union–find;
//! * [`Intersection`] — the intersection of p of the above, a p-extendible system;
//! * [`Matroid`] — any one of the matroids above behind one type, parsed from a CLI spec
//!   such as `partition:groups.csv` ([`Matroid::from_spec`]).

mod cardinality;
mod graphic;
mod intersection;
mod partition;
mod text;

pub use cardinality::{Cardinality, Uniform};
pub use graphic::{Forest, Graphic};
pub use intersection::{Intersection, Matroid, MatroidState};
pub use partition::Partition;

/// An independence system with an incremental membership oracle.
///
/// Implementations are downward closed: every subset of a feasible set is feasible.
pub trait Independence: Sync {
    /// Incremental state for a current feasible set (counts per group, a union–find, …).
    type State: Clone + Send + Sync;

    /// |V|.
    fn ground_size(&self) -> usize;

    /// The state of the empty set.
    fn empty(&self) -> Self::State;

    /// Whether S ∪ {v} is feasible, where S is the set `state` represents and v ∉ S.
    fn can_add(&self, state: &Self::State, v: usize) -> bool;

    /// Records that `v` was added (the caller checked [`Independence::can_add`]).
    fn insert(&self, state: &mut Self::State, v: usize);

    /// An upper bound r(I) on the size of any feasible set: the number of rounds (and so of
    /// privacy-consuming selections) a greedy algorithm can make.
    fn rank_bound(&self) -> usize;

    /// p such that the system is p-extendible (1 for a matroid).
    fn extendibility(&self) -> usize;

    /// A short name for output.
    fn name(&self) -> &'static str;

    /// Whether `set` (distinct element ids, in any order) is feasible, checked from scratch by
    /// adding its elements one at a time. Sound because the family is downward closed: every
    /// prefix of a feasible set is feasible. Duplicates and unknown ids give `false`.
    fn is_independent(&self, set: &[usize]) -> bool {
        let n = self.ground_size();
        let mut seen = vec![false; n];
        let mut state = self.empty();
        for &v in set {
            if v >= n || seen[v] || !self.can_add(&state, v) {
                return false;
            }
            seen[v] = true;
            self.insert(&mut state, v);
        }
        true
    }
}
