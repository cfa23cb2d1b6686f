//! Score files: one number per line (e.g. the input of `disguise sample`).

use super::reader::{Delimited, Layout};
use crate::error::{Error, Result};
use std::io::Read;
use std::path::Path;

/// The layout of a score file: one field per line, no header.
const SCORES: Layout = Layout {
    delimiter: b',',
    has_header: false,
    comment: None,
};

/// Reads one finite score per line from the file `path`, streaming (memory is the scores,
/// 8 bytes each, never the text). Blank lines are skipped, fields trimmed, a UTF-8
/// byte-order mark stripped, CRLF line ends handled.
///
/// Errors name the file, line and field: `scores.txt:7:1: not a number: "abc"` (at most 60
/// characters of the line are quoted), `not a finite number` for NaN or infinities,
/// `scores.txt:3: expected 1 field, found 2` for a line with a comma, and `scores.txt: no
/// scores (the file is empty)` when there is no score at all.
///
/// ```
/// # let dir = std::env::temp_dir().join("disguise-doc-scores");
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("scores.txt");
/// std::fs::write(&path, "\u{feff}1.5\r\n\r\n-2\r\n3e2\r\n").unwrap();
/// assert_eq!(disguise::data::read_scores(&path)?, [1.5, -2.0, 300.0]);
/// std::fs::write(&path, "1\n2\nabc\n").unwrap();
/// let e = disguise::data::read_scores(&path).unwrap_err().to_string();
/// assert!(e.ends_with("scores.txt:3:1: not a number: \"abc\""));
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn read_scores(path: &Path) -> Result<Vec<f64>> {
    let shown = path.display().to_string();
    let file = super::text::open_input(path, &shown)?;
    read_scores_from(file, &shown)
}

/// As [`read_scores`] from any byte stream (e.g. standard input); `shown` names it in
/// messages.
pub fn read_scores_from(input: impl Read + 'static, shown: &str) -> Result<Vec<f64>> {
    let mut file = Delimited::from_reader(Box::new(input), shown.to_string(), SCORES)?;
    file.expect_width(1);
    let mut scores = Vec::new();
    while file.next_row()? {
        scores.push(file.number(0)?);
    }
    if scores.is_empty() {
        return Err(Error::parse(format!(
            "{shown}: no scores (the file is empty)"
        )));
    }
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<f64>> {
        read_scores_from(std::io::Cursor::new(text.as_bytes().to_vec()), "s.txt")
    }

    #[test]
    fn parses_lines_and_names_the_bad_one() {
        assert_eq!(parse(" 1.5\n\n-2\n3e2\n").unwrap(), [1.5, -2.0, 300.0]);
        assert_eq!(parse("\u{feff}4\r\n5").unwrap(), [4.0, 5.0]);
        let e = parse("1\n2\nabc\n").unwrap_err().to_string();
        assert_eq!(e, "s.txt:3:1: not a number: \"abc\"");
        let e = parse("1\r\nNaN\r\n").unwrap_err().to_string();
        assert_eq!(e, "s.txt:2:1: not a finite number: \"NaN\"");
        assert!(parse("inf").is_err());
        let e = parse("\n \n").unwrap_err().to_string();
        assert_eq!(e, "s.txt: no scores (the file is empty)");
        let e = parse("1\n2,5\n").unwrap_err().to_string();
        assert_eq!(e, "s.txt:2: expected 1 field, found 2");
        let long = format!("1\n{}\n", "7".repeat(400) + "x");
        let e = parse(&long).unwrap_err().to_string();
        assert!(e.len() < 120 && e.ends_with("… (401 bytes)"), "{e}");
        let e = read_scores(Path::new("/nonexistent/s.txt")).unwrap_err();
        assert!(matches!(e, Error::Io { .. }));
    }
}
