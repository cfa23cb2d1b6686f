//! What every process of a run must agree on before any record is read: the request (the
//! command, every option that affects the result, the contents of the public files) and the
//! listing of each private input (which parts, of which sizes; for one file dealt row by row,
//! its content hash). Exchanged in the handshake; any difference stops the run on every
//! process with one line naming the first field or part that differs — and no number derived
//! from the data.

use crate::data::Parts;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;

/// The request and the inputs of a run, as one process sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agreement {
    /// (field name, SHA-256 of its value), in the order given.
    request: Vec<(String, String)>,
    /// The private inputs, in the order given.
    inputs: Vec<Listing>,
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

/// The SHA-256 of a file's content, read in blocks of 1 MiB.
fn sha256_of(path: &std::path::Path) -> Result<String> {
    let io = |e| Error::io_with(format!("cannot read {}", path.display()), e);
    let mut hasher = Sha256::new();
    let mut f = std::fs::File::open(path).map_err(io)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(hasher.finalize()))
}

fn hex(digest: impl AsRef<[u8]>) -> String {
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

impl Agreement {
    /// An empty agreement (a request with no field and no input).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a request field: its name (say, `--normalizer`) and its value's bytes (a public
    /// file's content, an option's text). Only a hash of the value is exchanged.
    pub fn field(mut self, name: &str, value: &[u8]) -> Self {
        self.request
            .push((name.to_string(), hex(Sha256::digest(value))));
        self
    }

    /// Adds a request field whose value is the content of the public file `path` (read
    /// once, in blocks; only its hash is kept and exchanged).
    ///
    /// # Errors
    /// If the file cannot be read.
    pub fn file(mut self, name: &str, path: &std::path::Path) -> Result<Self> {
        let digest = sha256_of(path)?;
        self.request.push((name.to_string(), digest));
        Ok(self)
    }

    /// Adds the listing of a private input named `name` (its option, say `--points`): the
    /// name and size of each part; for one regular file, its SHA-256 too (read once here:
    /// every process reads that file whole anyway).
    ///
    /// # Errors
    /// If a part cannot be inspected or read.
    pub fn input(mut self, name: &str, parts: &Parts) -> Result<Self> {
        let mut listed = Vec::with_capacity(parts.files().len());
        for file in parts.files() {
            let io = |e| Error::io_with(format!("cannot inspect {}", file.display()), e);
            let meta = std::fs::metadata(file).map_err(io)?;
            let part = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // A pipe or device can be read only once: its content is not hashed.
            let hash = if parts.is_single() && meta.is_file() {
                Some(sha256_of(file)?)
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
        let names = |a: &Agreement| a.request.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        if names(self) != names(theirs) {
            let first = self
                .request
                .iter()
                .zip(&theirs.request)
                .find(|(a, b)| a.0 != b.0)
                .map(|(a, _)| a.0.clone())
                .or_else(|| self.request.get(theirs.request.len()).map(|a| a.0.clone()))
                .or_else(|| theirs.request.get(self.request.len()).map(|b| b.0.clone()))
                .unwrap_or_default();
            return Some(format!(
                "process {peer} runs another request than process {me} (they differ at \
                 {first}): {same}"
            ));
        }
        if let Some((name, _)) = self
            .request
            .iter()
            .zip(&theirs.request)
            .find(|(a, b)| a.1 != b.1)
            .map(|(a, b)| (&a.0, b))
        {
            return Some(format!(
                "process {peer} was started with another {name} than process {me}: {same}"
            ));
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
