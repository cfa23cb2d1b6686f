//! `disguise histogram`: a differentially private projected histogram (Vinterbo 2012) of a
//! table, written as a synthetic CSV dataset.
//!
//! Example:
//! `disguise histogram --data adult.data --data adult.test --schema adult.schema.toml
//!  --target income --epsilon 1 --out synthetic.csv`

use super::common::names::named;
use super::common::table::TableArgs;
use super::common::{RunArgs, warn_if_vacuous};
use crate::output::{NothingReleased, flag_of, flagged, print_report};
use anyhow::{Context, bail};
use disguise::disclosure::{Diagnostic, Public};
use disguise::histogram::{
    BinRule, DEFAULT_A, DEFAULT_SIGMA, Discretized, DomainSource, GammaRule, ProjectedHistogram,
    SyntheticRows, Values,
};
use disguise::ledger::Reserved;
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

--out holds the kept predictors and the target, records in random order.";

/// Arguments of `disguise histogram`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    table: TableArgs,
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
    /// Take missing numeric bounds and categorical levels from the data. NOT PRIVATE: the
    /// domains reveal records, so the whole output is a diagnostic: it runs only with
    /// --diagnostics, for exploration (the output is marked as not private).
    #[arg(long)]
    bounds_from_data: bool,
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
    /// The share of ε spent on private bin edges of the numeric columns with neither `bins`
    /// nor `edges` in the schema, in (0, 1).
    #[arg(long, value_name = "S", default_value_t = disguise::histogram::DEFAULT_EDGE_SHARE)]
    edge_share: f64,
    #[command(flatten)]
    run: RunArgs,
}

/// Runs `disguise histogram`.
///
/// Every check that needs no data comes before the ledger's reservation: the options, the
/// non-private mode's refusal without `--diagnostics`, the data files readable, the schema
/// complete (unless `--bounds-from-data`) with its target, and `--out` writable.
pub fn run(args: Args) -> anyhow::Result<()> {
    let (table, run) = (&args.table, &args.run);
    table.require()?;
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
        edge_share: args.edge_share,
    };
    // Everything that needs no data is validated first, in the library.
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    if table.cluster.distributed() {
        request.validate_distributed(args.bounds_from_data)?;
    }
    // Domains taken from the data make the whole output a diagnostic.
    run.diagnostics
        .allow_non_private(!args.bounds_from_data, "--bounds-from-data")?;
    let source = if args.bounds_from_data {
        DomainSource::Data
    } else {
        DomainSource::Schema
    };
    table.check_inputs(args.public_data.as_ref())?;
    let schema = table
        .schema(source)?
        .without(&args.exclude)
        .map_err(|e| flagged(e, &flag_of))?;
    let target_name = schema.target_or(args.target.as_deref(), "target", &flag_of)?;
    let target = schema.column_index(&target_name)?;
    table.check_out(args.public_data.as_ref())?;
    let charge = run.ledger.open_on(&table.cluster)?;
    if charge.is_some() && args.bounds_from_data {
        bail!(
            "invalid --bounds-from-data: the release would have no guarantee, so a budget \
             ledger cannot account for it (complete the schema's domains, or drop --ledger)"
        );
    }
    // Charged before a record is read (in a cluster by process 0 alone), from the options.
    let mechanism = "projected histogram (PRIVATEKD + thresholded Laplace)";
    let reserved = run.reserve(charge.as_ref(), mechanism, || request.plan())?;
    let cluster = table.cluster()?;
    // Numeric columns are cut for the predictors the release keeps (the request's rule).
    let schema = request.reading(&schema, &target_name);
    let files = disguise::data::Parts::resolve_all(&table.data)?;
    if let Some(cluster) = cluster {
        let mut rng = table.rng(run.seed, Some(&cluster))?;
        // The same output in process 0 as a one-process run on the concatenated files.
        let public: Vec<PathBuf> = args.public_data.iter().cloned().collect();
        return match request.run_distributed(&cluster, files, &schema, target, public, &mut rng)? {
            // The workers do not count clamped values.
            Some(release) => print_release(
                &args,
                reserved.as_ref(),
                &release.with_values(args.values),
                Vec::new(),
                &mut rng,
            ),
            None => Ok(()),
        };
    }
    // Warned only where it is honoured: a distributed release refuses the flag.
    if args.bounds_from_data {
        eprintln!(
            "warning: --bounds-from-data takes column bounds and levels from the data itself; \
             they reveal records, so the output is NOT private (exploration only)"
        );
    }
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    // Straight into compact codes: only the schema's columns, each value binned as it is
    // read (the same codes as reading a table and discretizing it).
    // Keyed once the data is read (before its private edges, if any column needs them): a
    // seeded run's warning is never followed by a reading error.
    let plan = request.edges(&schema)?;
    let (read, edges, rng) = if args.bounds_from_data {
        (Discretized::read(&paths, &schema, source)?, None, None)
    } else {
        let (read, edges, rng) = plan.read(&paths, &schema, || table.rng(run.seed, None))?;
        (read, edges, Some(rng))
    };
    if !read.inferred.is_empty() {
        // The columns the schema leaves without a domain (public: the schema's).
        eprintln!(
            "warning: domains taken from the data for column(s): {}",
            read.inferred.join(", ")
        );
    }
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
    let mut rng = match rng {
        Some(rng) => rng,
        None => table.rng(run.seed, None)?,
    };
    let release = request
        .run_with_edges(&data, target, public, edges, &mut rng)?
        .with_values(args.values);
    print_release(&args, reserved.as_ref(), &release, read.clipped, &mut rng)
}

/// Writes the synthetic data to --out (its records in an order drawn from `rng`) and prints
/// the release's summary: the release alone, and with `--diagnostics` the values `clamped`
/// into the edge bins (exact counts from the data) after it.
fn print_release(
    args: &Args,
    reserved: Option<&Reserved>,
    release: &ProjectedHistogram,
    clamped: Vec<(String, u64)>,
    rng: &mut SecureRng,
) -> anyhow::Result<()> {
    if let Some(reserved) = reserved {
        reserved.check(release)?;
    }
    warn_if_vacuous(&release.usefulness);
    let table = &args.table;
    let written = table.write_out(args.public_data.as_ref(), |w| release.write_csv(w, rng))?;
    if !args.run.quiet {
        // The kept and dropped columns and their bins: released.
        eprintln!("note: {}", disguise::text::histogram_columns_note(release));
    }
    let (data, out) = table.names();
    let report = HistogramReport {
        data: data.map(Public::new),
        out: out.map(Public::new),
        clamped: Diagnostic::new(clamped),
        ..HistogramReport::of(release)
    };
    let out = table.out.display().to_string();
    let diagnostics = args.run.diagnostics.on();
    print_report(args.run.format, &report, diagnostics, || {
        disguise::text::histogram_summary(release, written, &out, &flag_of)
    })?;
    if let Some(why) = disguise::text::histogram_nothing_released(release, &out, &flag_of) {
        return Err(NothingReleased(why).into());
    }
    Ok(())
}
