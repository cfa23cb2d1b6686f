//! `disguise.FacilityLocation`: the facility-location task ([`disguise::task::Select`]).

use crate::errors::value_error;
use crate::ledger::{after_reservation, reserve_plan};
use crate::runtime::{Run, named};
use crate::selection::{Greedy, Selection, run_selection};
use disguise::objective::Metric;
use disguise::task::{Reporting, Runnable, Select};
use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

/// Private facility location on (n, d) records and (m, d) candidates (C-contiguous float64):
/// the report of `Select`, as a [`Selection`].
#[pyfunction]
#[pyo3(signature = (points, candidates, k, metric, normalizer, cost, greedy, run))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python constructor
pub(crate) fn facility_location(
    py: Python<'_>,
    points: PyReadonlyArray2<'_, f64>,
    candidates: PyReadonlyArray2<'_, f64>,
    k: usize,
    metric: &str,
    normalizer: Option<f64>,
    cost: f64,
    greedy: Greedy,
    run: Run,
) -> PyResult<Selection> {
    let charge = run.charge()?;
    let dims = points.shape()[1];
    if candidates.shape()[1] != dims {
        return Err(value_error(format!(
            "invalid candidates: {} columns, the records have {dims}",
            candidates.shape()[1]
        )));
    }
    let metric = named::<Metric>(metric)?;
    let (algorithm, privacy) = greedy.resolve(&charge, run.diagnostics)?;
    let estimate = greedy.estimate()?;
    let request = Select {
        metric,
        normalizer,
        algorithm,
        cost,
        privacy,
        ..Select::new(k)
    };
    request.validate().map_err(value_error)?;
    let reserved = reserve_plan(&charge, &greedy.mechanism, || {
        greedy.planned(request.plan(candidates.shape()[0])?)
    })?;
    // From here on the release is charged: a failure says so ([`after_reservation`]).
    let released = (|| {
        run.deferred()?;
        let objective = request
            .objective_vectors(
                dims,
                points.as_slice().map_err(value_error)?,
                candidates.as_slice().map_err(value_error)?,
            )
            .map_err(value_error)?;
        let work = points.shape()[0] as u128 * candidates.shape()[0] as u128 * k as u128;
        run_selection(py, work, &run, &reserved, estimate, move |rng| {
            let prepared = request.prepare(&objective)?;
            let solution = prepared.run_once(rng)?;
            Ok(prepared.report(&solution))
        })
    })();
    after_reservation(py, &reserved, run.diagnostics, released)
}
