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
//! ([`DEFAULT_MAX_CANDIDATES`] by default) with [`Error::LimitExceeded`], before any work.
//! Within it, each itemset is one packed integer key and a `u32` count, counted without any
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
//!   dropped from their transactions first (per-record). This is exactly LMM over C(I, r)
//!   with the search's thresholds above the cap raised to +∞ — (ε, δ)-DP, see
//!   [`super::LargeMarginTail`].
//! * **Without an item list**: the domain is unknown (think of it as unbounded). A pick in the
//!   zero block and a search without a pass up to the cap are both reported as *no itemset*
//!   ([`ItemsetOutcome::NotOccurring`], [`ItemsetOutcome::NoMargin`]), and peeling stops.
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
//! in [`ItemsetPick`] are **not private** (they are for evaluation only).

mod count;
mod read;

use super::block::{BlockChoice, sample_exponential_with_block};
use super::margin::{
    DEFAULT_MAX_MARGIN, LargeMarginTail, MarginVariant, SortedScores, TailOutcome, TailSize,
};
use crate::error::{Error, Result};
use crate::names::{Named, named_traits};
use crate::noise::bernoulli::uniform_below;
use crate::noise::{Laplace, SecureRng, laplace_scale_for, sample_distinct};
use crate::numeric::round::{add_up, nudge_down, sub_down};
use crate::privacy::budget::{BudgetQuery, CallKind, plan};
use crate::privacy::compose::{Accountant, ComposeOptions};
use crate::privacy::{Delta, Epsilon, Guarantee, PrivacyCost, Sensitivity};
use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::HashSet;
use std::path::Path;

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

/// Universes up to this size are enumerated to name a zero-frequency pick; larger ones are
/// sampled by rejection.
const ENUMERATE_LIMIT: u64 = 1 << 22;

/// The canonical order of item names: names that are canonical decimal integers (no sign,
/// no leading zero, fitting in u64) first, by value; then all other names by their bytes.
/// A fixed total order on all strings, so everything derived from it (truncation, ties)
/// is data-independent.
///
/// ```
/// use disguise::apps::item_order;
/// use std::cmp::Ordering;
/// assert_eq!(item_order("9", "10"), Ordering::Less);
/// assert_eq!(item_order("10", "apple"), Ordering::Less);
/// assert_eq!(item_order("007", "7"), Ordering::Greater); // "007" is a name, not a number
/// ```
pub fn item_order(a: &str, b: &str) -> Ordering {
    match (canonical_int(a), canonical_int(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.as_bytes().cmp(b.as_bytes()),
    }
}

fn canonical_int(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) || (b.len() > 1 && b[0] == b'0') {
        return None;
    }
    s.parse().ok()
}

/// How a transactions file is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransactionFormat {
    /// FIMI: one transaction per line, items separated by whitespace. A blank line is an
    /// empty transaction (a user who bought nothing); it still counts in n.
    Fimi,
    /// CSV with a header row, one (transaction id, item) pair per row ("long" format);
    /// every distinct id is one transaction, in order of first appearance.
    Csv {
        /// The transaction id column (matched case-insensitively).
        id_column: String,
        /// The item column.
        item_column: String,
    },
}

/// A set of transactions over interned items, each transaction sorted in the canonical item
/// order ([`item_order`]) without duplicates. Stored compactly: all transactions' item ids
/// (`u32`) in one buffer, with the offset where each transaction starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Transactions {
    /// Item names; the id of an item is its position. Sorted by [`item_order`].
    items: Vec<String>,
    /// Every transaction's ids, one after another.
    ids: Vec<u32>,
    /// Transaction t is `ids[offsets[t]..offsets[t + 1]]`; n + 1 entries.
    offsets: Vec<usize>,
    public_items: bool,
    dropped: u64,
}

impl Transactions {
    /// Builds transactions from rows of item names. With `items` (a public item list), the
    /// universe is that list and any other item is dropped from its transaction; without,
    /// the items are those seen in the data (used for naming only, never as a universe).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for no transactions, an empty item list, or more than
    /// 2³² − 1 distinct items or transactions.
    ///
    /// ```
    /// use disguise::apps::Transactions;
    /// let t = Transactions::from_rows(&[vec!["b", "a", "b"], vec!["10", "9"]], None)?;
    /// assert_eq!(t.len(), 2);
    /// assert_eq!(t.items(), ["9", "10", "a", "b"]);
    /// assert_eq!(t.row(0), [2, 3]);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn from_rows<S: AsRef<str>>(rows: &[Vec<S>], items: Option<&[S]>) -> Result<Self> {
        let mut interner = read::Interner::new(items)?;
        let mut ids = Vec::new();
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        offsets.push(0);
        for (r, row) in rows.iter().enumerate() {
            for name in row {
                if let Some(id) = interner.id(name.as_ref(), || format!("row {}", r + 1))? {
                    ids.push(id);
                }
            }
            offsets.push(ids.len());
        }
        interner.finish(ids, offsets)
    }

    /// Reads a transactions file (see [`TransactionFormat`]), with an optional public item
    /// list. The file is streamed (its text is never held whole); a UTF-8 byte-order mark at
    /// its start is skipped.
    ///
    /// # Errors
    /// [`Error::Io`] for an unreadable file; [`Error::Parse`] naming `file:line:column` for
    /// text that is not UTF-8, malformed CSV, a missing or repeated column, or an empty file;
    /// [`Error::OutOfMemory`] if the transactions do not fit in memory; the errors of
    /// [`Transactions::from_rows`].
    pub fn read(path: &Path, format: &TransactionFormat, items: Option<&[String]>) -> Result<Self> {
        let shown = path.display().to_string();
        let interner = read::Interner::new(items)?;
        match format {
            TransactionFormat::Fimi => read::read_fimi(path, &shown, interner, &mut |_| true),
            TransactionFormat::Csv {
                id_column,
                item_column,
            } => read::read_csv(path, &shown, id_column, item_column, interner),
        }
    }

    /// [`Transactions::read`] of a FIMI file keeping only the lines (transactions, from 0)
    /// that `keep` selects: one worker's share in a distributed run. The dropped count is
    /// that of the kept lines.
    ///
    /// ```
    /// use disguise::apps::Transactions;
    /// let dir = std::env::temp_dir().join("disguise-doc-fimi-where");
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("t.dat");
    /// std::fs::write(&path, "a b\nb\n\na c\n")?;
    /// let even = Transactions::read_fimi_where(&path, None, &mut |line| line % 2 == 0)?;
    /// assert_eq!(even.len(), 2); // "a b" and the blank line
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Transactions::read`].
    pub fn read_fimi_where(
        path: &Path,
        items: Option<&[String]>,
        keep: &mut dyn FnMut(u64) -> bool,
    ) -> Result<Self> {
        let shown = path.display().to_string();
        let interner = read::Interner::new(items)?;
        read::read_fimi(path, &shown, interner, keep)
    }

    /// The number n of transactions (public).
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no transactions (never true for a built value).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Item names in canonical order (id = position): the public list, or without one the
    /// items seen in the data — **NOT PRIVATE** then (a rare item is one person's), never to
    /// be released beside a result.
    pub fn items(&self) -> &[String] {
        &self.items
    }

    /// Transaction `t` as sorted item ids.
    ///
    /// # Panics
    /// If `t` ≥ [`Transactions::len`].
    pub fn row(&self, t: usize) -> &[u32] {
        &self.ids[self.offsets[t]..self.offsets[t + 1]]
    }

    /// The transactions as sorted item ids, in order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[u32]> + '_ {
        self.offsets.windows(2).map(|w| &self.ids[w[0]..w[1]])
    }

    /// Whether the items are a public list (the universe is known).
    pub fn has_public_items(&self) -> bool {
        self.public_items
    }

    /// How many item occurrences were dropped because the item is not in the public list
    /// (**not private**: a statistic of the data).
    pub fn dropped_items(&self) -> u64 {
        self.dropped
    }

    /// The names of an itemset given by ids.
    pub fn names(&self, ids: &[u32]) -> Vec<String> {
        ids.iter()
            .map(|&i| self.items[i as usize].clone())
            .collect()
    }

    /// The number of subsets that counting itemsets of `size` items enumerates:
    /// Σ_t C(min(|t|, B), r) over the transactions cut to B = `max_length` items — the work
    /// of [`Transactions::count_itemsets`] and a bound on the number of distinct itemsets it
    /// holds. `None` when it is 2¹²⁸ or more. Exact, in one pass over the transaction
    /// lengths.
    ///
    /// ```
    /// use disguise::apps::Transactions;
    /// let t = Transactions::from_rows(&[vec!["a", "b", "c", "d"], vec!["a", "b"]], None)?;
    /// assert_eq!(t.enumeration_size(2, 64), Some(6 + 1));
    /// assert_eq!(t.enumeration_size(2, 3), Some(3 + 1));
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn enumeration_size(&self, size: usize, max_length: usize) -> Option<u128> {
        self.length_histogram(max_length)
            .into_iter()
            .enumerate()
            .filter(|&(_, n)| n > 0)
            .try_fold(0u128, |acc, (len, n)| {
                let c = binomial_capped(len as u64, size as u64, u128::MAX)?;
                acc.checked_add(c.checked_mul(u128::from(n))?)
            })
    }

    /// How many transactions have each length (cut to `max_length`).
    fn length_histogram(&self, max_length: usize) -> Vec<u64> {
        let longest = self.rows().map(<[u32]>::len).max().unwrap_or(0);
        let mut hist = vec![0u64; longest.min(max_length) + 1];
        for row in self.rows() {
            hist[row.len().min(max_length)] += 1;
        }
        hist
    }

    /// The enumeration size for a message: exact when it fits, else from logarithms.
    fn describe_enumeration(&self, size: usize, max_length: usize) -> String {
        if let Some(exact) = self.enumeration_size(size, max_length) {
            return scientific(exact as f64);
        }
        // log10 Σ n_len·C(len, r), summed stably from the largest term.
        let terms: Vec<f64> = self
            .length_histogram(max_length)
            .into_iter()
            .enumerate()
            .filter(|&(len, n)| n > 0 && len >= size)
            .map(|(len, n)| log10_binomial(len as u64, size as u64) + (n as f64).log10())
            .collect();
        let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = terms.iter().map(|t| 10f64.powf(t - top)).sum();
        let log = top + sum.log10();
        let exponent = log.floor();
        format!("{:.1}e{exponent}", 10f64.powf(log - exponent))
    }

    /// Counts every itemset of `size` items contained in some transaction, after cutting
    /// each transaction to its `max_length` smallest items, refusing first when that would
    /// enumerate more than [`DEFAULT_MAX_CANDIDATES`] subsets
    /// (see [`Transactions::count_itemsets_within`]).
    ///
    /// # Errors
    /// As [`Transactions::count_itemsets_within`].
    pub fn count_itemsets(&self, size: usize, max_length: usize) -> Result<ItemsetCounts> {
        self.count_itemsets_within(size, max_length, DEFAULT_MAX_CANDIDATES)
    }

    /// Counts every itemset of `size` items contained in some transaction, after cutting each
    /// transaction to its `max_length` smallest items — if that enumerates at most
    /// `max_candidates` subsets ([`Transactions::enumeration_size`]), which is checked first,
    /// in one pass over the transaction lengths.
    ///
    /// Each itemset is a sorted id tuple packed into one integer key (ids of ⌈log₂ items⌉
    /// bits; a `u32`, a `u64` or up to 32 `u64` words), counted in hash maps by ranges of
    /// first items, in parallel (rayon), with no allocation per itemset. The result holds
    /// 12 bytes per distinct itemset for keys up to 64 bits (e.g. triples of up to 2²¹
    /// items), 8 more per extra word.
    ///
    /// *Runtime*: O(Σ_t C(min(|t|, B), r)) hash updates plus O(L log L) to sort the L
    /// distinct itemsets. *Memory*: the sorted counts plus one range's hash map per thread.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `size` or `max_length` is 0 or `max_length` < `size`,
    /// or if `size` ids take more than 2048 bits (size × ⌈log₂ items⌉); [`Error::LimitExceeded`]
    /// (naming the enumeration size, raised by `max_candidates`) before any counting;
    /// [`Error::OutOfMemory`] if the counts do not fit in memory.
    ///
    /// ```
    /// use disguise::Error;
    /// use disguise::apps::Transactions;
    /// let row: Vec<String> = (0..40).map(|i| i.to_string()).collect();
    /// let t = Transactions::from_rows(&vec![row; 1000], None)?;
    /// // 1000 × C(40, 10) ≈ 8.5e11 subsets: refused at once.
    /// let err = t.count_itemsets_within(10, 64, 100_000_000).unwrap_err();
    /// assert!(matches!(err, Error::LimitExceeded { .. }));
    /// assert!(err.to_string().contains("8.5e11"), "{err}");
    /// assert_eq!(t.count_itemsets_within(2, 64, 1_000_000)?.len(), 780);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn count_itemsets_within(
        &self,
        size: usize,
        max_length: usize,
        max_candidates: u64,
    ) -> Result<ItemsetCounts> {
        if size == 0 {
            return Err(Error::param("size", "must be at least 1"));
        }
        if max_length < size {
            return Err(Error::param(
                "max_length",
                format!("must be at least the itemset size {size}, got {max_length}"),
            ));
        }
        let enumeration = self.enumeration_size(size, max_length);
        if enumeration.is_none_or(|e| e > u128::from(max_candidates)) {
            return Err(Error::LimitExceeded {
                what: format!(
                    "counting itemsets of size {size} would enumerate {} subsets of the \
                     transactions",
                    self.describe_enumeration(size, max_length)
                ),
                limit: max_candidates,
                raise: Some("max_candidates"),
            });
        }
        let bits = count::id_bits(self.items.len());
        if enumeration == Some(0) {
            // No transaction holds `size` items: nothing to count, whatever the key width.
            return Ok(ItemsetCounts {
                size,
                max_length,
                bits,
                words: 0,
                keys: Vec::new(),
                counts: Vec::new(),
                truncated: self.rows().filter(|r| r.len() > max_length).count(),
            });
        }
        let Some(words) = count::key_words(size, bits) else {
            return Err(Error::param(
                "size",
                format!(
                    "itemsets of {size} items over {} distinct items would need keys of \
                     {size} × {bits} bits; at most {} bits are supported: choose a smaller \
                     size",
                    self.items.len(),
                    count::MAX_KEY_BITS
                ),
            ));
        };
        count::count(self, size, max_length, bits, words)
    }
}

/// Reads a public item list: item names separated by whitespace (e.g. one per line). The
/// file is streamed; a UTF-8 byte-order mark at its start is skipped.
///
/// # Errors
/// [`Error::Io`] for an unreadable file, [`Error::Parse`] for an empty one or text that is
/// not UTF-8 (naming `file:line:column`).
pub fn read_item_list(path: &Path) -> Result<Vec<String>> {
    read::read_item_list(path)
}

/// The counts of all occurring itemsets of one size ([`Transactions::count_itemsets`]),
/// sorted in canonical itemset order (lexicographic on the sorted id tuple).
///
/// **Not private**: this is the data. Only the mechanisms' outputs are.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemsetCounts {
    size: usize,
    max_length: usize,
    /// Bits per id in a key.
    bits: u32,
    /// `u64` words per key (0 when no itemset occurs).
    words: usize,
    /// The packed keys, `words` words each (most significant first), ascending.
    keys: Vec<u64>,
    counts: Vec<u32>,
    truncated: usize,
}

impl ItemsetCounts {
    /// The number L of distinct occurring itemsets.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether no itemset of this size occurs.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The itemset size r.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The maximum transaction length B the counts were made with.
    pub fn max_length(&self) -> usize {
        self.max_length
    }

    /// The count of the `i`-th itemset.
    pub fn count(&self, i: usize) -> u64 {
        u64::from(self.counts[i])
    }

    /// All counts, in itemset order.
    pub fn counts(&self) -> &[u32] {
        &self.counts
    }

    /// The ids of the `i`-th itemset, ascending.
    pub fn itemset(&self, i: usize) -> Vec<u32> {
        let key = &self.keys[i * self.words..(i + 1) * self.words];
        (0..self.size)
            .map(|j| count::id_from_words(key, self.shift(j), self.bits))
            .collect()
    }

    /// The index of an itemset given by ascending ids, if it occurs.
    pub fn find(&self, ids: &[u32]) -> Option<usize> {
        if self.is_empty()
            || ids.len() != self.size
            || ids.iter().any(|&i| u64::from(i) >> self.bits != 0)
        {
            return None;
        }
        let mut key = [0u64; (count::MAX_KEY_BITS / 64) as usize];
        let key = &mut key[..self.words];
        for (j, &id) in ids.iter().enumerate() {
            count::or_into_words(key, id, self.shift(j));
        }
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.keys[mid * self.words..(mid + 1) * self.words].cmp(key) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// How many transactions were longer than B and cut (**not private**).
    pub fn truncated_transactions(&self) -> usize {
        self.truncated
    }

    /// The bit position of the id at place j of an itemset.
    fn shift(&self, j: usize) -> u32 {
        self.bits * (self.size - 1 - j) as u32
    }
}

/// C(n, k) exactly.
///
/// The work grows with the result's size (k multiplications of numbers of up to
/// log₂ C(n, k) bits); [`Transactions::count_itemsets`] and [`mine_itemsets`] bound what
/// they ask of it.
pub fn binomial(n: u64, k: u64) -> BigUint {
    if k > n {
        return BigUint::zero();
    }
    let k = k.min(n - k);
    let mut acc = BigUint::one();
    for i in 0..k {
        acc = acc * (n - i) / (i + 1);
    }
    acc
}

/// C(n, k) if it is at most `cap`, else `None`, in at most ~130 steps: the partial products
/// C(n, i), i ≤ min(k, n − k), grow with i (at least doubling up to i = 2), so the first
/// one above `cap` settles it.
pub(crate) fn binomial_capped(n: u64, k: u64, cap: u128) -> Option<u128> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        // C(n, i + 1) = acc·(n − i)/(i + 1) exactly, without forming acc·(n − i): with
        // acc = q·(i + 1) + m, it is q·(n − i) + m·(n − i)/(i + 1) (both terms integers).
        let (d, f) = (u128::from(i + 1), u128::from(n - i));
        let (q, m) = (acc / d, acc % d);
        acc = q.checked_mul(f)?.checked_add(m * f / d)?;
        if acc > cap {
            return None;
        }
    }
    Some(acc)
}

/// log₁₀ C(n, k) in floating point (for messages).
fn log10_binomial(n: u64, k: u64) -> f64 {
    use statrs::function::gamma::ln_gamma;
    let (n, k) = (n as f64, k as f64);
    (ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0)) / std::f64::consts::LN_10
}

/// A count for people: `4.7e13`, or in full below 10⁶.
fn scientific(x: f64) -> String {
    if x < 1e6 {
        x.to_string()
    } else {
        let exponent = x.log10().floor();
        let mantissa = x / 10f64.powf(exponent);
        // 9.96e7 rounds to "10.0": carry into the exponent.
        if format!("{mantissa:.1}") == "10.0" {
            format!("1.0e{}", exponent + 1.0)
        } else {
            format!("{mantissa:.1}e{exponent}")
        }
    }
}

/// The selection mechanism of [`mine_itemsets`].
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

/// The budget of an itemset release, computed from public parameters only: the per-round
/// (ε₀, δ₀) of the T selections, the composed selection guarantee, the noisy-count Laplace
/// scale and the end-to-end (ε, δ). Computing it once and reusing it
/// ([`mine_itemsets_with_budget`]) saves the composition work in repeated runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ItemsetBudget {
    epsilon0: Epsilon,
    delta0: Delta,
    split_rule: &'static str,
    selection: Guarantee,
    count_epsilon: Option<f64>,
    count_scale: Option<f64>,
    epsilon: f64,
}

impl ItemsetBudget {
    /// The budget of `query` for itemsets of `size` items from transactions cut to
    /// `max_length` items.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for T = 0, a `count_share` outside [0, 1), δ = 0 with a
    /// large margin mechanism, or a budget that no rule can split.
    pub fn new(query: &ItemsetQuery, size: usize, max_length: usize) -> Result<Self> {
        if query.top == 0 {
            return Err(Error::param("top", "must be at least 1"));
        }
        check_top(query.top)?;
        if !(query.count_share >= 0.0 && query.count_share < 1.0) {
            return Err(Error::param(
                "count_share",
                format!("must be in [0, 1), got {}", query.count_share),
            ));
        }
        let lmm = query.mechanism.variant().is_some();
        if lmm && query.delta.get() <= 0.0 {
            return Err(Error::param(
                "delta",
                format!(
                    "{} is (ε, δ)-DP and needs δ > 0, e.g. 1e-6",
                    query.mechanism.name()
                ),
            ));
        }
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
            per_round_epsilon: Some(self.epsilon0.get()),
            per_round_delta: Some(self.delta0.get()),
            composition: Some(self.split_rule),
            rounds: top,
            guarantee: Some(Guarantee {
                epsilon: self.epsilon,
                delta: self.selection.delta,
                rule,
            }),
            guarantees: Vec::new(),
            calls,
            secure_rng: true,
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

/// Privately selects the top `query.top` itemsets of the size counted in `counts` (see the
/// module docs for the universe, the neighbouring relation and the guarantee).
///
/// # Errors
/// [`Error::InvalidParameter`] for T = 0, a `count_share` outside [0, 1), δ = 0 with a large
/// margin mechanism, `em` without a public item list, an itemset size larger than the item
/// list, or a budget that no rule can split; the mechanisms' errors otherwise.
///
/// ```
/// use disguise::apps::{ItemsetQuery, Transactions, mine_itemsets};
/// use disguise::privacy::{Delta, Epsilon};
/// let mut rows = vec![vec!["bread", "milk"]; 2000];
/// rows.extend(vec![vec!["beer", "chips"]; 100]);
/// let t = Transactions::from_rows(&rows, None)?;
/// let counts = t.count_itemsets(2, 64)?;
/// let mut rng = disguise::SecureRng::insecure_from_seed(1);
/// let release = mine_itemsets(&t, &counts, &ItemsetQuery::new(Epsilon::new(1.0)?, Delta::new(1e-6)?), &mut rng)?;
/// assert_eq!(release.picks[0].itemset.as_deref(), Some(&["bread".to_string(), "milk".to_string()][..]));
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn mine_itemsets(
    transactions: &Transactions,
    counts: &ItemsetCounts,
    query: &ItemsetQuery,
    rng: &mut SecureRng,
) -> Result<ItemsetRelease> {
    let budget = ItemsetBudget::new(query, counts.size(), counts.max_length())?;
    mine_itemsets_with_budget(transactions, counts, query, &budget, rng)
}

/// [`mine_itemsets`] with a precomputed [`ItemsetBudget`] (which must come from the same
/// query, size and maximum length).
///
/// # Errors
/// As [`mine_itemsets`].
pub fn mine_itemsets_with_budget(
    transactions: &Transactions,
    counts: &ItemsetCounts,
    query: &ItemsetQuery,
    budget: &ItemsetBudget,
    rng: &mut SecureRng,
) -> Result<ItemsetRelease> {
    let variant = query.mechanism.variant();
    let public = transactions.has_public_items();
    if variant.is_none() && !public {
        return Err(Error::param(
            "items",
            "the exponential mechanism needs the public item list (its universe must be \
             fixed before seeing the data); use lmm without one",
        ));
    }
    check_top(query.top)?;
    check_max_margin(query.max_margin)?;
    let r = counts.size();
    let n_items = transactions.items().len() as u64;
    let universe = if public {
        Some(universe_size(n_items, r)?)
    } else {
        None
    };
    if let Some(k) = &universe
        && k.is_zero()
    {
        return Err(Error::param(
            "size",
            format!("itemsets of {r} items from a list of {n_items} items: none exist"),
        ));
    }
    let (eps0, delta0) = (budget.epsilon0, budget.delta0);
    let n = transactions.len();
    let lambda = Sensitivity::new(1.0)?;
    let lmm = match variant {
        Some(v) => Some(LargeMarginTail::new(v, eps0, delta0, query.max_margin)?),
        None => None,
    };
    // The large margin mechanisms rank candidates by score, ties by position: rank the
    // itemsets once (count descending, then canonical order) instead of every round.
    let order: Vec<u32> = match lmm {
        Some(_) => rank_by_count(counts)?,
        None => Vec::new(),
    };
    // Released explicit itemsets, ascending: their ranks in `order` (large margin) or their
    // indices (exponential mechanism). At most T entries.
    let mut released: Vec<usize> = Vec::new();
    let mut zero_named: HashSet<Vec<u32>> = HashSet::new();
    let mut picks: Vec<ItemsetPick> = Vec::new();
    for round in 1..=query.top {
        let live = counts.len() - released.len();
        let tail_len = universe
            .as_ref()
            .map(|k| k - BigUint::from(counts.len() + zero_named.len()));
        if live == 0 && matches!(&tail_len, Some(t) if t.is_zero()) {
            break; // the universe is exhausted
        }
        // The chosen explicit itemset's index, or None for the tail.
        let (choice, margin) = match (&lmm, &tail_len) {
            (Some(m), _) => {
                let tail = match &tail_len {
                    Some(t) => TailSize::Finite(t.clone()),
                    None => TailSize::Unbounded,
                };
                let scores = RankedCounts {
                    counts,
                    order: &order,
                    released: &released,
                };
                let s = m.select_sorted(&scores, 0.0, &tail, lambda, rng)?;
                let outcome = match s.outcome {
                    TailOutcome::Explicit(rank) => {
                        let g = skip_released(rank, &released);
                        insert_sorted(&mut released, g);
                        TailOutcome::Explicit(order[g] as usize)
                    }
                    other => other,
                };
                (outcome, s.margin)
            }
            (None, Some(t)) => {
                // Scores in canonical order without the released itemsets.
                let mut scores: Vec<f64> = Vec::new();
                count::reserve(&mut scores, live, "the scores of one round")?;
                let mut next = released.iter().peekable();
                for i in 0..counts.len() {
                    if next.next_if_eq(&&i).is_none() {
                        scores.push(counts.count(i) as f64);
                    }
                }
                let c = sample_exponential_with_block(rng, &scores, 0.0, t, eps0, lambda, 2)?;
                drop(scores);
                let outcome = match c {
                    BlockChoice::Index(j) => {
                        let i = skip_released(j, &released);
                        insert_sorted(&mut released, i);
                        TailOutcome::Explicit(i)
                    }
                    BlockChoice::Block => TailOutcome::Tail,
                };
                (outcome, None)
            }
            (None, None) => unreachable!("em without an item list was rejected above"),
        };
        let pick = |itemset: Option<Vec<u32>>, outcome, count: u64| ItemsetPick {
            round,
            itemset: itemset.as_ref().map(|ids| transactions.names(ids)),
            outcome,
            margin,
            true_count: count,
            true_frequency: count as f64 / n as f64,
            noisy_frequency: None,
        };
        match choice {
            TailOutcome::Explicit(i) => {
                picks.push(pick(
                    Some(counts.itemset(i)),
                    ItemsetOutcome::Occurring,
                    counts.count(i),
                ));
            }
            TailOutcome::Tail if public => {
                let ids = uniform_unseen(rng, n_items, r, counts, &zero_named)?;
                zero_named.insert(ids.clone());
                picks.push(pick(Some(ids), ItemsetOutcome::NotOccurring, 0));
            }
            TailOutcome::Tail => {
                picks.push(pick(None, ItemsetOutcome::NotOccurring, 0));
                break;
            }
            TailOutcome::NoMargin => {
                picks.push(pick(None, ItemsetOutcome::NoMargin, 0));
                break;
            }
        }
    }

    // Noisy frequencies of the released itemsets: one Laplace vector release.
    if let Some(scale) = budget.count_scale {
        let noise = Laplace::new(scale)?;
        for p in picks.iter_mut().filter(|p| p.itemset.is_some()) {
            let noisy = noise.sample(rng, p.true_count as f64)?;
            p.noisy_frequency = Some((noisy / n as f64).clamp(0.0, 1.0));
        }
    }
    Ok(ItemsetRelease {
        picks,
        mechanism: query.mechanism.name(),
        transactions: n,
        size: r,
        max_length: counts.max_length(),
        universe_items: public.then_some(transactions.items().len()),
        universe_size: universe.map(|k| k.to_string()),
        max_margin: query.max_margin,
        per_round_epsilon: eps0.get(),
        per_round_delta: delta0.get(),
        split_rule: budget.split_rule,
        selection_guarantee: budget.selection,
        count_epsilon: budget.count_epsilon,
        count_scale: budget.count_scale,
        epsilon: budget.epsilon,
        delta: budget.selection.delta,
        occurring: counts.len(),
        truncated: counts.truncated_transactions(),
        secure_rng: rng.is_secure(),
    })
}

/// Refuses more than [`MAX_TOP`] rounds.
fn check_top(top: usize) -> Result<()> {
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
fn check_max_margin(max_margin: u64) -> Result<()> {
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

/// C(|I|, r), the universe of a public item list, refused beyond 2^[`MAX_UNIVERSE_BITS`]
/// before its computation gets expensive (at most ~2¹⁶ multiplications of numbers of at
/// most 2¹⁶ bits: C(n, i) ≥ 2^i up to i = min(r, n − r)).
fn universe_size(n_items: u64, r: usize) -> Result<BigUint> {
    let r = r as u64;
    if r > n_items {
        return Ok(BigUint::zero());
    }
    // C(n, i) grows with i up to min(r, n − r): stop at the first partial product that
    // is too large.
    let k = r.min(n_items - r);
    let mut acc = BigUint::one();
    for i in 0..k {
        acc = acc * (n_items - i) / (i + 1);
        if acc.bits() > MAX_UNIVERSE_BITS {
            return Err(Error::param(
                "size",
                format!(
                    "the universe of itemsets of size {r} from {n_items} listed items has \
                     more than 2^{MAX_UNIVERSE_BITS} members, beyond the exact arithmetic of \
                     the mechanisms: choose a smaller size or a shorter item list"
                ),
            ));
        }
    }
    Ok(acc)
}

/// The itemset indices by count descending, ties in canonical order: the order the large
/// margin mechanisms rank explicit candidates in. A counting sort (counts are at most n).
fn rank_by_count(counts: &ItemsetCounts) -> Result<Vec<u32>> {
    let l = counts.len();
    if l > u32::MAX as usize {
        return Err(Error::param(
            "size",
            format!("{l} distinct itemsets; at most 2^32 − 1 are supported"),
        ));
    }
    let c = counts.counts();
    let top = c.iter().copied().max().unwrap_or(0) as usize;
    // starts[top − v]: where the itemsets of count v begin.
    let mut starts: Vec<usize> = Vec::new();
    count::reserve(&mut starts, top + 2, "the ranking of the itemsets")?;
    starts.resize(top + 2, 0);
    for &v in c {
        starts[top - v as usize + 1] += 1;
    }
    for i in 0..=top {
        starts[i + 1] += starts[i];
    }
    let mut order: Vec<u32> = Vec::new();
    count::reserve(&mut order, l, "the ranking of the itemsets")?;
    order.resize(l, 0);
    for (i, &v) in c.iter().enumerate() {
        let slot = &mut starts[top - v as usize];
        order[*slot] = i as u32;
        *slot += 1;
    }
    Ok(order)
}

/// The `j`-th position (0-based) of 0, 1, 2, … that is not in `released` (ascending).
fn skip_released(j: usize, released: &[usize]) -> usize {
    let mut g = j;
    for &r in released {
        if r <= g {
            g += 1;
        } else {
            break;
        }
    }
    g
}

fn insert_sorted(v: &mut Vec<usize>, x: usize) {
    let at = v.partition_point(|&y| y < x);
    v.insert(at, x);
}

/// The live itemsets' counts in rank order (the ranked itemsets minus the released ranks),
/// read on demand by the large margin search.
struct RankedCounts<'a> {
    counts: &'a ItemsetCounts,
    order: &'a [u32],
    released: &'a [usize],
}

impl SortedScores for RankedCounts<'_> {
    fn len(&self) -> u64 {
        (self.order.len() - self.released.len()) as u64
    }

    fn prefix(&self, n: usize) -> Result<Vec<f64>> {
        let mut out: Vec<f64> = Vec::new();
        count::reserve(&mut out, n, "the scores of one round")?;
        let mut next = self.released.iter().peekable();
        for (g, &i) in self.order.iter().enumerate() {
            if out.len() == n {
                break;
            }
            if next.next_if_eq(&&g).is_none() {
                out.push(self.counts.count(i as usize) as f64);
            }
        }
        Ok(out)
    }
}

/// A uniformly random r-subset of the `n_items` items that does not occur and is not in
/// `excluded`: by enumeration for small universes, else by rejection (uniform r-subsets
/// until one qualifies — each accepted with probability (unseen)/(universe)). Either way the
/// expected work is at most the universe size, and beyond 2²² (where rejection starts) only
/// universes of less than twice the L + T occurring and named itemsets need more than two
/// tries on average: work in proportion to the counts already held.
fn uniform_unseen(
    rng: &mut SecureRng,
    n_items: u64,
    r: usize,
    counts: &ItemsetCounts,
    excluded: &HashSet<Vec<u32>>,
) -> Result<Vec<u32>> {
    let is_free = |ids: &[u32]| counts.find(ids).is_none() && !excluded.contains(ids);
    let k = binomial(n_items, r as u64);
    if let Some(k) = k.to_u64().filter(|&k| k <= ENUMERATE_LIMIT) {
        let free = k - counts.len() as u64 - excluded.len() as u64;
        if free == 0 {
            return Err(Error::param("top", "the universe of itemsets is exhausted"));
        }
        let mut target = uniform_below(rng, free);
        let mut idx: Vec<u32> = (0..r as u32).collect();
        loop {
            if is_free(&idx) {
                if target == 0 {
                    return Ok(idx);
                }
                target -= 1;
            }
            // Next r-subset in lexicographic order.
            let mut i = r - 1;
            while u64::from(idx[i]) == i as u64 + n_items - r as u64 {
                assert!(i > 0, "ran past the last subset");
                i -= 1;
            }
            idx[i] += 1;
            for j in i + 1..r {
                idx[j] = idx[j - 1] + 1;
            }
        }
    }
    loop {
        let ids: Vec<u32> = sample_distinct(rng, n_items, r)?
            .into_iter()
            .map(|v| v as u32)
            .collect();
        if is_free(&ids) {
            return Ok(ids);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_interning() {
        assert_eq!(item_order("2", "10"), Ordering::Less);
        assert_eq!(item_order("0", "1"), Ordering::Less);
        assert_eq!(item_order("z", "10"), Ordering::Greater);
        assert_eq!(item_order("-1", "1"), Ordering::Greater);
        let t = Transactions::from_rows(&[vec!["x", "3", "20", "3"], vec![]], None).unwrap();
        assert_eq!(t.items(), ["3", "20", "x"]);
        let rows: Vec<&[u32]> = t.rows().collect();
        assert_eq!(rows, [&[0, 1, 2][..], &[]]);
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn binomials() {
        assert_eq!(binomial(75, 3), BigUint::from(67_525u32));
        assert_eq!(binomial(3340, 2), BigUint::from(5_576_130u32));
        assert_eq!(binomial(3, 5), BigUint::zero());
        assert_eq!(binomial(10, 0), BigUint::one());
        // The capped version agrees wherever it answers, and answers up to its cap.
        for n in [0u64, 1, 5, 37, 64, 75, 200, 3340] {
            for k in 0..=n.min(70) {
                let exact = binomial(n, k);
                match binomial_capped(n, k, u128::MAX) {
                    Some(c) => assert_eq!(BigUint::from(c), exact, "C({n}, {k})"),
                    None => assert!(exact.bits() > 128, "C({n}, {k})"),
                }
                let small = binomial_capped(n, k, 1000);
                assert_eq!(
                    small.is_some(),
                    exact <= BigUint::from(1000u32),
                    "C({n}, {k})"
                );
            }
        }
        // Near the top of u128: C(131, 65) < 2^128 < C(133, 66).
        assert_eq!(
            binomial_capped(131, 65, u128::MAX).map(BigUint::from),
            Some(binomial(131, 65))
        );
        assert_eq!(binomial_capped(133, 66, u128::MAX), None);
        assert!(binomial_capped(u64::MAX, 2, u128::MAX).is_some());
        assert_eq!(binomial_capped(u64::MAX, 3, u128::MAX), None);
    }

    #[test]
    fn packing_and_lookup() {
        let t = Transactions::from_rows(&[vec!["a", "b", "c"]], None).unwrap();
        let c = t.count_itemsets(2, 64).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c.itemset(2), vec![1, 2]);
        assert_eq!(c.find(&[0, 2]), Some(1));
        assert_eq!(c.find(&[0, 5]), None);
        assert_eq!(c.find(&[0]), None);
        assert!(t.count_itemsets(0, 64).is_err());
        assert!(t.count_itemsets(3, 2).is_err());
    }

    #[test]
    fn counts_are_printed_for_people() {
        assert_eq!(scientific(780.0), "780");
        assert_eq!(scientific(4.7e13), "4.7e13");
        assert_eq!(scientific(9.96e7), "1.0e8");
        assert_eq!(skip_released(0, &[]), 0);
        assert_eq!(skip_released(1, &[1, 2]), 3);
        assert_eq!(skip_released(1, &[2]), 1);
        assert_eq!(skip_released(2, &[0, 5]), 3);
    }
}
