//! The budget of an itemset release ([`ItemsetBudget`]), from public parameters only: how the
//! total (ε, δ) is split over the T selections and the noisy counts, and the guarantee the
//! accountant proves for it.

use super::ItemsetQuery;
use super::query::{check_count_share, check_delta, check_mechanism, check_top};
use crate::error::{Error, Result};
use crate::noise::laplace_scale_for;
use crate::numeric::combinatorics::binomial_capped;
use crate::numeric::round::{add_up, nudge_down, sub_down};
use crate::privacy::budget::{BudgetQuery, CallKind, plan};
use crate::privacy::compose::{Accountant, ComposeOptions};
use crate::privacy::{Delta, Epsilon, Guarantee, PrivacyCost};

/// The budget of an itemset release, computed from public parameters only: the per-round
/// (ε₀, δ₀) of the T selections, the composed selection guarantee, the noisy-count Laplace
/// scale and the end-to-end (ε, δ). Computing it once and reusing it
/// ([`mine_itemsets_with_budget`](super::mine_itemsets_with_budget)) saves the composition
/// work in repeated runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ItemsetBudget {
    pub(super) epsilon0: Epsilon,
    pub(super) delta0: Delta,
    pub(super) split_rule: &'static str,
    pub(super) selection: Guarantee,
    pub(super) count_epsilon: Option<f64>,
    pub(super) count_scale: Option<f64>,
    pub(super) epsilon: f64,
}

impl ItemsetBudget {
    /// The budget of `query` for itemsets of `size` items from transactions cut to
    /// `max_length` items.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for T = 0, a `count_share` outside [0, 1), δ = 0 with a
    /// large margin mechanism, or a budget that no rule can split.
    pub fn new(query: &ItemsetQuery, size: usize, max_length: usize) -> Result<Self> {
        check_top(query.top)?;
        check_count_share(query.count_share)?;
        check_mechanism(query.mechanism)?;
        check_delta(query.mechanism, query.delta.get())?;
        let lmm = query.mechanism.needs_delta();
        let eps = query.epsilon.get();
        let eps_select = eps * (1.0 - query.count_share);
        let kind = if lmm {
            CallKind::Approximate
        } else {
            CallKind::BoundedRange
        };
        let rounds = query.top as u64;
        let split =
            plan(&BudgetQuery::new(eps_select, query.delta.get(), rounds)?.with_kind(kind))?;
        let best = split.best.ok_or_else(|| {
            Error::param(
                "epsilon",
                "no composition rule can split this budget over the rounds",
            )
        })?;
        let epsilon0 = Epsilon::new(best.per_round_epsilon)?;
        let delta0 = Delta::new(best.per_round_delta)?;
        let cost = if lmm {
            PrivacyCost::Approximate {
                epsilon: epsilon0,
                delta: delta0,
            }
        } else {
            PrivacyCost::BoundedRange { epsilon: epsilon0 }
        };
        let mut accountant = Accountant::new();
        accountant.record_many(cost, rounds);
        let selection = accountant
            .compose(query.delta, ComposeOptions::default())?
            .best
            .ok_or_else(|| Error::param("epsilon", "the accountant proved no guarantee"))?;
        let (mut count_epsilon, mut count_scale) = (None, None);
        if query.count_share > 0.0 {
            // The counts get s·ε, but never more than what the proved selection ε leaves of
            // the total (rounded so that the reported sum stays ≤ ε).
            let mut eps_c = (eps * query.count_share).min(sub_down(eps, selection.epsilon));
            while eps_c > 0.0 && add_up(selection.epsilon, eps_c) > eps {
                eps_c = nudge_down(eps_c, 1);
            }
            if eps_c <= 0.0 {
                return Err(Error::param(
                    "count_share",
                    "the selection leaves no budget for the noisy frequencies",
                ));
            }
            // L1 sensitivity of the T released counts: a replaced transaction changes only
            // the counts of itemsets inside the old or the new transaction (C(B, r) each).
            let per_side = binomial_capped(max_length as u64, size as u64, u128::from(u64::MAX))
                .map_or(u64::MAX, |c| (c as u64).saturating_mul(2));
            let l1 = rounds.min(per_side);
            count_scale = Some(laplace_scale_for(l1 as f64, eps_c)?);
            count_epsilon = Some(eps_c);
        }
        // Reported as a decimal at or above the sum (`numeric::decimal`).
        let epsilon = match count_epsilon {
            Some(e) => crate::numeric::decimal::tidy_up(add_up(selection.epsilon, e)),
            None => selection.epsilon,
        };
        Ok(Self {
            epsilon0,
            delta0,
            split_rule: best.rule.name(),
            selection,
            count_epsilon,
            count_scale,
            epsilon,
        })
    }

    /// What a release of `top` itemsets with this budget spends, as a task's privacy report:
    /// its guarantee and the calls it composes (the `top` selections, and the noisy counts'
    /// one pure ε_c call) — computed from public parameters only, so that a budget ledger
    /// can reserve it before any transaction is read.
    pub fn planned(&self, top: usize, lmm: bool) -> crate::task::PrivacyReport {
        let selection = if lmm {
            PrivacyCost::Approximate {
                epsilon: self.epsilon0,
                delta: self.delta0,
            }
        } else {
            PrivacyCost::BoundedRange {
                epsilon: self.epsilon0,
            }
        };
        let mut calls = vec![(selection, top as u64)];
        if let Some(epsilon) = self.count_epsilon.and_then(|e| Epsilon::new(e).ok()) {
            calls.push((PrivacyCost::Pure { epsilon }, 1));
        }
        let rule = if self.count_epsilon.is_some() {
            crate::privacy::compose::Rule::Basic
        } else {
            self.selection.rule
        };
        crate::task::PrivacyReport {
            per_round_epsilon: Some(crate::disclosure::Public::new(self.epsilon0.get())),
            per_round_delta: Some(crate::disclosure::Public::new(self.delta0.get())),
            composition: Some(self.split_rule),
            ..crate::task::PrivacyReport::stating(
                Some(Guarantee {
                    epsilon: self.epsilon,
                    delta: self.selection.delta,
                    rule,
                }),
                top,
                calls,
            )
        }
    }

    /// ε₀ of each selection round.
    pub fn per_round_epsilon(&self) -> Epsilon {
        self.epsilon0
    }

    /// δ₀ of each selection round.
    pub fn per_round_delta(&self) -> Delta {
        self.delta0
    }

    /// End-to-end ε.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// End-to-end δ.
    pub fn delta(&self) -> f64 {
        self.selection.delta
    }
}
