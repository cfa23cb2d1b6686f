//! What a greedy task needs to run on records spread over a cluster: its algorithm on any
//! set function (in a distributed run, the sum of every worker's objective) and a report
//! that counts every worker's records.

use super::Reporting;
use crate::error::Result;
use crate::maximize::Solution;
use crate::noise::SecureRng;
use crate::objective::SetFunction;

/// A prepared greedy task whose algorithm runs on any [`SetFunction`]: its own objective in
/// one process, or the workers' summed objective in process 0 of a distributed run.
pub(crate) trait OnShards: Reporting<Output = Solution> {
    /// The task's algorithm on `f`.
    fn run_on<F: SetFunction + ?Sized>(&self, f: &F, rng: &mut SecureRng) -> Result<Solution>;

    /// Makes the report count `records` people (every worker's), not the local objective's.
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    fn count_records(&mut self, records: usize);
}

/// One trial of `prepared` (built on process 0's share) on the workers' summed objective
/// `f`: the solution and its report on all the records.
#[cfg(feature = "cluster")]
pub(crate) fn shard_trial<P, F>(
    mut prepared: P,
    f: &crate::cluster::Sharded<'_, F>,
    rng: &mut SecureRng,
) -> Result<(Solution, super::Report<P::Params>)>
where
    P: OnShards,
    F: crate::cluster::Summable + Sync,
{
    prepared.count_records(f.records());
    let solution = prepared.run_on(f, rng)?;
    let report = prepared.report(&solution);
    Ok((solution, report))
}
