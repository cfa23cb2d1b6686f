//! Private k-submodular maximization under a matroid constraint on the support: Algorithms 3
//! (greedy) and 4 (subsampled greedy) of Rafiey & Yoshida (2020).

use super::driver::{account, check_sizes};
use super::{Procedure, Round, Solution};
use crate::constraint::Independence;
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::noise::bernoulli::uniform_below;
use crate::objective::KSubmodularFunction;
use serde::Serialize;

/// The result of a k-submodular run: a [`Solution`] (the same contract as every other
/// algorithm; `elements` are the assigned elements in the order they were picked) and the
/// type of each.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assignment {
    /// The run: elements, values after each pick, evaluations (one per (element, type) pair
    /// scored), per-call costs and the guarantee.
    #[serde(flatten)]
    pub solution: Solution,
    /// `types[j]` ∈ 0..k is the type assigned to `solution.elements[j]`.
    pub types: Vec<usize>,
}

impl Assignment {
    /// The assignment as `(element, type)` pairs, in pick order.
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        self.solution
            .elements
            .iter()
            .copied()
            .zip(self.types.iter().copied())
            .collect()
    }
}

/// Which elements a round scores.
#[derive(Debug, Clone, Copy)]
enum Policy {
    /// Every assignable element (Algorithm 3).
    All,
    /// A uniform subsample (Algorithm 4) with failure probability γ.
    Subsample(f64),
}

/// Algorithm 3 of Rafiey & Yoshida (2020): the private k-submodular greedy.
///
/// ```text
/// x ← empty assignment
/// for j = 1..r(M):
///     Cand ← {(v, i) : v unassigned, supp(x) ∪ {v} ∈ 𝓘, i ∈ [k]}
///     (v, i) ← selector over Cand with scores Δ_{v,i} f(x), sensitivity λ(j − 1)
///     x(v) ← i
/// ```
///
/// The run stops early only when no element can be added (the support is a base).
///
/// # Guarantee
/// Each round is one selector call on the |Cand| ≤ k·|V| gains, whose sensitivity λ is the
/// objective's proven bound on a marginal gain (the paper's s_k ≤ 2Δ, or Δ for one
/// monotone summand per record). With the exponential mechanism at ε₀ per round the
/// accountant composes the r(M) planned calls: r·ε₀ (basic; Theorem 5.4's ε·r(M)), the
/// advanced composition r·ε₀²/2 + ε₀√(2r·ln(1/δ)), or the bounded-range/zCDP bound. Any
/// [`Procedure`] works (large margin, report noisy max, argmax for the non-private greedy).
/// The decomposable rule is not used (its telescoping argument is for Algorithm 1/2).
///
/// # Utility
/// For monotone k-submodular f, with the exact maximiser each round the greedy is a
/// ½-approximation (Sakaue 2017; Iwata, Tanigawa & Yoshida 2016). With the exponential
/// mechanism, with probability ≥ 1 − β (reconstruction note §5.2, Theorem 5.3):
/// f(x) ≥ ½·OPT − (r·λ/ε₀)·ln(k·|V|·r/β).
///
/// # Runtime
/// At most k·r(M)·|V| gain evaluations (Theorem 5.5), in r bulk calls.
///
/// ```
/// use disguise::constraint::Cardinality;
/// use disguise::maximize::{k_submodular_greedy, Procedure};
/// use disguise::objective::TopicCoverage;
/// // Topic 0 from seed 0 reaches users 0, 1; topic 1 from seed 1 reaches user 2.
/// let f = TopicCoverage::new(2, &[vec![vec![0], vec![0], vec![]], vec![vec![], vec![], vec![1]]])?;
/// let mut rng = disguise::SecureRng::insecure_from_seed(0);
/// let a = k_submodular_greedy(&f, &Cardinality::new(2, 2), &Procedure::Argmax, &mut rng)?;
/// assert_eq!(a.pairs(), vec![(0, 0), (1, 1)]);
/// assert_eq!(a.solution.value, 3.0);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// Mismatched ground sizes, k = 0, a budget the accountant cannot split, or a non-finite gain.
pub fn k_submodular_greedy<F, C>(
    objective: &F,
    constraint: &C,
    procedure: &Procedure<'_>,
    rng: &mut SecureRng,
) -> Result<Assignment>
where
    F: KSubmodularFunction + ?Sized,
    C: Independence + ?Sized,
{
    run(objective, constraint, procedure, Policy::All, rng)
}

/// Algorithm 4 of Rafiey & Yoshida (2020): the subsampled private k-submodular greedy, with
/// failure probability γ = `failure` ∈ (0, 1).
///
/// Round j (of r = r(M) planned) scores only the elements of a uniform random sample R_j of
/// size m_j = min(|F_j|, ⌈|F_j|/(r − j + 1)·ln(r/γ)⌉) of the set F_j of elements that can
/// still be assigned (all k types of each), then selects as [`k_submodular_greedy`] does.
/// The sample is drawn from the secure generator independently of the data (its size depends
/// only on |F_j|, a function of earlier outputs), so the privacy guarantee is exactly that of
/// Algorithm 3 (Theorem 5.7).
///
/// *Sample size.* With O an optimal base containing the current support X, the r − j + 1
/// elements of O ∖ X all lie in F_j, so R_j misses them all with probability
/// ≤ (1 − (r−j+1)/|F_j|)^{m_j} ≤ γ/r; over r rounds every sample meets O ∖ X with
/// probability ≥ 1 − γ (Lemma D.1). The paper samples from all unassigned elements U_j ⊇ F_j
/// with |U_j| in place of |F_j|; sampling only assignable elements needs fewer evaluations
/// for the same bound.
///
/// # Guarantee
/// As [`k_submodular_greedy`]: the accountant composes r(M) calls.
///
/// # Utility
/// With probability ≥ 1 − β − γ (not 1 − β: the samples fail with probability ≤ γ, the
/// mechanism with probability ≤ β, and a union bound adds them),
/// f(x) ≥ ½·OPT − (Σⱼ λⱼ/ε₀)·ln(k·|V|·r/β) (Theorem 5.6), proven for a cardinality
/// constraint (a uniform matroid, where any sampled element of the optimal solution can be
/// exchanged for the chosen one: `docs/proofs/utility-bounds.md` §3). For other matroids
/// the step of the paper's proof that links Lemma 5.2's exchange partner to the sample is
/// not recovered, and no bound is claimed.
///
/// # Runtime
/// Σ_j k·m_j ≤ k·(|V|·H_r·ln(r/γ) + r) = O(k·|V|·ln r·ln(r/γ)) gain evaluations, with H_r
/// the harmonic number — [`k_submodular_sample_size`] gives each m_j.
///
/// # Errors
/// γ outside (0, 1), and those of [`k_submodular_greedy`].
pub fn k_submodular_subsample_greedy<F, C>(
    objective: &F,
    constraint: &C,
    failure: f64,
    procedure: &Procedure<'_>,
    rng: &mut SecureRng,
) -> Result<Assignment>
where
    F: KSubmodularFunction + ?Sized,
    C: Independence + ?Sized,
{
    if !(failure > 0.0 && failure < 1.0) {
        return Err(Error::param(
            "failure probability",
            format!("must be in (0, 1), got {failure}"),
        ));
    }
    run(
        objective,
        constraint,
        procedure,
        Policy::Subsample(failure),
        rng,
    )
}

/// Algorithm 4's sample size m = min(f, ⌈f/(r − j)·ln(r/γ)⌉) in round `round` = j (0-based)
/// of `rounds` = r, with f = `assignable` elements; at least 1 when f ≥ 1.
///
/// ```
/// use disguise::maximize::k_submodular_sample_size;
/// // 1000 assignable elements, first of 10 rounds, γ = 0.1: ⌈100·ln 100⌉ = 461.
/// assert_eq!(k_submodular_sample_size(1000, 0, 10, 0.1), 461);
/// ```
pub fn k_submodular_sample_size(
    assignable: usize,
    round: usize,
    rounds: usize,
    failure: f64,
) -> usize {
    if assignable == 0 {
        return 0;
    }
    let left = rounds.saturating_sub(round).max(1) as f64;
    let m = (assignable as f64 / left * (rounds.max(1) as f64 / failure).ln()).ceil();
    if m >= assignable as f64 {
        assignable
    } else {
        (m as usize).max(1)
    }
}

/// |V| and k, after checking that the constraint is over the objective's ground set.
fn sizes<F, C>(objective: &F, constraint: &C) -> Result<(usize, usize)>
where
    F: KSubmodularFunction + ?Sized,
    C: Independence + ?Sized,
{
    let n = objective.ground_size();
    check_sizes(n, constraint)?;
    Ok((n, objective.types()))
}

fn run<F, C>(
    objective: &F,
    constraint: &C,
    procedure: &Procedure<'_>,
    policy: Policy,
    rng: &mut SecureRng,
) -> Result<Assignment>
where
    F: KSubmodularFunction + ?Sized,
    C: Independence + ?Sized,
{
    let (n, k) = sizes(objective, constraint)?;
    if k == 0 {
        return Err(Error::param("types", "k must be at least 1"));
    }
    let rounds = constraint.rank_bound();
    let resolved = procedure.resolve(rounds, false)?;
    let selector = resolved.selector.get();
    let algorithm = match policy {
        Policy::All => "k-submodular-greedy",
        Policy::Subsample(_) => "k-submodular-subsample-greedy",
    };
    let mut state = objective.empty();
    let mut cstate = constraint.empty();
    let mut solution = Solution {
        planned_rounds: rounds,
        secure_rng: rng.is_secure(),
        budget_split: resolved.split,
        ..Solution::empty(
            algorithm,
            objective.name(),
            constraint.name(),
            selector.name(),
            objective.value(&state),
        )
    };
    let mut types = Vec::new();
    let mut assigned = vec![false; n];
    let mut remaining: Vec<usize> = (0..n).collect();
    let mut scores: Vec<f64> = Vec::new();
    for j in 0..rounds {
        remaining.retain(|&v| !assigned[v] && constraint.can_add(&cstate, v));
        if remaining.is_empty() {
            break;
        }
        let take = match policy {
            Policy::All => remaining.len(),
            Policy::Subsample(gamma) => {
                let m = k_submodular_sample_size(remaining.len(), j, rounds, gamma);
                // Partial Fisher–Yates: the first m positions are a uniform m-subset.
                let len = remaining.len();
                for t in 0..m {
                    let r = t + uniform_below(rng, (len - t) as u64) as usize;
                    remaining.swap(t, r);
                }
                m
            }
        };
        let elements = &remaining[..take];
        scores.clear();
        scores.resize(take * k, 0.0);
        objective.gains(&state, elements, &mut scores);
        solution.gain_evaluations += (take * k) as u64;
        let sensitivity = objective.sensitivity(j);
        let selection = selector.select(&scores, sensitivity, rng)?;
        if selection.index >= scores.len() {
            return Err(Error::param(
                "selector",
                format!(
                    "{} returned index {} for {} scores",
                    selector.name(),
                    selection.index,
                    scores.len()
                ),
            ));
        }
        let (v, t) = (elements[selection.index / k], selection.index % k);
        objective.insert(&mut state, v, t);
        constraint.insert(&mut cstate, v);
        assigned[v] = true;
        solution.elements.push(v);
        types.push(t);
        solution.value = objective.value(&state);
        solution.values.push(solution.value);
        solution.rounds.push(Round {
            candidates: take * k,
            dummies: 0,
            pick: Some(v),
            sensitivity,
            cost: selector.cost(),
            margin: selection.margin,
        });
    }
    account(&mut solution, selector.cost(), resolved.delta, false)?;
    Ok(Assignment { solution, types })
}

/// The exact optimum of a k-submodular function over all assignments whose support is
/// feasible, by enumeration ((k + 1)^|V| assignments at most; refuses more than 2^24). For
/// tests and tiny instances; not private.
///
/// # Errors
/// Mismatched ground sizes, or too many assignments.
pub fn k_submodular_exhaustive<F, C>(objective: &F, constraint: &C) -> Result<Assignment>
where
    F: KSubmodularFunction + ?Sized,
    C: Independence + ?Sized,
{
    let (n, k) = sizes(objective, constraint)?;
    let total = (k as f64 + 1.0).powi(n as i32);
    if total > (1u64 << 24) as f64 {
        return Err(Error::param(
            "exhaustive search",
            format!("(k + 1)^n = {total} assignments exceed 2^24"),
        ));
    }
    let mut best: (f64, Vec<(usize, usize)>) = (objective.value(&objective.empty()), Vec::new());
    let mut current = Vec::new();
    let mut evaluations = 0u64;
    #[allow(clippy::too_many_arguments)]
    fn visit<F: KSubmodularFunction + ?Sized, C: Independence + ?Sized>(
        f: &F,
        c: &C,
        start: usize,
        state: &F::State,
        cstate: &C::State,
        current: &mut Vec<(usize, usize)>,
        best: &mut (f64, Vec<(usize, usize)>),
        evaluations: &mut u64,
    ) {
        let value = f.value(state);
        if value > best.0 {
            *best = (value, current.clone());
        }
        for v in start..f.ground_size() {
            if !c.can_add(cstate, v) {
                continue;
            }
            let mut cnext = cstate.clone();
            c.insert(&mut cnext, v);
            for t in 0..f.types() {
                let mut next = state.clone();
                f.insert(&mut next, v, t);
                *evaluations += 1;
                current.push((v, t));
                visit(f, c, v + 1, &next, &cnext, current, best, evaluations);
                current.pop();
            }
        }
    }
    visit(
        objective,
        constraint,
        0,
        &objective.empty(),
        &constraint.empty(),
        &mut current,
        &mut best,
        &mut evaluations,
    );
    let mut state = objective.empty();
    let mut solution = Solution {
        gain_evaluations: evaluations,
        ..Solution::empty(
            "k-submodular-exhaustive",
            objective.name(),
            constraint.name(),
            "none",
            objective.value(&state),
        )
    };
    let mut types = Vec::new();
    for &(v, t) in &best.1 {
        objective.insert(&mut state, v, t);
        solution.elements.push(v);
        types.push(t);
        solution.value = objective.value(&state);
        solution.values.push(solution.value);
    }
    Ok(Assignment { solution, types })
}
