//! The front door: one request type per task, validated in one place, run by one function
//! that takes the data and a generator and returns a serialisable report. The command line
//! and the Python package are thin shells over these types.
//!
//! | task | request | report |
//! |---|---|---|
//! | choose k candidates that serve private points (facility location) | [`Select`] | [`SelectReport`] |
//! | choose k features informative about a label (mutual information, discernibility) | [`Features`] | [`FeaturesReport`] |
//! | choose k candidates that cover the most people (maximum coverage) | [`MaxCoverage`] | [`CoverageReport`] |
//! | choose at most k vertices that cut the most private edges (maximum cut, non-monotone) | [`MaxCut`] | [`CutReport`] |
//! | choose locations and a type for each (k-type facility location, k-submodular greedy), or seeds and a topic for each (k-topic influence, ad allocation) | [`Assign`] | [`AssignReport`] |
//! | release a projected histogram and synthetic data for classifiers | [`Histogram`] | [`HistogramReport`] |
//! | choose the decision stump that best predicts a binary label | [`Hypothesis`] | [`HypothesisReport`] |
//! | run one selection mechanism many times on the same scores and count its picks | [`Sample`] | [`SampleReport`] |
//! | release the T most frequent itemsets of size r from transactions | [`Itemsets`] | [`ItemsetsReport`] |
//!
//! A private facility-location selection in three lines:
//!
//! ```
//! use disguise::prelude::*;
//! # let points = [[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]];
//! # let candidates = [[0.0, 0.0], [5.0, 5.0], [9.0, 0.0]];
//! let report = Select::new(2).epsilon(1.0).run(&points, &candidates, &mut SecureRng::from_os()?)?;
//! assert_eq!(report.choice.selected.len(), 2);
//! println!("{:?}, ε = {}", report.choice.selected, report.privacy.guarantee.unwrap().epsilon);
//! # Ok::<(), disguise::Error>(())
//! ```
//!
//! The selection tasks' reports are one type, [`Report`]: the task's public parameters
//! (defaults resolved), the a-priori usefulness, the choice (one run's [`Picks`], or every
//! trial's [`Trials`]), the privacy spent and whether the generator was secure; the command
//! line prints it and Python returns it as it is. Every report carries the end-to-end
//! guarantee, the per-round budget and the composition rule that set it ([`PrivacyReport`]). Repeated
//! trials of one request run in parallel with [`trials`], in constant memory.
//!
//! Every report implements `ledger::Spends` (feature `ledger`): wrapped in
//! `Ledger::charge(dataset, what, || request.run(…))`, a run is recorded in a persistent
//! privacy budget ledger and its report returned only once the spend is committed (refused,
//! with `Error::BudgetExceeded`, when the data set's limit would be exceeded).

mod assign;
mod coverage;
mod cut;
mod demo;
mod estimate;
mod features;
mod histogram;
mod hypothesis;
mod itemsets;
mod report;
mod sample;
mod select;
mod sharded;
mod synth;
mod usefulness;

pub use assign::{
    Assign, AssignParams, AssignReport, DEFAULT_FAILURE, PreparedAssign, Reach, read_reach,
    read_typed_points,
};
pub use coverage::{CoverageInput, CoverageParams, CoverageReport, MaxCoverage, PreparedCoverage};
pub use cut::{CutParams, CutReport, MaxCut, PreparedCut};
pub use demo::{Demo, DemoPick, DemoPlaces, DemoReport, DemoRun, ExactPick};
pub use estimate::{
    ESTIMATE_CONFIDENCE, TrialOptions, UtilityEstimate, UtilityScale, estimate_epsilon,
    estimate_noise, estimate_utility,
};
pub use features::{
    BinSpec, FeatureObjective, FeatureRead, FeatureSource, FeatureTable, Features, FeaturesParams,
    FeaturesReport, LabelledTable, MAX_NUMERIC_LEVELS, PreparedFeatures,
};
pub use histogram::{HISTOGRAM_NEIGHBOURS, Histogram, HistogramReport};
pub use hypothesis::{DEFAULT_THRESHOLDS, Hypothesis, HypothesisReport};
pub use itemsets::{Itemsets, ItemsetsReport};
pub use report::{Params, Picked, Picks, Report, Reporting, Trials};
pub use sample::{PerSelection, Sample, SampleReport};
pub use select::{
    ContinuousOptions, NormalizerSource, PreparedSelect, Select, SelectParams, SelectReport,
    default_normalizer,
};
pub use synth::{Comparison, MeasuredReport, SYNTH_NEIGHBOURS, Synth, SynthRelease, SynthReport};
pub use usefulness::Usefulness;

use crate::disclosure::{Disclose, Public};
use crate::error::{Error, Result};
use crate::maximize::{Budget, Procedure, Solution};
use crate::names::{Named, named_traits};
use crate::noise::SecureRng;
use crate::privacy::compose::Rule;
use crate::privacy::{Delta, Epsilon, Guarantee};
use crate::select::SelectorKind;
use rayon::prelude::*;
use serde::Serialize;

/// How a total (ε, δ) is split over the rounds, as a user chooses it: the rule that gives
/// each round the most budget (`auto`), or a named rule (an error if it does not apply).
/// Not to be confused with [`compose::Composition`](crate::privacy::compose::Composition),
/// what the accountant proves for the recorded calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CompositionChoice {
    /// The valid rule that gives each round the largest ε₀.
    #[default]
    Auto,
    /// Basic composition.
    Basic,
    /// Advanced composition (needs δ > 0).
    Advanced,
    /// The optimal composition of Kairouz, Oh and Viswanath.
    Kov,
    /// Bounded range / pure → zCDP → (ε, δ) (needs δ > 0).
    Zcdp,
    /// Decomposable objectives (Gupta et al.; needs δ > 0).
    Decomposable,
}

impl CompositionChoice {
    /// The forced rule, or `None` for `auto`.
    pub fn rule(self) -> Option<Rule> {
        match self {
            CompositionChoice::Auto => None,
            CompositionChoice::Basic => Some(Rule::Basic),
            CompositionChoice::Advanced => Some(Rule::Advanced),
            CompositionChoice::Kov => Some(Rule::Kov),
            CompositionChoice::Zcdp => Some(Rule::Zcdp),
            CompositionChoice::Decomposable => Some(Rule::Decomposable),
        }
    }
}

impl Named for CompositionChoice {
    const KIND: &'static str = "composition";
    const ALL: &'static [Self] = &[
        CompositionChoice::Auto,
        CompositionChoice::Basic,
        CompositionChoice::Advanced,
        CompositionChoice::Kov,
        CompositionChoice::Zcdp,
        CompositionChoice::Decomposable,
    ];

    fn name(self) -> &'static str {
        self.rule().map_or("auto", Rule::name)
    }

    fn help(self) -> &'static str {
        match self.rule() {
            Some(rule) => Named::help(rule),
            None => "The valid rule that gives each round the largest ε₀",
        }
    }
}

/// The greedy algorithm of a selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Algorithm {
    /// The algorithm with a utility guarantee for the task's objective, chosen by the task:
    /// the greedy for a monotone objective, the subsample-greedy (Theorem 4.1) for a
    /// non-monotone one (a cut; facility location minus a cost without a matroid).
    #[default]
    Auto,
    /// Private greedy over all remaining candidates (Mitrovic et al. 2017, Algorithms 1–2;
    /// any constraint).
    Greedy,
    /// Subsample-greedy (Algorithm 4): |V|/k random candidates per round, linear time;
    /// cardinality constraint only.
    Subsample,
    /// The private continuous greedy of Rafiey & Yoshida (2020) on one matroid, then swap
    /// rounding (exponential mechanism or argmax).
    ContinuousGreedy,
}

impl Named for Algorithm {
    const KIND: &'static str = "algorithm";
    const ALL: &'static [Self] = &[
        Algorithm::Auto,
        Algorithm::Greedy,
        Algorithm::Subsample,
        Algorithm::ContinuousGreedy,
    ];

    fn name(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Greedy => "greedy",
            Algorithm::Subsample => "subsample",
            Algorithm::ContinuousGreedy => "continuous-greedy",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Algorithm::Subsample => &["subsample-greedy"],
            _ => &[],
        }
    }

    fn help(self) -> &'static str {
        match self {
            Algorithm::Auto => {
                "The one with a utility guarantee for the objective: greedy, or subsample for \
                 a non-monotone one (cut; select with a cost and no constraint)"
            }
            Algorithm::Greedy => {
                "Private greedy over all remaining candidates (Algorithms 1–2; any constraint)"
            }
            Algorithm::Subsample => {
                "Subsample-greedy (Algorithm 4): |V|/k random candidates per round, linear \
                 time; cardinality constraint only"
            }
            Algorithm::ContinuousGreedy => {
                "The private continuous greedy (Rafiey & Yoshida 2020): T steps on the \
                 multilinear extension, each an exponential mechanism over the matroid's \
                 bases, then swap rounding; one matroid, mechanism em or max"
            }
        }
    }
}

impl Algorithm {
    /// The algorithms of the discrete tasks (every selection task but [`Select`], which adds
    /// the continuous greedy).
    pub const DISCRETE: &'static [Algorithm] =
        &[Algorithm::Auto, Algorithm::Greedy, Algorithm::Subsample];

    /// This algorithm, or `default` (the task's choice for its objective) for
    /// [`Algorithm::Auto`].
    pub fn or(self, default: Algorithm) -> Algorithm {
        match self {
            Algorithm::Auto => default,
            chosen => chosen,
        }
    }
}

named_traits!(CompositionChoice, Algorithm);

/// The privacy options of a greedy task: the total budget, the mechanism of every round and
/// how the budget is split over the rounds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Privacy {
    /// The total ε of the whole run; required unless the selection is the argmax.
    pub epsilon: Option<f64>,
    /// The total δ ∈ [0, 1) of the whole run (> 0 for the large margin mechanisms and the
    /// advanced, zCDP and decomposable rules).
    pub delta: f64,
    /// The selection of every round, one of [`Privacy::MECHANISMS`].
    pub mechanism: SelectorKind,
    /// How the total budget is split over the rounds.
    pub composition: CompositionChoice,
}

impl Privacy {
    /// The selections a greedy task (and hypothesis selection) can make in every round: the
    /// mechanisms with a guarantee for any scores, and the non-private argmax as a baseline.
    pub const MECHANISMS: &'static [SelectorKind] = &[
        SelectorKind::Exponential,
        SelectorKind::LargeMargin,
        SelectorKind::LargeMarginChaudhuri,
        SelectorKind::ReportNoisyMax,
        SelectorKind::Argmax,
    ];

    /// Refuses a mechanism outside [`Privacy::MECHANISMS`].
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `mechanism` and listing the valid ones.
    pub fn check_mechanism(mechanism: SelectorKind) -> Result<()> {
        if Self::MECHANISMS.contains(&mechanism) {
            return Ok(());
        }
        Err(Error::param(
            "mechanism",
            format!(
                "{mechanism} is private only for monotone scores, which a task's scores are \
                 not shown to be; expected one of {}",
                SelectorKind::list(Self::MECHANISMS)
            ),
        ))
    }

    /// Validates the options (no data needed) and builds the selection procedure: the
    /// mechanism calibrated from the total budget, split by the composition rule.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `epsilon`, `delta` or `composition`, or
    /// [`Error::InvalidEpsilon`] / [`Error::InvalidDelta`].
    pub fn procedure(&self) -> Result<Procedure<'static>> {
        Self::check_mechanism(self.mechanism)?;
        let mechanism = self.mechanism;
        if !mechanism.is_private() {
            if self.composition != CompositionChoice::Auto {
                return Err(Error::param(
                    "composition",
                    "the mechanism max is not private: there is no budget to split",
                ));
            }
            // The budget, if given, must still be sane (it is ignored otherwise).
            if let Some(e) = self.epsilon {
                Epsilon::total(e)?;
            }
            Delta::new(self.delta)?;
            return Ok(Procedure::Argmax);
        }
        let Some(epsilon) = self.epsilon else {
            return Err(Error::param(
                "epsilon",
                format!(
                    "required with the mechanism {} (the total privacy budget, e.g. 1)",
                    mechanism.name()
                ),
            ));
        };
        Epsilon::total(epsilon)?;
        if mechanism.needs_delta() && self.delta <= 0.0 {
            Delta::new(self.delta)?;
            return Err(Error::param(
                "delta",
                format!("the mechanism {} needs δ > 0, e.g. 1e-6", mechanism.name()),
            ));
        }
        let budget = match self.composition.rule() {
            None => Budget::total(epsilon, self.delta)?,
            Some(rule) => Budget::total_by_rule(epsilon, self.delta, rule)?,
        };
        Ok(Procedure::private(mechanism, budget))
    }
}

/// The builder methods of the privacy options every greedy task has ([`Privacy`]):
/// `Select::new(3).epsilon(1.0).delta(1e-6)`. In the prelude.
pub trait WithPrivacy: Sized {
    /// The request's privacy options.
    fn privacy_mut(&mut self) -> &mut Privacy;

    /// The total ε.
    fn epsilon(mut self, epsilon: f64) -> Self {
        self.privacy_mut().epsilon = Some(epsilon);
        self
    }

    /// The total δ.
    fn delta(mut self, delta: f64) -> Self {
        self.privacy_mut().delta = delta;
        self
    }

    /// The selection of every round.
    fn mechanism(mut self, mechanism: SelectorKind) -> Self {
        self.privacy_mut().mechanism = mechanism;
        self
    }

    /// How the total budget is split over the rounds.
    fn composition(mut self, composition: CompositionChoice) -> Self {
        self.privacy_mut().composition = composition;
        self
    }

    /// All the privacy options at once.
    fn privacy(mut self, privacy: Privacy) -> Self {
        *self.privacy_mut() = privacy;
        self
    }
}

/// A request prepared on its data ([`PreparedSelect`], [`PreparedFeatures`], [`PreparedAssign`]),
/// ready to run any number of times. In the prelude.
pub trait Runnable: Sync {
    /// What one run returns ([`Solution`], or [`Assignment`](crate::maximize::Assignment)
    /// for the k-submodular greedy).
    type Output: Send;

    /// One private run.
    ///
    /// # Errors
    /// The errors of the algorithm (none for valid prepared requests, except resources).
    fn run(&self, rng: &mut SecureRng) -> Result<Self::Output>;

    /// One private run as the single trial of [`Runnable::trials`] makes it: on a generator
    /// forked from `rng`. The task's `run` (e.g. [`Select::run`]) and the command line use
    /// it, so a seeded `rng` gives the command line's result for the same `--seed`.
    ///
    /// # Errors
    /// As [`Runnable::run`].
    fn run_once(&self, rng: &mut SecureRng) -> Result<Self::Output> {
        self.run(&mut rng.fork())
    }

    /// `count` runs in parallel, handed to `sink` in trial order ([`trials`]: constant
    /// memory, seeded results independent of the number of threads).
    ///
    /// # Errors
    /// The first error of a run or of `sink`, in trial order.
    fn trials<S, E>(
        &self,
        count: u64,
        rng: &mut SecureRng,
        done: &(dyn Fn() + Sync),
        sink: S,
    ) -> std::result::Result<(), E>
    where
        S: FnMut(u64, Self::Output) -> std::result::Result<(), E>,
        E: From<Error>,
    {
        trials(count, rng, done, |r| self.run(r), sink)
    }
}

/// What a run spent: the per-round budget, the rule that set it, and the end-to-end
/// guarantee with the rule that proved it (all `None` for the non-private argmax), for the
/// neighbour relation of its [`Unit`](crate::privacy::Unit). Every field is public: the
/// accountant computes it from the options and public sizes (rounds are charged as planned,
/// never as run).
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct PrivacyReport {
    /// The per-round ε₀ every selector call used.
    pub per_round_epsilon: Option<Public<f64>>,
    /// The per-round δ₀ (0 except for the large margin mechanisms).
    pub per_round_delta: Option<Public<f64>>,
    /// The composition rule that split the total budget into per-round budgets.
    pub composition: Option<&'static str>,
    /// The number of selector calls the guarantee covers.
    pub rounds: Public<usize>,
    /// The end-to-end guarantee (the best rule the accountant could apply).
    pub guarantee: Option<Guarantee>,
    /// The end-to-end guarantee under every composition rule that applies to the run (the
    /// accountant keeps the tightest as [`PrivacyReport::guarantee`]); empty for a plan.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub guarantees: Vec<Guarantee>,
    /// The calls the guarantee composes ([`Solution::calls`]): what a budget ledger
    /// composes across runs.
    #[serde(skip)]
    #[disclose(internal)]
    pub calls: Vec<(crate::privacy::PrivacyCost, u64)>,
    /// Whether the generator was keyed by the operating system ([`Solution::secure_rng`]):
    /// what a budget ledger records. Not serialised: every report that holds this one
    /// states it as its own `secure_rng`.
    #[serde(skip)]
    #[disclose(internal)]
    pub secure_rng: bool,
    /// With a utility estimate ([`PrivacyReport::with_estimate`]): the guarantee of the picks
    /// alone; [`PrivacyReport::guarantee`] is then the whole release's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection_guarantee: Option<Guarantee>,
    /// With a utility estimate: the ε it spent, added to the picks' by basic composition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate_epsilon: Option<Public<f64>>,
    /// With private bin edges ([`PrivacyReport::with_edges`]): the ε they spent in all,
    /// added to the picks' by basic composition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges_epsilon: Option<Public<f64>>,
    /// What neighbouring data sets differ in: the unit the guarantee protects, which a
    /// budget ledger records ([`crate::ledger::Spend`]).
    pub unit: crate::privacy::Unit,
}

impl PrivacyReport {
    /// The same release with a utility estimate at ε_u ([`estimate_utility`]) added: one
    /// more pure ε_u-DP call (the Laplace mechanism), and the guarantee (ε + ε_u, δ) of the
    /// picks and the estimate together by basic composition (Dwork and Roth 2014, Theorem
    /// 3.16: the estimate depends on the picks, which that theorem allows). `spent` is the
    /// estimate's ε under the report's own neighbour relation ([`estimate_noise`]), so a
    /// report already stated for a group (an edge of a graph) takes it as it is. The
    /// per-round budget and the composition rule still describe the picks; every rule's
    /// guarantee becomes the sum's, proved by basic composition.
    ///
    /// ```
    /// use disguise::task::{Select, WithPrivacy};
    /// let plan = Select::new(3).epsilon(1.0).plan(10)?;
    /// let both = plan.clone().with_estimate(0.1)?;
    /// assert_eq!(both.guarantee.unwrap().epsilon, 1.1);
    /// assert_eq!(both.selection_guarantee, plan.guarantee);
    /// assert_eq!(both.calls.len(), plan.calls.len() + 1);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `estimate_utility` for a run without a guarantee
    /// (the non-private argmax): an estimate would add privacy to nothing; ε invalid.
    pub fn with_estimate(mut self, spent: f64) -> Result<Self> {
        let epsilon = Epsilon::new(spent)?;
        let Some(selection) = self.guarantee else {
            return Err(Error::param(
                "estimate_utility",
                "the run has no privacy guarantee (--mechanism max), so an estimate of its \
                 utility would protect nothing: its exact utility is in the report",
            ));
        };
        let total = selection.then_pure(spent);
        self.guarantee = Some(total);
        self.guarantees = vec![total];
        self.calls
            .push((crate::privacy::PrivacyCost::Pure { epsilon }, 1));
        self.selection_guarantee = Some(selection);
        self.estimate_epsilon = Some(Public::new(spent));
        Ok(self)
    }

    /// The same release with private bin edges paid before the picks
    /// ([`crate::histogram::edges`]): `columns` pure calls of ε each, and the guarantee of the
    /// edges and the picks together by basic composition (the picks depend on the edges,
    /// which Dwork and Roth 2014, Theorem 3.16 allows).
    ///
    /// ```
    /// use disguise::task::{Select, WithPrivacy};
    /// let plan = Select::new(3).epsilon(0.8).plan(10)?;
    /// let both = plan.clone().with_edges(0.05, 4)?;
    /// assert!((both.guarantee.unwrap().epsilon - 1.0).abs() < 1e-12);
    /// assert_eq!(both.selection_guarantee, plan.guarantee);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`PrivacyReport::with_estimate`].
    pub fn with_edges(mut self, per_column: f64, columns: u64) -> Result<Self> {
        if columns == 0 {
            return Ok(self);
        }
        let epsilon = Epsilon::new(per_column)?;
        let Some(selection) = self.guarantee else {
            return Err(Error::param(
                "mechanism",
                "the run has no privacy guarantee, so private bin edges would protect nothing",
            ));
        };
        let spent = crate::numeric::round::mul_up(per_column, columns as f64);
        let total = selection.then_pure(spent);
        self.guarantee = Some(total);
        self.guarantees = vec![total];
        self.calls
            .insert(0, (crate::privacy::PrivacyCost::Pure { epsilon }, columns));
        self.selection_guarantee = Some(selection);
        self.edges_epsilon = Some(Public::new(spent));
        Ok(self)
    }

    /// A report of `rounds` rounds stating `guarantee`, composed of `calls`, for one
    /// person's record and the secure generator, with no per-round split and no part
    /// beside the guarantee: what a task that states its own accounting starts from.
    pub fn stating(
        guarantee: Option<Guarantee>,
        rounds: usize,
        calls: Vec<(crate::privacy::PrivacyCost, u64)>,
    ) -> Self {
        Self {
            per_round_epsilon: None,
            per_round_delta: None,
            composition: None,
            rounds: Public::new(rounds),
            guarantee,
            guarantees: Vec::new(),
            calls,
            secure_rng: true,
            selection_guarantee: None,
            estimate_epsilon: None,
            edges_epsilon: None,
            unit: crate::privacy::Unit::Record,
        }
    }

    /// The report a run will have, planned before it starts ([`crate::maximize::planned`]),
    /// for a secure generator (a front end running seeded says so when it reserves), stated
    /// for neighbours that differ in one `unit`.
    pub fn planned(plan: &crate::maximize::Planned, unit: crate::privacy::Unit) -> Self {
        Self {
            per_round_epsilon: plan.split.map(|b| Public::new(b.per_round_epsilon)),
            per_round_delta: plan.split.map(|b| Public::new(b.per_round_delta)),
            composition: plan.split.map(|b| b.rule.name()),
            rounds: Public::new(plan.rounds),
            guarantee: plan.guarantee,
            guarantees: Vec::new(),
            calls: plan.calls.clone(),
            secure_rng: true,
            selection_guarantee: None,
            estimate_epsilon: None,
            edges_epsilon: None,
            unit,
        }
    }

    /// The same report stated for neighbours that differ in up to `size` of the task's
    /// records (group privacy: [`Guarantee::group`], and each call's cost
    /// [`crate::privacy::PrivacyCost::group`]); the per-round budget is unchanged. E.g. 2
    /// for one friendship of a graph given as friend lists, which sits in two of them.
    pub fn group(mut self, size: u32) -> Self {
        if size <= 1 {
            return self;
        }
        self.guarantee = self.guarantee.map(|g| g.group(size));
        self.guarantees = self.guarantees.iter().map(|g| g.group(size)).collect();
        self.selection_guarantee = self.selection_guarantee.map(|g| g.group(size));
        self.estimate_epsilon = self
            .estimate_epsilon
            .map(|e| e.map(|e| crate::numeric::round::mul_up(f64::from(size), e)));
        self.calls = self
            .calls
            .into_iter()
            .filter_map(|(cost, n)| cost.group(size).map(|c| (c, n)))
            .collect();
        self
    }

    /// The report of one run, for neighbours that differ in one `unit`.
    pub fn of(solution: &Solution, unit: crate::privacy::Unit) -> Self {
        let split = solution.budget_split;
        Self {
            per_round_epsilon: split.map(|b| Public::new(b.per_round_epsilon)),
            per_round_delta: split.map(|b| Public::new(b.per_round_delta)),
            composition: split.map(|b| b.rule.name()),
            rounds: Public::new(solution.planned_rounds),
            guarantee: solution.guarantee,
            guarantees: solution.guarantees.clone(),
            calls: solution.calls.clone(),
            secure_rng: solution.secure_rng,
            selection_guarantee: None,
            estimate_epsilon: None,
            edges_epsilon: None,
            unit,
        }
    }
}

/// Trials run per parallel chunk: large enough to keep every core busy, small enough that
/// the chunk's results take little memory.
const CHUNK: u64 = 1024;

/// Runs `run` for trials `0..count` in parallel, a chunk at a time, and hands each result to
/// `sink` in trial order (trial index, result); `done` is called once per finished trial
/// (for a progress bar). Stops at the first error, in trial order. Memory does not grow with
/// `count`: only one chunk of results is held at a time.
///
/// Reproducibility: trial t's generator is the t-th child forked from `rng`
/// ([`SecureRng::fork`] in trial order). Children are forked a chunk at a time just before
/// the chunk runs, which gives exactly the children an up-front fork of every trial would
/// give: a seeded run gives the same results whatever the number of threads.
///
/// ```
/// use disguise::SecureRng;
/// use disguise::task::trials;
/// use rand_core::Rng;
///
/// let mut sum = 0u64;
/// let mut rng = SecureRng::insecure_from_seed(1);
/// trials(10, &mut rng, &|| {}, |r| Ok(r.next_u64() % 2), |_, x| {
///     sum += x;
///     Ok::<(), disguise::Error>(())
/// })?;
/// assert!(sum <= 10);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn trials<T, F, S, E>(
    count: u64,
    rng: &mut SecureRng,
    done: &(dyn Fn() + Sync),
    run: F,
    mut sink: S,
) -> std::result::Result<(), E>
where
    T: Send,
    F: Fn(&mut SecureRng) -> Result<T> + Sync,
    S: FnMut(u64, T) -> std::result::Result<(), E>,
    E: From<Error>,
{
    let mut finished = 0u64;
    while finished < count {
        let len = CHUNK.min(count - finished);
        let forks: Vec<SecureRng> = (0..len).map(|_| rng.fork()).collect();
        let results: Vec<Result<T>> = forks
            .into_par_iter()
            .map(|mut child| {
                let out = run(&mut child);
                done();
                out
            })
            .collect();
        for (i, result) in results.into_iter().enumerate() {
            sink(finished + i as u64, result?)?;
        }
        finished += len;
    }
    Ok(())
}

/// The trials of a distributed task ([`Select::distributed_trial`],
/// [`MaxCoverage::distributed_trial`]): in the processes other than 0,
/// [`ClusterTrials::serve`] takes part in the one run; in process 0 each trial's solution is
/// handed to [`trials`] by [`ClusterTrials::keep`], and its report kept for printing.
///
/// ```
/// use disguise::maximize::Solution;
/// use disguise::task::ClusterTrials;
///
/// let kept = ClusterTrials::<u8>::new();
/// // Process 0 always gets the run's result; `None` is an error, never a silent empty run.
/// assert!(kept.keep(None::<(Solution, u8)>).is_err());
/// assert!(kept.report().is_none());
/// ```
#[cfg(feature = "cluster")]
#[derive(Debug)]
pub struct ClusterTrials<R> {
    report: std::sync::OnceLock<R>,
}

#[cfg(feature = "cluster")]
impl<R> Default for ClusterTrials<R> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "cluster")]
impl<R> ClusterTrials<R> {
    /// No trial run yet.
    pub fn new() -> Self {
        Self {
            report: std::sync::OnceLock::new(),
        }
    }

    /// In a process other than 0, serves its share of the run with `trial` and returns
    /// `true` (its generator is unused: the draws are process 0's alone); in process 0,
    /// which runs the trials, does nothing and returns `false`.
    ///
    /// # Errors
    /// The generator's failure, or `trial`'s error.
    pub fn serve<T>(
        &self,
        cluster: &crate::cluster::Cluster,
        trial: impl FnOnce(&mut SecureRng) -> Result<T>,
    ) -> Result<bool> {
        if cluster.process() == 0 {
            return Ok(false);
        }
        trial(&mut SecureRng::from_os()?)?;
        Ok(true)
    }

    /// Process 0's trial: keeps its report (the first one) and returns its solution.
    ///
    /// # Errors
    /// [`Error::Cluster`] when the trial gave process 0 no result.
    pub fn keep(&self, trial: Option<(Solution, R)>) -> Result<Solution> {
        let (solution, report) =
            trial.ok_or_else(|| Error::Cluster("process 0 got no result".into()))?;
        let _ = self.report.set(report);
        Ok(solution)
    }

    /// The report of the first trial kept.
    pub fn report(&self) -> Option<&R> {
        self.report.get()
    }
}

/// Why the coverage and feature tasks refuse the continuous greedy: only the facility
/// location task (`select`) offers it.
const CONTINUOUS_IN_SELECT: &str =
    "continuous-greedy is available for facility location (select) only";

/// The checks of a discrete selection task (coverage, cut, features) before any data: the
/// privacy options, k ≥ 1 and an algorithm of [`Algorithm::DISCRETE`]; `continuous` says why
/// the continuous greedy is not one for this task. Returns the procedure.
pub(crate) fn discrete(
    privacy: &Privacy,
    k: usize,
    algorithm: Algorithm,
    continuous: &str,
) -> Result<Procedure<'static>> {
    let procedure = privacy.procedure()?;
    if k == 0 {
        return Err(Error::param("k", "must be at least 1"));
    }
    if algorithm == Algorithm::ContinuousGreedy {
        return Err(Error::param("algorithm", continuous.to_string()));
    }
    Ok(procedure)
}

/// Refuses a `k` above the number of things to choose from (`what`: "candidates", …), the one
/// wording of that error for every task.
pub(crate) fn k_fits(k: usize, n: usize, what: &str) -> Result<()> {
    if k > n {
        return Err(Error::param(
            "k",
            format!("{k} is larger than the number of {what} ({n})"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The greedy tasks accept exactly their slice of the one vocabulary: the monotone
    /// variants, whose guarantee needs monotone scores, are refused before any data.
    #[test]
    fn the_greedy_tasks_refuse_mechanisms_outside_their_slice() {
        for &kind in SelectorKind::ALL {
            let privacy = Privacy {
                epsilon: Some(1.0),
                delta: 1e-6,
                mechanism: kind,
                ..Privacy::default()
            };
            let accepted = Privacy::MECHANISMS.contains(&kind);
            assert_eq!(privacy.procedure().is_ok(), accepted, "{kind}");
            assert_eq!(kind.call_kind().is_some() || !kind.is_private(), accepted);
        }
        let err = Privacy {
            epsilon: Some(1.0),
            mechanism: SelectorKind::ExponentialMonotone,
            ..Privacy::default()
        }
        .procedure()
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("em-monotone is private only for monotone scores"),
            "{err}"
        );
        let err = SelectorKind::from_name_among("em-monotone", Privacy::MECHANISMS)
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"em-monotone\" does not apply here"), "{err}");
    }

    #[test]
    fn privacy_options_are_validated_before_any_data() {
        let ok = Privacy {
            epsilon: Some(1.0),
            ..Privacy::default()
        };
        assert!(ok.procedure().is_ok());
        let missing = Privacy::default().procedure().unwrap_err().to_string();
        assert!(
            missing.starts_with("invalid epsilon: required"),
            "{missing}"
        );
        let lmm = Privacy {
            mechanism: SelectorKind::LargeMargin,
            ..ok
        };
        assert!(
            lmm.procedure()
                .unwrap_err()
                .to_string()
                .contains("needs δ > 0")
        );
        let argmax = Privacy {
            mechanism: SelectorKind::Argmax,
            composition: CompositionChoice::Basic,
            ..ok
        };
        assert!(
            argmax
                .procedure()
                .unwrap_err()
                .to_string()
                .contains("no budget to split")
        );
        let huge = Privacy {
            epsilon: Some(1e6),
            ..ok
        };
        assert!(
            huge.procedure()
                .unwrap_err()
                .to_string()
                .contains("too large")
        );
    }

    #[test]
    fn trials_stop_at_the_first_error_in_trial_order() {
        let mut rng = SecureRng::insecure_from_seed(1);
        let mut seen = 0;
        let err = trials(
            3000,
            &mut rng,
            &|| {},
            |_| Ok(()),
            |t, ()| {
                seen += 1;
                if t == 1500 {
                    return Err(Error::param("trial", format!("stop at {t}")));
                }
                Ok(())
            },
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "invalid trial: stop at 1500");
        assert_eq!(seen, 1501);
    }

    #[test]
    fn trials_are_in_order_and_independent_of_threads() {
        use rand_core::Rng;
        let collect = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut out = Vec::new();
                let mut rng = SecureRng::insecure_from_seed(7);
                trials(
                    2500,
                    &mut rng,
                    &|| {},
                    |r| Ok(r.next_u64()),
                    |t, x| {
                        assert_eq!(t as usize, out.len());
                        out.push(x);
                        Ok::<(), Error>(())
                    },
                )
                .unwrap();
                out
            })
        };
        let one = collect(1);
        assert_eq!(one, collect(3));
        // Up-front forks give the same children as forks a chunk at a time.
        let mut rng = SecureRng::insecure_from_seed(7);
        let up_front: Vec<u64> = (0..2500).map(|_| rng.fork().next_u64()).collect();
        assert_eq!(one, up_front);
    }
}
