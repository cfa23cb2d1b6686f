//! Distributed runs on [timely dataflow](https://docs.rs/timely): the records are partitioned
//! over workers — threads of one process and processes on many machines — and the private
//! algorithm runs once, on worker 0, over the *sum* of the workers' objectives.
//!
//! Each round of a greedy-type algorithm asks its objective for the marginal gains of the
//! candidates. Here that question goes to every worker, each answers with the gains of its own
//! records (exact integers: [`Summable`]), worker 0 adds them up exactly, and its selector draws
//! the private choice with worker 0's generator; the choice goes back to every worker, which
//! updates its records' state. Only candidate lists, choices and per-candidate sums cross the
//! network, never records.
//!
//! Objectives that are not sums over records are computed from sums over groups of records:
//! mutual information from the summed contingency counts (`features.rs`), discernibility from
//! per-class label counts added up by the class's owner (`discernibility.rs`), and the projected
//! histogram from per-cell counts added up by the owner of the cell's block, which adds the
//! noise (`histogram.rs`). Each is exact, so each gives the one-process numbers.
//!
//! # Privacy
//! The guarantee is the single-process run's, for the union of the shards: for a
//! 1-decomposable objective f_D = Σ_records f_i, the shards' objectives sum to f_D exactly
//! (integer arithmetic, [`Summable`]), so the selector sees *the same numbers* it would see in
//! one process, with the same sensitivity, and draws from the same distribution (with
//! `--seed`, the very same choices: the algorithm, its generator and every draw live on
//! worker 0 alone). The partition of the records is not private information the output
//! depends on: the output is a function of the summed gains and worker 0's generator only.
//!
//! The union is the one agreed on: before any record is read, every pair of processes
//! compares the request (command, options, public files) and the listing of each private
//! input ([`Agreement`]), and any difference stops the run, so that every part is read by
//! exactly one process and every process answers the same question.
//!
//! Trust model (the threat model is in `docs/SCALING.md`): a worker sees its own shard, the
//! candidate lists of each round and the choices (which are the output anyway). Only worker 0
//! sees the summed gains, as the single process sees them; the workers are trusted to compute
//! their contributions honestly (as a single process is trusted to read its file). With a
//! [`ClusterKey`] every link is mutually authenticated and encrypted, so nobody outside the
//! cluster can join it, read what crosses it or alter it; without one, every host must be this
//! machine and the links are in the clear on loopback. For feature selection
//! and histograms, aggregates of groups of records travel too (a class's label counts, a cell's
//! count before noise, the contingency counts): a worker sees the summed counts of the classes
//! and cells it owns, as the single process sees all of them, and draws the histogram noise of
//! its cells from a key of its own (a seeded run shares process 0's key instead, to be
//! reproducible: it protects no one anyway).
//!
//! # Failure
//! Connections are made by [`Cluster`] itself under one deadline ([`Cluster::timeout`]); each
//! accepted connection's handshake runs on a thread of its own under a deadline for the whole
//! handshake, so a stranger that trickles bytes holds up nothing. A peer whose connection
//! closes, resets or is altered mid-run (killed, crashed, tampered with) makes timely's network
//! threads fail on every other process, which then return [`Error::Cluster`] naming that peer
//! and how its link ended; a peer that stops answering without closing its connection is given
//! up after the same timeout per exchange. A link that fails once every result is in takes
//! nothing away: the run returns its result.

mod agreement;
mod discernibility;
mod features;
mod histogram;
mod network;
mod secure;
mod sharded;
mod table;
mod tally;

pub use agreement::{Agreement, RequestField, RequestValue, refuse_stream};
pub use secure::ClusterKey;
pub use sharded::{Aggregate, Comm, Sharded, ShardedState, Summable, SynthInput};
pub(crate) use sharded::{Link, Msg, Serve};
pub use table::{
    read_friend_lists_share, read_points_share, read_sets_share, read_share, release_edges_share,
};
pub use tally::ClusterTally;

use crate::error::{Error, Result};
use std::path::Path;
use std::time::Duration;

/// How a run is spread: `workers` threads in each of the processes listed in a host file
/// (one `host:port` per process), or in this process alone.
///
/// ```
/// use disguise::cluster::Cluster;
/// let local = Cluster::local(4)?;
/// assert_eq!((local.processes(), local.peers()), (1, 4));
/// let two = Cluster::hosts(vec!["127.0.0.1:4100".into(), "127.0.0.1:4101".into()], 1, 2)?;
/// assert_eq!((two.processes(), two.peers(), two.process()), (2, 4, 1));
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Clone)]
pub struct Cluster {
    workers: usize,
    hosts: Vec<String>,
    process: usize,
    timeout: Duration,
    key: Option<ClusterKey>,
    agreement: Agreement,
    warn: std::sync::Arc<dyn Fn(&str) + Send + Sync>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("workers", &self.workers)
            .field("hosts", &self.hosts)
            .field("process", &self.process)
            .field("timeout", &self.timeout)
            .field("keyed", &self.key.is_some())
            .finish_non_exhaustive()
    }
}

/// The most worker threads per process and the most processes: far above any real cluster,
/// low enough that every index and count fits the wire format. Timely connects every pair of
/// a process's workers, so a process's set-up grows as the square of its workers: 256 take
/// about a second, 1,024 half a minute and 1.4 GB (measured on 100 records).
const MAX_WORKERS: usize = 256;
const MAX_PROCESSES: usize = 65_536;

impl Cluster {
    /// `workers` threads in this process.
    ///
    /// # Errors
    /// If `workers` is 0 or above 256.
    pub fn local(workers: usize) -> Result<Self> {
        check_workers(workers)?;
        Ok(Cluster {
            workers,
            hosts: Vec::new(),
            process: 0,
            timeout: Duration::from_secs(60),
            key: None,
            agreement: Agreement::new(),
            warn: std::sync::Arc::new(|_| {}),
        })
    }

    /// `workers` threads in each of the processes at `hosts` (`host:port`, in process order);
    /// this is process `process`.
    ///
    /// # Errors
    /// If `workers` is 0 or above 256, there is no host or more than 65,536, a host is not
    /// `host:port`, appears twice, or `process` is not one of them.
    pub fn hosts(hosts: Vec<String>, process: usize, workers: usize) -> Result<Self> {
        check_workers(workers)?;
        if hosts.is_empty() || hosts.len() > MAX_PROCESSES {
            return Err(Error::param(
                "hosts",
                format!(
                    "{} hosts: give one host:port line per process (1 to {MAX_PROCESSES})",
                    hosts.len()
                ),
            ));
        }
        for (i, h) in hosts.iter().enumerate() {
            let port = h
                .rsplit_once(':')
                .map(|(host, port)| (host, port.parse::<u16>()));
            if !matches!(port, Some((host, Ok(p))) if !host.is_empty() && p > 0) {
                return Err(Error::param(
                    "hosts",
                    format!("line {}: '{h}' is not host:port", i + 1),
                ));
            }
            if hosts[..i].contains(h) {
                return Err(Error::param(
                    "hosts",
                    format!("line {}: '{h}' is listed twice", i + 1),
                ));
            }
        }
        if process >= hosts.len() {
            return Err(Error::param(
                "process",
                format!(
                    "{process} is not a process of the host file: it lists {} (0 to {})",
                    hosts.len(),
                    hosts.len() - 1
                ),
            ));
        }
        Ok(Cluster {
            workers,
            hosts,
            process,
            timeout: Duration::from_secs(60),
            key: None,
            agreement: Agreement::new(),
            warn: std::sync::Arc::new(|_| {}),
        })
    }

    /// [`Cluster::hosts`] from a file with one `host:port` per line, process 0 first (the
    /// process count is the number of lines; a final newline is optional).
    ///
    /// # Errors
    /// If the file cannot be read, or as [`Cluster::hosts`] (naming the file and line).
    pub fn from_host_file(path: &Path, process: usize, workers: usize) -> Result<Self> {
        // Through the library's reader: a host file given as a stream that
        // `files::hold_stream` read is read from its held bytes.
        let text = crate::data::read_text(path, &format!("the host file {}", path.display()))?;
        let hosts: Vec<String> = text.lines().map(|l| l.trim().to_string()).collect();
        Cluster::hosts(hosts, process, workers).map_err(|e| match e {
            Error::InvalidParameter {
                name: "hosts",
                reason,
            } => Error::param("hosts", format!("{}: {reason}", path.display())),
            e => e,
        })
    }

    /// How long to wait for a peer: to connect at the start, and for its answer in each
    /// exchange (so it must exceed the longest round of one worker). Default 60 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Secures every link between processes with `key`: mutually authenticated and
    /// encrypted (see [`ClusterKey`]). Without a key, every host must be this machine
    /// (loopback addresses), and the links are in the clear.
    pub fn key(mut self, key: ClusterKey) -> Self {
        self.key = Some(key);
        self
    }

    /// What this process runs and reads ([`Agreement`]): checked against every peer's in the
    /// handshake, before any record is read; any difference stops every process with one
    /// line naming the first field or part that differs.
    pub fn agreement(mut self, agreement: Agreement) -> Self {
        self.agreement = agreement;
        self
    }

    /// Where to report a connection dropped during the set-up (a port scan, a stranger, a
    /// peer with another key): the set-up goes on without it. Default: nowhere.
    pub fn on_dropped(mut self, warn: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.warn = std::sync::Arc::new(warn);
        self
    }

    /// Refuses now what the set-up would refuse before connecting: a host name that does not
    /// resolve and, without a [`Cluster::key`], a host that is not this machine. A front end
    /// calls it once the cluster is configured, so that the error comes before anything it
    /// prints for a run that can start (the set-up checks again).
    ///
    /// # Errors
    /// [`Error::Cluster`] naming the host and its line of the host file.
    pub fn check_hosts(&self) -> Result<()> {
        network::resolve(&self.hosts, self.key.is_some()).map(|_| ())
    }

    /// The number of processes.
    pub fn processes(&self) -> usize {
        self.hosts.len().max(1)
    }

    /// This process's index.
    pub fn process(&self) -> usize {
        self.process
    }

    /// Worker threads per process.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Workers in all: processes × workers per process.
    pub fn peers(&self) -> usize {
        self.processes() * self.workers
    }
}

fn check_workers(workers: usize) -> Result<()> {
    if workers == 0 || workers > MAX_WORKERS {
        return Err(Error::param(
            "workers",
            format!("{workers}: give 1 to {MAX_WORKERS} worker threads per process"),
        ));
    }
    Ok(())
}

/// Where one worker sits, and which part of the input is its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// This worker's index among all workers (process × workers + local thread).
    pub worker: usize,
    /// All workers.
    pub peers: usize,
    /// This worker's process.
    pub process: usize,
    /// All processes.
    pub processes: usize,
    /// This worker's thread within its process.
    pub local: usize,
    /// Worker threads per process.
    pub workers: usize,
}

impl Place {
    /// The place of the only worker of a one-thread run.
    pub const SOLE: Place = Place {
        worker: 0,
        peers: 1,
        process: 0,
        processes: 1,
        local: 0,
        workers: 1,
    };

    /// Whether part `j` of an input given as numbered parts is this worker's: part j goes to
    /// process j mod P, and within it to local thread ⌊j / P⌋ mod (workers per process).
    ///
    /// ```
    /// use disguise::cluster::Place;
    /// let p = Place { worker: 3, peers: 4, process: 1, processes: 2, local: 1, workers: 2 };
    /// assert!(p.owns_part(3) && p.owns_part(7) && !p.owns_part(1) && !p.owns_part(2));
    /// ```
    pub fn owns_part(&self, j: usize) -> bool {
        j % self.processes == self.process && (j / self.processes) % self.workers == self.local
    }

    /// Whether row `i` of an input every worker reads whole (one file) is this worker's:
    /// rows are dealt round-robin over all workers.
    pub fn owns_row(&self, i: u64) -> bool {
        i % self.peers as u64 == self.worker as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_files_are_checked_line_by_line() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("hosts.txt");
        let check = |text: &str, process: usize| {
            std::fs::write(&path, text).expect("write");
            Cluster::from_host_file(&path, process, 1).map_err(|e| e.to_string())
        };
        assert_eq!(check("a:1\nb:2\n", 1).expect("valid").processes(), 2);
        assert_eq!(
            check("a:1\nb:2", 0).expect("no final newline").processes(),
            2
        );
        let blank = check("a:1\n\nb:2\n", 0).expect_err("blank line");
        assert!(
            blank.contains("hosts.txt: line 2: '' is not host:port"),
            "{blank}"
        );
        let port = check("a:1\nb:http\n", 0).expect_err("bad port");
        assert!(port.contains("line 2: 'b:http'"), "{port}");
        let twice = check("a:1\na:1\n", 0).expect_err("twice");
        assert!(twice.contains("listed twice"), "{twice}");
        let process = check("a:1\nb:2\n", 2).expect_err("no such process");
        assert!(process.contains("it lists 2 (0 to 1)"), "{process}");
        assert!(check("", 0).is_err());
        let missing = Cluster::from_host_file(&dir.path().join("nope"), 0, 1).expect_err("absent");
        assert!(missing.to_string().contains("cannot read the host file"));
    }

    #[test]
    fn every_part_and_row_has_exactly_one_owner() {
        let (processes, workers) = (3, 2);
        let places: Vec<Place> = (0..processes * workers)
            .map(|w| Place {
                worker: w,
                peers: processes * workers,
                process: w / workers,
                processes,
                local: w % workers,
                workers,
            })
            .collect();
        for j in 0..40 {
            let owners: Vec<&Place> = places.iter().filter(|p| p.owns_part(j)).collect();
            assert_eq!(owners.len(), 1, "part {j}");
            assert_eq!(
                owners[0].process,
                j % processes,
                "part {j} goes to process j mod P"
            );
            assert_eq!(places.iter().filter(|p| p.owns_row(j as u64)).count(), 1);
        }
        assert!(Cluster::local(0).is_err() && Cluster::local(257).is_err());
        assert!(Cluster::local(256).is_ok());
    }
}
