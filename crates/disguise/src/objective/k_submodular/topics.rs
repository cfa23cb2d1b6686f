//! Coverage with k topics: the live-edge form of k-topic influence maximization
//! (Ohsaka & Yoshida 2015; Rafiey & Yoshida 2020, Example 1.2).

use super::KSubmodularFunction;
use crate::error::{Error, Result};
use crate::objective::{Coverage, CoverageState, SetFunction};
use crate::privacy::Sensitivity;

/// f(x) = Σ_u w_u·[some assigned pair (v, x(v)) reaches u]: each seed v spreads the topic
/// x(v) it is assigned, topic i reaches user u from v when u ∈ Nᵢ(v) (topic i's graph, e.g. a
/// sampled live-edge graph of the k-topic independent cascade), and a user counts once
/// however many topics reach it.
///
/// *k-submodularity.* f(x) = g({(v, x(v)) : v ∈ supp x}) for the weighted coverage function g
/// over the pairs V × \[k\], which is monotone submodular. Hence Δ_{v,i}f(x) = g(P ∪ {(v,i)}) −
/// g(P) ≥ 0 (monotone, so pairwise monotone) and it shrinks as the pair set P grows (x ⪯ y ⇒
/// P(x) ⊆ P(y): orthant submodular); by Ward & Živný (2014) f is k-submodular. Unlike
/// [`Separable`](super::Separable) functions the types interact (a user reached by one topic
/// adds nothing to another).
///
/// # Sensitivity
/// A user's edges in all k graphs (and its weight) are its private data; it adds at most
/// w_max to any gain, so λ = w_max (1 unweighted), under replace-one and add/remove.
///
/// # Exactness and runtime
/// Those of [`Coverage`] over |V|·k pairs (integer sums; gains O(incidences of the pairs)).
///
/// ```
/// use disguise::objective::{KSubmodularFunction, TopicCoverage};
/// // Topic 0 reaches user 0 from seed 0; topic 1 reaches users 0 and 1 from seed 1.
/// let f = TopicCoverage::new(2, &[vec![vec![0], vec![]], vec![vec![1], vec![1]]])?;
/// assert_eq!(f.evaluate(&[(1, 1)]), 2.0);
/// assert_eq!(f.evaluate(&[(0, 0), (1, 1)]), 2.0); // user 0 counts once
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct TopicCoverage {
    n: usize,
    k: usize,
    pairs: Coverage,
}

impl TopicCoverage {
    /// Unweighted users: `topics[i][u]` lists the seeds from which topic i reaches user u
    /// (every topic lists the same users).
    ///
    /// # Errors
    /// No topic, topics with different numbers of users, a seed ≥ `num_seeds`, or a size
    /// overflow.
    pub fn new(num_seeds: usize, topics: &[Vec<Vec<usize>>]) -> Result<Self> {
        let (k, covers) = Self::pairs(num_seeds, topics)?;
        let pairs = Coverage::new(num_seeds * k, &covers)?;
        Ok(Self {
            n: num_seeds,
            k,
            pairs,
        })
    }

    /// As [`TopicCoverage::new`] with user weights in [0, w_max] (public bound).
    pub fn weighted(
        num_seeds: usize,
        topics: &[Vec<Vec<usize>>],
        weights: &[f64],
        w_max: f64,
    ) -> Result<Self> {
        let (k, covers) = Self::pairs(num_seeds, topics)?;
        let pairs = Coverage::weighted(num_seeds * k, &covers, weights, w_max)?;
        Ok(Self {
            n: num_seeds,
            k,
            pairs,
        })
    }

    /// Per user, the pairs (v, i) — as ids v·k + i — that reach it.
    fn pairs(num_seeds: usize, topics: &[Vec<Vec<usize>>]) -> Result<(usize, Vec<Vec<usize>>)> {
        let k = topics.len();
        let Some(first) = topics.first() else {
            return Err(Error::param("topics", "at least one topic is needed"));
        };
        let users = first.len();
        if let Some(i) = topics.iter().position(|t| t.len() != users) {
            return Err(Error::param(
                "topics",
                format!(
                    "topic {i} lists {} users, topic 0 lists {users}",
                    topics[i].len()
                ),
            ));
        }
        num_seeds
            .checked_mul(k)
            .ok_or_else(|| Error::Overflow(format!("{num_seeds} seeds × {k} topics")))?;
        let mut covers = vec![Vec::new(); users];
        for (i, topic) in topics.iter().enumerate() {
            for (u, seeds) in topic.iter().enumerate() {
                for &v in seeds {
                    if v >= num_seeds {
                        return Err(Error::param(
                            "topics",
                            format!(
                                "topic {i}, user {u} lists seed {v}, but there are {num_seeds}"
                            ),
                        ));
                    }
                    covers[u].push(v * k + i);
                }
            }
        }
        Ok((k, covers))
    }
}

impl KSubmodularFunction for TopicCoverage {
    type State = CoverageState;

    fn ground_size(&self) -> usize {
        self.n
    }

    fn types(&self) -> usize {
        self.k
    }

    fn empty(&self) -> CoverageState {
        self.pairs.empty()
    }

    fn gains(&self, state: &CoverageState, elements: &[usize], out: &mut [f64]) {
        let ids: Vec<usize> = elements
            .iter()
            .flat_map(|&v| (0..self.k).map(move |i| v * self.k + i))
            .collect();
        self.pairs.gains(state, &ids, out);
    }

    fn insert(&self, state: &mut CoverageState, v: usize, t: usize) {
        self.pairs.insert(state, v * self.k + t);
    }

    fn value(&self, state: &CoverageState) -> f64 {
        self.pairs.value(state)
    }

    fn sensitivity(&self, round: usize) -> Sensitivity {
        self.pairs.sensitivity(round)
    }

    fn monotone(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "topic-coverage"
    }
}
