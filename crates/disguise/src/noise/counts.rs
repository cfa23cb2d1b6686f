//! Noisy counts: a vector of integer counts with independent discrete Laplace or discrete
//! Gaussian noise on each, sampled exactly. The synthesizer's marginals and the private
//! bin edges' cell counts are measured this way.

use crate::error::{Error, Result};
use crate::noise::{DiscreteGaussian, DiscreteLaplace, SecureRng};
use serde::Serialize;

/// How one measurement adds noise to each count.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CountNoise {
    /// Discrete Laplace with P(z) ∝ exp(−|z|/scale).
    Laplace {
        /// The scale t (an integer-valued query of L1 sensitivity Δ₁ is (Δ₁/t)-DP).
        scale: f64,
    },
    /// Discrete Gaussian N_ℤ(0, σ²).
    Gaussian {
        /// σ² (an integer-valued query of L2 sensitivity Δ₂ is Δ₂²/(2σ²)-zCDP).
        variance: f64,
    },
}

impl CountNoise {
    /// The variance of one noisy count (2t² for the Laplace; at most σ² for the discrete
    /// Gaussian, CKS 2020 Proposition 19), the weight of the measurement in the fit.
    pub fn variance(&self) -> f64 {
        match *self {
            CountNoise::Laplace { scale } => 2.0 * scale * scale,
            CountNoise::Gaussian { variance } => variance,
        }
    }

    /// `counts` plus independent noise, exactly (integers).
    ///
    /// # Errors
    /// An invalid scale; a noisy count beyond `i64`.
    pub fn measure(&self, counts: &[u64], rng: &mut SecureRng) -> Result<Vec<f64>> {
        enum Sampler {
            L(DiscreteLaplace),
            G(DiscreteGaussian),
        }
        let sampler = match *self {
            CountNoise::Laplace { scale } => {
                let (num, den) = crate::noise::bernoulli::f64_to_ratio(scale);
                Sampler::L(DiscreteLaplace::new(num, den)?)
            }
            CountNoise::Gaussian { variance } => Sampler::G(DiscreteGaussian::new(variance)?),
        };
        counts
            .iter()
            .map(|&c| {
                let z: i128 = match &sampler {
                    Sampler::L(l) => l.sample_i128(rng).ok_or_else(|| {
                        Error::Overflow("discrete Laplace sample beyond i128".into())
                    })?,
                    Sampler::G(g) => i128::from(g.sample(rng)?),
                };
                // Exact integer sum; a double holds it exactly below 2⁵³.
                Ok((i128::from(c) + z) as f64)
            })
            .collect()
    }
}
