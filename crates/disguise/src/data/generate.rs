//! Synthetic points written for benchmarks and tests: [`ClusteredPoints`] in part files
//! (CSV or Parquet) and candidate points beside them, as a distributed run reads them.
//! This is data synthesis, not privacy noise.

use super::ClusteredPoints;
use crate::files::AtomicFile;
use crate::{Error, Result};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What to write: `n` points of the clustered data set of `seed` in `parts` part files of
/// nearly equal length (contiguous runs of rows), and `candidates` candidate points.
///
/// ```
/// use disguise::data::generate::{PartFormat, Parts};
/// let dir = tempfile::tempdir().unwrap();
/// let request = Parts { n: 10, parts: 2, candidates: 3, format: PartFormat::Csv, seed: 7 };
/// request.validate(&|p| format!("--{p}"))?;
/// let written = request.write(dir.path())?;
/// assert_eq!(written.files.len(), 2);
/// assert!(written.candidates.ends_with("candidates.csv"));
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts {
    /// Number of points, 1 to 10^11.
    pub n: u64,
    /// Number of part files, 1 to 100,000 and at most `n`.
    pub parts: u64,
    /// Number of candidate points, 1 to 10^7.
    pub candidates: usize,
    /// The parts' format.
    pub format: PartFormat,
    /// The seed of the data set.
    pub seed: u64,
}

/// The format of part files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartFormat {
    /// CSV with a header `x,y`; every number the shortest text that reads back as the same
    /// double, so that CSV and Parquet parts hold the same numbers.
    Csv,
    /// Parquet with columns `x` and `y` (feature `parquet`).
    Parquet,
}

impl PartFormat {
    /// The files' extension.
    pub fn extension(self) -> &'static str {
        match self {
            PartFormat::Csv => "csv",
            PartFormat::Parquet => "parquet",
        }
    }
}

/// What [`Parts::write`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The folder of the part files.
    pub folder: PathBuf,
    /// The part files, in order.
    pub files: Vec<PathBuf>,
    /// The candidates' file (columns `name, x, y`).
    pub candidates: PathBuf,
}

impl Parts {
    /// Checks the sizes, each error naming its option as `flag` spells it.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `n`, `parts` or `candidates`.
    pub fn validate(&self, flag: &dyn Fn(&str) -> String) -> Result<()> {
        if !(1..=100_000_000_000).contains(&self.n) {
            return Err(Error::param("n", format!("{} (1 to 10^11 points)", self.n)));
        }
        if !(1..=100_000).contains(&self.parts) || self.parts > self.n {
            let reason = format!("{} (1 to 100,000, and at most {})", self.parts, flag("n"));
            return Err(Error::param("parts", reason));
        }
        if !(1..=10_000_000).contains(&self.candidates) {
            let reason = format!("{} (1 to 10^7)", self.candidates);
            return Err(Error::param("candidates", reason));
        }
        Ok(())
    }

    /// Writes the parts to `out/points/part-NNNNN.EXT` (in parallel, each atomically) and
    /// the candidates to `out/candidates.csv`, creating the folders; nothing that exists is
    /// overwritten.
    ///
    /// # Errors
    /// [`Error::Io`]: a folder that cannot be created, a file that exists or cannot be
    /// written.
    pub fn write(&self, out: &Path) -> Result<Written> {
        let folder = out.join("points");
        std::fs::create_dir_all(&folder).map_err(|e| {
            Error::io_with(format!("cannot create the folder {}", folder.display()), e)
        })?;
        let extension = self.format.extension();
        let files: Vec<PathBuf> = (0..self.parts)
            .map(|j| folder.join(format!("part-{j:05}.{extension}")))
            .collect();
        let candidates = out.join("candidates.csv");
        if let Some(existing) = files.iter().chain([&candidates]).find(|p| p.exists()) {
            return Err(Error::io(format!(
                "{} already exists: generate into an empty folder (nothing is overwritten)",
                existing.display()
            )));
        }
        let data = ClusteredPoints::new(self.seed);
        let (n, parts) = (u128::from(self.n), u128::from(self.parts));
        files.par_iter().enumerate().try_for_each(|(j, path)| {
            // Part j holds the rows [j·n/P, (j+1)·n/P): contiguous runs of nearly equal length.
            let start = (j as u128 * n / parts) as u64;
            let end = ((j as u128 + 1) * n / parts) as u64;
            write_part(path, self.format, (start..end).map(|i| data.point(i)))
        })?;
        let mut file = AtomicFile::create(&candidates, &[])?;
        let io = |e| Error::io_with(candidates.display().to_string(), e);
        let w = file.writer();
        writeln!(w, "name,x,y").map_err(io)?;
        for (j, [x, y]) in data.candidates(self.candidates).into_iter().enumerate() {
            writeln!(w, "c{j},{x},{y}").map_err(io)?;
        }
        file.commit()?;
        Ok(Written {
            folder,
            files,
            candidates,
        })
    }
}

/// One part file, atomically: nothing is left at `path` if writing fails.
fn write_part(
    path: &Path,
    format: PartFormat,
    points: impl Iterator<Item = [f64; 2]>,
) -> Result<()> {
    let mut file = AtomicFile::create(path, &[])?;
    let io = |e| Error::io_with(path.display().to_string(), e);
    match format {
        PartFormat::Csv => {
            let w = file.writer();
            writeln!(w, "x,y").map_err(io)?;
            for [x, y] in points {
                writeln!(w, "{x},{y}").map_err(io)?;
            }
        }
        #[cfg(feature = "parquet")]
        PartFormat::Parquet => {
            let mut parquet = super::parquet::PointWriter::new(file.writer())?;
            for p in points {
                parquet.push(p)?;
            }
            parquet.finish()?;
        }
        #[cfg(not(feature = "parquet"))]
        PartFormat::Parquet => {
            return Err(Error::param(
                "format",
                "Parquet needs the feature `parquet`",
            ));
        }
    }
    file.commit()
}
