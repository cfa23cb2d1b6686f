//! Pearson's chi-square goodness-of-fit test of sampled counts against exact probabilities.
//!
//! Part 1 of the audit: for small instances whose output distribution can be computed exactly
//! (see [`crate::audit::exact`]), draw many samples and test them against it. A correct
//! sampler yields p-values that are uniform on [0, 1]; a test that rejects at `p < 1e-4` has a
//! false-alarm rate of 1e-4 per call.

use crate::error::{Error, Result};
use statrs::function::gamma::gamma_ur;

/// The outcome of [`chi_square`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ChiSquare {
    /// Pearson's statistic Σ (observed − expected)² / expected over the (pooled) bins;
    /// infinite when an outcome of probability zero was observed.
    pub statistic: f64,
    /// Degrees of freedom: number of bins after pooling, minus one.
    pub degrees_of_freedom: usize,
    /// `P[χ²(dof) ≥ statistic]`: small values are evidence against the claimed distribution.
    pub p_value: f64,
}

/// Tests observed counts against claimed probabilities.
///
/// `observed[i]` is how often outcome `i` occurred; `probabilities[i]` its claimed probability
/// (non-negative, summing to 1 within 1e-9). Bins with an expected count below 5 are pooled
/// into one bin (the usual validity condition of the χ² approximation); an observation of an
/// outcome with probability exactly zero gives statistic ∞ and p-value 0.
///
/// ```
/// use disguise::audit::gof::chi_square;
/// let test = chi_square(&[2_520, 2_480, 5_000], &[0.25, 0.25, 0.5])?;
/// assert_eq!(test.degrees_of_freedom, 2);
/// assert!(test.p_value > 0.5);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// Errors on mismatched or empty slices, invalid probabilities, zero total count, or when
/// fewer than two bins remain after pooling (the test would have no degrees of freedom).
pub fn chi_square(observed: &[u64], probabilities: &[f64]) -> Result<ChiSquare> {
    if observed.len() != probabilities.len() {
        return Err(Error::param(
            "probabilities",
            format!(
                "{} probabilities for {} observed counts",
                probabilities.len(),
                observed.len()
            ),
        ));
    }
    if let Some((i, &p)) = probabilities
        .iter()
        .enumerate()
        .find(|(_, p)| !(p.is_finite() && **p >= 0.0))
    {
        return Err(Error::param(
            "probabilities",
            format!("entry {i} is {p}, not a probability"),
        ));
    }
    let total_p: f64 = probabilities.iter().sum();
    if (total_p - 1.0).abs() > 1e-9 {
        return Err(Error::param(
            "probabilities",
            format!("sum to {total_p}, not 1"),
        ));
    }
    let n: u64 = observed.iter().sum();
    if n == 0 {
        return Err(Error::param("observed", "no observations"));
    }
    let n = n as f64;

    let mut statistic = 0.0;
    let mut bins = 0usize;
    let (mut pooled_observed, mut pooled_expected) = (0.0, 0.0);
    for (&o, &p) in observed.iter().zip(probabilities) {
        let expected = p * n;
        if p == 0.0 {
            if o > 0 {
                // An impossible outcome happened: the claimed distribution is refuted outright.
                return Ok(ChiSquare {
                    statistic: f64::INFINITY,
                    degrees_of_freedom: observed.len().saturating_sub(1),
                    p_value: 0.0,
                });
            }
            continue;
        }
        if expected < 5.0 {
            pooled_observed += o as f64;
            pooled_expected += expected;
            continue;
        }
        statistic += (o as f64 - expected).powi(2) / expected;
        bins += 1;
    }
    if pooled_expected > 0.0 {
        statistic += (pooled_observed - pooled_expected).powi(2) / pooled_expected;
        bins += 1;
    }
    if bins < 2 {
        return Err(Error::param(
            "observed",
            "fewer than two bins with enough expected count; draw more samples",
        ));
    }
    let degrees_of_freedom = bins - 1;
    let p_value = if statistic <= 0.0 {
        1.0
    } else {
        gamma_ur(degrees_of_freedom as f64 / 2.0, statistic / 2.0)
    };
    Ok(ChiSquare {
        statistic,
        degrees_of_freedom,
        p_value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_p_values() {
        // One degree of freedom, statistic 3.841459 → p = 0.05.
        // observed (60, 40), expected (50, 50): statistic = 2·100/50 = 4 → p = 0.0455.
        let t = chi_square(&[60, 40], &[0.5, 0.5]).unwrap();
        assert!((t.statistic - 4.0).abs() < 1e-12);
        assert!((t.p_value - 0.045_500_26).abs() < 1e-6, "{t:?}");
        // Perfect fit.
        let t = chi_square(&[25, 25, 50], &[0.25, 0.25, 0.5]).unwrap();
        assert_eq!(t.statistic, 0.0);
        assert_eq!(t.p_value, 1.0);
    }

    #[test]
    fn pools_small_bins_and_refutes_impossible_outcomes() {
        // Expected counts 1, 1, 98 with n = 100: the two small bins pool into one.
        let t = chi_square(&[1, 1, 98], &[0.01, 0.01, 0.98]).unwrap();
        assert_eq!(t.degrees_of_freedom, 1);
        let t = chi_square(&[1, 99], &[0.0, 1.0]).unwrap();
        assert_eq!(t.p_value, 0.0);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(chi_square(&[1, 2], &[0.5]).is_err());
        assert!(chi_square(&[1, 2], &[0.5, 0.6]).is_err());
        assert!(chi_square(&[1, 2], &[f64::NAN, 0.5]).is_err());
        assert!(chi_square(&[0, 0], &[0.5, 0.5]).is_err());
        assert!(chi_square(&[3], &[1.0]).is_err());
    }
}
