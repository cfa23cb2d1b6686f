//! `disguise synth`: a private synthetic copy of a whole table (every column of its schema),
//! by MST on the library's engine.

use super::common::cluster::ClusterArgs;
use super::common::ledger::LedgerArgs;
use super::common::names::named;
use super::common::note_clipped;
use crate::output::{Format, flag_of, flagged, print_json, rng_from_seed};
use anyhow::Context;
use disguise::histogram::{Discretized, DomainSource, Schema};
use disguise::synth::MeasurementNoise;
use disguise::task::{Synth, SynthReport};
use std::path::{Path, PathBuf};

const EXAMPLES: &str = "\
Examples:
  # every column of Adult, pure ε = 1 (discrete Laplace measurements)
  disguise synth --data adult.data --schema adult.schema.toml --epsilon 1 --out synthetic.csv

  # (ε, δ) = (1, 1e-9) with Gaussian measurements (less noise for many columns), as JSON
  disguise synth --data adult.data --schema adult.schema.toml --epsilon 1 --delta 1e-9 \\
      --out synthetic.csv --format json

The schema declares each column's public domain (shipped ones: crates/disguise/schemas/).
--out is written to a temporary file beside it and renamed when complete.";

/// Arguments of `disguise synth`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Data file(s), read with the schema's format and concatenated in order. Example:
    /// `--data adult.data`.
    #[arg(long, value_name = "FILE", required = true)]
    data: Vec<PathBuf>,
    /// TOML schema giving every column's type and public domain. Numeric columns without
    /// `bins` are cut so that a noisy 2-way marginal's cells expect at least one noise
    /// standard deviation of records. Example: `--schema adult.schema.toml`.
    #[arg(long, value_name = "FILE")]
    schema: PathBuf,
    /// Total privacy budget ε > 0. Example: `--epsilon 1`.
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: f64,
    /// Total δ ∈ [0, 1): 0 (the default) is pure ε-DP with Laplace noise; above 0 the
    /// measurements are Gaussian and the guarantee comes from zCDP. Example: `--delta 1e-9`.
    #[arg(
        long,
        value_name = "D",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    delta: f64,
    /// The measurements' noise (default: gaussian when --delta > 0, else laplace).
    #[arg(long, value_name = "NOISE", value_parser = named::<MeasurementNoise>())]
    noise: Option<MeasurementNoise>,
    /// How many synthetic records to write (default: n, the table's public size).
    #[arg(long, value_name = "N")]
    rows: Option<u64>,
    /// At most this many mirror-descent iterations of the fit.
    #[arg(long, value_name = "N", default_value_t = disguise::synth::DEFAULT_ITERATIONS)]
    iterations: usize,
    /// Where to write the synthetic table (CSV with a header, every column in the schema's
    /// order; a numeric value is its bin's midpoint). Example: `--out synthetic.csv`.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Seed for a reproducible run. INSECURE: the output is then predictable and carries no
    /// privacy guarantee (for tests and experiments only). Example: `--seed 42`.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Print no warnings or notes on stderr.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    ledger: LedgerArgs,
}

/// Runs `disguise synth`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let request = Synth {
        epsilon: args.epsilon,
        delta: args.delta,
        noise: args.noise,
        rows: args.rows,
        iterations: args.iterations,
    };
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    let inputs: Vec<&Path> = args
        .data
        .iter()
        .chain([&args.schema])
        .map(PathBuf::as_path)
        .collect();
    disguise::files::check_output(&args.out, &inputs).map_err(|e| anyhow::anyhow!("--out {e}"))?;
    let schema = Schema::from_path(&args.schema)?;
    let schema = request.reading(&schema).map_err(|e| flagged(e, &flag_of))?;
    let data: Vec<&Path> = args.data.iter().map(PathBuf::as_path).collect();
    let charge = args.ledger.open_on(&data, &args.cluster)?;
    // Charged before a record is read, from the options and the schema alone.
    let reserved = match &charge {
        Some(charge) => {
            let plan = request
                .plan(schema.columns.len())
                .map_err(|e| flagged(e, &flag_of))?;
            Some(charge.reserve(&plan, "synthetic data (MST)", 1, args.seed.is_none())?)
        }
        None => None,
    };
    let files = disguise::data::Parts::resolve_all(&args.data)?;
    let named: Vec<(&str, &Path)> = data.iter().map(|p| ("--data", *p)).collect();
    let (release, mut rng) = match args.cluster.cluster(&named)? {
        // Each worker counts its share's marginals; only process 0 releases and writes.
        Some(cluster) => {
            let mut rng = if cluster.process() == 0 {
                rng_from_seed(args.seed)?
            } else {
                disguise::SecureRng::from_os()?
            };
            match request.run_distributed(&cluster, files, &schema, &mut rng)? {
                Some(release) => (release, rng),
                None => return Ok(()),
            }
        }
        None => {
            let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
            let read = Discretized::read(&paths, &schema, DomainSource::Schema)?;
            if !args.quiet {
                note_clipped(&read.clipped);
            }
            let mut rng = rng_from_seed(args.seed)?;
            (request.run(&read.data, &mut rng)?, rng)
        }
    };
    if let Some(reserved) = &reserved {
        reserved.check(Some(release.synthesis.guarantee))?;
    }
    let mut file = disguise::files::AtomicFile::create(&args.out, &inputs)?;
    let written = release
        .write_csv(file.writer(), release.rows, &mut rng)
        .with_context(|| format!("writing {}", args.out.display()))?;
    file.commit()?;
    let out = args.out.display().to_string();
    let report = SynthReport {
        data: Some(args.data.iter().map(|p| p.display().to_string()).collect()),
        out: Some(out.clone()),
        ..release.report()
    };
    if !args.quiet
        && let Some(warning) = disguise::text::synth_noise_warning(&report)
    {
        eprintln!("warning: {warning}");
    }
    match args.format {
        Format::Json => print_json(&report)?,
        Format::Table => print!("{}", disguise::text::synth_summary(&report, written, &out)),
    }
    Ok(())
}
