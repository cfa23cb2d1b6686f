//! `disguise.FacilityLocation`: the facility-location task ([`disguise::task::Select`]).

use crate::errors::{library_error, value_error};
use crate::ledger::{Charge, reserve, within};
use crate::runtime::{Run, generator, named, run_sized};
use crate::selection::{Selection, privacy, selection};
use disguise::objective::Metric;
use disguise::task::{Algorithm, Reporting, Runnable, Select};
use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

/// Private facility location on (n, d) records and (m, d) candidates (C-contiguous float64):
/// the report of `Select`, as a [`Selection`].
#[pyfunction]
#[pyo3(signature = (
    points, candidates, k, epsilon, delta, metric, mechanism, rule, algorithm, normalizer, cost,
    run
))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python constructor
pub(crate) fn facility_location(
    py: Python<'_>,
    points: PyReadonlyArray2<'_, f64>,
    candidates: PyReadonlyArray2<'_, f64>,
    k: usize,
    epsilon: Option<f64>,
    delta: f64,
    metric: &str,
    mechanism: &str,
    rule: &str,
    algorithm: &str,
    normalizer: Option<f64>,
    cost: f64,
    run: Run,
) -> PyResult<Selection> {
    let charge = Charge::of(&run)?;
    let dims = points.shape()[1];
    if candidates.shape()[1] != dims {
        return Err(value_error(format!(
            "invalid candidates: {} columns, the records have {dims}",
            candidates.shape()[1]
        )));
    }
    let request = Select {
        metric: named::<Metric>(metric)?,
        normalizer,
        algorithm: named::<Algorithm>(algorithm)?,
        cost,
        privacy: privacy(epsilon, delta, mechanism, rule, charge.is_some())?,
        ..Select::new(k)
    };
    request.validate().map_err(value_error)?;
    let reserved = reserve(&charge, mechanism, || request.plan(candidates.shape()[0]))
        .map_err(library_error)?;
    let objective = request
        .objective_vectors(
            dims,
            points.as_slice().map_err(value_error)?,
            candidates.as_slice().map_err(value_error)?,
        )
        .map_err(value_error)?;
    let mut rng = generator(run.seed)?;
    let work = points.shape()[0] as u128 * candidates.shape()[0] as u128 * k as u128;
    let report = run_sized(py, work, move || {
        let prepared = request.prepare(&objective)?;
        let solution = prepared.run_once(&mut rng)?;
        let report = prepared.report(&solution);
        within(reserved, report.privacy.guarantee)?;
        Ok(report)
    })?;
    Ok(selection(report))
}
