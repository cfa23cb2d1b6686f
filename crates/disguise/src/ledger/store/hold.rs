//! Reservations: the cost of a whole search (every fold of a cross-validation, every
//! candidate of a grid search) asked for before it runs ([`Ledger::price`]), recorded at
//! once if the data set's filter admits all of it ([`Ledger::hold`]), drawn by each of its
//! releases ([`Ledger::draw`]) and closed, what was not drawn given back
//! ([`Ledger::close_hold`]).
//!
//! A reservation is recorded as releases: one per distinct cost, with as many runs as fits
//! of that cost, admitted together in one transaction by the filter, exactly as if they
//! were one release of that many runs. A release of the search then draws one run of a
//! reserved release that covers it ([`super::super::within_reservation`]) — in its own
//! transaction, before it reads the data, from any process — instead of reserving anew. A
//! run that is never drawn was never released: closing the reservation lowers each
//! release's runs to those drawn (and removes a release none drew). The filter's
//! condition holds for the releases made: they are a part of a sequence the filter
//! admitted, and every filter here only grows with its releases
//! (`docs/proofs/ledger-composition.md`, "Reservations"). A reservation left open — its
//! process killed — stays charged in full: the conservative side.

use super::{Ledger, NOW, Receipt};
use crate::error::{Error, Result};
use crate::ledger::filter::{Remaining, Spent};
use crate::ledger::{Limit, Release, Spend, within_reservation};
use crate::names::Named;
use crate::privacy::Guarantee;
use crate::privacy::compose::Rule;
use rusqlite::{OptionalExtension, TransactionBehavior};
use serde::Serialize;

/// What a search would cost on a data set, asked before it runs ([`Ledger::price`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Price {
    /// The data set.
    pub dataset: String,
    /// Its limit (or the ledger's default, which its first release would make its own);
    /// `None` without either.
    pub limit: Option<Limit>,
    /// What the search's releases spend, alone, as the limit's filter counts it (by the
    /// basic filter without a limit).
    pub cost: Spent,
    /// What is left now (`None` without a limit).
    pub remaining: Option<Remaining>,
    /// What would be left after the search (`None` when it does not fit).
    pub remaining_after: Option<Remaining>,
    /// Whether the limit admits every release of the search.
    pub fits: bool,
}

/// A reservation recorded ([`Ledger::hold`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hold {
    /// Its number, which its releases draw from.
    pub id: i64,
    /// The releases that hold it, one per distinct cost.
    pub releases: Vec<i64>,
    /// What the data set's releases have spent with it, as its filter counts it.
    pub spent: Spent,
}

/// A reservation closed ([`Ledger::close_hold`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Closed {
    /// Its number.
    pub id: i64,
    /// Runs reserved.
    pub reserved: u64,
    /// Runs drawn by releases (charged).
    pub drawn: u64,
    /// Runs never drawn, given back to the data set's budget.
    pub returned: u64,
}

impl Ledger {
    /// What releases of `parts` (one spend each, with as many runs as releases of that
    /// cost) would cost on `dataset` (its name trimmed) under its filter, and whether they
    /// all fit now. Reads only.
    ///
    /// # Errors
    /// An invalid or alike name, a part of another unit than the data set's, an invalid
    /// spend ([`Error::InvalidParameter`]); [`Error::Ledger`].
    pub fn price(&self, dataset: &str, parts: &[Spend]) -> Result<Price> {
        let dataset = crate::ledger::check_name(dataset)?;
        let connection = self.lock();
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Deferred)
                .map_err(|e| self.fail("cannot read", e))?;
        let view = self.view(&transaction, dataset, false, parts)?;
        let alone = {
            let mut totals = crate::ledger::filter::Totals::default();
            for part in parts {
                totals.add_spend(part)?;
            }
            totals
        };
        let fits = view.limit.is_some_and(|l| view.after.within(&l));
        Ok(Price {
            dataset: dataset.to_string(),
            cost: alone.spent(view.limit.as_ref()),
            remaining: view.limit.map(|l| view.before.remaining(&l)),
            remaining_after: view
                .limit
                .filter(|_| fits)
                .map(|l| view.after.remaining(&l)),
            limit: view.limit,
            fits,
        })
    }

    /// Records a reservation of `parts` on `dataset` (its name trimmed) for the search that
    /// `command` describes, if the data set's limit admits all of them together, in one
    /// transaction, as one release of that many runs would be; its releases then draw from it
    /// ([`Ledger::draw`]) until it is closed ([`Ledger::close_hold`]).
    ///
    /// ```
    /// use disguise::ledger::{Ledger, Limit, Spend, Unit};
    /// use disguise::privacy::{Guarantee, compose::Rule};
    /// # let dir = tempfile::tempdir().unwrap();
    /// let ledger = Ledger::create(&dir.path().join("budget.ledger"))?;
    /// ledger.set_limit("adult", Limit::new(1.0, 0.0)?)?;
    /// let fit = Spend::protecting(Unit::Record, Guarantee { epsilon: 0.2, delta: 0.0, rule: Rule::Single });
    /// // Five folds at 0.2 fit a limit of 1; six would not, and are refused whole.
    /// assert!(ledger.hold("adult", &[fit.clone().runs(6)], "cv=6").is_err());
    /// let hold = ledger.hold("adult", &[fit.clone().runs(5)], "cv=5")?;
    /// for _ in 0..4 {
    ///     ledger.draw(hold.id, "adult", &fit)?; // each fold, before it reads the data
    /// }
    /// let closed = ledger.close_hold(hold.id)?; // one fold never ran: its 0.2 comes back
    /// assert_eq!((closed.drawn, closed.returned), (4, 1));
    /// assert_eq!(ledger.status("adult")?.remaining.unwrap().epsilon, 0.2);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::BudgetExceeded`] (nothing recorded) when the parts do not all fit, with one
    /// line saying what they cost and what is left; otherwise as [`Ledger::reserve`].
    pub fn hold(&self, dataset: &str, parts: &[Spend], command: &str) -> Result<Hold> {
        let dataset = crate::ledger::check_name(dataset)?;
        if parts.is_empty() {
            return Err(Error::param(
                "parts",
                "a reservation holds at least one release",
            ));
        }
        let connection = self.lock();
        let fail = |e| self.fail("cannot record the reservation", e);
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Immediate)
                .map_err(fail)?;
        let view = self.admit(&transaction, dataset, false, parts)?;
        if !view.after.within(&view.limit) {
            let runs: u64 = parts.iter().map(|p| p.runs).sum();
            let mut alone = crate::ledger::filter::Totals::default();
            for part in parts {
                alone.add_spend(part)?;
            }
            let cost = alone.spent(Some(&view.limit));
            let cost = match cost.rho {
                Some(rho) => format!(
                    "ρ = {} (and ε = {}, δ = {} by approximate releases)",
                    crate::numeric::decimal::rounded(rho, 6, std::cmp::Ordering::Greater),
                    crate::numeric::decimal::typed(cost.epsilon),
                    crate::numeric::decimal::typed(cost.delta)
                ),
                None => format!(
                    "ε = {}, δ = {}",
                    crate::numeric::decimal::typed(cost.epsilon),
                    crate::numeric::decimal::typed(cost.delta)
                ),
            };
            return Err(Error::BudgetExceeded {
                dataset: dataset.to_string(),
                message: format!(
                    "budget exceeded on data set {dataset}: {command} makes {runs} releases \
                     that cost {cost} together, more than is left; {}; nothing was reserved \
                     or released",
                    self.words(&view.before, &view.limit)
                ),
            });
        }
        transaction
            .execute(
                &format!("INSERT INTO holds (dataset, time, command) VALUES (?1, {NOW}, ?2)"),
                rusqlite::params![dataset, command],
            )
            .map_err(fail)?;
        let id = transaction.last_insert_rowid();
        let mut releases = Vec::with_capacity(parts.len());
        for part in parts {
            let part = part
                .clone()
                .command(format!("reserved for {command} (reservation {id})"));
            let release = self.record(&transaction, dataset, &part)?;
            transaction
                .execute(
                    "INSERT INTO held (release, hold, reserved) VALUES (?1, ?2, ?3)",
                    rusqlite::params![release, id, runs_of(part.runs)?],
                )
                .map_err(fail)?;
            releases.push(release);
        }
        transaction.commit().map_err(fail)?;
        Ok(Hold {
            id,
            releases,
            spent: view.after.spent(Some(&view.limit)),
        })
    }

    /// Records a release of `spend` on `dataset` as drawn from the reservation `hold`: one
    /// of its runs not yet drawn whose reserved spend covers `spend` (the same cost first,
    /// then the smallest that covers it). Call it, as [`Ledger::reserve`], before the data
    /// is read; the receipt names the reserved release drawn from.
    ///
    /// # Errors
    /// [`Error::BudgetExceeded`] (nothing recorded) when no run of the reservation is left
    /// that covers `spend`; [`Error::InvalidParameter`] naming `ledger` for a reservation
    /// that does not exist, is closed or holds another data set; [`Error::Ledger`].
    pub fn draw(&self, hold: i64, dataset: &str, spend: &Spend) -> Result<Receipt> {
        let dataset = crate::ledger::check_name(dataset)?;
        let connection = self.lock();
        let fail = |e| self.fail("cannot draw from the reservation", e);
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Immediate)
                .map_err(fail)?;
        let found: Option<(String, Option<String>)> = transaction
            .query_row(
                "SELECT dataset, closed FROM holds WHERE id = ?1",
                [hold],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(fail)?;
        match found {
            None => {
                return Err(Error::param(
                    "ledger",
                    format!("no reservation {hold} in {}", self.path.display()),
                ));
            }
            Some((_, Some(closed))) => {
                return Err(Error::param(
                    "ledger",
                    format!("reservation {hold} was closed at {closed}: reserve again"),
                ));
            }
            Some((held, None)) if held != dataset => {
                return Err(Error::param(
                    "dataset",
                    format!("reservation {hold} holds data set {held}, not {dataset}"),
                ));
            }
            Some(_) => {}
        }
        let parts = self.parts(&transaction, hold)?;
        let wanted = spend.clone().runs(1);
        let left = |p: &Part| p.reserved.saturating_sub(p.drawn) >= spend.runs;
        let covering = |p: &&Part| left(p) && within_reservation(&p.each, &wanted);
        let chosen = parts
            .iter()
            .filter(covering)
            .find(|p| p.each.guarantee == wanted.guarantee && p.each.calls == wanted.calls)
            .or_else(|| {
                parts.iter().filter(covering).min_by(|a, b| {
                    let key = |p: &Part| (p.each.guarantee.epsilon, p.each.guarantee.delta);
                    key(a)
                        .partial_cmp(&key(b))
                        .unwrap_or(std::cmp::Ordering::Equal)
                })
            });
        let Some(part) = chosen else {
            let held: Vec<String> = parts
                .iter()
                .map(|p| {
                    format!(
                        "{} of {} runs of ε = {}, δ = {} drawn",
                        p.drawn,
                        p.reserved,
                        crate::numeric::display::guarantee(p.each.guarantee.epsilon),
                        crate::numeric::display::guarantee(p.each.guarantee.delta)
                    )
                })
                .collect();
            return Err(Error::BudgetExceeded {
                dataset: dataset.to_string(),
                message: format!(
                    "budget exceeded on data set {dataset}: reservation {hold} has no run left \
                     that covers this release (ε = {}, δ = {}; it holds {}); nothing was \
                     released",
                    crate::numeric::display::guarantee(spend.guarantee.epsilon),
                    crate::numeric::display::guarantee(spend.guarantee.delta),
                    held.join("; ")
                ),
            });
        };
        transaction
            .execute(
                &format!(
                    "INSERT INTO draws (release, time, command, runs, secure) \
                     VALUES (?1, {NOW}, ?2, ?3, ?4)"
                ),
                rusqlite::params![
                    part.release,
                    spend.command,
                    runs_of(spend.runs)?,
                    spend.secure
                ],
            )
            .map_err(fail)?;
        let limit = super::limit_of(&transaction, dataset)
            .map_err(fail)?
            .ok_or_else(|| {
                self.damaged(Error::parse("a reservation of a data set without a limit"))
            })?;
        let totals = self.totals_of(&transaction, dataset)?;
        transaction.commit().map_err(fail)?;
        Ok(Receipt {
            id: part.release,
            spent: totals.spent(Some(&limit)),
        })
    }

    /// Closes the reservation `hold`: each of its releases keeps the runs drawn (one none
    /// drew is removed), and what was not drawn is given back to the data set's budget.
    /// Closing a closed reservation changes nothing and says what it did then.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `ledger` for a reservation that does not exist;
    /// [`Error::Ledger`].
    pub fn close_hold(&self, hold: i64) -> Result<Closed> {
        let connection = self.lock();
        let fail = |e| self.fail("cannot close the reservation", e);
        let transaction =
            rusqlite::Transaction::new_unchecked(&connection, TransactionBehavior::Immediate)
                .map_err(fail)?;
        let closed: Option<Option<String>> = transaction
            .query_row("SELECT closed FROM holds WHERE id = ?1", [hold], |r| {
                r.get(0)
            })
            .optional()
            .map_err(fail)?;
        let Some(closed) = closed else {
            return Err(Error::param(
                "ledger",
                format!("no reservation {hold} in {}", self.path.display()),
            ));
        };
        let parts = self.parts(&transaction, hold)?;
        let reserved: u64 = parts.iter().map(|p| p.reserved).sum();
        let drawn: u64 = parts.iter().map(|p| p.drawn.min(p.reserved)).sum();
        if closed.is_none() {
            for part in &parts {
                if part.drawn == 0 {
                    transaction
                        .execute("DELETE FROM calls WHERE release = ?1", [part.release])
                        .map_err(fail)?;
                    transaction
                        .execute("DELETE FROM releases WHERE id = ?1", [part.release])
                        .map_err(fail)?;
                } else {
                    transaction
                        .execute(
                            "UPDATE releases SET runs = ?1 WHERE id = ?2",
                            rusqlite::params![
                                runs_of(part.drawn.min(part.reserved))?,
                                part.release
                            ],
                        )
                        .map_err(fail)?;
                }
            }
            transaction
                .execute(
                    &format!("UPDATE holds SET closed = {NOW} WHERE id = ?1"),
                    [hold],
                )
                .map_err(fail)?;
        }
        transaction.commit().map_err(fail)?;
        Ok(Closed {
            id: hold,
            reserved,
            drawn,
            returned: reserved - drawn,
        })
    }

    /// The parts of the reservation `hold`: each reserved release, its spend per run, and
    /// its runs reserved and drawn.
    fn parts(&self, connection: &rusqlite::Connection, hold: i64) -> Result<Vec<Part>> {
        let fail = |e| self.fail("cannot read the reservation", e);
        let mut statement = connection
            .prepare(
                "SELECT held.release, held.reserved, \
                 (SELECT COALESCE(SUM(draws.runs), 0) FROM draws WHERE draws.release = held.release) \
                 FROM held WHERE held.hold = ?1 ORDER BY held.release",
            )
            .map_err(fail)?;
        let rows: Vec<(i64, i64, i64)> = statement
            .query_map([hold], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(fail)?
            .collect::<rusqlite::Result<_>>()
            .map_err(fail)?;
        let released = super::releases_by_id(connection, rows.iter().map(|r| r.0)).map_err(fail)?;
        let mut parts = Vec::with_capacity(rows.len());
        for (release, reserved, drawn) in rows {
            // A part none drew, of a closed reservation, is gone from the releases.
            let Some(record) = released.iter().find(|r| r.id == release) else {
                continue;
            };
            parts.push(Part {
                release,
                each: self.spend_of(record)?,
                reserved: u64::try_from(reserved).unwrap_or(0),
                drawn: u64::try_from(drawn).unwrap_or(0),
            });
        }
        Ok(parts)
    }

    /// One run of a recorded release, as the spend it was reserved for.
    fn spend_of(&self, release: &Release) -> Result<Spend> {
        let rule = Rule::from_name(&release.rule).map_err(|e| self.damaged(e))?;
        let calls = release
            .calls
            .iter()
            .map(|c| c.cost().map(|cost| (cost, c.count)))
            .collect::<Result<Vec<_>>>()
            .map_err(|e| self.damaged(e))?;
        Ok(Spend {
            calls,
            mechanism: release.mechanism.clone(),
            secure: release.secure,
            ..Spend::protecting(
                release.unit,
                Guarantee {
                    epsilon: release.epsilon,
                    delta: release.delta,
                    rule,
                },
            )
        })
    }
}

/// A reserved release: its number, one run's spend, runs reserved and drawn.
struct Part {
    release: i64,
    each: Spend,
    reserved: u64,
    drawn: u64,
}

/// A number of runs as SQLite stores it.
fn runs_of(runs: u64) -> Result<i64> {
    i64::try_from(runs).map_err(|_| Error::param("runs", "more than 2^63 runs"))
}

#[cfg(test)]
mod tests {
    use crate::error::Error;
    use crate::ledger::{FORMAT, Ledger, Limit, Spend, Unit};
    use crate::privacy::{Epsilon, Guarantee, PrivacyCost, compose::Rule};

    fn fit(epsilon: f64) -> Spend {
        Spend::protecting(
            Unit::Record,
            Guarantee {
                epsilon,
                delta: 0.0,
                rule: Rule::Single,
            },
        )
    }

    /// k exponential-mechanism calls of ε/k, as a selection reports them.
    fn selection(epsilon: f64, k: u64) -> Spend {
        let each = Epsilon::new(epsilon / k as f64).unwrap();
        Spend {
            calls: vec![(PrivacyCost::BoundedRange { epsilon: each }, k)],
            ..fit(epsilon)
        }
    }

    fn ledger(limit: Limit) -> (tempfile::TempDir, Ledger) {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::create(&dir.path().join("b.ledger")).unwrap();
        ledger.set_limit("adult", limit).unwrap();
        (dir, ledger)
    }

    #[test]
    fn a_reservation_is_all_or_nothing_and_its_draws_are_counted() {
        let (_dir, ledger) = ledger(Limit::new(1.0, 0.0).unwrap());
        let refused = ledger.hold("adult", &[fit(0.2).runs(3), fit(0.3).runs(2)], "search");
        assert!(
            matches!(refused, Err(Error::BudgetExceeded { .. })),
            "{refused:?}"
        );
        assert!(ledger.releases(Some("adult")).unwrap().is_empty());
        let hold = ledger
            .hold("adult", &[fit(0.2).runs(2), fit(0.3).runs(2)], "search")
            .unwrap();
        assert_eq!(hold.releases.len(), 2);
        // Reserved in full: nothing else fits meanwhile.
        assert!(ledger.reserve("adult", &fit(0.1)).is_err());
        // A draw of a cost not reserved, or beyond the runs reserved, is refused.
        assert!(ledger.draw(hold.id, "adult", &fit(0.5)).is_err());
        ledger
            .draw(hold.id, "adult", &fit(0.3).command("a"))
            .unwrap();
        ledger
            .draw(hold.id, "adult", &fit(0.3).command("b"))
            .unwrap();
        // A smaller release draws a larger reserved run once the same cost is gone.
        ledger.draw(hold.id, "adult", &fit(0.2)).unwrap();
        ledger.draw(hold.id, "adult", &fit(0.25)).unwrap_err();
        ledger.draw(hold.id, "adult", &fit(0.1)).unwrap();
        let gone = ledger.draw(hold.id, "adult", &fit(0.1)).unwrap_err();
        assert!(gone.to_string().contains("no run left"), "{gone}");
        let closed = ledger.close_hold(hold.id).unwrap();
        assert_eq!((closed.reserved, closed.drawn, closed.returned), (4, 4, 0));
        // Closed: no more draws; closing again changes nothing.
        assert!(ledger.draw(hold.id, "adult", &fit(0.1)).is_err());
        assert_eq!(ledger.close_hold(hold.id).unwrap(), closed);
        assert_eq!(
            ledger.status("adult").unwrap().remaining.unwrap().epsilon,
            0.0
        );
    }

    #[test]
    fn what_no_release_drew_is_given_back_when_the_reservation_closes() {
        let (_dir, ledger) = ledger(Limit::new(1.0, 0.0).unwrap());
        let hold = ledger
            .hold("adult", &[fit(0.2).runs(3), fit(0.3).runs(1)], "cv")
            .unwrap();
        ledger.draw(hold.id, "adult", &fit(0.2)).unwrap();
        let closed = ledger.close_hold(hold.id).unwrap();
        assert_eq!((closed.drawn, closed.returned), (1, 3));
        let releases = ledger.releases(Some("adult")).unwrap();
        // The 0.3 part none drew is gone; the 0.2 part keeps its one run.
        assert_eq!(releases.len(), 1);
        assert_eq!((releases[0].runs, releases[0].epsilon), (1, 0.2));
        assert!(releases[0].command.contains("reservation"));
        assert_eq!(
            ledger.status("adult").unwrap().remaining.unwrap().epsilon,
            0.8
        );
        ledger.reserve("adult", &fit(0.8)).unwrap();
    }

    #[test]
    fn draws_from_other_handles_share_the_reservation() {
        let (dir, ledger) = ledger(Limit::new(1.0, 0.0).unwrap());
        let hold = ledger.hold("adult", &[fit(0.25).runs(4)], "cv").unwrap();
        let others: Vec<Ledger> = (0..2)
            .map(|_| Ledger::open(&dir.path().join("b.ledger")).unwrap())
            .collect();
        std::thread::scope(|s| {
            for other in &others {
                s.spawn(|| {
                    other.draw(hold.id, "adult", &fit(0.25)).unwrap();
                    other.draw(hold.id, "adult", &fit(0.25)).unwrap();
                });
            }
        });
        assert!(ledger.draw(hold.id, "adult", &fit(0.25)).is_err());
        assert_eq!(ledger.close_hold(hold.id).unwrap().drawn, 4);
    }

    #[test]
    fn the_price_of_a_search_is_read_under_the_data_sets_filter() {
        let (_dir, ledger) = ledger(Limit::zcdp(1.0, 1e-6).unwrap());
        // 30 selections at ε = 0.1 do not fit a basic (1, 0) but fit zCDP's (1, 1e-6).
        let parts = [selection(0.1, 5).runs(30)];
        let price = ledger.price("adult", &parts).unwrap();
        assert!(price.fits, "{price:?}");
        assert!(price.cost.rho.unwrap() > 0.0);
        let after = price.remaining_after.unwrap();
        assert!(after.rho.unwrap() < price.remaining.unwrap().rho.unwrap());
        // Pricing records nothing.
        assert!(ledger.releases(Some("adult")).unwrap().is_empty());
        let too_many = ledger
            .price("adult", &[selection(0.1, 5).runs(3000)])
            .unwrap();
        assert!(!too_many.fits && too_many.remaining_after.is_none());
        // Another unit cannot be priced on a data set of records once it has releases.
        ledger.reserve("adult", &selection(0.1, 5)).unwrap();
        assert!(ledger.price("adult", &[fit(0.1).unit(Unit::Edge)]).is_err());
        assert!(
            ledger
                .hold("adult", &[fit(0.1).unit(Unit::Edge)], "x")
                .is_err()
        );
    }

    #[test]
    fn draws_name_their_reservation_and_data_set() {
        let (_dir, ledger) = ledger(Limit::new(1.0, 0.0).unwrap());
        ledger
            .set_limit("car", Limit::new(1.0, 0.0).unwrap())
            .unwrap();
        let hold = ledger.hold("adult", &[fit(0.5)], "one").unwrap();
        assert!(ledger.draw(hold.id, "car", &fit(0.5)).is_err());
        assert!(ledger.draw(hold.id + 1, "adult", &fit(0.5)).is_err());
        assert!(ledger.close_hold(hold.id + 1).is_err());
        assert!(ledger.hold("adult", &[], "none").is_err());
    }

    #[test]
    fn a_format_3_ledger_gains_the_reservation_tables() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.ledger");
        drop(Ledger::create(&path).unwrap());
        {
            let c = rusqlite::Connection::open(&path).unwrap();
            c.execute_batch(
                "DROP TABLE draws; DROP TABLE held; DROP TABLE holds; PRAGMA user_version = 3;",
            )
            .unwrap();
        }
        let ledger = Ledger::open(&path).unwrap();
        ledger
            .set_limit("adult", Limit::new(1.0, 0.0).unwrap())
            .unwrap();
        let hold = ledger.hold("adult", &[fit(0.5)], "one").unwrap();
        ledger.draw(hold.id, "adult", &fit(0.5)).unwrap();
        let version: i32 = rusqlite::Connection::open(&path)
            .unwrap()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, FORMAT);
    }
}
