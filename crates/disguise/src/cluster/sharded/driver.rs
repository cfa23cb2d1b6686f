//! The driver of a distributed run ([`Cluster::maximize`], [`Cluster::sum_counts`] and the
//! crate's [`Cluster::serve`]): connect the processes, start every worker on its loop, run the
//! caller's algorithm on process 0 over the link to worker 0, and join the workers, reporting
//! the first failure.

use super::super::network::{self, Health};
use super::super::tally::ClusterTally;
use super::super::{Cluster, Place};
use super::comm::{Comm, Wire};
use super::link::Link;
use super::objective::{ObjectiveServer, Sharded, Summable};
use super::protocol::Msg;
use super::worker::{Serve, work};
use crate::error::{Error, Result};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use timely::communication::allocator::AllocatorBuilder;
use timely::worker::Worker;

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
        let (builders, network, health) = self.connect()?;
        let (to_wire, commands) = channel::<Msg>();
        let (to_caller, answers) = channel::<Result<Msg>>();
        let desk = Arc::new(Mutex::new(Some((commands, to_caller))));
        let workers = Arc::clone(&health);
        let started = self.execute(builders, &health, move |worker, place, done| {
            work(worker, place, timeout, &workers, &build, &desk, done)
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
                    let failure = link
                        .failure
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take();
                    // Every state is gone: the workers may stop. Every answer is in by now, so
                    // what befalls this last exchange no longer matters to the result.
                    link.call(Msg::Done);
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
        let finished = self.finish(started, network, &health);
        match outcome {
            // Every answer was received: a link that fails as the run ends takes nothing away.
            Ok(Some(result)) => Ok(Some(result)),
            outcome => finished.and(outcome),
        }
    }

    /// Starts every worker of this process on `body`, with its [`Place`] and a flag that
    /// `body` sets once its part of the run is complete (a failure after it is no failure of
    /// the run). A worker's error (or panic: a peer that closed its connection) is noted, with
    /// every worker's outcome, in what this returns, and its dataflow dropped — timely would
    /// otherwise keep stepping it until every peer finishes it, forever if one is gone. A
    /// worker that succeeds steps its dataflow to its end itself, for at most the timeout and
    /// only while every link holds.
    fn execute<F>(
        &self,
        builders: Vec<AllocatorBuilder>,
        health: &Arc<Health>,
        body: F,
    ) -> Result<Started>
    where
        F: Fn(&mut Worker, Place, &Cell<bool>) -> Result<()> + Send + Sync + 'static,
    {
        let (processes, process, workers) = (self.processes(), self.process, self.workers);
        let timeout = self.timeout;
        let outcomes: Outcomes = Arc::new(Mutex::new(Vec::new()));
        let noted = Arc::clone(&outcomes);
        let health = Arc::clone(health);
        let guards = timely::execute::execute_from(
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
                let done = Cell::new(false);
                let result = catch_unwind(AssertUnwindSafe(|| body(worker, place, &done)))
                    .unwrap_or_else(|p| Err(peer_failure(&panic_text(&*p), &health)));
                let result = if done.get() { Ok(()) } else { result };
                let settled = result.is_ok() && settle(worker, &health, timeout);
                if !settled {
                    let _ = catch_unwind(AssertUnwindSafe(|| {
                        for id in worker.installed_dataflows() {
                            worker.drop_dataflow(id);
                        }
                    }));
                }
                let kept = match &result {
                    Ok(()) => Ok(()),
                    Err(e) => Err(Error::Cluster(e.to_string())),
                };
                (noted.lock().unwrap_or_else(|e| e.into_inner())).push((place.local, kept));
                result
            },
        )
        .map_err(Error::Cluster)?;
        Ok(Started { guards, outcomes })
    }

    /// The communication of a run: timely's allocators, the network threads' guard (`None`
    /// in one process), and the links' health.
    #[allow(clippy::type_complexity)]
    fn connect(&self) -> Result<(Vec<AllocatorBuilder>, Option<NetworkGuard>, Arc<Health>)> {
        let health = Arc::new(Health::default());
        if self.hosts.is_empty() {
            let (builders, _) = timely::CommunicationConfig::Process(self.workers)
                .try_build()
                .map_err(Error::Cluster)?;
            return Ok((builders, None, health));
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
            health: &health,
        }
        .connect()?;
        let hooks = timely::communication::Hooks::default();
        let local = ProcessBuilder::new_typed_vector(self.workers, hooks.refill.clone(), None);
        let (builders, guard) =
            initialize_networking_from_sockets(local, sockets, self.process, self.workers, hooks)
                .map_err(|e| Error::Cluster(format!("starting the network: {e}")))?;
        let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
        Ok((builders, Some(Box::new(guard)), health))
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
        let (builders, network, health) = self.connect()?;
        let total: Arc<Mutex<Option<Vec<u64>>>> = Arc::default();
        let kept = Arc::clone(&total);
        let links = Arc::clone(&health);
        let started = self.execute(builders, &health, move |worker, place, _| {
            let mut comm = Comm {
                wire: Wire::new(worker, timeout, place.workers, Arc::clone(&links)),
                place,
            };
            let sum = comm.all_sum(count(place))?;
            if place.worker == 0 {
                *kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(sum);
            }
            Ok(())
        })?;
        let finished = self.finish(started, network, &health);
        // Process 0 holds the sum once every count is in, whatever befalls the links after.
        match total.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(sum) => Ok(Some(sum)),
            None => finished.map(|()| None),
        }
    }
}

impl Cluster {
    /// Runs `release` in worker 0 on the table in `paths` (read with the complete `schema`,
    /// each worker its share as [`super::super::read_share`] deals it) through a
    /// [`ClusterTally`]: what [`crate::synth`] reads of the data, summed over the workers
    /// in two exchanges ([`ClusterTally`]), with the columns' names and domains.
    /// Returns its result in process 0, `None` in the others. Only counts and worker 0's
    /// released decisions cross the network.
    ///
    /// # Errors
    /// As [`super::super::read_share`] and `release`; [`Error::Cluster`].
    pub fn synthesize<R, F>(
        &self,
        paths: Vec<std::path::PathBuf>,
        schema: crate::histogram::Schema,
        edges: crate::histogram::EdgePlan,
        edges_rng: Option<crate::SecureRng>,
        release: F,
    ) -> Result<Option<R>>
    where
        F: FnOnce(ClusterTally<'_, '_>, SynthInput) -> Result<R> + Send + 'static,
        R: Send + 'static,
    {
        use super::super::tally::{Step, finish_leader, follow};
        let timeout = self.timeout;
        let (builders, network, health) = self.connect()?;
        let total: Arc<Mutex<Option<R>>> = Arc::new(Mutex::new(None));
        let kept = Arc::clone(&total);
        let links = Arc::clone(&health);
        let edges_rng = Arc::new(Mutex::new(edges_rng));
        let release = Arc::new(Mutex::new(Some(release)));
        let started = self.execute(builders, &health, move |worker, place, _| {
            let mut comm = Comm {
                wire: Wire::new(worker, timeout, place.workers, Arc::clone(&links)),
                place,
            };
            // Private edges first, drawn by worker 0 (process 0), learnt by every worker.
            let (schema, released) = super::super::table::edges_for_worker(
                &mut comm, &paths, &schema, &edges, &edges_rng,
            )?;
            let data = super::super::read_share(&mut comm, &paths, &schema)?;
            let rows = comm.all_sum(Ok(vec![data.rows() as u64]))?[0];
            let sizes: Vec<usize> = data.domains().iter().map(|d| d.size() as usize).collect();
            let codes: Vec<_> = (0..data.width()).map(|c| data.codes(c)).collect();
            if place.worker != 0 {
                return follow(&mut comm, &codes, &sizes);
            }
            let release = release
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .ok_or_else(|| Error::Cluster("worker 0 ran twice".into()))?;
            let step = std::cell::Cell::new(Step::Start);
            let input = SynthInput {
                names: data.names().to_vec(),
                domains: data.domains().to_vec(),
                edges: released,
            };
            let outcome = release(
                ClusterTally::new(&mut comm, codes, sizes, rows, &step),
                input,
            );
            finish_leader(&mut comm, step.get(), &outcome)?;
            *kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome?);
            Ok(())
        })?;
        let finished = self.finish(started, network, &health);
        match total.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(out) => Ok(Some(out)),
            None => finished.map(|()| None),
        }
    }
}

/// What worker 0's release gets beside its [`ClusterTally`] from [`Cluster::synthesize`]:
/// the columns the counts are of.
#[derive(Debug, Clone)]
pub struct SynthInput {
    /// The column names, in the schema's order.
    pub names: Vec<String>,
    /// The columns' domains (public: from the schema, the summed n and the released edges).
    pub domains: Vec<crate::histogram::Domain>,
    /// The private edges drawn, when some column needed them.
    pub edges: Option<crate::histogram::EdgeRelease>,
}

/// Every worker of this process, started: their threads, and each one's outcome (its local
/// index and result, in the order they ended) as it noted it before timely's clean-up.
struct Started {
    guards: timely::communication::WorkerGuards<Result<()>>,
    outcomes: Outcomes,
}

type Outcomes = Arc<Mutex<Vec<(usize, Result<()>)>>>;

/// How long a failed process waits for its network threads to send what its workers left
/// (worker 0's reason to stop, the end of each stream) before it reports the failure.
const LINGER: Duration = Duration::from_secs(2);

impl Cluster {
    /// Joins the workers: the first error any of them noted, else none. A worker thread may
    /// panic in timely's clean-up after its part ended (a poisoned queue: its peer's link
    /// failed): that is no failure of the run. The network threads are joined only once they
    /// have all ended without failing (joining a failed one would re-raise its panic); after a
    /// failed run they are given a moment to send what the workers left, then left alone (the
    /// process is about to report the error).
    fn finish(
        &self,
        started: Started,
        network: Option<NetworkGuard>,
        health: &Health,
    ) -> Result<()> {
        let Started { guards, outcomes } = started;
        let joined = guards.join();
        let outcomes = std::mem::take(&mut *outcomes.lock().unwrap_or_else(|e| e.into_inner()));
        let ended: Vec<usize> = outcomes.iter().map(|(local, _)| *local).collect();
        let mut first_error = outcomes.into_iter().find_map(|(_, r)| r.err());
        for (local, result) in joined.into_iter().enumerate() {
            if result.is_err() && !ended.contains(&local) {
                // A panic before the worker's part ended, outside it: timely's own stepping.
                first_error.get_or_insert_with(|| {
                    health
                        .failure()
                        .unwrap_or_else(|| Error::Cluster("a worker's dataflow failed".into()))
                });
            }
        }
        let Some(network) = network else {
            return first_error.map_or(Ok(()), Err);
        };
        match first_error {
            None => {
                if health.wait_threads(Instant::now() + self.timeout) && !health.broken() {
                    drop(network);
                } else {
                    std::mem::forget(network);
                }
                Ok(())
            }
            Some(e) => {
                health.wait_threads(Instant::now() + LINGER.min(self.timeout));
                std::mem::forget(network);
                Err(e)
            }
        }
    }
}

/// Steps a worker whose part succeeded until its dataflows complete (its last progress reaches
/// the others), for at most `timeout` and while every link holds: whether they completed.
fn settle(worker: &mut Worker, health: &Health, timeout: Duration) -> bool {
    let until = Instant::now() + timeout;
    catch_unwind(AssertUnwindSafe(|| {
        while worker.has_dataflows() {
            if health.broken() || Instant::now() >= until {
                return false;
            }
            worker.step_or_park(Some(Duration::from_millis(50)));
        }
        true
    }))
    .unwrap_or(false)
}

/// The error for a worker that failed inside timely: a failed link names its peer and how.
fn peer_failure(text: &str, health: &Health) -> Error {
    if text.contains("timely communication error") || text.contains("MergeQueue poisoned") {
        health.failure().unwrap_or_else(|| {
            Error::Cluster(
                "a peer closed its connection mid-run (it died or was killed); nothing was \
                 released"
                    .into(),
            )
        })
    } else {
        Error::Cluster(format!("a worker failed: {text}"))
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
