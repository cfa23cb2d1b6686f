//! `disguise.FeatureSelector`: the feature-selection task ([`disguise::task::Features`]).

use crate::errors::value_error;
use crate::ledger::{after_reservation, reserve_plan};
use crate::runtime::{Run, named};
use crate::selection::{Greedy, Selection, run_selection};
use disguise::data::Codes;
use disguise::task::{FeatureObjective, FeatureTable, Features, Reporting};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

/// The bin of every value of a numeric column cut into `count` equal bins over the PUBLIC
/// bounds [lo, hi] (the command line's `--bins COL:MIN:MAX:N`; values outside are clamped
/// into the edge bins, [`disguise::histogram::Bins::index`]). NaN is refused.
#[pyfunction]
pub(crate) fn bin_codes<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'_, f64>,
    lo: f64,
    hi: f64,
    count: usize,
    name: &str,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let bins = disguise::histogram::Bins::new(lo, hi, count)
        .map_err(|e| value_error(format!("invalid bins of {name}: {e}")))?;
    let values = values.as_slice().map_err(value_error)?;
    if let Some(i) = values.iter().position(|x| x.is_nan()) {
        return Err(value_error(format!(
            "invalid {name}: row {} is NaN (code missing values as a category first)",
            i + 1
        )));
    }
    let codes: Vec<u32> = values.iter().map(|&x| bins.index(x) as u32).collect();
    Ok(codes.into_pyarray(py))
}

/// Private feature selection on a coded table: `codes` is (features, records) — one row of
/// category codes per feature — and `labels` the label's codes, whose `label_levels` are
/// public when `public_levels` (the user named the classes): the a-priori bound then uses
/// their number. The report of `Features`, as a [`Selection`].
#[pyfunction]
#[pyo3(signature = (codes, arities, labels, label_levels, public_levels, names, k, objective, greedy, run))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python estimator
pub(crate) fn features(
    py: Python<'_>,
    codes: PyReadonlyArray2<'_, u32>,
    arities: Vec<u32>,
    labels: PyReadonlyArray1<'_, u32>,
    label_levels: u32,
    public_levels: bool,
    names: Vec<String>,
    k: usize,
    objective: &str,
    greedy: Greedy,
    run: Run,
) -> PyResult<Selection> {
    let charge = run.charge()?;
    let objective = named::<FeatureObjective>(objective)?;
    let (algorithm, privacy) = greedy.resolve(&charge, run.diagnostics)?;
    let estimate = greedy.estimate()?;
    let request = Features {
        objective,
        algorithm,
        privacy,
        ..Features::new(k)
    };
    request.validate().map_err(value_error)?;
    // The table's shape is public (n and the features): checked before the reservation.
    let n = labels.len();
    if codes.shape()[1] != n || names.len() != codes.shape()[0] || arities.len() != names.len() {
        return Err(value_error(format!(
            "invalid table: {} feature rows of {} codes for {n} labels, {} names, {} arities",
            codes.shape()[0],
            codes.shape()[1],
            names.len(),
            arities.len()
        )));
    }
    let reserved = reserve_plan(&charge, &greedy.mechanism, || {
        greedy.planned(request.plan(names.len())?)
    })?;
    // Charged from here on: a failure says so ([`after_reservation`]).
    let released = (|| {
        run.deferred()?;
        let flat = codes.as_slice().map_err(value_error)?;
        let columns: Vec<Codes> = flat
            .chunks(n.max(1))
            .take(names.len())
            .map(|c| Codes::from(c.to_vec()))
            .collect();
        let work = n as u128 * names.len() as u128 * k as u128;
        let table = FeatureTable {
            names,
            columns,
            arities,
            labels: Codes::from(labels.as_slice().map_err(value_error)?.to_vec()),
            label_levels,
        };
        run_selection(py, work, &run, &reserved, estimate, move |rng| {
            let prepared = request.prepare(table)?;
            let prepared = if public_levels {
                prepared.with_public_label_levels(label_levels)
            } else {
                prepared
            };
            prepared.run_report(rng)
        })
    })();
    after_reservation(py, &reserved, run.diagnostics, released)
}
