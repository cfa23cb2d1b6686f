//! Algorithm 4 of Mitrovic et al. (2017): (private) subsample-greedy for possibly
//! non-monotone objectives under a cardinality constraint.

use super::driver::{Policy, Run, drive};
use super::{Procedure, Solution};
use crate::constraint::Cardinality;
use crate::error::Result;
use crate::noise::SecureRng;
use crate::objective::SetFunction;

/// Subsample-greedy (Algorithm 4 of Mitrovic et al. 2017) with `k` rounds, choosing each
/// element with `procedure`.
///
/// The ground set V is padded with dummy elements to V′ with |V′| = k·⌈|V|/k⌉ (so |V′|/k is an
/// integer), and k further dummies U = {u¹, …, uᵏ} are set aside. In each of the k rounds:
/// draw a uniform subset Vᵢ ⊆ V′ of size |V′|/k and a uniform uᵢ ∈ U, score every member of
/// Vᵢ ∪ {uᵢ} by its marginal gain (dummies and already-chosen elements score exactly 0), and
/// add the selector's choice. Dummies are dropped at the end, so the solution has at most k
/// elements. The subsample is drawn from `rng` independently of the data.
///
/// With [`Procedure::Argmax`] this is the paper's non-private linear-time algorithm
/// (Corollary 4.2).
///
/// # Guarantee
/// Exactly k selector calls, each on scores of sensitivity λ(|S|) (dummy scores are constant);
/// the subsample is data-independent, so the calls compose adaptively over k rounds
/// (Theorem 4.1 with the exponential mechanism; Theorem 5.5 with the large margin
/// mechanism): ε = k·ε₀ (basic), the advanced and bounded-range rules via the accountant.
/// The decomposable rule of Gupta et al. is *not* applied (the paper proves it only for
/// Algorithms 1 and 2).
///
/// # Utility
/// For any submodular f ≥ 0 (monotone or not) with the exponential mechanism:
/// E[f(S)] ≥ (1/e)(1 − 1/e)·OPT − 2λk·ln|V|/ε₀ — the theorem's statement omits f ≥ 0, but
/// its proof (Claim 4.3) needs f(T) ≥ 0 for sets of up to 2k elements
/// (`docs/proofs/utility-bounds.md` §2) —, and for monotone f
/// E[f(S)] ≥ (1 − e^{−(1−1/e)})·OPT − 2λk·ln|V|/ε₀ ≈ 0.468·OPT − … (Theorem 4.1). With
/// argmax the error term vanishes (Corollary 4.2); with the large margin mechanism it becomes
/// Σᵢ 4λ·ln ℓᵢ/ε₀ on a high-probability event (Theorem 5.5).
///
/// # Runtime
/// At most |V′| ≤ |V| + k − 1 gain evaluations in total (|V′|/k per round) — linear in |V|
/// — plus k selector calls on |V′|/k + 1 scores and O(|V′|/k) random draws per round.
/// `k = 0` returns the empty set; `k ≥ |V|` is allowed (each round then sees one element of
/// V′ plus a dummy).
///
/// ```
/// use disguise::maximize::{subsample_greedy, Budget, Procedure};
/// use disguise::prelude::*;
/// # use disguise::objective::{Properties, SetFunction};
/// # struct Weights(Vec<f64>);
/// # impl SetFunction for Weights {
/// #     type State = f64;
/// #     fn ground_size(&self) -> usize { self.0.len() }
/// #     fn empty(&self) -> f64 { 0.0 }
/// #     fn gains(&self, _: &f64, c: &[usize], out: &mut [f64]) {
/// #         for (o, &v) in out.iter_mut().zip(c) { *o = self.0[v]; }
/// #     }
/// #     fn insert(&self, s: &mut f64, v: usize) { *s += self.0[v]; }
/// #     fn value(&self, s: &f64) -> f64 { *s }
/// #     fn sensitivity(&self, _: usize) -> Sensitivity { Sensitivity::new(1.0).unwrap() }
/// #     fn properties(&self) -> Properties {
/// #         Properties::NONE
/// #     }
/// #     fn name(&self) -> &'static str { "weights" }
/// # }
/// // Negative weights make some elements harmful: the dummies let the algorithm skip them.
/// let f = Weights(vec![4.0, -3.0, 2.0, -1.0, 5.0, -2.0]);
/// let mut rng = SecureRng::from_os()?;
/// let fast = subsample_greedy(&f, 3, &Procedure::Argmax, &mut rng)?;
/// assert!(fast.elements.len() <= 3 && fast.value >= 0.0);
/// assert!(fast.gain_evaluations <= 6);
///
/// let private = Procedure::private(SelectorKind::Exponential, Budget::per_round(0.5, 0.0, 0.0)?);
/// let s = subsample_greedy(&f, 3, &private, &mut rng)?;
/// assert_eq!(s.rounds.len(), 3);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn subsample_greedy<F>(
    objective: &F,
    k: usize,
    procedure: &Procedure<'_>,
    rng: &mut SecureRng,
) -> Result<Solution>
where
    F: SetFunction + ?Sized,
{
    let n = objective.ground_size();
    // The decomposable rule is proven for Algorithms 1 and 2 only.
    let resolved = procedure.resolve(k, false)?;
    let run = Run {
        algorithm: "subsample-greedy",
        selector: resolved.selector.get(),
        planned_rounds: k,
        delta: resolved.delta,
        decomposable: false,
        split: resolved.split,
    };
    // |S| ≤ rounds ≤ k, so this constraint never binds; it only gives the driver a state.
    let constraint = Cardinality::new(n, k);
    let policy = if k == 0 {
        Policy::All // zero rounds: never consulted
    } else {
        Policy::Subsample { k }
    };
    drive(run, objective, &constraint, policy, rng)
}
