//! `disguise.MaxCoverage`: the maximum-coverage task ([`disguise::task::MaxCoverage`]).

use crate::ledger::{after_reservation, reserve_plan};
use crate::runtime::Run;
use crate::selection::{Greedy, Selection, run_selection};
use disguise::data::Neighbourhoods;
use disguise::task::{CoverageInput, MaxCoverage};
use pyo3::prelude::*;

/// Private maximum coverage: `covers[i]` lists the candidates (in `0..candidates`) that
/// cover person i; or, with `edges`, the pairs of node indices of a friendship graph (-1
/// for a node outside the public list), each node's record its friends. The report of
/// `MaxCoverage`, as a [`Selection`].
#[pyfunction]
#[pyo3(signature = (covers, candidates, k, greedy, run, edges = None))]
pub(crate) fn max_coverage(
    py: Python<'_>,
    covers: Vec<Vec<usize>>,
    candidates: usize,
    k: usize,
    greedy: Greedy,
    run: Run,
    edges: Option<Vec<(i64, i64)>>,
) -> PyResult<Selection> {
    let charge = run.charge()?;
    let (algorithm, privacy) = greedy.resolve(&charge, run.diagnostics)?;
    let estimate = greedy.estimate()?;
    let node = |i: i64| usize::try_from(i).ok().filter(|&i| i < candidates);
    let (covers, input) = match edges {
        // The library's own reading of an edge list: one record per node, its friends.
        Some(pairs) => (
            Neighbourhoods::from_pairs(
                candidates,
                pairs.into_iter().map(|(u, v)| (node(u), node(v))),
            )
            .lists,
            CoverageInput::Edges,
        ),
        None => (covers, CoverageInput::Sets),
    };
    let request = MaxCoverage {
        algorithm,
        privacy,
        input,
        ..MaxCoverage::new(k)
    };
    let reserved = reserve_plan(&charge, &greedy.mechanism, || {
        greedy.planned(request.plan(candidates)?)
    })?;
    let work = covers.iter().map(|c| c.len() as u128 + 1).sum::<u128>() * k as u128;
    // The front door itself: validation, the objective, one run and its report; charged
    // from here on ([`after_reservation`]).
    let released = run.deferred().and_then(|()| {
        run_selection(py, work, &run, &reserved, estimate, move |rng| {
            request.run(candidates, &covers, rng)
        })
    });
    after_reservation(py, &reserved, run.diagnostics, released)
}
