//! What each report of the library spends: the trait [`Spends`] and its implementations.

use super::{Spend, non_private};
use crate::error::{Error, Result};
use crate::maximize::Solution;
use crate::privacy::Guarantee;
use crate::privacy::compose::Rule;

/// What a run returns that a ledger can charge ([`Ledger::charge`](super::Ledger::charge)).
pub trait Spends {
    /// What the run spent; `None` if it touched no data.
    ///
    /// # Errors
    /// A non-private run ([`Error::InvalidParameter`] naming `mechanism`).
    fn spend(&self) -> Result<Option<Spend>>;
}

impl Spends for Solution {
    fn spend(&self) -> Result<Option<Spend>> {
        Spend::of(self)
    }
}

impl Spends for crate::maximize::Assignment {
    fn spend(&self) -> Result<Option<Spend>> {
        Spend::of(&self.solution)
    }
}

impl Spends for crate::task::PrivacyReport {
    fn spend(&self) -> Result<Option<Spend>> {
        if *self.rounds == 0 {
            return Ok(None);
        }
        let Some(guarantee) = self.guarantee else {
            return Err(non_private());
        };
        let mut spend = Spend::new(guarantee)
            .secure(self.secure_rng)
            .unit(self.unit);
        spend.calls = self.calls.clone();
        Ok(Some(spend))
    }
}

/// The selection tasks' reports: their privacy report, mechanism, generator and the unit
/// their guarantee protects.
impl<P: crate::task::Params, C> Spends for crate::task::Report<P, C> {
    fn spend(&self) -> Result<Option<Spend>> {
        // The unit is the privacy report's, stated by the task.
        Ok(self.privacy.spend()?.map(|s| {
            s.mechanism(self.task.mechanism())
                .secure(*self.secure_rng)
        }))
    }
}

impl Spends for crate::histogram::ProjectedHistogram {
    fn spend(&self) -> Result<Option<Spend>> {
        let Some(guarantee) = self.guarantee else {
            return Err(Error::param(
                "bounds_from_data",
                "the release has no guarantee (its domains were taken from the data): a \
                 budget ledger cannot account for it; give every domain in the schema",
            ));
        };
        Ok(Some(
            Spend::new(guarantee)
                .mechanism("projected histogram (PRIVATEKD + thresholded Laplace)")
                .secure(self.secure_rng),
        ))
    }
}

impl Spends for crate::apps::hypothesis::HypothesisSelection {
    fn spend(&self) -> Result<Option<Spend>> {
        match self.guarantee {
            Some(g) => Ok(Some(Spend::new(g).secure(self.secure_rng))),
            None => Err(non_private()),
        }
    }
}

impl Spends for crate::apps::ItemsetRelease {
    fn spend(&self) -> Result<Option<Spend>> {
        let rule = if self.count_epsilon.is_some() {
            Rule::Basic
        } else {
            self.selection_guarantee.rule
        };
        Ok(Some(
            Spend::new(Guarantee {
                epsilon: self.epsilon,
                delta: self.delta,
                rule,
            })
            .mechanism(self.mechanism)
            .secure(self.secure_rng),
        ))
    }
}

impl Spends for Spend {
    fn spend(&self) -> Result<Option<Spend>> {
        Ok(Some(self.clone()))
    }
}
