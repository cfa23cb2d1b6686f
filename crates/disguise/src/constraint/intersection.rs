//! One type for every matroid ([`Matroid`]), and the intersection of p matroids — a
//! p-extendible system ([`Intersection`]).

use super::{Cardinality, Forest, Graphic, Independence, Partition, Uniform};
use crate::data::quote;
use crate::error::{Error, Result};
use serde::Serialize;

/// Any one of the library's matroids behind one type, so that matroids chosen at run time
/// (from the command line) can be intersected and handed to an algorithm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Matroid {
    /// |S| ≤ k.
    Cardinality(Cardinality),
    /// At most k from a shortlist.
    Uniform(Uniform),
    /// Groups with capacities.
    Partition(Partition),
    /// Forests of a graph.
    Graphic(Graphic),
}

/// The state of a [`Matroid`]: the state of the matroid it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatroidState {
    /// Number chosen ([`Cardinality`], [`Uniform`]).
    Count(usize),
    /// Number chosen per group ([`Partition`]).
    Counts(Vec<usize>),
    /// The union–find of the chosen edges ([`Graphic`]).
    Forest(Forest),
}

impl Matroid {
    /// Parses a constraint spec as the CLI writes it, for a ground set of `ground_size`
    /// elements:
    ///
    /// * `cardinality:K` — at most K elements;
    /// * `uniform:K` — the same family, named as the uniform matroid;
    /// * `partition:FILE` — a partition file (format on [`Partition`]);
    /// * `graphic:FILE` — an edge list (format on [`Graphic`]); it must have `ground_size`
    ///   edges.
    ///
    /// ```
    /// use disguise::constraint::{Independence, Matroid};
    /// let m = Matroid::from_spec("cardinality:3", 10)?;
    /// assert_eq!(m.rank_bound(), 3);
    /// assert!(Matroid::from_spec("banana:3", 10).is_err());
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn from_spec(spec: &str, ground_size: usize) -> Result<Self> {
        let bad = |reason: String| Error::param("constraint", reason);
        let (kind, arg) = spec.split_once(':').ok_or_else(|| {
            bad(format!(
                "{}: expected KIND:ARG, e.g. cardinality:5, partition:groups.csv",
                quote(spec)
            ))
        })?;
        let k = || {
            arg.trim().parse::<usize>().map_err(|_| {
                bad(format!(
                    "{}: {} is not a non-negative integer",
                    quote(spec),
                    quote(arg)
                ))
            })
        };
        match kind.trim() {
            "cardinality" => Ok(Matroid::Cardinality(Cardinality::new(ground_size, k()?))),
            "uniform" => Ok(Matroid::Uniform(Uniform::new(ground_size, k()?))),
            "partition" => Ok(Matroid::Partition(Partition::from_file(arg, ground_size)?)),
            "graphic" => {
                let g = Graphic::from_file(arg)?;
                if g.ground_size() != ground_size {
                    return Err(bad(format!(
                        "{arg}: the graph has {} edges but the ground set has {ground_size} \
                         elements (element i is edge i)",
                        g.ground_size()
                    )));
                }
                Ok(Matroid::Graphic(g))
            }
            other => Err(bad(format!(
                "unknown constraint kind {} (expected cardinality, uniform, partition \
                 or graphic)",
                quote(other)
            ))),
        }
    }
}

impl From<Cardinality> for Matroid {
    fn from(m: Cardinality) -> Self {
        Matroid::Cardinality(m)
    }
}
impl From<Uniform> for Matroid {
    fn from(m: Uniform) -> Self {
        Matroid::Uniform(m)
    }
}
impl From<Partition> for Matroid {
    fn from(m: Partition) -> Self {
        Matroid::Partition(m)
    }
}
impl From<Graphic> for Matroid {
    fn from(m: Graphic) -> Self {
        Matroid::Graphic(m)
    }
}

impl Independence for Matroid {
    type State = MatroidState;

    fn ground_size(&self) -> usize {
        match self {
            Matroid::Cardinality(m) => m.ground_size(),
            Matroid::Uniform(m) => m.ground_size(),
            Matroid::Partition(m) => m.ground_size(),
            Matroid::Graphic(m) => m.ground_size(),
        }
    }
    fn empty(&self) -> MatroidState {
        match self {
            Matroid::Cardinality(m) => MatroidState::Count(m.empty()),
            Matroid::Uniform(m) => MatroidState::Count(m.empty()),
            Matroid::Partition(m) => MatroidState::Counts(m.empty()),
            Matroid::Graphic(m) => MatroidState::Forest(m.empty()),
        }
    }
    fn can_add(&self, state: &MatroidState, v: usize) -> bool {
        match (self, state) {
            (Matroid::Cardinality(m), MatroidState::Count(s)) => m.can_add(s, v),
            (Matroid::Uniform(m), MatroidState::Count(s)) => m.can_add(s, v),
            (Matroid::Partition(m), MatroidState::Counts(s)) => m.can_add(s, v),
            (Matroid::Graphic(m), MatroidState::Forest(s)) => m.can_add(s, v),
            _ => unreachable!("a MatroidState always comes from the same Matroid's empty()"),
        }
    }
    fn insert(&self, state: &mut MatroidState, v: usize) {
        match (self, state) {
            (Matroid::Cardinality(m), MatroidState::Count(s)) => m.insert(s, v),
            (Matroid::Uniform(m), MatroidState::Count(s)) => m.insert(s, v),
            (Matroid::Partition(m), MatroidState::Counts(s)) => m.insert(s, v),
            (Matroid::Graphic(m), MatroidState::Forest(s)) => m.insert(s, v),
            _ => unreachable!("a MatroidState always comes from the same Matroid's empty()"),
        }
    }
    fn rank_bound(&self) -> usize {
        match self {
            Matroid::Cardinality(m) => m.rank_bound(),
            Matroid::Uniform(m) => m.rank_bound(),
            Matroid::Partition(m) => m.rank_bound(),
            Matroid::Graphic(m) => m.rank_bound(),
        }
    }
    fn extendibility(&self) -> usize {
        1
    }
    fn name(&self) -> &'static str {
        match self {
            Matroid::Cardinality(m) => m.name(),
            Matroid::Uniform(m) => m.name(),
            Matroid::Partition(m) => m.name(),
            Matroid::Graphic(m) => m.name(),
        }
    }
}

/// The intersection of p matroids on the same ground set: a set is feasible when it is
/// independent in every one of them. Reported as a **p-extendible system**
/// ([`Independence::extendibility`] = p), the constraint of Algorithm 2 and Theorems 3.3/3.5
/// of Mitrovic et al. (2017).
///
/// *Why p-extendible.* Let S ⊂ T be feasible and S ∪ {v} feasible. In each matroid Mⱼ, extend
/// the independent set S ∪ {v} inside T ∪ {v} to a maximal independent subset; all maximal
/// independent subsets of T ∪ {v} have the same size, which is at least |T| (T is
/// independent), so it omits at most one element zⱼ of T \ S. Removing Z = {z₁, …, z_p}
/// (|Z| ≤ p) from T makes (T \ Z) ∪ {v} independent in every Mⱼ — exactly the definition of
/// p-extendibility (Mestre 2006). With p = 1 this is a matroid again.
///
/// *Rank bound*: min over the matroids of their ranks — an upper bound on every feasible set
/// (maximal feasible sets of an intersection may differ in size, so greedy can stop earlier;
/// the privacy accounting still covers the worst case of r rounds).
///
/// ```
/// use disguise::constraint::{Cardinality, Graphic, Independence, Intersection};
/// let g = Graphic::new(3, vec![(0, 1), (1, 2), (0, 2)])?;
/// let both = Intersection::new(vec![g.into(), Cardinality::new(3, 1).into()])?;
/// assert_eq!(both.extendibility(), 2);
/// assert_eq!(both.rank_bound(), 1);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Intersection {
    parts: Vec<Matroid>,
}

impl Intersection {
    /// The intersection of `parts` (p = `parts.len()`).
    ///
    /// Errors if `parts` is empty or the matroids have different ground sizes.
    pub fn new(parts: Vec<Matroid>) -> Result<Self> {
        let Some(first) = parts.first() else {
            return Err(Error::param(
                "matroid intersection",
                "needs at least one matroid",
            ));
        };
        let n = first.ground_size();
        if let Some(other) = parts.iter().find(|m| m.ground_size() != n) {
            return Err(Error::param(
                "matroid intersection",
                format!(
                    "ground sizes differ: a {} matroid on {n} elements and a {} matroid on {}",
                    first.name(),
                    other.name(),
                    other.ground_size()
                ),
            ));
        }
        Ok(Self { parts })
    }

    /// The matroids intersected.
    pub fn parts(&self) -> &[Matroid] {
        &self.parts
    }
}

impl Independence for Intersection {
    /// One state per matroid.
    type State = Vec<MatroidState>;

    fn ground_size(&self) -> usize {
        self.parts[0].ground_size()
    }
    fn empty(&self) -> Vec<MatroidState> {
        self.parts.iter().map(Matroid::empty).collect()
    }
    fn can_add(&self, state: &Vec<MatroidState>, v: usize) -> bool {
        self.parts.iter().zip(state).all(|(m, s)| m.can_add(s, v))
    }
    fn insert(&self, state: &mut Vec<MatroidState>, v: usize) {
        for (m, s) in self.parts.iter().zip(state.iter_mut()) {
            m.insert(s, v);
        }
    }
    fn rank_bound(&self) -> usize {
        self.parts
            .iter()
            .map(Matroid::rank_bound)
            .min()
            .unwrap_or(0)
    }
    fn extendibility(&self) -> usize {
        self.parts.len()
    }
    fn name(&self) -> &'static str {
        if self.parts.len() == 1 {
            self.parts[0].name()
        } else {
            "matroid-intersection"
        }
    }
}
