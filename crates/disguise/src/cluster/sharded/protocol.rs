//! The messages between the workers of a distributed run, and how worker 0 combines the
//! workers' answers to one command into one: exactly, in integer units, or not at all.
//!
//! Every other file of the run speaks this protocol: [`Msg`] is what crosses the network,
//! [`sum_answers`] is the only place answers are added up, and [`units`] is where a shard's
//! gain becomes the integer it sends.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The count of one (candidate, class key high and low halves, candidate's value, label).
pub(crate) type Refinement = (u32, u64, u64, u32, u32, u64);

/// A message between workers: commands from worker 0, answers to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Msg {
    /// A worker's shard is ready (its records, its ground set size, its unit).
    Ready {
        records: u64,
        ground: u64,
        unit: f64,
    },
    /// A worker could not build its shard.
    Failed(String),
    /// Give up: the message says why.
    Abort(String),
    /// Create the empty state `id`.
    Empty(u64),
    /// Copy state `from` into a new state `to`.
    Clone { from: u64, to: u64 },
    /// Drop state `id`.
    Forget(u64),
    /// The gains of `candidates` over state `state`.
    Gains { state: u64, candidates: Vec<u64> },
    /// Add `v` to state `state`.
    Insert { state: u64, v: u64 },
    /// The run is over.
    Done,
    /// The worker has reached this exchange: sent to every other worker with its messages,
    /// so that a timeout can name the workers not heard from.
    Here(u64),
    /// The worker has taken in every other worker's messages of this exchange: sent to every
    /// other worker (at the next epoch, its input having moved on), so that a timeout in an
    /// exchange every worker reached can name the workers that stopped inside it.
    Through(u64),
    /// A worker gave up waiting on an exchange, and why (naming the workers it heard nothing
    /// from): sent to every other worker as it stops, so that those still waiting name the
    /// silent process, not the one that gave up and closed its connections.
    GaveUp(String),
    /// Answers: gains and a value in units, or nothing to say.
    Units(Vec<i64>),
    /// A worker's counts ([`Comm::all_sum`](super::Comm::all_sum)).
    Counts(Vec<u64>),
    /// A state's value in units (or the total number of records, before the first command).
    Total(i64),
    /// Done, nothing to report.
    Ack,
    /// Counts of (candidate, class key, candidate's code, label), sent to the class's owner
    /// (distributed discernibility).
    Refine(Vec<Refinement>),
    /// Counts of (class key, label), sent to the class's owner.
    Classes(Vec<(u64, u64, u32, u64)>),
    /// Release the projected histogram of these columns: the mechanism's noise scale and
    /// threshold (bits of the f64s) and the release key.
    Release {
        columns: Vec<u64>,
        scale: u64,
        tau: u64,
        key: Vec<u8>,
    },
    /// Non-empty cells and their counts, sent to the cell's owner.
    Cells(Vec<(u64, u64)>),
    /// Released cells and their noisy counts (bits of the f64), to worker 0.
    Released(Vec<(u64, u64)>),
    /// Describe your table.
    Describe,
    /// A table's public shape: feature names and arities, label levels.
    Shape {
        names: Vec<String>,
        arities: Vec<u32>,
        label_levels: u32,
    },
    /// Count your table's contingency counts.
    Count,
}

/// A value in units, exactly, or an error saying the objective is not
/// [`Summable`](super::Summable) as it claims.
pub(super) fn units(value: f64, unit: f64) -> Result<i64> {
    let k = value / unit;
    if k.fract() != 0.0 || k.abs() >= 2f64.powi(53) || !k.is_finite() {
        return Err(Error::Cluster(format!(
            "a shard's value {value} is not an exact multiple of the unit {unit}: the \
             objective cannot be summed exactly"
        )));
    }
    Ok(k as i64)
}

/// Sums the answers of all workers to one command (they are all of the same kind).
pub(super) fn sum_answers(answers: Vec<Msg>, peers: usize) -> Result<Msg> {
    if answers.len() != peers {
        return Err(Error::Cluster(format!(
            "{} answers from {peers} workers",
            answers.len()
        )));
    }
    let mut it = answers.into_iter();
    let first = it
        .next()
        .ok_or_else(|| Error::Cluster("no answer".into()))?;
    let sum = it.try_fold(first, |acc, m| match (acc, m) {
        (Msg::Units(mut a), Msg::Units(b)) if a.len() == b.len() => {
            for (x, y) in a.iter_mut().zip(b) {
                *x = exact_sum(*x, y)?;
            }
            Ok(Msg::Units(a))
        }
        (Msg::Total(a), Msg::Total(b)) => exact_sum(a, b).map(Msg::Total),
        (Msg::Counts(mut a), Msg::Counts(b)) if a.len() == b.len() => {
            for (x, y) in a.iter_mut().zip(b) {
                *x = x
                    .checked_add(y)
                    .ok_or_else(|| Error::Cluster("a summed count overflows".into()))?;
            }
            Ok(Msg::Counts(a))
        }
        (a @ Msg::Shape { .. }, b @ Msg::Shape { .. }) => {
            if a == b {
                Ok(a)
            } else {
                Err(Error::Cluster(
                    "the workers' tables have different columns or categories".into(),
                ))
            }
        }
        // Each worker's released cells: their union, sorted by cell below.
        (Msg::Released(mut a), Msg::Released(b)) => {
            a.extend(b);
            Ok(Msg::Released(a))
        }
        (Msg::Ack, Msg::Ack) => Ok(Msg::Ack),
        (Msg::Failed(a), _) | (_, Msg::Failed(a)) => Err(Error::Cluster(a)),
        (a, b) => Err(Error::Cluster(format!(
            "mismatched answers {a:?} and {b:?}"
        ))),
    })?;
    Ok(match sum {
        Msg::Released(mut cells) => {
            cells.sort_unstable_by_key(|c| c.0);
            Msg::Released(cells)
        }
        other => other,
    })
}

/// a + b, if the sum converts to f64 exactly (|sum| ≤ 2^53 units): beyond, the selector
/// would see rounded gains, whose sensitivity the objective's proof does not cover (for
/// facility location, past 2^31 records). Refused rather than charged silently.
fn exact_sum(a: i64, b: i64) -> Result<i64> {
    const EXACT: i64 = 1 << 53;
    match a.checked_add(b) {
        Some(s) if (-EXACT..=EXACT).contains(&s) => Ok(s),
        _ => Err(Error::Cluster(
            "a summed gain exceeds 2^53 units, beyond which f64 cannot hold it exactly (facility \
             location: more than 2^31 records): not supported"
                .into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_exact_or_refused() {
        let answers = vec![Msg::Units(vec![1, 1 << 52]), Msg::Units(vec![2, 1 << 52])];
        match sum_answers(answers, 2) {
            Ok(Msg::Units(u)) => assert_eq!(u, vec![3, 1 << 53]),
            other => panic!("{other:?}"),
        }
        let over = vec![Msg::Units(vec![1 << 53]), Msg::Units(vec![1])];
        assert!(sum_answers(over, 2).is_err());
        assert!(
            sum_answers(vec![Msg::Total(1)], 2).is_err(),
            "an answer is missing"
        );
        let failed = vec![Msg::Total(1), Msg::Failed("worker 1: disk".into())];
        let err = sum_answers(failed, 2).unwrap_err();
        assert!(err.to_string().contains("worker 1: disk"));
        assert!(units(0.5, 1.0).is_err() && units(3.0, 0.5).unwrap() == 6);
    }
}
