//! Stratified K-fold cross-validation splits.

use crate::error::{Error, Result};
use crate::noise::bernoulli::uniform_below;
use rand_core::{CryptoRng, Rng};
use std::collections::BTreeMap;

/// A random partition of `n` examples into `k` folds, stratified on the label.
///
/// Each class's examples are shuffled (Fisher–Yates with exactly uniform integers from the
/// generator) and dealt round-robin to the folds, the deal continuing across classes (in
/// increasing label order) where the previous class stopped. Hence:
///
/// * every fold holds `⌊n_c / k⌋` or `⌈n_c / k⌉` examples of each class `c` — within ±1 of
///   the ideal `n_c / k` (a class with fewer than `k` examples is missing from some folds);
/// * fold sizes differ by at most one;
/// * the split is a deterministic function of the labels and the generator's stream (use
///   [`crate::SecureRng::insecure_from_seed`] for reproducible experiments).
///
/// *Runtime*: O(n log n) (grouping), O(n) random draws.
///
/// ```
/// use disguise::{SecureRng, learn::StratifiedKFold};
/// let labels = [0, 0, 0, 0, 1, 1, 1, 1, 1, 1];
/// let folds = StratifiedKFold::new(&labels, 2, &mut SecureRng::insecure_from_seed(1))?;
/// for f in 0..2 {
///     let test = folds.test_indices(f);
///     let ones = test.iter().filter(|&&i| labels[i] == 1).count();
///     assert_eq!((test.len(), ones), (5, 3));
/// }
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StratifiedKFold {
    k: usize,
    fold_of: Vec<usize>,
}

impl StratifiedKFold {
    /// Splits the examples with these `labels` into `k` folds.
    ///
    /// # Errors
    /// No labels, `k < 2`, or `k` larger than the number of examples.
    pub fn new<R: Rng + CryptoRng + ?Sized>(labels: &[u32], k: usize, rng: &mut R) -> Result<Self> {
        let n = labels.len();
        if n == 0 {
            return Err(Error::param("labels", "no examples to split"));
        }
        if k < 2 || k > n {
            return Err(Error::param(
                "k",
                format!("need 2 <= k <= {n} (the number of examples), got {k}"),
            ));
        }
        let mut by_class: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, &c) in labels.iter().enumerate() {
            by_class.entry(c).or_default().push(i);
        }
        let mut fold_of = vec![0; n];
        let mut next = 0usize;
        for members in by_class.values_mut() {
            // Fisher–Yates: position j receives a uniform choice among the first j + 1.
            for j in (1..members.len()).rev() {
                let r = uniform_below(rng, j as u64 + 1) as usize;
                members.swap(j, r);
            }
            for &i in members.iter() {
                fold_of[i] = next;
                next = (next + 1) % k;
            }
        }
        Ok(Self { k, fold_of })
    }

    /// The number of folds.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The fold (in `0..k`) of each example.
    pub fn fold_of(&self) -> &[usize] {
        &self.fold_of
    }

    /// The examples of fold `fold`, in increasing order (empty if `fold >= k`).
    pub fn test_indices(&self, fold: usize) -> Vec<usize> {
        (0..self.fold_of.len())
            .filter(|&i| self.fold_of[i] == fold)
            .collect()
    }

    /// The examples of every fold except `fold`, in increasing order.
    pub fn train_indices(&self, fold: usize) -> Vec<usize> {
        (0..self.fold_of.len())
            .filter(|&i| self.fold_of[i] != fold)
            .collect()
    }

    /// `(train, test)` index lists for each fold in turn.
    pub fn splits(&self) -> impl Iterator<Item = (Vec<usize>, Vec<usize>)> + '_ {
        (0..self.k).map(move |f| (self.train_indices(f), self.test_indices(f)))
    }
}
