//! Applications of private selection (chaudhuri2014, Section 4): private frequent itemset
//! mining and private hypothesis selection, and the machinery they need to run the large
//! margin mechanism over universes too large to enumerate.
//!
//! * [`itemsets`] — the most frequent itemsets of size r ([`mine_itemsets`]), with the large
//!   margin mechanism over the itemsets that occur, or the exponential mechanism over all
//!   C(|I|, r) itemsets of a public item list;
//! * [`hypothesis`] — the decision stump (threshold classifier) with the smallest empirical
//!   error from a large, data-independent class ([`select_hypothesis`]);
//! * [`margin`] — [`LargeMarginTail`]: both large margin mechanisms over explicit candidates
//!   plus an implicit tail of equal scores (the itemsets that do not occur);
//! * [`block`] — [`sample_exponential_with_block`]: the exact exponential mechanism over
//!   explicit candidates plus a block of any number of equal-score candidates.

pub mod block;
pub mod hypothesis;
pub mod itemsets;
pub mod margin;

pub use block::{BlockChoice, sample_exponential_with_block};
pub use hypothesis::{
    HypothesisQuery, HypothesisSelection, MAX_HYPOTHESES, Stump, StumpClass, StumpRule,
    header_schema, select_hypothesis,
};
pub use itemsets::{
    DEFAULT_MAX_CANDIDATES, DEFAULT_MAX_LENGTH, ITEMSET_MECHANISMS, ItemsetBudget, ItemsetCounts,
    ItemsetOutcome, ItemsetPick, ItemsetQuery, ItemsetRelease, MAX_MARGIN_LIMIT, MAX_TOP,
    MAX_UNIVERSE_BITS, TransactionFormat, Transactions, binomial, item_order, mine_itemsets,
    mine_itemsets_with_budget, read_item_list,
};
pub use margin::{
    DEFAULT_MAX_MARGIN, LargeMarginTail, MarginVariant, TailOutcome, TailSelection, TailSize,
};
