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

/// Prints a serialisable value as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
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

/// Writes a header and rows as CSV on stdout (quoting as needed).
pub fn print_csv<R, F>(header: &[&str], rows: R) -> anyhow::Result<()>
where
    R: IntoIterator<Item = Vec<F>>,
    F: AsRef<[u8]>,
{
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    out.write_record(header)?;
    for row in rows {
        out.write_record(&row)?;
    }
    out.flush()?;
    Ok(())
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

/// The draw target of progress output: stderr, which indicatif leaves blank when it is not
/// a terminal (pipes, CI, tests); nothing at all with `--quiet`.
fn draw_target(quiet: bool) -> indicatif::ProgressDrawTarget {
    if quiet {
        indicatif::ProgressDrawTarget::hidden()
    } else {
        indicatif::ProgressDrawTarget::stderr()
    }
}

/// A progress bar over `len` steps on stderr (see [`draw_target`]); finish it with
/// `finish_and_clear`.
pub fn progress_bar(len: u64, message: &str, quiet: bool) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(Some(len), draw_target(quiet));
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{bar:30}] {pos}/{len} ({elapsed}, eta {eta})",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(message.to_string());
    bar
}

/// A spinner with a message on stderr for a step of unknown length (reading a large file);
/// finish it with `finish_and_clear`.
pub fn spinner(message: &str, quiet: bool) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(None, draw_target(quiet));
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .expect("valid template"),
    );
    bar.set_message(message.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}
