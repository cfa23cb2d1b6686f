//! [`DemoReport`]: the report of the embedded example — k public waiting spots for taxi
//! pickups chosen privately (facility location, Mitrovic et al. 2017 §6.1), next to the
//! non-private greedy's choice for comparison — as any front end shows it
//! ([`crate::text::demo_table`]).
//!
//! The demo's point is the comparison, computed exactly on the pickups: its utilities and
//! the non-private greedy's picks are diagnostics, which the demo shows by default because
//! its pickups are public (built in); on a user's own pickups front ends show them only
//! when diagnostics were asked for.

use crate::disclosure::{Diagnostic, Disclose, Public, Released};
use crate::maximize::Solution;
use crate::privacy::Guarantee;
use serde::Serialize;

/// One chosen spot of the demo: the released pick, and the exact utility after it.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct DemoPick {
    /// The spot's index among the candidates.
    pub index: Released<usize>,
    /// The spot's name.
    pub name: Released<String>,
    /// Its latitude.
    pub lat: Released<f64>,
    /// Its longitude.
    pub lon: Released<f64>,
    /// f(S)/n after this pick (NOT private).
    #[serde(skip)]
    pub utility_after: Diagnostic<f64>,
}

/// One spot of the non-private greedy's choice (all of it NOT private).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExactPick {
    /// The spot's index among the candidates.
    pub index: usize,
    /// The spot's name.
    pub name: String,
    /// f(S)/n after this pick.
    pub utility_after: f64,
}

impl DemoPick {
    /// The picks of a private run on `records` pickups, each with its spot from the
    /// `lat, lon` points `candidates` named by `names`.
    pub fn of(
        s: &Solution,
        candidates: &[[f64; 2]],
        names: &[String],
        records: usize,
    ) -> Vec<DemoPick> {
        let n = records.max(1) as f64;
        s.elements
            .iter()
            .zip(&s.values)
            .map(|(&v, &value)| DemoPick {
                index: Released::new(v),
                name: Released::new(names[v].clone()),
                lat: Released::new(candidates[v][0]),
                lon: Released::new(candidates[v][1]),
                utility_after: Diagnostic::new(value / n),
            })
            .collect()
    }
}

impl ExactPick {
    /// The picks of the non-private greedy, as [`DemoPick::of`].
    pub fn of(s: &Solution, names: &[String], records: usize) -> Diagnostic<Vec<ExactPick>> {
        let n = records.max(1) as f64;
        Diagnostic::new(
            s.elements
                .iter()
                .zip(&s.values)
                .map(|(&v, &value)| ExactPick {
                    index: v,
                    name: names[v].clone(),
                    utility_after: value / n,
                })
                .collect(),
        )
    }
}

/// What the demo reports: the data, the private picks, the guarantee and the map written,
/// and as diagnostics the utilities f(S)/n and the non-private greedy's picks, computed on
/// the pickups (NOT covered by the guarantee).
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct DemoReport {
    /// Where the pickups come from.
    pub data: Public<String>,
    /// The number of pickups.
    pub records: Public<usize>,
    /// The number of candidate spots.
    pub candidates: Public<usize>,
    /// The number of spots chosen.
    pub k: Public<usize>,
    /// The distance at which a spot stops serving a pickup.
    pub normalizer: Public<f64>,
    /// The mechanism, in words.
    pub mechanism: &'static str,
    /// The private picks.
    pub private: Vec<DemoPick>,
    /// f(S)/n of the private picks (NOT private).
    #[serde(skip)]
    pub private_utility: Diagnostic<f64>,
    /// The non-private greedy's picks (NOT private).
    #[serde(skip)]
    pub non_private: Diagnostic<Vec<ExactPick>>,
    /// f(S)/n of the non-private greedy's picks (NOT private).
    #[serde(skip)]
    pub non_private_utility: Diagnostic<f64>,
    /// The guarantee of the private picks.
    pub guarantee: Option<Guarantee>,
    /// The per-round ε₀ the total budget was split into.
    pub per_round_epsilon: Option<Public<f64>>,
    /// Whether the generator was secure (a seeded run is not private).
    pub secure_rng: Public<bool>,
    /// The map written, if any (it draws every pickup and both choices: written only where
    /// the diagnostics may be shown).
    pub map: Option<Public<String>>,
}
