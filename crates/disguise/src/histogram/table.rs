//! A table of categorical and numeric columns read from delimited text with a [`Schema`].

use super::schema::{ColumnType, DomainSource, Schema};
use crate::error::{Error, Result};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// The values of one column.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnValues {
    /// Level indices into the column's levels (the missing value, if any, is the index
    /// `levels.len()`, see [`Table::levels`]).
    Categorical(Vec<u32>),
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
}

/// Per-column parsing state while reading.
enum Builder {
    /// Levels known: value (or alias) → index.
    Listed {
        index: HashMap<String, u32>,
        values: Vec<u32>,
    },
    /// Levels to be inferred from the data: raw strings, interned.
    Inferred {
        index: HashMap<String, u32>,
        names: Vec<String>,
        values: Vec<u32>,
    },
    Numeric(Vec<f64>),
}

impl Table {
    /// Reads one or more data files (concatenated, in order) with `schema`.
    ///
    /// Files are parsed with the schema's delimiter, header, comment and missing-value
    /// settings; fields are trimmed; blank lines are skipped. With a header, the schema's
    /// columns are found by name (case-insensitively; extra file columns are ignored); without
    /// one, each row must have exactly the schema's number of fields.
    ///
    /// `source` says where domains may come from: with [`DomainSource::Schema`] a column
    /// without levels or bounds is an error (the private choice); with [`DomainSource::Data`]
    /// they are taken from the rows read — levels sorted, bounds the [min, max] seen (widened
    /// by 1 when all values are equal) — and the table is marked as not private.
    ///
    /// # Errors
    /// [`Error::Io`] for an unreadable file; [`Error::Parse`] naming file, line and column
    /// for a malformed row, a non-number (or non-finite number) in a numeric column, a value
    /// that is not a listed level, a missing marker in a column not declared `nullable`;
    /// [`Error::InvalidParameter`] for an incomplete schema with [`DomainSource::Schema`] or
    /// when no row was read.
    pub fn read(paths: &[&Path], schema: &Schema, source: DomainSource) -> Result<Self> {
        schema.validate()?;
        check_complete(schema, source)?;
        let mut builders = builders(schema);
        for path in paths {
            read_file(path, schema, &mut builders)?;
        }
        finish(schema, builders)
    }

    /// Builds a table from in-memory rows of strings (one `Vec` per row, the schema's columns
    /// in order), with the same parsing rules as [`Table::read`]; `source` names the rows in
    /// error messages (line = row index + 1).
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
        let mut builders = builders(schema);
        for (i, row) in rows.iter().enumerate() {
            if row.len() != schema.columns.len() {
                return Err(Error::Parse(format!(
                    "{name}:{}: expected {} fields, found {}",
                    i + 1,
                    schema.columns.len(),
                    row.len()
                )));
            }
            for (c, field) in row.iter().enumerate() {
                push_value(
                    schema,
                    c,
                    field.as_ref().trim(),
                    &mut builders[c],
                    name,
                    i as u64 + 1,
                )?;
            }
        }
        finish(schema, builders)
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
}

fn check_complete(schema: &Schema, source: DomainSource) -> Result<()> {
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
                Some(levels) => {
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
                    Builder::Listed {
                        index,
                        values: Vec::new(),
                    }
                }
                None => Builder::Inferred {
                    index: HashMap::new(),
                    names: Vec::new(),
                    values: Vec::new(),
                },
            },
        })
        .collect()
}

/// Code reserved for the missing value while the level list is not final.
const MISSING: u32 = u32::MAX;

fn push_value(
    schema: &Schema,
    c: usize,
    raw: &str,
    builder: &mut Builder,
    file: &str,
    line: u64,
) -> Result<()> {
    let col = &schema.columns[c];
    let name = col.name.trim();
    let is_missing = schema.missing.as_deref() == Some(raw);
    if is_missing && !col.nullable {
        return Err(Error::Parse(format!(
            "{file}:{line}: column '{name}': missing value {raw:?} in a column not declared \
             `nullable = true` in the schema"
        )));
    }
    match builder {
        Builder::Numeric(values) => {
            if is_missing {
                values.push(f64::NAN);
                return Ok(());
            }
            let value: f64 = raw.parse().map_err(|_| {
                Error::Parse(format!(
                    "{file}:{line}: column '{name}': not a number: {raw:?}"
                ))
            })?;
            if !value.is_finite() {
                return Err(Error::Parse(format!(
                    "{file}:{line}: column '{name}': not a finite number: {raw:?}"
                )));
            }
            values.push(value);
        }
        Builder::Listed { index, values } => {
            if is_missing {
                values.push(MISSING);
                return Ok(());
            }
            match index.get(raw) {
                Some(&i) => values.push(i),
                None => {
                    return Err(Error::Parse(format!(
                        "{file}:{line}: column '{name}': {raw:?} is not one of the schema's \
                         levels (add it to `levels` or `aliases`)"
                    )));
                }
            }
        }
        Builder::Inferred {
            index,
            names,
            values,
        } => {
            if is_missing {
                values.push(MISSING);
                return Ok(());
            }
            let next = names.len() as u32;
            let i = *index.entry(raw.to_string()).or_insert_with(|| {
                names.push(raw.to_string());
                next
            });
            values.push(i);
        }
    }
    Ok(())
}

fn read_file(path: &Path, schema: &Schema, builders: &mut [Builder]) -> Result<()> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| Error::Io(format!("{shown}: {e}")))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(schema.has_header)
        .delimiter(schema.delimiter.as_bytes()[0])
        .comment(schema.comment.as_ref().map(|c| c.as_bytes()[0]))
        .trim(csv::Trim::All)
        .flexible(true)
        .from_reader(std::io::BufReader::with_capacity(1 << 20, file));
    let width = schema.columns.len();
    // Field position of each schema column in the file, and the fields a row must have.
    let (positions, want): (Vec<usize>, usize) = if schema.has_header {
        let headers = reader
            .headers()
            .map_err(|e| Error::Parse(format!("{shown}: {e}")))?
            .clone();
        let positions = schema
            .columns
            .iter()
            .map(|col| {
                headers
                    .iter()
                    .position(|h| h.trim().eq_ignore_ascii_case(col.name.trim()))
                    .ok_or_else(|| {
                        Error::Parse(format!(
                            "{shown}: no column '{}' in the header (columns: {})",
                            col.name.trim(),
                            headers.iter().collect::<Vec<_>>().join(", ")
                        ))
                    })
            })
            .collect::<Result<_>>()?;
        (positions, headers.len())
    } else {
        ((0..width).collect(), width)
    };
    let mut record = csv::StringRecord::new();
    loop {
        let more = reader.read_record(&mut record).map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            Error::Parse(format!("{shown}:{line}: {e}"))
        })?;
        if !more {
            break;
        }
        let line = record.position().map_or(0, |p| p.line());
        if record.len() == 1 && record[0].is_empty() {
            continue; // a line of blanks only
        }
        if record.len() != want {
            return Err(Error::Parse(format!(
                "{shown}:{line}: expected {want} fields, found {}",
                record.len()
            )));
        }
        for (c, &pos) in positions.iter().enumerate() {
            push_value(schema, c, &record[pos], &mut builders[c], &shown, line)?;
        }
    }
    Ok(())
}

fn finish(schema: &Schema, builders: Vec<Builder>) -> Result<Table> {
    let mut resolved = schema.clone();
    let mut inferred = Vec::new();
    let mut columns = Vec::with_capacity(builders.len());
    for (c, builder) in builders.into_iter().enumerate() {
        let spec = &mut resolved.columns[c];
        let name = spec.name.trim().to_string();
        let values = match builder {
            Builder::Numeric(values) => {
                if spec.bounds.is_none() {
                    let (lo, hi) = values
                        .iter()
                        .filter(|v| !v.is_nan())
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                            (lo.min(v), hi.max(v))
                        });
                    let (lo, hi) = if lo > hi {
                        (0.0, 1.0) // no value at all (all missing)
                    } else if lo == hi {
                        (lo, lo + 1.0)
                    } else {
                        (lo, hi)
                    };
                    spec.bounds = Some([lo, hi]);
                    inferred.push(name);
                }
                ColumnValues::Numeric(values)
            }
            Builder::Listed { values, .. } => {
                let missing = spec.levels.as_ref().map_or(0, Vec::len) as u32;
                ColumnValues::Categorical(
                    values
                        .into_iter()
                        .map(|v| if v == MISSING { missing } else { v })
                        .collect(),
                )
            }
            Builder::Inferred { names, values, .. } => {
                // Sorted levels, so the encoding does not depend on the row order.
                let sorted: BTreeSet<&String> = names.iter().collect();
                let rank: HashMap<&String, u32> = sorted
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (*s, i as u32))
                    .collect();
                let remap: Vec<u32> = names.iter().map(|s| rank[s]).collect();
                let missing = names.len() as u32;
                let levels: Vec<String> = sorted.into_iter().cloned().collect();
                if levels.is_empty() {
                    return Err(Error::param(
                        "data",
                        format!("column '{name}' has no value other than the missing marker"),
                    ));
                }
                spec.levels = Some(levels);
                inferred.push(name);
                ColumnValues::Categorical(
                    values
                        .into_iter()
                        .map(|v| {
                            if v == MISSING {
                                missing
                            } else {
                                remap[v as usize]
                            }
                        })
                        .collect(),
                )
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
    })
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

    const SCHEMA: &str = r#"
        has_header = false
        missing = "?"
        comment = "|"
        [[columns]]
        name = "age"
        type = "numeric"
        bounds = [0, 100]
        [[columns]]
        name = "work"
        type = "categorical"
        levels = ["Private", "Gov"]
        nullable = true
        [[columns]]
        name = "income"
        type = "categorical"
        levels = ["<=50K", ">50K"]
        aliases = { "<=50K." = "<=50K", ">50K." = ">50K" }
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
        assert_eq!(t.column(1), &ColumnValues::Categorical(vec![0, 2, 1]));
        assert_eq!(t.column(2), &ColumnValues::Categorical(vec![0, 1, 1]));
        assert!(t.is_private());
    }

    #[test]
    fn errors_name_file_line_column() {
        let schema = Schema::from_toml_str(SCHEMA, "s").unwrap();
        let cases = [
            (
                "x, Private, <=50K\n",
                "c.data:1: column 'age': not a number",
            ),
            (
                "1, Private, <=50K\n2, Self, <=50K\n",
                "c.data:2: column 'work': \"Self\" is not",
            ),
            (
                "?, Private, <=50K\n",
                "c.data:1: column 'age': missing value",
            ),
            ("1, Private\n", "c.data:1: expected 3 fields, found 2"),
            ("inf, Private, <=50K\n", "not a finite number"),
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
        assert_eq!(t.column(1), &ColumnValues::Categorical(vec![1, 0, 1]));
        assert_eq!(t.inferred_columns(), ["x", "y"]);
        assert!(!t.is_private());
    }
}
