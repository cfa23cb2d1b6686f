//! [`DemoReport`]: the report of the embedded example — k public waiting spots for taxi
//! pickups chosen privately (facility location, Mitrovic et al. 2017 §6.1), next to the
//! non-private greedy's choice for comparison — as any front end shows it
//! ([`crate::text::demo_table`]).

use crate::maximize::Solution;
use crate::privacy::Guarantee;
use serde::Serialize;

/// One chosen spot of the demo.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DemoPick {
    /// The spot's index among the candidates.
    pub index: usize,
    /// The spot's name.
    pub name: String,
    /// Its latitude.
    pub lat: f64,
    /// Its longitude.
    pub lon: f64,
    /// f(S)/n after this pick.
    pub utility_after: f64,
}

impl DemoPick {
    /// The picks of a run on `records` pickups, each with its spot from the `lat, lon`
    /// points `candidates` named by `names`.
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
                index: v,
                name: names[v].clone(),
                lat: candidates[v][0],
                lon: candidates[v][1],
                utility_after: value / n,
            })
            .collect()
    }
}

/// What the demo reports: the data, the private and the non-private picks with their
/// utilities f(S)/n (computed on the private pickups: NOT covered by the guarantee), the
/// guarantee of the private picks, and the map written, if any.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DemoReport {
    /// Where the pickups come from.
    pub data: String,
    /// The number of pickups.
    pub records: usize,
    /// The number of candidate spots.
    pub candidates: usize,
    /// The number of spots chosen.
    pub k: usize,
    /// The distance at which a spot stops serving a pickup.
    pub normalizer: f64,
    /// The mechanism, in words.
    pub mechanism: &'static str,
    /// The private picks.
    pub private: Vec<DemoPick>,
    /// f(S)/n of the private picks.
    pub private_utility: f64,
    /// The non-private greedy's picks.
    pub non_private: Vec<DemoPick>,
    /// f(S)/n of the non-private greedy's picks.
    pub non_private_utility: f64,
    /// The guarantee of the private picks.
    pub guarantee: Option<Guarantee>,
    /// The per-round ε₀ the total budget was split into.
    pub per_round_epsilon: Option<f64>,
    /// Whether the generator was secure (a seeded run is not private).
    pub secure_rng: bool,
    /// The map written, if any.
    pub map: Option<String>,
}
