//! [`Rule::Basic`](super::Rule::Basic): basic composition (Dwork–Roth 2014 Thm 3.16):
//! ε = Σεᵢ, δ = Σδᵢ, for any private calls and any neighbour relation the calls are private
//! for. Applies iff Σδᵢ ≤ δ.

use super::{Applied, Calls, ComposeOptions, CompositionRule, Rule};
use super::{check_rounds, finite, round::*};
use crate::error::Result;
use crate::privacy::Epsilon;

/// Basic composition of `rounds` calls of ε₀: ε = k·ε₀ (rounded up, then reported as a
/// decimal at or above it: [`crate::numeric::decimal::tidy_up`]).
///
/// δ composes the same way (Σδᵢ); for pure calls it is 0.
///
/// ```
/// use disguise::privacy::{compose, Epsilon};
/// // ε₀ = 0.1 as typed is spent at the double just below 0.1: ten calls are at most 1.
/// assert_eq!(compose::basic(10, Epsilon::total(0.1)?)?, 1.0);
/// // The double nearest 0.1 is a hair above it: ten calls are a hair above 1.
/// assert!(compose::basic(10, Epsilon::new(0.1)?)? > 1.0);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn basic(rounds: u64, epsilon0: Epsilon) -> Result<f64> {
    check_rounds(rounds)?;
    finite(basic_core(rounds, epsilon0.get()))
}

pub(crate) fn basic_core(rounds: u64, eps0: f64) -> f64 {
    mul_up(count_up(rounds), eps0)
}

/// [`Rule::Basic`] for the accountant.
pub(crate) struct Basic;

impl CompositionRule for Basic {
    fn rule(&self) -> Rule {
        Rule::Basic
    }

    fn apply(&self, c: &Calls<'_>, target: f64, _: &ComposeOptions) -> Result<Applied> {
        Ok(if c.sum_delta <= target {
            Applied::Guarantee {
                epsilon: c.sum_eps,
                delta: c.sum_delta,
            }
        } else {
            Applied::Inapplicable(format!(
                "the calls' own Σδᵢ = {} exceeds the target δ",
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
    use num_rational::BigRational;

    #[test]
    fn known_values() {
        close(basic(10, e(0.1)).unwrap(), 1.000, 5e-4);
        close(basic(50, e(0.1)).unwrap(), 5.0, 5e-4);
    }

    #[test]
    fn the_sum_is_rounded_up() {
        // fl(0.1) > 0.1, so 10·fl(0.1) > 1 exactly and the result must exceed 1.
        let b = basic(10, e(0.1)).unwrap();
        let exact = |x: f64| BigRational::from_float(x).unwrap();
        assert!(exact(b) >= exact(0.1) * BigRational::from_integer(10.into()));
        assert!(b > 1.0);
    }

    #[test]
    fn no_rounds_is_refused() {
        assert!(basic(0, e(0.1)).is_err());
    }
}
