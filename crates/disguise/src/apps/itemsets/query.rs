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

/// Refuses more than [`MAX_TOP`] rounds.
pub(super) fn check_top(top: usize) -> Result<()> {
    if top > MAX_TOP {
        return Err(Error::param(
            "top",
            format!(
                "at most {MAX_TOP} itemsets can be released (each round takes a share of ε \
                 and a pass over the counts), got {top}"
            ),
        ));
    }
    Ok(())
}

/// Refuses a margin cap above [`MAX_MARGIN_LIMIT`].
pub(super) fn check_max_margin(max_margin: u64) -> Result<()> {
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
