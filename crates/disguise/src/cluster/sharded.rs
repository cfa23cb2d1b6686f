//! The objective of a distributed run: a [`SetFunction`] on worker 0 whose every question is
//! answered by all workers together, over timely dataflow.

use super::{Cluster, Place, network};
use crate::error::{Error, Result};
use crate::objective::{Properties, SetFunction};
use crate::privacy::Sensitivity;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use timely::communication::allocator::AllocatorBuilder;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

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

/// The count of one (candidate, class key high and low halves, candidate's value, label).
pub(crate) type Refinement = (u32, u64, u64, u32, u32, u64);

/// A message between workers: commands from worker 0, answers to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Msg {
    /// A worker's shard is ready (its records, its ground set size, its unit).
    Ready {
        records: u64,
        ground: u64,
        unit: f64,
    },
    /// A worker could not build its shard.
    Failed(String),
    /// Give up: the message says why.
    Abort(String),
    /// Create the empty state `id`.
    Empty(u64),
    /// Copy state `from` into a new state `to`.
    Clone {
        from: u64,
        to: u64,
    },
    /// Drop state `id`.
    Forget(u64),
    /// The gains of `candidates` over state `state`.
    Gains {
        state: u64,
        candidates: Vec<u64>,
    },
    /// Add `v` to state `state`.
    Insert {
        state: u64,
        v: u64,
    },
    /// The run is over.
    Done,
    /// Worker `0` has reached this exchange: sent to every other worker with its messages,
    /// so that a timeout can name the workers not heard from.
    Here(u64),
    /// Answers: gains and a value in units, or nothing to say.
    Units(Vec<i64>),
    /// A worker's counts ([`Comm::all_sum`]).
    Counts(Vec<u64>),
    Total(i64),
    Ack,
    /// Counts of (candidate, class key, candidate's code, label), sent to the class's owner
    /// (distributed discernibility).
    Refine(Vec<Refinement>),
    /// Counts of (class key, label), sent to the class's owner.
    Classes(Vec<(u64, u64, u32, u64)>),
    /// Release the projected histogram of these columns: the mechanism's noise scale and
    /// threshold (bits of the f64s) and the release key.
    Release {
        columns: Vec<u64>,
        scale: u64,
        tau: u64,
        key: Vec<u8>,
    },
    /// Non-empty cells and their counts, sent to the cell's owner.
    Cells(Vec<(u64, u64)>),
    /// Released cells and their noisy counts (bits of the f64), to worker 0.
    Released(Vec<(u64, u64)>),
    /// Describe your table.
    Describe,
    /// A table's public shape: feature names and arities, label levels.
    Shape {
        names: Vec<String>,
        arities: Vec<u32>,
        label_levels: u32,
    },
    /// Count your table's contingency counts.
    Count,
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

/// Worker 0's algorithm thread talking to its timely thread. After a failure every call
/// answers at once (with nothing): the run then finishes quickly and its result is dropped.
#[derive(Debug)]
pub(crate) struct Link {
    channel: Mutex<(Sender<Msg>, Receiver<Result<Msg>>)>,
    failure: Mutex<Option<Error>>,
    next_id: AtomicU64,
}

impl Link {
    pub(crate) fn call(&self, msg: Msg) -> Option<Msg> {
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if failure.is_some() {
            return None;
        }
        let channel = self.channel.lock().unwrap_or_else(|e| e.into_inner());
        let answer = match channel.0.send(msg) {
            Ok(()) => channel
                .1
                .recv()
                .unwrap_or_else(|_| Err(Error::Cluster("the communication thread stopped".into()))),
            Err(_) => Err(Error::Cluster("the communication thread stopped".into())),
        };
        match answer {
            Ok(m) => Some(m),
            Err(e) => {
                *failure = Some(e);
                None
            }
        }
    }

    pub(crate) fn fail(&self, e: Error) {
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure.get_or_insert(e);
    }

    fn total(&self, msg: Msg) -> i128 {
        match self.call(msg) {
            Some(Msg::Total(t)) => t as i128,
            Some(other) => {
                self.fail(Error::Cluster(format!("unexpected answer {other:?}")));
                0
            }
            None => 0,
        }
    }
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

/// A value in units, exactly, or an error saying the objective is not [`Summable`] as it
/// claims.
fn units(value: f64, unit: f64) -> Result<i64> {
    let k = value / unit;
    if k.fract() != 0.0 || k.abs() >= 2f64.powi(53) || !k.is_finite() {
        return Err(Error::Cluster(format!(
            "a shard's value {value} is not an exact multiple of the unit {unit}: the \
             objective cannot be summed exactly"
        )));
    }
    Ok(k as i64)
}

/// A message on the wire: its destination worker, the epoch it belongs to, the message.
type Addressed = (u64, u64, Msg);

/// One worker's end of the exchange: a dataflow that delivers each epoch's messages to the
/// worker they are addressed to.
struct Wire<'w> {
    worker: &'w mut Worker,
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Addressed>>>,
    probe: ProbeHandle<u64>,
    /// Messages received, with the epoch they were sent in: a fast peer's answer of the next
    /// epoch may arrive before this one is complete.
    inbox: Rc<RefCell<Vec<(u64, Msg)>>>,
    timeout: Duration,
    /// Worker threads per process (to name a silent worker's process).
    workers: usize,
    /// The first peer process whose stream ended, plus one (0 while none).
    closed: Arc<AtomicUsize>,
}

impl<'w> Wire<'w> {
    fn new(
        worker: &'w mut Worker,
        timeout: Duration,
        workers: usize,
        closed: Arc<AtomicUsize>,
    ) -> Self {
        let mut input = InputHandle::new();
        let probe = ProbeHandle::new();
        let inbox = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&inbox);
        worker.dataflow(|scope| {
            scope
                .input_from(&mut input)
                .container::<Vec<_>>()
                .exchange(|(to, _, _): &Addressed| *to)
                .inspect(move |(_, epoch, m): &Addressed| {
                    sink.borrow_mut().push((*epoch, m.clone()))
                })
                .probe_with(&probe);
        });
        Wire {
            worker,
            input,
            probe,
            inbox,
            timeout,
            workers: workers.max(1),
            closed,
        }
    }

    /// Sends `out` (destination, message), then waits until every worker has sent its
    /// messages of this epoch; returns the ones addressed here.
    fn exchange(&mut self, out: Vec<(u64, Msg)>) -> Result<Vec<Msg>> {
        let now = *self.input.time();
        let me = self.worker.index() as u64;
        // Worker 0 announces itself to every worker and every worker to worker 0: linear in
        // the workers (not quadratic), and enough for worker 0 to name any silent worker and
        // for the others to tell whether worker 0 is the silent one.
        for to in self.watched() {
            self.input.send((to, now, Msg::Here(me)));
        }
        for (to, m) in out {
            self.input.send((to, now, m));
        }
        let next = now + 1;
        self.input.advance_to(next);
        let start = Instant::now();
        while self.probe.less_than(&next) {
            self.worker.step_or_park(Some(Duration::from_millis(50)));
            let closed = self.closed.load(Ordering::SeqCst);
            if closed != 0 {
                // What the peer sent before its end is already here: a moment to take it in.
                let grace = Instant::now();
                while self.probe.less_than(&next) && grace.elapsed() < Duration::from_millis(500) {
                    self.worker.step_or_park(Some(Duration::from_millis(10)));
                }
                if self.probe.less_than(&next) {
                    return Err(Error::Cluster(format!(
                        "process {} closed its connection (it ended, died or was killed); \
                         nothing was released",
                        closed - 1
                    )));
                }
            }
            if start.elapsed() > self.timeout {
                let heard: Vec<u64> = (self.inbox.borrow().iter())
                    .filter_map(|(e, m)| match m {
                        Msg::Here(w) if *e == now => Some(*w),
                        _ => None,
                    })
                    .collect();
                let silent: Vec<String> = (self.watched())
                    .filter(|w| !heard.contains(w))
                    .map(|w| format!("process {} (worker {w})", w as usize / self.workers))
                    .collect();
                let who = if silent.is_empty() {
                    "another worker (process 0's message names it)".to_string()
                } else {
                    silent.join(", ")
                };
                return Err(Error::Cluster(format!(
                    "heard nothing from {who} for {} s: stopped, or slower than --timeout",
                    self.timeout.as_secs_f64()
                )));
            }
        }
        let mut inbox = self.inbox.borrow_mut();
        let (this, later): (Vec<_>, Vec<_>) = inbox.drain(..).partition(|(e, _)| *e == now);
        *inbox = later;
        Ok(this
            .into_iter()
            .map(|(_, m)| m)
            .filter(|m| !matches!(m, Msg::Here(_)))
            .collect())
    }

    /// The workers this one announces itself to and listens for in each exchange: every
    /// other worker for worker 0, worker 0 for the others.
    fn watched(&self) -> impl Iterator<Item = u64> + use<> {
        let (me, peers) = (self.worker.index() as u64, self.worker.peers() as u64);
        let range = if me == 0 { 1..peers } else { 0..1 };
        range.filter(move |&w| w != me)
    }

    /// `msg` to every worker.
    fn to_all(&self, msg: &Msg) -> Vec<(u64, Msg)> {
        (0..self.worker.peers() as u64)
            .map(|w| (w, msg.clone()))
            .collect()
    }
}

/// A worker's copies of the algorithm's states, by id.
type States<F> = std::collections::HashMap<u64, <F as SetFunction>::State>;

/// One worker's side of a distributed run: its [`Place`] and collective exchanges with every
/// other worker. Every worker must make the same exchanges in the same order (a worker that
/// failed locally still takes part, passing its error on), or its peers wait for it until the
/// timeout.
pub struct Comm<'w> {
    wire: Wire<'w>,
    place: Place,
}

impl Comm<'_> {
    /// Where this worker sits.
    pub fn place(&self) -> Place {
        self.place
    }

    /// Every worker's vector of counts (of one length), added up exactly, on every worker;
    /// a worker's error (its `mine`) becomes every worker's.
    ///
    /// # Errors
    /// [`Error::Cluster`] for a worker's error, vectors of different lengths, a sum above
    /// 2^64, or a peer that does not answer.
    pub fn all_sum(&mut self, mine: Result<Vec<u64>>) -> Result<Vec<u64>> {
        let msg = match &mine {
            Ok(c) => Msg::Counts(c.clone()),
            Err(e) => Msg::Failed(format!("worker {}: {e}", self.place.worker)),
        };
        let out = self.wire.to_all(&msg);
        let got = self.wire.exchange(out)?;
        mine?;
        let mut sum: Option<Vec<u64>> = None;
        for m in got {
            match m {
                Msg::Counts(c) => match &mut sum {
                    None => sum = Some(c),
                    Some(s) if s.len() == c.len() => {
                        for (x, y) in s.iter_mut().zip(c) {
                            *x = x
                                .checked_add(y)
                                .ok_or_else(|| Error::Cluster("a summed count overflows".into()))?;
                        }
                    }
                    Some(_) => {
                        return Err(Error::Cluster(
                            "the workers' counts have different lengths".into(),
                        ));
                    }
                },
                Msg::Failed(why) => return Err(Error::Cluster(why)),
                other => return Err(Error::Cluster(format!("unexpected {other:?}"))),
            }
        }
        sum.ok_or_else(|| Error::Cluster("no worker answered".into()))
    }

    /// Sends each message to its worker; returns the ones sent here in this exchange.
    pub(crate) fn exchange(&mut self, out: Vec<(u64, Msg)>) -> Result<Vec<Msg>> {
        self.wire.exchange(out)
    }
}

/// A worker's part of a distributed computation driven from process 0 ([`Cluster::serve`]):
/// every worker receives every command, in the same order, and answers it to worker 0, which
/// combines the answers ([`sum_answers`]). Serving may exchange with the other workers, as
/// long as every worker does so for the same commands.
pub(crate) trait Serve {
    /// What worker 0 learns of this worker's part before the first command
    /// ([`Msg::Ready`]).
    fn ready(&self) -> Msg;

    /// Carries out one command; the answer goes to worker 0.
    fn serve(&mut self, comm: &mut Comm<'_>, command: &Msg) -> Result<Msg>;
}

/// A [`Summable`] objective serving the commands of [`Sharded`] on its worker's records.
struct ObjectiveServer<F: Summable> {
    objective: F,
    states: States<F>,
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

/// Sums the answers of all workers to one command (they are all of the same kind).
fn sum_answers(answers: Vec<Msg>, peers: usize) -> Result<Msg> {
    if answers.len() != peers {
        return Err(Error::Cluster(format!(
            "{} answers from {peers} workers",
            answers.len()
        )));
    }
    let mut it = answers.into_iter();
    let first = it
        .next()
        .ok_or_else(|| Error::Cluster("no answer".into()))?;
    let sum = it.try_fold(first, |acc, m| match (acc, m) {
        (Msg::Units(mut a), Msg::Units(b)) if a.len() == b.len() => {
            for (x, y) in a.iter_mut().zip(b) {
                *x = exact_sum(*x, y)?;
            }
            Ok(Msg::Units(a))
        }
        (Msg::Total(a), Msg::Total(b)) => exact_sum(a, b).map(Msg::Total),
        (Msg::Counts(mut a), Msg::Counts(b)) if a.len() == b.len() => {
            for (x, y) in a.iter_mut().zip(b) {
                *x = x
                    .checked_add(y)
                    .ok_or_else(|| Error::Cluster("a summed count overflows".into()))?;
            }
            Ok(Msg::Counts(a))
        }
        (a @ Msg::Shape { .. }, b @ Msg::Shape { .. }) => {
            if a == b {
                Ok(a)
            } else {
                Err(Error::Cluster(
                    "the workers' tables have different columns or categories".into(),
                ))
            }
        }
        // Each worker's released cells: their union, sorted by cell below.
        (Msg::Released(mut a), Msg::Released(b)) => {
            a.extend(b);
            Ok(Msg::Released(a))
        }
        (Msg::Ack, Msg::Ack) => Ok(Msg::Ack),
        (Msg::Failed(a), _) | (_, Msg::Failed(a)) => Err(Error::Cluster(a)),
        (a, b) => Err(Error::Cluster(format!(
            "mismatched answers {a:?} and {b:?}"
        ))),
    })?;
    Ok(match sum {
        Msg::Released(mut cells) => {
            cells.sort_unstable_by_key(|c| c.0);
            Msg::Released(cells)
        }
        other => other,
    })
}

/// a + b, if the sum converts to f64 exactly (|sum| ≤ 2^53 units): beyond, the selector
/// would see rounded gains, whose sensitivity the objective's proof does not cover (for
/// facility location, past 2^31 records). Refused rather than charged silently.
fn exact_sum(a: i64, b: i64) -> Result<i64> {
    const EXACT: i64 = 1 << 53;
    match a.checked_add(b) {
        Some(s) if (-EXACT..=EXACT).contains(&s) => Ok(s),
        _ => Err(Error::Cluster(
            "a summed gain exceeds 2^53 units, beyond which f64 cannot hold it exactly (facility \
             location: more than 2^31 records): not supported"
                .into(),
        )),
    }
}

/// The text of a panic payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a worker failed".into())
}

/// Timely's network threads, joined when dropped.
type NetworkGuard = Box<dyn std::any::Any>;

/// Worker 0's end of the link to the caller's thread: commands in, summed answers out.
type Desk = (Receiver<Msg>, Sender<Result<Msg>>);

/// One worker's whole run: build its part, then answer commands until `Done`. Worker 0
/// takes the commands from the caller's thread (`desk`) and sends them to everyone.
fn work<S, B>(
    worker: &mut Worker,
    place: Place,
    timeout: Duration,
    closed: &Arc<AtomicUsize>,
    build: &B,
    desk: &Mutex<Option<Desk>>,
) -> Result<()>
where
    S: Serve,
    B: Fn(&mut Comm<'_>) -> Result<S>,
{
    let mut comm = Comm {
        wire: Wire::new(worker, timeout, place.workers, Arc::clone(closed)),
        place,
    };
    let built = build(&mut comm);
    let ready = match &built {
        Ok(server) => server.ready(),
        Err(e) => Msg::Failed(format!("worker {}: {e}", place.worker)),
    };
    let wire = &mut comm.wire;
    let answers = wire.exchange(vec![(0, ready)])?;
    let lead = place.worker == 0;
    // Worker 0 decides whether the run goes ahead; the others learn it from its first command.
    let mut records = 0u64;
    let mut verdict = None;
    if lead {
        let (mut ground, mut unit) = (None, None);
        for a in &answers {
            match a {
                Msg::Ready {
                    records: r,
                    ground: g,
                    unit: u,
                } => {
                    records += r;
                    if *ground.get_or_insert(*g) != *g {
                        verdict = Some("the workers disagree on the number of candidates".into());
                    }
                    // Shards on different grids (e.g. weights of different ranges) would not
                    // add up to the single-process objective exactly.
                    if unit.get_or_insert(u.to_bits()) != &u.to_bits() {
                        verdict = Some(
                            "the shards' objectives have different units and cannot be summed \
                             exactly (weighted coverage with different largest weights?)"
                                .into(),
                        );
                    }
                }
                Msg::Failed(why) => {
                    verdict.get_or_insert_with(|| why.clone());
                }
                other => verdict = Some(format!("unexpected {other:?}")),
            }
        }
    }
    let mut server = match (built, verdict) {
        (Ok(f), None) => f,
        (built, verdict) => {
            // Tell everyone (worker 0), or wait to be told (the others).
            let why = verdict.unwrap_or_default();
            let out = if lead {
                wire.to_all(&Msg::Abort(why.clone()))
            } else {
                Vec::new()
            };
            let got = wire.exchange(out)?;
            return Err(match (built, got.first()) {
                (Err(e), _) if !lead || why.is_empty() => e,
                (_, Some(Msg::Abort(w))) => Error::Cluster(w.clone()),
                _ => Error::Cluster(why),
            });
        }
    };
    let desk = if lead {
        let desk = desk
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| Error::Cluster("worker 0 started twice".into()))?;
        // The caller learns the total number of records first.
        if desk.1.send(Ok(Msg::Total(records as i64))).is_err() {
            return Err(Error::Cluster("the caller is gone".into()));
        }
        Some(desk)
    } else {
        None
    };
    loop {
        let out = match &desk {
            // A caller that stopped asking without `Done` (it failed) ends the run.
            Some((commands, _)) => comm.wire.to_all(&commands.recv().unwrap_or(Msg::Done)),
            None => Vec::new(),
        };
        let command = comm
            .exchange(out)?
            .into_iter()
            .next()
            .ok_or_else(|| Error::Cluster("a command of worker 0 was lost".into()))?;
        if let Msg::Abort(why) = command {
            return Err(Error::Cluster(why));
        }
        let answer = server
            .serve(&mut comm, &command)
            .unwrap_or_else(|e| Msg::Failed(e.to_string()));
        let answers = comm.exchange(vec![(0, answer)])?;
        if let Some((_, to_caller)) = &desk {
            // The caller may be gone after `Done`; nothing waits for the answer then.
            let _ = to_caller.send(sum_answers(answers, place.peers));
        }
        if matches!(command, Msg::Done) {
            return Ok(());
        }
    }
}

impl Cluster {
    /// Runs `algorithm` once, on this thread of process 0, over the sum of the objectives that
    /// `build` makes on each worker from its part of the data ([`Comm::place`] says which part;
    /// `build` may exchange with the other workers, e.g. to add up counts every worker needs).
    /// `public` is the objective over no records, whose public parts (ground set,
    /// sensitivity, name) the algorithm sees. Returns the algorithm's result in process 0 and
    /// `None` in the others (which only serve).
    ///
    /// `build` runs on every worker's own thread; `algorithm` must only ask its objective
    /// ([`Sharded`]) for gains, values and inserts — every other input of it, its generator
    /// above all, stays here: which is why the result with a seeded generator is the
    /// single-process run's, bit for bit.
    ///
    /// ```
    /// use disguise::cluster::Cluster;
    /// use disguise::maximize::standard_greedy;
    /// use disguise::constraint::Cardinality;
    /// use disguise::objective::Coverage;
    /// // Six people; candidate 0 covers persons 0–2, candidate 1 persons 3–4, candidate 2 person 5.
    /// let covers = vec![vec![0], vec![0], vec![0], vec![1], vec![1], vec![2]];
    /// let picks = Cluster::local(3)?.maximize(
    ///     &Coverage::new(3, &[])?,
    ///     // Worker w holds the people i with i mod 3 = w.
    ///     move |comm| {
    ///         let place = comm.place();
    ///         let mine: Vec<Vec<usize>> = covers.iter().enumerate()
    ///             .filter(|(i, _)| place.owns_row(*i as u64)).map(|(_, c)| c.clone()).collect();
    ///         Coverage::new(3, &mine)
    ///     },
    ///     |f| standard_greedy(f, &Cardinality::new(3, 2)).map(|s| s.elements),
    /// )?;
    /// assert_eq!(picks, Some(vec![0, 1]));
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Cluster`] if a peer cannot be reached within the timeout, dies or stops
    /// answering; a worker's `build` error (the first, for worker 0); the algorithm's error.
    pub fn maximize<F, B, A, T>(&self, public: &F, build: B, algorithm: A) -> Result<Option<T>>
    where
        F: Summable + Sync + 'static,
        B: Fn(&mut Comm<'_>) -> Result<F> + Send + Sync + 'static,
        A: FnOnce(&Sharded<'_, F>) -> Result<T>,
    {
        self.serve(
            move |comm: &mut Comm<'_>| {
                Ok(ObjectiveServer {
                    objective: build(comm)?,
                    states: Default::default(),
                })
            },
            |link, records| algorithm(&Sharded::new(public, records, link)),
        )
    }

    /// Builds a [`Serve`] part on every worker (`build` may exchange with the others, e.g.
    /// to learn the total number of records), then runs `drive` on this thread of process 0
    /// with the link to worker 0 and the total of the workers' records: every command it
    /// sends goes to all workers, and it receives their combined answer. Returns `drive`'s
    /// result in process 0, `None` in the others (which only serve).
    pub(crate) fn serve<S, B, D, T>(&self, build: B, drive: D) -> Result<Option<T>>
    where
        S: Serve + 'static,
        B: Fn(&mut Comm<'_>) -> Result<S> + Send + Sync + 'static,
        D: FnOnce(&Arc<Link>, usize) -> Result<T>,
    {
        let timeout = self.timeout;
        let process = self.process;
        let (builders, network, closed) = self.connect()?;
        let (to_wire, commands) = channel::<Msg>();
        let (to_caller, answers) = channel::<Result<Msg>>();
        let desk = Arc::new(Mutex::new(Some((commands, to_caller))));
        // Each worker's error, kept here too: a worker thread whose peer died may panic again
        // in timely's clean-up after our part returned, and its join then says nothing useful.
        let errors: Arc<Mutex<Vec<Error>>> = Arc::default();
        let guards = self.execute(builders, Arc::clone(&errors), move |worker, place| {
            work(worker, place, timeout, &closed, &build, &desk)
        })?;
        let outcome = if process == 0 {
            // Worker 0 first says how many records there are in all (or fails).
            match answers.recv() {
                Ok(Ok(Msg::Total(records))) => {
                    let link = Arc::new(Link {
                        channel: Mutex::new((to_wire, answers)),
                        failure: Mutex::new(None),
                        next_id: AtomicU64::new(0),
                    });
                    let result = drive(&link, records as usize);
                    // Every state is gone: the workers may stop.
                    link.call(Msg::Done);
                    let failure = link
                        .failure
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take();
                    match failure {
                        Some(e) => Err(e),
                        None => result.map(Some),
                    }
                }
                // Worker 0 failed before the run: its error comes from the join below.
                _ => Ok(None),
            }
        } else {
            drop(to_wire);
            Ok(None)
        };
        finish(guards, &errors, network)?;
        outcome
    }

    /// Starts every worker of this process on `body`, with its [`Place`]. A worker's error
    /// (or panic: a peer that closed its connection) is noted in `errors` and its dataflow
    /// dropped — timely would otherwise keep stepping it until every peer finishes it,
    /// forever if one is gone.
    fn execute<F>(
        &self,
        builders: Vec<AllocatorBuilder>,
        errors: Arc<Mutex<Vec<Error>>>,
        body: F,
    ) -> Result<timely::communication::WorkerGuards<Result<()>>>
    where
        F: Fn(&mut Worker, Place) -> Result<()> + Send + Sync + 'static,
    {
        let (processes, process, workers) = (self.processes(), self.process, self.workers);
        timely::execute::execute_from(
            builders,
            Box::new(()),
            timely::WorkerConfig::default(),
            move |worker| {
                let place = Place {
                    worker: worker.index(),
                    peers: worker.peers(),
                    process,
                    processes,
                    local: worker.index() % workers,
                    workers,
                };
                let result = catch_unwind(AssertUnwindSafe(|| body(worker, place)))
                    .unwrap_or_else(|p| Err(peer_failure(&panic_text(&*p))));
                if let Err(e) = &result {
                    errors
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(Error::Cluster(e.to_string()));
                    for id in worker.installed_dataflows() {
                        worker.drop_dataflow(id);
                    }
                }
                result
            },
        )
        .map_err(Error::Cluster)
    }

    /// The communication of a run: timely's allocators, and the network threads' guard
    /// (`None` in one process).
    #[allow(clippy::type_complexity)]
    fn connect(
        &self,
    ) -> Result<(
        Vec<AllocatorBuilder>,
        Option<NetworkGuard>,
        Arc<AtomicUsize>,
    )> {
        let closed = Arc::new(AtomicUsize::new(0));
        if self.hosts.is_empty() {
            let (builders, _) = timely::CommunicationConfig::Process(self.workers)
                .try_build()
                .map_err(Error::Cluster)?;
            return Ok((builders, None, closed));
        }
        use timely::communication::allocator::ProcessBuilder;
        use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
        let warn = |line: &str| (self.warn)(line);
        let sockets = network::Setup {
            hosts: &self.hosts,
            me: self.process,
            workers: self.workers,
            timeout: self.timeout,
            key: self.key.as_ref(),
            agreement: &self.agreement,
            warn: &warn,
            closed: &closed,
        }
        .connect()?;
        let hooks = timely::communication::Hooks::default();
        let local = ProcessBuilder::new_typed_vector(self.workers, hooks.refill.clone(), None);
        let (builders, guard) =
            initialize_networking_from_sockets(local, sockets, self.process, self.workers, hooks)
                .map_err(|e| Error::Cluster(format!("starting the network: {e}")))?;
        let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
        Ok((builders, Some(Box::new(guard)), closed))
    }

    /// Adds up, exactly, the vectors of counts that `count` makes on every worker from its
    /// part of the data (the same length on every worker): the sum in process 0, `None` in
    /// the others. One exchange; only the counts cross the network.
    ///
    /// ```
    /// use disguise::cluster::Cluster;
    /// let total = Cluster::local(3)?.sum_counts(|place| Ok(vec![1, place.worker as u64]))?;
    /// assert_eq!(total, Some(vec![3, 0 + 1 + 2]));
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Cluster::maximize`]; vectors of different lengths; a sum above 2^64.
    pub fn sum_counts<B>(&self, count: B) -> Result<Option<Vec<u64>>>
    where
        B: Fn(Place) -> Result<Vec<u64>> + Send + Sync + 'static,
    {
        let timeout = self.timeout;
        let (builders, network, closed) = self.connect()?;
        let errors: Arc<Mutex<Vec<Error>>> = Arc::default();
        let total: Arc<Mutex<Option<Vec<u64>>>> = Arc::default();
        let kept = Arc::clone(&total);
        let guards = self.execute(builders, Arc::clone(&errors), move |worker, place| {
            let mut comm = Comm {
                wire: Wire::new(worker, timeout, place.workers, Arc::clone(&closed)),
                place,
            };
            let sum = comm.all_sum(count(place))?;
            if place.worker == 0 {
                *kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(sum);
            }
            Ok(())
        })?;
        finish(guards, &errors, network)?;
        Ok(total.lock().unwrap_or_else(|e| e.into_inner()).take())
    }
}

/// Joins the workers: the first error any of them noted (a worker whose peer died may panic
/// again in timely's clean-up after noting it), else none. The network threads are joined
/// after a clean run and left alone after a failed one (joining them would re-raise their
/// panics; the process is about to report the error).
fn finish(
    guards: timely::communication::WorkerGuards<Result<()>>,
    errors: &Mutex<Vec<Error>>,
    network: Option<NetworkGuard>,
) -> Result<()> {
    let joined = guards.join();
    let mut first_error = errors
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .drain(..)
        .next();
    for result in joined {
        let error = match result {
            Ok(Ok(())) => continue,
            Ok(Err(e)) => e,
            // A panic outside our part of the worker: timely's own stepping.
            Err(_) => peer_failure("the worker's dataflow failed"),
        };
        first_error.get_or_insert(error);
    }
    match first_error {
        None => {
            drop(network);
            Ok(())
        }
        Some(e) => {
            std::mem::forget(network);
            Err(e)
        }
    }
}

/// The error for a worker that failed inside timely: a closed connection is a peer that died.
fn peer_failure(text: &str) -> Error {
    if text.contains("timely communication error") || text.contains("MergeQueue poisoned") {
        Error::Cluster(
            "a peer closed its connection mid-run (it died or was killed); nothing was released"
                .into(),
        )
    } else {
        Error::Cluster(format!("a worker failed: {text}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_exact_or_refused() {
        let answers = vec![Msg::Units(vec![1, 1 << 52]), Msg::Units(vec![2, 1 << 52])];
        match sum_answers(answers, 2) {
            Ok(Msg::Units(u)) => assert_eq!(u, vec![3, 1 << 53]),
            other => panic!("{other:?}"),
        }
        let over = vec![Msg::Units(vec![1 << 53]), Msg::Units(vec![1])];
        assert!(sum_answers(over, 2).is_err());
        assert!(
            sum_answers(vec![Msg::Total(1)], 2).is_err(),
            "an answer is missing"
        );
        let failed = vec![Msg::Total(1), Msg::Failed("worker 1: disk".into())];
        let err = sum_answers(failed, 2).unwrap_err();
        assert!(err.to_string().contains("worker 1: disk"));
        assert!(units(0.5, 1.0).is_err() && units(3.0, 0.5).unwrap() == 6);
    }
}
