//! Exact sign of a short sum of `f64` values.
//!
//! The noisy comparisons of report noisy max and of the large margin mechanisms must decide
//! `a₁ + a₂ + … > 0` for *real* numbers that happen to be stored as `f64` (scores, noise
//! draws, public thresholds). Deciding it with rounded `f64` arithmetic would make the
//! outcome depend on rounding errors whose size depends on the (private) magnitudes of the
//! scores, which the privacy proofs do not cover. [`sum_sign`] returns the sign of the exact
//! real sum instead, so each comparison is exactly the one the paper's proof reasons about.
//!
//! *Runtime*: a floating-point filter answers in O(n) flops whenever the rounded sum is
//! farther from zero than its proven error bound (almost always); only near-ties fall back
//! to exact big-integer arithmetic (O(n · 2100 bits) at worst).

use crate::numeric::bits::decompose;
use num_bigint::BigInt;
use num_traits::Zero;
use std::cmp::Ordering;

/// Sign of the exact real sum of `terms` (all finite): `Greater` if it is > 0, `Less` if
/// < 0, `Equal` if exactly 0.
pub(crate) fn sum_sign(terms: &[f64]) -> Ordering {
    debug_assert!(terms.iter().all(|t| t.is_finite()));
    // Filter: recursive summation of n terms has |ŝ − s| ≤ γ_{n−1} Σ|aᵢ| with
    // γ_k = k·u/(1 − k·u), u = 2⁻⁵³ (Higham, Accuracy and Stability, eq. 4.4); additions
    // never lose accuracy to underflow (a subnormal sum is exact). We use the looser
    // (n + 1)·2⁻⁵² · Σ|aᵢ|, which also covers the rounding of Σ|aᵢ| and of the bound; sums
    // below the normal range go to the exact path so the bound's own underflow is moot.
    let mut sum = 0.0f64;
    let mut abs_sum = 0.0f64;
    for &t in terms {
        sum += t;
        abs_sum += t.abs();
    }
    let bound = abs_sum * ((terms.len() as f64 + 1.0) * f64::EPSILON);
    if sum.is_finite() && bound.is_finite() && sum.abs() > bound && sum.abs() >= f64::MIN_POSITIVE {
        return if sum > 0.0 {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    exact_sign(terms)
}

/// The slow path: the sum as one big integer times a common power of two.
fn exact_sign(terms: &[f64]) -> Ordering {
    let parts: Vec<(i64, i32)> = terms
        .iter()
        .map(|&t| decompose(t))
        .filter(|&(m, _)| m != 0)
        .collect();
    let Some(min_exp) = parts.iter().map(|&(_, e)| e).min() else {
        return Ordering::Equal;
    };
    let total: BigInt = parts
        .iter()
        .map(|&(m, e)| BigInt::from(m) << ((e - min_exp) as usize))
        .sum();
    if total.is_zero() {
        Ordering::Equal
    } else if total > BigInt::zero() {
        Ordering::Greater
    } else {
        Ordering::Less
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_rational::BigRational;

    fn exact_reference(terms: &[f64]) -> Ordering {
        let total: BigRational = terms
            .iter()
            .map(|&t| BigRational::from_float(t).expect("finite"))
            .sum();
        total.cmp(&BigRational::zero())
    }

    #[test]
    fn exact_sign_agrees_with_rationals_on_rounding_traps() {
        let cases: &[&[f64]] = &[
            &[1e20, 1.0, -1e20],                  // f64 gives 0, truth is +1
            &[1e20, -1.0, -1e20],                 // f64 gives 0, truth is −1
            &[0.1, 0.2, -0.3],                    // f64 gives +5.5e-17, truth is +2.8e-17
            &[1e308, 1e308, -1e308, -1e308, 1.0], // f64 overflows
            &[5e-324, -5e-324],
            &[5e-324, 1e300, -1e300],
            &[],
            &[0.0, -0.0],
            &[3.0, -1.0, -2.0],
            &[1.0, f64::EPSILON / 4.0, -1.0],
        ];
        for terms in cases {
            assert_eq!(sum_sign(terms), exact_reference(terms), "{terms:?}");
            assert_eq!(exact_sign(terms), exact_reference(terms), "{terms:?}");
        }
    }

    #[test]
    fn filter_and_exact_path_agree_on_random_sums() {
        // Deterministic pseudo-random terms of wildly different magnitudes, including
        // cancelling pairs, so both the fast filter and the fallback are exercised.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let n = 1 + (next() % 5) as usize;
            let mut terms: Vec<f64> = (0..n)
                .map(|_| {
                    let mant = (next() % 2_000_001) as f64 - 1_000_000.0;
                    let exp = (next() % 80) as i32 - 40;
                    mant * 2f64.powi(exp)
                })
                .collect();
            if next() % 3 == 0 {
                let t = terms[0];
                terms.push(-t);
            }
            assert_eq!(sum_sign(&terms), exact_reference(&terms), "{terms:?}");
        }
    }
}
