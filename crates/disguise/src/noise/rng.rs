//! [`SecureRng`]: the one source of randomness in `disguise`.

use crate::error::{Error, Result};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng, TryCryptoRng, TryRng};
use std::convert::Infallible;

/// ChaCha20 keyed from the operating system's random source.
///
/// All privacy noise in `disguise` is drawn from this generator. [`SecureRng::from_os`] is
/// the only constructor that gives a secure generator.
/// [`SecureRng::insecure_from_seed`] exists for tests and reproducible experiments: its
/// output is predictable by anyone who knows the seed, so results drawn from it carry **no
/// privacy guarantee**; [`SecureRng::is_secure`] tells them apart and the CLI warns.
///
/// ```
/// use disguise::SecureRng;
/// let rng = SecureRng::from_os()?;
/// assert!(rng.is_secure());
/// let test_rng = SecureRng::insecure_from_seed(42);
/// assert!(!test_rng.is_secure());
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SecureRng {
    inner: ChaCha20Rng,
    secure: bool,
}

impl SecureRng {
    /// A generator keyed with 256 bits from the operating system (getrandom).
    pub fn from_os() -> Result<Self> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| Error::Entropy(e.to_string()))?;
        Ok(Self {
            inner: ChaCha20Rng::from_seed(seed),
            secure: true,
        })
    }

    /// **Insecure**: a generator keyed by a public 64-bit seed, for tests and reproducible
    /// experiments only. Anything drawn from it is predictable and private to no one.
    pub fn insecure_from_seed(seed: u64) -> Self {
        Self {
            inner: ChaCha20Rng::seed_from_u64(seed),
            secure: false,
        }
    }

    /// Whether this generator was keyed by the operating system.
    pub fn is_secure(&self) -> bool {
        self.secure
    }

    /// An independent child generator (for parallel trials), keyed from this one.
    /// It inherits this generator's security flag.
    pub fn fork(&mut self) -> Self {
        let mut seed = [0u8; 32];
        self.inner.fill_bytes(&mut seed);
        Self {
            inner: ChaCha20Rng::from_seed(seed),
            secure: self.secure,
        }
    }
}

impl TryRng for SecureRng {
    type Error = Infallible;
    #[inline]
    fn try_next_u32(&mut self) -> std::result::Result<u32, Infallible> {
        Ok(self.inner.next_u32())
    }
    #[inline]
    fn try_next_u64(&mut self) -> std::result::Result<u64, Infallible> {
        Ok(self.inner.next_u64())
    }
    #[inline]
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> std::result::Result<(), Infallible> {
        self.inner.fill_bytes(dst);
        Ok(())
    }
}

// ChaCha20 is a CSPRNG; the seeded variant is the same algorithm with a public key, which is
// why the *flag*, not the type, records whether it is secure.
impl TryCryptoRng for SecureRng {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_generators_reproduce_and_os_generators_differ() {
        let mut a = SecureRng::insecure_from_seed(7);
        let mut b = SecureRng::insecure_from_seed(7);
        assert_eq!(a.next_u64(), b.next_u64());
        let mut c = SecureRng::from_os().unwrap();
        let mut d = SecureRng::from_os().unwrap();
        // Equal with probability 2^-128.
        assert_ne!((c.next_u64(), c.next_u64()), (d.next_u64(), d.next_u64()));
    }

    #[test]
    fn fork_inherits_flag_and_diverges() {
        let mut a = SecureRng::insecure_from_seed(1);
        let mut child = a.fork();
        assert!(!child.is_secure());
        assert_ne!(a.next_u64(), child.next_u64());
    }
}
