//! `disguise synth`: a private synthetic copy of a whole table (every column of its schema),
//! by AIM or MST on the library's engine.

use super::common::names::named;
use super::common::table::TableArgs;
use super::common::{DeltaArg, RunArgs};
use crate::output::{flag_of, flagged, print_report};
use anyhow::Context;
use disguise::disclosure::{Diagnostic, Public};
use disguise::histogram::{DomainSource, Values};
use disguise::synth::MeasurementNoise;
use disguise::task::{Synth, SynthReport};
use disguise_experiments::plot;
use std::path::{Path, PathBuf};

const EXAMPLES: &str = "\
Examples:
  # every column of Adult, pure ε = 1 (discrete Laplace measurements)
  disguise synth --data adult.data --schema adult.schema.toml --epsilon 1 --out synthetic.csv

  # MST at (ε, δ) = (1, 1e-9) with Gaussian measurements, as JSON
  disguise synth --data adult.data --schema adult.schema.toml --epsilon 1 --delta 1e-9 \\
      --method mst --out synthetic.csv --format json

  # AIM (the default when δ > 0) with Adult's target, and a picture of what it measured
  disguise synth --data adult.data --schema adult.schema.toml --epsilon 1 --delta 1e-9 \\
      --target income --out synthetic.csv --report adult.svg

  # keep the fitted model, and later draw 100,000 more rows from it (no data, no budget)
  disguise synth --data adult.data --schema adult.schema.toml --epsilon 1 --out synthetic.csv \\
      --save-model adult.model.json
  disguise synth --model adult.model.json --rows 100000 --out more.csv

Every column of the schema is released. AIM (McKenna et al. 2022) measures every 1-way, then in
rounds the 2-way or 3-way marginal (3-ways: those with the target) its model gets most wrong,
chosen by the exponential mechanism; MST measures a private tree of 2-ways. A numeric column
with neither `bins` nor `edges` is cut at private bin edges (--edge-share of the budget, split
over those columns) into as many bins as a noisy 2-way marginal's cells can hold (each
expecting at least one noise standard deviation of records).";

/// Arguments of `disguise synth`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
    /// Total privacy budget ε > 0. Example: `--epsilon 1`.
    #[arg(
        long,
        value_name = "E",
        allow_negative_numbers = true,
        required_unless_present = "model"
    )]
    epsilon: Option<f64>,
    #[command(flatten)]
    delta: DeltaArg,
    /// The measurements' noise (default: gaussian, its guarantee by zCDP, when --delta > 0;
    /// else laplace, pure ε-DP).
    #[arg(long, value_name = "NOISE", value_parser = named::<MeasurementNoise>())]
    noise: Option<MeasurementNoise>,
    /// How many synthetic records to write (default: n, the table's public size).
    #[arg(long, value_name = "N")]
    rows: Option<u64>,
    /// The synthesizer: `aim` — adaptive rounds over every 2-way marginal and the 3-ways
    /// with the target, on a junction tree (needs --delta > 0); `mst` — a tree of 2-ways.
    /// Default: aim when --delta > 0, else mst.
    #[arg(long, value_name = "METHOD", value_parser = ["aim", "mst"])]
    method: Option<String>,
    /// AIM's target column: its 3-way marginals join the workload (default: the schema's
    /// `target`). Example: `--target income`.
    #[arg(long, value_name = "COL")]
    target: Option<String>,
    /// At most this many mirror-descent iterations of the fit.
    #[arg(long, value_name = "N", default_value_t = disguise::synth::DEFAULT_ITERATIONS)]
    iterations: usize,
    /// The share of the budget spent on private bin edges of the numeric columns with
    /// neither `bins` nor `edges` in the schema, in (0, 1).
    #[arg(long, value_name = "S", default_value_t = disguise::histogram::DEFAULT_EDGE_SHARE)]
    edge_share: f64,
    /// How a numeric value is written: `uniform` (default) — drawn uniformly inside its
    /// released bin (a uniform integer for an `integer = true` column; a one-value bin's
    /// value), `midpoint` — the bin's midpoint. Post-processing: no privacy cost; a seeded
    /// run stays reproducible.
    #[arg(long, value_name = "HOW", value_parser = named::<Values>(), default_value_t)]
    values: Values,
    /// A column neither read nor written (repeatable), e.g. an identifier. Needs a header
    /// row. Example: `--exclude id`.
    #[arg(long, value_name = "COL")]
    exclude: Vec<String>,
    /// Also write the fitted model to FILE (JSON, docs/model-format.md): released values and
    /// public metadata only, to draw more records later with --model. Example:
    /// `--save-model adult.model.json`.
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    save_model: Option<PathBuf>,
    /// Also draw FILE (`.svg` or `.png`), from released values only: the columns' graph with
    /// every measured marginal between its columns, and each measured marginal's noisy
    /// counts against the synthetic table's. Example: `--report adult.svg`.
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    report: Option<PathBuf>,
    /// Draw --rows records (default: the release's n) from a model kept with --save-model,
    /// instead of fitting one: reads no data, spends no budget (post-processing of the
    /// release that made it), records nothing in a ledger. Example:
    /// `--model adult.model.json --rows 100000 --out more.csv`.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = [
            "data", "schema", "epsilon", "noise", "method", "target", "iterations",
            "edge_share", "exclude",
        ]
    )]
    model: Option<PathBuf>,
    #[command(flatten)]
    run: RunArgs,
}

/// Runs `disguise synth`.
///
/// Every check that needs no data comes before the ledger's reservation: the options, the
/// data files readable, the schema complete, and `--out` writable.
pub fn run(args: Args) -> anyhow::Result<()> {
    let (table, run) = (&args.table, &args.run);
    if let Some(path) = &args.model {
        return from_kept(&args, path);
    }
    table.require()?;
    let request = Synth {
        epsilon: args.epsilon.unwrap_or(f64::NAN),
        delta: args.delta.value,
        noise: args.noise,
        rows: args.rows,
        iterations: args.iterations,
        edge_share: args.edge_share,
        target: args.target.clone(),
        ..Synth::with_method(args.method.as_deref(), args.delta.value)
    };
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    table.check_inputs(None)?;
    // Every domain public: synth takes none from the data.
    let schema = table
        .schema(DomainSource::Schema)?
        .without(&args.exclude)
        .map_err(|e| flagged(e, &flag_of))?;
    let request = Synth {
        target: request.target.clone().or_else(|| schema.default_target()),
        ..request
    };
    let schema = request.reading(&schema).map_err(|e| flagged(e, &flag_of))?;
    table.check_out(None)?;
    if let Some(path) = &args.report {
        plot::is_svg(path).context("--report")?;
        disguise::files::check_output(path, &table.inputs(None))
            .map_err(|e| anyhow::anyhow!("--report {e}"))?;
    }
    let charge = run.ledger.open_on(&table.cluster)?;
    // Charged before a record is read, from the options and the schema alone.
    let label = format!("synthetic data ({})", request.method.name().to_uppercase());
    let reserved = run.reserve(charge.as_ref(), &label, || request.plan(&schema))?;
    let cluster = table.cluster()?;
    let files = disguise::data::Parts::resolve_all(&table.data)?;
    let (release, clamped, mut rng) = match &cluster {
        // Each worker counts its share's marginals; only process 0 releases and writes (the
        // workers do not count clamped values).
        Some(cluster) => {
            let mut rng = table.rng(run.seed, Some(cluster))?;
            match request.run_distributed(cluster, files, &schema, &mut rng)? {
                Some(release) => (release, Vec::new(), rng),
                None => return Ok(()),
            }
        }
        None => {
            let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
            let plan = request.edges(&schema)?;
            let (read, edges, mut rng) =
                plan.read(&paths, &schema, || table.rng(run.seed, None))?;
            (request.run(read.data, edges, &mut rng)?, read.clipped, rng)
        }
    };
    if let Some(reserved) = &reserved {
        reserved.check(&release)?;
    }
    let release = disguise::task::SynthRelease {
        values: args.values,
        ..release
    };
    let written = match &args.report {
        None => table.write_out(None, |w| release.write_csv(w, release.rows, &mut rng))?,
        Some(path) => {
            let mut compared = Vec::new();
            let written = table.write_out(None, |w| {
                let (written, c) = release.write_csv_compared(w, release.rows, &mut rng)?;
                compared = c;
                Ok(written)
            })?;
            let figure = plot::ModelFigure::of(&release, &compared);
            plot::save_as(&figure, path, &table.inputs(None))?;
            written
        }
    };
    if let Some(path) = &args.save_model {
        release.kept().save(path, &table.inputs(None))?;
    }
    let (data, out) = table.names();
    let report = SynthReport {
        data: data.map(Public::new),
        out: out.map(Public::new),
        clamped: Diagnostic::new(clamped),
        ..release.report()
    };
    // From the released compression and tree.
    if let Some(warning) = disguise::text::synth_noise_warning(&report) {
        eprintln!("warning: {warning}");
    }
    let diagnostics = run.diagnostics.on();
    let out = table.out.display().to_string();
    print_report(run.format, &report, diagnostics, || {
        disguise::text::synth_summary(&report, written, &out)
    })
}

/// `synth --model FILE`: records drawn from a kept model, no data read, no budget spent.
fn from_kept(args: &Args, path: &Path) -> anyhow::Result<()> {
    let (table, run) = (&args.table, &args.run);
    let model = disguise::synth::KeptModel::load(path)?;
    let model = disguise::synth::KeptModel {
        values: args.values,
        ..model
    };
    disguise::files::check_output(&table.out, &[path]).map_err(|e| anyhow::anyhow!("--out {e}"))?;
    let rows = args.rows.unwrap_or(model.rows);
    let mut rng = crate::output::rng_from_seed(run.seed)?;
    let written = table.write_out(Some(&path.to_path_buf()), |w| {
        model.write_csv(w, rows, &mut rng)
    })?;
    let report = model.report(
        &path.display().to_string(),
        &table.out.display().to_string(),
        written,
    );
    print_report(run.format, &report, false, || {
        disguise::text::kept_summary(&report)
    })
}
