//! `disguise.frequent_itemsets`: the frequent-itemsets task ([`disguise::task::Itemsets`]).

use crate::errors::{library_error, value_error};
use crate::ledger::{Charge, reserve, within};
use crate::runtime::{Run, generator, interruptible, json, named_among};
use disguise::apps::Transactions;
use disguise::names::Named;
use disguise::privacy::Guarantee;
use disguise::task::Itemsets;
use pyo3::prelude::*;

/// Private frequent itemsets of `size` items from transactions (lists of item names), over
/// the public `items` when given. The release, as JSON.
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
    let charge = Charge::of(&run)?;
    let request = Itemsets {
        top,
        mechanism: mechanism
            .map(|m| named_among(m, Itemsets::MECHANISMS))
            .transpose()?,
        ..Itemsets::new(size, epsilon, delta)
    };
    request.validate(items.is_some()).map_err(value_error)?;
    let mechanism = request.chosen_mechanism(items.is_some());
    let reserved = reserve(&charge, mechanism.name(), || request.plan(items.is_some()))
        .map_err(library_error)?;
    let data = Transactions::from_rows(&transactions, items.as_deref()).map_err(value_error)?;
    drop(transactions);
    let mut rng = generator(run.seed)?;
    let answer = interruptible(py, move || {
        let release = request.run(&data, &mut rng)?;
        within(
            reserved,
            Some(Guarantee {
                epsilon: release.epsilon,
                delta: release.delta,
                rule: release.selection_guarantee.rule,
            }),
        )?;
        request.report(&data, release)
    })?;
    json(&answer)
}
