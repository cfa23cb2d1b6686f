//! `disguise generate`: synthetic data for benchmarks and tests, written in parts. A shell
//! over [`disguise::data::ClusteredPoints`].

use crate::output::{flag_of, flagged};
use disguise::data::generate::{self, Parts};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  # 10^7 clustered points in 8 Parquet parts and 100 candidates, for a distributed run
  disguise generate points --n 10000000 --parts 8 --candidates 100 --out trips --format parquet
  disguise select --points trips/points --candidates trips/candidates.csv --x x --y y \\
      --k 10 --epsilon 1 --workers 2

Point i depends only on the seed and i: the same seed gives the same points in either
format and for any number of parts. This is data synthesis, not privacy noise.";

/// Arguments of `disguise generate`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Clustered planar points (columns x, y) in part files DIR/points/part-NNNNN.csv (or
    /// .parquet), and candidate points in DIR/candidates.csv.
    Points(PointsArgs),
}

/// Arguments of `disguise generate points`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
struct PointsArgs {
    /// Number of points (1 to 10^11). Example: `--n 100000000`.
    #[arg(long, value_name = "N")]
    n: u64,
    /// Number of part files (1 to 100,000, at most N); points are split into P contiguous
    /// runs. Example: `--parts 16`.
    #[arg(long, value_name = "P", default_value_t = 1)]
    parts: u64,
    /// Number of candidate points written to DIR/candidates.csv (columns name, x, y).
    #[arg(long, value_name = "M")]
    candidates: usize,
    /// Output folder (created if absent; existing files are never overwritten).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Format of the parts.
    #[arg(long, value_enum, default_value_t = PartFormat::Csv)]
    format: PartFormat,
    /// Seed of the synthetic data (not privacy noise). Example: `--seed 7`.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
}

#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq)]
enum PartFormat {
    Csv,
    Parquet,
}

/// Runs `disguise generate`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Points(a) => points(a),
    }
}

fn points(a: PointsArgs) -> anyhow::Result<()> {
    let request = Parts {
        n: a.n,
        parts: a.parts,
        candidates: a.candidates,
        format: match a.format {
            PartFormat::Csv => generate::PartFormat::Csv,
            PartFormat::Parquet => generate::PartFormat::Parquet,
        },
        seed: a.seed,
    };
    request
        .validate(&flag_of)
        .map_err(|e| flagged(e, &flag_of))?;
    let written = request.write(&a.out)?;
    println!("{}", disguise::text::generated_line(&request, &written));
    Ok(())
}
