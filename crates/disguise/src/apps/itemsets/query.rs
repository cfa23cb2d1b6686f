//! What to mine: the selection mechanism ([`ItemsetMechanism`]) and the query
//! ([`ItemsetQuery`]: T, ε, δ, the margin cap, the share for noisy counts), with the checks of
//! the sizes a caller controls.

use super::{MAX_MARGIN_LIMIT, MAX_TOP};
use crate::apps::margin::{DEFAULT_MAX_MARGIN, MarginVariant};
use crate::error::{Error, Result};
use crate::names::{Named, named_traits};
use crate::privacy::{Delta, Epsilon};
use serde::Serialize;

/// The selection mechanism of [`mine_itemsets`](super::mine_itemsets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemsetMechanism {
    /// The large margin mechanism of Mitrovic et al. 2017 over the occurring itemsets.
    Lmm,
    /// The large margin mechanism of Chaudhuri et al. 2014 over the occurring itemsets.
    LmmChaudhuri,
    /// The exponential mechanism over the full universe of a public item list.
    Em,
}

impl ItemsetMechanism {
    /// `lmm`, `lmm-chaudhuri` or `em`.
    pub fn name(self) -> &'static str {
        match self {
            ItemsetMechanism::Lmm => "lmm",
            ItemsetMechanism::LmmChaudhuri => "lmm-chaudhuri",
            ItemsetMechanism::Em => "em",
        }
    }

    pub(crate) fn variant(self) -> Option<MarginVariant> {
        match self {
            ItemsetMechanism::Lmm => Some(MarginVariant::Mitrovic),
            ItemsetMechanism::LmmChaudhuri => Some(MarginVariant::Chaudhuri),
            ItemsetMechanism::Em => None,
        }
    }
}

impl Named for ItemsetMechanism {
    const KIND: &'static str = "mechanism";
    const ALL: &'static [Self] = &[
        ItemsetMechanism::Lmm,
        ItemsetMechanism::LmmChaudhuri,
        ItemsetMechanism::Em,
    ];

    fn name(self) -> &'static str {
        ItemsetMechanism::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            ItemsetMechanism::Lmm => {
                "The large margin mechanism of Mitrovic et al. 2017 over the occurring itemsets"
            }
            ItemsetMechanism::LmmChaudhuri => {
                "The large margin mechanism of Chaudhuri et al. 2014 over the occurring itemsets"
            }
            ItemsetMechanism::Em => {
                "The exponential mechanism over all C(|items|, r) itemsets (needs a public item list)"
            }
        }
    }
}

named_traits!(ItemsetMechanism);

/// What to mine and with which budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ItemsetQuery {
    /// Number T of itemsets (peeling rounds), ≥ 1.
    pub top: usize,
    /// The selection mechanism.
    pub mechanism: ItemsetMechanism,
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
            mechanism: ItemsetMechanism::Lmm,
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
    pub fn mechanism(mut self, mechanism: ItemsetMechanism) -> Self {
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

/// Refuses δ = 0 for a large margin mechanism, which is (ε, δ)-DP.
pub(crate) fn check_delta(mechanism: ItemsetMechanism, delta: f64) -> Result<()> {
    if mechanism.variant().is_some() && delta <= 0.0 {
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
pub(crate) fn check_item_list(mechanism: ItemsetMechanism, public: bool) -> Result<()> {
    if mechanism.variant().is_none() && !public {
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
