//! `disguise.MaxCoverage`: the maximum-coverage task ([`disguise::task::MaxCoverage`]).

use crate::errors::library_error;
use crate::ledger::{Charge, reserve, within};
use crate::runtime::{Run, generator, named, run_sized};
use crate::selection::{Selection, privacy, selection};
use disguise::task::{Algorithm, MaxCoverage};
use pyo3::prelude::*;

/// Private maximum coverage: `covers[i]` lists the candidates (in `0..candidates`) that
/// cover person i. The report of `MaxCoverage`, as a [`Selection`].
#[pyfunction]
#[pyo3(signature = (covers, candidates, k, epsilon, delta, mechanism, rule, algorithm, run))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python constructor
pub(crate) fn max_coverage(
    py: Python<'_>,
    covers: Vec<Vec<usize>>,
    candidates: usize,
    k: usize,
    epsilon: Option<f64>,
    delta: f64,
    mechanism: &str,
    rule: &str,
    algorithm: &str,
    run: Run,
) -> PyResult<Selection> {
    let charge = Charge::of(&run)?;
    let request = MaxCoverage {
        algorithm: named::<Algorithm>(algorithm)?,
        privacy: privacy(epsilon, delta, mechanism, rule, charge.is_some())?,
        ..MaxCoverage::new(k)
    };
    let reserved =
        reserve(&charge, mechanism, || request.plan(candidates)).map_err(library_error)?;
    let work = covers.iter().map(|c| c.len() as u128 + 1).sum::<u128>() * k as u128;
    let mut rng = generator(run.seed)?;
    // The front door itself: validation, the objective, one run and its report.
    let report = run_sized(py, work, move || {
        let report = request.run(candidates, &covers, &mut rng)?;
        within(reserved, report.privacy.guarantee)?;
        Ok(report)
    })?;
    Ok(selection(report))
}
