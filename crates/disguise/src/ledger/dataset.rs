//! The name of a data set in a ledger: given, or a content hash of its files.

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;

/// The longest data set name a ledger accepts, in bytes.
const MAX_NAME: usize = 256;

/// Checks a data set name: 1 to 256 bytes, no control characters.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `dataset`.
pub fn check_name(name: &str) -> Result<()> {
    if name.trim().is_empty() {
        return Err(Error::param("dataset", "the name is empty"));
    }
    if name.len() > MAX_NAME {
        return Err(Error::param(
            "dataset",
            format!("the name is {} bytes long, at most {MAX_NAME}", name.len()),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::param(
            "dataset",
            "the name contains a control character",
        ));
    }
    Ok(())
}

/// The default name of the data set held in `files`: `sha256:` and the hex SHA-256 of the
/// files' contents, each preceded by its length (8 bytes, little-endian), in the order
/// given. Read in 64 KiB pieces: memory does not grow with the files. The same bytes give
/// the same name wherever the files are; one changed byte gives another data set (so name
/// a data set that grows, e.g. with `--dataset`, to keep one budget for it).
///
/// ```
/// use disguise::ledger::name_of_files;
/// # let dir = tempfile::tempdir().unwrap();
/// let a = dir.path().join("a.csv");
/// std::fs::write(&a, "x\n1\n").unwrap();
/// let name = name_of_files(&[a.as_path()])?;
/// assert!(name.starts_with("sha256:") && name.len() == 7 + 64);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::Io`] for a file that cannot be read, and [`Error::InvalidParameter`] naming
/// `dataset` for one that is not a regular file (a pipe can be read only once: it must be
/// given a name), or for no file at all.
pub fn name_of_files(files: &[&Path]) -> Result<String> {
    if files.is_empty() {
        return Err(Error::param(
            "dataset",
            "no input file to name the data set by",
        ));
    }
    let mut hash = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    for path in files {
        let shown = path.display();
        let meta = std::fs::metadata(path).map_err(|e| Error::io_with(format!("{shown}"), e))?;
        if !meta.is_file() {
            return Err(Error::param(
                "dataset",
                format!(
                    "{shown} is not a regular file (a pipe or device can be read only once), \
                     so the data set cannot be named by its content: name it"
                ),
            ));
        }
        let mut file =
            std::fs::File::open(path).map_err(|e| Error::io_with(format!("{shown}"), e))?;
        hash.update(meta.len().to_le_bytes());
        let mut read = 0u64;
        loop {
            let n = file
                .read(&mut buffer)
                .map_err(|e| Error::io_with(format!("{shown}: reading"), e))?;
            if n == 0 {
                break;
            }
            read += n as u64;
            hash.update(&buffer[..n]);
        }
        if read != meta.len() {
            return Err(Error::io(format!(
                "{shown} changed while it was read to name the data set"
            )));
        }
    }
    let digest = hash.finalize();
    let mut name = String::with_capacity(7 + 64);
    name.push_str("sha256:");
    for byte in digest {
        name.push_str(&format!("{byte:02x}"));
    }
    Ok(name)
}
