//! `--workers`, `--hosts`, `--process`, `--timeout`, `--cluster-key`: a distributed run
//! ([`disguise::cluster`]), and the request every process of it must agree on.

use anyhow::bail;
use disguise::cluster::{Agreement, Cluster, ClusterKey};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// The options that may differ between the processes of one run without changing its result:
/// where each finds its data and key, how long it waits, where process 0 writes and charges.
/// Every other option (and the content of every other file option) is the request.
const NOT_THE_REQUEST: &[&str] = &[
    "process",
    "timeout",
    "cluster_key",
    "ledger",
    "dataset",
    "ledger_timeout",
    "out",
    "format",
    "quiet",
    // The private data: its listing is compared instead (`Agreement::input`).
    "points",
    "sets",
    "edges",
    "data",
];

/// The request of this invocation, as (field, bytes) in the order of its options: set once
/// by `main` from the parsed command line.
static REQUEST: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();

/// Records the request of `matches` (the whole command line, parsed): the subcommand's name,
/// then every option outside [`NOT_THE_REQUEST`], defaults included; a file option by its
/// content (another path to the same public file is the same request).
pub fn remember_request(command: &clap::Command, matches: &clap::ArgMatches) {
    let mut fields = vec![("command".to_string(), Vec::new())];
    let mut at = (command, matches);
    while let Some((name, sub)) = at.1.subcommand() {
        fields[0].1.extend_from_slice(name.as_bytes());
        fields[0].1.push(b' ');
        let Some(def) = at.0.find_subcommand(name) else {
            break;
        };
        at = (def, sub);
    }
    let (def, matches) = at;
    for arg in def.get_arguments() {
        let id = arg.get_id().as_str();
        if NOT_THE_REQUEST.contains(&id) {
            continue;
        }
        let Ok(Some(values)) = matches.try_get_raw(id) else {
            continue;
        };
        // File options are named FILE in --help (a convention of every command here).
        let is_path = arg
            .get_value_names()
            .is_some_and(|names| names.iter().any(|n| n.as_str() == "FILE"));
        let mut bytes = Vec::new();
        for value in values {
            let path = Path::new(value);
            match std::fs::read(path) {
                Ok(content) if is_path && path.is_file() => bytes.extend_from_slice(&content),
                _ => bytes.extend_from_slice(value.as_encoded_bytes()),
            }
            bytes.push(0);
        }
        let name = arg
            .get_long()
            .map_or_else(|| id.to_string(), |l| format!("--{l}"));
        fields.push((name, bytes));
    }
    let _ = REQUEST.set(fields);
}

/// Where a run's records are spread: threads of this process and processes of a host file.
#[derive(clap::Args, Debug, Clone)]
#[command(next_help_heading = "Distributed run")]
pub struct ClusterArgs {
    /// Worker threads in this process, each holding its share of the records (with
    /// --hosts: in each process). The result equals the one-process run's (bit for bit with
    /// --seed). Example: `--workers 4`.
    #[arg(long, value_name = "N")]
    pub workers: Option<usize>,
    /// A host file: one `host:port` per line, process 0 first; start the same command once
    /// per line, each with its --process. Input parts (a directory or glob as --points) go
    /// to process j mod P; one input file is dealt row by row. Only process 0 prints.
    /// Example: `--hosts hosts.txt --process 1`.
    #[arg(long, value_name = "FILE", requires = "process")]
    pub hosts: Option<PathBuf>,
    /// This process's line of the host file, from 0.
    #[arg(long, value_name = "I", requires = "hosts")]
    pub process: Option<usize>,
    /// Seconds to wait for a peer: to connect, and for each round's answer. Example:
    /// `--timeout 300`.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
    /// The cluster's key (made by `disguise cluster key`, copied to every machine): every
    /// link between processes is then mutually authenticated and encrypted. Required when a
    /// host is not this machine; unused without --hosts (so the variable may stay set).
    /// Example: `--cluster-key cluster.key`.
    #[arg(long, value_name = "FILE", env = "DISGUISE_CLUSTER_KEY")]
    pub cluster_key: Option<PathBuf>,
}

impl ClusterArgs {
    /// The cluster, when the options ask for a distributed run. `inputs` are the private
    /// inputs, each with the option that names it (`--points`): their listings are compared
    /// between the processes before any record is read.
    pub fn cluster(&self, inputs: &[(&str, &Path)]) -> anyhow::Result<Option<Cluster>> {
        if !(self.timeout.is_finite() && self.timeout > 0.0 && self.timeout <= 1e6) {
            bail!(
                "invalid --timeout: {} (seconds, > 0 and at most 10^6)",
                self.timeout
            );
        }
        let timeout = Duration::from_secs_f64(self.timeout);
        let workers = self.workers.unwrap_or(1);
        let cluster = match (&self.hosts, self.process) {
            (Some(file), Some(process)) => Cluster::from_host_file(file, process, workers),
            _ if self.workers.is_some() => Cluster::local(workers),
            _ => return Ok(None),
        };
        let cluster = cluster.map_err(|e| match e {
            disguise::Error::InvalidParameter { name, reason } => {
                anyhow::anyhow!("invalid --{name}: {reason}")
            }
            e => e.into(),
        })?;
        let mut cluster = cluster.timeout(timeout);
        if self.hosts.is_some() {
            let mut agreement = Agreement::new();
            for (name, bytes) in REQUEST.get().map(Vec::as_slice).unwrap_or_default() {
                agreement = agreement.field(name, bytes);
            }
            for (name, path) in inputs {
                agreement = agreement.input(name, &disguise::data::Parts::resolve(path)?)?;
            }
            cluster = cluster
                .agreement(agreement)
                .on_dropped(|line| eprintln!("warning: {line}"));
            if let Some(path) = &self.cluster_key {
                let key = ClusterKey::read(path).map_err(|e| match e {
                    disguise::Error::InvalidParameter { name, reason } => {
                        anyhow::anyhow!("invalid --{name}: {reason}")
                    }
                    e => e.into(),
                })?;
                cluster = cluster.key(key);
            }
        }
        Ok(Some(cluster))
    }
}
