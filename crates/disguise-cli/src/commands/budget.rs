//! `disguise budget` (being written).

/// Arguments of `disguise budget`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `disguise budget`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`disguise budget` is not available yet")
}
