//! Reading the table of a feature selection: which columns are features (all but the label
//! and the excluded ones), binning the numeric ones over public bounds while streaming, and
//! refusing a numeric column left unbinned — from a delimited file without a schema, or
//! from a schema's public domains ([`SchemaColumns`]).
//!
//! A message that names one of the request's options names it as the front end spells it:
//! `flag` maps the library's name (`label`, `exclude`, `bins`, `schema`) to the front end's
//! (`--exclude` on the command line).

use super::{FeatureTable, MAX_NUMERIC_LEVELS};
use crate::data::{Codes, Header, TableLayout, TablePlan, read_table_with_layout};
use crate::error::{Error, Result, Source};
use crate::histogram::{Discretized, Domain, Schema};
use crate::noise::SecureRng;
use std::path::Path;
use std::str::FromStr;

/// One numeric column binned into `bins` equal-width bins over the public range
/// [`min`, `max`] (values outside go to the edge bins), written `COL:MIN:MAX:N`; a column
/// name may contain `:` (the spec is split from the right).
///
/// ```
/// use disguise::task::BinSpec;
/// let b: BinSpec = "age:0:80:8".parse()?;
/// assert_eq!((b.column.as_str(), b.min, b.max, b.bins), ("age", 0.0, 80.0, 8));
/// assert!("age:0:80".parse::<BinSpec>().is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BinSpec {
    /// The column (as the header names it, case-insensitive).
    pub column: String,
    /// The lower bound of the range (public, not taken from the data).
    pub min: f64,
    /// The upper bound of the range (public).
    pub max: f64,
    /// The number of bins.
    pub bins: u32,
}

impl FromStr for BinSpec {
    type Err = Error;

    /// # Errors
    /// [`Error::InvalidParameter`] named `bins` whose reason starts with the spec quoted.
    fn from_str(spec: &str) -> Result<Self> {
        let bad = || {
            Error::param(
                "bins",
                format!(
                    "{spec:?}: expected COL:MIN:MAX:N, e.g. age:0:80:8 (N bins over the public \
                     range [MIN, MAX])"
                ),
            )
        };
        // Split from the right so that a column name may contain ':'.
        let mut parts = spec.rsplitn(4, ':');
        let (Some(n), Some(max), Some(min), Some(column)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let min: f64 = min.trim().parse().map_err(|_| bad())?;
        let max: f64 = max.trim().parse().map_err(|_| bad())?;
        let bins: u32 = n.trim().parse().map_err(|_| bad())?;
        if column.trim().is_empty() {
            return Err(bad());
        }
        Ok(BinSpec {
            column: column.trim().to_string(),
            min,
            max,
            bins,
        })
    }
}

/// The table of a feature selection as read: the features and the label as codes, with the
/// label's name and levels (as the file or the schema's domain gives them).
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledTable {
    /// The label column's name.
    pub label: String,
    /// The label's levels, in code order.
    pub levels: Vec<String>,
    /// The features and the label.
    pub table: FeatureTable,
}

/// `in --exclude: <error>`: an error about a column an option names, with the option.
fn in_option(flag: String, error: Error) -> Error {
    Error::Parse {
        message: format!("in {flag}"),
        source: Some(Source::new(error)),
    }
}

/// The column indices that `exclude` names (blank names skipped), as a mask over `width`
/// columns; `label` may not be one of them.
fn excluded(
    width: usize,
    label: usize,
    exclude: &[String],
    find: impl Fn(&str) -> Result<usize>,
    flag: &dyn Fn(&str) -> String,
) -> Result<Vec<bool>> {
    let mut excluded = vec![false; width];
    for name in exclude.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        let c = find(name).map_err(|e| in_option(flag("exclude"), e))?;
        if c == label {
            return Err(Error::parse(format!(
                "{} {name}: that is the label column",
                flag("exclude")
            )));
        }
        excluded[c] = true;
    }
    Ok(excluded)
}

/// Reads the table of a feature selection from a delimited file without a schema: the
/// `label` column and every column not in `exclude`, the `bins` columns binned while
/// streaming; every other column is categorical (each distinct value a category), and one
/// whose values are all numbers with more than [`MAX_NUMERIC_LEVELS`] distinct values is
/// refused (bin it over public bounds, or exclude it).
///
/// # Errors
/// [`Error::Parse`] for a Parquet file (its columns are read with a schema), a column the
/// options name that the header lacks (`in --exclude: data.csv: no column 'x' …`), the
/// label excluded, a column binned twice, an unbinned numeric column, or no feature left;
/// the reader's errors at their `file:line:column`.
pub fn read_features(
    path: &Path,
    layout: TableLayout,
    label: &str,
    exclude: &[String],
    bins: &[BinSpec],
    flag: &dyn Fn(&str) -> String,
) -> Result<LabelledTable> {
    #[cfg(feature = "parquet")]
    if crate::data::parquet::is_parquet(path) {
        return Err(Error::parse(format!(
            "{}: a Parquet table is read with {} (its columns' public domains)",
            path.display(),
            flag("schema")
        )));
    }
    let mut binned: Vec<String> = Vec::new();
    let table = read_table_with_layout(path, layout, |header: &Header| -> Result<TablePlan> {
        let label = header.find(label)?;
        let mut plan = TablePlan::all(header);
        let find = |name: &str| header.find(name);
        let excluded = excluded(header.names().len(), label, exclude, find, flag)?;
        for c in (0..excluded.len()).filter(|&c| excluded[c]) {
            plan.skip(c);
        }
        for spec in bins {
            let c = header
                .find(&spec.column)
                .map_err(|e| in_option(flag("bins"), e))?;
            let name = header.names()[c].clone();
            if binned.contains(&name) {
                return Err(Error::parse(format!(
                    "{}: column '{}' is binned twice",
                    flag("bins"),
                    spec.column
                )));
            }
            if !excluded[c] {
                plan.bin(c, &name, spec.min, spec.max, spec.bins)?;
            }
            binned.push(name);
        }
        Ok(plan)
    })?;
    let label = table.find(label)?;
    for (c, name) in table.header().iter().enumerate() {
        let column = table.column(c);
        if !binned.contains(name)
            && column.is_numeric()
            && column.levels().len() > MAX_NUMERIC_LEVELS
        {
            return Err(Error::parse(format!(
                "{}: column '{name}' is numeric with {} distinct values (more than \
                 {MAX_NUMERIC_LEVELS}): bin it with {} {name}:MIN:MAX:N using public bounds \
                 (not taken from the data), or {} {name}",
                table.source(),
                column.levels().len(),
                flag("bins"),
                flag("exclude")
            )));
        }
    }
    if table.header().len() < 2 {
        return Err(Error::parse(format!(
            "{}: no feature columns left (all columns are the label or excluded)",
            table.source()
        )));
    }
    let header = table.header().to_vec();
    let mut read = LabelledTable {
        label: header[label].clone(),
        levels: Vec::new(),
        table: FeatureTable {
            names: Vec::new(),
            columns: Vec::new(),
            arities: Vec::new(),
            labels: Codes::new(),
            label_levels: 0,
        },
    };
    // The columns' codes move into the table: no copy.
    for (c, column) in table.into_columns().into_iter().enumerate() {
        if c == label {
            read.levels = column.levels().to_vec();
            read.table.label_levels = column.arity();
            read.table.labels = column.into_codes();
        } else {
            read.table.names.push(header[c].clone());
            read.table.arities.push(column.arity());
            read.table.columns.push(column.into_codes());
        }
    }
    Ok(read)
}

/// The number of candidate features of a delimited file — every column but `label` and the
/// `exclude`d ones — from its header alone (public: no record is read).
///
/// # Errors
/// As [`read_features`] for the header and the columns the options name.
pub fn count_features(
    path: &Path,
    layout: TableLayout,
    label: &str,
    exclude: &[String],
    flag: &dyn Fn(&str) -> String,
) -> Result<usize> {
    let header = crate::data::read_header_with_layout(path, layout)?;
    let label = header.find(label)?;
    let mut excluded = vec![false; header.names().len()];
    for name in exclude.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        let c = header
            .find(name)
            .map_err(|e| in_option(flag("exclude"), e))?;
        excluded[c] = true;
    }
    Ok((0..excluded.len())
        .filter(|&c| c != label && !excluded[c])
        .count())
}

/// A schema's columns as a feature selection uses them: the label's column and the excluded
/// ones. Every worker of a distributed run codes its records with the same public domains.
#[derive(Debug, Clone)]
pub struct SchemaColumns {
    /// The schema.
    pub schema: Schema,
    /// The label's column.
    pub label: usize,
    /// Which columns are excluded.
    pub excluded: Vec<bool>,
}

impl SchemaColumns {
    /// The `label` and `exclude` columns resolved against `schema` (read from `source`, which
    /// the error of a schema without features names).
    ///
    /// # Errors
    /// A column the schema lacks (`in --exclude: …`), the label excluded, or no feature left.
    pub fn new(
        schema: Schema,
        source: &Path,
        label: &str,
        exclude: &[String],
        flag: &dyn Fn(&str) -> String,
    ) -> Result<Self> {
        let label = schema.column_index(label)?;
        let find = |name: &str| schema.column_index(name);
        let excluded = excluded(schema.columns.len(), label, exclude, find, flag)?;
        if (0..excluded.len()).all(|c| c == label || excluded[c]) {
            return Err(Error::parse(format!(
                "{}: no feature columns (all are the label or excluded)",
                source.display()
            )));
        }
        let mut schema = schema;
        for (c, spec) in schema.columns.iter_mut().enumerate() {
            // Read (its values still checked) but never used: no bins to pay for.
            if excluded[c]
                && spec.kind == crate::histogram::ColumnType::Numeric
                && spec.bins.is_none()
                && spec.edges.is_none()
            {
                spec.bins = Some(1);
            }
        }
        Ok(Self {
            // A column without bins is never made constant by the bandwidth rule.
            schema: Schema {
                min_bins: schema.min_bins.max(2),
                ..schema
            },
            label,
            excluded,
        })
    }

    /// The number of candidate features.
    pub fn features(&self) -> usize {
        (0..self.excluded.len())
            .filter(|&c| c != self.label && !self.excluded[c])
            .count()
    }

    /// The feature table of a table coded with the schema's domains: every column but the
    /// label and the excluded ones.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`schema`) for a column with more categories than a code
    /// holds.
    pub fn table(&self, data: &Discretized) -> Result<FeatureTable> {
        let arity = |c: usize| -> Result<u32> {
            let size = data.domains()[c].size();
            u32::try_from(size).map_err(|_| {
                Error::param(
                    "schema",
                    format!("column '{}': {size} categories", data.names()[c]),
                )
            })
        };
        let mut table = FeatureTable {
            names: Vec::new(),
            columns: Vec::new(),
            arities: Vec::new(),
            labels: data.codes(self.label).clone(),
            label_levels: arity(self.label)?,
        };
        for c in (0..data.width()).filter(|&c| c != self.label && !self.excluded[c]) {
            table.names.push(data.names()[c].clone());
            table.columns.push(data.codes(c).clone());
            table.arities.push(arity(c)?);
        }
        Ok(table)
    }

    /// How many numeric columns get private bin edges: the candidate features (and a numeric
    /// label) that have neither `bins` nor `edges` (an excluded column is read as one bin,
    /// at no cost). A function of the schema and the options alone.
    pub fn edge_columns(&self) -> usize {
        crate::histogram::EdgePlan::count(&self.schema)
    }

    /// Reads the table from the files of `data` (a file, or a folder or pattern of parts),
    /// coded straight with the schema's public domains (numeric columns binned over their
    /// bounds), with the numeric values clamped into the edge bins, per column (a diagnostic
    /// on the data, NOT private), and the private edges of `plan`'s columns drawn once the
    /// records are read ([`EdgePlan::read`](crate::histogram::EdgePlan::read)) with the
    /// generator `key` makes.
    ///
    /// # Errors
    /// The reader's, at their `file:line:column`; `key`'s.
    fn read(
        &self,
        data: &Path,
        plan: &crate::histogram::EdgePlan,
        key: impl FnOnce() -> Result<SecureRng>,
    ) -> Result<FeatureRead> {
        let files = crate::data::Parts::resolve(data)?;
        let paths: Vec<&Path> = files.files().iter().map(|p| p.as_path()).collect();
        let (read, edges, _) = plan.read(&paths, &self.schema, key)?;
        let data = read.data;
        let table = LabelledTable {
            label: data.names()[self.label].clone(),
            levels: levels(&data.domains()[self.label]),
            table: self.table(&data)?,
        };
        Ok(FeatureRead {
            table,
            clamped: read.clipped,
            edges,
        })
    }

    /// The label's name and levels as the schema's domains of `records` records decode them
    /// (a distributed run's process 0, which holds no table).
    ///
    /// # Errors
    /// As [`Discretized::domains_of`].
    #[cfg(feature = "cluster")]
    pub fn label_levels(&self, records: u64) -> Result<(String, Vec<String>)> {
        let domains = Discretized::domains_of(&self.schema, records)?;
        let name = self.schema.names()[self.label].clone();
        Ok((name, levels(&domains[self.label])))
    }
}

/// Where a feature selection's table comes from, resolved before any record is read: a
/// schema's public domains (its `target` the default label), or a delimited file's header
/// with the label named, columns excluded and numeric columns binned over public bounds
/// ([`BinSpec`]). Counting the candidate features and the columns that get private edges
/// reads no record (they are public); [`FeatureSource::read`] reads the records.
///
/// ```
/// use disguise::task::{FeatureSource, Features};
/// # let dir = std::env::temp_dir().join(format!("disguise-source-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// # let data = dir.join("t.csv");
/// std::fs::write(&data, "id,colour,y\n1,red,a\n2,blue,b\n3,red,a\n")?;
/// fn flag(name: &str) -> String {
///     format!("--{name}")
/// }
/// let exclude = ["id".to_string()];
/// let source = FeatureSource::file(&data, Default::default(), Some("y"), &exclude, &[], flag)?;
/// assert_eq!(source.features()?, 1);
/// let read = source.read(&Features::new(1), None)?;
/// assert_eq!(read.table.levels, ["a", "b"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct FeatureSource {
    data: std::path::PathBuf,
    kind: SourceKind,
}

#[derive(Debug, Clone)]
enum SourceKind {
    Schema(SchemaColumns),
    File {
        layout: TableLayout,
        label: String,
        exclude: Vec<String>,
        bins: Vec<BinSpec>,
        flag: fn(&str) -> String,
    },
}

/// What [`FeatureSource::read`] reads: the table, the values clamped into their bounds per
/// column (a diagnostic on the data, NOT private) and the private edges released.
#[derive(Debug)]
pub struct FeatureRead {
    /// The features and the label, with the label's name and levels.
    pub table: LabelledTable,
    /// How many values of each numeric column fell outside its bounds (a diagnostic).
    pub clamped: Vec<(String, u64)>,
    /// The private edges the numeric columns without public bins were cut at.
    pub edges: Option<crate::histogram::EdgeRelease>,
}

/// Mixed into a seeded run's seed for the generator of its private edges (the picks' is
/// keyed from the seed itself).
const EDGES_SEED: u64 = 0x6564_6765_735f_7267;

impl FeatureSource {
    /// The table of `data` (a file, or a folder or pattern of parts) coded with the schema
    /// read from `schema`: the label is `label`, or the schema's `target`; `exclude` names
    /// columns that are not features.
    ///
    /// # Errors
    /// The schema's reader's; as [`Schema::target_or`]; a column the schema lacks (`in
    /// --exclude: …`), the label excluded, or no feature left.
    pub fn schema(
        data: &Path,
        schema: &Path,
        label: Option<&str>,
        exclude: &[String],
        flag: fn(&str) -> String,
    ) -> Result<Self> {
        let parsed = Schema::from_path(schema)?;
        let label = parsed.target_or(label, "label", &flag)?;
        let columns = SchemaColumns::new(parsed, schema, &label, exclude, &flag)?;
        Ok(Self {
            data: data.to_path_buf(),
            kind: SourceKind::Schema(columns),
        })
    }

    /// The table of the delimited file `data` without a schema: the `label` column and every
    /// column not in `exclude`, the `bins` columns binned while streaming. Every other column
    /// is categorical; one whose values are all numbers with more than
    /// [`MAX_NUMERIC_LEVELS`] distinct values is refused when the file is read (bin it over
    /// public bounds, or exclude it), as is a Parquet file (its columns are read with a
    /// schema). `flag` names the options in messages, here and when the file is read.
    ///
    /// # Errors
    /// [`Error::Parse`] without a label.
    pub fn file(
        data: &Path,
        layout: TableLayout,
        label: Option<&str>,
        exclude: &[String],
        bins: &[BinSpec],
        flag: fn(&str) -> String,
    ) -> Result<Self> {
        let Some(label) = label else {
            return Err(Error::parse(format!(
                "{} is required (the label column), or a {} with a `target`",
                flag("label"),
                flag("schema")
            )));
        };
        Ok(Self {
            data: data.to_path_buf(),
            kind: SourceKind::File {
                layout,
                label: label.to_string(),
                exclude: exclude.to_vec(),
                bins: bins.to_vec(),
                flag,
            },
        })
    }

    /// The schema, for a source read with one.
    pub fn schema_of(&self) -> Option<&Schema> {
        match &self.kind {
            SourceKind::Schema(columns) => Some(&columns.schema),
            SourceKind::File { .. } => None,
        }
    }

    /// Whether the label's levels are public (a schema's), so that the a-priori bound may
    /// use how many there are.
    pub fn public_levels(&self) -> bool {
        self.schema_of().is_some()
    }

    /// How many numeric columns get private bin edges (a schema's columns with neither
    /// `bins` nor `edges`; none for a file read without a schema): what
    /// [`Features::edge_columns`](super::Features::edge_columns) must say.
    pub fn edge_columns(&self) -> usize {
        match &self.kind {
            SourceKind::Schema(columns) => columns.edge_columns(),
            SourceKind::File { .. } => 0,
        }
    }

    /// The number of candidate features, from the schema or the file's header (public: no
    /// record is read).
    ///
    /// # Errors
    /// The header's reader's; a column the options name that it lacks.
    pub fn features(&self) -> Result<usize> {
        match &self.kind {
            SourceKind::Schema(columns) => Ok(columns.features()),
            SourceKind::File {
                layout,
                label,
                exclude,
                flag,
                ..
            } => count_features(&self.data, *layout, label, exclude, &flag),
        }
    }

    /// Reads the records: with a schema coded with its public domains (the values clamped
    /// into their bounds, counted per column: a diagnostic), its numeric columns without
    /// `bins` or `edges` cut at private edges at `request`'s share of ε, drawn once the
    /// records are read from the OS's generator — or, for a run seeded with `seed`
    /// (INSECURE, for tests), from a generator of their own derived from it; else the label
    /// and every column not excluded, the binned columns binned while streaming.
    ///
    /// # Errors
    /// As [`Features::edges`](super::Features::edges) and the readers', at their
    /// `file:line:column`; the OS generator's.
    pub fn read(&self, request: &super::Features, seed: Option<u64>) -> Result<FeatureRead> {
        match &self.kind {
            SourceKind::Schema(columns) => {
                let plan = request.edges(&columns.schema)?;
                let key = || match seed {
                    Some(seed) => Ok(SecureRng::insecure_from_seed(seed ^ EDGES_SEED)),
                    None => SecureRng::from_os(),
                };
                columns.read(&self.data, &plan, key)
            }
            SourceKind::File {
                layout,
                label,
                exclude,
                bins,
                flag,
            } => Ok(FeatureRead {
                table: read_features(&self.data, *layout, label, exclude, bins, &flag)?,
                clamped: Vec::new(),
                edges: None,
            }),
        }
    }

    /// [`Features::prepare_distributed`](super::Features::prepare_distributed) of this
    /// source's records spread over `cluster`, each worker reading its share of the parts
    /// with the schema's public domains: in process 0 the prepared model with the label's
    /// name and levels, `None` elsewhere.
    ///
    /// # Errors
    /// [`Error::Parse`] without a schema (every worker must code its records with the same
    /// public domains); as `prepare_distributed`.
    #[cfg(feature = "cluster")]
    pub fn prepare_distributed(
        &self,
        request: &super::Features,
        cluster: &crate::cluster::Cluster,
    ) -> Result<Option<(super::PreparedFeatures, String, Vec<String>)>> {
        let columns = match &self.kind {
            SourceKind::Schema(columns) => columns,
            SourceKind::File { flag, .. } => {
                return Err(Error::parse(format!(
                    "a distributed run needs {}: every worker must code its records with the \
                     same public domains (categories and bounds)",
                    flag("schema")
                )));
            }
        };
        let files = crate::data::Parts::resolve(&self.data)?.files().to_vec();
        let shared = columns.clone();
        let load = move |comm: &mut crate::cluster::Comm<'_>| {
            let data = crate::cluster::read_share(comm, &files, &shared.schema)?;
            shared.table(&data)
        };
        let Some(prepared) = request.prepare_distributed(cluster, load)? else {
            return Ok(None);
        };
        let (name, levels) = columns.label_levels(prepared.records() as u64)?;
        Ok(Some((prepared, name, levels)))
    }
}

/// A domain's values, in code order.
fn levels(domain: &Domain) -> Vec<String> {
    (0..domain.size())
        .map(|v| domain.decode(v as u32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flag(name: &str) -> String {
        format!("--{name}")
    }

    fn file(name: &str, text: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("disguise-features-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn layout() -> TableLayout {
        TableLayout {
            delimiter: b',',
            has_header: true,
        }
    }

    #[test]
    fn bin_specs() {
        let b: BinSpec = "a:b:-1.5:2e1:3".parse().unwrap();
        assert_eq!(
            (b.column.as_str(), b.min, b.max, b.bins),
            ("a:b", -1.5, 20.0, 3)
        );
        for bad in [
            "age",
            "age:0:80",
            ":0:1:2",
            "age:x:1:2",
            "age:0:1:-2",
            "age:0:1:2.5",
        ] {
            let e = bad.parse::<BinSpec>().unwrap_err();
            assert!(
                matches!(&e, Error::InvalidParameter { name: "bins", reason } if reason.starts_with(&format!("{bad:?}: expected COL:MIN:MAX:N"))),
                "{e}"
            );
        }
    }

    #[test]
    fn a_table_is_split_into_features_and_label() {
        let path = file(
            "ok.csv",
            "id,age,colour,y\n1,30,red,a\n2,71,blue,b\n3,45,red,a\n",
        );
        let bins: [BinSpec; 1] = ["age:0:80:2".parse().unwrap()];
        let read = read_features(&path, layout(), "Y", &["id".into()], &bins, &flag).unwrap();
        assert_eq!(read.label, "y");
        assert_eq!(read.levels, ["a", "b"]);
        assert_eq!(read.table.names, ["age", "colour"]);
        assert_eq!(read.table.arities, [2, 2]);
        let count = count_features(&path, layout(), "y", &[" id ".into(), "".into()], &flag);
        assert_eq!(count.unwrap(), 2);
    }

    #[test]
    fn errors_name_the_option_and_the_place() {
        let path = file("bad.csv", "x,y\n1,a\n2,b\nthree,a\n");
        let bins: [BinSpec; 1] = ["x:0:10:2".parse().unwrap()];
        let e = read_features(&path, layout(), "y", &[], &bins, &flag).unwrap_err();
        let shown = path.display().to_string();
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("{shown}:4:1: column 'x'")),
            "{text}"
        );
        let e = read_features(&path, layout(), "y", &["nope".into()], &[], &flag).unwrap_err();
        assert_eq!(e.to_string(), "in --exclude");
        let cause = std::error::Error::source(&e).unwrap().to_string();
        assert!(cause.contains("no column 'nope'"), "{cause}");
        let e = read_features(&path, layout(), "y", &["Y".into()], &[], &flag).unwrap_err();
        assert_eq!(e.to_string(), "--exclude Y: that is the label column");
        let twice: Vec<BinSpec> = vec!["x:0:1:2".parse().unwrap(), "X:0:1:2".parse().unwrap()];
        let e = read_features(&path, layout(), "y", &[], &twice, &flag).unwrap_err();
        assert_eq!(e.to_string(), "--bins: column 'X' is binned twice");
    }

    #[test]
    fn a_source_takes_a_schemas_target_or_a_named_label() {
        let data = file("s.csv", "age,colour,y\n30,red,a\n71,blue,b\n45,red,a\n");
        let schema = file(
            "s.toml",
            "target = \"y\"\n\
             [[columns]]\nname = \"age\"\ntype = \"numeric\"\nbounds = [0, 80]\nbins = 2\n\
             [[columns]]\nname = \"colour\"\ntype = \"categorical\"\nlevels = [\"red\", \"blue\"]\n\
             [[columns]]\nname = \"y\"\ntype = \"categorical\"\nlevels = [\"a\", \"b\"]\n",
        );
        let source = FeatureSource::schema(&data, &schema, None, &[], flag).unwrap();
        assert!(source.public_levels());
        assert_eq!((source.features().unwrap(), source.edge_columns()), (2, 0));
        let read = source
            .read(&super::super::Features::new(1), Some(1))
            .unwrap();
        assert_eq!(
            (read.table.label.as_str(), read.table.levels.len()),
            ("y", 2)
        );
        assert_eq!(read.table.table.names, ["age", "colour"]);
        // The label may be named instead of the target, and a column excluded.
        let named = FeatureSource::schema(&data, &schema, Some("colour"), &["age".into()], flag);
        assert_eq!(named.unwrap().features().unwrap(), 1);
        // Without a schema the label must be named, and the message names both options.
        let e = FeatureSource::file(&data, layout(), None, &[], &[], flag).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--label is required (the label column), or a --schema with a `target`"
        );
        let source = FeatureSource::file(&data, layout(), Some("y"), &[], &[], flag).unwrap();
        assert!(!source.public_levels());
        assert_eq!((source.features().unwrap(), source.edge_columns()), (2, 0));
    }

    #[test]
    fn an_unbinned_measurement_is_refused() {
        let rows: String = (0..40).map(|i| format!("{i},{}\n", i % 2)).collect();
        let path = file("wide.csv", &format!("m,y\n{rows}"));
        let e = read_features(&path, layout(), "y", &[], &[], &flag).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("column 'm' is numeric with 40 distinct values"),
            "{text}"
        );
        assert!(text.contains("--bins m:MIN:MAX:N"), "{text}");
        let e = read_features(&path, layout(), "y", &["m".into()], &[], &flag).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("no feature columns left (all columns are the label or excluded)"),
            "{e}"
        );
    }
}
