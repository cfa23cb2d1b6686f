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
