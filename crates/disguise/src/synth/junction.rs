//! The junction tree of a set of cliques: the graph they make (every clique complete, plus
//! every column) triangulated by greedy elimination (min-fill, the smallest neighbourhood
//! first on ties), its maximal cliques arranged in a maximum spanning tree of separator
//! sizes, which has the running-intersection property, so that belief propagation on it is
//! exact. The structure [`super::GraphicalModel`] is stored on, and the size it would have
//! ([`model_cells`]), which AIM caps; with the sorted-set helpers both use.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The parent of the root clique.
pub(super) const NO_PARENT: usize = usize::MAX;

/// A junction tree (clique tree) of a triangulated graph over the columns: its maximal
/// cliques (each a sorted list of column indices), each clique's parent and a breadth-first
/// order from the root. Every column is in some clique, and the cliques holding a column
/// form a connected subtree (the running-intersection property), so that belief propagation
/// on the tree is exact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JunctionTree {
    /// The maximal cliques, in lexicographic order.
    pub(super) cliques: Vec<Vec<usize>>,
    /// Each clique's parent ([`usize::MAX`] for the root).
    pub(super) parent: Vec<usize>,
    /// The cliques breadth-first from the root (order\[0\]), parents first.
    pub(super) order: Vec<usize>,
}

/// [`JunctionTree`] as a file holds it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct JunctionTreeFile {
    pub(super) cliques: Vec<Vec<usize>>,
    pub(super) parent: Vec<usize>,
    pub(super) order: Vec<usize>,
}

impl JunctionTree {
    /// The junction tree of the graph over `sizes.len()` columns whose edges make each of
    /// `cliques` complete (every single column is a vertex too).
    ///
    /// The graph is triangulated by greedy elimination — each step eliminates the column
    /// that adds the fewest fill edges, ties broken by the smallest product of the domain
    /// sizes of it and its neighbours, then by the lowest index — and its maximal cliques
    /// are joined by a maximum spanning tree on the separators' sizes (ties to the lowest
    /// pair of clique indices); unrelated parts of the graph are joined by empty
    /// separators. The result depends only on the input.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when there is no column, a column has no value, or a
    /// clique is empty, unsorted, repeats a column or names one out of range.
    pub fn new(sizes: &[usize], cliques: &[Vec<usize>]) -> Result<Self> {
        let d = sizes.len();
        if d == 0 {
            return Err(Error::param("sizes", "no column"));
        }
        if let Some(i) = sizes.iter().position(|&s| s == 0) {
            return Err(Error::param("sizes", format!("column {i} has no value")));
        }
        for c in cliques {
            check_clique(d, c).map_err(|m| Error::param("cliques", m))?;
        }
        let words = d.div_ceil(64);
        let mut adjacent = vec![vec![0u64; words]; d];
        for c in cliques {
            for &u in c {
                for &v in c {
                    if u != v {
                        set_bit(&mut adjacent[u], v);
                    }
                }
            }
        }
        let cliques = maximal(eliminate(sizes, adjacent));
        let (parent, order) = spanning_tree(&cliques);
        Ok(Self {
            cliques,
            parent,
            order,
        })
    }

    /// The maximal cliques, each a sorted list of columns.
    pub fn cliques(&self) -> &[Vec<usize>] {
        &self.cliques
    }

    /// The number of cells of the cliques' tables, Σ over cliques of the product of their
    /// columns' sizes (saturating): the size of a model on this tree.
    pub fn cells(&self, sizes: &[usize]) -> u128 {
        self.cliques
            .iter()
            .map(|c| saturating_cells(sizes, c))
            .fold(0u128, u128::saturating_add)
    }

    /// The separator between clique c and its parent (empty for the root).
    pub(super) fn separator(&self, c: usize) -> Vec<usize> {
        match self.parent[c] {
            NO_PARENT => Vec::new(),
            p => intersect(&self.cliques[c], &self.cliques[p]),
        }
    }

    /// A junction tree read from a file: checked whole.
    pub(super) fn from_file(f: JunctionTreeFile, d: usize) -> std::result::Result<Self, String> {
        let k = f.cliques.len();
        if k == 0 || f.parent.len() != k || f.order.len() != k {
            return Err("the junction tree's lists have other lengths or none".into());
        }
        for (i, c) in f.cliques.iter().enumerate() {
            check_clique(d, c).map_err(|m| format!("clique {i}: {m}"))?;
        }
        super::model::check_tree_order(&f.order, &f.parent, "clique")?;
        // The cliques holding a column are connected iff exactly one of them has no parent
        // holding it (the root counts as one).
        let mut tops = vec![0usize; d];
        let mut in_parent = vec![false; d];
        for c in 0..k {
            let p = f.parent[c];
            if p != NO_PARENT {
                for &v in &f.cliques[p] {
                    in_parent[v] = true;
                }
            }
            for &v in &f.cliques[c] {
                if !in_parent[v] {
                    tops[v] += 1;
                }
            }
            if p != NO_PARENT {
                for &v in &f.cliques[p] {
                    in_parent[v] = false;
                }
            }
        }
        if let Some(v) = tops.iter().position(|&t| t == 0) {
            return Err(format!("column {v} is in no clique"));
        }
        if let Some(v) = tops.iter().position(|&t| t > 1) {
            return Err(format!(
                "the cliques holding column {v} are not connected (running intersection)"
            ));
        }
        Ok(Self {
            cliques: f.cliques,
            parent: f.parent,
            order: f.order,
        })
    }
}

/// The number of cells of the junction tree of `cliques` over columns of `sizes`
/// ([`JunctionTree::cells`] of [`JunctionTree::new`]): the size a model measuring these
/// cliques would have, which AIM caps.
///
/// # Errors
/// As [`JunctionTree::new`].
pub fn model_cells(sizes: &[usize], cliques: &[Vec<usize>]) -> Result<u128> {
    Ok(JunctionTree::new(sizes, cliques)?.cells(sizes))
}

/// Greedy elimination of the graph `adjacent` (bit sets, no self-loops): the clique each
/// step makes, the eliminated column and its remaining neighbours.
pub(super) fn eliminate(sizes: &[usize], mut adjacent: Vec<Vec<u64>>) -> Vec<Vec<usize>> {
    let d = sizes.len();
    let mut alive = vec![0u64; d.div_ceil(64)];
    for v in 0..d {
        set_bit(&mut alive, v);
    }
    let neighbours = |adjacent: &[Vec<u64>], alive: &[u64], v: usize| -> Vec<u64> {
        adjacent[v].iter().zip(alive).map(|(a, b)| a & b).collect()
    };
    let mut out = Vec::with_capacity(d);
    for _ in 0..d {
        let mut best: Option<(usize, u128, usize)> = None;
        for v in (0..d).filter(|&v| has_bit(&alive, v)) {
            let nb = neighbours(&adjacent, &alive, v);
            let members = bits(&nb);
            // Each missing edge among the neighbours is seen from both ends; u itself is in
            // nb but not in its own adjacency.
            let missing: usize = members
                .iter()
                .map(|&u| {
                    nb.iter()
                        .zip(&adjacent[u])
                        .map(|(a, b)| (a & !b).count_ones() as usize)
                        .sum::<usize>()
                        - 1
                })
                .sum();
            let weight = members
                .iter()
                .fold(sizes[v] as u128, |w, &u| w.saturating_mul(sizes[u] as u128));
            let key = (missing / 2, weight, v);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        let (_, _, v) = best.expect("a column is left");
        let nb = neighbours(&adjacent, &alive, v);
        let mut clique = bits(&nb);
        for &u in &clique {
            for (a, b) in adjacent[u].iter_mut().zip(&nb) {
                *a |= b;
            }
            clear_bit(&mut adjacent[u], u);
        }
        clear_bit(&mut alive, v);
        clique.push(v);
        clique.sort_unstable();
        out.push(clique);
    }
    out
}

/// The cliques not inside another, each once, in lexicographic order.
pub(super) fn maximal(mut cliques: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
    cliques.sort();
    cliques.dedup();
    let keep: Vec<bool> = cliques
        .iter()
        .map(|c| !cliques.iter().any(|o| o.len() > c.len() && is_subset(c, o)))
        .collect();
    cliques
        .into_iter()
        .zip(keep)
        .filter_map(|(c, k)| k.then_some(c))
        .collect()
}

/// A maximum spanning tree of the cliques on the sizes of their intersections (Kruskal,
/// ties to the lowest pair; empty intersections join the parts), rooted at clique 0: each
/// clique's parent and the breadth-first order, children by index.
pub(super) fn spanning_tree(cliques: &[Vec<usize>]) -> (Vec<usize>, Vec<usize>) {
    let k = cliques.len();
    let mut pairs: Vec<(usize, usize, usize)> = (0..k)
        .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
        .map(|(i, j)| (intersect(&cliques[i], &cliques[j]).len(), i, j))
        .collect();
    pairs.sort_by(|a, b| b.0.cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    let mut root: Vec<usize> = (0..k).collect();
    pub(super) fn find(root: &mut [usize], mut x: usize) -> usize {
        while root[x] != x {
            root[x] = root[root[x]];
            x = root[x];
        }
        x
    }
    let mut adjacent = vec![Vec::new(); k];
    for (_, i, j) in pairs {
        let (a, b) = (find(&mut root, i), find(&mut root, j));
        if a != b {
            root[a] = b;
            adjacent[i].push(j);
            adjacent[j].push(i);
        }
    }
    // Neighbours in increasing order: the order is a function of the cliques alone.
    for list in &mut adjacent {
        list.sort_unstable();
    }
    super::model::breadth_first(&adjacent)
}

/// Domain sizes: at least one column, each with 1 to 2³² − 1 values.
pub(super) fn check_sizes(sizes: &[usize]) -> std::result::Result<(), String> {
    if sizes.is_empty() {
        return Err("no column".into());
    }
    match sizes.iter().position(|&s| s == 0 || s > u32::MAX as usize) {
        Some(i) => Err(format!("column {i} has {} values", sizes[i])),
        None => Ok(()),
    }
}

/// A clique: non-empty, strictly ascending, below d.
pub(super) fn check_clique(d: usize, c: &[usize]) -> std::result::Result<(), String> {
    if c.is_empty() {
        return Err("a clique with no column".into());
    }
    if !c.windows(2).all(|w| w[0] < w[1]) {
        return Err(format!("{c:?} is not sorted without repeats"));
    }
    if c[c.len() - 1] >= d {
        return Err(format!("{c:?} names a column out of range (there are {d})"));
    }
    Ok(())
}

/// The number of cells of the table over `cols`, unless it overflows.
pub(super) fn table_cells(sizes: &[usize], cols: &[usize]) -> Option<usize> {
    cols.iter()
        .try_fold(1usize, |a, &v| a.checked_mul(sizes[v]))
}

/// The number of cells of the table over `cols`, saturating.
pub(super) fn saturating_cells(sizes: &[usize], cols: &[usize]) -> u128 {
    cols.iter()
        .fold(1u128, |a, &v| a.saturating_mul(sizes[v] as u128))
}

/// Whether sorted `a` ⊆ sorted `b`.
pub(super) fn is_subset(a: &[usize], b: &[usize]) -> bool {
    let mut rest = b.iter();
    a.iter().all(|x| rest.any(|y| y == x))
}

pub(super) fn intersect(a: &[usize], b: &[usize]) -> Vec<usize> {
    a.iter()
        .copied()
        .filter(|x| b.binary_search(x).is_ok())
        .collect()
}

pub(super) fn minus(a: &[usize], b: &[usize]) -> Vec<usize> {
    a.iter()
        .copied()
        .filter(|x| b.binary_search(x).is_err())
        .collect()
}

pub(super) fn union(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut u: Vec<usize> = a.iter().chain(b).copied().collect();
    u.sort_unstable();
    u.dedup();
    u
}

pub(super) fn set_bit(s: &mut [u64], i: usize) {
    s[i / 64] |= 1 << (i % 64);
}

pub(super) fn clear_bit(s: &mut [u64], i: usize) {
    s[i / 64] &= !(1 << (i % 64));
}

pub(super) fn has_bit(s: &[u64], i: usize) -> bool {
    s[i / 64] >> (i % 64) & 1 == 1
}

pub(super) fn bits(s: &[u64]) -> Vec<usize> {
    let mut out = Vec::new();
    for (w, &word) in s.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            out.push(w * 64 + x.trailing_zeros() as usize);
            x &= x - 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_four_cycle_gets_a_chord() {
        let sizes = [2usize, 3, 4, 5];
        let cycle = vec![vec![0, 1], vec![1, 2], vec![2, 3], vec![0, 3]];
        let tree = JunctionTree::new(&sizes, &cycle).unwrap();
        // Every column adds one fill edge; column 1's neighbourhood is the smallest
        // (2·3·4 = 24), so it goes first and the chord is {0, 2}.
        assert_eq!(tree.cliques(), &[vec![0, 1, 2], vec![0, 2, 3]]);
        assert_eq!(tree.parent, vec![NO_PARENT, 0]);
        assert_eq!(tree.cells(&sizes), 24 + 40);
        assert_eq!(model_cells(&sizes, &cycle).unwrap(), 64);
        let file = JunctionTreeFile {
            cliques: tree.cliques.clone(),
            parent: tree.parent.clone(),
            order: tree.order.clone(),
        };
        assert_eq!(JunctionTree::from_file(file, 4).unwrap(), tree);
        // A longer cycle and a clique over it: the trees are valid junction trees.
        let sizes6 = [2usize, 2, 3, 2, 4, 2];
        for cliques in [
            (0..6)
                .map(|i| vec![i.min((i + 1) % 6), i.max((i + 1) % 6)])
                .collect(),
            vec![vec![0, 2, 4], vec![1, 3, 5], vec![0, 5], vec![2, 3]],
            vec![],
        ] {
            let t = JunctionTree::new(&sizes6, &cliques).unwrap();
            let file = JunctionTreeFile {
                cliques: t.cliques.clone(),
                parent: t.parent.clone(),
                order: t.order.clone(),
            };
            assert_eq!(JunctionTree::from_file(file, 6).as_ref(), Ok(&t));
            for q in &cliques {
                assert!(t.cliques().iter().any(|c| is_subset(q, c)), "{q:?}");
            }
        }
        // Nothing measured: one clique per column, joined by empty separators.
        let singles = JunctionTree::new(&sizes, &[]).unwrap();
        assert_eq!(singles.cliques().len(), 4);
        assert_eq!(singles.cells(&sizes), 14);
        for bad in [vec![1, 0], vec![2, 2], vec![0, 4], vec![]] {
            assert!(
                JunctionTree::new(&sizes, std::slice::from_ref(&bad)).is_err(),
                "{bad:?}"
            );
        }
        assert!(JunctionTree::new(&[2, 0], &[]).is_err());
        assert_eq!(
            model_cells(&[1 << 40, 1 << 40, 1 << 40, 1 << 40], &[vec![0, 1, 2, 3]]).unwrap(),
            u128::MAX
        );
    }
}
