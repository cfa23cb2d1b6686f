//! Library errors as Python raises them: `ValueError`, and its subclasses `BudgetExceeded`
//! and `LedgerError`.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde::Serialize;

/// A library error as the `ValueError` Python users expect, with the library's message.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

pyo3::create_exception!(
    _disguise,
    BudgetExceeded,
    PyValueError,
    "A release refused by the budget ledger: the data set's limit would be exceeded. Nothing \
     was recorded and nothing released."
);
pyo3::create_exception!(
    _disguise,
    Priced,
    pyo3::exceptions::PyException,
    "Not an error: a fit run while its cost is asked for (`Ledger.cost`) stops at its \
     reservation and raises this with what it would spend (a `Spend`); nothing is recorded \
     and no data is read."
);
pyo3::create_exception!(
    _disguise,
    LedgerError,
    PyValueError,
    "A budget ledger that cannot be used: missing, not a ledger, corrupt, written by a newer \
     version, or locked by another process past the timeout. It was not modified."
);

/// A library error as Python raises it: [`BudgetExceeded`] and [`LedgerError`] for the
/// ledger's, `ValueError` for every other.
pub(crate) fn library_error(e: disguise::Error) -> PyErr {
    match e {
        disguise::Error::BudgetExceeded { message, .. } => BudgetExceeded::new_err(message),
        e @ disguise::Error::Ledger { .. } => {
            let mut text = e.to_string();
            if let Some(source) = std::error::Error::source(&e) {
                text.push_str(&format!(": {source}"));
            }
            LedgerError::new_err(text)
        }
        e @ disguise::Error::Internal(_) => PyRuntimeError::new_err(e.to_string()),
        other => value_error(other),
    }
}

/// A panic caught at the boundary: a bug in disguise.
pub(crate) fn internal_error() -> PyErr {
    PyRuntimeError::new_err(
        "internal error (a bug in disguise, not in your input): please report it with the call \
         that raised it",
    )
}

/// A report as JSON text.
pub(crate) fn json<T: Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(value_error)
}
