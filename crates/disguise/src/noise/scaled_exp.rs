//! An exact coin Bernoulli(m·e^{−y}) for an integer m and a rational y, and the rigorous
//! enclosure of e^{−y} it rests on: the block-sampling of the exponential mechanism over an
//! implicit tail of equal scores (`apps::block`) flips it.

use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use rand_core::{CryptoRng, Rng};

/// An exact coin Bernoulli(m·e^{−y}) for an integer m ≥ 1 and a rational y ≥ 0 with
/// m·e^{−y} ≤ 1, built once and flipped many times.
///
/// A uniform U ∈ [0, 1) is drawn 64 bits at a time; after k chunks, U ∈ [v, v + 1)/2^{64k}
/// is compared with an enclosure [p_lo, p_hi] of m·e^{−y}·2^{64k}: U < p if v + 1 ≤ p_lo, U ≥ p
/// if v ≥ p_hi, otherwise one more chunk is drawn. The first level's enclosure is computed at
/// construction, so a flip is one 64-bit draw and two comparisons except with probability
/// ≤ 2⁻⁶¹ (the enclosure is at most a few units wide), when deeper digits are computed. It
/// terminates with probability 1: m·e^{−y} is irrational unless y = 0, where the enclosure is
/// exact.
pub(crate) struct ScaledExpCoin {
    m: BigUint,
    num: BigUint,
    den: BigUint,
    extra: u64,
    /// Enclosure of p·2⁶⁴.
    lo: u128,
    hi: u128,
}

impl ScaledExpCoin {
    pub(crate) fn new(m: &BigUint, y: &BigRational) -> Self {
        debug_assert!(!y.is_negative() && !m.is_zero());
        let (num, den) = (y.numer().magnitude().clone(), y.denom().magnitude().clone());
        let extra = m.bits() + 2;
        let (lo, hi) = Self::level(m, &num, &den, extra, 64);
        let cap = |v: BigUint| v.to_u128().unwrap_or(u128::MAX);
        Self {
            m: m.clone(),
            num,
            den,
            extra,
            lo: cap(lo),
            hi: cap(hi),
        }
    }

    /// Integers p_lo ≤ m·e^{−y}·2^bits ≤ p_hi.
    fn level(
        m: &BigUint,
        num: &BigUint,
        den: &BigUint,
        extra: u64,
        bits: u64,
    ) -> (BigUint, BigUint) {
        let (lo, hi) = exp_neg_enclosure(num, den, bits + extra);
        ((m * lo) >> extra, ceil_shift(m * hi, extra))
    }

    /// Whether m·e^{−y} ≤ 1 is proven.
    pub(crate) fn certified_at_most_one(&self) -> bool {
        self.hi <= 1u128 << 64
    }

    /// One flip.
    pub(crate) fn flip<R: Rng + CryptoRng + ?Sized>(&self, rng: &mut R) -> bool {
        let first = rng.next_u64();
        let v = u128::from(first);
        if v < self.lo {
            return true; // v + 1 ≤ p_lo
        }
        if v >= self.hi {
            return false;
        }
        let mut v = BigUint::from(first);
        let mut bits = 64u64;
        loop {
            v = (v << 64u32) + rng.next_u64();
            bits += 64;
            let (p_lo, p_hi) = Self::level(&self.m, &self.num, &self.den, self.extra, bits);
            if v < p_lo {
                return true;
            }
            if v >= p_hi {
                return false;
            }
        }
    }
}

/// Bernoulli(m·e^{−y}) with a fresh coin ([`ScaledExpCoin`]); m ≥ 1, y ≥ 0, m·e^{−y} ≤ 1.
#[cfg(test)]
pub(crate) fn bernoulli_scaled_exp_neg<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    m: &BigUint,
    y: &BigRational,
) -> bool {
    ScaledExpCoin::new(m, y).flip(rng)
}

/// ⌈a / 2^k⌉.
fn ceil_shift(a: BigUint, k: u64) -> BigUint {
    let q = &a >> k;
    if (&q << k) == a { q } else { q + 1u32 }
}

/// ⌈a / d⌉.
pub(crate) fn ceil_div(a: BigUint, d: &BigUint) -> BigUint {
    let (q, r) = a.div_rem(d);
    if r.is_zero() { q } else { q + 1u32 }
}

/// Integers lo ≤ e^{−y}·2^prec ≤ hi for the rational y = num/den ≥ 0, with hi − lo ≤ 3.
///
/// Range reduction: r = y/2^s < 2⁻⁸ (few series terms); e^{−r} is enclosed by its alternating Taylor series in
/// fixed point with W = prec + s + 64 bits, each term Tⱼ = Tⱼ₋₁·r/j rounded down and up, the
/// sum stopped once the upper bound of the last term is ≤ 1 unit (the tail of an alternating
/// series with decreasing terms — r < 1 ≤ j — is at most the next term, itself ≤ the last);
/// then squared s times with outward rounding (e^{−y} = (e^{−r})^{2^s}), clamped to
/// [0, 2^W] (e^{−y} ∈ (0, 1]), and shifted to `prec` bits. Each squaring at most doubles the
/// width and adds 2 units, so the 64 + s guard bits leave a final width ≤ 3 units.
///
/// *Runtime*: O(W/log W) series terms and s = O(log y) squarings of W-bit integers.
/// An enclosure [lo, hi] of the partial sums of an alternating series 1 − T₁ + T₂ − …, in
/// integer units, as the enclosures [tloⱼ, thiⱼ] of its terms are added.
pub(crate) struct AlternatingSum {
    /// The lower end.
    pub(crate) lo: BigInt,
    /// The upper end.
    pub(crate) hi: BigInt,
}

impl AlternatingSum {
    /// The first term, `one` (exact).
    pub(crate) fn new(one: &BigUint) -> Self {
        let one = BigInt::from(one.clone());
        Self {
            lo: one.clone(),
            hi: one,
        }
    }

    /// Adds (−1)ʲ·Tⱼ for Tⱼ ∈ [tlo, thi]: a subtracted term lowers `lo` by its upper end.
    pub(crate) fn add(&mut self, j: u64, tlo: &BigUint, thi: &BigUint) {
        if j % 2 == 1 {
            self.lo -= BigInt::from(thi.clone());
            self.hi -= BigInt::from(tlo.clone());
        } else {
            self.lo += BigInt::from(tlo.clone());
            self.hi += BigInt::from(thi.clone());
        }
    }
}

pub(crate) fn exp_neg_enclosure(num: &BigUint, den: &BigUint, prec: u64) -> (BigUint, BigUint) {
    assert!(!den.is_zero(), "zero denominator");
    let exact_one = BigUint::one() << prec;
    if num.is_zero() {
        return (exact_one.clone(), exact_one);
    }
    let s = (num.bits() as i64 - den.bits() as i64 + 9).max(0) as u64;
    let w = prec + s + 64;
    let one = BigUint::one() << w;
    let rden = den << s;
    let (mut tlo, mut thi) = (one.clone(), one.clone());
    let mut sum = AlternatingSum::new(&one);
    let mut j = 0u64;
    loop {
        j += 1;
        let d = &rden * j;
        tlo = (&tlo * num) / &d;
        thi = ceil_div(&thi * num, &d);
        sum.add(j, &tlo, &thi);
        if thi <= BigUint::one() {
            break;
        }
    }
    // Tail: |Σ_{i>j}| ≤ T_{j+1} ≤ T_j ≤ 1 unit.
    let AlternatingSum {
        lo: mut sum_lo,
        hi: mut sum_hi,
    } = sum;
    sum_lo -= 1;
    sum_hi += 1;
    let clamp = |v: BigInt| -> BigUint {
        if v.is_negative() {
            BigUint::zero()
        } else {
            v.magnitude().clone().min(one.clone())
        }
    };
    let mut lo = clamp(sum_lo);
    let mut hi = clamp(sum_hi);
    for _ in 0..s {
        lo = (&lo * &lo) >> w;
        hi = ceil_shift(&hi * &hi, w).min(one.clone());
    }
    (lo >> (w - prec), ceil_shift(hi, w - prec))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::SecureRng;
    use crate::noise::bernoulli::f64_to_ratio;

    #[test]
    fn enclosure_brackets_exp_and_is_narrow() {
        for &y in &[
            0.0,
            1e-12,
            0.1,
            0.5,
            std::f64::consts::LN_2,
            1.0,
            2.5,
            10.0,
            37.25,
            700.0,
        ] {
            let (num, den) = f64_to_ratio(y);
            let prec = 64;
            let (lo, hi) = exp_neg_enclosure(&num, &den, prec);
            assert!(hi >= lo && &hi - &lo <= BigUint::from(3u32), "y = {y}");
            let scale = 2f64.powi(64);
            let (lo_f, hi_f) = (lo.to_f64().unwrap() / scale, hi.to_f64().unwrap() / scale);
            let e = (-y).exp();
            // f64 exp is accurate to ~1 ulp: the enclosure must contain it up to that.
            assert!(lo_f <= e * (1.0 + 1e-15) + 1e-300, "y = {y}: {lo_f} > {e}");
            assert!(hi_f >= e * (1.0 - 1e-15), "y = {y}: {hi_f} < {e}");
        }
        // Large y at high precision: compare with e^{-700} at 1100 bits.
        let (num, den) = f64_to_ratio(700.0);
        let (lo, hi) = exp_neg_enclosure(&num, &den, 1100);
        let ratio = lo.to_f64().unwrap() / hi.to_f64().unwrap();
        assert!(ratio > 1.0 - 1e-15);
        // e^{-700}·2^1100 ≈ 2^(1100 − 1009.9): about 90 bits.
        assert!((89..=92).contains(&lo.bits()), "{}", lo.bits());
    }

    #[test]
    fn enclosure_composes_multiplicatively() {
        // e^{-a}·e^{-b} = e^{-(a+b)} (dyadic a, b: a + b is exact): the product of the
        // enclosures must overlap the direct one.
        let prec = 128;
        let one = BigUint::one() << prec;
        for &(a, b) in &[
            (0.25, 0.875),
            (3.0, 4.5),
            (0.125, 20.0),
            (1.0 / 1024.0, 0.5),
        ] {
            let (an, ad) = f64_to_ratio(a);
            let (bn, bd) = f64_to_ratio(b);
            let (cn, cd) = f64_to_ratio(a + b);
            let (alo, ahi) = exp_neg_enclosure(&an, &ad, prec);
            let (blo, bhi) = exp_neg_enclosure(&bn, &bd, prec);
            let (clo, chi) = exp_neg_enclosure(&cn, &cd, prec);
            let plo = (&alo * &blo) / &one;
            let phi = ceil_div(&ahi * &bhi, &one);
            assert!(plo <= chi && clo <= phi, "{a} + {b}");
        }
    }

    #[test]
    fn scaled_coin_matches_its_probability() {
        // Binomial z-test at 5 sd (false-alarm rate < 6e-7 per check). Each case also runs
        // with the first-level enclosure disabled, so every flip takes the deep path (in use
        // it is taken with probability ≤ 2⁻⁶¹).
        let mut rng = SecureRng::insecure_from_seed(5);
        for &(m, y) in &[
            (1u64, 0.0f64),
            (1, 0.7),
            (3, 1.5),
            (1000, 7.5),
            (12345, 10.0),
        ] {
            let p = m as f64 * (-y).exp();
            let yr = BigRational::from_float(y).unwrap();
            let mb = BigUint::from(m);
            let coin = ScaledExpCoin::new(&mb, &yr);
            assert!(coin.certified_at_most_one());
            let mut deep = ScaledExpCoin::new(&mb, &yr);
            (deep.lo, deep.hi) = (0, 1u128 << 64);
            for (c, n) in [(&coin, 100_000u64), (&deep, 4_000)] {
                let hits = (0..n).filter(|_| c.flip(&mut rng)).count() as f64;
                let sd = (n as f64 * p * (1.0 - p)).sqrt();
                assert!(
                    (hits - n as f64 * p).abs() <= 5.0 * sd + 1e-9,
                    "m {m} y {y}: {hits}"
                );
            }
        }
        // A coin above 1 is not certified.
        let over = ScaledExpCoin::new(&BigUint::from(3u32), &BigRational::from_float(1.0).unwrap());
        assert!(!over.certified_at_most_one());
        assert!(bernoulli_scaled_exp_neg(
            &mut rng,
            &BigUint::one(),
            &BigRational::from_float(0.0).unwrap()
        ));
    }
}
