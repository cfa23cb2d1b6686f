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
