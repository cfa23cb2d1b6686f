//! The one streaming core under every reader of delimited user files (CSV tables, schema
//! data files, score files): the same byte-order-mark stripping, line ends, quoting, blank
//! lines, header checks and error shape everywhere.
//!
//! Rows are read as raw bytes ([`csv::ByteRecord`]) and a field is decoded only when the
//! caller asks for it, so the columns a command does not use cost neither memory nor
//! validation: an unused column may hold anything, even bytes that are not UTF-8. (A row
//! with the wrong number of fields is still an error: the row is malformed, and the fields
//! that are used could be shifted.)

use super::text::{Position, quote, strip_bom_bytes};
use crate::error::{Error, Result};
use std::cell::Cell;
use std::fmt::Display;
use std::io::Read;
use std::path::Path;
use std::rc::Rc;

/// The buffer of the csv reader: large enough for throughput, small next to the data.
const BUFFER: usize = 1 << 16;

/// How a delimited text file is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The field separator.
    pub delimiter: u8,
    /// Whether the first (non-comment) line names the columns.
    pub has_header: bool,
    /// Lines starting with this byte are skipped.
    pub comment: Option<u8>,
}

impl Layout {
    /// Comma-separated with a header row.
    pub const CSV: Layout = Layout {
        delimiter: b',',
        has_header: true,
        comment: None,
    };
}

/// A delimited file being read row by row.
pub(crate) struct Delimited {
    shown: String,
    reader: csv::Reader<Box<dyn Read>>,
    header: Vec<String>,
    header_line: u64,
    width: usize,
    record: csv::ByteRecord,
    /// The 1-based line where the current record starts.
    line: u64,
    /// What the csv reader has been given of the input (to tell where a record ends).
    tail: Rc<Cell<Tail>>,
    rows: u64,
    /// The current record was read ahead (to number the columns of a headerless file) and
    /// is the next row.
    pending: bool,
}

impl Delimited {
    /// Opens `path` (shown in messages as given) and reads its header if the layout has one.
    ///
    /// # Errors
    /// [`Error::Io`] for a file that cannot be opened; [`Error::Parse`] for an empty file
    /// (`data.csv: empty file (no header row)`), a header naming a column twice
    /// (`data.csv:1: duplicate column 'age' (columns 2 and 5)`) or one whose names are mostly
    /// numbers (a headerless file: `data.csv:1: the header row looks like data …`).
    pub fn open(path: &Path, layout: Layout) -> Result<Self> {
        let shown = path.display().to_string();
        let file = super::text::open_input(path, &shown)?;
        Self::from_reader(Box::new(file), shown, layout)
    }

    /// As [`Delimited::open`] on any byte stream; `shown` names it in messages.
    pub fn from_reader(input: Box<dyn Read>, shown: String, layout: Layout) -> Result<Self> {
        // Bounded lines for every stream (standard input too); a second bound on a file opened
        // by `open` costs nothing.
        let input = skip_bom(Box::new(super::text::LineLimit::new(input)))
            .map_err(|e| Error::io_with(shown.to_string(), e))?;
        let tail = Rc::new(Cell::new(Tail::default()));
        let input: Box<dyn Read> = Box::new(Counting {
            inner: input,
            tail: Rc::clone(&tail),
        });
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(layout.delimiter)
            .comment(layout.comment)
            // Records end at '\n' only: with the default CRLF terminator the csv crate stops
            // at the '\r' and reports the line of a record after a CRLF as one too small
            // (BurntSushi/rust-csv#395). A '\r' before the '\n' stays in the last field and
            // is trimmed with the other surrounding whitespace. (Files ending lines with a
            // lone '\r' are not supported.)
            .terminator(csv::Terminator::Any(b'\n'))
            .buffer_capacity(BUFFER)
            .from_reader(input);
        let mut file = Self {
            shown,
            reader,
            header: Vec::new(),
            header_line: 0,
            width: 0,
            record: csv::ByteRecord::new(),
            line: 0,
            tail,
            rows: 0,
            pending: false,
        };
        if layout.has_header {
            file.read_header()?;
        }
        Ok(file)
    }

    fn read_header(&mut self) -> Result<()> {
        if !self.next_record()? {
            return Err(Error::parse(format!(
                "{}: empty file (no header row)",
                self.shown
            )));
        }
        self.header_line = self.line();
        // Names are matched against what people type, so a name that is not UTF-8 is shown
        // with replacement characters rather than refused (its column may be unused).
        self.header = self
            .record
            .iter()
            .map(|name| String::from_utf8_lossy(name).trim().to_string())
            .collect();
        self.width = self.header.len();
        // A first row of numbers is a record, not names: taking it as the header would lose
        // it and name the columns by its values.
        let numbers: Vec<&String> = self
            .header
            .iter()
            .filter(|name| !name.is_empty() && name.parse::<f64>().is_ok())
            .collect();
        if self.width >= 2 && 2 * numbers.len() > self.width {
            let shown: Vec<String> = numbers.iter().take(3).map(|n| quote_name(n)).collect();
            return Err(Error::parse(format!(
                "{}: the header row looks like data ({} of {} names are numbers: {}{}): add a \
                 first row naming the columns, or declare that there is none (`--no-header`, \
                 or `has_header = false` in a schema)",
                Position::new(&self.shown, self.header_line),
                numbers.len(),
                self.width,
                shown.join(", "),
                if numbers.len() > 3 { ", …" } else { "" }
            )));
        }
        // Checked after the look of the row: a record's repeated values are not names.
        let mut seen: std::collections::HashMap<String, usize> = Default::default();
        for (c, name) in self.header.iter().enumerate() {
            if name.is_empty() {
                continue; // an unnamed column (e.g. a written-out index) cannot be asked for
            }
            if let Some(first) = seen.insert(name.to_ascii_lowercase(), c) {
                return Err(Error::parse(format!(
                    "{}: duplicate column {} (columns {} and {}); if the file has no header \
                     row, say so (`--no-header`, or `has_header = false` in a schema)",
                    Position::new(&self.shown, self.header_line),
                    quote_name(name),
                    first + 1,
                    c + 1
                )));
            }
        }
        Ok(())
    }

    /// The next record that is not blank, into `self.record`; false at the end.
    fn next_record(&mut self) -> Result<bool> {
        loop {
            let more = self
                .reader
                .read_byte_record(&mut self.record)
                .map_err(|e| self.csv_error(e))?;
            if !more {
                return Ok(false);
            }
            self.line = self.record_start_line();
            // A line of blanks (or a lone '\r') is one blank field: skipped like an empty line.
            let blank =
                self.record.len() == 1 && self.record[0].iter().all(u8::is_ascii_whitespace);
            if !blank {
                return Ok(true);
            }
        }
    }

    /// The line where the record just read starts. The csv crate's own record position is
    /// where its read began, i.e. before any blank or comment lines it skipped; so the line
    /// is counted back from where the record ends instead, less the line breaks inside its
    /// quoted fields.
    fn record_start_line(&self) -> u64 {
        let after = self.reader.position();
        let tail = self.tail.get();
        // Every record but the file's last ends with the '\n' the reader has just counted.
        let at_end = tail.eof && after.byte() == tail.total;
        let newline_ended = !at_end || tail.last == Some(b'\n');
        let end = after.line().saturating_sub(u64::from(newline_ended));
        let inner = self
            .record
            .as_slice()
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64;
        end.saturating_sub(inner).max(1)
    }

    fn csv_error(&self, err: csv::Error) -> Error {
        let line = err.position().map(csv::Position::line);
        let at = match line {
            Some(line) => Position::new(&self.shown, line).to_string(),
            None => self.shown.clone(),
        };
        match err.into_kind() {
            csv::ErrorKind::Io(e) => Error::io_with(at.to_string(), e),
            other => Error::parse(format!("{at}: {}", csv_kind_message(&other))),
        }
    }

    /// The file as shown in messages.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The column names (trimmed), empty without a header.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// Names the columns of a file without a header `c1` … `cN` after its first row, which
    /// stays the first row to be read.
    ///
    /// # Errors
    /// [`Error::Parse`] for an empty file.
    pub fn number_columns(&mut self) -> Result<()> {
        if !self.next_record()? {
            return Err(Error::parse(format!("{}: empty file", self.shown)));
        }
        self.width = self.record.len();
        self.header = (1..=self.width).map(|i| format!("c{i}")).collect();
        self.pending = true;
        Ok(())
    }

    /// Sets the number of fields of a file without a header (e.g. a schema's columns).
    pub fn expect_width(&mut self, width: usize) {
        self.width = width;
    }

    /// The index of the column named `name` (trimmed, ASCII case-insensitive), or an error
    /// listing the columns: `data.csv: no column 'age' (columns: a, b)`.
    pub fn find(&self, name: &str) -> Result<usize> {
        find_column(&self.shown, &self.header, name)
    }

    /// Advances to the next row; false at the end of the file.
    ///
    /// # Errors
    /// [`Error::Parse`] for a row with the wrong number of fields (`data.csv:9: expected 5
    /// fields, found 4`) or malformed text; [`Error::Io`] for a read failure.
    pub fn next_row(&mut self) -> Result<bool> {
        if std::mem::take(&mut self.pending) {
            self.rows += 1;
            return Ok(true);
        }
        if !self.next_record()? {
            return Ok(false);
        }
        if self.record.len() != self.width {
            return Err(Error::parse(format!(
                "{}: expected {} field{}, found {}",
                Position::new(&self.shown, self.line()),
                self.width,
                if self.width == 1 { "" } else { "s" },
                self.record.len()
            )));
        }
        self.rows += 1;
        Ok(true)
    }

    /// The 1-based line where the current row starts.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The number of rows read so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Field `c` of the current row, decoded and trimmed.
    ///
    /// # Errors
    /// [`Error::Parse`] at `file:line:column` when the field is not valid UTF-8.
    pub fn field(&self, c: usize) -> Result<&str> {
        let bytes = self.record.get(c).unwrap_or_default();
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(text.trim()),
            Err(_) => Err(self.error_at(
                c,
                format!(
                    "not valid UTF-8: {}",
                    quote(&String::from_utf8_lossy(bytes))
                ),
            )),
        }
    }

    /// Field `c` of the current row as a finite number.
    ///
    /// # Errors
    /// [`Error::Parse`] at `file:line:column`: `not a number: "abc"` or `not a finite
    /// number: "inf"`.
    pub fn number(&self, c: usize) -> Result<f64> {
        let text = self.field(c)?;
        parse_finite(text).map_err(|why| self.error_at(c, why))
    }

    /// An error about field `c` of the current row: `file:line:column: column 'name':
    /// message` (without the name when the file has no header).
    pub fn error_at(&self, c: usize, message: impl Display) -> Error {
        let name = self.header.get(c).map_or("", String::as_str);
        self.error_named(c, name, message)
    }

    /// As [`Delimited::error_at`] with the column's name given (e.g. by a schema, for a file
    /// without a header); an empty name is left out.
    pub fn error_named(&self, c: usize, name: &str, message: impl Display) -> Error {
        let at = Position::new(&self.shown, self.line()).column(c as u64 + 1);
        if name.is_empty() {
            Error::parse(format!("{at}: {message}"))
        } else {
            Error::parse(format!("{at}: column {}: {message}", quote_name(name)))
        }
    }

    /// Errors unless at least one row was read: `data.csv: no data rows (only a header)`,
    /// or `data.csv: empty file (no data rows)` without a header.
    pub fn require_rows(&self) -> Result<()> {
        if self.rows > 0 {
            Ok(())
        } else if self.header_line > 0 {
            Err(Error::parse(format!(
                "{}: no data rows (only a header)",
                self.shown
            )))
        } else {
            Err(Error::parse(format!(
                "{}: empty file (no data rows)",
                self.shown
            )))
        }
    }
}

/// `name` quoted for a message: `'age'`, shortened like a cell when long.
pub(crate) fn quote_name(name: &str) -> String {
    if name.chars().count() <= super::text::QUOTE_LIMIT
        && !name.contains('\'')
        && !name.contains(char::is_control)
    {
        format!("'{name}'")
    } else {
        quote(name)
    }
}

/// The index of the column named `name` in `header`, or an error naming `shown`.
pub(crate) fn find_column(shown: &str, header: &[String], name: &str) -> Result<usize> {
    let wanted = name.trim();
    header
        .iter()
        .position(|h| h.eq_ignore_ascii_case(wanted))
        .ok_or_else(|| {
            // A name with a line break or other control character (a quoted header field can
            // hold one) is escaped, so that the message stays on one line.
            Error::parse(format!(
                "{shown}: no column {} (columns: {}){}",
                quote_name(wanted),
                brief_list(header),
                delimiter_hint(header)
            ))
        })
}

/// A hint for a header read as one column that another separator would split: the file is
/// likely separated by it (`--delimiter`, or `delimiter` in a schema).
fn delimiter_hint(header: &[String]) -> String {
    let [only] = header else {
        return String::new();
    };
    [';', '\t', '|']
        .into_iter()
        .find(|&c| only.contains(c))
        .map_or(String::new(), |c| {
            let shown = if c == '\t' {
                "\\t".to_string()
            } else {
                c.to_string()
            };
            format!(
                "; the header holds '{shown}': if it separates the fields, say so \
                 (`--delimiter '{shown}'`, or `delimiter` in a schema)"
            )
        })
}

/// Names for a message: each quoted if it holds a control character or is long, the list cut
/// to a few hundred characters ([`short`]).
pub(crate) fn brief_list(names: &[String]) -> String {
    let listed: Vec<String> = names
        .iter()
        .map(|h| {
            if h.contains(char::is_control) || h.chars().count() > super::text::QUOTE_LIMIT {
                quote(h)
            } else {
                h.clone()
            }
        })
        .collect();
    short(&listed.join(", "))
}

/// At most a few hundred characters of a list of names (a file may have thousands).
pub(crate) fn short(text: &str) -> String {
    const LIMIT: usize = 400;
    match text.char_indices().nth(LIMIT) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

/// A finite number, or the reason it is not one (with the text quoted briefly).
pub(crate) fn parse_finite(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        Ok(_) => Err(format!("not a finite number: {}", quote(text))),
        Err(_) => Err(format!("not a number: {}", quote(text))),
    }
}

/// The csv crate's error as a short phrase (without its own position).
fn csv_kind_message(kind: &csv::ErrorKind) -> String {
    match kind {
        csv::ErrorKind::Utf8 { .. } => "not valid UTF-8".to_string(),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("expected {expected_len} fields, found {len}"),
        other => format!("{other:?}"),
    }
}

/// How much of the input the csv reader has been handed, and its last byte.
#[derive(Debug, Clone, Copy, Default)]
struct Tail {
    total: u64,
    last: Option<u8>,
    eof: bool,
}

/// The input as the csv reader sees it, keeping [`Tail`] up to date.
struct Counting {
    inner: Box<dyn Read>,
    tail: Rc<Cell<Tail>>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut tail = self.tail.get();
        if n == 0 {
            tail.eof = !buf.is_empty();
        } else {
            tail.total += n as u64;
            tail.last = Some(buf[n - 1]);
        }
        self.tail.set(tail);
        Ok(n)
    }
}

/// `input` without a leading UTF-8 byte-order mark. The csv crate strips one itself only
/// when its first read returns at least three bytes, which a pipe need not do.
fn skip_bom(mut input: Box<dyn Read>) -> std::io::Result<Box<dyn Read>> {
    let mut head = [0u8; 3];
    let mut got = 0;
    while got < head.len() {
        match input.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let rest = strip_bom_bytes(&head[..got]).to_vec();
    Ok(Box::new(std::io::Cursor::new(rest).chain(input)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(text: &[u8], layout: Layout) -> Result<Delimited> {
        Delimited::from_reader(
            Box::new(std::io::Cursor::new(text.to_vec())),
            "t.csv".into(),
            layout,
        )
    }

    /// A reader that returns one byte per call, like a slow pipe.
    struct Trickle(std::io::Cursor<Vec<u8>>);
    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(1);
            self.0.read(&mut buf[..n])
        }
    }

    #[test]
    fn bom_crlf_quotes_and_blank_lines() {
        let text = b"\xef\xbb\xbf\"Name\", x \r\n\r\n\"a, b\",1\r\n   \r\nc,\"2\"\r\n";
        let mut f = open(text, Layout::CSV).unwrap();
        assert_eq!(f.header(), ["Name", "x"]);
        assert!(f.next_row().unwrap());
        assert_eq!((f.line(), f.field(0).unwrap()), (3, "a, b"));
        assert!(f.next_row().unwrap());
        assert_eq!((f.line(), f.number(1).unwrap()), (5, 2.0));
        assert!(!f.next_row().unwrap());
        assert_eq!(f.rows(), 2);
        // The BOM is stripped even when the input arrives one byte at a time.
        let slow = Trickle(std::io::Cursor::new(b"\xef\xbb\xbfa,b\n1,2\n".to_vec()));
        let f = Delimited::from_reader(Box::new(slow), "p".into(), Layout::CSV).unwrap();
        assert_eq!(f.header(), ["a", "b"]);
    }

    #[test]
    fn messages_have_file_line_column() {
        let mut f = open(b"a,b\n1,2\n3,x\n", Layout::CSV).unwrap();
        f.next_row().unwrap();
        f.next_row().unwrap();
        let e = f.number(1).unwrap_err().to_string();
        assert_eq!(e, "t.csv:3:2: column 'b': not a number: \"x\"");
        let mut f = open(b"a,b\n1,2\n3\n", Layout::CSV).unwrap();
        f.next_row().unwrap();
        let e = f.next_row().unwrap_err().to_string();
        assert_eq!(e, "t.csv:3: expected 2 fields, found 1");
        let e = open(b"", Layout::CSV).err().unwrap().to_string();
        assert_eq!(e, "t.csv: empty file (no header row)");
        let mut f = open(b"a,b\n", Layout::CSV).unwrap();
        assert!(!f.next_row().unwrap());
        let e = f.require_rows().unwrap_err().to_string();
        assert_eq!(e, "t.csv: no data rows (only a header)");
        let e = open(b"id,Age,x,y,AGE\n", Layout::CSV)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with(
                "t.csv:1: duplicate column 'AGE' (columns 2 and 5); if the file has \
                           no header row, say so (`--no-header`"
            ),
            "{e}"
        );
        // Unnamed columns are not duplicates of each other.
        assert!(open(b",a,\n1,2,3\n", Layout::CSV).is_ok());
        // A headerless file (iris: four numbers and a name) is refused, naming the values.
        let e = open(
            b"5.1,3.5,1.4,0.2,setosa\n4.9,3.0,1.4,0.2,setosa\n",
            Layout::CSV,
        )
        .err()
        .unwrap()
        .to_string();
        assert_eq!(
            e,
            "t.csv:1: the header row looks like data (4 of 5 names are numbers: '5.1', '3.5', \
             '1.4', …): add a first row naming the columns, or declare that there is none \
             (`--no-header`, or `has_header = false` in a schema)"
        );
        // Half numbers or fewer is a header (columns named by years, ids, …).
        assert!(open(b"id,2019,2020,name\n1,2,3,x\n", Layout::CSV).is_ok());
        let f = open(b"a,b\n", Layout::CSV).unwrap();
        let e = f.find("c").unwrap_err().to_string();
        assert_eq!(e, "t.csv: no column 'c' (columns: a, b)");
        // A semicolon file read with commas is one column: the message names the separator.
        let f = open(b"a;b\n1;2\n", Layout::CSV).unwrap();
        let e = f.find("b").unwrap_err().to_string();
        assert!(
            e.ends_with(
                "the header holds ';': if it separates the fields, say so \
                             (`--delimiter ';'`, or `delimiter` in a schema)"
            ),
            "{e}"
        );
    }

    #[test]
    fn huge_cells_are_quoted_briefly() {
        let mut text = b"a,b\n1,".to_vec();
        text.extend(std::iter::repeat_n(b'x', 10_000_000));
        text.push(b'\n');
        let mut f = open(&text, Layout::CSV).unwrap();
        f.next_row().unwrap();
        let e = f.number(1).unwrap_err().to_string();
        assert!(e.len() < 200, "{} bytes", e.len());
        assert!(e.ends_with("… (10000000 bytes)"), "{e}");
        // Invalid UTF-8 in the field asked for is an error at its place; elsewhere, nothing.
        let mut f = open(b"a,b\n\xff\xfe,1\n", Layout::CSV).unwrap();
        f.next_row().unwrap();
        assert_eq!(f.number(1).unwrap(), 1.0);
        let e = f.field(0).unwrap_err().to_string();
        assert!(
            e.starts_with("t.csv:2:1: column 'a': not valid UTF-8"),
            "{e}"
        );
    }

    #[test]
    fn lines_after_skipped_lines_and_multiline_fields() {
        // Blank and comment lines before a record, a quoted field spanning lines, and a last
        // record without a line end: each row is placed at the line where it starts.
        let layout = Layout {
            comment: Some(b'#'),
            ..Layout::CSV
        };
        for end in ["", "\n", "\r\n"] {
            let text = format!("a,b\r\n\r\n#c\n1,\"x\ny\"\n\n\n2,3\r\n#d\n\"4\n\",5{end}");
            let mut f = open(text.as_bytes(), layout).unwrap();
            let mut lines = Vec::new();
            while f.next_row().unwrap() {
                lines.push(f.line());
            }
            assert_eq!(lines, [4, 8, 10], "ending {end:?}");
        }
    }

    #[test]
    fn headerless_layouts() {
        let layout = Layout {
            delimiter: b';',
            has_header: false,
            comment: Some(b'#'),
        };
        let mut f = open(b"# note\n1; 2\n\n3;4\n", layout).unwrap();
        f.expect_width(2);
        assert!(f.next_row().unwrap());
        assert_eq!((f.line(), f.number(1).unwrap()), (2, 2.0));
        assert!(f.next_row().unwrap());
        let e = f.number(5).unwrap_err().to_string();
        assert_eq!(e, "t.csv:4:6: not a number: \"\"");
        let f = open(b"", layout).unwrap();
        assert_eq!(
            f.require_rows().unwrap_err().to_string(),
            "t.csv: empty file (no data rows)"
        );
    }

    proptest::proptest! {
        /// Any bytes, any layout: errors, never a panic; every row is placed on a line of
        /// the input.
        #[test]
        fn arbitrary_bytes_never_panic(
            bytes in proptest::collection::vec(
                proptest::sample::select(b"a,;#\"\r\n 1.5\xef\xbb\xbf\xff".to_vec()),
                0..200,
            ),
            header in proptest::bool::ANY,
            comment in proptest::bool::ANY,
        ) {
            let layout = Layout {
                delimiter: b',',
                has_header: header,
                comment: comment.then_some(b'#'),
            };
            let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            if let Ok(mut f) = open(&bytes, layout) {
                if !header {
                    f.expect_width(2);
                }
                while let Ok(true) = f.next_row() {
                    proptest::prop_assert!((1..=lines).contains(&f.line()));
                    for c in 0..3 {
                        let _ = f.number(c);
                        let _ = f.field(c);
                    }
                }
                let _ = f.require_rows();
            }
        }
    }
}
