//! Counting every occurring itemset of one size, compactly.
//!
//! An itemset of r ids of `bits` bits each is packed into the integer
//! Σ_j id_j · 2^{bits·(r−1−j)} (first id in the highest bits), held in the smallest key that
//! fits — `u32`, `u64`, or 2 to 32 `u64` words — so that keys order like the sorted id tuples
//! and no itemset ever owns a heap allocation. The item ids are cut into contiguous ranges
//! of about equal work (the number of subsets whose *first* item falls in the range); each
//! range is counted in its own hash map, on its own thread, and sorted. The ranges' sorted
//! outputs then simply follow one another: no merging of maps, and memory at the end is the
//! sorted keys and counts (12 bytes an itemset for keys up to 64 bits) plus one range's map.

use super::{ItemsetCounts, Transactions};
use crate::error::{Error, Result};
use crate::numeric::combinatorics::binomial_capped;
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// The widest key supported: 32 words of 64 bits (e.g. 64 items of 32-bit ids).
pub(super) const MAX_KEY_BITS: u64 = 2048;

/// Bits per item id in a packed key: ⌈log₂ items⌉, at least 1.
pub(super) fn id_bits(items: usize) -> u32 {
    (usize::BITS - items.saturating_sub(1).leading_zeros()).max(1)
}

/// The number of `u64` words of a key of `size` ids of `bits` bits (1 up to 64 bits, then
/// powers of two), or `None` beyond [`MAX_KEY_BITS`].
pub(super) fn key_words(size: usize, bits: u32) -> Option<usize> {
    let total = (size as u64).checked_mul(u64::from(bits))?;
    match total {
        0..=64 => Some(1),
        65..=MAX_KEY_BITS => Some(total.div_ceil(64).next_power_of_two() as usize),
        _ => None,
    }
}

/// A packed itemset key.
trait PackedKey: Copy + Eq + Hash + Ord + Send + Sync {
    /// The key with no id set.
    const ZERO: Self;
    /// `u64` words of storage, most significant first.
    const WORDS: usize;
    /// The key with `id` added at bit `shift` (the bits there are zero).
    fn or_shifted(self, id: u32, shift: u32) -> Self;
    /// Writes the key's [`Self::WORDS`] words, most significant first.
    fn write_words(self, out: &mut [u64]);
}

impl PackedKey for u32 {
    const ZERO: Self = 0;
    const WORDS: usize = 1;
    fn or_shifted(self, id: u32, shift: u32) -> Self {
        self | (id << shift)
    }
    fn write_words(self, out: &mut [u64]) {
        out[0] = u64::from(self);
    }
}

impl PackedKey for u64 {
    const ZERO: Self = 0;
    const WORDS: usize = 1;
    fn or_shifted(self, id: u32, shift: u32) -> Self {
        self | (u64::from(id) << shift)
    }
    fn write_words(self, out: &mut [u64]) {
        out[0] = self;
    }
}

/// A key of `W` words, most significant first (so the derived order is the numeric one).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Wide<const W: usize>([u64; W]);

impl<const W: usize> Hash for Wide<W> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.iter().for_each(|&w| state.write_u64(w));
    }
}

impl<const W: usize> PackedKey for Wide<W> {
    const ZERO: Self = Wide([0; W]);
    const WORDS: usize = W;
    fn or_shifted(mut self, id: u32, shift: u32) -> Self {
        or_into_words(&mut self.0, id, shift);
        self
    }
    fn write_words(self, out: &mut [u64]) {
        out.copy_from_slice(&self.0);
    }
}

/// ORs `id` at bit `shift` of the big-endian word array `words` (the id may straddle two
/// words; the key's total width guarantees the higher one exists when it is needed).
pub(super) fn or_into_words(words: &mut [u64], id: u32, shift: u32) {
    let last = words.len() - 1;
    let (word, offset) = ((shift / 64) as usize, shift % 64);
    let v = u128::from(id) << offset;
    words[last - word] |= v as u64;
    let high = (v >> 64) as u64;
    if high != 0 {
        words[last - word - 1] |= high;
    }
}

/// The `bits`-bit id at bit `shift` of the big-endian word array `words`.
pub(super) fn id_from_words(words: &[u64], shift: u32, bits: u32) -> u32 {
    let last = words.len() - 1;
    let (word, offset) = ((shift / 64) as usize, shift % 64);
    let mut v = u128::from(words[last - word]) >> offset;
    if offset + bits > 64 && word < last {
        v |= u128::from(words[last - word - 1]) << (64 - offset);
    }
    (v & ((1u128 << bits) - 1)) as u32
}

/// A fast non-cryptographic hasher for packed itemset keys (a multiply–rotate mix per word
/// and MurmurHash3's finaliser; keys are item-id tuples, not adversarial hash inputs in any
/// meaningful sense).
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn finish(&self) -> u64 {
        // fmix64: spreads entropy to the high bits the hash table uses.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^= h >> 33;
        h
    }
}

type KeyMap<K> = HashMap<K, u32, BuildHasherDefault<KeyHasher>>;

/// Counts the itemsets of `size` ids (each packed in `words` words of `bits`-bit ids) in the
/// transactions cut to `max_length` items. The caller has bounded the work (the number of
/// subsets enumerated) and checked that the key fits.
pub(super) fn count(
    t: &Transactions,
    size: usize,
    max_length: usize,
    bits: u32,
    words: usize,
) -> Result<ItemsetCounts> {
    let (keys, counts) = match (words, size as u64 * u64::from(bits)) {
        (1, 0..=32) => count_with::<u32>(t, size, max_length, bits)?,
        (1, _) => count_with::<u64>(t, size, max_length, bits)?,
        (2, _) => count_with::<Wide<2>>(t, size, max_length, bits)?,
        (4, _) => count_with::<Wide<4>>(t, size, max_length, bits)?,
        (8, _) => count_with::<Wide<8>>(t, size, max_length, bits)?,
        (16, _) => count_with::<Wide<16>>(t, size, max_length, bits)?,
        (32, _) => count_with::<Wide<32>>(t, size, max_length, bits)?,
        _ => unreachable!("key_words returns 1, 2, 4, 8, 16 or 32"),
    };
    let truncated = t.rows().filter(|r| r.len() > max_length).count();
    Ok(ItemsetCounts {
        size,
        max_length,
        bits,
        words,
        keys,
        counts,
        truncated,
    })
}

/// One contiguous range of first items, counted and sorted: keys (`K::WORDS` words each)
/// and counts.
type Part = (Vec<u64>, Vec<u32>);

/// A part's hash map should stay near this many entries (about 1 MB), so that its random
/// accesses mostly hit the cache.
const PART_ENTRIES: u128 = 1 << 16;

fn count_with<K: PackedKey>(
    t: &Transactions,
    size: usize,
    max_length: usize,
    bits: u32,
) -> Result<(Vec<u64>, Vec<u32>)> {
    let plan = Plan::new(t, size, max_length)?;
    // Ranges are counted a batch at a time (in parallel within a batch) and appended in
    // order — they follow one another in item order, so their sorted outputs do too. Only a
    // batch's outputs wait beside the growing result: the peak stays near one copy of the
    // counts (a finished part's memory is reused by the next batch).
    let batch = 4 * rayon::current_num_threads().max(1);
    let mut keys: Vec<u64> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    let indices: Vec<usize> = (0..plan.ranges.len()).collect();
    for ps in indices.chunks(batch) {
        let parts: Vec<Part> = ps
            .par_iter()
            .map(|&p| count_range::<K>(t, size, max_length, bits, &plan, p))
            .collect::<Result<_>>()?;
        for (part_keys, part_counts) in parts {
            grow(&mut keys, part_keys.len(), "the itemset keys")?;
            grow(&mut counts, part_counts.len(), "the itemset counts")?;
            keys.extend_from_slice(&part_keys);
            counts.extend_from_slice(&part_counts);
        }
    }
    keys.shrink_to_fit();
    counts.shrink_to_fit();
    Ok((keys, counts))
}

/// `v.try_reserve(additional)` (amortised growth), failing with [`Error::OutOfMemory`].
fn grow<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    v.try_reserve(additional).map_err(|_| {
        Error::OutOfMemory(format!(
            "{what} ({} × {} bytes)",
            v.len() + additional,
            std::mem::size_of::<T>()
        ))
    })
}

/// `v.try_reserve_exact(additional)`, failing with [`Error::OutOfMemory`] naming `what`.
pub(super) fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    v.try_reserve_exact(additional).map_err(|_| {
        Error::OutOfMemory(format!(
            "{what} ({additional} × {} bytes)",
            std::mem::size_of::<T>()
        ))
    })
}

/// How the counting is split: ranges [lo, hi) of first items of about equal work, and for
/// each range the transactions that hold one of its items (so that a range visits only
/// those).
struct Plan {
    ranges: Vec<(u32, u32)>,
    /// The number of subsets each range enumerates (saturated): a bound on its itemsets.
    work: Vec<u64>,
    /// Range p's transactions are `rows[starts[p]..starts[p + 1]]`.
    starts: Vec<usize>,
    rows: Vec<u32>,
}

impl Plan {
    /// An item at position a of a (cut) transaction of length m is the first item of
    /// C(m − a − 1, r − 1) subsets: the work of an item is the sum of these. Ranges get
    /// equal shares of the total work, enough of them to keep each range's map near
    /// [`PART_ENTRIES`] entries and every thread busy.
    fn new(t: &Transactions, size: usize, max_length: usize) -> Result<Self> {
        let n_items = t.items().len();
        let longest = t.rows().map(|r| r.len().min(max_length)).max().unwrap_or(0);
        // C(j, r − 1) for every j < longest, saturated: only the proportions matter.
        let starting: Vec<u64> = (0..longest as u64)
            .map(|j| {
                binomial_capped(j, size as u64 - 1, u128::from(u64::MAX))
                    .map_or(u64::MAX, |c| c as u64)
            })
            .collect();
        let mut work: Vec<u64> = Vec::new();
        reserve(&mut work, n_items, "the counting plan")?;
        work.resize(n_items, 0);
        for row in t.rows() {
            let row = &row[..row.len().min(max_length)];
            for (a, &id) in row.iter().enumerate() {
                let w = &mut work[id as usize];
                *w = w.saturating_add(starting[row.len() - a - 1]);
            }
        }
        let total: u128 = work.iter().map(|&w| u128::from(w)).sum();
        let threads = rayon::current_num_threads() as u128;
        let wanted = (total / PART_ENTRIES).max(8 * threads);
        let parts = wanted.min(n_items.max(1) as u128);
        let mut ranges = Vec::new();
        let mut range_work = Vec::new();
        let mut part_of: Vec<u32> = Vec::new();
        reserve(&mut part_of, n_items, "the counting plan")?;
        let (mut lo, mut done, mut closed) = (0usize, 0u128, 0u128);
        for (id, &w) in work.iter().enumerate() {
            done += u128::from(w);
            part_of.push(ranges.len() as u32);
            // Close a range once it reaches its share of the work.
            if done > 0 && done * parts >= total * (ranges.len() as u128 + 1) {
                ranges.push((lo as u32, id as u32 + 1));
                range_work.push(u64::try_from(done - closed).unwrap_or(u64::MAX));
                (lo, closed) = (id + 1, done);
            }
        }
        if lo < n_items {
            ranges.push((lo as u32, n_items as u32));
            range_work.push(u64::try_from(done - closed).unwrap_or(u64::MAX));
        }
        drop(work);
        // Transactions by range (a counting sort): a sorted transaction meets the ranges in
        // order, so each range it touches is one run of its items.
        let mut starts = vec![0usize; ranges.len() + 1];
        let for_each_touch = |f: &mut dyn FnMut(usize, u32)| {
            for (r, row) in t.rows().enumerate() {
                let row = &row[..row.len().min(max_length)];
                let mut last = None;
                for &id in row {
                    let p = part_of[id as usize] as usize;
                    if last != Some(p) {
                        f(p, r as u32);
                        last = Some(p);
                    }
                }
            }
        };
        for_each_touch(&mut |p, _| starts[p + 1] += 1);
        for p in 0..ranges.len() {
            starts[p + 1] += starts[p];
        }
        let mut rows: Vec<u32> = Vec::new();
        reserve(&mut rows, starts[ranges.len()], "the counting plan")?;
        rows.resize(starts[ranges.len()], 0);
        let mut next = starts.clone();
        for_each_touch(&mut |p, r| {
            rows[next[p]] = r;
            next[p] += 1;
        });
        Ok(Self {
            ranges,
            work: range_work,
            starts,
            rows,
        })
    }
}

/// Counts the itemsets whose first (smallest) id lies in range `p` of the plan, sorted by
/// key.
fn count_range<K: PackedKey>(
    t: &Transactions,
    size: usize,
    max_length: usize,
    bits: u32,
    plan: &Plan,
    p: usize,
) -> Result<Part> {
    let (lo, hi) = plan.ranges[p];
    let mut map: KeyMap<K> = KeyMap::default();
    // Room for the range's work (an upper bound on its itemsets) up to a few times the
    // planned size, so that most ranges never rehash.
    let expected = plan.work[p].min(4 * PART_ENTRIES as u64) as usize;
    map.try_reserve(expected)
        .map_err(|_| Error::OutOfMemory(format!("a hash map of {expected} itemsets")))?;
    let mut failed = false;
    let mut combos = Combinations::<K>::new(size, bits);
    for &r in &plan.rows[plan.starts[p]..plan.starts[p + 1]] {
        let row = t.row(r as usize);
        let row = &row[..row.len().min(max_length)];
        let start = row.partition_point(|&id| id < lo);
        for a in start..row.len() {
            let first = row[a];
            if first >= hi {
                break;
            }
            combos.for_each(first, &row[a + 1..], &mut |key| {
                // Grow explicitly so that a failed allocation is an error, not an abort.
                if map.len() == map.capacity() && map.try_reserve(map.len().max(1024)).is_err() {
                    failed = true;
                    return;
                }
                *map.entry(key).or_insert(0) += 1;
            });
            if failed {
                return Err(Error::OutOfMemory(format!(
                    "the counts of {} distinct itemsets",
                    map.len()
                )));
            }
        }
    }
    let mut pairs: Vec<(K, u32)> = Vec::new();
    reserve(&mut pairs, map.len(), "the itemset counts")?;
    pairs.extend(map.drain());
    drop(map);
    pairs.sort_unstable_by_key(|p| p.0);
    let mut keys: Vec<u64> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    reserve(&mut keys, pairs.len() * K::WORDS, "the itemset keys")?;
    reserve(&mut counts, pairs.len(), "the itemset counts")?;
    let mut word = vec![0u64; K::WORDS];
    for (key, count) in pairs {
        key.write_words(&mut word);
        keys.extend_from_slice(&word);
        counts.push(count);
    }
    Ok((keys, counts))
}

/// Enumerates the r-subsets of a sorted row that start with a given item, as packed keys in
/// increasing order, reusing its buffers (no allocation per subset).
struct Combinations<K> {
    size: usize,
    bits: u32,
    /// Indices into the rest of the row of the ids after the first.
    idx: Vec<usize>,
    /// `partial[j]`: the key with the first id and the next j ids set.
    partial: Vec<K>,
}

impl<K: PackedKey> Combinations<K> {
    fn new(size: usize, bits: u32) -> Self {
        Self {
            size,
            bits,
            idx: vec![0; size.saturating_sub(1)],
            partial: vec![K::ZERO; size],
        }
    }

    /// The bit position of the id at place j (0-based) of the itemset.
    fn shift(&self, j: usize) -> u32 {
        self.bits * (self.size - 1 - j) as u32
    }

    /// Calls `f` with every r-subset {first} ∪ S, S ⊆ rest, |S| = r − 1, in key order.
    fn for_each(&mut self, first: u32, rest: &[u32], f: &mut impl FnMut(K)) {
        let k = self.size - 1;
        let n = rest.len();
        let base = K::ZERO.or_shifted(first, self.shift(0));
        match k {
            0 => f(base),
            _ if n < k => {}
            1 => rest.iter().for_each(|&b| f(base.or_shifted(b, 0))),
            2 => {
                let shift = self.shift(1);
                for (a, &x) in rest.iter().enumerate() {
                    let with_a = base.or_shifted(x, shift);
                    rest[a + 1..]
                        .iter()
                        .for_each(|&b| f(with_a.or_shifted(b, 0)));
                }
            }
            _ => {
                // Lexicographic enumeration of index tuples; partial keys are recomputed
                // only from the first index that changed.
                for j in 0..k {
                    self.idx[j] = j;
                }
                self.partial[0] = base;
                let mut from = 0;
                loop {
                    for j in from..k {
                        self.partial[j + 1] =
                            self.partial[j].or_shifted(rest[self.idx[j]], self.shift(j + 1));
                    }
                    f(self.partial[k]);
                    let mut i = k - 1;
                    while self.idx[i] == i + n - k {
                        if i == 0 {
                            return;
                        }
                        i -= 1;
                    }
                    self.idx[i] += 1;
                    for j in i + 1..k {
                        self.idx[j] = self.idx[j - 1] + 1;
                    }
                    from = i;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_across_boundaries() {
        for bits in [1u32, 7, 15, 31, 32] {
            for size in [1usize, 2, 5, 9, 64] {
                let Some(w) = key_words(size, bits) else {
                    continue;
                };
                let ids: Vec<u32> = (0..size as u32)
                    .map(|j| {
                        j.wrapping_mul(2_654_435_761).wrapping_add(j) & ((1u64 << bits) - 1) as u32
                    })
                    .collect();
                let mut words = vec![0u64; w];
                for (j, &id) in ids.iter().enumerate() {
                    or_into_words(&mut words, id, bits * (size - 1 - j) as u32);
                }
                let back: Vec<u32> = (0..size)
                    .map(|j| id_from_words(&words, bits * (size - 1 - j) as u32, bits))
                    .collect();
                assert_eq!(back, ids, "bits {bits} size {size}");
            }
        }
        assert_eq!(key_words(2, 32), Some(1));
        assert_eq!(key_words(3, 32), Some(2));
        assert_eq!(key_words(9, 15), Some(4));
        assert_eq!(key_words(64, 32), Some(32));
        assert_eq!(key_words(65, 32), None);
    }

    #[test]
    fn combinations_are_complete_and_ordered() {
        let row = [1u32, 4, 5, 9, 12, 13, 20];
        for r in 1..=7 {
            let mut c = Combinations::<u64>::new(r, 5);
            let mut keys = Vec::new();
            for a in 0..row.len() {
                c.for_each(row[a], &row[a + 1..], &mut |k| keys.push(k));
            }
            assert_eq!(
                keys.len() as u64,
                binomial_capped(7, r as u64, u128::MAX).unwrap() as u64,
                "r = {r}"
            );
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "r = {r}");
            let mut wide = Combinations::<Wide<2>>::new(r, 5);
            let mut wide_keys = Vec::new();
            for a in 0..row.len() {
                wide.for_each(row[a], &row[a + 1..], &mut |k| wide_keys.push(k.0[1]));
            }
            assert_eq!(wide_keys, keys, "r = {r}");
        }
        let mut none = 0;
        Combinations::<u32>::new(4, 5).for_each(1, &[2, 3], &mut |_| none += 1);
        assert_eq!(none, 0);
    }

    #[test]
    fn bits() {
        assert_eq!(id_bits(1), 1);
        assert_eq!(id_bits(2), 1);
        assert_eq!(id_bits(3), 2);
        assert_eq!(id_bits(3340), 12);
    }
}
