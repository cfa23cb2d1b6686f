//! One worker's run: the [`Serve`] part it builds from its records, and the loop that builds
//! it, agrees with the others whether the run goes ahead, then answers worker 0's commands
//! until `Done` ([`work`]).

use super::super::Place;
use super::super::network::Health;
use super::comm::{Comm, Wire};
use super::link::Desk;
use super::protocol::{Msg, sum_answers};
use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use timely::worker::Worker;

/// A worker's part of a distributed computation driven from process 0
/// ([`Cluster::serve`](super::super::Cluster::serve)): every worker receives every command,
/// in the same order, and answers it to worker 0, which combines the answers
/// ([`sum_answers`]). Serving may exchange with the other workers, as long as every worker
/// does so for the same commands.
pub(crate) trait Serve {
    /// What worker 0 learns of this worker's part before the first command
    /// ([`Msg::Ready`]).
    fn ready(&self) -> Msg;

    /// Carries out one command; the answer goes to worker 0.
    fn serve(&mut self, comm: &mut Comm<'_>, command: &Msg) -> Result<Msg>;
}

/// One worker's whole run: build its part, then answer commands until `Done`. Worker 0
/// takes the commands from the caller's thread (`desk`) and sends them to everyone. `done` is
/// set once `Done` is served: this worker's part is complete, whatever befalls the answer's
/// exchange.
pub(super) fn work<S, B>(
    worker: &mut Worker,
    place: Place,
    timeout: Duration,
    health: &Arc<Health>,
    build: &B,
    desk: &Mutex<Option<Desk>>,
    done: &Cell<bool>,
) -> Result<()>
where
    S: Serve,
    B: Fn(&mut Comm<'_>) -> Result<S>,
{
    let mut comm = Comm {
        wire: Wire::new(worker, timeout, place.workers, Arc::clone(health)),
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
        if matches!(command, Msg::Done) {
            done.set(true);
        }
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
