//! `disguise hypothesis`: private hypothesis selection (Chaudhuri, Hsu & Song 2014, §4.2) —
//! the decision stump with the smallest training error, chosen privately from a large,
//! data-independent class.

use super::common::names::named_among;
use super::common::{DeltaArg, LayoutArgs, RunArgs, warn_if_vacuous};
use crate::output::{flag_of, flagged, print_report, rng_from_seed, spinner};
use anyhow::{Context, bail};
use disguise::apps::hypothesis::{header_schema, parse_bounds, table_columns, table_labels};
use disguise::disclosure::Diagnostic;
use disguise::histogram::{DomainSource, Schema, Table};
use disguise::select::SelectorKind;
use disguise::task::{Hypothesis, Privacy};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  # UCI Adult with its public schema: the best stump for income > 50K, large margin mechanism
  disguise hypothesis --data adult.data --schema crates/disguise/schemas/adult.schema.toml \\
      --label income --positive '>50K' --epsilon 1 --delta 1e-6

  # a CSV whose features all lie in [0, 255] (public sensor range) and a 0/1 label, a fine
  # grid of 1000 thresholds per column, the exponential mechanism, and for the data's curator
  # the training and held-out accuracies (NOT private)
  disguise hypothesis --data train.csv --label y --bounds 0:255 --thresholds 1000 \\
      --mechanism em --epsilon 0.5 --test test.csv --diagnostics

The class: for every numeric column with public bounds [lo, hi], the N grid thresholds
t_k = lo + (hi − lo)·k/(N + 1), k = 1..N, each in two directions ('x ≤ t → positive, else
negative' and the reverse); for every categorical column and level v, 'x = v → positive' and
the reverse; and the two constant classifiers. |H| = 2 + 2·N·(numeric columns) + 2·(levels),
at most 1e8 (every hypothesis is scored in memory: about 2.4 GB at the limit); a larger class
is refused before it is built.
Thresholds come from the public bounds only — a --schema, or --bounds LO:HI for every feature
— never from the data (--bounds-from-data does that, and the result is NOT private).

Privacy: neighbouring datasets differ in one record; n is public. The score of a stump is its
number of correctly classified records (sensitivity 1). The output is the release: the chosen
stump, its margin and the guarantee. With --diagnostics it also shows, in a section of its own
('not_private' in JSON), the training accuracy of the chosen stump and the best in the class,
and with --test the accuracy on the held-out data: computed on the data without noise, NOT
private. --mechanism max and --bounds-from-data are not private and run only with
--diagnostics.";

/// Arguments of `disguise hypothesis`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The labelled training data: CSV with a header (or the format the --schema declares).
    /// Example: `--data train.csv`.
    #[arg(long, value_name = "FILE")]
    data: PathBuf,
    /// The label column (default with --schema: its `target`). Binary: with a categorical
    /// label give --positive; a numeric label must be 0/1. Example: `--label income`.
    #[arg(long, value_name = "COL")]
    label: Option<String>,
    /// The positive class, a level of a categorical label. Example: `--positive '>50K'`.
    #[arg(long, value_name = "LEVEL")]
    positive: Option<String>,
    /// TOML schema with every column's public domain (numeric bounds, categorical levels) and
    /// the file format (see `disguise histogram --help`). Example:
    /// `--schema adult.schema.toml`.
    #[arg(long, value_name = "FILE", conflicts_with = "bounds")]
    schema: Option<PathBuf>,
    #[command(flatten)]
    layout: LayoutArgs,
    /// Without --schema: every column but the label is numeric with these PUBLIC bounds.
    /// Example: `--bounds 0:255`.
    #[arg(long, value_name = "LO:HI", allow_hyphen_values = true)]
    bounds: Option<String>,
    /// Take missing bounds and levels from the data. NOT PRIVATE (the domains reveal
    /// records); for exploration only, with --diagnostics.
    #[arg(long)]
    bounds_from_data: bool,
    /// Grid thresholds N per numeric column (|H| grows linearly in N; at most 1e8
    /// hypotheses in all, so N ≤ 5e7). Example: `--thresholds 1000`.
    #[arg(long, value_name = "N", default_value_t = 32)]
    thresholds: usize,
    /// The selection mechanism (`max`, the non-private argmax, only with --diagnostics).
    #[arg(long, value_name = "NAME", value_parser = named_among(Privacy::MECHANISMS), default_value_t = SelectorKind::LargeMargin)]
    mechanism: SelectorKind,
    /// Privacy budget ε > 0 of the one selection (ignored by max). Example: `--epsilon 1`.
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: Option<f64>,
    #[command(flatten)]
    delta: DeltaArg,
    /// Held-out data (same columns) on which to report the chosen stump's accuracy
    /// (evaluation only, NOT private: with --diagnostics). Example: `--test test.csv`.
    #[arg(long, value_name = "FILE")]
    test: Option<PathBuf>,
    #[command(flatten)]
    run: RunArgs,
}

/// Runs `disguise hypothesis`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let request = Hypothesis {
        mechanism: args.mechanism,
        epsilon: args.epsilon,
        delta: args.delta.value,
        thresholds: args.thresholds,
    };
    // Everything that needs no data is validated first, in the library.
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    // The non-private modes run only as diagnostics, refused before anything is read.
    let diagnostics = args.run.diagnostics;
    diagnostics.allow_non_private(args.mechanism.is_private(), "--mechanism max")?;
    diagnostics.allow_non_private(!args.bounds_from_data, "--bounds-from-data")?;
    if args.test.is_some() && !diagnostics.on() {
        bail!(
            "invalid --test: the held-out accuracy is computed on data without noise, NOT \
             private, so it is shown only as a diagnostic: add --diagnostics, or drop --test"
        );
    }
    // The inputs can be read, before anything is charged for reading them.
    disguise::files::check_input(&args.data)?;
    if let Some(test) = &args.test {
        disguise::files::check_input(test)?;
    }
    let charge = args.run.ledger.open()?;
    if charge.is_some() && args.bounds_from_data {
        bail!(
            "invalid --bounds-from-data: the result would not be private, so a budget ledger \
             cannot account for it (give --schema or --bounds, or drop --ledger)"
        );
    }
    let bounds = match args.bounds.as_deref() {
        // The error names the bounds as given: `invalid --bounds "5:1": need finite LO < HI`.
        Some(text) => {
            Some(parse_bounds(text).map_err(|e| flagged(e, &|_| format!("--bounds {text:?}")))?)
        }
        None => None,
    };
    let (schema, label_name) = match &args.schema {
        Some(path) => {
            let schema = Schema::from_path(path)?;
            let label = schema.target_or(args.label.as_deref(), "label", &flag_of)?;
            (schema, label)
        }
        None => {
            let Some(label) = args.label.clone() else {
                bail!("--label is required (the 0/1 label column), e.g. --label y");
            };
            if bounds.is_none() && !args.bounds_from_data {
                bail!(
                    "the stumps' thresholds need public bounds: give --schema, --bounds LO:HI, \
                     or (NOT private, with --diagnostics) --bounds-from-data"
                );
            }
            let positive = args.positive.as_deref();
            let layout = args.layout.layout();
            let schema = header_schema(&args.data, layout, &label, bounds, positive, &flag_of)
                .map_err(|e| match e {
                    disguise::Error::InvalidParameter { reason, .. } => anyhow::anyhow!(reason),
                    other => other.into(),
                })?;
            (schema, label)
        }
    };
    let label = schema.column_index(&label_name)?;
    // Charged before a record is read, from the options alone.
    let reserved = args.run.reserve(
        charge.as_ref(),
        disguise::names::Named::name(args.mechanism),
        || request.plan(),
    )?;
    let source = if args.bounds_from_data {
        eprintln!(
            "warning: --bounds-from-data takes bounds and levels from the data; they reveal \
             records, so the result is NOT private (exploration only)"
        );
        DomainSource::Data
    } else {
        DomainSource::Schema
    };
    let bar = spinner(&format!("reading {}", args.data.display()), args.run.quiet);
    let table = Table::read(&[args.data.as_path()], &schema, source);
    bar.finish_and_clear();
    let table = table?;
    let (labels, pos, neg) = table_labels(&table, label, args.positive.as_deref())?;

    let mut rng = rng_from_seed(args.run.seed)?;
    let (class, selection) = request.run(&table, label, &labels, &mut rng)?;
    if let Some(reserved) = &reserved {
        reserved.check(&selection)?;
    }
    let private_domains = table.is_private();
    let mut report = request.report(
        &class,
        selection,
        labels.len(),
        private_domains,
        [&pos, &neg],
    )?;
    if let Some(path) = &args.test {
        let test = Table::read(&[path.as_path()], table.schema(), DomainSource::Schema)
            .with_context(|| format!("cannot read the test data {}", path.display()))?;
        let (test_labels, _, _) = table_labels(&test, label, Some(&pos))
            .or_else(|_| table_labels(&test, label, args.positive.as_deref()))?;
        let test_columns = table_columns(&test, label);
        let index = *report.selection.index;
        let accuracy = 1.0 - class.error_rate(index, &test_columns, &test_labels);
        report.test_accuracy = Diagnostic::new(Some(accuracy));
    }
    if let Some(u) = &report.usefulness {
        warn_if_vacuous(u);
    }
    print_report(args.run.format, &report, diagnostics.on(), || {
        disguise::text::hypothesis_table(&report, &flag_of)
    })
}
