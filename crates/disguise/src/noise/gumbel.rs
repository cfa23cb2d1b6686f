//! The Gumbel distribution by inversion, for **non-privacy** purposes.
//!
//! Gumbel noise turns an argmax into a sample of the exponential mechanism (the "Gumbel-max
//! trick"), but computed in floating point it suffers from the same lattice leaks as the
//! naive Laplace sampler (Mironov 2012), so `disguise` never uses it to protect data. It is
//! here for tests, experiments and baselines (e.g. to cross-check an exact exponential
//! mechanism against the Gumbel-max trick), where an f64-quality sample is enough.

use crate::error::{Error, Result};
use rand_core::{CryptoRng, Rng};

use super::bernoulli::uniform_below;

/// A uniform double in the open interval (0, 1): (j + 1)/2^53 for j uniform in
/// [0, 2^53 − 1), so the 2^53 − 1 possible values are equally likely, never 0 or 1, and
/// symmetric about ½ (U and 1 − U have the same law).
///
/// ```
/// use disguise::noise::{SecureRng, gumbel::open_unit_f64};
/// let mut rng = SecureRng::insecure_from_seed(1);
/// let u = open_unit_f64(&mut rng);
/// assert!(u > 0.0 && u < 1.0);
/// ```
pub fn open_unit_f64<R: Rng + CryptoRng + ?Sized>(rng: &mut R) -> f64 {
    const TWO_53: u64 = 1 << 53;
    let j = uniform_below(rng, TWO_53 - 1);
    // j + 1 < 2^53 is exact, and so is the division by a power of two.
    (j + 1) as f64 / TWO_53 as f64
}

/// A Gumbel(`loc`, `scale`) sample: loc − scale·ln(−ln U), with CDF exp(−exp(−(x − loc)/scale)).
///
/// **Not for privacy**: see the [module documentation](self).
///
/// # Precision
/// U is [`open_unit_f64`] (53 random bits, never 0 or 1), so the result is always finite:
/// the standard Gumbel values lie in about [−3.6, 36.7]. ln U is evaluated as
/// `ln_1p(U − 1)` for U > ½ (U − 1 is exact there), which keeps the lower tail accurate.
/// The CDF of the output differs from the exact one by at most about 2^−53 plus the
/// double-precision error of the two logarithms.
///
/// # Runtime
/// O(1): one or two random words and two logarithms.
///
/// # Errors
/// [`Error::InvalidParameter`] unless `loc` is finite and `scale` is finite and > 0.
///
/// ```
/// use disguise::noise::{SecureRng, gumbel};
/// let mut rng = SecureRng::insecure_from_seed(2);
/// let g = gumbel(&mut rng, 0.0, 1.0)?;
/// assert!(g.is_finite());
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn gumbel<R: Rng + CryptoRng + ?Sized>(rng: &mut R, loc: f64, scale: f64) -> Result<f64> {
    if !loc.is_finite() {
        return Err(Error::param("loc", format!("must be finite, got {loc}")));
    }
    if !(scale.is_finite() && scale > 0.0) {
        return Err(Error::param(
            "scale",
            format!("must be finite and > 0, got {scale}"),
        ));
    }
    Ok(loc + scale * standard_gumbel(rng))
}

/// A standard Gumbel(0, 1) sample.
pub(crate) fn standard_gumbel<R: Rng + CryptoRng + ?Sized>(rng: &mut R) -> f64 {
    let u = open_unit_f64(rng);
    let ln_u = if u > 0.5 { (u - 1.0).ln_1p() } else { u.ln() };
    -(-ln_u).ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::SecureRng;
    use crate::noise::gof::ks_test;
    use statrs::distribution::{ContinuousCDF, Gumbel as StatrsGumbel};

    #[test]
    fn gumbel_matches_cdf() {
        // KS at false-alarm rate 1e-4, against statrs and against the closed form.
        let mut rng = SecureRng::insecure_from_seed(201);
        for (loc, scale) in [(0.0, 1.0), (-3.0, 0.25), (10.0, 7.0)] {
            let mut xs: Vec<f64> = (0..50_000)
                .map(|_| gumbel(&mut rng, loc, scale).unwrap())
                .collect();
            let reference = StatrsGumbel::new(loc, scale).unwrap();
            ks_test(&mut xs, |x| reference.cdf(x), 1e-4);
            ks_test(&mut xs, |x| (-(-(x - loc) / scale).exp()).exp(), 1e-4);
        }
    }

    #[test]
    fn open_unit_is_open_and_uniform() {
        let mut rng = SecureRng::insecure_from_seed(202);
        let mut us: Vec<f64> = (0..50_000).map(|_| open_unit_f64(&mut rng)).collect();
        assert!(us.iter().all(|&u| u > 0.0 && u < 1.0));
        // KS at 1e-4 against U(0, 1).
        ks_test(&mut us, |x| x.clamp(0.0, 1.0), 1e-4);
    }

    #[test]
    fn gumbel_rejects_bad_parameters() {
        let mut rng = SecureRng::insecure_from_seed(203);
        for (loc, scale) in [
            (f64::NAN, 1.0),
            (0.0, 0.0),
            (0.0, -1.0),
            (0.0, f64::INFINITY),
        ] {
            assert!(gumbel(&mut rng, loc, scale).is_err());
        }
    }
}
