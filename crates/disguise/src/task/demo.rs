//! [`Demo`]: the embedded example — k public waiting spots for taxi pickups chosen privately
//! (facility location, Mitrovic et al. 2017 §6.1), next to the non-private greedy's choice
//! for comparison — validated, run on its [`DemoPlaces`] and reported ([`DemoReport`]) as
//! any front end shows it ([`crate::text::demo_table`]).
//!
//! The demo's point is the comparison, computed exactly on the pickups: its utilities and
//! the non-private greedy's picks are diagnostics, which the demo shows by default because
//! its pickups are public (built in); on a user's own pickups front ends show them only
//! when diagnostics were asked for.

use crate::constraint::Cardinality;
use crate::data::{geographic, manhattan_like, read_points};
use crate::disclosure::{Diagnostic, Disclose, Public, Released};
use crate::maximize::{Budget, Procedure, Solution, greedy, standard_greedy};
use crate::objective::{FacilityLocation, Metric, Normalizer};
use crate::privacy::{Epsilon, Guarantee};
use crate::select::SelectorKind;
use crate::{Error, Result, SecureRng};
use serde::Serialize;
use std::path::Path;

/// The demo's request: choose `k` of the candidate spots for the pickups with the private
/// greedy (the exponential mechanism in every round) within the total budget (ε, δ), and
/// the non-private greedy's `k` beside them.
///
/// ```
/// use disguise::task::{Demo, DemoPlaces};
/// let demo = Demo { k: 3, epsilon: 0.1, delta: 1e-6, normalizer: None };
/// demo.validate()?;
/// let places = DemoPlaces::read(None, None)?; // the built-in pickups and spots
/// let demo = demo.for_places(&places)?;
/// let mut rng = disguise::SecureRng::insecure_from_seed(1);
/// let run = demo.run(&places, &mut rng)?;
/// let report = demo.report(&places, &run, None);
/// assert_eq!(report.private.len(), 3);
/// assert!(Demo { k: 0, ..demo }.validate().is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Demo {
    /// The number of spots to choose: at least 1, at most the candidates.
    pub k: usize,
    /// Total ε of the whole selection (all k rounds).
    pub epsilon: f64,
    /// Total δ of the whole selection.
    pub delta: f64,
    /// The distance (Manhattan metric, in degrees) at which a spot stops serving a pickup;
    /// `None`: the places' own ([`DemoPlaces::normalizer`]), else the diagonal of the
    /// candidates' bounding box.
    pub normalizer: Option<f64>,
}

/// The demo's places: the pickups and the candidate spots (`lat, lon`), built in or read.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoPlaces {
    /// Where the pickups come from, in words or as the file's name.
    pub source: String,
    /// The pickups.
    pub records: Vec<[f64; 2]>,
    /// The candidate spots.
    pub candidates: Vec<[f64; 2]>,
    /// The spots' names.
    pub names: Vec<String>,
    /// The normaliser of the built-in spots (across Manhattan, as in the paper); `None` for
    /// spots read from a file.
    pub normalizer: Option<f64>,
}

/// One run of the demo: the private greedy's choice and the non-private one.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoRun {
    /// The private picks (the release).
    pub private: Solution,
    /// The non-private greedy's picks (a diagnostic).
    pub exact: Solution,
}

impl DemoPlaces {
    /// The pickups of `data` (a CSV file with columns `lat` and `lon`) or else 10,000
    /// synthetic Manhattan-like ones, and the spots of `candidates` (columns `lat`, `lon`
    /// and optionally `name`; unnamed spots are `spot 1`, `spot 2`, …) or else 20 named
    /// landmarks. The built-in data is seeded (the same demo everywhere): data synthesis,
    /// not privacy noise.
    ///
    /// # Errors
    /// The files' reading errors (a latitude or longitude off the globe among them).
    pub fn read(data: Option<&Path>, candidates: Option<&Path>) -> Result<Self> {
        let city = (data.is_none() || candidates.is_none()).then(|| manhattan_like(10_000, 2014));
        let built_in = || city.as_ref().expect("made when a file is missing");
        let (records, source) = match data {
            Some(path) => {
                let points = read_points(path, ["lat", "lon"], None, geographic)?.coords;
                (points, path.display().to_string())
            }
            None => (
                built_in().records.clone(),
                "10,000 synthetic Manhattan-like pickups (built in)".to_string(),
            ),
        };
        let (candidates, names, normalizer) = match candidates {
            Some(path) => {
                let read = read_points(path, ["lat", "lon"], Some("name"), geographic)?;
                let count = read.coords.len();
                let names = (read.names)
                    .unwrap_or_else(|| (1..=count).map(|i| format!("spot {i}")).collect());
                (read.coords, names, None)
            }
            None => {
                let city = built_in();
                let names = city.candidate_names.clone();
                (city.candidates.clone(), names, Some(city.normalizer))
            }
        };
        Ok(Self {
            source,
            records,
            candidates,
            names,
            normalizer,
        })
    }
}

impl Demo {
    /// Checks what needs no data: ε ([`Epsilon::total`]) and δ, k ≥ 1 and a given
    /// normaliser positive.
    ///
    /// # Errors
    /// [`Error::InvalidEpsilon`], [`Error::InvalidDelta`], or [`Error::InvalidParameter`]
    /// naming `epsilon`, `k` or `normalizer`.
    pub fn validate(&self) -> Result<()> {
        Epsilon::total(self.epsilon)?;
        Budget::total(self.epsilon, self.delta)?;
        if self.k == 0 {
            return Err(Error::param("k", "must be at least 1"));
        }
        match self.normalizer {
            Some(m) if !(m.is_finite() && m > 0.0) => Err(Error::param(
                "normalizer",
                format!("must be a positive number, got {m}"),
            )),
            _ => Ok(()),
        }
    }

    /// The request for `places`, its normaliser resolved (given, the places' own, or the
    /// diagonal of the candidates' bounding box), after checking that k fits the candidates.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `normalizer` (no default for these candidates,
    /// [`super::default_normalizer`]) or `k`.
    pub fn for_places(self, places: &DemoPlaces) -> Result<Self> {
        let m = match self.normalizer.or(places.normalizer) {
            Some(m) => m,
            None => super::default_normalizer(Metric::Manhattan, &places.candidates)?,
        };
        let count = places.candidates.len();
        if self.k > count {
            let reason = format!("{} is more than the {count} candidates", self.k);
            return Err(Error::param("k", reason));
        }
        Ok(Self {
            normalizer: Some(m),
            ..self
        })
    }

    /// Runs the private greedy with `rng`, and the non-private greedy, on `places` (with
    /// the request [`Demo::for_places`] made for them).
    ///
    /// # Errors
    /// Those of the objective and the greedy (an invalid budget or normaliser).
    pub fn run(&self, places: &DemoPlaces, rng: &mut SecureRng) -> Result<DemoRun> {
        let normalizer = self
            .normalizer
            .map_or(Normalizer::CandidateBoundingBox, Normalizer::Fixed);
        let (records, candidates) = (&places.records, &places.candidates);
        let f = FacilityLocation::new(Metric::Manhattan, records, candidates, normalizer)?;
        let constraint = Cardinality::new(candidates.len(), self.k);
        let total = Budget::total(self.epsilon, self.delta)?;
        let procedure = Procedure::private(SelectorKind::Exponential, total);
        let private = greedy(&f, &constraint, &procedure, rng)?;
        let exact = standard_greedy(&f, &constraint)?;
        Ok(DemoRun { private, exact })
    }

    /// The report of `run` on `places`, naming the `map` written, if any.
    pub fn report(&self, places: &DemoPlaces, run: &DemoRun, map: Option<String>) -> DemoReport {
        let records = places.records.len();
        let n = records.max(1) as f64;
        let (private, exact) = (&run.private, &run.exact);
        DemoReport {
            data: Public::new(places.source.clone()),
            records: Public::new(records),
            candidates: Public::new(places.candidates.len()),
            k: Public::new(self.k),
            normalizer: Public::new(self.normalizer.unwrap_or(f64::NAN)),
            mechanism: "exponential mechanism (greedy, Algorithm 1 of Mitrovic et al. 2017)",
            private: DemoPick::of(private, &places.candidates, &places.names, records),
            private_utility: Diagnostic::new(private.value / n),
            non_private: ExactPick::of(exact, &places.names, records),
            non_private_utility: Diagnostic::new(exact.value / n),
            guarantee: private.guarantee,
            per_round_epsilon: (private.budget_split).map(|b| Public::new(b.per_round_epsilon)),
            secure_rng: Public::new(private.secure_rng),
            map: map.map(Public::new),
        }
    }
}

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
