//! Private frequent itemset mining (chaudhuri2014, Section 4.1): the most frequent itemsets
//! of size r, chosen with the large margin mechanism over the itemsets that occur — the
//! universe of all r-subsets of the items is never enumerated and need not be known — or,
//! for comparison, with the exponential mechanism over the full universe of a public item
//! list.
//!
//! # Data and neighbours
//! One transaction per user (a set of items). Neighbouring datasets differ in **one
//! transaction replaced by another**; the number n of transactions is public. An itemset's
//! frequency is f(i, D) = |{transactions containing i}|/n, so replacing one transaction
//! changes every itemset's frequency by at most 1/n (it loses the old transaction's and gains
//! the new one's): f(i, ·) is 1/n-Lipschitz, as chaudhuri2014 §4.1 requires. The code scores
//! itemsets by their *counts* with sensitivity λ = 1, which is the same mechanism (every
//! threshold and noise scale is linear in λ).
//!
//! # Maximum transaction length B
//! Each transaction is first cut to its **B smallest items in the canonical item order**
//! (integers by value, before other names, which are ordered by their bytes): a rule that
//! looks at that transaction only, so it is a per-record transformation and the neighbouring
//! relation and sensitivity above are unchanged. The per-itemset sensitivity is 1/n whatever
//! B is; B bounds what one user can touch: C(B, r) itemsets per transaction, so the number L
//! of occurring itemsets is at most n·C(B, r) (the quantity in chaudhuri2014's Corollary 1),
//! the counting work, and the L1 sensitivity min(T, 2·C(B, r)) of the T released noisy
//! counts. Default [`DEFAULT_MAX_LENGTH`] = 64.
//!
//! # Bounded work, compact counts
//! Counting enumerates Σ_t C(min(|t|, B), r) subsets — 10¹² for size 10 on the 3,196
//! transactions of 37 items of FIMI chess. [`Transactions::count_itemsets_within`] computes
//! that number exactly from the transaction lengths first and refuses beyond a limit
//! ([`DEFAULT_MAX_CANDIDATES`] by default) with
//! [`Error::LimitExceeded`](crate::Error::LimitExceeded), before any work. Within it, each
//! itemset is one packed integer key and a `u32` count, counted without any
//! per-itemset allocation (see [`Transactions::count_itemsets_within`]). Every other size
//! that a caller controls is bounded too: the rounds T ([`MAX_TOP`]), the margin cap
//! ([`MAX_MARGIN_LIMIT`]) and the universe of a public item list ([`MAX_UNIVERSE_BITS`]).
//!
//! # The universe, and what happens without a margin
//! The universe U is every r-subset of the item domain I. Occurring itemsets are the
//! explicit candidates; the others all have frequency 0 and form a tail
//! ([`super::LargeMarginTail`]): since every occurring itemset has a count ≥ 1 > 0, the
//! occurring ones sorted by count *are* the top of U, and from rank L + 1 on U's scores are
//! 0. The margin search runs over U's sorted scores up to a public cap (`max_margin`).
//!
//! * **With a public item list** (`items`): K = C(|I|, r) is known. If the search passes at
//!   ℓ ≤ L, the exponential mechanism runs on the top ℓ occurring itemsets; if it passes at
//!   ℓ > L, on all occurring itemsets plus a block of ℓ − L zero-frequency ones; if it never
//!   passes, ℓ = K and the exponential mechanism runs over the whole universe (the zero
//!   itemsets as a block). A block pick is named by drawing a uniform r-subset of the list
//!   that does not occur (and was not released before). Data items not in the list are
//!   dropped from their transactions first (per-record). Either way the pick is released as
//!   [`ItemsetOutcome::Itemset`]: whether it occurs is a function of its exact count, a
//!   diagnostic ([`ItemsetPick::occurs`]). This is exactly LMM over C(I, r)
//!   with the search's thresholds above the cap raised to +∞ — (ε, δ)-DP, see
//!   [`super::LargeMarginTail`].
//! * **Without an item list**: the domain is unknown (think of it as unbounded). A pick in the
//!   zero block and a search without a pass up to the cap are both reported as *no itemset*
//!   ([`ItemsetOutcome::ZeroFrequency`], [`ItemsetOutcome::NoMargin`]), and peeling stops.
//!   Guarantee: for any domain of N items, let M be the LMM over C(N, r) (random tie-break
//!   among zeros, "no itemset" when the search does not pass); our output is M with every
//!   zero-frequency pick replaced by "no itemset". That replacement depends on D, but only
//!   through the ≤ 2·C(B, r) itemsets whose occurrence differs between neighbours D, D′, each
//!   of which M outputs with probability ≤ e^ε·C(B, r)/(C(N, r) − n·C(B, r)) on the
//!   neighbour where it has frequency 0 — so the output is (ε, δ + η_N)-DP with
//!   η_N = (1 + e^ε)·C(B, r)/(C(N, r) − n·C(B, r)). The output's distribution does not depend
//!   on N (the search only looks at the first cap + 1 scores, and the block sizes ℓ − L do
//!   not involve N), and the domain may always be taken larger (items no one holds), so
//!   letting N → ∞ gives exactly (ε, δ)-DP.
//! * **`em`** (exponential mechanism) needs the item list: its universe must be fixed before
//!   the data is seen (chaudhuri2014 §4.1, second remark).
//!
//! # Top T by peeling
//! T rounds; round t selects from U minus the itemsets already released. The total (ε, δ) is
//! split over the rounds by [`crate::privacy::budget::plan`] (basic or advanced composition
//! for the large margin mechanisms, every rule incl. zCDP for the exponential mechanism) and
//! the end-to-end guarantee is proved by the [`crate::privacy::compose::Accountant`].
//!
//! # Noisy frequencies
//! With `count_share` s > 0, a share s·ε of the budget releases the released itemsets'
//! counts with Laplace noise of scale Δ/(sε) (Δ = min(T, 2·C(B, r)), the L1 sensitivity of
//! the count vector), composed with the selection by basic composition. The *true* counts
//! in [`ItemsetPick`] are **not private**: [`Diagnostic`](crate::disclosure::Diagnostic)s,
//! shown only on request.
//!
//! # Layout
//! One concept a file: `transactions` (the data, its reading and the item order), `read`
//! (the streaming readers), `counts` ([`ItemsetCounts`] and the counting entry points with
//! their limit), `count` (the packed-key counting engine), `query` (mechanism and query),
//! `budget` ([`ItemsetBudget`]), `release` (the result types) and `mine` (the peeling
//! mechanism). C(n, k) is in [`crate::numeric::combinatorics`].

mod budget;
mod count;
mod counts;
mod mine;
mod query;
mod read;
mod release;
mod transactions;

pub use budget::ItemsetBudget;
pub use counts::ItemsetCounts;
pub use mine::{mine_itemsets, mine_itemsets_with_budget};
pub use query::{ITEMSET_MECHANISMS, ItemsetQuery};
pub use release::{ItemsetOutcome, ItemsetPick, ItemsetRelease};
pub use transactions::{TransactionFormat, Transactions, item_order, read_item_list};
// C(n, k) is general arithmetic (numeric::combinatorics); re-exported where it always was.
pub use crate::numeric::combinatorics::binomial;

// The one check of each public option, for the `Itemsets` task too.
pub(crate) use counts::{check_size, key_words};
pub(crate) use mine::check_universe;
pub(crate) use query::{
    check_count_share, check_delta, check_item_list, check_max_margin, check_mechanism, check_top,
};

/// Default maximum transaction length B: longer transactions keep their 64 smallest items.
pub const DEFAULT_MAX_LENGTH: usize = 64;

/// Default limit on the number of subsets counting may enumerate,
/// Σ_t C(min(|t|, B), r) ([`Transactions::enumeration_size`]): 10⁸. It bounds the counting
/// time and the memory (distinct itemsets ≤ subsets enumerated). Measured on a 2-core
/// machine with 24 GB (BENCHMARKS.md): 10⁸ subsets that are all distinct itemsets (keys up to
/// 64 bits) take 13 s of CPU and 1.7 GB peak, the worst case; each extra key word adds 8
/// bytes per itemset. Raise it with [`Transactions::count_itemsets_within`] (the CLI's
/// `--max-candidates`).
pub const DEFAULT_MAX_CANDIDATES: u64 = 100_000_000;

/// The most itemsets one release can select ([`ItemsetQuery::top`]): every round takes a
/// share of ε and a pass over the counts, and a round's result is kept in memory.
pub const MAX_TOP: usize = 100_000;

/// The largest margin cap ([`ItemsetQuery::max_margin`]) accepted: the search draws two
/// Laplace variables per margin it tests (about 130 ns a test, measured), so the cap bounds
/// the time of a round without a margin: 2³⁰ tests take about 2.5 minutes.
pub const MAX_MARGIN_LIMIT: u64 = 1 << 30;

/// The largest universe C(|I|, r) of a public item list, as a power of two: 2^65536. Its
/// exact size and the exponential mechanism's block weight are computed with numbers of
/// that many bits (a universe of 2^50000 costs about 0.2 s, measured; the cost grows about
/// quadratically with the bits).
pub const MAX_UNIVERSE_BITS: u64 = 1 << 16;
