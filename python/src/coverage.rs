//! `disguise.MaxCoverage`: the maximum-coverage task ([`disguise::task::MaxCoverage`]).

use crate::errors::library_error;
use crate::ledger::{Charge, reserve};
use crate::runtime::Run;
use crate::selection::{Greedy, Selection, run_selection};
use disguise::task::MaxCoverage;
use pyo3::prelude::*;

/// Private maximum coverage: `covers[i]` lists the candidates (in `0..candidates`) that
/// cover person i. The report of `MaxCoverage`, as a [`Selection`].
#[pyfunction]
#[pyo3(signature = (covers, candidates, k, greedy, run))]
pub(crate) fn max_coverage(
    py: Python<'_>,
    covers: Vec<Vec<usize>>,
    candidates: usize,
    k: usize,
    greedy: Greedy,
    run: Run,
) -> PyResult<Selection> {
    let charge = Charge::of(&run)?;
    let (algorithm, privacy) = greedy.resolve(&charge)?;
    let request = MaxCoverage {
        algorithm,
        privacy,
        ..MaxCoverage::new(k)
    };
    let reserved =
        reserve(&charge, &greedy.mechanism, || request.plan(candidates)).map_err(library_error)?;
    let work = covers.iter().map(|c| c.len() as u128 + 1).sum::<u128>() * k as u128;
    // The front door itself: validation, the objective, one run and its report.
    run_selection(py, work, run.seed, reserved, move |rng| {
        request.run(candidates, &covers, rng)
    })
}
