//! Edge lists as coverage records: a friendship graph read as one record per person, the
//! list of that person's friends (who, chosen, would reach them).

use super::text::{Position, for_each_line, quote};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

/// One record per node of a public node list: node i's neighbours, as indices into that
/// list (sorted, without repeats), with what was left out counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbourhoods {
    /// `lists[i]`: the neighbours of node i.
    pub lists: Vec<Vec<usize>>,
    /// The edges read (lines with two endpoints).
    pub edges: u64,
    /// Edges with an endpoint that is not in the node list, left out.
    pub dropped: u64,
    /// Edges from a node to itself, left out.
    pub self_loops: u64,
}

impl Neighbourhoods {
    /// Every edge u–v once (u < v, from the smaller end's list), in order of u then v.
    ///
    /// ```
    /// let n = disguise::data::Neighbourhoods {
    ///     lists: vec![vec![1, 2], vec![0], vec![0]],
    ///     edges: 3,
    ///     dropped: 0,
    ///     self_loops: 0,
    /// };
    /// assert_eq!(n.edge_pairs(), vec![(0, 1), (0, 2)]);
    /// ```
    pub fn edge_pairs(&self) -> Vec<(usize, usize)> {
        self.lists
            .iter()
            .enumerate()
            .flat_map(|(u, list)| list.iter().filter(move |&&v| u < v).map(move |&v| (u, v)))
            .collect()
    }
}

/// Reads an undirected edge list: one edge per line, two node names separated by white space
/// or a comma; blank lines and lines starting with `#` are skipped. Node i of `nodes` (a
/// PUBLIC list) gets the record of its neighbours; an edge u–v puts v in u's record and u in
/// v's. Repeated edges count once.
///
/// ```
/// use disguise::data::read_edge_list;
/// let dir = std::env::temp_dir().join("disguise-doc-edges");
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("friends.txt");
/// std::fs::write(&path, "ann bob\nbob cat\n# a comment\nann zed\n")?;
/// let nodes: Vec<String> = ["ann", "bob", "cat"].map(String::from).to_vec();
/// let n = read_edge_list(&path, &nodes)?;
/// assert_eq!(n.lists, vec![vec![1], vec![0, 2], vec![1]]);
/// assert_eq!((n.edges, n.dropped), (3, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`Error::Io`] for an unreadable file; [`Error::Parse`] naming `file:line` for a line that
/// does not hold exactly two names, or for a file without any edge; [`Error::InvalidParameter`]
/// for a node list that names a node twice.
pub fn read_edge_list(path: &Path, nodes: &[String]) -> Result<Neighbourhoods> {
    read_edge_list_where(path, nodes, &|_| true)
}

/// [`read_edge_list`] keeping only the records of the nodes `keep` selects (the others'
/// lists stay empty): one worker's people in a distributed run, which reads every edge (an
/// edge may touch its people from anywhere in the file). The counts of edges, dropped edges
/// and self-loops are the whole file's.
///
/// # Errors
/// As [`read_edge_list`].
pub fn read_edge_list_where(
    path: &Path,
    nodes: &[String],
    keep: &dyn Fn(usize) -> bool,
) -> Result<Neighbourhoods> {
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(nodes.len());
    for (i, name) in nodes.iter().enumerate() {
        if index.insert(name.as_str(), i).is_some() {
            return Err(Error::param(
                "nodes",
                format!("the node list names {} twice", quote(name)),
            ));
        }
    }
    let shown = path.display().to_string();
    let mut out = Neighbourhoods::empty(nodes.len());
    for_each_line(path, &shown, |number, line| {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Ok(());
        }
        let ends: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .collect();
        let [u, v] = ends[..] else {
            return Err(Error::parse(format!(
                "{}: an edge is two node names, got {} field(s)",
                Position::new(&shown, number),
                ends.len()
            )));
        };
        out.add(index.get(u).copied(), index.get(v).copied(), keep);
        Ok(())
    })?;
    if out.edges == 0 {
        return Err(Error::parse(format!("{shown}: no edges")));
    }
    out.finish();
    Ok(out)
}

impl Neighbourhoods {
    /// `nodes` empty records.
    fn empty(nodes: usize) -> Self {
        Self {
            lists: vec![Vec::new(); nodes],
            edges: 0,
            dropped: 0,
            self_loops: 0,
        }
    }

    /// The neighbourhoods of `nodes` nodes from edges given as pairs of node indices, `None`
    /// for an endpoint outside the public node list (the edge is then left out and counted),
    /// as [`read_edge_list`] builds them from a file: an edge u–v puts v in u's record and u
    /// in v's, repeated edges count once, self-loops are left out and counted.
    ///
    /// ```
    /// use disguise::data::Neighbourhoods;
    /// let n = Neighbourhoods::from_pairs(3, [(Some(0), Some(1)), (Some(1), Some(2)), (Some(0), None)]);
    /// assert_eq!(n.lists, vec![vec![1], vec![0, 2], vec![1]]);
    /// assert_eq!((n.edges, n.dropped, n.self_loops), (3, 1, 0));
    /// ```
    ///
    /// # Panics
    /// If an index is not below `nodes` (a caller's bug: indices come from the node list).
    pub fn from_pairs(
        nodes: usize,
        pairs: impl IntoIterator<Item = (Option<usize>, Option<usize>)>,
    ) -> Self {
        let mut out = Self::empty(nodes);
        for (u, v) in pairs {
            out.add(u, v, &|_| true);
        }
        out.finish();
        out
    }

    /// One edge read; only the records `keep` selects are filled.
    fn add(&mut self, u: Option<usize>, v: Option<usize>, keep: &dyn Fn(usize) -> bool) {
        self.edges += 1;
        match (u, v) {
            (Some(a), Some(b)) if a == b => self.self_loops += 1,
            (Some(a), Some(b)) => {
                if keep(a) {
                    self.lists[a].push(b);
                }
                if keep(b) {
                    self.lists[b].push(a);
                }
            }
            _ => self.dropped += 1,
        }
    }

    /// Sorts every record and drops repeated edges.
    fn finish(&mut self) {
        for list in &mut self.lists {
            list.sort_unstable();
            list.dedup();
        }
    }
}
