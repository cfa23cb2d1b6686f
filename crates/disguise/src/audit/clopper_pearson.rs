//! Clopper–Pearson ("exact") confidence bounds for a binomial proportion.
//!
//! For `x` successes in `n` independent trials with success probability `p`:
//!
//! * the one-sided **lower** bound at level `1 − α` is the `p_lo` with
//!   `P[Bin(n, p_lo) ≥ x] = α`, i.e. the α-quantile of `Beta(x, n − x + 1)` (0 when `x = 0`);
//! * the one-sided **upper** bound is the `p_hi` with `P[Bin(n, p_hi) ≤ x] = α`, i.e. the
//!   (1 − α)-quantile of `Beta(x + 1, n − x)` (1 when `x = n`).
//!
//! Each bound holds with probability at least `1 − α` *whatever* the true `p` (the interval is
//! conservative, never anti-conservative), which is what a privacy audit needs: a claimed
//! violation must not be an artefact of a normal approximation in a tail.
//!
//! # Precision
//! The regularized incomplete beta function is evaluated by its continued fraction (Lentz's
//! method) run to convergence — unlike `statrs::function::beta::beta_reg`, which stops after
//! 140 terms and is therefore inaccurate for the million-trial counts of an audit — and the
//! quantile is found by bisection to a relative precision of about 1e-12. Counts up to 2⁵³ are
//! represented exactly.

use crate::error::{Error, Result};
use statrs::function::gamma::ln_gamma;

/// A two-sided confidence interval `[lower, upper]` for a binomial proportion.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Interval {
    /// Lower end (0 when there are no successes).
    pub lower: f64,
    /// Upper end (1 when every trial succeeded).
    pub upper: f64,
}

/// The two-sided Clopper–Pearson interval at level `confidence` (e.g. 0.95): each end is the
/// one-sided bound at level `1 − (1 − confidence)/2`.
///
/// ```
/// use disguise::audit::clopper_pearson;
/// let ci = clopper_pearson(5, 10, 0.95)?;
/// assert!((ci.lower - 0.1871).abs() < 1e-4 && (ci.upper - 0.8129).abs() < 1e-4);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// Errors when `successes > trials`, `trials = 0`, or `confidence ∉ (0, 1)`.
pub fn clopper_pearson(successes: u64, trials: u64, confidence: f64) -> Result<Interval> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(Error::param(
            "confidence",
            format!("must be in (0, 1), got {confidence}"),
        ));
    }
    let alpha = (1.0 - confidence) / 2.0;
    Ok(Interval {
        lower: lower_bound(successes, trials, alpha)?,
        upper: upper_bound(successes, trials, alpha)?,
    })
}

/// One-sided Clopper–Pearson lower bound: `P[p ≥ lower] ≥ 1 − alpha` over the sampling.
///
/// Errors when `successes > trials`, `trials = 0` or `alpha ∉ (0, 1)`.
pub fn lower_bound(successes: u64, trials: u64, alpha: f64) -> Result<f64> {
    validate(successes, trials, alpha)?;
    if successes == 0 {
        return Ok(0.0);
    }
    let a = successes as f64;
    let b = (trials - successes) as f64 + 1.0;
    // P[Bin(n, p) ≥ x] = I_p(x, n − x + 1), increasing in p: find where it crosses α.
    Ok(bisect_increasing(|p| beta_reg(a, b, p), alpha))
}

/// One-sided Clopper–Pearson upper bound: `P[p ≤ upper] ≥ 1 − alpha` over the sampling.
///
/// Errors when `successes > trials`, `trials = 0` or `alpha ∉ (0, 1)`.
pub fn upper_bound(successes: u64, trials: u64, alpha: f64) -> Result<f64> {
    validate(successes, trials, alpha)?;
    // By symmetry (failures are successes of the complementary event) the upper bound for x
    // is one minus the lower bound for n − x; computing it this way keeps the small tail
    // probability in the directly evaluated branch, at full relative precision.
    Ok(1.0 - lower_bound(trials - successes, trials, alpha)?)
}

fn validate(successes: u64, trials: u64, alpha: f64) -> Result<()> {
    if trials == 0 {
        return Err(Error::param("trials", "must be at least 1"));
    }
    if successes > trials {
        return Err(Error::param(
            "successes",
            format!("{successes} successes exceed {trials} trials"),
        ));
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(Error::param(
            "alpha",
            format!("must be in (0, 1), got {alpha}"),
        ));
    }
    Ok(())
}

/// Solves `f(p) = target` for a continuous increasing `f` on `[0, 1]` with `f(0) = 0`,
/// `f(1) = 1`, by bisection to a relative precision of ~1e-12 (absolute 1e-300 near zero).
fn bisect_increasing(f: impl Fn(f64) -> f64, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..2000 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * hi || hi < 1e-300 {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// The regularized incomplete beta function `I_x(a, b)` for `a, b > 0`, `x ∈ [0, 1]`.
///
/// Uses the continued fraction on whichever side converges (`x < (a+1)/(a+b+2)` directly,
/// otherwise through `I_x(a, b) = 1 − I_{1−x}(b, a)`), iterated until the relative change is
/// below machine precision; large arguments need O(√max(a, b)) terms.
pub(crate) fn beta_reg(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    if x < (a + 1.0) / (a + b + 2.0) {
        front_factor(a, b, x) * beta_cf(a, b, x) / a
    } else {
        1.0 - front_factor(b, a, 1.0 - x) * beta_cf(b, a, 1.0 - x) / b
    }
}

/// `x^a (1 − x)^b / B(a, b)`, in log space.
fn front_factor(a: f64, b: f64, x: f64) -> f64 {
    (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (-x).ln_1p()).exp()
}

/// The continued fraction of the incomplete beta function (Numerical Recipes `betacf`,
/// modified Lentz), without an artificial cap on the number of terms.
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    // O(√max(a, b)) terms suffice; the cap only guards against a non-terminating loop on
    // arguments beyond the documented range (counts above 2⁵³).
    for m in 1..10_000_000u64 {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= lentz_step(&mut c, &mut d, m * (b - m) * x / ((qam + m2) * (a + m2)));
        let del = lentz_step(
            &mut c,
            &mut d,
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        );
        h *= del;
        if (del - 1.0).abs() <= 4.0 * f64::EPSILON {
            break;
        }
    }
    h
}

/// Lentz's guard against a zero denominator.
const TINY: f64 = 1e-300;

/// One modified-Lentz step with partial numerator `aa`: updates C and D and returns the
/// factor C·D by which the fraction's value changes.
fn lentz_step(c: &mut f64, d: &mut f64, aa: f64) -> f64 {
    *d = 1.0 + aa * *d;
    if d.abs() < TINY {
        *d = TINY;
    }
    *c = 1.0 + aa / *c;
    if c.abs() < TINY {
        *c = TINY;
    }
    *d = 1.0 / *d;
    *d * *c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `P[Bin(n, p) ∈ ks]` by summing the probability mass function in log space: an
    /// independent check of `beta_reg` (valid for moderate n).
    fn binomial_mass(n: u64, p: f64, ks: std::ops::RangeInclusive<u64>) -> f64 {
        let ln_choose = |k: u64| {
            ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
        };
        ks.map(|k| (ln_choose(k) + k as f64 * p.ln() + (n - k) as f64 * (-p).ln_1p()).exp())
            .sum()
    }

    #[test]
    fn textbook_values() {
        // x = 0, n = 10 at 95%: upper = 1 − 0.025^(1/10) = 0.30850.
        let ci = clopper_pearson(0, 10, 0.95).unwrap();
        assert_eq!(ci.lower, 0.0);
        assert!(
            (ci.upper - (1.0 - 0.025f64.powf(0.1))).abs() < 1e-10,
            "{ci:?}"
        );
        assert!((ci.upper - 0.3085).abs() < 1e-4);
        // x = 5, n = 10 at 95%: [0.18709, 0.81291] (symmetric).
        let ci = clopper_pearson(5, 10, 0.95).unwrap();
        assert!((ci.lower - 0.187_086).abs() < 1e-5, "{ci:?}");
        assert!((ci.upper - 0.812_914).abs() < 1e-5, "{ci:?}");
        // x = n: lower = α^(1/n), upper = 1.
        let ci = clopper_pearson(10, 10, 0.95).unwrap();
        assert!((ci.lower - 0.025f64.powf(0.1)).abs() < 1e-10);
        assert_eq!(ci.upper, 1.0);
        // x = 1, n = 1 one-sided lower at α: solves p = α.
        assert!((lower_bound(1, 1, 0.05).unwrap() - 0.05).abs() < 1e-12);
    }

    #[test]
    fn bounds_solve_the_binomial_tail_equations() {
        // The defining equations, checked against a direct sum of binomial probabilities.
        for &(x, n, alpha) in &[(3u64, 50u64, 1e-3), (40, 200, 1e-6), (700, 1000, 1e-9)] {
            let lo = lower_bound(x, n, alpha).unwrap();
            let tail = binomial_mass(n, lo, x..=n);
            assert!(
                (tail / alpha - 1.0).abs() < 1e-6,
                "x={x} n={n}: {tail} vs {alpha}"
            );
            let hi = upper_bound(x, n, alpha).unwrap();
            let below = binomial_mass(n, hi, 0..=x);
            assert!(
                (below / alpha - 1.0).abs() < 1e-5,
                "x={x} n={n}: {below} vs {alpha}"
            );
        }
    }

    #[test]
    fn large_counts_match_the_normal_approximation() {
        // n = 10⁷, p̂ = 0.01: the exact bound is within 2% of p̂ ∓ z·se (z = 4.753 at 1e-6);
        // statrs' capped continued fraction would be far off here.
        let (x, n) = (100_000u64, 10_000_000u64);
        let se = (0.01f64 * 0.99 / n as f64).sqrt();
        let lo = lower_bound(x, n, 1e-6).unwrap();
        let hi = upper_bound(x, n, 1e-6).unwrap();
        // (The binomial's skewness moves each end by about 1% of z·se, hence 2%.)
        assert!(((0.01 - lo) / (4.753 * se) - 1.0).abs() < 0.02, "lo = {lo}");
        assert!(((hi - 0.01) / (4.753 * se) - 1.0).abs() < 0.02, "hi = {hi}");
    }

    #[test]
    fn rejects_bad_arguments() {
        assert!(clopper_pearson(1, 0, 0.95).is_err());
        assert!(clopper_pearson(11, 10, 0.95).is_err());
        assert!(clopper_pearson(1, 10, 1.0).is_err());
        assert!(clopper_pearson(1, 10, f64::NAN).is_err());
        assert!(lower_bound(1, 10, 0.0).is_err());
    }
}
