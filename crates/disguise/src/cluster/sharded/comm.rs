//! How the workers of a run exchange messages: [`Wire`], the timely dataflow that delivers
//! each epoch's messages to the worker they are addressed to (and names a silent peer), and
//! [`Comm`], a worker's collective exchanges built on it.

use super::super::Place;
use super::super::network::Health;
use super::protocol::Msg;
use crate::error::{Error, Result};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

/// A message on the wire: its destination worker, the epoch it belongs to, the message.
type Addressed = (u64, u64, Msg);

/// One worker's end of the exchange: a dataflow that delivers each epoch's messages to the
/// worker they are addressed to.
pub(super) struct Wire<'w> {
    worker: &'w mut Worker,
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Addressed>>>,
    probe: ProbeHandle<u64>,
    /// Messages received, with the epoch they were sent in: a fast peer's answer of the next
    /// epoch may arrive before this one is complete.
    inbox: Rc<RefCell<Vec<(u64, Msg)>>>,
    timeout: Duration,
    /// Worker threads per process (to name a silent worker's process).
    workers: usize,
    /// The links' health: the first peer whose stream ended, and how.
    health: Arc<Health>,
}

impl<'w> Wire<'w> {
    pub(super) fn new(
        worker: &'w mut Worker,
        timeout: Duration,
        workers: usize,
        health: Arc<Health>,
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
            health,
        }
    }

    /// Sends `out` (destination, message), then waits until every worker has sent its
    /// messages of this epoch; returns the ones addressed here.
    pub(super) fn exchange(&mut self, out: Vec<(u64, Msg)>) -> Result<Vec<Msg>> {
        let now = *self.input.time();
        let me = self.worker.index() as u64;
        // Every worker announces itself to every other: a few bytes each, and any worker that
        // times out can name exactly the workers it heard nothing from.
        for to in self.others() {
            self.input.send((to, now, Msg::Here(me)));
        }
        for (to, m) in out {
            self.input.send((to, now, m));
        }
        let next = now + 1;
        self.input.advance_to(next);
        let start = Instant::now();
        let mut through = false;
        loop {
            if let Some(reason) = self.gave_up() {
                return Err(Error::Cluster(reason));
            }
            if !self.probe.less_than(&next) {
                break;
            }
            // Once every other worker's messages are here, say so (tagged with this epoch).
            if !through && self.heard(now).len() + 1 == self.worker.peers() {
                for to in self.others() {
                    self.input.send((to, now, Msg::Through(me)));
                }
                through = true;
            }
            self.worker.step_or_park(Some(Duration::from_millis(50)));
            if self.health.ended() {
                // What the peer sent before its end is already here: a moment to take it in
                // (above all a message saying why it gave up).
                let grace = Instant::now();
                while self.probe.less_than(&next)
                    && self.gave_up().is_none()
                    && grace.elapsed() < Duration::from_millis(500)
                {
                    self.worker.step_or_park(Some(Duration::from_millis(10)));
                }
                if let Some(reason) = self.gave_up() {
                    return Err(Error::Cluster(reason));
                }
                if self.probe.less_than(&next) {
                    return Err(self.health.failure().unwrap_or_else(|| {
                        Error::Cluster("a peer closed its connection; nothing was released".into())
                    }));
                }
            }
            if start.elapsed() > self.timeout {
                return Err(self.give_up(now));
            }
        }
        let mut inbox = self.inbox.borrow_mut();
        let (this, later): (Vec<_>, Vec<_>) = inbox.drain(..).partition(|(e, _)| *e == now);
        // What an earlier epoch left: only the `Through`s sent after it (at its next epoch).
        *inbox = later.into_iter().filter(|(e, _)| *e > now).collect();
        Ok(this
            .into_iter()
            .map(|(_, m)| m)
            .filter(|m| !matches!(m, Msg::Here(_) | Msg::Through(_)))
            .collect())
    }

    /// The workers whose messages of epoch `now` are here (their `Here`).
    fn heard(&self, now: u64) -> Vec<u64> {
        (self.inbox.borrow().iter())
            .filter_map(|(e, m)| match m {
                Msg::Here(w) if *e == now => Some(*w),
                _ => None,
            })
            .collect()
    }

    /// Why a peer that gave up waiting stopped, once its message is here (at any epoch: it
    /// sends it after its own has advanced).
    fn gave_up(&self) -> Option<String> {
        self.inbox.borrow().iter().find_map(|(_, m)| match m {
            Msg::GaveUp(reason) => Some(reason.clone()),
            _ => None,
        })
    }

    /// Ends a wait on the exchange of epoch `now` that outlasted the timeout: names the
    /// workers not heard from in it — or, when every worker reached it, the ones that did not
    /// take in the others' messages (stopped inside it) — tells every other worker (so that
    /// none of them blames this process when its connections close), and returns the error.
    fn give_up(&mut self, now: u64) -> Error {
        let heard = self.heard(now);
        let through: Vec<u64> = (self.inbox.borrow().iter())
            .filter_map(|(e, m)| match m {
                Msg::Through(w) if *e == now => Some(*w),
                _ => None,
            })
            .collect();
        let name = |w: u64| format!("process {} (worker {w})", w as usize / self.workers);
        let silent: Vec<String> = (self.others())
            .filter(|w| !heard.contains(w))
            .map(name)
            .collect();
        // A worker still waiting for a silent one is not through either: it is named only
        // when nobody is silent.
        let stuck: Vec<String> = (self.others())
            .filter(|w| !through.contains(w))
            .map(name)
            .collect();
        let seconds = self.timeout.as_secs_f64();
        let why = if !silent.is_empty() {
            format!(
                "heard nothing from {} for {seconds} s: stopped, or slower than --timeout",
                silent.join(", ")
            )
        } else if !stuck.is_empty() {
            format!(
                "heard nothing from {} for {seconds} s after the messages of this exchange: \
                 stopped inside it, or slower than --timeout",
                stuck.join(", ")
            )
        } else {
            format!(
                "every worker reached the exchange, but it did not complete in {seconds} s: a \
                 process stopped or slowed in it (slower than --timeout)"
            )
        };
        let me = self.worker.index();
        let told = Msg::GaveUp(format!(
            "process {} (worker {me}) gave up: it {why}; nothing was released",
            me / self.workers
        ));
        let later = *self.input.time();
        for to in self.others() {
            self.input.send((to, later, told.clone()));
        }
        self.input.flush();
        // Hands the message to the network threads, which send it before the streams end.
        for _ in 0..4 {
            self.worker.step_or_park(Some(Duration::ZERO));
        }
        Error::Cluster(why)
    }

    /// Every other worker: the ones this one announces itself to and listens for in each
    /// exchange.
    fn others(&self) -> impl Iterator<Item = u64> + use<> {
        let (me, peers) = (self.worker.index() as u64, self.worker.peers() as u64);
        (0..peers).filter(move |&w| w != me)
    }

    /// `msg` to every worker.
    pub(super) fn to_all(&self, msg: &Msg) -> Vec<(u64, Msg)> {
        (0..self.worker.peers() as u64)
            .map(|w| (w, msg.clone()))
            .collect()
    }
}

/// One worker's side of a distributed run: its [`Place`] and collective exchanges with every
/// other worker. Every worker must make the same exchanges in the same order (a worker that
/// failed locally still takes part, passing its error on), or its peers wait for it until the
/// timeout.
pub struct Comm<'w> {
    pub(super) wire: Wire<'w>,
    pub(super) place: Place,
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
        let mut sum: Option<Vec<u64>> = None;
        for c in self.all_gather(mine)? {
            match &mut sum {
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
            }
        }
        sum.ok_or_else(|| Error::Cluster("no worker answered".into()))
    }

    /// Every worker's vector (of any length), on every worker, in no particular order; a
    /// worker's error becomes every worker's.
    ///
    /// # Errors
    /// [`Error::Cluster`] for a worker's error or a peer that does not answer.
    pub fn all_gather(&mut self, mine: Result<Vec<u64>>) -> Result<Vec<Vec<u64>>> {
        let msg = match &mine {
            Ok(c) => Msg::Counts(c.clone()),
            Err(e) => Msg::Failed(format!("worker {}: {e}", self.place.worker)),
        };
        let out = self.wire.to_all(&msg);
        let got = self.wire.exchange(out)?;
        mine?;
        got.into_iter()
            .map(|m| match m {
                Msg::Counts(c) => Ok(c),
                Msg::Failed(why) => Err(Error::Cluster(why)),
                other => Err(Error::Cluster(format!("unexpected {other:?}"))),
            })
            .collect()
    }

    /// Sends each message to its worker; returns the ones sent here in this exchange.
    pub(crate) fn exchange(&mut self, out: Vec<(u64, Msg)>) -> Result<Vec<Msg>> {
        self.wire.exchange(out)
    }
}
