//! One selection by a named selector (`disguise.exponential`, `disguise.large_margin`).

use crate::errors::{library_error, value_error};
use crate::ledger::Charge;
use crate::runtime::{Run, generator, guarded};
use disguise::ledger::Spend;
use disguise::privacy::Guarantee;
use disguise::privacy::compose::Rule;
use disguise::privacy::{Delta, Epsilon, Sensitivity};
use disguise::select::SelectorKind;
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;

/// One selection by `kind` among `scores`, with the generator of `seed`, charged to `charge`
/// if given.
#[allow(clippy::too_many_arguments)] // the parameters of the Python functions, passed on
pub(crate) fn select_one(
    py: Python<'_>,
    kind: SelectorKind,
    scores: &[f64],
    epsilon: f64,
    delta: f64,
    sensitivity: f64,
    seed: Option<u64>,
    charge: Option<Charge>,
) -> PyResult<usize> {
    // Spent at most as typed (`numeric::decimal`).
    let selector = kind
        .build(
            Epsilon::total(epsilon).map_err(value_error)?,
            Delta::total(delta).map_err(value_error)?,
        )
        .map_err(value_error)?;
    let lambda = Sensitivity::new(sensitivity).map_err(value_error)?;
    if scores.is_empty() {
        return Err(value_error("invalid scores: there are none to choose from"));
    }
    let mut rng = generator(seed)?;
    let cost = selector.cost();
    // Charged before the scores are looked at: one call of the selector.
    if let (Some(charge), Some((epsilon, delta))) = (&charge, cost.epsilon_delta()) {
        let mut spend = Spend::new(Guarantee {
            epsilon: disguise::numeric::decimal::tidy_up(epsilon),
            delta: disguise::numeric::decimal::tidy_up(delta),
            rule: Rule::Single,
        })
        .mechanism(selector.name())
        .secure(charge.secure)
        .command(charge.command.clone());
        spend.calls = vec![(cost, 1)];
        charge
            .ledger
            .reserve(&charge.dataset, &spend)
            .map_err(library_error)?;
    }
    let pick = guarded(py, || selector.select(scores, lambda, &mut rng))?;
    Ok(pick.index)
}

/// The exponential mechanism (standard or monotone) on a 1-D float64 array.
#[pyfunction]
#[pyo3(signature = (scores, epsilon, sensitivity, monotone, run))]
pub(crate) fn exponential(
    py: Python<'_>,
    scores: PyReadonlyArray1<'_, f64>,
    epsilon: f64,
    sensitivity: f64,
    monotone: bool,
    run: Run,
) -> PyResult<usize> {
    let charge = Charge::of(&run)?;
    let kind = if monotone {
        SelectorKind::ExponentialMonotone
    } else {
        SelectorKind::Exponential
    };
    let scores = scores.as_slice().map_err(value_error)?;
    select_one(
        py,
        kind,
        scores,
        epsilon,
        0.0,
        sensitivity,
        run.seed,
        charge,
    )
}

/// The large margin mechanism (`mitrovic` or `chaudhuri`) on a 1-D float64 array.
#[pyfunction]
#[pyo3(signature = (scores, epsilon, delta, sensitivity, variant, run))]
pub(crate) fn large_margin(
    py: Python<'_>,
    scores: PyReadonlyArray1<'_, f64>,
    epsilon: f64,
    delta: f64,
    sensitivity: f64,
    variant: &str,
    run: Run,
) -> PyResult<usize> {
    let charge = Charge::of(&run)?;
    let kind = match variant {
        "mitrovic" => SelectorKind::LargeMargin,
        "chaudhuri" => SelectorKind::LargeMarginChaudhuri,
        other => {
            return Err(value_error(format!(
                "invalid variant: {other:?} (one of 'mitrovic', 'chaudhuri')"
            )));
        }
    };
    let scores = scores.as_slice().map_err(value_error)?;
    select_one(
        py,
        kind,
        scores,
        epsilon,
        delta,
        sensitivity,
        run.seed,
        charge,
    )
}
