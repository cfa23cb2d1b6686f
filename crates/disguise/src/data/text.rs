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
}
