//! Randomness: the secure generator and exact samplers.
//!
//! Every sampler is generic over `R: Rng + CryptoRng` (rand_core 0.10 names) so that
//! only cryptographically secure generators can drive privacy noise; in practice that is
//! [`SecureRng`].

pub mod bernoulli;
pub mod binomial;
pub mod continuous;
mod counts;
pub mod distinct;
pub mod gaussian;
pub mod geometric;
#[cfg(test)]
pub(crate) mod gof;
pub mod gumbel;
pub mod laplace;
mod rng;
pub(crate) mod scaled_exp;

pub use binomial::{binomial, binomial_f64};
pub use counts::CountNoise;
pub use distinct::{sample_distinct, sample_distinct_excluding};
pub use gaussian::DiscreteGaussian;
pub use gumbel::gumbel;
pub use laplace::{
    DiscreteLaplace, Laplace, discrete_laplace, discrete_laplace_u64, laplace, laplace_epsilon,
    laplace_granularity, laplace_scale_for, laplace_upper_tail, laplace_upper_tail_probability,
};
pub use rng::SecureRng;
