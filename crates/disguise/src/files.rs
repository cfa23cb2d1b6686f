//! Writing the user's files safely: never over an input, never half-written.
//!
//! Every file a command produces goes through [`AtomicFile`]: it is written to a temporary
//! file in the destination's folder and renamed into place only when complete, so an
//! interrupted or failed run leaves either the old file or the new one, never a torn one
//! (a rename within one folder is atomic on POSIX file systems). Before anything is written,
//! [`AtomicFile::create`] refuses a destination that is one of the run's inputs — the same
//! file by any path, including through a symbolic or hard link.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// An output file being written: a temporary file beside the destination, renamed over it
/// by [`AtomicFile::commit`]. Dropped without a commit, the temporary file is removed and
/// the destination is untouched.
///
/// ```
/// use disguise::files::AtomicFile;
/// use std::io::Write;
/// # let dir = std::env::temp_dir().join(format!("disguise-doc-atomic-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let input = dir.join("data.csv");
/// std::fs::write(&input, "a\n1\n").unwrap();
/// let out = dir.join("release.csv");
///
/// let mut file = AtomicFile::create(&out, &[&input])?;
/// writeln!(file.writer(), "a").unwrap();
/// file.commit()?;
/// assert_eq!(std::fs::read_to_string(&out).unwrap(), "a\n");
///
/// // Writing over an input is refused before anything is written.
/// let err = AtomicFile::create(&input, &[&input]).unwrap_err();
/// assert!(err.to_string().contains("is an input"));
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug)]
pub struct AtomicFile {
    destination: PathBuf,
    temporary: tempfile::NamedTempFile<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `destination`, after checking that it is none of `inputs`. The
    /// temporary file is created in the destination's folder (which must exist) with the
    /// same extension, so tools that choose a format by extension (image encoders) work on
    /// [`AtomicFile::path`].
    ///
    /// `-` is refused: by convention it means standard output, which a caller that can
    /// write there handles before asking for a file.
    pub fn create(destination: &Path, inputs: &[&Path]) -> Result<Self> {
        if destination == Path::new("-") {
            return Err(Error::io(
                "-: this output is a file (standard output holds the report); give its name",
            ));
        }
        refuse_input(destination, inputs)?;
        let folder = match destination.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = destination
            .file_name()
            .ok_or_else(|| {
                Error::io(format!(
                    "{}: an output must name a file, not a folder",
                    destination.display()
                ))
            })?
            .to_string_lossy()
            .into_owned();
        let suffix = destination
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        let temporary = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(&suffix)
            .make_in(&folder, |path| {
                File::create_new(path).map(|f| BufWriter::with_capacity(1 << 16, f))
            })
            .map_err(|e| {
                Error::io_with(
                    format!(
                        "{}: cannot create a file in {}",
                        destination.display(),
                        folder.display()
                    ),
                    e,
                )
            })?;
        Ok(Self {
            destination: destination.to_path_buf(),
            temporary,
        })
    }

    /// The buffered writer of the temporary file.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.temporary.as_file_mut()
    }

    /// The temporary file's path, for writers that want a path rather than a handle (e.g.
    /// an image backend). Whatever is written there is what [`AtomicFile::commit`] renames.
    pub fn path(&self) -> &Path {
        self.temporary.path()
    }

    /// The destination.
    pub fn destination(&self) -> &Path {
        &self.destination
    }

    /// Flushes, syncs to disk and renames the temporary file over the destination.
    pub fn commit(mut self) -> Result<()> {
        let shown = self.destination.display().to_string();
        let io = |e: std::io::Error| Error::io_with(shown.to_string(), e);
        let writer = self.temporary.as_file_mut();
        writer.flush().map_err(io)?;
        writer.get_ref().sync_all().map_err(io)?;
        self.temporary
            .persist(&self.destination)
            .map_err(|e| io(e.error))?;
        Ok(())
    }
}

/// Writes `destination` atomically with `write`, after checking that it is none of
/// `inputs` (see [`AtomicFile`]). On any error the destination is left as it was.
pub fn write_atomic<F>(destination: &Path, inputs: &[&Path], write: F) -> Result<()>
where
    F: FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
{
    let mut file = AtomicFile::create(destination, inputs)?;
    write(file.writer()).map_err(|e| Error::io_with(destination.display().to_string(), e))?;
    file.commit()
}

/// An error if `output` is the same file as one of `inputs` (by any path: compared by
/// device and inode where the file exists, else by canonical path of its folder and name).
pub fn refuse_input(output: &Path, inputs: &[&Path]) -> Result<()> {
    for input in inputs {
        if same_file(output, input) {
            return Err(Error::io(format!(
                "{}: refusing to write over {}, which is an input of this run (choose another \
                 output path)",
                output.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Checks, before any data is read, that `output` can be written: not one of `inputs` (any
/// spelling of the same file), not a folder, and in a folder that exists.
///
/// ```
/// use std::path::Path;
/// let here = std::env::temp_dir().join("disguise-doc-check-output");
/// std::fs::create_dir_all(&here).unwrap();
/// assert!(disguise::files::check_output(&here.join("out.csv"), &[]).is_ok());
/// assert!(disguise::files::check_output(&here, &[]).is_err());
/// assert!(disguise::files::check_output(Path::new("/no/such/folder/out.csv"), &[]).is_err());
/// ```
///
/// # Errors
/// [`Error::Io`] naming the output and what is wrong.
pub fn check_output(output: &Path, inputs: &[&Path]) -> Result<()> {
    refuse_input(output, inputs)?;
    if output.is_dir() {
        return Err(Error::io(format!(
            "{}: is a folder; give a file name",
            output.display()
        )));
    }
    let folder = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(Error::io(format!(
            "{}: the folder {} does not exist (create it first)",
            output.display(),
            folder.display()
        )));
    }
    // The output is written as a temporary file beside it, then renamed: try exactly that
    // (the trial file is removed when dropped).
    tempfile::Builder::new()
        .prefix(".disguise-check-")
        .tempfile_in(folder)
        .map_err(|e| {
            Error::io_with(
                format!(
                    "{}: cannot write in the folder {}",
                    output.display(),
                    folder.display()
                ),
                e,
            )
        })?;
    Ok(())
}

/// Checks that an input can be read before anything is charged for reading it: each part of
/// a file, folder or pattern ([`crate::data::Parts`]) exists, and a regular file opens for
/// reading. A pipe, socket or device is only checked to exist (opening a pipe to test it
/// would take what it carries). `-` (standard input) passes.
///
/// ```
/// use std::path::Path;
/// let here = std::env::temp_dir().join("disguise-doc-check-input");
/// std::fs::create_dir_all(&here).unwrap();
/// std::fs::write(here.join("data.csv"), "a\n1\n").unwrap();
/// assert!(disguise::files::check_input(&here.join("data.csv")).is_ok());
/// let err = disguise::files::check_input(&here.join("dta.csv")).unwrap_err();
/// assert!(err.to_string().contains("dta.csv"), "{err}");
/// ```
///
/// # Errors
/// [`Error::Io`] naming the input and what is wrong.
pub fn check_input(input: &Path) -> Result<()> {
    if input.as_os_str() == "-" {
        return Ok(());
    }
    for part in crate::data::Parts::resolve(input)?.files() {
        let meta = std::fs::metadata(part)
            .map_err(|e| Error::io_with(format!("cannot read {}", part.display()), e))?;
        if meta.is_dir() {
            return Err(Error::io(format!(
                "{}: is a folder of no parts; give a file",
                part.display()
            )));
        }
        if meta.is_file() {
            File::open(part)
                .map_err(|e| Error::io_with(format!("cannot read {}", part.display()), e))?;
        }
    }
    Ok(())
}

/// Whether two paths name the same file. A path that does not exist names no existing
/// file, but two spellings of the same not-yet-existing path are still the same.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(ma), Ok(mb)) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                ma.dev() == mb.dev() && ma.ino() == mb.ino()
            }
            #[cfg(not(unix))]
            {
                let _ = (ma, mb);
                canonical(a) == canonical(b)
            }
        }
        _ => canonical(a).is_some() && canonical(a) == canonical(b),
    }
}

/// The canonical path of `p`, or of its folder joined with its name when `p` itself does
/// not exist yet; `None` when not even the folder exists.
fn canonical(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = p.canonicalize() {
        return Some(c);
    }
    let name = p.file_name()?;
    let folder = match p.parent() {
        Some(f) if !f.as_os_str().is_empty() => f,
        _ => Path::new("."),
    };
    folder.canonicalize().ok().map(|f| f.join(name))
}

/// Whether `path` names a stream: an existing input that is neither a regular file nor a
/// folder — a pipe (`cat data.csv | disguise … /dev/stdin`, `<(zcat data.csv.gz)`), a socket,
/// a device. A stream can be read once, and its size says nothing of its content.
///
/// ```
/// # let dir = tempfile::tempdir()?;
/// let file = dir.path().join("data.csv");
/// std::fs::write(&file, "a\n1\n")?;
/// assert!(!disguise::files::is_stream(&file));
/// assert!(!disguise::files::is_stream(dir.path()));
/// assert!(!disguise::files::is_stream(&dir.path().join("absent.csv")));
/// # #[cfg(target_os = "linux")]
/// assert!(disguise::files::is_stream(std::path::Path::new("/dev/null")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn is_stream(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The streams read whole by [`hold_stream`], by the path that names them.
static HELD: std::sync::Mutex<Vec<(PathBuf, std::sync::Arc<[u8]>)>> =
    std::sync::Mutex::new(Vec::new());

/// Reads the stream `path` ([`is_stream`]) whole, now, and keeps its bytes: from then on,
/// every reader of this library that opens `path` reads these bytes, and [`held`] returns
/// them. A distributed run does this with the public inputs it is given as streams
/// (`--candidates <(…)`), so that its processes can compare their content by hash before
/// the run and then read the very bytes they compared. Returns whether `path` is a stream
/// (now held); a regular file, a folder or a missing path is left alone, and a stream held
/// already is not read again.
///
/// ```
/// # let dir = tempfile::tempdir()?;
/// let file = dir.path().join("candidates.csv");
/// std::fs::write(&file, "x,y\n1,2\n")?;
/// assert!(!disguise::files::hold_stream(&file)?);
/// assert!(disguise::files::held(&file).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`Error::Io`] if the stream cannot be read or holds a line longer than
/// [`crate::data::MAX_LINE_BYTES`] (not line-oriented text); [`Error::Memory`] if it outgrows
/// the memory available.
pub fn hold_stream(path: &Path) -> Result<bool> {
    use std::io::Read;
    if !is_stream(path) {
        return Ok(false);
    }
    if held(path).is_some() {
        return Ok(true);
    }
    let shown = path.display().to_string();
    let mut input = crate::data::open_input(path, &shown)?;
    let mut bytes = Vec::new();
    let mut block = vec![0u8; 1 << 16];
    loop {
        let n = input
            .read(&mut block)
            .map_err(|e| Error::io_with(shown.clone(), e))?;
        if n == 0 {
            break;
        }
        if bytes.len() + n > bytes.capacity() {
            crate::memory::check(
                &format!("{shown}, read from a stream"),
                (bytes.len() + n) as u128 * 2,
                "write it to a file first",
            )?;
        }
        bytes.extend_from_slice(&block[..n]);
    }
    HELD.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push((path.to_path_buf(), bytes.into()));
    Ok(true)
}

/// The bytes of the stream `path` if [`hold_stream`] holds it.
pub fn held(path: &Path) -> Option<std::sync::Arc<[u8]>> {
    HELD.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .find(|(p, _)| p == path)
        .map(|(_, bytes)| bytes.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("disguise-files-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn refuses_inputs_by_any_path() {
        let d = dir("refuse");
        let input = d.join("in.csv");
        std::fs::write(&input, "x\n").unwrap();
        let dotted = d.join(".").join("in.csv");
        assert!(refuse_input(&dotted, &[&input]).is_err());
        #[cfg(unix)]
        {
            let link = d.join("link.csv");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&input, &link).unwrap();
            assert!(refuse_input(&link, &[&input]).is_err());
            let hard = d.join("hard.csv");
            let _ = std::fs::remove_file(&hard);
            std::fs::hard_link(&input, &hard).unwrap();
            assert!(refuse_input(&hard, &[&input]).is_err());
        }
        assert!(refuse_input(&d.join("out.csv"), &[&input]).is_ok());
        assert_eq!(std::fs::read_to_string(&input).unwrap(), "x\n");
    }

    #[test]
    fn a_dash_is_not_a_file_name() {
        let err = AtomicFile::create(Path::new("-"), &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("standard output"), "{err}");
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let d = dir("failed");
        let out = d.join("out.csv");
        std::fs::write(&out, "old\n").unwrap();
        let err = write_atomic(&out, &[], |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("interrupted"))
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "old\n");
        let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
        assert_eq!(left.len(), 1, "a temporary file was left behind");
        write_atomic(&out, &[], |w| w.write_all(b"new\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new\n");
    }

    #[test]
    fn temporary_keeps_the_extension_and_folder() {
        let d = dir("ext");
        let f = AtomicFile::create(&d.join("fig.png"), &[]).unwrap();
        assert_eq!(f.path().extension().unwrap(), "png");
        assert_eq!(f.path().parent().unwrap(), d);
        assert!(AtomicFile::create(&d.join("missing-folder").join("x.csv"), &[]).is_err());
    }
}
