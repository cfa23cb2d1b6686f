//! The one generic loop behind every greedy-type algorithm: candidates → bulk gains →
//! selector → insert.

use super::{Procedure, Round, Solution};
use crate::constraint::Independence;
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::noise::bernoulli::uniform_below;
use crate::objective::SetFunction;
use crate::privacy::budget::BestBudget;
use crate::privacy::compose::{ComposeOptions, DecomposableGreedy, compose_homogeneous};
use crate::privacy::{Delta, Guarantee, PrivacyCost};
use crate::select::Selector;

/// Which candidates the selector sees in a round.
#[derive(Debug, Clone, Copy)]
pub(super) enum Policy {
    /// Every feasible element not yet chosen (Algorithms 1 and 2). Stops when there is none.
    All,
    /// Every feasible element not yet chosen plus `dummies` zero-gain dummies (random
    /// greedy). Stops when no real candidate is left.
    AllPlusDummies(usize),
    /// A uniform sample (without replacement) of this many feasible elements not yet chosen
    /// — all of them if fewer (stochastic greedy). Stops when there is none.
    Sample(usize),
    /// Algorithm 4: V padded with dummies to |V′| = k·⌈|V|/k⌉, a uniform subset of size
    /// |V′|/k of V′, plus one of k further dummies. Never stops early: exactly `k` rounds.
    Subsample {
        /// The cardinality k (> 0).
        k: usize,
    },
}

/// The fixed parameters of one run.
pub(super) struct Run<'s> {
    pub algorithm: &'static str,
    pub selector: &'s dyn Selector,
    /// Rounds covered by the privacy analysis; the loop never exceeds it.
    pub planned_rounds: usize,
    /// Total δ at which to report the guarantee.
    pub delta: Delta,
    /// Whether this run is Algorithm 1/2 with the standard exponential mechanism on an
    /// objective that declares itself decomposable: the accountant may then use the
    /// decomposable rule (docs/proofs/decomposable-greedy.md).
    pub decomposable: bool,
    /// How a total budget was split, if it was.
    pub split: Option<BestBudget>,
}

/// Runs the loop. Errors if the objective and the constraint have different ground sizes, or
/// if the objective or the selector fails (a non-finite gain, an overflowing noise scale).
pub(super) fn drive<F, C>(
    run: Run<'_>,
    objective: &F,
    constraint: &C,
    policy: Policy,
    rng: &mut SecureRng,
) -> Result<Solution>
where
    F: SetFunction + ?Sized,
    C: Independence + ?Sized,
{
    let n = objective.ground_size();
    check_sizes(n, constraint)?;
    // Some objectives (mutual information) can only represent solutions up to a size; refuse
    // up front rather than fail mid-run.
    let most = run.planned_rounds.min(n);
    if most > objective.max_solution_size() {
        return Err(Error::param(
            "k",
            format!(
                "{} can hold at most {} elements, but this run may pick {most}",
                objective.name(),
                objective.max_solution_size()
            ),
        ));
    }
    let mut state = objective.empty();
    let mut cstate = constraint.empty();
    let mut solution = Solution {
        planned_rounds: run.planned_rounds,
        secure_rng: rng.is_secure(),
        budget_split: run.split,
        ..Solution::empty(
            run.algorithm,
            objective.name(),
            constraint.name(),
            run.selector.name(),
            objective.value(&state),
        )
    };
    let mut chosen = vec![false; n];
    // Feasible elements not yet chosen. An independence system is downward closed, so an
    // element that becomes infeasible stays infeasible: pruning it for good is exact.
    // (Unused by Algorithm 4, which samples from all of V′ and must stay linear-time.)
    let mut remaining: Vec<usize> = match policy {
        Policy::Subsample { .. } => Vec::new(),
        _ => (0..n).collect(),
    };
    // Algorithm 4's padded ground set V′ (ids ≥ n are dummies), kept as a permutation so a
    // partial Fisher–Yates shuffle draws each round's subset in O(|V′|/k).
    let mut padded: Vec<usize> = Vec::new();
    let mut candidates: Vec<usize> = Vec::new();
    let mut scores: Vec<f64> = Vec::new();

    for _ in 0..run.planned_rounds {
        if !matches!(policy, Policy::Subsample { .. }) {
            remaining.retain(|&v| !chosen[v] && constraint.can_add(&cstate, v));
        }
        candidates.clear();
        let mut dummies = 0usize;
        match policy {
            Policy::All => candidates.extend_from_slice(&remaining),
            Policy::AllPlusDummies(d) => {
                candidates.extend_from_slice(&remaining);
                dummies = d;
            }
            Policy::Sample(size) => {
                let take = size.min(remaining.len());
                partial_shuffle(&mut remaining, take, rng);
                candidates.extend_from_slice(&remaining[..take]);
            }
            Policy::Subsample { k } => {
                dummies = subsample(n, k, &chosen, &mut padded, &mut candidates, rng)?;
            }
        }
        if candidates.is_empty() && !matches!(policy, Policy::Subsample { .. }) {
            break; // S is maximal: nothing left to add
        }
        let real = candidates.len();
        scores.clear();
        scores.resize(real + dummies, 0.0);
        objective.gains(&state, &candidates, &mut scores[..real]);
        solution.gain_evaluations += real as u64;
        let sensitivity = objective.sensitivity(solution.elements.len());
        let selection = run.selector.select(&scores, sensitivity, rng)?;
        if selection.index >= scores.len() {
            return Err(Error::param(
                "selector",
                format!(
                    "{} returned index {} for {} scores",
                    run.selector.name(),
                    selection.index,
                    scores.len()
                ),
            ));
        }
        let pick = candidates.get(selection.index).copied();
        if let Some(v) = pick {
            objective.insert(&mut state, v);
            constraint.insert(&mut cstate, v);
            chosen[v] = true;
            solution.elements.push(v);
            solution.value = objective.value(&state);
            solution.values.push(solution.value);
        }
        solution.rounds.push(Round {
            candidates: real + dummies,
            dummies,
            pick,
            sensitivity,
            cost: run.selector.cost(),
            margin: selection.margin,
        });
    }
    account(
        &mut solution,
        run.selector.cost(),
        run.delta,
        run.decomposable,
    )?;
    Ok(solution)
}

/// Errors unless the constraint is over the objective's ground set.
pub(super) fn check_sizes<C: Independence + ?Sized>(n: usize, constraint: &C) -> Result<()> {
    if constraint.ground_size() != n {
        return Err(Error::param(
            "constraint",
            format!(
                "the {} constraint is over {} elements but the objective's ground set has {n}",
                constraint.name(),
                constraint.ground_size()
            ),
        ));
    }
    Ok(())
}

/// Moves a uniform random `take`-subset of `items` to its front (partial Fisher–Yates; from
/// any starting order the first `take` positions are a uniform ordered sample).
fn partial_shuffle(items: &mut [usize], take: usize, rng: &mut SecureRng) {
    let len = items.len();
    for j in 0..take {
        let r = j + uniform_below(rng, (len - j) as u64) as usize;
        items.swap(j, r);
    }
}

/// One round of Algorithm 4's sampling: pushes the real, not-yet-chosen members of a uniform
/// subset of size |V′|/k of the padded ground set V′ into `candidates`, and returns how many
/// zero-gain entries go with them (padding dummies, already-chosen elements — whose marginal
/// gain is exactly 0 — and the extra dummy uᵢ). The randomness is independent of the data.
fn subsample(
    n: usize,
    k: usize,
    chosen: &[bool],
    padded: &mut Vec<usize>,
    candidates: &mut Vec<usize>,
    rng: &mut SecureRng,
) -> Result<usize> {
    debug_assert!(k > 0);
    let per_round = n.div_ceil(k); // |V′|/k
    let overflow = || Error::Overflow(format!("padding {n} elements to a multiple of k = {k}"));
    let padded_size = per_round.checked_mul(k).ok_or_else(overflow)?; // |V′|
    let mut zeros = 1; // the extra dummy uᵢ drawn from U (which one is irrelevant: all score 0)
    let mut take = |id: usize| {
        if id < n && !chosen[id] {
            candidates.push(id);
        } else {
            zeros += 1;
        }
    };
    if per_round <= 1 {
        // k ≥ n: one element of V′ (|V′| = k), drawn directly so that V′ is never built.
        if per_round == 1 {
            take(uniform_below(rng, padded_size as u64) as usize);
        }
    } else {
        // Here k < n, so |V′| < 2n and the permutation fits.
        if padded.len() != padded_size {
            *padded = (0..padded_size).collect();
        }
        partial_shuffle(padded, per_round, rng);
        for &id in &padded[..per_round] {
            take(id);
        }
    }
    Ok(zeros)
}

/// Fills in the solution's guarantees: the accountant's composition of `planned_rounds`
/// calls of cost `cost` (the stopping time is an output, so the analysis covers the worst
/// case), at total δ `delta` ([`composed`]). A non-private run, or one with no planned call,
/// gets none.
///
/// `decomposable_greedy` is true only for [`super::greedy`] with the standard exponential
/// mechanism on an objective that declares itself decomposable; the accountant then gets the
/// sealed evidence for the decomposable rule, provided every round used the same λ (the
/// rule's proof assumes one λ).
pub(super) fn account(
    solution: &mut Solution,
    cost: PrivacyCost,
    delta: Delta,
    decomposable_greedy: bool,
) -> Result<()> {
    let same_lambda = solution
        .rounds
        .windows(2)
        .all(|w| w[0].sensitivity == w[1].sensitivity);
    let Some(c) = composed(
        cost,
        solution.planned_rounds,
        delta,
        decomposable_greedy && same_lambda,
    )?
    else {
        return Ok(());
    };
    solution.guarantees = c.guarantees;
    solution.guarantee = c.best;
    solution.calls = c.calls;
    Ok(())
}

/// The guarantees of `rounds` calls of cost `cost` at total δ `delta` — raised, for
/// approximate calls, to the δ they spend themselves (k·δ₀), so that basic composition
/// always applies — with the decomposable rule's evidence when `decomposable`; `None` for a
/// non-private cost or no call. What [`account`] gives a run, and [`planned`] a run before
/// it starts: one derivation for both.
fn composed(
    cost: PrivacyCost,
    planned_rounds: usize,
    delta: Delta,
    decomposable: bool,
) -> Result<Option<Composed>> {
    if matches!(cost, PrivacyCost::NonPrivate) || planned_rounds == 0 {
        return Ok(None);
    }
    let rounds = u64::try_from(planned_rounds)
        .map_err(|_| Error::Overflow(format!("{planned_rounds} rounds do not fit in u64")))?;
    let delta = match cost {
        PrivacyCost::Approximate { delta: delta0, .. } => {
            // k·δ₀ rounded up, so the reported δ is never below what the calls spend.
            let spent = (delta0.get() * rounds as f64).next_up();
            if spent > delta.get() {
                Delta::new(spent)?
            } else {
                delta
            }
        }
        _ => delta,
    };
    let decomposable = match cost {
        PrivacyCost::BoundedRange { epsilon } if decomposable => {
            Some(DecomposableGreedy::new(epsilon, rounds))
        }
        _ => None,
    };
    let composition = compose_homogeneous(cost, rounds, delta, ComposeOptions { decomposable })?;
    Ok(Some(Composed {
        guarantees: composition.guarantees,
        best: composition.best,
        calls: vec![(cost, rounds)],
    }))
}

/// A composition of a run's planned calls.
struct Composed {
    guarantees: Vec<Guarantee>,
    best: Option<Guarantee>,
    calls: Vec<(PrivacyCost, u64)>,
}

/// What a run of `rounds` planned selector calls with `procedure` will spend, computed
/// before it runs — from public parameters only: the procedure, the number of calls the
/// algorithm plans, and whether the decomposable rule applies (the standard exponential
/// mechanism in Algorithms 1 or 2 on a decomposable objective with one λ in every round) —
/// by the same budget split and accounting the run uses. What a budget ledger reserves
/// before the data is read.
///
/// ```
/// use disguise::maximize::{Budget, Procedure, planned};
/// use disguise::select::SelectorKind;
/// let procedure = Procedure::private(SelectorKind::Exponential, Budget::total(1.0, 0.0)?);
/// let plan = planned(&procedure, 4, false)?;
/// assert_eq!(plan.guarantee.unwrap().epsilon, 1.0);
/// assert_eq!(plan.calls[0].1, 4);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// As the procedure's resolution (a budget no rule can split, …).
pub fn planned(procedure: &Procedure<'_>, rounds: usize, decomposable: bool) -> Result<Planned> {
    let resolved = procedure.resolve(rounds, decomposable)?;
    let cost = resolved.selector.get().cost();
    let c = composed(cost, rounds, resolved.delta, resolved.decomposable)?;
    Ok(Planned {
        rounds,
        split: resolved.split,
        guarantee: c.as_ref().and_then(|c| c.best),
        calls: c.map(|c| c.calls).unwrap_or_default(),
    })
}

/// What a run will spend, planned before it starts ([`planned`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    /// The selector calls the guarantee covers.
    pub rounds: usize,
    /// How a total budget is split over the rounds, if it is.
    pub split: Option<BestBudget>,
    /// The end-to-end guarantee (`None` for the non-private argmax).
    pub guarantee: Option<Guarantee>,
    /// The calls it composes.
    pub calls: Vec<(PrivacyCost, u64)>,
}
