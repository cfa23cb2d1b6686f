//! The objective of a distributed run, both ends: [`Sharded`], the [`SetFunction`] worker 0's
//! algorithm sees, which sends every question to all workers and turns their summed integer
//! answers into the one-process numbers ([`Aggregate`]); and [`ObjectiveServer`], which
//! answers those questions on each worker from its own records ([`Summable`]).

use super::comm::Comm;
use super::link::Link;
use super::protocol::{Msg, units};
use super::worker::Serve;
use crate::error::{Error, Result};
use crate::objective::{Properties, SetFunction};
use crate::privacy::Sensitivity;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// An objective whose gains and values are integer multiples of one [`Summable::unit`],
/// summed exactly: the objective of a union of record sets is then, bit for bit, the sum of the
/// objectives of its parts, whatever the partition and the order of the sum.
pub trait Summable: SetFunction {
    /// Every gain and value is k·unit for an integer k with |k| < 2^53, computed without
    /// rounding (e.g. 2^-22 for facility location, 1 for coverage).
    fn unit(&self) -> f64;

    /// The number of records this objective sums over.
    fn records(&self) -> usize;
}

/// The public face of an objective whose workers' answers add up exactly: what worker 0's
/// algorithm sees besides the sums (ground set, sensitivity, properties), and how a summed
/// integer answer becomes the objective's number — with the very arithmetic the one-process
/// objective uses, so that both give the same bits.
pub trait Aggregate: Sync {
    /// The number of candidates.
    fn ground_size(&self) -> usize;
    /// As [`SetFunction::sensitivity`].
    fn sensitivity(&self, round: usize) -> Sensitivity;
    /// As [`SetFunction::gain_sensitivity`].
    fn gain_sensitivity(&self, round: usize) -> Sensitivity;
    /// As [`SetFunction::properties`].
    fn properties(&self) -> Properties;
    /// As [`SetFunction::name`].
    fn name(&self) -> &'static str;
    /// As [`SetFunction::max_solution_size`].
    fn max_solution_size(&self) -> usize;
    /// The gain whose workers' answers sum to `total`, over `records` records in all.
    fn gain_of(&self, total: i64, records: usize) -> f64;
    /// The value whose workers' answers sum to `total`.
    fn value_of(&self, total: i128, records: usize) -> f64;
}

impl<F: Summable + Sync> Aggregate for F {
    fn ground_size(&self) -> usize {
        SetFunction::ground_size(self)
    }
    fn sensitivity(&self, round: usize) -> Sensitivity {
        SetFunction::sensitivity(self, round)
    }
    fn gain_sensitivity(&self, round: usize) -> Sensitivity {
        SetFunction::gain_sensitivity(self, round)
    }
    fn properties(&self) -> Properties {
        SetFunction::properties(self)
    }
    fn name(&self) -> &'static str {
        SetFunction::name(self)
    }
    fn max_solution_size(&self) -> usize {
        SetFunction::max_solution_size(self)
    }
    fn gain_of(&self, total: i64, _records: usize) -> f64 {
        total as f64 * self.unit()
    }
    fn value_of(&self, total: i128, _records: usize) -> f64 {
        total as f64 * self.unit()
    }
}

/// The [`SetFunction`] worker 0's algorithm sees in a distributed run: gains and values are the
/// exact sums of every worker's; everything public (ground set, sensitivity, properties) is
/// the [`Aggregate`]'s, which every worker shares.
pub struct Sharded<'f, F> {
    local: &'f F,
    records: usize,
    link: Arc<Link>,
}

/// The state of a [`Sharded`] objective: a handle to one state on every worker, and the
/// summed value.
#[derive(Debug)]
pub struct ShardedState {
    id: u64,
    total: i128,
    link: Arc<Link>,
}

impl<'f, F: Aggregate> Sharded<'f, F> {
    /// The objective over the link to worker 0, of `records` records in all.
    pub(crate) fn new(local: &'f F, records: usize, link: &Arc<Link>) -> Self {
        Sharded {
            local,
            records,
            link: Arc::clone(link),
        }
    }

    /// The public objective (its public parts are everyone's).
    pub fn local(&self) -> &F {
        self.local
    }

    /// The number of records over all workers.
    pub fn records(&self) -> usize {
        self.records
    }
}

impl Clone for ShardedState {
    fn clone(&self) -> Self {
        let to = self.link.next_id.fetch_add(1, Ordering::Relaxed);
        self.link.call(Msg::Clone { from: self.id, to });
        ShardedState {
            id: to,
            total: self.total,
            link: Arc::clone(&self.link),
        }
    }
}

impl Drop for ShardedState {
    fn drop(&mut self) {
        self.link.call(Msg::Forget(self.id));
    }
}

impl<F: Aggregate> SetFunction for Sharded<'_, F> {
    type State = ShardedState;

    fn ground_size(&self) -> usize {
        self.local.ground_size()
    }

    fn empty(&self) -> ShardedState {
        let id = self.link.next_id.fetch_add(1, Ordering::Relaxed);
        let total = self.link.total(Msg::Empty(id));
        ShardedState {
            id,
            total,
            link: Arc::clone(&self.link),
        }
    }

    fn gains(&self, state: &ShardedState, candidates: &[usize], out: &mut [f64]) {
        assert_eq!(candidates.len(), out.len(), "one output per candidate");
        let msg = Msg::Gains {
            state: state.id,
            candidates: candidates.iter().map(|&c| c as u64).collect(),
        };
        match self.link.call(msg) {
            Some(Msg::Units(units)) if units.len() == out.len() => {
                for (o, u) in out.iter_mut().zip(units) {
                    *o = self.local.gain_of(u, self.records);
                }
            }
            other => {
                if let Some(m) = other {
                    self.link
                        .fail(Error::Cluster(format!("unexpected answer {m:?}")));
                }
                // The run's result is dropped: any number serves.
                out.fill(0.0);
            }
        }
    }

    fn insert(&self, state: &mut ShardedState, v: usize) {
        state.total = self.link.total(Msg::Insert {
            state: state.id,
            v: v as u64,
        });
    }

    fn value(&self, state: &ShardedState) -> f64 {
        self.local.value_of(state.total, self.records)
    }

    fn sensitivity(&self, round: usize) -> Sensitivity {
        self.local.sensitivity(round)
    }

    fn gain_sensitivity(&self, round: usize) -> Sensitivity {
        self.local.gain_sensitivity(round)
    }

    fn properties(&self) -> Properties {
        self.local.properties()
    }

    fn name(&self) -> &'static str {
        self.local.name()
    }

    fn max_solution_size(&self) -> usize {
        self.local.max_solution_size()
    }
}

/// A worker's copies of the algorithm's states, by id.
type States<F> = std::collections::HashMap<u64, <F as SetFunction>::State>;

/// A [`Summable`] objective serving the commands of [`Sharded`] on its worker's records.
pub(super) struct ObjectiveServer<F: Summable> {
    pub(super) objective: F,
    pub(super) states: States<F>,
}

impl<F: Summable> Serve for ObjectiveServer<F> {
    fn ready(&self) -> Msg {
        Msg::Ready {
            records: self.objective.records() as u64,
            ground: self.objective.ground_size() as u64,
            unit: self.objective.unit(),
        }
    }

    fn serve(&mut self, _comm: &mut Comm<'_>, command: &Msg) -> Result<Msg> {
        serve_objective(&self.objective, &mut self.states, command)
    }
}

/// Carries out one command of [`Sharded`] on this worker's shard.
fn serve_objective<F: Summable>(objective: &F, states: &mut States<F>, msg: &Msg) -> Result<Msg> {
    let unit = objective.unit();
    let missing = |id: u64| Error::Cluster(format!("no state {id} on this worker"));
    let ground = objective.ground_size() as u64;
    Ok(match msg {
        Msg::Empty(id) => {
            let s = objective.empty();
            let total = units(objective.value(&s), unit)?;
            states.insert(*id, s);
            Msg::Total(total)
        }
        Msg::Clone { from, to } => {
            let s = states.get(from).ok_or_else(|| missing(*from))?.clone();
            states.insert(*to, s);
            Msg::Ack
        }
        Msg::Forget(id) => {
            states.remove(id);
            Msg::Ack
        }
        Msg::Gains { state, candidates } => {
            let s = states.get(state).ok_or_else(|| missing(*state))?;
            if let Some(c) = candidates.iter().find(|&&c| c >= ground) {
                return Err(Error::Cluster(format!("candidate {c} out of range")));
            }
            let candidates: Vec<usize> = candidates.iter().map(|&c| c as usize).collect();
            let mut gains = vec![0.0; candidates.len()];
            objective.gains(s, &candidates, &mut gains);
            Msg::Units(
                gains
                    .into_iter()
                    .map(|g| units(g, unit))
                    .collect::<Result<_>>()?,
            )
        }
        Msg::Insert { state, v } => {
            if *v >= ground {
                return Err(Error::Cluster(format!("candidate {v} out of range")));
            }
            let s = states.get_mut(state).ok_or_else(|| missing(*state))?;
            objective.insert(s, *v as usize);
            Msg::Total(units(objective.value(s), unit)?)
        }
        Msg::Done => Msg::Ack,
        other => return Err(Error::Cluster(format!("unexpected command {other:?}"))),
    })
}
