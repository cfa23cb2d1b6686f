//! What an itemset release returns: one [`ItemsetPick`] per peeling round (with its
//! [`ItemsetOutcome`]) and the whole [`ItemsetRelease`] with its guarantee.

use crate::privacy::Guarantee;
use serde::Serialize;

/// What one peeling round released.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemsetOutcome {
    /// An itemset that occurs in the data.
    Occurring,
    /// An itemset of frequency 0: named (from the public item list) if `itemset` is set,
    /// otherwise "no itemset" (no item list to name one from; peeling stops).
    NotOccurring,
    /// No margin was found up to the cap and the universe is unknown: no itemset (peeling
    /// stops).
    NoMargin,
}

/// One released itemset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemsetPick {
    /// Round (1-based).
    pub round: usize,
    /// The itemset's item names (canonical order); `None` when nothing was released.
    pub itemset: Option<Vec<String>>,
    /// What happened.
    pub outcome: ItemsetOutcome,
    /// The margin ℓ of the large margin mechanisms (`None` for `em` and for
    /// [`ItemsetOutcome::NoMargin`]).
    pub margin: Option<u64>,
    /// True count in the (truncated) data — **NOT PRIVATE**, for evaluation only.
    pub true_count: u64,
    /// True frequency count/n — **NOT PRIVATE**, for evaluation only.
    pub true_frequency: f64,
    /// The private noisy frequency (with `count_share` > 0), clamped to [0, 1].
    pub noisy_frequency: Option<f64>,
}

/// A private top-T itemset release and its guarantee.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemsetRelease {
    /// The rounds' results (fewer than T when peeling stopped).
    pub picks: Vec<ItemsetPick>,
    /// The mechanism's name.
    pub mechanism: &'static str,
    /// Number n of transactions (public).
    pub transactions: usize,
    /// Itemset size r.
    pub size: usize,
    /// Maximum transaction length B.
    pub max_length: usize,
    /// Number of items in the public list (`None` without one).
    pub universe_items: Option<usize>,
    /// C(|I|, r), the universe size, in decimal (`None` without an item list).
    pub universe_size: Option<String>,
    /// The margin-search cap.
    pub max_margin: u64,
    /// ε₀ of each selection round.
    pub per_round_epsilon: f64,
    /// δ₀ of each selection round.
    pub per_round_delta: f64,
    /// The rule that split the selection budget over the rounds.
    pub split_rule: &'static str,
    /// The selection rounds' composed guarantee.
    pub selection_guarantee: Guarantee,
    /// ε of the noisy-frequency release (`None` without).
    pub count_epsilon: Option<f64>,
    /// Laplace scale of the noisy counts (`None` without).
    pub count_scale: Option<f64>,
    /// End-to-end ε: the selection's ε plus the counts' ε (basic composition).
    pub epsilon: f64,
    /// End-to-end δ.
    pub delta: f64,
    /// Number L of occurring itemsets — **NOT PRIVATE** (a diagnostic).
    pub occurring: usize,
    /// Transactions cut to B items — **NOT PRIVATE** (a diagnostic).
    pub truncated: usize,
    /// Whether the generator was keyed by the operating system (a seeded run is
    /// reproducible by anyone and protects no one, whatever the guarantee says).
    pub secure_rng: bool,
}
