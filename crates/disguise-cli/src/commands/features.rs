//! `disguise features`: private feature selection — choose k columns of a table that are most
//! informative about a label column (mutual information, Mitrovic et al. 2017 §6.2; or
//! k-discernibility, Vinterbo 2012).

use super::common::LayoutArgs;
use super::common::cluster::ClusterArgs;
use super::common::names::{named, named_among};
use super::common::privacy::{PrivacyArgs, Shown, run_and_print};
use crate::output::{flag_of, flagged, spinner};
use anyhow::bail;
use disguise::disclosure::{Diagnostic, Public};
use disguise::histogram::Schema;
use disguise::maximize::Solution;
use disguise::task::{
    Algorithm, BinSpec, FeatureObjective, Features, FeaturesReport, LabelledTable,
    PreparedFeatures, Reporting, Runnable, SchemaColumns, count_features, read_features,
};
use disguise::text::{Labels, features_preamble};
use std::path::{Path, PathBuf};

const EXAMPLES: &str = "\
Examples:
  # the 5 features most informative about `diabetes` (mutual information), (ε, δ) = (1, 1e-6)
  disguise features --data nhanes.csv --label diabetes --exclude SEQN --k 5 --epsilon 1 --delta 1e-6

  # k-discernibility (Vinterbo 2012) with report noisy max, table output
  disguise features --data nhanes.csv --label diabetes --exclude SEQN --k 3 --epsilon 0.5 \\
      --objective discernibility --mechanism report-noisy-max

  # a numeric column binned over public bounds: age in 8 bins over [0, 80]
  disguise features --data survey.csv --label outcome --bins age:0:80:8 --k 4 --epsilon 1

  # the non-private baseline, 20 seeded trials of the private run, CSV output
  disguise features --data nhanes.csv --label diabetes --exclude SEQN --k 5 --mechanism max
  disguise features --data nhanes.csv --label diabetes --exclude SEQN --k 5 --epsilon 0.5 \\
      --trials 20 --seed 1 --format csv

Columns are categorical: every distinct value is a category. A column whose values are all
numbers with more than 32 distinct values is an error unless binned (--bins COL:MIN:MAX:N, with
bounds that do not come from the data) or excluded (--exclude). Missing values (empty, NA) are
categories like any other.

Privacy: neighbouring tables differ in one record; the number of records n is treated as public
(the mutual-information sensitivity depends on it). Without --schema, the categories of each
column, and the label's levels, are read from the data and shown in the output: if the set of
values itself is sensitive (a rare category reveals that someone has it), declare the domains
publicly in a schema (--schema) instead. Objective values and utilities are computed on the private data for
evaluation and are NOT covered by the guarantee, which protects the chosen features only.

Utility: mutual information is reported in bits with utility I(Y; X_S)/H(Y) (the share of the
label's entropy explained under the naive Bayes model); discernibility with utility F(S)/F_max
(the share of record pairs with different labels that the chosen features tell apart). H(Y) and
F_max are computed from the data, like the values. The a-priori bound uses neither: it takes
the largest possible value from n and the number of label levels (log2 of the levels in bits,
or the most pairs n records in that many classes can have).";

/// Arguments of `disguise features`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
// The continuous greedy does not apply here: --help does not offer it.
#[command(mut_arg("algorithm", |a| a.value_parser(named_among(Algorithm::DISCRETE))))]
pub struct Args {
    /// CSV file with a header row (or the layout the --schema declares): one record per row.
    /// With --schema also Parquet, and a folder or glob of parts. Example: `--data
    /// nhanes.csv`.
    #[arg(long, value_name = "FILE")]
    data: PathBuf,
    /// The label column (case-insensitive; default with --schema: its `target`). Example:
    /// `--label diabetes`.
    #[arg(long, value_name = "COL")]
    label: Option<String>,
    /// TOML schema of the table, the same format as `histogram` and `hypothesis` take (see
    /// docs/schema.md): every column's public domain — categorical `levels`, numeric `bounds`
    /// with `bins = N` or `edges = [...]` (default: cut at private bin edges, --edge-share of
    /// ε, into as many bins as Vinterbo's rule gives from n and the number of columns, at
    /// least 2) — and the file layout. Only its columns are read; instead of --bins. Example:
    /// `--schema wdbc.toml`.
    #[arg(long, value_name = "FILE", conflicts_with = "bins")]
    schema: Option<PathBuf>,
    #[command(flatten)]
    layout: LayoutArgs,
    /// Columns that are not features (identifiers, other outcomes), comma-separated.
    /// Example: `--exclude SEQN,cycle`.
    #[arg(long, value_name = "COL,...", value_delimiter = ',')]
    exclude: Vec<String>,
    /// Number of features to choose, 1 ≤ k ≤ number of features. Example: `--k 5`.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    k: usize,
    /// The objective to maximise.
    #[arg(long, value_name = "NAME", value_parser = named::<FeatureObjective>(), default_value_t)]
    objective: FeatureObjective,
    /// Bin a numeric column into N equal-width bins over the public range [MIN, MAX] (values
    /// outside go to the edge bins); repeat for several columns.
    /// Example: `--bins age:0:80:8`.
    #[arg(long, value_name = "COL:MIN:MAX:N")]
    bins: Vec<String>,
    /// With --schema: the share of ε spent on private bin edges of the numeric columns with
    /// neither `bins` nor `edges`, in (0, 1).
    #[arg(long, value_name = "S", default_value_t = disguise::histogram::DEFAULT_EDGE_SHARE)]
    edge_share: f64,
    #[command(flatten)]
    privacy: PrivacyArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
}

/// The `--bins` specifications, each error naming the flag.
fn bin_specs(args: &Args) -> anyhow::Result<Vec<BinSpec>> {
    let spec = |text: &String| {
        text.parse::<BinSpec>().map_err(|e| match e {
            disguise::Error::InvalidParameter { reason, .. } => {
                anyhow::anyhow!("invalid --bins {reason}")
            }
            other => other.into(),
        })
    };
    args.bins.iter().map(spec).collect()
}

/// The label column of a table read without a schema.
fn label(args: &Args) -> anyhow::Result<&str> {
    match &args.label {
        Some(label) => Ok(label.as_str()),
        None => bail!("--label is required (the label column), or a --schema with a `target`"),
    }
}

/// The schema of --schema with the label (--label, default: the schema's `target`) and
/// --exclude resolved against its columns.
fn schema_columns(args: &Args, path: &Path) -> anyhow::Result<SchemaColumns> {
    let schema = Schema::from_path(path)?;
    let label = schema.target_or(args.label.as_deref(), "label", &flag_of)?;
    Ok(SchemaColumns::new(
        schema,
        path,
        &label,
        &args.exclude,
        &flag_of,
    )?)
}

/// Reads the table: with --schema coded with its public domains (and the values clamped
/// into their bounds, counted per column: a diagnostic), else the label and every column not
/// excluded, the --bins columns binned while streaming.
/// With a schema, its numeric columns without bins or edges are cut at private bin edges
/// (`request`'s share of ε), drawn once the records are read — from the OS, or for a seeded
/// run from a generator of its own derived from the seed (the picks' is made later).
fn prepare(args: &Args, request: &Features, bins: &[BinSpec]) -> anyhow::Result<Prepared> {
    if let Some(path) = &args.schema {
        let columns = schema_columns(args, path)?;
        let plan = request.edges(&columns.schema)?;
        let key = || -> anyhow::Result<disguise::SecureRng> {
            Ok(match args.privacy.seed {
                Some(seed) => disguise::SecureRng::insecure_from_seed(seed ^ EDGES_SEED),
                None => disguise::SecureRng::from_os()?,
            })
        };
        let (table, clamped, edges, _) = columns.read_with_edges(&args.data, &plan, key)?;
        return Ok((table, clamped, edges));
    }
    let layout = args.layout.layout();
    let (exclude, label) = (&args.exclude, label(args)?);
    let table = read_features(&args.data, layout, label, exclude, bins, &flag_of)?;
    Ok((table, Vec::new(), None))
}

/// What [`prepare`] reads: the table, its clamped values (a diagnostic) and private edges.
type Prepared = (
    LabelledTable,
    Vec<(String, u64)>,
    Option<disguise::histogram::EdgeRelease>,
);

/// Mixed into a seeded run's seed for the generator of its private edges.
const EDGES_SEED: u64 = 0x6564_6765_735f_7267;

/// The number of candidate features, from the schema or the table's header (public: no
/// record is read).
fn feature_count(args: &Args) -> anyhow::Result<usize> {
    if let Some(path) = &args.schema {
        return Ok(schema_columns(args, path)?.features());
    }
    let layout = args.layout.layout();
    let (exclude, label) = (&args.exclude, label(args)?);
    Ok(count_features(
        &args.data, layout, label, exclude, &flag_of,
    )?)
}

/// The model of the table spread over `cluster` (mutual information: the workers' summed
/// contingency counts), in process 0 with the label's name and levels; `None` elsewhere.
/// Needs --schema: every worker codes its records with the same public domains.
fn prepare_distributed(
    args: &Args,
    request: &Features,
    cluster: &disguise::cluster::Cluster,
) -> anyhow::Result<Option<(PreparedFeatures, String, Vec<String>)>> {
    let Some(path) = &args.schema else {
        bail!(
            "--workers and --hosts need --schema: every worker must code its records with the \
             same public domains (categories and bounds)"
        );
    };
    let columns = schema_columns(args, path)?;
    let files = disguise::data::Parts::resolve(&args.data)?.files().to_vec();
    let shared = columns.clone();
    let load = move |comm: &mut disguise::cluster::Comm<'_>| {
        let data = disguise::cluster::read_share(comm, &files, &shared.schema)?;
        shared.table(&data)
    };
    let prepared = request
        .prepare_distributed(cluster, load)
        .map_err(|e| flagged(e, &flag_of))?;
    let Some(prepared) = prepared else {
        return Ok(None);
    };
    let (label_name, label_levels) = columns.label_levels(prepared.records() as u64)?;
    Ok(Some((prepared, label_name, label_levels)))
}

/// Runs `disguise features`.
pub fn run(args: Args) -> anyhow::Result<()> {
    // A schema's numeric columns without bins or edges are cut at private bin edges.
    let edge_columns = match &args.schema {
        Some(path) => schema_columns(&args, path)?.edge_columns(),
        None => 0,
    };
    let request = Features {
        k: args.k,
        objective: args.objective,
        algorithm: args.privacy.algorithm,
        privacy: args.privacy.privacy(),
        edge_columns,
        edge_share: args.edge_share,
    };
    args.privacy.check_trials()?;
    args.privacy.check(|o| o.refuse_estimate("features"))?;
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    // Bad --bins specs are reported before the data is read.
    let bins = bin_specs(&args)?;
    args.cluster.refuse_streams(&[("--data", &args.data)])?;
    if let (Some(path), true) = (&args.schema, args.cluster.distributed()) {
        request
            .edges(&schema_columns(&args, path)?.schema)?
            .refuse_on_a_cluster()?;
    }
    let charge = (args.privacy.ledger).open_on(&[&args.data], &args.cluster)?;
    // Charged before a record is read, from the public columns and options.
    let reserved = match &charge {
        Some(_) => {
            let features = feature_count(&args)?;
            disguise::files::check_input(&args.data)?;
            args.privacy
                .reserve(charge.as_ref(), || request.plan(features))?
        }
        None => None,
    };

    let (prepared, label_name, label_levels, clamped) =
        match args.cluster.cluster(&[("--data", &args.data)])? {
            Some(cluster) => match prepare_distributed(&args, &request, &cluster)? {
                Some((prepared, name, levels)) => (prepared, name, levels, Vec::new()),
                // Not process 0: this process served its share.
                None => return Ok(()),
            },
            None => {
                let bar = spinner(
                    &format!("reading {}", args.data.display()),
                    args.privacy.quiet,
                );
                let p = prepare(&args, &request, &bins);
                bar.finish_and_clear();
                let (p, clamped, edges) = p?;
                let prepared = request
                    .prepare(p.table)
                    .and_then(|prepared| prepared.with_edges(edges))
                    .map_err(|e| flagged(e, &flag_of))?;
                (prepared, p.label, p.levels, clamped)
            }
        };
    // A schema's levels are public: the a-priori bound may use how many there are.
    let public_levels = args.schema.is_some();
    let prepared = if public_levels {
        let count = u32::try_from(label_levels.len()).unwrap_or(u32::MAX);
        prepared.with_public_label_levels(count)
    } else {
        prepared
    };
    let util = |v: f64| prepared.utility(v);
    let note = "values are the objective after each pick, utilities their share of \
                utility_scale";
    let labels = Labels::new(prepared.names(), &util, note);
    let preamble = |r: &FeaturesReport| {
        let data = args.data.display().to_string();
        features_preamble(&r.task, &data, &label_name, args.objective)
    };
    let run = |child: &mut disguise::SecureRng| prepared.run(child);
    let report = |s: &Solution| {
        let mut r = prepared.report(s);
        // The label's name is the header's (public); its levels the schema's, or read from
        // the data (a diagnostic).
        r.task.label = Some(Public::new(label_name.clone()));
        if public_levels {
            r.task.label_levels = Some(Public::new(label_levels.clone()));
        } else {
            r.task.label_levels_seen = Diagnostic::new(Some(label_levels.clone()));
        }
        r.task.clamped = Diagnostic::new(clamped.clone());
        r
    };
    let shown = Shown::new(labels, &preamble, &report);
    run_and_print(&args.privacy, reserved.as_ref(), args.k, &shown, run)
}
