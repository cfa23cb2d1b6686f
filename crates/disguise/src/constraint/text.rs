//! Shared helpers for the small CSV-like constraint files: a byte-order mark, comments,
//! trimming, and errors that name `file:line` (and the field, `file:line:column`, when one
//! field is at fault, quoting at most 60 characters of it).

use crate::data::{Position, quote, strip_bom};
use crate::error::{Error, Result};
use std::path::Path;

/// One meaningful line of a constraint file: its 1-based number and its trimmed fields.
pub(super) struct Row<'a> {
    pub line: usize,
    pub fields: Vec<&'a str>,
}

/// The non-blank, non-comment (`#`) lines of `text` (a leading byte-order mark dropped),
/// split on commas, fields trimmed.
pub(super) fn rows(text: &str) -> impl Iterator<Item = Row<'_>> {
    strip_bom(text).lines().enumerate().filter_map(|(i, raw)| {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            None
        } else {
            Some(Row {
                line: i + 1,
                fields: line.split(',').map(str::trim).collect(),
            })
        }
    })
}

/// A parse error located at `source:line`.
pub(super) fn error_at(source: &str, line: usize, message: impl std::fmt::Display) -> Error {
    Error::parse(format!("{source}:{line}: {message}"))
}

/// Field `column` (0-based) of `row` as a non-negative integer, or an error naming `what` and
/// the place: `groups.csv:7:2: a capacity must be a non-negative integer, got "x"`.
pub(super) fn parse_index(source: &str, row: &Row<'_>, column: usize, what: &str) -> Result<usize> {
    let field = row.fields[column];
    field.parse::<usize>().map_err(|_| {
        let at = Position::new(source, row.line as u64).column(column as u64 + 1);
        Error::parse(format!(
            "{at}: {what} must be a non-negative integer, got {}",
            quote(field)
        ))
    })
}

/// Reads a whole file, with the path in the error.
pub(super) fn read(path: &Path) -> Result<String> {
    crate::data::read_text(path, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_comments_and_field_positions() {
        let rows: Vec<Row<'_>> = rows("\u{feff}group,capacity\r\n# note\n\n a , 3 \n").collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].fields, ["group", "capacity"]);
        assert_eq!((rows[1].line, rows[1].fields.clone()), (4, vec!["a", "3"]));
        assert_eq!(parse_index("g.csv", &rows[1], 1, "a capacity").unwrap(), 3);
        let long = format!("x,{}", "y".repeat(10_000));
        let row = rows_of(&long);
        let e = parse_index("g.csv", &row, 1, "a capacity")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("g.csv:1:2: a capacity must be a non-negative integer, got \"yyy"));
        assert!(e.len() < 150, "{e}");
    }

    fn rows_of(text: &str) -> Row<'_> {
        rows(text).next().unwrap()
    }
}
