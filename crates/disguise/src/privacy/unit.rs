//! [`Unit`]: what neighbouring data sets differ in — the unit a guarantee protects.

use crate::names::{Named, named_traits};
use serde::Serialize;

/// What a release's guarantee protects: the difference between neighbouring data sets, one
/// unit *replaced* by another (the number of units is public). Every report states its unit
/// ([`crate::task::PrivacyReport::unit`]); releases compose into one budget only when they
/// protect the same unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// One person's record — a row, a point, a transaction, a person's list — replaced by
    /// another: every task but those on the edges of a graph.
    Record,
    /// One edge of a graph — one line of an edge list — replaced by another line (repeated
    /// edges merged, self-loops and edges to names outside the public list left out): `cut`,
    /// and `cover --edges`, whose friend lists change in up to four places (group privacy
    /// of four friend lists).
    Edge,
}

impl Named for Unit {
    const KIND: &'static str = "unit";
    const ALL: &'static [Self] = &[Unit::Record, Unit::Edge];

    fn name(self) -> &'static str {
        match self {
            Unit::Record => "record",
            Unit::Edge => "edge",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Unit::Record => "one person's record: a row, a point, a transaction or a list",
            Unit::Edge => "one edge of a graph: one line of an edge list, replaced",
        }
    }
}

named_traits!(Unit);

impl Unit {
    /// What neighbouring data sets differ in, as a guarantee line says it.
    pub fn neighbours(self) -> &'static str {
        match self {
            Unit::Record => "neighbouring datasets differ in one record",
            Unit::Edge => "neighbouring graphs differ in one edge, replaced",
        }
    }
}
