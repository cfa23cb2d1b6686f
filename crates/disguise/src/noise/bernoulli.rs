//! Exact Bernoulli samplers: the integer-only building blocks of every other sampler.
//!
//! # Exactness
//! Every function here returns `true` with *exactly* the stated probability, given an ideal
//! uniform bit source. The probability p is never rounded: the decision is `U < p` for a
//! uniform U ∈ [0, 1) whose binary digits are drawn lazily, 8 to 64 at a time, and compared
//! with the binary expansion of p until they differ (expected one chunk). Where p is
//! irrational (exp(−1), exp(−r)), its digits come from hard-coded constants that a test
//! proves, from a certified floating-point enclosure that is only trusted when U's digits
//! are outside its error bound, or from a rigorous big-integer interval evaluation of the
//! series Σ(−r)ʲ/j!. Floating point is used only to *decide quickly* whether the drawn
//! digits are far from p; whenever the enclosure cannot decide, exact arithmetic continues
//! with the same digits (restarting with fresh randomness would bias the result).
//!
//! Public entry points: [`uniform_below`], [`bernoulli_ratio_u64`], [`bernoulli_ratio`],
//! [`bernoulli_f64`] (p an `f64` read exactly), [`bernoulli_exp_neg_one`],
//! [`bernoulli_exp_neg_int`], [`bernoulli_exp_neg`] (x a big rational) and
//! [`bernoulli_exp_neg_f64`] (x an `f64` read exactly, via the fast certified path). Inside
//! the crate, a bit pool hands out random bits a few at a time so that the hot loops of the
//! exponential mechanism use ~8-bit digit comparisons instead of whole words.
//!
//! Citations: Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy",
//! NeurIPS 2020, Algorithm 1 (Bernoulli(exp(−γ)) for rational γ).

use super::scaled_exp::{AlternatingSum, ceil_div};
use crate::error::{Error, Result};
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use rand_core::{CryptoRng, Rng};

/// A uniform integer in `[0, n)`, `n > 0`, exactly uniform (Lemire's nearly divisionless
/// method: rejection removes the modulo bias).
///
/// *Runtime*: one 64-bit draw and one multiplication, plus a rejection with probability
/// below n / 2⁶⁴.
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
        let digit = digit
            .to_u64()
            .expect("digit of a proper fraction fits in 64 bits");
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

/// Bernoulli(p) for a probability given as an `f64`, read as the exact dyadic rational it
/// stores (no rounding: `0.1` means 3602879701896397 / 2⁵⁵, not 1/10).
///
/// # Errors
/// [`Error::InvalidParameter`] if p is NaN or outside [0, 1].
///
/// *Runtime*: one 64-bit draw; a second or more only with probability 2⁻⁶⁴ per chunk (at
/// most 18 chunks, the length of the longest binary expansion of an `f64`).
///
/// ```
/// use disguise::noise::bernoulli::bernoulli_f64;
/// let mut rng = disguise::SecureRng::insecure_from_seed(1);
/// assert!(bernoulli_f64(&mut rng, 1.0)?);
/// assert!(!bernoulli_f64(&mut rng, 0.0)?);
/// assert!(bernoulli_f64(&mut rng, 2.0).is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn bernoulli_f64<R: Rng + CryptoRng + ?Sized>(rng: &mut R, p: f64) -> Result<bool> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::param(
            "probability",
            format!("must be in [0, 1], got {p}"),
        ));
    }
    if p == 1.0 {
        return Ok(true);
    }
    if p == 0.0 {
        return Ok(false);
    }
    // p = mant · 2^-s with 0 < p < 1, so s ≥ 1 and mant < 2^53.
    let (_, mant, exp) = f64_parts(p);
    let s = -exp; // 1 ≤ s ≤ 1074
    let mut j: i32 = 1;
    loop {
        // t: position of the last bit of chunk j relative to p's last bit.
        let t = 64 * j - s;
        let digit = if t >= 0 {
            // First chunk reaching p's last bit; its higher bits belong to the previous chunk.
            ((mant as u128) << t) as u64
        } else if -t >= 64 {
            0
        } else {
            mant >> (-t)
        };
        let u = rng.next_u64();
        if u != digit {
            return Ok(u < digit);
        }
        if t >= 0 {
            // All of p's digits are used and equal to U's: U ≥ p.
            return Ok(false);
        }
        j += 1;
    }
}

/// The first 256 binary digits of e⁻¹ = 0.367879441171442321595523770161460867445811131…,
/// i.e. ⌊e⁻¹ · 2²⁵⁶⌋ in four big-endian 64-bit chunks. Proven by the test
/// `exp_neg_one_digits_are_proven`, which recomputes them from the alternating series with
/// exact integer arithmetic and a rigorous tail bound.
pub(crate) const EXP_NEG_ONE_BITS: [u64; 4] = [
    0x5e2d_58d8_b3bc_df1a,
    0xbade_c782_9054_f90d,
    0xda98_05aa_b56c_7733,
    0x3024_b9d0_a507_daed,
];

/// Bernoulli(exp(−1)), exactly.
///
/// Draws 32 uniform bits and compares them with the first 32 binary digits of e⁻¹; they
/// differ (and decide) with probability 1 − 2⁻³². On a tie the next digits are compared,
/// from the proven 256-bit constant and then from an exact series evaluation.
///
/// *Runtime*: one 32-bit draw in all but 2⁻³² of the calls.
#[inline]
pub fn bernoulli_exp_neg_one<R: Rng + CryptoRng + ?Sized>(rng: &mut R) -> bool {
    const FIRST: u64 = exp_neg_one_digit(0, 32);
    let u = u64::from(rng.next_u32());
    if u != FIRST {
        return u < FIRST;
    }
    exp_neg_one_tie(rng, 32, |rng| u64::from(rng.next_u32()))
}

/// The digit `j` of e⁻¹ in base 2^`width` (`width` 8 or 32, the first digit being j = 0),
/// from the proven 256-bit constant: j < 256/width.
const fn exp_neg_one_digit(j: usize, width: u32) -> u64 {
    let at = j * width as usize;
    let shift = 64 - width - (at % 64) as u32;
    (EXP_NEG_ONE_BITS[at / 64] >> shift) & ((1u64 << width) - 1)
}

/// The one continuation of every Bernoulli(e⁻¹) once U's first digit (base 2^`width`)
/// equals e⁻¹'s: the next digits of U, each from `draw`, against those of the proven
/// 256-bit constant, then against exactly computed digits (keeping those drawn, which
/// equal the constant). [`bernoulli_exp_neg_one`] draws 32-bit digits straight from the
/// generator, the crate's bit pool 8-bit ones; both break ties here.
#[cold]
#[inline(never)]
fn exp_neg_one_tie<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    width: u32,
    draw: impl Fn(&mut R) -> u64,
) -> bool {
    for j in 1..(256 / width) as usize {
        let digit = exp_neg_one_digit(j, width);
        let u = draw(rng);
        if u != digit {
            return u < digit;
        }
    }
    let one = BigUint::one();
    uniform_lt_exp_neg(rng, EXP_NEG_ONE_BITS.to_vec(), &one, &one)
}

/// `k` independent Bernoulli(exp(−1)) trials, stopping at the first failure: Bernoulli(e⁻ᵏ).
///
/// *Runtime*: expected at most e/(e − 1) ≈ 1.58 draws whatever k is.
#[inline]
pub fn bernoulli_exp_neg_int<R: Rng + CryptoRng + ?Sized>(rng: &mut R, k: u64) -> bool {
    for _ in 0..k {
        if !bernoulli_exp_neg_one(rng) {
            return false;
        }
    }
    true
}

/// Bernoulli(exp(−γ)) for rational γ ∈ [0, 1] (CKS Algorithm 1, first case).
fn bernoulli_exp_neg_unit<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    num: &BigUint,
    den: &BigUint,
) -> bool {
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

/// Bernoulli(exp(−num/den)) with fresh randomness, exactly: ⌊num/den⌋ trials of
/// Bernoulli(e⁻¹) (stopping at the first failure), then CKS on the fractional part.
fn exp_neg_ratio<R: Rng + CryptoRng + ?Sized>(rng: &mut R, num: &BigUint, den: &BigUint) -> bool {
    let (whole, frac) = num.div_rem(den);
    match whole.to_u64() {
        Some(k) => {
            if !bernoulli_exp_neg_int(rng, k) {
                return false;
            }
        }
        None => {
            // More than 2⁶⁴ factors: passing them all has probability below e^(−2⁶⁴), but the
            // loop stays exact.
            let mut remaining = whole;
            while !remaining.is_zero() {
                if !bernoulli_exp_neg_one(rng) {
                    return false;
                }
                remaining -= 1u32;
            }
        }
    }
    bernoulli_exp_neg_unit(rng, &frac, den)
}

/// Bernoulli(exp(−x)) for an exact non-negative rational x (CKS Algorithm 1).
///
/// For x > 1 it uses exp(−x) = exp(−1)^⌊x⌋ · exp(−(x − ⌊x⌋)) and stops at the first failed
/// factor, so the expected cost is O(1) whatever the size of x.
///
/// # Panics
/// If x < 0 (an internal invariant).
pub fn bernoulli_exp_neg<R: Rng + CryptoRng + ?Sized>(rng: &mut R, x: &BigRational) -> bool {
    assert!(!x.is_negative(), "bernoulli_exp_neg of a negative number");
    exp_neg_ratio(rng, x.numer().magnitude(), x.denom().magnitude())
}

/// Bernoulli(exp(−x)) for an `f64` x ≥ 0 read as the exact dyadic rational it stores.
///
/// # Errors
/// [`Error::InvalidParameter`] if x is NaN, infinite or negative.
///
/// *Exactness*: the probability is exactly exp(−x) for the stored x. A certified `f64`
/// enclosure of exp(−(x − k)) decides almost every call; only draws within ~10⁻¹³ of the
/// boundary fall back to exact big-integer digits (see the module docs).
///
/// *Runtime*: expected O(1) 32/64-bit draws and no allocation, whatever x is.
///
/// ```
/// use disguise::noise::bernoulli::bernoulli_exp_neg_f64;
/// let mut rng = disguise::SecureRng::insecure_from_seed(1);
/// assert!(bernoulli_exp_neg_f64(&mut rng, 0.0)?);
/// assert!(!bernoulli_exp_neg_f64(&mut rng, 1e6)?); // probability e^(-1e6)
/// assert!(bernoulli_exp_neg_f64(&mut rng, -1.0).is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn bernoulli_exp_neg_f64<R: Rng + CryptoRng + ?Sized>(rng: &mut R, x: f64) -> Result<bool> {
    if !(x.is_finite() && x >= 0.0) {
        return Err(Error::param(
            "exponent",
            format!("must be finite and >= 0, got {x}"),
        ));
    }
    // x̂ = x exactly, so the enclosure radius is 0.
    Ok(BitPool::new(rng).exp_neg_enclosed(x, 0.0, 0.0, || f64_to_ratio(x)))
}

// ---------------------------------------------------------------------------------------
// The certified fast path.
// ---------------------------------------------------------------------------------------

/// Largest number of Bernoulli(e⁻¹) factors split off in one call; a larger certified
/// integer part is capped (any k ≤ x keeps the identity exp(−x) = e⁻ᵏ·exp(−(x − k)) exact;
/// the remainder is then evaluated exactly, which happens with probability ≤ e^(−2⁴⁰)).
const K_CAP: f64 = 1_099_511_627_776.0; // 2⁴⁰

/// Rigorous bound on |p̂(r) − exp(−r)| for the `f64` Horner evaluation [`exp_neg_poly`] on
/// r ∈ [0, 1.25]: Horner rounding ≤ γ₃₆·Σ|aⱼ|rʲ ≤ 4.0e−15 · e^1.25 ≈ 1.4e−14 (Higham,
/// *Accuracy and Stability*, eq. 5.3), coefficient rounding ≤ 2⁻⁵³·e^1.25 ≈ 3.9e−16,
/// truncation after degree 18 ≤ 1.25¹⁹/19! ≈ 5.7e−16 (alternating series with decreasing
/// terms); total < 1.6e−14. We use 2⁻⁴³ ≈ 1.1e−13 (7× slack).
const POLY_ERR: f64 = 1.0 / 8_796_093_022_208.0; // 2⁻⁴³

/// Degree of the Taylor polynomial of exp(−r).
const POLY_DEGREE: usize = 18;

/// (−1)ʲ/j! for j = 0..=18, each correctly rounded to `f64` (const evaluation).
const POLY_COEFFS: [f64; POLY_DEGREE + 1] = {
    let mut c = [0.0f64; POLY_DEGREE + 1];
    let mut fact = 1.0f64; // j! is exact in f64 for j ≤ 18
    let mut j = 0;
    while j <= POLY_DEGREE {
        if j > 0 {
            fact *= j as f64;
        }
        let a = 1.0 / fact;
        c[j] = if j % 2 == 0 { a } else { -a };
        j += 1;
    }
    c
};

/// exp(−r) for r ∈ [0, 1.25] by Horner's rule, with error at most [`POLY_ERR`].
#[inline]
fn exp_neg_poly(r: f64) -> f64 {
    let mut p = POLY_COEFFS[POLY_DEGREE];
    let mut j = POLY_DEGREE;
    while j > 0 {
        j -= 1;
        p = p * r + POLY_COEFFS[j];
    }
    p
}

const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
const TWO_POW_NEG_40: f64 = 1.0 / 1_099_511_627_776.0;
const TWO_POW_NEG_50: f64 = 1.0 / 1_125_899_906_842_624.0;
const TWO_POW_NEG_28: f64 = 1.0 / 268_435_456.0;
const TWO_POW_NEG_30: f64 = 1.0 / 1_073_741_824.0;

/// A buffer of random bits drawn from a generator 64 at a time and handed out a few at a
/// time, so that decisions needing ~8 bits do not consume 32 or 64.
///
/// Every bit of the generator's output is handed out at most once, in order, so the bits
/// are as uniform and independent as the generator's; bits left in the pool when it is
/// dropped are discarded (which does not bias anything). The pool is itself a
/// [`CryptoRng`] (its output *is* the wrapped generator's output), so the exact slow paths
/// can draw from it too.
pub(crate) struct BitPool<'a, R: ?Sized> {
    rng: &'a mut R,
    /// Unused bits, left-aligned.
    buf: u64,
    /// Number of unused bits in `buf`.
    avail: u32,
}

impl<'a, R: Rng + CryptoRng + ?Sized> BitPool<'a, R> {
    /// An empty pool over `rng`.
    pub(crate) fn new(rng: &'a mut R) -> Self {
        Self {
            rng,
            buf: 0,
            avail: 0,
        }
    }

    /// `k` uniform bits (1 ≤ k ≤ 32) as an integer in [0, 2ᵏ).
    #[inline(always)]
    pub(crate) fn bits(&mut self, k: u32) -> u64 {
        debug_assert!((1..=32).contains(&k));
        if self.avail >= k {
            let v = self.buf >> (64 - k);
            self.buf <<= k;
            self.avail -= k;
            v
        } else {
            // Use the `avail` leftover bits as the high part, the rest from a fresh word.
            let need = k - self.avail;
            let high = if self.avail == 0 {
                0
            } else {
                self.buf >> (64 - self.avail)
            };
            let fresh = self.rng.next_u64();
            self.buf = fresh << need;
            self.avail = 64 - need;
            (high << need) | (fresh >> (64 - need))
        }
    }

    /// A uniform integer in [0, n), n > 0, exactly uniform: Lemire's method on
    /// L = ⌈log₂ n⌉ + 8 bits (rejection probability < 2⁻⁸), not a full word.
    ///
    /// Exactness: with r uniform in [0, 2ᴸ) and m = r·n, output ⌊m/2ᴸ⌋ unless
    /// m mod 2ᴸ < 2ᴸ mod n; every output then has exactly ⌊2ᴸ/n⌋ accepted preimages.
    #[inline(always)]
    pub(crate) fn uniform_below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "uniform_below(0)");
        let len = 64 - (n - 1).leading_zeros(); // bits of n − 1 (0 for n = 1)
        if len + 8 > 32 {
            return uniform_below(self, n);
        }
        let l = len + 8;
        let mask = (1u64 << l) - 1;
        // r < 2³², n < 2²⁴: the product fits in 56 bits.
        let mut m = self.bits(l) * n;
        let mut low = m & mask;
        if low < n {
            let threshold = ((1u64 << l) - n) % n; // 2ᴸ mod n
            while low < threshold {
                m = self.bits(l) * n;
                low = m & mask;
            }
        }
        m >> l
    }

    /// Bernoulli(exp(−1)): 8 uniform bits against the first 8 binary digits of e⁻¹ (they
    /// differ and decide with probability 255/256), then the following digits on a tie.
    #[inline(always)]
    pub(crate) fn exp_neg_one(&mut self) -> bool {
        const FIRST: u64 = exp_neg_one_digit(0, 8);
        let u = self.bits(8);
        if u != FIRST {
            return u < FIRST;
        }
        exp_neg_one_tie(self, 8, |pool| pool.bits(8))
    }

    /// Bernoulli(e⁻ᵏ) as k Bernoulli(e⁻¹) trials with early exit (expected ≤ 1.6 trials).
    #[inline(always)]
    pub(crate) fn exp_neg_int(&mut self, k: u64) -> bool {
        for _ in 0..k {
            if !self.exp_neg_one() {
                return false;
            }
        }
        true
    }

    /// Bernoulli(exp(−x)) for an exact x ≥ 0 that is known through an `f64` enclosure.
    ///
    /// Contract (the caller proves it): `x_hat` is finite and ≥ 0, `rel` and `abs` lie in
    /// [0, 2⁻³⁰], and the exact x satisfies |x − x_hat| ≤ rel·x_hat + abs in real
    /// arithmetic; `exact()` returns x = num/den exactly (`den > 0`). `exact` is called only
    /// when the enclosure cannot decide (probability ≈ e^(−x)·(2·rel·x + 10⁻¹³), plus
    /// e^(−2²⁶) when x > 2²⁶).
    ///
    /// Algorithm: k = a certified lower bound on ⌊x⌋; Bernoulli(e⁻¹)ᵏ with early exit; then
    /// Bernoulli(exp(−r)), r = x − k, as `U < exp(−r)` with U's first 32, then 64 bits
    /// compared with a certified enclosure [lo, hi] of exp(−r)·2⁶⁴. Since
    /// exp(−x) = e⁻ᵏ·exp(−r) and the factors are independent, the result is exactly
    /// Bernoulli(exp(−x)).
    #[inline(always)]
    pub(crate) fn exp_neg_enclosed<F>(&mut self, x_hat: f64, rel: f64, abs: f64, exact: F) -> bool
    where
        F: FnOnce() -> (BigUint, BigUint),
    {
        debug_assert!(x_hat.is_finite() && x_hat >= 0.0);
        debug_assert!((0.0..=TWO_POW_NEG_30).contains(&rel));
        debug_assert!((0.0..=TWO_POW_NEG_30).contains(&abs));
        // k ≤ x̂ − 2⁻³⁰·x̂ − 2⁻³⁰ ≤ x̂ − rel·x̂ − abs ≤ x.
        let k = certified_floor(x_hat);
        if !self.exp_neg_int(k) {
            return false;
        }
        let k = k as f64;
        // r̂ = fl(x̂ − k) ≥ 0 approximates r = x − k ∈ [0, 1 + 2⁻²⁷·x̂] with
        // |r − r̂| ≤ err + u·r̂ ≤ rho, err = rel·x̂ + abs (the factors 1 + 2⁻⁴⁰ and 2⁻⁵⁰ = 8u
        // absorb the rounding of rho's own computation).
        let r_hat = x_hat - k;
        let err = rel * x_hat + abs;
        let rho = err * (1.0 + TWO_POW_NEG_40) + r_hat * TWO_POW_NEG_50;
        if !(rho <= 1.0 / 1024.0 && r_hat <= 1.25) {
            let (num, den) = remainder_after(exact(), k);
            return exp_neg_ratio(self, &num, &den);
        }
        // |exp(−r) − exp(−r̂)| ≤ rho·e^rho ≤ 2·rho (exp(−t) ≤ e^rho for t ≥ −rho), and
        // |p̂ − exp(−r̂)| ≤ POLY_ERR. The extra 2⁻⁵⁰ covers the rounding of m and p̂ ± m (each
        // ≤ 2⁻⁵³ since the values are ≤ 2); scaling by 2⁶⁴ is exact.
        let p_hat = exp_neg_poly(r_hat);
        let m = POLY_ERR + 2.0 * rho + TWO_POW_NEG_50;
        // ⌊lo⌋ with lo ≤ exp(−r)·2⁶⁴ (`as` saturates a negative lo to 0; lo < 2⁶⁴ as p̂ ≤ 1).
        let lo = ((p_hat - m) * TWO_POW_64) as u64;
        // ⌈hi⌉ with hi ≥ exp(−r)·2⁶⁴, or None if hi ≥ 2⁶⁴ (no draw can be above it).
        // (Truncation and a comparison instead of `ceil`, which is a libm call on x86-64.)
        let hi = (p_hat + m) * TWO_POW_64;
        let hi = if hi < TWO_POW_64 {
            let t = hi as u64; // ⌊hi⌋ ≤ 2⁶⁴ − 2048, exactly representable
            Some(if (t as f64) < hi { t + 1 } else { t })
        } else {
            None
        };
        // First 32 bits of U: U ∈ [u₁, u₁ + 1)/2³².
        let u1 = self.bits(32);
        if u1 < lo >> 32 {
            return true; // (u₁ + 1)·2³² ≤ lo
        }
        if let Some(h) = hi
            && u1 >= h.div_ceil(1 << 32)
        {
            return false; // u₁·2³² ≥ hi
        }
        // 64 bits of U: U ∈ [u, u + 1)/2⁶⁴.
        let u = (u1 << 32) | self.bits(32);
        if u < lo {
            return true;
        }
        if let Some(h) = hi
            && u >= h
        {
            return false;
        }
        // Too close to call in f64: continue with exact digits of exp(−r), keeping u.
        let (num, den) = remainder_after(exact(), k);
        uniform_lt_exp_neg(self, vec![u], &num, &den)
    }

    /// Bernoulli(exp(−x)) for an exact x of which only a certified lower bound `k ≤ x` is
    /// known in floating point (e.g. when x overflows `f64`). Exact: e⁻ᵏ·exp(−(x − k)).
    pub(crate) fn exp_neg_above<F>(&mut self, k: u64, exact: F) -> bool
    where
        F: FnOnce() -> (BigUint, BigUint),
    {
        if !self.exp_neg_int(k) {
            return false;
        }
        let (num, den) = remainder_after(exact(), k as f64);
        exp_neg_ratio(self, &num, &den)
    }
}

impl<R: Rng + CryptoRng + ?Sized> rand_core::TryRng for BitPool<'_, R> {
    type Error = std::convert::Infallible;
    #[inline]
    fn try_next_u32(&mut self) -> std::result::Result<u32, Self::Error> {
        Ok(self.bits(32) as u32)
    }
    #[inline]
    fn try_next_u64(&mut self) -> std::result::Result<u64, Self::Error> {
        Ok((self.bits(32) << 32) | self.bits(32))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> std::result::Result<(), Self::Error> {
        for chunk in dst.chunks_mut(4) {
            let v = (self.bits(32) as u32).to_be_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(())
    }
}

// The pool only re-slices the wrapped cryptographic generator's output.
impl<R: Rng + CryptoRng + ?Sized> rand_core::TryCryptoRng for BitPool<'_, R> {}

/// An integer k with k ≤ x̂ − 2⁻³⁰·x̂ − 2⁻³⁰ (so k ≤ x whenever |x − x̂| ≤ rel·x̂ + abs with
/// rel, abs ≤ 2⁻³⁰) and k ≤ 2⁴⁰, otherwise as large as that allows up to a relative 2⁻²⁷;
/// one multiplication.
///
/// Proof: if x̂ ≥ 1, fl(x̂·(1 − 2⁻²⁸)) ≤ x̂(1 − 2⁻²⁸)(1 + 2⁻⁵³) ≤ x̂ − 2⁻²⁹·x̂ ≤
/// x̂ − 2⁻³⁰·x̂ − 2⁻³⁰; the cast truncates, i.e. floors the positive value. Below 1, k = 0.
#[inline(always)]
fn certified_floor(x_hat: f64) -> u64 {
    let lower = x_hat * (1.0 - TWO_POW_NEG_28);
    if lower >= 1.0 {
        lower.min(K_CAP) as u64
    } else {
        0
    }
}

/// (num − k·den, den) for x = num/den ≥ k.
#[cold]
fn remainder_after((num, den): (BigUint, BigUint), k: f64) -> (BigUint, BigUint) {
    assert!(!den.is_zero(), "zero denominator");
    let kd = &den * BigUint::from(k as u64);
    // An internal invariant proven in `BitPool::exp_neg_enclosed` and its callers: the
    // certified k never exceeds x. If it did, the k factors already drawn would have biased
    // the result, so we stop loudly rather than return a wrong sample.
    assert!(num >= kd, "certified lower bound exceeds the exact value");
    (num - kd, den)
}

// ---------------------------------------------------------------------------------------
// Exact digits of exp(−r).
// ---------------------------------------------------------------------------------------

/// Integers lo ≤ exp(−num/den)·2^bits ≤ hi with hi − lo ≤ 3, by interval evaluation of the
/// alternating series Σ(−r)ʲ/j! in fixed point with 64 guard bits.
///
/// Each term Tⱼ = rʲ/j!·2^(bits+64) is enclosed in [tloⱼ, thiⱼ] by rounding the recurrence
/// Tⱼ = Tⱼ₋₁·num/(j·den) down and up. Summation stops after term j once the upper bound t
/// of Tⱼ₊₁ is ≤ 1 unit and r ≤ j + 1: from j + 1 on the terms decrease, so the tail of the
/// alternating series has absolute value at most Tⱼ₊₁ ≤ t.
fn exp_neg_bounds(num: &BigUint, den: &BigUint, bits: u64) -> (BigUint, BigUint) {
    // With 64 guard bits the enclosure stays ≤ 3 units wide for r ≤ 4 (the term intervals
    // widen by at most a factor r/j plus 2 units per step); callers only need r ≤ 1.3.
    assert!(num <= &(den * 4u32), "exp_neg_bounds is for r <= 4");
    const GUARD: u64 = 64;
    let one = BigUint::one() << (bits + GUARD);
    let mut tlo = one.clone();
    let mut thi = one.clone();
    let mut sum = AlternatingSum::new(&one);
    let mut j: u64 = 0;
    let tail = loop {
        let next_den = den * (j + 1);
        let next_hi = ceil_div(&thi * num, &next_den);
        if next_hi <= BigUint::one() && num <= &next_den {
            break next_hi;
        }
        j += 1;
        tlo = (&tlo * num) / &next_den;
        thi = next_hi;
        sum.add(j, &tlo, &thi);
    };
    let tail = BigInt::from(tail);
    let AlternatingSum {
        lo: mut sum_lo,
        hi: mut sum_hi,
    } = sum;
    sum_lo -= &tail;
    sum_hi += &tail;
    let lo = if sum_lo.is_negative() {
        BigUint::zero()
    } else {
        sum_lo.magnitude() >> GUARD
    };
    let hi_mag = sum_hi.magnitude();
    let hi = {
        let q = hi_mag >> GUARD;
        if (&q << GUARD) == *hi_mag {
            q
        } else {
            q + 1u32
        }
    };
    (lo, hi)
}

/// Decides `U < exp(−num/den)` exactly, where U ∈ [0, 1) is uniform and its first
/// 64·`prefix.len()` bits are `prefix` (big-endian chunks already drawn, each uniform);
/// further chunks are drawn as needed. Never discards drawn digits.
///
/// Terminates with probability 1: exp(−r) is irrational for rational r ≠ 0 (Lindemann), so
/// the enclosure [lo, hi] (width ≤ 3 units of 2^−bits) leaves an undecided interval for U of
/// probability ≤ 4·2⁻⁶⁴ per extra chunk; for r = 0, lo = hi = 2^bits decides at once.
fn uniform_lt_exp_neg<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    mut prefix: Vec<u64>,
    num: &BigUint,
    den: &BigUint,
) -> bool {
    loop {
        let bits = 64 * prefix.len() as u64;
        let (lo, hi) = exp_neg_bounds(num, den, bits);
        let mut v = BigUint::zero();
        for &c in &prefix {
            v = (v << 64u32) + c;
        }
        // U ∈ [v, v + 1)/2^bits.
        if v < lo {
            return true;
        }
        if v >= hi {
            return false;
        }
        prefix.push(rng.next_u64());
    }
}

// ---------------------------------------------------------------------------------------
// f64 ↔ exact rationals.
// ---------------------------------------------------------------------------------------

/// `(negative, mantissa, exponent)` with |v| = mantissa · 2^exponent exactly (finite v;
/// mantissa < 2⁵³).
#[inline]
pub(crate) fn f64_parts(v: f64) -> (bool, u64, i32) {
    let bits = v.to_bits();
    let negative = bits >> 63 == 1;
    let exp_field = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if exp_field == 0 {
        (negative, frac, -1074) // subnormal or zero
    } else {
        (negative, frac | (1u64 << 52), exp_field - 1075)
    }
}

/// A finite v ≥ 0 as an exact fraction (num, den) with den a power of two.
pub(crate) fn f64_to_ratio(v: f64) -> (BigUint, BigUint) {
    debug_assert!(v.is_finite() && v >= 0.0);
    let (_, mant, exp) = f64_parts(v);
    let m = BigUint::from(mant);
    if exp >= 0 {
        (m << exp as u32, BigUint::one())
    } else {
        (m, BigUint::one() << (-exp) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::SecureRng;

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
        let hits = (0..n)
            .filter(|_| bernoulli_ratio_u64(&mut rng, 3, 10))
            .count() as u64;
        assert_rate(hits, n, 0.3);
        // A denominator beyond 64 bits forces the long-division path.
        let den = BigUint::from(3u32) << 100u32;
        let num = BigUint::one() << 100u32; // p = 1/3
        let hits = (0..n)
            .filter(|_| bernoulli_ratio(&mut rng, &num, &den))
            .count() as u64;
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

    /// The hard-coded digits of e⁻¹ are proven: S_N = Σ_{k≤N} (−1)ᵏ/k! is computed exactly
    /// as an integer over N!, and |e⁻¹ − S_N| ≤ 1/(N+1)! (alternating series with
    /// decreasing terms). Both ends of the enclosure must have the same 256-bit floor.
    #[test]
    fn exp_neg_one_digits_are_proven() {
        let n: u32 = 80;
        let mut fact = BigUint::one(); // N!
        for k in 1..=n {
            fact *= k;
        }
        // Σ (−1)ᵏ N!/k! as an integer.
        let mut sum = BigInt::zero();
        let mut term = fact.clone(); // N!/k! for k = 0
        for k in 0..=n {
            if k > 0 {
                term /= k; // exact: N!/k! = (N!/(k−1)!)/k
            }
            if k % 2 == 0 {
                sum += BigInt::from(term.clone());
            } else {
                sum -= BigInt::from(term.clone());
            }
        }
        let sum = sum.magnitude().clone(); // S_N · N! > 0
        // e⁻¹·2²⁵⁶ ∈ [(S_N − 1/(N+1)!)·2²⁵⁶, (S_N + 1/(N+1)!)·2²⁵⁶]; over the common
        // denominator (N+1)!: numerators (N+1)·sum ∓ 1.
        let big_den = &fact * (n + 1);
        let scaled = |num: BigUint| (num << 256u32) / &big_den;
        let lo = scaled(&sum * (n + 1) - 1u32);
        let hi = scaled(&sum * (n + 1) + 1u32);
        assert_eq!(lo, hi, "the enclosure must pin the 256-bit floor");
        let mut constant = BigUint::zero();
        for c in EXP_NEG_ONE_BITS {
            constant = (constant << 64u32) + c;
        }
        assert_eq!(lo, constant);
        // The interval evaluation used beyond the constants agrees with them.
        let (blo, bhi) = exp_neg_bounds(&BigUint::one(), &BigUint::one(), 256);
        assert!(blo <= constant && constant <= bhi && &bhi - &blo <= BigUint::from(3u32));
    }

    /// exp_neg_bounds encloses exp(−r) for several r (checked against f64 exp at 2⁻⁴⁰).
    #[test]
    fn exp_neg_bounds_enclose() {
        for (n, d) in [
            (0u64, 1u64),
            (1, 3),
            (1, 1),
            (5, 4),
            (3, 2),
            (4, 1),
            (123_456_789, 1 << 30),
        ] {
            let (lo, hi) = exp_neg_bounds(&BigUint::from(n), &BigUint::from(d), 64);
            assert!(
                hi >= lo && &hi - &lo <= BigUint::from(3u32),
                "width for {n}/{d}"
            );
            let approx = (-(n as f64) / d as f64).exp() * TWO_POW_64;
            let lo = lo.to_f64().unwrap();
            assert!(
                (lo - approx).abs() <= approx * 1e-12 + 4.0,
                "{n}/{d}: {lo} vs {approx}"
            );
        }
        // r = 0: exactly 1.
        let (lo, hi) = exp_neg_bounds(&BigUint::zero(), &BigUint::one(), 128);
        assert_eq!(lo, BigUint::one() << 128u32);
        assert_eq!(hi, BigUint::one() << 128u32);
    }

    /// The f64 Horner polynomial is within POLY_ERR of exp(−r) on [0, 1.25] (checked at
    /// 2001 points against the exact enclosure with 128 bits).
    #[test]
    fn poly_error_bound_holds() {
        let mut worst = 0.0f64;
        for i in 0..=2000u32 {
            let r = 1.25 * f64::from(i) / 2000.0;
            let (num, den) = f64_to_ratio(r);
            let (lo, _) = exp_neg_bounds(&num, &den, 128);
            // exact value to ~2⁻¹²⁸; compare in f64 after subtracting p̂'s scaled value.
            let p_hat = exp_neg_poly(r);
            let (pn, pd) = f64_to_ratio(p_hat);
            // |p̂ − exp(−r)|·2¹²⁸ = |pn·2¹²⁸/pd − lo| (up to 3 units).
            let p_scaled = (pn << 128u32) / pd;
            let diff = if p_scaled > lo {
                &p_scaled - &lo
            } else {
                &lo - &p_scaled
            };
            let diff = diff.to_f64().unwrap() / 2f64.powi(128);
            worst = worst.max(diff);
        }
        assert!(worst < POLY_ERR / 4.0, "worst Horner error {worst:e}");
    }

    #[test]
    fn exp_neg_f64_hits_its_probability() {
        let mut rng = SecureRng::insecure_from_seed(5);
        let n = 200_000;
        for x in [0.0, 1e-300, 0.3, 1.0, 1.0 - 1e-16, 2.5, 7.25] {
            let hits = (0..n)
                .filter(|_| bernoulli_exp_neg_f64(&mut rng, x).unwrap())
                .count();
            assert_rate(hits as u64, n, (-x).exp());
        }
        assert!(bernoulli_exp_neg_f64(&mut rng, f64::NAN).is_err());
        assert!(bernoulli_exp_neg_f64(&mut rng, f64::INFINITY).is_err());
        assert!(bernoulli_exp_neg_f64(&mut rng, -0.5).is_err());
        assert!((0..1000).all(|_| !bernoulli_exp_neg_f64(&mut rng, 1e300).unwrap()));
    }

    #[test]
    fn bernoulli_f64_hits_its_probability() {
        let mut rng = SecureRng::insecure_from_seed(6);
        let n = 200_000;
        for p in [0.5, 0.1, 0.999, 1e-3, 0.75] {
            let hits = (0..n)
                .filter(|_| bernoulli_f64(&mut rng, p).unwrap())
                .count();
            assert_rate(hits as u64, n, p);
        }
        // Tiny and subnormal probabilities: never (up to 2⁻⁶⁰ per draw) but valid.
        assert!((0..1000).all(|_| !bernoulli_f64(&mut rng, 5e-324).unwrap()));
        assert!(bernoulli_f64(&mut rng, f64::NAN).is_err());
        assert!(bernoulli_f64(&mut rng, -0.1).is_err());
        assert!(bernoulli_f64(&mut rng, 1.5).is_err());
    }

    /// A scripted generator (not cryptographic: tests only) to drive the digit comparisons
    /// into their tie branches deterministically.
    struct Script(Vec<u64>, usize);
    impl rand_core::TryRng for Script {
        type Error = std::convert::Infallible;
        fn try_next_u32(&mut self) -> std::result::Result<u32, Self::Error> {
            Ok((self.try_next_u64()? >> 32) as u32)
        }
        fn try_next_u64(&mut self) -> std::result::Result<u64, Self::Error> {
            let v = self.0[self.1 % self.0.len()];
            self.1 += 1;
            Ok(v)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> std::result::Result<(), Self::Error> {
            for chunk in dst.chunks_mut(8) {
                let bytes = self.try_next_u64()?.to_le_bytes();
                chunk.copy_from_slice(&bytes[..chunk.len()]);
            }
            Ok(())
        }
    }
    impl rand_core::TryCryptoRng for Script {}

    /// The 8-bit and the 32-bit digits of e⁻¹ spell the same 256 bits as the constant.
    #[test]
    fn exp_neg_one_digits_of_both_widths_spell_the_constant() {
        for (w, &word) in EXP_NEG_ONE_BITS.iter().enumerate() {
            let from32 = (exp_neg_one_digit(2 * w, 32) << 32) | exp_neg_one_digit(2 * w + 1, 32);
            let from8 = (0..8).fold(0, |acc, i| (acc << 8) | exp_neg_one_digit(8 * w + i, 8));
            assert_eq!((from32, from8), (word, word), "word {w}");
        }
    }

    /// The pool's ties go through the same continuation: U equal to e⁻¹ on 256 bits, then
    /// all ones (above e⁻¹) or all zeros (below).
    #[test]
    fn the_pool_breaks_ties_as_the_public_sampler() {
        for (last, below) in [(u64::MAX, false), (0, true)] {
            let mut words = EXP_NEG_ONE_BITS.to_vec();
            words.push(last);
            assert_eq!(BitPool::new(&mut Script(words, 0)).exp_neg_one(), below);
        }
    }

    /// When U's first 256 bits equal e⁻¹'s, the decision is made by the exact digits that
    /// follow: U = digits then all ones is above e⁻¹ iff e⁻¹'s 257th.. digits are below that,
    /// which they are (digit chunk 5 is 0xb164…, not all ones): false; all zeros: true.
    #[test]
    fn exp_neg_one_tie_continues_with_exact_digits() {
        let b = EXP_NEG_ONE_BITS;
        let words32: Vec<u64> = b
            .iter()
            .flat_map(|&c| [c & 0xffff_ffff_0000_0000, c << 32])
            .collect();
        let mut s = words32.clone();
        s.push(u64::MAX);
        assert!(!bernoulli_exp_neg_one(&mut Script(s, 0)));
        let mut s = words32;
        s.push(0);
        assert!(bernoulli_exp_neg_one(&mut Script(s, 0)));
        // And the exact continuation agrees with the proven next chunk 0xb16400bf472b4215.
        let next = 0xb164_00bf_472b_4215u64;
        let one = BigUint::one();
        assert!(uniform_lt_exp_neg(
            &mut Script(vec![next - 1, 0], 0),
            b.to_vec(),
            &one,
            &one
        ));
        assert!(!uniform_lt_exp_neg(
            &mut Script(vec![next + 1, 0], 0),
            b.to_vec(),
            &one,
            &one
        ));
    }

    /// The pool hands out the generator's bits in order, none twice, across word borders.
    #[test]
    fn bit_pool_reslices_the_stream() {
        let words = vec![0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210];
        let mut s = Script(words, 0);
        let mut pool = BitPool::new(&mut s);
        let mut got: u128 = 0;
        for k in [7u32, 13, 32, 1, 20, 27, 28] {
            got = (got << k) | u128::from(pool.bits(k));
        }
        // 128 bits taken in total: the two words, concatenated.
        assert_eq!(got, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
    }

    #[test]
    fn bit_pool_samplers_hit_their_probabilities() {
        let mut rng = SecureRng::insecure_from_seed(7);
        let mut pool = BitPool::new(&mut rng);
        let draws = 700_000;
        for n in [7u64, 1000, (1 << 24) + 3, (1 << 40) + 5] {
            // Counts by residue class mod 7 (and the two halves) of uniform_below(n).
            let mut counts = [0u64; 7];
            let mut low_half = 0u64;
            for _ in 0..draws {
                let v = pool.uniform_below(n);
                assert!(v < n);
                counts[(v % 7) as usize] += 1;
                low_half += u64::from(v < n / 2);
            }
            for (r, c) in counts.iter().enumerate() {
                // P(v ≡ r mod 7) = ⌈(n − r)/7⌉/n.
                let p = (n - r as u64).div_ceil(7) as f64 / n as f64;
                assert_rate(*c, draws, p);
            }
            assert_rate(low_half, draws, (n / 2) as f64 / n as f64);
        }
        assert_eq!(pool.uniform_below(1), 0);
        let hits = (0..draws).filter(|_| pool.exp_neg_one()).count() as u64;
        assert_rate(hits, draws, (-1.0f64).exp());
        let hits = (0..draws).filter(|_| pool.exp_neg_int(3)).count() as u64;
        assert_rate(hits, draws, (-3.0f64).exp());
    }

    /// The pool's 8-bit e⁻¹ comparison walks all 256 proven bits on a tie, then exact digits.
    #[test]
    fn bit_pool_exp_neg_one_tie_continues() {
        let mut words = EXP_NEG_ONE_BITS.to_vec();
        words.push(u64::MAX);
        assert!(!BitPool::new(&mut Script(words, 0)).exp_neg_one());
        let mut words = EXP_NEG_ONE_BITS.to_vec();
        words.push(0);
        assert!(BitPool::new(&mut Script(words, 0)).exp_neg_one());
        // A difference in the last constant byte decides there.
        let mut words = EXP_NEG_ONE_BITS.to_vec();
        words[3] -= 1;
        assert!(BitPool::new(&mut Script(words, 0)).exp_neg_one());
    }

    /// The certified floor is ≤ x̂ − 2⁻³⁰·x̂ − 2⁻³⁰ in exact arithmetic, and not far below
    /// ⌊x̂⌋, on edge values (near integers, huge, tiny) and a sweep of random magnitudes.
    #[test]
    fn certified_floor_is_a_lower_bound() {
        let mut rng = SecureRng::insecure_from_seed(8);
        let mut xs = vec![
            0.0,
            1.0,
            2.0,
            3.0,
            1e6,
            2f64.powi(40),
            1e300,
            f64::MAX,
            5e-324,
        ];
        for m in 1..200u32 {
            let m = f64::from(m);
            xs.extend([m, m.next_up(), m.next_down(), m + 1e-9, m - 1e-9]);
        }
        for _ in 0..20_000 {
            let mag = 2f64.powi((rng.next_u64() % 120) as i32 - 60);
            xs.push((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * mag);
        }
        let slack = BigRational::new(BigInt::one(), BigInt::one() << 30u32);
        for x in xs {
            let k = certified_floor(x);
            let (n, d) = f64_to_ratio(x);
            let exact = BigRational::new(BigInt::from(n), BigInt::from(d));
            let bound = &exact - &exact * &slack - &slack;
            assert!(
                BigRational::from_integer(BigInt::from(k)) <= bound || k == 0,
                "x = {x:e}"
            );
            if x < 1e6 {
                assert!(
                    k as f64 >= (x * (1.0 - 2f64.powi(-27))).floor() - 1.0,
                    "x = {x:e}"
                );
            }
        }
    }

    /// A digit sequence landing in the f64 enclosure's undecided zone goes to exact digits
    /// and decides correctly on both sides of exp(−1/2).
    #[test]
    fn enclosure_ambiguity_falls_back_exactly() {
        let (lo, _) = exp_neg_bounds(&BigUint::one(), &BigUint::from(2u32), 192);
        let lo = lo >> 64u32; // ⌊exp(−1/2)·2¹²⁸⌋ (up to a 2⁻⁶² chance of being off by one)
        let top = (&lo >> 64u32).to_u64().unwrap(); // first 64 bits of exp(−1/2)
        let low = (&lo & BigUint::from(u64::MAX)).to_u64().unwrap();
        let exact = || (BigUint::one(), BigUint::from(2u32));
        // U = top, then below the next digits: U < p.
        let mut s = Script(vec![top, low - 1], 0);
        assert!(BitPool::new(&mut s).exp_neg_enclosed(0.5, 0.0, 0.0, exact));
        let mut s = Script(vec![top, low + 1], 0);
        assert!(!BitPool::new(&mut s).exp_neg_enclosed(0.5, 0.0, 0.0, exact));
    }
}
