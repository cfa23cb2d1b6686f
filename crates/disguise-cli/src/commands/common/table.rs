//! What the commands that write a synthetic table (`histogram`, `synth`) share: the data,
//! its schema, the output file and a distributed run.

use super::cluster::ClusterArgs;
use anyhow::Context;
use disguise::cluster::Cluster;
use disguise::histogram::{DomainSource, Schema};
use disguise::{Result, SecureRng};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `--data`, `--schema`, `--out` and the distributed-run options.
#[derive(clap::Args)]
pub struct TableArgs {
    /// Data file(s), read with the schema's format (or Parquet, by column name) and
    /// concatenated in order: files, folders of parts, or glob patterns. Repeat for several.
    /// Example: `--data adult.data --data adult.test`.
    #[arg(long, value_name = "FILE")]
    pub data: Vec<PathBuf>,
    /// TOML schema giving every column's type and public domain (numeric bounds and bins,
    /// categorical levels) and the file format (shipped ones: crates/disguise/schemas/).
    /// Example: `--schema adult.schema.toml`.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
    /// Where to write the synthetic table: CSV with a header, the released columns in the
    /// schema's order; a categorical value is its level as the schema spells it, a numeric
    /// value drawn inside its released bin as `--values` says (the JSON report names the
    /// columns and bins). Written to a temporary file beside it and renamed when complete; never one of
    /// the inputs. Example: `--out synthetic.csv`.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

impl TableArgs {
    /// `--data` and `--schema`, which a release needs (`synth --model` reads neither).
    pub fn require(&self) -> anyhow::Result<()> {
        if self.data.is_empty() {
            anyhow::bail!("--data is required: the data file(s) to read");
        }
        self.schema_path().map(|_| ())
    }

    fn schema_path(&self) -> anyhow::Result<&Path> {
        self.schema
            .as_deref()
            .ok_or_else(|| anyhow::anyhow!("--schema is required: the table's public schema"))
    }

    /// Every file the run reads, `extra` too: no output may be written over one of them.
    pub fn inputs<'a>(&'a self, extra: Option<&'a PathBuf>) -> Vec<&'a Path> {
        self.data
            .iter()
            .chain(&self.schema)
            .chain(extra)
            .map(PathBuf::as_path)
            .collect()
    }

    /// Checks that every data file (and `extra`, a public file of the run) can be read
    /// ([`disguise::files::check_input`]): before anything is charged, so that a misspelt
    /// name costs nothing. Not in a run over `--hosts`, whose processes each find their own
    /// data where they run; in a distributed run, no data file may be a stream
    /// ([`ClusterArgs::refuse_streams`]).
    pub fn check_inputs(&self, extra: Option<&PathBuf>) -> anyhow::Result<()> {
        let inputs: Vec<(&str, &Path)> =
            self.data.iter().map(|p| ("--data", p.as_path())).collect();
        self.cluster.refuse_streams(&inputs)?;
        if self.cluster.hosts.is_none() {
            for path in self.data.iter().chain(extra) {
                disguise::files::check_input(path)?;
            }
        }
        Ok(())
    }

    /// The schema of `--schema`, refused unless it gives every column's domain (bounds,
    /// levels) or `source` lets the data fill them in: a check that needs no data, made
    /// before anything is charged.
    pub fn schema(&self, source: DomainSource) -> anyhow::Result<Schema> {
        let schema = Schema::from_path(self.schema_path()?)?;
        disguise::histogram::table::check_complete(&schema, source)
            .map_err(|e| crate::output::flagged(e, &crate::output::flag_of))?;
        Ok(schema)
    }

    /// Checks `--out` (a writable place, not an input; `extra` is one more input) in the
    /// process that writes: process 0, or this one without `--hosts` (the others may run
    /// where --out's folder does not exist). Before anything is charged or read.
    pub fn check_out(&self, extra: Option<&PathBuf>) -> anyhow::Result<()> {
        if self.cluster.process.unwrap_or(0) == 0 {
            disguise::files::check_output(&self.out, &self.inputs(extra))
                .map_err(|e| anyhow::anyhow!("--out {e}"))?;
        }
        Ok(())
    }

    /// The cluster, when the options ask for a distributed run.
    pub fn cluster(&self) -> anyhow::Result<Option<Cluster>> {
        let inputs: Vec<(&str, &Path)> =
            self.data.iter().map(|p| ("--data", p.as_path())).collect();
        self.cluster.cluster(&inputs)
    }

    /// The generator of this process: `--seed`'s (insecure) or the operating system's in
    /// the process that releases; always the operating system's in a cluster's others.
    pub fn rng(&self, seed: Option<u64>, cluster: Option<&Cluster>) -> anyhow::Result<SecureRng> {
        match cluster {
            Some(c) if c.process() != 0 => Ok(SecureRng::from_os()?),
            _ => crate::output::rng_from_seed(seed),
        }
    }

    /// Writes `--out` atomically with `write` (a temporary file beside it, renamed when
    /// complete), never over an input; returns what `write` returns (the records written).
    pub fn write_out(
        &self,
        extra: Option<&PathBuf>,
        write: impl FnOnce(&mut dyn Write) -> Result<u64>,
    ) -> anyhow::Result<u64> {
        let mut file = disguise::files::AtomicFile::create(&self.out, &self.inputs(extra))?;
        let written =
            write(file.writer()).with_context(|| format!("writing {}", self.out.display()))?;
        file.commit()?;
        Ok(written)
    }

    /// The data files and the output, as the JSON report names them.
    pub fn names(&self) -> (Option<Vec<String>>, Option<String>) {
        let data = self.data.iter().map(|p| p.display().to_string()).collect();
        (Some(data), Some(self.out.display().to_string()))
    }
}
