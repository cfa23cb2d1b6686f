//! [`MaxCut`]: choose at most k vertices of a graph whose edges are private records so that as
//! many edges as possible run between the chosen vertices and the rest — maximum cut, the
//! textbook non-monotone submodular problem ([`GraphCut`]).
//!
//! Algorithm: the private subsample-greedy (Mitrovic et al. 2017, Algorithm 4) by default,
//! the one private algorithm of the paper with a guarantee for non-monotone objectives
//! (Theorem 4.1: E[f(S)] ≥ (1/e)(1 − 1/e)·OPT − 2λk·ln|V|/ε₀). The greedy may be asked for;
//! it has no approximation guarantee here and its report says so.
//!
//! Privacy: one record is one edge (edge-level privacy, [`Unit::Edge`]): neighbouring edge
//! lists differ in one line replaced by another; the number of lines n is public (after
//! repeated edges are merged and self-loops and edges to unknown vertices left out, the
//! graphs differ in one edge removed, one added, or both). The vertex list is public. A cut's value
//! f(S) moves by at most 1 between such graphs (the replaced edge stops counting, its
//! replacement starts), while a gain can move by 2; every round scores the gains at one set
//! S, values shifted by the common f(S), and the selectors depend only on score
//! differences, so each round's selector is calibrated to λ = 1 (`docs/proofs/
//! gains-and-values.md`, *The cut*; [`GraphCut`]'s *Sensitivity*) and the run is as private
//! as the composition rule in the report proves. Protecting everything about one vertex
//! (all its edges) is not bounded: its degree is not.

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
use crate::objective::{GraphCut, SetFunction};
use crate::privacy::Unit;
use serde::Serialize;

/// A private maximum cut: k, the algorithm and the privacy options.
///
/// ```
/// use disguise::prelude::*;
/// use disguise::task::MaxCut;
///
/// // A star: vertex 0 joined to 1..=20; {0} cuts all 20 edges.
/// let edges: Vec<(usize, usize)> = (1..=20).map(|v| (0, v)).collect();
/// let report = MaxCut::new(1)
///     .epsilon(5.0)
///     .run(21, &edges, &mut SecureRng::insecure_from_seed(1))?;
/// assert!(report.choice.selected.len() <= 1);
/// assert!(report.privacy.guarantee.unwrap().epsilon <= 5.0);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MaxCut {
    /// The most vertices to choose (≥ 1); the subsample-greedy may choose fewer (a dummy
    /// pick adds nothing).
    pub k: usize,
    /// Subsample, greedy or auto (the subsample-greedy, [`MaxCut::chosen_algorithm`]).
    pub algorithm: Algorithm,
    /// The budget, mechanism and composition rule.
    pub privacy: Privacy,
}

impl WithPrivacy for MaxCut {
    fn privacy_mut(&mut self) -> &mut Privacy {
        &mut self.privacy
    }
}

impl MaxCut {
    /// What its guarantee protects: one edge (see the module documentation), which a
    /// budget ledger keeps apart from record-level releases.
    pub const UNIT: Unit = Unit::Edge;

    /// At most k vertices by the private subsample-greedy with the exponential mechanism;
    /// set the budget with [`WithPrivacy::epsilon`].
    pub fn new(k: usize) -> Self {
        Self {
            k,
            algorithm: Algorithm::Auto,
            privacy: Privacy::default(),
        }
    }

    /// The algorithm that runs: the one asked for, or for [`Algorithm::Auto`] the
    /// subsample-greedy, whose Theorem 4.1 holds for a non-monotone f ≥ 0 such as a cut.
    pub fn chosen_algorithm(&self) -> Algorithm {
        self.algorithm.or(Algorithm::Subsample)
    }

    /// Validates every option that needs no data and builds the procedure.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) naming `k`, `algorithm` or a privacy option.
    pub fn validate(&self) -> Result<Procedure<'static>> {
        super::discrete(
            &self.privacy,
            self.k,
            self.chosen_algorithm(),
            "continuous-greedy needs a monotone objective on a matroid; the cut is \
                 non-monotone (use subsample)",
        )
    }

    /// The unit-weight cut of the graph on `vertices` vertices with these `edges` (pairs of
    /// vertex indices; self-loops never cross a cut). A graph without edges is a graph: every
    /// gain is 0 and the mechanism's picks are released as for any other.
    ///
    /// # Errors
    /// `k` larger than the number of vertices; a vertex out of range.
    pub fn objective(&self, vertices: usize, edges: &[(usize, usize)]) -> Result<GraphCut> {
        super::k_fits(self.k, vertices, "vertices")?;
        GraphCut::new(vertices, edges)
    }

    /// What a run will spend among `vertices` public vertices, planned before any edge is
    /// read ([`crate::maximize::planned`]; the cut is not decomposable): the report's privacy,
    /// which a budget ledger reserves first.
    ///
    /// # Errors
    /// As [`MaxCut::validate`]; k larger than the vertices.
    pub fn plan(&self, vertices: usize) -> Result<PrivacyReport> {
        let procedure = self.validate()?;
        super::k_fits(self.k, vertices, "vertices")?;
        let rounds = match self.chosen_algorithm() {
            Algorithm::Subsample => self.k,
            _ => Cardinality::new(vertices, self.k).rank_bound(),
        };
        Ok(PrivacyReport::planned(
            &planned(&procedure, rounds, false)?,
            Self::UNIT,
        ))
    }

    /// Everything a run needs that does not change between trials; `records` is the public
    /// number of edge-list lines the graph was read from (at least its edges: what utilities
    /// divide by), `edges` the number of distinct edges the objective holds (a statistic of
    /// the data: a diagnostic).
    ///
    /// # Errors
    /// As [`MaxCut::validate`].
    pub fn prepare<'o>(
        &self,
        objective: &'o GraphCut,
        records: usize,
        edges: usize,
    ) -> Result<PreparedCut<'o>> {
        let procedure = self.validate()?;
        let constraint = Intersection::new(vec![Matroid::from(Cardinality::new(
            objective.ground_size(),
            self.k,
        ))])?;
        Ok(PreparedCut {
            request: self.clone(),
            objective,
            edges,
            records: records.max(edges),
            constraint,
            procedure,
        })
    }

    /// One private selection.
    ///
    /// # Errors
    /// As [`MaxCut::objective`] and [`MaxCut::prepare`].
    pub fn run(
        &self,
        vertices: usize,
        edges: &[(usize, usize)],
        rng: &mut SecureRng,
    ) -> Result<CutReport> {
        self.validate()?;
        let objective = self.objective(vertices, edges)?;
        self.prepare(&objective, edges.len(), edges.len())?
            .run_report(rng)
    }
}

/// A [`MaxCut`] ready to run any number of trials on one graph.
pub struct PreparedCut<'o> {
    request: MaxCut,
    objective: &'o GraphCut,
    /// The distinct edges of the graph (a statistic of the data).
    edges: usize,
    /// The records the graph was read from (public): the most the cut can hold, and what
    /// utilities divide by.
    records: usize,
    constraint: Intersection,
    procedure: Procedure<'static>,
}

impl Runnable for PreparedCut<'_> {
    type Output = Solution;

    fn run(&self, rng: &mut SecureRng) -> Result<Solution> {
        match self.request.chosen_algorithm() {
            Algorithm::Subsample => {
                subsample_greedy(self.objective, self.request.k, &self.procedure, rng)
            }
            _ => greedy(self.objective, &self.constraint, &self.procedure, rng),
        }
    }
}

impl Reporting for PreparedCut<'_> {
    type Params = CutParams;

    /// The share of the edge list's lines whose edge is cut: f(S)/n, n the public number of
    /// lines (repeats, self-loops and unknown vertices count as lines never cut).
    fn utility(&self, value: f64) -> f64 {
        value / self.records.max(1) as f64
    }

    fn unit(&self) -> Unit {
        MaxCut::UNIT
    }

    /// The a-priori utility of a run, from public quantities only (the number of records,
    /// k, |V|, ε₀): Theorem 4.1 for the subsample-greedy (a cut is ≥ 0 on every set, as the
    /// theorem needs), at the λ each round's selector is calibrated to; no guarantee for
    /// the greedy.
    fn usefulness(&self, solution: &Solution) -> Option<Usefulness> {
        let lambdas: Vec<f64> = (0..self.request.k)
            .map(|r| self.objective.sensitivity(r).get())
            .collect();
        GreedyRun {
            mechanism: self.request.privacy.mechanism,
            algorithm: self.request.chosen_algorithm(),
            matroids: 0,
            lambdas: &lambdas,
            // Unit weights (`MaxCut::objective`): each record adds at most 1.
            f_max: self.records as f64,
            m: self.objective.ground_size(),
            counts: false,
            monotone: false,
            // Every edge adds w ≥ 0 or nothing: f ≥ 0 on every set, for every graph.
            non_negative: true,
        }
        .usefulness(solution)
    }

    /// The task's public parameters as a report states them.
    fn params(&self, solution: &Solution) -> CutParams {
        CutParams {
            objective: solution.objective,
            algorithm: solution.algorithm,
            mechanism: self.request.privacy.mechanism.name(),
            vertices: Public::new(self.objective.ground_size()),
            records: Public::new(self.records),
            k: Public::new(self.request.k),
            edges: Diagnostic::new(self.edges),
            dropped: Diagnostic::new(None),
            privacy_unit: "one edge (one line of the edge list), replaced",
        }
    }
}

/// The report of one [`MaxCut`] run ([`Report`] with [`CutParams`]): the values are the
/// edges cut after each pick, the utility their share of the lines. Computed on the private
/// edges for evaluation: they are NOT covered by the guarantee, which protects the choice
/// only, and are diagnostics.
pub type CutReport = Report<CutParams>;

/// The parameters of a [`MaxCut`] run as its [`Report`] states them.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct CutParams {
    /// The objective (`graph-cut`).
    pub objective: &'static str,
    /// The algorithm that ran.
    pub algorithm: &'static str,
    /// The selection of every round.
    pub mechanism: &'static str,
    /// The number of vertices (the public list).
    pub vertices: Public<usize>,
    /// The number of records: lines of the edge list (public under replace-one).
    pub records: Public<usize>,
    /// The most picks.
    pub k: Public<usize>,
    /// The distinct edges between listed vertices (NOT private).
    #[serde(skip)]
    pub edges: Diagnostic<usize>,
    /// Edges the front end left out while reading, for naming a vertex not in the list, and
    /// self-loops (NOT private; `None` when not counted).
    #[serde(skip)]
    pub dropped: Diagnostic<Option<u64>>,
    /// What neighbouring graphs differ in: one edge (edge-level privacy).
    pub privacy_unit: &'static str,
}

impl super::Params for CutParams {
    fn mechanism(&self) -> &'static str {
        self.mechanism
    }
    /// The share of lines whose edge is cut, in [0, 1]: replacing one line moves the cut by
    /// at most 1 ([`GraphCut`]'s *Sensitivity*), the share by 1/n, n the public number of
    /// lines.
    fn utility_scale(&self) -> Result<super::UtilityScale> {
        super::UtilityScale::of(1.0, *self.records, 0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::SelectorKind;

    /// Two stars joined at their leaves' ends: centres 0 and 1 each with 10 leaves.
    fn two_stars() -> Vec<(usize, usize)> {
        let mut edges: Vec<(usize, usize)> = (2..12).map(|v| (0, v)).collect();
        edges.extend((12..22).map(|v| (1, v)));
        edges
    }

    #[test]
    fn auto_is_the_subsample_greedy_whose_theorem_holds_for_a_cut() {
        assert_eq!(MaxCut::new(2).chosen_algorithm(), Algorithm::Subsample);
        let greedy = MaxCut {
            algorithm: Algorithm::Greedy,
            ..MaxCut::new(2)
        };
        assert_eq!(greedy.chosen_algorithm(), Algorithm::Greedy);
    }

    #[test]
    fn the_argmax_greedy_takes_both_centres() {
        let request = MaxCut {
            algorithm: Algorithm::Greedy,
            ..MaxCut::new(2).mechanism(SelectorKind::Argmax)
        };
        let report = request
            .run(22, &two_stars(), &mut SecureRng::insecure_from_seed(1))
            .unwrap();
        assert_eq!(report.choice.selected.len(), 2);
        assert!(report.choice.selected.contains(&0) && report.choice.selected.contains(&1));
        assert_eq!(*report.choice.values.reveal(), [10.0, 20.0]);
        assert_eq!(*report.choice.utility.reveal(), [0.5, 1.0]);
        assert!(report.privacy.guarantee.is_none());
    }

    #[test]
    fn a_private_run_reports_its_guarantee_and_theorem_4_1() {
        let report = MaxCut::new(2)
            .epsilon(2.0)
            .run(22, &two_stars(), &mut SecureRng::insecure_from_seed(3))
            .unwrap();
        assert!(report.privacy.guarantee.unwrap().epsilon <= 2.0 + 1e-12);
        // Every round's selector was calibrated to the value bound λ = 1.
        assert!(*report.privacy.rounds > 0);
        let u = report.usefulness.unwrap();
        assert!(u.bound.contains("Theorem 4.1, non-monotone"), "{}", u.bound);
        assert!(u.bound.contains("λ = 1"), "{}", u.bound);
        // 20 edges cannot carry a privacy term of 2·1·2·ln 22/ε₀ with ε₀ ≤ 1.
        assert!(u.vacuous);
        let greedy = MaxCut {
            algorithm: Algorithm::Greedy,
            ..MaxCut::new(2).epsilon(2.0)
        };
        let report = greedy
            .run(22, &two_stars(), &mut SecureRng::insecure_from_seed(3))
            .unwrap();
        let u = report.usefulness.unwrap();
        assert!(u.vacuous && u.bound.contains("no approximation guarantee"));
    }

    #[test]
    fn each_round_is_calibrated_to_the_value_bound() {
        let run = |algorithm| {
            let request = MaxCut {
                algorithm,
                ..MaxCut::new(3).epsilon(2.0)
            };
            let objective = request.objective(22, &two_stars()).unwrap();
            let prepared = request.prepare(&objective, 20, 20).unwrap();
            prepared.run(&mut SecureRng::insecure_from_seed(4)).unwrap()
        };
        for algorithm in [Algorithm::Subsample, Algorithm::Greedy] {
            let s = run(algorithm);
            assert!(!s.rounds.is_empty());
            for round in &s.rounds {
                assert_eq!(round.sensitivity.get(), 1.0, "{algorithm}");
            }
        }
    }

    #[test]
    fn the_bound_utility_and_estimate_use_the_public_records_only() {
        // 20 distinct edges read from 25 lines (repeats merged): the bound says f ≤ 25, the
        // public number of records, not 20, which is a statistic of the data; utilities and
        // the estimate's sensitivity divide by 25 too.
        let request = MaxCut::new(2).epsilon(2.0);
        let objective = request.objective(22, &two_stars()).unwrap();
        let prepared = request.prepare(&objective, 25, 20).unwrap();
        let s = prepared.run(&mut SecureRng::insecure_from_seed(4)).unwrap();
        let u = prepared.usefulness(&s).unwrap();
        assert!(u.bound.ends_with("f is at most 25"), "{}", u.bound);
        assert_eq!(prepared.utility(10.0), 0.4);
        let report = prepared.report(&s);
        use crate::task::Params;
        assert_eq!(report.task.utility_scale().unwrap().sensitivity, 1.0 / 25.0);
        assert_eq!(*report.task.records, 25);
        assert_eq!(*report.task.edges.reveal(), 20);
        let json = serde_json::to_string(&report).unwrap();
        assert!(!json.contains("\"edges\""), "{json}");
    }

    #[test]
    fn a_graph_without_edges_releases_picks_over_zero_gains() {
        // Every line a self-loop or an unknown vertex: a valid graph with no edges, whose
        // release is the mechanism's picks (all gains 0), never an error.
        let request = MaxCut::new(2).epsilon(1.0);
        let objective = request.objective(5, &[]).unwrap();
        let prepared = request.prepare(&objective, 7, 0).unwrap();
        let s = prepared.run(&mut SecureRng::insecure_from_seed(5)).unwrap();
        let report = prepared.report(&s);
        assert!(report.choice.selected.len() <= 2);
        assert!(report.privacy.guarantee.is_some());
        assert_eq!(report.privacy.unit, Unit::Edge);
    }

    #[test]
    fn options_and_sizes_are_refused_with_their_names() {
        let err = MaxCut::new(0).epsilon(1.0).validate().unwrap_err();
        assert_eq!(err.to_string(), "invalid k: must be at least 1");
        let err = MaxCut::new(5)
            .epsilon(1.0)
            .run(3, &[(0, 1)], &mut SecureRng::insecure_from_seed(1))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid k: 5 is larger than the number of vertices (3)"
        );
        let err = MaxCut {
            algorithm: Algorithm::ContinuousGreedy,
            ..MaxCut::new(1).epsilon(1.0)
        }
        .validate()
        .unwrap_err();
        assert!(err.to_string().contains("non-monotone"), "{err}");
    }
}
