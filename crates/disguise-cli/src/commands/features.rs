//! `disguise features`: private feature selection — choose k columns of a table that are most
//! informative about a label column (mutual information, Mitrovic et al. 2017 §6.2; or
//! k-discernibility, Vinterbo 2012).

use super::common::LayoutArgs;
use super::common::cluster::ClusterArgs;
use super::common::names::{named, named_among};
use super::common::privacy::{PrivacyArgs, Shown, run_and_print};
use crate::output::{flag_of, flagged, spinner};
use disguise::disclosure::{Diagnostic, Public};
use disguise::maximize::Solution;
use disguise::task::{
    Algorithm, BinSpec, FeatureObjective, FeatureSource, Features, FeaturesReport, Reporting,
    Runnable,
};
use disguise::text::{Labels, features_preamble};
use std::path::PathBuf;

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

/// The source of the table: --schema's domains, or the file's header with --label,
/// --exclude and --bins (whose bad specs are reported before the data is read).
fn source(args: &Args) -> anyhow::Result<FeatureSource> {
    if let Some(path) = &args.schema {
        return Ok(FeatureSource::schema(
            &args.data,
            path,
            args.label.as_deref(),
            &args.exclude,
            flag_of,
        )?);
    }
    let spec = |text: &String| text.parse::<BinSpec>().map_err(|e| flagged(e, &flag_of));
    let bins = args
        .bins
        .iter()
        .map(spec)
        .collect::<anyhow::Result<Vec<_>>>()?;
    let label = args.label.as_deref();
    let layout = args.layout.layout();
    let exclude = &args.exclude;
    Ok(FeatureSource::file(
        &args.data, layout, label, exclude, &bins, flag_of,
    )?)
}

/// Runs `disguise features`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let source = source(&args)?;
    let request = Features {
        k: args.k,
        objective: args.objective,
        algorithm: args.privacy.algorithm,
        privacy: args.privacy.privacy(),
        // A schema's numeric columns without bins or edges are cut at private bin edges.
        edge_columns: source.edge_columns(),
        edge_share: args.edge_share,
    };
    args.privacy.check_trials()?;
    args.privacy.check(|o| o.refuse_estimate("features"))?;
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    args.cluster.refuse_streams(&[("--data", &args.data)])?;
    if let (Some(schema), true) = (source.schema_of(), args.cluster.distributed()) {
        request.edges(schema)?.refuse_on_a_cluster()?;
    }
    let charge = (args.privacy.ledger).open_on(&args.cluster)?;
    // Charged before a record is read, from the public columns and options.
    let reserved = match &charge {
        Some(_) => {
            let features = source.features()?;
            disguise::files::check_input(&args.data)?;
            args.privacy
                .reserve(charge.as_ref(), || request.plan(features))?
        }
        None => None,
    };

    let (prepared, label_name, label_levels, clamped) =
        match args.cluster.cluster(&[("--data", &args.data)])? {
            Some(cluster) => match source.prepare_distributed(&request, &cluster) {
                Ok(Some((prepared, name, levels))) => (prepared, name, levels, Vec::new()),
                // Not process 0: this process served its share.
                Ok(None) => return Ok(()),
                Err(e) => return Err(flagged(e, &flag_of)),
            },
            None => {
                let bar = spinner(
                    &format!("reading {}", args.data.display()),
                    args.privacy.quiet,
                );
                let read = source.read(&request, args.privacy.seed);
                bar.finish_and_clear();
                let read = read?;
                let prepared = request
                    .prepare(read.table.table)
                    .and_then(|prepared| prepared.with_edges(read.edges))
                    .map_err(|e| flagged(e, &flag_of))?;
                (prepared, read.table.label, read.table.levels, read.clamped)
            }
        };
    // A schema's levels are public: the a-priori bound may use how many there are.
    let public_levels = source.public_levels();
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
