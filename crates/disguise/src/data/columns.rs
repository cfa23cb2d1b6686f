//! Streaming CSV reader for named numeric (and optional text) columns.

use crate::error::{Error, Result};
use std::path::Path;

/// Columns read from a CSV file: `numeric[c][row]` for each requested numeric column, and the
/// optional text column.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Columns {
    /// One vector per requested numeric column, in request order.
    pub numeric: Vec<Vec<f64>>,
    /// The optional text column (e.g. candidate names), if requested and present.
    pub text: Option<Vec<String>>,
}

impl Columns {
    /// Number of data rows.
    pub fn rows(&self) -> usize {
        self.numeric.first().map_or(0, Vec::len)
    }
}

/// Reads the named numeric columns (matched case-insensitively against the header) and an
/// optional text column from a CSV file with a header row, streaming (memory is the columns
/// read, not the file). Handles quoting and CRLF.
///
/// Errors name the file, the 1-based line and the column: `points.csv:7: column 'lat': not a
/// number: "abc"`; non-finite values (NaN, inf) are errors too. An empty file, a file with no
/// data rows, or a missing column is an error.
///
/// ```
/// # let dir = std::env::temp_dir().join("disguise-doc-columns");
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("pts.csv");
/// std::fs::write(&path, "name,Lat,Lon\nA,40.7,-73.9\nB,40.8,-73.95\n").unwrap();
/// let cols = disguise::data::read_columns(&path, &["lat", "lon"], Some("name"))?;
/// assert_eq!(cols.numeric[0], vec![40.7, 40.8]);
/// assert_eq!(cols.text.unwrap(), vec!["A", "B"]);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn read_columns(path: &Path, numeric: &[&str], text: Option<&str>) -> Result<Columns> {
    read_columns_checked(path, numeric, text, |_, _| Ok(()))
}

/// As [`read_columns`], with a domain check on every numeric value: `check(c, value)` for the
/// `c`-th requested column returns `Err(reason)` to reject it, and the error names the file,
/// line and column like the parse errors do: `points.csv:7: column 'lat': 91 is outside
/// [-90, 90]`.
///
/// ```
/// # let dir = std::env::temp_dir().join("disguise-doc-columns-checked");
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("pts.csv");
/// std::fs::write(&path, "lat,lon\n40.7,-73.9\n91,0\n").unwrap();
/// let err = disguise::data::read_columns_checked(&path, &["lat", "lon"], None, |c, v| {
///     if c == 0 && !(-90.0..=90.0).contains(&v) {
///         Err(format!("{v} is outside [-90, 90]"))
///     } else {
///         Ok(())
///     }
/// });
/// assert!(err.unwrap_err().to_string().ends_with("pts.csv:3: column 'lat': 91 is outside [-90, 90]"));
/// ```
pub fn read_columns_checked(
    path: &Path,
    numeric: &[&str],
    text: Option<&str>,
    check: impl Fn(usize, f64) -> std::result::Result<(), String>,
) -> Result<Columns> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| Error::Io(format!("{shown}: {e}")))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        // Records end at '\n' only: with the default CRLF terminator the csv crate stops at
        // the '\r' and reports the line of a record after a CRLF as one too small
        // (BurntSushi/rust-csv#395). A '\r' before the '\n' stays in the last field and is
        // trimmed with the other surrounding whitespace. (Files ending lines with a lone '\r'
        // are not supported.)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_reader(std::io::BufReader::with_capacity(1 << 20, file));
    let headers = reader
        .headers()
        .map_err(|e| Error::Parse(format!("{shown}: {}", csv_message(&e))))?
        .clone();
    if headers.is_empty() || (headers.len() == 1 && headers[0].is_empty()) {
        return Err(Error::Parse(format!("{shown}: empty file (no header row)")));
    }
    let find = |name: &str| -> Result<usize> {
        headers
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                Error::Parse(format!(
                    "{shown}: no column '{name}' (columns: {})",
                    headers.iter().collect::<Vec<_>>().join(", ")
                ))
            })
    };
    let numeric_idx = numeric
        .iter()
        .map(|n| find(n))
        .collect::<Result<Vec<_>>>()?;
    let text_idx = match text {
        Some(name) => headers
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(name)),
        None => None,
    };
    let mut out = Columns {
        numeric: vec![Vec::new(); numeric.len()],
        text: text_idx.map(|_| Vec::new()),
    };
    let mut record = csv::StringRecord::new();
    loop {
        let more = reader
            .read_record(&mut record)
            .map_err(|e| Error::Parse(format!("{shown}: {}", csv_message(&e))))?;
        if !more {
            break;
        }
        let line = record.position().map_or(0, |p| p.line());
        for (c, (&idx, name)) in numeric_idx.iter().zip(numeric).enumerate() {
            let raw = record.get(idx).unwrap_or("").trim();
            let value: f64 = raw.parse().map_err(|_| {
                Error::Parse(format!(
                    "{shown}:{line}: column '{name}': not a number: {raw:?}"
                ))
            })?;
            if !value.is_finite() {
                return Err(Error::Parse(format!(
                    "{shown}:{line}: column '{name}': not a finite number: {raw:?}"
                )));
            }
            check(c, value)
                .map_err(|why| Error::Parse(format!("{shown}:{line}: column '{name}': {why}")))?;
            out.numeric[c].push(value);
        }
        if let (Some(idx), Some(names)) = (text_idx, out.text.as_mut()) {
            names.push(record.get(idx).unwrap_or("").trim().to_string());
        }
    }
    if out.rows() == 0 && !numeric.is_empty() {
        return Err(Error::Parse(format!("{shown}: no data rows")));
    }
    Ok(out)
}

/// The csv crate's error, with its line number when it has one, as one short phrase.
pub(super) fn csv_message(err: &csv::Error) -> String {
    match err.kind() {
        csv::ErrorKind::UnequalLengths {
            pos: Some(pos),
            expected_len,
            len,
        } => format!(
            "{}: expected {expected_len} fields, found {len}",
            pos.line()
        ),
        csv::ErrorKind::Utf8 { pos: Some(pos), .. } => {
            format!("{}: not valid UTF-8", pos.line())
        }
        _ => err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, content: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("disguise-columns-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        path
    }

    #[test]
    fn reads_quoted_crlf_case_insensitive() {
        let p = write(
            "a.csv",
            "\"Date/Time\",\"Lat\",\"Lon\",\"Base\"\r\n\"4/1/2014 0:11:00\",40.769,-73.9549,\"B02512\"\r\n\"x\",40.7,-74.0,\"B\"\r\n",
        );
        let c = read_columns(&p, &["lat", "lon"], None).unwrap();
        assert_eq!(c.numeric, vec![vec![40.769, 40.7], vec![-73.9549, -74.0]]);
        // Lines are counted right after CRLF line ends (the last field keeps no '\r').
        let p = write("a2.csv", "name,lat\r\n\"x\",1\r\n\"y\",z\r\n");
        let e = read_columns(&p, &["lat"], Some("name"))
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("a2.csv:3: column 'lat': not a number: \"z\""),
            "{e}"
        );
        let p = write("a3.csv", "lat,name\r\n1,\"x\"\r\n2,y\r\n");
        let c = read_columns(&p, &["lat"], Some("name")).unwrap();
        assert_eq!(c.text.unwrap(), vec!["x", "y"]);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let p = write("b.csv", "lat,lon\n1,2\n3,abc\n");
        let e = read_columns(&p, &["lat", "lon"], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("b.csv:3: column 'lon': not a number: \"abc\""),
            "{e}"
        );
        let p = write("c.csv", "lat,lon\n1,NaN\n");
        let e = read_columns(&p, &["lat", "lon"], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("c.csv:2: column 'lon': not a finite number"),
            "{e}"
        );
        let p = write("d.csv", "lat,lon\n");
        let e = read_columns(&p, &["lat", "lon"], None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no data rows"), "{e}");
        let p = write("e.csv", "");
        assert!(read_columns(&p, &["lat"], None).is_err());
        let p = write("f.csv", "x,y\n1,2\n");
        let e = read_columns(&p, &["lat"], None).unwrap_err().to_string();
        assert!(e.contains("no column 'lat' (columns: x, y)"), "{e}");
        let p = write("g.csv", "lat,lon\n1,2\n3\n");
        let e = read_columns(&p, &["lat", "lon"], None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("3: expected 2 fields, found 1"), "{e}");
        let e = read_columns(Path::new("/nonexistent/x.csv"), &["lat"], None).unwrap_err();
        assert!(matches!(e, Error::Io(_)));
    }
}
