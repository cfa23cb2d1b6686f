//! The weighted cut function of a graph whose edges are the private records.

use super::{Properties, SetFunction};
use crate::error::{Error, Result};
use crate::privacy::Sensitivity;

/// Largest number of edges: with weights of at most 2^25 grid units, every sum stays below
/// 2^53 and converts to f64 exactly.
const MAX_EDGES: usize = 1 << 27;

/// Graph cut: f(S) = Σ_{edges {u, v}} w_uv · [exactly one of u, v is in S], over the vertices
/// V = {0, …, n−1} of an undirected graph whose edges are the private records (each with a
/// weight in [0, w_max], w_max public). Self-loops never cross a cut and count 0.
///
/// Submodular, symmetric (f(S) = f(V ∖ S)) and non-monotone (f(V) = 0): each edge's term
/// w·[|e ∩ S| = 1] is a submodular function of S, and sums of submodular functions are
/// submodular. Maximising it is MAX-CUT, the textbook non-monotone submodular problem.
///
/// ```
/// use disguise::objective::{GraphCut, SetFunction};
/// // A path 0 – 1 – 2.
/// let f = GraphCut::new(3, &[(0, 1), (1, 2)])?;
/// assert_eq!(f.evaluate(&[1]), 2.0);
/// assert_eq!(f.evaluate(&[0, 1]), 1.0);
/// assert_eq!(f.evaluate(&[0, 1, 2]), 0.0);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Sensitivity
/// Neighbouring graphs replace one edge by another (the number of edges public); each edge
/// has a weight in [0, w_max]. A **value** moves by at most w_max:
/// f_D(S) − f_D′(S) = w₁·[e₁ crosses S] − w₂·[e₂ crosses S] ∈ [−w_max, w_max] for the
/// replaced edge e₁ and its replacement e₂ (one term alone when an edge is only added or
/// removed). A **gain** of v, Σ_{e ∋ v} w_e·(1 − 2·[e's other end ∈ S]), can move by
/// 2·w_max (e₁ at v with its other end outside S swapped for e₂ at v with its other end in
/// S). A greedy round's scores are gains at one set S, f(S ∪ {v}) − f(S): shifted values
/// with the common shift f(S), and every selector depends only on score differences, so
/// the values' bound is enough (`docs/proofs/gains-and-values.md`, Lemma 2 and the cut's
/// section):
///
/// * [`SetFunction::sensitivity`] = w_max, the λ each round's selector is calibrated to;
/// * [`SetFunction::gain_sensitivity`] = 2·w_max, for a gain taken on its own.
///
/// Not decomposable: the per-edge functions are not monotone.
///
/// # Exactness
/// Weights are rounded down to multiples of the power of two g = 2^(⌊log₂ w_max⌋ − 24) (as in
/// [`Coverage`](super::Coverage)) and summed in integers: gains and values are exact, so the
/// sensitivity bound holds for the returned numbers, independently of evaluation order.
///
/// # Runtime
/// The state keeps, for every vertex, the weight of its edges into S, so `gains` is O(1) per
/// candidate and `insert(v)` is O(deg v). Memory: 8 bytes per edge end and 25 bytes per
/// vertex (with the state).
#[derive(Debug, Clone)]
pub struct GraphCut {
    /// Neighbours of v: `ends[offsets[v]..offsets[v + 1]]`, with the edge weight in units.
    offsets: Vec<usize>,
    ends: Vec<(u32, u32)>,
    /// Total weight (units) of the non-loop edges at each vertex.
    degree: Vec<i64>,
    grid: f64,
    w_max: f64,
}

/// The incremental state of [`GraphCut`]: membership, each vertex's weight into S, and the
/// cut weight (all in grid units).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphCutState {
    in_set: Vec<bool>,
    to_set: Vec<i64>,
    total: i64,
}

impl GraphCut {
    /// Unit-weight cut: `edges` are pairs of vertices `< num_vertices`; λ = 1 (gain bound 2).
    pub fn new(num_vertices: usize, edges: &[(usize, usize)]) -> Result<Self> {
        let weighted: Vec<(usize, usize, f64)> = edges.iter().map(|&(u, v)| (u, v, 1.0)).collect();
        Self::weighted(num_vertices, &weighted, 1.0)
    }

    /// Weighted cut with public weight bound `w_max`: each edge is `(u, v, w)` with
    /// w ∈ [0, w_max]. Errors if a vertex is out of range, a weight is outside [0, w_max] or
    /// NaN, `w_max` is not in [2^-900, 2^900], or there are more than 2^27 edges.
    pub fn weighted(
        num_vertices: usize,
        edges: &[(usize, usize, f64)],
        w_max: f64,
    ) -> Result<Self> {
        if edges.len() > MAX_EDGES {
            return Err(Error::param(
                "edges",
                format!("at most 2^27 edges are supported, got {}", edges.len()),
            ));
        }
        if !(w_max.is_finite() && (2f64.powi(-900)..=2f64.powi(900)).contains(&w_max)) {
            return Err(Error::param(
                "w_max",
                format!("must be finite and in [2^-900, 2^900], got {w_max}"),
            ));
        }
        if num_vertices > u32::MAX as usize {
            return Err(Error::param("num_vertices", "at most 2^32 − 1 vertices"));
        }
        let exponent = ((w_max.to_bits() >> 52) & 0x7ff) as i64 - 1023; // ⌊log₂ w_max⌋
        let grid = f64::from_bits(((exponent - 24 + 1023) as u64) << 52);
        let mut counts = vec![0usize; num_vertices + 1];
        for (k, &(u, v, w)) in edges.iter().enumerate() {
            if u >= num_vertices || v >= num_vertices {
                return Err(Error::param(
                    "edges",
                    format!("edge {k} = ({u}, {v}) has a vertex ≥ {num_vertices}"),
                ));
            }
            if !(0.0..=w_max).contains(&w) {
                return Err(Error::param(
                    "edges",
                    format!("weight of edge {k} is {w}, not in [0, {w_max}]"),
                ));
            }
            if u != v {
                counts[u + 1] += 1;
                counts[v + 1] += 1;
            }
        }
        for v in 0..num_vertices {
            counts[v + 1] += counts[v];
        }
        let offsets = counts.clone();
        let mut fill = counts;
        let mut ends = vec![(0u32, 0u32); offsets[num_vertices]];
        let mut degree = vec![0i64; num_vertices];
        for &(u, v, w) in edges {
            if u == v {
                continue;
            }
            // Exact power-of-two scaling, floored so no weight exceeds w_max.
            let units = (w / grid).floor() as u32;
            ends[fill[u]] = (v as u32, units);
            fill[u] += 1;
            ends[fill[v]] = (u as u32, units);
            fill[v] += 1;
            degree[u] += i64::from(units);
            degree[v] += i64::from(units);
        }
        Ok(Self {
            offsets,
            ends,
            degree,
            grid,
            w_max,
        })
    }

    fn gain_units(&self, state: &GraphCutState, v: usize) -> i64 {
        if state.in_set[v] {
            0
        } else {
            self.degree[v] - 2 * state.to_set[v]
        }
    }
}

impl SetFunction for GraphCut {
    type State = GraphCutState;

    fn ground_size(&self) -> usize {
        self.degree.len()
    }

    fn empty(&self) -> GraphCutState {
        GraphCutState {
            in_set: vec![false; self.degree.len()],
            to_set: vec![0; self.degree.len()],
            total: 0,
        }
    }

    fn gains(&self, state: &GraphCutState, candidates: &[usize], out: &mut [f64]) {
        assert_eq!(candidates.len(), out.len(), "one output per candidate");
        for (o, &v) in out.iter_mut().zip(candidates) {
            *o = self.gain_units(state, v) as f64 * self.grid;
        }
    }

    fn insert(&self, state: &mut GraphCutState, v: usize) {
        if state.in_set[v] {
            return;
        }
        state.total += self.gain_units(state, v);
        state.in_set[v] = true;
        for &(u, w) in &self.ends[self.offsets[v]..self.offsets[v + 1]] {
            state.to_set[u as usize] += i64::from(w);
        }
    }

    fn value(&self, state: &GraphCutState) -> f64 {
        state.total as f64 * self.grid
    }

    /// λ = w_max in every round: a value bound, enough for gains at one set (see
    /// *Sensitivity* on the type).
    fn sensitivity(&self, _round: usize) -> Sensitivity {
        Sensitivity::new(self.w_max).expect("w_max validated finite and > 0")
    }

    /// 2·w_max: one gain on its own (see *Sensitivity*).
    fn gain_sensitivity(&self, _round: usize) -> Sensitivity {
        Sensitivity::new(2.0 * self.w_max).expect("w_max validated finite and ≤ 2^900")
    }

    /// Neither monotone nor decomposable.
    fn properties(&self) -> Properties {
        Properties::NONE
    }

    fn name(&self) -> &'static str {
        "graph-cut"
    }
}
