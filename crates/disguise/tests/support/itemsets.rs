//! A brute-force itemset counter to check the library's against.
#![allow(dead_code)]

use disguise::apps::{ItemsetCounts, Transactions};
use std::collections::BTreeMap;

/// Every r-subset of `0..items` (lexicographic), as id vectors.
pub fn all_subsets(items: u32, r: usize) -> Vec<Vec<u32>> {
    fn rec(start: u32, items: u32, r: usize, cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if cur.len() == r {
            out.push(cur.clone());
            return;
        }
        for i in start..items {
            cur.push(i);
            rec(i + 1, items, r, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    rec(0, items, r, &mut Vec::new(), &mut out);
    out
}

/// Brute force: for every itemset of the universe, the transactions (cut to their B first
/// ids) that contain it, by bit masks (at most 128 items).
pub fn brute_counts(t: &Transactions, r: usize, b: usize) -> BTreeMap<Vec<u32>, u64> {
    assert!(t.items().len() <= 128);
    let mask = |ids: &[u32]| ids.iter().fold(0u128, |m, &i| m | 1u128 << i);
    let rows: Vec<u128> = t.rows().map(|row| mask(&row[..row.len().min(b)])).collect();
    let mut out = BTreeMap::new();
    for set in all_subsets(t.items().len() as u32, r) {
        let m = mask(&set);
        let c = rows.iter().filter(|&&row| row & m == m).count() as u64;
        if c > 0 {
            out.insert(set, c);
        }
    }
    out
}

/// The counts as a map from itemset to count.
pub fn as_map(c: &ItemsetCounts) -> BTreeMap<Vec<u32>, u64> {
    (0..c.len()).map(|i| (c.itemset(i), c.count(i))).collect()
}
