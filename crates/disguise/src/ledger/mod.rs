//! A privacy budget ledger that outlives the process: every release on a data set recorded
//! in an SQLite file, and a release refused before anything is printed or written when the
//! data set's recorded releases would compose to more than its limit.
//!
//! Each run of the library proves an (ε, δ) guarantee for itself. An analyst runs many, on
//! the same data, and the guarantee that matters is the total across them: ten runs of a
//! (1, 10⁻⁶) selection spend ten times that. A [`Ledger`] remembers:
//!
//! ```
//! use disguise::ledger::{Ledger, Limit, Spend};
//! use disguise::privacy::{Guarantee, compose::Rule};
//! # let dir = tempfile::tempdir().unwrap();
//! # let path = dir.path().join("budget.ledger");
//! let ledger = Ledger::create(&path)?;
//! ledger.set_limit("adult", Limit::new(2.0, 1e-6)?)?;
//! let run = Spend::new(Guarantee { epsilon: 1.0, delta: 0.0, rule: Rule::Single });
//! ledger.reserve("adult", &run)?; // 1 of 2 spent
//! ledger.reserve("adult", &run)?; // 2 of 2
//! let refused = ledger.reserve("adult", &run).unwrap_err();
//! assert!(matches!(refused, disguise::Error::BudgetExceeded { .. }));
//! assert_eq!(ledger.releases(Some("adult"))?.len(), 2);
//! # Ok::<(), disguise::Error>(())
//! ```
//!
//! # Where it sits
//!
//! A front end reads the data, runs the task in memory, and before it prints or writes
//! anything hands the run's [`Spend`] to [`Ledger::reserve`] (or wraps the run in
//! [`Ledger::charge`]). The reservation is one SQLite transaction started with
//! `BEGIN IMMEDIATE` (the write lock is taken before the spent budget is read, so two
//! processes cannot both see room for one more release): it reads the data set's limit and
//! recorded releases, composes them with the new one, refuses ([`Error::BudgetExceeded`])
//! if the total would exceed the limit, and otherwise inserts the record and commits. Only
//! then is the output released. A crash before the commit leaves no record and no output; a
//! crash after it leaves the spend recorded, perhaps without its output — the conservative
//! side: a budget may be charged for a release nobody saw, never the other way round.
//!
//! # The composition across releases
//!
//! The releases of a data set are an adaptive sequence of mechanisms on the same records
//! (the analyst may choose each run after seeing the previous ones), so their total is the
//! adaptive composition of their guarantees; every rule of [`crate::privacy::compose`]
//! holds for adaptive sequences. The ledger composes two views of the same sequence at the
//! limit's δ and keeps the smaller ε, both being valid bounds:
//!
//! * **releases**: each release (times its number of runs, e.g. `--trials`) as one call
//!   with its own end-to-end guarantee: pure ε-DP ([`PrivacyCost::Pure`]) when its δ is 0,
//!   else (ε, δ)-DP ([`PrivacyCost::Approximate`]). Basic composition always applies;
//!   advanced composition applies when the limit has δ > 0; when every release is pure,
//!   zCDP (ρ = Σεᵢ²/2) and, for equal εᵢ, the optimal rule of Kairouz–Oh–Viswanath too;
//! * **calls**: each release replaced by the mechanism calls its guarantee composes
//!   ([`Spend::calls`], e.g. k exponential-mechanism calls at ε₀, each ε₀-bounded-range,
//!   hence ε₀²/8-zCDP) where the release recorded them, the others as in the first view.
//!   This lets many greedy runs compose by zCDP over all their calls.
//!
//! A release's own guarantee may come from a rule that only holds for one run (the
//! decomposable rule of the private greedy); the first view uses it, the second its calls.
//! Composition is only meaningful for one neighbour relation: every release records the
//! privacy [`Unit`] its guarantee protects — one person's record for every task but
//! `MaxCut`, which protects one edge of a graph — and a data set holds releases of one unit
//! only; a release of another unit is refused ([`Error::InvalidParameter`] naming
//! `dataset`), since an ε for edges and an ε for people do not add up to a guarantee for
//! either. With a limit of δ = 0 only pure releases compose (basic composition, exactly
//! Σεᵢ): a release with δ > 0 is refused.
//!
//! A data set without a limit is recorded but never refused. What is left
//! ([`Status::remaining`]) is the limit minus the composed spend, in ε and δ.
//!
//! # The file
//!
//! An SQLite database (compiled in, no system library) with `application_id`
//! [`APPLICATION_ID`] and `user_version` [`FORMAT`]: tables `limits` (every limit ever set,
//! the latest per data set in force), `releases` (time, data set, command, mechanism, runs,
//! the per-run guarantee and rule, whether the generator was secure, the privacy unit) and
//! `calls` (a release's per-call costs). Never the data. A file that is not a ledger, is
//! corrupt (`PRAGMA quick_check` fails), was written by a newer format, or stays locked past
//! the timeout gives [`Error::Ledger`] and is not modified. A file of format 1 (without
//! units) is upgraded in place when opened, in one transaction: its releases get the unit
//! `record`, except those whose command line ran `cut`, which get `edge`.

mod dataset;
mod spends;
mod store;

pub use dataset::{check_name, name_of_files};
pub use spends::Spends;
pub use store::{APPLICATION_ID, DEFAULT_TIMEOUT, FORMAT, Ledger, Receipt};

use crate::error::{Error, Result};
use crate::maximize::Solution;
use crate::names::{Named, named_traits};
use crate::privacy::compose::{Accountant, ComposeOptions, Rule};
use crate::privacy::{Delta, Epsilon, Guarantee, PrivacyCost};
use serde::Serialize;

/// A data set's total budget: the (ε, δ) all its releases together may spend.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Limit {
    /// Total ε.
    pub epsilon: f64,
    /// Total δ ∈ [0, 1); 0 admits pure releases only.
    pub delta: f64,
}

impl Limit {
    /// A validated limit.
    ///
    /// # Errors
    /// [`Error::InvalidEpsilon`] or [`Error::InvalidDelta`].
    pub fn new(epsilon: f64, delta: f64) -> Result<Self> {
        Epsilon::new(epsilon)?;
        Delta::new(delta)?;
        Ok(Self { epsilon, delta })
    }
}

/// What a release's guarantee protects: the difference between neighbouring data sets.
/// Releases compose into one budget only when they protect the same unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// One person's record — a row, a point, a transaction, a person's list — replaced by
    /// another: every task but `MaxCut`.
    #[default]
    Record,
    /// One edge of a graph replaced by another (`MaxCut`'s edge-level privacy).
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
            Unit::Edge => "one edge of a graph",
        }
    }
}

named_traits!(Unit);

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
    /// One run with guarantee `guarantee` (no calls known, secure, no command named).
    pub fn new(guarantee: Guarantee) -> Self {
        Self {
            guarantee,
            runs: 1,
            calls: Vec::new(),
            command: String::new(),
            mechanism: String::new(),
            secure: true,
            unit: Unit::Record,
        }
    }

    /// What a greedy run spends: its guarantee and the calls it composes; `None` when it
    /// spent nothing (no planned call).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `mechanism` for a non-private run (the argmax),
    /// which no budget can account for.
    pub fn of(solution: &Solution) -> Result<Option<Self>> {
        if solution.planned_rounds == 0 {
            return Ok(None);
        }
        let Some(guarantee) = solution.guarantee else {
            return Err(non_private());
        };
        Ok(Some(Self {
            calls: solution.calls.clone(),
            mechanism: solution.selector.to_string(),
            secure: solution.secure_rng,
            ..Self::new(guarantee)
        }))
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

/// The error of a non-private run under a ledger.
pub(crate) fn non_private() -> Error {
    Error::param(
        "mechanism",
        "max is not private: a budget ledger cannot account for it (choose a private \
         mechanism, or run without the ledger)",
    )
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
    /// The cost's kind: `bounded_range`, `pure` or `approximate`.
    pub kind: &'static str,
    /// ε of each call.
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
        ["bounded_range", "pure", "approximate"]
            .into_iter()
            .find(|k| *k == text)
    }
}

/// A data set's state: its limit, what its releases compose to and what is left.
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
    /// The composed spend: at the limit's δ, by the tightest rule ([`total`]); without a
    /// limit, basic composition. `None` before any release.
    pub spent: Option<Guarantee>,
    /// The limit minus the spend, in ε and δ (0 when exhausted); `None` without a limit.
    pub remaining: Option<Remaining>,
}

/// What is left of a limit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Remaining {
    /// ε left (the limit's ε minus the composed ε; 0 at least).
    pub epsilon: f64,
    /// δ left.
    pub delta: f64,
}

/// The composed guarantee of `releases` at total δ `delta`: the smaller ε of the two views
/// of the [module documentation](self) (each release as one call with its own guarantee,
/// and each release as its recorded calls), ties to the first; `None` when no rule gives a
/// δ ≤ `delta` (e.g. a release with δ > 0 under a pure limit).
///
/// ```
/// use disguise::ledger::{Spend, total};
/// use disguise::privacy::{Delta, Epsilon, Guarantee, PrivacyCost, compose::Rule};
///
/// // Ten runs of one exponential-mechanism call at ε = 0.1.
/// let one = Guarantee { epsilon: 0.1, delta: 0.0, rule: Rule::Single };
/// let em = PrivacyCost::BoundedRange { epsilon: Epsilon::new(0.1)? };
/// let mut run = Spend::new(one).runs(10);
/// run.calls = vec![(em, 1)];
/// let spent = total(&[run], Delta::new(1e-6)?)?.unwrap();
/// assert_eq!(spent.rule, Rule::Zcdp); // tighter than 10 × 0.1
/// assert!(spent.epsilon < 0.71);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// Overflowing counts, or a damaged record (invalid numbers).
pub fn total(releases: &[Spend], delta: Delta) -> Result<Option<Guarantee>> {
    let mut costs = Costs::default();
    for release in releases {
        costs.add(release)?;
    }
    costs.compose(delta)
}

/// The recorded costs of a data set, grouped as the two views of [`total`] see them (the
/// ledger file reads them with `GROUP BY`, so a reservation does not load every release).
#[derive(Debug, Clone, Default)]
pub(crate) struct Costs {
    /// Every run as one call with its own guarantee, with multiplicities.
    pub whole: Vec<(PrivacyCost, u64)>,
    /// Every run as its recorded calls (or as one call when it recorded none).
    pub parts: Vec<(PrivacyCost, u64)>,
    /// Number of releases.
    pub releases: u64,
}

impl Costs {
    /// Adds one release.
    pub fn add(&mut self, release: &Spend) -> Result<()> {
        release.validate()?;
        let own = own_cost(&release.guarantee)?;
        self.whole.push((own, release.runs));
        if release.calls.is_empty() {
            self.parts.push((own, release.runs));
        }
        for &(cost, count) in &release.calls {
            let calls = count.checked_mul(release.runs).ok_or_else(|| {
                Error::Overflow(format!(
                    "{count} calls times {} runs do not fit in u64",
                    release.runs
                ))
            })?;
            self.parts.push((cost, calls));
        }
        self.releases += 1;
        Ok(())
    }

    /// The smaller-ε composition of the two views at total δ `delta` (`None` without
    /// releases, or when no rule gives δ ≤ `delta`).
    pub fn compose(&self, delta: Delta) -> Result<Option<Guarantee>> {
        if self.releases == 0 {
            return Ok(None);
        }
        let best = |groups: &[(PrivacyCost, u64)]| -> Result<Option<Guarantee>> {
            let mut accountant = Accountant::new();
            for &(cost, count) in groups {
                accountant.record_many(cost, count);
            }
            Ok(accountant.compose(delta, ComposeOptions::default())?.best)
        };
        let (a, b) = (best(&self.whole)?, best(&self.parts)?);
        Ok(match (a, b) {
            (Some(a), Some(b)) if b.epsilon < a.epsilon => Some(b),
            (Some(a), _) => Some(a),
            (None, b) => b,
        })
    }

    /// The basic composition (Σ runs·ε, Σ runs·δ) of the releases, rounded up (Dwork–Roth
    /// 2014, Theorem 3.16): what a data set without a limit reports as spent.
    pub fn basic(&self) -> Option<Guarantee> {
        use crate::numeric::round::{add_up, count_up, mul_up};
        if self.releases == 0 {
            return None;
        }
        let (mut epsilon, mut delta) = (0.0, 0.0);
        for &(cost, runs) in &self.whole {
            let (e, d) = cost.epsilon_delta().unwrap_or((f64::INFINITY, 1.0));
            let runs = count_up(runs);
            epsilon = add_up(epsilon, mul_up(runs, e));
            delta = add_up(delta, mul_up(runs, d));
        }
        Some(Guarantee {
            epsilon,
            delta,
            rule: Rule::Basic,
        })
    }
}

/// A release's own guarantee as one call: pure when δ = 0.
pub(crate) fn own_cost(g: &Guarantee) -> Result<PrivacyCost> {
    let epsilon = Epsilon::new(g.epsilon)?;
    Ok(if g.delta == 0.0 {
        PrivacyCost::Pure { epsilon }
    } else {
        PrivacyCost::Approximate {
            epsilon,
            delta: Delta::new(g.delta)?,
        }
    })
}

#[cfg(test)]
mod tests;
