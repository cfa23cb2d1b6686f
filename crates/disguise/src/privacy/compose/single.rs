//! [`Rule::Single`](super::Rule::Single): no composition — one call's own (ε₁, δ₁), for the
//! neighbour relation that call is private for. Applies iff there is exactly one call and
//! δ₁ ≤ δ.

use super::{Applied, Calls, ComposeOptions, CompositionRule, Rule};
use crate::error::Result;

/// [`Rule::Single`] for the accountant.
pub(crate) struct Single;

impl CompositionRule for Single {
    fn rule(&self) -> Rule {
        Rule::Single
    }

    fn apply(&self, c: &Calls<'_>, target: f64, _: &ComposeOptions) -> Result<Applied> {
        Ok(if c.calls != 1 {
            Applied::Inapplicable(format!("{} calls, not one", c.calls))
        } else if c.sum_delta <= target {
            Applied::Guarantee {
                epsilon: c.sum_eps,
                delta: c.sum_delta,
            }
        } else {
            Applied::Inapplicable(format!(
                "the call's own δ = {} exceeds the target δ",
                c.sum_delta
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::privacy::compose::test_support::*;
    use crate::privacy::compose::{ComposeOptions, Rule, compose};

    #[test]
    fn single_call() {
        let c = compose(&[br(0.5)], d(1e-6), ComposeOptions::default()).unwrap();
        assert_eq!(c.get(Rule::Single).unwrap().epsilon, 0.5);
        assert_eq!(c.get(Rule::Basic).unwrap().epsilon, 0.5);
        // KOV trades a little δ for ε even for one call: p(1 − e^{ε−ε₀}) ≤ δ.
        assert!(c.get(Rule::Kov).unwrap().epsilon < 0.5);
    }
}
