//! Constraints: downward-closed families of feasible sets (independence systems) over the
//! ground set V = {0, …, n−1} — cardinality, matroids, and p-extendible systems.

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
}
