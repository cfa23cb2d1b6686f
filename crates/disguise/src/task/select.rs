//! [`Select`]: choose k public candidates that serve a set of private points well — private
//! facility location (Mitrovic et al. 2017, §6.1) under a cardinality or matroid constraint,
//! by the private greedy (Algorithms 1–2), subsample-greedy (Algorithm 4) or the private
//! continuous greedy (Rafiey & Yoshida 2020).
//!
//! Privacy: each point is one person's record; neighbouring datasets differ in one record
//! (replace-one). Facility location with similarities in [0, 1] has sensitivity 1 per
//! marginal gain, so every round is the mechanism's ε₀-DP (or (ε₀, δ₀)-DP) selection and the
//! run is as private as the composition rule in [`SelectReport::privacy`] proves. The
//! candidates, k, the constraint and the normaliser are public: the normaliser must not be
//! computed from the points (the default, the diameter of the candidates' bounding box,
//! is public).

use super::sharded::OnShards;
use super::usefulness::{ContinuousDirections, ContinuousRun, GreedyRun};
use super::{
    Algorithm, Privacy, PrivacyReport, Report, Reporting, Runnable, Usefulness, WithPrivacy,
};
use crate::constraint::{Cardinality, Independence, Intersection, Matroid};
use crate::disclosure::{Disclose, Public};
use crate::error::{Error, Result};
use crate::maximize::{
    ContinuousGreedy, Directions, Procedure, Solution, continuous_greedy, greedy, planned,
    subsample_greedy,
};
use crate::names::Named;
use crate::noise::SecureRng;
use crate::numeric::display::thousands;
use crate::objective::penalized::MAX_COST;
use crate::objective::{
    ClosedForm, FacilityLocation, FacilityMultilinear, GradientOracle, Metric, Normalizer,
    Penalized, SampledGradient, SetFunction,
};
use crate::privacy::Unit;
use serde::Serialize;

/// A private facility-location selection: k (or a matroid constraint), the metric and
/// normaliser, the algorithm and the privacy options. Build it with [`Select::new`] and the
/// setters, then [`Select::run`] it on the points and candidates; every option is validated
/// by [`Select::validate`] before any data is read.
///
/// ```
/// use disguise::prelude::*;
/// use disguise::task::{CompositionChoice, WithPrivacy};
///
/// let points = [[0.0, 0.0], [0.0, 1.0], [4.0, 4.0], [4.0, 5.0]];
/// let candidates = [[0.0, 0.5], [4.0, 4.5], [9.0, 9.0]];
/// let request = Select::new(2)
///     .epsilon(1.0)
///     .delta(1e-6)
///     .composition(CompositionChoice::Basic)
///     .normalizer(6.0);
/// let report = request.run(&points, &candidates, &mut SecureRng::insecure_from_seed(1))?;
/// assert_eq!(report.privacy.composition, Some("basic"));
/// assert_eq!(report.privacy.per_round_epsilon.map(|e| *e), Some(0.5));
/// assert!(!*report.secure_rng); // a seeded run protects no one
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Select {
    /// The number of candidates to choose; `None` with a constraint means its rank.
    pub k: Option<usize>,
    /// A matroid constraint over the candidates (`partition:FILE`, `cardinality:K`,
    /// `graphic:FILE`; see [`Matroid::from_spec`]), intersected with `k` when both are given.
    pub constraint: Option<String>,
    /// The distance between points and candidates.
    pub metric: Metric,
    /// The public distance m at which a candidate stops serving a point (similarity
    /// 1 − min(1, d/m)); `None`: the diameter of the candidates' bounding box.
    pub normalizer: Option<f64>,
    /// The algorithm, or auto: the task chooses ([`Select::chosen_algorithm`]).
    pub algorithm: Algorithm,
    /// Options of [`Algorithm::ContinuousGreedy`].
    pub continuous: ContinuousOptions,
    /// A public cost per chosen candidate, in units of points served: the objective is then
    /// f(S) − cost·|S| ([`Penalized`]), non-monotone for cost > 0, so that only candidates
    /// worth their cost are chosen. No utility guarantee applies then: the greedy has none
    /// for a non-monotone objective, and the subsample algorithm's (Mitrovic et al. 2017,
    /// Theorem 4.1) needs f ≥ 0, which public quantities cannot ensure
    /// ([`Usefulness::subsample_not_non_negative`]). 0 (the default): none.
    pub cost: f64,
    /// The budget, mechanism and composition rule.
    pub privacy: Privacy,
}

/// Options of the private continuous greedy (ignored by, and refused with, the other
/// algorithms).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ContinuousOptions {
    /// The number of steps T (default r², the paper's Θ(r(M)²)).
    pub steps: Option<usize>,
    /// How each step's base is chosen.
    pub directions: Directions,
    /// Estimate the gradient from this many random sets per step instead of the exact closed
    /// form.
    pub gradient_samples: Option<usize>,
}

/// Where the normaliser of a run came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NormalizerSource {
    /// Given with the request.
    Given,
    /// The diameter of the candidates' bounding box (public).
    CandidateBoundingBox,
}

impl WithPrivacy for Select {
    fn privacy_mut(&mut self) -> &mut Privacy {
        &mut self.privacy
    }
}

impl Select {
    /// k candidates by the private greedy with the exponential mechanism, Manhattan
    /// distance and the default normaliser; set the budget with [`Select::epsilon`].
    pub fn new(k: usize) -> Self {
        Self {
            k: Some(k),
            constraint: None,
            metric: Metric::Manhattan,
            normalizer: None,
            algorithm: Algorithm::Auto,
            continuous: ContinuousOptions::default(),
            cost: 0.0,
            privacy: Privacy::default(),
        }
    }

    /// A selection under a matroid constraint only (k is its rank).
    pub fn constrained(spec: impl Into<String>) -> Self {
        Self {
            k: None,
            constraint: Some(spec.into()),
            ..Self::new(0)
        }
    }

    /// The distance.
    pub fn metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self
    }

    /// A public normaliser m.
    pub fn normalizer(mut self, m: f64) -> Self {
        self.normalizer = Some(m);
        self
    }

    /// A matroid constraint, intersected with k.
    pub fn constraint(mut self, spec: impl Into<String>) -> Self {
        self.constraint = Some(spec.into());
        self
    }

    /// The greedy algorithm.
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Options of the continuous greedy.
    pub fn continuous(mut self, options: ContinuousOptions) -> Self {
        self.continuous = options;
        self
    }

    /// A public cost per chosen candidate (see [`Select::cost`](Select#structfield.cost)).
    pub fn cost(mut self, cost: f64) -> Self {
        self.cost = cost;
        self
    }

    /// The algorithm that runs: the one asked for, or for [`Algorithm::Auto`] the one with a
    /// guarantee for this objective — the greedy, or with a cost and no matroid the
    /// subsample-greedy, the paper's algorithm for a non-monotone objective (its guarantee
    /// needs f ≥ 0, which a cost does not keep: the report says so).
    pub fn chosen_algorithm(&self) -> Algorithm {
        self.algorithm
            .or(if self.cost > 0.0 && self.constraint.is_none() {
                Algorithm::Subsample
            } else {
                Algorithm::Greedy
            })
    }

    /// Validates every option that needs no data and builds the selection procedure.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the option (`k`, `epsilon`, `delta`,
    /// `composition`, `algorithm`, `normalizer`, `steps`, `constraint`), or
    /// [`Error::InvalidEpsilon`] / [`Error::InvalidDelta`].
    pub fn validate(&self) -> Result<Procedure<'static>> {
        let procedure = self.privacy.procedure()?;
        if self.k == Some(0) {
            return Err(Error::param("k", "must be at least 1"));
        }
        if self.k.is_none() && self.constraint.is_none() {
            return Err(Error::param(
                "k",
                "required (the number of candidates to choose), e.g. 5",
            ));
        }
        if self.chosen_algorithm() == Algorithm::Subsample && self.constraint.is_some() {
            return Err(Error::param(
                "algorithm",
                "subsample supports only a cardinality constraint (k), not a matroid constraint",
            ));
        }
        if let Some(m) = self.normalizer
            && !(m.is_finite() && m > 0.0)
        {
            return Err(Error::param(
                "normalizer",
                format!("must be finite and > 0, got {m}"),
            ));
        }
        if !(self.cost.is_finite() && (0.0..=MAX_COST).contains(&self.cost)) {
            return Err(Error::param(
                "cost",
                format!(
                    "must be in [0, {MAX_COST}] (points served per candidate), got {}",
                    self.cost
                ),
            ));
        }
        if self.cost > 0.0 && self.chosen_algorithm() == Algorithm::ContinuousGreedy {
            return Err(Error::param(
                "cost",
                "the continuous greedy needs a monotone objective; with a cost use subsample",
            ));
        }
        let c = &self.continuous;
        if self.chosen_algorithm() != Algorithm::ContinuousGreedy {
            if *c != ContinuousOptions::default() {
                return Err(Error::param(
                    "steps",
                    "steps, directions and gradient samples apply only to the continuous greedy",
                ));
            }
        } else {
            if c.steps == Some(0) {
                return Err(Error::param(
                    "steps",
                    "the continuous greedy needs at least 1 step",
                ));
            }
            if self.k.is_some() && self.constraint.is_some() {
                return Err(Error::param(
                    "constraint",
                    "the continuous greedy needs one matroid: give k or a constraint, not both \
                     (their intersection is not a matroid)",
                ));
            }
            if !matches!(
                self.privacy.mechanism,
                super::SelectorKind::Exponential | super::SelectorKind::Argmax
            ) {
                return Err(Error::param(
                    "mechanism",
                    format!(
                        "the continuous greedy chooses among bases with the exponential \
                         mechanism; {} is not supported",
                        self.privacy.mechanism
                    ),
                ));
            }
        }
        Ok(procedure)
    }

    /// The facility-location objective of the points and candidates, with this request's
    /// metric and normaliser. The points are copied into the objective's own compact form:
    /// the caller may drop them.
    ///
    /// # Errors
    /// `k` larger than the number of candidates; a normaliser that cannot be used (the
    /// default one needs candidates spread over a measurable box); points invalid for the
    /// metric.
    pub fn objective(
        &self,
        points: &[[f64; 2]],
        candidates: &[[f64; 2]],
    ) -> Result<FacilityLocation> {
        let normalizer = location_normalizer(self.k, self.metric, self.normalizer, candidates)?;
        FacilityLocation::new(
            self.metric,
            points,
            candidates,
            Normalizer::Fixed(normalizer),
        )
    }

    /// [`Select::objective`] for points with `dims` coordinates each (feature vectors),
    /// row-major ([`FacilityLocation::from_vectors`]; Manhattan or Euclidean). With
    /// `dims` = 2 it is the same objective as [`Select::objective`], so the same run.
    ///
    /// ```
    /// use disguise::objective::Metric;
    /// use disguise::prelude::*;
    /// // Four records and three candidates in three dimensions.
    /// let points = [0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 5.0, 5.0, 5.0, 5.1, 5.0, 5.0];
    /// let candidates = [0.0, 0.0, 0.0, 5.0, 5.0, 5.0, 9.0, 0.0, 9.0];
    /// let request = Select::new(2).epsilon(1.0).metric(Metric::Euclidean);
    /// let objective = request.objective_vectors(3, &points, &candidates)?;
    /// let report = request.prepare(&objective)?.run_once(&mut SecureRng::from_os()?)?;
    /// assert_eq!(report.elements.len(), 2);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// `k` larger than the number of candidates; as [`FacilityLocation::from_vectors`].
    pub fn objective_vectors(
        &self,
        dims: usize,
        points: &[f64],
        candidates: &[f64],
    ) -> Result<FacilityLocation> {
        let m = candidates.len().checked_div(dims).unwrap_or(0);
        if let Some(k) = self.k {
            super::k_fits(k, m, "candidates")?;
        }
        let normalizer = match self.normalizer {
            Some(v) => Normalizer::Fixed(v),
            None => Normalizer::CandidateBoundingBox,
        };
        FacilityLocation::from_vectors(self.metric, dims, points, candidates, normalizer).map_err(
            |e| match e {
                Error::InvalidParameter { name, .. }
                    if name == "normalizer" && self.normalizer.is_none() =>
                {
                    Error::param(
                        "normalizer",
                        "the candidates' bounding box is empty or degenerate, so the default \
                         normaliser (its diagonal) cannot be used: give the normaliser m, the \
                         public distance at which a candidate stops serving a point",
                    )
                }
                e => e,
            },
        )
    }

    /// Everything a run needs that does not change between trials: the procedure, the
    /// constraint (read from its file once) and, for the continuous greedy, the closed form
    /// of the multilinear extension.
    pub fn prepare<'o>(&self, objective: &'o FacilityLocation) -> Result<PreparedSelect<'o>> {
        self.prepare_with(objective, self.validate()?)
    }

    /// [`Select::prepare`] with the procedure [`Select::validate`] returned.
    fn prepare_with<'o>(
        &self,
        objective: &'o FacilityLocation,
        procedure: Procedure<'static>,
    ) -> Result<PreparedSelect<'o>> {
        let parts = self.matroids(objective.ground_size())?;
        let continuous = if self.chosen_algorithm() == Algorithm::ContinuousGreedy {
            // validate() made sure there is exactly one matroid.
            let Some(matroid) = parts.first().cloned() else {
                return Err(Error::param("k", "k or a constraint is required"));
            };
            Some(Continuous::new(objective, matroid, &self.continuous)?)
        } else {
            None
        };
        let constraint = Intersection::new(parts)?;
        let k = self.k.unwrap_or_else(|| constraint.rank_bound());
        if self.cost > 0.0 {
            // Checked once here; each run wraps its objective (local or distributed) again.
            Penalized::new(objective, self.cost)?;
        }
        Ok(PreparedSelect {
            request: self.clone(),
            objective,
            records: objective.num_records(),
            constraint,
            k,
            procedure,
            continuous,
        })
    }

    /// The matroids whose intersection constrains the picks among `m` candidates: the
    /// constraint file's and the cardinality k's.
    fn matroids(&self, m: usize) -> Result<Vec<Matroid>> {
        let mut parts = Vec::new();
        if let Some(spec) = &self.constraint {
            parts.push(Matroid::from_spec(spec, m)?);
        }
        if let Some(k) = self.k {
            parts.push(Matroid::from(Cardinality::new(m, k)));
        }
        Ok(parts)
    }

    /// What a run will spend among `candidates` public candidates, planned before any record
    /// is read — by the algorithm's own count of calls and the accountant
    /// ([`crate::maximize::planned`]): the report's privacy, which a budget ledger reserves
    /// first. Facility location is 1-decomposable with λ = 1 in every round, so the greedy
    /// may use the decomposable rule (not with a cost: f − cost·|S| is not decomposable).
    ///
    /// ```
    /// use disguise::prelude::*;
    /// # let points = [[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]];
    /// # let candidates = [[0.0, 0.0], [5.0, 5.0], [9.0, 0.0]];
    /// let request = Select::new(2).epsilon(1.0);
    /// let plan = request.plan(candidates.len())?;
    /// let report = request.run(&points, &candidates, &mut SecureRng::from_os()?)?;
    /// assert_eq!(plan.guarantee, report.privacy.guarantee);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Select::validate`]; k larger than the candidates; a constraint file that cannot
    /// be read.
    pub fn plan(&self, candidates: usize) -> Result<PrivacyReport> {
        let procedure = self.validate()?;
        if let Some(k) = self.k
            && k > candidates
        {
            return Err(Error::param(
                "k",
                format!("{k} is larger than the number of candidates ({candidates})"),
            ));
        }
        let parts = self.matroids(candidates)?;
        let plan = match self.chosen_algorithm() {
            Algorithm::ContinuousGreedy => {
                let Some(matroid) = parts.first() else {
                    return Err(Error::param("k", "k or a constraint is required"));
                };
                let options = ContinuousGreedy {
                    steps: self.continuous.steps,
                    directions: self.continuous.directions,
                };
                let calls = options.planned_calls(
                    matroid.rank_bound(),
                    crate::maximize::MatroidBases::uniform_blocks(matroid).is_some(),
                )?;
                planned(&procedure, calls, false)?
            }
            Algorithm::Subsample => {
                let k = match self.k {
                    Some(k) => k,
                    None => Intersection::new(parts)?.rank_bound(),
                };
                planned(&procedure, k, false)?
            }
            // Never Auto here (chosen): the greedy's arm, for an exhaustive match.
            Algorithm::Greedy | Algorithm::Auto => {
                let rounds = Intersection::new(parts)?.rank_bound();
                planned(&procedure, rounds, self.cost == 0.0)?
            }
        };
        Ok(PrivacyReport::planned(&plan, Unit::Record))
    }

    /// One private selection: validates, builds the objective, runs once and reports.
    ///
    /// # Errors
    /// As [`Select::validate`], [`Select::objective`] and [`Select::prepare`].
    pub fn run(
        &self,
        points: &[[f64; 2]],
        candidates: &[[f64; 2]],
        rng: &mut SecureRng,
    ) -> Result<SelectReport> {
        // Validated before the objective is built, and only once.
        let procedure = self.validate()?;
        let objective = self.objective(points, candidates)?;
        self.prepare_with(&objective, procedure)?.run_report(rng)
    }
}

#[cfg(feature = "cluster")]
impl Select {
    /// [`Select::run`] over records spread on a [`Cluster`](crate::cluster::Cluster): `load`
    /// gives each worker its own records (the [`Place`](crate::cluster::Place) says which part
    /// of the input is its); the candidates are public and the same on every worker. Returns
    /// the report in process 0 and `None` in the others.
    ///
    /// Each round every worker computes its records' gains for all candidates, process 0 sums
    /// them exactly and draws the choice with `rng`: the guarantee is [`Select::run`]'s on all
    /// the records, and with a seeded `rng` so is the report, bit for bit, whatever the
    /// partition (see [`crate::cluster`]).
    ///
    /// ```
    /// use disguise::cluster::Cluster;
    /// use disguise::prelude::*;
    /// let points: Vec<[f64; 2]> = (0..600).map(|i| [(i % 3) as f64, 0.0]).collect();
    /// let candidates = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [9.0, 9.0]];
    /// let request = Select::new(2).epsilon(1.0).normalizer(1.0);
    /// let one = request.run(&points, &candidates, &mut SecureRng::insecure_from_seed(7))?;
    /// let shared = points.clone();
    /// let spread = request.run_distributed(
    ///     &Cluster::local(3)?,
    ///     move |place| Ok(shared.iter().enumerate()
    ///         .filter(|(i, _)| place.owns_row(*i as u64)).map(|(_, p)| *p).collect()),
    ///     &candidates,
    ///     &mut SecureRng::insecure_from_seed(7),
    /// )?;
    /// assert_eq!(spread, Some(one));
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Select::run`]; the continuous greedy is refused (it runs in one process); a
    /// worker's `load` error; [`Error::Cluster`] if a peer fails.
    pub fn run_distributed<L>(
        &self,
        cluster: &crate::cluster::Cluster,
        load: L,
        candidates: &[[f64; 2]],
        rng: &mut SecureRng,
    ) -> Result<Option<SelectReport>>
    where
        L: Fn(crate::cluster::Place) -> Result<Vec<[f64; 2]>> + Send + Sync + 'static,
    {
        let trial = self.distributed_trial(cluster, load, candidates, &mut rng.fork())?;
        Ok(trial.map(|(_, report)| report))
    }

    /// One distributed run on `rng` itself (as [`Runnable::run`], where
    /// [`Select::run_distributed`] forks as [`Runnable::run_once`] does): the solution and its
    /// report in process 0, `None` in the others. The command line's `--workers`/`--hosts`.
    ///
    /// # Errors
    /// As [`Select::run_distributed`].
    pub fn distributed_trial<L>(
        &self,
        cluster: &crate::cluster::Cluster,
        load: L,
        candidates: &[[f64; 2]],
        rng: &mut SecureRng,
    ) -> Result<Option<(Solution, SelectReport)>>
    where
        L: Fn(crate::cluster::Place) -> Result<Vec<[f64; 2]>> + Send + Sync + 'static,
    {
        let procedure = self.validate()?;
        if self.chosen_algorithm() == Algorithm::ContinuousGreedy {
            return Err(Error::param(
                "algorithm",
                "the continuous greedy runs in one process only: its multilinear extension is \
                 not computed shard by shard",
            ));
        }
        // The objective over no records: its public parts (candidates, normaliser) are
        // everyone's.
        let public = self.objective(&[], candidates)?;
        let build = self.clone();
        let shared = candidates.to_vec();
        cluster.maximize(
            &public,
            move |comm| build.objective(&load(comm.place())?, &shared),
            |f| super::sharded::shard_trial(self.prepare_with(f.local(), procedure)?, f, rng),
        )
    }
}

/// The normaliser of a location task on `candidates` — the given one, else
/// [`default_normalizer`] — after checking that k (if given) fits the candidates.
pub(crate) fn location_normalizer(
    k: Option<usize>,
    metric: Metric,
    normalizer: Option<f64>,
    candidates: &[[f64; 2]],
) -> Result<f64> {
    let m = candidates.len();
    if let Some(k) = k
        && k > m
    {
        return Err(Error::param(
            "k",
            format!("{k} is larger than the number of candidates ({m})"),
        ));
    }
    match normalizer {
        Some(v) => Ok(v),
        None => default_normalizer(metric, candidates),
    }
}

/// The default normaliser of facility location: the diameter of the candidates' bounding box
/// (public, since the candidates are), or an error saying why it cannot serve.
pub fn default_normalizer(metric: Metric, candidates: &[[f64; 2]]) -> Result<f64> {
    Normalizer::CandidateBoundingBox
        .resolve(metric, candidates)
        .map_err(|_| {
            let why = match candidates {
                [] => "there are no candidates".to_string(),
                [_] => "there is only one candidate".to_string(),
                [first, rest @ ..] if rest.iter().all(|c| c == first) => {
                    format!("all {} candidates are at the same place", candidates.len())
                }
                _ => "their bounding box is too small or too large to measure distances with \
                     (its diameter must be in [1e-30, 1e30])"
                    .to_string(),
            };
            Error::param(
                "normalizer",
                format!(
                    "{why}, so the default normaliser (the diameter of the candidates' \
                     bounding box) cannot be used: give the normaliser m, the public distance \
                     at which a candidate stops serving a point (e.g. 0.266)"
                ),
            )
        })
}

/// A [`Select`] ready to run any number of trials on one objective.
pub struct PreparedSelect<'o> {
    request: Select,
    objective: &'o FacilityLocation,
    /// The records the objective sums over: the objective's own, or all shards' in a
    /// distributed run.
    records: usize,
    constraint: Intersection,
    k: usize,
    procedure: Procedure<'static>,
    continuous: Option<Continuous<'o>>,
}

impl Runnable for PreparedSelect<'_> {
    type Output = Solution;

    fn run(&self, rng: &mut SecureRng) -> Result<Solution> {
        match &self.continuous {
            Some(c) => c.run(&self.procedure, rng),
            None => self.run_on(self.objective, rng),
        }
    }
}

impl OnShards for PreparedSelect<'_> {
    /// The discrete algorithms on `f` (f − cost·|S| when a cost is given).
    fn run_on<F: SetFunction + ?Sized>(&self, f: &F, rng: &mut SecureRng) -> Result<Solution> {
        if self.request.cost > 0.0 {
            let f = Penalized::new(f, self.request.cost)?;
            return match self.request.chosen_algorithm() {
                Algorithm::Subsample => subsample_greedy(&f, self.k, &self.procedure, rng),
                _ => greedy(&f, &self.constraint, &self.procedure, rng),
            };
        }
        match self.request.chosen_algorithm() {
            Algorithm::Subsample => subsample_greedy(f, self.k, &self.procedure, rng),
            _ => greedy(f, &self.constraint, &self.procedure, rng),
        }
    }

    fn count_records(&mut self, records: usize) {
        self.records = records;
    }
}

impl<'o> PreparedSelect<'o> {
    /// The number of picks of a run (k, or the constraint's rank).
    pub fn k(&self) -> usize {
        self.k
    }

    /// The objective.
    pub fn objective(&self) -> &'o FacilityLocation {
        self.objective
    }
}

impl Reporting for PreparedSelect<'_> {
    type Params = SelectParams;

    /// The utility of an objective value: f(S)/n ∈ [0, 1].
    fn utility(&self, value: f64) -> f64 {
        value / self.records as f64
    }

    /// The greedy's a-priori utility for a run, from public quantities only (n, k, the
    /// number of candidates, ε₀ and the constraint's shape): Mitrovic et al. 2017,
    /// Theorems 3.2, 3.5 and 4.1 for the exponential mechanism (with a cost, no guarantee:
    /// [`Usefulness::subsample_not_non_negative`]), the G₁ condition for the large margin
    /// mechanisms; for the continuous greedy its explicit bound
    /// (`docs/proofs/utility-bounds.md` §4) from T, r, the bases, ε₀, the calibration of
    /// the run's calls and the gradient's accuracy. `None` for report noisy max and the
    /// argmax.
    fn usefulness(&self, solution: &Solution) -> Option<Usefulness> {
        if let Some(continuous) = &self.continuous {
            if self.request.privacy.mechanism != super::SelectorKind::Exponential {
                return None;
            }
            let run = continuous.bound_parameters(self.records, solution)?;
            return Some(Usefulness::continuous_greedy(&run));
        }
        let lambdas = vec![1.0; self.k];
        GreedyRun {
            mechanism: self.request.privacy.mechanism,
            algorithm: self.request.chosen_algorithm(),
            matroids: if self.request.constraint.is_some() {
                self.constraint.parts().len()
            } else {
                0
            },
            lambdas: &lambdas,
            f_max: self.records as f64,
            m: self.objective.ground_size(),
            counts: true,
            monotone: self.request.cost <= 0.0,
            // f − cost·|S| is not provably ≥ 0 for a positive cost
            // (`Usefulness::subsample_not_non_negative`); facility location alone is.
            non_negative: self.request.cost <= 0.0,
        }
        .usefulness(solution)
    }

    /// The task's public parameters as a report states them, `algorithm` and `constraint`
    /// as the run names them.
    fn params(&self, solution: &Solution) -> SelectParams {
        SelectParams {
            objective: solution.objective,
            algorithm: solution.algorithm,
            mechanism: self.request.privacy.mechanism.name(),
            constraint: solution.constraint,
            metric: self.request.metric.name(),
            // Given, or the public candidates' bounding box (`default_normalizer`).
            normalizer: Public::new(self.objective.normalizer().unwrap_or(f64::NAN)),
            normalizer_source: Public::new(if self.request.normalizer.is_some() {
                NormalizerSource::Given
            } else {
                NormalizerSource::CandidateBoundingBox
            }),
            points: Public::new(self.records),
            candidates: Public::new(self.objective.ground_size()),
            k: Public::new(self.k),
            cost: Public::new(self.request.cost),
        }
    }

    fn unit(&self) -> Unit {
        Unit::Record
    }
}

/// The report of one [`Select`] run ([`Report`] with [`SelectParams`]). The values and
/// utilities (f(S)/n) are computed on the private points for evaluation: they are NOT
/// covered by the privacy guarantee, which protects the selection only.
pub type SelectReport = Report<SelectParams>;

/// The public parameters of a [`Select`] run, defaults resolved, as its [`Report`] states
/// them.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct SelectParams {
    /// The objective (`facility-location`).
    pub objective: &'static str,
    /// The algorithm that ran.
    pub algorithm: &'static str,
    /// The selection of every round ([`SelectorKind`](super::SelectorKind) name).
    pub mechanism: &'static str,
    /// The constraint.
    pub constraint: &'static str,
    /// The metric.
    pub metric: &'static str,
    /// The normaliser m used.
    pub normalizer: Public<f64>,
    /// Where m came from.
    pub normalizer_source: Public<NormalizerSource>,
    /// The number of points (records).
    pub points: Public<usize>,
    /// The number of candidates.
    pub candidates: Public<usize>,
    /// The number of picks planned (k, or the constraint's rank).
    pub k: Public<usize>,
    /// The public cost per chosen candidate (absent when 0): values are f(S) − cost·|S|.
    #[serde(skip_serializing_if = "is_zero")]
    pub cost: Public<f64>,
}

impl super::Params for SelectParams {
    fn mechanism(&self) -> &'static str {
        self.mechanism
    }
    /// f(S)/n with f facility location (each record's term in [0, 1], so one record moves
    /// it by 1/n: [`FacilityLocation`](crate::objective::FacilityLocation)'s *Sensitivity*)
    /// minus the public cost of the k picks, in [−cost·k/n, 1].
    fn utility_scale(&self) -> Result<super::UtilityScale> {
        let low = -(*self.cost * *self.k as f64) / (*self.points).max(1) as f64;
        super::UtilityScale::of(1.0, *self.points, low.min(0.0), 1.0)
    }
}

/// Whether a cost is absent (serde's `skip_serializing_if` takes a reference).
fn is_zero(cost: &Public<f64>) -> bool {
    **cost == 0.0
}

/// The continuous greedy, prepared once: the matroid, the options and the precomputed closed
/// form (or the sampling estimator).
struct Continuous<'o> {
    matroid: Matroid,
    options: ContinuousGreedy,
    gradient: Gradient<'o>,
}

enum Gradient<'o> {
    Closed(FacilityMultilinear<'o>),
    Sampled(SampledGradient<'o, FacilityLocation>),
}

impl<'o> Continuous<'o> {
    fn new(
        objective: &'o FacilityLocation,
        matroid: Matroid,
        options: &ContinuousOptions,
    ) -> Result<Self> {
        check_size(&matroid, options.directions, options.steps)?;
        let gradient = match options.gradient_samples {
            Some(m) => Gradient::Sampled(SampledGradient::new(objective, m)?),
            None => Gradient::Closed(objective.multilinear()?),
        };
        Ok(Self {
            matroid,
            options: ContinuousGreedy {
                steps: options.steps,
                directions: options.directions,
            },
            gradient,
        })
    }

    /// What the continuous greedy's bound reads of a run: the public parameters, ε₀ of the
    /// budget split, the largest sensitivity the run's calls were calibrated to and the
    /// gradient's a-priori accuracy. `None` without a split or without a call (rank 0).
    fn bound_parameters(&self, records: usize, solution: &Solution) -> Option<ContinuousRun> {
        use crate::maximize::MatroidBases;
        let blocks = self.matroid.uniform_blocks();
        let directions = match self.options.resolved_directions(blocks.is_some()).ok()? {
            Directions::Bases => ContinuousDirections::Bases {
                ln_bases: blocks
                    .iter()
                    .flatten()
                    .map(|b| ln_binomial(b.elements.len(), b.size))
                    .sum(),
            },
            Directions::Sequential => ContinuousDirections::Sequential,
            _ => ContinuousDirections::Sampled,
        };
        let sensitivity = solution
            .rounds
            .iter()
            .map(|r| r.sensitivity.get())
            .reduce(f64::max)?;
        let (gradient_error, gradient_samples) = match &self.gradient {
            Gradient::Closed(g) => (g.error_bound().absolute, None),
            Gradient::Sampled(g) => (g.error_bound().absolute, Some(g.samples())),
        };
        let rank = self.matroid.rank_bound();
        Some(ContinuousRun {
            f_max: records as f64,
            rank,
            steps: self.options.steps_for(rank),
            candidates: self.matroid.ground_size(),
            directions,
            epsilon0: solution.budget_split.as_ref()?.per_round_epsilon,
            sensitivity,
            gradient_error,
            gradient_samples,
        })
    }

    fn run(&self, procedure: &Procedure<'_>, rng: &mut SecureRng) -> Result<Solution> {
        match &self.gradient {
            Gradient::Closed(g) => {
                continuous_greedy(g, &self.matroid, &self.options, procedure, rng)
            }
            Gradient::Sampled(g) => {
                continuous_greedy(g, &self.matroid, &self.options, procedure, rng)
            }
        }
    }
}

/// ln C(n, k), summed term by term (k ≤ n; 0 when k ≥ n or k = 0).
fn ln_binomial(n: usize, k: usize) -> f64 {
    let k = k.min(n - k.min(n));
    (1..=k).map(|i| ((n - k + i) as f64 / i as f64).ln()).sum()
}

/// Refuses, before anything runs, a number of steps or of sampled bases whose records would
/// not fit in memory: a run keeps one selector record per call (r per step with sequential
/// directions) and one base of r elements per step, and `sampled:N` draws N bases per step.
fn check_size(matroid: &Matroid, directions: Directions, steps: Option<usize>) -> Result<()> {
    let rank = matroid.rank_bound() as u128;
    // The default T = r² (the paper's Θ(r(M)²)).
    let steps_value = steps.map_or((rank * rank).max(1), |t| t as u128);
    let what = match steps {
        Some(t) => format!("{} steps", thousands(t as u64)),
        None => format!(
            "the default number of steps, r² = {} for rank r = {rank}",
            thousands(u64::try_from(steps_value).unwrap_or(u64::MAX))
        ),
    };
    // `auto` becomes sequential (r calls per step) on matroids without exact base sampling.
    let calls_per_step = match directions {
        Directions::Sequential | Directions::Auto => rank.max(1),
        _ => 1,
    };
    // Growing vectors may hold up to twice their length; a base is a vector of r indices.
    let round = 2 * std::mem::size_of::<crate::maximize::Round>() as u128;
    let base = 2 * (32 + 8 * rank);
    let per_step = calls_per_step * round + base;
    crate::memory::check(
        &what,
        steps_value.saturating_mul(per_step),
        "use fewer steps (each step keeps a record of its selector calls and its base)",
    )?;
    if let Directions::Sampled { count } = directions {
        crate::memory::check(
            &format!("sampling {} bases per step", thousands(count as u64)),
            (count as u128).saturating_mul(32 + 8 * rank + 16),
            "sample fewer bases per step (each is a list of r candidates held at once)",
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::SelectorKind;
    use crate::task::CompositionChoice;

    fn data() -> (Vec<[f64; 2]>, Vec<[f64; 2]>) {
        let points = (0..40)
            .map(|i| [(i % 4) as f64 * 3.0, (i / 10) as f64 * 0.1])
            .collect();
        let candidates = vec![[0.0, 0.0], [3.0, 0.0], [6.0, 0.0], [9.0, 0.0], [20.0, 20.0]];
        (points, candidates)
    }

    #[test]
    fn the_request_runs_what_the_library_calls_run() {
        let (points, candidates) = data();
        let request = Select::new(3).epsilon(2.0).delta(1e-6);
        let report = request
            .run(&points, &candidates, &mut SecureRng::insecure_from_seed(3))
            .unwrap();
        // The same run assembled by hand from the library's parts, on the generator a single
        // trial forks from the seeded one (as the command line does).
        let objective = FacilityLocation::new(
            Metric::Manhattan,
            &points,
            &candidates,
            Normalizer::CandidateBoundingBox,
        )
        .unwrap();
        let procedure = request.privacy.procedure().unwrap();
        let constraint = Intersection::new(vec![Matroid::from(Cardinality::new(5, 3))]).unwrap();
        let by_hand = greedy(
            &objective,
            &constraint,
            &procedure,
            &mut SecureRng::insecure_from_seed(3).fork(),
        )
        .unwrap();
        assert_eq!(*report.choice.selected, by_hand.elements);
        assert_eq!(*report.choice.values.reveal(), by_hand.values);
        assert_eq!(report.privacy.guarantee, by_hand.guarantee);
        assert_eq!(*report.task.k, 3);
        assert_eq!(*report.task.points, 40);
        assert_eq!(
            *report.task.normalizer_source,
            NormalizerSource::CandidateBoundingBox
        );
        assert_eq!(*report.choice.final_utility.reveal(), by_hand.value / 40.0);
        assert!(report.privacy.guarantee.unwrap().epsilon <= 2.0);
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["mechanism"], "em");
        assert_eq!(json["normalizer_source"], "candidate_bounding_box");
    }

    #[test]
    fn options_are_refused_before_the_data_is_read() {
        let cases: [(Select, &str); 7] = [
            (Select::new(0).epsilon(1.0), "invalid k: must be at least 1"),
            (Select::new(2), "invalid epsilon: required"),
            (
                Select::new(2)
                    .epsilon(1.0)
                    .mechanism(SelectorKind::LargeMargin),
                "needs δ > 0",
            ),
            (
                Select::new(2).epsilon(1.0).normalizer(f64::NAN),
                "invalid normalizer",
            ),
            (
                Select::new(2)
                    .epsilon(1.0)
                    .constraint("cardinality:2")
                    .algorithm(Algorithm::Subsample),
                "invalid algorithm",
            ),
            (
                Select::new(2).epsilon(1.0).continuous(ContinuousOptions {
                    steps: Some(3),
                    ..Default::default()
                }),
                "apply only to the continuous greedy",
            ),
            (
                Select::new(2)
                    .epsilon(1.0)
                    .constraint("cardinality:2")
                    .algorithm(Algorithm::ContinuousGreedy),
                "needs one matroid",
            ),
        ];
        for (request, expected) in cases {
            let err = request.validate().unwrap_err().to_string();
            assert!(err.contains(expected), "{err} (expected {expected})");
        }
        let (points, candidates) = data();
        let err = Select::new(6)
            .epsilon(1.0)
            .run(&points, &candidates, &mut SecureRng::insecure_from_seed(1))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "invalid k: 6 is larger than the number of candidates (5)"
        );
        let err = Select::new(1)
            .epsilon(1.0)
            .run(
                &points,
                &[[1.0, 1.0]],
                &mut SecureRng::insecure_from_seed(1),
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("there is only one candidate"), "{err}");
    }

    #[test]
    fn a_forced_rule_sets_the_split_and_trials_are_reproducible() {
        let (points, candidates) = data();
        let request = Select::new(2)
            .epsilon(1.0)
            .composition(CompositionChoice::Basic)
            .normalizer(5.0);
        let objective = request.objective(&points, &candidates).unwrap();
        let prepared = request.prepare(&objective).unwrap();
        let collect = |seed| {
            let mut out = Vec::new();
            prepared
                .trials(
                    50,
                    &mut SecureRng::insecure_from_seed(seed),
                    &|| {},
                    |_, s| {
                        out.push(s.elements);
                        Ok::<(), Error>(())
                    },
                )
                .unwrap();
            out
        };
        assert_eq!(collect(9), collect(9));
        let report = prepared.report(&prepared.run(&mut SecureRng::insecure_from_seed(1)).unwrap());
        assert_eq!(report.privacy.per_round_epsilon, Some(Public::new(0.5)));
        assert_eq!(report.privacy.composition, Some("basic"));
        assert_eq!(*report.task.normalizer, 5.0);
    }

    #[test]
    fn a_cost_gets_no_guarantee_from_theorem_4_1() {
        // f − cost·|S| can be negative, and Theorem 4.1's proof needs f ≥ 0: no bound, at
        // any ε, even where the privacy term would be small.
        let (points, candidates) = data();
        let usefulness = |cost: f64| {
            Select::new(2)
                .epsilon(50.0)
                .cost(cost)
                .algorithm(Algorithm::Subsample)
                .run(&points, &candidates, &mut SecureRng::insecure_from_seed(2))
                .unwrap()
                .usefulness
                .unwrap()
        };
        let u = usefulness(0.5);
        assert!(u.vacuous, "{u:?}");
        assert!(u.bound.starts_with("no guarantee"), "{}", u.bound);
        assert!(u.bound.contains("needs f ≥ 0"), "{}", u.bound);
        // The greedy has no guarantee on a non-monotone objective, and the advice does not
        // point to the subsample greedy, which has none with a cost either.
        let greedy = Select::new(2)
            .epsilon(50.0)
            .cost(0.5)
            .algorithm(Algorithm::Greedy)
            .run(&points, &candidates, &mut SecureRng::insecure_from_seed(2))
            .unwrap()
            .usefulness
            .unwrap();
        assert!(greedy.vacuous && greedy.bound.contains("no approximation guarantee"));
        assert!(
            greedy
                .advice
                .as_deref()
                .unwrap()
                .starts_with("without a cost")
        );
        // Without a cost the objective is monotone and non-negative: the monotone form.
        let u = usefulness(0.0);
        assert!(u.bound.starts_with("E[f(S)] ≥ 0.468·OPT"), "{}", u.bound);
    }

    #[test]
    fn auto_chooses_the_algorithm_with_a_guarantee_for_the_objective() {
        let cost = Select::new(2).cost(0.5);
        assert_eq!(cost.chosen_algorithm(), Algorithm::Subsample);
        // The subsample greedy takes a cardinality constraint only: with a matroid, greedy.
        let matroid = cost.clone().constraint("cardinality:2");
        assert_eq!(matroid.chosen_algorithm(), Algorithm::Greedy);
        assert_eq!(Select::new(2).chosen_algorithm(), Algorithm::Greedy);
        // A choice made is kept.
        let asked = Select::new(2).cost(0.5).algorithm(Algorithm::Greedy);
        assert_eq!(asked.chosen_algorithm(), Algorithm::Greedy);
        // The report names what ran, never "auto".
        let (points, candidates) = data();
        let report = cost
            .epsilon(5.0)
            .run(&points, &candidates, &mut SecureRng::insecure_from_seed(1))
            .unwrap();
        assert_eq!(report.task.algorithm, "subsample-greedy");
    }

    #[test]
    fn the_continuous_greedy_checks_its_explicit_bound() {
        let (points, candidates) = data();
        let run = |epsilon: f64, continuous: ContinuousOptions| {
            Select::new(2)
                .epsilon(epsilon)
                .algorithm(Algorithm::ContinuousGreedy)
                .continuous(continuous)
                .run(&points, &candidates, &mut SecureRng::insecure_from_seed(6))
                .unwrap()
                .usefulness
                .unwrap()
        };
        let bases = ContinuousOptions {
            steps: Some(4),
            directions: Directions::Bases,
            gradient_samples: None,
        };
        // 40 points, r = 2, T = 4, 5 candidates (C(5, 2) = 10 bases): c_T = 1 − (3/4)⁴,
        // c = c_T·(1 − 2/8) = 0.5127, printed rounded down; at ε = 0.1 (ε₀ = 0.025) the
        // privacy term is c_T·(2·2/0.025)·(ln 10 + 1) ≈ 361 > 40·c.
        let u = run(0.1, bases);
        let c_t = 1.0 - 0.75f64.powi(4);
        let factor = |c: f64| format!("E[f(S)] ≥ {:.3}·OPT", (c * 1000.0).floor() / 1000.0);
        assert!(u.vacuous, "{u:?}");
        assert!(u.bound.starts_with(&factor(c_t * 0.75)), "{}", u.bound);
        assert!(
            u.bound.starts_with("E[f(S)] ≥ 0.512·OPT − 361.2"),
            "{}",
            u.bound
        );
        // At ε = 400 (ε₀ = 100): ≈ 0.09, far below 40·c.
        assert!(!run(400.0, bases).vacuous);
        // Sequential picks: a bound of their own.
        let sequential = ContinuousOptions {
            directions: Directions::Sequential,
            ..bases
        };
        let u = run(400.0, sequential);
        assert!(!u.vacuous && u.bound.contains("sequential"), "{}", u.bound);
        // T = 1 step at r = 2: the discretisation term r(r − 1)/(2T) = 1 leaves nothing.
        let one = ContinuousOptions {
            steps: Some(1),
            ..bases
        };
        let u = run(400.0, one);
        assert!(
            u.vacuous && u.bound.starts_with("E[f(S)] ≥ 0.000·OPT"),
            "{}",
            u.bound
        );
        // Sampled bases: near the best sampled base only, no bound against OPT.
        let sampled = ContinuousOptions {
            directions: Directions::Sampled { count: 3 },
            ..bases
        };
        let u = run(400.0, sampled);
        assert!(
            u.vacuous && u.bound.starts_with("no guarantee"),
            "{}",
            u.bound
        );
        // A sampled gradient pays 2r·ρ of OPT, ρ = √(ln(2·5)/(2m)).
        let estimated = ContinuousOptions {
            gradient_samples: Some(1000),
            ..bases
        };
        let u = run(400.0, estimated);
        let rho = (10f64.ln() / 2000.0).sqrt();
        assert!(
            u.bound.starts_with(&factor(c_t * (0.75 - 4.0 * rho))),
            "{}",
            u.bound
        );
    }

    #[test]
    fn the_continuous_greedy_runs_on_one_matroid() {
        let (points, candidates) = data();
        let request = Select::new(2)
            .epsilon(1.0)
            .algorithm(Algorithm::ContinuousGreedy)
            .continuous(ContinuousOptions {
                steps: Some(3),
                directions: Directions::Bases,
                gradient_samples: None,
            });
        let report = request
            .run(&points, &candidates, &mut SecureRng::insecure_from_seed(4))
            .unwrap();
        assert_eq!(report.choice.selected.len(), 2);
        assert_eq!(*report.privacy.rounds, 3);
        let err = Select::new(2)
            .epsilon(1.0)
            .algorithm(Algorithm::ContinuousGreedy)
            .continuous(ContinuousOptions {
                steps: Some(usize::MAX),
                ..Default::default()
            })
            .run(&points, &candidates, &mut SecureRng::insecure_from_seed(4))
            .unwrap_err()
            .to_string();
        assert!(err.contains("would need about"), "{err}");
    }
}
