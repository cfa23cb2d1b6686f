//! A whole CSV table read as categorical columns: every value a string, dictionary-encoded.
//!
//! The input of the feature-selection objectives ([`MutualInformation`](
//! crate::objective::MutualInformation), [`Discernibility`](crate::objective::Discernibility)),
//! which want each column as codes `0..arity`. Numeric columns with many distinct values are
//! better binned over public bounds first ([`CategoricalColumn::binned`]).

use super::columns::csv_message;
use crate::error::{Error, Result};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::Path;

/// A CSV table with a header row, every column read as categorical ([`read_table`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    source: String,
    header: Vec<String>,
    columns: Vec<CategoricalColumn>,
    rows: usize,
}

/// One column of a [`Table`]: the distinct values (levels) and each row's code.
///
/// Levels are sorted — numerically when both values parse as numbers (numbers first), else
/// by their text — so the codes do not depend on the order of the rows.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoricalColumn {
    levels: Vec<String>,
    /// The 1-based file line where each level first occurs (for error messages).
    first_line: Vec<u64>,
    codes: Vec<u32>,
}

/// Reads every column of a CSV file with a header row as categorical, streaming: memory is
/// one `u32` code per cell plus the distinct values. Values are trimmed of surrounding
/// whitespace; an empty field is a value like any other (the empty string). Handles quoting
/// and CRLF.
///
/// Errors name the file (and line where there is one): an unreadable file, an empty file
/// (no header row), a header without data rows, a row with the wrong number of fields
/// (`data.csv:7: expected 5 fields, found 4`), invalid UTF-8.
///
/// ```
/// # let dir = std::env::temp_dir().join("disguise-doc-table");
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("t.csv");
/// std::fs::write(&path, "smoker,age,y\nyes,10,1\nno,2,0\nyes,2,1\n").unwrap();
/// let table = disguise::data::read_table(&path)?;
/// assert_eq!(table.rows(), 3);
/// let age = table.column(table.find("AGE")?);
/// assert_eq!(age.levels(), ["2", "10"]); // numeric order
/// assert_eq!(age.codes(), [1, 0, 0]);
/// assert!(age.is_numeric());
/// assert_eq!(table.column(0).levels(), ["no", "yes"]);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn read_table(path: &Path) -> Result<Table> {
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
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| Error::Parse(format!("{shown}: {}", csv_message(&e))))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    if header.is_empty() || (header.len() == 1 && header[0].is_empty()) {
        return Err(Error::Parse(format!("{shown}: empty file (no header row)")));
    }
    let width = header.len();
    let mut dictionaries: Vec<HashMap<String, u32>> = vec![HashMap::new(); width];
    let mut first_lines: Vec<Vec<u64>> = vec![Vec::new(); width];
    let mut codes: Vec<Vec<u32>> = vec![Vec::new(); width];
    let mut record = csv::StringRecord::new();
    let mut rows = 0usize;
    loop {
        let more = reader
            .read_record(&mut record)
            .map_err(|e| Error::Parse(format!("{shown}: {}", csv_message(&e))))?;
        if !more {
            break;
        }
        let line = record.position().map_or(0, |p| p.line());
        for (c, field) in record.iter().enumerate() {
            let value = field.trim();
            let dict = &mut dictionaries[c];
            let code = match dict.get(value) {
                Some(&code) => code,
                None => {
                    let code = u32::try_from(dict.len()).map_err(|_| {
                        Error::Overflow(format!("{shown}: more than 2^32 distinct values"))
                    })?;
                    dict.insert(value.to_string(), code);
                    first_lines[c].push(line);
                    code
                }
            };
            codes[c].push(code);
        }
        rows += 1;
    }
    if rows == 0 {
        return Err(Error::Parse(format!("{shown}: no data rows")));
    }
    let columns = dictionaries
        .into_iter()
        .zip(first_lines)
        .zip(codes)
        .map(|((dict, first_line), codes)| {
            let mut levels = vec![String::new(); dict.len()];
            for (value, code) in dict {
                levels[code as usize] = value;
            }
            CategoricalColumn::sorted(levels, first_line, codes)
        })
        .collect();
    Ok(Table {
        source: shown,
        header,
        columns,
        rows,
    })
}

impl Table {
    /// The file the table was read from, as shown in messages.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The column names, in file order (trimmed).
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The number of data rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The columns, in file order.
    pub fn columns(&self) -> &[CategoricalColumn] {
        &self.columns
    }

    /// Column `index` (file order). Panics if out of range.
    pub fn column(&self, index: usize) -> &CategoricalColumn {
        &self.columns[index]
    }

    /// The index of the column named `name` (case-insensitive; the first if several match),
    /// or an error listing the columns: `data.csv: no column 'age' (columns: a, b)`.
    pub fn find(&self, name: &str) -> Result<usize> {
        self.header
            .iter()
            .position(|h| h.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| {
                Error::Parse(format!(
                    "{}: no column '{name}' (columns: {})",
                    self.source,
                    self.header.join(", ")
                ))
            })
    }

    /// Replaces column `index` by `column` (e.g. its [`CategoricalColumn::binned`] form).
    /// Errors if the number of rows differs. Panics if `index` is out of range.
    pub fn replace(&mut self, index: usize, column: CategoricalColumn) -> Result<()> {
        if column.codes.len() != self.rows {
            return Err(Error::param(
                "column",
                format!(
                    "{} values for a table of {} rows",
                    column.codes.len(),
                    self.rows
                ),
            ));
        }
        self.columns[index] = column;
        Ok(())
    }
}

/// Numbers first in numeric order, then other text in byte order.
fn level_order(a: &str, b: &str) -> Ordering {
    match (parse_number(a), parse_number(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y).then_with(|| a.cmp(b)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

fn parse_number(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|x| x.is_finite())
}

impl CategoricalColumn {
    /// Builds a column from levels in any order, sorting them and remapping the codes.
    fn sorted(levels: Vec<String>, first_line: Vec<u64>, codes: Vec<u32>) -> Self {
        let mut order: Vec<usize> = (0..levels.len()).collect();
        order.sort_by(|&a, &b| level_order(&levels[a], &levels[b]));
        let mut new_code = vec![0u32; levels.len()];
        for (new, &old) in order.iter().enumerate() {
            new_code[old] = new as u32;
        }
        Self {
            levels: order.iter().map(|&i| levels[i].clone()).collect(),
            first_line: order.iter().map(|&i| first_line[i]).collect(),
            codes: codes.into_iter().map(|c| new_code[c as usize]).collect(),
        }
    }

    /// The distinct values, sorted (numbers numerically first, then text); code `c` stands
    /// for `levels()[c]`.
    pub fn levels(&self) -> &[String] {
        &self.levels
    }

    /// Each row's code, in `0..arity()`.
    pub fn codes(&self) -> &[u32] {
        &self.codes
    }

    /// The number of levels.
    pub fn arity(&self) -> u32 {
        self.levels.len() as u32
    }

    /// Whether every value is a finite number (such a column with many levels is usually a
    /// measurement to bin, or an identifier to exclude).
    pub fn is_numeric(&self) -> bool {
        self.levels.iter().all(|l| parse_number(l).is_some())
    }

    /// The column binned into `bins` equal-width intervals over the public range
    /// [`min`, `max`]: value x goes to bin ⌊(x − min)/(max − min) · bins⌋, values below `min`
    /// to the first bin and values above `max` to the last (clamping keeps the domain
    /// public: the bins do not depend on the data). All `bins` intervals are levels, even
    /// those no row falls into, named `[lo, hi)` (the last `[lo, hi]`).
    ///
    /// `source` and `name` are used in errors: a value that is not a finite number is
    /// reported at the line where it first occurs, `data.csv:9: column 'age': not a number:
    /// "NA"`. Errors too if `min` ≥ `max`, either is not finite, or `bins` is 0 or above
    /// 2^20.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join("disguise-doc-table-bins");
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("t.csv");
    /// std::fs::write(&path, "age\n3\n47\n99\n150\n").unwrap();
    /// let table = disguise::data::read_table(&path)?;
    /// let binned = table.column(0).binned(table.source(), "age", 0.0, 100.0, 4)?;
    /// assert_eq!(binned.levels(), ["[0, 25)", "[25, 50)", "[50, 75)", "[75, 100]"]);
    /// assert_eq!(binned.codes(), [0, 1, 3, 3]); // 150 is clamped into the last bin
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn binned(
        &self,
        source: &str,
        name: &str,
        min: f64,
        max: f64,
        bins: u32,
    ) -> Result<CategoricalColumn> {
        if !(min.is_finite() && max.is_finite() && min < max) {
            return Err(Error::param(
                "bins",
                format!("column '{name}': need finite bounds with MIN < MAX, got {min}, {max}"),
            ));
        }
        if bins == 0 || bins > 1 << 20 {
            return Err(Error::param(
                "bins",
                format!("column '{name}': the number of bins must be in 1..=2^20, got {bins}"),
            ));
        }
        // The first bad value in file order is the one reported.
        if let Some((level, line)) = self
            .levels
            .iter()
            .zip(&self.first_line)
            .filter(|(level, _)| parse_number(level).is_none())
            .min_by_key(|(_, line)| **line)
        {
            return Err(Error::Parse(format!(
                "{source}:{line}: column '{name}': not a number: {level:?}"
            )));
        }
        let width = max - min;
        let mut level_bin = Vec::with_capacity(self.levels.len());
        for level in &self.levels {
            let x = parse_number(level).expect("checked above");
            let position = ((x - min) / width * f64::from(bins)).floor();
            // Clamped in f64 first, so huge values cannot overflow the cast.
            let bin = position.clamp(0.0, f64::from(bins - 1)) as u32;
            level_bin.push(bin);
        }
        let edge = |i: u32| min + width * f64::from(i) / f64::from(bins);
        let levels = (0..bins)
            .map(|i| {
                let close = if i + 1 == bins { ']' } else { ')' };
                format!("[{}, {}{close}", edge(i), edge(i + 1))
            })
            .collect();
        let mut first_line = vec![0u64; bins as usize];
        for (&bin, &line) in level_bin.iter().zip(&self.first_line) {
            let slot = &mut first_line[bin as usize];
            if *slot == 0 || line < *slot {
                *slot = line;
            }
        }
        Ok(CategoricalColumn {
            levels,
            first_line,
            codes: self.codes.iter().map(|&c| level_bin[c as usize]).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, content: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("disguise-table-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        path
    }

    #[test]
    fn reads_quoted_crlf_and_sorts_levels() {
        let p = write(
            "a.csv",
            "\"Name\",\" x \",y\r\n\"b, c\",10,z\r\na, 2 ,z\r\n\"b, c\",-1.5,\r\n",
        );
        let t = read_table(&p).unwrap();
        assert_eq!(t.header(), ["Name", "x", "y"]);
        assert_eq!(t.rows(), 3);
        let name = t.column(0);
        assert_eq!(name.levels(), ["a", "b, c"]);
        assert_eq!(name.codes(), [1, 0, 1]);
        assert!(!name.is_numeric());
        let x = t.column(t.find(" X").unwrap());
        assert_eq!(x.levels(), ["-1.5", "2", "10"]);
        assert_eq!(x.codes(), [2, 1, 0]);
        assert!(x.is_numeric());
        // An empty field is its own level, sorted after the numbers only if it is text.
        assert_eq!(t.column(2).levels(), ["", "z"]);
        assert_eq!(t.column(2).arity(), 2);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let e = read_table(&write("b.csv", "")).unwrap_err().to_string();
        assert!(e.contains("b.csv") && e.contains("empty file"), "{e}");
        let e = read_table(&write("c.csv", "a,b\n"))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("c.csv: no data rows"), "{e}");
        let e = read_table(&write("d.csv", "a,b\n1,2\n3\n"))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("d.csv: 3: expected 2 fields, found 1"), "{e}");
        let e = read_table(&write("d2.csv", "a,b\r\n1,\"2\"\r\n3\r\n"))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("d2.csv: 3: expected 2 fields, found 1"), "{e}");
        let t = read_table(&write("e.csv", "a,b\n1,2\n")).unwrap();
        let e = t.find("c").unwrap_err().to_string();
        assert!(e.ends_with("e.csv: no column 'c' (columns: a, b)"), "{e}");
        assert!(matches!(
            read_table(Path::new("/nonexistent/t.csv")),
            Err(Error::Io(_))
        ));
    }

    #[test]
    fn binning_clamps_and_reports_bad_values() {
        let p = write("f.csv", "v\n0\n0.5\n0.49\n1\n-7\n1e300\n");
        let t = read_table(&p).unwrap();
        let b = t.column(0).binned(t.source(), "v", 0.0, 1.0, 2).unwrap();
        assert_eq!(b.levels(), ["[0, 0.5)", "[0.5, 1]"]);
        assert_eq!(b.codes(), [0, 1, 0, 1, 0, 1]);
        assert_eq!(b.arity(), 2);
        // The first line of a bad value is named.
        let p = write("g.csv", "v\n1\nNA\n2\nNA\nAB\n");
        let t = read_table(&p).unwrap();
        let e = t
            .column(0)
            .binned(t.source(), "v", 0.0, 3.0, 3)
            .unwrap_err();
        assert!(
            e.to_string()
                .ends_with("g.csv:3: column 'v': not a number: \"NA\""),
            "{e}"
        );
        assert!(t.column(0).binned("s", "v", 1.0, 1.0, 3).is_err());
        assert!(t.column(0).binned("s", "v", 0.0, f64::NAN, 3).is_err());
        assert!(t.column(0).binned("s", "v", 0.0, 1.0, 0).is_err());
        let mut t = read_table(&write("h.csv", "a\n1\n2\n")).unwrap();
        let binned = t.column(0).binned("h", "a", 0.0, 4.0, 2).unwrap();
        t.replace(0, binned).unwrap();
        assert_eq!(t.column(0).codes(), [0, 1]);
    }
}
