//! The exponential mechanism over explicit candidates plus a *block* of many candidates that
//! all share one score, sampled exactly without enumerating the block.
//!
//! Private frequent-itemset mining needs this: over the universe of all C(|I|, r) itemsets of
//! size r, every itemset that does not occur in the data has frequency 0, so the mechanism's
//! weight on them is (number of such itemsets) × exp(0). The block can hold billions of
//! candidates (or more: its size is a [`BigUint`]); the explicit candidates are the itemsets
//! that occur.

use crate::error::{Error, Result};
use crate::noise::scaled_exp::ScaledExpCoin;
use crate::numeric::round::{add_up, div_up, mul_up};
use crate::privacy::{Epsilon, Sensitivity};
use crate::select::sample_exponential;
use num_bigint::{BigInt, BigUint};
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive, Zero};
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
/// y = ε(q_rep − q_b)/(dλ), with m·e^{−y} ≤ 1 certified by [`exp_neg_enclosure`](crate::noise::scaled_exp::exp_neg_enclosure).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::gof::chi_square;
    use crate::noise::SecureRng;
    use crate::testing::{eps, sens};
    use num_traits::One;

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
