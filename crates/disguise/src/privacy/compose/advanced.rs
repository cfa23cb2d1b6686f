//! [`Rule::Advanced`](super::Rule::Advanced): advanced composition in the form of
//! mitrovic2017 Thm 3.2 (Dwork–Rothblum–Vadhan 2010 with the Bun–Steinke 2016 first term),
//! ε = Σεᵢ²/2 + √(2·ln(1/δ′)·Σεᵢ²), δ = δ′ + Σδᵢ; for pure and approximate calls alike
//! (see the module documentation of [`super`] for the derivation and the δ split).

use super::{Applied, Calls, ComposeOptions, CompositionRule, Rule};
use super::{check_positive_delta, check_rounds, finite, round::*};
use crate::error::Result;
use crate::privacy::{Delta, Epsilon};

/// Advanced composition (mitrovic2017 Thm 3.2) of `rounds` calls of ε₀ with slack δ′:
/// ε = kε₀²/2 + ε₀·√(2k·ln(1/δ′)) (rounded up). The total δ is δ′ + k·δ₀.
///
/// Errors when δ′ = 0.
///
/// ```
/// use disguise::privacy::{compose, Delta, Epsilon};
/// let eps = compose::advanced(10, Epsilon::new(0.1)?, Delta::new(1e-6)?)?;
/// assert!((eps - 1.712).abs() < 1e-3);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn advanced(rounds: u64, epsilon0: Epsilon, delta_prime: Delta) -> Result<f64> {
    check_rounds(rounds)?;
    let dp = check_positive_delta(delta_prime, "advanced")?;
    let sum_sq = mul_up(count_up(rounds), sq_up(epsilon0.get()));
    finite(advanced_core(sum_sq, dp))
}

/// Σεᵢ²/2 + √(2·ln(1/δ′)·Σεᵢ²), rounded up.
pub(crate) fn advanced_core(sum_eps_sq: f64, delta_prime: f64) -> f64 {
    let l = ln_inv_up(delta_prime);
    let root = sqrt_up(mul_up(mul_up(2.0, l), sum_eps_sq));
    add_up(div_up(sum_eps_sq, 2.0), root)
}

/// [`Rule::Advanced`] for the accountant: δ′ = δ − Σδᵢ.
pub(crate) struct Advanced;

impl CompositionRule for Advanced {
    fn rule(&self) -> Rule {
        Rule::Advanced
    }

    fn apply(&self, c: &Calls<'_>, target: f64, _: &ComposeOptions) -> Result<Applied> {
        let delta_prime = sub_down(target, c.sum_delta);
        Ok(if delta_prime > 0.0 {
            Applied::Guarantee {
                epsilon: advanced_core(c.sum_sq, delta_prime),
                delta: add_up(delta_prime, c.sum_delta),
            }
        } else {
            Applied::Inapplicable(format!(
                "needs the target δ to exceed the calls' own Σδᵢ = {} (δ′ = δ − Σδᵢ must be \
                 > 0)",
                c.sum_delta
            ))
        })
    }
}

// Reference values at δ = 1e-6 (3 decimals from the papers' tables) and values computed
// independently in Python (math.fsum / lgamma; closed forms) to ~1e-9.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::compose::test_support::*;

    #[test]
    fn known_values() {
        let del = d(1e-6);
        close(advanced(10, e(0.1), del).unwrap(), 1.712, 5e-4);
        close(
            advanced(10, e(0.1), del).unwrap(),
            1.7122581362691103,
            1e-12,
        );
        close(advanced(50, e(0.1), del).unwrap(), 3.967, 5e-4);
    }

    #[test]
    fn invalid_inputs() {
        assert!(advanced(0, e(0.1), d(1e-6)).is_err());
        assert!(advanced(10, e(0.1), Delta::ZERO).is_err());
    }
}
