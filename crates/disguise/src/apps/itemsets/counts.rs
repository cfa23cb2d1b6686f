//! Counting itemsets: [`ItemsetCounts`], the counts of every occurring itemset of one size,
//! and the [`Transactions`] methods that make them after checking how many subsets that
//! enumerates. The counting itself (packed keys, hash maps by ranges of first items) is in
//! `count.rs`.

use super::count;
use super::{DEFAULT_MAX_CANDIDATES, Transactions};
use crate::error::{Error, Result};
use crate::numeric::combinatorics::{binomial_capped, log10_binomial};
use crate::numeric::display::scientific;
use std::cmp::Ordering;

impl Transactions {
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
        check_size(size, max_length)?;
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
        let words = key_words(size, self.items.len())?;
        count::count(self, size, max_length, bits, words)
    }
}

/// The `u64` words of the packed key of an itemset of `size` ids among `items` items.
/// Public quantities only with a public item list: a front end checks it before any
/// transaction is read ([`Itemsets::check_items`](crate::task::Itemsets::check_items)).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `size` when the key would exceed the bits supported.
pub(crate) fn key_words(size: usize, items: usize) -> Result<usize> {
    let bits = count::id_bits(items);
    count::key_words(size, bits).ok_or_else(|| {
        Error::param(
            "size",
            format!(
                "itemsets of {size} items over {items} distinct items would need keys of \
                 {size} × {bits} bits; at most {} bits are supported: choose a smaller size",
                count::MAX_KEY_BITS
            ),
        )
    })
}

/// The counts of all occurring itemsets of one size ([`Transactions::count_itemsets`]),
/// sorted in canonical itemset order (lexicographic on the sorted id tuple).
///
/// **Not private**: this is the data. Only the mechanisms' outputs are.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemsetCounts {
    pub(super) size: usize,
    pub(super) max_length: usize,
    /// Bits per id in a key.
    pub(super) bits: u32,
    /// `u64` words per key (0 when no itemset occurs).
    pub(super) words: usize,
    /// The packed keys, `words` words each (most significant first), ascending.
    pub(super) keys: Vec<u64>,
    pub(super) counts: Vec<u32>,
    pub(super) truncated: usize,
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

/// Refuses an itemset size of 0 and a maximum transaction length below the size (the one
/// check of both, for counting and for the `Itemsets` task).
pub(crate) fn check_size(size: usize, max_length: usize) -> Result<()> {
    if size == 0 {
        return Err(Error::param("size", "must be at least 1"));
    }
    if max_length < size {
        return Err(Error::param(
            "max_length",
            format!("must be at least the itemset size {size}, got {max_length}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
