//! Exact geometric samplers with parameter exp(−x) for a rational x: the integer core of the
//! discrete Laplace and of its tails.
//!
//! [`geometric_exp_neg`] returns Y ∈ {0, 1, 2, …} with P(Y ≥ y) = exp(−y·x), i.e.
//! P(Y = y) = (1 − e^{−x})·e^{−x·y}, for an exact rational x = `num`/`den` > 0.
//!
//! # Exactness
//! Integer arithmetic only, built on the exact primitives of [`super::bernoulli`]: the output
//! distribution is exactly the stated one given ideal uniform bits.
//!
//! # Algorithm and runtime
//! Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
//! inner loop of Algorithm 2: draw U uniform in [0, den) and accept it with probability
//! exp(−U/den) (Algorithm 1), draw V ~ Geometric with P(V ≥ v) = e^{−v}, so that
//! X = U + den·V has P(X = x) ∝ exp(−x/den); return ⌊X / num⌋. The acceptance rate of U is
//! at least 1 − e^{−1} ≈ 0.63 and V has mean 1/(e − 1) ≈ 0.58, so the expected number of
//! random words is O(1) *whatever the size of* 1/x — unlike counting Bernoulli(e^{−x})
//! successes, which costs O(1/x).

use crate::error::{Error, Result};
use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};
use rand_core::{CryptoRng, Rng};

use super::bernoulli::{
    bernoulli_exp_neg_one, bernoulli_ratio, bernoulli_ratio_u64, uniform_below,
};

/// Y with P(Y ≥ y) = exp(−y·num/den) for machine-integer `num`, `den` > 0.
///
/// # Exactness
/// Exact (integers only). The result is a `u128`: X = U + den·V < den·(V + 1) cannot overflow
/// for any reachable V (V ≥ 2^64 has probability e^{−2^64}).
///
/// # Runtime
/// O(1) expected random words and machine operations, independent of `num` and `den`.
///
/// # Errors
/// [`Error::InvalidParameter`] if `num == 0` (the distribution would be improper) or
/// `den == 0`.
///
/// ```
/// use disguise::noise::{SecureRng, geometric::geometric_exp_neg_u64};
/// let mut rng = SecureRng::insecure_from_seed(7);
/// // P(Y ≥ y) = exp(−y / 1000): mean ≈ 999.5.
/// let y = geometric_exp_neg_u64(&mut rng, 1, 1000)?;
/// assert!(y < 1_000_000);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn geometric_exp_neg_u64<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    num: u64,
    den: u64,
) -> Result<u128> {
    if num == 0 || den == 0 {
        return Err(Error::param(
            "geometric rate",
            format!("numerator and denominator must be > 0, got {num}/{den}"),
        ));
    }
    Ok(geometric_exp_neg_u64_unchecked(rng, num, den))
}

/// [`geometric_exp_neg_u64`] without validation (`num`, `den` > 0 is an invariant).
pub(crate) fn geometric_exp_neg_u64_unchecked<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    num: u64,
    den: u64,
) -> u128 {
    debug_assert!(num > 0 && den > 0);
    // X with P(X = x) ∝ exp(−x/den).
    let x: u128 = loop {
        let u = uniform_below(rng, den);
        if !bernoulli_exp_neg_frac_u64(rng, u, den) {
            continue;
        }
        let mut v: u64 = 0;
        while bernoulli_exp_neg_one(rng) {
            v += 1;
        }
        break u as u128 + den as u128 * v as u128;
    };
    x / num as u128
}

/// Y with P(Y ≥ y) = exp(−y·num/den) for arbitrary-size `num`, `den` > 0 (big-integer
/// version of [`geometric_exp_neg_u64`]; dispatches to it when both fit in 64 bits).
///
/// # Exactness
/// Exact (integers only).
///
/// # Runtime
/// O(1) expected iterations, each O(M(bits of den)) for big-integer arithmetic.
///
/// # Errors
/// [`Error::InvalidParameter`] if `num` or `den` is zero.
pub fn geometric_exp_neg<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    num: &BigUint,
    den: &BigUint,
) -> Result<BigUint> {
    if num.is_zero() || den.is_zero() {
        return Err(Error::param(
            "geometric rate",
            format!("numerator and denominator must be > 0, got {num}/{den}"),
        ));
    }
    Ok(geometric_exp_neg_unchecked(rng, num, den))
}

/// [`geometric_exp_neg`] without validation.
pub(crate) fn geometric_exp_neg_unchecked<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    num: &BigUint,
    den: &BigUint,
) -> BigUint {
    if let (Some(n), Some(d)) = (num.to_u64(), den.to_u64()) {
        return BigUint::from(geometric_exp_neg_u64_unchecked(rng, n, d));
    }
    let x = loop {
        let u = uniform_below_big(rng, den);
        if !bernoulli_exp_neg_frac_big(rng, &u, den) {
            continue;
        }
        let mut v: u64 = 0;
        while bernoulli_exp_neg_one(rng) {
            v += 1;
        }
        break u + den * BigUint::from(v);
    };
    x / num
}

/// Bernoulli(exp(−u/t)) for 0 ≤ u < t (CKS 2020 Algorithm 1, γ = u/t ∈ [0, 1)).
///
/// A_k ~ Bernoulli(γ/k) is drawn as Bernoulli(1/k) ∧ Bernoulli(u/t) (independent), which
/// keeps every quantity in 64 bits.
#[inline]
pub(crate) fn bernoulli_exp_neg_frac_u64<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    u: u64,
    t: u64,
) -> bool {
    debug_assert!(u < t);
    let mut k: u64 = 1;
    loop {
        // Cheap factor first: for k ≥ 2 it fails with probability 1 − 1/k.
        let a = (k == 1 || uniform_below(rng, k) == 0) && bernoulli_ratio_u64(rng, u, t);
        if !a {
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// Bernoulli(exp(−u/t)) for big integers 0 ≤ u < t (CKS 2020 Algorithm 1).
fn bernoulli_exp_neg_frac_big<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    u: &BigUint,
    t: &BigUint,
) -> bool {
    let mut k: u64 = 1;
    loop {
        let a = (k == 1 || uniform_below(rng, k) == 0) && bernoulli_ratio(rng, u, t);
        if !a {
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// A uniform big integer in [0, n), n > 0, by rejection on ⌈log2 n⌉ random bits (expected
/// fewer than two attempts).
pub(crate) fn uniform_below_big<R: Rng + CryptoRng + ?Sized>(rng: &mut R, n: &BigUint) -> BigUint {
    assert!(!n.is_zero(), "uniform_below_big(0)");
    if let Some(small) = n.to_u64() {
        return BigUint::from(uniform_below(rng, small));
    }
    let bits = n.bits();
    loop {
        let candidate = random_bits_big(rng, bits);
        if &candidate < n {
            return candidate;
        }
    }
}

/// A uniform integer in [0, 2^bits).
pub(crate) fn random_bits_big<R: Rng + CryptoRng + ?Sized>(rng: &mut R, bits: u64) -> BigUint {
    let words = bits.div_ceil(32) as usize;
    let mut digits: Vec<u32> = Vec::with_capacity(words);
    while digits.len() < words {
        let w = rng.next_u64();
        digits.push(w as u32);
        if digits.len() < words {
            digits.push((w >> 32) as u32);
        }
    }
    let extra = (words as u64) * 32 - bits;
    if let (true, Some(top)) = (extra > 0, digits.last_mut()) {
        *top >>= extra;
    }
    BigUint::new(digits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::SecureRng;
    use crate::noise::gof::chi_square_test;
    use num_traits::One;

    /// Chi-square of the geometric histogram against its exact pmf (cells 0..cut and a tail
    /// cell), at false-alarm rate 1e-4.
    fn check_geometric(samples: &[u128], rate: f64) {
        let cut = 30usize;
        let mut observed = vec![0u64; cut + 1];
        for &y in samples {
            observed[(y as usize).min(cut)] += 1;
        }
        let r = (-rate).exp();
        let mut expected: Vec<f64> = (0..cut).map(|y| (1.0 - r) * r.powi(y as i32)).collect();
        expected.push(r.powi(cut as i32));
        chi_square_test(&observed, &expected, 1e-4);
    }

    #[test]
    fn geometric_small_and_fractional_rates() {
        let mut rng = SecureRng::insecure_from_seed(11);
        for (num, den) in [(1u64, 1u64), (1, 3), (2, 7), (5, 2), (1, 5)] {
            let samples: Vec<u128> = (0..100_000)
                .map(|_| geometric_exp_neg_u64(&mut rng, num, den).unwrap())
                .collect();
            check_geometric(&samples, num as f64 / den as f64);
        }
    }

    #[test]
    fn geometric_big_path_matches() {
        // den ≥ 2^64 forces the BigUint path; rate = 2^64 / (3·2^64) = 1/3.
        let mut rng = SecureRng::insecure_from_seed(12);
        let num = BigUint::one() << 64u32;
        let den = BigUint::from(3u32) << 64u32;
        let samples: Vec<u128> = (0..40_000)
            .map(|_| {
                geometric_exp_neg(&mut rng, &num, &den)
                    .unwrap()
                    .to_u128()
                    .unwrap()
            })
            .collect();
        check_geometric(&samples, 1.0 / 3.0);
    }

    #[test]
    fn geometric_tiny_rate_is_fast_and_has_right_mean() {
        // Rate 2^-40: mean ≈ 2^40; 20 000 draws; sample mean within 5 standard errors
        // (false-alarm < 1e-6); the O(1) runtime is what keeps this test fast.
        let mut rng = SecureRng::insecure_from_seed(13);
        let n = 20_000;
        let den = 1u64 << 40;
        let mean = (0..n)
            .map(|_| geometric_exp_neg_u64(&mut rng, 1, den).unwrap() as f64)
            .sum::<f64>()
            / n as f64;
        let r = (-1.0 / den as f64).exp();
        let exact_mean = r / (1.0 - r);
        let sd = r.sqrt() / (1.0 - r);
        assert!((mean - exact_mean).abs() < 5.0 * sd / (n as f64).sqrt());
    }

    #[test]
    fn rejects_zero_rate() {
        let mut rng = SecureRng::insecure_from_seed(14);
        assert!(geometric_exp_neg_u64(&mut rng, 0, 1).is_err());
        assert!(geometric_exp_neg_u64(&mut rng, 1, 0).is_err());
        assert!(geometric_exp_neg(&mut rng, &BigUint::zero(), &BigUint::one()).is_err());
    }

    #[test]
    fn uniform_big_is_uniform_over_small_range_via_big_path() {
        // n = 2^64 + 3 exercises rejection; reduce mod 4 and check the 4 residues are
        // equally likely (chi-square at 1e-4; the bias from the +3 is 3/2^64, invisible).
        let mut rng = SecureRng::insecure_from_seed(15);
        let n = (BigUint::one() << 64u32) + 3u32;
        let mut counts = vec![0u64; 4];
        for _ in 0..40_000 {
            let u = uniform_below_big(&mut rng, &n);
            assert!(u < n);
            counts[(u % 4u32).to_usize().unwrap()] += 1;
        }
        chi_square_test(&counts, &[0.25; 4], 1e-4);
    }
}
