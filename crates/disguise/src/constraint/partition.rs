//! The partition matroid: the ground set is split into groups, and a feasible set takes at most
//! `capacity(g)` elements from each group g.

use super::Independence;
use super::text::{error_at, parse_index, read, rows};
use crate::data::quote;
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// A partition matroid: every element belongs to exactly one group, and a set is feasible when
/// it contains at most `capacity(g)` elements of each group g.
///
/// Groups may be empty (they then contribute nothing) and may have capacity 0 (their elements
/// can never be chosen — the way to exclude elements). A constraint under which *nothing* can be
/// chosen (every non-empty group has capacity 0) is rejected as a mistake.
///
/// *Rank*: r = Σ_g min(capacity(g), |g|), exact (a partition matroid's bases all have this
/// size), so Algorithm 2 of Mitrovic et al. (2017) makes exactly r rounds.
///
/// # File format ([`Partition::parse`], [`Partition::from_file`])
/// One text file holding two small CSV tables, each introduced by its header line; the tables
/// may come in either order. Blank lines and lines starting with `#` are ignored, fields are
/// trimmed.
///
/// ```text
/// # neighbourhoods of the candidate waiting spots
/// group,capacity
/// north,2
/// south,1
/// empty,3
/// element,group
/// 0,north
/// 1,north
/// 2,south
/// 3,south
/// ```
///
/// * `group,capacity` rows declare each group once with a non-negative integer capacity;
/// * `element,group` rows assign each element id (0-based, `< ground_size`) to a declared group.
///
/// Every element of the ground set must be assigned exactly once. Errors name `file:line`:
/// unknown headers, malformed rows, an element id outside the ground set, an element assigned
/// twice, a group declared twice or never declared.
///
/// ```
/// use disguise::constraint::{Independence, Partition};
/// let text = "group,capacity\na,1\nb,2\nelement,group\n0,a\n1,a\n2,b\n";
/// let p = Partition::parse(text, "groups.csv", 3)?;
/// let mut s = p.empty();
/// p.insert(&mut s, 0);
/// assert!(!p.can_add(&s, 1)); // group a is full
/// assert!(p.can_add(&s, 2));
/// assert_eq!(p.rank_bound(), 2);
/// let err = Partition::parse("group,capacity\na,1\nelement,group\n7,a\n", "g.csv", 3);
/// assert!(err.unwrap_err().to_string().starts_with("g.csv:4:"));
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Partition {
    group_of: Vec<usize>,
    capacities: Vec<usize>,
    group_sizes: Vec<usize>,
    names: Vec<String>,
}

impl Partition {
    /// A partition matroid from the group of each element (`group_of[v]`, a group index) and
    /// each group's capacity; groups are named `0`, `1`, ….
    ///
    /// Errors if a group index is `≥ capacities.len()` or if no element can ever be chosen.
    pub fn new(group_of: Vec<usize>, capacities: Vec<usize>) -> Result<Self> {
        let names = (0..capacities.len()).map(|g| g.to_string()).collect();
        Self::with_names(group_of, capacities, names)
    }

    /// As [`Partition::new`], with group names for output (one per capacity).
    pub fn with_names(
        group_of: Vec<usize>,
        capacities: Vec<usize>,
        names: Vec<String>,
    ) -> Result<Self> {
        if names.len() != capacities.len() {
            return Err(Error::param(
                "partition matroid",
                format!(
                    "{} group names for {} capacities",
                    names.len(),
                    capacities.len()
                ),
            ));
        }
        let mut group_sizes = vec![0usize; capacities.len()];
        for (v, &g) in group_of.iter().enumerate() {
            match group_sizes.get_mut(g) {
                Some(size) => *size += 1,
                None => {
                    return Err(Error::param(
                        "partition matroid",
                        format!(
                            "element {v} is in group {g}, but there are only {} groups",
                            capacities.len()
                        ),
                    ));
                }
            }
        }
        let partition = Self {
            group_of,
            capacities,
            group_sizes,
            names,
        };
        if partition.rank_bound() == 0 && !partition.group_of.is_empty() {
            return Err(Error::param(
                "partition matroid",
                "no element can ever be chosen: every non-empty group has capacity 0",
            ));
        }
        Ok(partition)
    }

    /// Parses the file format described on [`Partition`]; `source` names the text in errors
    /// (usually the file name) and `ground_size` is |V|.
    pub fn parse(text: &str, source: &str, ground_size: usize) -> Result<Self> {
        #[derive(Clone, Copy, PartialEq)]
        enum Section {
            None,
            Capacities,
            Elements,
        }
        let mut section = Section::None;
        let mut index_of: HashMap<String, usize> = HashMap::new();
        let mut names: Vec<String> = Vec::new();
        let mut capacities: Vec<usize> = Vec::new();
        // (line, group name) of each element's assignment; resolved once all groups are known
        // so that the two tables may come in either order.
        let mut assigned: Vec<Option<(usize, String)>> = vec![None; ground_size];
        for row in rows(text) {
            let fields = &row.fields;
            let lower: Vec<String> = fields.iter().map(|f| f.to_ascii_lowercase()).collect();
            if lower == ["group", "capacity"] {
                section = Section::Capacities;
                continue;
            }
            if lower == ["element", "group"] {
                section = Section::Elements;
                continue;
            }
            if fields.len() != 2 {
                return Err(error_at(
                    source,
                    row.line,
                    format!("expected 2 comma-separated fields, found {}", fields.len()),
                ));
            }
            match section {
                Section::None => {
                    return Err(error_at(
                        source,
                        row.line,
                        "expected a header line `group,capacity` or `element,group` first",
                    ));
                }
                Section::Capacities => {
                    let name = fields[0];
                    if name.is_empty() {
                        return Err(error_at(source, row.line, "empty group name"));
                    }
                    let capacity = parse_index(source, &row, 1, "a capacity")?;
                    if index_of.contains_key(name) {
                        return Err(error_at(
                            source,
                            row.line,
                            format!("group {} is declared twice", quote(name)),
                        ));
                    }
                    index_of.insert(name.to_string(), names.len());
                    names.push(name.to_string());
                    capacities.push(capacity);
                }
                Section::Elements => {
                    let v = parse_index(source, &row, 0, "an element id")?;
                    let Some(slot) = assigned.get_mut(v) else {
                        return Err(error_at(
                            source,
                            row.line,
                            format!("unknown element id {v} (the ground set is 0..{ground_size})"),
                        ));
                    };
                    if let Some((first, _)) = slot {
                        return Err(error_at(
                            source,
                            row.line,
                            format!("element {v} is already assigned on line {first}"),
                        ));
                    }
                    *slot = Some((row.line, fields[1].to_string()));
                }
            }
        }
        let mut group_of = Vec::with_capacity(ground_size);
        for (v, slot) in assigned.into_iter().enumerate() {
            let Some((line, name)) = slot else {
                return Err(Error::parse(format!(
                    "{source}: element {v} is assigned to no group (every element 0..{ground_size} \
                     needs an `element,group` row; use a group of capacity 0 to exclude elements)"
                )));
            };
            let Some(&g) = index_of.get(&name) else {
                return Err(error_at(
                    source,
                    line,
                    format!(
                        "group {} is not declared in a `group,capacity` table",
                        quote(&name)
                    ),
                ));
            };
            group_of.push(g);
        }
        Self::with_names(group_of, capacities, names)
            .map_err(|e| Error::parse(format!("{source}: {e}")))
    }

    /// Reads and parses a partition file (format on [`Partition`]).
    pub fn from_file(path: impl AsRef<Path>, ground_size: usize) -> Result<Self> {
        let path = path.as_ref();
        Self::parse(&read(path)?, &path.display().to_string(), ground_size)
    }

    /// The number of groups (including empty ones).
    pub fn groups(&self) -> usize {
        self.capacities.len()
    }

    /// The group index of element `v` (`None` for an unknown id).
    pub fn group_of(&self, v: usize) -> Option<usize> {
        self.group_of.get(v).copied()
    }

    /// The capacity of group `g`.
    pub fn capacity(&self, g: usize) -> Option<usize> {
        self.capacities.get(g).copied()
    }

    /// The name of group `g`.
    pub fn group_name(&self, g: usize) -> Option<&str> {
        self.names.get(g).map(String::as_str)
    }
}

impl Independence for Partition {
    /// How many elements of each group are chosen.
    type State = Vec<usize>;

    fn ground_size(&self) -> usize {
        self.group_of.len()
    }
    fn empty(&self) -> Vec<usize> {
        vec![0; self.capacities.len()]
    }
    fn can_add(&self, state: &Vec<usize>, v: usize) -> bool {
        match self.group_of.get(v) {
            Some(&g) => state[g] < self.capacities[g],
            None => false,
        }
    }
    fn insert(&self, state: &mut Vec<usize>, v: usize) {
        state[self.group_of[v]] += 1;
    }
    fn rank_bound(&self) -> usize {
        self.capacities
            .iter()
            .zip(&self.group_sizes)
            .map(|(&c, &s)| c.min(s))
            .sum()
    }
    fn extendibility(&self) -> usize {
        1
    }
    fn name(&self) -> &'static str {
        "partition"
    }
}
