//! `--ledger`, `--dataset`, `--ledger-timeout`: the privacy budget ledger of a releasing
//! command ([`disguise::ledger`]).

use anyhow::bail;
use disguise::ledger::{Ledger, Spends, Unit};
use disguise::privacy::Guarantee;
use disguise::task::PrivacyReport;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where a release is recorded, and under which data set.
#[derive(clap::Args, Debug, Clone)]
#[command(next_help_heading = "Budget ledger")]
pub struct LedgerArgs {
    /// Record this release in a privacy budget ledger (create one with `disguise ledger
    /// init FILE`); if the data set's limit would be exceeded, nothing is released and the
    /// command exits with code 3. Default: $DISGUISE_LEDGER, else no ledger.
    #[arg(long, value_name = "FILE", env = "DISGUISE_LEDGER", hide_env = true)]
    pub ledger: Option<PathBuf>,
    /// The data set's name in the ledger (one budget per name; required with a ledger).
    /// Example: `--dataset adult`.
    #[arg(long, value_name = "NAME")]
    pub dataset: Option<String>,
    /// Seconds to wait while another process holds the ledger.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        allow_negative_numbers = true
    )]
    pub ledger_timeout: f64,
}

/// An open ledger and the data set a run charges.
pub struct Charge {
    ledger: Ledger,
    dataset: String,
    command: String,
    unit: Option<Unit>,
}

impl LedgerArgs {
    /// The ledger file, if any (an empty `DISGUISE_LEDGER` is none).
    pub fn file(&self) -> Option<&Path> {
        self.ledger.as_deref().filter(|p| !p.as_os_str().is_empty())
    }

    /// Opens the ledger (before any data is read for the run: a ledger that cannot be used
    /// fails first) and checks the data set's name, which a release under a ledger must
    /// give (a name derived from the input would give the same data a new, unlimited budget
    /// whenever a byte of the file changed). `None` without a ledger.
    pub fn open(&self, _inputs: &[&Path], _named_only: bool) -> anyhow::Result<Option<Charge>> {
        let Some(file) = self.file() else {
            if self.dataset.is_some() {
                bail!("invalid --dataset: it names a data set in a ledger; give --ledger FILE");
            }
            return Ok(None);
        };
        let Some(name) = &self.dataset else {
            bail!(
                "missing --dataset NAME: a release under a ledger names its data set, one \
                 budget per name (e.g. --dataset adult; set its limit with `disguise ledger \
                 limit`)"
            );
        };
        let dataset = disguise::ledger::check_name(name)
            .map_err(|e| crate::output::flagged(e, &|_| "--dataset".into()))?
            .to_string();
        let ledger = open_ledger(file, self.ledger_timeout)?;
        Ok(Some(Charge {
            ledger,
            dataset,
            command: command_line(),
            unit: None,
        }))
    }
}

impl LedgerArgs {
    /// [`LedgerArgs::open`] for a run that may be distributed: only process 0 records (the
    /// others release nothing).
    pub fn open_on(
        &self,
        inputs: &[&Path],
        cluster: &super::cluster::ClusterArgs,
    ) -> anyhow::Result<Option<Charge>> {
        if cluster.process.is_some_and(|p| p != 0) {
            return Ok(None);
        }
        self.open(inputs, cluster.hosts.is_some())
    }
}

impl Charge {
    /// The same charge for a task whose guarantee protects `unit` (the default: one
    /// person's record), e.g. `cut`'s edges.
    pub fn unit(mut self, unit: Unit) -> Self {
        self.unit = Some(unit);
        self
    }

    /// Records what the request plans to spend (its report's privacy, from public
    /// parameters: the library's `plan`), `runs` times (the trials released together), made
    /// with a `secure` generator or not — **before the data is read**; an error (exit code 3
    /// when over the limit) means nothing may be read or released. A run that fails after
    /// this stays charged.
    pub fn reserve(
        &self,
        plan: &PrivacyReport,
        mechanism: &str,
        runs: u64,
        secure: bool,
    ) -> anyhow::Result<Reserved> {
        let spent = plan
            .spend()
            .map_err(|e| crate::output::flagged(e, &crate::output::flag_of))?;
        if let Some(spend) = spent {
            let mut spend = spend
                .runs(runs)
                .secure(secure)
                .mechanism(mechanism)
                .command(self.command.clone());
            if let Some(unit) = self.unit {
                spend = spend.unit(unit);
            }
            self.ledger.reserve(&self.dataset, &spend)?;
        }
        Ok(Reserved {
            planned: plan.guarantee,
        })
    }
}

/// A reservation made before the data was read: what the run may report.
pub struct Reserved {
    planned: Option<Guarantee>,
}

impl Reserved {
    /// Checks that a run's guarantee is within what was reserved (the library plans each
    /// run by the same accounting; a run beyond its plan would be a bug, and releases
    /// nothing).
    pub fn check(&self, actual: Option<Guarantee>) -> anyhow::Result<()> {
        if !disguise::ledger::within_plan(self.planned, actual) {
            bail!(
                "internal error: the run's guarantee {actual:?} exceeds what was reserved \
                 ({:?}); nothing was released (please report this)",
                self.planned
            );
        }
        Ok(())
    }
}

/// Opens the ledger `file`, waiting up to `timeout` seconds (`--ledger-timeout`) for another
/// process holding it.
pub fn open_ledger(file: &Path, timeout: f64) -> anyhow::Result<Ledger> {
    if !(timeout.is_finite() && (0.0..=1e6).contains(&timeout)) {
        bail!("invalid --ledger-timeout: {timeout} (seconds, 0 to 10^6)");
    }
    Ok(Ledger::open_with(file, Duration::from_secs_f64(timeout))?)
}

/// Refuses a non-private run under a ledger before it runs.
pub fn refuse_non_private(ledger: bool, private: bool) -> anyhow::Result<()> {
    if ledger && !private {
        bail!(
            "invalid --mechanism: max is not private, so a budget ledger cannot account for \
             it (choose a private mechanism, or drop --ledger)"
        );
    }
    Ok(())
}

/// This process's command line, for the audit log: each argument shell-quoted when it
/// needs it.
fn command_line() -> String {
    std::env::args_os()
        .map(|a| {
            let a = a.to_string_lossy().into_owned();
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_alphanumeric() || "-_./=:,+@%^".contains(c));
            if plain {
                a
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
