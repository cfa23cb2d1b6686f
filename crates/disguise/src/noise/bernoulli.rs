//! Exact Bernoulli samplers on rationals: the integer-only building blocks of every other
//! sampler.
//!
//! # Exactness
//! No floating point is involved: probabilities are exact rationals and decisions are made by
//! comparing uniform random bits with the binary expansion of the probability, chunk by
//! chunk, until they differ (an event of probability 1 after finitely many chunks; expected
//! one chunk). The output distribution is therefore *exactly* the stated one, given an ideal
//! uniform bit source.
//!
//! Citations: Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy",
//! NeurIPS 2020, Algorithm 1 (Bernoulli(exp(−γ)) for rational γ).

use num_bigint::BigUint;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use rand_core::{CryptoRng, Rng};

/// A uniform integer in `[0, n)`, `n > 0`, exactly uniform (Lemire's nearly divisionless
/// method: rejection removes the modulo bias).
///
/// # Panics
/// If `n == 0` (an internal invariant; callers validate user input first).
#[inline]
pub fn uniform_below<R: Rng + CryptoRng + ?Sized>(rng: &mut R, n: u64) -> u64 {
    assert!(n > 0, "uniform_below(0)");
    let mut m = (rng.next_u64() as u128) * (n as u128);
    let mut low = m as u64;
    if low < n {
        let threshold = n.wrapping_neg() % n;
        while low < threshold {
            m = (rng.next_u64() as u128) * (n as u128);
            low = m as u64;
        }
    }
    (m >> 64) as u64
}

/// Bernoulli(num/den) for machine integers, `den > 0`; probabilities ≥ 1 give `true`.
#[inline]
pub fn bernoulli_ratio_u64<R: Rng + CryptoRng + ?Sized>(rng: &mut R, num: u64, den: u64) -> bool {
    assert!(den > 0, "bernoulli_ratio_u64 with zero denominator");
    if num >= den {
        return true;
    }
    uniform_below(rng, den) < num
}

/// Bernoulli(num/den) for arbitrary-size integers, `den > 0`; probabilities ≥ 1 give `true`.
///
/// Compares 64-bit chunks of a uniform U ∈ [0, 1) with the binary expansion of num/den
/// (long division); expected cost one chunk.
pub fn bernoulli_ratio<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    num: &BigUint,
    den: &BigUint,
) -> bool {
    assert!(!den.is_zero(), "bernoulli_ratio with zero denominator");
    if num >= den {
        return true;
    }
    if num.is_zero() {
        return false;
    }
    if let (Some(n), Some(d)) = (num.to_u64(), den.to_u64()) {
        return bernoulli_ratio_u64(rng, n, d);
    }
    let mut rem = num.clone();
    loop {
        // Next 64 binary digits of rem/den.
        let shifted = rem << 64u32;
        let (digit, r) = shifted.div_rem(den);
        rem = r;
        let digit = digit.to_u64().expect("digit of a proper fraction fits in 64 bits");
        let u = rng.next_u64();
        if u != digit {
            return u < digit;
        }
        if rem.is_zero() {
            // p's remaining digits are all zero, U's are not all zero almost surely: U ≥ p.
            return false;
        }
    }
}

/// Bernoulli(exp(−1)), exactly (CKS Algorithm 1 with γ = 1: K is the first k ≥ 2 with
/// Bernoulli(1/k) = 0; return K odd... shifted by the always-true first trial).
#[inline]
pub fn bernoulli_exp_neg_one<R: Rng + CryptoRng + ?Sized>(rng: &mut R) -> bool {
    // A_1 ~ Bernoulli(1) is always 1, so start at k = 2.
    let mut k: u64 = 2;
    loop {
        if uniform_below(rng, k) != 0 {
            // A_k = 0: K = k; output "K odd".
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// Bernoulli(exp(−γ)) for rational γ ∈ [0, 1] (CKS Algorithm 1, first case).
fn bernoulli_exp_neg_unit<R: Rng + CryptoRng + ?Sized>(rng: &mut R, num: &BigUint, den: &BigUint) -> bool {
    debug_assert!(num <= den);
    let mut k = BigUint::one();
    loop {
        // A_k ~ Bernoulli(γ / k).
        let kd = den * &k;
        if !bernoulli_ratio(rng, num, &kd) {
            return k.is_odd();
        }
        k += 1u32;
    }
}

/// Bernoulli(exp(−x)) for an exact non-negative rational x (CKS Algorithm 1).
///
/// For x > 1 it uses exp(−x) = exp(−1)^⌊x⌋ · exp(−(x − ⌊x⌋)) and stops at the first failed
/// factor, so the expected cost is O(1) whatever the size of x.
///
/// # Panics
/// If x < 0 (an internal invariant).
pub fn bernoulli_exp_neg<R: Rng + CryptoRng + ?Sized>(rng: &mut R, x: &BigRational) -> bool {
    assert!(!x.is_negative_rational(), "bernoulli_exp_neg of a negative number");
    let num = x.numer().magnitude();
    let den = x.denom().magnitude();
    let (whole, frac) = num.div_rem(den);
    let mut remaining = whole;
    while !remaining.is_zero() {
        if !bernoulli_exp_neg_one(rng) {
            return false;
        }
        remaining -= 1u32;
    }
    bernoulli_exp_neg_unit(rng, &frac, den)
}

/// Small helper trait so the sign check reads naturally.
trait IsNegativeRational {
    fn is_negative_rational(&self) -> bool;
}
impl IsNegativeRational for BigRational {
    fn is_negative_rational(&self) -> bool {
        use num_traits::Signed;
        self.is_negative()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::SecureRng;
    use num_bigint::BigInt;

    fn frac(n: i64, d: i64) -> BigRational {
        BigRational::new(BigInt::from(n), BigInt::from(d))
    }

    /// Binomial z-test: |hits − np| ≤ 5·sqrt(np(1−p)); false-alarm rate < 6e-7 per check.
    fn assert_rate(hits: u64, trials: u64, p: f64) {
        let mean = trials as f64 * p;
        let sd = (trials as f64 * p * (1.0 - p)).sqrt();
        assert!(
            (hits as f64 - mean).abs() <= 5.0 * sd + 1e-9,
            "hits {hits} of {trials}, expected p = {p}"
        );
    }

    #[test]
    fn uniform_below_is_uniform() {
        let mut rng = SecureRng::insecure_from_seed(1);
        let mut counts = [0u64; 7];
        let n = 700_000;
        for _ in 0..n {
            counts[uniform_below(&mut rng, 7) as usize] += 1;
        }
        for c in counts {
            assert_rate(c, n, 1.0 / 7.0);
        }
    }

    #[test]
    fn ratio_samplers_hit_their_probability() {
        let mut rng = SecureRng::insecure_from_seed(2);
        let n = 200_000;
        let hits = (0..n).filter(|_| bernoulli_ratio_u64(&mut rng, 3, 10)).count() as u64;
        assert_rate(hits, n, 0.3);
        // A denominator beyond 64 bits forces the long-division path.
        let den = BigUint::from(3u32) << 100u32;
        let num = BigUint::one() << 100u32; // p = 1/3
        let hits = (0..n).filter(|_| bernoulli_ratio(&mut rng, &num, &den)).count() as u64;
        assert_rate(hits, n, 1.0 / 3.0);
    }

    #[test]
    fn exp_neg_hits_its_probability() {
        let mut rng = SecureRng::insecure_from_seed(3);
        let n = 200_000;
        for (x, p) in [
            (frac(0, 1), 1.0),
            (frac(1, 3), (-1.0f64 / 3.0).exp()),
            (frac(1, 1), (-1.0f64).exp()),
            (frac(5, 2), (-2.5f64).exp()),
        ] {
            let hits = (0..n).filter(|_| bernoulli_exp_neg(&mut rng, &x)).count() as u64;
            assert_rate(hits, n, p);
        }
        let hits = (0..n).filter(|_| bernoulli_exp_neg_one(&mut rng)).count() as u64;
        assert_rate(hits, n, (-1.0f64).exp());
    }

    #[test]
    fn huge_exponent_is_cheap_and_false() {
        let mut rng = SecureRng::insecure_from_seed(4);
        let x = frac(1_000_000, 1);
        assert!((0..1000).all(|_| !bernoulli_exp_neg(&mut rng, &x)));
    }
}
