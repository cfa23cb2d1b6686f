//! A CSV table read as categorical columns: every value a string, dictionary-encoded into
//! compact codes.
//!
//! The input of the feature-selection objectives ([`MutualInformation`](
//! crate::objective::MutualInformation), [`Discernibility`](crate::objective::Discernibility)),
//! which want each column as codes `0..arity`. Only the columns a command uses are read
//! ([`read_table_with`] and a [`TablePlan`]); numeric columns with many distinct values are
//! better binned over public bounds, which [`TablePlan::bin`] does while streaming.

use super::codes::Codes;
use super::reader::{Delimited, Layout, find_column, quote_name};
use crate::error::{Error, Result};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::Path;

/// A CSV table with a header row, its columns read as categorical ([`read_table`],
/// [`read_table_with`]).
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
/// by their text — so the codes do not depend on the order of the rows. Codes are stored in
/// the narrowest integer type for the number of levels ([`Codes`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CategoricalColumn {
    levels: Vec<String>,
    /// The 1-based file line where each level first occurs (for error messages).
    first_line: Vec<u64>,
    codes: Codes,
}

/// The header of a table file, handed to the planning function of [`read_table_with`].
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    source: String,
    names: Vec<String>,
}

impl Header {
    /// The file, as shown in messages.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The column names in file order (trimmed).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The index of the column named `name` (case-insensitive), or an error listing the
    /// columns: `data.csv: no column 'age' (columns: a, b)`.
    pub fn find(&self, name: &str) -> Result<usize> {
        find_column(&self.source, &self.names, name)
    }
}

/// Reads only the header of a CSV file (with the checks of every table reader: a byte-order
/// mark stripped, an empty file or a column named twice refused).
///
/// ```
/// # let dir = std::env::temp_dir().join("disguise-doc-header");
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("t.csv");
/// std::fs::write(&path, "\u{feff}id, Age ,y\n1,2,3\n").unwrap();
/// let header = disguise::data::read_header(&path)?;
/// assert_eq!(header.names(), ["id", "Age", "y"]);
/// assert_eq!(header.find("age")?, 1);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// As [`read_table_with`], for the header.
pub fn read_header(path: &Path) -> Result<Header> {
    read_header_with_layout(path, TableLayout::default())
}

/// [`read_header`] for a file laid out as `layout` says: without a header row, the columns
/// of its first record are named `c1` … `cN`.
///
/// # Errors
/// As [`read_table_with`], for the first row.
pub fn read_header_with_layout(path: &Path, layout: TableLayout) -> Result<Header> {
    let file = open_with_layout(path, layout)?;
    Ok(Header {
        source: file.shown().to_string(),
        names: file.header().to_vec(),
    })
}

/// The file opened with `layout`, its columns named `c1` … `cN` when it has no header.
fn open_with_layout(path: &Path, layout: TableLayout) -> Result<Delimited> {
    let mut file = Delimited::open(
        path,
        Layout {
            delimiter: layout.delimiter,
            has_header: layout.has_header,
            comment: None,
        },
    )?;
    if !layout.has_header {
        file.number_columns()?;
    }
    Ok(file)
}

/// Which columns of a table file to read, and which of them to bin while reading.
///
/// Columns left out are skipped while streaming: they are neither decoded nor stored, so they
/// may hold anything (only the number of fields of every row is checked).
#[derive(Debug, Clone, PartialEq)]
pub struct TablePlan {
    keep: Vec<bool>,
    bins: Vec<Option<Binning>>,
}

/// Equal-width bins over a public range (see [`CategoricalColumn::binned`]).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Binning {
    min: f64,
    max: f64,
    bins: u32,
}

impl Binning {
    fn new(name: &str, min: f64, max: f64, bins: u32) -> Result<Self> {
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
        Ok(Self { min, max, bins })
    }

    /// Bin ⌊(x − min)/(max − min) · bins⌋, clamped into 0..bins.
    fn index(&self, x: f64) -> u32 {
        let position = ((x - self.min) / (self.max - self.min) * f64::from(self.bins)).floor();
        // Clamped in f64 first, so huge values cannot overflow the cast.
        position.clamp(0.0, f64::from(self.bins - 1)) as u32
    }

    /// The bins' names: `[lo, hi)`, the last `[lo, hi]`.
    fn levels(&self) -> Vec<String> {
        let width = self.max - self.min;
        let edge = |i: u32| self.min + width * f64::from(i) / f64::from(self.bins);
        (0..self.bins)
            .map(|i| {
                let close = if i + 1 == self.bins { ']' } else { ')' };
                format!("[{}, {}{close}", edge(i), edge(i + 1))
            })
            .collect()
    }
}

impl TablePlan {
    /// Every column of `header`, none binned.
    pub fn all(header: &Header) -> Self {
        Self {
            keep: vec![true; header.names.len()],
            bins: vec![None; header.names.len()],
        }
    }

    /// No column of `header` yet (add them with [`TablePlan::keep`]).
    pub fn none(header: &Header) -> Self {
        Self {
            keep: vec![false; header.names.len()],
            bins: vec![None; header.names.len()],
        }
    }

    /// Reads column `index` (file order). Panics if out of range.
    pub fn keep(&mut self, index: usize) -> &mut Self {
        self.keep[index] = true;
        self
    }

    /// Skips column `index`. Panics if out of range.
    pub fn skip(&mut self, index: usize) -> &mut Self {
        self.keep[index] = false;
        self.bins[index] = None;
        self
    }

    /// Reads column `index` as numbers binned into `bins` equal-width intervals over the
    /// public range [`min`, `max`], while streaming: the same codes and levels as
    /// [`CategoricalColumn::binned`], without a dictionary of the raw values. A value that is
    /// not a finite number is an error at its place, `data.csv:9:3: column 'age': not a
    /// number: "NA"`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `min` ≥ `max`, either is not finite, or `bins` is 0 or
    /// above 2^20 (`name` names the column). Panics if `index` is out of range.
    pub fn bin(
        &mut self,
        index: usize,
        name: &str,
        min: f64,
        max: f64,
        bins: u32,
    ) -> Result<&mut Self> {
        self.bins[index] = Some(Binning::new(name, min, max, bins)?);
        self.keep[index] = true;
        Ok(self)
    }
}

/// The state of one kept column while reading.
enum Builder {
    Dictionary {
        index: HashMap<String, u32>,
        first_line: Vec<u64>,
        codes: Codes,
    },
    Binned {
        binning: Binning,
        first_line: Vec<u64>,
        codes: Codes,
    },
}

/// Reads every column of a CSV file with a header row as categorical (see
/// [`read_table_with`], which reads only the columns a command uses).
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
/// assert_eq!(age.codes().to_vec(), [1, 0, 0]);
/// assert!(age.is_numeric());
/// assert_eq!(table.column(0).levels(), ["no", "yes"]);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// As [`read_table_with`].
pub fn read_table(path: &Path) -> Result<Table> {
    read_table_with(path, |header| Ok::<_, Error>(TablePlan::all(header)))
}

/// Reads the columns of a CSV file chosen by `plan` as categorical, streaming: `plan` sees
/// the [`Header`] and returns a [`TablePlan`]; the other columns are skipped without being
/// decoded or stored. Memory is one code per row and kept column, in the narrowest integer
/// type for the column's number of levels (one byte for up to 256), plus the distinct values
/// — never the raw text.
///
/// Values are trimmed of surrounding whitespace; an empty field is a value like any other
/// (the empty string). A UTF-8 byte-order mark is stripped; quoting and CRLF line ends are
/// handled; blank lines are skipped. The table's [`Table::header`] and columns are the kept
/// ones, in file order.
///
/// ```
/// use disguise::data::{TablePlan, read_table_with};
/// # let dir = std::env::temp_dir().join("disguise-doc-table-with");
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("t.csv");
/// std::fs::write(&path, "id,age,y\n17,3,1\n18,47,0\n19,150,1\n").unwrap();
/// let table = read_table_with(&path, |header| {
///     let mut plan = TablePlan::none(header);
///     plan.keep(header.find("y")?);
///     plan.bin(header.find("age")?, "age", 0.0, 100.0, 4)?;
///     Ok::<_, disguise::Error>(plan)
/// })?;
/// assert_eq!(table.header(), ["age", "y"]); // `id` was not read
/// assert_eq!(table.column(0).codes().to_vec(), [0, 1, 3]);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// Those of `plan`, and errors naming the file and place: an unreadable file
/// ([`Error::Io`]); an empty file (`data.csv: empty file (no header row)`), a header naming
/// a column twice (`data.csv:1: duplicate column 'age' (columns 2 and 5)`), a header without
/// data rows (`data.csv: no data rows (only a header)`), a row with the wrong number of
/// fields (`data.csv:7: expected 5 fields, found 4`), a kept field that is not valid UTF-8
/// or, in a binned column, not a finite number (`data.csv:7:3: column 'age': not a number:
/// "NA"`); more than 2^32 distinct values in a column.
pub fn read_table_with<E: From<Error>>(
    path: &Path,
    plan: impl FnOnce(&Header) -> std::result::Result<TablePlan, E>,
) -> std::result::Result<Table, E> {
    read_table_with_layout(path, TableLayout::default(), plan)
}

/// How a table file without a schema is laid out: its field separator, and whether its
/// first row names the columns (without one they are named `c1` … `cN`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableLayout {
    /// The field separator, one ASCII byte.
    pub delimiter: u8,
    /// Whether the first row names the columns.
    pub has_header: bool,
}

impl Default for TableLayout {
    /// Comma-separated with a header row.
    fn default() -> Self {
        Self {
            delimiter: b',',
            has_header: true,
        }
    }
}

/// [`read_table_with`] for a file laid out as `layout` says.
///
/// ```
/// use disguise::data::{TableLayout, TablePlan, read_table_with_layout};
/// let dir = std::env::temp_dir().join("disguise-doc-layout");
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("car.tsv");
/// std::fs::write(&path, "vhigh\tunacc\nlow\tacc\n")?;
/// let layout = TableLayout { delimiter: b'\t', has_header: false };
/// let t = read_table_with_layout(&path, layout, |h| Ok::<_, disguise::Error>(TablePlan::all(h)))?;
/// assert_eq!(t.header(), ["c1", "c2"]);
/// assert_eq!(t.rows(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`read_table_with`].
pub fn read_table_with_layout<E: From<Error>>(
    path: &Path,
    layout: TableLayout,
    plan: impl FnOnce(&Header) -> std::result::Result<TablePlan, E>,
) -> std::result::Result<Table, E> {
    let mut file = open_with_layout(path, layout)?;
    let header = Header {
        source: file.shown().to_string(),
        names: file.header().to_vec(),
    };
    let plan = plan(&header)?;
    let kept: Vec<usize> = (0..header.names.len()).filter(|&c| plan.keep[c]).collect();
    let mut builders: Vec<Builder> = kept
        .iter()
        .map(|&c| match plan.bins[c] {
            Some(binning) => Builder::Binned {
                binning,
                first_line: vec![0; binning.bins as usize],
                codes: Codes::for_arity(u64::from(binning.bins), 0),
            },
            None => Builder::Dictionary {
                index: HashMap::new(),
                first_line: Vec::new(),
                codes: Codes::new(),
            },
        })
        .collect();
    while file.next_row()? {
        let line = file.line();
        for (&c, builder) in kept.iter().zip(builders.iter_mut()) {
            match builder {
                Builder::Dictionary {
                    index,
                    first_line,
                    codes,
                } => {
                    let value = file.field(c)?;
                    let code = match index.get(value) {
                        Some(&code) => code,
                        None => {
                            let code = u32::try_from(index.len()).map_err(|_| {
                                Error::Overflow(format!(
                                    "{}: column {}: more than 2^32 distinct values",
                                    header.source,
                                    quote_name(&header.names[c])
                                ))
                            })?;
                            index.insert(value.to_string(), code);
                            first_line.push(line);
                            code
                        }
                    };
                    codes.push(code);
                }
                Builder::Binned {
                    binning,
                    first_line,
                    codes,
                } => {
                    let bin = binning.index(file.number(c)?);
                    let slot = &mut first_line[bin as usize];
                    if *slot == 0 {
                        *slot = line;
                    }
                    codes.push(bin);
                }
            }
        }
    }
    file.require_rows()?;
    let rows = usize::try_from(file.rows()).map_err(|_| Error::Overflow("rows".into()))?;
    let columns = builders
        .into_iter()
        .map(|builder| match builder {
            Builder::Dictionary {
                index,
                first_line,
                mut codes,
            } => {
                let mut levels = vec![String::new(); index.len()];
                for (value, code) in index {
                    levels[code as usize] = value;
                }
                codes.shrink_to_fit();
                CategoricalColumn::sorted(levels, first_line, codes)
            }
            Builder::Binned {
                binning,
                first_line,
                mut codes,
            } => {
                codes.shrink_to_fit();
                CategoricalColumn {
                    levels: binning.levels(),
                    first_line,
                    codes,
                }
            }
        })
        .collect();
    Ok(Table {
        source: header.source,
        header: kept.iter().map(|&c| header.names[c].clone()).collect(),
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

    /// The columns, giving up the table (e.g. to move their codes into an objective).
    pub fn into_columns(self) -> Vec<CategoricalColumn> {
        self.columns
    }

    /// The index of the column named `name` (case-insensitive; the first if several match),
    /// or an error listing the columns: `data.csv: no column 'age' (columns: a, b)`.
    pub fn find(&self, name: &str) -> Result<usize> {
        find_column(&self.source, &self.header, name)
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
    fn sorted(levels: Vec<String>, first_line: Vec<u64>, mut codes: Codes) -> Self {
        let mut order: Vec<usize> = (0..levels.len()).collect();
        order.sort_by(|&a, &b| level_order(&levels[a], &levels[b]));
        let mut new_code = vec![0u32; levels.len()];
        for (new, &old) in order.iter().enumerate() {
            new_code[old] = new as u32;
        }
        codes.remap(&new_code);
        Self {
            levels: order.iter().map(|&i| levels[i].clone()).collect(),
            first_line: order.iter().map(|&i| first_line[i]).collect(),
            codes,
        }
    }

    /// The distinct values, sorted (numbers numerically first, then text); code `c` stands
    /// for `levels()[c]`.
    pub fn levels(&self) -> &[String] {
        &self.levels
    }

    /// Each row's code, in `0..arity()`, in the narrowest integer type for the arity.
    pub fn codes(&self) -> &Codes {
        &self.codes
    }

    /// The codes, giving up the levels (e.g. to hand a column to an objective without a
    /// copy).
    pub fn into_codes(self) -> Codes {
        self.codes
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
    /// "NA"` ([`TablePlan::bin`] bins while reading, and names the field too). Errors too if `min` ≥ `max`, either is not finite, or `bins` is 0 or above
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
    /// assert_eq!(binned.codes().to_vec(), [0, 1, 3, 3]); // 150 is clamped into the last bin
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
        let binning = Binning::new(name, min, max, bins)?;
        // The first bad value in file order is the one reported.
        if let Some((level, line)) = self
            .levels
            .iter()
            .zip(&self.first_line)
            .filter(|(level, _)| parse_number(level).is_none())
            .min_by_key(|(_, line)| **line)
        {
            return Err(Error::parse(format!(
                "{source}:{line}: column {}: not a number: {}",
                quote_name(name),
                super::quote(level)
            )));
        }
        let level_bin: Vec<u32> = self
            .levels
            .iter()
            .map(|level| binning.index(parse_number(level).expect("checked above")))
            .collect();
        let mut first_line = vec![0u64; bins as usize];
        for (&bin, &line) in level_bin.iter().zip(&self.first_line) {
            let slot = &mut first_line[bin as usize];
            if *slot == 0 || line < *slot {
                *slot = line;
            }
        }
        let mut codes = self.codes.clone();
        codes.remap(&level_bin);
        Ok(CategoricalColumn {
            levels: binning.levels(),
            first_line,
            codes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, content: &[u8]) -> std::path::PathBuf {
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
            b"\"Name\",\" x \",y\r\n\"b, c\",10,z\r\na, 2 ,z\r\n\"b, c\",-1.5,\r\n",
        );
        let t = read_table(&p).unwrap();
        assert_eq!(t.header(), ["Name", "x", "y"]);
        assert_eq!(t.rows(), 3);
        let name = t.column(0);
        assert_eq!(name.levels(), ["a", "b, c"]);
        assert_eq!(name.codes().to_vec(), [1, 0, 1]);
        assert!(!name.is_numeric());
        let x = t.column(t.find(" X").unwrap());
        assert_eq!(x.levels(), ["-1.5", "2", "10"]);
        assert_eq!(x.codes().to_vec(), [2, 1, 0]);
        assert!(x.is_numeric());
        // An empty field is its own level, sorted after the numbers only if it is text.
        assert_eq!(t.column(2).levels(), ["", "z"]);
        assert_eq!(t.column(2).arity(), 2);
        assert_eq!(t.column(2).codes().width(), 1);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let e = read_table(&write("b.csv", b"")).unwrap_err().to_string();
        assert!(e.ends_with("b.csv: empty file (no header row)"), "{e}");
        let e = read_table(&write("c.csv", b"a,b\n"))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("c.csv: no data rows (only a header)"), "{e}");
        let e = read_table(&write("d.csv", b"a,b\n1,2\n3\n"))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("d.csv:3: expected 2 fields, found 1"), "{e}");
        let e = read_table(&write("d2.csv", b"a,b\r\n1,\"2\"\r\n3\r\n"))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("d2.csv:3: expected 2 fields, found 1"), "{e}");
        let t = read_table(&write("e.csv", b"a,b\n1,2\n")).unwrap();
        let e = t.find("c").unwrap_err().to_string();
        assert!(e.ends_with("e.csv: no column 'c' (columns: a, b)"), "{e}");
        assert!(matches!(
            read_table(Path::new("/nonexistent/t.csv")),
            Err(Error::Io { .. })
        ));
        let e = read_table(&write("d3.csv", b"a,b,A\n1,2,3\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("d3.csv:1: duplicate column 'A' (columns 1 and 3)"),
            "{e}"
        );
        let e = read_table(&write("d4.csv", b"a,b\n1,\xff\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("d4.csv:2:2: column 'b': not valid UTF-8: \"\u{fffd}\""),
            "{e}"
        );
    }

    #[test]
    fn bom_is_not_part_of_the_first_name() {
        let t = read_table(&write("bom.csv", b"\xef\xbb\xbfage,y\n1,0\n")).unwrap();
        assert_eq!(t.header(), ["age", "y"]);
        assert!(t.find("age").is_ok());
    }

    #[test]
    fn projection_skips_unused_columns_while_streaming() {
        // `junk` holds non-UTF-8 bytes and text: neither matters when it is not read.
        let p = write("p.csv", b"junk,age,y\n\xff\xfe,3,1\nabc,47,0\n,150,1\n");
        let plan = |header: &Header| {
            let mut plan = TablePlan::all(header);
            plan.skip(header.find("junk")?);
            plan.bin(header.find("age")?, "age", 0.0, 100.0, 4)?;
            Ok::<_, Error>(plan)
        };
        let t = read_table_with(&p, plan).unwrap();
        assert_eq!(t.header(), ["age", "y"]);
        assert_eq!(t.column(0).codes().to_vec(), [0, 1, 3]);
        assert_eq!(
            t.column(0).levels(),
            ["[0, 25)", "[25, 50)", "[50, 75)", "[75, 100]"]
        );
        assert_eq!(t.column(1).codes().to_vec(), [1, 0, 1]);
        // Binning while streaming gives what binning afterwards gives.
        let all = read_table(&write("p2.csv", b"age\n3\n47\n150\n-2\n50\n")).unwrap();
        let after = all.column(0).binned("p2", "age", 0.0, 100.0, 4).unwrap();
        let streamed = read_table_with(&write("p3.csv", b"age\n3\n47\n150\n-2\n50\n"), |h| {
            let mut plan = TablePlan::none(h);
            plan.bin(0, "age", 0.0, 100.0, 4)?;
            Ok::<_, Error>(plan)
        })
        .unwrap();
        assert_eq!(streamed.column(0), &after);
        // A malformed row is still an error, whichever columns are read.
        let e = read_table_with(&write("p4.csv", b"junk,y\n1\n"), |h| {
            let mut plan = TablePlan::none(h);
            plan.keep(1);
            Ok::<_, Error>(plan)
        })
        .unwrap_err()
        .to_string();
        assert!(e.ends_with("p4.csv:2: expected 2 fields, found 1"), "{e}");
        // A bad value in a binned column is named at its field.
        let e = read_table_with(&write("p5.csv", b"y,age\n1,3\n0,NA\n"), |h| {
            let mut plan = TablePlan::all(h);
            plan.bin(1, "age", 0.0, 100.0, 4)?;
            Ok::<_, Error>(plan)
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.ends_with("p5.csv:3:2: column 'age': not a number: \"NA\""),
            "{e}"
        );
    }

    #[test]
    fn codes_widen_with_the_number_of_levels() {
        let mut text = String::from("x\n");
        for i in 0..70_000 {
            text.push_str(&format!("v{i}\n"));
        }
        let p = write("w.csv", text.as_bytes());
        let t = read_table(&p).unwrap();
        assert_eq!(t.column(0).arity(), 70_000);
        assert_eq!(t.column(0).codes().width(), 4);
        let first: String = text.lines().take(257).collect::<Vec<_>>().join("\n");
        let t = read_table(&write("w2.csv", first.as_bytes())).unwrap();
        assert_eq!(t.column(0).arity(), 256);
        assert_eq!(t.column(0).codes().width(), 1);
        let first: String = text.lines().take(258).collect::<Vec<_>>().join("\n");
        let t = read_table(&write("w3.csv", first.as_bytes())).unwrap();
        assert_eq!(t.column(0).arity(), 257);
        assert_eq!(t.column(0).codes().width(), 2);
        // Levels sort as text; every code still names its own value.
        let col = t.column(0);
        for (row, code) in col.codes().iter().enumerate() {
            assert_eq!(col.levels()[code as usize], format!("v{row}"));
        }
    }

    #[test]
    fn binning_clamps_and_reports_bad_values() {
        let p = write("f.csv", b"v\n0\n0.5\n0.49\n1\n-7\n1e300\n");
        let t = read_table(&p).unwrap();
        let b = t.column(0).binned(t.source(), "v", 0.0, 1.0, 2).unwrap();
        assert_eq!(b.levels(), ["[0, 0.5)", "[0.5, 1]"]);
        assert_eq!(b.codes().to_vec(), [0, 1, 0, 1, 0, 1]);
        assert_eq!(b.arity(), 2);
        // The first line of a bad value is named.
        let p = write("g.csv", b"v\n1\nNA\n2\nNA\nAB\n");
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
        let mut t = read_table(&write("h.csv", b"a\n1\n2\n")).unwrap();
        let binned = t.column(0).binned("h", "a", 0.0, 4.0, 2).unwrap();
        t.replace(0, binned).unwrap();
        assert_eq!(t.column(0).codes().to_vec(), [0, 1]);
    }
}
