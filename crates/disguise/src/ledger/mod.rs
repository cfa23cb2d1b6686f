//! A privacy budget ledger that outlives the process: every release on a data set recorded
//! in an SQLite file, and a release refused, before anything is released, when the data
//! set's releases would exceed its limit.
//!
//! Each run of the library proves an (ε, δ) guarantee for itself. An analyst runs many, on
//! the same data, and the guarantee that matters is the total across them. A [`Ledger`]
//! holds, per data set, a [`Limit`] and the [`Filter`] that stops the releases there, and
//! records every release:
//!
//! ```
//! use disguise::ledger::{Ledger, Limit, Spend, Unit};
//! use disguise::privacy::{Guarantee, compose::Rule};
//! # let dir = tempfile::tempdir().unwrap();
//! # let path = dir.path().join("budget.ledger");
//! let ledger = Ledger::create(&path)?;
//! ledger.set_limit("adult", Limit::new(0.3, 0.0)?)?;
//! let run = |epsilon| Spend::protecting(Unit::Record, Guarantee { epsilon, delta: 0.0, rule: Rule::Single });
//! ledger.reserve("adult", &run(0.1))?;
//! ledger.reserve("adult", &run(0.2))?; // 0.1 + 0.2 = 0.3 exactly: it fits
//! let refused = ledger.reserve("adult", &run(0.1)).unwrap_err();
//! assert!(matches!(refused, disguise::Error::BudgetExceeded { .. }));
//! assert_eq!(ledger.releases(Some("adult"))?.len(), 2);
//! # Ok::<(), disguise::Error>(())
//! ```
//!
//! # Where it sits
//!
//! A front end validates the request, computes what it will spend from its public
//! parameters, and hands that [`Spend`] to [`Ledger::reserve`] **before it reads the data**;
//! only then does it run and release. The reservation is one SQLite transaction started
//! with `BEGIN IMMEDIATE` (the write lock is taken before the spent budget is read, so two
//! processes cannot both see room for one more release): it reads the data set's limit and
//! recorded releases, refuses ([`Error::BudgetExceeded`]) if the limit's filter would not
//! admit the new one, and otherwise inserts the record and commits. A run that fails after
//! its reservation stays charged — its choices may already have crossed a network, or
//! reached a progress bar — the conservative side: a budget may be charged for a release
//! nobody saw, never the other way round.
//!
//! # The filter
//!
//! The analyst chooses each release after seeing the previous outputs, so the ledger is a
//! *privacy filter*, and refuses only by a filter proven for fully adaptive composition:
//! basic composition, or a zCDP filter for pure and exponential-mechanism releases — chosen
//! when the limit is set, recorded with it, never re-chosen per release ([`filter`] has the
//! theorems and their conditions; `docs/proofs/ledger-composition.md` the proofs). Within
//! one release, whose parameters are fixed before its data is read, the accountant's best
//! rule gives its own (ε, δ). A limit can be lowered after releases, not raised, and its
//! filter cannot change then: a budget chosen after seeing outputs is not a filter's (each
//! attempt is judged by the limit in force; the releases stay within the limit of the first
//! one). After a run, a front end holds it to its reservation ([`within_reservation`]).
//! Budgets are exact decimals: releases of ε = 0.1 and 0.2 fit a limit of 0.3.
//!
//! # Names
//!
//! A data set is named by the caller, never by its content (the ledger stores no hash of
//! the data: a shared ledger must not let anyone test guesses about a record). Names are
//! trimmed and stored as given; a name that a person would take for an existing one — the
//! same in Unicode normalisation form KC once invisible (default-ignorable) characters,
//! case and white space are set aside: `\u{feff}adult`, `adu\u{200b}lt`, `ＡＤＵＬＴ`, `Adult`
//! beside `adult` — is refused with a suggestion, by every method that takes a name
//! ([`check_name`]). So is a new name one or two edits from an existing one (`nursry`
//! beside `nursery`, `adlut` beside `adult`; one edit when a name has at most 3
//! characters), a typo that would give the same people a second budget, unless the caller
//! confirms that it names a new data set ([`Name::new_dataset`]). A release into a data set
//! without a limit is refused, unless the ledger has a default limit
//! ([`Ledger::set_default_limit`]), which is then recorded as the data set's own.
//!
//! # Privacy units
//!
//! Composition is only meaningful for one neighbour relation: every release records the
//! privacy [`Unit`] its guarantee protects — one person's record, or one edge of a graph
//! (`MaxCut`, and maximum coverage of a friendship graph given as edges) — and a data set
//! holds releases of one unit only; a release of another unit is refused
//! ([`Error::InvalidParameter`] naming `dataset`), since an ε for edges and an ε for people
//! do not add up to a guarantee for either.
//!
//! # The file
//!
//! An SQLite database (compiled in, no system library) with `application_id`
//! [`APPLICATION_ID`] and `user_version` [`FORMAT`]: tables `limits` (every limit ever set,
//! with its filter; the latest per data set in force), `default_limit`, `releases` (time,
//! data set, command, mechanism, runs, the per-run guarantee and rule, whether the
//! generator was secure, the privacy unit) and `calls` (a release's per-call costs). Never
//! the data, nor a hash of it. A file that is not a ledger, is corrupt (`PRAGMA
//! quick_check` fails), was written by a newer format, or stays locked past the timeout
//! gives [`Error::Ledger`] and is not modified. Older formats are upgraded in place when
//! opened, in one transaction: format 1 gets privacy units (`edge` for the releases whose
//! command line ran `cut`), format 2 gets filters (`basic` for every limit), loses its
//! content-hash names (`sha256:…` data sets become `unnamed-1`, `unnamed-2`, …), and each of
//! its data sets with releases but no limit gets the limit of what they spent, which admits
//! no further release (a limit chosen after seeing their outputs would not be a filter's).

mod dataset;
pub mod filter;
mod spends;
mod store;

pub use dataset::{Name, check_name};
pub use filter::{Filter, Limit, Remaining, Spent};
pub use spends::Spends;
pub use store::{APPLICATION_ID, Closed, DEFAULT_TIMEOUT, FORMAT, Hold, Ledger, Price, Receipt};

use crate::error::{Error, Result};
use crate::privacy::{Delta, Epsilon, Guarantee, PrivacyCost};
use serde::Serialize;

pub use crate::privacy::Unit;

/// What one release spends: the guarantee of one run, how many runs are released together,
/// and (where known) the mechanism calls the guarantee composes; with the command and
/// mechanism for the audit log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spend {
    /// The end-to-end guarantee of one run.
    pub guarantee: Guarantee,
    /// Independent runs released together (`--trials`); at least 1.
    pub runs: u64,
    /// The per-call costs one run's guarantee composes, with their number of calls; empty
    /// when the guarantee is not (only) a composition of such calls.
    pub calls: Vec<(PrivacyCost, u64)>,
    /// The command line or call that made the release (for the audit log).
    pub command: String,
    /// The mechanism (for the audit log).
    pub mechanism: String,
    /// Whether the generator was the operating system's (a seeded run is recorded, and
    /// flagged, since it released something computed from the data).
    pub secure: bool,
    /// What the guarantee protects.
    pub unit: Unit,
}

impl Spend {
    /// One run with guarantee `guarantee`, protecting `unit` (no calls known, secure, no
    /// command named). Every spend names its unit: the one the release's report states
    /// ([`Spends::spend`]), never a default, since a data set composes releases of one unit
    /// only.
    ///
    /// ```
    /// use disguise::ledger::{Spend, Unit};
    /// use disguise::privacy::{Guarantee, compose::Rule};
    /// let cut = Spend::protecting(Unit::Edge, Guarantee { epsilon: 1.0, delta: 0.0, rule: Rule::Basic });
    /// assert_eq!((cut.unit, cut.runs), (Unit::Edge, 1));
    /// ```
    pub fn protecting(unit: Unit, guarantee: Guarantee) -> Self {
        Self {
            guarantee,
            runs: 1,
            calls: Vec::new(),
            command: String::new(),
            mechanism: String::new(),
            secure: true,
            unit,
        }
    }

    /// [`Spend::protecting`] one person's record ([`Unit::Record`]). Transitional: the
    /// callers outside the ledger that still build a spend without naming its unit
    /// (`task/synth.rs`, the Python `select_one`) move to [`Spend::protecting`], and this
    /// constructor goes.
    #[doc(hidden)]
    pub fn new(guarantee: Guarantee) -> Self {
        Self::protecting(Unit::Record, guarantee)
    }

    /// The same spend for `runs` runs released together.
    pub fn runs(mut self, runs: u64) -> Self {
        self.runs = runs;
        self
    }

    /// The same spend, made by `command`.
    pub fn command(mut self, command: impl Into<String>) -> Self {
        self.command = command.into();
        self
    }

    /// The same spend, with its mechanism named.
    pub fn mechanism(mut self, mechanism: impl Into<String>) -> Self {
        self.mechanism = mechanism.into();
        self
    }

    /// The same spend, made with a generator that is (not) secure.
    pub fn secure(mut self, secure: bool) -> Self {
        self.secure = secure;
        self
    }

    /// The same spend, protecting `unit`.
    pub fn unit(mut self, unit: Unit) -> Self {
        self.unit = unit;
        self
    }

    /// The same release, charged for neighbours that differ in up to `size` of its records
    /// (group privacy: [`Guarantee::group`] and [`PrivacyCost::group`]): e.g. one edge of a
    /// friendship graph, which sits in two people's friend lists.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `delta` when a call's δ would reach 1.
    pub fn group(mut self, size: u32) -> Result<Self> {
        self.guarantee = self.guarantee.group(size);
        Delta::new(self.guarantee.delta)?;
        self.calls = self
            .calls
            .into_iter()
            .map(|(cost, count)| {
                cost.group(size).map(|c| (c, count)).ok_or_else(|| {
                    Error::param(
                        "delta",
                        "group privacy takes a call's δ to 1: nothing is protected",
                    )
                })
            })
            .collect::<Result<_>>()?;
        Ok(self)
    }

    /// Checks the numbers a ledger stores.
    fn validate(&self) -> Result<()> {
        Epsilon::new(self.guarantee.epsilon)?;
        Delta::new(self.guarantee.delta)?;
        if self.runs == 0 {
            return Err(Error::param("runs", "a release has at least 1 run"));
        }
        for (cost, count) in &self.calls {
            if *count == 0 || matches!(cost, PrivacyCost::NonPrivate) {
                return Err(Error::param(
                    "calls",
                    "every recorded call group is private and has at least 1 call",
                ));
            }
        }
        Ok(())
    }
}

/// A release as the ledger recorded it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Release {
    /// Its number in the ledger (increasing with time).
    pub id: i64,
    /// The data set.
    pub dataset: String,
    /// When it was recorded (UTC, ISO 8601).
    pub time: String,
    /// The command line or call.
    pub command: String,
    /// The mechanism.
    pub mechanism: String,
    /// Runs released together.
    pub runs: u64,
    /// ε of one run.
    pub epsilon: f64,
    /// δ of one run.
    pub delta: f64,
    /// The rule that proved one run's guarantee.
    pub rule: String,
    /// The per-call costs of one run (kind, ε, δ, number of calls).
    pub calls: Vec<Calls>,
    /// Whether the generator was secure.
    pub secure: bool,
    /// What its guarantee protects.
    pub unit: Unit,
}

/// A group of equal mechanism calls of a recorded release.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Calls {
    /// The cost's kind: `bounded_range`, `pure`, `approximate` or `zcdp`.
    pub kind: &'static str,
    /// ε of each call (ρ for a `zcdp` call).
    pub epsilon: f64,
    /// δ of each call.
    pub delta: f64,
    /// Number of calls in one run.
    pub count: u64,
}

impl Calls {
    /// The group of `count` calls of `cost` (`None` for a non-private cost).
    pub fn of(cost: PrivacyCost, count: u64) -> Option<Self> {
        let (kind, epsilon, delta) = match cost {
            PrivacyCost::BoundedRange { epsilon } => ("bounded_range", epsilon.get(), 0.0),
            PrivacyCost::Pure { epsilon } => ("pure", epsilon.get(), 0.0),
            PrivacyCost::Approximate { epsilon, delta } => {
                ("approximate", epsilon.get(), delta.get())
            }
            // ρ is stored in the ε field of its record.
            PrivacyCost::Zcdp { rho } => ("zcdp", rho, 0.0),
            PrivacyCost::NonPrivate => return None,
        };
        Some(Self {
            kind,
            epsilon,
            delta,
            count,
        })
    }

    /// The per-call cost.
    ///
    /// # Errors
    /// An unknown kind or invalid numbers (a damaged record).
    pub fn cost(&self) -> Result<PrivacyCost> {
        if self.kind == "zcdp" {
            return PrivacyCost::zcdp(self.epsilon);
        }
        let epsilon = Epsilon::new(self.epsilon)?;
        Ok(match self.kind {
            "bounded_range" => PrivacyCost::BoundedRange { epsilon },
            "pure" => PrivacyCost::Pure { epsilon },
            "approximate" => PrivacyCost::Approximate {
                epsilon,
                delta: Delta::new(self.delta)?,
            },
            other => {
                return Err(Error::parse(format!("unknown kind of call {other:?}")));
            }
        })
    }

    /// The kind names a record may hold, as `'static` strings.
    fn kind_of(text: &str) -> Option<&'static str> {
        ["bounded_range", "pure", "approximate", "zcdp"]
            .into_iter()
            .find(|k| *k == text)
    }
}

/// Whether a run that reported `actual` is charged, by every filter a ledger applies, no
/// more than the reservation made for it before its data was read, `reserved` — the check a
/// front end makes after the run and before it releases anything. A task plans each run by
/// the same accounting as the run, so a run beyond its reservation is a bug, and nothing is
/// released then. Compared are what the filters charge (see [`filter`]), not only the
/// guarantee:
///
/// * the unit its guarantee protects (the same);
/// * runs × its own (ε, δ), as the decimals they print as (the basic filter);
/// * runs × the basic composition of its pure calls, for a release reported with δ > 0
///   (the basic filter under a pure limit);
/// * runs × the ρ of its calls (or of its own pure guarantee), and the (ε, δ) of an
///   approximate release (the zCDP filter and its part for approximate releases);
/// * its recorded calls: each matched to a reserved call of the same kind whose cost is at
///   least its own (ε and δ; ρ), no reserved call used twice (counts × runs), so that the
///   run has no more calls, of no other kinds and no larger cost than were reserved.
///
/// A run that reports no calls (its report does not carry them) is held to its own
/// guarantee, with the calls taken as reserved.
///
/// ```
/// use disguise::ledger::{Spend, Unit, within_reservation};
/// use disguise::privacy::{Epsilon, Guarantee, PrivacyCost, compose::Rule};
/// let spend = |epsilon: f64, calls: u64, each: f64| Spend {
///     calls: vec![(PrivacyCost::BoundedRange { epsilon: Epsilon::new(each).unwrap() }, calls)],
///     ..Spend::protecting(Unit::Record, Guarantee { epsilon, delta: 1e-6, rule: Rule::Zcdp })
/// };
/// let reserved = spend(1.0, 10, 0.1);
/// assert!(within_reservation(&reserved, &spend(1.0, 10, 0.1)));
/// assert!(within_reservation(&reserved, &spend(0.9, 9, 0.1)));
/// // The same guarantee, but calls that cost more ρ than were reserved: refused.
/// assert!(!within_reservation(&reserved, &spend(1.0, 10, 0.2)));
/// assert!(!within_reservation(&reserved, &spend(1.0, 11, 0.1)));
/// assert!(!within_reservation(&reserved, &spend(1.0, 10, 0.1).unit(Unit::Edge)));
/// ```
pub fn within_reservation(reserved: &Spend, actual: &Spend) -> bool {
    if actual.unit != reserved.unit {
        return false;
    }
    let unreported;
    let actual = if actual.calls.is_empty() && !reserved.calls.is_empty() {
        unreported = Spend {
            calls: reserved.calls.clone(),
            ..actual.clone()
        };
        &unreported
    } else {
        actual
    };
    filter::charged_within(reserved, actual)
        && filter::calls_covered(&reserved.calls, reserved.runs, &actual.calls, actual.runs)
}

/// What a front end reserved in a ledger before a run read its data ([`Ledger::reserve`],
/// [`Ledger::draw`]): the spend recorded, `None` when the plan spends nothing. Before
/// anything is released, [`Reserved::check`] holds the run to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reserved {
    /// The spend reserved, for all the runs (its `runs`).
    pub spend: Option<Spend>,
}

impl Reserved {
    /// Checks that a run is charged no more than was reserved for it, by every filter
    /// ([`within_reservation`]: its unit, its guarantee times the runs, its ρ and its calls).
    /// `actual` is one run's report (anything that [`Spends`]), each run held to the share of
    /// one of the runs reserved; a report that spends nothing passes.
    ///
    /// ```
    /// use disguise::ledger::{Reserved, Spends};
    /// use disguise::prelude::*;
    /// let plan = Select::new(3).epsilon(1.0).plan(10)?;
    /// let reserved = Reserved { spend: plan.spend()?.map(|s| s.runs(2)) };
    /// reserved.check(&plan)?;
    /// let more = Select::new(3).epsilon(1.5).plan(10)?;
    /// assert!(reserved.check(&more).is_err());
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Internal`] naming both spends: a task plans each run by the same accounting
    /// as the run, so a run beyond its reservation is a bug, and nothing may be released.
    pub fn check<T: Spends + ?Sized>(&self, actual: &T) -> Result<()> {
        let Some(actual) = actual.spend()? else {
            return Ok(());
        };
        let reserved = self.spend.as_ref();
        let fits = reserved.is_some_and(|r| within_reservation(r, &actual.clone().runs(r.runs)));
        if fits {
            return Ok(());
        }
        let words = |s: &Spend| {
            let g = s.guarantee;
            let (e, d, unit, calls) = (g.epsilon, g.delta, s.unit, &s.calls);
            format!("ε = {e}, δ = {d}, {unit}-level, calls {calls:?}")
        };
        Err(Error::Internal(format!(
            "the run spends more than was reserved for it ({}; reserved: {}); nothing was \
             released",
            words(&actual),
            reserved.map_or_else(|| "nothing".to_string(), words)
        )))
    }
}

/// A data set's state: its limit, what its releases have spent and what is left.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Status {
    /// The data set.
    pub dataset: String,
    /// Its limit, if one was set.
    pub limit: Option<Limit>,
    /// Number of recorded releases.
    pub releases: u64,
    /// What its releases protect; `None` before any release.
    pub unit: Option<Unit>,
    /// What its releases have spent as its limit's filter counts it (basic composition
    /// without a limit); `None` before any release.
    pub spent: Option<Spent>,
    /// What is left of the limit; `None` without a limit.
    pub remaining: Option<Remaining>,
}

/// What a ledger holds, or what concerns one data set ([`Ledger::overview`]), as one
/// document: the releases, what is left, each data set's status and the default limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overview {
    /// The ledger file.
    pub ledger: std::path::PathBuf,
    /// The releases, oldest first.
    pub releases: Vec<Release>,
    /// What is left: of the one data set asked for, or of each.
    pub remaining: Remainders,
    /// Each data set's status.
    pub datasets: Vec<Status>,
    /// The limit each new data set gets at its first release, if any.
    pub default_limit: Option<Limit>,
}

/// What is left of the data sets of an [`Overview`] (`None`: no limit), serialised as the
/// one value or as a map by name.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Remainders {
    /// Of the one data set asked for.
    One(Option<Remaining>),
    /// Of each data set, by name.
    Each(std::collections::BTreeMap<String, Option<Remaining>>),
}

#[cfg(test)]
mod tests;
