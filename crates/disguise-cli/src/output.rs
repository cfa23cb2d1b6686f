//! Output formats shared by every command.

use clap::ValueEnum;

/// How a command prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// A human-readable table.
    #[default]
    Table,
    /// One JSON document on stdout, for scripts.
    Json,
}

/// Prints a report as pretty JSON on stdout, streamed (a large document is never held as
/// one string): its release ([`disguise::disclosure::Disclose`]: public and released values
/// only), and with `diagnostics` its diagnostics under `not_private`.
pub fn print_json<T: disguise::disclosure::Disclose>(
    report: &T,
    diagnostics: bool,
) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, &disguise::disclosure::shown(report, diagnostics))?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// Prints a release's report: as JSON ([`print_json`]), or for people as its `table`,
/// followed with `diagnostics` by its diagnostics ([`disguise::text::with_not_private`]).
pub fn print_report<T: disguise::disclosure::Disclose>(
    format: Format,
    report: &T,
    diagnostics: bool,
    table: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    match format {
        Format::Json => print_json(report, diagnostics),
        Format::Table => {
            let text = disguise::text::with_not_private(table(), report, diagnostics);
            print!("{text}");
            Ok(())
        }
    }
}

/// Warns on stderr that a seeded run is reproducible and therefore not private.
pub fn warn_insecure_seed(seed: u64) {
    eprintln!(
        "warning: --seed {seed} makes this run reproducible and NOT private \
         (insecure generator; for tests and experiments only)"
    );
}

/// How a command whose result is a list of rows prints it: [`Format`] plus CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum RowFormat {
    /// A human-readable table.
    #[default]
    Table,
    /// One JSON document on stdout, for scripts.
    Json,
    /// CSV with a header row on stdout, one row per result line (for spreadsheets).
    Csv,
}

/// CSV on stdout written row by row, for output produced while the work runs (one row per
/// trial), so that nothing is held in memory.
pub struct CsvOut {
    writer: csv::Writer<std::io::StdoutLock<'static>>,
}

impl CsvOut {
    /// Starts the CSV with its header row.
    pub fn new(header: &[&str]) -> anyhow::Result<Self> {
        let mut writer = csv::Writer::from_writer(std::io::stdout().lock());
        writer.write_record(header)?;
        Ok(Self { writer })
    }

    /// Writes one row.
    pub fn row<F: AsRef<[u8]>>(&mut self, row: &[F]) -> anyhow::Result<()> {
        self.writer.write_record(row)?;
        Ok(())
    }

    /// Flushes what is left.
    pub fn finish(mut self) -> anyhow::Result<()> {
        self.writer.flush()?;
        Ok(())
    }
}

/// The generator of a run: the operating system's CSPRNG, or with `--seed` the insecure
/// seeded one (after the warning on stderr).
pub fn rng_from_seed(seed: Option<u64>) -> anyhow::Result<disguise::SecureRng> {
    Ok(match seed {
        Some(seed) => {
            warn_insecure_seed(seed);
            disguise::SecureRng::insecure_from_seed(seed)
        }
        None => disguise::SecureRng::from_os()?,
    })
}

/// A progress bar and a spinner on stderr (see [`disguise::progress`]).
pub use disguise::progress::{bar as progress_bar, spinner};

// ---------------------------------------------------------------------------------------
// Privacy parameters
// ---------------------------------------------------------------------------------------

/// Checks an ε given with `flag` ([`disguise::privacy::Epsilon::total`]: finite, > 0 and
/// at most [`MAX_EPSILON`](disguise::privacy::MAX_EPSILON)), with a message that names the flag.
pub fn check_epsilon(flag: &str, epsilon: f64) -> anyhow::Result<()> {
    disguise::privacy::Epsilon::total(epsilon)
        .map(|_| ())
        .map_err(|e| flagged(e, &|_| flag.to_string()))
}

/// A library error for the command line, with each parameter named by its flag (`flag` maps
/// a library parameter name such as `k` to the flag, e.g. `--k`).
pub fn flagged(error: disguise::Error, flag: &dyn Fn(&str) -> String) -> anyhow::Error {
    match error {
        disguise::Error::InvalidParameter { name, reason } => {
            anyhow::anyhow!("invalid {}: {reason}", flag(name))
        }
        disguise::Error::InvalidEpsilon(e) => {
            anyhow::anyhow!(
                "{}: epsilon must be finite and > 0, got {e}",
                flag("epsilon")
            )
        }
        disguise::Error::InvalidDelta(d) => {
            anyhow::anyhow!("{}: delta must be in [0, 1), got {d}", flag("delta"))
        }
        other => other.into(),
    }
}

/// The flag of a library parameter: `k` → `--k`, `gradient_samples` → `--gradient-samples`.
pub fn flag_of(name: &str) -> String {
    format!("--{}", name.replace('_', "-"))
}

/// The end of a run that completed without releasing anything (every selection round found
/// no margin, or no histogram cell passed its threshold): its report has been printed, and
/// the process exits with [`NOTHING_RELEASED`] after one `nothing released: …` line on stderr
/// giving the reason and what would help.
#[derive(Debug)]
pub struct NothingReleased(pub String);

impl std::fmt::Display for NothingReleased {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NothingReleased {}

/// Exit status of a run that released nothing ([`NothingReleased`]); 2 is an error, 3 a
/// release refused by the budget ledger ([`BUDGET_EXCEEDED`]).
pub const NOTHING_RELEASED: u8 = 4;

/// Exit status of a release refused by the budget ledger: the data set's limit would be
/// exceeded; nothing was recorded and nothing released.
pub const BUDGET_EXCEEDED: u8 = 3;
