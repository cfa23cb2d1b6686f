//! `disguise._disguise`: the Python package's native module, a thin shell over the library's
//! front door (`disguise::task`). Each function takes plain values and numpy arrays that the
//! Python layer (`disguise/__init__.py`) has already shaped, calls the same request type the
//! command line calls, and returns the report as JSON text (a selection's as a [`Selection`],
//! which also carries its picks and gains ready for numpy), so the report's fields are defined
//! once, by the library's `Serialize`.
//!
//! Errors of the library become `ValueError` with its message (a refused release
//! `BudgetExceeded` and an unusable ledger `LedgerError`, both subclasses); long runs release
//! the GIL.

#[cfg(feature = "bench")]
mod bench;

use disguise::apps::{ItemsetMechanism, Transactions};
use disguise::data::Codes;
use disguise::histogram::{
    Discretized, Domain, DomainSource, ProjectedHistogram, Schema, SyntheticRows, Table,
    for_each_synthetic_cell,
};
use disguise::ledger::{Spend, Spends};
use disguise::names::Named;
use disguise::noise::SecureRng;
use disguise::objective::Metric;
use disguise::privacy::Guarantee;
use disguise::privacy::budget::{BudgetQuery, CallKind, plan};
use disguise::privacy::compose::Rule;
use disguise::privacy::{Delta, Epsilon, Sensitivity};
use disguise::select::SelectorKind;
use disguise::task::{
    Algorithm, Composition, FeatureObjective, FeatureTable, Features, Histogram, Itemsets,
    MaxCoverage, MechanismChoice, Privacy, PrivacyReport, Report, Reporting, Runnable, Select,
};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde::Serialize;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// What a selection's report gives Python at once — the picks, their gains, whether a
/// guarantee covers them and the likely-useless warning — with the whole report kept as it
/// is and written as JSON only when asked for (`report_`): writing and reading it back on
/// every fit cost about 1% of a 0.25 ms run.
#[pyclass(frozen, module = "disguise._disguise")]
struct Selection {
    selected: Vec<i64>,
    gains: Vec<f64>,
    private: bool,
    warning: Option<String>,
    report: Box<dyn Fn() -> serde_json::Result<String> + Send + Sync>,
    json: std::sync::OnceLock<String>,
}

#[pymethods]
impl Selection {
    /// The selected indices, in selection order.
    #[getter]
    fn selected<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_slice(py, &self.selected)
    }

    /// Each pick's marginal gain (the differences of the report's cumulative values).
    #[getter]
    fn gains<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.gains)
    }

    /// Whether the run has a privacy guarantee (false for the non-private argmax).
    #[getter]
    fn private(&self) -> bool {
        self.private
    }

    /// The "likely useless release" warning, when the a-priori bound is vacuous.
    #[getter]
    fn warning(&self) -> Option<&str> {
        self.warning.as_deref()
    }

    /// The library's report, as JSON text (written at the first call).
    #[getter]
    fn json(&self) -> PyResult<&str> {
        if let Some(json) = self.json.get() {
            return Ok(json);
        }
        let json = (self.report)().map_err(value_error)?;
        Ok(self.json.get_or_init(|| json))
    }
}

/// A task's report as a [`Selection`]: the picks, their gains and the warning are read
/// from it, and the whole report is kept to be written as JSON when asked for.
fn selection<P: Serialize + Send + Sync + 'static>(report: Report<P>) -> Selection {
    let values = &report.choice.values;
    let gains = std::iter::once(0.0)
        .chain(values.iter().copied())
        .zip(values)
        .map(|(before, after)| after - before)
        .collect();
    let warning = report.usefulness.as_ref().filter(|u| u.vacuous).map(|u| {
        let advice = u.advice.as_deref().unwrap_or("a larger epsilon would help");
        format!("likely useless release: {}; {advice}", u.bound)
    });
    Selection {
        selected: report.choice.selected.iter().map(|&i| i as i64).collect(),
        gains,
        private: report.privacy.guarantee.is_some(),
        warning,
        report: Box::new(move || serde_json::to_string(&report)),
        json: std::sync::OnceLock::new(),
    }
}

/// A library error as the `ValueError` Python users expect, with the library's message.
fn value_error(e: impl std::fmt::Display) -> PyErr {
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
    LedgerError,
    PyValueError,
    "A budget ledger that cannot be used: missing, not a ledger, corrupt, written by a newer \
     version, or locked by another process past the timeout. It was not modified."
);

/// A library error as Python raises it: [`BudgetExceeded`] and [`LedgerError`] for the
/// ledger's, `ValueError` for every other.
fn library_error(e: disguise::Error) -> PyErr {
    match e {
        disguise::Error::BudgetExceeded { message, .. } => BudgetExceeded::new_err(message),
        e @ disguise::Error::Ledger { .. } => {
            let mut text = e.to_string();
            if let Some(source) = std::error::Error::source(&e) {
                text.push_str(&format!(": {source}"));
            }
            LedgerError::new_err(text)
        }
        other => value_error(other),
    }
}

/// A privacy budget ledger file (`disguise.Ledger` wraps it): shared by every call given it,
/// and by other processes through the file.
#[pyclass(frozen, module = "disguise._disguise", name = "Ledger")]
struct PyLedger {
    inner: Arc<disguise::ledger::Ledger>,
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
    /// δ set aside for approximate releases).
    #[pyo3(signature = (dataset, limit))]
    fn set_limit(&self, py: Python<'_>, dataset: &str, limit: LimitTuple) -> PyResult<()> {
        let limit = make_limit(limit)?;
        py.detach(|| self.inner.set_limit(dataset, limit))
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

    /// SQLite's `PRAGMA integrity_check` verdict (`ok` for an intact file).
    fn integrity_check(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| self.inner.integrity_check())
            .map_err(library_error)
    }
}

/// A limit as Python passes it: (ε, δ, filter, approximate ε, approximate δ).
type LimitTuple = (f64, f64, String, f64, f64);

/// A limit from Python's arguments (each checked by the library).
fn make_limit(
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
fn timeout_of(seconds: f64) -> PyResult<Duration> {
    if seconds.is_finite() && (0.0..=1e6).contains(&seconds) {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(value_error(format!(
            "invalid timeout: {seconds} (seconds, 0 to 10^6)"
        )))
    }
}

/// Where a call's release is charged: a ledger, a data set and the call's description.
struct Charge {
    ledger: Arc<disguise::ledger::Ledger>,
    dataset: String,
    command: String,
}

impl Charge {
    /// The charge of a call given `ledger=` (the Python layer names the data set).
    fn of(
        ledger: Option<&Bound<'_, PyLedger>>,
        dataset: Option<String>,
        command: Option<String>,
    ) -> PyResult<Option<Self>> {
        let Some(ledger) = ledger else {
            return Ok(None);
        };
        let Some(dataset) = dataset else {
            return Err(value_error(
                "invalid dataset: a charged call names its data set",
            ));
        };
        disguise::ledger::check_name(&dataset).map_err(value_error)?;
        Ok(Some(Self {
            ledger: Arc::clone(&ledger.get().inner),
            dataset,
            command: command.unwrap_or_default(),
        }))
    }

    /// Records what a request plans to spend (its plan from public parameters), before it
    /// reads the data; a run that then fails stays charged.
    fn reserve(&self, plan: &PrivacyReport, mechanism: &str, secure: bool) -> disguise::Result<()> {
        if let Some(spend) = plan.spend()? {
            let spend = spend
                .command(self.command.clone())
                .mechanism(mechanism)
                .secure(secure);
            self.ledger.reserve(&self.dataset, &spend)?;
        }
        Ok(())
    }
}

/// Reserves what the request plans to spend (`plan`) with `charge`, if any, before the data
/// is read; returns the planned guarantee, which the run is then held to ([`within`]).
fn reserve(
    charge: &Option<Charge>,
    mechanism: &str,
    seed: Option<u64>,
    plan: impl FnOnce() -> disguise::Result<PrivacyReport>,
) -> disguise::Result<Option<Option<Guarantee>>> {
    let Some(charge) = charge else {
        return Ok(None);
    };
    let plan = plan()?;
    charge.reserve(&plan, mechanism, seed.is_none())?;
    Ok(Some(plan.guarantee))
}

/// Checks that a run's guarantee is within what was reserved for it (the library plans each
/// run by the same accounting; beyond it would be a bug, and nothing is returned).
fn within(reserved: Option<Option<Guarantee>>, actual: Option<Guarantee>) -> disguise::Result<()> {
    use disguise::numeric::decimal::shortest;
    let Some(planned) = reserved else {
        return Ok(());
    };
    let fits = match (planned, actual) {
        (Some(p), Some(a)) => {
            shortest(a.epsilon) <= shortest(p.epsilon) && shortest(a.delta) <= shortest(p.delta)
        }
        (_, None) => true,
        (None, Some(_)) => false,
    };
    if fits {
        Ok(())
    } else {
        Err(disguise::Error::param(
            "ledger",
            format!(
                "internal error: the run's guarantee {actual:?} exceeds what was reserved \
                 ({planned:?}); nothing was returned (please report this)"
            ),
        ))
    }
}

/// The OS-seeded secure generator, or the insecure seeded one (the Python layer warns).
fn generator(seed: Option<u64>) -> PyResult<SecureRng> {
    match seed {
        Some(s) => Ok(SecureRng::insecure_from_seed(s)),
        None => SecureRng::from_os().map_err(value_error),
    }
}

/// How often a waiting call looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` on its own thread, the GIL released, while this thread answers Python's
/// signals: Ctrl-C raises `KeyboardInterrupt` at once (the abandoned run finishes in the
/// background and its result is dropped). A library error is a `ValueError`; a panic — a bug,
/// never the user's input — is a `RuntimeError` saying so, never an abort.
fn interruptible<T, F>(py: Python<'_>, work: F) -> PyResult<T>
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
const INLINE_WORK: u128 = 50_000_000;

/// [`interruptible`] for `work` units of work or more, else [`guarded`].
fn run_sized<T, F>(py: Python<'_>, work: u128, run: F) -> PyResult<T>
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

/// A panic caught at the boundary: a bug in disguise.
fn internal_error() -> PyErr {
    PyRuntimeError::new_err(
        "internal error (a bug in disguise, not in your input): please report it with the call \
         that raised it",
    )
}

/// `work` with the GIL released and panics caught, for calls too short to need a thread.
fn guarded<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> disguise::Result<T> + Send,
{
    match py.detach(|| panic::catch_unwind(AssertUnwindSafe(work))) {
        Ok(result) => result.map_err(library_error),
        Err(_) => Err(internal_error()),
    }
}

/// A report as JSON text.
fn json<T: Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(value_error)
}

/// A name from the library's one registry.
fn named<T: Named>(name: &str) -> PyResult<T> {
    T::from_name(name).map_err(value_error)
}

/// One selection by `kind` among `scores`, charged to `charge` if given.
#[allow(clippy::too_many_arguments)] // the parameters of the Python functions, passed on
fn select_one(
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
        .secure(rng.is_secure())
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
#[pyo3(signature = (
    scores, epsilon, sensitivity, monotone, seed, ledger=None, dataset=None, command=None
))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python function
fn exponential(
    py: Python<'_>,
    scores: PyReadonlyArray1<'_, f64>,
    epsilon: f64,
    sensitivity: f64,
    monotone: bool,
    seed: Option<u64>,
    ledger: Option<&Bound<'_, PyLedger>>,
    dataset: Option<String>,
    command: Option<String>,
) -> PyResult<usize> {
    let charge = Charge::of(ledger, dataset, command)?;
    let kind = if monotone {
        SelectorKind::ExponentialMonotone
    } else {
        SelectorKind::Exponential
    };
    let scores = scores.as_slice().map_err(value_error)?;
    select_one(py, kind, scores, epsilon, 0.0, sensitivity, seed, charge)
}

/// The large margin mechanism (`mitrovic` or `chaudhuri`) on a 1-D float64 array.
#[pyfunction]
#[pyo3(signature = (
    scores, epsilon, delta, sensitivity, variant, seed, ledger=None, dataset=None, command=None
))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python function
fn large_margin(
    py: Python<'_>,
    scores: PyReadonlyArray1<'_, f64>,
    epsilon: f64,
    delta: f64,
    sensitivity: f64,
    variant: &str,
    seed: Option<u64>,
    ledger: Option<&Bound<'_, PyLedger>>,
    dataset: Option<String>,
    command: Option<String>,
) -> PyResult<usize> {
    let charge = Charge::of(ledger, dataset, command)?;
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
    select_one(py, kind, scores, epsilon, delta, sensitivity, seed, charge)
}

/// The budget plan of `disguise budget --format json`, plus the chosen rule's split and its
/// guarantee at the top level (the library's BudgetSplit).
#[derive(Serialize)]
struct BudgetAnswer {
    #[serde(flatten)]
    plan: disguise::privacy::budget::BudgetPlan,
    #[serde(flatten)]
    split: disguise::privacy::budget::BudgetSplit,
}

/// Per-round ε₀ and δ₀ of a total budget over `rounds` calls, under `rule` (or the best).
#[pyfunction]
#[pyo3(signature = (epsilon, delta, rounds, rule, kind, decomposable))]
fn budget(
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
    let split = plan
        .split(named::<Composition>(rule)?.rule())
        .map_err(value_error)?;
    json(&BudgetAnswer { plan, split })
}

/// The privacy options of a greedy task from their names; the non-private argmax is refused
/// before anything runs when the call is `charged` to a ledger, which cannot account for it.
fn privacy(
    epsilon: Option<f64>,
    delta: f64,
    mechanism: &str,
    rule: &str,
    charged: bool,
) -> PyResult<Privacy> {
    let mechanism = named::<MechanismChoice>(mechanism)?;
    if charged && mechanism.mechanism().is_none() {
        return Err(value_error(
            "invalid mechanism: max is not private: a budget ledger cannot account for it \
             (choose a private mechanism, or run without the ledger)",
        ));
    }
    Ok(Privacy {
        epsilon,
        delta,
        mechanism,
        composition: named::<Composition>(rule)?,
    })
}

/// Private facility location on (n, d) records and (m, d) candidates (C-contiguous float64):
/// the report of `Select`, as a [`Selection`].
#[pyfunction]
#[pyo3(signature = (
    points, candidates, k, epsilon, delta, metric, mechanism, rule, algorithm, normalizer, cost,
    seed, ledger=None, dataset=None, command=None
))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python constructor
fn facility_location(
    py: Python<'_>,
    points: PyReadonlyArray2<'_, f64>,
    candidates: PyReadonlyArray2<'_, f64>,
    k: usize,
    epsilon: Option<f64>,
    delta: f64,
    metric: &str,
    mechanism: &str,
    rule: &str,
    algorithm: &str,
    normalizer: Option<f64>,
    cost: f64,
    seed: Option<u64>,
    ledger: Option<&Bound<'_, PyLedger>>,
    dataset: Option<String>,
    command: Option<String>,
) -> PyResult<Selection> {
    let charge = Charge::of(ledger, dataset, command)?;
    let dims = points.shape()[1];
    if candidates.shape()[1] != dims {
        return Err(value_error(format!(
            "invalid candidates: {} columns, the records have {dims}",
            candidates.shape()[1]
        )));
    }
    let request = Select {
        metric: named::<Metric>(metric)?,
        normalizer,
        algorithm: named::<Algorithm>(algorithm)?,
        cost,
        privacy: privacy(epsilon, delta, mechanism, rule, charge.is_some())?,
        ..Select::new(k)
    };
    request.validate().map_err(value_error)?;
    let reserved = reserve(&charge, mechanism, seed, || {
        request.plan(candidates.shape()[0])
    })
    .map_err(library_error)?;
    let objective = request
        .objective_vectors(
            dims,
            points.as_slice().map_err(value_error)?,
            candidates.as_slice().map_err(value_error)?,
        )
        .map_err(value_error)?;
    let mut rng = generator(seed)?;
    let work = points.shape()[0] as u128 * candidates.shape()[0] as u128 * k as u128;
    let report = run_sized(py, work, move || {
        let prepared = request.prepare(&objective)?;
        let solution = prepared.run_once(&mut rng)?;
        let report = prepared.report(&solution);
        within(reserved, report.privacy.guarantee)?;
        Ok(report)
    })?;
    Ok(selection(report))
}

/// Private maximum coverage: `covers[i]` lists the candidates (in `0..candidates`) that
/// cover person i. The report of `MaxCoverage`, as a [`Selection`].
#[pyfunction]
#[pyo3(signature = (
    covers, candidates, k, epsilon, delta, mechanism, rule, algorithm, seed, ledger=None,
    dataset=None, command=None
))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python constructor
fn max_coverage(
    py: Python<'_>,
    covers: Vec<Vec<usize>>,
    candidates: usize,
    k: usize,
    epsilon: Option<f64>,
    delta: f64,
    mechanism: &str,
    rule: &str,
    algorithm: &str,
    seed: Option<u64>,
    ledger: Option<&Bound<'_, PyLedger>>,
    dataset: Option<String>,
    command: Option<String>,
) -> PyResult<Selection> {
    let charge = Charge::of(ledger, dataset, command)?;
    let request = MaxCoverage {
        algorithm: named::<Algorithm>(algorithm)?,
        privacy: privacy(epsilon, delta, mechanism, rule, charge.is_some())?,
        ..MaxCoverage::new(k)
    };
    let reserved =
        reserve(&charge, mechanism, seed, || request.plan(candidates)).map_err(library_error)?;
    let work = covers.iter().map(|c| c.len() as u128 + 1).sum::<u128>() * k as u128;
    let mut rng = generator(seed)?;
    // The front door itself: validation, the objective, one run and its report.
    let report = run_sized(py, work, move || {
        let report = request.run(candidates, &covers, &mut rng)?;
        within(reserved, report.privacy.guarantee)?;
        Ok(report)
    })?;
    Ok(selection(report))
}

/// Private feature selection on a coded table: `codes` is (features, records) — one row of
/// category codes per feature — and `labels` the label's codes. The report of `Features`,
/// as a [`Selection`].
#[pyfunction]
#[pyo3(signature = (
    codes, arities, labels, label_levels, names, k, epsilon, delta, mechanism, rule, algorithm,
    objective, seed, ledger=None, dataset=None, command=None
))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python estimator
fn features(
    py: Python<'_>,
    codes: PyReadonlyArray2<'_, u32>,
    arities: Vec<u32>,
    labels: PyReadonlyArray1<'_, u32>,
    label_levels: u32,
    names: Vec<String>,
    k: usize,
    epsilon: Option<f64>,
    delta: f64,
    mechanism: &str,
    rule: &str,
    algorithm: &str,
    objective: &str,
    seed: Option<u64>,
    ledger: Option<&Bound<'_, PyLedger>>,
    dataset: Option<String>,
    command: Option<String>,
) -> PyResult<Selection> {
    let charge = Charge::of(ledger, dataset, command)?;
    let request = Features {
        objective: named::<FeatureObjective>(objective)?,
        algorithm: named::<Algorithm>(algorithm)?,
        privacy: privacy(epsilon, delta, mechanism, rule, charge.is_some())?,
        ..Features::new(k)
    };
    request.validate().map_err(value_error)?;
    let reserved =
        reserve(&charge, mechanism, seed, || request.plan(names.len())).map_err(library_error)?;
    let n = labels.len();
    let flat = codes.as_slice().map_err(value_error)?;
    if codes.shape()[1] != n || names.len() != codes.shape()[0] || arities.len() != names.len() {
        return Err(value_error(format!(
            "invalid table: {} feature rows of {} codes for {n} labels, {} names, {} arities",
            codes.shape()[0],
            codes.shape()[1],
            names.len(),
            arities.len()
        )));
    }
    let columns: Vec<Codes> = flat
        .chunks(n.max(1))
        .take(names.len())
        .map(|c| Codes::from(c.to_vec()))
        .collect();
    let names_len = names.len();
    let table = FeatureTable {
        names,
        columns,
        arities,
        labels: Codes::from(labels.as_slice().map_err(value_error)?.to_vec()),
        label_levels,
    };
    let mut rng = generator(seed)?;
    let work = n as u128 * names_len as u128 * k as u128;
    let report = run_sized(py, work, move || {
        let report = request.run(table, &mut rng)?;
        within(reserved, report.privacy.guarantee)?;
        Ok(report)
    })?;
    Ok(selection(report))
}

/// A schema given as a TOML file (`kind` = "path"), TOML text ("toml") or the JSON of a dict
/// with the same keys ("json"), validated, as JSON (what the Python layer reads and passes
/// back to [`histogram_fit`]).
#[pyfunction]
#[pyo3(signature = (source, kind))]
fn histogram_schema(source: &str, kind: &str) -> PyResult<String> {
    let schema = match kind {
        "path" => Schema::from_path(std::path::Path::new(source)),
        "toml" => Schema::from_toml_str(source, "schema"),
        "json" => serde_json::from_str::<Schema>(source)
            .map_err(|e| disguise::Error::param("schema", e.to_string()))
            .and_then(|s| s.validate().map(|()| s)),
        other => return Err(value_error(format!("invalid schema kind {other:?}"))),
    }
    .map_err(value_error)?;
    json(&schema)
}

/// A projected-histogram release held by Python: its report, and synthetic tables of any size
/// drawn from it (post-processing: no privacy cost).
#[pyclass(frozen, module = "disguise._disguise")]
struct HistogramRelease {
    release: ProjectedHistogram,
}

#[pymethods]
impl HistogramRelease {
    /// The release's report (k, γ, the chosen attributes, the budget split, the guarantee,
    /// the usefulness), as JSON.
    fn report(&self) -> PyResult<String> {
        json(&disguise::task::HistogramReport::of(&self.release))
    }

    /// The released columns (the chosen attributes and the target) and whether each is
    /// numeric.
    fn columns(&self) -> Vec<(String, bool)> {
        let numeric = self
            .release
            .domains()
            .iter()
            .map(|d| matches!(d, Domain::Numeric { .. }));
        self.release.columns.iter().cloned().zip(numeric).collect()
    }

    /// `n` synthetic records (default: the public n of the data), apportioned in proportion
    /// to the noisy counts, as one list of decoded values per column.
    #[pyo3(signature = (n=None))]
    fn sample(&self, n: Option<u64>) -> PyResult<Vec<Vec<String>>> {
        let n = n.unwrap_or(self.release.records as u64);
        let histogram = self.release.histogram().clone().apportioned(n);
        let domains = self.release.domains();
        let mut out: Vec<Vec<String>> = vec![Vec::new(); domains.len()];
        for_each_synthetic_cell(&histogram, self.release.encoding(), |codes, copies| {
            for ((column, domain), &code) in out.iter_mut().zip(domains).zip(codes) {
                let value = domain.decode(code);
                column.extend(std::iter::repeat_n(value, copies as usize));
            }
            Ok(())
        })
        .map_err(value_error)?;
        Ok(out)
    }
}

/// Vinterbo's projected-histogram release of `rows` (one list of field texts per record, in
/// the schema's column order) under `schema_json`: k predictors chosen by PRIVATEKD, the
/// thresholded Laplace histogram over them and the target.
#[pyfunction]
#[pyo3(signature = (
    schema_json, rows, target, epsilon, k, gamma, threshold_constant, seed, ledger=None,
    dataset=None, command=None, gamma_rule="paper"
))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python estimator
fn histogram_fit(
    py: Python<'_>,
    schema_json: &str,
    rows: Vec<Vec<String>>,
    target: Option<String>,
    epsilon: f64,
    k: Option<usize>,
    gamma: Option<f64>,
    threshold_constant: f64,
    seed: Option<u64>,
    ledger: Option<&Bound<'_, PyLedger>>,
    dataset: Option<String>,
    command: Option<String>,
    gamma_rule: &str,
) -> PyResult<HistogramRelease> {
    let charge = Charge::of(ledger, dataset, command)?;
    let request = Histogram {
        k,
        gamma,
        threshold_constant,
        gamma_rule: named::<disguise::histogram::GammaRule>(gamma_rule)?,
        // The raw noisy counts are kept: `sample(n)` apportions any n from them.
        rows: SyntheticRows::NoisyCounts,
        ..Histogram::new(epsilon)
    };
    request.validate().map_err(value_error)?;
    let reserved = reserve(
        &charge,
        "projected histogram (PRIVATEKD + thresholded Laplace)",
        seed,
        || request.plan(),
    )
    .map_err(library_error)?;
    let schema: Schema = serde_json::from_str(schema_json).map_err(value_error)?;
    let target = match (target.as_ref(), schema.target.as_ref()) {
        (Some(t), _) | (None, Some(t)) => t.clone(),
        (None, None) => {
            return Err(value_error(
                "invalid target: give target= or set `target` in the schema",
            ));
        }
    };
    let table =
        Table::from_rows(&schema, &rows, DomainSource::Schema, "data").map_err(value_error)?;
    drop(rows);
    let data = Discretized::new(&table).map_err(value_error)?;
    drop(table);
    let target = data.column_index(&target).map_err(value_error)?;
    let mut rng = generator(seed)?;
    let release = interruptible(py, move || {
        let release = request.run(&data, target, None, &mut rng)?;
        within(reserved, release.guarantee)?;
        Ok(release)
    })?;
    Ok(HistogramRelease { release })
}

/// Private frequent itemsets of `size` items from transactions (lists of item names), over
/// the public `items` when given. The release, as JSON.
#[pyfunction]
#[pyo3(signature = (
    transactions, items, size, epsilon, delta, top, mechanism, seed, ledger=None, dataset=None,
    command=None
))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one Python function
fn frequent_itemsets(
    py: Python<'_>,
    transactions: Vec<Vec<String>>,
    items: Option<Vec<String>>,
    size: usize,
    epsilon: f64,
    delta: f64,
    top: usize,
    mechanism: Option<&str>,
    seed: Option<u64>,
    ledger: Option<&Bound<'_, PyLedger>>,
    dataset: Option<String>,
    command: Option<String>,
) -> PyResult<String> {
    let charge = Charge::of(ledger, dataset, command)?;
    let request = Itemsets {
        top,
        mechanism: mechanism.map(named::<ItemsetMechanism>).transpose()?,
        ..Itemsets::new(size, epsilon, delta)
    };
    request.validate(items.is_some()).map_err(value_error)?;
    let mechanism = request.chosen_mechanism(items.is_some());
    let reserved = reserve(&charge, mechanism.name(), seed, || {
        request.plan(items.is_some())
    })
    .map_err(library_error)?;
    let data = Transactions::from_rows(&transactions, items.as_deref()).map_err(value_error)?;
    drop(transactions);
    let mut rng = generator(seed)?;
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

/// The native module.
#[pymodule]
fn _disguise(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(exponential, m)?)?;
    m.add_function(wrap_pyfunction!(large_margin, m)?)?;
    m.add_function(wrap_pyfunction!(budget, m)?)?;
    m.add_function(wrap_pyfunction!(facility_location, m)?)?;
    m.add_function(wrap_pyfunction!(max_coverage, m)?)?;
    m.add_function(wrap_pyfunction!(features, m)?)?;
    m.add_function(wrap_pyfunction!(histogram_schema, m)?)?;
    m.add_function(wrap_pyfunction!(histogram_fit, m)?)?;
    m.add_class::<HistogramRelease>()?;
    m.add_class::<Selection>()?;
    m.add_class::<PyLedger>()?;
    m.add("BudgetExceeded", m.py().get_type::<BudgetExceeded>())?;
    m.add("LedgerError", m.py().get_type::<LedgerError>())?;
    m.add("MAX_NUMERIC_LEVELS", disguise::task::MAX_NUMERIC_LEVELS)?;
    m.add_function(wrap_pyfunction!(frequent_itemsets, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    #[cfg(feature = "bench")]
    bench::register(m)?;
    Ok(())
}
