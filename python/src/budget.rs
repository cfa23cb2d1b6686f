//! `disguise.budget`: the per-round budget under every rule and the chosen split
//! ([`disguise::privacy::budget`]).

use crate::errors::value_error;
use crate::runtime::{json, named};
use disguise::privacy::budget::{BudgetQuery, CallKind, plan};
use disguise::task::CompositionChoice;
use pyo3::prelude::*;

/// Per-round ε₀ and δ₀ of a total budget over `rounds` calls, under `rule` (or the best).
#[pyfunction]
#[pyo3(signature = (epsilon, delta, rounds, rule, kind, decomposable))]
pub(crate) fn budget(
    epsilon: f64,
    delta: f64,
    rounds: u64,
    rule: &str,
    kind: &str,
    decomposable: bool,
) -> PyResult<String> {
    if rounds == 0 {
        return Err(value_error("invalid rounds: must be at least 1"));
    }
    let query = BudgetQuery::new(epsilon, delta, rounds)
        .map_err(value_error)?
        .with_kind(named::<CallKind>(kind)?)
        .with_decomposable(decomposable);
    let plan = plan(&query).map_err(value_error)?;
    let rule = named::<CompositionChoice>(rule)?.rule();
    json(&plan.choose(rule).map_err(value_error)?)
}
