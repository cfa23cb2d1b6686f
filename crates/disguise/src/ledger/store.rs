//! The ledger file: an SQLite database, opened, checked and written in transactions.

use super::{Calls, Costs, Limit, Release, Remaining, Spend, Spends, Status, Unit, own_cost};
use crate::error::{Error, Result, Source};
use crate::names::Named;
use crate::numeric::display;
use crate::privacy::{Delta, Guarantee};
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// The `application_id` of a ledger file (`PRAGMA application_id`): "dGLd".
pub const APPLICATION_ID: i32 = 0x6447_4c64;

/// The format of the ledger files this version writes (`PRAGMA user_version`); it reads
/// this format and every older one (upgrading format 1 in place: see the
/// [module documentation](super)), and refuses a newer one. Format 2 added the releases'
/// privacy unit.
pub const FORMAT: i32 = 2;

/// How long a ledger waits for another process's transaction before giving up.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

const SCHEMA: &str = "
CREATE TABLE limits (
    id INTEGER PRIMARY KEY,
    dataset TEXT NOT NULL,
    time TEXT NOT NULL,
    epsilon REAL NOT NULL CHECK (epsilon > 0),
    delta REAL NOT NULL CHECK (delta >= 0 AND delta < 1)
) STRICT;
CREATE INDEX limits_by_dataset ON limits (dataset, id);
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

/// What a successful reservation recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Receipt {
    /// The release's number in the ledger.
    pub id: i64,
    /// The data set's composed spend with this release.
    pub spent: Option<Guarantee>,
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
                     PRAGMA user_version = {FORMAT}; {SCHEMA} COMMIT;"
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

    /// Upgrades a format-1 file to the current format, in one transaction (a no-op when
    /// another process did it first): releases get their privacy unit, `record`, or `edge`
    /// for those whose command line ran `cut` (the only edge-level task).
    fn upgrade(&self) -> Result<()> {
        let connection = self.lock();
        let fail = |e| self.fail("cannot upgrade the ledger from format 1", e);
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
                .execute_batch(&format!(
                    "ALTER TABLE releases ADD COLUMN unit TEXT NOT NULL DEFAULT 'record' \
                     CHECK (unit IN ('record', 'edge')); \
                     UPDATE releases SET unit = 'edge' WHERE (CASE \
                     WHEN substr(command, 1, 1) = '''' \
                     THEN substr(command, instr(substr(command, 2), '''') + 3) \
                     ELSE substr(command, instr(command, ' ') + 1) END) || ' ' LIKE 'cut %'; \
                     PRAGMA user_version = {FORMAT};"
                ))
                .map_err(fail)?;
        }
        transaction.commit().map_err(fail)
    }

    /// Sets (or changes) the limit of `dataset`. Every limit set is kept in the file; the
    /// latest is in force. A limit below what is already spent refuses every further
    /// release.
    ///
    /// # Errors
    /// An invalid name ([`Error::InvalidParameter`]) or [`Error::Ledger`].
    pub fn set_limit(&self, dataset: &str, limit: Limit) -> Result<()> {
        super::check_name(dataset)?;
        Limit::new(limit.epsilon, limit.delta)?;
        let connection = self.lock();
        connection
            .execute(
                &format!(
                    "INSERT INTO limits (dataset, time, epsilon, delta) VALUES (?1, {NOW}, ?2, ?3)"
                ),
                rusqlite::params![dataset, limit.epsilon, limit.delta],
            )
            .map_err(|e| self.fail("cannot set the limit", e))?;
        Ok(())
    }

    /// The limit in force for `dataset`, if any.
    ///
    /// # Errors
    /// [`Error::Ledger`].
    pub fn limit(&self, dataset: &str) -> Result<Option<Limit>> {
        let connection = self.lock();
        limit_of(&connection, dataset).map_err(|e| self.fail("cannot read", e))
    }

    /// Records `spend` on `dataset` if the data set's limit allows it, in one transaction
    /// (see the [module documentation](super)); the caller releases its output only after
    /// this returns `Ok`.
    ///
    /// # Errors
    /// [`Error::BudgetExceeded`] (nothing recorded) with one line saying what the release
    /// costs, what is spent and what is left; [`Error::InvalidParameter`] naming `dataset`
    /// when the data set's releases protect another [`Unit`], or for an invalid spend or
    /// name; [`Error::Ledger`] (locked past the timeout, …).
    pub fn reserve(&self, dataset: &str, spend: &Spend) -> Result<Receipt> {
        super::check_name(dataset)?;
        spend.validate()?;
        let connection = self.lock();
        let fail = |e| self.fail("cannot record the release", e);
        // The write lock before the first read: no other process can record between our
        // reading the spend and our insert.
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Immediate)
                .map_err(fail)?;
        if let Some(unit) = self.unit_of(&transaction, dataset)?
            && unit != spend.unit
        {
            return Err(Error::param(
                "dataset",
                format!(
                    "data set {dataset} holds {unit}-level releases (they protect {}); this \
                     release is {}-level (it protects {}): the two do not compose into one \
                     budget — record it under another data set name",
                    unit.help(),
                    spend.unit,
                    spend.unit.help(),
                ),
            ));
        }
        let limit = limit_of(&transaction, dataset).map_err(fail)?;
        let before = self.costs_of(&transaction, dataset)?;
        let mut recorded = before.clone();
        recorded.add(spend)?;
        let spent = match limit {
            Some(limit) => {
                let spent = recorded.compose(Delta::new(limit.delta)?)?;
                let within =
                    spent.is_some_and(|g| g.epsilon <= limit.epsilon && g.delta <= limit.delta);
                if !within {
                    let so_far = before.compose(Delta::new(limit.delta)?)?;
                    return Err(refusal(dataset, spend, limit, so_far, before.releases));
                }
                spent
            }
            None => recorded.basic(),
        };
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
        transaction.commit().map_err(fail)?;
        Ok(Receipt { id, spent })
    }

    /// Runs `release` (which computes a result in memory and releases nothing), then
    /// records what the result spends ([`Ledger::reserve`]); the result is returned — for
    /// the caller to release — only once its spend is committed.
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
    /// let mut rng = SecureRng::from_os()?;
    /// let report = ledger.charge("pickups", "select k=2", || request.run(&points, &candidates, &mut rng))?;
    /// assert_eq!(report.selected.len(), 2);
    /// // The budget is spent: the next run is refused and its result never returned.
    /// assert!(ledger.charge("pickups", "select k=2", || request.run(&points, &candidates, &mut rng)).is_err());
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// The run's errors, then those of [`Ledger::reserve`] (a non-private result is
    /// refused).
    pub fn charge<T: Spends>(
        &self,
        dataset: &str,
        command: &str,
        release: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        super::check_name(dataset)?;
        let result = release()?;
        if let Some(spend) = result.spend()? {
            let spend = if spend.command.is_empty() {
                spend.command(command)
            } else {
                spend
            };
            self.reserve(dataset, &spend)?;
        }
        Ok(result)
    }

    /// The recorded releases, oldest first: of `dataset`, or of every data set.
    ///
    /// # Errors
    /// [`Error::Ledger`].
    pub fn releases(&self, dataset: Option<&str>) -> Result<Vec<Release>> {
        let connection = self.lock();
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

    /// The state of `dataset`: its limit, its releases' composed spend and what is left.
    ///
    /// # Errors
    /// [`Error::Ledger`].
    pub fn status(&self, dataset: &str) -> Result<Status> {
        let connection = self.lock();
        // One read transaction: the limit and the releases of the same moment.
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Deferred)
                .map_err(|e| self.fail("cannot read", e))?;
        let limit = limit_of(&transaction, dataset).map_err(|e| self.fail("cannot read", e))?;
        let recorded = self.costs_of(&transaction, dataset)?;
        let unit = self.unit_of(&transaction, dataset)?;
        drop(transaction);
        let spent = match limit {
            Some(limit) => recorded.compose(Delta::new(limit.delta)?)?,
            None => recorded.basic(),
        };
        let remaining = limit.map(|limit| match spent {
            None if recorded.releases == 0 => Remaining {
                epsilon: limit.epsilon,
                delta: limit.delta,
            },
            None => Remaining {
                epsilon: 0.0,
                delta: 0.0,
            },
            Some(g) => Remaining {
                epsilon: (limit.epsilon - g.epsilon).max(0.0),
                delta: (limit.delta - g.delta).max(0.0),
            },
        });
        Ok(Status {
            dataset: dataset.to_string(),
            limit,
            releases: recorded.releases,
            unit,
            spent,
            remaining,
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

    /// The recorded costs of `dataset`, grouped in SQL (a reservation reads a few groups, not
    /// every release).
    fn costs_of(&self, connection: &Connection, dataset: &str) -> Result<Costs> {
        let fail = |e| self.fail("cannot read the recorded releases", e);
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        let mut costs = Costs::default();
        let releases: i64 = connection
            .query_row(
                "SELECT COUNT(*) FROM releases WHERE dataset = ?1",
                [dataset],
                |r| r.get(0),
            )
            .map_err(fail)?;
        costs.releases = count(releases);
        // Each run as one call with its own guarantee; and, for the second view, the runs of
        // the releases that recorded no calls.
        let own = |sql: &str, into: &mut Vec<(crate::privacy::PrivacyCost, u64)>| -> Result<()> {
            let mut statement = connection.prepare(sql).map_err(fail)?;
            let rows = statement
                .query_map([dataset], |r| {
                    Ok((
                        r.get::<_, f64>(0)?,
                        r.get::<_, f64>(1)?,
                        r.get::<_, i64>(2)?,
                    ))
                })
                .map_err(fail)?;
            for row in rows {
                let (epsilon, delta, runs) = row.map_err(fail)?;
                let cost = own_cost(&Guarantee {
                    epsilon,
                    delta,
                    rule: crate::privacy::compose::Rule::Basic,
                })
                .map_err(|e| self.damaged(e))?;
                into.push((cost, count(runs)));
            }
            Ok(())
        };
        own(
            "SELECT epsilon, delta, SUM(runs) FROM releases WHERE dataset = ?1 \
             GROUP BY epsilon, delta",
            &mut costs.whole,
        )?;
        own(
            "SELECT epsilon, delta, SUM(runs) FROM releases WHERE dataset = ?1 AND NOT EXISTS \
             (SELECT 1 FROM calls WHERE calls.release = releases.id) GROUP BY epsilon, delta",
            &mut costs.parts,
        )?;
        let mut statement = connection
            .prepare(
                "SELECT calls.kind, calls.epsilon, calls.delta, SUM(calls.count * releases.runs) \
                 FROM calls JOIN releases ON releases.id = calls.release \
                 WHERE releases.dataset = ?1 GROUP BY calls.kind, calls.epsilon, calls.delta",
            )
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
        for row in rows {
            let (kind, epsilon, delta, calls) = row.map_err(fail)?;
            // A call of a kind this version does not know would be composed wrongly: refuse.
            let kind = Calls::kind_of(&kind).ok_or_else(|| {
                self.damaged(Error::parse(format!(
                    "a recorded call of unknown kind {kind:?}"
                )))
            })?;
            let group = Calls {
                kind,
                epsilon,
                delta,
                count: count(calls),
            };
            let cost = group.cost().map_err(|e| self.damaged(e))?;
            costs.parts.push((cost, group.count));
        }
        Ok(costs)
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

/// A recorded unit (the table's CHECK admits only these names).
fn unit_named(text: &str) -> rusqlite::Result<Unit> {
    Unit::from_name(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(10, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// The limit in force for `dataset`.
fn limit_of(connection: &Connection, dataset: &str) -> rusqlite::Result<Option<Limit>> {
    connection
        .query_row(
            "SELECT epsilon, delta FROM limits WHERE dataset = ?1 ORDER BY id DESC LIMIT 1",
            [dataset],
            |r| {
                Ok(Limit {
                    epsilon: r.get(0)?,
                    delta: r.get(1)?,
                })
            },
        )
        .optional()
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

/// The refusal of a release over the limit: one line.
fn refusal(
    dataset: &str,
    spend: &Spend,
    limit: Limit,
    so_far: Option<Guarantee>,
    releases: u64,
) -> Error {
    let g = display::guarantee;
    let runs = if spend.runs > 1 {
        format!(" × {} runs", display::thousands(spend.runs))
    } else {
        String::new()
    };
    let (spent, left) = match so_far {
        Some(s) => (
            format!(
                "spent ε = {}, δ = {} in {releases} release{} ({} composition)",
                g(s.epsilon),
                g(s.delta),
                if releases == 1 { "" } else { "s" },
                s.rule.name()
            ),
            format!(
                "left ε = {}, δ = {}",
                g((limit.epsilon - s.epsilon).max(0.0)),
                g((limit.delta - s.delta).max(0.0))
            ),
        ),
        None if releases == 0 => (
            "nothing spent yet".to_string(),
            format!("left ε = {}, δ = {}", g(limit.epsilon), g(limit.delta)),
        ),
        None => (
            format!("{releases} releases already exceed it"),
            "nothing left".to_string(),
        ),
    };
    let pure = if limit.delta == 0.0 && spend.guarantee.delta > 0.0 {
        " (the limit is pure ε-DP: a release with δ > 0 cannot fit)"
    } else {
        ""
    };
    Error::BudgetExceeded {
        dataset: dataset.to_string(),
        message: format!(
            "budget exceeded on data set {dataset}: this release costs ε = {}, δ = {}{runs}, \
             over the limit ε = {}, δ = {}{pure}; {spent}; {left}",
            g(spend.guarantee.epsilon),
            g(spend.guarantee.delta),
            g(limit.epsilon),
            g(limit.delta),
        ),
    }
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
