//! `disguise demo`: one private selection on an embedded synthetic example.

use crate::output::{Format, print_json};
use disguise::prelude::*;

/// Arguments of `disguise demo`.
#[derive(clap::Args)]
pub struct Args {
    /// Total privacy budget ε of the selection.
    #[arg(long, default_value_t = 1.0)]
    epsilon: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Runs `disguise demo`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let _ = (args.epsilon, args.format, print_json::<u8>);
    let _ = SecureRng::from_os()?;
    anyhow::bail!("`disguise demo` is being written")
}
