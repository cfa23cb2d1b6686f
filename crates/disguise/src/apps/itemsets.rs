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

use super::block::{BlockChoice, sample_exponential_with_block};
use super::margin::{DEFAULT_MAX_MARGIN, LargeMarginTail, MarginVariant, TailOutcome, TailSize};
use crate::error::{Error, Result};
use crate::noise::bernoulli::uniform_below;
use crate::noise::{Laplace, SecureRng, laplace_scale_for, sample_distinct};
use crate::privacy::budget::{BudgetQuery, CallKind, plan};
use crate::privacy::compose::round::{add_up, nudge_down, sub_down};
use crate::privacy::compose::{Accountant, ComposeOptions};
use crate::privacy::{Delta, Epsilon, Guarantee, PrivacyCost, Sensitivity};
use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};
use rayon::prelude::*;
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::Path;

/// Default maximum transaction length B: longer transactions keep their 64 smallest items.
pub const DEFAULT_MAX_LENGTH: usize = 64;

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
/// order ([`item_order`]) without duplicates.
#[derive(Debug, Clone, PartialEq)]
pub struct Transactions {
    /// Item names; the id of an item is its position. Sorted by [`item_order`].
    items: Vec<String>,
    rows: Vec<Vec<u32>>,
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
    /// 2³² − 1 distinct items.
    ///
    /// ```
    /// use disguise::apps::Transactions;
    /// let t = Transactions::from_rows(&[vec!["b", "a", "b"], vec!["10", "9"]], None)?;
    /// assert_eq!(t.len(), 2);
    /// assert_eq!(t.items(), ["9", "10", "a", "b"]);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn from_rows<S: AsRef<str>>(rows: &[Vec<S>], items: Option<&[S]>) -> Result<Self> {
        let rows: Vec<Vec<&str>> = rows
            .iter()
            .map(|r| r.iter().map(AsRef::as_ref).collect())
            .collect();
        let items: Option<Vec<&str>> = items.map(|l| l.iter().map(AsRef::as_ref).collect());
        Self::build(rows, items)
    }

    fn build(rows: Vec<Vec<&str>>, items: Option<Vec<&str>>) -> Result<Self> {
        if rows.is_empty() {
            return Err(Error::param("transactions", "no transactions"));
        }
        let public_items = items.is_some();
        let mut names: Vec<String> = match items {
            Some(list) => {
                if list.is_empty() {
                    return Err(Error::param("items", "the item list is empty"));
                }
                list.into_iter().map(str::to_string).collect()
            }
            None => {
                let mut seen: HashSet<&str> = HashSet::new();
                rows.iter().flatten().for_each(|&i| {
                    seen.insert(i);
                });
                seen.into_iter().map(str::to_string).collect()
            }
        };
        names.sort_unstable_by(|a, b| item_order(a, b));
        names.dedup();
        if names.len() >= u32::MAX as usize {
            return Err(Error::param("items", "more than 2^32 − 1 distinct items"));
        }
        let index: HashMap<&str, u32> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i as u32))
            .collect();
        let mut dropped = 0u64;
        let rows = rows
            .into_iter()
            .map(|r| {
                let mut ids: Vec<u32> = r
                    .into_iter()
                    .filter_map(|name| {
                        let id = index.get(name).copied();
                        if id.is_none() {
                            dropped += 1;
                        }
                        id
                    })
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                ids
            })
            .collect();
        Ok(Self {
            items: names,
            rows,
            public_items,
            dropped,
        })
    }

    /// Reads a transactions file (see [`TransactionFormat`]), with an optional public item
    /// list.
    ///
    /// # Errors
    /// [`Error::Io`] for an unreadable file, [`Error::Parse`] (naming file and line) for
    /// malformed CSV or a missing column, and the errors of [`Transactions::from_rows`].
    pub fn read(path: &Path, format: &TransactionFormat, items: Option<&[String]>) -> Result<Self> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{shown}: {e}")))?;
        let rows: Vec<Vec<&str>> = match format {
            TransactionFormat::Fimi => text
                .lines()
                .map(|l| l.split_whitespace().collect())
                .collect(),
            TransactionFormat::Csv {
                id_column,
                item_column,
            } => return Self::read_csv(&text, &shown, id_column, item_column, items),
        };
        if rows.is_empty() {
            return Err(Error::Parse(format!("{shown}: no transactions")));
        }
        Self::build(rows, items.map(|l| l.iter().map(String::as_str).collect()))
    }

    fn read_csv(
        text: &str,
        shown: &str,
        id_column: &str,
        item_column: &str,
        items: Option<&[String]>,
    ) -> Result<Self> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(text.as_bytes());
        let headers = reader
            .headers()
            .map_err(|e| Error::Parse(format!("{shown}: {e}")))?
            .clone();
        let find = |name: &str| -> Result<usize> {
            headers
                .iter()
                .position(|h| h.trim().eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    Error::Parse(format!(
                        "{shown}: no column '{name}' (columns: {})",
                        headers.iter().collect::<Vec<_>>().join(", ")
                    ))
                })
        };
        let (id_idx, item_idx) = (find(id_column)?, find(item_column)?);
        let mut by_id: HashMap<String, usize> = HashMap::new();
        let mut rows: Vec<Vec<String>> = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| Error::Parse(format!("{shown}: {e}")))?;
            let id = record.get(id_idx).unwrap_or("").trim().to_string();
            let item = record.get(item_idx).unwrap_or("").trim().to_string();
            let slot = *by_id.entry(id).or_insert_with(|| {
                rows.push(Vec::new());
                rows.len() - 1
            });
            if !item.is_empty() {
                rows[slot].push(item);
            }
        }
        if rows.is_empty() {
            return Err(Error::Parse(format!("{shown}: no data rows")));
        }
        let borrowed: Vec<Vec<&str>> = rows
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        Self::build(
            borrowed,
            items.map(|l| l.iter().map(String::as_str).collect()),
        )
    }

    /// The number n of transactions (public).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no transactions (never true for a built value).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Item names in canonical order (id = position).
    pub fn items(&self) -> &[String] {
        &self.items
    }

    /// The transactions as sorted item ids.
    pub fn rows(&self) -> &[Vec<u32>] {
        &self.rows
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

    /// Counts every itemset of size `size` contained in some transaction, after cutting each
    /// transaction to its `max_length` smallest items. Parallel (rayon) over chunks of
    /// transactions, each counting its itemsets in a hash map keyed by the packed sorted id
    /// tuple.
    ///
    /// *Runtime*: O(Σ_t C(min(|t|, B), r)) hash updates plus O(L log L) to sort the L
    /// distinct itemsets.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `size` or `max_length` is 0, `max_length` < `size`, or
    /// `size` ids do not fit in 128 bits (size × ⌈log₂ items⌉ > 128).
    pub fn count_itemsets(&self, size: usize, max_length: usize) -> Result<ItemsetCounts> {
        if size == 0 {
            return Err(Error::param("size", "must be at least 1"));
        }
        if max_length < size {
            return Err(Error::param(
                "max_length",
                format!("must be at least the itemset size {size}, got {max_length}"),
            ));
        }
        let bits = id_bits(self.items.len());
        if size as u64 * u64::from(bits) > 128 {
            return Err(Error::param(
                "size",
                format!(
                    "itemsets of {size} items over {} items do not fit in 128 bits",
                    self.items.len()
                ),
            ));
        }
        let truncated = self.rows.iter().filter(|r| r.len() > max_length).count();
        let map = self
            .rows
            .par_chunks(1024)
            .fold(KeyMap::default, |mut map, chunk| {
                for row in chunk {
                    let row = &row[..row.len().min(max_length)];
                    for_each_combination(row, size, bits, &mut |key| {
                        *map.entry(key).or_insert(0) += 1;
                    });
                }
                map
            })
            .reduce(KeyMap::default, |a, b| {
                let (mut big, small) = if a.len() >= b.len() { (a, b) } else { (b, a) };
                for (k, v) in small {
                    *big.entry(k).or_insert(0) += v;
                }
                big
            });
        let mut entries: Vec<(u128, u64)> = map.into_iter().collect();
        entries.sort_unstable_by_key(|e| e.0);
        let (keys, counts) = entries.into_iter().unzip();
        Ok(ItemsetCounts {
            size,
            max_length,
            bits,
            keys,
            counts,
            truncated,
        })
    }
}

/// Reads a public item list: item names separated by whitespace (e.g. one per line).
///
/// # Errors
/// [`Error::Io`] for an unreadable file, [`Error::Parse`] for an empty one.
pub fn read_item_list(path: &Path) -> Result<Vec<String>> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{shown}: {e}")))?;
    let items: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    if items.is_empty() {
        return Err(Error::Parse(format!("{shown}: no items")));
    }
    Ok(items)
}

/// Bits per item id in a packed key: ⌈log₂ items⌉, at least 1.
fn id_bits(items: usize) -> u32 {
    (usize::BITS - items.saturating_sub(1).leading_zeros()).max(1)
}

/// Calls `f` with the packed key of every `r`-subset of the sorted `row`, in lexicographic
/// order. The first id sits in the highest bits, so packed keys order like id tuples.
fn for_each_combination(row: &[u32], r: usize, bits: u32, f: &mut impl FnMut(u128)) {
    let n = row.len();
    if n < r {
        return;
    }
    let pack = |idx: &[usize]| idx.iter().fold(0u128, |k, &i| (k << bits) | row[i] as u128);
    if r == 1 {
        row.iter().for_each(|&i| f(i as u128));
        return;
    }
    if r == 2 {
        for a in 0..n {
            let hi = (row[a] as u128) << bits;
            for &b in &row[a + 1..] {
                f(hi | b as u128);
            }
        }
        return;
    }
    let mut idx: Vec<usize> = (0..r).collect();
    loop {
        f(pack(&idx));
        let mut i = r - 1;
        while idx[i] == i + n - r {
            if i == 0 {
                return;
            }
            i -= 1;
        }
        idx[i] += 1;
        for j in i + 1..r {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// A fast non-cryptographic hasher for packed itemset keys (a multiply–xorshift mix; keys
/// are item-id tuples, not attacker-chosen hash inputs in any meaningful sense).
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u128(&mut self, x: u128) {
        let v = (x as u64) ^ ((x >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = (self.0 ^ v).wrapping_mul(0xff51_afd7_ed55_8ccd);
    }
    fn finish(&self) -> u64 {
        // fmix64 (MurmurHash3): spreads entropy to the high bits hashbrown uses.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^= h >> 33;
        h
    }
}

type KeyMap = HashMap<u128, u64, BuildHasherDefault<KeyHasher>>;

/// The counts of all occurring itemsets of one size ([`Transactions::count_itemsets`]),
/// sorted in canonical itemset order (lexicographic on the sorted id tuple).
///
/// **Not private**: this is the data. Only the mechanisms' outputs are.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemsetCounts {
    size: usize,
    max_length: usize,
    bits: u32,
    keys: Vec<u128>,
    counts: Vec<u64>,
    truncated: usize,
}

impl ItemsetCounts {
    /// The number L of distinct occurring itemsets.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no itemset of this size occurs.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
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
        self.counts[i]
    }

    /// All counts, in itemset order.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The ids of the `i`-th itemset, ascending.
    pub fn itemset(&self, i: usize) -> Vec<u32> {
        self.unpack(self.keys[i])
    }

    /// The index of an itemset given by ascending ids, if it occurs.
    pub fn find(&self, ids: &[u32]) -> Option<usize> {
        if ids.len() != self.size {
            return None;
        }
        self.keys.binary_search(&self.pack(ids)).ok()
    }

    /// How many transactions were longer than B and cut (**not private**).
    pub fn truncated_transactions(&self) -> usize {
        self.truncated
    }

    fn pack(&self, ids: &[u32]) -> u128 {
        ids.iter().fold(0u128, |k, &i| (k << self.bits) | i as u128)
    }

    fn unpack(&self, key: u128) -> Vec<u32> {
        let mask = (1u128 << self.bits) - 1;
        (0..self.size)
            .rev()
            .map(|j| ((key >> (j as u32 * self.bits)) & mask) as u32)
            .collect()
    }
}

/// C(n, k) exactly.
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

    /// Parses a name.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for another name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "lmm" => Ok(ItemsetMechanism::Lmm),
            "lmm-chaudhuri" => Ok(ItemsetMechanism::LmmChaudhuri),
            "em" => Ok(ItemsetMechanism::Em),
            _ => Err(Error::param(
                "mechanism",
                format!("unknown mechanism {name:?}; expected lmm, lmm-chaudhuri or em"),
            )),
        }
    }

    fn variant(self) -> Option<MarginVariant> {
        match self {
            ItemsetMechanism::Lmm => Some(MarginVariant::Mitrovic),
            ItemsetMechanism::LmmChaudhuri => Some(MarginVariant::Chaudhuri),
            ItemsetMechanism::Em => None,
        }
    }
}

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
            let per_side = binomial(max_length as u64, size as u64)
                .to_u64()
                .map_or(u64::MAX, |c| c.saturating_mul(2));
            let l1 = rounds.min(per_side);
            count_scale = Some(laplace_scale_for(l1 as f64, eps_c)?);
            count_epsilon = Some(eps_c);
        }
        let epsilon = match count_epsilon {
            Some(e) => add_up(selection.epsilon, e),
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
    let r = counts.size();
    let n_items = transactions.items().len() as u64;
    let universe = public.then(|| binomial(n_items, r as u64));
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
    let mut released: Vec<bool> = vec![false; counts.len()];
    let mut zero_named: HashSet<Vec<u32>> = HashSet::new();
    let mut picks: Vec<ItemsetPick> = Vec::new();
    for round in 1..=query.top {
        let live: Vec<usize> = (0..counts.len()).filter(|&i| !released[i]).collect();
        let scores: Vec<f64> = live.iter().map(|&i| counts.count(i) as f64).collect();
        let tail_len = universe
            .as_ref()
            .map(|k| k - BigUint::from(counts.len() + zero_named.len()));
        if scores.is_empty() && matches!(&tail_len, Some(t) if t.is_zero()) {
            break; // the universe is exhausted
        }
        let (choice, margin) = match (&lmm, &tail_len) {
            (Some(m), _) => {
                let tail = match &tail_len {
                    Some(t) => TailSize::Finite(t.clone()),
                    None => TailSize::Unbounded,
                };
                let s = m.select(&scores, 0.0, &tail, lambda, rng)?;
                (s.outcome, s.margin)
            }
            (None, Some(t)) => {
                let c = sample_exponential_with_block(rng, &scores, 0.0, t, eps0, lambda, 2)?;
                let outcome = match c {
                    BlockChoice::Index(i) => TailOutcome::Explicit(i),
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
            TailOutcome::Explicit(j) => {
                let i = live[j];
                released[i] = true;
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
    })
}

/// A uniformly random r-subset of the `n_items` items that does not occur and is not in
/// `excluded`: by enumeration for small universes, else by rejection (uniform r-subsets
/// until one qualifies — each accepted with probability (unseen)/(universe)).
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
        assert_eq!(t.rows(), [vec![0, 1, 2], vec![]]);
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn combinations_are_complete_and_ordered() {
        let row = [1u32, 4, 5, 9, 12];
        for r in 1..=5 {
            let mut keys = Vec::new();
            for_each_combination(&row, r, 4, &mut |k| keys.push(k));
            assert_eq!(keys.len() as u64, binomial(5, r as u64).to_u64().unwrap());
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "r = {r}");
        }
        let mut none = 0;
        for_each_combination(&row[..2], 3, 4, &mut |_| none += 1);
        assert_eq!(none, 0);
    }

    #[test]
    fn binomials() {
        assert_eq!(binomial(75, 3), BigUint::from(67_525u32));
        assert_eq!(binomial(3340, 2), BigUint::from(5_576_130u32));
        assert_eq!(binomial(3, 5), BigUint::zero());
        assert_eq!(binomial(10, 0), BigUint::one());
    }

    #[test]
    fn bits_and_packing() {
        assert_eq!(id_bits(1), 1);
        assert_eq!(id_bits(2), 1);
        assert_eq!(id_bits(3), 2);
        assert_eq!(id_bits(3340), 12);
        let t = Transactions::from_rows(&[vec!["a", "b", "c"]], None).unwrap();
        let c = t.count_itemsets(2, 64).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c.itemset(2), vec![1, 2]);
        assert_eq!(c.find(&[0, 2]), Some(1));
        assert!(t.count_itemsets(0, 64).is_err());
        assert!(t.count_itemsets(3, 2).is_err());
    }
}
