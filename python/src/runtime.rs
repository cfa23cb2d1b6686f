//! How a call runs: [`Run`] (its seed and ledger, as every task takes them), the generator
//! (OS-seeded, or seeded and insecure), a worker thread with the GIL released while Ctrl-C is
//! polled, panics as `RuntimeError`, JSON, names.

use crate::errors::{internal_error, library_error, value_error};
use crate::ledger::{Charge, PyLedger};
use disguise::names::Named;
use disguise::noise::SecureRng;
use pyo3::prelude::*;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// How a release runs, the one argument every task's function takes for it: a dict that the
/// Python layer builds in one place (`disguise._common._run`; `Run` in `_disguise.pyi`). `seed` picks
/// the generator ([`generator`]); with `ledger`, the release is charged to it under `dataset`,
/// `command` describing the call in its audit log ([`Run::charge`]).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct Run {
    pub(crate) seed: Option<u64>,
    pub(crate) ledger: Option<Py<PyLedger>>,
    pub(crate) dataset: Option<String>,
    pub(crate) command: Option<String>,
    /// Whether the release's diagnostics (values computed on the data without noise) are
    /// shown beside it (`not_private`), and its non-private modes allowed.
    pub(crate) diagnostics: bool,
    /// What the Python layer found wrong in the private data while shaping it for the call
    /// (`disguise._common._read_private`), when the call is charged to a ledger: deferred to after
    /// the reservation ([`Run::deferred`]), as the command line reads its data after it.
    pub(crate) failed: Option<String>,
    /// Only priced (`Ledger.cost`): the call stops at its reservation with what it would
    /// spend (`Priced`), before it reads the data, and records nothing.
    pub(crate) price: bool,
    /// The reservation (`Ledger.reserve`) the call draws its spend from, if any.
    pub(crate) hold: Option<i64>,
}

impl Run {
    /// The charge of a call run as this says: none without a ledger, refused without a valid
    /// data set name (the Python layer names the data set).
    pub(crate) fn charge(&self) -> PyResult<Option<Charge>> {
        let Some(ledger) = &self.ledger else {
            return Ok(None);
        };
        let Some(dataset) = &self.dataset else {
            return Err(value_error(
                "invalid dataset: a charged call names its data set",
            ));
        };
        disguise::ledger::check_name(dataset).map_err(value_error)?;
        Ok(Some(Charge {
            ledger: ledger.get().file(),
            dataset: dataset.clone(),
            command: self.command.clone().unwrap_or_default(),
            secure: self.seed.is_none(),
            price: self.price,
            hold: self.hold,
        }))
    }

    /// Fails with the error the Python layer deferred, if any: called first thing after the
    /// reservation, so that a malformed data set is charged and refused like one the library
    /// finds malformed (the caller passes the result through
    /// [`after_reservation`](crate::ledger::after_reservation)).
    pub(crate) fn deferred(&self) -> PyResult<()> {
        match &self.failed {
            Some(reason) => Err(value_error(reason)),
            None => Ok(()),
        }
    }
}

/// The OS-seeded secure generator, or the insecure seeded one (the Python layer warns).
pub(crate) fn generator(seed: Option<u64>) -> PyResult<SecureRng> {
    match seed {
        Some(s) => Ok(SecureRng::insecure_from_seed(s)),
        None => SecureRng::from_os().map_err(value_error),
    }
}

/// How often a waiting call looks for Ctrl-C.
pub(crate) const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` on its own thread, the GIL released, while this thread answers Python's
/// signals: Ctrl-C raises `KeyboardInterrupt` at once (the abandoned run finishes in the
/// background and its result is dropped). A library error is a `ValueError`; a panic — a bug,
/// never the user's input — is a `RuntimeError` saying so, never an abort.
pub(crate) fn interruptible<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> disguise::Result<T> + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("disguise".into())
        .spawn(move || {
            // The receiver may be gone (Ctrl-C): nobody waits for the result then.
            let _ = tx.send(panic::catch_unwind(AssertUnwindSafe(work)));
        })
        .map_err(value_error)?;
    let mut rx = rx;
    loop {
        // The receiver moves in and out: it may be sent to another thread, not shared.
        let (received, back) = py.detach(move || (rx.recv_timeout(SIGNAL_POLL), rx));
        rx = back;
        match received {
            Ok(Ok(result)) => return result.map_err(library_error),
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => return Err(internal_error()),
            Err(RecvTimeoutError::Timeout) => py.check_signals()?,
        }
    }
}

/// Below this many units of work (e.g. record × candidate × round evaluations) a run takes
/// milliseconds: it runs on the calling thread ([`guarded`]), where a thread's start-up and
/// hand-over would cost more than the run, and Ctrl-C waits for its end.
pub(crate) const INLINE_WORK: u128 = 50_000_000;

/// [`interruptible`] for `work` units of work or more, else [`guarded`].
pub(crate) fn run_sized<T, F>(py: Python<'_>, work: u128, run: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> disguise::Result<T> + Send + 'static,
{
    if work < INLINE_WORK {
        guarded(py, run)
    } else {
        interruptible(py, run)
    }
}

/// `work` with the GIL released and panics caught, for calls too short to need a thread.
pub(crate) fn guarded<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> disguise::Result<T> + Send,
{
    match py.detach(|| panic::catch_unwind(AssertUnwindSafe(work))) {
        Ok(result) => result.map_err(library_error),
        Err(_) => Err(internal_error()),
    }
}

pub(crate) use crate::errors::json;

/// A name from the library's one registry.
pub(crate) fn named<T: Named>(name: &str) -> PyResult<T> {
    T::from_name(name).map_err(value_error)
}

/// A name from the library's registry, among the `values` a task accepts.
pub(crate) fn named_among<T: Named>(name: &str, values: &[T]) -> PyResult<T> {
    T::from_name_among(name, values).map_err(value_error)
}
