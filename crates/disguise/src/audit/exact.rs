//! Exact output distributions of small mechanisms, for goodness-of-fit tests.
//!
//! These are *reference* computations in `f64` (log-sum-exp, relative error ~1e-15), written
//! independently of the samplers they check: the samplers draw without ever forming these
//! probabilities, so agreement is evidence that both are right.

use crate::error::{Error, Result};
use crate::privacy::{Epsilon, Sensitivity};

/// The exact output distribution of the exponential mechanism:
/// `P[i] ∝ exp(ε · q_i / (divisor · λ))`.
///
/// `divisor = 2` is the standard mechanism (ε-DP for scores of sensitivity λ), `divisor = 1`
/// the monotone variant (ε-DP when all scores move in the same direction between neighbours).
///
/// ```
/// use disguise::audit::exact::exponential_probabilities;
/// use disguise::privacy::{Epsilon, Sensitivity};
/// let p = exponential_probabilities(&[0.0, 2.0], Epsilon::new(1.0)?, Sensitivity::new(1.0)?, 2)?;
/// assert!((p[1] / p[0] - 1f64.exp()).abs() < 1e-12);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// Errors on an empty or non-finite score vector and on `divisor = 0`.
pub fn exponential_probabilities(
    scores: &[f64],
    epsilon: Epsilon,
    sensitivity: Sensitivity,
    divisor: u32,
) -> Result<Vec<f64>> {
    if scores.is_empty() {
        return Err(Error::EmptyCandidates);
    }
    if let Some(index) = scores.iter().position(|s| !s.is_finite()) {
        return Err(Error::NonFiniteScore {
            index,
            value: scores[index],
        });
    }
    if divisor == 0 {
        return Err(Error::param("divisor", "must be at least 1"));
    }
    let scale = epsilon.get() / (f64::from(divisor) * sensitivity.get());
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // Subtracting the maximum keeps every exponent ≤ 0: no overflow, and the largest weight is 1.
    let weights: Vec<f64> = scores.iter().map(|&q| ((q - max) * scale).exp()).collect();
    let total: f64 = weights.iter().sum();
    Ok(weights.into_iter().map(|w| w / total).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_and_normalisation() {
        let eps = Epsilon::new(0.7).unwrap();
        let lambda = Sensitivity::new(2.0).unwrap();
        let scores = [1.0, -3.0, 4.5, 4.5, 1e6];
        for divisor in [1, 2] {
            let p = exponential_probabilities(&scores[..4], eps, lambda, divisor).unwrap();
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-14);
            let expect = (0.7 * 4.0 / (f64::from(divisor) * 2.0)).exp();
            assert!((p[0] / p[1] / expect - 1.0).abs() < 1e-12);
            assert_eq!(p[2], p[3]);
        }
        // A huge score does not overflow: it takes (almost) all the mass.
        let p = exponential_probabilities(&scores, eps, lambda, 2).unwrap();
        assert!(p[4] > 1.0 - 1e-12 && p.iter().all(|x| x.is_finite()));
    }

    #[test]
    fn rejects_bad_input() {
        let eps = Epsilon::new(1.0).unwrap();
        let lambda = Sensitivity::new(1.0).unwrap();
        assert!(exponential_probabilities(&[], eps, lambda, 2).is_err());
        assert!(exponential_probabilities(&[f64::NAN], eps, lambda, 2).is_err());
        assert!(exponential_probabilities(&[1.0], eps, lambda, 0).is_err());
    }
}
