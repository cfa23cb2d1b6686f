//! `disguise histogram`: a differentially private projected histogram (Vinterbo 2012) of a
//! table, written as a synthetic CSV dataset.
//!
//! Example:
//! `disguise histogram --data adult.data --data adult.test --schema adult.schema.toml
//!  --target income --epsilon 1 --out synthetic.csv`

use super::common::cluster::ClusterArgs;
use super::common::ledger::{LedgerArgs, Reserved};
use super::common::names::named;
use super::common::{note_clipped, warn_if_vacuous};
use crate::output::{Format, NothingReleased, flag_of, flagged, print_json, rng_from_seed};
use anyhow::{Context, bail};
use disguise::histogram::{
    BinRule, DEFAULT_A, DEFAULT_SIGMA, Discretized, DomainSource, GammaRule, ProjectedHistogram,
    Schema, SyntheticRows,
};
use disguise::prelude::*;
use disguise::task::{Histogram, HistogramReport};
use std::path::{Path, PathBuf};

const EXAMPLES: &str = "\
Examples:
  # a private synthetic copy of Adult (training and test files), ε = 1 in total
  disguise histogram --data adult.data --data adult.test --schema adult.schema.toml \\
      --target income --epsilon 1 --out synthetic.csv

  # the projection size k and the histogram's share γ of ε fixed instead of estimated
  disguise histogram --data iris.csv --schema iris.schema.toml --epsilon 0.5 --k 2 \\
      --gamma 0.3 --out iris-synthetic.csv

  # k chosen by data splitting among 2, 3 and 4; the release summary as JSON
  disguise histogram --data adult.data --schema adult.schema.toml --epsilon 1 --k-split 2,3,4 \\
      --out synthetic.csv --format json

The schema declares each column's public domain (shipped ones: crates/disguise/schemas/).
--out is written to a temporary file beside it and renamed when complete; it may not be one of
the inputs.";

/// Arguments of `disguise histogram`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Data file(s), read with the schema's format (or Parquet, by column name) and
    /// concatenated in order: files, folders of parts, or glob patterns. Repeat for several.
    /// Example: `--data adult.data --data adult.test`.
    #[arg(long, value_name = "FILE", required = true)]
    data: Vec<PathBuf>,
    /// TOML schema giving every column's type and public domain (numeric bounds,
    /// categorical levels) and the file format. Example: `--schema adult.schema.toml`
    /// (shipped ones: crates/disguise/schemas/).
    #[arg(long, value_name = "FILE")]
    schema: PathBuf,
    /// The target column (default: the schema's `target`). Example: `--target income`.
    #[arg(long, value_name = "COL")]
    target: Option<String>,
    /// Total privacy budget ε > 0 of the release. Example: `--epsilon 1`.
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: f64,
    /// Number of predictors to project onto, 1 ≤ k ≤ the number of predictors (the paper's
    /// d − 1: every column but the target; k equal to it keeps them all and spends nothing on
    /// the projection). Default: estimated as in the paper, Section 2.3.1. Example: `--k 4`.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    k: Option<usize>,
    /// Share γ ∈ (0, 1] of ε spent on the histogram (the rest on the projection; default:
    /// estimated, Section 2.3.2). Example: `--gamma 0.3`.
    #[arg(long, value_name = "G", allow_negative_numbers = true)]
    gamma: Option<f64>,
    /// How an estimated γ splits ε: `paper` — Vinterbo's γ = ε_h/(ε_h + ε_p); `surplus`
    /// (beyond the paper) — the projection gets the ε_p the paper's estimate says it needs,
    /// the histogram the rest. Both use public quantities only.
    #[arg(long, value_name = "RULE", value_parser = named::<GammaRule>(), default_value_t, conflicts_with = "gamma")]
    gamma_rule: GammaRule,
    /// How many predictors the bandwidth rule counts for numeric columns without `bins` in
    /// the schema: `released` (default) cuts them for the predictors the release keeps (a
    /// given --k, else the paper's simulated k), `paper` for all d − 1 (2 bins on Adult's 14
    /// predictors).
    #[arg(long, value_name = "RULE", value_parser = named::<BinRule>(), default_value = "released")]
    bin_rule: BinRule,
    /// Choose k by MDA on this PUBLIC dataset (same schema) instead of simulated data.
    /// Example: `--public-data census-public.csv`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["k", "k_split"])]
    public_data: Option<PathBuf>,
    /// Choose k among these candidates by Chaudhuri et al.'s data splitting (spends the
    /// projection budget on disjoint parts). Example: `--k-split 2,3,4`.
    #[arg(long, value_name = "LIST", value_delimiter = ',', conflicts_with = "k")]
    k_split: Option<Vec<usize>>,
    /// σ of MDA, the fraction of discernible pairs k may leave undiscerned. Example:
    /// `--sigma 0.1`.
    #[arg(long, value_name = "S", default_value_t = DEFAULT_SIGMA, allow_negative_numbers = true)]
    sigma: f64,
    /// The threshold constant A of τ = A·ln(n)/ε_h. Example: `--threshold-constant 0.5`.
    #[arg(long, value_name = "A", default_value_t = DEFAULT_A, allow_negative_numbers = true)]
    threshold_constant: f64,
    /// How many synthetic records to write: `records` — exactly n, the public number of
    /// records, in proportion to the noisy counts; `noisy-counts` — ⌈h̃ − ½⌉ copies of every
    /// released cell, as in the paper (often many more than n). Post-processing: the same
    /// guarantee either way.
    #[arg(long, value_name = "HOW", value_parser = named::<SyntheticRows>(), default_value_t)]
    rows: SyntheticRows,
    /// Where to write the synthetic dataset (CSV with a header): the kept predictors and the
    /// target in the schema's order, records in random order; a categorical value is its
    /// level as the schema spells it, a numeric value the midpoint of its bin (the bins are
    /// equal-width over the schema's bounds; the JSON report names the kept and dropped
    /// columns). Example: `--out synthetic.csv`.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Take missing numeric bounds and categorical levels from the data. NOT PRIVATE: the
    /// domains reveal records; for exploration only (the output is marked as not private).
    #[arg(long)]
    bounds_from_data: bool,
    /// Seed for a reproducible run. INSECURE: the output is then predictable and carries no
    /// privacy guarantee (for tests and experiments only). Example: `--seed 42`.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    ledger: LedgerArgs,
}

/// Every file the run reads: no output may be written over one of them.
fn inputs(args: &Args) -> Vec<&Path> {
    args.data
        .iter()
        .chain([&args.schema])
        .chain(&args.public_data)
        .map(PathBuf::as_path)
        .collect()
}

/// Writes the synthetic dataset to `--out` atomically (a temporary file beside it, renamed
/// when complete), never over an input; returns the number of records written.
fn write_release(
    release: &ProjectedHistogram,
    args: &Args,
    rng: &mut SecureRng,
) -> anyhow::Result<u64> {
    let mut file = disguise::files::AtomicFile::create(&args.out, &inputs(args))?;
    let written = release
        .write_csv(file.writer(), rng)
        .with_context(|| format!("writing {}", args.out.display()))?;
    file.commit()?;
    Ok(written)
}

/// Runs `disguise histogram`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let request = Histogram {
        epsilon: args.epsilon,
        k: args.k,
        k_split: args.k_split.clone(),
        sigma: args.sigma,
        gamma: args.gamma,
        gamma_rule: args.gamma_rule,
        threshold_constant: args.threshold_constant,
        rows: args.rows,
        bin_rule: args.bin_rule,
    };
    // Everything that needs no data is validated first, in the library.
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    let data: Vec<&Path> = args.data.iter().map(PathBuf::as_path).collect();
    let charge = args.ledger.open_on(&data, &args.cluster)?;
    let charge = charge.as_ref();
    if charge.is_some() && args.bounds_from_data {
        bail!(
            "invalid --bounds-from-data: the release would have no guarantee, so a budget \
             ledger cannot account for it (complete the schema's domains, or drop --ledger)"
        );
    }
    // Charged before a record is read (in every process of a cluster: by process 0 alone),
    // from the options alone.
    let reserved = match charge {
        Some(charge) => {
            let plan = request.plan().map_err(|e| flagged(e, &flag_of))?;
            Some(charge.reserve(
                &plan,
                "projected histogram (PRIVATEKD + thresholded Laplace)",
                1,
                args.seed.is_none(),
            )?)
        }
        None => None,
    };
    let reserved = reserved.as_ref();
    let inputs: Vec<(&str, &Path)> = args.data.iter().map(|p| ("--data", p.as_path())).collect();
    let cluster = args.cluster.cluster(&inputs)?;
    // Only process 0 writes: the others may run where --out's folder does not exist.
    if cluster.as_ref().is_none_or(|c| c.process() == 0) {
        disguise::files::check_output(&args.out, &self::inputs(&args))
            .map_err(|e| anyhow::anyhow!("--out {e}"))?;
    }
    let schema = Schema::from_path(&args.schema)?;
    let target_name = match (&args.target, &schema.target) {
        (Some(t), _) | (None, Some(t)) => t.clone(),
        (None, None) => bail!("no target column: give --target or set `target` in the schema"),
    };
    let target = schema.column_index(&target_name)?;
    // Numeric columns are cut for the predictors the release keeps (the request's rule).
    let schema = request.reading(&schema, &target_name);
    let files = disguise::data::Parts::resolve_all(&args.data)?;
    if let Some(cluster) = cluster {
        return run_distributed(&args, reserved, &request, cluster, schema, target, files);
    }
    // Warned only where it is honoured: a distributed release refuses the flag.
    let source = if args.bounds_from_data {
        eprintln!(
            "warning: --bounds-from-data takes column bounds and levels from the data itself; \
             they reveal records, so the output is NOT private (exploration only)"
        );
        DomainSource::Data
    } else {
        DomainSource::Schema
    };
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    // Straight into compact codes: only the schema's columns, each value binned as it is
    // read (the same codes as reading a table and discretizing it).
    let read = Discretized::read(&paths, &schema, source)?;
    if !read.inferred.is_empty() {
        eprintln!(
            "warning: domains taken from the data for column(s): {}",
            read.inferred.join(", ")
        );
    }
    note_clipped(&read.clipped);
    let clipped = read.clipped.iter().cloned().collect();
    let data = read.data;

    // k by MDA on a public dataset: read with the private data's domains.
    let public = match &args.public_data {
        Some(public) => Some(
            Discretized::read_with_domains(
                &[public.as_path()],
                &read.schema,
                data.domains().to_vec(),
            )
            .with_context(|| format!("reading the public dataset {}", public.display()))?,
        ),
        None => None,
    };
    let mut rng = rng_from_seed(args.seed)?;
    let release = request.run(&data, target, public, &mut rng)?;
    print_release(&args, reserved, &release, clipped, &mut rng)
}

/// The release over the workers of `cluster`: the same output in process 0 as a one-process
/// run on the concatenated files; nothing in the others.
fn run_distributed(
    args: &Args,
    reserved: Option<&Reserved>,
    request: &Histogram,
    cluster: disguise::cluster::Cluster,
    schema: Schema,
    target: usize,
    files: Vec<PathBuf>,
) -> anyhow::Result<()> {
    if args.bounds_from_data {
        bail!(
            "--bounds-from-data cannot be used with --workers or --hosts: every worker must code \
             its records with the same public domains (complete the schema's bounds and levels)"
        );
    }
    if args.k_split.is_some() {
        bail!(
            "--k-split cannot be used with --workers or --hosts: data splitting draws a random \
             split of the records, which are spread over the workers (give --k, or let k be \
             chosen on simulated or public data)"
        );
    }
    let public: Vec<PathBuf> = args.public_data.iter().cloned().collect();
    let mut rng = if cluster.process() == 0 {
        rng_from_seed(args.seed)?
    } else {
        SecureRng::from_os()?
    };
    let release = request.run_distributed(&cluster, files, &schema, target, public, &mut rng)?;
    match release {
        Some(release) => print_release(args, reserved, &release, Default::default(), &mut rng),
        None => Ok(()),
    }
}

/// Writes the synthetic data to --out (its records in an order drawn from `rng`) and prints
/// the release's summary.
fn print_release(
    args: &Args,
    reserved: Option<&Reserved>,
    release: &ProjectedHistogram,
    clipped: std::collections::BTreeMap<String, u64>,
    rng: &mut SecureRng,
) -> anyhow::Result<()> {
    if let Some(reserved) = reserved {
        reserved.check(release.guarantee)?;
    }
    warn_if_vacuous(&release.usefulness);
    let written = write_release(release, args, rng)?;
    eprintln!("note: {}", disguise::text::histogram_columns_note(release));
    let report = HistogramReport {
        data: Some(args.data.iter().map(|p| p.display().to_string()).collect()),
        out: Some(args.out.display().to_string()),
        clipped,
        ..HistogramReport::of(release)
    };

    match args.format {
        Format::Json => print_json(&report)?,
        Format::Table => print!(
            "{}",
            disguise::text::histogram_summary(
                release,
                written,
                &args.out.display().to_string(),
                &flag_of
            )
        ),
    }
    let out = args.out.display().to_string();
    if let Some(why) = disguise::text::histogram_nothing_released(release, &out, &flag_of) {
        return Err(NothingReleased(why).into());
    }
    Ok(())
}
