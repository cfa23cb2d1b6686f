//! What every reader of user files shares: a place in a file (`file:line:column`), an
//! offending cell quoted briefly, and the UTF-8 byte-order mark.
//!
//! Messages about input follow one shape, so that editors and people find the spot:
//! `data.csv:7:3: column 'lat': not a number: "abc"` — the file as the user named it, the
//! 1-based line, the 1-based column (field number in a CSV, byte offset in a line-oriented
//! file), then what is wrong. A cell is quoted with at most [`QUOTE_LIMIT`] characters, so a
//! 10 MB field does not flood the terminal.

use std::fmt;

/// The most characters of an offending cell that a message quotes.
pub const QUOTE_LIMIT: usize = 60;

/// The UTF-8 byte-order mark some editors put at the start of a text file.
pub const BOM: &str = "\u{feff}";

/// A place in a file: `file:line` or `file:line:column`, all 1-based.
///
/// ```
/// use disguise::data::Position;
/// assert_eq!(Position::new("a.csv", 7).column(3).to_string(), "a.csv:7:3");
/// assert_eq!(Position::new("a.csv", 7).to_string(), "a.csv:7");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position<'a> {
    /// The file as the user named it.
    pub file: &'a str,
    /// The 1-based line.
    pub line: u64,
    /// The 1-based column, when known.
    pub column: Option<u64>,
}

impl<'a> Position<'a> {
    /// Line `line` of `file`, no column.
    pub fn new(file: &'a str, line: u64) -> Self {
        Self {
            file,
            line,
            column: None,
        }
    }

    /// The same place narrowed to a 1-based column.
    pub fn column(self, column: u64) -> Self {
        Self {
            column: Some(column),
            ..self
        }
    }
}

impl fmt::Display for Position<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if let Some(column) = self.column {
            write!(f, ":{column}")?;
        }
        Ok(())
    }
}

/// `cell` quoted for a message (Rust string syntax, so control characters are visible),
/// cut to its first [`QUOTE_LIMIT`] characters with the full length named when longer.
///
/// ```
/// use disguise::data::quote;
/// assert_eq!(quote("abc"), "\"abc\"");
/// let long = "x".repeat(10_000);
/// assert_eq!(quote(&long), format!("\"{}\"… (10000 bytes)", "x".repeat(60)));
/// ```
pub fn quote(cell: &str) -> String {
    match cell.char_indices().nth(QUOTE_LIMIT) {
        None => format!("{cell:?}"),
        Some((cut, _)) => format!("{:?}… ({} bytes)", &cell[..cut], cell.len()),
    }
}

/// `text` without a leading UTF-8 byte-order mark.
///
/// ```
/// use disguise::data::strip_bom;
/// assert_eq!(strip_bom("\u{feff}a,b"), "a,b");
/// assert_eq!(strip_bom("a,b"), "a,b");
/// ```
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// `bytes` without a leading UTF-8 byte-order mark (for readers that see bytes before
/// decoding them).
pub fn strip_bom_bytes(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM.as_bytes()).unwrap_or(bytes)
}

/// The longest line any reader accepts, in bytes (64 MiB). Real records are far shorter
/// (a FIMI transaction of 100,000 items is under 1 MiB); a longer "line" is a file that is
/// not line-oriented text, such as `/dev/zero` or a binary, and reading it whole would take
/// memory without bound.
pub const MAX_LINE_BYTES: u64 = 64 << 20;

/// A byte stream that fails with [`std::io::ErrorKind::InvalidData`] once a line grows past
/// [`MAX_LINE_BYTES`], so that every reader holds a bounded amount of one line in memory.
pub(crate) struct LineLimit<R> {
    inner: R,
    /// Bytes since the last '\n'.
    run: u64,
    /// 1-based number of the line being read.
    line: u64,
}

impl<R> LineLimit<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self {
            inner,
            run: 0,
            line: 1,
        }
    }
}

impl<R: std::io::Read> std::io::Read for LineLimit<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.inner.read(buf)?;
        for &b in &buf[..k] {
            if b == b'\n' {
                self.line += 1;
                self.run = 0;
            } else {
                self.run += 1;
            }
        }
        if self.run > MAX_LINE_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "line {} is longer than {} MiB: not a text file of records",
                    self.line,
                    MAX_LINE_BYTES >> 20
                ),
            ));
        }
        Ok(k)
    }
}

/// An input opened for reading: a file, or a stream's bytes held by
/// [`crate::files::hold_stream`] (read there once, served from memory to every reader).
pub(crate) enum Input {
    File(std::fs::File),
    Held(std::io::Cursor<std::sync::Arc<[u8]>>),
}

impl std::io::Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Input::File(f) => f.read(buf),
            Input::Held(c) => c.read(buf),
        }
    }
}

/// Opens a user's input file for reading, with the line length bounded ([`LineLimit`]): the
/// held bytes of a stream [`crate::files::hold_stream`] read, else the file. `shown` names
/// the file in the message.
pub(crate) fn open_input(path: &std::path::Path, shown: &str) -> crate::Result<LineLimit<Input>> {
    if let Some(bytes) = crate::files::held(path) {
        return Ok(LineLimit::new(Input::Held(std::io::Cursor::new(bytes))));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| crate::Error::io_with(format!("cannot read {shown}"), e))?;
    Ok(LineLimit::new(Input::File(file)))
}

/// Reads a whole (small) text file such as a schema or constraint file, with the line length
/// bounded ([`LineLimit`]) and the byte-order mark kept for the caller to strip.
pub(crate) fn read_text(path: &std::path::Path, shown: &str) -> crate::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    open_input(path, shown)?
        .read_to_string(&mut text)
        .map_err(|e| crate::Error::io_with(shown.to_string(), e))?;
    Ok(text)
}

/// Calls `f` with each line of a text file (1-based number, text without the line end),
/// holding one line at a time. A UTF-8 byte-order mark at the start is skipped; a line that
/// is not UTF-8 is an error naming `file:line:column` (the column is the 1-based byte).
pub(crate) fn for_each_line(
    path: &std::path::Path,
    shown: &str,
    mut f: impl FnMut(u64, &str) -> crate::Result<()>,
) -> crate::Result<()> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, open_input(path, shown)?);
    let mut line: Vec<u8> = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        let got = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| crate::Error::io_with(shown.to_string(), e))?;
        if got == 0 {
            return Ok(());
        }
        number += 1;
        let bytes = if number == 1 {
            strip_bom_bytes(&line)
        } else {
            &line[..]
        };
        // Columns count bytes after the byte-order mark, which editors do not show.
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let column = (e.valid_up_to() + 1) as u64;
            crate::Error::parse(format!(
                "{}: not valid UTF-8 text",
                Position::new(shown, number).column(column)
            ))
        })?;
        f(number, text.trim_end_matches(['\n', '\r']))?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_cuts_on_characters_not_bytes() {
        let s = "é".repeat(61);
        let q = quote(&s);
        assert_eq!(q, format!("\"{}\"… (122 bytes)", "é".repeat(60)));
        assert_eq!(quote(&"é".repeat(60)), format!("\"{}\"", "é".repeat(60)));
        assert_eq!(quote("a\nb"), "\"a\\nb\"");
    }

    #[test]
    fn bom_only_at_the_start() {
        assert_eq!(strip_bom("\u{feff}\u{feff}x"), "\u{feff}x");
        assert_eq!(strip_bom("x\u{feff}"), "x\u{feff}");
        assert_eq!(strip_bom_bytes(b"\xef\xbb\xbfx"), b"x");
        assert_eq!(strip_bom_bytes(b"\xef\xbb"), b"\xef\xbb");
    }

    #[test]
    fn an_endless_line_is_refused_after_the_limit() {
        use std::io::Read;
        let mut r = LineLimit::new(std::io::repeat(0).take(MAX_LINE_BYTES + 10));
        let mut sink = Vec::new();
        let e = r.read_to_end(&mut sink).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(
            e.to_string().starts_with("line 1 is longer than 64 MiB"),
            "{e}"
        );
        // Long lines that end in time pass, and lines are counted.
        let text = format!("{}\n{}\nx", "a".repeat(1000), "b".repeat(1000));
        let mut out = String::new();
        LineLimit::new(text.as_bytes())
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, text);
        let mut r =
            LineLimit::new(std::io::Cursor::new(b"a\nb\n".to_vec()).chain(std::io::repeat(1)));
        let e = r.read_to_end(&mut Vec::new()).unwrap_err();
        assert!(e.to_string().starts_with("line 3 "), "{e}");
    }
}
