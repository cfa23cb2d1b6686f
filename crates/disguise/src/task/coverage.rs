//! [`MaxCoverage`]: choose k public candidates that cover as many people as possible —
//! maximum coverage (Mitrovic et al. 2017, §3) by the private greedy or subsample-greedy.
//!
//! Data: one record per person, the list of candidates that cover that person (for a
//! friendship graph: the person's friends, when the candidates are the people who could be
//! chosen as seeds).
//!
//! Privacy: neighbouring datasets differ in one person's record (replace-one); a record adds
//! at most 1 to any marginal gain, so every round is the mechanism's selection at λ = 1
//! ([`Coverage`]'s sensitivity, also 1-decomposable) and the run is as private as the
//! composition rule in the report proves. Protecting a single *edge* of a graph instead of a
//! person's whole list is a different neighbour relation ([`Unit::Edge`]: one line of the
//! edge list replaced by another): the replaced friendship leaves two friend lists and its
//! replacement enters two, so up to four lists change and the guarantee is group privacy of
//! size 4 of the friend lists' (the people, the candidates, are public and fixed).

use super::sharded::OnShards;
use super::usefulness::GreedyRun;
use super::{
    Algorithm, Privacy, PrivacyReport, Report, Reporting, Runnable, Usefulness, WithPrivacy,
};
use crate::constraint::{Cardinality, Independence, Intersection, Matroid};
use crate::disclosure::{Diagnostic, Disclose, Public};
use crate::error::Result;
use crate::maximize::{Procedure, Solution, greedy, planned, subsample_greedy};
use crate::names::Named;
use crate::noise::SecureRng;
use crate::objective::{Coverage, SetFunction};
use crate::privacy::Unit;
use serde::Serialize;

/// A private maximum-coverage selection: k, the algorithm and the privacy options.
///
/// ```
/// use disguise::prelude::*;
/// use disguise::task::MaxCoverage;
///
/// // 30 people covered by candidate 0, 10 by candidate 1, 5 by candidate 2.
/// let mut covers: Vec<Vec<usize>> = vec![vec![0]; 30];
/// covers.extend(vec![vec![1]; 10]);
/// covers.extend(vec![vec![2]; 5]);
/// let report = MaxCoverage::new(1)
///     .epsilon(5.0)
///     .run(3, &covers, &mut SecureRng::insecure_from_seed(1))?;
/// assert_eq!(report.choice.selected.len(), 1);
/// assert!(report.privacy.guarantee.unwrap().epsilon <= 5.0);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MaxCoverage {
    /// The number of candidates to choose (≥ 1).
    pub k: usize,
    /// Greedy, subsample or auto (the greedy, [`MaxCoverage::chosen_algorithm`]).
    pub algorithm: Algorithm,
    /// The budget, mechanism and composition rule.
    pub privacy: Privacy,
    /// What one record is, and so what the guarantee protects.
    pub input: CoverageInput,
}

/// What the records of a [`MaxCoverage`] are, which sets the neighbour relation its
/// guarantee is stated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoverageInput {
    /// One set per person (the candidates that cover them): neighbours differ in one
    /// person's set (replace-one); the guarantee is the run's.
    #[default]
    Sets,
    /// The friend lists of a graph given as its edges: neighbours differ in one line of the
    /// edge list replaced by another ([`Unit::Edge`]), which changes up to four friend lists
    /// (the old friendship's two ends and the new one's), so the guarantee is group privacy
    /// of size 4 of the run's, (4ε, 4e^{3ε}·δ) ([`PrivacyReport::group`]).
    Edges,
}

impl CoverageInput {
    /// The records one unit of privacy spans (group privacy).
    pub fn group(self) -> u32 {
        match self {
            CoverageInput::Sets => 1,
            CoverageInput::Edges => 4,
        }
    }

    /// What the guarantee protects.
    pub fn privacy_unit(self) -> Unit {
        match self {
            CoverageInput::Sets => Unit::Record,
            CoverageInput::Edges => Unit::Edge,
        }
    }

    /// What neighbouring inputs differ in, as a report says it.
    pub fn unit(self) -> &'static str {
        match self {
            CoverageInput::Sets => "one person's set (one line of the sets), replace-one",
            CoverageInput::Edges => {
                "one friendship (one line of the edge list) replaced by another; up to four \
                 friend lists change, so the guarantee is group privacy of size 4 of the \
                 friend lists': (4ε, 4e^{3ε}·δ)"
            }
        }
    }
}

impl WithPrivacy for MaxCoverage {
    fn privacy_mut(&mut self) -> &mut Privacy {
        &mut self.privacy
    }
}

impl MaxCoverage {
    /// k candidates by the private greedy with the exponential mechanism; set the budget with
    /// [`WithPrivacy::epsilon`].
    pub fn new(k: usize) -> Self {
        Self {
            k,
            algorithm: Algorithm::Auto,
            privacy: Privacy::default(),
            input: CoverageInput::Sets,
        }
    }

    /// The algorithm that runs: the one asked for, or the greedy for [`Algorithm::Auto`].
    pub fn chosen_algorithm(&self) -> Algorithm {
        self.algorithm.or(Algorithm::Greedy)
    }

    /// Validates every option that needs no data and builds the procedure.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) naming `k`, `algorithm` or a privacy option.
    pub fn validate(&self) -> Result<Procedure<'static>> {
        let algorithm = self.chosen_algorithm();
        super::discrete(
            &self.privacy,
            self.k,
            algorithm,
            super::CONTINUOUS_IN_SELECT,
        )
    }

    /// The coverage objective: `covers[i]` lists the candidates (in `0..candidates`) that
    /// cover person i.
    ///
    /// # Errors
    /// `k` larger than the number of candidates; a candidate out of range; no records.
    pub fn objective(&self, candidates: usize, covers: &[Vec<usize>]) -> Result<Coverage> {
        super::k_fits(self.k, candidates, "candidates")?;
        Coverage::new(candidates, covers)
    }

    /// What a run will spend among `candidates` public candidates, planned before any record
    /// is read ([`crate::maximize::planned`]; coverage is decomposable with one λ in every
    /// round, so the greedy may use the decomposable rule): the report's privacy, which a
    /// budget ledger reserves first.
    ///
    /// # Errors
    /// As [`MaxCoverage::validate`]; k larger than the candidates.
    pub fn plan(&self, candidates: usize) -> Result<PrivacyReport> {
        let procedure = self.validate()?;
        super::k_fits(self.k, candidates, "candidates")?;
        let plan = match self.chosen_algorithm() {
            Algorithm::Subsample => planned(&procedure, self.k, false)?,
            _ => planned(
                &procedure,
                Cardinality::new(candidates, self.k).rank_bound(),
                true,
            )?,
        };
        Ok(PrivacyReport::planned(&plan, self.input.privacy_unit()).group(self.input.group()))
    }

    /// Everything a run needs that does not change between trials.
    ///
    /// # Errors
    /// As [`MaxCoverage::validate`].
    pub fn prepare<'o>(&self, objective: &'o Coverage) -> Result<PreparedCoverage<'o>> {
        self.prepare_with(objective, self.validate()?)
    }

    /// [`MaxCoverage::prepare`] with the procedure [`MaxCoverage::validate`] returned.
    fn prepare_with<'o>(
        &self,
        objective: &'o Coverage,
        procedure: Procedure<'static>,
    ) -> Result<PreparedCoverage<'o>> {
        let constraint = Intersection::new(vec![Matroid::from(Cardinality::new(
            objective.ground_size(),
            self.k,
        ))])?;
        Ok(PreparedCoverage {
            request: self.clone(),
            objective,
            records: objective.num_records(),
            constraint,
            procedure,
        })
    }

    /// One private selection.
    ///
    /// # Errors
    /// As [`MaxCoverage::objective`] and [`MaxCoverage::prepare`].
    pub fn run(
        &self,
        candidates: usize,
        covers: &[Vec<usize>],
        rng: &mut SecureRng,
    ) -> Result<CoverageReport> {
        // Validated before the objective is built, and only once.
        let procedure = self.validate()?;
        let objective = self.objective(candidates, covers)?;
        self.prepare_with(&objective, procedure)?.run_report(rng)
    }
}

#[cfg(feature = "cluster")]
impl MaxCoverage {
    /// [`MaxCoverage::run`] over people spread on a [`Cluster`](crate::cluster::Cluster):
    /// `load` gives each worker its people's cover lists (over the same public `candidates`;
    /// [`Comm::place`](crate::cluster::Comm::place) says which people are the worker's, and
    /// `load` may exchange with the other workers, e.g. to add up what they left out).
    /// The report in process 0, `None` in the others; with a seeded `rng`, the one-process
    /// report bit for bit (see [`Select::run_distributed`](super::Select::run_distributed)).
    ///
    /// # Errors
    /// As [`MaxCoverage::run`]; a worker's `load` error; [`Error::Cluster`](crate::Error::Cluster) if a peer fails.
    pub fn run_distributed<L>(
        &self,
        cluster: &crate::cluster::Cluster,
        load: L,
        candidates: usize,
        rng: &mut SecureRng,
    ) -> Result<Option<CoverageReport>>
    where
        L: Fn(&mut crate::cluster::Comm<'_>) -> Result<Vec<Vec<usize>>> + Send + Sync + 'static,
    {
        let trial = self.distributed_trial(cluster, load, candidates, &mut rng.fork())?;
        Ok(trial.map(|(_, report)| report))
    }

    /// One distributed run on `rng` itself (see
    /// [`Select::distributed_trial`](super::Select::distributed_trial)).
    ///
    /// # Errors
    /// As [`MaxCoverage::run_distributed`].
    pub fn distributed_trial<L>(
        &self,
        cluster: &crate::cluster::Cluster,
        load: L,
        candidates: usize,
        rng: &mut SecureRng,
    ) -> Result<Option<(Solution, CoverageReport)>>
    where
        L: Fn(&mut crate::cluster::Comm<'_>) -> Result<Vec<Vec<usize>>> + Send + Sync + 'static,
    {
        let procedure = self.validate()?;
        let public = self.objective(candidates, &[])?;
        let build = self.clone();
        cluster.maximize(
            &public,
            move |comm| build.objective(candidates, &load(comm)?),
            |f| super::sharded::shard_trial(self.prepare_with(f.local(), procedure)?, f, rng),
        )
    }
}

/// A [`MaxCoverage`] ready to run any number of trials on one objective.
pub struct PreparedCoverage<'o> {
    request: MaxCoverage,
    objective: &'o Coverage,
    /// The people the objective counts: its own, or all shards' in a distributed run.
    records: usize,
    constraint: Intersection,
    procedure: Procedure<'static>,
}

impl Runnable for PreparedCoverage<'_> {
    type Output = Solution;

    fn run(&self, rng: &mut SecureRng) -> Result<Solution> {
        self.run_on(self.objective, rng)
    }
}

impl OnShards for PreparedCoverage<'_> {
    fn run_on<F: SetFunction + ?Sized>(&self, f: &F, rng: &mut SecureRng) -> Result<Solution> {
        match self.request.chosen_algorithm() {
            Algorithm::Subsample => subsample_greedy(f, self.request.k, &self.procedure, rng),
            _ => greedy(f, &self.constraint, &self.procedure, rng),
        }
    }

    fn count_records(&mut self, records: usize) {
        self.records = records;
    }
}

impl Reporting for PreparedCoverage<'_> {
    type Params = CoverageParams;

    /// The share of people covered by a value: f(S)/n.
    fn utility(&self, value: f64) -> f64 {
        value / self.records.max(1) as f64
    }

    /// The greedy's a-priori utility for a run, from public quantities only (n, k, the
    /// number of candidates and ε₀; see the facility-location task's [`Reporting::usefulness`]).
    fn usefulness(&self, solution: &Solution) -> Option<Usefulness> {
        let lambdas = vec![1.0; self.request.k];
        GreedyRun {
            mechanism: self.request.privacy.mechanism,
            algorithm: self.request.chosen_algorithm(),
            matroids: 0,
            lambdas: &lambdas,
            f_max: self.records as f64,
            m: self.objective.ground_size(),
            counts: true,
            monotone: true,
            non_negative: true,
        }
        .usefulness(solution)
    }

    /// The task's public parameters as a report states them.
    fn params(&self, solution: &Solution) -> CoverageParams {
        CoverageParams {
            objective: "coverage",
            algorithm: solution.algorithm,
            mechanism: self.request.privacy.mechanism.name(),
            input: Public::new(self.request.input),
            records: Public::new(self.records),
            candidates: Public::new(self.objective.ground_size()),
            k: Public::new(self.request.k),
            dropped: Diagnostic::new(None),
            privacy_unit: self.request.input.unit(),
        }
    }

    fn unit(&self) -> Unit {
        self.request.input.privacy_unit()
    }

    /// Stated for the input's neighbours ([`CoverageInput`]): group privacy for friend
    /// lists given as edges.
    fn privacy(&self, solution: &Solution) -> PrivacyReport {
        PrivacyReport::of(solution, self.unit()).group(self.request.input.group())
    }
}

/// The report of one [`MaxCoverage`] run ([`Report`] with [`CoverageParams`]): the values
/// are the people covered after each pick, the utility their share. Computed on the private
/// records for evaluation: they are NOT covered by the guarantee, which protects the
/// selection only.
pub type CoverageReport = Report<CoverageParams>;

/// The parameters of a [`MaxCoverage`] run as its [`Report`] states them.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct CoverageParams {
    /// The objective (`coverage`).
    pub objective: &'static str,
    /// The algorithm that ran.
    pub algorithm: &'static str,
    /// The selection of every round.
    pub mechanism: &'static str,
    /// What the records are.
    pub input: Public<CoverageInput>,
    /// The number of people (records: lines of the sets, or the public list of people).
    pub records: Public<usize>,
    /// The number of candidates.
    pub candidates: Public<usize>,
    /// The number of picks.
    pub k: Public<usize>,
    /// Set members or edges the front end left out while reading, for naming no candidate
    /// (NOT private; `None` when not counted).
    #[serde(skip)]
    pub dropped: Diagnostic<Option<u64>>,
    /// What neighbouring inputs differ in.
    pub privacy_unit: &'static str,
}

impl super::Params for CoverageParams {
    fn mechanism(&self) -> &'static str {
        self.mechanism
    }
    /// The share of people covered, in [0, 1]: one person's set moves it by 1/n; one
    /// friendship replaced changes four friend lists, so by 4/n — the estimate is then
    /// calibrated for the edge, as the report's guarantee is.
    fn utility_scale(&self) -> Result<super::UtilityScale> {
        super::UtilityScale::of(f64::from(self.input.group()), *self.records, 0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::SelectorKind;

    #[test]
    fn the_largest_groups_are_covered_first() {
        // Candidate 0 covers 60 people, candidate 1 covers 30 (20 of them also by 0),
        // candidate 2 covers 25 others.
        let mut covers: Vec<Vec<usize>> = vec![vec![0]; 40];
        covers.extend(vec![vec![0, 1]; 20]);
        covers.extend(vec![vec![1]; 10]);
        covers.extend(vec![vec![2]; 25]);
        let argmax = MaxCoverage::new(2).mechanism(SelectorKind::Argmax);
        let report = argmax
            .run(3, &covers, &mut SecureRng::insecure_from_seed(1))
            .unwrap();
        // Greedy: 0 (60), then 2 (25 new) beats 1 (10 new).
        assert_eq!(*report.choice.selected, [0, 2]);
        assert_eq!(*report.choice.values.reveal(), [60.0, 85.0]);
        assert!(report.privacy.guarantee.is_none());
        let private = MaxCoverage::new(2).epsilon(20.0);
        let report = private
            .run(3, &covers, &mut SecureRng::insecure_from_seed(1))
            .unwrap();
        assert!(report.privacy.guarantee.unwrap().epsilon <= 20.0);
        assert_eq!(report.choice.utility.reveal().len(), 2);
    }

    #[test]
    fn options_and_sizes_are_refused_with_their_names() {
        let err = MaxCoverage::new(0)
            .epsilon(1.0)
            .validate()
            .unwrap_err()
            .to_string();
        assert_eq!(err, "invalid k: must be at least 1");
        let err = MaxCoverage::new(4)
            .epsilon(1.0)
            .run(3, &[vec![0]], &mut SecureRng::insecure_from_seed(1))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "invalid k: 4 is larger than the number of candidates (3)"
        );
        let err = MaxCoverage::new(1)
            .epsilon(1.0)
            .run(3, &[vec![7]], &mut SecureRng::insecure_from_seed(1))
            .unwrap_err()
            .to_string();
        assert!(err.contains('7'), "{err}");
    }
}
