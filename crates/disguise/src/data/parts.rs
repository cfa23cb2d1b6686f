//! Inputs given in parts: one file, a directory of part files, or a glob pattern. A
//! distributed run gives part j to process j mod P (see `cluster::Place::owns_part`).

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The part files of one input, in a fixed order (sorted by path), so every process numbers
/// them alike.
///
/// * a file (or a pipe): one part;
/// * a directory: every regular file directly inside it whose name does not start with `.`
///   or `_` (Spark's `_SUCCESS`, editors' `.swp`), sorted by name;
/// * a pattern with `*`, `?` or `[...]` in its last component (e.g. `trips/part-*.csv`): the
///   matching files, sorted.
///
/// ```
/// # let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("part-1.csv"), "x,y\n1,2\n")?;
/// std::fs::write(dir.path().join("part-0.csv"), "x,y\n0,0\n")?;
/// std::fs::write(dir.path().join("_SUCCESS"), "")?;
/// let parts = disguise::data::Parts::resolve(dir.path())?;
/// assert_eq!(parts.files().len(), 2);
/// assert!(parts.files()[0].ends_with("part-0.csv"));
/// let some = disguise::data::Parts::resolve(&dir.path().join("part-[1]*"))?;
/// assert_eq!(some.files().len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    files: Vec<PathBuf>,
    /// Whether the input was one file (not a directory or pattern).
    single: bool,
}

impl Parts {
    /// The parts of `input`.
    ///
    /// # Errors
    /// If a folder cannot be listed, a pattern is malformed, or there is no part (a missing
    /// single file is an error of its reader).
    pub fn resolve(input: &Path) -> Result<Parts> {
        let text = input.to_string_lossy();
        let is_pattern = input
            .file_name()
            .map(|n| n.to_string_lossy().contains(['*', '?', '[']))
            .unwrap_or(false);
        let (files, single) = if input.is_dir() {
            (list(input, |name| !name.starts_with(['.', '_']))?, false)
        } else if is_pattern && !input.exists() {
            let pattern =
                glob::Pattern::new(&input.file_name().unwrap_or_default().to_string_lossy())
                    .map_err(|e| Error::param("input", format!("{text}: bad pattern: {e}")))?;
            let parent = input.parent().filter(|p| !p.as_os_str().is_empty());
            let dir = parent.unwrap_or(Path::new("."));
            (list(dir, |name| pattern.matches(name))?, false)
        } else {
            // One part: a file, a pipe (`<(zcat trips.csv.gz)`), a device — or a missing
            // file, whose reader then says so.
            (vec![input.to_path_buf()], true)
        };
        if files.is_empty() {
            return Err(Error::io(format!("{text}: no part files in it")));
        }
        Ok(Parts { files, single })
    }

    /// The part files of several inputs, in order: each input's parts ([`Parts::resolve`]),
    /// one after another (a table given as several files is read as their concatenation).
    ///
    /// # Errors
    /// As [`Parts::resolve`], for the first input that fails.
    pub fn resolve_all(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
        let mut files = Vec::new();
        for input in inputs {
            files.extend(Parts::resolve(input)?.files);
        }
        Ok(files)
    }

    /// The part files, sorted.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// Whether the input is one file (a distributed run then deals its rows over the workers
    /// instead of its parts).
    pub fn is_single(&self) -> bool {
        self.single
    }
}

/// The regular files of `dir` whose names pass `keep`, sorted.
fn list(dir: &Path, keep: impl Fn(&str) -> bool) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::io_with(format!("cannot list {}", dir.display()), e))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry =
            entry.map_err(|e| Error::io_with(format!("cannot list {}", dir.display()), e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if keep(&name) && entry.path().is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}
