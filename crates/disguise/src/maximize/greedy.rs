//! Algorithms 1 and 2 of Mitrovic et al. (2017): (private) greedy under a cardinality,
//! matroid or p-extendible constraint.

use super::driver::{Policy, Run, drive};
use super::{Procedure, Solution};
use crate::constraint::Independence;
use crate::error::Result;
use crate::noise::SecureRng;
use crate::objective::SetFunction;

/// Greedy maximization of `objective` over the feasible sets of `constraint`, choosing each
/// element with `procedure` — Algorithm 1 (cardinality) and Algorithm 2 (matroid,
/// p-extendible system) of Mitrovic et al. (2017), "Differentially private submodular
/// maximization: data summarization in disguise".
///
/// Each round computes the marginal gains of every feasible element not yet chosen in one
/// bulk [`SetFunction::gains`] call, passes them with the objective's sensitivity λ(|S|) to
/// the selector, and adds the chosen element. The run stops when the set is maximal (no
/// feasible element left) — for [`Cardinality`](crate::constraint::Cardinality) after
/// min(k, |V|) picks.
///
/// # Guarantee
/// The data is touched only through the selector calls; there are at most
/// r = `constraint.rank_bound()` of them (k for a cardinality constraint), and the
/// accountant composes r calls (the worst case, even if the run stops earlier, because the
/// stopping time is itself released). Neighbouring datasets differ in one record, and λ is
/// the objective's proven bound on the change of any marginal gain.
/// * Exponential mechanism, any λ-sensitive objective: ε = r·ε₀ (basic), or
///   ε = r·ε₀²/2 + ε₀·√(2r·ln(1/δ)) (advanced) — Theorems 3.2 (cardinality) and 3.5
///   (p-systems); the accountant also applies the tighter bounded-range rule.
/// * Exponential mechanism, λ-decomposable objective ([`Properties::decomposable`](
///   crate::objective::Properties)) with the same λ in every round: ε = (e^{ε₀/2} − 1)·G(δ)
///   whatever r is, G(10⁻⁶) ≈ 17.69 — the argument of Theorems 3.1 and 3.3 (Gupta et al.
///   2010), proven for replace-one neighbours in
///   [`proofs::decomposable_greedy`](crate::privacy::proofs::decomposable_greedy).
/// * Large margin mechanism with (ε₀, δ₀): (rε₀, rδ₀) or advanced composition with
///   δ′ + rδ₀ — Theorems 5.3 and 5.4.
/// * Argmax: no privacy.
///
/// # Utility
/// For monotone submodular f with the exponential mechanism:
/// * cardinality k: E[f(S)] ≥ (1 − 1/e)·OPT − 2λk·ln|V|/ε₀ (Theorems 3.1, 3.2);
/// * p-extendible system (matroid: p = 1): E[f(S)] ≥ OPT/(p+1) − (p/(p+1))·2λr·ln|V|/ε₀
///   (Theorems 3.3, 3.5);
/// * large margin mechanism: the same with 2λ·ln|V| replaced by Σᵢ 4λ·ln ℓᵢ on a
///   high-probability event (Theorems 5.3, 5.4);
/// * argmax: (1 − 1/e)·OPT and OPT/(p+1) (Nemhauser et al. 1978; Fisher et al. 1978).
///
/// For non-monotone f no constant factor holds; use [`subsample_greedy`](super::subsample_greedy).
///
/// # Runtime
/// At most Σᵢ (|V| − i) ≤ r·|V| gain evaluations (in r bulk calls), plus one selector call
/// and |V| constraint checks per round.
///
/// # Errors
/// If the constraint's ground size differs from the objective's, if the budget cannot be
/// split, or if the objective returns a non-finite gain.
///
/// ```
/// use disguise::constraint::Cardinality;
/// use disguise::maximize::{greedy, Budget, Procedure};
/// use disguise::objective::Coverage;
/// use disguise::prelude::*;
///
/// // Five records; record i lists the candidate locations that would serve it.
/// let f = Coverage::new(4, &[vec![0, 1], vec![1], vec![1, 2], vec![3], vec![3]])?;
/// let mut rng = SecureRng::from_os()?;
///
/// // (ε, δ) = (1, 10⁻⁶) for the whole run; the accountant picks ε₀ for the 2 rounds.
/// let private = Procedure::private(SelectorKind::Exponential, Budget::total(1.0, 1e-6)?);
/// let solution = greedy(&f, &Cardinality::new(4, 2), &private, &mut rng)?;
/// assert_eq!(solution.elements.len(), 2);
/// let proved = solution.guarantee.unwrap();
/// assert!(proved.epsilon <= 1.0 && proved.delta <= 1e-6);
///
/// let exact = greedy(&f, &Cardinality::new(4, 2), &Procedure::Argmax, &mut rng)?;
/// assert_eq!(exact.elements, vec![1, 3]);
/// assert_eq!(exact.value, 5.0);
/// assert!(exact.guarantee.is_none());
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn greedy<F, C>(
    objective: &F,
    constraint: &C,
    procedure: &Procedure<'_>,
    rng: &mut SecureRng,
) -> Result<Solution>
where
    F: SetFunction + ?Sized,
    C: Independence + ?Sized,
{
    let rounds = constraint.rank_bound();
    // The decomposable rule's proof assumes one λ in every round: only then may a total
    // budget be split by it (the driver checks the same before the accountant applies it).
    let decomposable = objective.properties().decomposable && {
        let first = objective.sensitivity(0);
        (1..rounds.min(objective.ground_size())).all(|r| objective.sensitivity(r) == first)
    };
    let resolved = procedure.resolve(rounds, decomposable)?;
    let run = Run {
        algorithm: "greedy",
        selector: resolved.selector.get(),
        planned_rounds: rounds,
        delta: resolved.delta,
        decomposable: resolved.decomposable,
        split: resolved.split,
    };
    drive(run, objective, constraint, Policy::All, rng)
}

/// The non-private standard greedy algorithm (Nemhauser, Wolsey & Fisher 1978; Fisher et al.
/// 1978 for p-systems): [`greedy`] with the argmax selector, lowest index on ties.
///
/// # Guarantee
/// None (not private).
///
/// # Utility
/// For monotone submodular f: f(S) ≥ (1 − 1/e)·OPT under a cardinality constraint and
/// f(S) ≥ OPT/(p+1) over a p-extendible system (OPT/2 for a matroid).
///
/// # Runtime
/// At most r·|V| gain evaluations; [`lazy_greedy`](super::lazy_greedy) returns the same set
/// with far fewer on most instances.
///
/// ```
/// use disguise::constraint::{Graphic, Independence};
/// use disguise::maximize::standard_greedy;
/// use disguise::objective::Coverage;
/// // The candidates are the edges of a triangle; a feasible set must not close the cycle.
/// let g = Graphic::new(3, vec![(0, 1), (1, 2), (0, 2)])?;
/// let f = Coverage::new(3, &[vec![0], vec![0], vec![0], vec![1], vec![2], vec![2]])?;
/// let s = standard_greedy(&f, &g)?;
/// assert_eq!(s.elements, vec![0, 2]);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn standard_greedy<F, C>(objective: &F, constraint: &C) -> Result<Solution>
where
    F: SetFunction + ?Sized,
    C: Independence + ?Sized,
{
    // Argmax never draws randomness; the generator only satisfies the driver's signature.
    let mut unused = SecureRng::insecure_from_seed(0);
    greedy(objective, constraint, &Procedure::Argmax, &mut unused)
}
