//! What every process of a run must agree on before any record is read: the request (the
//! command, every option that affects the result — given or not —, the contents of the
//! public files, streams included) and the listing of each private input (which parts, of
//! which sizes; for one file dealt row by row, its content hash; never a stream). Exchanged
//! in the handshake; any difference stops the run on every process with one line naming the
//! first option or part that differs — and no number derived from the data.

use crate::data::Parts;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;

/// The request and the inputs of a run, as one process sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agreement {
    /// (field name, SHA-256 of its values, or `None` for an option not given), in the order
    /// given.
    request: Vec<(String, Option<String>)>,
    /// The private inputs, in the order given.
    inputs: Vec<Listing>,
}

/// One value of a request field.
#[derive(Debug, Clone, Copy)]
pub enum RequestValue<'a> {
    /// An option's text as given.
    Text(&'a [u8]),
    /// A public file, by its content (another path to the same content is the same value):
    /// a regular file, or a stream read whole by [`crate::files::hold_stream`].
    File(&'a Path),
}

/// The parts of one private input as one process lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Listing {
    /// The option that names it (e.g. `--points`).
    name: String,
    /// One file dealt row by row (its parts hold that one file).
    single: bool,
    /// Each part: its name relative to the input's folder, its size in bytes, and — for one
    /// file dealt row by row, which every process reads whole — the SHA-256 of its content.
    parts: Vec<(String, u64, Option<String>)>,
}

/// The SHA-256 of a public file's content: the bytes [`crate::files::hold_stream`] holds for
/// a stream, else the regular file's, read in blocks of 1 MiB. Anything else is refused: a
/// stream not held would be consumed here, and the run could not read what was compared.
fn sha256_of(path: &Path, tag: &[u8]) -> Result<[u8; 32]> {
    let mut hasher = Sha256::new();
    hasher.update(tag);
    if let Some(bytes) = crate::files::held(path) {
        hasher.update(&bytes);
        return Ok(hasher.finalize().into());
    }
    if crate::files::is_stream(path) {
        return Err(Error::io(format!(
            "{} is not a regular file (a pipe, a socket or a device) and was not read whole \
             before the run (files::hold_stream): write it to a file first",
            path.display()
        )));
    }
    let io = |e| Error::io_with(format!("cannot read {}", path.display()), e);
    let mut f = std::fs::File::open(path).map_err(io)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().into())
}

fn hex(digest: impl AsRef<[u8]>) -> String {
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// Refuses a private input that is a stream (a pipe such as `<(…)` or `/dev/stdin`, a
/// socket, a device, or `-` for standard input) in a run over several processes or worker
/// threads: each process (each worker of one process) reads one input file whole and keeps
/// its rows, and the processes compare its content before reading it — a stream can be read
/// only once, and its listing says nothing of its content. Folders and patterns list regular
/// files only. `name` is the option that names it (`--points`).
///
/// # Errors
/// [`Error::Io`]: one line naming the option and the stream, saying to write it to a file.
pub fn refuse_stream(name: &str, input: &Path) -> Result<()> {
    // A stream is one part (a folder or pattern lists regular files only).
    if input.as_os_str() != "-" && !crate::files::is_stream(input) {
        return Ok(());
    }
    Err(Error::io(format!(
        "{name} {} is not a regular file but a stream (a pipe such as <(…) or /dev/stdin, a \
         socket, a device, standard input): a run over several processes or workers compares \
         each input file between the processes, then reads it once per process or worker, and \
         a stream can be read only once; write it to a file first (the same on every process)",
        input.display()
    )))
}

/// One option of a run's request as a front end parsed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestField {
    /// Its name (say, `--normalizer`).
    pub name: String,
    /// Its values as given, or its default; `None`: not given, and no default.
    pub values: Option<Vec<std::ffi::OsString>>,
    /// Whether its values name public files (compared by content).
    pub files: bool,
}

impl Agreement {
    /// The agreement of a request given as its `fields`, in order — a public file by its
    /// content (a regular file, or a stream held by [`crate::files::hold_stream`]: another
    /// path to the same content is the same request), anything else by its text, an option
    /// not given as not given — and the listings of the private `inputs`, each with the
    /// option that names it.
    ///
    /// ```
    /// use disguise::cluster::{Agreement, RequestField};
    /// let field = |v: &str| RequestField { name: "--k".into(), values: Some(vec![v.into()]), files: false };
    /// let a = Agreement::of_request(&[field("3")], &[])?;
    /// assert_eq!(a, Agreement::of_request(&[field("3")], &[])?);
    /// assert_ne!(a, Agreement::of_request(&[field("4")], &[])?);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Agreement::values`] and [`Agreement::input`], and [`Parts::resolve`]'s.
    pub fn of_request(fields: &[RequestField], inputs: &[(&str, &Path)]) -> Result<Self> {
        let mut agreement = Agreement::new();
        for field in fields {
            let Some(values) = &field.values else {
                agreement = agreement.absent(&field.name);
                continue;
            };
            let values: Vec<RequestValue<'_>> = (values.iter())
                .map(|value| {
                    let path = Path::new(value);
                    if field.files && (path.is_file() || crate::files::held(path).is_some()) {
                        RequestValue::File(path)
                    } else {
                        RequestValue::Text(value.as_encoded_bytes())
                    }
                })
                .collect();
            agreement = agreement.values(&field.name, &values)?;
        }
        for (name, path) in inputs {
            agreement = agreement.input(name, &Parts::resolve(path)?)?;
        }
        Ok(agreement)
    }

    /// An empty agreement (a request with no field and no input).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a request field: its name (say, `--normalizer`) and its value's bytes (an
    /// option's text). Only a hash of the value is exchanged.
    pub fn field(self, name: &str, value: &[u8]) -> Self {
        self.values(name, &[RequestValue::Text(value)])
            .expect("a text value is never read from a file")
    }

    /// Adds a request field whose value is the content of the public file `path` (read
    /// once, in blocks; only its hash is kept and exchanged): a regular file, or a stream
    /// read whole by [`crate::files::hold_stream`].
    ///
    /// # Errors
    /// If the file cannot be read, or is a stream not held.
    pub fn file(self, name: &str, path: &Path) -> Result<Self> {
        self.values(name, &[RequestValue::File(path)])
    }

    /// Adds a request field given several values (an option repeated), in order; only a
    /// hash of them is exchanged, so a difference in any names the field.
    ///
    /// # Errors
    /// As [`Agreement::file`], for a file value.
    pub fn values(mut self, name: &str, values: &[RequestValue<'_>]) -> Result<Self> {
        let mut hasher = Sha256::new();
        for value in values {
            // Each value tagged with its kind: a text never equals a file's content.
            let digest: [u8; 32] = match value {
                RequestValue::Text(text) => Sha256::new_with_prefix(b"text\0")
                    .chain_update(text)
                    .finalize()
                    .into(),
                RequestValue::File(path) => sha256_of(path, b"file\0")?,
            };
            hasher.update(digest);
        }
        self.request
            .push((name.to_string(), Some(hex(hasher.finalize()))));
        Ok(self)
    }

    /// Adds a request field that was not given (an option without a value and without a
    /// default): a process given it differs from one not given it, by this name.
    pub fn absent(mut self, name: &str) -> Self {
        self.request.push((name.to_string(), None));
        self
    }

    /// Adds the listing of a private input named `name` (its option, say `--points`): the
    /// name and size of each part; for one regular file, its SHA-256 too (read once here:
    /// every process reads that file whole anyway).
    ///
    /// # Errors
    /// If a part cannot be inspected or read; a stream ([`refuse_stream`]).
    pub fn input(mut self, name: &str, parts: &Parts) -> Result<Self> {
        let mut listed = Vec::with_capacity(parts.files().len());
        for file in parts.files() {
            if parts.is_single() {
                refuse_stream(name, file)?;
            }
            let io = |e| Error::io_with(format!("cannot inspect {}", file.display()), e);
            let meta = std::fs::metadata(file).map_err(io)?;
            if !meta.is_file() {
                // Parts of a folder or pattern are regular files when listed; one that is
                // no longer is refused as a stream would be.
                refuse_stream(name, file)?;
            }
            let part = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let hash = if parts.is_single() {
                Some(hex(sha256_of(file, b"")?))
            } else {
                None
            };
            listed.push((part, meta.len(), hash));
        }
        self.inputs.push(Listing {
            name: name.to_string(),
            single: parts.is_single(),
            parts: listed,
        });
        Ok(self)
    }

    /// The first difference between this process's agreement (`mine`, process `me`) and a
    /// peer's (`theirs`, process `peer`), as one line for both sides to print.
    pub(super) fn differs(&self, me: usize, theirs: &Agreement, peer: usize) -> Option<String> {
        let same = "every process must run the same command with the same options and public \
                    files";
        let command = |a: &Agreement| a.request.iter().find(|(n, _)| n == "command").cloned();
        if command(self) != command(theirs) {
            return Some(format!(
                "process {peer} runs another command than process {me}: {same}"
            ));
        }
        // Every option of the command is a field, given or not: the names differ only
        // between other versions of the program.
        let names = |a: &Agreement| a.request.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        if names(self) != names(theirs) {
            let (mine, others) = (names(self), names(theirs));
            let first = mine
                .iter()
                .find(|n| !others.contains(n))
                .or_else(|| others.iter().find(|n| !mine.contains(n)))
                .or_else(|| {
                    mine.iter()
                        .zip(&others)
                        .find(|(a, b)| a != b)
                        .map(|(a, _)| a)
                })
                .cloned()
                .unwrap_or_default();
            return Some(format!(
                "process {peer} runs another request than process {me} (they differ at \
                 {first}; is it another version of disguise?): {same}"
            ));
        }
        if let Some(((name, mine), (_, other))) = self
            .request
            .iter()
            .zip(&theirs.request)
            .find(|(a, b)| a.1 != b.1)
        {
            return Some(match (mine, other) {
                (Some(_), None) => format!(
                    "process {peer} was started without {name}, which process {me} was \
                     given: {same}"
                ),
                (None, Some(_)) => format!(
                    "process {peer} was started with {name}, which process {me} was not \
                     given: {same}"
                ),
                _ => format!(
                    "process {peer} was started with another {name} than process {me}: {same}"
                ),
            });
        }
        if self.inputs.len() != theirs.inputs.len() {
            return Some(format!(
                "process {peer} reads other inputs than process {me}: {same}"
            ));
        }
        for (a, b) in self.inputs.iter().zip(&theirs.inputs) {
            if let Some(d) = a.differs(me, b, peer) {
                return Some(d);
            }
        }
        None
    }
}

impl Listing {
    fn differs(&self, me: usize, theirs: &Listing, peer: usize) -> Option<String> {
        let name = &self.name;
        let rule = "every process must see the same parts (the regular files of the folder \
                    whose names do not start with . or _, or the files the pattern matches)";
        match (self.single, theirs.single) {
            (true, true) => {
                let (a, b) = (&self.parts[0], &theirs.parts[0]);
                if a.1 != b.1 || a.2 != b.2 {
                    return Some(format!(
                        "process {peer}'s {name} is another file than process {me}'s (their \
                         contents differ): every process must read the same file"
                    ));
                }
                None
            }
            (false, false) => {
                for (part, size, _) in &theirs.parts {
                    match self.parts.iter().find(|p| &p.0 == part) {
                        None => {
                            return Some(format!(
                                "{name}: part {part} is in process {peer}'s listing but not \
                                 in process {me}'s: {rule}"
                            ));
                        }
                        Some(p) if p.1 != *size => {
                            return Some(format!(
                                "{name}: part {part} has another size on process {peer} than \
                                 on process {me}: {rule}"
                            ));
                        }
                        Some(_) => {}
                    }
                }
                if let Some((part, _, _)) = self
                    .parts
                    .iter()
                    .find(|p| !theirs.parts.iter().any(|q| q.0 == p.0))
                {
                    return Some(format!(
                        "{name}: part {part} is in process {me}'s listing but not in process \
                         {peer}'s: {rule}"
                    ));
                }
                None
            }
            _ => Some(format!(
                "{name} is one file on one of processes {me} and {peer} and a folder or pattern \
                 of parts on the other: {rule}"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(files: &[(&str, &str)]) -> (tempfile::TempDir, Parts) {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let parts = Parts::resolve(dir.path()).unwrap();
        (dir, parts)
    }

    fn with(parts: &Parts) -> Agreement {
        Agreement::new()
            .field("command", b"select")
            .input("--points", parts)
            .unwrap()
    }

    #[test]
    fn the_first_differing_request_field_is_named_without_its_value() {
        let a = Agreement::new()
            .field("command", b"select")
            .field("--normalizer", b"12.5");
        let b = Agreement::new()
            .field("command", b"select")
            .field("--normalizer", b"13.5");
        let d = a.differs(0, &b, 1).expect("differs");
        assert!(
            d.contains("another --normalizer") && d.contains("process 1"),
            "{d}"
        );
        assert!(!d.contains("12.5") && !d.contains("13.5"), "{d}");
        assert_eq!(a.differs(0, &a.clone(), 1), None);
        let c = Agreement::new().field("command", b"cover");
        assert!(a.differs(0, &c, 1).unwrap().contains("another command"));
        let d = Agreement::new()
            .field("command", b"select")
            .field("--x", b"x");
        assert!(
            a.differs(0, &d, 1)
                .unwrap()
                .contains("differ at --normalizer")
        );
    }

    #[test]
    fn an_option_given_on_one_side_only_is_named() {
        let given = |normalizer: bool| {
            let a = Agreement::new().field("command", b"select");
            let a = if normalizer {
                a.field("--normalizer", b"2")
            } else {
                a.absent("--normalizer")
            };
            a.field("--k", b"4")
        };
        let d = given(false).differs(0, &given(true), 1).expect("differs");
        assert!(
            d.contains("process 1 was started with --normalizer, which process 0 was not given"),
            "{d}"
        );
        let d = given(true).differs(0, &given(false), 1).expect("differs");
        assert!(
            d.contains("process 1 was started without --normalizer, which process 0 was given"),
            "{d}"
        );
        assert!(!d.contains("--k"), "{d}");
        assert_eq!(given(false).differs(0, &given(false), 1), None);
    }

    #[test]
    fn repeated_values_and_kinds_of_value_are_compared() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.csv");
        std::fs::write(&file, "a").unwrap();
        let with = |values: &[RequestValue<'_>]| Agreement::new().values("--x", values).unwrap();
        let (a, b) = (RequestValue::Text(b"a"), RequestValue::Text(b"b"));
        assert_eq!(with(&[a, b]).differs(0, &with(&[a, b]), 1), None);
        for other in [with(&[b, a]), with(&[a]), with(&[a, b, b])] {
            let d = with(&[a, b]).differs(0, &other, 1).expect("differs");
            assert!(d.contains("another --x"), "{d}");
        }
        // A text that spells a file's content is not that file.
        assert!(
            with(&[a])
                .differs(0, &with(&[RequestValue::File(&file)]), 1)
                .is_some()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_stream_is_compared_by_its_held_content_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("schema.toml");
        std::fs::write(&file, "").unwrap();
        // /dev/null: a device, read whole as empty.
        let null = Path::new("/dev/null");
        assert!(crate::files::is_stream(null));
        let e = Agreement::new()
            .input("--points", &Parts::resolve(null).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--points /dev/null is not a regular file")
                && e.contains("write it to a file first"),
            "{e}"
        );
        let e = refuse_stream("--data", Path::new("-"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--data - is not a regular file"), "{e}");
        assert!(refuse_stream("--data", &file).is_ok());
        assert!(refuse_stream("--data", dir.path()).is_ok());
        let e = Agreement::new()
            .file("--schema", null)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not read whole"), "{e}");
        assert!(crate::files::hold_stream(null).unwrap());
        assert!(!crate::files::hold_stream(&file).unwrap());
        // Held, the stream is its content: the same as an empty file's.
        let held = Agreement::new().file("--schema", null).unwrap();
        let empty = Agreement::new().file("--schema", &file).unwrap();
        assert_eq!(held.differs(0, &empty, 1), None);
        std::fs::write(&file, "x").unwrap();
        let other = Agreement::new().file("--schema", &file).unwrap();
        assert!(
            held.differs(0, &other, 1)
                .unwrap()
                .contains("another --schema")
        );
        // Readers of the library read the held bytes (here: none).
        assert_eq!(crate::data::read_text(null, "null").unwrap(), "");
    }

    #[test]
    fn stray_missing_and_resized_parts_are_named() {
        let (_a, ours) = folder(&[("part-0.csv", "x\n1\n"), ("part-1.csv", "x\n2\n")]);
        let (_b, stray) = folder(&[
            ("part-0.csv", "x\n1\n"),
            ("part-1.csv", "x\n2\n"),
            ("README.txt", "hello"),
        ]);
        let (_c, missing) = folder(&[("part-0.csv", "x\n1\n")]);
        let (_d, resized) = folder(&[("part-0.csv", "x\n1\n"), ("part-1.csv", "x\n22\n")]);
        let mine = with(&ours);
        assert_eq!(mine.differs(0, &with(&ours), 1), None);
        let d = mine.differs(0, &with(&stray), 1).unwrap();
        assert!(
            d.contains("README.txt is in process 1's listing but not in process 0's"),
            "{d}"
        );
        let d = mine.differs(0, &with(&missing), 1).unwrap();
        assert!(
            d.contains("part-1.csv is in process 0's listing but not in process 1's"),
            "{d}"
        );
        let d = mine.differs(0, &with(&resized), 1).unwrap();
        assert!(d.contains("part-1.csv has another size"), "{d}");
    }

    #[test]
    fn one_file_is_compared_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
        std::fs::write(&a, "x\n1\n").unwrap();
        std::fs::write(&b, "x\n2\n").unwrap();
        let one = |p: &std::path::Path| with(&Parts::resolve(p).unwrap());
        let d = one(&a).differs(0, &one(&b), 1).unwrap();
        assert!(d.contains("another file"), "{d}");
        std::fs::write(&b, "x\n1\n").unwrap();
        // Another path to the same content is the same input.
        assert_eq!(one(&a).differs(0, &one(&b), 1), None);
        let (_f, parts) = folder(&[("part-0.csv", "x\n1\n")]);
        assert!(
            one(&a)
                .differs(0, &with(&parts), 1)
                .unwrap()
                .contains("one file")
        );
    }
}
