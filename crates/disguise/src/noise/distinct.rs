//! Uniform sampling of q distinct integers from [0, m), m up to 2^64 − 1, in O(q) expected
//! time and memory — e.g. choosing which of 2^60 empty histogram cells get a noisy count.
//!
//! # Exactness
//! Every q-subset is returned with probability exactly 1/C(m, q) (resp. 1/C(m − |E|, q)
//! when a set E is excluded), given ideal uniform bits: the only randomness is the exact
//! [`uniform_below`].

use std::collections::HashSet;
use std::hash::BuildHasher;

use crate::error::{Error, Result};
use rand_core::{CryptoRng, Rng};

use super::bernoulli::uniform_below;

/// q distinct integers drawn uniformly from [0, m): every q-subset is equally likely.
/// Returned **sorted ascending**.
///
/// # Algorithm
/// Robert Floyd's algorithm (Bentley & Floyd, "Programming Pearls: A Sample of Brilliance",
/// CACM 1987): for j = m − q, …, m − 1 draw t uniform in [0, j] and insert t, or j if t was
/// already chosen. By induction every subset of the j + 1 − (m − q) values chosen so far is
/// uniform among subsets of [0, j].
///
/// # Runtime
/// O(q) expected time (q uniform draws and hash-set operations) plus O(q log q) for the
/// final sort; O(q) memory. Independent of m.
///
/// # Errors
/// [`Error::InvalidParameter`] if q > m.
///
/// ```
/// use disguise::noise::{SecureRng, sample_distinct};
/// let mut rng = SecureRng::insecure_from_seed(1);
/// let cells = sample_distinct(&mut rng, u64::MAX, 5)?;
/// assert_eq!(cells.len(), 5);
/// assert!(cells.windows(2).all(|w| w[0] < w[1]));
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn sample_distinct<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    m: u64,
    q: usize,
) -> Result<Vec<u64>> {
    if q as u128 > m as u128 {
        return Err(Error::param(
            "q",
            format!("cannot draw {q} distinct integers from [0, {m})"),
        ));
    }
    let mut out = floyd(rng, m, q as u64);
    out.sort_unstable();
    Ok(out)
}

/// Floyd's algorithm; q ≤ m. Unsorted.
fn floyd<R: Rng + CryptoRng + ?Sized>(rng: &mut R, m: u64, q: u64) -> Vec<u64> {
    let mut chosen: HashSet<u64> = HashSet::with_capacity(q as usize);
    let mut out = Vec::with_capacity(q as usize);
    for j in (m - q)..m {
        // j + 1 ≤ m ≤ u64::MAX: no overflow.
        let t = uniform_below(rng, j + 1);
        let pick = if chosen.insert(t) {
            t
        } else {
            chosen.insert(j);
            j
        };
        out.push(pick);
    }
    out
}

/// q distinct integers drawn uniformly from [0, m) \ `excluded`: every q-subset of the
/// allowed values is equally likely. Returned **sorted ascending**. Elements of `excluded`
/// that are ≥ m are ignored.
///
/// # Algorithm
/// With e = |excluded ∩ [0, m)|:
/// * if e + q ≤ m/2 (the usual case: few excluded cells in a huge domain), rejection: draw
///   uniform values in [0, m) and keep those neither excluded nor already chosen — the first
///   q distinct allowed values of an i.i.d. uniform sequence form a uniform q-subset;
/// * otherwise, Floyd's algorithm on the ranks [0, m − e) of the allowed values, mapped to
///   values by a merge with the sorted excluded set.
///
/// # Runtime
/// Rejection regime: O(e + q) expected (fewer than 2q draws, since at least half of [0, m)
/// is always available), plus O(q log q) to sort. Rank regime: O(e log e + q log q). Memory
/// O(q) (plus O(e) in the rank regime).
///
/// # Errors
/// [`Error::InvalidParameter`] if q > m − e.
///
/// ```
/// use disguise::noise::{SecureRng, sample_distinct_excluding};
/// use std::collections::HashSet;
/// let mut rng = SecureRng::insecure_from_seed(2);
/// let nonempty: HashSet<u64> = [3, 5, 7].into_iter().collect();
/// let empty_cells = sample_distinct_excluding(&mut rng, 1 << 40, 4, &nonempty)?;
/// assert!(empty_cells.iter().all(|c| !nonempty.contains(c)));
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn sample_distinct_excluding<R, S>(
    rng: &mut R,
    m: u64,
    q: usize,
    excluded: &HashSet<u64, S>,
) -> Result<Vec<u64>>
where
    R: Rng + CryptoRng + ?Sized,
    S: BuildHasher,
{
    let e = excluded.iter().filter(|&&x| x < m).count() as u64;
    let available = m - e;
    if q as u128 > available as u128 {
        return Err(Error::param(
            "q",
            format!(
                "cannot draw {q} distinct integers from [0, {m}) without its {e} excluded values"
            ),
        ));
    }
    let q = q as u64;
    let mut out = if (e as u128 + q as u128) * 2 <= m as u128 {
        // Rejection: each draw succeeds with probability ≥ ½.
        let mut chosen: HashSet<u64> = HashSet::with_capacity(q as usize);
        let mut out = Vec::with_capacity(q as usize);
        while (out.len() as u64) < q {
            let x = uniform_below(rng, m);
            if !excluded.contains(&x) && chosen.insert(x) {
                out.push(x);
            }
        }
        out
    } else {
        // Ranks among the allowed values, then rank → value by merging with sorted excluded.
        let mut ranks = floyd(rng, available, q);
        ranks.sort_unstable();
        let mut ex: Vec<u64> = excluded.iter().copied().filter(|&x| x < m).collect();
        ex.sort_unstable();
        let mut k = 0usize; // excluded values ≤ the current candidate
        ranks
            .into_iter()
            .map(|r| {
                let mut v = r + k as u64;
                while k < ex.len() && ex[k] <= v {
                    k += 1;
                    v += 1;
                }
                v
            })
            .collect()
    };
    out.sort_unstable();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::SecureRng;
    use crate::noise::gof::chi_square_test;
    use std::collections::HashMap;

    /// Chi-square of subset frequencies against the uniform law on all `n_subsets`
    /// subsets, at false-alarm rate 1e-4.
    fn check_uniform_subsets(draws: Vec<Vec<u64>>, n_subsets: usize) {
        let mut counts: HashMap<Vec<u64>, u64> = HashMap::new();
        for d in draws {
            *counts.entry(d).or_default() += 1;
        }
        assert_eq!(counts.len(), n_subsets, "not every subset was seen");
        let observed: Vec<u64> = counts.values().copied().collect();
        chi_square_test(&observed, &vec![1.0 / n_subsets as f64; n_subsets], 1e-4);
    }

    #[test]
    fn all_pairs_of_five_equally_likely() {
        let mut rng = SecureRng::insecure_from_seed(401);
        let draws: Vec<Vec<u64>> = (0..50_000)
            .map(|_| {
                let s = sample_distinct(&mut rng, 5, 2).unwrap();
                assert!(s[0] < s[1] && s[1] < 5);
                s
            })
            .collect();
        check_uniform_subsets(draws, 10);
    }

    #[test]
    fn triples_of_seven_equally_likely() {
        let mut rng = SecureRng::insecure_from_seed(402);
        let draws: Vec<Vec<u64>> = (0..70_000)
            .map(|_| sample_distinct(&mut rng, 7, 3).unwrap())
            .collect();
        check_uniform_subsets(draws, 35);
    }

    #[test]
    fn huge_domain() {
        let mut rng = SecureRng::insecure_from_seed(403);
        let s = sample_distinct(&mut rng, u64::MAX, 1000).unwrap();
        assert_eq!(s.len(), 1000);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert!(*s.last().unwrap() < u64::MAX);
        // Spread over the domain: the largest of 1000 uniform values is in the top 1% with
        // probability 1 − 0.99^1000 > 1 − 5e-5.
        assert!(*s.last().unwrap() > u64::MAX / 100 * 99);
    }

    #[test]
    fn edge_cases_and_errors() {
        let mut rng = SecureRng::insecure_from_seed(404);
        assert_eq!(
            sample_distinct(&mut rng, 5, 5).unwrap(),
            vec![0, 1, 2, 3, 4]
        );
        assert!(sample_distinct(&mut rng, 5, 0).unwrap().is_empty());
        assert!(sample_distinct(&mut rng, 0, 0).unwrap().is_empty());
        assert!(matches!(
            sample_distinct(&mut rng, 5, 6),
            Err(Error::InvalidParameter { .. })
        ));
        let ex: HashSet<u64> = [1, 3, 100].into_iter().collect();
        assert_eq!(
            sample_distinct_excluding(&mut rng, 5, 3, &ex).unwrap(),
            vec![0, 2, 4]
        );
        assert!(sample_distinct_excluding(&mut rng, 5, 4, &ex).is_err());
        assert!(
            sample_distinct_excluding(&mut rng, 0, 0, &ex)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn excluding_is_uniform_in_both_regimes() {
        let mut rng = SecureRng::insecure_from_seed(405);
        // Rank regime: m = 6, E = {1, 4}: the 6 pairs of {0, 2, 3, 5}.
        let ex: HashSet<u64> = [1, 4].into_iter().collect();
        let draws: Vec<Vec<u64>> = (0..30_000)
            .map(|_| {
                let s = sample_distinct_excluding(&mut rng, 6, 2, &ex).unwrap();
                assert!(s.iter().all(|x| !ex.contains(x)));
                s
            })
            .collect();
        check_uniform_subsets(draws, 6);
        // Rejection regime: m = 20, E = {0, 7, 19} (and 25, ignored): C(17, 2) = 136 pairs.
        let ex: HashSet<u64> = [0, 7, 19, 25].into_iter().collect();
        let draws: Vec<Vec<u64>> = (0..68_000)
            .map(|_| {
                let s = sample_distinct_excluding(&mut rng, 20, 2, &ex).unwrap();
                assert!(s.iter().all(|x| !ex.contains(x) && *x < 20));
                s
            })
            .collect();
        check_uniform_subsets(draws, 136);
    }

    #[test]
    fn excluding_in_huge_domain() {
        let mut rng = SecureRng::insecure_from_seed(406);
        let ex: HashSet<u64> = (0..10_000u64).map(|i| i * 7).collect();
        let s = sample_distinct_excluding(&mut rng, u64::MAX, 1000, &ex).unwrap();
        assert_eq!(s.len(), 1000);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert!(s.iter().all(|x| !ex.contains(x)));
        // Dense exclusion near the top of a small domain (rank regime): all survivors.
        let ex: HashSet<u64> = (0..95u64).collect();
        let s = sample_distinct_excluding(&mut rng, 100, 5, &ex).unwrap();
        assert_eq!(s, vec![95, 96, 97, 98, 99]);
    }
}
