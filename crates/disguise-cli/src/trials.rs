//! The picks of many trials kept for one JSON document ([`Kept`]), and their serialisation
//! per pick or per trial without building the document in memory. The trials themselves run
//! in the library ([`disguise::task::trials`]).

use crate::output::check_memory;
use serde::ser::{Serialize, SerializeSeq, Serializer};
use std::ops::Range;

/// The picks of every trial, stored compactly (flat arrays, 8 bytes per number) for an
/// output that can only be written once all trials are done: one JSON document.
#[derive(Debug, Default)]
pub struct Kept {
    ends: Vec<usize>,
    elements: Vec<usize>,
    values: Vec<f64>,
    types: Vec<usize>,
    finals: Vec<f64>,
    evaluations: Vec<u64>,
}

/// One trial's picks as [`Kept::push`] takes them.
pub struct TrialPicks<'a> {
    /// The chosen elements, in order.
    pub elements: &'a [usize],
    /// The objective value after each pick.
    pub values: &'a [f64],
    /// The type of each pick (k-submodular runs), else empty.
    pub types: &'a [usize],
    /// The final utility of the trial.
    pub utility: f64,
    /// The gain evaluations of the trial.
    pub evaluations: u64,
}

impl Kept {
    /// Room for `trials` trials of at most `picks` picks each, after checking that it fits
    /// in memory (`flag` names the option that sizes it, e.g. `--trials 1000`).
    pub fn for_trials(trials: u64, picks: usize, typed: bool, flag: &str) -> anyhow::Result<Self> {
        // Per trial: end offset, final utility, evaluations; per pick: element, value, type.
        let per_pick: u128 = if typed { 24 } else { 16 };
        let need = u128::from(trials) * (24 + per_pick * picks as u128);
        check_memory(
            &format!(
                "{flag} with --format json (every trial's picks are kept to print one document)"
            ),
            need,
            "use --format csv, which prints one row per pick as the trials run, or fewer trials",
        )?;
        let trials = usize::try_from(trials)?;
        let mut kept = Self::default();
        let oom = |_| anyhow::anyhow!("{flag}: not enough memory to keep every trial's picks");
        kept.ends.try_reserve_exact(trials).map_err(oom)?;
        kept.finals.try_reserve_exact(trials).map_err(oom)?;
        kept.evaluations.try_reserve_exact(trials).map_err(oom)?;
        Ok(kept)
    }

    /// Adds the next trial.
    pub fn push(&mut self, trial: TrialPicks<'_>) -> anyhow::Result<()> {
        let oom = |_| anyhow::anyhow!("not enough memory to keep every trial's picks");
        self.elements
            .try_reserve(trial.elements.len())
            .map_err(oom)?;
        self.values.try_reserve(trial.values.len()).map_err(oom)?;
        self.types.try_reserve(trial.types.len()).map_err(oom)?;
        self.elements.extend_from_slice(trial.elements);
        self.values.extend_from_slice(trial.values);
        self.types.extend_from_slice(trial.types);
        self.ends.push(self.elements.len());
        self.finals.push(trial.utility);
        self.evaluations.push(trial.evaluations);
        Ok(())
    }

    /// The number of trials kept.
    pub fn trials(&self) -> usize {
        self.ends.len()
    }

    /// The positions of trial `t`'s picks in the flat arrays.
    pub fn picks(&self, t: usize) -> Range<usize> {
        let start = if t == 0 { 0 } else { self.ends[t - 1] };
        start..self.ends[t]
    }

    /// The element of pick `j` (a flat position).
    pub fn element(&self, j: usize) -> usize {
        self.elements[j]
    }

    /// The value after pick `j`.
    pub fn value(&self, j: usize) -> f64 {
        self.values[j]
    }

    /// The type of pick `j` (typed runs only).
    pub fn kind(&self, j: usize) -> usize {
        self.types[j]
    }

    /// The final utility of every trial.
    pub fn finals(&self) -> &[f64] {
        &self.finals
    }

    /// The gain evaluations of trial `t`.
    pub fn evaluations(&self, t: usize) -> u64 {
        self.evaluations[t]
    }
}

/// A per-pick JSON field: the list of picks of the single run, or one list per trial;
/// `cell` gives the JSON value of pick `j` (a flat position of [`Kept`]). Serialised
/// without building the document in memory.
pub struct PerPick<'a> {
    /// The kept picks.
    pub kept: &'a Kept,
    /// One list per trial (`--trials` given) rather than the single run's list.
    pub per_trial: bool,
    /// The value of one pick.
    pub cell: &'a dyn Fn(usize) -> serde_json::Value,
}

struct Picks<'a> {
    range: Range<usize>,
    cell: &'a dyn Fn(usize) -> serde_json::Value,
}

impl Serialize for Picks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.range.len()))?;
        for j in self.range.clone() {
            seq.serialize_element(&(self.cell)(j))?;
        }
        seq.end()
    }
}

impl Serialize for PerPick<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.per_trial {
            let range = if self.kept.trials() == 0 {
                0..0
            } else {
                self.kept.picks(0)
            };
            return Picks {
                range,
                cell: self.cell,
            }
            .serialize(serializer);
        }
        let mut seq = serializer.serialize_seq(Some(self.kept.trials()))?;
        for t in 0..self.kept.trials() {
            seq.serialize_element(&Picks {
                range: self.kept.picks(t),
                cell: self.cell,
            })?;
        }
        seq.end()
    }
}

/// A per-trial JSON field: the single run's value, or one value per trial.
pub struct PerTrial<'a> {
    /// The kept trials.
    pub kept: &'a Kept,
    /// One value per trial rather than the single run's value.
    pub per_trial: bool,
    /// The value of trial `t`.
    pub cell: &'a dyn Fn(usize) -> serde_json::Value,
}

impl Serialize for PerTrial<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.per_trial {
            return (self.cell)(0).serialize(serializer);
        }
        let mut seq = serializer.serialize_seq(Some(self.kept.trials()))?;
        for t in 0..self.kept.trials() {
            seq.serialize_element(&(self.cell)(t))?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_picks_serialise_flat_or_per_trial() {
        let mut kept = Kept::for_trials(2, 2, false, "--trials 2").unwrap();
        for (e, v) in [(&[3usize, 1][..], &[1.0, 2.0][..]), (&[0][..], &[0.5][..])] {
            kept.push(TrialPicks {
                elements: e,
                values: v,
                types: &[],
                utility: v[v.len() - 1],
                evaluations: 7,
            })
            .unwrap();
        }
        let cell = |j: usize| serde_json::json!(kept.element(j));
        let flat = PerPick {
            kept: &kept,
            per_trial: false,
            cell: &cell,
        };
        assert_eq!(serde_json::to_string(&flat).unwrap(), "[3,1]");
        let nested = PerPick {
            kept: &kept,
            per_trial: true,
            cell: &cell,
        };
        assert_eq!(serde_json::to_string(&nested).unwrap(), "[[3,1],[0]]");
        let evals = |t: usize| serde_json::json!(kept.evaluations(t));
        let per_trial = PerTrial {
            kept: &kept,
            per_trial: true,
            cell: &evals,
        };
        assert_eq!(serde_json::to_string(&per_trial).unwrap(), "[7,7]");
        assert_eq!(kept.finals(), [2.0, 0.5]);
        // A count whose picks cannot fit is refused before anything is allocated.
        let err = Kept::for_trials(1_000_000_000_000, 5, false, "--trials 1000000000000")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--trials 1000000000000") && err.contains("--format csv"),
            "{err}"
        );
    }
}
