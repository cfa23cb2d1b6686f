//! [`Assign`]: choose locations *and* a type for each (k-type facility location, a
//! k-submodular function), so that every private point is served by a location of its own
//! type — the private k-submodular greedy of Rafiey & Yoshida (2020), Algorithm 3, or its
//! subsample variant (Algorithm 4).
//!
//! Privacy: each point (with its type) is one person's record; neighbouring datasets differ in
//! one record (replace-one). Every marginal gain moves by at most 1 when one record is
//! replaced (similarities in [0, 1]), so each round is the mechanism's selection at λ = 1 and
//! the run is as private as the composition rule in the report proves. The candidates, the
//! type labels, the constraint and the normaliser are public.

use super::Report;
use super::select::location_normalizer;
use super::{
    Algorithm, Privacy, PrivacyReport, Reporting, Runnable, SelectorKind, Usefulness, WithPrivacy,
};
use crate::constraint::{Cardinality, Independence, Matroid};
use crate::disclosure::{Diagnostic, Disclose, Public};
use crate::error::{Error, Result};
use crate::maximize::{Assignment, Procedure, k_submodular_greedy, k_submodular_subsample_greedy};
use crate::names::Named;
use crate::noise::SecureRng;
use crate::objective::{
    Coverage, FacilityLocation, KSubmodularFunction, Metric, Normalizer, Separable, TopicCoverage,
    ad_allocation, k_type_facility_location,
};
use crate::privacy::Unit;
use serde::Serialize;

mod read;
pub use read::{Reach, read_reach, read_typed_points};

/// The default failure probability γ of the subsample greedy.
pub const DEFAULT_FAILURE: f64 = 0.1;

/// A private k-type facility location: the type labels, k or a matroid constraint, the
/// metric and normaliser, the algorithm and the privacy options.
///
/// ```
/// use disguise::prelude::*;
/// use disguise::task::Assign;
///
/// let points = [[0.0, 0.0], [0.0, 0.1], [5.0, 5.0], [5.0, 5.1]];
/// let types = [0, 0, 1, 1]; // morning, evening
/// let candidates = [[0.0, 0.05], [5.0, 5.05], [9.0, 9.0]];
/// let request = Assign::new(["morning", "evening"], 2).epsilon(5.0);
/// let objective = request.objective(&points, &types, &candidates)?;
/// let run = request.prepare(&objective)?.run(&mut SecureRng::insecure_from_seed(1))?;
/// assert_eq!(run.solution.elements.len(), run.types.len());
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Assign {
    /// The public type labels (type i is the i-th), distinct and non-empty.
    pub types: Vec<String>,
    /// The number of locations to choose; `None` with a constraint means its rank.
    pub k: Option<usize>,
    /// A matroid on the chosen locations (`cardinality:K`, `partition:FILE`,
    /// `graphic:FILE`), instead of `k`.
    pub constraint: Option<String>,
    /// The distance.
    pub metric: Metric,
    /// The public normaliser m; `None`: the diameter of the candidates' bounding box.
    pub normalizer: Option<f64>,
    /// Greedy (Algorithm 3), subsample (Algorithm 4) or auto (the greedy,
    /// [`Assign::chosen_algorithm`]).
    pub algorithm: Algorithm,
    /// γ of the subsample greedy (default [`DEFAULT_FAILURE`]); refused with the greedy.
    pub failure: Option<f64>,
    /// The budget, mechanism and composition rule.
    pub privacy: Privacy,
}

impl WithPrivacy for Assign {
    fn privacy_mut(&mut self) -> &mut Privacy {
        &mut self.privacy
    }
}

impl Assign {
    /// k locations for the given type labels by the private greedy with the exponential
    /// mechanism and Manhattan distance; set the budget with [`WithPrivacy::epsilon`].
    pub fn new<S: Into<String>>(types: impl IntoIterator<Item = S>, k: usize) -> Self {
        Self {
            types: types.into_iter().map(Into::into).collect(),
            k: Some(k),
            constraint: None,
            metric: Metric::Manhattan,
            normalizer: None,
            algorithm: Algorithm::Auto,
            failure: None,
            privacy: Privacy::default(),
        }
    }

    /// The algorithm that runs: the one asked for, or the greedy for [`Algorithm::Auto`].
    pub fn chosen_algorithm(&self) -> Algorithm {
        self.algorithm.or(Algorithm::Greedy)
    }

    /// Validates every option that needs no data; returns the procedure and γ.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the option (`algorithm`, `failure`, `types`, `k`,
    /// `normalizer`, `epsilon`, `delta`, `composition`).
    pub fn validate(&self) -> Result<(Procedure<'static>, f64)> {
        let procedure = self.privacy.procedure()?;
        let failure = match (self.chosen_algorithm(), self.failure) {
            (Algorithm::ContinuousGreedy, _) => {
                return Err(Error::param(
                    "algorithm",
                    "assign runs the k-submodular greedy (greedy: Algorithm 3, subsample: \
                     Algorithm 4); continuous-greedy is for facility location (select)",
                ));
            }
            (Algorithm::Greedy, Some(_)) => {
                return Err(Error::param(
                    "failure",
                    "applies only to the subsample algorithm",
                ));
            }
            (_, Some(g)) if !(g > 0.0 && g < 1.0) => {
                return Err(Error::param(
                    "failure",
                    format!("must be in (0, 1), got {g}"),
                ));
            }
            (_, g) => g.unwrap_or(DEFAULT_FAILURE),
        };
        if self.types.is_empty() || self.types.iter().any(|t| t.trim().is_empty()) {
            return Err(Error::param(
                "types",
                "give the type labels, e.g. morning,evening",
            ));
        }
        let mut sorted: Vec<&String> = self.types.iter().collect();
        sorted.sort();
        sorted.dedup();
        if sorted.len() != self.types.len() {
            return Err(Error::param("types", "a label is listed twice"));
        }
        if self.k == Some(0) {
            return Err(Error::param("k", "must be at least 1"));
        }
        if self.k.is_none() && self.constraint.is_none() {
            return Err(Error::param("k", "k or a constraint is required, e.g. 5"));
        }
        if let Some(m) = self.normalizer
            && !(m.is_finite() && m > 0.0)
        {
            return Err(Error::param(
                "normalizer",
                format!("must be finite and > 0, got {m}"),
            ));
        }
        Ok((procedure, failure))
    }

    /// The k-type facility-location objective: `points[i]` has type `types[i]` (an index
    /// into [`Assign::types`]).
    ///
    /// # Errors
    /// `k` larger than the number of candidates; a normaliser that cannot be used; points and
    /// types of different lengths or a type out of range.
    pub fn objective(
        &self,
        points: &[[f64; 2]],
        types: &[usize],
        candidates: &[[f64; 2]],
    ) -> Result<Separable<FacilityLocation>> {
        let normalizer = location_normalizer(self.k, self.metric, self.normalizer, candidates)?;
        k_type_facility_location(
            self.metric,
            points,
            types,
            self.types.len(),
            candidates,
            Normalizer::Fixed(normalizer),
        )
    }

    /// The k-topic influence objective (Rafiey & Yoshida 2020, Example 1.2;
    /// [`TopicCoverage`]): `reach[u]` lists the (candidate, type) pairs that reach person u
    /// — seed v spreading topic t reaches u — and a person counts once however many pairs
    /// reach them. One person's list is their record (λ = 1).
    ///
    /// ```
    /// use disguise::prelude::*;
    /// use disguise::task::Assign;
    ///
    /// // Seed 0 reaches persons 0–29 with topic 0 (news); seed 1 reaches 30–49 with topic 1.
    /// let mut reach: Vec<Vec<(usize, usize)>> = vec![vec![(0, 0)]; 30];
    /// reach.extend(vec![vec![(1, 1)]; 20]);
    /// let request = Assign::new(["news", "sport"], 2).epsilon(20.0);
    /// let objective = request.reach_objective(2, &reach)?;
    /// let prepared = request.prepare_reach(&objective, reach.len(), false)?;
    /// let run = prepared.run(&mut SecureRng::insecure_from_seed(1))?;
    /// assert_eq!(run.pairs().len(), 2);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// `k` larger than the number of candidates; a candidate or type out of range; no
    /// person.
    pub fn reach_objective(
        &self,
        candidates: usize,
        reach: &[Vec<(usize, usize)>],
    ) -> Result<TopicCoverage> {
        TopicCoverage::new(candidates, &self.per_type(candidates, reach)?)
    }

    /// The ad-slot allocation objective (Rafiey & Yoshida 2020, Example 5.1;
    /// [`ad_allocation`]): as [`Assign::reach_objective`], but a person reached by several
    /// types counts once per type (each type is its own coverage of the people).
    ///
    /// # Errors
    /// As [`Assign::reach_objective`].
    pub fn per_type_objective(
        &self,
        candidates: usize,
        reach: &[Vec<(usize, usize)>],
    ) -> Result<Separable<Coverage>> {
        ad_allocation(candidates, &self.per_type(candidates, reach)?)
    }

    /// `reach` regrouped per type: `out[t][u]` lists the candidates whose type-t pair reaches
    /// person u, after checking k, the types and that there is someone.
    fn per_type(
        &self,
        candidates: usize,
        reach: &[Vec<(usize, usize)>],
    ) -> Result<Vec<Vec<Vec<usize>>>> {
        if let Some(k) = self.k
            && k > candidates
        {
            return Err(Error::param(
                "k",
                format!("{k} is larger than the number of candidates ({candidates})"),
            ));
        }
        if reach.is_empty() {
            return Err(Error::param("reach", "there are no people"));
        }
        let types = self.types.len();
        let mut out = vec![vec![Vec::new(); reach.len()]; types];
        for (u, pairs) in reach.iter().enumerate() {
            for &(v, t) in pairs {
                if t >= types {
                    return Err(Error::param(
                        "reach",
                        format!("person {u}: type {t} is out of range (there are {types})"),
                    ));
                }
                out[t][u].push(v);
            }
        }
        Ok(out)
    }

    /// Everything a run needs that does not change between trials.
    ///
    /// # Errors
    /// As [`Assign::validate`]; a constraint file that cannot be read.
    pub fn prepare<'o>(
        &self,
        objective: &'o Separable<FacilityLocation>,
    ) -> Result<PreparedAssign<'o>> {
        let per_type: Vec<usize> = objective.parts().iter().map(|f| f.num_records()).collect();
        let n: usize = per_type.iter().sum();
        let mut prepared = self.prepare_with(objective, n as f64)?;
        prepared.records = n;
        prepared.facility = Some(Facility {
            metric: self.metric.name(),
            normalizer: (objective.parts().first())
                .and_then(|f| f.normalizer())
                .unwrap_or(f64::NAN),
            points_per_type: per_type,
        });
        Ok(prepared)
    }

    /// [`Assign::prepare`] for an objective over the (candidate, type) pairs that reach
    /// `people` persons ([`Assign::reach_objective`], [`Assign::per_type_objective`]): its
    /// value is at most `people` per type counted.
    ///
    /// # Errors
    /// As [`Assign::prepare`].
    pub fn prepare_reach<'o, F: KSubmodularFunction>(
        &self,
        objective: &'o F,
        people: usize,
        per_type: bool,
    ) -> Result<PreparedAssign<'o, F>> {
        let counted = if per_type { self.types.len() } else { 1 };
        let mut prepared = self.prepare_with(objective, (people * counted) as f64)?;
        prepared.records = people;
        Ok(prepared)
    }

    /// Everything a run needs; `f_max` is the most the objective can reach (for its bound).
    /// What a run will spend among `candidates` public candidates, planned before any record
    /// is read (the k-submodular greedy's planned rounds — the constraint's rank — and the
    /// accountant, [`crate::maximize::planned`]): the report's privacy, which a budget
    /// ledger reserves first.
    ///
    /// # Errors
    /// As [`Assign::validate`]; a constraint file that cannot be read.
    pub fn plan(&self, candidates: usize) -> Result<PrivacyReport> {
        let (procedure, _) = self.validate()?;
        let constraint = self.matroid(candidates)?;
        Ok(PrivacyReport::planned(
            &crate::maximize::planned(&procedure, constraint.rank_bound(), false)?,
            Unit::Record,
        ))
    }

    /// The matroid over `m` candidates: the constraint file's, or the cardinality k's.
    fn matroid(&self, m: usize) -> Result<Matroid> {
        Ok(match (&self.constraint, self.k) {
            (Some(spec), _) => Matroid::from_spec(spec, m)?,
            (None, Some(k)) => Matroid::Cardinality(Cardinality::new(m, k)),
            (None, None) => return Err(Error::param("k", "k or a constraint is required")),
        })
    }

    fn prepare_with<'o, F: KSubmodularFunction>(
        &self,
        objective: &'o F,
        f_max: f64,
    ) -> Result<PreparedAssign<'o, F>> {
        let (procedure, failure) = self.validate()?;
        let constraint = self.matroid(objective.ground_size())?;
        Ok(PreparedAssign {
            objective,
            constraint,
            procedure,
            failure,
            algorithm: self.chosen_algorithm(),
            mechanism: self.privacy.mechanism,
            f_max,
            types: self.types.clone(),
            records: 0,
            facility: None,
        })
    }
}

/// What a k-type facility location's report adds to a k-submodular one's.
struct Facility {
    metric: &'static str,
    normalizer: f64,
    points_per_type: Vec<usize>,
}

/// An [`Assign`] ready to run any number of trials on one objective (k-type facility
/// location by default, or [`TopicCoverage`]).
pub struct PreparedAssign<'o, F: KSubmodularFunction = Separable<FacilityLocation>> {
    objective: &'o F,
    constraint: Matroid,
    procedure: Procedure<'static>,
    failure: f64,
    algorithm: Algorithm,
    mechanism: SelectorKind,
    f_max: f64,
    types: Vec<String>,
    /// The points (facility location) or people (reach) the objective counts.
    records: usize,
    facility: Option<Facility>,
}

impl<F: KSubmodularFunction> Runnable for PreparedAssign<'_, F> {
    type Output = Assignment;

    fn run(&self, rng: &mut SecureRng) -> Result<Assignment> {
        match self.algorithm {
            Algorithm::Subsample => k_submodular_subsample_greedy(
                self.objective,
                &self.constraint,
                self.failure,
                &self.procedure,
                rng,
            ),
            _ => k_submodular_greedy(self.objective, &self.constraint, &self.procedure, rng),
        }
    }
}

impl<F: KSubmodularFunction> PreparedAssign<'_, F> {
    /// The most picks a run can make (the constraint's rank, at most the candidates).
    pub fn max_picks(&self) -> usize {
        self.constraint
            .rank_bound()
            .min(self.objective.ground_size())
    }
}

impl<F: KSubmodularFunction> Reporting for PreparedAssign<'_, F> {
    type Params = AssignParams;

    /// The utility of an objective value: its share of the most the objective can reach
    /// (f/n for k-type facility location, the share of people — or of people × topics —
    /// reached).
    fn utility(&self, value: f64) -> f64 {
        value / self.f_max.max(1.0)
    }

    /// The a-priori utility of a run with the exponential mechanism, from public quantities
    /// only (n, the planned rounds, the (element, type) pairs, ε₀ and, for the subsample
    /// algorithm, γ and the constraint's kind): [`Usefulness::k_submodular`] for
    /// Algorithm 3 (probability 1 − β), [`Usefulness::k_submodular_subsample`] for
    /// Algorithm 4 (probability 1 − β − γ, proven for a cardinality constraint). `None`
    /// for the other mechanisms.
    fn usefulness(&self, run: &Assignment) -> Option<Usefulness> {
        if self.mechanism != SelectorKind::Exponential {
            return None;
        }
        let epsilon0 = run.solution.budget_split.as_ref()?.per_round_epsilon;
        let lambdas: Vec<f64> = (0..run.solution.planned_rounds)
            .map(|r| self.objective.sensitivity(r).get())
            .collect();
        let pairs = self.objective.ground_size() * self.objective.types();
        Some(match self.algorithm {
            Algorithm::Subsample => Usefulness::k_submodular_subsample(
                self.f_max,
                &lambdas,
                pairs,
                epsilon0,
                self.failure,
                // Every feasible element can replace any element of an optimal base.
                matches!(
                    self.constraint,
                    Matroid::Cardinality(_) | Matroid::Uniform(_)
                ),
            ),
            _ => Usefulness::k_submodular(self.f_max, &lambdas, pairs, epsilon0),
        })
    }

    /// The task's public parameters as a report states them.
    fn params(&self, run: &Assignment) -> AssignParams {
        let facility = self.facility.as_ref();
        AssignParams {
            objective: run.solution.objective,
            algorithm: run.solution.algorithm,
            mechanism: self.mechanism.name(),
            constraint: run.solution.constraint,
            metric: facility.map(|f| f.metric),
            // Given, or the public candidates' bounding box.
            normalizer: facility.map(|f| Public::new(f.normalizer)),
            records: Public::new(self.records),
            points_per_type: Diagnostic::new(facility.map(|f| f.points_per_type.clone())),
            candidates: Public::new(self.objective.ground_size()),
            type_names: Public::new(self.types.clone()),
            dropped: Diagnostic::new(None),
        }
    }

    fn unit(&self) -> Unit {
        Unit::Record
    }
}

/// The report of one [`Assign`] run ([`Report`] with [`AssignParams`]): each pick with its
/// type. Values and utilities are computed on the private records for evaluation: they are
/// NOT covered by the guarantee, which protects the choice only.
pub type AssignReport = Report<AssignParams>;

/// The parameters of an [`Assign`] run as its [`Report`] states them.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct AssignParams {
    /// The objective.
    pub objective: &'static str,
    /// The algorithm that ran.
    pub algorithm: &'static str,
    /// The selection of every round.
    pub mechanism: &'static str,
    /// The constraint.
    pub constraint: &'static str,
    /// The metric (k-type facility location).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<&'static str>,
    /// The normaliser m used (k-type facility location).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normalizer: Option<Public<f64>>,
    /// The records: points (facility location) or people (reach).
    pub records: Public<usize>,
    /// The points of each type (k-type facility location; NOT private: a histogram of the
    /// records' types, where only their total is public).
    #[serde(skip)]
    pub points_per_type: Diagnostic<Option<Vec<usize>>>,
    /// The number of candidates.
    pub candidates: Public<usize>,
    /// The type labels; `types` index into it.
    pub type_names: Public<Vec<String>>,
    /// Pairs the front end left out while reading, for naming a candidate or type not in
    /// the public lists (NOT private; `None` when not counted).
    #[serde(skip)]
    pub dropped: Diagnostic<Option<u64>>,
}

impl super::Params for AssignParams {
    fn mechanism(&self) -> &'static str {
        self.mechanism
    }
    /// None yet: how far a k-submodular objective's value (not its gains) moves between
    /// neighbours is not derived for every objective of this task.
    fn utility_scale(&self) -> Result<super::UtilityScale> {
        Err(Error::param(
            "estimate_utility",
            "not available for assign: the sensitivity of a k-submodular objective's value \
             is not derived (select, cover and cut have one)",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_point_is_served_by_its_own_type() {
        let points = [[0.0, 0.0], [0.0, 0.1], [5.0, 5.0], [5.0, 5.1]];
        let types = [0, 0, 1, 1];
        let candidates = [[0.0, 0.05], [5.0, 5.05], [9.0, 9.0]];
        let request = Assign::new(["a", "b"], 2).epsilon(50.0).delta(1e-6);
        let objective = request.objective(&points, &types, &candidates).unwrap();
        let prepared = request.prepare(&objective).unwrap();
        let run = prepared.run(&mut SecureRng::insecure_from_seed(3)).unwrap();
        let mut picks: Vec<(usize, usize)> = run
            .solution
            .elements
            .iter()
            .copied()
            .zip(run.types.iter().copied())
            .collect();
        picks.sort();
        assert_eq!(picks, [(0, 0), (1, 1)]);
        assert!(prepared.privacy(&run).guarantee.unwrap().epsilon <= 50.0);
    }

    #[test]
    fn the_subsample_bound_holds_with_probability_one_minus_beta_minus_gamma() {
        let points: Vec<[f64; 2]> = (0..40).map(|i| [f64::from(i % 5), 0.0]).collect();
        let types: Vec<usize> = (0..40).map(|i| i % 2).collect();
        let candidates: Vec<[f64; 2]> = (0..8).map(|i| [f64::from(i), 0.1]).collect();
        let bound = |algorithm, failure| {
            let request = Assign {
                algorithm,
                failure,
                ..Assign::new(["a", "b"], 2).epsilon(4.0)
            };
            let objective = request.objective(&points, &types, &candidates).unwrap();
            let prepared = request.prepare(&objective).unwrap();
            let run = prepared.run(&mut SecureRng::insecure_from_seed(5)).unwrap();
            prepared.usefulness(&run).unwrap().bound
        };
        // Algorithm 3: β = 5%. Algorithm 4: β + γ, at the default γ = 10% and at 1.5%.
        assert!(bound(Algorithm::Greedy, None).starts_with("with probability ≥ 95%,"));
        let default = bound(Algorithm::Subsample, None);
        assert!(default.starts_with("with probability ≥ 85%,"), "{default}");
        assert!(default.contains("Theorem 5.6"), "{default}");
        let small = bound(Algorithm::Subsample, Some(0.015));
        assert!(small.starts_with("with probability ≥ 93.5%,"), "{small}");
    }

    #[test]
    fn options_are_refused_with_their_names() {
        let ok = Assign::new(["a", "b"], 2).epsilon(1.0);
        assert!(ok.validate().is_ok());
        let cases = [
            (
                Assign {
                    types: vec![],
                    ..ok.clone()
                },
                "invalid types",
            ),
            (
                Assign {
                    types: vec!["a".into(), "a".into()],
                    ..ok.clone()
                },
                "listed twice",
            ),
            (
                Assign {
                    k: Some(0),
                    ..ok.clone()
                },
                "invalid k: must be at least 1",
            ),
            (
                Assign {
                    k: None,
                    ..ok.clone()
                },
                "k or a constraint is required",
            ),
            (
                Assign {
                    failure: Some(0.5),
                    ..ok.clone()
                },
                "only to the subsample",
            ),
            (
                Assign {
                    algorithm: Algorithm::Subsample,
                    failure: Some(1.5),
                    ..ok.clone()
                },
                "invalid failure",
            ),
            (
                Assign {
                    algorithm: Algorithm::ContinuousGreedy,
                    ..ok.clone()
                },
                "invalid algorithm",
            ),
            (
                Assign {
                    normalizer: Some(-1.0),
                    ..ok.clone()
                },
                "invalid normalizer",
            ),
        ];
        for (request, expected) in cases {
            let err = request.validate().unwrap_err().to_string();
            assert!(err.contains(expected), "{err} (expected {expected})");
        }
        let err = ok
            .objective(&[[0.0, 0.0]], &[0], &[[1.0, 1.0]])
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "invalid k: 2 is larger than the number of candidates (1)"
        );
    }
}
