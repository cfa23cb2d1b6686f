//! `disguise.FeatureSelector`: the feature-selection task ([`disguise::task::Features`]).

use crate::errors::{library_error, value_error};
use crate::ledger::{Charge, reserve, within};
use crate::runtime::{Run, generator, named, run_sized};
use crate::selection::{Selection, privacy, selection};
use disguise::data::Codes;
use disguise::task::{Algorithm, FeatureObjective, FeatureTable, Features};
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

/// Private feature selection on a coded table: `codes` is (features, records) — one row of
/// category codes per feature — and `labels` the label's codes. The report of `Features`,
/// as a [`Selection`].
#[pyfunction]
#[pyo3(signature = (
    codes, arities, labels, label_levels, names, k, epsilon, delta, mechanism, rule, algorithm,
    objective, run
))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python estimator
pub(crate) fn features(
    py: Python<'_>,
    codes: PyReadonlyArray2<'_, u32>,
    arities: Vec<u32>,
    labels: PyReadonlyArray1<'_, u32>,
    label_levels: u32,
    names: Vec<String>,
    k: usize,
    epsilon: Option<f64>,
    delta: f64,
    mechanism: &str,
    rule: &str,
    algorithm: &str,
    objective: &str,
    run: Run,
) -> PyResult<Selection> {
    let charge = Charge::of(&run)?;
    let request = Features {
        objective: named::<FeatureObjective>(objective)?,
        algorithm: named::<Algorithm>(algorithm)?,
        privacy: privacy(epsilon, delta, mechanism, rule, charge.is_some())?,
        ..Features::new(k)
    };
    request.validate().map_err(value_error)?;
    let reserved =
        reserve(&charge, mechanism, || request.plan(names.len())).map_err(library_error)?;
    let n = labels.len();
    let flat = codes.as_slice().map_err(value_error)?;
    if codes.shape()[1] != n || names.len() != codes.shape()[0] || arities.len() != names.len() {
        return Err(value_error(format!(
            "invalid table: {} feature rows of {} codes for {n} labels, {} names, {} arities",
            codes.shape()[0],
            codes.shape()[1],
            names.len(),
            arities.len()
        )));
    }
    let columns: Vec<Codes> = flat
        .chunks(n.max(1))
        .take(names.len())
        .map(|c| Codes::from(c.to_vec()))
        .collect();
    let names_len = names.len();
    let table = FeatureTable {
        names,
        columns,
        arities,
        labels: Codes::from(labels.as_slice().map_err(value_error)?.to_vec()),
        label_levels,
    };
    let mut rng = generator(run.seed)?;
    let work = n as u128 * names_len as u128 * k as u128;
    let report = run_sized(py, work, move || {
        let report = request.run(table, &mut rng)?;
        within(reserved, report.privacy.guarantee)?;
        Ok(report)
    })?;
    Ok(selection(report))
}
