//! Swap rounding (Chekuri, Vondrák & Zenklusen 2010): a fractional point of a matroid
//! polytope, given as a convex combination of independent sets, becomes one independent set
//! with the same marginals, using only an independence oracle.

use crate::constraint::Independence;
use crate::error::{Error, Result};
use crate::noise::bernoulli::bernoulli_ratio_u64;
use rand_core::{CryptoRng, Rng};
use std::collections::BTreeMap;

/// Rounds x = Σ_k β_k·1_{B_k} / Σ_k β_k (the `sets`, each `(β_k, B_k)` with an integer weight
/// β_k ≥ 1 and an independent set B_k) to one independent set S with E\[1_S\] = x.
///
/// # Algorithm (CVZ 2010, "Dependent randomized rounding via exchange properties")
/// Every B_k is padded to a base of the matroid M′ = (M ⊕ r free dummy elements) truncated
/// to rank r = `constraint.rank_bound()` (a matroid: a truncation of a direct sum), whose
/// bases are exactly "an independent set of M plus dummies up to size r"; bases of M need
/// no padding. Identical sets are merged first (their weights add). Then
/// C ← B₁, γ ← β₁, and for k = 2, 3, …: C ← MergeBases(γ, C, β_k, B_k), γ ← γ + β_k, where
/// MergeBases(β₁, B₁, β₂, B₂) repeats, while B₁ ≠ B₂: take i ∈ B₁ ∖ B₂ and j ∈ B₂ ∖ B₁ with
/// B₁ − i + j and B₂ − j + i both independent (a *symmetric exchange*, which always exists
/// between two bases of a matroid); with probability β₁/(β₁ + β₂) set B₂ ← B₂ − j + i,
/// otherwise B₁ ← B₁ − i + j. The result is C without its dummies.
///
/// # Guarantees
/// * S is independent in M, always (every intermediate set is checked); S is a base of M
///   when every B_k is.
/// * E\[1_S\] = x: each swap keeps the expected weighted indicator β₁·1_{B₁} + β₂·1_{B₂}
///   (i gains β₂ with probability β₁/(β₁+β₂) and loses β₁ otherwise: zero mean; likewise j).
/// * The coordinates of 1_S are negatively correlated, so for monotone submodular f,
///   E[f(S)] ≥ F(x) (CVZ 2010, Thm 1.1 and Lemma 3.2), with lower-tail concentration.
/// * *Privacy*: it looks only at x, the matroid and fresh randomness — post-processing,
///   free (Rafiey & Yoshida 2020, Remark 3.2).
///
/// # Exactness
/// Each swap is an exact Bernoulli(β₁/(β₁+β₂)) on integers; the marginals are exactly x.
///
/// # Runtime
/// At most r swaps per merge; each swap tries at most r candidates j, each checked with the
/// oracle from scratch (O(r) `can_add`/`insert` calls): O(m·r³) oracle calls for m distinct
/// sets, in practice far fewer (identical sets merge for free, and most checks pass early).
///
/// ```
/// use disguise::constraint::Cardinality;
/// use disguise::maximize::swap_round;
/// let mut rng = disguise::SecureRng::insecure_from_seed(2);
/// // x = ½·1_{0,1} + ½·1_{2,3}: every output is one of the four 2-sets {0|1} × {2|3}…
/// let s = swap_round(&Cardinality::new(4, 2), &[(1, vec![0, 1]), (1, vec![2, 3])], &mut rng)?;
/// assert_eq!(s.len(), 2);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// No sets, a zero weight, weights summing above 2^64 − 1, an element outside the ground
/// set, a repeated element, a dependent set, a set larger than `rank_bound()`, or a
/// constraint that is not a matroid (no symmetric exchange found).
pub fn swap_round<C, R>(
    constraint: &C,
    sets: &[(u64, Vec<usize>)],
    rng: &mut R,
) -> Result<Vec<usize>>
where
    C: Independence + ?Sized,
    R: Rng + CryptoRng + ?Sized,
{
    if sets.is_empty() {
        return Err(Error::param("sets", "nothing to round"));
    }
    let n = constraint.ground_size();
    let rank = constraint.rank_bound();
    // Merge identical sets (sorted) and validate.
    let mut merged: BTreeMap<Vec<usize>, u64> = BTreeMap::new();
    let mut total: u64 = 0;
    for (k, (weight, set)) in sets.iter().enumerate() {
        if *weight == 0 {
            return Err(Error::param("sets", format!("set {k} has weight 0")));
        }
        total = total
            .checked_add(*weight)
            .ok_or_else(|| Error::Overflow("swap rounding weights exceed 2^64 − 1".into()))?;
        if !constraint.is_independent(set) {
            return Err(Error::param(
                "sets",
                format!("set {k} is not independent (or repeats or names an unknown element)"),
            ));
        }
        if set.len() > rank {
            return Err(Error::param(
                "sets",
                format!("set {k} has {} elements, above the rank {rank}", set.len()),
            ));
        }
        let mut sorted = set.clone();
        sorted.sort_unstable();
        *merged.entry(sorted).or_insert(0) += *weight;
    }
    // Pad to size r with dummies n, n+1, … (which dummies does not matter).
    let pad = |set: &Vec<usize>| -> Vec<usize> {
        let mut padded = set.clone();
        padded.extend(n..n + (rank - set.len()));
        padded
    };
    let mut iter = merged.iter();
    let (first, &w1) = iter.next().expect("at least one set");
    let mut current = pad(first);
    let mut gamma = w1;
    let oracle = Oracle { constraint, n };
    for (set, &w) in iter {
        let mut other = pad(set);
        merge(&oracle, gamma, &mut current, w, &mut other, rng)?;
        gamma += w; // ≤ total, no overflow
    }
    let mut out: Vec<usize> = current.into_iter().filter(|&v| v < n).collect();
    out.sort_unstable();
    Ok(out)
}

/// The independence oracle of M′ for sets of size r: the real elements (< n) independent in M.
struct Oracle<'a, C: ?Sized> {
    constraint: &'a C,
    n: usize,
}

impl<C: Independence + ?Sized> Oracle<'_, C> {
    /// Whether `set` − `out` + `inn` is independent in M′ (size stays r).
    fn exchange_ok(&self, set: &[usize], out: usize, inn: usize) -> bool {
        let mut state = self.constraint.empty();
        for &v in set
            .iter()
            .filter(|&&v| v != out)
            .chain(std::iter::once(&inn))
        {
            if v >= self.n {
                continue;
            }
            if !self.constraint.can_add(&state, v) {
                return false;
            }
            self.constraint.insert(&mut state, v);
        }
        true
    }
}

/// MergeBases (see [`swap_round`]): turns `b1` into the merged base.
fn merge<C, R>(
    oracle: &Oracle<'_, C>,
    beta1: u64,
    b1: &mut [usize],
    beta2: u64,
    b2: &mut [usize],
    rng: &mut R,
) -> Result<()>
where
    C: Independence + ?Sized,
    R: Rng + CryptoRng + ?Sized,
{
    let sum = beta1
        .checked_add(beta2)
        .ok_or_else(|| Error::Overflow("swap rounding weights exceed 2^64 − 1".into()))?;
    loop {
        let Some(&i) = b1.iter().find(|v| !b2.contains(v)) else {
            return Ok(()); // same size and B₁ ⊆ B₂: equal
        };
        let j = b2
            .iter()
            .copied()
            .filter(|v| !b1.contains(v))
            .find(|&j| oracle.exchange_ok(b1, i, j) && oracle.exchange_ok(b2, j, i))
            .ok_or_else(|| {
                Error::param(
                    "constraint",
                    "no symmetric exchange exists between two bases: swap rounding needs a \
                     matroid whose rank_bound() is its rank",
                )
            })?;
        if bernoulli_ratio_u64(rng, beta1, sum) {
            let pos = b2.iter().position(|&v| v == j).expect("j ∈ B₂");
            b2[pos] = i;
        } else {
            let pos = b1.iter().position(|&v| v == i).expect("i ∈ B₁");
            b1[pos] = j;
        }
    }
}
