//! Shared helpers for the small CSV-like constraint files: comments, trimming, and errors that
//! name `file:line`.

use crate::error::{Error, Result};
use std::path::Path;

/// One meaningful line of a constraint file: its 1-based number and its trimmed fields.
pub(super) struct Row<'a> {
    pub line: usize,
    pub fields: Vec<&'a str>,
}

/// The non-blank, non-comment (`#`) lines of `text`, split on commas, fields trimmed.
pub(super) fn rows(text: &str) -> impl Iterator<Item = Row<'_>> {
    text.lines().enumerate().filter_map(|(i, raw)| {
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
    Error::Parse(format!("{source}:{line}: {message}"))
}

/// A non-negative integer field, or an error naming `what` and the location.
pub(super) fn parse_index(source: &str, line: usize, what: &str, field: &str) -> Result<usize> {
    field.parse::<usize>().map_err(|_| {
        error_at(
            source,
            line,
            format!("{what} must be a non-negative integer, got {field:?}"),
        )
    })
}

/// Reads a whole file, with the path in the error.
pub(super) fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))
}
