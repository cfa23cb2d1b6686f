//! The ledger file: an SQLite database, opened, checked and written in transactions.

use super::dataset::{Closeness, Name, Purpose, closeness, did_you_mean, likeness};
use super::filter::{Filter, Totals, cost_words, is_approximate};
use super::{Calls, Limit, Overview, Release, Remainders, Spend, Spends, Spent, Status, Unit};
use crate::error::{Error, Result, Source};
use crate::names::Named;
use crate::numeric::decimal::{rounded, typed};
use crate::numeric::display;
use crate::privacy::{Delta, Epsilon};
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};
use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

mod hold;

pub use hold::{Closed, Hold, Price};

/// The `application_id` of a ledger file (`PRAGMA application_id`): "dGLd".
pub const APPLICATION_ID: i32 = 0x6447_4c64;

/// The format of the ledger files this version writes (`PRAGMA user_version`); it reads
/// this format and every older one (upgrading format 1 in place: see the
/// [module documentation](super)), and refuses a newer one. Format 2 added the releases'
/// privacy unit; format 3 the limits' filters and the default limit; format 4 the
/// reservations of whole searches ([`Ledger::hold`]).
pub const FORMAT: i32 = 4;

/// How long a ledger waits for another process's transaction before giving up.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

const SCHEMA: &str = "
CREATE TABLE limits (
    id INTEGER PRIMARY KEY,
    dataset TEXT NOT NULL,
    time TEXT NOT NULL,
    epsilon REAL NOT NULL CHECK (epsilon > 0),
    delta REAL NOT NULL CHECK (delta >= 0 AND delta < 1),
    filter TEXT NOT NULL DEFAULT 'basic' CHECK (filter IN ('basic', 'zcdp')),
    approximate_epsilon REAL NOT NULL DEFAULT 0 CHECK (approximate_epsilon >= 0),
    approximate_delta REAL NOT NULL DEFAULT 0 CHECK (approximate_delta >= 0),
    rho REAL CHECK (rho > 0)
) STRICT;
CREATE INDEX limits_by_dataset ON limits (dataset, id);
CREATE TABLE default_limit (
    id INTEGER PRIMARY KEY,
    time TEXT NOT NULL,
    epsilon REAL NOT NULL CHECK (epsilon > 0),
    delta REAL NOT NULL CHECK (delta >= 0 AND delta < 1),
    filter TEXT NOT NULL CHECK (filter IN ('basic', 'zcdp')),
    approximate_epsilon REAL NOT NULL CHECK (approximate_epsilon >= 0),
    approximate_delta REAL NOT NULL CHECK (approximate_delta >= 0),
    rho REAL CHECK (rho > 0)
) STRICT;
CREATE TABLE releases (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    dataset TEXT NOT NULL,
    time TEXT NOT NULL,
    command TEXT NOT NULL,
    mechanism TEXT NOT NULL,
    runs INTEGER NOT NULL CHECK (runs >= 1),
    epsilon REAL NOT NULL CHECK (epsilon > 0),
    delta REAL NOT NULL CHECK (delta >= 0 AND delta < 1),
    rule TEXT NOT NULL,
    secure INTEGER NOT NULL,
    unit TEXT NOT NULL DEFAULT 'record' CHECK (unit IN ('record', 'edge'))
) STRICT;
CREATE INDEX releases_by_dataset ON releases (dataset, id);
CREATE TABLE calls (
    release INTEGER NOT NULL REFERENCES releases (id),
    kind TEXT NOT NULL,
    epsilon REAL NOT NULL CHECK (epsilon > 0),
    delta REAL NOT NULL CHECK (delta >= 0 AND delta < 1),
    count INTEGER NOT NULL CHECK (count >= 1)
) STRICT;
CREATE INDEX calls_by_release ON calls (release);
";

/// The tables of reservations (format 4): a reservation, the releases that hold it with the
/// runs each reserved (a release none drew is removed when it closes; its number stays
/// here), and each run drawn from them, by which call.
const HOLDS: &str = "
CREATE TABLE holds (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    dataset TEXT NOT NULL,
    time TEXT NOT NULL,
    command TEXT NOT NULL,
    closed TEXT
) STRICT;
CREATE TABLE held (
    release INTEGER PRIMARY KEY,
    hold INTEGER NOT NULL REFERENCES holds (id),
    reserved INTEGER NOT NULL CHECK (reserved >= 1)
) STRICT;
CREATE INDEX held_by_hold ON held (hold);
CREATE TABLE draws (
    release INTEGER NOT NULL,
    time TEXT NOT NULL,
    command TEXT NOT NULL,
    runs INTEGER NOT NULL CHECK (runs >= 1),
    secure INTEGER NOT NULL
) STRICT;
CREATE INDEX draws_by_release ON draws (release);
";

/// The current time as SQLite writes it: UTC, ISO 8601 with milliseconds.
const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// A privacy budget ledger file (see the [module documentation](super)). Shared between
/// threads (one connection behind a lock) and between processes (SQLite's file locks).
#[derive(Debug)]
pub struct Ledger {
    path: PathBuf,
    connection: Mutex<Connection>,
    timeout: Duration,
}

/// The limit that judges a reservation and the data set's totals before and after it.
struct Admitted {
    limit: Limit,
    before: Totals,
    after: Totals,
}

/// What spends would do on a data set, read only ([`Ledger::price`]).
struct View {
    limit: Option<Limit>,
    /// Whether `limit` is the ledger's default, not yet the data set's own.
    default: bool,
    /// The existing name a new one confirmed new is near to.
    near: Option<String>,
    before: Totals,
    after: Totals,
}

/// What a successful reservation recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Receipt {
    /// The release's number in the ledger.
    pub id: i64,
    /// What the data set's releases have spent with this one, as its filter counts it.
    pub spent: Spent,
}

impl Ledger {
    /// Creates a new, empty ledger at `path` (refused if anything exists there). The file
    /// is built beside its destination and moved into place complete.
    ///
    /// # Errors
    /// [`Error::Ledger`] if `path` exists or cannot be written.
    pub fn create(path: &Path) -> Result<Self> {
        let shown = path.display();
        if path.exists() {
            return Err(plain(format!(
                "{shown} already exists (a ledger is created once; open it instead)"
            )));
        }
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let temporary = tempfile::Builder::new()
            .prefix(".disguise-ledger-")
            .tempfile_in(folder)
            .map_err(|e| {
                ledger_error(format!("{shown}: cannot create a file beside it"), Some(e))
            })?;
        {
            let connection = Connection::open(temporary.path())
                .map_err(|e| ledger_error(format!("{shown}: cannot create"), Some(e)))?;
            connection
                .execute_batch(&format!(
                    "BEGIN; PRAGMA application_id = {APPLICATION_ID}; \
                     PRAGMA user_version = {FORMAT}; {SCHEMA} {HOLDS} COMMIT;"
                ))
                .map_err(|e| ledger_error(format!("{shown}: cannot create"), Some(e)))?;
        }
        temporary.persist_noclobber(path).map_err(|e| {
            ledger_error(
                format!(
                    "{shown}: cannot create (it appeared meanwhile, or the folder is not writable)"
                ),
                Some(e.error),
            )
        })?;
        Self::open(path)
    }

    /// Opens an existing ledger, checking that it is one, of a format this version reads,
    /// and intact (`PRAGMA quick_check`). Waits up to [`DEFAULT_TIMEOUT`] for another
    /// process's transaction ([`Ledger::timeout`] changes it).
    ///
    /// # Errors
    /// [`Error::Ledger`]: missing, not a ledger, corrupt, of a newer format, or locked past
    /// the timeout. The file is not modified.
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_with(path, DEFAULT_TIMEOUT)
    }

    /// [`Ledger::open`] waiting up to `timeout` for other processes.
    ///
    /// # Errors
    /// As [`Ledger::open`].
    pub fn open_with(path: &Path, timeout: Duration) -> Result<Self> {
        let shown = path.display();
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => {}
            Ok(_) => return Err(plain(format!("{shown} is not a file"))),
            Err(e) => {
                return Err(ledger_error(
                    format!(
                        "{shown}: cannot open the ledger (create one with `disguise ledger init`)"
                    ),
                    Some(e),
                ));
            }
        }
        // Read-write without create: a ledger that does not exist is never made by accident.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(path, flags)
            .map_err(|e| explain(path, "cannot open", e, timeout))?;
        connection
            .busy_timeout(timeout)
            .map_err(|e| explain(path, "cannot open", e, timeout))?;
        // What is deleted or overwritten (a name changed by an upgrade) is zeroed, not left
        // in free pages.
        connection
            .pragma_update(None, "secure_delete", true)
            .map_err(|e| explain(path, "cannot open", e, timeout))?;
        let ledger = Self {
            path: path.to_path_buf(),
            connection: Mutex::new(connection),
            timeout,
        };
        ledger.check(timeout)?;
        ledger.upgrade()?;
        Ok(ledger)
    }

    /// Sets how long to wait for another process's transaction.
    ///
    /// # Errors
    /// [`Error::Ledger`] if SQLite refuses it.
    pub fn timeout(mut self, timeout: Duration) -> Result<Self> {
        self.lock()
            .busy_timeout(timeout)
            .map_err(|e| explain(&self.path, "cannot set the timeout", e, timeout))?;
        self.timeout = timeout;
        Ok(self)
    }

    /// The ledger's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while the lock was held cannot leave the connection half-written: SQLite
        // rolls an unfinished transaction back.
        self.connection
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Checks application id, format and integrity; reads only.
    fn check(&self, timeout: Duration) -> Result<()> {
        let connection = self.lock();
        let fail = |e| explain(&self.path, "cannot read", e, timeout);
        let shown = self.path.display();
        let id: i32 = connection
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .map_err(fail)?;
        let version: i32 = connection
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(fail)?;
        if id != APPLICATION_ID {
            return Err(plain(format!(
                "{shown} is not a disguise ledger (an SQLite database of another program); \
                     create one with `disguise ledger init`"
            )));
        }
        if version > FORMAT {
            return Err(plain(format!(
                "{shown} was written by a newer disguise (ledger format {version}; this \
                     version reads up to {FORMAT}): upgrade disguise to use it"
            )));
        }
        if version < 1 {
            return Err(plain(format!("{shown}: unknown ledger format {version}")));
        }
        let verdict: String = connection
            .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
            .map_err(fail)?;
        if verdict != "ok" {
            return Err(plain(format!(
                "{shown} is corrupt (SQLite's quick_check: {verdict}); it was not \
                     modified: restore it from a backup"
            )));
        }
        Ok(())
    }

    /// Upgrades an older file to the current format, in one transaction (a no-op when
    /// another process did it first). Format 1 → 2: releases get their privacy unit,
    /// `record`, or `edge` for those whose command line ran `cut` (the only edge-level task
    /// then). Format 2 → 3: limits get the basic filter, the default limit its table, data
    /// sets named by a hash of their content (`sha256:…`) are renamed `unnamed-1`,
    /// `unnamed-2`, … in the order of their first record, so that the file keeps no hash of
    /// any data, and a data set with releases but no limit gets the limit of what it spent
    /// ([`spent_limit`]), which admits no further release. Format 3 → 4: the (empty) tables
    /// of reservations.
    fn upgrade(&self) -> Result<()> {
        let connection = self.lock();
        let fail = |e| self.fail("cannot upgrade the ledger to the current format", e);
        let version: i32 = connection
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(fail)?;
        if version >= FORMAT {
            return Ok(());
        }
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Immediate)
                .map_err(fail)?;
        let version: i32 = transaction
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(fail)?;
        if version == 1 {
            // The command line is the program's path (shell-quoted when it has a space),
            // then the command: `… cut …`.
            transaction
                .execute_batch(
                    "ALTER TABLE releases ADD COLUMN unit TEXT NOT NULL DEFAULT 'record' \
                     CHECK (unit IN ('record', 'edge')); \
                     UPDATE releases SET unit = 'edge' WHERE (CASE \
                     WHEN substr(command, 1, 1) = '''' \
                     THEN substr(command, instr(substr(command, 2), '''') + 3) \
                     ELSE substr(command, instr(command, ' ') + 1) END) || ' ' LIKE 'cut %';",
                )
                .map_err(fail)?;
        }
        if version <= 2 {
            transaction
                .execute_batch(
                    "ALTER TABLE limits ADD COLUMN filter TEXT NOT NULL DEFAULT 'basic' \
                     CHECK (filter IN ('basic', 'zcdp')); \
                     ALTER TABLE limits ADD COLUMN approximate_epsilon REAL NOT NULL \
                     DEFAULT 0 CHECK (approximate_epsilon >= 0); \
                     ALTER TABLE limits ADD COLUMN approximate_delta REAL NOT NULL \
                     DEFAULT 0 CHECK (approximate_delta >= 0); \
                     ALTER TABLE limits ADD COLUMN rho REAL CHECK (rho > 0); \
                     CREATE TABLE default_limit (id INTEGER PRIMARY KEY, time TEXT NOT NULL, \
                     epsilon REAL NOT NULL CHECK (epsilon > 0), \
                     delta REAL NOT NULL CHECK (delta >= 0 AND delta < 1), \
                     filter TEXT NOT NULL CHECK (filter IN ('basic', 'zcdp')), \
                     approximate_epsilon REAL NOT NULL CHECK (approximate_epsilon >= 0), \
                     approximate_delta REAL NOT NULL CHECK (approximate_delta >= 0), \
                     rho REAL CHECK (rho > 0)) STRICT;",
                )
                .map_err(fail)?;
            let hashed = names(
                &transaction,
                "SELECT dataset FROM (SELECT dataset, time FROM releases UNION ALL \
                 SELECT dataset, time FROM limits) WHERE dataset LIKE 'sha256:%' \
                 GROUP BY dataset ORDER BY MIN(time), dataset",
            )
            .map_err(fail)?;
            let mut number = 0;
            for old in hashed {
                // A free name: `unnamed-N` not already taken by a user.
                let new = loop {
                    number += 1;
                    let candidate = format!("unnamed-{number}");
                    let taken: bool = transaction
                        .query_row(
                            "SELECT EXISTS (SELECT 1 FROM releases WHERE dataset = ?1) \
                             OR EXISTS (SELECT 1 FROM limits WHERE dataset = ?1)",
                            [&candidate],
                            |r| r.get(0),
                        )
                        .map_err(fail)?;
                    if !taken {
                        break candidate;
                    }
                };
                for table in ["releases", "limits"] {
                    transaction
                        .execute(
                            &format!("UPDATE {table} SET dataset = ?1 WHERE dataset = ?2"),
                            [&new, &old],
                        )
                        .map_err(fail)?;
                }
            }
            // Older formats recorded releases without a limit. A limit chosen now, after
            // their outputs were seen, would not be a privacy filter's: such a data set's
            // limit is what it spent, so that it admits no further release.
            let unlimited = names(
                &transaction,
                "SELECT DISTINCT dataset FROM releases WHERE dataset NOT IN \
                 (SELECT dataset FROM limits) ORDER BY dataset",
            )
            .map_err(fail)?;
            for dataset in unlimited {
                let spent = self.totals_of(&transaction, &dataset)?;
                insert_limit(&transaction, "limits", Some(&dataset), &spent_limit(&spent))
                    .map_err(fail)?;
            }
        }
        if version <= 3 {
            transaction.execute_batch(HOLDS).map_err(fail)?;
        }
        transaction
            .execute_batch(&format!("PRAGMA user_version = {FORMAT};"))
            .map_err(fail)?;
        transaction.commit().map_err(fail)
    }

    /// Sets the limit of `dataset` (its name trimmed). Every limit set is kept in the file;
    /// the latest is in force. Before the data set's first release the limit may change
    /// freely; after it, only downwards, with the same filter and not below what is already
    /// spent, since a budget or a filter chosen after seeing outputs is not a privacy
    /// filter's (and a limit below the spent amount would refuse every later release). A
    /// data set whose releases were recorded without a limit (by an older format: the upgrade
    /// gives it the limit of what it spent) takes no limit. A new name alike to an existing
    /// one ([`check_name`](super::check_name)) is refused, and so is one near an existing
    /// one (a typo: one or two edits from it) unless it is confirmed new ([`Name`]).
    ///
    /// # Errors
    /// An invalid name or limit, a name alike to another or near it, or a change the
    /// releases forbid ([`Error::InvalidParameter`]); [`Error::Ledger`].
    pub fn set_limit<'a>(&self, dataset: impl Into<Name<'a>>, limit: Limit) -> Result<()> {
        let name = dataset.into();
        let dataset = super::check_name(name.name)?;
        limit.validate()?;
        let connection = self.lock();
        let fail = |e| self.fail("cannot set the limit", e);
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Immediate)
                .map_err(fail)?;
        self.check_known(&transaction, dataset, Purpose::Create, name.new)?;
        let releases: i64 = transaction
            .query_row(
                "SELECT COUNT(*) FROM releases WHERE dataset = ?1",
                [dataset],
                |r| r.get(0),
            )
            .map_err(fail)?;
        let current = limit_of(&transaction, dataset).map_err(fail)?;
        if releases > 0 && current.is_none() {
            return Err(unlimited_releases(dataset));
        }
        if releases > 0
            && let Some(current) = current
        {
            if current.filter != limit.filter {
                return Err(Error::param(
                    "rule",
                    format!(
                        "data set {dataset} has releases under the {} filter, fixed by its \
                         first release: a filter chosen after seeing outputs is not a \
                         privacy filter",
                        current.filter
                    ),
                ));
            }
            if !current.covers(&limit) {
                return Err(Error::param(
                    "epsilon",
                    format!(
                        "data set {dataset} has releases under the limit ε = {}, δ = {}: it \
                         can be lowered, not raised (a budget raised after seeing outputs \
                         is no guarantee for them)",
                        typed(current.epsilon),
                        typed(current.delta)
                    ),
                ));
            }
        }
        if releases > 0 {
            // A limit below what is spent would refuse every later release, silently: a
            // mistake, not a budget.
            let spent = self.totals_of(&transaction, dataset)?;
            if !spent.within(&limit) {
                return Err(below_spent(dataset, &limit, &spent));
            }
        }
        insert_limit(&transaction, "limits", Some(dataset), &limit).map_err(fail)?;
        transaction.commit().map_err(fail)
    }

    /// Sets the ledger's default limit: the limit a data set without one gets at its first
    /// release (recorded then as that data set's own); `None` removes it, so that a release
    /// into a data set without a limit is refused.
    ///
    /// # Errors
    /// An invalid limit; [`Error::Ledger`].
    pub fn set_default_limit(&self, limit: Option<Limit>) -> Result<()> {
        if let Some(limit) = &limit {
            limit.validate()?;
        }
        let connection = self.lock();
        let fail = |e| self.fail("cannot set the default limit", e);
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Immediate)
                .map_err(fail)?;
        transaction
            .execute("DELETE FROM default_limit", [])
            .map_err(fail)?;
        if let Some(limit) = &limit {
            insert_limit(&transaction, "default_limit", None, limit).map_err(fail)?;
        }
        transaction.commit().map_err(fail)
    }

    /// The ledger's default limit, if any.
    ///
    /// # Errors
    /// [`Error::Ledger`].
    pub fn default_limit(&self) -> Result<Option<Limit>> {
        let connection = self.lock();
        read_limit(&connection, "default_limit", None).map_err(|e| self.fail("cannot read", e))
    }

    /// The limit in force for `dataset` (its name trimmed), if any.
    ///
    /// # Errors
    /// An invalid name, or a name the ledger does not hold that is alike or near to one it
    /// does ([`Error::InvalidParameter`] naming `dataset`); [`Error::Ledger`].
    pub fn limit(&self, dataset: &str) -> Result<Option<Limit>> {
        let dataset = dataset.trim();
        let connection = self.lock();
        self.check_known(&connection, dataset, Purpose::Look, false)?;
        limit_of(&connection, dataset).map_err(|e| self.fail("cannot read", e))
    }

    /// Records `spend` on `dataset` (its name trimmed) if the data set's limit admits it, in
    /// one transaction (see the [module documentation](super)). Call it before the data is
    /// read, and release only after it returns `Ok`.
    ///
    /// # Errors
    /// [`Error::BudgetExceeded`] (nothing recorded) with one line saying what the release
    /// costs, what is spent and what is left — also for a data set without a limit when the
    /// ledger has no default; [`Error::InvalidParameter`] naming `dataset` when the data
    /// set's releases protect another [`Unit`], for a new name alike to an existing one, or
    /// near it and not confirmed new ([`Name`]), or for an invalid spend or name;
    /// [`Error::Ledger`] (locked past the timeout, …).
    pub fn reserve<'a>(&self, dataset: impl Into<Name<'a>>, spend: &Spend) -> Result<Receipt> {
        let name = dataset.into();
        let dataset = super::check_name(name.name)?;
        let connection = self.lock();
        let fail = |e| self.fail("cannot record the release", e);
        // The write lock before the first read: no other process can record between our
        // reading the spend and our insert.
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Immediate)
                .map_err(fail)?;
        let admitted = self.admit(&transaction, dataset, name.new, std::slice::from_ref(spend))?;
        if !admitted.after.within(&admitted.limit) {
            return Err(refusal(dataset, spend, &admitted.limit, &admitted.before));
        }
        let id = self.record(&transaction, dataset, spend)?;
        transaction.commit().map_err(fail)?;
        Ok(Receipt {
            id,
            spent: admitted.after.spent(Some(&admitted.limit)),
        })
    }

    /// The limit that judges `spends` on `dataset` — its own, or the ledger's default, then
    /// recorded as its own (in `transaction`, committed only with the release) — and its
    /// releases' totals before and after them; refuses a name alike to another, spends of
    /// another unit than the data set's, invalid spends and a data set without a limit.
    fn admit(
        &self,
        transaction: &Connection,
        dataset: &str,
        new: bool,
        spends: &[Spend],
    ) -> Result<Admitted> {
        let view = self.view(transaction, dataset, new, spends)?;
        let fail = |e| self.fail("cannot record the release", e);
        let limit = match view.limit {
            Some(limit) => limit,
            None if self.has_releases(transaction, dataset)? => {
                return Err(unlimited_releases(dataset));
            }
            None => {
                // A name near another is set a limit only as confirmed new.
                let (flag, new, near) = match &view.near {
                    Some(near) => (
                        " --new-dataset",
                        ", new=True",
                        format!(", confirming it new as it is near the data set {near:?}"),
                    ),
                    None => ("", "", String::new()),
                };
                return Err(Error::BudgetExceeded {
                    dataset: dataset.to_string(),
                    message: format!(
                        "data set {dataset} has no limit in the ledger {}: set one{near} \
                         (`disguise ledger limit --dataset {dataset}{flag} --epsilon E`, \
                         or Ledger.set_limit(..., epsilon=E{new})), or give the ledger a \
                         default limit; nothing was released",
                        self.path.display()
                    ),
                });
            }
        };
        if view.default {
            // The default becomes the data set's own, recorded with this release.
            insert_limit(transaction, "limits", Some(dataset), &limit).map_err(fail)?;
        }
        Ok(Admitted {
            limit,
            before: view.before,
            after: view.after,
        })
    }

    /// What `spends` would do on `dataset`, read only: its limit (its own, or the ledger's
    /// default, `default` then true; none for a data set that has releases and no limit),
    /// and its totals before and after them. A new name near another is refused unless
    /// confirmed `new` (`near` then names the other).
    fn view(
        &self,
        connection: &Connection,
        dataset: &str,
        new: bool,
        spends: &[Spend],
    ) -> Result<View> {
        let fail = |e| self.fail("cannot read the data set", e);
        let near = self.check_known(connection, dataset, Purpose::Create, new)?;
        for spend in spends {
            spend.validate()?;
        }
        if let Some(unit) = self.unit_of(connection, dataset)?
            && let Some(spend) = spends.iter().find(|s| s.unit != unit)
        {
            return Err(Error::param(
                "dataset",
                format!(
                    "data set {dataset} holds {unit}-level releases (they protect {}); this \
                     release is {}-level (it protects {}): an ε for one and an ε for the \
                     other do not add up to a guarantee for either, so they cannot share a \
                     budget",
                    unit.help(),
                    spend.unit,
                    spend.unit.help(),
                ),
            ));
        }
        let (limit, default) = match limit_of(connection, dataset).map_err(fail)? {
            Some(limit) => (Some(limit), false),
            None if self.has_releases(connection, dataset)? => (None, false),
            None => {
                let default = read_limit(connection, "default_limit", None).map_err(fail)?;
                let found = default.is_some();
                (default, found)
            }
        };
        if let Some(limit) = &limit {
            limit.validate().map_err(|e| self.damaged(e))?;
        }
        let before = self.totals_of(connection, dataset)?;
        let mut after = before.clone();
        for spend in spends {
            after.add_spend(spend)?;
        }
        Ok(View {
            limit,
            default,
            near,
            before,
            after,
        })
    }

    /// Inserts `spend` as a release of `dataset`, with its calls; returns its number.
    fn record(&self, transaction: &Connection, dataset: &str, spend: &Spend) -> Result<i64> {
        let fail = |e| self.fail("cannot record the release", e);
        transaction
            .execute(
                &format!(
                    "INSERT INTO releases (dataset, time, command, mechanism, runs, epsilon, \
                     delta, rule, secure, unit) VALUES (?1, {NOW}, ?2, ?3, ?4, ?5, ?6, ?7, ?8, \
                     ?9)"
                ),
                rusqlite::params![
                    dataset,
                    spend.command,
                    spend.mechanism,
                    i64::try_from(spend.runs)
                        .map_err(|_| Error::param("runs", "more than 2^63 runs"))?,
                    spend.guarantee.epsilon,
                    spend.guarantee.delta,
                    spend.guarantee.rule.name(),
                    spend.secure,
                    spend.unit.name(),
                ],
            )
            .map_err(fail)?;
        let id = transaction.last_insert_rowid();
        for &(cost, count) in &spend.calls {
            let Some(calls) = Calls::of(cost, count) else {
                continue;
            };
            transaction
                .execute(
                    "INSERT INTO calls (release, kind, epsilon, delta, count) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    rusqlite::params![
                        id,
                        calls.kind,
                        calls.epsilon,
                        calls.delta,
                        i64::try_from(count)
                            .map_err(|_| Error::param("calls", "more than 2^63 calls"))?,
                    ],
                )
                .map_err(fail)?;
        }
        Ok(id)
    }

    /// What is spent and left of `limit` after `before`, in words (a refusal's end).
    fn words(&self, before: &Totals, limit: &Limit) -> String {
        let (spent, left) = spent_and_left(limit, before);
        format!("the limit is {}; {spent}; {left}", limit_words(limit))
    }

    /// The data set `name` (trimmed) as the ledger holds it.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `dataset` when no data set has that name, with the
    /// name alike or near to it ([`Name`]) if there is one; [`Error::Ledger`].
    pub fn resolve(&self, name: &str) -> Result<String> {
        let name = name.trim();
        let connection = self.lock();
        self.check_known(&connection, name, Purpose::Look, false)?;
        let known: bool = connection
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM releases WHERE dataset = ?1) \
                 OR EXISTS (SELECT 1 FROM limits WHERE dataset = ?1)",
                [name],
                |r| r.get(0),
            )
            .map_err(|e| self.fail("cannot read the data sets", e))?;
        if !known {
            return Err(Error::param(
                "dataset",
                format!("no data set {name:?} in the ledger {}", self.path.display()),
            ));
        }
        Ok(name.to_string())
    }

    /// Accepts `dataset` (trimmed) when the ledger holds it as it is — whatever it looks
    /// like: an older ledger's name with a byte order mark is found by that name, and its
    /// look-alikes are refused —; otherwise checks it ([`check_name`](super::check_name))
    /// and refuses it when a name alike to it exists (the same [`likeness`]: case, white
    /// space, invisible characters, Unicode spelling), or a name near it (one or two edits:
    /// [`Name`]) unless `purpose` creates the data set and the caller confirmed it `new`.
    /// Returns the nearest name that the confirmation let pass, if any.
    fn check_known(
        &self,
        connection: &Connection,
        dataset: &str,
        purpose: Purpose,
        new: bool,
    ) -> Result<Option<String>> {
        let fail = |e| self.fail("cannot read the data sets", e);
        let exists: bool = connection
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM releases WHERE dataset = ?1) \
                 OR EXISTS (SELECT 1 FROM limits WHERE dataset = ?1)",
                [dataset],
                |r| r.get(0),
            )
            .map_err(fail)?;
        if exists {
            return Ok(None);
        }
        super::check_name(dataset)?;
        let key = likeness(dataset);
        let mut statement = connection
            .prepare("SELECT dataset FROM limits UNION SELECT dataset FROM releases ORDER BY 1")
            .map_err(fail)?;
        let names = statement
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(fail)?;
        // The closest name, the first in order among equally close ones.
        let mut closest: Option<(Closeness, String)> = None;
        for name in names {
            let name = name.map_err(fail)?;
            if let Some(c) = closeness(&key, &likeness(&name))
                && closest.as_ref().is_none_or(|(best, _)| c < *best)
            {
                closest = Some((c, name));
            }
        }
        match closest {
            None => Ok(None),
            Some((Closeness::Near(_), name)) if new && purpose == Purpose::Create => Ok(Some(name)),
            Some((c, name)) => Err(did_you_mean(dataset, &name, c, purpose)),
        }
    }

    /// Reserves what a request plans to spend — `planned`, its plan from public parameters
    /// (e.g. [`Select::plan`](crate::task::Select::plan)) — **before** the data is read, then
    /// runs `release` with the generator `rng` (recorded as secure or not) and returns its
    /// result. The reservation is the plan's spend on `dataset` ([`Ledger::reserve`]: a new
    /// name near an existing one is refused unless confirmed new, [`Name`]), at the unit the
    /// plan states. A run that
    /// fails after the reservation stays charged. The result is held to its plan: a run
    /// that the filters would charge more than was reserved ([`super::within_reservation`]:
    /// its guarantee, its calls, its unit — a bug) returns an error, not its result.
    ///
    /// ```
    /// use disguise::ledger::{Ledger, Limit};
    /// use disguise::prelude::*;
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let points = [[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]];
    /// # let candidates = [[0.0, 0.0], [5.0, 5.0], [9.0, 0.0]];
    /// let ledger = Ledger::create(&dir.path().join("budget.ledger"))?;
    /// ledger.set_limit("pickups", Limit::new(1.0, 0.0)?)?;
    /// let request = Select::new(2).epsilon(1.0);
    /// let plan = request.plan(candidates.len())?;
    /// let mut rng = SecureRng::from_os()?;
    /// let run = |rng: &mut SecureRng| request.run(&points, &candidates, rng);
    /// let report = ledger.charge("pickups", "select k=2", &plan, &mut rng, run)?;
    /// assert_eq!(report.choice.selected.len(), 2);
    /// // The budget is spent: the next run is refused before it reads anything.
    /// let refused = ledger.charge("pickups", "select k=2", &plan, &mut rng, |_| -> disguise::Result<disguise::task::SelectReport> {
    ///     unreachable!("never run")
    /// });
    /// assert!(matches!(refused, Err(disguise::Error::BudgetExceeded { .. })));
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Ledger::reserve`] (nothing runs; a non-private plan is refused), then the
    /// run's, then [`Error::InvalidParameter`] naming `ledger` (an internal error) for a run
    /// beyond its plan.
    pub fn charge<'a, P: Spends, T: Spends>(
        &self,
        dataset: impl Into<Name<'a>>,
        command: &str,
        planned: &P,
        rng: &mut crate::noise::SecureRng,
        release: impl FnOnce(&mut crate::noise::SecureRng) -> Result<T>,
    ) -> Result<T> {
        let dataset = dataset.into();
        super::check_name(dataset.name)?;
        let planned = planned.spend()?;
        if let Some(spend) = &planned {
            let mut spend = spend.clone().secure(rng.is_secure());
            if spend.command.is_empty() {
                spend = spend.command(command);
            }
            self.reserve(dataset, &spend)?;
        }
        let result = release(rng)?;
        if let Some(actual) = result.spend()? {
            let fits = planned
                .as_ref()
                .is_some_and(|p| super::within_reservation(p, &actual));
            if !fits {
                return Err(Error::param(
                    "ledger",
                    format!(
                        "internal error: the run spends more than was reserved for it (ε = \
                         {}, δ = {}, {} {}-level, calls {:?}; reserved: {}); its result is \
                         not returned (a bug: please report it)",
                        typed(actual.guarantee.epsilon),
                        typed(actual.guarantee.delta),
                        display::thousands(actual.runs),
                        actual.unit,
                        actual.calls,
                        planned.as_ref().map_or_else(
                            || "nothing".to_string(),
                            |p| format!(
                                "ε = {}, δ = {}, {} {}-level, calls {:?}",
                                typed(p.guarantee.epsilon),
                                typed(p.guarantee.delta),
                                display::thousands(p.runs),
                                p.unit,
                                p.calls
                            )
                        ),
                    ),
                ));
            }
        }
        Ok(result)
    }

    /// The recorded releases, oldest first: of `dataset` (its name trimmed), or of every
    /// data set.
    ///
    /// # Errors
    /// An invalid name, or a name the ledger does not hold that is alike or near to one it
    /// does ([`Error::InvalidParameter`] naming `dataset`); [`Error::Ledger`].
    pub fn releases(&self, dataset: Option<&str>) -> Result<Vec<Release>> {
        let dataset = dataset.map(str::trim);
        let connection = self.lock();
        if let Some(dataset) = dataset {
            self.check_known(&connection, dataset, Purpose::Look, false)?;
        }
        releases_of(&connection, dataset).map_err(|e| self.fail("cannot read", e))
    }

    /// The data sets with a limit or a release, sorted.
    ///
    /// # Errors
    /// [`Error::Ledger`].
    pub fn datasets(&self) -> Result<Vec<String>> {
        let connection = self.lock();
        let read = || -> rusqlite::Result<Vec<String>> {
            let mut statement = connection.prepare(
                "SELECT dataset FROM limits UNION SELECT dataset FROM releases ORDER BY 1",
            )?;
            statement.query_map([], |r| r.get(0))?.collect()
        };
        read().map_err(|e| self.fail("cannot read", e))
    }

    /// The state of `dataset` (its name trimmed): its limit, what its releases spent and what
    /// is left (none of either for a name the ledger does not hold, and is not near one it
    /// does).
    ///
    /// # Errors
    /// An invalid name, or a name the ledger does not hold that is alike or near to one it
    /// does ([`Error::InvalidParameter`] naming `dataset`); [`Error::Ledger`].
    pub fn status(&self, dataset: &str) -> Result<Status> {
        let dataset = dataset.trim();
        let connection = self.lock();
        // One read transaction: the limit and the releases of the same moment.
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Deferred)
                .map_err(|e| self.fail("cannot read", e))?;
        self.check_known(&transaction, dataset, Purpose::Look, false)?;
        let limit = limit_of(&transaction, dataset).map_err(|e| self.fail("cannot read", e))?;
        let totals = self.totals_of(&transaction, dataset)?;
        let unit = self.unit_of(&transaction, dataset)?;
        drop(transaction);
        Ok(Status {
            dataset: dataset.to_string(),
            limit,
            releases: totals.releases,
            unit,
            spent: (totals.releases > 0).then(|| totals.spent(limit.as_ref())),
            remaining: limit.map(|l| totals.remaining(&l)),
        })
    }

    /// Everything the ledger holds, or what concerns `dataset` (a name as the user gave it,
    /// resolved by [`Ledger::resolve`]): the releases, each data set's status and the
    /// default limit.
    ///
    /// # Errors
    /// As [`Ledger::resolve`] for an unknown name; [`Error::Ledger`].
    pub fn overview(&self, dataset: Option<&str>) -> Result<Overview> {
        let dataset = dataset.map(|d| self.resolve(d)).transpose()?;
        let datasets = match &dataset {
            Some(d) => vec![d.clone()],
            None => self.datasets()?,
        };
        let statuses: Vec<Status> = datasets
            .iter()
            .map(|d| self.status(d))
            .collect::<Result<_>>()?;
        let remaining = match &dataset {
            Some(_) => Remainders::One(statuses.first().and_then(|s| s.remaining)),
            None => Remainders::Each(
                statuses
                    .iter()
                    .map(|s| (s.dataset.clone(), s.remaining))
                    .collect(),
            ),
        };
        Ok(Overview {
            ledger: self.path().to_path_buf(),
            releases: self.releases(dataset.as_deref())?,
            remaining,
            datasets: statuses,
            default_limit: self.default_limit()?,
        })
    }

    /// Runs SQLite's full `PRAGMA integrity_check` and returns its verdict (`ok` for an
    /// intact file).
    ///
    /// # Errors
    /// [`Error::Ledger`].
    pub fn integrity_check(&self) -> Result<String> {
        let connection = self.lock();
        connection
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(|e| self.fail("cannot check", e))
    }

    /// The exact totals of `dataset`'s releases, from costs grouped in SQL (a reservation
    /// reads a few groups, not every release).
    fn totals_of(&self, connection: &Connection, dataset: &str) -> Result<Totals> {
        let fail = |e| self.fail("cannot read the recorded releases", e);
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        let mut totals = Totals::default();
        let releases: i64 = connection
            .query_row(
                "SELECT COUNT(*) FROM releases WHERE dataset = ?1",
                [dataset],
                |r| r.get(0),
            )
            .map_err(fail)?;
        totals.releases = count(releases);
        // (ε, δ, runs) groups of the releases that `which` selects.
        let own = |which: &str| -> Result<Vec<(f64, f64, u64)>> {
            let mut statement = connection
                .prepare(&format!(
                    "SELECT epsilon, delta, SUM(runs) FROM releases WHERE dataset = ?1 {which} \
                     GROUP BY epsilon, delta"
                ))
                .map_err(fail)?;
            let rows = statement
                .query_map([dataset], |r| {
                    Ok((
                        r.get::<_, f64>(0)?,
                        r.get::<_, f64>(1)?,
                        r.get::<_, i64>(2)?,
                    ))
                })
                .map_err(fail)?;
            let mut out = Vec::new();
            for row in rows {
                let (epsilon, delta, runs) = row.map_err(fail)?;
                Epsilon::new(epsilon).map_err(|e| self.damaged(e))?;
                Delta::new(delta).map_err(|e| self.damaged(e))?;
                out.push((epsilon, delta, count(runs)));
            }
            Ok(out)
        };
        // Which releases each view takes by their own guarantee (the others by their
        // calls; see `Totals`).
        let no_calls = "NOT EXISTS (SELECT 1 FROM calls WHERE calls.release = releases.id)";
        let approximate = "EXISTS (SELECT 1 FROM calls WHERE calls.release = releases.id AND \
                           calls.kind = 'approximate')";
        for (epsilon, delta, runs) in own("")? {
            totals.add_own(epsilon, delta, runs);
        }
        for (epsilon, delta, runs) in
            own(&format!("AND (delta = 0 OR {no_calls} OR {approximate})"))?
        {
            totals.add_pure_own(epsilon, delta, runs);
        }
        for (epsilon, delta, runs) in own(&format!("AND ({no_calls} OR {approximate})"))? {
            totals.add_zcdp_own(epsilon, delta, runs);
        }
        for (kind, cost, count) in self.calls_of(connection, dataset, "")? {
            debug_assert_ne!(kind, "approximate");
            totals.add_zcdp_call(cost, count);
        }
        for (_, cost, count) in self.calls_of(connection, dataset, "AND releases.delta > 0")? {
            totals.add_pure_call(cost, count);
        }
        Ok(totals)
    }

    /// The calls of `dataset`'s releases without an approximate call that `which` also
    /// selects, grouped by cost: (kind, cost, calls × runs).
    fn calls_of(
        &self,
        connection: &Connection,
        dataset: &str,
        which: &str,
    ) -> Result<Vec<(&'static str, crate::privacy::PrivacyCost, u64)>> {
        let fail = |e| self.fail("cannot read the recorded releases", e);
        let mut statement = connection
            .prepare(&format!(
                "SELECT calls.kind, calls.epsilon, calls.delta, SUM(calls.count * releases.runs) \
                 FROM calls JOIN releases ON releases.id = calls.release \
                 WHERE releases.dataset = ?1 {which} AND NOT EXISTS (SELECT 1 FROM calls AS a \
                 WHERE a.release = releases.id AND a.kind = 'approximate') \
                 GROUP BY calls.kind, calls.epsilon, calls.delta"
            ))
            .map_err(fail)?;
        let rows = statement
            .query_map([dataset], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, f64>(1)?,
                    r.get::<_, f64>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })
            .map_err(fail)?;
        let mut out = Vec::new();
        for row in rows {
            let (kind, epsilon, delta, calls) = row.map_err(fail)?;
            // A call of a kind this version does not know would be counted wrongly: refuse.
            let kind = Calls::kind_of(&kind).ok_or_else(|| {
                self.damaged(Error::parse(format!(
                    "a recorded call of unknown kind {kind:?}"
                )))
            })?;
            let group = Calls {
                kind,
                epsilon,
                delta,
                count: u64::try_from(calls).unwrap_or(0),
            };
            let cost = group.cost().map_err(|e| self.damaged(e))?;
            out.push((kind, cost, group.count));
        }
        Ok(out)
    }

    /// Whether `dataset` has a recorded release.
    fn has_releases(&self, connection: &Connection, dataset: &str) -> Result<bool> {
        connection
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM releases WHERE dataset = ?1)",
                [dataset],
                |r| r.get(0),
            )
            .map_err(|e| self.fail("cannot read the recorded releases", e))
    }

    /// The privacy unit of `dataset`'s releases (`None` before the first).
    fn unit_of(&self, connection: &Connection, dataset: &str) -> Result<Option<Unit>> {
        connection
            .query_row(
                "SELECT unit FROM releases WHERE dataset = ?1 LIMIT 1",
                [dataset],
                |r| unit_named(&r.get::<_, String>(0)?),
            )
            .optional()
            .map_err(|e| self.fail("cannot read the recorded releases", e))
    }

    /// A record that this version cannot compose.
    fn damaged(&self, e: Error) -> Error {
        Error::Ledger {
            message: format!(
                "{}: a recorded release cannot be composed ({e}): the ledger is damaged",
                self.path.display()
            ),
            source: None,
        }
    }

    fn fail(&self, what: &str, e: rusqlite::Error) -> Error {
        explain(&self.path, what, e, self.timeout)
    }
}

/// The limit of a data set whose releases an older format recorded without one: what they
/// spent (by basic composition of their own guarantees), at most — so that the next
/// release, whose ε is positive, does not fit. Its ε and δ are the largest decimals at or
/// below the totals (δ below 1, ε at most the largest a limit takes).
fn spent_limit(spent: &Totals) -> Limit {
    use crate::numeric::decimal::carrier_down;
    Limit {
        epsilon: carrier_down(&spent.all.epsilon).min(crate::privacy::MAX_EPSILON),
        delta: carrier_down(&spent.all.delta).min(1f64.next_down()),
        filter: Filter::Basic,
        approximate_epsilon: 0.0,
        approximate_delta: 0.0,
        rho: None,
    }
}

/// The refusal of a limit, or of a release, on a data set whose releases were recorded
/// without a limit.
fn unlimited_releases(dataset: &str) -> Error {
    Error::param(
        "dataset",
        format!(
            "data set {dataset} has releases recorded without a limit (by an older ledger): a \
             limit chosen after seeing their outputs is not a privacy filter's, so it takes \
             none, and no further release"
        ),
    )
}

/// A recorded unit (the table's CHECK admits only these names).
fn unit_named(text: &str) -> rusqlite::Result<Unit> {
    Unit::from_name(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(10, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// The limit in force for `dataset`.
fn limit_of(connection: &Connection, dataset: &str) -> rusqlite::Result<Option<Limit>> {
    read_limit(connection, "limits", Some(dataset))
}

/// The latest limit of `table`: `limits` for `dataset`, or `default_limit` (`None`).
fn read_limit(
    connection: &Connection,
    table: &str,
    dataset: Option<&str>,
) -> rusqlite::Result<Option<Limit>> {
    let which = if dataset.is_some() {
        "dataset = ?1"
    } else {
        "?1 IS NULL"
    };
    connection
        .query_row(
            &format!(
                "SELECT epsilon, delta, filter, approximate_epsilon, approximate_delta, rho \
                 FROM {table} WHERE {which} ORDER BY id DESC LIMIT 1"
            ),
            [dataset],
            |r| {
                let name: String = r.get(2)?;
                let filter = Filter::from_name(&name).map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        2,
                        rusqlite::types::Type::Text,
                        Box::new(e),
                    )
                })?;
                Ok(Limit {
                    epsilon: r.get(0)?,
                    delta: r.get(1)?,
                    filter,
                    approximate_epsilon: r.get(3)?,
                    approximate_delta: r.get(4)?,
                    rho: r.get(5)?,
                })
            },
        )
        .optional()
}

/// Inserts `limit` into `table`: `limits` for `dataset`, or `default_limit` (`None`).
fn insert_limit(
    connection: &Connection,
    table: &str,
    dataset: Option<&str>,
    limit: &Limit,
) -> rusqlite::Result<()> {
    let sql = format!(
        "INSERT INTO {table} ({}time, epsilon, delta, filter, approximate_epsilon, \
         approximate_delta, rho) VALUES ({}{NOW}, ?1, ?2, ?3, ?4, ?5, ?6)",
        if dataset.is_some() { "dataset, " } else { "" },
        if dataset.is_some() { "?7, " } else { "" },
    );
    let filter = limit.filter.name();
    let mut params: Vec<&dyn rusqlite::ToSql> = vec![
        &limit.epsilon,
        &limit.delta,
        &filter,
        &limit.approximate_epsilon,
        &limit.approximate_delta,
        &limit.rho,
    ];
    if let Some(d) = &dataset {
        params.push(d);
    }
    connection.execute(&sql, params.as_slice())?;
    Ok(())
}

/// The recorded releases of `dataset` (or all), with their calls.
fn releases_of(connection: &Connection, dataset: Option<&str>) -> rusqlite::Result<Vec<Release>> {
    let mut statement = connection.prepare(
        "SELECT id, dataset, time, command, mechanism, runs, epsilon, delta, rule, secure, \
         unit FROM releases WHERE ?1 IS NULL OR dataset = ?1 ORDER BY id",
    )?;
    let mut releases: Vec<Release> = statement
        .query_map([dataset], |r| {
            Ok(Release {
                id: r.get(0)?,
                dataset: r.get(1)?,
                time: r.get(2)?,
                command: r.get(3)?,
                mechanism: r.get(4)?,
                runs: r.get::<_, i64>(5)?.max(1) as u64,
                epsilon: r.get(6)?,
                delta: r.get(7)?,
                rule: r.get(8)?,
                calls: Vec::new(),
                secure: r.get(9)?,
                unit: unit_named(&r.get::<_, String>(10)?)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut calls = connection.prepare(
        "SELECT calls.release, calls.kind, calls.epsilon, calls.delta, calls.count \
         FROM calls JOIN releases ON releases.id = calls.release \
         WHERE ?1 IS NULL OR releases.dataset = ?1 ORDER BY calls.release, calls.rowid",
    )?;
    let rows = calls.query_map([dataset], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, f64>(2)?,
            r.get::<_, f64>(3)?,
            r.get::<_, i64>(4)?,
        ))
    })?;
    let mut at = 0;
    for row in rows {
        let (release, kind, epsilon, delta, count) = row?;
        while at < releases.len() && releases[at].id < release {
            at += 1;
        }
        if let (Some(r), Some(kind)) = (releases.get_mut(at), Calls::kind_of(&kind))
            && r.id == release
        {
            r.calls.push(Calls {
                kind,
                epsilon,
                delta,
                count: count.max(1) as u64,
            });
        }
    }
    Ok(releases)
}

/// The releases numbered `ids` (those that exist), with their calls.
fn releases_by_id(
    connection: &Connection,
    ids: impl Iterator<Item = i64>,
) -> rusqlite::Result<Vec<Release>> {
    let wanted: std::collections::BTreeSet<i64> = ids.collect();
    let datasets = {
        let mut statement = connection.prepare("SELECT dataset FROM releases WHERE id = ?1")?;
        let mut out = std::collections::BTreeSet::new();
        for id in &wanted {
            if let Some(d) = statement
                .query_row([id], |r| r.get::<_, String>(0))
                .optional()?
            {
                out.insert(d);
            }
        }
        out
    };
    let mut found = Vec::new();
    for dataset in datasets {
        found.extend(
            releases_of(connection, Some(&dataset))?
                .into_iter()
                .filter(|r| wanted.contains(&r.id)),
        );
    }
    Ok(found)
}

/// The refusal of a release over the limit: one line.
/// A limit lowered below what `dataset` has spent, refused.
fn below_spent(dataset: &str, limit: &Limit, spent: &Totals) -> Error {
    let used = spent.spent(Some(limit));
    let amount = match (limit.filter, used.rho) {
        (Filter::Zcdp, Some(rho)) => format!(
            "ρ = {} (and ε = {}, δ = {} by approximate releases)",
            rounded(rho, 6, Ordering::Greater),
            typed(used.epsilon),
            typed(used.delta)
        ),
        _ => format!("ε = {}, δ = {}", typed(used.epsilon), typed(used.delta)),
    };
    Error::param(
        "epsilon",
        format!(
            "data set {dataset} has already spent {amount}: a limit of ε = {}, δ = {} is \
             below that and would refuse every later release; give at least what is spent",
            typed(limit.epsilon),
            typed(limit.delta)
        ),
    )
}

fn refusal(dataset: &str, spend: &Spend, limit: &Limit, before: &Totals) -> Error {
    let (spent, left) = spent_and_left(limit, before);
    let why = if limit.delta == 0.0 && spend.guarantee.delta > 0.0 {
        " (the limit is pure ε-DP: a release with δ > 0 cannot fit)"
    } else if limit.filter == Filter::Zcdp
        && spend.calls.iter().any(|(c, _)| is_approximate(c))
        && limit.approximate_delta == 0.0
    {
        " (the limit sets aside nothing for approximate releases)"
    } else {
        ""
    };
    Error::BudgetExceeded {
        dataset: dataset.to_string(),
        message: format!(
            "budget exceeded on data set {dataset}: this release costs {}, over the limit \
             {}{why}; {spent}; {left}",
            cost_words(spend, limit),
            limit_words(limit),
        ),
    }
}

/// A limit in words: `ε = 1, δ = 0 (basic filter)`, with ρ under zCDP.
fn limit_words(limit: &Limit) -> String {
    let rho = match limit.rho {
        Some(rho) => format!(", ρ ≤ {}", rounded(rho, 6, Ordering::Less)),
        None => String::new(),
    };
    format!(
        "ε = {}, δ = {} ({} filter{rho})",
        typed(limit.epsilon),
        typed(limit.delta),
        limit.filter
    )
}

/// What a data set's releases (`before`) spent and what is left of `limit`, in words.
fn spent_and_left(limit: &Limit, before: &Totals) -> (String, String) {
    let spent = before.spent(Some(limit));
    let left = before.remaining(limit);
    let releases = before.releases;
    let in_releases = format!(
        "in {releases} release{}",
        if releases == 1 { "" } else { "s" }
    );
    let (spent, left) = match limit.filter {
        Filter::Basic if releases == 0 => (
            "nothing spent yet".to_string(),
            format!(
                "left ε = {}, δ = {}",
                typed(left.epsilon),
                typed(left.delta)
            ),
        ),
        Filter::Basic => (
            format!(
                "spent ε = {}, δ = {} {in_releases}",
                typed(spent.epsilon),
                typed(spent.delta)
            ),
            format!(
                "left ε = {}, δ = {}",
                typed(left.epsilon),
                typed(left.delta)
            ),
        ),
        Filter::Zcdp => (
            format!(
                "spent ρ = {} and, by approximate releases, ε = {}, δ = {} {in_releases}",
                rounded(spent.rho.unwrap_or(0.0), 6, Ordering::Greater),
                typed(spent.epsilon),
                typed(spent.delta)
            ),
            format!(
                "left ρ = {} (worth ε = {} at δ = {}; one pure release of ε ≤ {} fits), and \
                 ε = {}, δ = {} for approximate releases",
                rounded(left.rho.unwrap_or(0.0), 6, Ordering::Less),
                rounded(left.epsilon, 6, Ordering::Less),
                typed(left.delta),
                rounded(left.pure_epsilon.unwrap_or(0.0), 6, Ordering::Less),
                typed(left.approximate_epsilon.unwrap_or(0.0)),
                typed(left.approximate_delta.unwrap_or(0.0))
            ),
        ),
    };
    (spent, left)
}

/// A ledger error about `path`.
fn ledger_error(
    message: String,
    source: Option<impl std::error::Error + Send + Sync + 'static>,
) -> Error {
    Error::Ledger {
        message,
        source: source.map(Source::new),
    }
}

/// A ledger error without an underlying error.
fn plain(message: String) -> Error {
    Error::Ledger {
        message,
        source: None,
    }
}

/// SQLite's error about `path`, said for people.
fn explain(path: &Path, what: &str, e: rusqlite::Error, timeout: Duration) -> Error {
    let shown = path.display();
    let code = e.sqlite_error_code();
    let message = match code {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            let waited = if timeout.is_zero() {
                String::new()
            } else {
                format!(" (waited {} s)", display::sig(timeout.as_secs_f64(), 3))
            };
            format!(
                "{shown} is locked by another process{waited}: try again when it is done, or \
                 wait longer"
            )
        }
        Some(ErrorCode::NotADatabase) => format!(
            "{shown} is not a disguise ledger (not an SQLite database, or its header is \
             damaged); it was not modified"
        ),
        Some(ErrorCode::DatabaseCorrupt) => {
            format!("{shown} is corrupt; it was not modified: restore it from a backup")
        }
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            format!("{shown}: {what}: the file or its folder is not writable")
        }
        _ => format!("{shown}: {what}"),
    };
    ledger_error(message, Some(e))
}

/// The names a query of one text column returns, in its order.
fn names(connection: &rusqlite::Connection, sql: &str) -> rusqlite::Result<Vec<String>> {
    let mut statement = connection.prepare(sql)?;
    statement.query_map([], |r| r.get(0))?.collect()
}
