//! `--workers`, `--hosts`, `--process`, `--timeout`: a distributed run ([`disguise::cluster`]).

use anyhow::bail;
use disguise::cluster::Cluster;
use std::path::PathBuf;
use std::time::Duration;

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
}

impl ClusterArgs {
    /// The cluster, when the options ask for a distributed run.
    pub fn cluster(&self) -> anyhow::Result<Option<Cluster>> {
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
        Ok(Some(cluster.timeout(timeout)))
    }
}
