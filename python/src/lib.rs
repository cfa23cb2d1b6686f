//! `disguise._disguise`: the Python package's native module, a thin shell over the library's
//! front door (`disguise::task`). Each function takes plain values and numpy arrays that the
//! Python layer (`disguise/*.py`) has already shaped — how the release runs (its seed
//! and ledger) as one `runtime::Run`, a greedy task's privacy options as one
//! `selection::Greedy` — calls the same request type the command line calls, and returns the
//! report as JSON text (a selection's as a `selection::Selection`, which also carries its
//! picks and gains ready for numpy), so the report's fields are defined once, by the
//! library's `Serialize`.
//!
//! Errors of the library become `ValueError` with its message (a refused release
//! `BudgetExceeded` and an unusable ledger `LedgerError`, both subclasses), except after a
//! ledger's reservation, where the message is one line that says what stays charged, its
//! reason only with the diagnostics (`ledger::after_reservation`); a report is serialised
//! through `disguise::disclosure::shown`, its diagnostics under `not_private` only when the
//! run asked for them; long runs release the GIL.
//!
//! One module per task, as `disguise::task` has them (select, coverage, features, histogram,
//! itemsets, budget, selectors), over what they share: errors, runtime (the run of a call,
//! threads, Ctrl-C, JSON), ledger and selection (a greedy task's privacy options and run, its
//! report as Python reads it).

#[cfg(feature = "bench")]
mod bench;
mod budget;
mod coverage;
mod errors;
mod features;
mod histogram;
mod itemsets;
mod ledger;
mod runtime;
mod select;
mod selection;
mod selectors;
mod synth;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _disguise(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(selectors::select_one, m)?)?;
    m.add_function(wrap_pyfunction!(budget::budget, m)?)?;
    m.add_function(wrap_pyfunction!(select::facility_location, m)?)?;
    m.add_function(wrap_pyfunction!(coverage::max_coverage, m)?)?;
    m.add_function(wrap_pyfunction!(features::features, m)?)?;
    m.add_function(wrap_pyfunction!(features::bin_codes, m)?)?;
    m.add_function(wrap_pyfunction!(histogram::histogram_schema, m)?)?;
    m.add_function(wrap_pyfunction!(histogram::draft_schema, m)?)?;
    m.add_function(wrap_pyfunction!(histogram::histogram_fit, m)?)?;
    m.add_function(wrap_pyfunction!(histogram::histogram_from_state, m)?)?;
    m.add_class::<histogram::HistogramRelease>()?;
    m.add_function(wrap_pyfunction!(synth::synth_fit, m)?)?;
    m.add_function(wrap_pyfunction!(synth::synth_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(synth::synth_load, m)?)?;
    m.add_class::<synth::SynthModel>()?;
    m.add_function(wrap_pyfunction!(selection::selection_from_state, m)?)?;
    m.add_class::<selection::Selection>()?;
    m.add_class::<ledger::PyLedger>()?;
    m.add_class::<ledger::PySpend>()?;
    m.add("Priced", m.py().get_type::<errors::Priced>())?;
    m.add(
        "BudgetExceeded",
        m.py().get_type::<errors::BudgetExceeded>(),
    )?;
    m.add("LedgerError", m.py().get_type::<errors::LedgerError>())?;
    m.add("MAX_NUMERIC_LEVELS", disguise::task::MAX_NUMERIC_LEVELS)?;
    m.add_function(wrap_pyfunction!(itemsets::frequent_itemsets, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    #[cfg(feature = "bench")]
    bench::register(m)?;
    Ok(())
}
