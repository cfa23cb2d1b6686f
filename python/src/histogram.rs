//! `disguise.ProjectedHistogram`: the projected-histogram release
//! ([`disguise::task::Histogram`]) and its synthetic rows.

use crate::errors::value_error;
use crate::ledger::{after_reservation, check, reserve_plan};
use crate::runtime::{Run, generator, interruptible, json, named};
use disguise::disclosure::{Diagnostic, shown};
use disguise::histogram::{
    ColumnValues, Discretized, Domain, DomainSource, EdgePlan, EdgeRelease, MixedRadix,
    ProjectedHistogram, ReadDomain, Schema, SyntheticRows, Table, ThresholdedHistogram, Values,
    for_each_synthetic_record_shuffled,
};
use disguise::noise::SecureRng;
use disguise::task::{Histogram, HistogramReport};
use pyo3::prelude::*;

/// A schema given as a TOML file (`kind` = "path"), TOML text ("toml") or the JSON of a dict
/// with the same keys ("json"), validated, as JSON (what the Python layer reads and passes
/// back to [`histogram_fit`]).
#[pyfunction]
#[pyo3(signature = (source, kind))]
pub(crate) fn histogram_schema(source: &str, kind: &str) -> PyResult<String> {
    let schema = match kind {
        "path" => Schema::from_path(std::path::Path::new(source)),
        "toml" => Schema::from_toml_str(source, "schema"),
        "json" => Schema::from_json_str(source),
        other => return Err(value_error(format!("invalid schema kind {other:?}"))),
    }
    .map_err(value_error)?;
    json(&schema)
}

/// A draft schema as TOML for a table of columns `names` (`disguise schema`'s text for a
/// file with this header): `categorical` names the categorical columns; a column's levels
/// (`levels[i]`) or bounds (`bounds[i]`), when given, were read from the data and are
/// marked so in the draft (NOT private).
#[pyfunction]
#[pyo3(signature = (names, categorical, target, levels, bounds))]
pub(crate) fn draft_schema(
    names: Vec<String>,
    categorical: Vec<String>,
    target: Option<String>,
    levels: Vec<Option<Vec<String>>>,
    bounds: Vec<Option<(f64, f64)>>,
) -> PyResult<String> {
    let read: Vec<Option<ReadDomain>> = levels
        .into_iter()
        .zip(bounds)
        .map(|(l, b)| match (l, b) {
            (Some(levels), _) => Some(ReadDomain::Levels(levels)),
            (None, Some((lo, hi))) => Some(ReadDomain::Bounds(lo, hi)),
            (None, None) => None,
        })
        .collect();
    let layout = disguise::data::TableLayout::default();
    disguise::histogram::draft_schema_read(&names, &categorical, target.as_deref(), layout, &read)
        .map_err(value_error)
}

/// A table read for a synthesizer: its bins, the released edges, the values clamped.
pub(crate) type ReadTable = (
    Discretized,
    Option<EdgeRelease>,
    Diagnostic<Vec<(String, u64)>>,
);

/// The private `rows` read under `schema` (and dropped), cut into bins at the `plan`'s
/// private edges (released from `rng`), with the values clamped into the edge bins (a
/// diagnostic): what both synthesizers read after their reservation.
pub(crate) fn discretized(
    schema: &Schema,
    rows: Vec<Vec<String>>,
    plan: &EdgePlan,
    rng: &mut SecureRng,
) -> PyResult<ReadTable> {
    let table =
        Table::from_rows(schema, &rows, DomainSource::Schema, "data").map_err(value_error)?;
    drop(rows);
    let clamped = clamped(&table);
    let (data, edges) = plan.discretize(&table, rng).map_err(value_error)?;
    Ok((data, edges, clamped))
}

/// The values outside the schema's bounds in each numeric column of `table` that had any
/// (clamped into the edge bins when discretized, as the command line counts them while
/// reading): exact counts of the data, a diagnostic.
pub(crate) fn clamped(table: &Table) -> Diagnostic<Vec<(String, u64)>> {
    let schema = table.schema();
    let counts = schema
        .columns
        .iter()
        .enumerate()
        .filter_map(|(c, spec)| match (table.column(c), spec.bounds) {
            (ColumnValues::Numeric(values), Some([lo, hi])) => {
                let outside = values
                    .iter()
                    .filter(|x| !x.is_nan() && !(lo..=hi).contains(*x))
                    .count() as u64;
                (outside > 0).then(|| (spec.name.clone(), outside))
            }
            _ => None,
        })
        .collect();
    Diagnostic::new(counts)
}

/// A projected-histogram release held by Python: its report, and synthetic tables of any size
/// drawn from it (post-processing: no privacy cost). It keeps what sampling needs — the
/// released histogram, the columns' public domains, the public n — and pickles as those and
/// the report of the release alone (never its diagnostics).
#[pyclass(frozen, module = "disguise._disguise")]
pub(crate) struct HistogramRelease {
    /// The report of the release alone, as JSON.
    released: String,
    /// The report with its diagnostics under `not_private`, when they were asked for.
    diagnosed: Option<String>,
    /// The released columns and whether each is numeric.
    columns: Vec<(String, bool)>,
    histogram: ThresholdedHistogram,
    domains: Vec<Domain>,
    encoding: MixedRadix,
    /// n, the public number of records: the default number of synthetic records.
    records: u64,
    /// The release's seed, if any: a seeded release's samples are reproducible too.
    seed: Option<u64>,
}

/// `histogram_from_state`'s arguments: the report, the columns, the histogram and the
/// domains as JSON, n and the seed.
type HistogramState = (
    String,
    Vec<(String, bool)>,
    String,
    String,
    u64,
    Option<u64>,
);

impl HistogramRelease {
    fn of(
        release: ProjectedHistogram,
        seed: Option<u64>,
        diagnostics: bool,
        clamped: Diagnostic<Vec<(String, u64)>>,
    ) -> PyResult<Self> {
        let report = HistogramReport {
            clamped,
            ..HistogramReport::of(&release)
        };
        let released = json(&shown(&report, false))?;
        let diagnosed = diagnostics
            .then(|| json(&shown(&report, true)))
            .transpose()?;
        let numeric = release
            .domains()
            .iter()
            .map(|d| matches!(d, Domain::Numeric { .. }));
        let columns = release.columns.iter().cloned().zip(numeric).collect();
        Ok(Self {
            released,
            diagnosed,
            columns,
            domains: release.domains().to_vec(),
            encoding: release.encoding().clone(),
            records: *release.records as u64,
            histogram: release.into_histogram(),
            seed,
        })
    }
}

#[pymethods]
impl HistogramRelease {
    /// The release's report (k, γ, the chosen attributes, the budget split, the guarantee,
    /// the usefulness), as JSON: the release alone, and with the diagnostics the values
    /// clamped into the edge bins under `not_private`.
    fn report(&self) -> String {
        self.diagnosed
            .clone()
            .unwrap_or_else(|| self.released.clone())
    }

    /// The released columns (the chosen attributes and the target) and whether each is
    /// numeric.
    fn columns(&self) -> Vec<(String, bool)> {
        self.columns.clone()
    }

    /// `n` synthetic records (default: the public n of the data), apportioned in proportion
    /// to the noisy counts, in a random order (the operating system's generator, or the
    /// release's seed), as one list of decoded values per column; a numeric value as `values`
    /// says (drawn inside its bin, or the bin's midpoint).
    #[pyo3(signature = (n=None, values="uniform"))]
    fn sample(&self, n: Option<u64>, values: &str) -> PyResult<Vec<Vec<String>>> {
        let values: Values = named(values)?;
        let n = n.unwrap_or(self.records);
        let histogram = self.histogram.clone().apportioned(n);
        let (domains, encoding) = (&self.domains, &self.encoding);
        let mut out: Vec<Vec<String>> = vec![Vec::new(); domains.len()];
        let mut digits = vec![0u32; domains.len()];
        let mut rng = generator(self.seed)?;
        // The draws inside bins from a generator of their own, as the command line's writer.
        let mut inside = rng.fork();
        let mut field = String::new();
        for_each_synthetic_record_shuffled(&histogram, &mut rng, |cell| {
            encoding.decode(cell, &mut digits);
            for ((column, domain), &code) in out.iter_mut().zip(domains).zip(&digits) {
                domain.write(code, values, &mut inside, &mut field);
                column.push(field.clone());
            }
            Ok(())
        })
        .map_err(value_error)?;
        Ok(out)
    }

    /// Pickling: the release alone (its report without the diagnostics), the histogram,
    /// the domains, n and the seed, rebuilt by `histogram_from_state`.
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, HistogramState)> {
        let rebuild = py
            .import("disguise._disguise")?
            .getattr("histogram_from_state")?
            .unbind();
        let state = (
            self.released.clone(),
            self.columns.clone(),
            json(&self.histogram)?,
            json(&self.domains)?,
            self.records,
            self.seed,
        );
        Ok((rebuild, state))
    }
}

/// A pickled [`HistogramRelease`] rebuilt, its parts checked: the histogram's cells, and a
/// space of as many cells as the domains make.
#[pyfunction]
#[pyo3(signature = (released, columns, histogram, domains, records, seed))]
pub(crate) fn histogram_from_state(
    released: String,
    columns: Vec<(String, bool)>,
    histogram: &str,
    domains: &str,
    records: u64,
    seed: Option<u64>,
) -> PyResult<HistogramRelease> {
    let histogram: ThresholdedHistogram = serde_json::from_str(histogram).map_err(value_error)?;
    let domains: Vec<Domain> = serde_json::from_str(domains).map_err(value_error)?;
    let sizes: Vec<u64> = domains.iter().map(Domain::size).collect();
    let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
    let encoding = MixedRadix::new(&sizes, &names).map_err(value_error)?;
    if encoding.size() != histogram.size() {
        return Err(value_error(format!(
            "invalid pickled release: {} cells in the histogram, {} in its domains",
            histogram.size(),
            encoding.size()
        )));
    }
    Ok(HistogramRelease {
        released,
        diagnosed: None,
        columns,
        histogram,
        domains,
        encoding,
        records,
        seed,
    })
}

/// Vinterbo's projected-histogram release of `rows` (one list of field texts per record, in
/// the schema's column order) under `schema_json`: k predictors chosen by PRIVATEKD, the
/// thresholded Laplace histogram over them and the target.
#[pyfunction]
#[pyo3(signature = (
    schema_json, rows, target, epsilon, k, gamma, threshold_constant, gamma_rule, run,
    bin_rule = "released", edge_share = disguise::histogram::DEFAULT_EDGE_SHARE
))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python estimator
pub(crate) fn histogram_fit(
    py: Python<'_>,
    schema_json: &str,
    rows: Vec<Vec<String>>,
    target: Option<String>,
    epsilon: f64,
    k: Option<usize>,
    gamma: Option<f64>,
    threshold_constant: f64,
    gamma_rule: &str,
    run: Run,
    bin_rule: &str,
    edge_share: f64,
) -> PyResult<HistogramRelease> {
    let charge = run.charge()?;
    let request = Histogram {
        k,
        gamma,
        threshold_constant,
        gamma_rule: named::<disguise::histogram::GammaRule>(gamma_rule)?,
        bin_rule: named::<disguise::histogram::BinRule>(bin_rule)?,
        // The raw noisy counts are kept: `sample(n)` apportions any n from them.
        rows: SyntheticRows::NoisyCounts,
        edge_share,
        ..Histogram::new(epsilon)
    };
    request.validate().map_err(value_error)?;
    // Everything that needs no data is checked before the reservation: the schema complete
    // (every domain public), the target named and in it.
    let schema: Schema = serde_json::from_str(schema_json).map_err(value_error)?;
    disguise::histogram::table::check_complete(&schema, DomainSource::Schema)
        .map_err(value_error)?;
    let target = match (target.as_ref(), schema.target.as_ref()) {
        (Some(t), _) | (None, Some(t)) => t.clone(),
        (None, None) => {
            return Err(value_error(
                "invalid target: give target= or set `target` in the schema",
            ));
        }
    };
    schema.column_index(&target).map_err(value_error)?;
    let reserved = reserve_plan(
        &charge,
        "projected histogram (PRIVATEKD + thresholded Laplace)",
        || request.plan(),
    )?;
    // The data is read from here on: a failure says what stays charged.
    let released = (|| {
        run.deferred()?;
        // Numeric columns are cut for the predictors the release keeps (the request's rule).
        let schema = request.reading(&schema, &target);
        let mut rng = generator(run.seed)?;
        let plan = request.edges(&schema).map_err(value_error)?;
        let (data, edges, clamped) = discretized(&schema, rows, &plan, &mut rng)?;
        let target = data.column_index(&target).map_err(value_error)?;
        let held = reserved.clone();
        let release = interruptible(py, move || {
            let release = request.run_with_edges(&data, target, None, edges, &mut rng)?;
            check(&held, &release)?;
            Ok(release)
        })?;
        HistogramRelease::of(release, run.seed, run.diagnostics, clamped)
    })();
    after_reservation(py, &reserved, run.diagnostics, released)
}
