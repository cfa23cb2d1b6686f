//! Parquet files of planar points, read column by column and row group by row group (never
//! the whole file at once), and written the same way. The `parquet` crate's column API,
//! without arrow.

use crate::error::{Error, Result};
use parquet::basic::Compression;
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{DataType, DoubleType};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

/// Values decoded per call: bounded memory whatever the row group's size.
const BATCH: usize = 1 << 16;

/// Whether `path` names a Parquet file (by its extension, `.parquet` or `.pq`).
pub fn is_parquet(path: &Path) -> bool {
    path.extension()
        .map(|e| e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("pq"))
        .unwrap_or(false)
}

/// Opens the Parquet file `path`. A stream that [`crate::files::hold_stream`] read is
/// refused: Parquet is read by seeking (and the stream cannot be read again).
fn open(path: &Path) -> Result<File> {
    let shown = path.display();
    if crate::files::held(path).is_some() {
        return Err(Error::io(format!(
            "{shown}: a Parquet file is read by seeking, not from a stream: write it to a file \
             first"
        )));
    }
    File::open(path).map_err(|e| Error::io_with(format!("cannot open {shown}"), e))
}

/// The points of the rows `keep` accepts (0-based row of the file) from two numeric columns
/// of a Parquet file (DOUBLE, FLOAT, INT32 or INT64; names matched case-insensitively, as
/// for CSV). Only the two columns are decoded, one row group and at most 65,536 values at a
/// time. `check(c, value)` rejects a value of column c with a reason.
///
/// # Errors
/// If the file cannot be opened or is not Parquet, a column is absent, named twice, nested
/// or of another type, a value is null, NaN or infinite, or `check` rejects it: the message
/// names the file, the row and the column.
///
/// ```
/// # let dir = tempfile::tempdir()?;
/// use disguise::data::parquet::{PointWriter, read_points_parquet};
/// let path = dir.path().join("p.parquet");
/// let mut w = PointWriter::new(std::fs::File::create(&path)?)?;
/// for i in 0..5 {
///     w.push([i as f64, -(i as f64)])?;
/// }
/// w.finish()?;
/// let even = read_points_parquet(&path, ["X", "y"], |_, _| Ok(()), |r| r % 2 == 0)?;
/// assert_eq!(even, vec![[0.0, 0.0], [2.0, -2.0], [4.0, -4.0]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_points_parquet(
    path: &Path,
    columns: [&str; 2],
    check: impl Fn(usize, f64) -> std::result::Result<(), String>,
    mut keep: impl FnMut(u64) -> bool,
) -> Result<Vec<[f64; 2]>> {
    let shown = path.display();
    let file = open(path)?;
    let reader = SerializedFileReader::new(file)
        .map_err(|e| Error::parse_with(format!("{shown}: not a readable Parquet file"), e))?;
    let schema = reader.metadata().file_metadata().schema_descr();
    let index = |name: &str| column_index(schema, name, &shown);
    let idx = [index(columns[0])?, index(columns[1])?];
    let mut points = Vec::new();
    let mut row = 0u64;
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for g in 0..reader.num_row_groups() {
        let group = reader
            .get_row_group(g)
            .map_err(|e| Error::parse_with(format!("{shown}: row group {g}"), e))?;
        let mut readers = [
            Column::new(group.get_column_reader(idx[0]), columns[0], &shown)?,
            Column::new(group.get_column_reader(idx[1]), columns[1], &shown)?,
        ];
        loop {
            let nx = readers[0].next(&mut xs, row, &shown)?;
            let ny = readers[1].next(&mut ys, row, &shown)?;
            if nx != ny {
                return Err(Error::parse(format!(
                    "{shown}: row group {g}: columns '{}' and '{}' have different lengths",
                    columns[0], columns[1]
                )));
            }
            if nx == 0 {
                break;
            }
            for (&x, &y) in xs.iter().zip(&ys) {
                if keep(row) {
                    for (c, v) in [x, y].into_iter().enumerate() {
                        if !v.is_finite() {
                            return Err(Error::parse(format!(
                                "{shown}: row {}: column '{}': not a finite number: {v}",
                                row + 1,
                                columns[c]
                            )));
                        }
                        check(c, v).map_err(|why| {
                            Error::parse(format!(
                                "{shown}: row {}: column '{}': {why}",
                                row + 1,
                                columns[c]
                            ))
                        })?;
                    }
                    points.push([x, y]);
                }
                row += 1;
            }
        }
    }
    if row == 0 {
        return Err(Error::parse(format!("{shown}: no rows")));
    }
    Ok(points)
}

/// The index of the flat column `name` (case-insensitive) of a Parquet schema.
fn column_index(
    schema: &parquet::schema::types::SchemaDescriptor,
    name: &str,
    shown: &std::path::Display<'_>,
) -> Result<usize> {
    let found: Vec<usize> = (0..schema.num_columns())
        .filter(|&i| schema.column(i).name().eq_ignore_ascii_case(name.trim()))
        .collect();
    match found[..] {
        [i] if schema.column(i).max_rep_level() == 0 => Ok(i),
        [_] => Err(Error::parse(format!(
            "{shown}: column '{name}' is a list, not one value per row"
        ))),
        [] => Err(Error::parse(format!(
            "{shown}: no column '{name}' (columns: {})",
            crate::data::reader::brief_list(
                &(0..schema.num_columns())
                    .map(|i| schema.column(i).name().to_string())
                    .collect::<Vec<_>>()
            )
        ))),
        _ => Err(Error::parse(format!(
            "{shown}: column '{name}' appears twice"
        ))),
    }
}

/// Rows decoded per call when every column of a table is read: bounded memory for wide
/// tables too.
const TABLE_BATCH: usize = 1 << 12;

/// Calls `cell(row, c, text)` for every row (from 0) and every one of `columns` in order (so
/// c = 0 starts a row), with the value as a CSV field would hold it — numbers in their
/// shortest round-trip form (`0.1`, `42`), UTF-8 strings as they are, booleans `true`/`false`
/// — or `None` for a null. The columns may be of any flat primitive type but INT96 and
/// fixed-length byte arrays; names are matched case-insensitively. Row group by row group, at
/// most 4,096 rows of each column at a time. Returns the number of rows.
///
/// # Errors
/// If the file cannot be opened or is not Parquet, a column is absent, named twice, nested or
/// of an unsupported type, a string is not UTF-8 (naming the file, row and column), and the
/// errors of `cell`.
pub(crate) fn scan_as_text(
    path: &Path,
    columns: &[&str],
    mut cell: impl FnMut(u64, usize, Option<&str>) -> Result<()>,
) -> Result<u64> {
    let shown = path.display();
    let file = open(path)?;
    let reader = SerializedFileReader::new(file)
        .map_err(|e| Error::parse_with(format!("{shown}: not a readable Parquet file"), e))?;
    let schema = reader.metadata().file_metadata().schema_descr();
    let idx: Vec<usize> = columns
        .iter()
        .map(|name| column_index(schema, name, &shown))
        .collect::<Result<_>>()?;
    let mut row = 0u64;
    let mut text = String::new();
    for g in 0..reader.num_row_groups() {
        let group = reader
            .get_row_group(g)
            .map_err(|e| Error::parse_with(format!("{shown}: row group {g}"), e))?;
        let mut readers: Vec<TextColumn> = idx
            .iter()
            .zip(columns)
            .map(|(&i, name)| {
                let reader = group
                    .get_column_reader(i)
                    .map_err(|e| Error::parse_with(format!("{shown}: column '{name}'"), e))?;
                TextColumn::new(reader, schema.column(i).max_def_level(), name, &shown)
            })
            .collect::<Result<_>>()?;
        loop {
            let mut rows = None;
            for r in &mut readers {
                let n = r.next(&shown)?;
                if *rows.get_or_insert(n) != n {
                    return Err(Error::parse(format!(
                        "{shown}: row group {g}: the columns have different lengths"
                    )));
                }
            }
            let rows = rows.unwrap_or(0);
            if rows == 0 {
                break;
            }
            for _ in 0..rows {
                for (c, r) in readers.iter_mut().enumerate() {
                    let value = r.take(&mut text).map_err(|why| {
                        Error::parse(format!(
                            "{shown}: row {}: column '{}': {why}",
                            row + 1,
                            columns[c]
                        ))
                    })?;
                    cell(row, c, value.then_some(text.as_str()))?;
                }
                row += 1;
            }
        }
    }
    Ok(row)
}

/// The values of one batch of a column, of its physical type.
enum Values {
    Bool(Vec<bool>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Float(Vec<f32>),
    Double(Vec<f64>),
    Bytes(Vec<parquet::data_type::ByteArray>),
}

/// One column of a row group read in batches and handed out row by row as text.
struct TextColumn {
    reader: ColumnReader,
    name: String,
    max_def: i16,
    defs: Vec<i16>,
    values: Values,
    /// The next row of the batch, and the next non-null value.
    row: usize,
    value: usize,
}

impl TextColumn {
    fn new(
        reader: ColumnReader,
        max_def: i16,
        name: &str,
        shown: &std::path::Display<'_>,
    ) -> Result<TextColumn> {
        let values = match &reader {
            ColumnReader::BoolColumnReader(_) => Values::Bool(Vec::new()),
            ColumnReader::Int32ColumnReader(_) => Values::Int32(Vec::new()),
            ColumnReader::Int64ColumnReader(_) => Values::Int64(Vec::new()),
            ColumnReader::FloatColumnReader(_) => Values::Float(Vec::new()),
            ColumnReader::DoubleColumnReader(_) => Values::Double(Vec::new()),
            ColumnReader::ByteArrayColumnReader(_) => Values::Bytes(Vec::new()),
            _ => {
                return Err(Error::parse(format!(
                    "{shown}: column '{name}' has a type that is not read (INT96 or a \
                     fixed-length byte array): store it as a string or a number"
                )));
            }
        };
        Ok(TextColumn {
            reader,
            name: name.to_string(),
            max_def,
            defs: Vec::new(),
            values,
            row: 0,
            value: 0,
        })
    }

    /// Decodes the next batch; the number of rows in it (0 at the end of the row group).
    fn next(&mut self, shown: &std::path::Display<'_>) -> Result<usize> {
        fn read<T: DataType>(
            r: &mut ColumnReaderImpl<T>,
            defs: &mut Vec<i16>,
            out: &mut Vec<T::T>,
        ) -> parquet::errors::Result<usize> {
            out.clear();
            r.read_records(TABLE_BATCH, Some(defs), None, out)
                .map(|(records, _, _)| records)
        }
        self.defs.clear();
        let defs = &mut self.defs;
        let records = match (&mut self.reader, &mut self.values) {
            (ColumnReader::BoolColumnReader(r), Values::Bool(v)) => read(r, defs, v),
            (ColumnReader::Int32ColumnReader(r), Values::Int32(v)) => read(r, defs, v),
            (ColumnReader::Int64ColumnReader(r), Values::Int64(v)) => read(r, defs, v),
            (ColumnReader::FloatColumnReader(r), Values::Float(v)) => read(r, defs, v),
            (ColumnReader::DoubleColumnReader(r), Values::Double(v)) => read(r, defs, v),
            (ColumnReader::ByteArrayColumnReader(r), Values::Bytes(v)) => read(r, defs, v),
            // TextColumn::new pairs them; an error rather than a panic all the same.
            _ => {
                return Err(Error::parse(format!(
                    "{shown}: column '{}': values of another type than the column",
                    self.name
                )));
            }
        }
        .map_err(|e| Error::parse_with(format!("{shown}: column '{}'", self.name), e))?;
        self.row = 0;
        self.value = 0;
        Ok(records)
    }

    /// The next row's value written into `text` (true), or a null (false).
    fn take(&mut self, text: &mut String) -> std::result::Result<bool, String> {
        use std::fmt::Write;
        let row = self.row;
        self.row += 1;
        if self.max_def > 0 && self.defs.get(row).is_some_and(|&d| d < self.max_def) {
            return Ok(false);
        }
        let i = self.value;
        self.value += 1;
        text.clear();
        let missing = || "fewer values than rows".to_string();
        let _ = match &self.values {
            Values::Bool(v) => write!(text, "{}", v.get(i).ok_or_else(missing)?),
            Values::Int32(v) => write!(text, "{}", v.get(i).ok_or_else(missing)?),
            Values::Int64(v) => write!(text, "{}", v.get(i).ok_or_else(missing)?),
            Values::Float(v) => write!(text, "{}", v.get(i).ok_or_else(missing)?),
            Values::Double(v) => write!(text, "{}", v.get(i).ok_or_else(missing)?),
            Values::Bytes(v) => {
                let bytes = v.get(i).ok_or_else(missing)?;
                let s = bytes.as_utf8().map_err(|_| "not valid UTF-8".to_string())?;
                text.push_str(s);
                Ok(())
            }
        };
        Ok(true)
    }
}

/// One numeric column of a row group, decoded in batches into f64.
struct Column {
    reader: ColumnReader,
    name: String,
    /// The batch's definition levels (a level without a value is a null).
    defs: Vec<i16>,
}

impl Column {
    fn new(
        reader: parquet::errors::Result<ColumnReader>,
        name: &str,
        shown: &std::path::Display<'_>,
    ) -> Result<Column> {
        let reader =
            reader.map_err(|e| Error::parse_with(format!("{shown}: column '{name}'"), e))?;
        if !matches!(
            reader,
            ColumnReader::DoubleColumnReader(_)
                | ColumnReader::FloatColumnReader(_)
                | ColumnReader::Int32ColumnReader(_)
                | ColumnReader::Int64ColumnReader(_)
        ) {
            return Err(Error::parse(format!(
                "{shown}: column '{name}' is not numeric (DOUBLE, FLOAT, INT32 or INT64)"
            )));
        }
        Ok(Column {
            reader,
            name: name.to_string(),
            defs: Vec::new(),
        })
    }

    /// The next batch into `out` (cleared first); 0 at the end of the row group.
    fn next(
        &mut self,
        out: &mut Vec<f64>,
        first_row: u64,
        shown: &std::path::Display<'_>,
    ) -> Result<usize> {
        out.clear();
        self.defs.clear();
        let wrap = |e| Error::parse_with(format!("{shown}: column '{}'", self.name), e);
        // Read with definition levels: a null shows as a level without a value.
        let (records, values, levels) = match &mut self.reader {
            ColumnReader::DoubleColumnReader(r) => batch(r, &mut self.defs, out, |v| v),
            ColumnReader::FloatColumnReader(r) => batch(r, &mut self.defs, out, f64::from),
            ColumnReader::Int32ColumnReader(r) => batch(r, &mut self.defs, out, f64::from),
            // Exact up to 2^53, as a CSV integer would be parsed.
            ColumnReader::Int64ColumnReader(r) => batch(r, &mut self.defs, out, |i| i as f64),
            _ => {
                return Err(Error::parse(format!(
                    "{shown}: column '{}' is not numeric",
                    self.name
                )));
            }
        }
        .map_err(wrap)?;
        if levels > values {
            return Err(Error::parse(format!(
                "{shown}: row {}: column '{}' is null",
                first_row + 1 + self.defs.iter().position(|&d| d == 0).unwrap_or(0) as u64,
                self.name
            )));
        }
        Ok(records)
    }
}

/// One batch of a typed column into `out`, converted to f64: (records, values, levels).
fn batch<T: DataType>(
    reader: &mut ColumnReaderImpl<T>,
    defs: &mut Vec<i16>,
    out: &mut Vec<f64>,
    to_f64: impl Fn(T::T) -> f64,
) -> parquet::errors::Result<(usize, usize, usize)> {
    let mut values = Vec::new();
    let read = reader.read_records(BATCH, Some(defs), None, &mut values)?;
    out.extend(values.into_iter().map(to_f64));
    Ok(read)
}

/// Writes planar points as a Parquet file with two required DOUBLE columns `x` and `y`,
/// Snappy-compressed, in row groups of 2^20 rows: memory stays at one row group. Write to an
/// [`AtomicFile`](crate::files::AtomicFile)'s writer so that a failed run leaves nothing.
pub struct PointWriter<W: std::io::Write + Send> {
    writer: SerializedFileWriter<W>,
    xs: Vec<f64>,
    ys: Vec<f64>,
}

/// Rows per row group of [`PointWriter`].
const ROW_GROUP: usize = 1 << 20;

impl<W: std::io::Write + Send> PointWriter<W> {
    /// Starts a file on `file`.
    ///
    /// # Errors
    /// If the header cannot be written.
    pub fn new(file: W) -> Result<PointWriter<W>> {
        let schema = parse_message_type("message points { REQUIRED DOUBLE x; REQUIRED DOUBLE y; }")
            .map_err(|e| Error::io_with("the points schema", e))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build();
        let writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props))
            .map_err(|e| Error::io_with("cannot start a Parquet file", e))?;
        Ok(PointWriter {
            writer,
            xs: Vec::with_capacity(ROW_GROUP),
            ys: Vec::with_capacity(ROW_GROUP),
        })
    }

    /// Appends one point.
    ///
    /// # Errors
    /// If a full row group cannot be written.
    pub fn push(&mut self, point: [f64; 2]) -> Result<()> {
        self.xs.push(point[0]);
        self.ys.push(point[1]);
        if self.xs.len() == ROW_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.xs.is_empty() {
            return Ok(());
        }
        let wrap = |e| Error::io_with("writing a Parquet row group", e);
        let mut group = self.writer.next_row_group().map_err(wrap)?;
        for values in [&self.xs, &self.ys] {
            let mut column = group
                .next_column()
                .map_err(wrap)?
                .ok_or_else(|| Error::io("the points schema has two columns"))?;
            column
                .typed::<DoubleType>()
                .write_batch(values, None, None)
                .map_err(wrap)?;
            column.close().map_err(wrap)?;
        }
        group.close().map_err(wrap)?;
        self.xs.clear();
        self.ys.clear();
        Ok(())
    }

    /// Writes the last row group and the footer; returns the underlying writer.
    ///
    /// # Errors
    /// If writing fails.
    pub fn finish(mut self) -> Result<W> {
        self.flush()?;
        self.writer
            .into_inner()
            .map_err(|e| Error::io_with("writing the Parquet footer", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::data_type::{FloatType, Int64Type};

    /// A file with an optional DOUBLE `x` (a null in row 3 when `null`), a FLOAT `y` and an
    /// INT64 `z`.
    fn mixed(path: &Path, null: bool) {
        let schema = parse_message_type(
            "message t { OPTIONAL DOUBLE x; REQUIRED FLOAT y; REQUIRED INT64 z; }",
        )
        .unwrap();
        let file = File::create(path).unwrap();
        let props = Arc::new(WriterProperties::builder().build());
        let mut w = SerializedFileWriter::new(file, Arc::new(schema), props).unwrap();
        let mut g = w.next_row_group().unwrap();
        let mut c = g.next_column().unwrap().unwrap();
        let defs: Vec<i16> = if null { vec![1, 1, 0, 1] } else { vec![1; 4] };
        let xs: Vec<f64> = if null {
            vec![1.0, 2.0, 4.0]
        } else {
            vec![1.0, 2.0, 3.0, 4.0]
        };
        c.typed::<DoubleType>()
            .write_batch(&xs, Some(&defs), None)
            .unwrap();
        c.close().unwrap();
        let mut c = g.next_column().unwrap().unwrap();
        c.typed::<FloatType>()
            .write_batch(&[0.5, 1.5, 2.5, 3.5], None, None)
            .unwrap();
        c.close().unwrap();
        let mut c = g.next_column().unwrap().unwrap();
        c.typed::<Int64Type>()
            .write_batch(&[10, 20, 30, 40], None, None)
            .unwrap();
        c.close().unwrap();
        g.close().unwrap();
        w.close().unwrap();
    }

    /// A table in two row groups: OPTIONAL DOUBLE `age` (null in row 3), UTF-8 `colour`,
    /// INT32 `n`, BOOLEAN `flag`; and the same rows as CSV, the null as `?`.
    fn table(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
        use parquet::data_type::{BoolType, ByteArray, ByteArrayType, Int32Type};
        let path = dir.join("t.parquet");
        let schema = parse_message_type(
            "message t { OPTIONAL DOUBLE age; REQUIRED BYTE_ARRAY colour (UTF8); \
             REQUIRED INT32 n; REQUIRED BOOLEAN flag; }",
        )
        .unwrap();
        let props = Arc::new(WriterProperties::builder().build());
        let mut w =
            SerializedFileWriter::new(File::create(&path).unwrap(), Arc::new(schema), props)
                .unwrap();
        // Per row group: ages (non-null), their definition levels, colours, n, flags.
        type Group<'a> = (&'a [f64], &'a [i16], &'a [&'a str], &'a [i32], &'a [bool]);
        let groups: [Group; 2] = [
            (
                &[12.5, 40.0],
                &[1, 1, 0],
                &["red", "blue", "red"],
                &[1, 2, 3],
                &[true, false, true],
            ),
            (&[99.0], &[1], &["blue"], &[2], &[false]),
        ];
        for (ages, defs, colours, ns, flags) in groups {
            let mut g = w.next_row_group().unwrap();
            let mut c = g.next_column().unwrap().unwrap();
            c.typed::<DoubleType>()
                .write_batch(ages, Some(defs), None)
                .unwrap();
            c.close().unwrap();
            let colours: Vec<ByteArray> = colours.iter().map(|&s| s.into()).collect();
            let mut c = g.next_column().unwrap().unwrap();
            c.typed::<ByteArrayType>()
                .write_batch(&colours, None, None)
                .unwrap();
            c.close().unwrap();
            let mut c = g.next_column().unwrap().unwrap();
            c.typed::<Int32Type>().write_batch(ns, None, None).unwrap();
            c.close().unwrap();
            let mut c = g.next_column().unwrap().unwrap();
            c.typed::<BoolType>()
                .write_batch(flags, None, None)
                .unwrap();
            c.close().unwrap();
            g.close().unwrap();
        }
        w.close().unwrap();
        let csv = dir.join("t.csv");
        std::fs::write(
            &csv,
            "flag,age,n,colour\ntrue,12.5,1,red\nfalse,40,2,blue\ntrue,?,3,red\nfalse,99,2,blue\n",
        )
        .unwrap();
        (path, csv)
    }

    /// A Parquet table is read by column name, each value as its CSV text would be: the
    /// same codes as the CSV file, nulls as the missing value; errors name row and column.
    #[test]
    fn a_parquet_table_reads_as_its_csv() {
        use crate::histogram::{Discretized, DomainSource, Schema};
        let dir = tempfile::tempdir().unwrap();
        let (parquet, csv) = table(dir.path());
        let schema = |age_nullable: bool, colours: &str| {
            Schema::from_toml_str(
                &format!(
                    "missing = \"?\"\n\
                     [[columns]]\nname = \"Age\"\ntype = \"numeric\"\nbounds = [0, 100]\n\
                     bins = 4\nnullable = {age_nullable}\n\
                     [[columns]]\nname = \"colour\"\ntype = \"categorical\"\n\
                     levels = [{colours}]\n\
                     [[columns]]\nname = \"n\"\ntype = \"categorical\"\n\
                     levels = [\"1\", \"2\", \"3\"]\n\
                     [[columns]]\nname = \"flag\"\ntype = \"categorical\"\n\
                     levels = [\"false\", \"true\"]\n"
                ),
                "t.toml",
            )
            .unwrap()
        };
        let good = schema(true, "\"red\", \"blue\"");
        let read = |path: &Path, s: &Schema| {
            Discretized::read(&[path], s, DomainSource::Schema).map(|r| r.data)
        };
        let from_parquet = read(&parquet, &good).unwrap();
        assert_eq!(from_parquet, read(&csv, &good).unwrap());
        assert_eq!(from_parquet.rows(), 4);
        assert_eq!(
            from_parquet.codes(0).get(2),
            4,
            "the null is the missing bin"
        );
        // Mixed formats in one read: the rows of both.
        let both = Discretized::read(&[&parquet, &csv], &good, DomainSource::Schema).unwrap();
        assert_eq!(both.data.rows(), 8);
        let err = |s: &Schema| read(&parquet, s).unwrap_err().to_string();
        let null = err(&schema(false, "\"red\", \"blue\""));
        assert!(
            null.contains("t.parquet: row 3: column 'Age': null"),
            "{null}"
        );
        let level = err(&schema(true, "\"red\""));
        assert!(
            level.contains("row 2: column 'colour': \"blue\" is not"),
            "{level}"
        );
        let mut absent = good.clone();
        absent.columns[1].name = "shade".into();
        let absent = err(&absent);
        assert!(
            absent.contains("no column 'shade' (columns: age, colour, n, flag)"),
            "{absent}"
        );
    }

    #[test]
    fn numeric_types_are_read_and_nulls_refused_with_their_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mixed.parquet");
        mixed(&path, false);
        let all = |_| true;
        let got = read_points_parquet(&path, ["x", "Y"], |_, _| Ok(()), all).unwrap();
        assert_eq!(got[2], [3.0, 2.5]);
        let got = read_points_parquet(&path, ["z", "y"], |_, _| Ok(()), all).unwrap();
        assert_eq!(got[3], [40.0, 3.5]);
        let err = read_points_parquet(&path, ["x", "w"], |_, _| Ok(()), all).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("no column 'w' (columns: x, y, z)"),
            "{err}"
        );
        let err = read_points_parquet(
            &path,
            ["x", "y"],
            |c, v| {
                if c == 1 && v > 2.0 {
                    Err("too big".into())
                } else {
                    Ok(())
                }
            },
            all,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .ends_with("mixed.parquet: row 3: column 'y': too big"),
            "{err}"
        );
        mixed(&path, true);
        let err = read_points_parquet(&path, ["x", "y"], |_, _| Ok(()), all).unwrap_err();
        assert!(
            err.to_string().ends_with("row 3: column 'x' is null"),
            "{err}"
        );
    }

    #[test]
    fn a_file_that_is_not_parquet_is_one_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fake.parquet");
        std::fs::write(&path, "x,y\n1,2\n").unwrap();
        let err = read_points_parquet(&path, ["x", "y"], |_, _| Ok(()), |_| true).unwrap_err();
        assert!(
            err.to_string().contains("not a readable Parquet file"),
            "{err}"
        );
        let nan = dir.path().join("nan.parquet");
        let mut w = PointWriter::new(File::create(&nan).unwrap()).unwrap();
        w.push([1.0, f64::NAN]).unwrap();
        w.finish().unwrap();
        let err = read_points_parquet(&nan, ["x", "y"], |_, _| Ok(()), |_| true).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("row 1: column 'y': not a finite number: NaN"),
            "{err}"
        );
    }
}
