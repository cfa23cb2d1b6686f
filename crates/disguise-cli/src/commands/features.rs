//! `disguise features`: private feature selection — choose k columns of a table that are most
//! informative about a label column (mutual information, Mitrovic et al. 2017 §6.2; or
//! k-discernibility, Vinterbo 2012).

use super::common::privacy::{Labels, PrivacyArgs, budget_line, guarantee_line, run_and_print};
use crate::output::{RowFormat, fixed, print_json, spinner, thousands};
use crate::trials::PerPick;
use anyhow::{Context, bail};
use disguise::constraint::Cardinality;
use disguise::data::{Codes, TablePlan, read_table_with};
use disguise::maximize::{Solution, greedy, subsample_greedy};
use disguise::objective::{Discernibility, MutualInformation, SetFunction};
use disguise::task::{Algorithm, PrivacyReport};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;

/// A column whose values are all numbers and that has more distinct values than this is
/// taken for a measurement (or an identifier) and must be binned with `--bins` or excluded:
/// as categories its values would be almost unique per record.
pub const MAX_NUMERIC_LEVELS: usize = 32;

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
(the share of record pairs with different labels that the chosen features tell apart).";

/// The objective for `--objective`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
enum ObjectiveArg {
    /// I(label; features) in bits under the naive Bayes model (Mitrovic et al. 2017 §6.2).
    #[default]
    MutualInformation,
    /// k-discernibility: record pairs with different labels the features tell apart
    /// (Vinterbo 2012).
    Discernibility,
}

/// Arguments of `disguise features`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// CSV file with a header row: one record per row. Example: `--data nhanes.csv`.
    #[arg(long, value_name = "FILE")]
    data: PathBuf,
    /// The label column (case-insensitive). Example: `--label diabetes`.
    #[arg(long, value_name = "COL")]
    label: String,
    /// Columns that are not features (identifiers, other outcomes), comma-separated.
    /// Example: `--exclude SEQN,cycle`.
    #[arg(long, value_name = "COL,...", value_delimiter = ',')]
    exclude: Vec<String>,
    /// Number of features to choose, 1 ≤ k ≤ number of features. Example: `--k 5`.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    k: usize,
    /// The objective to maximise.
    #[arg(long, value_enum, value_name = "NAME", default_value_t)]
    objective: ObjectiveArg,
    /// Bin a numeric column into N equal-width bins over the public range [MIN, MAX] (values
    /// outside go to the edge bins); repeat for several columns.
    /// Example: `--bins age:0:80:8`.
    #[arg(long, value_name = "COL:MIN:MAX:N")]
    bins: Vec<String>,
    #[command(flatten)]
    privacy: PrivacyArgs,
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

/// The JSON document of `features`.
#[derive(Serialize)]
struct Report<'a> {
    objective: &'static str,
    algorithm: &'static str,
    mechanism: &'static str,
    label: &'a str,
    /// The label's levels (read from the data).
    label_levels: &'a [String],
    records: usize,
    /// The candidate features, in column order; `selected` indexes into it.
    features: &'a [String],
    k: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    trials: Option<u64>,
    selected: PerPick<'a>,
    names: PerPick<'a>,
    values: PerPick<'a>,
    utility: PerPick<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    final_utility: Option<&'a [f64]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_utility: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    std_utility: Option<f64>,
    #[serde(flatten)]
    privacy: &'a PrivacyReport,
    secure_rng: bool,
}

/// The prepared table: the feature columns and the label as compact codes.
struct Prepared {
    records: usize,
    feature_names: Vec<String>,
    features: Vec<Codes>,
    arities: Vec<u32>,
    labels: Codes,
    label_name: String,
    label_levels: Vec<String>,
}

/// Reads the columns the selection uses — the label and every column not excluded, binning
/// the requested ones while streaming — checks that the unbinned ones are categorical, and
/// splits the table into features and label.
fn prepare(args: &Args) -> anyhow::Result<Prepared> {
    let mut binned_names: Vec<String> = Vec::new();
    let table = read_table_with(&args.data, |header| -> anyhow::Result<TablePlan> {
        let label = header.find(&args.label)?;
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
    let label = table.find(&args.label)?;
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
    let records = table.rows();
    let header = table.header().to_vec();
    let mut prepared = Prepared {
        records,
        feature_names: Vec::new(),
        features: Vec::new(),
        arities: Vec::new(),
        labels: Codes::new(),
        label_name: header[label].clone(),
        label_levels: Vec::new(),
    };
    // The columns' codes move into the prepared table: no copy.
    for (c, column) in table.into_columns().into_iter().enumerate() {
        if c == label {
            prepared.label_levels = column.levels().to_vec();
            prepared.labels = column.into_codes();
        } else {
            prepared.feature_names.push(header[c].clone());
            prepared.arities.push(column.arity());
            prepared.features.push(column.into_codes());
        }
    }
    Ok(prepared)
}

/// Entropy of the label in bits (from its counts).
fn entropy_bits(labels: &Codes, levels: usize) -> f64 {
    let mut counts = vec![0u64; levels];
    for y in labels {
        counts[y as usize] += 1;
    }
    let n = labels.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// Runs `disguise features`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let procedure = args.privacy.procedure()?;
    if args.k == 0 {
        bail!("invalid --k: must be at least 1");
    }
    // Bad --bins specs are reported before the data is read (`prepare` applies them).
    for spec in &args.bins {
        parse_bins(spec)?;
    }

    let bar = spinner(
        &format!("reading {}", args.data.display()),
        args.privacy.quiet,
    );
    let p = prepare(&args);
    bar.finish_and_clear();
    let mut p = p?;
    let records = p.records;
    let d = p.feature_names.len();
    if args.k > d {
        bail!(
            "invalid --k: {} is larger than the number of features ({d}: {})",
            args.k,
            p.feature_names.join(", ")
        );
    }
    let label_arity = p.label_levels.len() as u32;
    let features = std::mem::take(&mut p.features);
    let labels = std::mem::take(&mut p.labels);

    match args.objective {
        ObjectiveArg::MutualInformation => {
            let f = MutualInformation::from_codes(&features, &p.arities, &labels, label_arity)?;
            let h = entropy_bits(&labels, p.label_levels.len());
            // The model keeps only counts: the columns are not needed any more.
            drop((features, labels));
            finish(&f, h, &p, records, &args, &procedure)
        }
        ObjectiveArg::Discernibility => {
            let f = Discernibility::from_codes(
                features.into_iter().map(Arc::new).collect(),
                p.arities.clone(),
                Arc::new(labels),
                label_arity,
            )?;
            let max = f.max_value();
            finish(&f, max, &p, records, &args, &procedure)
        }
    }
}

/// Runs the selection on `objective` and prints the result; utilities are values divided by
/// `scale` (0 when `scale` is 0: nothing to explain).
fn finish<F: SetFunction>(
    objective: &F,
    scale: f64,
    p: &Prepared,
    records: usize,
    args: &Args,
    procedure: &disguise::maximize::Procedure<'static>,
) -> anyhow::Result<()> {
    let k = args.k;
    let limit = objective.max_solution_size();
    if k > limit {
        bail!(
            "invalid --k: the {} objective can hold at most {limit} of these features at once \
             (the product of their numbers of categories is too large); choose k ≤ {limit} or \
             bin the columns more coarsely",
            objective.name()
        );
    }
    let constraint = Cardinality::new(objective.ground_size(), k);
    let algorithm = args.privacy.algorithm;
    let util = |v: f64| if scale > 0.0 { v / scale } else { 0.0 };
    let names = &p.feature_names;
    let labels = Labels {
        names,
        types: None,
        utility: &util,
    };
    let preamble = |first: &Solution, privacy: &PrivacyReport| {
        println!(
            "feature selection: {} records ({}), {} features, label '{}' with levels {} (read \
             from the data)",
            thousands(records as u64),
            args.data.display(),
            names.len(),
            p.label_name,
            p.label_levels.join(", ")
        );
        let unit = match args.objective {
            ObjectiveArg::MutualInformation => format!(
                "values in bits, utility = I/H(label) with H = {} bits",
                fixed(scale, 6)
            ),
            ObjectiveArg::Discernibility => {
                format!("utility = F/F_max with F_max = {}", fixed(scale, 6))
            }
        };
        println!("objective {} ({unit})", first.objective);
        println!(
            "algorithm {}, mechanism {}, k = {k}",
            first.algorithm,
            disguise::names::Named::name(args.privacy.mechanism)
        );
        println!("{}", budget_line(privacy, &args.privacy));
        println!();
    };
    let Some(outcome) = run_and_print(
        &args.privacy,
        k,
        &labels,
        &preamble,
        |child| match algorithm {
            Algorithm::Greedy => greedy(objective, &constraint, procedure, child),
            Algorithm::Subsample => subsample_greedy(objective, k, procedure, child),
            // The continuous greedy is offered by `select` (facility location).
            Algorithm::ContinuousGreedy => Err(disguise::Error::param(
                "algorithm",
                "continuous-greedy is available in `disguise select` only",
            )),
        },
    )?
    else {
        return Ok(()); // CSV: written while the trials ran
    };
    let first = &outcome.first;
    let privacy = &outcome.privacy;
    let secure = first.secure_rng;
    match args.privacy.format {
        RowFormat::Json => {
            let per_trial = args.privacy.trials.is_some();
            let kept = &outcome.kept;
            print_json(&Report {
                objective: first.objective,
                algorithm: first.algorithm,
                mechanism: disguise::names::Named::name(args.privacy.mechanism),
                label: &p.label_name,
                label_levels: &p.label_levels,
                records,
                features: names,
                k,
                trials: args.privacy.trials,
                selected: PerPick {
                    kept,
                    per_trial,
                    cell: &|j| serde_json::json!(kept.element(j)),
                },
                names: PerPick {
                    kept,
                    per_trial,
                    cell: &|j| serde_json::json!(names[kept.element(j)]),
                },
                values: PerPick {
                    kept,
                    per_trial,
                    cell: &|j| serde_json::json!(kept.value(j)),
                },
                utility: PerPick {
                    kept,
                    per_trial,
                    cell: &|j| serde_json::json!(util(kept.value(j))),
                },
                final_utility: per_trial.then(|| kept.finals()),
                mean_utility: per_trial.then_some(outcome.mean),
                std_utility: per_trial.then_some(outcome.std),
                privacy,
                secure_rng: secure,
            })
        }
        RowFormat::Csv => Ok(()),
        RowFormat::Table => {
            println!();
            println!(
                "values and utilities are computed on the private data (evaluation only, not \
                 part of the release)"
            );
            println!("{}", guarantee_line(privacy, args.privacy.trials, secure));
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{entropy_bits, parse_bins};

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

    #[test]
    fn entropy() {
        let codes = |v: Vec<u32>| disguise::data::Codes::from(v);
        assert_eq!(entropy_bits(&codes(vec![0, 1, 0, 1]), 2), 1.0);
        assert_eq!(entropy_bits(&codes(vec![1, 1, 1]), 2), 0.0);
        assert!((entropy_bits(&codes(vec![0, 1, 2, 3]), 4) - 2.0).abs() < 1e-15);
    }
}
