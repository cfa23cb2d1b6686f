//! Floating-point samplers of continuous distributions — exponential, Erlang, normal, a
//! uniform direction on the sphere — for the private ERM baselines (`learn::private_erm`)
//! only. They are **not** exact: a sample is a function of a 53-bit uniform through `ln`,
//! `cos` and `sqrt`, and floating-point samplers leak through the pattern of representable
//! values (Mironov, CCS 2012). The library's mechanisms never use them; they use the exact
//! samplers of [`super::bernoulli`], [`super::laplace`](mod@super::laplace) and the exponential mechanism.

use crate::error::{Error, Result};
use rand_core::{CryptoRng, Rng};

/// A uniform double in `(0, 1]`: 53 random bits, shifted away from 0 so that its
/// logarithm is finite.
#[inline]
fn uniform_open_closed<R: Rng + CryptoRng + ?Sized>(rng: &mut R) -> f64 {
    ((rng.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A standard exponential variate, `−ln U` with `U` uniform on `(0, 1]` (53 bits).
///
/// *Precision*: floating point; the largest value is `53 ln 2 ≈ 36.7` and values are
/// logarithms of multiples of `2⁻⁵³`. For the private ERM baselines only (see the module
/// documentation).
pub fn standard_exponential<R: Rng + CryptoRng + ?Sized>(rng: &mut R) -> f64 {
    -uniform_open_closed(rng).ln()
}

/// A Gamma(`shape`, `scale`) variate for an integer shape (an Erlang variate): the sum of
/// `shape` independent exponentials, times `scale`. Mean `shape · scale`.
///
/// *Runtime*: `shape` draws. *Precision*: floating point, see [`standard_exponential`].
///
/// # Errors
/// `shape == 0`, or `scale` not finite and > 0.
pub fn gamma_integer_shape<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    shape: u64,
    scale: f64,
) -> Result<f64> {
    if shape == 0 {
        return Err(Error::param("shape", "must be at least 1"));
    }
    if !(scale.is_finite() && scale > 0.0) {
        return Err(Error::param(
            "scale",
            format!("must be finite and > 0, got {scale}"),
        ));
    }
    let sum: f64 = (0..shape).map(|_| standard_exponential(rng)).sum();
    Ok(sum * scale)
}

/// A standard normal variate by the Box–Muller transform,
/// `√(−2 ln U₁) · cos(2π U₂)` with `U₁` uniform on `(0, 1]` and `U₂` on `[0, 1)`.
///
/// *Precision*: floating point (tails are cut at `√(2 · 53 ln 2) ≈ 8.6`). For the private ERM
/// baseline only (see the module documentation).
pub fn standard_normal<R: Rng + CryptoRng + ?Sized>(rng: &mut R) -> f64 {
    let u1 = uniform_open_closed(rng);
    let u2 = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A direction uniform on the unit sphere of `R^dim`: a vector of independent standard
/// normals, divided by its norm (the normal distribution is rotation invariant).
///
/// # Errors
/// `dim == 0`.
pub fn uniform_direction<R: Rng + CryptoRng + ?Sized>(rng: &mut R, dim: usize) -> Result<Vec<f64>> {
    if dim == 0 {
        return Err(Error::param("dim", "must be at least 1"));
    }
    loop {
        let v: Vec<f64> = (0..dim).map(|_| standard_normal(rng)).collect();
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        // An all-zero draw has probability below 2^-50 per coordinate; draw again.
        if norm > 0.0 {
            return Ok(v.into_iter().map(|x| x / norm).collect());
        }
    }
}
