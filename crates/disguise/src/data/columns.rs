//! Streaming CSV reader for named numeric (and optional text) columns.

use super::reader::{Delimited, Layout};
use crate::error::Result;
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
/// optional text column from a CSV file with a header row, streaming: memory is the columns
/// read, not the file, and the other columns are neither stored nor decoded. A UTF-8
/// byte-order mark is stripped; quoting and CRLF line ends are handled; fields are trimmed;
/// blank lines are skipped.
///
/// Errors name the file, the 1-based line and field number and the column: `points.csv:7:2:
/// column 'lat': not a number: "abc"` (at most 60 characters of the cell are quoted);
/// non-finite values (NaN, inf) are errors too. An empty file, a file with no data rows, a
/// header naming a column twice (case-insensitively), a row with the wrong number of fields,
/// or a missing numeric column is an error; a missing text column is not (`text` is then
/// `None`).
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

/// The domain check of geographic coordinates for [`read_columns_checked`] and
/// [`read_points`], with the columns in the order (latitude, longitude): latitude in
/// [-90, 90], longitude in [-180, 180].
///
/// ```
/// use disguise::data::geographic;
/// assert!(geographic(0, 40.7).is_ok() && geographic(1, -73.9).is_ok());
/// assert_eq!(geographic(0, 95.0).unwrap_err(), "latitude 95 is outside [-90, 90]");
/// assert_eq!(geographic(1, -200.0).unwrap_err(), "longitude -200 is outside [-180, 180]");
/// ```
pub fn geographic(column: usize, value: f64) -> std::result::Result<(), String> {
    let (name, limit) = if column == 0 {
        ("latitude", 90.0)
    } else {
        ("longitude", 180.0)
    };
    if (-limit..=limit).contains(&value) {
        Ok(())
    } else {
        Err(format!("{name} {value} is outside [-{limit}, {limit}]"))
    }
}

/// As [`read_columns`], with a domain check on every numeric value: `check(c, value)` for the
/// `c`-th requested column returns `Err(reason)` to reject it, and the error names the file,
/// line and column like the parse errors do: `points.csv:7:1: column 'lat': 91 is outside
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
/// assert!(err.unwrap_err().to_string().ends_with("pts.csv:3:1: column 'lat': 91 is outside [-90, 90]"));
/// ```
pub fn read_columns_checked(
    path: &Path,
    numeric: &[&str],
    text: Option<&str>,
    check: impl Fn(usize, f64) -> std::result::Result<(), String>,
) -> Result<Columns> {
    read_columns_with_checks(path, numeric, text, check, |_| Ok(()))
}

/// As [`read_columns_checked`], with a check of the text column too: `check_text(value)`
/// returns `Err(reason)` to reject a value, named by file, line and column.
///
/// ```
/// # let dir = std::env::temp_dir().join("disguise-doc-columns-text");
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("typed.csv");
/// std::fs::write(&path, "x,y,shift\n0,0,day\n\n1,1,dusk\n").unwrap();
/// let err = disguise::data::read_columns_with_checks(&path, &["x", "y"], Some("shift"),
///     |_, _| Ok(()),
///     |t| if t == "day" || t == "night" { Ok(()) } else { Err(format!("{t:?} is not a type")) });
/// assert!(err.unwrap_err().to_string().ends_with("typed.csv:4:3: column 'shift': \"dusk\" is not a type"));
/// ```
pub fn read_columns_with_checks(
    path: &Path,
    numeric: &[&str],
    text: Option<&str>,
    check: impl Fn(usize, f64) -> std::result::Result<(), String>,
    check_text: impl Fn(&str) -> std::result::Result<(), String>,
) -> Result<Columns> {
    let mut out = Columns {
        numeric: vec![Vec::new(); numeric.len()],
        text: None,
    };
    let mut texts = Vec::new();
    let has_text = scan(path, numeric, text, check, check_text, |values, name| {
        for (column, &v) in out.numeric.iter_mut().zip(values) {
            column.push(v);
        }
        if let Some(name) = name {
            texts.push(name.to_string());
        }
    })?;
    if has_text {
        out.text = Some(texts);
    }
    Ok(out)
}

/// Points read from a CSV file by [`read_points`]: one `[x, y]` pair per row, and the
/// optional text column.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Points {
    /// `[x, y]` (or `[lat, lon]`) per row, in file order.
    pub coords: Vec<[f64; 2]>,
    /// The optional text column (e.g. names), if requested and present.
    pub names: Option<Vec<String>>,
}

/// Reads two numeric columns as points (e.g. `["lat", "lon"]`) and an optional text column,
/// streaming straight into one `[f64; 2]` per row (16 bytes per point, no intermediate
/// columns). Parsing, checks and errors as [`read_columns_checked`], with `check(c, value)`
/// called for c = 0 (first coordinate) and 1.
///
/// ```
/// # let dir = std::env::temp_dir().join("disguise-doc-points");
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("pts.csv");
/// std::fs::write(&path, "name,lat,lon\nA,40.7,-73.9\nB,40.8,-73.95\n").unwrap();
/// let pts = disguise::data::read_points(&path, ["lat", "lon"], Some("name"), |_, _| Ok(()))?;
/// assert_eq!(pts.coords, vec![[40.7, -73.9], [40.8, -73.95]]);
/// assert_eq!(pts.names.unwrap(), ["A", "B"]);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn read_points(
    path: &Path,
    columns: [&str; 2],
    text: Option<&str>,
    check: impl Fn(usize, f64) -> std::result::Result<(), String>,
) -> Result<Points> {
    let mut coords = Vec::new();
    let mut names = Vec::new();
    let has_text = scan(
        path,
        &columns,
        text,
        check,
        |_| Ok(()),
        |values, name| {
            coords.push([values[0], values[1]]);
            if let Some(name) = name {
                names.push(name.to_string());
            }
        },
    )?;
    Ok(Points {
        coords,
        names: has_text.then_some(names),
    })
}

/// The points of the rows `keep` accepts (by 0-based data row, blank lines not counted), as
/// [`read_points`] reads them; the other rows are not parsed, so a distributed run whose
/// workers share one file parses each row once, on the worker that owns it.
///
/// ```
/// # let dir = tempfile::tempdir()?;
/// let path = dir.path().join("pts.csv");
/// std::fs::write(&path, "x,y\n0,0\n1,1\nnot,parsed\n3,3\n")?;
/// let odd = disguise::data::read_points_where(&path, ["x", "y"], |_, _| Ok(()), |i| i % 2 == 1)?;
/// assert_eq!(odd, vec![[1.0, 1.0], [3.0, 3.0]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_points_where(
    path: &Path,
    columns: [&str; 2],
    check: impl Fn(usize, f64) -> std::result::Result<(), String>,
    mut keep: impl FnMut(u64) -> bool,
) -> Result<Vec<[f64; 2]>> {
    let mut file = Delimited::open(path, Layout::CSV)?;
    let idx = [file.find(columns[0])?, file.find(columns[1])?];
    let mut coords = Vec::new();
    let mut row = 0u64;
    while file.next_row()? {
        if keep(row) {
            let mut point = [0.0; 2];
            for (c, &i) in idx.iter().enumerate() {
                let value = file.number(i)?;
                check(c, value).map_err(|why| file.error_at(i, why))?;
                point[c] = value;
            }
            coords.push(point);
        }
        row += 1;
    }
    file.require_rows()?;
    Ok(coords)
}

/// Streams the rows of `path`, handing `row(values, text)` the requested numeric columns
/// (checked) and the text column. Returns whether the text column was present.
fn scan(
    path: &Path,
    numeric: &[&str],
    text: Option<&str>,
    check: impl Fn(usize, f64) -> std::result::Result<(), String>,
    check_text: impl Fn(&str) -> std::result::Result<(), String>,
    mut row: impl FnMut(&[f64], Option<&str>),
) -> Result<bool> {
    let mut file = Delimited::open(path, Layout::CSV)?;
    let numeric_idx = numeric
        .iter()
        .map(|n| file.find(n))
        .collect::<Result<Vec<_>>>()?;
    let text_idx = text.and_then(|name| file.find(name).ok());
    let mut values = vec![0.0; numeric.len()];
    while file.next_row()? {
        for (c, &idx) in numeric_idx.iter().enumerate() {
            let value = file.number(idx)?;
            check(c, value).map_err(|why| file.error_at(idx, why))?;
            values[c] = value;
        }
        let name = match text_idx {
            Some(idx) => {
                let value = file.field(idx)?;
                check_text(value).map_err(|why| file.error_at(idx, why))?;
                Some(value)
            }
            None => None,
        };
        row(&values, name);
    }
    file.require_rows()?;
    Ok(text_idx.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn write(name: &str, content: &[u8]) -> std::path::PathBuf {
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
            b"\"Date/Time\",\"Lat\",\"Lon\",\"Base\"\r\n\"4/1/2014 0:11:00\",40.769,-73.9549,\"B02512\"\r\n\"x\",40.7,-74.0,\"B\"\r\n",
        );
        let c = read_columns(&p, &["lat", "lon"], None).unwrap();
        assert_eq!(c.numeric, vec![vec![40.769, 40.7], vec![-73.9549, -74.0]]);
        // Lines are counted right after CRLF line ends (the last field keeps no '\r').
        let p = write("a2.csv", b"name,lat\r\n\"x\",1\r\n\"y\",z\r\n");
        let e = read_columns(&p, &["lat"], Some("name"))
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("a2.csv:3:2: column 'lat': not a number: \"z\""),
            "{e}"
        );
        let p = write("a3.csv", b"lat,name\r\n1,\"x\"\r\n2,y\r\n");
        let c = read_columns(&p, &["lat"], Some("name")).unwrap();
        assert_eq!(c.text.unwrap(), vec!["x", "y"]);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let p = write("b.csv", b"lat,lon\n1,2\n3,abc\n");
        let e = read_columns(&p, &["lat", "lon"], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("b.csv:3:2: column 'lon': not a number: \"abc\""),
            "{e}"
        );
        let p = write("c.csv", b"lat,lon\n1,NaN\n");
        let e = read_columns(&p, &["lat", "lon"], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("c.csv:2:2: column 'lon': not a finite number"),
            "{e}"
        );
        let p = write("d.csv", b"lat,lon\n");
        let e = read_columns(&p, &["lat", "lon"], None)
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("d.csv: no data rows (only a header)"), "{e}");
        let p = write("e.csv", b"");
        let e = read_columns(&p, &["lat"], None).unwrap_err().to_string();
        assert!(e.ends_with("e.csv: empty file (no header row)"), "{e}");
        let p = write("f.csv", b"x,y\n1,2\n");
        let e = read_columns(&p, &["lat"], None).unwrap_err().to_string();
        assert!(e.contains("no column 'lat' (columns: x, y)"), "{e}");
        let p = write("g.csv", b"lat,lon\n1,2\n3\n");
        let e = read_columns(&p, &["lat", "lon"], None)
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("g.csv:3: expected 2 fields, found 1"), "{e}");
        let e = read_columns(Path::new("/nonexistent/x.csv"), &["lat"], None).unwrap_err();
        assert!(matches!(e, Error::Io { .. }));
        // The operating system's error is kept as the source, not flattened into the text.
        let source = std::error::Error::source(&e).expect("the I/O error is the source");
        assert!(e.to_string().contains("x.csv"), "{e}");
        let io = source
            .downcast_ref::<crate::error::Source>()
            .and_then(|s| s.get().downcast_ref::<std::io::Error>())
            .expect("an io::Error");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn bom_duplicates_and_projection() {
        // A byte-order mark before the header is not part of the first column's name.
        let p = write("h.csv", b"\xef\xbb\xbflat,lon\n1,2\n");
        let c = read_columns(&p, &["lat", "lon"], None).unwrap();
        assert_eq!(c.numeric, vec![vec![1.0], vec![2.0]]);
        let p = write("i.csv", b"lat,lon,LAT\n1,2,3\n");
        let e = read_columns(&p, &["lon"], None).unwrap_err().to_string();
        assert!(
            e.contains("i.csv:1: duplicate column 'LAT' (columns 1 and 3)"),
            "{e}"
        );
        // An unused column may hold anything, even bytes that are not UTF-8.
        let p = write("j.csv", b"lat,junk,lon\n1,\xff\xfe,2\n3,abc,4\n");
        let c = read_points(&p, ["lat", "lon"], Some("name"), |_, _| Ok(())).unwrap();
        assert_eq!(c.coords, vec![[1.0, 2.0], [3.0, 4.0]]);
        assert_eq!(c.names, None);
        // ... but a row with a missing field is malformed.
        let p = write("k.csv", b"lat,junk,lon\n1,2\n");
        let e = read_points(&p, ["lat", "lon"], None, |_, _| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("k.csv:2: expected 3 fields, found 2"), "{e}");
        // A huge cell is quoted briefly.
        let mut text = b"lat,lon\n1,".to_vec();
        text.extend(std::iter::repeat_n(b'9', 5_000_000));
        text.extend(b"x\n");
        let p = write("l.csv", &text);
        let e = read_columns(&p, &["lat", "lon"], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.len() < 200 && e.contains("l.csv:2:2: column 'lon': not a number"),
            "{e}"
        );
    }
}
