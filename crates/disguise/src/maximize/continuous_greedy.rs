//! The private continuous greedy of Rafiey & Yoshida (2020), Algorithms 1 and 2: monotone
//! submodular maximization under a matroid constraint through the multilinear extension,
//! with each step's direction chosen by the exponential mechanism and the final point
//! rounded by swap rounding.

use super::base_sampler::{
    Block, MatroidBases, exponential_base, exponential_units, max_weight_base, random_base,
};
use super::driver::{account, check_sizes};
use super::swap_rounding::swap_round;
use super::{Procedure, Round, Solution};
use crate::error::{Error, Result};
use crate::names::Named;
use crate::noise::SecureRng;
use crate::objective::{ErrorBound, GradientOracle, SetFunction};
use crate::privacy::{Epsilon, PrivacyCost, Sensitivity};
use crate::select::SelectorKind;
use serde::Serialize;

/// How each step's direction y_t (a base of the matroid) is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Directions {
    /// [`Directions::Bases`] when the matroid's bases are a product of uniform matroids
    /// (cardinality, uniform, partition), [`Directions::Sequential`] otherwise (graphic).
    #[default]
    Auto,
    /// Algorithm 1 with C = all bases: one exponential mechanism over *every* base with score
    /// ⟨1_B, ∇F(x)⟩, sampled exactly without enumeration ([`exponential_base`]). Uniform and
    /// partition matroids only. One selector call per step.
    Bases,
    /// Build each step's base by r exponential-mechanism picks over the elements that can
    /// still be added, scored by their partial derivative (the rule of Chaturvedi et al.'s
    /// code; reconstruction note §7.1 item 5). Any matroid, exact. r selector calls per step.
    Sequential,
    /// Algorithm 2-style: the exponential mechanism over an explicit candidate set of `count`
    /// bases drawn independently of the data each step ([`random_base`]). Any matroid; the
    /// guarantee is relative to the best base *in the sample*. One selector call per step.
    Sampled {
        /// Candidate bases per step (≥ 1).
        count: usize,
    },
}

impl Directions {
    /// Parses `auto`, `bases`, `sequential`, or `sampled:N`.
    ///
    /// ```
    /// use disguise::maximize::Directions;
    /// assert_eq!(Directions::from_name("sampled:50")?, Directions::Sampled { count: 50 });
    /// assert!(Directions::from_name("vertices").is_err());
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn from_name(name: &str) -> Result<Self> {
        let name = name.trim().to_ascii_lowercase();
        match name.as_str() {
            "auto" => Ok(Directions::Auto),
            "bases" => Ok(Directions::Bases),
            "sequential" => Ok(Directions::Sequential),
            _ => {
                if let Some(count) = name.strip_prefix("sampled:") {
                    let count =
                        count
                            .parse::<usize>()
                            .ok()
                            .filter(|&c| c > 0)
                            .ok_or_else(|| {
                                Error::param(
                                    "directions",
                                    format!("{name:?}: the sample size must be a positive integer"),
                                )
                            })?;
                    return Ok(Directions::Sampled { count });
                }
                Err(Error::param(
                    "directions",
                    format!(
                        "unknown rule {name:?} (expected auto, bases, sequential or sampled:N)"
                    ),
                ))
            }
        }
    }
}

/// The parameters of the continuous greedy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct ContinuousGreedy {
    /// The number of steps T (step size 1/T); `None` means max(1, r²), the Θ(r(M)²) of the
    /// paper.
    pub steps: Option<usize>,
    /// How each step's direction is chosen.
    pub directions: Directions,
}

impl ContinuousGreedy {
    /// T = r² steps and automatic directions.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the number of steps T (≥ 1).
    pub fn with_steps(mut self, steps: usize) -> Self {
        self.steps = Some(steps);
        self
    }

    /// Sets the direction rule.
    pub fn with_directions(mut self, directions: Directions) -> Self {
        self.directions = directions;
        self
    }

    /// T for a matroid of rank r.
    pub fn steps_for(&self, rank: usize) -> usize {
        self.steps
            .unwrap_or_else(|| rank.saturating_mul(rank).max(1))
    }

    /// The direction rule a run uses: `Auto` resolved by `exact_bases` (whether the
    /// matroid's bases are a product of uniform matroids, [`MatroidBases::uniform_blocks`]).
    ///
    /// # Errors
    /// [`Directions::Bases`] without exact bases, `sampled:0`.
    pub fn resolved_directions(&self, exact_bases: bool) -> Result<Directions> {
        resolve_directions(self.directions, exact_bases)
    }

    /// The number of selector calls a run makes on a matroid of rank r with this direction
    /// rule (`Auto` resolved by `exact_bases`): T, or T·r for [`Directions::Sequential`];
    /// 0 when r = 0 (nothing to choose, no data touched).
    pub fn planned_calls(&self, rank: usize, exact_bases: bool) -> Result<usize> {
        if rank == 0 {
            return Ok(0);
        }
        let steps = self.steps_for(rank);
        match resolve_directions(self.directions, exact_bases)? {
            Directions::Sequential => steps
                .checked_mul(rank)
                .ok_or_else(|| Error::Overflow(format!("{steps} steps × rank {rank}"))),
            _ => Ok(steps),
        }
    }
}

/// Everything a continuous-greedy run produced: the [`Solution`] (the same contract as every
/// other algorithm) and the fractional side of the run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContinuousGreedyRun {
    /// The rounded set, its values, evaluations, per-call costs and the guarantee.
    pub solution: Solution,
    /// T.
    pub steps: usize,
    /// The direction rule used (`Auto` resolved).
    pub directions: Directions,
    /// The final fractional point x_T = (1/T)·Σ_t 1_{B_t} ∈ P(M).
    pub point: Vec<f64>,
    /// The base chosen at each step (sorted).
    pub bases: Vec<Vec<usize>>,
    /// `closed-form` or `sampled`.
    pub gradient_method: &'static str,
    /// The weakest accuracy guarantee of any step's gradient (largest error, largest γ).
    pub gradient_error: Option<ErrorBound>,
    /// F(x_T), when the objective has a closed form (`None` otherwise).
    pub multilinear_value: Option<f64>,
}

fn resolve_directions(directions: Directions, exact_bases: bool) -> Result<Directions> {
    match directions {
        Directions::Auto if exact_bases => Ok(Directions::Bases),
        Directions::Auto => Ok(Directions::Sequential),
        Directions::Bases if !exact_bases => Err(Error::param(
            "directions",
            "the exact base sampler needs a uniform or partition matroid; use sequential or \
             sampled:N for this constraint",
        )),
        Directions::Sampled { count: 0 } => Err(Error::param(
            "directions",
            "sampled:N needs at least one candidate base per step",
        )),
        other => Ok(other),
    }
}

/// The private continuous greedy (Rafiey & Yoshida 2020, Algorithms 1 and 2) returning the
/// rounded set as a [`Solution`]; [`continuous_greedy_run`] also returns the fractional point
/// and the bases.
///
/// ```text
/// x ← 0
/// for t = 1..T:                                  (T = max(1, r²) by default)
///     g ← ∇F(x)                                  (closed form, or sampled: data-independent)
///     B_t ← exponential mechanism over the bases of M with score ⟨1_B, g⟩
///     x ← x + (1/T)·1_{B_t}
/// S ← swap_round(x = (1/T)·Σ_t 1_{B_t})          (post-processing)
/// ```
///
/// The gradient comes from `oracle`: a closed form ([`ClosedForm::multilinear`](
/// crate::objective::ClosedForm::multilinear) for facility location and coverage) or the
/// estimator [`SampledGradient`](crate::objective::SampledGradient) for any objective. The
/// direction rule is `options.directions` ([`Directions`]).
///
/// # Guarantee
/// Neighbouring datasets differ in one record. Let K be the gradient's per-coordinate
/// sensitivity in fixed-point units ([`Gradient::sensitivity_units`](
/// crate::objective::Gradient::sensitivity_units): one record's contribution to a partial
/// derivative, λ of the objective — 1 for facility location, w_max for coverage — or, for an
/// estimate, Σ_j λ over the samples with λ the objective's *gain* bound
/// [`SetFunction::gain_sensitivity`](crate::objective::SetFunction::gain_sensitivity), because
/// each coordinate's sampled gain sits at its own set) and r the rank. For a base B, the score ⟨1_B, g⟩ has
/// sensitivity s = r·K, because each of its r coordinates moves by at most K (this is the
/// reconstruction note's s ≤ 2r(M)Δ with the marginal-gain sensitivity λ ≤ 2Δ in place of 2Δ).
/// * [`Directions::Bases`] and [`Directions::Sampled`]: each step is one exponential
///   mechanism with sensitivity s and budget ε₀ — ε₀-DP and ε₀-bounded-range conditioned on
///   the earlier steps (x is a function of the earlier outputs, the gradient's samples are
///   independent of the data). The accountant composes the T calls
///   ([`PrivacyCost::BoundedRange`] each): T·ε₀ (basic, the paper's ε·r(M)² with T = r²),
///   advanced composition, or the bounded-range/zCDP bound.
/// * [`Directions::Sequential`]: T·r exponential mechanisms on single coordinates with
///   sensitivity K, composed the same way.
/// * Swap rounding is post-processing (free). The decomposable (Gupta et al.) rule is never
///   used: its proof covers the discrete greedy, not this algorithm.
///
/// With a total budget ([`Budget::Total`](super::Budget::Total)) the accountant splits it over
/// the T (or T·r) planned calls. Only the exponential mechanism is supported (the base
/// sampler *is* an exponential mechanism); [`Procedure::Argmax`] gives the non-private
/// continuous greedy (max-weight base each step).
///
/// # Utility
/// For a monotone submodular f with f(∅) = 0 and OPT = max over independent sets, with
/// c_T = 1 − (1 − 1/T)^T (`docs/proofs/utility-bounds.md` §4, the paper's Theorem 3.3 with
/// its constants written out; CCPV 2011 for the continuous greedy, Chekuri–Vondrák–Zenklusen
/// 2010 for E[f(S)] ≥ F(x_T)):
///
/// E[f(S)] ≥ c_T·(1 − r(r − 1)/(2T) − 2rρ)·OPT − c_T·(a + 2rτ),
///
/// where a is the expected loss of one step's direction — (2s/ε₀)·(ln|𝓑| + 1) for
/// [`Directions::Bases`] (C = all bases, no covering loss), r·(2K/ε₀)·(ln|V| + 1) for
/// [`Directions::Sequential`] —, τ the gradient's deterministic error per coordinate
/// ([`GradientOracle::error_bound`]) and ρ = √(ln(2|V|)/(2m)) for m sampled gradient sets
/// (0 for a closed form). [`Directions::Sampled`] is relative to the best of its sampled
/// bases and has no bound against OPT. The task layer states this bound for every run
/// (`Usefulness`).
///
/// # Runtime
/// T gradients (closed form: one pass over the data each; sampled: m·|V| gains each), T
/// exact base samples (O(|V|) draws times ≈ √r trials; see [`exponential_base`]), and swap
/// rounding (O(T·r³) oracle calls at worst). `gain_evaluations` counts the gradients'
/// evaluations ([`Gradient::evaluations`](crate::objective::Gradient::evaluations)).
///
/// # Errors
/// Mismatched ground sizes; `steps` = 0; [`Directions::Bases`] on a graphic matroid; a
/// mechanism other than the exponential mechanism, or a custom selector; a budget the
/// accountant cannot split; a gradient error (invalid objective values).
///
/// ```
/// use disguise::constraint::Cardinality;
/// use disguise::maximize::{continuous_greedy, Budget, ContinuousGreedy, Procedure};
/// use disguise::objective::{ClosedForm, Coverage};
/// use disguise::prelude::*;
///
/// let f = Coverage::new(4, &[vec![0, 1], vec![1], vec![1, 2], vec![3], vec![3]])?;
/// let mut rng = SecureRng::from_os()?;
/// let private = Procedure::private(SelectorKind::Exponential, Budget::total(1.0, 1e-6)?);
/// let options = ContinuousGreedy::new().with_steps(4);
/// let s = continuous_greedy(&f.multilinear()?, &Cardinality::new(4, 2), &options, &private, &mut rng)?;
/// assert_eq!(s.elements.len(), 2);
/// assert!(s.guarantee.unwrap().epsilon <= 1.0);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn continuous_greedy<G, C>(
    oracle: &G,
    constraint: &C,
    options: &ContinuousGreedy,
    procedure: &Procedure<'_>,
    rng: &mut SecureRng,
) -> Result<Solution>
where
    G: GradientOracle + ?Sized,
    C: MatroidBases + ?Sized,
{
    Ok(continuous_greedy_run(oracle, constraint, options, procedure, rng)?.solution)
}

/// [`continuous_greedy`] with the fractional side of the run ([`ContinuousGreedyRun`]).
pub fn continuous_greedy_run<G, C>(
    oracle: &G,
    constraint: &C,
    options: &ContinuousGreedy,
    procedure: &Procedure<'_>,
    rng: &mut SecureRng,
) -> Result<ContinuousGreedyRun>
where
    G: GradientOracle + ?Sized,
    C: MatroidBases + ?Sized,
{
    let objective = oracle.objective();
    let n = objective.ground_size();
    check_sizes(n, constraint)?;
    if options.steps == Some(0) {
        return Err(Error::param(
            "steps",
            "the continuous greedy needs T ≥ 1 steps",
        ));
    }
    let rank = constraint.rank_bound();
    // The rounded set has up to r elements: refuse objectives that cannot hold them.
    if rank.min(n) > objective.max_solution_size() {
        return Err(Error::param(
            "constraint",
            format!(
                "{} can hold at most {} elements, but a base has {}",
                objective.name(),
                objective.max_solution_size(),
                rank.min(n)
            ),
        ));
    }
    let blocks = constraint.uniform_blocks();
    let directions = resolve_directions(options.directions, blocks.is_some())?;
    let steps = options.steps_for(rank);
    let planned = options.planned_calls(rank, blocks.is_some())?;
    if let Procedure::Private { mechanism, .. } = procedure
        && *mechanism != SelectorKind::Exponential
    {
        return Err(Error::param(
            "mechanism",
            format!(
                "the continuous greedy chooses among bases with the exponential mechanism; \
                 {} is not supported",
                mechanism.name()
            ),
        ));
    }
    if let Procedure::Custom { .. } = procedure {
        return Err(Error::param(
            "procedure",
            "the continuous greedy samples the exponential mechanism over bases itself; a \
             custom selector cannot be used",
        ));
    }
    let resolved = procedure.resolve(planned, false)?;
    let selector = resolved.selector.get();
    let cost = selector.cost();
    let epsilon: Option<Epsilon> = match cost {
        PrivacyCost::BoundedRange { epsilon } => Some(epsilon),
        PrivacyCost::NonPrivate => None,
        other => {
            return Err(Error::param(
                "procedure",
                format!("unexpected selector cost {other:?} for the continuous greedy"),
            ));
        }
    };

    let mut solution = Solution {
        planned_rounds: planned,
        secure_rng: rng.is_secure(),
        budget_split: resolved.split,
        ..Solution::empty(
            "continuous-greedy",
            objective.name(),
            constraint.name(),
            selector.name(),
            objective.value(&objective.empty()),
        )
    };
    let mut counts = vec![0u64; n];
    let mut bases: Vec<Vec<usize>> = Vec::new();
    let mut worst: Option<ErrorBound> = None;
    let block_elements: usize = blocks
        .as_ref()
        .map_or(0, |b| b.iter().map(|b| b.elements.len()).sum());

    if rank > 0 {
        let mut x = vec![0.0f64; n];
        for _ in 0..steps {
            for (xv, &c) in x.iter_mut().zip(&counts) {
                *xv = c as f64 / steps as f64;
            }
            let gradient = oracle.gradient(&x, rng)?;
            solution.gain_evaluations += gradient.evaluations;
            worst = Some(match worst {
                None => gradient.error,
                Some(w) => ErrorBound {
                    absolute: w.absolute.max(gradient.error.absolute),
                    per_range: w.per_range.max(gradient.error.per_range),
                    failure_probability: w
                        .failure_probability
                        .max(gradient.error.failure_probability),
                },
            });
            let scale = gradient.unit / gradient.samples as f64;
            let coordinate = gradient.sensitivity_units;
            let base_sensitivity = coordinate
                .checked_mul(rank as u128)
                .ok_or_else(|| Error::Overflow("base score sensitivity".into()))?;
            let round = |candidates: usize, units: u128, pick: Option<usize>| -> Result<Round> {
                Ok(Round {
                    candidates,
                    dummies: 0,
                    pick,
                    sensitivity: Sensitivity::new(units as f64 * scale)?,
                    cost,
                    margin: None,
                })
            };
            let base = match directions {
                Directions::Bases => {
                    let blocks: &[Block] = blocks.as_deref().expect("resolved to bases");
                    let base = match epsilon {
                        Some(eps) => {
                            exponential_base(rng, blocks, &gradient.units, eps, base_sensitivity)?
                        }
                        None => max_weight_base(constraint, &gradient.units),
                    };
                    solution
                        .rounds
                        .push(round(block_elements, base_sensitivity, None)?);
                    base
                }
                Directions::Sampled { count } => {
                    let candidates: Vec<Vec<usize>> =
                        (0..count).map(|_| random_base(constraint, rng)).collect();
                    let scores = candidates
                        .iter()
                        .map(|b| {
                            b.iter().try_fold(0i128, |acc, &e| {
                                acc.checked_add(gradient.units[e]).ok_or_else(|| {
                                    Error::Overflow("base score exceeds i128".into())
                                })
                            })
                        })
                        .collect::<Result<Vec<i128>>>()?;
                    let index = match epsilon {
                        Some(eps) => exponential_units(rng, &scores, eps, base_sensitivity)?,
                        None => first_max(&scores),
                    };
                    solution.rounds.push(round(count, base_sensitivity, None)?);
                    candidates[index].clone()
                }
                Directions::Sequential => {
                    let mut state = constraint.empty();
                    let mut base = Vec::with_capacity(rank);
                    let mut taken = vec![false; n];
                    let mut feasible: Vec<usize> = Vec::with_capacity(n);
                    let mut scores: Vec<i128> = Vec::with_capacity(n);
                    for _ in 0..rank {
                        feasible.clear();
                        feasible
                            .extend((0..n).filter(|&v| !taken[v] && constraint.can_add(&state, v)));
                        if feasible.is_empty() {
                            break; // a basis already (rank_bound above the true rank)
                        }
                        scores.clear();
                        scores.extend(feasible.iter().map(|&v| gradient.units[v]));
                        let index = match epsilon {
                            Some(eps) => exponential_units(rng, &scores, eps, coordinate)?,
                            None => first_max(&scores),
                        };
                        let v = feasible[index];
                        constraint.insert(&mut state, v);
                        taken[v] = true;
                        base.push(v);
                        solution
                            .rounds
                            .push(round(feasible.len(), coordinate, Some(v))?);
                    }
                    base.sort_unstable();
                    base
                }
                Directions::Auto => unreachable!("resolved above"),
            };
            for &v in &base {
                counts[v] += 1;
            }
            bases.push(base);
        }
    }

    let point: Vec<f64> = counts.iter().map(|&c| c as f64 / steps as f64).collect();
    let multilinear_value = oracle.closed_form_value(&point).transpose()?;
    let set = if bases.is_empty() {
        Vec::new()
    } else {
        let weighted: Vec<(u64, Vec<usize>)> = bases.iter().map(|b| (1, b.clone())).collect();
        swap_round(constraint, &weighted, rng)?
    };
    let mut state = objective.empty();
    for &v in &set {
        objective.insert(&mut state, v);
        solution.elements.push(v);
        solution.value = objective.value(&state);
        solution.values.push(solution.value);
    }
    account(&mut solution, cost, resolved.delta, false)?;
    Ok(ContinuousGreedyRun {
        solution,
        steps,
        directions,
        point,
        bases,
        gradient_method: oracle.method(),
        gradient_error: worst,
        multilinear_value,
    })
}

/// The first index of the largest score (non-private argmax).
fn first_max(scores: &[i128]) -> usize {
    let mut best = 0;
    for (i, &s) in scores.iter().enumerate() {
        if s > scores[best] {
            best = i;
        }
    }
    best
}
