//! `--ledger`, `--dataset`, `--new-dataset`, `--ledger-timeout`: the privacy budget ledger
//! of a releasing command ([`disguise::ledger`]).

use crate::output::{flag_of, flagged};
use anyhow::bail;
use disguise::ledger::{Ledger, Name, Reserved, Spends};
use disguise::task::PrivacyReport;
use disguise::text;
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
    /// Confirm that --dataset names a new data set. A name the ledger does not hold that is
    /// one or two edits from one it does (`nursry` beside `nursery`, `adlut` beside `adult`;
    /// one edit when a name has at most 3 characters) is refused as a typo, which would give
    /// the same people a second budget, unless this flag says it is a different data set.
    /// A name that differs only by case, white space or invisible characters is refused
    /// even so. Once the data set exists, its name works without the flag.
    #[arg(long, requires = "dataset")]
    pub new_dataset: bool,
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
    /// Whether `--new-dataset` confirms the name as new.
    new: bool,
    command: String,
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
    pub fn open(&self) -> anyhow::Result<Option<Charge>> {
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
            .map_err(|e| flagged(e, &|_| "--dataset".into()))?
            .to_string();
        let ledger = open_ledger(file, self.ledger_timeout)?;
        Ok(Some(Charge {
            ledger,
            dataset,
            new: self.new_dataset,
            command: text::command_line(std::env::args_os()),
        }))
    }
}

impl LedgerArgs {
    /// [`LedgerArgs::open`] for a run that may be distributed: only process 0 records (the
    /// others release nothing).
    pub fn open_on(&self, cluster: &super::cluster::ClusterArgs) -> anyhow::Result<Option<Charge>> {
        if cluster.process.is_some_and(|p| p != 0) {
            return Ok(None);
        }
        self.open()
    }
}

impl Charge {
    /// Records what the request plans to spend (its report's privacy, from public
    /// parameters: the library's `plan`, at the unit the plan states), `runs` times (the
    /// trials released together), made with a `secure` generator or not — **before the data
    /// is read**; an error (exit code 3 when over the limit) means nothing may be read or
    /// released. A run that fails after this stays charged.
    pub fn reserve(
        &self,
        plan: &PrivacyReport,
        mechanism: &str,
        runs: u64,
        secure: bool,
    ) -> anyhow::Result<Reserved> {
        let spent = plan.spend().map_err(|e| flagged(e, &flag_of))?;
        let spend = match spent {
            Some(spend) => {
                let spend = spend
                    .runs(runs)
                    .secure(secure)
                    .mechanism(mechanism)
                    .command(self.command.clone());
                let name = if self.new {
                    Name::new_dataset(&self.dataset)
                } else {
                    Name::from(&self.dataset)
                };
                let receipt = self.ledger.reserve(name, &spend)?;
                let path = self.ledger.path();
                let line = text::charged_line(receipt.id, &spend, &self.dataset, path);
                let _ = CHARGED.set(line);
                Some(spend)
            }
            None => None,
        };
        Ok(Reserved { spend })
    }
}

/// What this process's release charged, once its reservation is recorded: a run that fails
/// after it says so, in words that are the same for every data set ([`charged`]).
static CHARGED: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// What was charged (`ε = …, δ = … stays charged to DATASET in FILE`), when a reservation was
/// recorded.
pub fn charged() -> Option<&'static str> {
    CHARGED.get().map(String::as_str)
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
