//! The exponential mechanism with an exact, fast sampler: [`Exponential`] (the selector) and
//! [`sample_exponential`] (the sampler, also used by the large margin mechanisms). The
//! algorithm, its exactness proof, guarantee, runtime and utility are documented on
//! [`Exponential`].

use super::{Selection, Selector};
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::noise::bernoulli::{BitPool, f64_parts};
use crate::privacy::{Epsilon, PrivacyCost, Sensitivity};
use num_bigint::{BigInt, BigUint};
use num_traits::Signed;
use rand_core::{CryptoRng, Rng};

/// The exponential mechanism, sampled exactly and fast.
///
/// Candidate v is chosen with probability proportional to exp(ε·q(v)/(2λ)) (or
/// exp(ε·q(v)/λ) in the [monotone](Exponential::monotone) variant), where q(v) are the scores
/// and λ their sensitivity (McSherry & Talwar 2007; mitrovic2017 Prop. 2.5).
///
/// # Algorithm
/// With c = ε/(d·λ) (d = 2, or 1 for the monotone variant) and q_max the largest score,
/// write xᵢ = c·(q_max − qᵢ) ≥ 0, so the target is P(i) ∝ exp(−xᵢ) and the best candidate
/// has weight exactly 1. Rejection sampling: propose i uniformly, accept it with probability
/// exp(−xᵢ), otherwise repeat. Each acceptance test is a Bernoulli(exp(−xᵢ)):
///
/// 1. x̂ᵢ = fl(ĉ·fl(q_max − qᵢ)) is computed in `f64` with a *proven* error radius,
///    |xᵢ − x̂ᵢ| ≤ 2⁻⁴⁶·x̂ᵢ + 2⁻¹⁰²⁰ (proof in the source, next to the constant `TAU`; checked
///    in exact arithmetic by the test `fast_path_error_radius_holds`), and from it a
///    certified integer kᵢ ≤ xᵢ.
/// 2. kᵢ independent Bernoulli(e⁻¹) trials, stopping at the first failure; each compares 8
///    random bits with the leading binary digits of e⁻¹ (they differ, and decide, with
///    probability 255/256; on a tie the next digits are compared: 256 hard-coded bits, proven
///    by the test `exp_neg_one_digits_are_proven`, then exactly computed ones).
/// 3. Only if all pass: Bernoulli(exp(−rᵢ)) for the remainder rᵢ = xᵢ − kᵢ ∈ [0, ≈1], by
///    comparing 32, then 64 random bits with a certified `f64` enclosure of exp(−rᵢ)·2⁶⁴
///    (a degree-18 Taylor polynomial with a proven error bound); if the bits fall inside the
///    enclosure (probability ≈ 10⁻¹³), the *same* bits are compared with exact digits of
///    exp(−rᵢ), computed with big integers from the scores, ε and λ read as exact rationals.
///
/// Random bits come from the [`SecureRng`] through a bit pool, so a proposal uses about
/// ⌈log₂ n⌉ + 8 bits for the index and ≈13 for the trials instead of whole 64-bit words.
///
/// # Exactness
/// The output distribution is *exactly* P(i) = exp(−xᵢ)/Σⱼexp(−xⱼ) for the scores, ε and λ
/// read as the exact rationals their `f64` values store (and the divisor d as an exact
/// integer), given ideal uniform bits:
/// * one round proposes i with probability 1/n and accepts it with probability exactly
///   exp(−xᵢ), so the accepted index has probability exp(−xᵢ)/Σⱼexp(−xⱼ);
/// * step 2–3 use the identity exp(−x) = (e⁻¹)ᵏ·exp(−(x − k)), valid for every integer k,
///   and independent factors; `f64` arithmetic only chooses k (which must be ≤ x so that the
///   remainder is ≥ 0, hence the certified bound) and decides comparisons whose outcome it
///   can prove; every other comparison is finished with exact integer arithmetic on the same
///   random bits.
///
/// So there is no overflow (a score gap of 10³⁰⁰ is simply a weight that is never accepted),
/// no underflow to all-zero weights (the best candidate has weight exactly 1), and no
/// rounding that moves probability between candidates — the failure modes of floating-point
/// implementations (Ilvento, "Implementing the Exponential Mechanism with Base-2
/// Differential Privacy", CCS 2020).
///
/// # Guarantee
/// * [`Exponential::new`]: ε-differentially private and ε-bounded-range (Dong, Durfee,
///   Rogers 2020), hence ε²/8-zCDP, for neighbouring datasets D ∼ D′ differing in one
///   record, whenever |q(v, D) − q(v, D′)| ≤ λ for every v (mitrovic2017 Prop. 2.5;
///   McSherry & Talwar 2007). Cost: [`PrivacyCost::BoundedRange`].
/// * [`Exponential::monotone`]: the same guarantee with weights exp(ε·q/λ), *provided the
///   scores are monotone between neighbours*: for every D ∼ D′ either q(v, D) ≥ q(v, D′) for
///   all v or q(v, D) ≤ q(v, D′) for all v (e.g. counts when neighbours add or remove one
///   record). Then the log-ratio of any outcome's probabilities lies in an interval of width
///   ε containing 0 (McSherry & Talwar 2007, Sect. 3; Dwork & Roth 2014, Thm 3.10 remark).
///   With non-monotone scores the monotone variant is only 2ε-DP: do not use it then.
///
/// # Runtime
/// One O(n) pass validates the scores and finds q_max. The number of proposals is
/// geometric with mean n/Z, Z = Σⱼexp(−xⱼ) ∈ [1, n]: at most n (one clear winner), 1 when
/// all scores are equal. Each proposal costs one uniform index, ≈1.6 Bernoulli(e⁻¹) trials
/// and a few flops; big-integer arithmetic runs O(1) times per sample in expectation and,
/// in practice, with probability ≈ 10⁻¹³ per proposal. For slices over 2¹⁵ scores,
/// proposals are drawn in batches of 16 so that their score lookups overlap in memory.
/// Measured (`cargo bench -p disguise --bench select`): tens of millions of candidates per
/// second with one clear winner, hundreds of millions with near-ties or equal scores.
///
/// Like every rejection sampler, the running time depends on the scores (through n/Z); an
/// adversary who can time the call learns about Z, which the privacy guarantee does not
/// cover.
///
/// # Utility
/// With probability ≥ 1 − β the chosen v satisfies q(v) ≥ OPT − d·λ·ln(n/β)/ε, i.e.
/// OPT − 2λ·ln(n/β)/ε for the standard mechanism (McSherry & Talwar 2007; Dwork & Roth
/// 2014, Thm 3.11), and in expectation q(v) ≥ OPT − 2λ·ln(n)/ε (mitrovic2017 Prop. 2.5).
///
/// ```
/// use disguise::prelude::*;
///
/// let mut rng = SecureRng::from_os()?;
/// let em = Exponential::new(Epsilon::new(1.0)?);
/// // A gap of a million sensitivities: the winner is chosen with probability 1 − e^(−499990).
/// let choice = em.select(&[0.0, 1e6, 5.0], Sensitivity::new(1.0)?, &mut rng)?;
/// assert_eq!(choice.index, 1);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Exponential {
    epsilon: Epsilon,
    /// d in exp(ε·q/(d·λ)): 2 (standard) or 1 (monotone).
    divisor: u32,
}

impl Exponential {
    /// The standard mechanism with budget ε: weights exp(ε·q/(2λ)). ε-DP and
    /// ε-bounded-range for any scores of sensitivity λ.
    pub fn new(epsilon: Epsilon) -> Self {
        Self {
            epsilon,
            divisor: 2,
        }
    }

    /// The monotone-score mechanism with budget ε: weights exp(ε·q/λ). ε-DP and
    /// ε-bounded-range **only** if, between any two neighbouring datasets, all scores move
    /// in the same direction (see *Guarantee* on [`Exponential`]).
    pub fn monotone(epsilon: Epsilon) -> Self {
        Self {
            epsilon,
            divisor: 1,
        }
    }

    /// The budget ε of one call.
    pub fn epsilon(&self) -> Epsilon {
        self.epsilon
    }

    /// Whether this is the monotone-score variant.
    pub fn is_monotone(&self) -> bool {
        self.divisor == 1
    }
}

impl Selector for Exponential {
    fn select(
        &self,
        scores: &[f64],
        sensitivity: Sensitivity,
        rng: &mut SecureRng,
    ) -> Result<Selection> {
        let index = sample_exponential(rng, scores, self.epsilon, sensitivity, self.divisor)?;
        Ok(Selection {
            index,
            margin: None,
        })
    }

    fn cost(&self) -> PrivacyCost {
        PrivacyCost::BoundedRange {
            epsilon: self.epsilon,
        }
    }

    fn name(&self) -> &'static str {
        if self.is_monotone() {
            "em-monotone"
        } else {
            "em"
        }
    }
}

/// Samples an index i with probability exactly proportional to exp(ε·qᵢ/(d·λ)), where
/// qᵢ = `scores[i]`, λ = `sensitivity` and d = `divisor` (an exact integer: 2 for the
/// standard exponential mechanism, 1 for monotone scores, 4 or 6 inside the large margin
/// mechanisms). Scores, ε and λ are read as the exact rationals their `f64` values store.
///
/// This is the sampler behind [`Exponential`]; see there for the algorithm and its
/// exactness proof. Its privacy is that of the mechanism that calls
/// it: ε-DP when d ≥ 2 and the scores have sensitivity λ (d = 1 needs monotone scores).
///
/// # Errors
/// [`Error::EmptyCandidates`] for an empty slice, [`Error::NonFiniteScore`] for the first
/// NaN or infinite score, [`Error::InvalidParameter`] for `divisor == 0`.
///
/// *Runtime*: O(n) to scan the scores plus an expected n/Σⱼexp(−xⱼ) ≤ n cheap proposals.
///
/// ```
/// use disguise::privacy::{Epsilon, Sensitivity};
/// use disguise::select::sample_exponential;
/// let mut rng = disguise::SecureRng::insecure_from_seed(7);
/// let scores = [1.0, 2.0, 3.0];
/// let i = sample_exponential(&mut rng, &scores, Epsilon::new(0.5)?, Sensitivity::new(1.0)?, 6)?;
/// assert!(i < 3);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn sample_exponential<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    scores: &[f64],
    epsilon: Epsilon,
    sensitivity: Sensitivity,
    divisor: u32,
) -> Result<usize> {
    if divisor == 0 {
        return Err(Error::param("divisor", "must be a positive integer, got 0"));
    }
    let q_max = checked_max(scores)?;
    if scores.len() == 1 {
        return Ok(0);
    }
    let weights = Weights::new(q_max, epsilon.get(), sensitivity.get(), divisor);
    let n = scores.len() as u64;
    let mut pool = BitPool::new(rng);
    if scores.len() <= SMALL {
        loop {
            let i = pool.uniform_below(n) as usize;
            if weights.accept(&mut pool, scores[i]) {
                return Ok(i);
            }
        }
    }
    // Large slices: draw a batch of proposals first so that their (random, cache-missing)
    // score loads are independent and overlap. Exactness is unaffected: proposals and
    // acceptance coins are all independent, and the first accepted proposal in order is
    // returned; unused proposals are simply discarded.
    loop {
        let mut idx = [0usize; BATCH];
        for slot in &mut idx {
            *slot = pool.uniform_below(n) as usize;
        }
        let vals = idx.map(|i| scores[i]);
        for (&i, &q) in idx.iter().zip(&vals) {
            if weights.accept(&mut pool, q) {
                return Ok(i);
            }
        }
    }
}

/// Slices up to this length (256 KiB of scores) are sampled one proposal at a time.
const SMALL: usize = 1 << 15;
/// Proposals per batch for larger slices.
const BATCH: usize = 16;

/// Relative error radius of x̂ = fl(ĉ·fl(q_max − q)) with ĉ = fl(ε / fl(d·λ)).
///
/// Proof: with u = 2⁻⁵³ and |θₖ| ≤ u, fl(d·λ) = dλ(1+θ₁), ĉ = c(1+θ₂)/(1+θ₁),
/// fl(q_max − q) = (q_max − q)(1+θ₃) (a difference that is subnormal is exact), and
/// x̂ = ĉ·δ̂·(1+θ₄) + η with |η| ≤ 2⁻¹⁰⁷⁵ if the product underflows. Hence
/// |x − x̂| ≤ ((1+u)³/(1−u) − 1)·x̂ + 2|η| ≤ 4.01u·x̂ + 2⁻¹⁰⁷⁴ — this needs fl(d·λ) and ĉ
/// to be normal numbers (checked, else the exact mode is used). [`TAU`] = 2⁻⁴⁶ ≈ 32·4u and
/// [`ALPHA`] = 2⁻¹⁰²⁰ leave ample slack for the rounding of the radius itself.
pub(crate) const TAU: f64 = 1.0 / 70_368_744_177_664.0; // 2⁻⁴⁶
/// Absolute error radius term covering underflow in x̂ (see [`TAU`]).
pub(crate) const ALPHA: f64 = f64::MIN_POSITIVE * 4.0; // 2⁻¹⁰²⁰, exactly
/// A certified integer part used when x̂ overflows (then x > 10³⁰⁸ ≥ 2⁴⁰).
pub(crate) const BIG_K: u64 = 1 << 40;

/// Validates the scores (non-empty, all finite) and returns the largest.
fn checked_max(scores: &[f64]) -> Result<f64> {
    if scores.is_empty() {
        return Err(Error::EmptyCandidates);
    }
    // Eight independent lanes so the compiler can vectorise the scan. `v * 0` is ±0 for
    // finite v and NaN for NaN or ±∞, so `bad` stays 0 exactly when all scores are finite.
    const LANES: usize = 8;
    let mut max = [f64::NEG_INFINITY; LANES];
    let mut bad = [0.0f64; LANES];
    let chunks = scores.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for j in 0..LANES {
            let v = chunk[j];
            max[j] = if v > max[j] { v } else { max[j] };
            bad[j] += v * 0.0;
        }
    }
    for (j, &v) in rest.iter().enumerate() {
        max[j] = if v > max[j] { v } else { max[j] };
        bad[j] += v * 0.0;
    }
    if bad.iter().any(|b| *b != 0.0) {
        let (index, &value) = scores
            .iter()
            .enumerate()
            .find(|(_, v)| !v.is_finite())
            .expect("a non-finite score exists");
        return Err(Error::NonFiniteScore { index, value });
    }
    Ok(max
        .iter()
        .fold(f64::NEG_INFINITY, |m, &v| if v > m { v } else { m }))
}

/// How acceptance probabilities are evaluated.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// ĉ and fl(d·λ) are normal `f64`s: the certified fast path applies.
    Fast,
    /// Extreme ε/λ (ε/(dλ) outside the normal `f64` range): every acceptance is computed
    /// with exact rationals. Correct but slow; no realistic parameters get here.
    Exact,
}

/// The per-call constants of the sampler.
struct Weights {
    q_max: f64,
    /// ĉ = fl(ε / fl(d·λ)).
    c_hat: f64,
    mode: Mode,
    epsilon: f64,
    lambda: f64,
    divisor: u32,
}

impl Weights {
    fn new(q_max: f64, epsilon: f64, lambda: f64, divisor: u32) -> Self {
        let d_lambda = f64::from(divisor) * lambda;
        let c_hat = epsilon / d_lambda;
        let mode = if d_lambda.is_normal() && c_hat.is_normal() {
            Mode::Fast
        } else {
            Mode::Exact
        };
        Self {
            q_max,
            c_hat,
            mode,
            epsilon,
            lambda,
            divisor,
        }
    }

    /// Bernoulli(exp(−x)) for x = ε·(q_max − q)/(d·λ), exactly.
    #[inline(always)]
    fn accept<R: Rng + CryptoRng + ?Sized>(&self, pool: &mut BitPool<'_, R>, q: f64) -> bool {
        let delta = self.q_max - q;
        if delta == 0.0 {
            // fl(a − b) = 0 only if a = b: x = 0, weight 1.
            return true;
        }
        if self.mode == Mode::Exact || delta.is_infinite() {
            return self.accept_cold(pool, q, delta);
        }
        let x_hat = self.c_hat * delta;
        if x_hat.is_infinite() {
            // ĉ·δ̂ ≥ f64::MAX, so x ≥ (1 − 2⁻⁵⁰)·f64::MAX > BIG_K.
            return pool.exp_neg_above(BIG_K, || self.exact_x(q));
        }
        pool.exp_neg_enclosed(x_hat, TAU, ALPHA, || self.exact_x(q))
    }

    /// The rare cases: extreme ε/λ (exact mode) or a score gap that overflows `f64`.
    #[cold]
    #[inline(never)]
    fn accept_cold<R: Rng + CryptoRng + ?Sized>(
        &self,
        pool: &mut BitPool<'_, R>,
        q: f64,
        delta: f64,
    ) -> bool {
        let mut k = 0u64;
        if self.mode == Mode::Fast && delta.is_infinite() {
            // The true gap exceeds f64::MAX, so x ≥ c·MAX. c_lo = fl(ĉ·(1 − 2⁻⁴⁸)) ≤ c and
            // fl(c_lo·MAX) ≤ c_lo·MAX·(1 + u) < c·MAX: a certified lower bound.
            let lower = (self.c_hat * (1.0 - 4.0 * TAU)) * f64::MAX;
            if lower >= 1.0 {
                k = lower.min(BIG_K as f64).floor() as u64;
            }
        }
        pool.exp_neg_above(k, || self.exact_x(q))
    }

    /// x = ε·(q_max − q)/(d·λ) as an exact fraction (num, den).
    #[cold]
    fn exact_x(&self, q: f64) -> (BigUint, BigUint) {
        let (_, me, ee) = f64_parts(self.epsilon);
        let (_, ml, el) = f64_parts(self.lambda);
        let (n1, m1, e1) = f64_parts(self.q_max);
        let (n2, m2, e2) = f64_parts(q);
        let e0 = e1.min(e2);
        let signed = |neg: bool, m: u64, shift: i32| {
            let v = BigInt::from(m) << shift as u32;
            if neg { -v } else { v }
        };
        let gap = signed(n1, m1, e1 - e0) - signed(n2, m2, e2 - e0);
        assert!(!gap.is_negative(), "q_max is the largest score");
        let mut num = BigUint::from(me) * gap.magnitude();
        let mut den = BigUint::from(ml) * self.divisor;
        let shift = ee + e0 - el;
        if shift >= 0 {
            num <<= shift as u32;
        } else {
            den <<= (-shift) as u32;
        }
        (num, den)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assert_rejects_bad_scores, eps, sens};

    #[test]
    fn the_error_radii_cover_the_proven_bound_with_slack() {
        // The proof of `TAU` bounds |x − x̂| by 4.01u·x̂ + 2⁻¹⁰⁷⁴ with u = 2⁻⁵³; the radii used
        // (here and in `maximize/base_sampler.rs`) must exceed both terms.
        let u = 2f64.powi(-53);
        assert_eq!(TAU, 2f64.powi(-46));
        assert!(TAU >= 30.0 * 4.01 * u); // 2⁻⁴⁶ = 128u ≈ 32·4u
        assert_eq!(ALPHA, 2f64.powi(-1020));
        assert!(ALPHA >= 2.0 * f64::from_bits(1));
        // x̂ overflowing means x > 10³⁰⁸, far above the certified integer part.
        assert!((BIG_K as f64) < 1e308);
    }
    use statrs::distribution::{ChiSquared, ContinuousCDF};

    /// Exact target probabilities in f64 (log-sum-exp; fine for testing).
    fn target(scores: &[f64], epsilon: f64, lambda: f64, divisor: u32) -> Vec<f64> {
        let logw: Vec<f64> = scores
            .iter()
            .map(|q| epsilon * q / (f64::from(divisor) * lambda))
            .collect();
        let m = logw.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = logw.iter().map(|l| (l - m).exp()).sum();
        logw.iter().map(|l| (l - m).exp() / z).collect()
    }

    /// Chi-square goodness of fit of `draws` samples against `target`; cells with expected
    /// count < 5 are pooled. Fails if the p-value is below 1e-4 (false-alarm rate 1e-4 per
    /// call).
    fn assert_fits(counts: &[u64], probs: &[f64], draws: u64) {
        let mut stat = 0.0;
        let mut cells = 0usize;
        let (mut pool_obs, mut pool_exp) = (0.0, 0.0);
        for (&c, &p) in counts.iter().zip(probs) {
            let e = p * draws as f64;
            if e < 5.0 {
                pool_obs += c as f64;
                pool_exp += e;
                continue;
            }
            stat += (c as f64 - e).powi(2) / e;
            cells += 1;
        }
        if pool_exp > 0.0 {
            if pool_exp >= 5.0 {
                stat += (pool_obs - pool_exp).powi(2) / pool_exp;
                cells += 1;
            } else {
                // Too rare to test by chi-square: require at most a handful of hits.
                assert!(
                    pool_obs <= 5.0 + 10.0 * pool_exp,
                    "rare cells hit {pool_obs} times"
                );
            }
        }
        assert!(cells >= 2, "need at least two testable cells");
        let p = 1.0 - ChiSquared::new((cells - 1) as f64).unwrap().cdf(stat);
        assert!(
            p > 1e-4,
            "chi-square {stat:.1} on {} df: p = {p:.2e}\n{counts:?}\n{probs:?}",
            cells - 1
        );
    }

    fn run(
        scores: &[f64],
        epsilon: f64,
        lambda: f64,
        divisor: u32,
        draws: u64,
        seed: u64,
    ) -> Vec<u64> {
        let mut rng = SecureRng::insecure_from_seed(seed);
        let mut counts = vec![0u64; scores.len()];
        for _ in 0..draws {
            let i =
                sample_exponential(&mut rng, scores, eps(epsilon), sens(lambda), divisor).unwrap();
            counts[i] += 1;
        }
        counts
    }

    #[test]
    fn all_equal_scores_are_uniform() {
        let scores = [3.5; 10];
        let counts = run(&scores, 1.0, 1.0, 2, 200_000, 11);
        assert_fits(&counts, &target(&scores, 1.0, 1.0, 2), 200_000);
    }

    #[test]
    fn spread_scores_match_the_mechanism() {
        // Gaps of 0–9 with ε/(2λ) = 0.35: probabilities from 0.30 down to 0.013.
        let scores = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
        let counts = run(&scores, 0.7, 1.0, 2, 200_000, 12);
        assert_fits(&counts, &target(&scores, 0.7, 1.0, 2), 200_000);
        // Near-ties below one unit of x (every proposal reaches the remainder path) and
        // non-integer, non-dyadic parameters.
        let scores = [0.1, 0.25, -0.3, 0.05, 0.2, 0.0, 0.17, -0.01, 0.3, 0.11];
        let counts = run(&scores, 1.3, 0.3, 2, 200_000, 13);
        assert_fits(&counts, &target(&scores, 1.3, 0.3, 2), 200_000);
    }

    #[test]
    fn a_gap_of_a_million_always_picks_the_winner() {
        let mut scores = vec![0.0; 10];
        scores[7] = 1e6;
        let mut rng = SecureRng::insecure_from_seed(14);
        // Every other candidate has probability e^(−500000): never.
        for _ in 0..10_000 {
            let i = sample_exponential(&mut rng, &scores, eps(1.0), sens(1.0), 2).unwrap();
            assert_eq!(i, 7);
        }
        // Extreme magnitudes: a gap that overflows f64 and one of 10^300 sensitivities.
        let scores = [-1.7e308, 1.7e308, 0.0];
        let i = sample_exponential(&mut rng, &scores, eps(1.0), sens(1.0), 2).unwrap();
        assert_eq!(i, 1);
        let scores = [0.0, 1e-300, 2e-300];
        let counts = run(&scores, 1.0, 1.0, 2, 30_000, 15);
        assert_fits(&counts, &[1.0 / 3.0; 3], 30_000);
    }

    #[test]
    fn monotone_mode_uses_eps_over_lambda() {
        let scores = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 0.25, 2.5, 1.25, 0.75];
        let mut rng = SecureRng::insecure_from_seed(16);
        let em = Exponential::monotone(eps(1.0));
        assert!(em.is_monotone());
        assert_eq!(em.name(), "em-monotone");
        let mut counts = vec![0u64; scores.len()];
        for _ in 0..200_000 {
            counts[em.select(&scores, sens(1.0), &mut rng).unwrap().index] += 1;
        }
        assert_fits(&counts, &target(&scores, 1.0, 1.0, 1), 200_000);
        // And it is *not* the standard mechanism's distribution (that one is flatter).
        let std_probs = target(&scores, 1.0, 1.0, 2);
        let expected_top = std_probs[5] * 200_000.0;
        assert!(counts[5] as f64 > expected_top * 1.3);
    }

    #[test]
    fn divisor_six_matches_its_distribution() {
        // 6λ is not exact in f64 for λ = 0.1: the divisor stays an exact integer.
        let scores = [0.0, 0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 2.8, 0.2, 1.0];
        let counts = run(&scores, 2.0, 0.1, 6, 200_000, 17);
        assert_fits(&counts, &target(&scores, 2.0, 0.1, 6), 200_000);
    }

    #[test]
    fn exact_mode_for_extreme_parameters() {
        // ε/(2λ) = 2.5e-309 is subnormal: the exact-rational mode must still be right.
        let scores = [0.0, 1e308, 5e307];
        let mut rng = SecureRng::insecure_from_seed(18);
        let mut counts = [0u64; 3];
        for _ in 0..30_000 {
            let i = sample_exponential(&mut rng, &scores, eps(5e-309), sens(1.0), 2).unwrap();
            counts[i] += 1;
        }
        // x = 2.5e-309·(1e308 − q): weights e^(−0.25), 1, e^(−0.125).
        let w = [(-0.25f64).exp(), 1.0, (-0.125f64).exp()];
        let z: f64 = w.iter().sum();
        assert_fits(&counts, &w.map(|v| v / z), 30_000);
    }

    #[test]
    fn ten_million_candidates_one_winner() {
        let mut scores: Vec<f64> = (0..10_000_000u64).map(|i| (i % 100) as f64).collect();
        scores[1_234_567] = 1e6;
        let mut rng = SecureRng::insecure_from_seed(19);
        for _ in 0..3 {
            let i = sample_exponential(&mut rng, &scores, eps(1.0), sens(1.0), 2).unwrap();
            assert_eq!(i, 1_234_567);
        }
    }

    #[test]
    fn ten_million_equal_candidates_are_spread_over_deciles() {
        let n = 10_000_000usize;
        let scores = vec![1.0; n];
        let mut rng = SecureRng::insecure_from_seed(20);
        // Each draw scans all 10⁷ scores (≈ 10 ms), so few draws: 20 expected per decile
        // (enough for the chi-square approximation).
        let draws = 200u64;
        let mut deciles = [0u64; 10];
        for _ in 0..draws {
            let i = sample_exponential(&mut rng, &scores, eps(1.0), sens(1.0), 2).unwrap();
            assert!(i < n);
            deciles[i * 10 / n] += 1;
        }
        assert_fits(&deciles, &[0.1; 10], draws);
    }

    #[test]
    fn errors_are_typed() {
        let em = Exponential::new(eps(1.0));
        assert_rejects_bad_scores(&em);
        assert_rejects_bad_scores(&Exponential::monotone(eps(1.0)));
        let mut rng = SecureRng::insecure_from_seed(21);
        assert!(matches!(
            sample_exponential(&mut rng, &[1.0], eps(1.0), sens(1.0), 0),
            Err(Error::InvalidParameter {
                name: "divisor",
                ..
            })
        ));
        assert_eq!(em.cost(), PrivacyCost::BoundedRange { epsilon: eps(1.0) });
        assert_eq!(em.select(&[4.0], sens(1.0), &mut rng).unwrap().index, 0);
    }

    /// The error radius the fast path relies on (|x − x̂| ≤ TAU·x̂ + ALPHA, see [`TAU`]) holds
    /// in exact arithmetic for random and extreme ε, λ, d and scores.
    #[test]
    fn fast_path_error_radius_holds() {
        use crate::noise::bernoulli::f64_to_ratio;
        use num_bigint::BigInt;
        use num_rational::BigRational;
        use rand_core::Rng;
        let ratio = |v: f64| {
            let (n, d) = f64_to_ratio(v);
            BigRational::new(BigInt::from(n), BigInt::from(d))
        };
        let mut rng = SecureRng::insecure_from_seed(22);
        let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let mut checked = 0;
        for t in 0..20_000 {
            let pow = |e: f64| 2f64.powf(e);
            let epsilon = (0.5 + unit()) * pow((unit() * 80.0 - 40.0).round());
            let lambda = (0.5 + unit()) * pow((unit() * 80.0 - 40.0).round());
            let divisor = [1u32, 2, 3, 4, 6, 7][t % 6];
            let scale = pow((unit() * 2000.0 - 1000.0).round());
            let (q_max, q) = match t % 4 {
                0 => (unit() * scale, -unit() * scale),
                1 => (1e300, 1e300 * (1.0 - unit() * 1e-10)),
                2 => (5e-324 * (t as f64), 0.0),
                _ => (unit() * 100.0, unit() * 100.0 - 100.0),
            };
            let w = Weights::new(q_max, epsilon, lambda, divisor);
            let delta = q_max - q;
            let x_hat = w.c_hat * delta;
            if w.mode != Mode::Fast || !delta.is_finite() || !x_hat.is_finite() {
                continue;
            }
            let (num, den) = w.exact_x(q);
            let x = BigRational::new(BigInt::from(num), BigInt::from(den));
            let radius = ratio(x_hat) * ratio(TAU) + ratio(ALPHA);
            let diff = &x - ratio(x_hat);
            let diff = if diff < BigRational::from_integer(BigInt::from(0)) {
                -diff
            } else {
                diff
            };
            assert!(
                diff <= radius,
                "eps {epsilon:e} lambda {lambda:e} d {divisor} {q_max:e} {q:e}"
            );
            checked += 1;
        }
        assert!(checked > 15_000);
    }

    /// The exact fraction built for the slow path equals ε·(q_max − q)/(d·λ).
    #[test]
    fn exact_x_is_exact() {
        let w = Weights::new(3.0, 0.75, 0.5, 6);
        let (num, den) = w.exact_x(-1.0);
        // 0.75·4/(6·0.5) = 1
        assert_eq!(num, den);
        let w = Weights::new(1e-300, 2.0, 1.0, 2);
        let (num, den) = w.exact_x(-1e-300);
        // x = 2e-300 as the exact sum of the two stored doubles.
        let (a, b) = crate::noise::bernoulli::f64_to_ratio(1e-300);
        assert_eq!(num * &b, a * 2u32 * den);
    }
}
