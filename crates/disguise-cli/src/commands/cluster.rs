//! `disguise cluster key`: a fresh pre-shared key for the links of a distributed run.

use disguise::cluster::ClusterKey;
use std::path::PathBuf;

/// Subcommands of `disguise cluster`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Write a fresh cluster key (32 random bytes from the operating system, as 64
    /// hexadecimal digits) to a new file readable by you alone. Copy it to every machine of
    /// the cluster and pass it as --cluster-key (or DISGUISE_CLUSTER_KEY): every link is then
    /// mutually authenticated and encrypted.
    Key(KeyArgs),
}

/// Arguments of `disguise cluster key`.
#[derive(clap::Args)]
pub struct KeyArgs {
    /// The new key file (never overwritten). Example: `--out cluster.key`.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// Runs `disguise cluster …`.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Key(args) => {
            ClusterKey::generate()?.write_new(&args.out)?;
            eprintln!(
                "wrote a fresh cluster key to {0}: copy it to every machine (keep it readable \
                 by its owner alone) and pass --cluster-key {0}",
                args.out.display()
            );
            Ok(())
        }
    }
}
