//! What an itemset release returns: one [`ItemsetPick`] per peeling round (with its
//! [`ItemsetOutcome`]) and the whole [`ItemsetRelease`] with its guarantee.
//!
//! What a release shows ([`crate::disclosure`]): the picks (itemsets, margins, outcomes,
//! noisy frequencies) are released; the public options and sizes are public; the exact
//! counts and frequencies of the picks, whether a pick occurs in the data, the number of
//! occurring itemsets and of cut transactions are [`Diagnostic`]s, shown only on request.

use crate::disclosure::{Diagnostic, Disclose, Public, Released};
use crate::privacy::Guarantee;
use serde::Serialize;

/// What one peeling round released: a function of the mechanism's output only, never of an
/// exact count (whether a named itemset occurs in the data is the pick's diagnostic
/// [`ItemsetPick::occurs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemsetOutcome {
    /// An itemset was released: one of the occurring itemsets, or with a public item list
    /// possibly a uniformly random zero-frequency one (the mechanism's output does not say
    /// which).
    Itemset,
    /// The pick fell in the block of zero-frequency itemsets and there is no item list to
    /// name one from: no itemset (peeling stops).
    ZeroFrequency,
    /// No margin was found up to the cap and the universe is unknown: no itemset (peeling
    /// stops).
    NoMargin,
}

/// One round's result: the released itemset (or none), and its exact count as a diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct ItemsetPick {
    /// Round (1-based).
    pub round: Released<usize>,
    /// The itemset's item names (canonical order); `None` when nothing was released.
    pub itemset: Released<Option<Vec<String>>>,
    /// What happened.
    pub outcome: Released<ItemsetOutcome>,
    /// The margin ℓ of the large margin mechanisms (`None` for `em` and for
    /// [`ItemsetOutcome::NoMargin`]).
    pub margin: Released<Option<u64>>,
    /// The private noisy frequency (with `count_share` > 0), clamped to [0, 1].
    pub noisy_frequency: Released<Option<f64>>,
    /// Whether the itemset occurs in the (truncated) data (NOT private: with a public item
    /// list, a released itemset may be a zero-frequency one).
    #[serde(skip)]
    pub occurs: Diagnostic<bool>,
    /// True count in the (truncated) data (NOT private).
    #[serde(skip)]
    pub true_count: Diagnostic<u64>,
    /// True frequency count/n (NOT private).
    #[serde(skip)]
    pub true_frequency: Diagnostic<f64>,
}

/// A private top-T release and its guarantee: the public options and sizes, the picks, and
/// the data's statistics as diagnostics.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct ItemsetRelease {
    /// The rounds' results (fewer than T when peeling stopped).
    pub picks: Vec<ItemsetPick>,
    /// The mechanism's name.
    pub mechanism: &'static str,
    /// Number n of transactions (public).
    pub transactions: Public<usize>,
    /// Itemset size r.
    pub size: Public<usize>,
    /// Maximum transaction length B.
    pub max_length: Public<usize>,
    /// Number of items in the public list (`None` without one).
    pub universe_items: Option<Public<usize>>,
    /// C(|I|, r), the universe size, in decimal (`None` without an item list).
    pub universe_size: Option<Public<String>>,
    /// The margin-search cap.
    pub max_margin: Public<u64>,
    /// ε₀ of each selection round.
    pub per_round_epsilon: Public<f64>,
    /// δ₀ of each selection round.
    pub per_round_delta: Public<f64>,
    /// The rule that split the selection budget over the rounds.
    pub split_rule: &'static str,
    /// The selection rounds' composed guarantee (planned from the options).
    pub selection_guarantee: Guarantee,
    /// ε of the noisy-frequency release (`None` without).
    pub count_epsilon: Option<Public<f64>>,
    /// Laplace scale of the noisy counts (`None` without).
    pub count_scale: Option<Public<f64>>,
    /// End-to-end ε: the selection's ε plus the counts' ε (basic composition).
    pub epsilon: Public<f64>,
    /// End-to-end δ.
    pub delta: Public<f64>,
    /// Number L of occurring itemsets (NOT private).
    #[serde(skip)]
    pub occurring: Diagnostic<usize>,
    /// Transactions cut to B items (NOT private).
    #[serde(skip)]
    pub truncated: Diagnostic<usize>,
    /// Whether the generator was keyed by the operating system (a seeded run is
    /// reproducible by anyone and protects no one, whatever the guarantee says).
    pub secure_rng: Public<bool>,
}
