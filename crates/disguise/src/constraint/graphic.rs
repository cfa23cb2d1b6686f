//! The graphic matroid: the elements are the edges of a graph and a set of edges is feasible
//! when it contains no cycle (it is a forest).

use super::Independence;
use super::text::{error_at, parse_index, read, rows};
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// The graphic (cycle) matroid of an undirected multigraph: element `i` is edge `i` = (u, v),
/// and a set of edges is feasible when it is acyclic.
///
/// Parallel edges and cycles are fine (that is what makes the constraint bind); a self-loop
/// (u, u) is a cycle on its own and can never be chosen.
///
/// *Rank*: r = |vertices| − (number of connected components), exact (every maximal forest is
/// a spanning forest), so Algorithm 2 of Mitrovic et al. (2017) makes exactly r rounds.
///
/// *Runtime*: the state is a union–find ([`Forest`]) with union by rank — `can_add` is
/// O(log |vertices|) without mutation, `insert` also compresses paths.
///
/// # File format ([`Graphic::parse`], [`Graphic::from_file`])
/// One edge per line, `u,v` with 0-based vertex ids; the line order gives the element ids
/// (the first edge is element 0). An optional first line whose fields both start with a
/// letter (a header such as `u,v` or `source,target`) is skipped; blank lines and `#`
/// comments are ignored. Vertex ids are labels: any non-negative integers, renumbered
/// 0, 1, … in order of first appearance ([`Graphic::edges`] shows the renumbered edges), so
/// the number of vertices is the number of distinct ids. Errors name `file:line`.
///
/// ```
/// use disguise::constraint::{Graphic, Independence};
/// // A triangle 0–1–2 plus a pendant edge 2–3.
/// let g = Graphic::new(4, vec![(0, 1), (1, 2), (2, 0), (2, 3)])?;
/// let mut forest = g.empty();
/// g.insert(&mut forest, 0);
/// g.insert(&mut forest, 1);
/// assert!(!g.can_add(&forest, 2)); // would close the triangle
/// assert!(g.can_add(&forest, 3));
/// assert_eq!(g.rank_bound(), 3);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Graphic {
    vertices: usize,
    edges: Vec<(usize, usize)>,
    rank: usize,
}

impl Graphic {
    /// The graphic matroid of the graph on `vertices` vertices with these edges.
    ///
    /// Errors if an edge names a vertex id `≥ vertices`.
    pub fn new(vertices: usize, edges: Vec<(usize, usize)>) -> Result<Self> {
        for (i, &(u, v)) in edges.iter().enumerate() {
            if u >= vertices || v >= vertices {
                return Err(Error::param(
                    "graphic matroid",
                    format!("edge {i} = ({u}, {v}) names a vertex outside 0..{vertices}"),
                ));
            }
        }
        let mut forest = Forest::new(vertices);
        let mut rank = 0;
        for &(u, v) in &edges {
            if forest.union(u, v) {
                rank += 1;
            }
        }
        Ok(Self {
            vertices,
            edges,
            rank,
        })
    }

    /// Parses an edge list (format on [`Graphic`]); `source` names the text in errors.
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        let mut edges = Vec::new();
        for (i, row) in rows(text).enumerate() {
            if row.fields.len() != 2 {
                return Err(error_at(
                    source,
                    row.line,
                    format!("expected an edge `u,v`, found {} fields", row.fields.len()),
                ));
            }
            let is_word = |f: &&str| f.chars().next().is_some_and(char::is_alphabetic);
            if i == 0 && row.fields.iter().all(is_word) {
                continue; // a header such as `u,v`
            }
            let u = parse_index(source, &row, 0, "a vertex id")?;
            let v = parse_index(source, &row, 1, "a vertex id")?;
            edges.push((u, v));
        }
        // Ids in a file are labels (they may be sparse, up to usize::MAX): renumber them
        // 0, 1, … in order of first appearance, so that the union–find holds one entry per
        // vertex that occurs rather than one per id up to the largest. The matroid (which
        // edge sets are forests) does not depend on the labels.
        let mut ids: HashMap<usize, usize> = HashMap::new();
        let mut relabel = |x: usize| {
            let next = ids.len();
            *ids.entry(x).or_insert(next)
        };
        let edges: Vec<(usize, usize)> = edges
            .into_iter()
            .map(|(u, v)| (relabel(u), relabel(v)))
            .collect();
        Self::new(ids.len(), edges)
    }

    /// Reads and parses an edge-list file (format on [`Graphic`]).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        Self::parse(&read(path)?, &path.display().to_string())
    }

    /// The number of vertices.
    pub fn vertices(&self) -> usize {
        self.vertices
    }

    /// The edges; edge `i` is element `i`.
    pub fn edges(&self) -> &[(usize, usize)] {
        &self.edges
    }
}

impl Independence for Graphic {
    type State = Forest;

    fn ground_size(&self) -> usize {
        self.edges.len()
    }
    fn empty(&self) -> Forest {
        Forest::new(self.vertices)
    }
    fn can_add(&self, state: &Forest, e: usize) -> bool {
        match self.edges.get(e) {
            Some(&(u, v)) => state.find(u) != state.find(v),
            None => false,
        }
    }
    fn insert(&self, state: &mut Forest, e: usize) {
        let (u, v) = self.edges[e];
        state.union(u, v);
    }
    fn rank_bound(&self) -> usize {
        self.rank
    }
    fn extendibility(&self) -> usize {
        1
    }
    fn name(&self) -> &'static str {
        "graphic"
    }
}

/// A union–find (disjoint-set forest) over vertices: the state of a [`Graphic`] constraint.
/// Two vertices are in the same tree when the chosen edges connect them.
///
/// Union by rank keeps every tree O(log n) deep, so [`Forest::find`] needs no mutation (and
/// the state can be shared and cloned); [`Forest::union`] compresses the paths it walks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forest {
    parent: Vec<usize>,
    rank: Vec<u8>,
}

impl Forest {
    /// `n` singleton trees.
    pub fn new(n: usize) -> Self {
        Self {
            parent: (0..n).collect(),
            rank: vec![0; n],
        }
    }

    /// The root of `x`'s tree.
    ///
    /// # Panics
    /// If `x` is not a vertex (`x ≥ n`); [`Graphic`] validates its edges, so its states never
    /// do.
    pub fn find(&self, mut x: usize) -> usize {
        while self.parent[x] != x {
            x = self.parent[x];
        }
        x
    }

    /// The root of `x`'s tree, pointing every vertex on the path directly at it.
    fn find_compress(&mut self, x: usize) -> usize {
        let root = self.find(x);
        let mut y = x;
        while self.parent[y] != root {
            let next = self.parent[y];
            self.parent[y] = root;
            y = next;
        }
        root
    }

    /// Joins the trees of `u` and `v`; `false` if they were already one tree (the edge would
    /// close a cycle).
    ///
    /// # Panics
    /// If `u` or `v` is not a vertex.
    pub fn union(&mut self, u: usize, v: usize) -> bool {
        let (a, b) = (self.find_compress(u), self.find_compress(v));
        if a == b {
            return false;
        }
        // Union by rank: the shallower tree goes under the deeper one.
        match self.rank[a].cmp(&self.rank[b]) {
            std::cmp::Ordering::Less => self.parent[a] = b,
            std::cmp::Ordering::Greater => self.parent[b] = a,
            std::cmp::Ordering::Equal => {
                self.parent[b] = a;
                self.rank[a] += 1;
            }
        }
        true
    }
}
