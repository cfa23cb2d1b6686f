//! The privacy budget ledger from Python: `disguise.Ledger` and the charge of a call made
//! with `ledger=`: reserved before the data is read ([`reserve_plan`]), the run held to it
//! ([`check`]), and a failure after it said in one line that is the same for every data set
//! ([`after_reservation`]).

use crate::errors::{Priced, json, library_error, value_error};
use disguise::ledger::{Reserved, Spend, Spends};
use disguise::task::PrivacyReport;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;
use std::time::Duration;

/// A privacy budget ledger file (`disguise.Ledger` wraps it): shared by every call given it,
/// and by other processes through the file.
#[pyclass(frozen, module = "disguise._disguise", name = "Ledger")]
pub(crate) struct PyLedger {
    inner: Arc<disguise::ledger::Ledger>,
}

impl PyLedger {
    /// The ledger file, shared.
    pub(crate) fn file(&self) -> Arc<disguise::ledger::Ledger> {
        Arc::clone(&self.inner)
    }
}

#[pymethods]
impl PyLedger {
    /// Opens an existing ledger, waiting up to `timeout` seconds for other processes.
    #[new]
    #[pyo3(signature = (path, timeout))]
    fn new(path: std::path::PathBuf, timeout: f64) -> PyResult<Self> {
        let timeout = timeout_of(timeout)?;
        let inner = disguise::ledger::Ledger::open_with(&path, timeout).map_err(library_error)?;
        Ok(Self {
            inner: Arc::new(inner),
        })
    }

    /// Creates a new, empty ledger (refused if the file exists).
    #[staticmethod]
    #[pyo3(signature = (path, timeout))]
    fn create(path: std::path::PathBuf, timeout: f64) -> PyResult<Self> {
        let timeout = timeout_of(timeout)?;
        let inner = disguise::ledger::Ledger::create(&path)
            .and_then(|l| l.timeout(timeout))
            .map_err(library_error)?;
        Ok(Self {
            inner: Arc::new(inner),
        })
    }

    /// The file.
    #[getter]
    fn path(&self) -> std::path::PathBuf {
        self.inner.path().to_path_buf()
    }

    /// Sets the limit of a data set: (ε, δ, filter `basic` or `zcdp`, and for zCDP the ε and
    /// δ set aside for approximate releases). `new` confirms that `dataset` names a new data
    /// set, which is then taken even when one or two edits from an existing name (without
    /// it, such a name is refused as a typo).
    #[pyo3(signature = (dataset, limit, new=false))]
    fn set_limit(
        &self,
        py: Python<'_>,
        dataset: &str,
        limit: LimitTuple,
        new: bool,
    ) -> PyResult<()> {
        let limit = make_limit(limit)?;
        let name = if new {
            disguise::ledger::Name::new_dataset(dataset)
        } else {
            disguise::ledger::Name::from(dataset)
        };
        py.detach(|| self.inner.set_limit(name, limit))
            .map_err(library_error)
    }

    /// Sets (or removes, with `None`) the default limit of new data sets.
    #[pyo3(signature = (limit))]
    fn set_default_limit(&self, py: Python<'_>, limit: Option<LimitTuple>) -> PyResult<()> {
        let limit = limit.map(make_limit).transpose()?;
        py.detach(|| self.inner.set_default_limit(limit))
            .map_err(library_error)
    }

    /// The default limit of new data sets, as JSON (`null` without one).
    fn default_limit(&self, py: Python<'_>) -> PyResult<String> {
        let limit = py
            .detach(|| self.inner.default_limit())
            .map_err(library_error)?;
        json(&limit)
    }

    /// A data set's limit, spend and what is left, as JSON.
    fn status(&self, py: Python<'_>, dataset: &str) -> PyResult<String> {
        let status = py
            .detach(|| self.inner.status(dataset))
            .map_err(library_error)?;
        json(&status)
    }

    /// The recorded releases (of one data set, or all), as JSON.
    #[pyo3(signature = (dataset))]
    fn releases(&self, py: Python<'_>, dataset: Option<&str>) -> PyResult<String> {
        let releases = py
            .detach(|| self.inner.releases(dataset))
            .map_err(library_error)?;
        json(&releases)
    }

    /// The data sets with a limit or a release.
    fn datasets(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        py.detach(|| self.inner.datasets()).map_err(library_error)
    }

    /// What releases of `parts` (a spend and its number of releases each) would cost on
    /// `dataset` and whether they all fit now, as JSON ([`disguise::ledger::Price`]).
    fn price(
        &self,
        py: Python<'_>,
        dataset: &str,
        parts: Vec<(Py<PySpend>, u64)>,
    ) -> PyResult<String> {
        let parts = spends(parts)?;
        let price = py
            .detach(|| self.inner.price(dataset, &parts))
            .map_err(library_error)?;
        json(&price)
    }

    /// Reserves `parts` on `dataset` for the search `command` describes, all or nothing;
    /// returns the reservation as JSON ([`disguise::ledger::Hold`]).
    fn hold(
        &self,
        py: Python<'_>,
        dataset: &str,
        parts: Vec<(Py<PySpend>, u64)>,
        command: &str,
    ) -> PyResult<String> {
        let parts = spends(parts)?;
        let hold = py
            .detach(|| self.inner.hold(dataset, &parts, command))
            .map_err(library_error)?;
        json(&hold)
    }

    /// Closes the reservation `id`, giving back what no release drew; as JSON
    /// ([`disguise::ledger::Closed`]).
    fn close_hold(&self, py: Python<'_>, id: i64) -> PyResult<String> {
        let closed = py
            .detach(|| self.inner.close_hold(id))
            .map_err(library_error)?;
        json(&closed)
    }

    /// SQLite's `PRAGMA integrity_check` verdict (`ok` for an intact file).
    fn integrity_check(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| self.inner.integrity_check())
            .map_err(library_error)
    }
}

/// Spends as Python passes them (a spend and its number of releases), one per part.
fn spends(parts: Vec<(Py<PySpend>, u64)>) -> PyResult<Vec<Spend>> {
    parts
        .into_iter()
        .map(|(spend, runs)| {
            if runs == 0 {
                return Err(value_error(
                    "invalid parts: every part has at least 1 release",
                ));
            }
            Ok(spend.get().spend.clone().runs(runs))
        })
        .collect()
}

/// A limit as Python passes it: (ε, δ, filter, approximate ε, approximate δ).
pub(crate) type LimitTuple = (f64, f64, String, f64, f64);

/// A limit from Python's arguments (each checked by the library).
pub(crate) fn make_limit(
    (epsilon, delta, rule, approximate_epsilon, approximate_delta): LimitTuple,
) -> PyResult<disguise::ledger::Limit> {
    use disguise::names::Named;
    let filter = disguise::ledger::Filter::from_name(&rule).map_err(value_error)?;
    let limit = disguise::ledger::Limit::new(epsilon, delta)
        .and_then(|l| l.with_filter(filter))
        .map_err(value_error)?;
    if filter == disguise::ledger::Filter::Zcdp {
        limit
            .approximate(approximate_epsilon, approximate_delta)
            .map_err(value_error)
    } else if approximate_epsilon != 0.0 || approximate_delta != 0.0 {
        Err(value_error(
            "invalid approximate: only a rule=\"zcdp\" limit sets aside a part for \
             approximate releases",
        ))
    } else {
        Ok(limit)
    }
}

/// A timeout in seconds, checked.
pub(crate) fn timeout_of(seconds: f64) -> PyResult<Duration> {
    if seconds.is_finite() && (0.0..=1e6).contains(&seconds) {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(value_error(format!(
            "invalid timeout: {seconds} (seconds, 0 to 10^6)"
        )))
    }
}

/// Where a call's release is charged: a ledger, a data set and the call's description, and
/// whether the generator is the secure one (as the ledger records it); or, when the call is
/// only priced, where its spend is reported; and the reservation it draws from, if any.
pub(crate) struct Charge {
    pub(crate) ledger: Arc<disguise::ledger::Ledger>,
    pub(crate) dataset: String,
    pub(crate) command: String,
    pub(crate) secure: bool,
    /// Only priced: [`Charge::reserve_spend`] raises [`Priced`] with the spend.
    pub(crate) price: bool,
    /// The reservation the spend is drawn from ([`disguise::ledger::Ledger::draw`]).
    pub(crate) hold: Option<i64>,
}

impl Charge {
    /// Records what a request plans to spend (its plan from public parameters, at the unit
    /// the plan states: edges for `MaxCoverage(input="edges")`), before it reads the data; a
    /// run that then fails stays charged ([`after_reservation`]). The reservation holds the
    /// spend reserved (`None`: the plan spends nothing).
    pub(crate) fn reserve(&self, plan: &PrivacyReport, mechanism: &str) -> PyResult<Reservation> {
        match plan.spend().map_err(library_error)? {
            Some(spend) => self.reserve_spend(spend.mechanism(mechanism)),
            None => Ok(Reservation {
                reserved: Reserved { spend: None },
                charged: None,
            }),
        }
    }

    /// Records `spend` (with this call's description and generator) before the data is
    /// read — drawn from the call's reservation if it has one —: what a call that plans its
    /// spend itself reserves (one selector call). A priced call raises [`Priced`] instead.
    pub(crate) fn reserve_spend(&self, spend: Spend) -> PyResult<Reservation> {
        let spend = spend.command(self.command.clone()).secure(self.secure);
        if self.price {
            return Err(Priced::new_err(PySpend { spend }));
        }
        let receipt = match self.hold {
            Some(hold) => self.ledger.draw(hold, &self.dataset, &spend),
            None => self.ledger.reserve(&self.dataset, &spend),
        }
        .map_err(library_error)?;
        // As recorded: the guarantee of one run, rounded up as every guarantee shown is
        // (the command line's words).
        let charged = format!(
            "release {} of (ε = {}, δ = {}) stays charged to {} in {}",
            receipt.id,
            disguise::numeric::display::guarantee(spend.guarantee.epsilon),
            disguise::numeric::display::guarantee(spend.guarantee.delta),
            self.dataset,
            self.ledger.path().display()
        );
        Ok(Reservation {
            reserved: Reserved { spend: Some(spend) },
            charged: Some(charged),
        })
    }
}

/// What one release would spend, as a priced call reports it ([`Priced`]): given back to
/// [`PyLedger::price`] and [`PyLedger::hold`] to ask what a whole search costs and to
/// reserve it.
#[pyclass(frozen, module = "disguise._disguise", name = "Spend")]
#[derive(Clone)]
pub(crate) struct PySpend {
    spend: Spend,
}

#[pymethods]
impl PySpend {
    /// ε of one run.
    #[getter]
    fn epsilon(&self) -> f64 {
        self.spend.guarantee.epsilon
    }

    /// δ of one run.
    #[getter]
    fn delta(&self) -> f64 {
        self.spend.guarantee.delta
    }

    /// The mechanism, as the ledger records it.
    #[getter]
    fn mechanism(&self) -> &str {
        &self.spend.mechanism
    }

    /// The spend as JSON (guarantee, runs, calls, unit, …).
    fn json(&self) -> PyResult<String> {
        json(&self.spend)
    }

    /// Whether a reservation of this spend covers a release that spends `other`
    /// ([`disguise::ledger::within_reservation`]).
    fn covers(&self, other: &PySpend) -> bool {
        disguise::ledger::within_reservation(&self.spend, &other.spend)
    }

    /// Whether the two spend the same (their command and generator aside).
    fn same(&self, other: &PySpend) -> bool {
        let bare = |s: &Spend| s.clone().command(String::new()).secure(true);
        bare(&self.spend) == bare(&other.spend)
    }

    fn __repr__(&self) -> String {
        format!(
            "Spend(epsilon={}, delta={}, mechanism={:?})",
            self.spend.guarantee.epsilon, self.spend.guarantee.delta, self.spend.mechanism
        )
    }
}

/// What was reserved for a call made with a ledger: the plan's spend, which the run is then
/// held to ([`check`]), and what stays charged if the run fails ([`after_reservation`]).
#[derive(Clone)]
pub(crate) struct Reservation {
    reserved: Reserved,
    /// `release N of (ε = …, δ = …) stays charged to DATASET in FILE`, once recorded.
    charged: Option<String>,
}

/// Reserves what the request plans to spend (`plan`) with `charge`, if any, before the data
/// is read; returns the reservation (`None` without a ledger), which the run is then held to
/// ([`check`]).
pub(crate) fn reserve_plan(
    charge: &Option<Charge>,
    mechanism: &str,
    plan: impl FnOnce() -> disguise::Result<PrivacyReport>,
) -> PyResult<Option<Reservation>> {
    let Some(charge) = charge else {
        return Ok(None);
    };
    let plan = plan().map_err(library_error)?;
    charge.reserve(&plan, mechanism).map(Some)
}

/// Checks that a run is charged no more than was reserved for it
/// ([`disguise::ledger::Reserved::check`]; beyond it would be a bug, and nothing is
/// returned). `actual` is the run's report.
pub(crate) fn check(
    reserved: &Option<Reservation>,
    actual: &(impl Spends + ?Sized),
) -> disguise::Result<()> {
    match reserved {
        Some(reservation) => reservation.reserved.check(actual),
        None => Ok(()),
    }
}

/// The result of everything a release does after its reservation (reading the data, the
/// run, its report). Without a reservation, or when it succeeded, `result` as it is. A
/// `ValueError` after a reservation becomes one line that is the same for every data set
/// and says what stays charged (the command line's words): its reason may depend on the
/// private data, so it is appended only with `diagnostics` (NOT private). Raised as `from
/// None`: the original error is not chained. Other exceptions (Ctrl-C's `KeyboardInterrupt`,
/// an internal error's `RuntimeError`) pass as they are.
pub(crate) fn after_reservation<T>(
    py: Python<'_>,
    reserved: &Option<Reservation>,
    diagnostics: bool,
    result: PyResult<T>,
) -> PyResult<T> {
    let Some(charged) = reserved.as_ref().and_then(|r| r.charged.as_deref()) else {
        return result;
    };
    result.map_err(|e| {
        if !e.is_instance_of::<PyValueError>(py) {
            return e;
        }
        let line = if diagnostics {
            format!(
                "the release failed after its budget was reserved; {charged}; the reason (NOT \
                 private, shown because of diagnostics=True): {}",
                e.value(py)
            )
        } else {
            format!(
                "the release failed after its budget was reserved; {charged}; the reason \
                 depends on the private data and is shown only with diagnostics=True"
            )
        };
        let failed = PyValueError::new_err(line);
        // `from None`: no cause, and the context suppressed.
        failed.set_cause(py, None);
        failed
    })
}
