//! A selection's report as Python reads it: [`Selection`] (picks, gains and warning at once,
//! the JSON written when asked for), and the privacy options of a greedy task by name
//! ([`Greedy`]).

use crate::errors::value_error;
use crate::ledger::{Charge, Reservation, check};
use crate::runtime::{Run, generator, named, named_among, run_sized};
use disguise::disclosure::shown;
use disguise::noise::SecureRng;
use disguise::privacy::Epsilon;
use disguise::task::{Algorithm, CompositionChoice, Params, Privacy, PrivacyReport, Report};
use numpy::PyArray1;
use pyo3::prelude::*;

/// What a selection's report gives Python at once — the picks, their gains, whether a
/// guarantee covers them and the likely-useless warning — with the whole report kept as it
/// is and written as JSON only when asked for (`report_`): writing and reading it back on
/// every fit cost about 1% of a 0.25 ms run. It pickles as the release alone: the picks, the
/// warning and the report without its diagnostics (no gains).
#[pyclass(frozen, module = "disguise._disguise")]
pub(crate) struct Selection {
    selected: Vec<i64>,
    /// Only when the diagnostics were asked for: the gains are exact values of the data.
    gains: Option<Vec<f64>>,
    private: bool,
    warning: Option<String>,
    /// Whether the report shows its diagnostics (`not_private`).
    diagnostics: bool,
    /// The report as JSON, with its diagnostics or without.
    report: Box<dyn Fn(bool) -> serde_json::Result<String> + Send + Sync>,
    json: std::sync::OnceLock<String>,
}

/// `selection_from_state`'s arguments: the picks, whether private, the warning, the report.
type SelectionState = (Vec<i64>, bool, Option<String>, String);

#[pymethods]
impl Selection {
    /// The selected indices, in selection order.
    #[getter]
    fn selected<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_slice(py, &self.selected)
    }

    /// Each pick's marginal gain (the differences of the report's cumulative values): NOT
    /// private, `None` unless the diagnostics were asked for.
    #[getter]
    fn gains<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.gains.as_ref().map(|g| PyArray1::from_slice(py, g))
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

    /// The library's report, as JSON text (written at the first call): the release, and its
    /// diagnostics under `not_private` when they were asked for.
    #[getter]
    fn json(&self) -> PyResult<&str> {
        if let Some(json) = self.json.get() {
            return Ok(json);
        }
        let json = (self.report)(self.diagnostics).map_err(value_error)?;
        Ok(self.json.get_or_init(|| json))
    }

    /// Pickling: the release alone, rebuilt by `selection_from_state`.
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, SelectionState)> {
        let rebuild = py
            .import("disguise._disguise")?
            .getattr("selection_from_state")?
            .unbind();
        let released = match (self.diagnostics, self.json.get()) {
            (false, Some(json)) => json.clone(),
            _ => (self.report)(false).map_err(value_error)?,
        };
        let state = (
            self.selected.clone(),
            self.private,
            self.warning.clone(),
            released,
        );
        Ok((rebuild, state))
    }
}

/// A pickled [`Selection`] rebuilt: the release alone (no gains, no diagnostics).
#[pyfunction]
#[pyo3(signature = (selected, private, warning, report))]
pub(crate) fn selection_from_state(
    selected: Vec<i64>,
    private: bool,
    warning: Option<String>,
    report: String,
) -> Selection {
    Selection {
        selected,
        gains: None,
        private,
        warning,
        diagnostics: false,
        report: Box::new(|_| Err(serde::de::Error::custom("a pickled report is kept as JSON"))),
        json: std::sync::OnceLock::from(report),
    }
}

/// A task's report as a [`Selection`]: the picks and the warning are read from it, the
/// gains too when the `diagnostics` are shown, and the whole report is kept to be written as
/// JSON when asked for.
pub(crate) fn selection<P: Params + Send + Sync + 'static>(
    report: Report<P>,
    diagnostics: bool,
) -> Selection {
    let gains = diagnostics.then(|| {
        let values = report.choice.values.reveal();
        std::iter::once(0.0)
            .chain(values.iter().copied())
            .zip(values)
            .map(|(before, after)| after - before)
            .collect()
    });
    // A vacuous worst-case bound is a note, kept in the report (`usefulness_`), not a
    // warning: the release it says nothing about may well be good.
    let warning = report
        .usefulness
        .as_ref()
        .and_then(|u| disguise::text::usefulness_line(u))
        .filter(|(level, _)| *level == "warning")
        .map(|(_, line)| line);
    Selection {
        selected: report.choice.selected.iter().map(|&i| i as i64).collect(),
        gains,
        private: report.privacy.guarantee.is_some(),
        warning,
        diagnostics,
        report: Box::new(move |diagnostics| serde_json::to_string(&shown(&report, diagnostics))),
        json: std::sync::OnceLock::new(),
    }
}

/// Runs a selection task (`work` units of work: [`run_sized`]) with the generator of `seed`,
/// holds its spend to what was `reserved` for it ([`check`]: unit, guarantee, calls) and
/// returns its report as a [`Selection`]. Called after the reservation: the caller passes
/// the result through [`after_reservation`](crate::ledger::after_reservation).
/// With `estimate`, the report also holds a private estimate of the choice's utility at that
/// ε ([`Report::with_utility_estimate`]), drawn after the run from the same generator.
pub(crate) fn run_selection<P, F>(
    py: Python<'_>,
    work: u128,
    run: &Run,
    reserved: &Option<Reservation>,
    estimate: Option<Epsilon>,
    task: F,
) -> PyResult<Selection>
where
    P: Params + Send + Sync + 'static,
    F: FnOnce(&mut SecureRng) -> disguise::Result<Report<P>> + Send + 'static,
{
    let mut rng = generator(run.seed)?;
    let held = reserved.clone();
    let report = run_sized(py, work, move || {
        let mut report = task(&mut rng)?;
        if let Some(e) = estimate {
            report = report.with_utility_estimate(e, &mut rng)?;
        }
        check(&held, &report)?;
        Ok(report)
    })?;
    Ok(selection(report, run.diagnostics))
}

/// The privacy options of a greedy task (`disguise.FacilityLocation`, `MaxCoverage`,
/// `FeatureSelector`) by name, the one argument each task's function takes for them: a dict
/// that the Python layer builds in one place (`_Selected._greedy`; `Greedy` in
/// `_disguise.pyi`).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct Greedy {
    epsilon: Option<f64>,
    delta: f64,
    /// The selector of every round, as named (and recorded in a ledger).
    pub(crate) mechanism: String,
    rule: String,
    algorithm: String,
    /// The ε of a private estimate of the choice's utility, if one is asked for.
    estimate_utility: Option<f64>,
}

impl Greedy {
    /// The library's algorithm and privacy options; the non-private argmax is refused before
    /// anything runs when the call is charged to a ledger (`charge`), which cannot account
    /// for it.
    pub(crate) fn resolve(
        &self,
        charge: &Option<Charge>,
        diagnostics: bool,
    ) -> PyResult<(Algorithm, Privacy)> {
        let algorithm = named::<Algorithm>(&self.algorithm)?;
        let mechanism = named_among(&self.mechanism, Privacy::MECHANISMS)?;
        if !mechanism.is_private() && !diagnostics {
            return Err(value_error(
                "invalid mechanism: max is not private (it returns the data's exact \
                 optimum), so it runs only as a diagnostic: pass diagnostics=True, or choose \
                 a private mechanism",
            ));
        }
        if charge.is_some() && !mechanism.is_private() {
            return Err(value_error(
                "invalid mechanism: max is not private: a budget ledger cannot account for it \
                 (choose a private mechanism, or run without the ledger)",
            ));
        }
        let privacy = Privacy {
            epsilon: self.epsilon,
            delta: self.delta,
            mechanism,
            composition: named::<CompositionChoice>(&self.rule)?,
        };
        Ok((algorithm, privacy))
    }

    /// The ε of the utility estimate, checked (a valid budget, a private mechanism).
    pub(crate) fn estimate(&self) -> PyResult<Option<Epsilon>> {
        let mechanism = named_among(&self.mechanism, Privacy::MECHANISMS)?;
        disguise::task::estimate_epsilon(self.estimate_utility, mechanism).map_err(value_error)
    }

    /// What the request plans to spend (`plan`), with the utility estimate's ε (at most as
    /// given) added when one is asked for.
    pub(crate) fn planned(&self, plan: PrivacyReport) -> disguise::Result<PrivacyReport> {
        match self.estimate_utility {
            Some(e) => plan.with_estimate(e),
            None => Ok(plan),
        }
    }
}
