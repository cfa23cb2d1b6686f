//! `disguise.Synthesizer`: whole-table synthetic data ([`disguise::task::Synth`], MST on the
//! engine) and its synthetic rows.

use crate::errors::value_error;
use crate::histogram::discretized;
use crate::ledger::{after_reservation, check, reserve_plan};
use crate::runtime::{Run, generator, interruptible, json, named};
use disguise::disclosure::shown;
use disguise::histogram::{Domain, DomainSource, Schema, Values};
use disguise::synth::{KeptModel, MeasurementNoise};
use disguise::task::{Synth, SynthReport};
use pyo3::prelude::*;

/// A fitted synthesizer held by Python: its report, and synthetic tables of any size drawn
/// from its model (post-processing: no privacy cost). It pickles as its kept model
/// ([`disguise::synth::KeptModel`]: released values and public metadata) and its seed.
#[pyclass(frozen, module = "disguise._disguise")]
pub(crate) struct SynthModel {
    kept: KeptModel,
    /// The fit's report as JSON (with the diagnostics if asked for); `None` for a model
    /// loaded from a file.
    report: Option<String>,
    /// The command line's warning when the noise may swamp the measured pairs.
    warning: Option<String>,
    /// The fit's seed, if any: a seeded model's samples are reproducible too.
    seed: Option<u64>,
}

impl SynthModel {
    /// A model read back from a file or a pickle: no fit report, no warning.
    fn loaded(kept: KeptModel, seed: Option<u64>) -> Self {
        Self {
            kept,
            report: None,
            warning: None,
            seed,
        }
    }
}

/// `synth_from_json`'s arguments: the kept model's JSON and the seed.
type Rebuild = (String, Option<u64>);

#[pymethods]
impl SynthModel {
    /// The release's report (the tree, the noise, the fit, the guarantee), as JSON: the
    /// release alone, and with the diagnostics the values clamped into the edge bins under
    /// `not_private`.
    fn report(&self) -> PyResult<String> {
        self.report
            .clone()
            .ok_or_else(|| value_error("a model loaded from a file keeps no fit report"))
    }

    /// The warning the command line prints when the noise may swamp the measured pairs
    /// ([`disguise::text::synth_noise_warning`]), or `None`.
    fn noise_warning(&self) -> Option<String> {
        self.warning.clone()
    }

    /// The release's guarantee, as JSON.
    fn guarantee(&self) -> PyResult<String> {
        json(&self.kept.guarantee)
    }

    /// Every column and whether it is numeric.
    fn columns(&self) -> Vec<(String, bool)> {
        let numeric = self
            .kept
            .domains
            .iter()
            .map(|d| matches!(d, Domain::Numeric { .. }));
        self.kept.names.iter().cloned().zip(numeric).collect()
    }

    /// The kept model as JSON text (`docs/model-format.md`).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.kept).map_err(value_error)
    }

    /// Writes the kept model to `path` atomically.
    fn save(&self, path: std::path::PathBuf) -> PyResult<()> {
        self.kept.save(&path, &[]).map_err(value_error)
    }

    /// Pickling: the kept model and the seed, rebuilt by `synth_from_json`.
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, Rebuild)> {
        let rebuild = py
            .import("disguise._disguise")?
            .getattr("synth_from_json")?
            .unbind();
        Ok((rebuild, (self.to_json()?, self.seed)))
    }

    /// `n` synthetic records (default: the public n of the data), drawn independently from
    /// the fitted model (the operating system's generator, or the fit's seed), as one list of
    /// decoded values per column; a numeric value as `values` says (drawn inside its bin, or
    /// the bin's midpoint).
    #[pyo3(signature = (n=None, values="uniform"))]
    fn sample(&self, py: Python<'_>, n: Option<u64>, values: &str) -> PyResult<Vec<Vec<String>>> {
        let values: Values = named(values)?;
        let kept = &self.kept;
        let n = n.unwrap_or(kept.rows);
        disguise::memory::check(
            &format!("sample({n})"),
            u128::from(n) * kept.names.len() as u128 * 24,
            "draw fewer records at a time",
        )
        .map_err(value_error)?;
        let mut rng = generator(self.seed)?;
        // The draws inside bins from a generator of their own, as the command line's writer.
        let mut inside = rng.fork();
        let d = kept.names.len();
        py.detach(|| {
            let mut out: Vec<Vec<String>> = vec![Vec::new(); d];
            let mut field = String::new();
            kept.sample_codes(n, &mut rng, |chunk| {
                for record in chunk.chunks(d) {
                    for ((column, domain), &code) in out.iter_mut().zip(&kept.domains).zip(record) {
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

/// A kept model from its JSON text (what `SynthModel.to_json` and a `--save-model` file
/// hold), checked; `seed` as the fit's.
#[pyfunction]
#[pyo3(signature = (text, seed = None))]
pub(crate) fn synth_from_json(text: &str, seed: Option<u64>) -> PyResult<SynthModel> {
    let kept: KeptModel = serde_json::from_str(text).map_err(value_error)?;
    kept.check().map_err(value_error)?;
    Ok(SynthModel::loaded(kept, seed))
}

/// A kept model read from `path` (a `--save-model` file or `Synthesizer.save`'s); `seed`
/// makes its samples reproducible.
#[pyfunction]
#[pyo3(signature = (path, seed = None))]
pub(crate) fn synth_load(path: std::path::PathBuf, seed: Option<u64>) -> PyResult<SynthModel> {
    let kept = KeptModel::load(&path).map_err(value_error)?;
    Ok(SynthModel::loaded(kept, seed))
}

/// MST on `rows` (one list of field texts per record, in the schema's column order) under
/// `schema_json`: every column released.
#[pyfunction]
#[pyo3(signature = (schema_json, rows, epsilon, delta, noise, iterations, run, edge_share = disguise::histogram::DEFAULT_EDGE_SHARE, method = None, target = None))]
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
    method: Option<&str>,
    target: Option<String>,
) -> PyResult<SynthModel> {
    let charge = run.charge()?;
    if let Some(m) = method.filter(|m| !["aim", "mst"].contains(m)) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "method: '{m}' is not one of 'aim', 'mst'"
        )));
    }
    let request = Synth {
        epsilon,
        noise: noise.map(named::<MeasurementNoise>).transpose()?,
        iterations,
        edge_share,
        target,
        ..Synth::with_method(method, delta)
    };
    request.validate().map_err(value_error)?;
    // Everything that needs no data is checked before the reservation: the schema complete
    // (every domain public).
    let schema: Schema = serde_json::from_str(schema_json).map_err(value_error)?;
    disguise::histogram::table::check_complete(&schema, DomainSource::Schema)
        .map_err(value_error)?;
    let request = Synth {
        target: request.target.clone().or_else(|| schema.default_target()),
        ..request
    };
    let schema = request.reading(&schema).map_err(value_error)?;
    let label = format!("synthetic data ({})", request.method.name().to_uppercase());
    let reserved = reserve_plan(&charge, &label, || request.plan(&schema))?;
    // The data is read from here on: a failure says what stays charged.
    let released = (|| {
        run.deferred()?;
        let mut rng = generator(run.seed)?;
        let plan = request.edges(&schema).map_err(value_error)?;
        let (data, edges, clamped) = discretized(&schema, rows, &plan, &mut rng)?;
        let held = reserved.clone();
        let release = interruptible(py, move || {
            let release = request.run(data, edges, &mut rng)?;
            check(&held, &release)?;
            Ok(release)
        })?;
        let report = SynthReport {
            clamped,
            ..release.report()
        };
        Ok(SynthModel {
            report: Some(json(&shown(&report, run.diagnostics))?),
            warning: disguise::text::synth_noise_warning(&report),
            kept: release.kept(),
            seed: run.seed,
        })
    })();
    after_reservation(py, &reserved, run.diagnostics, released)
}
