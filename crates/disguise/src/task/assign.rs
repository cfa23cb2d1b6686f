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

use super::select::location_normalizer;
use super::{
    Algorithm, MechanismChoice, Privacy, PrivacyReport, Runnable, Usefulness, WithPrivacy,
};
use crate::constraint::{Cardinality, Independence, Matroid};
use crate::error::{Error, Result};
use crate::maximize::{Assignment, Procedure, k_submodular_greedy, k_submodular_subsample_greedy};
use crate::noise::SecureRng;
use crate::objective::{
    FacilityLocation, KSubmodularFunction, Metric, Normalizer, Separable, k_type_facility_location,
};

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
    /// Greedy (Algorithm 3) or subsample (Algorithm 4).
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
            algorithm: Algorithm::Greedy,
            failure: None,
            privacy: Privacy::default(),
        }
    }

    /// Validates every option that needs no data; returns the procedure and γ.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the option (`algorithm`, `failure`, `types`, `k`,
    /// `normalizer`, `epsilon`, `delta`, `composition`).
    pub fn validate(&self) -> Result<(Procedure<'static>, f64)> {
        let procedure = self.privacy.procedure()?;
        let failure = match (self.algorithm, self.failure) {
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

    /// Everything a run needs that does not change between trials.
    ///
    /// # Errors
    /// As [`Assign::validate`]; a constraint file that cannot be read.
    pub fn prepare<'o>(
        &self,
        objective: &'o Separable<FacilityLocation>,
    ) -> Result<PreparedAssign<'o>> {
        let (procedure, failure) = self.validate()?;
        let m = objective.ground_size();
        let constraint = match (&self.constraint, self.k) {
            (Some(spec), _) => Matroid::from_spec(spec, m)?,
            (None, Some(k)) => Matroid::Cardinality(Cardinality::new(m, k)),
            (None, None) => return Err(Error::param("k", "k or a constraint is required")),
        };
        Ok(PreparedAssign {
            objective,
            constraint,
            procedure,
            failure,
            algorithm: self.algorithm,
            mechanism: self.privacy.mechanism,
        })
    }
}

/// An [`Assign`] ready to run any number of trials on one objective.
pub struct PreparedAssign<'o> {
    objective: &'o Separable<FacilityLocation>,
    constraint: Matroid,
    procedure: Procedure<'static>,
    failure: f64,
    algorithm: Algorithm,
    mechanism: MechanismChoice,
}

impl Runnable for PreparedAssign<'_> {
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

impl PreparedAssign<'_> {
    /// The most picks a run can make (the constraint's rank, at most the candidates).
    pub fn max_picks(&self) -> usize {
        self.constraint
            .rank_bound()
            .min(self.objective.ground_size())
    }

    /// The a-priori utility of a run with the exponential mechanism, from public quantities
    /// only (n, the planned rounds, the (element, type) pairs and ε₀):
    /// [`Usefulness::k_submodular`]. `None` for the other mechanisms.
    pub fn usefulness(&self, run: &Assignment) -> Option<Usefulness> {
        if self.mechanism != MechanismChoice::Exponential {
            return None;
        }
        let epsilon0 = run.solution.budget_split.as_ref()?.per_round_epsilon;
        let lambdas: Vec<f64> = (0..run.solution.planned_rounds)
            .map(|r| self.objective.sensitivity(r).get())
            .collect();
        let n: usize = self.objective.parts().iter().map(|f| f.num_records()).sum();
        let pairs = self.objective.ground_size() * self.objective.types();
        Some(Usefulness::k_submodular(
            n as f64, &lambdas, pairs, epsilon0,
        ))
    }

    /// What a run spent and its guarantee.
    pub fn privacy(&self, run: &Assignment) -> PrivacyReport {
        PrivacyReport::of(&run.solution)
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
