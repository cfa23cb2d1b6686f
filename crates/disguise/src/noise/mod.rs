//! Randomness: the secure generator and exact samplers.
//!
//! Every sampler is generic over `R: Rng + CryptoRng` (rand_core 0.10 names) so that
//! only cryptographically secure generators can drive privacy noise; in practice that is
//! [`SecureRng`].

pub mod bernoulli;
mod rng;

pub use rng::SecureRng;
