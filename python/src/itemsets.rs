//! `disguise.frequent_itemsets`: the frequent-itemsets task ([`disguise::task::Itemsets`]).

use crate::errors::value_error;
use crate::ledger::{after_reservation, check, reserve_plan};
use crate::runtime::{Run, generator, interruptible, json, named_among};
use disguise::apps::Transactions;
use disguise::disclosure::shown;
use disguise::names::Named;
use disguise::task::Itemsets;
use pyo3::prelude::*;

/// Private frequent itemsets of `size` items from transactions (lists of item names), over
/// the public `items` when given. The report as JSON: the release, and with the diagnostics
/// the values computed on the transactions without noise under `not_private`.
#[pyfunction]
#[pyo3(signature = (transactions, items, size, epsilon, delta, top, mechanism, run))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python function
pub(crate) fn frequent_itemsets(
    py: Python<'_>,
    transactions: Vec<Vec<String>>,
    items: Option<Vec<String>>,
    size: usize,
    epsilon: f64,
    delta: f64,
    top: usize,
    mechanism: Option<&str>,
    run: Run,
) -> PyResult<String> {
    let charge = run.charge()?;
    let request = Itemsets {
        top,
        mechanism: mechanism
            .map(|m| named_among(m, Itemsets::MECHANISMS))
            .transpose()?,
        ..Itemsets::new(size, epsilon, delta)
    };
    request.validate(items.is_some()).map_err(value_error)?;
    // The public item list admits itemsets of this size that counting can key: checked
    // before the reservation, as everything that needs no transaction.
    if let Some(items) = &items {
        request.check_items(items).map_err(value_error)?;
    }
    let mechanism = request.chosen_mechanism(items.is_some());
    let reserved = reserve_plan(&charge, mechanism.name(), || request.plan(items.is_some()))?;
    // The transactions are read from here on: a failure says what stays charged.
    let released = (|| {
        run.deferred()?;
        let data = Transactions::from_rows(&transactions, items.as_deref()).map_err(value_error)?;
        drop(transactions);
        let mut rng = generator(run.seed)?;
        let held = reserved.clone();
        let report = interruptible(py, move || {
            let release = request.run(&data, &mut rng)?;
            check(&held, &release)?;
            request.report(&data, release)
        })?;
        json(&shown(&report, run.diagnostics))
    })();
    after_reservation(py, &reserved, run.diagnostics, released)
}
