//! The exact discrete Laplace distribution on ℤ with a rational scale (Canonne, Kamath,
//! Steinke 2020, Algorithm 2): the integer core of the float-safe [`super::Laplace`].

use super::exact_int::Int;
use crate::error::{Error, Result};
use crate::noise::geometric::{geometric_exp_neg_u64_unchecked, geometric_exp_neg_unchecked};
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};
use rand_core::{CryptoRng, Rng};

/// The discrete Laplace distribution on ℤ with exact rational scale t/s:
/// P(Z = z) = (1 − e^{−s/t}) / (1 + e^{−s/t}) · exp(−|z|·s/t).
///
/// # Algorithm
/// Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
/// Algorithm 2: a geometric magnitude Y with P(Y ≥ y) = exp(−y·s/t) (see
/// [`crate::noise::geometric`]), a uniform sign, and rejection of "−0".
///
/// # Exactness
/// Exact: integers only, built on [`crate::noise::bernoulli`]. Machine integers (u64 parameters,
/// i128 result) are used when t and s fit in 64 bits after reduction, big integers otherwise.
///
/// # Runtime
/// O(1) expected iterations whatever the scale (at most 2 expected rounds of the sign
/// rejection); each iteration O(1) machine operations on the fast path, O(M(log t + log s))
/// on the big-integer path.
///
/// ```
/// use disguise::noise::{DiscreteLaplace, SecureRng};
/// let mut rng = SecureRng::insecure_from_seed(1);
/// let dl = DiscreteLaplace::from_u64(7, 2)?; // scale 3.5
/// let z = dl.sample(&mut rng);
/// assert!(z.magnitude().bits() < 64);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscreteLaplace {
    pub(super) scale: RationalScale,
}

/// t/s in lowest terms, in machine integers when possible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RationalScale {
    Small { t: u64, s: u64 },
    Big { t: BigUint, s: BigUint },
}

impl DiscreteLaplace {
    /// Discrete Laplace with scale `scale_num / scale_den` (both > 0).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if either is zero.
    pub fn new(scale_num: BigUint, scale_den: BigUint) -> Result<Self> {
        if scale_num.is_zero() || scale_den.is_zero() {
            return Err(Error::param(
                "discrete Laplace scale",
                format!("numerator and denominator must be > 0, got {scale_num}/{scale_den}"),
            ));
        }
        let g = scale_num.gcd(&scale_den);
        let (t, s) = (scale_num / &g, scale_den / &g);
        let scale = match (t.to_u64(), s.to_u64()) {
            (Some(t), Some(s)) => RationalScale::Small { t, s },
            _ => RationalScale::Big { t, s },
        };
        Ok(Self { scale })
    }

    /// Discrete Laplace with scale `scale_num / scale_den` given as machine integers.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if either is zero.
    pub fn from_u64(scale_num: u64, scale_den: u64) -> Result<Self> {
        if scale_num == 0 || scale_den == 0 {
            return Err(Error::param(
                "discrete Laplace scale",
                format!("numerator and denominator must be > 0, got {scale_num}/{scale_den}"),
            ));
        }
        let g = scale_num.gcd(&scale_den);
        Ok(Self {
            scale: RationalScale::Small {
                t: scale_num / g,
                s: scale_den / g,
            },
        })
    }

    /// The scale as a reduced fraction (numerator, denominator).
    pub fn scale(&self) -> (BigUint, BigUint) {
        match &self.scale {
            RationalScale::Small { t, s } => (BigUint::from(*t), BigUint::from(*s)),
            RationalScale::Big { t, s } => (t.clone(), s.clone()),
        }
    }

    /// One exact sample.
    pub fn sample<R: Rng + CryptoRng + ?Sized>(&self, rng: &mut R) -> BigInt {
        self.sample_int(rng).into_bigint()
    }

    /// One exact sample as an `i128` when the scale fits in machine integers (the result
    /// then fits with overwhelming probability); `None` on the big-integer path.
    pub fn sample_i128<R: Rng + CryptoRng + ?Sized>(&self, rng: &mut R) -> Option<i128> {
        match self.sample_int(rng) {
            Int::Small(v) => Some(v),
            Int::Big(_) => None,
        }
    }

    /// A geometric magnitude Y with P(Y ≥ y) = exp(−y·s/t) (the one-sided tail shape).
    pub(super) fn geometric<R: Rng + CryptoRng + ?Sized>(&self, rng: &mut R) -> Int {
        match &self.scale {
            RationalScale::Small { t, s } => {
                // Rate s/t: geometric_exp_neg(num = s, den = t).
                let y = geometric_exp_neg_u64_unchecked(rng, *s, *t);
                match i128::try_from(y) {
                    Ok(v) => Int::Small(v),
                    Err(_) => Int::Big(BigInt::from(y)),
                }
            }
            RationalScale::Big { t, s } => {
                Int::from_biguint(geometric_exp_neg_unchecked(rng, s, t))
            }
        }
    }

    pub(super) fn sample_int<R: Rng + CryptoRng + ?Sized>(&self, rng: &mut R) -> Int {
        loop {
            let y = self.geometric(rng);
            let negative = rng.next_u32() & 1 == 1;
            if y.is_zero() {
                if negative {
                    // "−0": reject so that 0 is not counted twice.
                    continue;
                }
                return y;
            }
            return if negative { y.neg() } else { y };
        }
    }
}

/// One exact discrete Laplace sample with scale `scale_num / scale_den`:
/// P(Z = z) ∝ exp(−|z|·scale_den/scale_num). See [`DiscreteLaplace`].
///
/// # Errors
/// [`Error::InvalidParameter`] if the numerator or denominator is zero.
pub fn discrete_laplace<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    scale_num: &BigUint,
    scale_den: &BigUint,
) -> Result<BigInt> {
    Ok(DiscreteLaplace::new(scale_num.clone(), scale_den.clone())?.sample(rng))
}

/// Machine-integer version of [`discrete_laplace`]: scale `scale_num / scale_den`.
///
/// # Errors
/// [`Error::InvalidParameter`] if the numerator or denominator is zero;
/// [`Error::Overflow`] if the sample does not fit in an `i128` (probability below
/// exp(−2^63), i.e. never in practice).
///
/// ```
/// use disguise::noise::{SecureRng, discrete_laplace_u64};
/// let mut rng = SecureRng::insecure_from_seed(3);
/// let z = discrete_laplace_u64(&mut rng, 10, 1)?; // scale 10
/// assert!(z.abs() < 1_000);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn discrete_laplace_u64<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    scale_num: u64,
    scale_den: u64,
) -> Result<i128> {
    let dl = DiscreteLaplace::from_u64(scale_num, scale_den)?;
    dl.sample_i128(rng)
        .ok_or_else(|| Error::Overflow("discrete Laplace sample beyond i128".into()))
}
