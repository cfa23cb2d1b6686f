//! The selection procedure of an algorithm: which mechanism, with what budget.

use crate::disclosure::Public;
use crate::error::{Error, Result};
use crate::names::Named;
use crate::privacy::budget::{BestBudget, BudgetQuery, CallKind, plan};
use crate::privacy::compose::Rule;
use crate::privacy::{Delta, Epsilon};
use crate::select::{Argmax, Selector, SelectorKind};
use serde::Serialize;

/// How much privacy a run may spend.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Budget {
    /// Each selector call gets (ε₀, δ₀) (δ₀ > 0 only for the large margin mechanisms). The
    /// end-to-end guarantee is reported at total failure probability `delta` (which the
    /// advanced and zCDP rules need; with `delta` = 0 only basic composition applies).
    PerRound {
        /// ε₀ of every call.
        epsilon0: Epsilon,
        /// δ₀ of every call.
        delta0: Delta,
        /// The total δ at which the end-to-end ε is reported.
        delta: Delta,
    },
    /// A total (ε, δ) for the whole run: the accountant finds the largest per-round budget
    /// whose composition over the planned number of rounds stays within it, using the
    /// decomposable rule only when the objective is decomposable.
    Total {
        /// Total ε.
        epsilon: Epsilon,
        /// Total δ.
        delta: Delta,
    },
    /// A total (ε, δ) for the whole run, split by one named composition rule instead of the
    /// best one ([`Budget::total_by_rule`]). The run errors if the rule does not apply to the
    /// mechanism, objective and algorithm (e.g. the decomposable rule with the large margin
    /// mechanism, or KOV with approximate calls). The end-to-end guarantee is still the best
    /// the accountant can prove for the calls made, which may use another rule.
    TotalByRule {
        /// Total ε.
        epsilon: Epsilon,
        /// Total δ.
        delta: Delta,
        /// The rule that sets the per-round budget.
        rule: Rule,
    },
}

impl Budget {
    /// A per-round budget ε₀ with δ₀ = 0, reported as pure (basic composition) unless
    /// `delta` > 0.
    ///
    /// ```
    /// use disguise::maximize::Budget;
    /// assert!(Budget::per_round(0.1, 0.0, 1e-6).is_ok());
    /// assert!(Budget::per_round(-1.0, 0.0, 0.0).is_err());
    /// ```
    pub fn per_round(epsilon0: f64, delta0: f64, delta: f64) -> Result<Self> {
        // Spent at most as typed (see `Epsilon::total`).
        Ok(Budget::PerRound {
            epsilon0: Epsilon::new(crate::numeric::decimal::at_most_typed(epsilon0))?,
            delta0: Delta::total(delta0)?,
            delta: Delta::total(delta)?,
        })
    }

    /// A total budget (ε, δ) for the whole run.
    ///
    /// ```
    /// use disguise::maximize::Budget;
    /// assert!(Budget::total(1.0, 1e-6).is_ok());
    /// assert!(Budget::total(1.0, 1.0).is_err());
    /// ```
    pub fn total(epsilon: f64, delta: f64) -> Result<Self> {
        // Spent at most as typed (see `Epsilon::total`).
        Ok(Budget::Total {
            epsilon: Epsilon::new(crate::numeric::decimal::at_most_typed(epsilon))?,
            delta: Delta::total(delta)?,
        })
    }

    /// A total budget (ε, δ) split by `rule` (see [`Budget::TotalByRule`]).
    ///
    /// ```
    /// use disguise::maximize::Budget;
    /// use disguise::privacy::compose::Rule;
    /// assert!(Budget::total_by_rule(1.0, 1e-6, Rule::Basic).is_ok());
    /// assert!(Budget::total_by_rule(0.0, 1e-6, Rule::Basic).is_err());
    /// ```
    pub fn total_by_rule(epsilon: f64, delta: f64, rule: Rule) -> Result<Self> {
        Ok(Budget::TotalByRule {
            epsilon: Epsilon::new(crate::numeric::decimal::at_most_typed(epsilon))?,
            delta: Delta::total(delta)?,
            rule,
        })
    }

    /// The total δ at which guarantees are reported.
    pub fn reporting_delta(&self) -> Delta {
        match *self {
            Budget::PerRound { delta, .. }
            | Budget::Total { delta, .. }
            | Budget::TotalByRule { delta, .. } => delta,
        }
    }
}

/// The selection procedure an algorithm uses in every round.
#[derive(Clone, Copy)]
pub enum Procedure<'a> {
    /// A private mechanism calibrated from a budget.
    Private {
        /// Which mechanism: one with a [`SelectorKind::call_kind`] (em, lmm,
        /// lmm-chaudhuri, report-noisy-max); the others are refused when the run starts.
        mechanism: SelectorKind,
        /// How much it may spend.
        budget: Budget,
    },
    /// The non-private argmax (the papers' `MAX`): standard greedy, no guarantee.
    Argmax,
    /// A selector you built and calibrated yourself, used as-is in every round; its
    /// [`Selector::cost`] is what the accountant composes, reported at total δ `delta`.
    Custom {
        /// The selector.
        selector: &'a dyn Selector,
        /// The total δ at which the end-to-end ε is reported.
        delta: Delta,
    },
}

impl std::fmt::Debug for Procedure<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Procedure::Private { mechanism, budget } => f
                .debug_struct("Private")
                .field("mechanism", mechanism)
                .field("budget", budget)
                .finish(),
            Procedure::Argmax => f.write_str("Argmax"),
            Procedure::Custom { selector, delta } => f
                .debug_struct("Custom")
                .field("selector", &selector.name())
                .field("delta", delta)
                .finish(),
        }
    }
}

impl<'a> Procedure<'a> {
    /// A private mechanism with a budget (shorthand for [`Procedure::Private`]).
    pub fn private(mechanism: SelectorKind, budget: Budget) -> Self {
        Procedure::Private { mechanism, budget }
    }

    /// A custom selector with pure reporting (δ = 0).
    pub fn custom(selector: &'a dyn Selector) -> Self {
        Procedure::Custom {
            selector,
            delta: Delta::ZERO,
        }
    }

    /// The selector for a run of `rounds` calls, the δ at which to report, the budget split
    /// (for a total budget) and whether the decomposable rule may be used.
    ///
    /// `decomposable` says the objective is decomposable *and* the algorithm is Algorithm 1
    /// or 2; the rule is then offered only for [`SelectorKind::Exponential`] (the standard
    /// exponential mechanism its proof covers), never for a custom selector, whose nature
    /// the library cannot check.
    pub(super) fn resolve(&self, rounds: usize, decomposable: bool) -> Result<Resolved<'a>> {
        match *self {
            Procedure::Argmax => Ok(Resolved {
                selector: SelectorRef::Owned(Box::new(Argmax)),
                delta: Delta::ZERO,
                split: None,
                decomposable: false,
            }),
            Procedure::Custom { selector, delta } => Ok(Resolved {
                selector: SelectorRef::Borrowed(selector),
                delta,
                split: None,
                decomposable: false,
            }),
            Procedure::Private { mechanism, budget } => {
                let kind = call_kind(mechanism)?;
                let decomposable = decomposable && mechanism == SelectorKind::Exponential;
                let (epsilon0, delta0, split) = match budget {
                    Budget::PerRound {
                        epsilon0, delta0, ..
                    } => (epsilon0, delta0, None),
                    // Zero rounds spend nothing: any valid selector will do (it is never called).
                    Budget::Total { epsilon, delta }
                    | Budget::TotalByRule { epsilon, delta, .. }
                        if rounds == 0 =>
                    {
                        let delta0 = if mechanism.needs_delta() {
                            delta
                        } else {
                            Delta::ZERO
                        };
                        (epsilon, delta0, None)
                    }
                    Budget::Total { epsilon, delta }
                    | Budget::TotalByRule { epsilon, delta, .. } => {
                        let forced = match budget {
                            Budget::TotalByRule { rule, .. } => Some(rule),
                            _ => None,
                        };
                        let best = split_total(
                            mechanism,
                            kind,
                            epsilon,
                            delta,
                            rounds,
                            decomposable,
                            forced,
                        )?;
                        (
                            Epsilon::new(best.per_round_epsilon)?,
                            Delta::new(best.per_round_delta)?,
                            Some(best),
                        )
                    }
                };
                if !mechanism.needs_delta() && delta0.get() > 0.0 {
                    // It would be silently wasted.
                    return Err(Error::param(
                        "delta0",
                        format!(
                            "{mechanism} is pure ε-DP per call; a per-round δ₀ = {} applies \
                             only to the large margin mechanisms",
                            delta0.get()
                        ),
                    ));
                }
                Ok(Resolved {
                    selector: SelectorRef::Owned(mechanism.build(epsilon0, delta0)?),
                    delta: budget.reporting_delta(),
                    split,
                    decomposable,
                })
            }
        }
    }
}

/// The largest per-round budget for `mechanism` (calls of `kind`) whose composition over `rounds` calls stays
/// within the total (ε, δ), under the accountant's best rule (`privacy::budget::plan`), or
/// under `forced` when given (an error naming why if that rule does not apply).
fn split_total(
    mechanism: SelectorKind,
    kind: CallKind,
    epsilon: Epsilon,
    delta: Delta,
    rounds: usize,
    decomposable: bool,
    forced: Option<Rule>,
) -> Result<BestBudget> {
    let rounds = u64::try_from(rounds)
        .map_err(|_| Error::Overflow(format!("{rounds} rounds do not fit in u64")))?;
    let query = BudgetQuery {
        epsilon,
        delta,
        rounds,
        kind,
        decomposable,
    };
    let plan = plan(&query)?;
    if let Some(rule) = forced {
        let Some(entry) = plan.rules.iter().find(|r| r.rule == rule) else {
            let why = match rule {
                Rule::Decomposable => {
                    "it applies only to the exponential mechanism in greedy (Algorithms 1 and 2) \
                     on a decomposable objective"
                        .to_string()
                }
                _ => "it does not split a budget over rounds".to_string(),
            };
            return Err(Error::param(
                "composition",
                format!(
                    "the {rule} rule cannot be used with {} here: {why}",
                    mechanism.name()
                ),
            ));
        };
        return match (entry.valid, entry.per_round_epsilon) {
            (true, Some(e0)) => Ok(BestBudget {
                rule,
                per_round_epsilon: e0,
                per_round_delta: entry.per_round_delta.unwrap_or(0.0),
            }),
            _ => Err(Error::param(
                "composition",
                format!(
                    "the {rule} rule cannot split (ε = {}, δ = {}) over {rounds} rounds of \
                     {}: {}",
                    epsilon.get(),
                    delta.get(),
                    mechanism.name(),
                    entry.note.as_deref().unwrap_or("it does not apply")
                ),
            )),
        };
    }
    plan.best.map(Public::into_inner).ok_or_else(|| {
        let reasons: Vec<String> = plan
            .rules
            .iter()
            .filter_map(|r| r.note.as_ref().map(|n| format!("{}: {n}", r.rule.name())))
            .collect();
        Error::param(
            "budget",
            format!(
                "no composition rule can split (ε = {}, δ = {}) over {rounds} rounds of {} ({})",
                epsilon.get(),
                delta.get(),
                mechanism.name(),
                reasons.join("; ")
            ),
        )
    })
}

/// The call kind of a mechanism a greedy round may use, or an error naming why not.
fn call_kind(mechanism: SelectorKind) -> Result<CallKind> {
    mechanism.call_kind().ok_or_else(|| {
        Error::param(
            "mechanism",
            format!(
                "{mechanism} cannot be calibrated from a budget for the rounds of a greedy \
                 (use em, lmm, lmm-chaudhuri or report-noisy-max, or Procedure::Argmax)"
            ),
        )
    })
}

/// A selector ready for a run.
pub(super) struct Resolved<'a> {
    pub selector: SelectorRef<'a>,
    /// The total δ at which to report the guarantee.
    pub delta: Delta,
    /// How a total budget was split, if it was.
    pub split: Option<BestBudget>,
    /// Whether the decomposable rule may be used.
    pub decomposable: bool,
}

/// An owned or borrowed selector.
pub(super) enum SelectorRef<'a> {
    Owned(Box<dyn Selector>),
    Borrowed(&'a dyn Selector),
}

impl SelectorRef<'_> {
    pub fn get(&self) -> &dyn Selector {
        match self {
            SelectorRef::Owned(s) => s.as_ref(),
            SelectorRef::Borrowed(s) => *s,
        }
    }
}
