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

/// Prints a serialisable value as pretty JSON on stdout, streamed (a large document is never
/// held as one string).
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
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

use disguise::numeric::display::bytes;
/// Numbers for people (see [`disguise::numeric::display`]).
pub use disguise::numeric::display::{budget, fixed, guarantee, input, sig, thousands};

/// A progress bar and a spinner on stderr (see [`disguise::progress`]).
pub use disguise::progress::{bar as progress_bar, spinner};

// ---------------------------------------------------------------------------------------
// Privacy parameters
// ---------------------------------------------------------------------------------------

/// The largest ε a command accepts. e^ε bounds the factor by which one person's record may
/// change the probability of any output: at ε = 700 that factor is already 10^304, and past
/// ε ≈ 709 it exceeds the largest double, where the accountant's arithmetic (sums of ε²,
/// e^ε) stops being meaningful. An ε anywhere near this protects no one.
pub const MAX_EPSILON: f64 = 700.0;

/// Checks an ε given with `flag`: finite, > 0 and at most [`MAX_EPSILON`], with a message
/// that names the flag and says what to do.
pub fn check_epsilon(flag: &str, epsilon: f64) -> anyhow::Result<()> {
    if !(epsilon.is_finite() && epsilon > 0.0) {
        // The library's wording, so that every command says it the same way.
        anyhow::bail!("{flag}: epsilon must be finite and > 0, got {epsilon}");
    }
    if epsilon > MAX_EPSILON {
        anyhow::bail!(
            "invalid {flag}: {} is too large (at most {MAX_EPSILON}): e^ε, the factor by \
             which one record may change the odds of any output, exceeds 10^304 and nothing \
             is protected; typical values are 0.1 to 10",
            input(epsilon)
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Memory sized by user input
// ---------------------------------------------------------------------------------------

/// The memory the operating system reports as available to a new allocation
/// (`MemAvailable` of /proc/meminfo), or `None` where it cannot be read.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// An error unless `bytes` — what `what` would hold in memory, estimated before anything is
/// allocated — fits in the memory available now; `advice` says what to do instead. Where
/// the available memory is unknown only sizes beyond the address space are refused (the
/// allocation itself then uses `try_reserve`).
pub fn check_memory(what: &str, bytes_needed: u128, advice: &str) -> anyhow::Result<()> {
    let limit = available_memory().map_or(isize::MAX as u128, u128::from);
    if bytes_needed > limit {
        let available = available_memory()
            .map(|a| format!("the {} available", bytes(a.into())))
            .unwrap_or_else(|| "what this machine can address".into());
        anyhow::bail!(
            "{what} would need about {} of memory, more than {available}: {advice}",
            bytes(bytes_needed)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_beyond_what_is_available_is_refused() {
        assert!(check_memory("x", u128::MAX, "less").is_err());
        assert!(check_memory("x", 1, "less").is_ok());
    }
}
