//! [`Report`]: the one answer every selection task gives — its public parameters with the
//! defaults resolved, the choice of one run ([`Picks`]) or of many trials ([`Trials`]), the
//! a-priori usefulness, what the run spent and whether the generator was secure. The command
//! line prints it and the Python package returns it: neither holds a schema of its own.
//!
//! The values and utilities in a report are computed on the private data for evaluation:
//! they are NOT covered by the guarantee, which protects the choice only, and are
//! [`Diagnostic`]s: shown only on request ([`crate::disclosure`]).

use super::{PrivacyReport, Usefulness, UtilityEstimate, UtilityScale, estimate_utility};
use crate::disclosure::{Diagnostic, Disclose, Public, Released};
use crate::error::{Error, Result};
use crate::maximize::{Assignment, Solution};
use crate::noise::SecureRng;
use crate::numeric::stats::mean_std;
use crate::privacy::Epsilon;
use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};

/// A selection task's report: `P` is the task's public parameters ([`SelectParams`](super::SelectParams),
/// [`CoverageParams`](super::CoverageParams), …), `C` the choice: [`Picks`] for one run,
/// [`Trials`] for many. Serialised flat: the parameters, `usefulness`, the choice's fields,
/// the privacy report's fields and `secure_rng`; the choice's exact values only under
/// `not_private` ([`crate::disclosure::shown`]).
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct Report<P, C = Picks> {
    /// The task's public parameters, defaults resolved.
    #[serde(flatten)]
    pub task: P,
    /// What the paper's analysis promises for these public parameters, and whether that is
    /// vacuous (`None` where no bound applies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usefulness: Option<Public<Usefulness>>,
    /// What was chosen (released), with its exact values (diagnostics).
    #[serde(flatten)]
    pub choice: C,
    /// A private estimate of the choice's utility, when one was asked for
    /// ([`Report::with_utility_estimate`]); its ε is in the guarantee.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utility_estimate: Option<UtilityEstimate>,
    /// What the run spent and the end-to-end guarantee (of each trial, for [`Trials`]).
    #[serde(flatten)]
    pub privacy: PrivacyReport,
    /// Whether the generator was keyed by the operating system (a seeded run is not private).
    pub secure_rng: Public<bool>,
}

impl<P> Report<P> {
    /// The report of one run: `task` the task's parameters, `utility` the task's utility of
    /// an objective value (e.g. f(S)/n).
    pub fn of<R: Picked>(
        task: P,
        usefulness: Option<Public<Usefulness>>,
        run: &R,
        utility: &dyn Fn(f64) -> f64,
        privacy: PrivacyReport,
    ) -> Self {
        Self {
            task,
            usefulness,
            choice: Picks::of(run, utility),
            utility_estimate: None,
            privacy,
            secure_rng: Public::new(run.solution().secure_rng),
        }
    }

    /// The same report with the chosen elements named (`names[i]` of element i).
    pub fn named(mut self, names: &[String]) -> Self {
        // Post-processing of the released picks with the public names.
        self.choice.names = Some(
            self.choice
                .selected
                .as_map(|s| s.iter().map(|&i| names[i].clone()).collect()),
        );
        self
    }

    /// The same report with a private estimate of the choice's utility at `epsilon`
    /// ([`estimate_utility`]), its cost added to the guarantee
    /// ([`PrivacyReport::with_estimate`]). The task's [`Params::utility_scale`] says how far
    /// its utility moves between neighbours.
    ///
    /// ```
    /// use disguise::SecureRng;
    /// use disguise::privacy::Epsilon;
    /// use disguise::task::{MaxCoverage, WithPrivacy};
    /// // 300 people, covered by candidates 0 (100), 1 (150) or 2 (50).
    /// let covers: Vec<Vec<usize>> = (0..300).map(|i| vec![[0, 1, 1, 2, 0, 1][i % 6]]).collect();
    /// let mut rng = SecureRng::from_os()?;
    /// let report = MaxCoverage::new(2).epsilon(1.0).run(3, &covers, &mut rng)?;
    /// let both = report.with_utility_estimate(Epsilon::new(0.5)?, &mut rng)?;
    /// let e = both.utility_estimate.as_ref().unwrap();
    /// assert!(e.low <= e.estimate && e.estimate <= e.high);
    /// assert_eq!(both.privacy.guarantee.unwrap().epsilon, 1.5);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `estimate_utility` for a task whose utility has no
    /// public sensitivity, or a run without a guarantee; as [`estimate_utility`].
    pub fn with_utility_estimate(mut self, epsilon: Epsilon, rng: &mut SecureRng) -> Result<Self>
    where
        P: Params,
    {
        let scale = self.task.utility_scale()?;
        if self.privacy.guarantee.is_none() {
            // Refused before any noise is drawn, with with_estimate's reason.
            self.privacy.clone().with_estimate(epsilon.get())?;
        }
        // The Laplace mechanism's input: the exact utility, released only with its noise.
        let exact = *self.choice.final_utility.reveal();
        let estimate = estimate_utility(exact, &scale, epsilon, rng)?;
        self.privacy = self.privacy.with_estimate(*estimate.epsilon)?;
        self.utility_estimate = Some(estimate);
        Ok(self)
    }

    /// The report of many trials: this (the first trial's) parameters, usefulness and
    /// privacy, with the picks of every trial.
    pub fn with_trials(self, trials: Trials) -> Report<P, Trials> {
        Report {
            task: self.task,
            usefulness: self.usefulness,
            choice: trials,
            utility_estimate: self.utility_estimate,
            privacy: self.privacy,
            secure_rng: self.secure_rng,
        }
    }
}

/// What a task's public parameters say that is read across tasks (e.g. by a budget
/// ledger).
pub trait Params: Disclose {
    /// The selection of every round ([`SelectorKind`](crate::select::SelectorKind) name).
    fn mechanism(&self) -> &'static str;
    /// How the task's utility moves between neighbouring data sets, and its range, for a
    /// private estimate of it ([`Report::with_utility_estimate`]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `estimate_utility` (the default): the task's
    /// utility has no public sensitivity.
    fn utility_scale(&self) -> Result<UtilityScale> {
        Err(Error::param(
            "estimate_utility",
            "this task's utility has no public sensitivity, so it cannot be estimated \
             privately",
        ))
    }
}

/// A selection task prepared on its data ([`PreparedSelect`](super::PreparedSelect),
/// [`PreparedCoverage`](super::PreparedCoverage), [`PreparedCut`](super::PreparedCut),
/// [`PreparedFeatures`](super::PreparedFeatures), [`PreparedAssign`](super::PreparedAssign)):
/// what its report states of a run. Each task says its parameters, utility and a-priori
/// usefulness; the one [`Reporting::report`] puts them together. In the prelude.
pub trait Reporting: super::Runnable<Output: Picked> {
    /// The task's public parameters.
    type Params: Params;

    /// The task's public parameters, defaults resolved, as the run names them (its
    /// algorithm and constraint).
    fn params(&self, run: &Self::Output) -> Self::Params;

    /// The utility of an objective value (e.g. f(S)/n).
    fn utility(&self, value: f64) -> f64;

    /// What the paper's analysis promises for the run's public parameters (`None` where no
    /// bound applies).
    fn usefulness(&self, run: &Self::Output) -> Option<Usefulness>;

    /// What neighbouring data sets differ in: the unit the guarantee protects.
    fn unit(&self) -> crate::privacy::Unit;

    /// What the run spent and its guarantee, for the task's neighbour relation.
    fn privacy(&self, run: &Self::Output) -> PrivacyReport {
        PrivacyReport::of(run.solution(), self.unit())
    }

    /// The names of the elements, when the task knows them (else the front end names the
    /// picks with [`Report::named`]).
    fn names(&self) -> Option<&[String]> {
        None
    }

    /// The report of one run.
    fn report(&self, run: &Self::Output) -> Report<Self::Params> {
        let report = Report::of(
            self.params(run),
            // A-priori bounds are computed from public quantities only (usefulness.rs).
            self.usefulness(run).map(Public::new),
            run,
            &|v| self.utility(v),
            self.privacy(run),
        );
        match self.names() {
            Some(names) => report.named(names),
            None => report,
        }
    }

    /// One private run ([`Runnable::run_once`](super::Runnable::run_once)) and its report: what each task's `run` returns.
    ///
    /// # Errors
    /// As [`Runnable::run_once`](super::Runnable::run_once).
    fn run_report(&self, rng: &mut SecureRng) -> Result<Report<Self::Params>> {
        let run = self.run_once(rng)?;
        Ok(self.report(&run))
    }
}

/// One run of a selection as a report takes it: a [`Solution`], and for a k-submodular run
/// ([`Assignment`]) the type of each pick.
pub trait Picked: Send {
    /// The run.
    fn solution(&self) -> &Solution;
    /// The type of each pick, `None` for runs without types.
    fn types(&self) -> Option<&[usize]> {
        None
    }
}

impl Picked for Solution {
    fn solution(&self) -> &Solution {
        self
    }
}

impl Picked for Assignment {
    fn solution(&self) -> &Solution {
        &self.solution
    }
    fn types(&self) -> Option<&[usize]> {
        Some(&self.types)
    }
}

/// The choice of one run: the picks a mechanism released, and their exact values on the
/// private data as diagnostics.
///
/// A run of the non-private argmax (`--mechanism max`, no guarantee) releases nothing: its
/// picks are the data's exact optimum, and front ends show such a run only when
/// diagnostics were asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct Picks {
    /// The chosen elements (indices), in the order they were picked.
    pub selected: Released<Vec<usize>>,
    /// The type of each pick (k-submodular runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub types: Option<Released<Vec<usize>>>,
    /// The name of each pick, when the front end knows the elements' names
    /// ([`Report::named`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub names: Option<Released<Vec<String>>>,
    /// The objective value after each pick (NOT private).
    #[serde(skip)]
    pub values: Diagnostic<Vec<f64>>,
    /// The utility after each pick (NOT private).
    #[serde(skip)]
    pub utility: Diagnostic<Vec<f64>>,
    /// The utility of the final choice (NOT private).
    #[serde(skip)]
    pub final_utility: Diagnostic<f64>,
    /// Marginal gains evaluated (a lazy greedy's count depends on the data).
    #[serde(skip)]
    pub gain_evaluations: Diagnostic<u64>,
}

impl Picks {
    /// The picks of `run`, valued by `utility`.
    pub fn of<R: Picked + ?Sized>(run: &R, utility: &dyn Fn(f64) -> f64) -> Self {
        let s = run.solution();
        Self {
            selected: Released::new(s.elements.clone()),
            types: run.types().map(|t| Released::new(t.to_vec())),
            names: None,
            values: Diagnostic::new(s.values.clone()),
            utility: Diagnostic::new(s.values.iter().map(|&v| utility(v)).collect()),
            final_utility: Diagnostic::new(utility(s.value)),
            gain_evaluations: Diagnostic::new(s.gain_evaluations),
        }
    }
}

/// The choices of many trials, kept compactly (flat arrays, 8 bytes per number) for a
/// report that can only be written once every trial is done; serialised without building
/// the document in memory. Each released field of [`Picks`] becomes one list per trial; the
/// exact values (each trial's values, utilities, final utility and gain evaluations, the
/// mean and sample standard deviation of the final utility) are diagnostics.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trials {
    ends: Vec<usize>,
    elements: Released<Vec<usize>>,
    types: Released<Vec<usize>>,
    typed: bool,
    names: Option<Vec<String>>,
    values: Diagnostic<Vec<f64>>,
    utilities: Diagnostic<Vec<f64>>,
    finals: Diagnostic<Vec<f64>>,
    evaluations: Diagnostic<Vec<u64>>,
}

/// Kept vectors, borrowed mutably whatever their kind (only [`Trials::push`] fills them).
struct Columns<'a> {
    elements: &'a mut Vec<usize>,
    types: &'a mut Vec<usize>,
    values: &'a mut Vec<f64>,
    utilities: &'a mut Vec<f64>,
    finals: &'a mut Vec<f64>,
    evaluations: &'a mut Vec<u64>,
}

impl Trials {
    /// The bytes [`Trials::with_capacity`] may need for `trials` trials of at most `picks`
    /// picks each: for a front end to check against the memory available first.
    pub fn bytes(trials: u64, picks: usize, typed: bool) -> u128 {
        // Per trial: end offset, final utility, evaluations; per pick: element, value,
        // utility and a type.
        let per_pick: u128 = if typed { 32 } else { 24 };
        u128::from(trials) * (24 + per_pick * picks as u128)
    }

    /// Room for `trials` trials, whose picks have types if `typed`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the memory cannot be had.
    pub fn with_capacity(trials: u64, typed: bool) -> Result<Self> {
        let oom = || Error::OutOfMemory(format!("not enough memory to keep {trials} trials"));
        let n = usize::try_from(trials).map_err(|_| oom())?;
        let mut kept = Self {
            typed,
            ..Self::default()
        };
        kept.ends.try_reserve_exact(n).map_err(|_| oom())?;
        let c = kept.columns();
        c.finals.try_reserve_exact(n).map_err(|_| oom())?;
        c.evaluations.try_reserve_exact(n).map_err(|_| oom())?;
        Ok(kept)
    }

    /// Every kept vector, to fill.
    fn columns(&mut self) -> Columns<'_> {
        Columns {
            elements: self.elements.fill(),
            types: self.types.fill(),
            values: self.values.fill(),
            utilities: self.utilities.fill(),
            finals: self.finals.fill(),
            evaluations: self.evaluations.fill(),
        }
    }

    /// Adds the next trial, valued by `utility`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the memory cannot be had.
    pub fn push<R: Picked + ?Sized>(
        &mut self,
        run: &R,
        utility: &dyn Fn(f64) -> f64,
    ) -> Result<()> {
        let s = run.solution();
        let oom = |_| Error::OutOfMemory("not enough memory to keep every trial's picks".into());
        let typed = self.typed;
        let c = self.columns();
        let n = s.elements.len();
        c.elements.try_reserve(n).map_err(oom)?;
        c.values.try_reserve(n).map_err(oom)?;
        c.utilities.try_reserve(n).map_err(oom)?;
        c.elements.extend_from_slice(&s.elements);
        c.values.extend_from_slice(&s.values);
        c.utilities.extend(s.values.iter().map(|&v| utility(v)));
        if typed {
            let types = run.types().unwrap_or(&[]);
            c.types.try_reserve(types.len()).map_err(oom)?;
            c.types.extend_from_slice(types);
        }
        c.finals.push(utility(s.value));
        c.evaluations.push(s.gain_evaluations);
        let end = c.elements.len();
        self.ends.push(end);
        Ok(())
    }

    /// The same trials with the chosen elements named (`names[i]` of element i).
    pub fn named(mut self, names: &[String]) -> Self {
        self.names = Some(names.to_vec());
        self
    }

    /// The number of trials kept.
    pub fn count(&self) -> usize {
        self.ends.len()
    }

    /// The final utility of every trial (NOT private).
    pub fn finals(&self) -> &Diagnostic<Vec<f64>> {
        &self.finals
    }

    /// The mean and sample standard deviation of the final utility (two-pass; NOT private).
    pub fn mean_std(&self) -> Diagnostic<(f64, f64)> {
        self.finals.as_map(|f| mean_std(f))
    }

    /// The positions of trial `t`'s picks in the flat arrays.
    fn picks(&self, t: usize) -> std::ops::Range<usize> {
        let start = if t == 0 { 0 } else { self.ends[t - 1] };
        start..self.ends[t]
    }
}

impl Serialize for Trials {
    /// The released picks only: the exact values are in [`Disclose::not_private`].
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("trials", &self.count())?;
        map.serialize_entry("selected", &PerTrial(self, |j| self.elements[j]))?;
        if self.typed {
            map.serialize_entry("types", &PerTrial(self, |j| self.types[j]))?;
        }
        if let Some(names) = &self.names {
            map.serialize_entry("names", &PerTrial(self, |j| &names[self.elements[j]]))?;
        }
        map.end()
    }
}

impl Disclose for Trials {
    /// Each trial's exact values, utilities, final utility and gain evaluations, and the
    /// mean and standard deviation of the final utility.
    fn not_private(&self) -> Option<crate::disclosure::Value> {
        let per_trial = |column: &[f64]| -> Vec<Vec<f64>> {
            (0..self.count())
                .map(|t| column[self.picks(t)].to_vec())
                .collect()
        };
        let (mean, std) = self.mean_std().into_revealed();
        let mut out = crate::disclosure::NotPrivate::default();
        out.reveal("values", &self.values.as_map(|v| per_trial(v)));
        out.reveal("utility", &self.utilities.as_map(|v| per_trial(v)));
        out.reveal("final_utility", &self.finals);
        out.reveal("gain_evaluations", &self.evaluations);
        out.reveal("mean_utility", &Diagnostic::new(mean));
        out.reveal("std_utility", &Diagnostic::new(std));
        out.finish()
    }
}

/// One list per trial of `cell` of each of its picks (a flat position).
struct PerTrial<'a, F>(&'a Trials, F);

impl<T: Serialize, F: Fn(usize) -> T> Serialize for PerTrial<'_, F> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let trials = self.0;
        let mut outer = serializer.serialize_seq(Some(trials.count()))?;
        for t in 0..trials.count() {
            outer.serialize_element(&OneTrial(trials.picks(t), &self.1))?;
        }
        outer.end()
    }
}

/// The list of `cell` of the picks in one range.
struct OneTrial<'f, F>(std::ops::Range<usize>, &'f F);

impl<T: Serialize, F: Fn(usize) -> T> Serialize for OneTrial<'_, F> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for j in self.0.clone() {
            seq.serialize_element(&(self.1)(j))?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SecureRng;
    use crate::task::{MaxCoverage, Runnable, WithPrivacy};

    /// Three people covered by candidate 0, one by candidate 1.
    fn covers() -> Vec<Vec<usize>> {
        vec![vec![0], vec![0], vec![0], vec![1]]
    }

    #[test]
    fn one_run_reports_its_parameters_picks_and_privacy_flat() {
        let report = MaxCoverage::new(2)
            .epsilon(1.0)
            .run(2, &covers(), &mut SecureRng::insecure_from_seed(1))
            .unwrap()
            .named(&["a".to_string(), "b".to_string()]);
        let json = serde_json::to_value(&report).unwrap();
        for key in [
            "objective",
            "algorithm",
            "mechanism",
            "records",
            "k",
            "selected",
            "names",
            "guarantee",
            "unit",
            "secure_rng",
        ] {
            assert!(json.get(key).is_some(), "{key} missing from {json}");
        }
        // The exact values are diagnostics: only under `not_private`, when asked for.
        for key in ["values", "utility", "final_utility", "gain_evaluations"] {
            assert!(json.get(key).is_none(), "{key} in {json}");
        }
        let shown = serde_json::to_value(crate::disclosure::shown(&report, true)).unwrap();
        for key in ["values", "utility", "final_utility", "gain_evaluations"] {
            assert!(
                shown["not_private"].get(key).is_some(),
                "{key} not in {shown}"
            );
        }
        assert_eq!(
            shown["not_private"]["values"],
            serde_json::json!(report.choice.values.reveal())
        );
        assert_eq!(json["records"], 4);
        assert_eq!(json["secure_rng"], false);
        let names = json["names"].as_array().unwrap();
        assert_eq!(names.len(), 2);
        // Untyped runs say nothing of types.
        assert!(json.get("types").is_none());
    }

    #[test]
    fn trials_nest_each_field_per_trial_and_summarise_the_final_utility() {
        let request = MaxCoverage::new(1).epsilon(1.0);
        let objective = request.objective(2, &covers()).unwrap();
        let prepared = request.prepare(&objective).unwrap();
        let mut rng = SecureRng::insecure_from_seed(3);
        let runs: Vec<Solution> = (0..3).map(|_| prepared.run(&mut rng).unwrap()).collect();
        let utility = |v: f64| prepared.utility(v);
        let mut trials = Trials::with_capacity(3, false).unwrap();
        for run in &runs {
            trials.push(run, &utility).unwrap();
        }
        let names = ["a".to_string(), "b".to_string()];
        let report = prepared.report(&runs[0]).with_trials(trials.named(&names));
        let json = serde_json::to_value(&report).unwrap();
        for key in [
            "values",
            "utility",
            "final_utility",
            "mean_utility",
            "std_utility",
        ] {
            assert!(json.get(key).is_none(), "{key} in {json}");
        }
        let json = serde_json::to_value(crate::disclosure::shown(&report, true)).unwrap();
        assert_eq!(json["trials"], 3);
        let selected = json["selected"].as_array().unwrap();
        assert_eq!(selected.len(), 3);
        for (t, run) in runs.iter().enumerate() {
            assert_eq!(selected[t], serde_json::json!(run.elements));
            let name = &names[run.elements[0]];
            assert_eq!(json["names"][t], serde_json::json!([name]));
            assert_eq!(json["not_private"]["final_utility"][t], utility(run.value));
            assert_eq!(
                json["not_private"]["values"][t],
                serde_json::json!(run.values)
            );
        }
        let finals: Vec<f64> = runs.iter().map(|r| utility(r.value)).collect();
        let (mean, std) = mean_std(&finals);
        assert_eq!(json["not_private"]["mean_utility"], mean);
        assert_eq!(json["not_private"]["std_utility"], std);
        // The memory a count needs grows with it, so a front end can refuse it first.
        assert!(Trials::bytes(1_000_000, 5, false) > Trials::bytes(1_000, 5, false));
        assert!(Trials::bytes(10, 5, true) > Trials::bytes(10, 5, false));
    }
}
