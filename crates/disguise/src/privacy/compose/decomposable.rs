//! [`Rule::Decomposable`](super::Rule::Decomposable): the k-independent bound of Gupta et
//! al. 2010 for one private greedy run with the exponential mechanism on a decomposable
//! objective, proven for replace-one neighbours in `docs/proofs/decomposable-greedy.md`.
//! Applies only with the library's sealed evidence ([`super::DecomposableGreedy`]).

use super::{Applied, Calls, ComposeOptions, CompositionRule, Rule};
use super::{check_positive_delta, finite, round::*};
use crate::error::Error;
use crate::error::Result;
use crate::privacy::PrivacyCost;
use crate::privacy::{Delta, Epsilon};

/// The decomposable-greedy bound for replace-one neighbours:
/// ε = (e^{ε₀/2} − 1)·G(δ) with G(δ) = min over θ > 0 of (θ + ln(1/δ))/(1 − e^{−θ}),
/// rounded up, independent of the number of rounds.
///
/// # Guarantee
/// (ε, δ)-DP for datasets that differ in one record (n public; add/remove is covered too),
/// for one run of the private greedy algorithm (mitrovic2017 Algorithm 1 or 2) whose every
/// round is the standard exponential mechanism with parameter ε₀ and weights
/// exp(ε₀·gain/(2λ)), on an objective f_D = Σ_{x∈D} f_x with every f_x monotone and
/// f_x(S) − f_x(∅) ∈ [0, λ]. δ ∈ (0, 1); any number of rounds.
///
/// # Source
/// The argument of Gupta et al. 2010 (restated as mitrovic2017 Thm 3.1 and 3.3 for datasets
/// that differ by the presence of one record), written out for replace-one with every
/// constant in [`proofs::decomposable_greedy`](crate::privacy::proofs::decomposable_greedy)
/// (`docs/proofs/decomposable-greedy.md`): a record's total share of the picked gains
/// telescopes to at most λ, and a supermartingale bounds the expected shares by
/// (θ + ln(1/δ))/(1 − e^{−θ}) except with probability δ. The minimum over θ is
/// G(δ) = e^{θ*} with e^{θ*} = 1 + θ* + ln(1/δ); any θ gives a valid bound, so θ is found
/// in floating point and the bound is evaluated at it with upward rounding.
/// mitrovic2017's 2ε₀(e−1)·ln(3e/δ) ≤ 1 is implied (it is about 6 times larger at δ = 10⁻⁶).
///
/// This function is the formula. Whether it applies to a run is decided by the accountant,
/// which needs the sealed [`DecomposableGreedy`](super::DecomposableGreedy) evidence that only the library's greedy
/// creates.
///
/// ```
/// use disguise::privacy::{compose, Delta, Epsilon};
/// // (e^0.005 − 1)·G(10⁻⁶) with G(10⁻⁶) ≈ 17.69.
/// let eps = compose::decomposable(Epsilon::new(0.01)?, Delta::new(1e-6)?)?;
/// assert!((eps - 0.08867).abs() < 1e-4);
/// assert!(compose::decomposable(Epsilon::new(0.01)?, Delta::ZERO).is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn decomposable(epsilon0: Epsilon, delta: Delta) -> Result<f64> {
    let d = check_positive_delta(delta, "decomposable")?;
    finite(decomposable_core(epsilon0.get(), d))
}

/// G(δ) = min over θ > 0 of (θ + L)/(1 − e^{−θ}), L = ln(1/δ), rounded up: evaluated at the
/// θ solving e^θ = 1 + θ + L (Newton's method in `f64`; any θ > 0 gives an upper bound of
/// the minimum's formula, so only tightness depends on the solve).
pub(crate) fn decomposable_factor(delta: f64) -> f64 {
    let l = ln_inv_up(delta);
    // Newton on h(θ) = e^θ − 1 − θ − L from above (h is convex and increasing for θ > 0, so
    // the iterates decrease monotonically to the root from any start right of it).
    let mut theta = (1.0 + l).ln().max(1.0) + 1.0;
    for _ in 0..100 {
        let e = theta.exp();
        let step = (e - 1.0 - theta - l) / (e - 1.0);
        if !(step.is_finite() && step > 0.0) {
            break;
        }
        theta -= step;
    }
    if !(theta.is_finite() && theta > 0.0) {
        theta = 1.0;
    }
    // (θ + L)/(1 − e^{−θ}): numerator rounded up, denominator −expm1(−θ) rounded down.
    let numerator = add_up(theta, l);
    let denominator = nudge_down(-(-theta).exp_m1(), 2);
    div_up(numerator, denominator)
}

/// (e^{ε₀/2} − 1)·G(δ), rounded up.
pub(crate) fn decomposable_core(eps0: f64, delta: f64) -> f64 {
    let half = div_up(eps0, 2.0);
    let growth = nudge_up(half.exp_m1(), 2);
    mul_up(growth, decomposable_factor(delta))
}

/// [`Rule::Decomposable`] for the accountant: only with evidence that every recorded call is
/// one round of the one greedy run the evidence describes.
pub(crate) struct Decomposable;

impl CompositionRule for Decomposable {
    fn rule(&self) -> Rule {
        Rule::Decomposable
    }

    fn apply(&self, c: &Calls<'_>, target: f64, options: &ComposeOptions) -> Result<Applied> {
        let Some(run) = options.decomposable else {
            return Ok(Applied::Inapplicable(
                "only for one run of the library's private greedy (Algorithms 1 and 2) with \
                 the exponential mechanism on a decomposable objective"
                    .to_string(),
            ));
        };
        let matches = c.groups.len() == 1
            && c.groups.values().all(|(cost, count)| {
                *count == run.rounds()
                    && *cost
                        == PrivacyCost::BoundedRange {
                            epsilon: run.epsilon0(),
                        }
            });
        if !matches {
            return Err(Error::param(
                "decomposable",
                format!(
                    "the evidence describes {} exponential-mechanism rounds at ε₀ = {}, but \
                     other calls were recorded: the decomposable rule covers one greedy run \
                     and nothing else",
                    run.rounds(),
                    run.epsilon0().get()
                ),
            ));
        }
        Ok(if target <= 0.0 {
            Applied::Inapplicable("needs δ > 0".to_string())
        } else {
            Applied::Guarantee {
                epsilon: decomposable_core(run.epsilon0().get(), target),
                delta: target,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::compose::test_support::*;
    use crate::privacy::compose::{Accountant, DecomposableGreedy, compose_homogeneous};

    #[test]
    fn decomposable_rule() {
        // G(10⁻⁶) = min over θ of (θ + L)/(1 − e^{−θ}), found here by a ternary search on the
        // formula itself (independent of the Newton solve of e^θ = 1 + θ + L); the Python
        // reference (100 Newton steps in double) is 17.68842079085992.
        let l = 1e6f64.ln();
        let h = |t: f64| (t + l) / (1.0 - (-t).exp());
        let (mut lo, mut hi) = (0.01f64, 20.0f64);
        for _ in 0..300 {
            let (a, b) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
            if h(a) < h(b) {
                hi = b;
            } else {
                lo = a;
            }
        }
        let g_min = h(lo);
        close(g_min, 17.68842079085992, 1e-9);
        let g = decomposable_factor(1e-6);
        assert!(g >= g_min && g <= g_min * (1.0 + 1e-12), "{g} vs {g_min}");
        // (e^{0.005} − 1)·G = 0.0886635…
        let want = 0.005f64.exp_m1() * g_min;
        let got = decomposable(e(0.01), d(1e-6)).unwrap();
        assert!(got >= want);
        close(got, want, want * 1e-12);
        close(got, 0.08866, 1e-5);
        // No cap at 1 any more: the proof holds for every ε₀.
        close(
            decomposable(e(2.0), d(1e-6)).unwrap(),
            1f64.exp_m1() * g_min,
            1e-9,
        );
        assert!(decomposable(e(0.01), Delta::ZERO).is_err());
        // Every guarantee of the old form (mitrovic2017 Thm 3.1: 2ε₀(e−1)ln(3e/δ) when ≤ 1)
        // is implied by the new one.
        for del in [1e-12, 1e-9, 1e-6, 1e-3, 0.1, 0.5, 0.9] {
            for eps0 in [1e-6, 1e-3, 0.01, 0.05, 0.1, 0.15] {
                let old = 2.0
                    * eps0
                    * (std::f64::consts::E - 1.0)
                    * (3.0 * std::f64::consts::E / del).ln();
                if old <= 1.0 {
                    let new = decomposable(e(eps0), d(del)).unwrap();
                    assert!(new < old, "ε₀ {eps0} δ {del}: {new} ≥ {old}");
                }
            }
        }
        // G is finite and at least 1 over the whole range of δ.
        for del in [f64::MIN_POSITIVE, 1e-300, 0.5, 1.0 - 1e-16] {
            let g = decomposable_factor(del);
            assert!(g.is_finite() && g >= 1.0, "δ {del}: {g}");
        }
    }

    #[test]
    fn decomposable_evidence_must_match_the_recorded_calls() {
        // The rule cannot be applied to calls other than the one greedy run the evidence
        // describes: other mechanisms, another ε₀, more or fewer rounds, or several runs
        // composed together are typed errors.
        let run = ComposeOptions {
            decomposable: Some(DecomposableGreedy::new(e(0.01), 50)),
        };
        for (costs, k) in [
            (vec![pure(0.01)], 50u64),
            (vec![approx(0.01, 1e-9)], 50),
            (vec![br(0.02)], 50),
            (vec![br(0.01)], 49),
            (vec![br(0.01)], 100),
            (vec![br(0.01), pure(0.01)], 25),
        ] {
            let mut acc = Accountant::new();
            for &cost in &costs {
                acc.record_many(cost, k);
            }
            let err = acc.compose(d(1e-6), run).unwrap_err();
            assert!(
                matches!(err, Error::InvalidParameter { .. }),
                "{costs:?} × {k}: {err:?}"
            );
        }
        // Without evidence (the only option outside the library) the rule never applies.
        let c = compose_homogeneous(br(0.01), 50, d(1e-6), ComposeOptions::default()).unwrap();
        assert!(c.get(Rule::Decomposable).is_none());
        assert!(
            c.inapplicable
                .iter()
                .any(|i| i.rule == Rule::Decomposable && i.reason.contains("greedy"))
        );
    }
}
