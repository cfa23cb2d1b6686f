//! [`Rule::Kov`](super::Rule::Kov): the optimal composition of k homogeneous ε₀-DP calls
//! (Kairouz–Oh–Viswanath 2015 Thm 3.3), for pure and bounded-range calls with one common ε₀
//! and k ≤ [`KOV_MAX_ROUNDS`](super::KOV_MAX_ROUNDS).

use super::basic::basic_core;
use super::{Applied, Calls, ComposeOptions, CompositionRule, Rule};
use super::{KOV_MAX_ROUNDS, check_rounds, finite, round::*};
use crate::error::{Error, Result};
use crate::privacy::{Delta, Epsilon};

/// Upper bound on the optimal δ(ε) of `rounds` adaptive ε₀-DP calls at total ε
/// (Kairouz–Oh–Viswanath 2015 Thm 3.3):
/// δ(ε) = Σⱼ C(k,j)·p^(k−j)·(1−p)^j·[1 − e^(ε−(k−2j)ε₀)]₊ with p = e^ε₀/(1+e^ε₀).
///
/// Terms are computed in log space (log-binomials by a compensated running sum), so k up to
/// [`KOV_MAX_ROUNDS`] is fine; only the terms within √(372.5·k) of the binomial mean are
/// summed (Hoeffding's inequality puts the rest below 1e-323, which is added), and the result
/// is inflated by a relative margin covering the accumulated rounding error. *Runtime*:
/// O(√k).
///
/// ```
/// use disguise::privacy::{compose, Epsilon};
/// // Beyond kε₀ nothing is left; just below it, only the all-"yes" outcome contributes.
/// assert_eq!(compose::kov_delta(10, Epsilon::new(0.1)?, 1.01)?, 0.0);
/// let p = 0.1f64.exp() / (1.0 + 0.1f64.exp());
/// let want = p.powi(10) * (1.0 - (0.99f64 - 1.0).exp());
/// assert!((compose::kov_delta(10, Epsilon::new(0.1)?, 0.99)? - want).abs() < 1e-12);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn kov_delta(rounds: u64, epsilon0: Epsilon, epsilon: f64) -> Result<f64> {
    check_rounds(rounds)?;
    check_kov_rounds(rounds)?;
    if !(epsilon.is_finite() && epsilon >= 0.0) {
        return Err(Error::param(
            "epsilon",
            format!("must be finite and ≥ 0, got {epsilon}"),
        ));
    }
    Ok(crate::numeric::decimal::tidy_up(kov_delta_core(
        rounds,
        epsilon0.get(),
        epsilon,
    )))
}

/// The optimal composition (Kairouz–Oh–Viswanath 2015) of `rounds` ε₀-DP calls: the
/// smallest total ε with [`kov_delta`] ≤ δ, by bisection (the feasible end is returned).
///
/// Never larger than basic composition (δ(kε₀) = 0). Errors for more than
/// [`KOV_MAX_ROUNDS`] rounds. *Runtime*: O(√k) per bisection step, about 60 steps (a
/// geometric phase first, so an answer near 1e-300 costs no more).
///
/// ```
/// use disguise::privacy::{compose, Delta, Epsilon};
/// let eps = compose::kov(50, Epsilon::new(0.1)?, Delta::new(1e-6)?)?;
/// assert!((eps - 3.173).abs() < 1e-3);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn kov(rounds: u64, epsilon0: Epsilon, delta: Delta) -> Result<f64> {
    check_rounds(rounds)?;
    check_kov_rounds(rounds)?;
    finite(kov_core(rounds, epsilon0.get(), delta.get()))
}

fn check_kov_rounds(rounds: u64) -> Result<()> {
    if rounds > KOV_MAX_ROUNDS {
        Err(Error::param(
            "rounds",
            format!("the KOV sum is computed for at most {KOV_MAX_ROUNDS} rounds, got {rounds}"),
        ))
    } else {
        Ok(())
    }
}

/// Below this many "no"s (or within this many of k) ln C(k, j) is summed term by term, where
/// the Stirling series of [`ln_choose`] would be less accurate.
const KOV_STIRLING_MIN: u64 = 64;

/// ln C(k, j) for KOV_STIRLING_MIN ≤ j ≤ k − KOV_STIRLING_MIN, from the Stirling series
/// ln n! = n ln n − n + ½ln(2πn) + 1/(12n) − 1/(360n³) + 1/(1260n⁵) − …, whose error after
/// these terms is below 1/(1680n⁷) < 10⁻¹⁵ for n ≥ 64. The leading part is computed as
/// j·ln(k/j) + (k − j)·ln(k/(k − j)), without the cancellation of k ln k − j ln j − …, so the
/// absolute error stays near 10⁻¹⁶·k.
fn ln_choose(k: u64, j: u64) -> f64 {
    let (kf, jf) = (k as f64, j as f64);
    let rf = kf - jf;
    let series = |n: f64| {
        let n2 = n * n;
        1.0 / (12.0 * n) - 1.0 / (360.0 * n * n2) + 1.0 / (1260.0 * n * n2 * n2)
    };
    let main = jf * (kf / jf).ln() - rf * (-(jf / kf)).ln_1p();
    main + 0.5 * (kf / (2.0 * std::f64::consts::PI * jf * rf)).ln() + series(kf)
        - series(jf)
        - series(rf)
}

pub(crate) fn kov_delta_core(k: u64, eps0: f64, eps: f64) -> f64 {
    // Every outcome's loss is at most kε₀: nothing is left beyond it.
    if mul_up(k as f64, eps0) <= eps {
        return 0.0;
    }
    // ln p = −ln(1 + e^−ε₀), ln(1−p) = −ε₀ − ln(1 + e^−ε₀).
    let a = (-eps0).exp().ln_1p();
    let ln_p = -a;
    let ln_q = -eps0 - a;
    let kf = k as f64; // exact: k ≤ KOV_MAX_ROUNDS
    let q = ln_q.exp();
    // The mode of Binomial(k, 1−p): past it the terms only decrease.
    let mode = ((kf + 1.0) * q).floor();
    // Only the window kq ± t can matter: by Hoeffding's inequality each tail of
    // Binomial(k, q) beyond t from its mean has mass at most exp(−2t²/k) ≤ e^−745, below the
    // smallest positive double. Each term is at most its binomial weight (the factor
    // 1 − e^(ε−loss) is below 1), so the skipped terms add less than 1e-323, which the
    // 1e-300 per possible term added at the end covers. Summing O(√k) terms instead of
    // O(k) is what makes ten million rounds fast.
    let t = (kf * 372.5).sqrt().ceil();
    let window_start = (kf * q - t).floor();
    let window_end = kf * q + t;
    let mut j: u64 = if window_start >= KOV_STIRLING_MIN as f64
        && (window_start as u64) + KOV_STIRLING_MIN <= k
    {
        window_start as u64
    } else {
        0
    };
    let stirling = j > 0;
    let mut sum = 0.0f64;
    // Neumaier-compensated running sum of ln C(k, j).
    let (mut lnc, mut lnc_comp) = (if stirling { ln_choose(k, j) } else { 0.0 }, 0.0f64);
    while 2 * j < k && (j as f64) <= window_end {
        // Loss of the outcome with j "no"s: (k − 2j)ε₀, rounded up (so the term is kept
        // whenever it might be positive).
        let loss = mul_up((k - 2 * j) as f64, eps0);
        if loss <= eps {
            break; // losses decrease in j: no further positive term
        }
        let factor = -(eps - loss).exp_m1();
        let jf = j as f64;
        let ln_term = (lnc + lnc_comp) + (kf - jf) * ln_p + jf * ln_q + factor.ln();
        let term = ln_term.exp();
        sum += term;
        if jf > mode && term <= sum * 1e-20 {
            // Terms past the mode decrease (binomial weight and factor both do): bound the
            // rest by (number left) × (this term), twice for safety.
            let left = ((k - 1) / 2 - j) as f64;
            sum += 2.0 * left * term;
            break;
        }
        // ln C(k, j+1) = ln C(k, j) + ln(k − j) − ln(j + 1).
        let inc = ((kf - jf) / (jf + 1.0)).ln();
        let t = lnc + inc;
        if lnc.abs() >= inc.abs() {
            lnc_comp += (lnc - t) + inc;
        } else {
            lnc_comp += (inc - t) + lnc;
        }
        lnc = t;
        j += 1;
    }
    // Relative error of each term ≲ k(ε₀+1)·1e-14 (log-space accumulation; a Stirling start
    // adds an absolute error near 1e-16·k to the logarithm), plus terms that underflowed to 0
    // or were skipped outside the window (together < 1e-300 each; at most k/2 + 1 of them).
    let eta = 1e-9 + kf * (eps0 + 1.0) * 1e-13 + if stirling { 1e-9 } else { 0.0 };
    let v = sum * (1.0 + eta) + (kf / 2.0 + 1.0) * 1e-300;
    v.next_up().min(1.0)
}

/// Bisection for the boundary of a predicate that fails below some x* and holds above it, on
/// [0, hi] with `ok(hi)`: returns the smallest double found with `ok` (the feasible end of
/// the final bracket). A geometric phase first narrows a bracket spanning many orders of
/// magnitude in O(log log) steps (x* may be 1e-300 with hi = 100), then plain bisection
/// runs until the bracket holds two adjacent doubles.
fn smallest_feasible(hi: f64, ok: impl Fn(f64) -> bool) -> f64 {
    let mut hi = hi;
    let mut lo = hi * f64::EPSILON.powi(19); // about hi·1e-297
    if lo <= 0.0 || ok(lo) {
        return if lo > 0.0 { lo } else { hi };
    }
    // Invariant: ok(hi), !ok(lo).
    while hi > 4.0 * lo {
        let mid = lo.sqrt() * hi.sqrt();
        if !(mid > lo && mid < hi) {
            break;
        }
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    for _ in 0..200 {
        let mid = lo + (hi - lo) / 2.0;
        if mid <= lo || mid >= hi {
            break;
        }
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

pub(crate) fn kov_core(k: u64, eps0: f64, delta: f64) -> f64 {
    if kov_delta_core(k, eps0, 0.0) <= delta {
        return 0.0;
    }
    // δ(kε₀) = 0 ≤ δ: basic composition is always feasible.
    smallest_feasible(basic_core(k, eps0), |e| kov_delta_core(k, eps0, e) <= delta)
}

/// [`Rule::Kov`] for the accountant.
pub(crate) struct Kov;

impl CompositionRule for Kov {
    fn rule(&self) -> Rule {
        Rule::Kov
    }

    fn apply(&self, c: &Calls<'_>, target: f64, _: &ComposeOptions) -> Result<Applied> {
        Ok(if c.any_approximate {
            Applied::Inapplicable(
                "only for pure or bounded-range calls (approximate calls get no KOV credit)"
                    .to_string(),
            )
        } else if !c.homogeneous {
            Applied::Inapplicable("only for calls that all have the same ε₀".to_string())
        } else if c.calls > KOV_MAX_ROUNDS {
            Applied::Inapplicable(format!("computed for at most {KOV_MAX_ROUNDS} calls"))
        } else {
            Applied::Guarantee {
                epsilon: kov_core(c.calls, c.epsilon0, target),
                delta: target,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::compose::test_support::*;
    use crate::privacy::compose::{advanced, basic, pure_rho, zcdp_to_dp};

    /// The KOV sum over every j, without the window or the Stirling start: the reference
    /// for the fast path.
    fn kov_delta_full(k: u64, eps0: f64, eps: f64) -> f64 {
        let a = (-eps0).exp().ln_1p();
        let (ln_p, ln_q) = (-a, -eps0 - a);
        let kf = k as f64;
        let (mut sum, mut lnc) = (0.0f64, 0.0f64);
        let mut j = 0u64;
        while 2 * j < k {
            let loss = (k - 2 * j) as f64 * eps0;
            if loss <= eps {
                break;
            }
            let jf = j as f64;
            sum += (lnc + (kf - jf) * ln_p + jf * ln_q + (-(eps - loss).exp_m1()).ln()).exp();
            lnc += ((kf - jf) / (jf + 1.0)).ln();
            j += 1;
        }
        sum
    }

    #[test]
    fn known_values() {
        // 3 decimals from the paper's table at δ = 1e-6, and values computed in Python.
        let del = d(1e-6);
        close(kov(10, e(0.1), del).unwrap(), 0.999, 5e-4);
        close(kov(10, e(0.1), del).unwrap(), 0.9993709057217588, 1e-9);
        close(kov(50, e(0.1), del).unwrap(), 3.173, 5e-4);
        close(kov(50, e(0.1), del).unwrap(), 3.1729027340191904, 1e-9);
    }

    #[test]
    fn invalid_inputs() {
        assert!(kov(0, e(0.1), d(1e-6)).is_err());
        assert!(kov_delta(10, e(0.1), f64::NAN).is_err());
        assert!(kov_delta(10, e(0.1), -1.0).is_err());
    }

    #[test]
    fn kov_window_agrees_with_the_full_sum_and_never_undercounts() {
        let mut compared = 0;
        for &k in &[
            1u64, 2, 3, 10, 65, 129, 1000, 4097, 20_000, 100_000, 400_000,
        ] {
            for &eps0 in &[1e-4, 3e-3, 0.02, 0.1, 0.5, 1.0, 3.0] {
                for &frac in &[0.0, 0.01, 0.05, 0.2, 0.5, 0.9] {
                    let eps = frac * k as f64 * eps0;
                    let full = kov_delta_full(k, eps0, eps).min(1.0); // δ ≤ 1
                    let fast = kov_delta_core(k, eps0, eps);
                    assert!(fast >= full, "k={k} ε₀={eps0} ε={eps}: {fast} < {full}");
                    // The documented inflation (η) and the floor for skipped terms.
                    let eta = 3e-9 + k as f64 * (eps0 + 1.0) * 1e-13;
                    let slack = 2.0 * eta * full + (k as f64 / 2.0 + 2.0) * 1e-300;
                    assert!(
                        fast - full <= slack,
                        "k={k} ε₀={eps0} ε={eps}: {fast} vs {full}"
                    );
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 11 * 7 * 6);
    }

    #[test]
    fn ln_choose_matches_the_running_sum() {
        for &k in &[128u64, 1000, 65_536, 1_000_003] {
            let mut lnc = 0.0f64;
            let mut comp = 0.0f64; // Neumaier, as in the sum
            for j in 0..=k / 2 {
                if j >= KOV_STIRLING_MIN && j + KOV_STIRLING_MIN <= k && j % 7 == 0 {
                    let got = ln_choose(k, j);
                    let want = lnc + comp;
                    assert!(
                        (got - want).abs() <= 1e-9 + 1e-15 * want.abs(),
                        "k={k} j={j}: {got} vs {want}"
                    );
                }
                let inc = ((k - j) as f64 / (j + 1) as f64).ln();
                let t = lnc + inc;
                comp += if lnc.abs() >= inc.abs() {
                    (lnc - t) + inc
                } else {
                    (inc - t) + lnc
                };
                lnc = t;
            }
        }
    }

    /// KOV Thm 3.3 at its grid points ε = (k−2i)ε₀ in their own closed form:
    /// δᵢ = Σ_{ℓ<i} C(k,ℓ)(e^{(k−ℓ)ε₀} − e^{(k−2i+ℓ)ε₀}) / (1+e^{ε₀})^k.
    #[test]
    fn kov_matches_theorem_3_3_at_grid_points() {
        let (k, e0) = (10u64, 0.3f64);
        let binom = |n: u64, r: u64| -> f64 {
            (0..r).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
        };
        for i in 1..=5u64 {
            let mut want = 0.0;
            for l in 0..i {
                want += binom(k, l)
                    * (((k - l) as f64 * e0).exp() - ((k - 2 * i + l) as f64 * e0).exp());
            }
            want /= (1.0 + e0.exp()).powi(k as i32);
            let eg = (k - 2 * i) as f64 * e0;
            let got = kov_delta(k, e(e0), eg).unwrap();
            assert!(got >= want, "i={i}: {got} < {want}");
            close(got, want, want * 1e-8);
        }
        // At ε ≥ kε₀ nothing is left.
        assert_eq!(kov_delta(k, e(e0), 3.0).unwrap(), 0.0);
    }

    #[test]
    fn kov_large_k() {
        // Python reference (lgamma + fsum): k = 1000, ε₀ = 0.05 → 8.28357334601618;
        // k = 100000, ε₀ = 0.005 → 8.306017032041693 (both at δ = 1e-6).
        close(kov(1000, e(0.05), d(1e-6)).unwrap(), 8.28357334601618, 1e-6);
        let big = kov(100_000, e(0.005), d(1e-6)).unwrap();
        close(big, 8.306017032041693, 1e-5);
        // Optimal composition beats advanced composition and zCDP of pure calls.
        assert!(big <= advanced(100_000, e(0.005), d(1e-6)).unwrap());
        let rho = 100_000.0 * pure_rho(e(0.005));
        assert!(big <= zcdp_to_dp(rho, d(1e-6)).unwrap());
        assert!(kov(KOV_MAX_ROUNDS + 1, e(0.001), d(1e-6)).is_err());
    }

    #[test]
    fn kov_at_delta_zero_is_basic() {
        let k = kov(7, e(0.2), Delta::ZERO).unwrap();
        let b = basic(7, e(0.2)).unwrap();
        assert!(k <= b && k >= b * (1.0 - 1e-12), "{k} vs {b}");
    }
}
