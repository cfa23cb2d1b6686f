//! The cardinality constraint |S| ≤ k and the uniform matroid (possibly with loops).

use super::Independence;
use crate::error::{Error, Result};
use serde::Serialize;

/// At most `k` elements: the uniform matroid U(k, n), the constraint of Algorithm 1 of
/// Mitrovic et al. (2017).
///
/// `k = 0` is allowed (only the empty set is feasible) and `k ≥ n` is allowed (every set is
/// feasible): the rank bound is `min(k, n)`, so a greedy algorithm makes at most that many
/// privacy-consuming rounds. (The CLI rejects `k > n` as a likely typo; the library clamps.)
///
/// ```
/// use disguise::constraint::{Cardinality, Independence};
/// let c = Cardinality::new(5, 2);
/// let mut s = c.empty();
/// c.insert(&mut s, 0);
/// c.insert(&mut s, 3);
/// assert!(!c.can_add(&s, 1));
/// assert_eq!(c.rank_bound(), 2);
/// assert!(c.is_independent(&[4, 1]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Cardinality {
    ground_size: usize,
    k: usize,
}

impl Cardinality {
    /// |S| ≤ `k` over the ground set `0..ground_size`.
    pub fn new(ground_size: usize, k: usize) -> Self {
        Self { ground_size, k }
    }

    /// The bound k as given (not clamped to the ground size).
    pub fn k(&self) -> usize {
        self.k
    }
}

impl Independence for Cardinality {
    /// The number of elements chosen so far.
    type State = usize;

    fn ground_size(&self) -> usize {
        self.ground_size
    }
    fn empty(&self) -> usize {
        0
    }
    fn can_add(&self, state: &usize, v: usize) -> bool {
        v < self.ground_size && *state < self.k
    }
    fn insert(&self, state: &mut usize, _v: usize) {
        *state += 1;
    }
    fn rank_bound(&self) -> usize {
        self.k.min(self.ground_size)
    }
    fn extendibility(&self) -> usize {
        1
    }
    fn name(&self) -> &'static str {
        "cardinality"
    }
}

/// The uniform matroid of rank `k` on a subset E ⊆ V: a set is feasible when it lies inside E
/// and has at most `k` elements. Elements outside E are *loops* (never feasible).
///
/// With E = V ([`Uniform::new`]) this is the same family as [`Cardinality`]; restricting E
/// ([`Uniform::on`]) expresses "at most k, chosen from this shortlist". Adding loops to a
/// matroid keeps it a matroid, so the extendibility is 1.
///
/// ```
/// use disguise::constraint::{Independence, Uniform};
/// let u = Uniform::on(6, &[1, 2, 5], 2)?;
/// assert!(!u.can_add(&u.empty(), 0)); // 0 is not in the shortlist
/// assert_eq!(u.rank_bound(), 2);
/// assert!(Uniform::on(6, &[9], 1).is_err()); // unknown element id
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Uniform {
    allowed: Vec<bool>,
    allowed_count: usize,
    k: usize,
}

impl Uniform {
    /// U(k, n) on the whole ground set `0..ground_size`.
    pub fn new(ground_size: usize, k: usize) -> Self {
        Self {
            allowed: vec![true; ground_size],
            allowed_count: ground_size,
            k,
        }
    }

    /// U(k, |E|) on `elements` = E ⊆ `0..ground_size`; every other element is a loop.
    ///
    /// Errors if an element id is `≥ ground_size` or listed twice.
    pub fn on(ground_size: usize, elements: &[usize], k: usize) -> Result<Self> {
        let mut allowed = vec![false; ground_size];
        for &v in elements {
            if v >= ground_size {
                return Err(Error::param(
                    "uniform matroid",
                    format!("unknown element id {v} (the ground set is 0..{ground_size})"),
                ));
            }
            if allowed[v] {
                return Err(Error::param(
                    "uniform matroid",
                    format!("element {v} is listed twice"),
                ));
            }
            allowed[v] = true;
        }
        Ok(Self {
            allowed,
            allowed_count: elements.len(),
            k,
        })
    }

    /// The rank k as given.
    pub fn k(&self) -> usize {
        self.k
    }
}

impl Independence for Uniform {
    /// The number of elements chosen so far.
    type State = usize;

    fn ground_size(&self) -> usize {
        self.allowed.len()
    }
    fn empty(&self) -> usize {
        0
    }
    fn can_add(&self, state: &usize, v: usize) -> bool {
        *state < self.k && self.allowed.get(v).copied().unwrap_or(false)
    }
    fn insert(&self, state: &mut usize, _v: usize) {
        *state += 1;
    }
    fn rank_bound(&self) -> usize {
        self.k.min(self.allowed_count)
    }
    fn extendibility(&self) -> usize {
        1
    }
    fn name(&self) -> &'static str {
        "uniform"
    }
}
