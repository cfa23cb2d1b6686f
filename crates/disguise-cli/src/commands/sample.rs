//! `disguise sample` (being written).

/// Arguments of `disguise sample`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `disguise sample`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`disguise sample` is not available yet")
}
