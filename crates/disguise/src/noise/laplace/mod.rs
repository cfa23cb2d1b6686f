//! The Laplace distribution, sampled exactly: the discrete Laplace on ℤ with a rational scale,
//! and a float-safe continuous Laplace built on it, with its upper tail.
//!
//! # Why not `shift − b·ln(U)`?
//! The textbook sampler `shift + b·sign·ln(U)` evaluated in floating point does not output a
//! Laplace variable: the set of doubles it can return, and their probabilities, depend on
//! `shift` through the floating-point lattice, so an observer can tell neighbouring inputs
//! apart from a single output with non-negligible probability, breaking ε-DP entirely
//! (Mironov, "On Significance of the Least Significant Bits for Differential Privacy",
//! CCS 2012).
//!
//! # The construction used here (float-safe Laplace)
//! We follow the approach of OpenDP (`sample_discrete_laplace_Z2k`) and Google's DP
//! libraries: noise lives on a power-of-two grid g·ℤ, g = 2^k, and is sampled *exactly*.
//!
//! 1. The grid g = 2^k depends only on the public `scale` b: by default
//!    k = ⌊log2 b⌋ − [`LAPLACE_GRID_BITS`] (so b/g ∈ [2^40, 2^41)), clamped to k ≥ −1074 (the
//!    smallest subnormal). [`Laplace::with_granularity_exponent`] picks another k; k = −1074
//!    reproduces OpenDP's default (every double is on the grid, so no rounding of the input
//!    at all) at the price of ~1100-bit integer arithmetic.
//! 2. The input `shift` is rounded to the nearest multiple of g (ties towards +∞) *exactly*,
//!    from the double's integer mantissa and exponent: n = round(shift/g) ∈ ℤ.
//! 3. Z ~ DiscreteLaplace(b/g) — P(Z = z) ∝ exp(−|z|·g/b) — is drawn exactly with integers
//!    only (Canonne, Kamath, Steinke, NeurIPS 2020, Algorithm 2; b/g is an exact rational
//!    because b is a double and g a power of two).
//! 4. The exact value g·(n + Z) is converted to the nearest double (ties to even). This is
//!    deterministic post-processing of the exact integer n + Z; in particular it is exact
//!    (no rounding at all) whenever |n + Z| < 2^53, i.e. |output| < 2^53·g, which is more
//!    than 4096·b with the default grid.
//!
//! # Privacy consequence of the grid (read this if you build a mechanism)
//! g·(n + Z) with n = round(x/g) is the discrete Laplace mechanism applied to the integer
//! query n. If |x − x'| ≤ λ then |round(x/g) − round(x'/g)| ≤ λ/g + 1, so the mechanism is
//! ε-DP with **ε = (λ + g)/b**, not λ/b: rounding the input can add up to one grid step to the
//! sensitivity. With the default grid g ≤ b·2^−40, so the increase in ε is at most 2^−40.
//! Mechanisms must account for it: use [`Laplace::epsilon`] / [`laplace_epsilon`] (which
//! return (λ + g)/b rounded up) or [`laplace_scale_for`] (the scale that achieves a target ε
//! including the relaxation), or add [`Laplace::sensitivity_relaxation`] to λ themselves. For
//! k = −1074 the relaxation is 0 because every double is already on the grid.
//!
//! Runtime is not constant: it depends on the noise drawn (never on the input beyond its
//! size class), and no timing side-channel protection is claimed.
//!
//! # Contents
//! * [`DiscreteLaplace`], [`discrete_laplace`], [`discrete_laplace_u64`]: exact discrete
//!   Laplace on ℤ with a rational scale.
//! * [`Laplace`], [`laplace`]: the float-safe Laplace; [`laplace_granularity`],
//!   [`laplace_epsilon`], [`laplace_scale_for`] for privacy accounting of the grid.
//! * Upper tail beyond τ ≥ 0: [`Laplace::sample_upper_tail`] / [`laplace_upper_tail`]
//!   (exact conditional sample, O(1) for any τ), [`Laplace::upper_tail_probability`] (f64),
//!   [`Laplace::upper_tail_probability_bounds`] (rigorous, any precision), and
//!   [`Laplace::upper_tail_count`] (exact Binomial(n, P(noise > τ)), for sparse histograms).

use crate::error::{Error, Result};
use crate::numeric::bits::{decompose, pow2};
use crate::numeric::round::{add_up, div_up};
use num_bigint::BigUint;
use num_traits::One;
use rand_core::{CryptoRng, Rng};

use super::binomial::count_successes;

/// Default grid resolution of [`Laplace`]: the grid step is the largest power of two
/// ≤ scale·2^−40, so there are between 2^40 and 2^41 grid points per unit of scale.
pub const LAPLACE_GRID_BITS: i32 = 40;

/// Smallest allowed grid exponent: 2^−1074 is the smallest positive (subnormal) double.
pub const MIN_GRID_EXPONENT: i32 = -1074;

mod discrete;
mod exact_int;
mod tail;

pub use discrete::{DiscreteLaplace, discrete_laplace, discrete_laplace_u64};
pub(crate) use exact_int::{Int, Rounding};
use exact_int::{round_to_grid, shift_left_int};
use tail::TailQ;

// ---------------------------------------------------------------------------------------
// Float-safe Laplace
// ---------------------------------------------------------------------------------------

/// The float-safe Laplace distribution with scale b on the grid g·ℤ (see the
/// [module documentation](self) for the construction and why it is needed).
///
/// # Precision
/// Outputs are (the nearest doubles to) multiples of the granularity g = 2^k, with
/// k = ⌊log2 b⌋ − 40 by default ([`Laplace::granularity`]). The grid distribution is exactly
/// P(output = g·(n + z)) ∝ exp(−|z|·g/b) with n = round(shift/g); its CDF differs from the
/// continuous Laplace CDF by at most g/b ≤ 2^−40. The final conversion to a double is exact
/// when |output| < 2^53·g (> 4096·b by default) and round-to-nearest-even beyond.
///
/// # Privacy
/// Adding this noise to a query of sensitivity λ is ε-DP with ε = (λ + g)/b (the rounding of
/// the input to the grid can add one grid step to λ); [`Laplace::epsilon`] computes it,
/// rounded up. Draw from a secure [`super::SecureRng`].
///
/// # Runtime
/// O(1) expected machine operations per sample for default grids and inputs with
/// |shift| < 2^73·g; big-integer arithmetic otherwise (still O(1) expected operations).
///
/// ```
/// use disguise::noise::{Laplace, SecureRng};
/// let mut rng = SecureRng::insecure_from_seed(5);
/// let lap = Laplace::new(2.0)?;
/// let noisy = lap.sample(&mut rng, 100.0)?;
/// // Every output is on the public grid, whatever the shift was.
/// assert_eq!((noisy / lap.granularity()).fract(), 0.0);
/// // ε for a sensitivity-1 query, including the grid relaxation.
/// assert!(lap.epsilon(1.0)? > 0.5 && lap.epsilon(1.0)? < 0.5 + 1e-12);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Laplace {
    scale: f64,
    k: i32,
    discrete: DiscreteLaplace,
}

impl Laplace {
    /// Laplace with scale `scale` on the default grid 2^(⌊log2 scale⌋ − 40) (at least
    /// 2^−1074).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `scale` is finite and > 0.
    pub fn new(scale: f64) -> Result<Self> {
        let k = default_grid_exponent(scale)?;
        Self::with_granularity_exponent(scale, k)
    }

    /// Laplace with scale `scale` on the grid 2^k·ℤ, −1074 ≤ k ≤ 1023. A coarser grid
    /// (larger k) increases the sensitivity relaxation g; k = −1074 makes it zero.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `scale` is finite and > 0 and k is in range.
    pub fn with_granularity_exponent(scale: f64, k: i32) -> Result<Self> {
        validate_scale(scale)?;
        if !(MIN_GRID_EXPONENT..=1023).contains(&k) {
            return Err(Error::param(
                "granularity exponent",
                format!("must be in [-1074, 1023], got {k}"),
            ));
        }
        // scale = m·2^e exactly; scale/2^k = m·2^(e−k) is an exact rational.
        let (m, e) = decompose(scale);
        let m = m as u64;
        let tz = m.trailing_zeros();
        let (m, e) = (m >> tz, e + tz as i32);
        let d = e - k;
        let discrete = if d >= 0 {
            if (d as u32) < m.leading_zeros() {
                DiscreteLaplace::from_u64(m << d, 1)?
            } else {
                DiscreteLaplace::new(BigUint::from(m) << (d as u32), BigUint::one())?
            }
        } else if -d < 64 {
            DiscreteLaplace::from_u64(m, 1u64 << (-d))?
        } else {
            DiscreteLaplace::new(BigUint::from(m), BigUint::one() << ((-d) as u32))?
        };
        Ok(Self { scale, k, discrete })
    }

    /// The scale b.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The grid exponent k (granularity 2^k).
    pub fn granularity_exponent(&self) -> i32 {
        self.k
    }

    /// The granularity g = 2^k: every output is a multiple of it (before the final
    /// conversion to a double, which is exact below 2^53·g).
    pub fn granularity(&self) -> f64 {
        pow2(self.k)
    }

    /// How much the grid rounding can add to a query's sensitivity: g, or 0 when k = −1074
    /// (every double is then on the grid and the input is not rounded).
    pub fn sensitivity_relaxation(&self) -> f64 {
        if self.k == MIN_GRID_EXPONENT {
            0.0
        } else {
            self.granularity()
        }
    }

    /// The pure-DP ε of adding this noise to a query of sensitivity λ ≥ 0:
    /// (λ + relaxation)/b, rounded up (so it is never an underestimate).
    ///
    /// # Errors
    /// [`Error::InvalidSensitivity`] unless λ is finite and ≥ 0.
    pub fn epsilon(&self, sensitivity: f64) -> Result<f64> {
        if !(sensitivity.is_finite() && sensitivity >= 0.0) {
            return Err(Error::InvalidSensitivity(sensitivity));
        }
        let numerator = add_up(sensitivity, self.sensitivity_relaxation());
        Ok(div_up(numerator, self.scale))
    }

    /// One sample of `shift` + Laplace(b) noise on the grid (see the type's docs).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `shift` is not finite. (A result beyond the double
    /// range, possible only when |shift| + noise > 1.8e308, is returned as ±∞.)
    pub fn sample<R: Rng + CryptoRng + ?Sized>(&self, rng: &mut R, shift: f64) -> Result<f64> {
        if !shift.is_finite() {
            return Err(Error::param(
                "shift",
                format!("must be finite, got {shift}"),
            ));
        }
        let n = round_to_grid(shift, self.k);
        let z = self.discrete.sample_int(rng);
        Ok(n.add(z).to_f64(self.k, Rounding::NearestEven))
    }

    /// One sample of Laplace(b) noise around 0 (same as `sample(rng, 0.0)`).
    pub fn sample_noise<R: Rng + CryptoRng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.discrete
            .sample_int(rng)
            .to_f64(self.k, Rounding::NearestEven)
    }

    /// The first grid index strictly above τ: z₀ = ⌊τ/g⌋ + 1, so that "noise > τ" is exactly
    /// "Z ≥ z₀" for the grid noise g·Z.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless τ is finite and ≥ 0.
    pub fn upper_tail_start(&self, tau: f64) -> Result<BigUint> {
        Ok(self.tail_start_int(tau)?.into_bigint().magnitude().clone())
    }

    fn tail_start_int(&self, tau: f64) -> Result<Int> {
        validate_tau(tau)?;
        let (m, e) = decompose(tau);
        let m = m as u64; // τ ≥ 0
        let floor = if e >= self.k {
            shift_left_int(m as i128, (e - self.k) as u32)
        } else {
            let d = (self.k - e) as u32;
            Int::Small(if d >= 64 { 0 } else { (m >> d) as i128 })
        };
        Ok(floor.add(Int::Small(1)))
    }

    /// One sample of the grid Laplace(0, b) noise **conditioned on exceeding τ** (τ ≥ 0).
    ///
    /// # Exactness
    /// Exact for the grid distribution: by memorylessness of the discrete Laplace's tail,
    /// Z | Z ≥ z₀ equals z₀ + Y with Y geometric, P(Y ≥ y) = exp(−y·g/b), drawn exactly. The
    /// result g·(z₀ + Y) is converted to a double rounding **up**, so it is always > τ; the
    /// conversion is exact whenever the result is < 2^53·g (> 4096·b by default), i.e. the
    /// output has exactly the law of [`Laplace::sample_noise`] given "> τ" there.
    ///
    /// # Runtime
    /// O(1) expected, independent of τ (τ = 1000·b costs the same as τ = 0).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless τ is finite and ≥ 0.
    pub fn sample_upper_tail<R: Rng + CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        tau: f64,
    ) -> Result<f64> {
        let z0 = self.tail_start_int(tau)?;
        let y = self.discrete.geometric(rng);
        Ok(z0.add(y).to_f64(self.k, Rounding::Up))
    }

    /// P(noise > τ) for the grid noise, τ ≥ 0, as a double.
    ///
    /// # Precision
    /// The exact value is r^{z₀}/(1 + r) with r = exp(−g/b) and z₀ = ⌊τ/g⌋ + 1
    /// ([`Laplace::upper_tail_start`]); it is ≤ ½·exp(−τ/b), and within a factor
    /// exp(±g/b) = 1 ± 2^−40 of the continuous ½·exp(−τ/b). This function evaluates it in
    /// double precision (relative error ~1e−15·(1 + τ/b)); it underflows to 0 for
    /// τ ≳ 745·b — use [`Laplace::ln_upper_tail_probability`] there.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless τ is finite and ≥ 0.
    pub fn upper_tail_probability(&self, tau: f64) -> Result<f64> {
        Ok(self.ln_upper_tail_probability(tau)?.exp())
    }

    /// ln P(noise > τ) for the grid noise (see [`Laplace::upper_tail_probability`]); finite
    /// unless τ/b overflows the double range.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless τ is finite and ≥ 0.
    pub fn ln_upper_tail_probability(&self, tau: f64) -> Result<f64> {
        let z0 = self.tail_start_int(tau)?;
        let g = self.granularity();
        // z₀·g/b = (grid point above τ)/b; r = exp(−g/b).
        let x = z0.to_f64(self.k, Rounding::NearestEven) / self.scale;
        let r = (-(g / self.scale)).exp();
        Ok(-x - r.ln_1p())
    }

    /// Rigorous bounds on the exact P(noise > τ) of the grid noise: (lo, hi) with
    /// lo/2^bits ≤ P(noise > τ) ≤ hi/2^bits and hi − lo a few units, for any `bits`
    /// (64 ≤ bits ≤ 2^20). Integer arithmetic only (alternating Taylor series with directed
    /// rounding), so this is the exact probability to any requested accuracy.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless τ is finite and ≥ 0 and `bits` is in range.
    pub fn upper_tail_probability_bounds(&self, tau: f64, bits: u64) -> Result<(BigUint, BigUint)> {
        if !(64..=1 << 20).contains(&bits) {
            return Err(Error::param(
                "bits",
                format!("must be in [64, 2^20], got {bits}"),
            ));
        }
        Ok(self.tail_oracle(tau)?.p_bounds(bits))
    }

    /// The number of n independent grid-noise draws that exceed τ ≥ 0, i.e. an **exact**
    /// Binomial(n, P(noise > τ)) sample — what a sparse histogram needs for its n empty
    /// cells, without drawing n noise values.
    ///
    /// # Exactness
    /// Exact for the grid distribution: P(noise > τ) = r^{z₀}/(1 + r) (r = exp(−g/b),
    /// z₀ = ⌊τ/g⌋ + 1) is transcendental, but the binomial sampler of
    /// [`super::binomial()`] only needs rigorous bounds on it at increasing precision, which
    /// [`Laplace::upper_tail_probability_bounds`] provides.
    ///
    /// # Runtime
    /// O((1 + n·p)·log n) expected, p = P(noise > τ); about a millisecond for n = 2^60 and
    /// p ≈ 2^−50.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless τ is finite and ≥ 0.
    ///
    /// ```
    /// use disguise::noise::{Laplace, SecureRng};
    /// let mut rng = SecureRng::insecure_from_seed(8);
    /// let lap = Laplace::new(1.0)?;
    /// // 2^60 empty cells, threshold 34·b: about 2^60·½e^−34 ≈ 988 exceed it.
    /// let k = lap.upper_tail_count(&mut rng, 1 << 60, 34.0)?;
    /// assert!(k > 800 && k < 1200);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn upper_tail_count<R: Rng + CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        n: u64,
        tau: f64,
    ) -> Result<u64> {
        let oracle = self.tail_oracle(tau)?;
        Ok(count_successes(rng, n, oracle, None))
    }

    fn tail_oracle(&self, tau: f64) -> Result<TailQ> {
        let z0 = self.upper_tail_start(tau)?;
        let (t, s) = self.discrete.scale();
        Ok(TailQ {
            e_num: &z0 * &s,
            e_den: t.clone(),
            r_num: s,
            r_den: t,
        })
    }
}

/// `shift` + float-safe Laplace(`scale`) noise; see [`Laplace`] for the construction,
/// precision and the privacy accounting (ε = (λ + g)/b, [`laplace_epsilon`]).
///
/// # Errors
/// [`Error::InvalidParameter`] unless `scale` is finite and > 0 and `shift` is finite.
///
/// ```
/// use disguise::noise::{SecureRng, laplace, laplace_granularity};
/// let mut rng = SecureRng::insecure_from_seed(9);
/// let x = laplace(&mut rng, 0.1, 1.0)?;
/// let g = laplace_granularity(1.0)?;
/// assert_eq!(g, 2f64.powi(-40));
/// assert_eq!((x / g).fract(), 0.0); // on the grid; 0.1 itself is not
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn laplace<R: Rng + CryptoRng + ?Sized>(rng: &mut R, shift: f64, scale: f64) -> Result<f64> {
    Laplace::new(scale)?.sample(rng, shift)
}

/// The grid step g used by [`laplace`] / [`Laplace::new`] for this scale: the largest power
/// of two ≤ scale·2^−40 (at least 2^−1074). Mechanisms add it to the sensitivity.
///
/// # Errors
/// [`Error::InvalidParameter`] unless `scale` is finite and > 0.
pub fn laplace_granularity(scale: f64) -> Result<f64> {
    Ok(pow2(default_grid_exponent(scale)?))
}

/// ε of [`laplace`] noise with this scale on a query of sensitivity λ:
/// (λ + [`laplace_granularity`])/scale, rounded up.
///
/// # Errors
/// [`Error::InvalidParameter`] for a bad scale, [`Error::InvalidSensitivity`] unless λ is
/// finite and ≥ 0.
pub fn laplace_epsilon(sensitivity: f64, scale: f64) -> Result<f64> {
    Laplace::new(scale)?.epsilon(sensitivity)
}

/// The scale b at which [`laplace`] noise on a query of sensitivity λ > 0 is ε-DP *including*
/// the grid relaxation: the returned b satisfies `laplace_epsilon(λ, b) ≤ ε`, and
/// λ/ε ≤ b ≤ λ/(ε − 2^−40) (up to a few ulps), since the default grid step is at most
/// b·2^−40.
///
/// # Errors
/// [`Error::InvalidSensitivity`] / [`Error::InvalidEpsilon`] for non-finite or non-positive
/// inputs; [`Error::InvalidParameter`] if ε ≤ 2^−40, where the default grid's relaxation
/// alone costs ε (use [`Laplace::with_granularity_exponent`] with a finer grid);
/// [`Error::Overflow`] if the scale exceeds the double range.
///
/// ```
/// use disguise::noise::{laplace_epsilon, laplace_scale_for};
/// let b = laplace_scale_for(1.0, 0.5)?;
/// assert!(laplace_epsilon(1.0, b)? <= 0.5);
/// assert!((b - 2.0).abs() < 1e-9);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn laplace_scale_for(sensitivity: f64, epsilon: f64) -> Result<f64> {
    if !(sensitivity.is_finite() && sensitivity > 0.0) {
        return Err(Error::InvalidSensitivity(sensitivity));
    }
    if !(epsilon.is_finite() && epsilon > 0.0) {
        return Err(Error::InvalidEpsilon(epsilon));
    }
    if epsilon <= pow2(-LAPLACE_GRID_BITS) {
        return Err(Error::param(
            "epsilon",
            format!(
                "{epsilon} is at most 2^-40, the default Laplace grid's own privacy cost; \
                 use Laplace::with_granularity_exponent with a finer grid"
            ),
        ));
    }
    let mut scale = div_up(sensitivity, epsilon);
    // scale ↦ (λ + g(scale))/ε is non-decreasing and g takes power-of-two values, so this
    // reaches a fixed point in a few steps (g changes only when scale crosses a power of 2).
    for _ in 0..64 {
        if !scale.is_finite() {
            return Err(Error::Overflow(format!(
                "the Laplace scale for sensitivity {sensitivity} and epsilon {epsilon} \
                 exceeds the double range"
            )));
        }
        if laplace_epsilon(sensitivity, scale)? <= epsilon {
            return Ok(scale);
        }
        let g = laplace_granularity(scale)?;
        let next = div_up(add_up(sensitivity, g), epsilon);
        scale = if next > scale { next } else { scale.next_up() };
    }
    Err(Error::Overflow(format!(
        "no finite Laplace scale achieves epsilon {epsilon} for sensitivity {sensitivity}"
    )))
}

/// A sample of float-safe Laplace(0, `scale`) noise conditioned on exceeding `tau` ≥ 0; see
/// [`Laplace::sample_upper_tail`] (exact for the grid distribution, O(1) expected time for
/// any τ, output always > τ).
///
/// # Errors
/// [`Error::InvalidParameter`] for a bad scale or unless τ is finite and ≥ 0.
///
/// ```
/// use disguise::noise::{SecureRng, laplace_upper_tail};
/// let mut rng = SecureRng::insecure_from_seed(4);
/// let x = laplace_upper_tail(&mut rng, 1.0, 1000.0)?;
/// assert!(x > 1000.0 && x < 1100.0);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn laplace_upper_tail<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    scale: f64,
    tau: f64,
) -> Result<f64> {
    Laplace::new(scale)?.sample_upper_tail(rng, tau)
}

/// P(noise > τ) for float-safe Laplace(0, `scale`) noise, τ ≥ 0; see
/// [`Laplace::upper_tail_probability`].
///
/// # Errors
/// [`Error::InvalidParameter`] for a bad scale or unless τ is finite and ≥ 0.
pub fn laplace_upper_tail_probability(scale: f64, tau: f64) -> Result<f64> {
    Laplace::new(scale)?.upper_tail_probability(tau)
}

fn validate_scale(scale: f64) -> Result<()> {
    if scale.is_finite() && scale > 0.0 {
        Ok(())
    } else {
        Err(Error::param(
            "scale",
            format!("must be finite and > 0, got {scale}"),
        ))
    }
}

fn validate_tau(tau: f64) -> Result<()> {
    if tau.is_finite() && tau >= 0.0 {
        Ok(())
    } else {
        Err(Error::param(
            "threshold",
            format!("must be finite and >= 0, got {tau}"),
        ))
    }
}

/// k = ⌊log2 scale⌋ − 40, at least −1074.
fn default_grid_exponent(scale: f64) -> Result<i32> {
    validate_scale(scale)?;
    let (m, e) = decompose(scale);
    let floor_log2 = e + 63 - (m as u64).leading_zeros() as i32;
    Ok((floor_log2 - LAPLACE_GRID_BITS).max(MIN_GRID_EXPONENT))
}

#[cfg(test)]
mod tests {
    use super::discrete::RationalScale;
    use super::tail::exp_neg_bounds;
    use super::*;
    use crate::noise::SecureRng;
    use crate::noise::gof::{assert_within, chi_square_test, ks_test};
    use num_bigint::BigInt;
    use num_traits::{ToPrimitive, Zero};
    use statrs::distribution::{ContinuousCDF, Laplace as StatrsLaplace};

    /// Chi-square of discrete Laplace samples against the exact pmf on cells
    /// −c..=c plus two tail cells; false-alarm rate 1e-4 per call.
    fn check_discrete_laplace(samples: &[i128], scale: f64, c: i128) {
        let r = (-1.0 / scale).exp();
        let norm = (1.0 - r) / (1.0 + r);
        let mut probs = vec![r.powi((c + 1) as i32) / (1.0 + r)]; // Z < −c
        let mut observed = vec![0u64; (2 * c + 3) as usize];
        for z in -c..=c {
            probs.push(norm * r.powi(z.abs() as i32));
        }
        probs.push(r.powi((c + 1) as i32) / (1.0 + r)); // Z > c
        for &z in samples {
            let cell = if z < -c {
                0
            } else if z > c {
                2 * c + 2
            } else {
                z + c + 1
            };
            observed[cell as usize] += 1;
        }
        chi_square_test(&observed, &probs, 1e-4);
    }

    #[test]
    fn discrete_laplace_matches_pmf() {
        let mut rng = SecureRng::insecure_from_seed(101);
        // Integer, non-integer rational, and sub-unit scales.
        for (t, s, c) in [
            (1u64, 1u64, 8i128),
            (7, 2, 20),
            (3, 1, 15),
            (1, 3, 4),
            (10, 1, 40),
        ] {
            let dl = DiscreteLaplace::from_u64(t, s).unwrap();
            let samples: Vec<i128> = (0..100_000)
                .map(|_| dl.sample_i128(&mut rng).unwrap())
                .collect();
            check_discrete_laplace(&samples, t as f64 / s as f64, c);
        }
    }

    #[test]
    fn scales_are_exact_in_mean_absolute_value() {
        // E|Z| = 2r/(1 − r²), r = e^{−1/scale}, for the discrete Laplace; E|X| = b·(1 −
        // O(2^-80)) for the float-safe one. 10^6 draws each; within 5 standard errors
        // (sd(|Z|) ≤ E|Z| + 1; false alarm < 6e-7 per check). Detects a 1 % scale error.
        let mut rng = SecureRng::insecure_from_seed(114);
        let n = 1_000_000;
        for (t, s) in [(7u64, 2u64), (1, 3)] {
            let dl = DiscreteLaplace::from_u64(t, s).unwrap();
            let scale = t as f64 / s as f64;
            let r = (-1.0 / scale).exp();
            let mean_abs = 2.0 * r / (1.0 - r * r);
            let sum: f64 = (0..n)
                .map(|_| dl.sample_i128(&mut rng).unwrap().unsigned_abs() as f64)
                .sum();
            let second = 2.0 * r * (1.0 + r) / ((1.0 - r) * (1.0 - r) * (1.0 + r));
            let sd = (second - mean_abs * mean_abs).sqrt();
            assert_within(
                sum / n as f64,
                mean_abs,
                sd / (n as f64).sqrt(),
                5.0,
                "E|Z|",
            );
        }
        let lap = Laplace::new(0.8).unwrap();
        let sum: f64 = (0..n).map(|_| lap.sample_noise(&mut rng).abs()).sum();
        assert_within(sum / n as f64, 0.8, 0.8 / (n as f64).sqrt(), 5.0, "E|X|");
    }

    #[test]
    fn discrete_laplace_big_path_matches_pmf() {
        // Scale (5·2^70)/(2·2^70) = 5/2 but given unreduced and beyond 64 bits: reduction
        // must bring it to the fast path; and scale (2^70+1)/2^70 ≈ 1 stays on the big path.
        let mut rng = SecureRng::insecure_from_seed(102);
        let big = BigUint::one() << 70u32;
        let dl = DiscreteLaplace::new(&big * 5u32, &big * 2u32).unwrap();
        assert_eq!(dl.scale(), (BigUint::from(5u32), BigUint::from(2u32)));
        let dl_big = DiscreteLaplace::new(&big + 1u32, big.clone()).unwrap();
        assert!(matches!(dl_big.scale, RationalScale::Big { .. }));
        let samples: Vec<i128> = (0..40_000)
            .map(|_| dl_big.sample(&mut rng).to_i128().unwrap())
            .collect();
        check_discrete_laplace(&samples, 1.0 + 2f64.powi(-70), 8);
    }

    #[test]
    fn discrete_laplace_errors() {
        let mut rng = SecureRng::insecure_from_seed(103);
        assert!(DiscreteLaplace::from_u64(0, 1).is_err());
        assert!(DiscreteLaplace::from_u64(1, 0).is_err());
        assert!(discrete_laplace(&mut rng, &BigUint::zero(), &BigUint::one()).is_err());
        assert!(discrete_laplace_u64(&mut rng, 2, 0).is_err());
    }

    #[test]
    fn decompose_and_pow2_are_exact() {
        for x in [
            1.0,
            -0.1,
            3.5e-310,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.0,
            -7.25,
            1e300,
        ] {
            let (m, e) = decompose(x);
            let back = Int::Small(m as i128).to_f64(e, Rounding::NearestEven);
            assert_eq!(back.to_bits(), x.to_bits(), "{x}");
        }
        assert_eq!(pow2(-1074), f64::from_bits(1));
        assert_eq!(pow2(0), 1.0);
        assert_eq!(pow2(-40), 2f64.powi(-40));
    }

    #[test]
    fn int_to_f64_rounds_correctly() {
        // 2^53 + 1 is a tie between 2^53 and 2^53 + 2: to even gives 2^53.
        let v = (1i128 << 53) + 1;
        assert_eq!(
            Int::Small(v).to_f64(0, Rounding::NearestEven),
            2f64.powi(53)
        );
        assert_eq!(Int::Small(v).to_f64(0, Rounding::Up), 2f64.powi(53) + 2.0);
        // 2^53 + 3 ties to 2^53 + 4 (even mantissa).
        let v = (1i128 << 53) + 3;
        assert_eq!(
            Int::Small(v).to_f64(0, Rounding::NearestEven),
            2f64.powi(53) + 4.0
        );
        // Beyond 64 bits, a sticky bit breaks the tie upward.
        let v = (1i128 << 100) + (1i128 << 47) + 1;
        assert_eq!(
            Int::Small(v).to_f64(0, Rounding::NearestEven),
            2f64.powi(100) + 2f64.powi(48)
        );
        let v = (1i128 << 100) + (1i128 << 47);
        assert_eq!(
            Int::Small(v).to_f64(0, Rounding::NearestEven),
            2f64.powi(100)
        );
        // Big path agrees with the i128 path, with negative sign and scaling.
        let b = -(BigInt::from(3u32) << 200u32) - 1;
        let expected = -(3.0 * 2f64.powi(200)) * 2f64.powi(-250);
        assert_eq!(Int::Big(b).to_f64(-250, Rounding::NearestEven), expected);
        // Subnormal results are exact.
        assert_eq!(
            Int::Small(3).to_f64(-1074, Rounding::NearestEven),
            f64::from_bits(3)
        );
        // Overflow gives infinity.
        assert_eq!(
            Int::Small(1).to_f64(1023, Rounding::NearestEven),
            2f64.powi(1023)
        );
        assert!(
            Int::Small(2)
                .to_f64(1023, Rounding::NearestEven)
                .is_infinite()
        );
    }

    #[test]
    fn round_to_grid_is_nearest() {
        // Grid 2^-2 = 0.25: 0.1 → 0, 0.125 → 1 (tie up), 0.3 → 1, −0.125 → 0 (tie up), −0.2 → −1.
        for (x, expected) in [
            (0.1, 0),
            (0.125, 1),
            (0.3, 1),
            (-0.125, 0),
            (-0.2, -1),
            (5.0, 20),
        ] {
            assert_eq!(round_to_grid(x, -2), Int::Small(expected), "{x}");
        }
        assert_eq!(round_to_grid(1e-300, 0), Int::Small(0));
        assert_eq!(round_to_grid(-1e-300, 0), Int::Small(0));
        // Huge shift: exact big integer.
        let n = round_to_grid(1e300, -40).into_bigint();
        let (m, e) = decompose(1e300);
        assert_eq!(n, BigInt::from(m) << ((e + 40) as u32));
    }

    #[test]
    fn granularity_and_parameters() {
        assert_eq!(laplace_granularity(1.0).unwrap(), 2f64.powi(-40));
        assert_eq!(laplace_granularity(3.0).unwrap(), 2f64.powi(-39));
        assert_eq!(laplace_granularity(0.75).unwrap(), 2f64.powi(-41));
        assert_eq!(laplace_granularity(1e-320).unwrap(), f64::from_bits(1));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(Laplace::new(bad).is_err());
            assert!(laplace_granularity(bad).is_err());
        }
        assert!(Laplace::with_granularity_exponent(1.0, -1075).is_err());
        assert!(Laplace::with_granularity_exponent(1.0, 1024).is_err());
        let lap = Laplace::new(2.0).unwrap();
        let eps = lap.epsilon(1.0).unwrap();
        assert!(eps >= (1.0 + 2f64.powi(-39)) / 2.0 && eps <= 0.5 + 2f64.powi(-39));
        assert!(lap.epsilon(f64::NAN).is_err());
        let exact = Laplace::with_granularity_exponent(2.0, -1074).unwrap();
        assert_eq!(exact.sensitivity_relaxation(), 0.0);
        assert_eq!(exact.epsilon(1.0).unwrap(), 0.5);
    }

    #[test]
    fn scale_for_epsilon_is_tight_and_safe() {
        for (lambda, eps) in [
            (1.0, 0.5),
            (1.0, 1.0),
            (0.3, 1e-6),
            (7.0, 3.0),
            (1.0, 1e-12),
        ] {
            let b = laplace_scale_for(lambda, eps).unwrap();
            assert!(laplace_epsilon(lambda, b).unwrap() <= eps, "{lambda} {eps}");
            assert!(b >= lambda / eps, "{lambda} {eps} {b}");
            let bound = lambda / (eps - 2f64.powi(-40));
            assert!(b <= bound * (1.0 + 1e-14), "{lambda} {eps} {b} > {bound}");
        }
        assert!(matches!(
            laplace_scale_for(1.0, 2f64.powi(-41)),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            laplace_scale_for(1e306, 1e-4),
            Err(Error::Overflow(_))
        ));
        assert!(laplace_scale_for(0.0, 1.0).is_err());
        assert!(laplace_scale_for(1.0, f64::NAN).is_err());
    }

    #[test]
    fn float_laplace_matches_laplace_cdf() {
        // KS at false-alarm rate 1e-4, for two scales and a non-grid shift.
        let mut rng = SecureRng::insecure_from_seed(104);
        for (shift, scale) in [(0.0, 1.0), (3.3, 0.7), (-1e6, 250.0)] {
            let lap = Laplace::new(scale).unwrap();
            let mut xs: Vec<f64> = (0..50_000)
                .map(|_| lap.sample(&mut rng, shift).unwrap())
                .collect();
            let reference = StatrsLaplace::new(shift, scale).unwrap();
            ks_test(&mut xs, |x| reference.cdf(x), 1e-4);
        }
    }

    #[test]
    fn float_laplace_is_symmetric_and_on_grid() {
        let mut rng = SecureRng::insecure_from_seed(105);
        let lap = Laplace::new(1.5).unwrap();
        let g = lap.granularity();
        let n = 100_000;
        let mut positive = 0u64;
        for _ in 0..n {
            let x = lap.sample_noise(&mut rng);
            assert_eq!((x / g).fract(), 0.0);
            if x > 0.0 {
                positive += 1;
            }
        }
        // P(X > 0) = r/(1+r) with r = exp(−g/b), i.e. ½ up to 2^-41: 5-sigma z-test
        // (false alarm < 6e-7).
        assert_within(
            positive as f64,
            n as f64 / 2.0,
            (n as f64 / 4.0).sqrt(),
            5.0,
            "P(X>0)",
        );
    }

    #[test]
    fn shift_is_hidden_by_the_grid() {
        // Shifts closer than g/2 to the same grid point give *identical* output streams for
        // identical randomness; the support is the public grid whatever the shift.
        let lap = Laplace::new(1.0).unwrap();
        let g = lap.granularity();
        let a = 0.1;
        let n0 = round_to_grid(a, lap.granularity_exponent());
        let on_grid = n0.to_f64(lap.granularity_exponent(), Rounding::NearestEven);
        let b = on_grid + g * 0.25;
        let mut r1 = SecureRng::insecure_from_seed(106);
        let mut r2 = SecureRng::insecure_from_seed(106);
        for _ in 0..1000 {
            assert_eq!(
                lap.sample(&mut r1, a).unwrap(),
                lap.sample(&mut r2, b).unwrap()
            );
        }
        // Supports for shifts 0.0 and 0.1 are both subsets of the same grid g·ℤ.
        let mut rng = SecureRng::insecure_from_seed(107);
        for shift in [0.0, 0.1, 1.0 / 3.0, -2.5e-7] {
            for _ in 0..2000 {
                let x = lap.sample(&mut rng, shift).unwrap();
                assert_eq!((x / g).fract(), 0.0, "shift {shift} output {x}");
            }
        }
        // The shift is rounded exactly: with zero noise (a huge-k grid would be needed to
        // force it), check the rounding directly against exact rational arithmetic.
        assert_eq!(n0, Int::Small((0.1f64 * 2f64.powi(40)).round() as i128));
        assert!(lap.sample(&mut rng, f64::NAN).is_err());
        assert!(lap.sample(&mut rng, f64::INFINITY).is_err());
    }

    #[test]
    fn exact_grid_big_integer_path_matches_cdf() {
        // k = −1074: ~1100-bit integers; KS at 1e-4 on 5 000 draws.
        let mut rng = SecureRng::insecure_from_seed(108);
        let lap = Laplace::with_granularity_exponent(1.0, -1074).unwrap();
        let mut xs: Vec<f64> = (0..5_000)
            .map(|_| lap.sample(&mut rng, 0.5).unwrap())
            .collect();
        let reference = StatrsLaplace::new(0.5, 1.0).unwrap();
        ks_test(&mut xs, |x| reference.cdf(x), 1e-4);
    }

    #[test]
    fn upper_tail_matches_conditional_cdf() {
        // KS at 1e-4 against P(X ≤ x | X > τ) = 1 − exp(−(x − τ)/b) (continuous; the grid
        // version differs by < 2^-40).
        let mut rng = SecureRng::insecure_from_seed(109);
        for (scale, tau) in [(1.0, 0.0), (2.0, 3.7), (0.5, 10.0)] {
            let lap = Laplace::new(scale).unwrap();
            let mut xs: Vec<f64> = (0..50_000)
                .map(|_| lap.sample_upper_tail(&mut rng, tau).unwrap())
                .collect();
            assert!(xs.iter().all(|&x| x > tau));
            ks_test(&mut xs, |x| 1.0 - (-(x - tau) / scale).exp(), 1e-4);
        }
    }

    #[test]
    fn upper_tail_far_out_is_fast_and_above() {
        let mut rng = SecureRng::insecure_from_seed(110);
        let scale = 3.0;
        let tau = 1000.0 * scale;
        let lap = Laplace::new(scale).unwrap();
        let n = 20_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let x = laplace_upper_tail(&mut rng, scale, tau).unwrap();
            assert!(x > tau);
            sum += x - tau;
        }
        // Excess over τ is Exponential(mean b): 5-sigma z-test (false alarm < 6e-7).
        assert_within(
            sum / n as f64,
            scale,
            scale / (n as f64).sqrt(),
            5.0,
            "tail mean",
        );
        // Huge τ (beyond 2^53·g): still > τ thanks to rounding up.
        let huge = 1e20;
        assert!(lap.sample_upper_tail(&mut rng, huge).unwrap() > huge);
        assert!(lap.sample_upper_tail(&mut rng, -1.0).is_err());
        assert!(lap.sample_upper_tail(&mut rng, f64::NAN).is_err());
    }

    /// floor(c·2^prec) for a decimal constant c given by its digits after "0.".
    fn decimal_fixed(digits: &str, prec: u64) -> BigUint {
        let d = BigUint::parse_bytes(digits.as_bytes(), 10).unwrap();
        let ten = BigUint::from(10u32).pow(digits.len() as u32);
        (d << prec) / ten
    }

    #[test]
    fn exp_bounds_enclose_reference_values() {
        // 60-digit references (Python decimal): the 2^-128 rounding of the truncated
        // constant is within 1 unit of the true value, so it must lie in [lo − 1, hi + 1].
        let cases = [
            (
                1u64,
                1u64,
                "367879441171442321595523770161460867445811131031767834507837",
            ),
            (
                5,
                2,
                "082084998623898795169528674467159807837804121015436648845758",
            ),
            (
                3,
                10,
                "740818220681717866066873779317816872182251231999006348295310",
            ),
            (
                1,
                1_000_000,
                "999999000000499999833333374999991666668055555357142881944442",
            ),
            (
                40,
                1,
                "000000000000000004248354255291588995329234782858658017879565",
            ),
        ];
        for (num, den, digits) in cases {
            let (lo, hi) = exp_neg_bounds(&BigUint::from(num), &BigUint::from(den), 128);
            let reference = decimal_fixed(digits, 128);
            assert!(
                lo <= &reference + 1u32 && reference <= &hi + 1u32,
                "{num}/{den}"
            );
            assert!(
                &hi - &lo <= BigUint::from(4u32),
                "{num}/{den}: width {}",
                &hi - &lo
            );
        }
        // Far tail: below 2^-prec.
        let (lo, hi) = exp_neg_bounds(&BigUint::from(200u32), &BigUint::one(), 128);
        assert!(lo.is_zero() && hi == BigUint::one());
        // Refinement nests: bounds at 256 bits lie inside those at 128 bits.
        let (x, y) = (BigUint::from(7u32), BigUint::from(3u32));
        let (lo1, hi1) = exp_neg_bounds(&x, &y, 128);
        let (lo2, hi2) = exp_neg_bounds(&x, &y, 256);
        assert!(lo1 << 128u32 <= hi2 && lo2 <= hi1 << 128u32);
    }

    #[test]
    fn tail_probability_bounds_agree_with_f64() {
        let lap = Laplace::new(1.3).unwrap();
        for tau in [0.0, 0.7, 5.0, 60.0] {
            let (lo, hi) = lap.upper_tail_probability_bounds(tau, 200).unwrap();
            assert!(&hi - &lo <= BigUint::from(8u32));
            let scale = 2f64.powi(200);
            let (lo, hi) = (lo.to_f64().unwrap() / scale, hi.to_f64().unwrap() / scale);
            let p = lap.upper_tail_probability(tau).unwrap();
            assert!(
                lo <= p * (1.0 + 1e-12) && p <= hi * (1.0 + 1e-12),
                "{tau}: {lo} {p} {hi}"
            );
        }
        assert!(lap.upper_tail_probability_bounds(1.0, 10).is_err());
        assert!(lap.upper_tail_probability_bounds(-1.0, 100).is_err());
    }

    #[test]
    fn tail_count_is_binomial() {
        // Chi-square at 1e-4 against Binomial(200, P(noise > 1)) (reference pmf in f64).
        use statrs::distribution::{Binomial as StatrsBinomial, Discrete};
        let mut rng = SecureRng::insecure_from_seed(112);
        let lap = Laplace::new(1.0).unwrap();
        let n = 200u64;
        let p = lap.upper_tail_probability(1.0).unwrap();
        let mut counts = vec![0u64; n as usize + 1];
        for _ in 0..20_000 {
            counts[lap.upper_tail_count(&mut rng, n, 1.0).unwrap() as usize] += 1;
        }
        let reference = StatrsBinomial::new(p, n).unwrap();
        let mut probs: Vec<f64> = (0..=n).map(|k| reference.pmf(k)).collect();
        let total: f64 = probs.iter().sum();
        probs[(n as f64 * p) as usize] += 1.0 - total;
        chi_square_test(&counts, &probs, 1e-4);
        assert_eq!(lap.upper_tail_count(&mut rng, 0, 1.0).unwrap(), 0);
        assert!(lap.upper_tail_count(&mut rng, 5, f64::NAN).is_err());
    }

    #[test]
    fn tail_count_for_huge_n() {
        // n = 2^60, τ = 34·b: mean n·e^{-34}/(1 + r) ≈ 988. Mean of 30 draws within 5
        // standard errors (false alarm < 6e-7).
        let mut rng = SecureRng::insecure_from_seed(113);
        let lap = Laplace::new(1.0).unwrap();
        let n = 1u64 << 60;
        let p = lap.upper_tail_probability(34.0).unwrap();
        let draws = 30;
        let mean = (0..draws)
            .map(|_| lap.upper_tail_count(&mut rng, n, 34.0).unwrap() as f64)
            .sum::<f64>()
            / draws as f64;
        let expected = n as f64 * p;
        assert_within(
            mean,
            expected,
            (expected / draws as f64).sqrt(),
            5.0,
            "tail count",
        );
    }

    #[test]
    fn upper_tail_probability_is_right() {
        let mut rng = SecureRng::insecure_from_seed(111);
        let lap = Laplace::new(1.0).unwrap();
        // Against the continuous value ½·exp(−τ/b), within 1e-9 relative.
        for tau in [0.0, 0.5, 3.0, 100.0] {
            let p = lap.upper_tail_probability(tau).unwrap();
            let c = 0.5 * (-tau).exp();
            assert!((p / c - 1.0).abs() < 1e-9, "{tau}: {p} vs {c}");
        }
        let ln = lap.ln_upper_tail_probability(2000.0).unwrap();
        assert!((ln - (-2000.0 - 2f64.ln())).abs() < 1e-9);
        assert_eq!(lap.upper_tail_start(0.0).unwrap(), BigUint::one());
        // Empirical frequency of noise > 1.2 matches: 5-sigma (false alarm < 6e-7).
        let n = 200_000;
        let hits = (0..n).filter(|_| lap.sample_noise(&mut rng) > 1.2).count();
        let p = laplace_upper_tail_probability(1.0, 1.2).unwrap();
        assert_within(
            hits as f64,
            n as f64 * p,
            (n as f64 * p * (1.0 - p)).sqrt(),
            5.0,
            "tail",
        );
    }
}
