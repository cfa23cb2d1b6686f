//! One selection by a named selector (`disguise.exponential`, `disguise.large_margin`).

use crate::errors::value_error;
use crate::ledger::after_reservation;
use crate::runtime::{Run, generator, guarded};
use disguise::ledger::Spend;
use disguise::privacy::Guarantee;
use disguise::privacy::compose::Rule;
use disguise::privacy::{Delta, Epsilon, Sensitivity};
use disguise::select::SelectorKind;
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;

/// One selection among `scores` (a 1-D float64 array), run and charged as `run` says, by the
/// exponential mechanism without a `variant` (`disguise.exponential`: standard, or
/// `monotone`), else by the large margin mechanism `variant`, `mitrovic` or `chaudhuri`
/// (`disguise.large_margin`; `monotone` unused).
#[pyfunction]
#[pyo3(signature = (scores, epsilon, delta, sensitivity, monotone, variant, run))]
#[allow(clippy::too_many_arguments)] // the parameters of the two Python functions
pub(crate) fn select_one(
    py: Python<'_>,
    scores: PyReadonlyArray1<'_, f64>,
    epsilon: f64,
    delta: f64,
    sensitivity: f64,
    monotone: bool,
    variant: Option<&str>,
    run: Run,
) -> PyResult<usize> {
    let charge = run.charge()?;
    let kind = match variant {
        None if monotone => SelectorKind::ExponentialMonotone,
        None => SelectorKind::Exponential,
        Some("mitrovic") => SelectorKind::LargeMargin,
        Some("chaudhuri") => SelectorKind::LargeMarginChaudhuri,
        Some(other) => {
            return Err(value_error(format!(
                "invalid variant: {other:?} (one of 'mitrovic', 'chaudhuri')"
            )));
        }
    };
    let scores = scores.as_slice().map_err(value_error)?;
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
    let mut rng = generator(run.seed)?;
    let cost = selector.cost();
    // Charged before the scores are looked at: one call of the selector.
    let reserved = match (&charge, cost.epsilon_delta()) {
        (Some(charge), Some((epsilon, delta))) => {
            let mut spend = Spend::new(Guarantee {
                epsilon: disguise::numeric::decimal::tidy_up(epsilon),
                delta: disguise::numeric::decimal::tidy_up(delta),
                rule: Rule::Single,
            })
            .mechanism(selector.name());
            spend.calls = vec![(cost, 1)];
            Some(charge.reserve_spend(spend)?)
        }
        _ => None,
    };
    // The scores are read from here on: a failure (a NaN score) says what stays charged.
    let pick = run
        .deferred()
        .and_then(|()| guarded(py, || selector.select(scores, lambda, &mut rng)));
    Ok(after_reservation(py, &reserved, run.diagnostics, pick)?.index)
}
