//! `--workers`, `--hosts`, `--process`, `--timeout`, `--cluster-key`: a distributed run
//! ([`disguise::cluster`]), and the request every process of it must agree on.

use anyhow::{Context, bail};
use disguise::cluster::{Agreement, Cluster, ClusterKey, RequestField};
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

/// The request of this invocation, in the order of its options: set once by `main` from the
/// parsed command line, read only by a distributed run.
static REQUEST: OnceLock<Vec<RequestField>> = OnceLock::new();

/// Records the request of `matches` (the whole command line, parsed): the subcommand's name,
/// then every option outside [`NOT_THE_REQUEST`], defaults included, and those not given as
/// not given — so that an option given to one process only is named, not the option after
/// it. Nothing is read here: a file option's content is hashed only when a distributed run
/// builds its agreement (streams are read whole first, by [`hold_public_streams`]).
pub fn remember_request(command: &clap::Command, matches: &clap::ArgMatches) {
    let mut name = String::new();
    let mut at = (command, matches);
    while let Some((sub_name, sub)) = at.1.subcommand() {
        name.push_str(sub_name);
        name.push(' ');
        let Some(def) = at.0.find_subcommand(sub_name) else {
            break;
        };
        at = (def, sub);
    }
    let mut fields = vec![RequestField {
        name: "command".into(),
        values: Some(vec![name.into()]),
        files: false,
    }];
    let (def, matches) = at;
    for arg in def.get_arguments() {
        let id = arg.get_id().as_str();
        if NOT_THE_REQUEST.contains(&id) {
            continue;
        }
        let Ok(values) = matches.try_get_raw(id) else {
            continue;
        };
        fields.push(RequestField {
            name: arg
                .get_long()
                .map_or_else(|| id.to_string(), |l| format!("--{l}")),
            values: values.map(|v| v.map(|v| v.to_os_string()).collect()),
            // File options are named FILE in --help (a convention of every command here).
            files: arg
                .get_value_names()
                .is_some_and(|names| names.iter().any(|n| n.as_str() == "FILE")),
        });
    }
    let _ = REQUEST.set(fields);
}

/// In a run over `--hosts`, reads whole every public file of the request that is a stream —
/// a pipe (`--candidates <(sort c.csv)`, `/dev/stdin`), a socket, a device — before anything
/// else reads it ([`disguise::files::hold_stream`]): the processes then compare its content
/// like a file's, and the run reads the very bytes they compared. Called by `main` before
/// the command runs; nothing to do in any other run.
pub fn hold_public_streams() -> anyhow::Result<()> {
    let request = REQUEST.get().map(Vec::as_slice).unwrap_or_default();
    let distributed = request
        .iter()
        .any(|f| f.name == "--hosts" && f.values.is_some());
    if !distributed {
        return Ok(());
    }
    for field in request.iter().filter(|f| f.files) {
        for value in field.values.iter().flatten() {
            disguise::files::hold_stream(Path::new(value)).with_context(|| field.name.clone())?;
        }
    }
    Ok(())
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
    /// to process j mod P; one input file is dealt row by row. Data must be files, not
    /// streams such as `<(…)` or /dev/stdin (a public file may be one: it is read whole
    /// first). Only process 0 prints. Example: `--hosts hosts.txt --process 1`.
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
    /// host is not this machine; unused without --hosts. Default: the file named by the
    /// environment variable DISGUISE_CLUSTER_KEY (which may stay set; set but empty, it names
    /// no key). Example: `--cluster-key cluster.key`.
    #[arg(long, value_name = "FILE")]
    pub cluster_key: Option<PathBuf>,
}

impl ClusterArgs {
    /// Whether the run is spread over workers or processes.
    pub fn distributed(&self) -> bool {
        self.workers.is_some() || self.hosts.is_some()
    }
}

/// The variable that names the cluster's key when `--cluster-key` is not given.
const KEY_VARIABLE: &str = "DISGUISE_CLUSTER_KEY";

impl ClusterArgs {
    /// In a distributed run (`--workers` or `--hosts`), refuses the private `inputs` that
    /// are streams ([`disguise::cluster::refuse_stream`]): each process or worker reads an
    /// input file once, and the processes compare it by content first. A check that needs
    /// no data, made before anything is reserved (and again by [`ClusterArgs::cluster`]).
    pub fn refuse_streams(&self, inputs: &[(&str, &Path)]) -> anyhow::Result<()> {
        if self.hosts.is_some() || self.workers.is_some() {
            for (name, path) in inputs {
                disguise::cluster::refuse_stream(name, path)?;
            }
        }
        Ok(())
    }

    /// The key file: `--cluster-key`, else `DISGUISE_CLUSTER_KEY` unless it is empty (read
    /// here rather than by clap, which takes a set but empty variable for an empty path and
    /// refuses it even in a run that needs no key).
    fn key_file(&self) -> Option<PathBuf> {
        self.cluster_key.clone().or_else(|| {
            std::env::var_os(KEY_VARIABLE)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
    }

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
        self.refuse_streams(inputs)?;
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
            // The remembered request (streams held by [`hold_public_streams`]).
            let request = REQUEST.get().map(Vec::as_slice).unwrap_or_default();
            cluster = cluster
                .agreement(Agreement::of_request(request, inputs)?)
                .on_dropped(|line| eprintln!("warning: {line}"));
            if let Some(path) = self.key_file() {
                let key = ClusterKey::read(&path).map_err(|e| match e {
                    disguise::Error::InvalidParameter { name, reason } => {
                        anyhow::anyhow!("invalid --{name}: {reason}")
                    }
                    e => e.into(),
                })?;
                cluster = cluster.key(key);
            }
            cluster.check_hosts()?;
        }
        Ok(Some(cluster))
    }
}
