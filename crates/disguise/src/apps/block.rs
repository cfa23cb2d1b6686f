//! The exponential mechanism over explicit candidates plus a *block* of many candidates that
//! all share one score, sampled exactly without enumerating the block.
//!
//! Private frequent-itemset mining needs this: over the universe of all C(|I|, r) itemsets of
//! size r, every itemset that does not occur in the data has frequency 0, so the mechanism's
//! weight on them is (number of such itemsets) × exp(0). The block can hold billions of
//! candidates (or more: its size is a [`BigUint`]); the explicit candidates are the itemsets
//! that occur.

use crate::error::{Error, Result};
use crate::numeric::round::{add_up, div_up, mul_up};
use crate::privacy::{Epsilon, Sensitivity};
use crate::select::sample_exponential;
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use rand_core::{CryptoRng, Rng};

/// What [`sample_exponential_with_block`] chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockChoice {
    /// The explicit candidate with this index in the score slice.
    Index(usize),
    /// One (unspecified) member of the block; the caller picks which, uniformly.
    Block,
}

/// The exponential mechanism with weights exp(ε·q/(d·λ)) over the explicit `scores` and a
/// block of `multiplicity` further candidates that all have score `block_score`, sampled
/// exactly: P(explicit i) ∝ exp(ε·qᵢ/(dλ)), P(block) ∝ m·exp(ε·q_b/(dλ)).
///
/// A [`BlockChoice::Block`] result stands for each member of the block with equal
/// probability, so the caller completes the sample by drawing a uniform member (e.g. a
/// uniform itemset that does not occur in the data).
///
/// # Algorithm
/// A *representative* candidate with an `f64` score q_rep ≥ q_b + (dλ/ε)·ln m is appended to
/// the explicit scores, so that its weight w_rep = exp(ε·q_rep/(dλ)) is at least the block's
/// total weight B = m·exp(ε·q_b/(dλ)) (and, by the choice of q_rep, at most about 2B).
/// Repeat: draw j from the exact exponential mechanism ([`sample_exponential`]) over the
/// explicit scores plus q_rep; an explicit j is returned; the representative is accepted as
/// the block with probability B/w_rep = m·exp(−y), y = ε·(q_rep − q_b)/(dλ), and otherwise
/// the draw is repeated.
///
/// # Exactness
/// Rejection sampling: one round returns explicit i with probability wᵢ/Z′ and the block with
/// probability (w_rep/Z′)·(B/w_rep) = B/Z′ (Z′ the total weight of the round), so the
/// accepted outcome has probability exactly wᵢ/(Σw + B), resp. B/(Σw + B). The acceptance
/// coin Bernoulli(m·e^{−y}) is exact: y is the exact rational given by the stored `f64`
/// values, and a lazily drawn uniform U is compared with digits of m·e^{−y} that are
/// computed with big integers and rigorous error bounds (`exp_neg_enclosure` in the source); the bound
/// m·e^{−y} ≤ 1 that the rejection needs is certified with the same enclosures, not assumed
/// from a floating-point logarithm. Scores, ε and λ are read as the exact rationals their
/// `f64` values store; the divisor d is an exact integer.
///
/// # Runtime
/// Expected (Σw + w_rep)/(Σw + B) ≤ 2 + o(1) rounds, each an O(n) exponential mechanism over
/// n + 1 scores, plus O(1) expected big-integer work per block acceptance test (numbers of
/// about log₂ m + 2·64 bits).
///
/// # Privacy
/// This is the exponential mechanism over the explicit candidates and the block's members,
/// so its guarantee is the exponential mechanism's: ε-DP (and ε-bounded range) for d ≥ 2
/// when every candidate's score — including the block's — has sensitivity λ.
///
/// # Errors
/// [`Error::EmptyCandidates`] when there are no explicit candidates and `multiplicity` is 0;
/// [`Error::NonFiniteScore`] for a NaN/infinite score; [`Error::InvalidParameter`] for a
/// non-finite `block_score`, `divisor` = 0, or parameters so extreme that q_rep overflows.
///
/// ```
/// use disguise::apps::{BlockChoice, sample_exponential_with_block};
/// use disguise::privacy::{Epsilon, Sensitivity};
/// use num_bigint::BigUint;
/// let mut rng = disguise::SecureRng::insecure_from_seed(3);
/// // One clear winner against 10^30 zero-score candidates: e^{1000/2} beats 10^30·e^0.
/// let block = BigUint::from(10u32).pow(30);
/// let pick = sample_exponential_with_block(
///     &mut rng, &[1000.0, 3.0], 0.0, &block, Epsilon::new(1.0)?, Sensitivity::new(1.0)?, 2)?;
/// assert_eq!(pick, BlockChoice::Index(0));
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn sample_exponential_with_block<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    scores: &[f64],
    block_score: f64,
    multiplicity: &BigUint,
    epsilon: Epsilon,
    sensitivity: Sensitivity,
    divisor: u32,
) -> Result<BlockChoice> {
    if divisor == 0 {
        return Err(Error::param("divisor", "must be a positive integer, got 0"));
    }
    if let Some(index) = scores.iter().position(|s| !s.is_finite()) {
        return Err(Error::NonFiniteScore {
            index,
            value: scores[index],
        });
    }
    if multiplicity.is_zero() {
        let i = sample_exponential(rng, scores, epsilon, sensitivity, divisor)?;
        return Ok(BlockChoice::Index(i));
    }
    if !block_score.is_finite() {
        return Err(Error::param(
            "block_score",
            format!("must be finite, got {block_score}"),
        ));
    }
    if scores.is_empty() {
        return Ok(BlockChoice::Block);
    }
    let (q_rep, coin) = representative(block_score, multiplicity, epsilon, sensitivity, divisor)?;
    let mut all = Vec::with_capacity(scores.len() + 1);
    all.extend_from_slice(scores);
    all.push(q_rep);
    loop {
        let j = sample_exponential(rng, &all, epsilon, sensitivity, divisor)?;
        if j < scores.len() {
            return Ok(BlockChoice::Index(j));
        }
        if coin.flip(rng) {
            return Ok(BlockChoice::Block);
        }
    }
}

/// The representative's score q_rep and the acceptance coin Bernoulli(m·e^{−y}) for the exact
/// y = ε(q_rep − q_b)/(dλ), with m·e^{−y} ≤ 1 certified by [`exp_neg_enclosure`].
fn representative(
    block_score: f64,
    m: &BigUint,
    epsilon: Epsilon,
    sensitivity: Sensitivity,
    divisor: u32,
) -> Result<(f64, ScaledExpCoin)> {
    let (eps, lambda) = (epsilon.get(), sensitivity.get());
    // dλ/ε rounded up: the score offset that multiplies the weight by e.
    let unit = div_up(mul_up(f64::from(divisor), lambda), eps);
    // ln m from its top 64 bits: m ≤ (top + 1)·2^shift. The f64 logarithm is only a starting
    // guess; validity is certified exactly below.
    let shift = m.bits().saturating_sub(64);
    let top = (m >> shift).to_u64().expect("at most 64 bits");
    let ln_m = ((top as f64) + 1.0).ln() + shift as f64 * std::f64::consts::LN_2;
    let mut slack = 1.0 / f64::from(1u32 << 20);
    let rational = |v: f64| BigRational::from_float(v).expect("finite");
    let factor =
        rational(eps) / (BigRational::from_integer(BigInt::from(divisor)) * rational(lambda));
    for _ in 0..64 {
        let target = ln_m * (1.0 + slack) + slack;
        let q_rep = add_up(block_score, mul_up(unit, target));
        if !q_rep.is_finite() {
            break;
        }
        let y = (rational(q_rep) - rational(block_score)) * &factor;
        if !y.is_negative() {
            let coin = ScaledExpCoin::new(m, &y);
            if coin.certified_at_most_one() {
                return Ok((q_rep, coin));
            }
        }
        slack *= 2.0;
    }
    Err(Error::param(
        "multiplicity",
        "the block's weight cannot be represented for these scores and ε/λ (overflow)",
    ))
}

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
fn ceil_div(a: BigUint, d: &BigUint) -> BigUint {
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
    let mut sum_lo = BigInt::from(one.clone());
    let mut sum_hi = BigInt::from(one.clone());
    let mut j = 0u64;
    loop {
        j += 1;
        let d = &rden * j;
        tlo = (&tlo * num) / &d;
        thi = ceil_div(&thi * num, &d);
        if j % 2 == 1 {
            sum_lo -= BigInt::from(thi.clone());
            sum_hi -= BigInt::from(tlo.clone());
        } else {
            sum_lo += BigInt::from(tlo.clone());
            sum_hi += BigInt::from(thi.clone());
        }
        if thi <= BigUint::one() {
            break;
        }
    }
    // Tail: |Σ_{i>j}| ≤ T_{j+1} ≤ T_j ≤ 1 unit.
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
    use crate::audit::gof::chi_square;
    use crate::noise::SecureRng;
    use crate::noise::bernoulli::f64_to_ratio;

    fn eps(v: f64) -> Epsilon {
        Epsilon::new(v).unwrap()
    }
    fn sens(v: f64) -> Sensitivity {
        Sensitivity::new(v).unwrap()
    }

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

    /// Exact probabilities of the block mechanism (log-sum-exp in f64, fine for testing).
    fn block_probs(scores: &[f64], qb: f64, m: f64, e: f64, d: f64) -> Vec<f64> {
        let mut logw: Vec<f64> = scores.iter().map(|q| e * q / d).collect();
        logw.push(e * qb / d + m.ln());
        let mx = logw.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = logw.iter().map(|l| (l - mx).exp()).sum();
        logw.iter().map(|l| (l - mx).exp() / z).collect()
    }

    fn run(
        scores: &[f64],
        qb: f64,
        m: &BigUint,
        e: f64,
        d: u32,
        draws: u64,
        seed: u64,
    ) -> Vec<u64> {
        let mut rng = SecureRng::insecure_from_seed(seed);
        let mut counts = vec![0u64; scores.len() + 1];
        for _ in 0..draws {
            match sample_exponential_with_block(&mut rng, scores, qb, m, eps(e), sens(1.0), d)
                .unwrap()
            {
                BlockChoice::Index(i) => counts[i] += 1,
                BlockChoice::Block => counts[scores.len()] += 1,
            }
        }
        counts
    }

    #[test]
    fn block_mechanism_matches_exact_distribution() {
        // Chi-square at p = 1e-4 per case.
        let cases: Vec<(Vec<f64>, f64, BigUint, f64, u32)> = vec![
            (vec![3.0, 1.0, 0.5], 0.0, BigUint::from(7u32), 1.0, 2),
            (vec![20.0, 18.0, 19.5], 0.0, BigUint::from(5000u32), 1.0, 2),
            // 10^30 candidates at score −120: total weight ≈ e^{69.1 − 60} vs e^{10}.
            (
                vec![20.0, 15.0],
                -120.0,
                BigUint::from(10u32).pow(30),
                1.0,
                2,
            ),
            (vec![0.5, 0.25], 0.0, BigUint::from(3u32), 0.7, 6),
        ];
        for (k, (scores, qb, m, e, d)) in cases.iter().enumerate() {
            let draws = 20_000;
            let counts = run(scores, *qb, m, *e, *d, draws, 40 + k as u64);
            let probs = block_probs(scores, *qb, m.to_f64().unwrap(), *e, f64::from(*d));
            let test = chi_square(&counts, &probs).unwrap();
            assert!(test.p_value > 1e-4, "case {k}: {counts:?} vs {probs:?}");
        }
    }

    #[test]
    fn block_equals_materialised_candidates() {
        // The same distribution as the plain exponential mechanism over the block written
        // out: 30 explicit + 40 zero-score candidates, chi-square at p = 1e-4.
        let scores: Vec<f64> = (0..30).map(|i| (i % 5) as f64 * 0.6).collect();
        let m = BigUint::from(40u32);
        let counts = run(&scores, 0.0, &m, 1.0, 2, 30_000, 50);
        let mut full = scores.clone();
        full.extend(std::iter::repeat_n(0.0, 40));
        let exact =
            crate::audit::exact::exponential_probabilities(&full, eps(1.0), sens(1.0), 2).unwrap();
        let mut probs = exact[..30].to_vec();
        probs.push(exact[30..].iter().sum());
        let test = chi_square(&counts, &probs).unwrap();
        assert!(test.p_value > 1e-4, "{counts:?}");
    }

    #[test]
    fn degenerate_inputs() {
        let mut rng = SecureRng::insecure_from_seed(9);
        let zero = BigUint::zero();
        assert_eq!(
            sample_exponential_with_block(&mut rng, &[], 0.0, &zero, eps(1.0), sens(1.0), 2),
            Err(Error::EmptyCandidates)
        );
        let one = BigUint::one();
        assert_eq!(
            sample_exponential_with_block(&mut rng, &[], 0.0, &one, eps(1.0), sens(1.0), 2),
            Ok(BlockChoice::Block)
        );
        assert_eq!(
            sample_exponential_with_block(&mut rng, &[2.0], 0.0, &zero, eps(1.0), sens(1.0), 2),
            Ok(BlockChoice::Index(0))
        );
        assert!(matches!(
            sample_exponential_with_block(&mut rng, &[f64::NAN], 0.0, &one, eps(1.0), sens(1.0), 2),
            Err(Error::NonFiniteScore { index: 0, .. })
        ));
        assert!(
            sample_exponential_with_block(
                &mut rng,
                &[1.0],
                f64::INFINITY,
                &one,
                eps(1.0),
                sens(1.0),
                2
            )
            .is_err()
        );
        assert!(
            sample_exponential_with_block(&mut rng, &[1.0], 0.0, &one, eps(1.0), sens(1.0), 0)
                .is_err()
        );
        // A block 10^300 strong at the top score always wins against one explicit candidate.
        let huge = BigUint::from(10u32).pow(300);
        for _ in 0..100 {
            assert_eq!(
                sample_exponential_with_block(&mut rng, &[5.0], 5.0, &huge, eps(1.0), sens(1.0), 2),
                Ok(BlockChoice::Block)
            );
        }
    }
}
