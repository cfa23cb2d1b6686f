//! A table of categorical and numeric columns read from delimited text with a [`Schema`].

use super::schema::{ColumnType, DomainSource, Schema};
use crate::data::Codes;
use crate::data::reader::{Delimited, Layout, quote_name};
use crate::data::{Position, quote};
use crate::error::{Error, Result};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// The values of one column.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnValues {
    /// Level indices into the column's levels (the missing value, if any, is the index
    /// `levels.len()`, see [`Table::levels`]), in the narrowest integer type that holds them.
    Categorical(Codes),
    /// Numbers; `NaN` stands for the missing marker (the data itself cannot hold NaN: a
    /// non-finite number in the file is an error).
    Numeric(Vec<f64>),
}

impl ColumnValues {
    fn len(&self) -> usize {
        match self {
            ColumnValues::Categorical(v) => v.len(),
            ColumnValues::Numeric(v) => v.len(),
        }
    }
}

/// A table read with a schema: one typed vector per column, the schema completed with every
/// column's domain.
///
/// The schema held here is *resolved*: every categorical column has levels and every numeric
/// column bounds. When some of them were taken from the data ([`DomainSource::Data`]),
/// [`Table::inferred_columns`] names those columns and anything built from the table is not
/// private.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    schema: Schema,
    columns: Vec<ColumnValues>,
    rows: usize,
    inferred: Vec<String>,
    places: Places,
}

/// Where each row came from, for messages about a row found after reading: the files, each
/// schema column's field number in each, and the rows where the line numbering jumps (a new
/// file, a skipped blank or comment line, a field spanning lines) — a few entries, not one
/// per row.
#[derive(Debug, Clone, PartialEq, Default)]
struct Places {
    files: Vec<String>,
    /// Per file, the 0-based field of each schema column.
    fields: Vec<Vec<usize>>,
    /// (first row, file, its line): row r ≥ first row is on line + (r − first row).
    jumps: Vec<(usize, usize, u64)>,
    /// Set when there were too many jumps to keep: later rows have no line.
    complete_until: Option<usize>,
}

/// The most line jumps kept (24 bytes each); a file with more (say, a blank line after every
/// row) gets row numbers instead of lines for the rest in messages.
const MAX_JUMPS: usize = 1 << 16;

impl Places {
    fn note(&mut self, row: usize, file: usize, line: u64) {
        if self.complete_until.is_some() {
            return;
        }
        let follows = self
            .jumps
            .last()
            .is_some_and(|&(first, f, l)| f == file && l + (row - first) as u64 == line);
        if !follows {
            if self.jumps.len() == MAX_JUMPS {
                self.complete_until = Some(row);
                return;
            }
            self.jumps.push((row, file, line));
        }
    }

    /// `file:line:column` of row `row`, schema column `c`.
    fn describe(&self, row: usize, c: usize) -> String {
        let limit = self.complete_until.unwrap_or(usize::MAX);
        let at = self.jumps.partition_point(|&(first, _, _)| first <= row);
        match at.checked_sub(1).map(|i| self.jumps[i]) {
            Some((first, file, line)) if row < limit => {
                Position::new(&self.files[file], line + (row - first) as u64)
                    .column(self.fields[file][c] as u64 + 1)
                    .to_string()
            }
            _ => format!("row {} of the data", row + 1),
        }
    }
}

/// Per-column parsing state while reading.
enum Builder {
    /// Levels known: the code of every row (the missing marker is `levels.len()`).
    Listed {
        missing: u32,
        codes: Codes,
    },
    /// Levels to be inferred from the data: raw strings interned in order of appearance
    /// (the missing marker too, as `missing`), remapped to sorted order at the end.
    Inferred {
        index: HashMap<String, u32>,
        missing: Option<u32>,
        codes: Codes,
    },
    Numeric(Vec<f64>),
}

impl Table {
    /// Reads one or more data files (concatenated, in order) with `schema`, streaming: only
    /// the schema's columns are decoded and stored (categorical ones as compact codes, one
    /// byte per row for up to 256 levels; numeric ones as `f64`).
    ///
    /// Files are parsed with the schema's delimiter, header, comment and missing-value
    /// settings; fields are trimmed; blank lines are skipped; a UTF-8 byte-order mark is
    /// stripped. With a header, the schema's columns are found by name (case-insensitively;
    /// extra file columns are ignored, and may hold anything); without one, each row must have
    /// exactly the schema's number of fields.
    ///
    /// `source` says where domains may come from: with [`DomainSource::Schema`] a column
    /// without levels or bounds is an error (the private choice); with [`DomainSource::Data`]
    /// they are taken from the rows read — levels sorted, bounds the [min, max] seen (widened
    /// by 1 when all values are equal) — and the table is marked as not private.
    ///
    /// # Errors
    /// [`Error::Io`] for an unreadable file; [`Error::Parse`] naming `file:line:column` and
    /// the column for a non-number (or non-finite number) in a numeric column, a value that is
    /// not a listed level, a missing marker in a column not declared `nullable`; naming
    /// `file:line` for a row with the wrong number of fields; naming the file for an empty
    /// file, a header without data rows, a header naming a column twice or lacking a schema
    /// column; [`Error::InvalidParameter`] for an incomplete schema with
    /// [`DomainSource::Schema`].
    pub fn read(paths: &[&Path], schema: &Schema, source: DomainSource) -> Result<Self> {
        schema.validate()?;
        check_complete(schema, source)?;
        let reader = SchemaReader::new(schema);
        let mut builders = builders(schema);
        let mut places = Places::default();
        let mut rows = 0usize;
        for (f, path) in paths.iter().enumerate() {
            let fields = reader.scan(path, |file, c, value| {
                if c == 0 {
                    places.note(rows, f, file.line());
                    rows += 1;
                }
                push_value(&mut builders[c], value);
                Ok(())
            })?;
            places.files.push(path.display().to_string());
            places.fields.push(fields);
        }
        finish(schema, builders, places)
    }

    /// Builds a table from in-memory rows of strings (one `Vec` per row, the schema's columns
    /// in order), with the same parsing rules as [`Table::read`]; `source` names the rows in
    /// error messages (line = row index + 1, column = field number).
    ///
    /// ```
    /// use disguise::histogram::{ColumnSpec, DomainSource, Schema, Table};
    /// let schema = Schema::new(vec![
    ///     ColumnSpec::numeric("x", 0.0, 1.0),
    ///     ColumnSpec::categorical("y", &["a", "b"]),
    /// ])?;
    /// let rows = vec![vec!["0.2", "a"], vec!["0.9", "b"]];
    /// let t = Table::from_rows(&schema, &rows, DomainSource::Schema, "rows")?;
    /// assert_eq!(t.rows(), 2);
    /// assert!(t.is_private());
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn from_rows<S: AsRef<str>>(
        schema: &Schema,
        rows: &[Vec<S>],
        source: DomainSource,
        name: &str,
    ) -> Result<Self> {
        schema.validate()?;
        check_complete(schema, source)?;
        let reader = SchemaReader::new(schema);
        let mut builders = builders(schema);
        let width = schema.columns.len();
        for (i, row) in rows.iter().enumerate() {
            let line = i as u64 + 1;
            if row.len() != width {
                return Err(Error::parse(format!(
                    "{}: expected {width} fields, found {}",
                    Position::new(name, line),
                    row.len()
                )));
            }
            for (c, field) in row.iter().enumerate() {
                let value = reader.parse(c, field.as_ref().trim()).map_err(|why| {
                    let at = Position::new(name, line).column(c as u64 + 1);
                    Error::parse(format!(
                        "{at}: column {}: {why}",
                        quote_name(reader.name(c))
                    ))
                })?;
                push_value(&mut builders[c], value);
            }
        }
        let places = Places {
            files: vec![name.to_string()],
            fields: vec![(0..width).collect()],
            jumps: vec![(0, 0, 1)],
            complete_until: None,
        };
        finish(schema, builders, places)
    }

    /// The resolved schema (every column's domain filled in).
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// Number of rows n.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn width(&self) -> usize {
        self.columns.len()
    }

    /// The values of column `c`.
    pub fn column(&self, c: usize) -> &ColumnValues {
        &self.columns[c]
    }

    /// The levels of categorical column `c` (without the missing marker), or `None` for a
    /// numeric column.
    pub fn levels(&self, c: usize) -> Option<&[String]> {
        self.schema.columns[c].levels.as_deref()
    }

    /// The columns whose domain (levels or bounds) was taken from the data. Non-empty means
    /// that nothing built from this table is private.
    pub fn inferred_columns(&self) -> &[String] {
        &self.inferred
    }

    /// Whether every domain came from the schema (the precondition of every privacy
    /// guarantee built on this table).
    pub fn is_private(&self) -> bool {
        self.inferred.is_empty()
    }

    /// Where row `row`'s value of column `c` was read, for messages: `file:line:column`
    /// (1-based; the field number in the file), or `row N of the data` in the rare file
    /// with too many skipped lines to keep track of.
    ///
    /// ```
    /// use disguise::histogram::{ColumnSpec, DomainSource, Schema, Table};
    /// let schema = Schema::new(vec![ColumnSpec::categorical("y", &["a", "b"])])?;
    /// let t = Table::from_rows(&schema, &[vec!["a"], vec!["b"]], DomainSource::Schema, "rows")?;
    /// assert_eq!(t.place(1, 0), "rows:2:1");
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn place(&self, row: usize, c: usize) -> String {
        self.places.describe(row, c)
    }
}

/// Refuses a schema without every domain unless `source` lets the data fill them in: a check
/// that needs no data, which front ends make before a ledger is charged.
///
/// ```
/// use disguise::histogram::{ColumnSpec, DomainSource, Schema, table::check_complete};
/// let mut age = ColumnSpec::numeric("age", 0.0, 100.0);
/// age.bounds = None;
/// let schema = Schema::new(vec![age, ColumnSpec::categorical("y", &["a", "b"])])?;
/// let err = check_complete(&schema, DomainSource::Schema).unwrap_err().to_string();
/// assert!(err.contains("age") && err.contains("not private"), "{err}");
/// assert!(check_complete(&schema, DomainSource::Data).is_ok());
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] naming `schema` and the columns without a public domain.
pub fn check_complete(schema: &Schema, source: DomainSource) -> Result<()> {
    let missing = schema.incomplete_columns();
    if source == DomainSource::Schema && !missing.is_empty() {
        return Err(Error::param(
            "schema",
            format!(
                "no public domain for column(s) {}: give numeric columns `bounds = [min, max]` and \
                 categorical columns `levels = [...]` from public knowledge (taking them from the \
                 data, e.g. --bounds-from-data, is not private)",
                missing.join(", ")
            ),
        ));
    }
    Ok(())
}

fn builders(schema: &Schema) -> Vec<Builder> {
    schema
        .columns
        .iter()
        .map(|col| match col.kind {
            ColumnType::Numeric => Builder::Numeric(Vec::new()),
            ColumnType::Categorical => match &col.levels {
                Some(levels) => Builder::Listed {
                    missing: levels.len() as u32,
                    codes: Codes::for_arity(levels.len() as u64 + 1, 0),
                },
                None => Builder::Inferred {
                    index: HashMap::new(),
                    missing: None,
                    codes: Codes::new(),
                },
            },
        })
        .collect()
}

/// One parsed cell of a schema column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Value<'a> {
    /// The schema's missing marker (in a nullable column).
    Missing,
    /// A finite number (numeric column).
    Number(f64),
    /// The index of a listed level (categorical column with levels).
    Level(u32),
    /// The text of a categorical column whose levels come from the data.
    Text(&'a str),
}

/// Reads data files with a schema: the file layout, each column's parsing (missing marker,
/// numbers, listed levels and aliases), and errors at `file:line:column`. Shared by
/// [`Table::read`] and [`Discretized::read`](super::Discretized::read).
pub(super) struct SchemaReader<'s> {
    schema: &'s Schema,
    layout: Layout,
    /// For categorical columns with listed levels: value or alias → level index.
    listed: Vec<Option<HashMap<String, u32>>>,
}

impl<'s> SchemaReader<'s> {
    pub(super) fn new(schema: &'s Schema) -> Self {
        let listed = schema
            .columns
            .iter()
            .map(|col| {
                let levels = col
                    .levels
                    .as_ref()
                    .filter(|_| col.kind == ColumnType::Categorical)?;
                let mut index: HashMap<String, u32> = levels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| (l.clone(), i as u32))
                    .collect();
                if let Some(aliases) = &col.aliases {
                    for (from, to) in aliases {
                        let target = index[to];
                        index.entry(from.clone()).or_insert(target);
                    }
                }
                // One spelling rule for booleans wherever a value meets a level: a level
                // spelled true or false (in any case) matches true, True and TRUE (false,
                // False, FALSE), whatever wrote the value: Parquet and Python write
                // `true`/`false`, pandas' CSV `True`/`False`, spreadsheets `TRUE`/`FALSE`.
                for (i, level) in levels.iter().enumerate() {
                    let spellings = match level.to_ascii_lowercase().as_str() {
                        "true" => ["true", "True", "TRUE"],
                        "false" => ["false", "False", "FALSE"],
                        _ => continue,
                    };
                    for spelling in spellings {
                        index.entry(spelling.to_string()).or_insert(i as u32);
                    }
                }
                Some(index)
            })
            .collect();
        Self {
            schema,
            layout: Layout {
                delimiter: schema.delimiter.as_bytes()[0],
                has_header: schema.has_header,
                comment: schema.comment.as_ref().map(|c| c.as_bytes()[0]),
            },
            listed,
        }
    }

    /// Column `c`'s name.
    pub(super) fn name(&self, c: usize) -> &str {
        self.schema.columns[c].name.trim()
    }

    /// Parses the trimmed text of column `c`, or says why it is not a value of the column.
    pub(super) fn parse<'a>(
        &self,
        c: usize,
        raw: &'a str,
    ) -> std::result::Result<Value<'a>, String> {
        let col = &self.schema.columns[c];
        if self.schema.missing.as_deref() == Some(raw) {
            return if col.nullable {
                Ok(Value::Missing)
            } else {
                Err(format!(
                    "missing value {} in a column not declared `nullable = true` in the schema",
                    quote(raw)
                ))
            };
        }
        match (col.kind, &self.listed[c]) {
            (ColumnType::Numeric, _) => crate::data::reader::parse_finite(raw).map(Value::Number),
            (ColumnType::Categorical, Some(index)) => match index.get(raw) {
                Some(&i) => Ok(Value::Level(i)),
                None => Err(format!(
                    "{} is not one of the schema's levels (add it to `levels` or `aliases`)",
                    quote(raw)
                )),
            },
            (ColumnType::Categorical, None) => Ok(Value::Text(raw)),
        }
    }

    /// Streams `path`, calling `cell(at, c, value)` for every schema column c of every row
    /// (in column order, so c = 0 starts a row). Returns each schema column's 0-based field
    /// in the file. A Parquet file (`.parquet`, `.pq`) is read by column name whatever the
    /// schema's layout says, each value parsed from its text as a delimited field would be; a
    /// null is a missing value.
    ///
    /// # Errors
    /// Those of `cell`, and the reading errors of [`Table::read`].
    pub(super) fn scan(
        &self,
        path: &Path,
        mut cell: impl FnMut(&At<'_>, usize, Value<'_>) -> Result<()>,
    ) -> Result<Vec<usize>> {
        #[cfg(feature = "parquet")]
        if crate::data::parquet::is_parquet(path) {
            return self.scan_parquet(path, cell);
        }
        let mut file = Delimited::open(path, self.layout)?;
        let fields: Vec<usize> = if self.schema.has_header {
            self.schema
                .columns
                .iter()
                .map(|col| file.find(&col.name))
                .collect::<Result<_>>()?
        } else {
            file.expect_width(self.schema.columns.len());
            (0..self.schema.columns.len()).collect()
        };
        while file.next_row()? {
            for (c, &field) in fields.iter().enumerate() {
                let raw = file
                    .field(field)
                    .map_err(|_| file.error_named(field, self.name(c), "not valid UTF-8"))?;
                let value = self
                    .parse(c, raw)
                    .map_err(|why| file.error_named(field, self.name(c), why))?;
                let at = At {
                    shown: file.shown(),
                    line: file.line(),
                };
                cell(&at, c, value)?;
            }
        }
        file.require_rows()?;
        Ok(fields)
    }

    /// [`SchemaReader::scan`] of a Parquet file.
    #[cfg(feature = "parquet")]
    fn scan_parquet(
        &self,
        path: &Path,
        mut cell: impl FnMut(&At<'_>, usize, Value<'_>) -> Result<()>,
    ) -> Result<Vec<usize>> {
        let shown = path.display().to_string();
        let names: Vec<&str> = (0..self.schema.columns.len())
            .map(|c| self.name(c))
            .collect();
        let rows = crate::data::parquet::scan_as_text(path, &names, |row, c, text| {
            let at = At {
                shown: &shown,
                line: row + 1,
            };
            let value = match text {
                Some(raw) => self.parse(c, raw.trim()),
                None if self.schema.columns[c].nullable => Ok(Value::Missing),
                None => Err("null in a column not declared `nullable = true` in the schema".into()),
            }
            .map_err(|why| {
                Error::parse(format!(
                    "{shown}: row {}: column {}: {why}",
                    row + 1,
                    quote_name(names[c])
                ))
            })?;
            cell(&at, c, value)
        })?;
        if rows == 0 {
            return Err(Error::parse(format!("{shown}: no data rows")));
        }
        Ok((0..names.len()).collect())
    }
}

/// Where a value was read: the file as messages show it, and its line (for a Parquet file,
/// the row, from 1).
pub(super) struct At<'a> {
    shown: &'a str,
    line: u64,
}

impl At<'_> {
    pub(super) fn shown(&self) -> &str {
        self.shown
    }

    pub(super) fn line(&self) -> u64 {
        self.line
    }
}

fn push_value(builder: &mut Builder, value: Value<'_>) {
    match (builder, value) {
        (Builder::Numeric(values), Value::Number(x)) => values.push(x),
        (Builder::Numeric(values), _) => values.push(f64::NAN),
        (Builder::Listed { codes, .. }, Value::Level(i)) => codes.push(i),
        (Builder::Listed { missing, codes }, _) => codes.push(*missing),
        (
            Builder::Inferred {
                index,
                missing,
                codes,
            },
            value,
        ) => {
            let next = index.len() as u32 + u32::from(missing.is_some());
            let code = match value {
                Value::Text(raw) => match index.get(raw) {
                    Some(&i) => i,
                    None => {
                        index.insert(raw.to_string(), next);
                        next
                    }
                },
                _ => *missing.get_or_insert(next),
            };
            codes.push(code);
        }
    }
}

fn finish(schema: &Schema, builders: Vec<Builder>, places: Places) -> Result<Table> {
    let mut resolved = schema.clone();
    let mut inferred = Vec::new();
    let mut columns = Vec::with_capacity(builders.len());
    for (c, builder) in builders.into_iter().enumerate() {
        let spec = &mut resolved.columns[c];
        let name = spec.name.trim().to_string();
        let values = match builder {
            Builder::Numeric(mut values) => {
                if spec.bounds.is_none() {
                    let (lo, hi) = values
                        .iter()
                        .filter(|v| !v.is_nan())
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                            (lo.min(v), hi.max(v))
                        });
                    spec.bounds = Some(data_bounds(lo, hi));
                    inferred.push(name);
                }
                values.shrink_to_fit();
                ColumnValues::Numeric(values)
            }
            Builder::Listed { mut codes, .. } => {
                codes.shrink_to_fit();
                ColumnValues::Categorical(codes)
            }
            Builder::Inferred {
                index,
                missing,
                mut codes,
            } => {
                let levels = sorted_levels(&name, index.keys())?;
                // Sorted levels, so the encoding does not depend on the row order; the
                // missing marker after them.
                let rank: HashMap<&str, u32> = levels
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (s.as_str(), i as u32))
                    .collect();
                let mut remap = vec![0u32; index.len() + usize::from(missing.is_some())];
                for (raw, &code) in &index {
                    remap[code as usize] = rank[raw.as_str()];
                }
                if let Some(m) = missing {
                    remap[m as usize] = levels.len() as u32;
                }
                codes.remap(&remap);
                codes.shrink_to_fit();
                spec.levels = Some(levels);
                inferred.push(name);
                ColumnValues::Categorical(codes)
            }
        };
        columns.push(values);
    }
    let rows = columns.first().map_or(0, ColumnValues::len);
    if rows == 0 {
        return Err(Error::param("data", "no data rows"));
    }
    Ok(Table {
        schema: resolved,
        columns,
        rows,
        inferred,
        places,
    })
}

/// Bounds taken from the data's [`lo`, `hi`] (infinite when no value was seen): widened by 1
/// when all values are equal, [0, 1] when there was none (all missing).
pub(super) fn data_bounds(lo: f64, hi: f64) -> [f64; 2] {
    if lo > hi {
        [0.0, 1.0]
    } else if lo == hi {
        [lo, lo + 1.0]
    } else {
        [lo, hi]
    }
}

/// The distinct values seen in a column, sorted (byte order), as its levels; an error when
/// there is none (only the missing marker).
pub(super) fn sorted_levels<'a>(
    name: &str,
    values: impl Iterator<Item = &'a String>,
) -> Result<Vec<String>> {
    let sorted: BTreeSet<&String> = values.collect();
    if sorted.is_empty() {
        return Err(Error::param(
            "data",
            format!("column '{name}' has no value other than the missing marker"),
        ));
    }
    Ok(sorted.into_iter().cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat(codes: Vec<u32>) -> ColumnValues {
        ColumnValues::Categorical(Codes::from(codes))
    }

    fn write(name: &str, content: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("disguise-table-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        path
    }

    const SCHEMA: &str = r#"
        has_header = false
        missing = "?"
        comment = "|"
        columns = [
            { name = "age", type = "numeric", bounds = [0, 100] },
            { name = "work", type = "categorical", levels = ["Private", "Gov"], nullable = true },
            { name = "income", type = "categorical", levels = ["<=50K", ">50K"], aliases = { "<=50K." = "<=50K", ">50K." = ">50K" } },
        ]
    "#;

    #[test]
    fn reads_adult_like_files() {
        let schema = Schema::from_toml_str(SCHEMA, "s").unwrap();
        let a = write("a.data", "39, Private, <=50K\n50, ?, >50K\n\n");
        let b = write("b.test", "|1x3 Cross validator\n20, Gov, >50K.\n");
        let t = Table::read(&[&a, &b], &schema, DomainSource::Schema).unwrap();
        assert_eq!(t.rows(), 3);
        assert_eq!(t.column(0), &ColumnValues::Numeric(vec![39.0, 50.0, 20.0]));
        // "?" is the extra level index 2 of `work`.
        assert_eq!(t.column(1), &cat(vec![0, 2, 1]));
        assert_eq!(t.column(2), &cat(vec![0, 1, 1]));
        assert!(t.is_private());
        // Rows are placed at their lines, past the comment line of the second file.
        assert_eq!(t.place(0, 1), format!("{}:1:2", a.display()));
        assert_eq!(t.place(2, 2), format!("{}:2:3", b.display()));
    }

    #[test]
    fn a_boolean_level_matches_every_case_of_its_spelling() {
        let schema = Schema::from_toml_str(
            r#"
            has_header = false
            columns = [
                { name = "smoker", type = "categorical", levels = ["False", "True"] },
                { name = "y", type = "categorical", levels = ["no", "yes"] },
            ]
            "#,
            "s",
        )
        .unwrap();
        let p = write(
            "bool.csv",
            "false,no
True,yes
TRUE,no
FALSE,yes
",
        );
        let t = Table::read(&[&p], &schema, DomainSource::Schema).unwrap();
        assert_eq!(t.column(0), &cat(vec![0, 1, 1, 0]));
        // Only booleans: other levels match as spelled.
        let p = write(
            "bool-bad.csv",
            "true,No
",
        );
        let e = Table::read(&[&p], &schema, DomainSource::Schema)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("bool-bad.csv:1:2: column 'y': \"No\" is not"),
            "{e}"
        );
    }

    #[test]
    fn errors_name_file_line_column() {
        let schema = Schema::from_toml_str(SCHEMA, "s").unwrap();
        let cases = [
            (
                "x, Private, <=50K\n",
                "c.data:1:1: column 'age': not a number",
            ),
            (
                "1, Private, <=50K\n2, Self, <=50K\n",
                "c.data:2:2: column 'work': \"Self\" is not",
            ),
            (
                "?, Private, <=50K\n",
                "c.data:1:1: column 'age': missing value",
            ),
            ("1, Private\n", "c.data:1: expected 3 fields, found 2"),
            (
                "inf, Private, <=50K\n",
                "c.data:1:1: column 'age': not a finite number",
            ),
            (
                "|comment\n\n1, Private, <=50K\n2, Private, x\n",
                "c.data:4:3: column 'income'",
            ),
            ("", "c.data: empty file (no data rows)"),
        ];
        for (content, needle) in cases {
            let p = write("c.data", content);
            let e = Table::read(&[&p], &schema, DomainSource::Schema)
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle), "{e}");
        }
    }

    #[test]
    fn incomplete_schema_needs_explicit_data_source() {
        let schema = Schema::from_toml_str(
            "[[columns]]\nname = \"x\"\ntype = \"numeric\"\n[[columns]]\nname = \"y\"\ntype = \"categorical\"\n",
            "s",
        )
        .unwrap();
        let p = write("h.csv", "y,x\nb,3\na,5\nb,4\n");
        let e = Table::read(&[&p], &schema, DomainSource::Schema).unwrap_err();
        assert!(e.to_string().contains("not private"), "{e}");
        let t = Table::read(&[&p], &schema, DomainSource::Data).unwrap();
        assert_eq!(t.schema().columns[0].bounds, Some([3.0, 5.0]));
        assert_eq!(t.levels(1).unwrap(), ["a", "b"]);
        assert_eq!(t.column(1), &cat(vec![1, 0, 1]));
        assert_eq!(t.inferred_columns(), ["x", "y"]);
        assert!(!t.is_private());
    }

    #[test]
    fn header_files_project_and_refuse_duplicates() {
        let schema = Schema::from_toml_str(
            "[[columns]]\nname = \"y\"\ntype = \"categorical\"\nlevels = [\"a\", \"b\"]\n",
            "s",
        )
        .unwrap();
        // A BOM, CRLF, and a column not in the schema holding bytes that are not UTF-8.
        let p = write("p.csv", "\u{feff}junk,Y\r\n\u{1}x,b\r\nz,a\r\n");
        let mut bytes = std::fs::read(&p).unwrap();
        let at = bytes.iter().position(|&b| b == 1).unwrap();
        bytes[at] = 0xff;
        std::fs::write(&p, bytes).unwrap();
        let t = Table::read(&[&p], &schema, DomainSource::Schema).unwrap();
        assert_eq!(t.column(0), &cat(vec![1, 0]));
        assert_eq!(t.place(1, 0), format!("{}:3:2", p.display()));
        let p = write("q.csv", "y,x,Y\na,1,b\n");
        let e = Table::read(&[&p], &schema, DomainSource::Schema)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("q.csv:1: duplicate column 'Y' (columns 1 and 3)"),
            "{e}"
        );
        let p = write("r.csv", "x,y\n");
        let e = Table::read(&[&p], &schema, DomainSource::Schema)
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("r.csv: no data rows (only a header)"), "{e}");
    }

    #[test]
    fn inferred_levels_and_missing_values() {
        let schema = Schema::from_toml_str(
            "missing = \"?\"\n[[columns]]\nname = \"y\"\ntype = \"categorical\"\nnullable = true\n",
            "s",
        )
        .unwrap();
        let p = write("m.csv", "y\n?\nb\na\n?\nb\n");
        let t = Table::read(&[&p], &schema, DomainSource::Data).unwrap();
        assert_eq!(t.levels(0).unwrap(), ["a", "b"]);
        assert_eq!(t.column(0), &cat(vec![2, 1, 0, 2, 1]));
    }
}
