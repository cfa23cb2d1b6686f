//! Benchmark hooks, built only with the `bench` feature (`benches/peers/run.sh` installs the
//! package with it; a wheel built without it has none of this): the Rust front-door calls
//! that `crates/disguise/benches/peers.rs` times, timed here in Rust, so that the package's
//! call and the Rust call can be alternated call by call in one process. On a 2-core VM
//! whose speed for a sub-millisecond parallel call switches between two modes every few
//! milliseconds, only such pairs compare the code rather than the moment.

use crate::errors::value_error;
use crate::runtime::generator;
use disguise::objective::Metric;
use disguise::privacy::{Delta, Epsilon, Sensitivity};
use disguise::select::SelectorKind;
use disguise::task::{Select, WithPrivacy};
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use std::time::Instant;

/// Rows of a (n, 2) array as points (copied before the clock starts, as the Rust benchmark
/// reads its points before timing).
fn pairs(array: &PyReadonlyArray2<'_, f64>) -> PyResult<Vec<[f64; 2]>> {
    if array.shape()[1] != 2 {
        return Err(value_error("expected an (n, 2) array"));
    }
    let flat = array.as_slice().map_err(value_error)?;
    Ok(flat.chunks_exact(2).map(|p| [p[0], p[1]]).collect())
}

/// Seconds of one `Select::new(k).epsilon(1.0).metric(Manhattan).normalizer(0.266).run(…)`
/// (objective, run and report, the generator made inside the clock), and its picks.
#[pyfunction]
#[pyo3(signature = (points, candidates, k, seed=None))]
fn select_seconds(
    points: PyReadonlyArray2<'_, f64>,
    candidates: PyReadonlyArray2<'_, f64>,
    k: usize,
    seed: Option<u64>,
) -> PyResult<(f64, Vec<usize>)> {
    let (points, candidates) = (pairs(&points)?, pairs(&candidates)?);
    let start = Instant::now();
    let mut rng = generator(seed)?;
    let report = Select::new(k)
        .epsilon(1.0)
        .metric(Metric::Manhattan)
        .normalizer(0.266)
        .run(&points, &candidates, &mut rng)
        .map_err(value_error)?;
    Ok((
        start.elapsed().as_secs_f64(),
        report.choice.selected.into_inner(),
    ))
}

/// Seconds of one exponential-mechanism selection at ε = 1, sensitivity 1 (the selector
/// built by name, the generator made inside the clock), and its pick.
#[pyfunction]
#[pyo3(signature = (scores, seed=None))]
fn exponential_seconds(
    scores: PyReadonlyArray1<'_, f64>,
    seed: Option<u64>,
) -> PyResult<(f64, usize)> {
    let scores = scores.as_slice().map_err(value_error)?;
    let start = Instant::now();
    let mut rng = generator(seed)?;
    let selector = SelectorKind::Exponential
        .build(Epsilon::new(1.0).map_err(value_error)?, Delta::ZERO)
        .map_err(value_error)?;
    let pick = selector
        .select(
            scores,
            Sensitivity::new(1.0).map_err(value_error)?,
            &mut rng,
        )
        .map_err(value_error)?;
    Ok((start.elapsed().as_secs_f64(), pick.index))
}

/// Adds the hooks to the native module as `_bench_select_seconds` and
/// `_bench_exponential_seconds`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add(
        "_bench_select_seconds",
        wrap_pyfunction!(select_seconds, m)?,
    )?;
    m.add(
        "_bench_exponential_seconds",
        wrap_pyfunction!(exponential_seconds, m)?,
    )?;
    Ok(())
}
