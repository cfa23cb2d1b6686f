//! `disguise features`: private feature selection — choose k columns of a table that are most
//! informative about a label column (mutual information, Mitrovic et al. 2017 §6.2; or
//! k-discernibility, Vinterbo 2012).

use super::common::cluster::ClusterArgs;
use super::common::names::{named, named_among};
use super::common::privacy::{Labels, PrivacyArgs, run_and_print};
use super::common::{LayoutArgs, note_clipped};
use crate::output::{fixed, flag_of, flagged, spinner, thousands};
use anyhow::{Context, bail};
use disguise::data::{Codes, TablePlan, read_table_with_layout};
use disguise::histogram::{Discretized, DomainSource, Schema};
use disguise::maximize::Solution;
use disguise::task::MAX_NUMERIC_LEVELS;
use disguise::task::{
    Algorithm, FeatureObjective, FeatureTable, Features, FeaturesReport, PreparedFeatures,
    Reporting, Runnable,
};
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
(the mutual-information sensitivity depends on it). The categories of each column, and the
label's levels, are read from the data and shown in the output: if the set of values itself is
sensitive (a rare category reveals that someone has it), declare the domains publicly and bin or
recode before running. Objective values and utilities are computed on the private data for
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
    /// with `bins = N` (default: Vinterbo's rule from n and the number of columns) — and the
    /// file layout. Only its columns are read; instead of --bins. Example: `--schema wdbc.toml`.
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
    #[command(flatten)]
    privacy: PrivacyArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
}

/// One `--bins` specification.
struct BinSpec {
    column: String,
    min: f64,
    max: f64,
    bins: u32,
}

fn parse_bins(spec: &str) -> anyhow::Result<BinSpec> {
    let bad = || {
        anyhow::anyhow!(
            "invalid --bins {spec:?}: expected COL:MIN:MAX:N, e.g. age:0:80:8 (N bins over the \
             public range [MIN, MAX])"
        )
    };
    // Split from the right so that a column name may contain ':'.
    let mut parts = spec.rsplitn(4, ':');
    let (Some(n), Some(max), Some(min), Some(column)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    let min: f64 = min.trim().parse().map_err(|_| bad())?;
    let max: f64 = max.trim().parse().map_err(|_| bad())?;
    let bins: u32 = n.trim().parse().map_err(|_| bad())?;
    if column.trim().is_empty() {
        return Err(bad());
    }
    Ok(BinSpec {
        column: column.trim().to_string(),
        min,
        max,
        bins,
    })
}

/// The prepared table: the feature columns and the label as compact codes.
struct Prepared {
    label_name: String,
    label_levels: Vec<String>,
    table: FeatureTable,
}

/// Reads the columns the selection uses — the label and every column not excluded, binning
/// the requested ones while streaming — checks that the unbinned ones are categorical, and
/// splits the table into features and label.
fn prepare(args: &Args) -> anyhow::Result<Prepared> {
    if let Some(path) = &args.schema {
        return prepare_with_schema(args, path);
    }
    let Some(label_arg) = &args.label else {
        bail!("--label is required (the label column), or a --schema with a `target`");
    };
    if disguise::data::parquet::is_parquet(&args.data) {
        bail!(
            "{}: a Parquet table is read with --schema (its columns' public domains)",
            args.data.display()
        );
    }
    let mut binned_names: Vec<String> = Vec::new();
    let layout = args.layout.layout();
    let table =
        read_table_with_layout(&args.data, layout, |header| -> anyhow::Result<TablePlan> {
            let label = header.find(label_arg)?;
            let mut plan = TablePlan::all(header);
            let mut excluded = vec![false; header.names().len()];
            for name in &args.exclude {
                let name = name.trim();
                if name.is_empty() {
                    continue;
                }
                let c = header.find(name).context("in --exclude")?;
                if c == label {
                    bail!("--exclude {name}: that is the label column");
                }
                excluded[c] = true;
                plan.skip(c);
            }
            for spec in &args.bins {
                let spec = parse_bins(spec)?;
                let c = header.find(&spec.column).context("in --bins")?;
                let name = header.names()[c].clone();
                if binned_names.contains(&name) {
                    bail!("--bins: column '{}' is binned twice", spec.column);
                }
                if !excluded[c] {
                    plan.bin(c, &name, spec.min, spec.max, spec.bins)?;
                }
                binned_names.push(name);
            }
            Ok(plan)
        })?;
    let label = table.find(label_arg)?;
    for (c, name) in table.header().iter().enumerate() {
        let column = table.column(c);
        if !binned_names.contains(name)
            && column.is_numeric()
            && column.levels().len() > MAX_NUMERIC_LEVELS
        {
            bail!(
                "{}: column '{name}' is numeric with {} distinct values (more than \
                 {MAX_NUMERIC_LEVELS}): bin it with --bins {name}:MIN:MAX:N using public bounds \
                 (not taken from the data), or --exclude {name}",
                table.source(),
                column.levels().len()
            );
        }
    }
    if table.header().len() < 2 {
        bail!(
            "{}: no feature columns left (all columns are the label or excluded)",
            table.source()
        );
    }
    let header = table.header().to_vec();
    let mut prepared = Prepared {
        label_name: header[label].clone(),
        label_levels: Vec::new(),
        table: FeatureTable {
            names: Vec::new(),
            columns: Vec::new(),
            arities: Vec::new(),
            labels: Codes::new(),
            label_levels: 0,
        },
    };
    // The columns' codes move into the prepared table: no copy.
    for (c, column) in table.into_columns().into_iter().enumerate() {
        if c == label {
            prepared.label_levels = column.levels().to_vec();
            prepared.table.label_levels = column.arity();
            prepared.table.labels = column.into_codes();
        } else {
            prepared.table.names.push(header[c].clone());
            prepared.table.arities.push(column.arity());
            prepared.table.columns.push(column.into_codes());
        }
    }
    Ok(prepared)
}

/// The number of candidate features — every column but the label and the excluded ones —
/// from the schema or the table's header (public: no record is read).
fn feature_count(args: &Args) -> anyhow::Result<usize> {
    if let Some(path) = &args.schema {
        let columns = schema_columns(args, path)?;
        return Ok((0..columns.excluded.len())
            .filter(|&c| c != columns.label && !columns.excluded[c])
            .count());
    }
    let Some(label_arg) = &args.label else {
        bail!("--label is required (the label column), or a --schema with a `target`");
    };
    let header = disguise::data::read_header_with_layout(&args.data, args.layout.layout())?;
    let label = header.find(label_arg)?;
    let mut excluded = vec![false; header.names().len()];
    for name in args
        .exclude
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
    {
        excluded[header.find(name).context("in --exclude")?] = true;
    }
    Ok((0..excluded.len())
        .filter(|&c| c != label && !excluded[c])
        .count())
}

/// The schema, the label's column and the excluded columns: --label (default: the
/// schema's `target`) and --exclude resolved against the schema's columns.
struct SchemaColumns {
    schema: Schema,
    label: usize,
    excluded: Vec<bool>,
}

fn schema_columns(args: &Args, path: &std::path::Path) -> anyhow::Result<SchemaColumns> {
    let schema = Schema::from_path(path)?;
    let label_name = match (&args.label, &schema.target) {
        (Some(l), _) | (None, Some(l)) => l.clone(),
        (None, None) => bail!("no label column: give --label or set `target` in the schema"),
    };
    let label = schema.column_index(&label_name)?;
    let mut excluded = vec![false; schema.columns.len()];
    for name in args
        .exclude
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
    {
        let c = schema.column_index(name).context("in --exclude")?;
        if c == label {
            bail!("--exclude {name}: that is the label column");
        }
        excluded[c] = true;
    }
    if (0..excluded.len()).all(|c| c == label || excluded[c]) {
        bail!(
            "{}: no feature columns (all are the label or excluded)",
            path.display()
        );
    }
    Ok(SchemaColumns {
        schema,
        label,
        excluded,
    })
}

/// The feature table of a table coded with a schema's domains: every column but the label
/// and the excluded ones.
fn feature_table(
    data: &Discretized,
    label: usize,
    excluded: &[bool],
) -> disguise::Result<FeatureTable> {
    let arity = |c: usize| -> disguise::Result<u32> {
        let size = data.domains()[c].size();
        u32::try_from(size).map_err(|_| {
            disguise::Error::param(
                "schema",
                format!("column '{}': {size} categories", data.names()[c]),
            )
        })
    };
    let mut table = FeatureTable {
        names: Vec::new(),
        columns: Vec::new(),
        arities: Vec::new(),
        labels: data.codes(label).clone(),
        label_levels: arity(label)?,
    };
    for c in (0..data.width()).filter(|&c| c != label && !excluded[c]) {
        table.names.push(data.names()[c].clone());
        table.columns.push(data.codes(c).clone());
        table.arities.push(arity(c)?);
    }
    Ok(table)
}

/// The label's levels as the schema's domain of n records decodes them.
fn label_levels(domain: &disguise::histogram::Domain) -> Vec<String> {
    (0..domain.size())
        .map(|v| domain.decode(v as u32))
        .collect()
}

/// The table as a schema declares it: its columns read and coded straight from the file
/// with their public domains (numeric columns binned over their bounds), the label its
/// `target` unless --label names one, --exclude applied.
fn prepare_with_schema(args: &Args, path: &std::path::Path) -> anyhow::Result<Prepared> {
    let SchemaColumns {
        schema,
        label,
        excluded,
    } = schema_columns(args, path)?;
    let files = disguise::data::Parts::resolve(&args.data)?;
    let paths: Vec<&std::path::Path> = files.files().iter().map(|p| p.as_path()).collect();
    let read = Discretized::read(&paths, &schema, DomainSource::Schema)?;
    note_clipped(&read.clipped);
    let data = read.data;
    Ok(Prepared {
        label_name: data.names()[label].clone(),
        label_levels: label_levels(&data.domains()[label]),
        table: feature_table(&data, label, &excluded)?,
    })
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
    let SchemaColumns {
        schema,
        label,
        excluded,
    } = schema_columns(args, path)?;
    let files = disguise::data::Parts::resolve(&args.data)?.files().to_vec();
    let shared = schema.clone();
    let load = move |comm: &mut disguise::cluster::Comm<'_>| {
        let data = disguise::cluster::read_share(comm, &files, &shared)?;
        feature_table(&data, label, &excluded)
    };
    let prepared = request
        .prepare_distributed(cluster, load)
        .map_err(|e| flagged(e, &flag_of))?;
    let Some(prepared) = prepared else {
        return Ok(None);
    };
    let domains = Discretized::domains_of(&schema, prepared.records() as u64)?;
    let label_name = schema.names()[label].clone();
    Ok(Some((prepared, label_name, label_levels(&domains[label]))))
}

/// Runs `disguise features`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let request = Features {
        k: args.k,
        objective: args.objective,
        algorithm: args.privacy.algorithm,
        privacy: args.privacy.privacy(),
    };
    args.privacy.check_trials()?;
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    // Bad --bins specs are reported before the data is read (`prepare` applies them).
    for spec in &args.bins {
        parse_bins(spec)?;
    }
    let charge = (args.privacy.ledger).open_on(&[&args.data], &args.cluster)?;
    // Charged before a record is read, from the public columns and options.
    let reserved = match &charge {
        Some(_) => {
            let features = feature_count(&args)?;
            args.privacy
                .reserve(charge.as_ref(), || request.plan(features))?
        }
        None => None,
    };

    let (prepared, label_name, label_levels) =
        match args.cluster.cluster(&[("--data", &args.data)])? {
            Some(cluster) => match prepare_distributed(&args, &request, &cluster)? {
                Some(prepared) => prepared,
                // Not process 0: this process served its share.
                None => return Ok(()),
            },
            None => {
                let bar = spinner(
                    &format!("reading {}", args.data.display()),
                    args.privacy.quiet,
                );
                let p = prepare(&args);
                bar.finish_and_clear();
                let p = p?;
                let prepared = request.prepare(p.table).map_err(|e| flagged(e, &flag_of))?;
                (prepared, p.label_name, p.label_levels)
            }
        };
    let scale = prepared.scale();
    let util = |v: f64| prepared.utility(v);
    let names = prepared.names();
    let labels = Labels::new(names, &util);
    let preamble = |r: &FeaturesReport| {
        let t = &r.task;
        println!(
            "feature selection: {} records ({}), {} features, label '{}' with levels {} (read \
             from the data)",
            thousands(t.records as u64),
            args.data.display(),
            t.features.len(),
            label_name,
            label_levels.join(", ")
        );
        let unit = match args.objective {
            FeatureObjective::MutualInformation => format!(
                "values in bits, utility = I/H(label) with H = {} bits, from the data (not \
                 private)",
                fixed(scale, 6)
            ),
            FeatureObjective::Discernibility => format!(
                "utility = F/F_max with F_max = {}, from the data (not private)",
                fixed(scale, 6)
            ),
        };
        println!("objective {} ({unit})", t.objective);
        println!(
            "algorithm {}, mechanism {}, k = {}",
            t.algorithm, t.mechanism, t.k
        );
    };
    let run = |child: &mut disguise::SecureRng| prepared.run(child);
    let report = |s: &Solution| {
        let mut r = prepared.report(s);
        r.task.label = Some(label_name.clone());
        r.task.label_levels = Some(label_levels.clone());
        r
    };
    let note = "values and utilities are computed on the private data (evaluation only, not \
                part of the release)";
    let labels = labels.note(note);
    run_and_print(
        &args.privacy,
        reserved.as_ref(),
        args.k,
        &labels,
        &preamble,
        &report,
        run,
    )
}

#[cfg(test)]
mod tests {
    use super::parse_bins;

    #[test]
    fn bin_specs() {
        let b = parse_bins("age:0:80:8").unwrap();
        assert_eq!(
            (b.column.as_str(), b.min, b.max, b.bins),
            ("age", 0.0, 80.0, 8)
        );
        let b = parse_bins("a:b:-1.5:2e1:3").unwrap();
        assert_eq!(
            (b.column.as_str(), b.min, b.max, b.bins),
            ("a:b", -1.5, 20.0, 3)
        );
        for bad in [
            "age",
            "age:0:80",
            ":0:1:2",
            "age:x:1:2",
            "age:0:1:-2",
            "age:0:1:2.5",
        ] {
            assert!(parse_bins(bad).is_err(), "{bad}");
        }
    }
}
