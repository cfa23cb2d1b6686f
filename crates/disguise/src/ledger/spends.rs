//! What each report of the library spends: the trait [`Spends`] and its implementations.
//! Every spend names the unit its report protects.

use super::{Spend, Unit};
use crate::error::{Error, Result};
use crate::maximize::Solution;
use crate::privacy::Guarantee;
use crate::privacy::compose::Rule;

/// What a run returns that a ledger can charge ([`Ledger::charge`](super::Ledger::charge)).
pub trait Spends {
    /// What the run spent, for the neighbour relation of its report's unit; `None` if it
    /// touched no data.
    ///
    /// # Errors
    /// A non-private run ([`Error::InvalidParameter`] naming `mechanism`).
    fn spend(&self) -> Result<Option<Spend>>;
}

impl Spend {
    /// What a greedy run spends, for neighbours that differ in one `unit`: its guarantee
    /// and the calls it composes; `None` when it spent nothing (no planned call).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `mechanism` for a non-private run (the argmax),
    /// which no budget can account for.
    pub fn of(solution: &Solution, unit: Unit) -> Result<Option<Self>> {
        if solution.planned_rounds == 0 {
            return Ok(None);
        }
        let Some(guarantee) = solution.guarantee else {
            return Err(non_private());
        };
        Ok(Some(Self {
            calls: solution.calls.clone(),
            mechanism: solution.selector.to_string(),
            secure: solution.secure_rng,
            ..Self::protecting(unit, guarantee)
        }))
    }
}

/// A solution of the library's algorithms on a set function of the caller's: record-level
/// (one person's record replaced), as the algorithms' guarantees are stated.
impl Spends for Solution {
    fn spend(&self) -> Result<Option<Spend>> {
        Spend::of(self, Unit::Record)
    }
}

impl Spends for crate::maximize::Assignment {
    fn spend(&self) -> Result<Option<Spend>> {
        Spend::of(&self.solution, Unit::Record)
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
        Ok(Some(Spend {
            calls: self.calls.clone(),
            secure: self.secure_rng,
            ..Spend::protecting(self.unit, guarantee)
        }))
    }
}

/// The selection tasks' reports: their privacy report (with the unit the task states),
/// mechanism and generator.
impl<P: crate::task::Params, C> Spends for crate::task::Report<P, C> {
    fn spend(&self) -> Result<Option<Spend>> {
        // The unit is the privacy report's, stated by the task.
        Ok(self
            .privacy
            .spend()?
            .map(|s| s.mechanism(self.task.mechanism()).secure(*self.secure_rng)))
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
            Spend::protecting(Unit::Record, guarantee)
                .mechanism("projected histogram (PRIVATEKD + thresholded Laplace)")
                .secure(*self.secure_rng),
        ))
    }
}

impl Spends for crate::apps::hypothesis::HypothesisSelection {
    fn spend(&self) -> Result<Option<Spend>> {
        match self.guarantee {
            Some(g) => Ok(Some(
                Spend::protecting(Unit::Record, g).secure(*self.secure_rng),
            )),
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
            Spend::protecting(
                Unit::Record,
                Guarantee {
                    epsilon: *self.epsilon,
                    delta: *self.delta,
                    rule,
                },
            )
            .mechanism(self.mechanism)
            .secure(*self.secure_rng),
        ))
    }
}

impl Spends for Spend {
    fn spend(&self) -> Result<Option<Spend>> {
        Ok(Some(self.clone()))
    }
}

/// The error of a non-private run under a ledger.
fn non_private() -> Error {
    Error::param(
        "mechanism",
        "max is not private: a budget ledger cannot account for it (choose a private \
         mechanism, or run without the ledger)",
    )
}
