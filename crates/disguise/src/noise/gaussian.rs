//! The exact discrete Gaussian distribution on ℤ (Canonne, Kamath, Steinke 2020): the noise of
//! the Gaussian mechanism on integer counts, ρ-zCDP without any floating-point step.

use super::bernoulli::{bernoulli_exp_neg, f64_to_ratio};
use super::laplace::DiscreteLaplace;
use crate::error::{Error, Result};
use num_bigint::{BigInt, BigUint};
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive};
use rand_core::{CryptoRng, Rng};

/// The discrete Gaussian N_ℤ(0, σ²) with exact rational variance parameter σ²:
/// P(Z = z) ∝ exp(−z²/(2σ²)) for z ∈ ℤ.
///
/// # Privacy
/// Adding independent N_ℤ(0, σ²) noise to each coordinate of an integer-valued query q with
/// ‖q(D) − q(D′)‖₂ ≤ Δ₂ between neighbours is (Δ₂²/(2σ²))-zCDP (Canonne, Kamath, Steinke
/// 2020, Theorems 4 and 14): the same ρ as the continuous Gaussian mechanism, with no
/// rounding of the output.
///
/// # Algorithm
/// CKS 2020, Algorithm 3: with t = ⌊σ⌋ + 1, draw Y from the discrete Laplace of scale t
/// ([`DiscreteLaplace`]) and accept it with probability exp(−(|Y| − σ²/t)²/(2σ²)); the
/// accepted Y has exactly the discrete Gaussian law.
///
/// # Exactness
/// Exact: σ² is the exact value of the double it is given (a dyadic rational), t is computed
/// from it in integers, and the acceptance coin is Bernoulli(exp(−x)) of the exact rational x
/// ([`bernoulli_exp_neg`]).
///
/// # Runtime
/// At most about 1.5 expected rounds (CKS 2020, Proposition 6 for t = ⌊σ⌋ + 1), each a
/// discrete Laplace draw and one big-rational coin.
///
/// ```
/// use disguise::noise::{DiscreteGaussian, SecureRng};
/// let mut rng = SecureRng::insecure_from_seed(1);
/// let g = DiscreteGaussian::new(25.0)?; // σ = 5
/// let z = g.sample(&mut rng)?;
/// assert!(z.abs() < 200);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscreteGaussian {
    /// σ² as an exact fraction.
    variance: BigRational,
    /// t = ⌊σ⌋ + 1, the scale of the proposal.
    t: BigUint,
    proposal: DiscreteLaplace,
}

impl DiscreteGaussian {
    /// The discrete Gaussian with variance parameter `sigma2` = σ² (read exactly).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless σ² is finite and positive.
    pub fn new(sigma2: f64) -> Result<Self> {
        if !(sigma2.is_finite() && sigma2 > 0.0) {
            return Err(Error::param(
                "sigma2",
                format!("the discrete Gaussian's σ² must be finite and positive, got {sigma2}"),
            ));
        }
        let (num, den) = f64_to_ratio(sigma2);
        // ⌊σ⌋ = ⌊√(num/den)⌋ = the integer square root of ⌊num/den⌋ (√⌊x⌋ and √x have the
        // same floor), computed exactly.
        let floor_sigma = (&num / &den).sqrt();
        let t = floor_sigma + BigUint::one();
        let proposal = DiscreteLaplace::new(t.clone(), BigUint::one())?;
        Ok(Self {
            variance: BigRational::new(BigInt::from(num), BigInt::from(den)),
            t,
            proposal,
        })
    }

    /// σ², as the double it was made from.
    pub fn variance(&self) -> f64 {
        self.variance.to_f64().unwrap_or(f64::INFINITY)
    }

    /// The ρ of one coordinate of sensitivity `l2` (Δ₂): Δ₂²/(2σ²), rounded up.
    pub fn rho(&self, l2_squared: f64) -> f64 {
        use crate::numeric::round::div_up;
        div_up(l2_squared, 2.0 * self.variance())
    }

    /// One sample.
    ///
    /// # Errors
    /// [`Error::Overflow`] if the sample does not fit in an `i64` (a probability below
    /// exp(−2⁶²/σ²), never in practice).
    pub fn sample<R: Rng + CryptoRng + ?Sized>(&self, rng: &mut R) -> Result<i64> {
        let t = BigRational::from_integer(BigInt::from(self.t.clone()));
        let shift = &self.variance / &t; // σ²/t
        let two_var = &self.variance * BigRational::from_integer(BigInt::from(2));
        loop {
            let y = self.proposal.sample(rng);
            let d = BigRational::from_integer(y.abs()) - &shift;
            let x = &d * &d / &two_var;
            if bernoulli_exp_neg(rng, &x) {
                return y
                    .to_i64()
                    .ok_or_else(|| Error::Overflow("discrete Gaussian sample beyond i64".into()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::SecureRng;
    use crate::noise::gof::chi_square_test;

    #[test]
    fn the_law_is_the_discrete_gaussian() {
        // σ² = 2.5: cells −6..=6 plus both tails pooled. False alarm 10⁻⁴ per test.
        for (seed, sigma2) in [(11u64, 2.5f64), (12, 0.3), (13, 40.0)] {
            let g = DiscreteGaussian::new(sigma2).unwrap();
            let mut rng = SecureRng::insecure_from_seed(seed);
            let half = (4.0 * sigma2.sqrt()).ceil() as i64 + 1;
            let cells = (2 * half + 1) as usize;
            let weight = |z: i64| (-(z as f64).powi(2) / (2.0 * sigma2)).exp();
            let total: f64 = (-200 * half..=200 * half).map(weight).sum();
            let mut probs: Vec<f64> = (-half..=half).map(|z| weight(z) / total).collect();
            // The outer cells hold their tails.
            let tail: f64 = (half + 1..=200 * half).map(weight).sum::<f64>() / total;
            probs[0] += tail;
            probs[cells - 1] += tail;
            let mut observed = vec![0u64; cells];
            for _ in 0..40_000 {
                let z = g.sample(&mut rng).unwrap().clamp(-half, half);
                observed[(z + half) as usize] += 1;
            }
            chi_square_test(&observed, &probs, 1e-4);
        }
    }

    #[test]
    fn bad_variances_are_refused() {
        for v in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(DiscreteGaussian::new(v).is_err(), "{v}");
        }
        assert!((DiscreteGaussian::new(8.0).unwrap().rho(2.0) - 0.125).abs() < 1e-15);
    }
}
