//! `disguise generate`: synthetic data for benchmarks and tests, written in parts. A shell
//! over [`disguise::data::ClusteredPoints`].

use anyhow::{Context, bail};
use disguise::data::ClusteredPoints;
use disguise::files::AtomicFile;
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    if !(1..=100_000_000_000).contains(&a.n) {
        bail!("invalid --n: {} (1 to 10^11 points)", a.n);
    }
    if !(1..=100_000).contains(&a.parts) || a.parts > a.n {
        bail!(
            "invalid --parts: {} (1 to 100,000, and at most --n)",
            a.parts
        );
    }
    if !(1..=10_000_000).contains(&a.candidates) {
        bail!("invalid --candidates: {} (1 to 10^7)", a.candidates);
    }
    let folder = a.out.join("points");
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create the folder {}", folder.display()))?;
    let extension = match a.format {
        PartFormat::Csv => "csv",
        PartFormat::Parquet => "parquet",
    };
    let name = |j: u64| folder.join(format!("part-{j:05}.{extension}"));
    let candidates_path = a.out.join("candidates.csv");
    let targets: Vec<PathBuf> = (0..a.parts)
        .map(name)
        .chain([candidates_path.clone()])
        .collect();
    if let Some(existing) = targets.iter().find(|p| p.exists()) {
        bail!(
            "{} already exists: generate into an empty folder (nothing is overwritten)",
            existing.display()
        );
    }
    let data = ClusteredPoints::new(a.seed);
    let (n, parts) = (a.n, a.parts);
    (0..parts).into_par_iter().try_for_each(|j| {
        // Part j holds the rows [j·n/P, (j+1)·n/P): contiguous runs of nearly equal length.
        let start = (u128::from(j) * u128::from(n) / u128::from(parts)) as u64;
        let end = (u128::from(j + 1) * u128::from(n) / u128::from(parts)) as u64;
        write_part(&name(j), a.format, (start..end).map(|i| data.point(i)))
    })?;
    let mut file = AtomicFile::create(&candidates_path, &[])?;
    let w = file.writer();
    writeln!(w, "name,x,y")?;
    for (j, [x, y]) in data.candidates(a.candidates).into_iter().enumerate() {
        writeln!(w, "c{j},{x},{y}")?;
    }
    file.commit()?;
    println!(
        "wrote {} points in {} {} part{} to {} and {} candidates to {}",
        a.n,
        a.parts,
        extension,
        if a.parts == 1 { "" } else { "s" },
        folder.display(),
        a.candidates,
        candidates_path.display(),
    );
    Ok(())
}

/// One part file, atomically: nothing is left at `path` if writing fails.
fn write_part(
    path: &Path,
    format: PartFormat,
    points: impl Iterator<Item = [f64; 2]>,
) -> anyhow::Result<()> {
    let mut file = AtomicFile::create(path, &[])?;
    match format {
        PartFormat::Csv => {
            let w = file.writer();
            writeln!(w, "x,y")?;
            // Rust prints the shortest text that reads back as the same f64: CSV and Parquet
            // parts hold the same numbers.
            for [x, y] in points {
                writeln!(w, "{x},{y}")?;
            }
        }
        PartFormat::Parquet => {
            let mut parquet = disguise::data::parquet::PointWriter::new(file.writer())?;
            for p in points {
                parquet.push(p)?;
            }
            parquet.finish()?;
        }
    }
    file.commit()?;
    Ok(())
}
