//! What to mine: the query ([`ItemsetQuery`]: T, the mechanism among
//! [`ITEMSET_MECHANISMS`], ε, δ, the margin cap, the share for noisy counts), with the checks of
//! the sizes a caller controls.

use super::{MAX_MARGIN_LIMIT, MAX_TOP};
use crate::apps::margin::DEFAULT_MAX_MARGIN;
use crate::error::{Error, Result};
use crate::names::Named;
use crate::privacy::{Delta, Epsilon};
use crate::select::SelectorKind;

/// The mechanisms an itemset release can use: the large margin mechanisms over the itemsets
/// that occur, or the exponential mechanism over every itemset of a public item list.
pub const ITEMSET_MECHANISMS: &[SelectorKind] = &[
    SelectorKind::LargeMargin,
    SelectorKind::LargeMarginChaudhuri,
    SelectorKind::Exponential,
];

/// What to mine and with which budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ItemsetQuery {
    /// Number T of itemsets (peeling rounds), ≥ 1.
    pub top: usize,
    /// The selection mechanism.
    pub mechanism: SelectorKind,
    /// Total ε of the whole release.
    pub epsilon: Epsilon,
    /// Total δ (> 0 for the large margin mechanisms).
    pub delta: Delta,
    /// Public cap on the margin search (large margin mechanisms).
    pub max_margin: u64,
    /// Share s ∈ [0, 1) of ε spent on noisy frequencies of the released itemsets (0: none).
    pub count_share: f64,
}

impl ItemsetQuery {
    /// The top-1 itemset with `lmm`, margin cap [`DEFAULT_MAX_MARGIN`], no noisy counts.
    pub fn new(epsilon: Epsilon, delta: Delta) -> Self {
        Self {
            top: 1,
            mechanism: SelectorKind::LargeMargin,
            epsilon,
            delta,
            max_margin: DEFAULT_MAX_MARGIN,
            count_share: 0.0,
        }
    }

    /// Sets T.
    pub fn top(mut self, top: usize) -> Self {
        self.top = top;
        self
    }

    /// Sets the mechanism.
    pub fn mechanism(mut self, mechanism: SelectorKind) -> Self {
        self.mechanism = mechanism;
        self
    }

    /// Sets the margin cap.
    pub fn max_margin(mut self, max_margin: u64) -> Self {
        self.max_margin = max_margin;
        self
    }

    /// Sets the share of ε for noisy frequencies.
    pub fn count_share(mut self, share: f64) -> Self {
        self.count_share = share;
        self
    }
}

// The checks of a query's public options, each in one place: the release functions of this
// module and the `Itemsets` task call the same ones.

/// Refuses T = 0 and more than [`MAX_TOP`] rounds.
pub(crate) fn check_top(top: usize) -> Result<()> {
    if top == 0 || top > MAX_TOP {
        return Err(Error::param(
            "top",
            format!(
                "must be between 1 and {MAX_TOP} (each round takes a share of ε and a pass \
                 over the counts), got {top}"
            ),
        ));
    }
    Ok(())
}

/// Refuses a share of ε for the noisy frequencies outside [0, 1).
pub(crate) fn check_count_share(count_share: f64) -> Result<()> {
    if !(0.0..1.0).contains(&count_share) {
        return Err(Error::param(
            "count_share",
            format!("must be in [0, 1), got {count_share}"),
        ));
    }
    Ok(())
}

/// Refuses a mechanism outside [`ITEMSET_MECHANISMS`].
pub(crate) fn check_mechanism(mechanism: SelectorKind) -> Result<()> {
    if !ITEMSET_MECHANISMS.contains(&mechanism) {
        return Err(Error::param(
            "mechanism",
            format!(
                "{mechanism} cannot mine itemsets; expected one of {}",
                SelectorKind::list(ITEMSET_MECHANISMS)
            ),
        ));
    }
    Ok(())
}

/// Refuses δ = 0 for a large margin mechanism, which is (ε, δ)-DP.
pub(crate) fn check_delta(mechanism: SelectorKind, delta: f64) -> Result<()> {
    if mechanism.needs_delta() && delta <= 0.0 {
        return Err(Error::param(
            "delta",
            format!(
                "{} is (ε, δ)-DP and needs δ > 0, e.g. 1e-6",
                mechanism.name()
            ),
        ));
    }
    Ok(())
}

/// Refuses the exponential mechanism without a public item list: its universe (every
/// itemset of the list) must be fixed before the data is seen.
pub(crate) fn check_item_list(mechanism: SelectorKind, public: bool) -> Result<()> {
    if mechanism.margin_variant().is_none() && !public {
        return Err(Error::param(
            "items",
            "missing: the exponential mechanism (em) needs a public item list, its universe \
             (all itemsets of the list) fixed before seeing the data; use lmm without one",
        ));
    }
    Ok(())
}

/// Refuses a margin cap above [`MAX_MARGIN_LIMIT`].
pub(crate) fn check_max_margin(max_margin: u64) -> Result<()> {
    if max_margin > MAX_MARGIN_LIMIT {
        return Err(Error::param(
            "max_margin",
            format!(
                "at most {MAX_MARGIN_LIMIT} (the search draws noise for every margin it \
                 tests), got {max_margin}"
            ),
        ));
    }
    Ok(())
}
