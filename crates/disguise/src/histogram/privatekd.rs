//! Attribute selection for k-discernibility (Vinterbo 2012, Section 2.2 and 2.3.1):
//! PRIVATEKD (Algorithm 1), its non-private version, MDA (the smallest set reaching a
//! fraction 1 − σ of F(A)), and Chaudhuri et al.'s data-splitting choice of k.
//!
//! All of them run the library's generic greedy driver ([`crate::maximize::greedy`]) on the
//! [`Discernibility`] objective; the private ones with the library's exponential mechanism
//! ([`Exponential`]) — there is no second copy of either here.

use super::discretized::{Discretized, predictors};
use crate::constraint::Cardinality;
use crate::error::{Error, Result};
use crate::maximize::{Budget, Procedure, Solution, greedy, standard_greedy};
use crate::noise::SecureRng;
use crate::noise::bernoulli::uniform_below;
use crate::objective::{Discernibility, SetFunction};
use crate::privacy::budget::basic_per_round;
use crate::privacy::{Epsilon, Sensitivity};
use crate::select::{Exponential, Selector, SelectorKind};
use serde::Serialize;

/// The paper's noise-suppression parameter σ = 0.1 for MDA and the choice of k
/// (Section 2.3.1).
pub const DEFAULT_SIGMA: f64 = 0.1;

/// The k-discernibility objective of a discretized table for target column `target`: the
/// predictors are all other columns, in table order. Returns the objective and, for each
/// ground element, its column index in `data`.
///
/// # Errors
/// [`Error::InvalidParameter`] for a target out of range, no predictor, or fewer than 1 row.
pub fn discernibility_for(
    data: &Discretized,
    target: usize,
) -> Result<(Discernibility, Vec<usize>)> {
    let c = DiscernibilityCodes::of(data, target)?;
    let objective = Discernibility::from_codes(c.columns, c.radices, c.labels, c.label_count)?;
    Ok((objective, c.predictors))
}

/// What discernibility is computed from: the predictor columns' codes (shared with the
/// table, not copied) and radices, and the target's.
pub(crate) struct DiscernibilityCodes {
    pub(crate) predictors: Vec<usize>,
    pub(crate) columns: Vec<std::sync::Arc<crate::data::Codes>>,
    pub(crate) radices: Vec<u32>,
    pub(crate) labels: std::sync::Arc<crate::data::Codes>,
    pub(crate) label_count: u32,
}

impl DiscernibilityCodes {
    /// The codes of `data` with target column `target`.
    pub(crate) fn of(data: &Discretized, target: usize) -> Result<Self> {
        let predictors = predictors(data.domains(), target)?;
        let radix = |c: usize| -> Result<u32> {
            u32::try_from(data.domains()[c].size())
                .map_err(|_| Error::param("domains", "a domain has more than 2^32 − 1 values"))
        };
        Ok(DiscernibilityCodes {
            columns: predictors.iter().map(|&c| data.shared_codes(c)).collect(),
            radices: predictors
                .iter()
                .map(|&c| radix(c))
                .collect::<Result<_>>()?,
            labels: data.shared_codes(target),
            label_count: radix(target)?,
            predictors,
        })
    }
}

/// PRIVATEKD (Vinterbo 2012, Algorithm 1): k rounds, each picking an attribute a not yet
/// chosen with probability ∝ exp(ε′·(F(S ∪ {a}) − F(S))), ε′ = ε_p/(4k).
///
/// Runs [`greedy`] under a [`Cardinality`] constraint with the [`Exponential`] mechanism at
/// ε₀ = ε_p/k per round (the largest ε₀ with k·ε₀ ≤ ε_p after rounding) and the objective's
/// sensitivity λ = 2: the weights exp(ε₀·gain/(2λ)) = exp(ε′·gain) are exactly the paper's
/// (see [`crate::objective::discernibility`] for the mapping).
///
/// # Guarantee
/// ε_p-differential privacy for replace-one neighbours (Theorem 1 and Corollary 1: 4kε′ =
/// ε_p); the returned [`Solution::guarantee`] is the accountant's composition of the k calls
/// (basic: k·ε₀ ≤ ε_p).
///
/// # Utility
/// With probability 1 − O(1/poly(d)): F(S) ≥ (1 − 1/e)·OPT − O(k²·log(d)/ε_p) (Corollary 1).
///
/// # Runtime
/// O(k·d·n): k bulk gain passes of O(d·n) (fewer records each round, as classes with a
/// single target drop out), plus k exponential-mechanism draws.
///
/// # Errors
/// [`Error::InvalidParameter`] unless 1 ≤ k ≤ the number of attributes.
///
/// ```
/// use disguise::histogram::private_kd;
/// use disguise::objective::Discernibility;
/// use disguise::privacy::Epsilon;
/// use disguise::SecureRng;
/// let f = Discernibility::new(
///     vec![vec![0, 0, 1, 1], vec![0, 1, 0, 1], vec![0, 0, 0, 0]],
///     vec![2, 2, 1],
///     vec![0, 0, 1, 1],
///     2,
/// )?;
/// let mut rng = SecureRng::insecure_from_seed(4);
/// let s = private_kd(&f, 2, Epsilon::new(1.0)?, &mut rng)?;
/// assert_eq!(s.elements.len(), 2);
/// assert!(s.guarantee.unwrap().epsilon <= 1.0);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn private_kd<F: SetFunction>(
    objective: &F,
    k: usize,
    epsilon_p: Epsilon,
    rng: &mut SecureRng,
) -> Result<Solution> {
    let d = objective.ground_size();
    check_k(k, d)?;
    let epsilon0 = basic_per_round(k as u64, epsilon_p)?;
    let procedure = Procedure::private(
        SelectorKind::Exponential,
        Budget::per_round(epsilon0, 0.0, 0.0)?,
    );
    greedy(objective, &Cardinality::new(d, k), &procedure, rng)
}

/// NONPRIVATEKD: the standard greedy algorithm for k-discernibility (a (1 − 1/e)
/// approximation, Section 2.2), lowest index on ties. Not private.
///
/// # Errors
/// [`Error::InvalidParameter`] unless 1 ≤ k ≤ the number of attributes.
pub fn nonprivate_kd(objective: &Discernibility, k: usize) -> Result<Solution> {
    check_k(k, objective.ground_size())?;
    standard_greedy(objective, &Cardinality::new(objective.ground_size(), k))
}

fn check_k(k: usize, d: usize) -> Result<()> {
    if k == 0 || k > d {
        return Err(Error::param(
            "k",
            format!("must be between 1 and the number of predictor attributes {d}, got {k}"),
        ));
    }
    Ok(())
}

/// The result of [`mda`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mda {
    /// The attributes chosen by greedy, in order: the shortest greedy prefix with
    /// F(S) ≥ (1 − σ)·F(A).
    pub elements: Vec<usize>,
    /// F(S).
    pub value: f64,
    /// F(A), all attributes.
    pub full_value: f64,
}

/// MDA (Section 2.3.1): the smallest greedy prefix S with F(S)/F(A) ≥ 1 − σ, computed with
/// NONPRIVATEKD (standard greedy). Empty when F(A) = 0 (nothing to discern). Not private:
/// run it on public or simulated data only.
///
/// # Runtime
/// One greedy run over all d attributes: O(d²·n) at worst, much less in practice because
/// classes with a single target drop out of the partition.
///
/// # Errors
/// [`Error::InvalidParameter`] unless 0 ≤ σ < 1.
///
/// ```
/// use disguise::histogram::mda;
/// use disguise::objective::Discernibility;
/// // Attribute 1 alone discerns every pair with different targets.
/// let f = Discernibility::new(
///     vec![vec![0, 1, 0, 1], vec![0, 0, 1, 1]],
///     vec![2, 2],
///     vec![0, 0, 1, 1],
///     2,
/// )?;
/// assert_eq!(mda(&f, 0.1)?.elements, vec![1]);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn mda(objective: &Discernibility, sigma: f64) -> Result<Mda> {
    if !(0.0..1.0).contains(&sigma) {
        return Err(Error::param(
            "sigma",
            format!("must be in [0, 1), got {sigma}"),
        ));
    }
    let d = objective.ground_size();
    let full_value = objective.full_value();
    if full_value == 0.0 || d == 0 {
        return Ok(Mda {
            elements: Vec::new(),
            value: 0.0,
            full_value,
        });
    }
    let run = standard_greedy(objective, &Cardinality::new(d, d))?;
    let goal = (1.0 - sigma) * full_value;
    let take = run
        .values
        .iter()
        .position(|&v| v >= goal)
        .map_or(run.elements.len(), |i| i + 1);
    Ok(Mda {
        elements: run.elements[..take].to_vec(),
        value: run.values[take - 1],
        full_value,
    })
}

/// The outcome of [`select_k_by_splitting`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitChoice {
    /// The chosen k.
    pub k: usize,
    /// The attributes chosen by PRIVATEKD on that k's part of the data.
    pub elements: Vec<usize>,
    /// The candidate values of k, in order.
    pub candidates: Vec<usize>,
    /// The privacy spent: ε_p (parallel composition over disjoint parts).
    pub epsilon: f64,
}

/// Chaudhuri et al.'s (2011) parameter selection applied to k (Vinterbo 2012, Section
/// 2.3.1): split the records uniformly at random into l + 1 parts (l = `candidates.len()`),
/// run PRIVATEKD with budget ε_p and kᵢ on part i, score every Sᵢ on the held-out part D′,
/// and pick one with the exponential mechanism.
///
/// # The utility (our reading)
/// The paper bases uᵢ on the held-out ratio F′(Sᵢ)/F′(A) and kᵢ without a formula. We use
///
/// ```text
/// uᵢ = min(0, F′(Sᵢ) − (1 − σ)·F′(A)) − η·kᵢ,   η = σ·F̂′/max(k),   F̂′ = n′(q − 1)/q
/// ```
///
/// (F′ on D′ with its n′ records): sets that reach the MDA goal F′/F′(A) ≥ 1 − σ all score
/// 0 before the penalty, which then prefers the smallest k; sets that fall short lose their
/// shortfall. F̂′ is the largest possible F′ for q targets, so η is public. Each ordered pair's
/// contribution to n′·(F′(Sᵢ) − (1 − σ)F′(A)) lies in [−(1 − σ), σ] (π(Sᵢ) ⊆ π(A)), so
/// changing one record moves uᵢ by less than 2(n′ − 1)/n′ < 2: sensitivity λ = 2.
///
/// # Guarantee
/// ε_p-differential privacy (replace-one neighbours): every record lies in exactly one part;
/// PRIVATEKD on a part is ε_p-DP, and the selection is [`Exponential`] with ε_p and λ = 2
/// (weights exp(ε_p·u/4), i.e. the paper's exp(ε_p·ũ) for ũ = u/4 of sensitivity ½), ε_p-DP
/// in D′ given the Sᵢ. The split itself does not depend on the data (a uniform random
/// permutation; the part sizes depend only on n and l). Parallel composition gives ε_p.
/// The candidate values must be chosen without looking at the data.
///
/// # Errors
/// [`Error::InvalidParameter`] for no candidate, a candidate outside [1, d], σ ∉ [0, 1), or
/// fewer than 2 records per part.
pub fn select_k_by_splitting(
    objective: &Discernibility,
    candidates: &[usize],
    epsilon_p: Epsilon,
    sigma: f64,
    rng: &mut SecureRng,
) -> Result<SplitChoice> {
    let d = objective.ground_size();
    if candidates.is_empty() {
        return Err(Error::param("candidates", "no candidate value of k"));
    }
    for &k in candidates {
        check_k(k, d)?;
    }
    if !(0.0..1.0).contains(&sigma) {
        return Err(Error::param(
            "sigma",
            format!("must be in [0, 1), got {sigma}"),
        ));
    }
    let n = objective.records();
    let parts = candidates.len() + 1;
    if n < 2 * parts {
        return Err(Error::param(
            "candidates",
            format!("{n} records cannot be split into {parts} parts of at least 2"),
        ));
    }
    // Uniform random permutation (Fisher–Yates), cut into near-equal parts.
    let mut perm: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = uniform_below(rng, i as u64 + 1) as usize;
        perm.swap(i, j);
    }
    let bounds = |p: usize| p * n / parts;
    let mut sets = Vec::with_capacity(candidates.len());
    for (i, &k) in candidates.iter().enumerate() {
        let part = objective.subset(&perm[bounds(i)..bounds(i + 1)])?;
        sets.push(private_kd(&part, k, epsilon_p, rng)?.elements);
    }
    let held_out = objective.subset(&perm[bounds(parts - 1)..bounds(parts)])?;
    let n_held = held_out.records() as f64;
    let q = f64::from(held_out.label_count());
    let k_max = *candidates.iter().max().expect("non-empty") as f64;
    let eta = sigma * n_held * (q - 1.0) / q / k_max;
    let goal = (1.0 - sigma) * held_out.full_value();
    let scores: Vec<f64> = sets
        .iter()
        .zip(candidates)
        .map(|(s, &k)| (held_out.evaluate(s) - goal).min(0.0) - eta * k as f64)
        .collect();
    let chosen = Exponential::new(epsilon_p).select(&scores, Sensitivity::new(2.0)?, rng)?;
    Ok(SplitChoice {
        k: candidates[chosen.index],
        elements: sets.swap_remove(chosen.index),
        candidates: candidates.to_vec(),
        epsilon: epsilon_p.get(),
    })
}
