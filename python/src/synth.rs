//! `disguise.Synthesizer`: whole-table synthetic data ([`disguise::task::Synth`], MST on the
//! engine) and its synthetic rows.

use crate::errors::{library_error, value_error};
use crate::histogram::clamped;
use crate::ledger::{Charge, after_reservation, check, reserve_plan};
use crate::runtime::{Run, generator, interruptible, json, named};
use disguise::disclosure::{Diagnostic, shown};
use disguise::histogram::{Domain, DomainSource, Schema, Table, Values};
use disguise::synth::MeasurementNoise;
use disguise::task::{Synth, SynthRelease, SynthReport};
use pyo3::prelude::*;

/// A fitted synthesizer held by Python: its report, and synthetic tables of any size drawn
/// from its model (post-processing: no privacy cost).
#[pyclass(frozen, module = "disguise._disguise")]
pub(crate) struct SynthModel {
    release: SynthRelease,
    /// The fit's seed, if any: a seeded model's samples are reproducible too.
    seed: Option<u64>,
    /// Whether the diagnostics were asked for (shown under `not_private`).
    diagnostics: bool,
    /// The values clamped into the edge bins (a diagnostic).
    clamped: Diagnostic<Vec<(String, u64)>>,
}

#[pymethods]
impl SynthModel {
    /// The release's report (the tree, the noise, the fit, the guarantee), as JSON: the
    /// release alone, and with the diagnostics the values clamped into the edge bins under
    /// `not_private`.
    fn report(&self) -> PyResult<String> {
        let report = SynthReport {
            clamped: self.clamped.clone(),
            ..self.release.report()
        };
        json(&shown(&report, self.diagnostics))
    }

    /// The warning the command line prints when the noise may swamp the measured pairs
    /// ([`disguise::text::synth_noise_warning`]), or `None`.
    fn noise_warning(&self) -> Option<String> {
        disguise::text::synth_noise_warning(&self.release.report())
    }

    /// Every column and whether it is numeric.
    fn columns(&self) -> Vec<(String, bool)> {
        let numeric = self
            .release
            .domains
            .iter()
            .map(|d| matches!(d, Domain::Numeric { .. }));
        self.release.names.iter().cloned().zip(numeric).collect()
    }

    /// `n` synthetic records (default: the public n of the data), drawn independently from
    /// the fitted model (the operating system's generator, or the fit's seed), as one list of
    /// decoded values per column; a numeric value as `values` says (drawn inside its bin, or
    /// the bin's midpoint).
    #[pyo3(signature = (n=None, values="uniform"))]
    fn sample(&self, py: Python<'_>, n: Option<u64>, values: &str) -> PyResult<Vec<Vec<String>>> {
        let values: Values = named(values)?;
        let n = n.unwrap_or(self.release.rows);
        disguise::memory::check(
            &format!("sample({n})"),
            u128::from(n) * self.release.names.len() as u128 * 24,
            "draw fewer records at a time",
        )
        .map_err(value_error)?;
        let mut rng = generator(self.seed)?;
        // The draws inside bins from a generator of their own, as the command line's writer.
        let mut inside = rng.fork();
        let release = &self.release;
        let d = release.names.len();
        py.detach(|| {
            let mut out: Vec<Vec<String>> = vec![Vec::new(); d];
            let mut field = String::new();
            release.sample_codes(n, &mut rng, |chunk| {
                for record in chunk.chunks(d) {
                    for ((column, domain), &code) in
                        out.iter_mut().zip(&release.domains).zip(record)
                    {
                        domain.write(code, values, &mut inside, &mut field);
                        column.push(field.clone());
                    }
                }
                Ok(())
            })?;
            Ok::<_, disguise::Error>(out)
        })
        .map_err(value_error)
    }
}

/// MST on `rows` (one list of field texts per record, in the schema's column order) under
/// `schema_json`: every column released.
#[pyfunction]
#[pyo3(signature = (schema_json, rows, epsilon, delta, noise, iterations, run, edge_share = disguise::histogram::DEFAULT_EDGE_SHARE))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python estimator
pub(crate) fn synth_fit(
    py: Python<'_>,
    schema_json: &str,
    rows: Vec<Vec<String>>,
    epsilon: f64,
    delta: f64,
    noise: Option<&str>,
    iterations: usize,
    run: Run,
    edge_share: f64,
) -> PyResult<SynthModel> {
    let charge = Charge::of(&run)?;
    let request = Synth {
        delta,
        noise: noise.map(named::<MeasurementNoise>).transpose()?,
        iterations,
        edge_share,
        ..Synth::new(epsilon)
    };
    request.validate().map_err(value_error)?;
    // Everything that needs no data is checked before the reservation: the schema complete
    // (every domain public).
    let schema: Schema = serde_json::from_str(schema_json).map_err(value_error)?;
    disguise::histogram::table::check_complete(&schema, DomainSource::Schema)
        .map_err(value_error)?;
    let schema = request.reading(&schema).map_err(value_error)?;
    let reserved = reserve_plan(&charge, "synthetic data (MST)", || request.plan(&schema))
        .map_err(library_error)?;
    // The data is read from here on: a failure says what stays charged.
    let released = (|| {
        run.deferred()?;
        let table =
            Table::from_rows(&schema, &rows, DomainSource::Schema, "data").map_err(value_error)?;
        drop(rows);
        let clamped = clamped(&table);
        let mut rng = generator(run.seed)?;
        let edges = request.edges(&schema).map_err(value_error)?;
        let (data, edges) = edges.discretize(&table, &mut rng).map_err(value_error)?;
        drop(table);
        let held = reserved.clone();
        let release = interruptible(py, move || {
            let release = request.run(data, edges, &mut rng)?;
            check(&held, &release)?;
            Ok(release)
        })?;
        Ok(SynthModel {
            release,
            seed: run.seed,
            diagnostics: run.diagnostics,
            clamped,
        })
    })();
    after_reservation(py, &reserved, run.diagnostics, released)
}
