//! Discretization (Vinterbo 2012, Section 2.1.1): numeric columns scaled into [0, 1] with
//! their public bounds and cut into ⌈1/bw(n, d − 1) − 0.5⌉ equal bins, with Lei's (2011)
//! bandwidth bw(n, d) = (log(n)/n)^(1/(d+1)); reversed by bin midpoints.

use super::bins::format_number;
pub use super::bins::{Bins, Values};
use super::schema::{ColumnType, DomainSource, Schema};
use super::table::{
    ColumnValues, SchemaReader, Table, Value, check_complete, data_bounds, sorted_levels,
};
use crate::data::Codes;
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

/// Lei's discretization bandwidth bw(n, d) = (ln(n)/n)^(1/(d+1)) (Vinterbo 2012, Section
/// 2.1.1, natural logarithm), for n ≥ 2 records in d dimensions.
///
/// ```
/// use disguise::histogram::bandwidth;
/// // (ln 100 / 100)^(1/3)
/// let bw = bandwidth(100, 2)?;
/// assert!((bw - (100f64.ln() / 100.0).powf(1.0 / 3.0)).abs() < 1e-15);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for n < 2 (ln 1 = 0 gives a zero bandwidth).
pub fn bandwidth(n: u64, d: usize) -> Result<f64> {
    if n < 2 {
        return Err(Error::param(
            "n",
            format!("the bandwidth needs at least 2 records, got {n}"),
        ));
    }
    let n = n as f64;
    Ok((n.ln() / n).powf(1.0 / (d as f64 + 1.0)))
}

/// The number of bins of a numeric predictor: ⌈1/bw(n, d − 1) − 0.5⌉ for n records with
/// d − 1 = `predictors` predictor columns (Vinterbo 2012, Section 2.1.1), exactly.
///
/// The formula gives **one bin** when there are many predictors for few records (Landsat:
/// n = 6435, d − 1 = 36 gives ⌈1.195 − 0.5⌉ = 1): the column is then constant, carries no
/// information, and the projection never considers it (the paper asks |Vᵢ| ≥ 2 of every
/// attribute it works with, Section 2; a one-bin column is dropped from the candidates, a
/// decision on public quantities only). A schema's `bins = N` overrides the formula for a
/// column; a release counts the predictors it keeps instead of all d − 1
/// ([`BinRule::Released`], [`default_bins`]).
///
/// ```
/// use disguise::histogram::bin_count;
/// // Adult: n = 32561, 14 predictors: 1/bw = 1.74 → ⌈1.24⌉ = 2 bins.
/// assert_eq!(bin_count(32561, 14)?, 2);
/// // Iris with one predictor: (ln 150/150)^(1/2) = 0.183 → ⌈5.47 − 0.5⌉ = 5.
/// assert_eq!(bin_count(150, 1)?, 5);
/// // Landsat: 36 predictors for 6435 records → one bin.
/// assert_eq!(bin_count(6435, 36)?, 1);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// As [`bandwidth`].
pub fn bin_count(n: u64, predictors: usize) -> Result<usize> {
    let bw = bandwidth(n, predictors)?;
    // bw ≤ 1 (ln n < n), so 1/bw − 0.5 ≥ 0.5 and there is at least one bin; 1/bw ≤ n/ln n,
    // so the cast cannot overflow for any u64 n.
    let bins = (1.0 / bw - 0.5).ceil();
    Ok((bins as usize).max(1))
}

/// How many predictors the bandwidth rule counts when a numeric column's schema gives no
/// `bins` ([`bin_count`]). Public either way: n, the schema and the paper's simulation only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BinRule {
    /// The paper's: all d − 1 predictors (Vinterbo 2012, Section 2.1.1). The experiments
    /// reproduce the paper with it, and it is the rule wherever no release is being made
    /// (the target unknown).
    #[default]
    Paper,
    /// **Beyond the paper, the default of a release**: the predictors a release is expected
    /// to keep: a given k, else k̂ = the k the paper's simulation (MDA at σ = 0.1 on a
    /// simulated table of the same n, predictors and classes, cut by the paper's rule) gives,
    /// so the columns
    /// released are cut for a (k̂ + 1)-dimensional histogram, not for all d: on Adult
    /// (n = 48,842, 14 predictors, k̂ = 4) 5 bins instead of 2. Needs the schema's target
    /// (categorical); without it, the paper's rule.
    Released,
    /// **Whole-table synthetic data** ([`crate::synth`]): cut for 2-way marginals measured
    /// with noise. A 2-way table of two numeric columns cut into b bins has b² cells, each
    /// expecting n/b² records; b is the largest count whose cells still expect at least one
    /// noise standard deviation s of records, b = ⌊√(n/s)⌋, at least 2 and at most Lei's
    /// 2-dimensional rule ([`bin_count`]`(n, 1)`). s (the schema's `marginal_noise_sd`) is
    /// public: it follows from ε, δ and the number of columns. Set by the synthesizer, not
    /// named by users.
    Marginals,
}

impl crate::names::Named for BinRule {
    const KIND: &'static str = "bin rule";
    const ALL: &'static [Self] = &[BinRule::Released, BinRule::Paper];

    fn name(self) -> &'static str {
        match self {
            BinRule::Released => "released",
            BinRule::Paper => "paper",
            BinRule::Marginals => "marginals",
        }
    }

    fn help(self) -> &'static str {
        match self {
            BinRule::Released => {
                "the bandwidth rule for the k̂ predictors a release is expected to keep \
                 (default)"
            }
            BinRule::Paper => "the bandwidth rule for all d − 1 predictors, Vinterbo's",
            BinRule::Marginals => {
                "cells of a noisy 2-way marginal expect at least one noise standard deviation \
                 of records (synthetic data)"
            }
        }
    }
}

crate::names::named_traits!(BinRule);

/// The bins of a numeric predictor without a schema `bins` under `schema`'s
/// [`BinRule`], for n records: [`bin_count`] for the d − 1 predictors (the paper's), or for
/// the k̂ a release is expected to keep ([`BinRule::Released`]).
///
/// # Errors
/// As [`bin_count`] and [`simulate_k_with`](super::simulate_k_with).
pub fn default_bins(schema: &Schema, n: u64) -> Result<usize> {
    Ok(rule_bins(schema, n)?.max(schema.min_bins))
}

/// The number of bins a numeric column's schema fixes (`bins`, or the bins its `edges`
/// make), if it does.
pub(crate) fn fixed_bins(c: &super::schema::ColumnSpec) -> Option<usize> {
    match (&c.edges, c.bounds) {
        (Some(edges), Some([lo, hi])) => Bins::from_edges(lo, hi, edges).ok().map(|b| b.count()),
        _ => c.bins,
    }
}

/// [`default_bins`] before the schema's floor.
fn rule_bins(schema: &Schema, n: u64) -> Result<usize> {
    let predictors = schema.columns.len().saturating_sub(1);
    let paper = bin_count(n, predictors)?;
    if schema.bin_rule == BinRule::Paper {
        return Ok(paper);
    }
    if schema.bin_rule == BinRule::Marginals {
        let lei = bin_count(n, 1)?;
        let sd = schema.marginal_noise_sd.unwrap_or(1.0).max(1.0);
        let fit = ((n as f64) / sd).sqrt().floor();
        // fit ≤ √n, so the cast cannot overflow.
        return Ok((fit as usize).clamp(2, lei.max(2)));
    }
    if let Some(k) = schema.kept_predictors {
        return bin_count(n, k.clamp(1, predictors.max(1)));
    }
    let target = schema.target.as_deref().and_then(|t| {
        schema
            .columns
            .iter()
            .position(|c| c.name.trim() == t.trim())
    });
    let Some(target) = target else {
        return Ok(paper);
    };
    let size = |c: &super::schema::ColumnSpec, bins: usize| {
        let base = match c.kind {
            ColumnType::Categorical => c.levels.as_ref().map_or(0, Vec::len),
            ColumnType::Numeric => fixed_bins(c).unwrap_or(bins),
        };
        base + usize::from(c.nullable && schema.missing.is_some())
    };
    let target_spec = &schema.columns[target];
    if target_spec.kind != ColumnType::Categorical {
        return Ok(paper);
    }
    let q = size(target_spec, paper);
    // The predictors that carry information under the paper's cut, as the release counts
    // them (a one-bin column is dropped).
    let informative = schema
        .columns
        .iter()
        .enumerate()
        .filter(|&(i, c)| i != target && size(c, paper) >= 2)
        .count();
    if informative == 0 || q < 2 {
        return Ok(paper);
    }
    let k = super::simulate_k_with(
        n,
        informative,
        q,
        paper,
        super::DEFAULT_SIGMA,
        super::DEFAULT_SEED,
    )?;
    bin_count(n, k)
}

/// The finite domain Vᵢ of one column after discretization.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Domain {
    /// Levels (codes 0..levels.len()), plus the missing marker as the last code if present.
    Categorical {
        /// The levels.
        levels: Vec<String>,
        /// The missing marker, when the column is nullable.
        missing: Option<String>,
    },
    /// Bins (codes 0..bins.count()), plus the missing marker as the last code if present.
    Numeric {
        /// The bins.
        bins: Bins,
        /// The missing marker, when the column is nullable.
        missing: Option<String>,
    },
}

impl Domain {
    /// |Vᵢ|: the number of codes.
    pub fn size(&self) -> u64 {
        let (base, missing) = match self {
            Domain::Categorical { levels, missing } => (levels.len(), missing),
            Domain::Numeric { bins, missing } => (bins.count(), missing),
        };
        base as u64 + u64::from(missing.is_some())
    }

    /// The value a code stands for in a release: the level, the bin midpoint, or the missing
    /// marker.
    pub fn decode(&self, code: u32) -> String {
        let code = code as usize;
        match self {
            Domain::Categorical { levels, missing } => match levels.get(code) {
                Some(l) => l.clone(),
                None => missing.clone().unwrap_or_default(),
            },
            Domain::Numeric { bins, missing } => {
                if code < bins.count() {
                    if bins.is_integer() {
                        format!("{}", bins.midpoint(code) as i64)
                    } else {
                        format_number(bins.midpoint(code))
                    }
                } else {
                    missing.clone().unwrap_or_default()
                }
            }
        }
    }

    /// Writes the value code stands for into `out`: as [`Domain::decode`], except that a
    /// numeric bin is written as `values` says ([`Bins::write`]: drawn uniformly inside the
    /// bin from `rng`, or its midpoint).
    pub fn write(&self, code: u32, values: Values, rng: &mut SecureRng, out: &mut String) {
        match self {
            Domain::Numeric { bins, .. } if (code as usize) < bins.count() => {
                bins.write(code as usize, values, rng, out);
            }
            _ => {
                out.clear();
                out.push_str(&self.decode(code));
            }
        }
    }
}

/// How a numeric column's values were written: a public choice (the release's
/// [`Values`] and the schema's `integer`), as a report states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Written {
    /// Drawn uniformly inside the bin, or the bin's midpoint.
    pub values: Values,
    /// Whether the values are integers.
    pub integer: bool,
}

impl std::fmt::Display for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match (self.values, self.integer) {
            (Values::Uniform, false) => "uniform within bins",
            (Values::Uniform, true) => "uniform integers within bins",
            (Values::Midpoint, false) => "bin midpoints",
            (Values::Midpoint, true) => "bin midpoints (integers)",
        };
        f.write_str(how)
    }
}

/// How each numeric column among `names` with `domains` is written under `values`.
pub fn written_values(
    names: &[String],
    domains: &[Domain],
    values: Values,
) -> std::collections::BTreeMap<String, Written> {
    names
        .iter()
        .zip(domains)
        .filter_map(|(name, d)| match d {
            Domain::Numeric { bins, .. } => Some((
                name.clone(),
                Written {
                    values,
                    integer: bins.is_integer(),
                },
            )),
            Domain::Categorical { .. } => None,
        })
        .collect()
}

/// A table discretized into codes: column c of row r is `codes(c).get(r) <
/// domains()[c].size()`.
///
/// Each column is held as compact [`Codes`] (one byte per row for up to 256 codes) behind an
/// [`Arc`], so that objectives built on the table ([`discernibility_for`](
/// super::discernibility_for)) share the columns rather than copy them.
#[derive(Debug, Clone, PartialEq)]
pub struct Discretized {
    names: Vec<String>,
    domains: Vec<Domain>,
    codes: Vec<Arc<Codes>>,
    rows: usize,
    private: bool,
}

/// A data file read straight into codes by [`Discretized::read`].
#[derive(Debug, Clone, PartialEq)]
pub struct DiscretizedFile {
    /// The discretized table.
    pub data: Discretized,
    /// The schema resolved with every domain (as [`Table::schema`]), e.g. to read other data
    /// the same way.
    pub schema: Schema,
    /// The columns whose domain was taken from the data (as [`Table::inferred_columns`]):
    /// non-empty means nothing built from the table is private.
    pub inferred: Vec<String>,
    /// The numeric columns with values outside their bounds, and how many of their values
    /// were clamped into the edge bins. A diagnostic computed on the data: NOT private.
    pub clipped: Vec<(String, u64)>,
}

impl Discretized {
    /// Discretizes `table` with the paper's rule: every numeric column without a schema
    /// `bins` gets [`bin_count`]`(n, d − 1)` bins over its public bounds, where n is the number
    /// of rows and d the number of columns (the predictors and the target).
    ///
    /// n is treated as public (Vinterbo 2012, Section 2.1: "we do not consider the size of D
    /// private"), so the bin counts are too.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for fewer than 2 rows, or a domain larger than 2^32 − 1
    /// codes.
    pub fn new(table: &Table) -> Result<Self> {
        let domains = domains_for(table, table.rows() as u64)?;
        Self::with_domains(table, domains)
    }

    /// Discretizes `table` with given domains (e.g. those of the private table, to discretize
    /// a public table the same way).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if the number or kinds of columns do not match, or a
    /// categorical value has no code in the domain.
    pub fn with_domains(table: &Table, domains: Vec<Domain>) -> Result<Self> {
        if domains.len() != table.width() {
            return Err(Error::param(
                "domains",
                format!(
                    "{} domains for a table of {} columns",
                    domains.len(),
                    table.width()
                ),
            ));
        }
        let names = table.schema().names();
        let mut codes = Vec::with_capacity(domains.len());
        for (c, domain) in domains.iter().enumerate() {
            let column: Codes = match (table.column(c), domain) {
                (ColumnValues::Numeric(values), Domain::Numeric { bins, missing }) => {
                    let missing_code = bins.count() as u32;
                    if missing.is_none() && values.iter().any(|v| v.is_nan()) {
                        return Err(Error::param(
                            "domains",
                            format!(
                                "column '{}' has missing values but its domain has no code for them",
                                names[c]
                            ),
                        ));
                    }
                    let mut column = Codes::for_arity(domain.size(), values.len());
                    for &v in values {
                        column.push(if v.is_nan() {
                            missing_code
                        } else {
                            bins.index(v) as u32
                        });
                    }
                    column
                }
                (ColumnValues::Categorical(values), Domain::Categorical { .. }) => {
                    let size = domain.size();
                    if let Some(bad) = values.max().filter(|&v| u64::from(v) >= size) {
                        return Err(Error::param(
                            "domains",
                            format!(
                                "column '{}': code {bad} outside its domain of {size} values",
                                names[c]
                            ),
                        ));
                    }
                    values.clone()
                }
                _ => {
                    return Err(Error::param(
                        "domains",
                        format!(
                            "column '{}': the domain's type differs from the column's",
                            names[c]
                        ),
                    ));
                }
            };
            codes.push(Arc::new(column));
        }
        Ok(Self {
            names,
            domains,
            codes,
            rows: table.rows(),
            private: table.is_private(),
        })
    }

    /// Reads data files with `schema` straight into codes, streaming: the result equals
    /// [`Table::read`] followed by [`Discretized::new`], without the table in memory (no
    /// `f64` per numeric cell — each value is binned as it is read — and one byte per cell
    /// for domains of up to 256 codes).
    ///
    /// The numbers of bins of the paper's rule depend on the number of rows n, and domains
    /// taken from the data ([`DomainSource::Data`]) on every row: when the schema leaves
    /// either open, the files are read twice, first to count the rows and collect the
    /// domains, then to encode. (Hence the paths must be files, not pipes.)
    ///
    /// ```
    /// use disguise::histogram::{Discretized, DomainSource, Schema, Table};
    /// # let dir = std::env::temp_dir().join("disguise-doc-discretized-read");
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("d.csv");
    /// std::fs::write(&path, "x,junk,y\n0.1,?,a\n0.9,?,b\n0.5,?,a\n").unwrap();
    /// let schema = Schema::from_toml_str(r#"
    ///     [[columns]]
    ///     name = "x"
    ///     type = "numeric"
    ///     bounds = [0, 1]
    ///     [[columns]]
    ///     name = "y"
    ///     type = "categorical"
    ///     levels = ["a", "b"]
    /// "#, "s.toml")?;
    /// let read = Discretized::read(&[&path], &schema, DomainSource::Schema)?;
    /// let table = Table::read(&[&path], &schema, DomainSource::Schema)?;
    /// assert_eq!(read.data, Discretized::new(&table)?);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Table::read`] and [`Discretized::new`]; [`Error::Io`] if a file changes between
    /// the two readings.
    pub fn read(paths: &[&Path], schema: &Schema, source: DomainSource) -> Result<DiscretizedFile> {
        schema.validate()?;
        check_complete(schema, source)?;
        let missing = schema.incomplete_columns();
        let reader = SchemaReader::new(schema);
        let needs_rows = schema
            .columns
            .iter()
            .any(|c| c.kind == ColumnType::Numeric && c.bins.is_none() && c.edges.is_none());
        let mut resolved = schema.clone();
        let mut inferred = Vec::new();
        let mut rows = None;
        if needs_rows || !missing.is_empty() {
            // First reading: count the rows, and collect what the data must say.
            let width = schema.columns.len();
            let mut lo = vec![f64::INFINITY; width];
            let mut hi = vec![f64::NEG_INFINITY; width];
            let mut seen: Vec<BTreeSet<String>> = vec![BTreeSet::new(); width];
            let mut n = 0usize;
            for path in paths {
                reader.scan(path, |_, c, value| {
                    match value {
                        Value::Number(x) => {
                            lo[c] = lo[c].min(x);
                            hi[c] = hi[c].max(x);
                        }
                        Value::Text(raw) if !seen[c].contains(raw) => {
                            seen[c].insert(raw.to_string());
                        }
                        _ => {}
                    }
                    n += usize::from(c == 0);
                    Ok(())
                })?;
            }
            for (c, spec) in resolved.columns.iter_mut().enumerate() {
                let name = spec.name.trim().to_string();
                match spec.kind {
                    ColumnType::Numeric if spec.bounds.is_none() => {
                        spec.bounds = Some(data_bounds(lo[c], hi[c]));
                        inferred.push(name);
                    }
                    ColumnType::Categorical if spec.levels.is_none() => {
                        spec.levels = Some(sorted_levels(&name, seen[c].iter())?);
                        inferred.push(name);
                    }
                    _ => {}
                }
            }
            rows = Some(n);
        }
        // The codes of inferred levels (listed ones come from the reader).
        let rank: Vec<Option<HashMap<String, u32>>> = schema
            .columns
            .iter()
            .zip(&resolved.columns)
            .map(|(given, spec)| {
                (given.kind == ColumnType::Categorical && given.levels.is_none()).then(|| {
                    let levels = spec.levels.as_deref().unwrap_or_default();
                    levels
                        .iter()
                        .enumerate()
                        .map(|(i, l)| (l.clone(), i as u32))
                        .collect()
                })
            })
            .collect();
        let domains = domains_for_schema(&resolved, rows.unwrap_or(0) as u64, rows.is_some())?;
        let (data, clipped) = encode_files(paths, &reader, &resolved, domains, &rank, rows, None)?;
        let clipped = resolved
            .names()
            .into_iter()
            .zip(clipped)
            .filter(|&(_, k)| k > 0)
            .collect();
        let data = Discretized {
            private: inferred.is_empty(),
            ..data
        };
        Ok(DiscretizedFile {
            data,
            schema: resolved,
            inferred,
            clipped,
        })
    }

    /// Reads data files with a complete `schema` straight into codes of the given domains
    /// (e.g. a public dataset discretized like the private one): the result equals
    /// [`Table::read`] with [`DomainSource::Schema`] followed by
    /// [`Discretized::with_domains`]. One streaming pass.
    ///
    /// # Errors
    /// As [`Table::read`] and [`Discretized::with_domains`].
    pub fn read_with_domains(
        paths: &[&Path],
        schema: &Schema,
        domains: Vec<Domain>,
    ) -> Result<Self> {
        schema.validate()?;
        check_complete(schema, DomainSource::Schema)?;
        if domains.len() != schema.columns.len() {
            return Err(Error::param(
                "domains",
                format!(
                    "{} domains for a table of {} columns",
                    domains.len(),
                    schema.columns.len()
                ),
            ));
        }
        let reader = SchemaReader::new(schema);
        let rank = vec![None; schema.columns.len()];
        Ok(encode_files(paths, &reader, schema, domains, &rank, None, None)?.0)
    }

    /// Builds a discretized table directly from codes (column-major), e.g. simulated data.
    /// The domains are taken to be public: the result claims [`Discretized::is_private`], so
    /// they must not have been derived from private records.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for mismatched lengths or a code outside its domain.
    pub fn from_codes(
        names: Vec<String>,
        domains: Vec<Domain>,
        codes: Vec<Vec<u32>>,
    ) -> Result<Self> {
        Self::from_compact(names, domains, codes.into_iter().map(Codes::from).collect())
    }

    /// As [`Discretized::from_codes`] on compact columns.
    ///
    /// # Errors
    /// As [`Discretized::from_codes`].
    pub fn from_compact(
        names: Vec<String>,
        domains: Vec<Domain>,
        codes: Vec<Codes>,
    ) -> Result<Self> {
        if names.len() != domains.len() || codes.len() != domains.len() || domains.is_empty() {
            return Err(Error::param(
                "codes",
                "names, domains and code columns must have the same, non-zero length",
            ));
        }
        let rows = codes[0].len();
        for (c, column) in codes.iter().enumerate() {
            if column.len() != rows {
                return Err(Error::param("codes", "code columns differ in length"));
            }
            let size = domains[c].size();
            if column.max().is_some_and(|v| u64::from(v) >= size) {
                return Err(Error::param(
                    "codes",
                    format!("column '{}' has a code ≥ its domain size {size}", names[c]),
                ));
            }
        }
        Ok(Self {
            names,
            domains,
            codes: codes.into_iter().map(Arc::new).collect(),
            rows,
            private: true,
        })
    }

    /// Column names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Column domains.
    pub fn domains(&self) -> &[Domain] {
        &self.domains
    }

    /// The codes of column c, one per row.
    pub fn codes(&self, c: usize) -> &Codes {
        &self.codes[c]
    }

    /// The codes of column c, shared (no copy).
    pub fn shared_codes(&self, c: usize) -> Arc<Codes> {
        Arc::clone(&self.codes[c])
    }

    /// Number of rows n.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns d.
    pub fn width(&self) -> usize {
        self.codes.len()
    }

    /// Whether every domain came from the schema (see [`Table::is_private`]).
    pub fn is_private(&self) -> bool {
        self.private
    }

    /// The index of the column named `name` (case-insensitive).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] listing the columns when there is none.
    pub fn column_index(&self, name: &str) -> Result<usize> {
        self.names
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| {
                Error::param(
                    "column",
                    format!("no column '{name}' (columns: {})", self.names.join(", ")),
                )
            })
    }
}

/// The domains of `table`'s columns for a dataset of n records (see [`Discretized::new`]).
///
/// # Errors
/// As [`Discretized::new`].
pub fn domains_for(table: &Table, n: u64) -> Result<Vec<Domain>> {
    domains_for_schema(table.schema(), n, true)
}

/// The domains of a resolved schema's columns for n records; `n_known` false when no
/// numeric column needs the bandwidth rule (then n is not used).
pub(crate) fn domains_for_schema(schema: &Schema, n: u64, n_known: bool) -> Result<Vec<Domain>> {
    let mut common_bins = None;
    let mut domains = Vec::with_capacity(schema.columns.len());
    for col in &schema.columns {
        let missing = if col.nullable {
            schema.missing.clone()
        } else {
            None
        };
        let domain = match col.kind {
            ColumnType::Categorical => {
                let levels = col.levels.clone().ok_or_else(|| {
                    Error::param(
                        "schema",
                        format!("column '{}' has no levels", col.name.trim()),
                    )
                })?;
                if levels.len() as u64 + 1 >= u64::from(u32::MAX) {
                    return Err(Error::param(
                        "schema",
                        format!("column '{}' has too many levels", col.name.trim()),
                    ));
                }
                Domain::Categorical { levels, missing }
            }
            ColumnType::Numeric => {
                let [lo, hi] = col.bounds.ok_or_else(|| {
                    Error::param(
                        "schema",
                        format!("column '{}' has no bounds", col.name.trim()),
                    )
                })?;
                let bins = match (&col.edges, col.bins) {
                    (Some(edges), _) => Bins::from_edges(lo, hi, edges)?,
                    (None, Some(b)) => Bins::new(lo, hi, b)?,
                    (None, None) => {
                        let b = match common_bins {
                            Some(b) => b,
                            None => {
                                debug_assert!(n_known, "the bandwidth rule needs n");
                                let b = default_bins(schema, n)?;
                                common_bins = Some(b);
                                b
                            }
                        };
                        Bins::new(lo, hi, b)?
                    }
                };
                let bins = if col.integer {
                    bins.integers().map_err(|e| {
                        Error::param("schema", format!("column '{}': {e}", col.name.trim()))
                    })?
                } else {
                    bins
                };
                let bins = match &col.density {
                    Some(density) => bins.with_density(density)?,
                    None => bins,
                };
                Domain::Numeric { bins, missing }
            }
        };
        domains.push(domain);
    }
    Ok(domains)
}

/// The second reading of [`Discretized::read`] (the only one of
/// [`Discretized::read_with_domains`]): every row straight into codes of `domains`, or only
/// the rows `keep(file, row)` selects (file: index in `paths`, row: 0-based data row in that
/// file). `rank[c]` maps the text of a column whose levels came from the data to its code;
/// `rows` is the count of the first reading, if there was one. Also returns, per column, how
/// many numeric values fell outside the bounds and were clamped into the edge bins. No row
/// at all is an error when every row is kept, not for a selection (a worker's share may be
/// empty).
fn encode_files(
    paths: &[&Path],
    reader: &SchemaReader<'_>,
    schema: &Schema,
    domains: Vec<Domain>,
    rank: &[Option<HashMap<String, u32>>],
    rows: Option<usize>,
    keep: Option<&dyn Fn(usize, u64) -> bool>,
) -> Result<(Discretized, Vec<u64>)> {
    let mut clipped = vec![0u64; domains.len()];
    let mut codes: Vec<Codes> = domains
        .iter()
        .map(|d| Codes::for_arity(d.size(), rows.unwrap_or(0)))
        .collect();
    for (j, path) in paths.iter().enumerate() {
        let (mut row, mut kept) = (0u64, false);
        reader.scan(path, |file, c, value| {
            if c == 0 {
                kept = keep.is_none_or(|keep| keep(j, row));
                row += 1;
            }
            if !kept {
                return Ok(());
            }
            let code = match (&domains[c], value) {
                (Domain::Numeric { bins, .. }, Value::Number(x)) => {
                    let (lo, hi) = bins.bounds();
                    clipped[c] += u64::from(!(lo..=hi).contains(&x));
                    bins.index(x) as u32
                }
                (Domain::Numeric { bins, .. }, _) => bins.count() as u32,
                (_, Value::Level(i)) => i,
                (_, Value::Text(raw)) => {
                    match rank[c].as_ref().and_then(|r| r.get(raw)) {
                        Some(&code) => code,
                        // Only if the file changed since the first reading.
                        None => {
                            return Err(Error::io(format!(
                                "{}:{}: the file changed while it was read",
                                file.shown(),
                                file.line()
                            )));
                        }
                    }
                }
                (Domain::Categorical { levels, .. }, _) => levels.len() as u32,
            };
            codes[c].push(code);
            Ok(())
        })?;
    }
    let n = codes.first().map_or(0, Codes::len);
    if rows.is_some_and(|r| r != n) {
        return Err(Error::io(format!(
            "{}: the data changed while it was read ({} rows, then {n})",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            rows.unwrap_or(0)
        )));
    }
    if keep.is_none() && n == 0 {
        return Err(Error::param("data", "no data rows"));
    }
    Ok((
        Discretized::from_compact(schema.names(), domains, codes)?,
        clipped,
    ))
}

impl Discretized {
    /// How many rows of `paths` `keep(file, row)` selects (file: index in `paths`, row:
    /// 0-based data row of that file), read with a complete `schema`: a worker's share of a
    /// distributed table.
    ///
    /// # Errors
    /// As [`Table::read`]; an incomplete schema.
    // Used by distributed runs only.
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    pub(crate) fn count_where(
        paths: &[&Path],
        schema: &Schema,
        keep: &dyn Fn(usize, u64) -> bool,
    ) -> Result<u64> {
        schema.validate()?;
        check_complete(schema, DomainSource::Schema)?;
        let reader = SchemaReader::new(schema);
        let mut n = 0u64;
        for (j, path) in paths.iter().enumerate() {
            let mut row = 0u64;
            reader.scan(path, |_, c, _| {
                if c == 0 {
                    n += u64::from(keep(j, row));
                    row += 1;
                }
                Ok(())
            })?;
        }
        Ok(n)
    }

    /// The rows `keep` selects (as [`Discretized::count_where`]) coded with the domains of a
    /// table of `n` rows in all (the number of bins of the paper's rule depends on it): a
    /// worker's part of a distributed table, possibly without rows. Also returns the values
    /// clamped into edge bins per column.
    ///
    /// # Errors
    /// As [`Discretized::count_where`].
    // Used by distributed runs only.
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    pub(crate) fn read_where(
        paths: &[&Path],
        schema: &Schema,
        n: u64,
        keep: &dyn Fn(usize, u64) -> bool,
    ) -> Result<(Self, Vec<u64>)> {
        schema.validate()?;
        check_complete(schema, DomainSource::Schema)?;
        let reader = SchemaReader::new(schema);
        let domains = Self::domains_of(schema, n)?;
        let rank = vec![None; schema.columns.len()];
        encode_files(paths, &reader, schema, domains, &rank, None, Some(keep))
    }

    /// The domains a complete `schema` gives a table of `n` rows (the number of bins of
    /// the paper's rule depends on n): those of [`Discretized::read`] on n rows.
    ///
    /// ```
    /// use disguise::histogram::{Discretized, Schema};
    /// let schema = Schema::from_toml_str(r#"
    ///     [[columns]]
    ///     name = "x"
    ///     type = "numeric"
    ///     bounds = [0, 1]
    ///     [[columns]]
    ///     name = "y"
    ///     type = "categorical"
    ///     levels = ["a", "b"]
    /// "#, "s.toml")?;
    /// let domains = Discretized::domains_of(&schema, 150)?;
    /// assert_eq!(domains[0].size(), 5); // bin_count(150, 1)
    /// assert_eq!(domains[1].decode(1), "b");
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// An incomplete or invalid schema; n = 0 with a column binned by the paper's rule.
    pub fn domains_of(schema: &Schema, n: u64) -> Result<Vec<Domain>> {
        schema.validate()?;
        check_complete(schema, DomainSource::Schema)?;
        domains_for_schema(schema, n, true)
    }
}

/// The predictor columns a projection may choose: every column but the target whose domain
/// has at least two values. A column with a single value (a numeric predictor that the
/// bandwidth rule cuts into one bin, [`bin_count`]) discerns nothing and
/// is left out; which columns those are follows from the public domains alone.
pub(crate) fn predictors(domains: &[Domain], target: usize) -> Result<Vec<usize>> {
    let width = domains.len();
    if target >= width {
        return Err(Error::param(
            "target",
            format!("column {target} does not exist ({width} columns)"),
        ));
    }
    if width < 2 {
        return Err(Error::param(
            "target",
            "the table has no predictor column besides the target",
        ));
    }
    Ok((0..width)
        .filter(|&c| c != target && domains[c].size() >= 2)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_released_rule_cuts_for_the_kept_predictors_and_falls_back_to_the_papers() {
        use crate::histogram::schema::ColumnSpec;
        let mut columns: Vec<ColumnSpec> = (0..14)
            .map(|i| ColumnSpec::numeric(&format!("x{i}"), 0.0, 1.0))
            .collect();
        columns.push(ColumnSpec::categorical("y", &["a", "b"]));
        let paper = Schema::new(columns).unwrap();
        let n = 48_842;
        assert_eq!(default_bins(&paper, n).unwrap(), 2);
        // Without a target the rule cannot simulate the release: the paper's.
        let no_target = Schema {
            bin_rule: BinRule::Released,
            ..paper.clone()
        };
        assert_eq!(default_bins(&no_target, n).unwrap(), 2);
        let released = Schema {
            target: Some("y".into()),
            ..no_target.clone()
        };
        let k = crate::histogram::simulate_k_with(
            n,
            14,
            2,
            2,
            crate::histogram::DEFAULT_SIGMA,
            crate::histogram::DEFAULT_SEED,
        )
        .unwrap();
        assert!(k < 14);
        assert_eq!(
            default_bins(&released, n).unwrap(),
            bin_count(n, k).unwrap()
        );
        // A given k is taken as it is: 4 kept predictors, bw = 0.186, 5 bins.
        let given = Schema {
            kept_predictors: Some(4),
            ..released.clone()
        };
        assert_eq!(default_bins(&given, n).unwrap(), 5);
        // A numeric target: the paper's rule.
        let numeric_target = Schema {
            target: Some("x0".into()),
            ..released
        };
        assert_eq!(default_bins(&numeric_target, n).unwrap(), 2);
    }

    #[test]
    fn bins_follow_the_formula() {
        // Hand computation: n = 1000, d − 1 = 3: (ln 1000/1000)^(1/4) = 0.006908^0.25 = 0.28830;
        // 1/bw = 3.4686 → ⌈2.9686⌉ = 3.
        assert!((bandwidth(1000, 3).unwrap() - 0.288_30).abs() < 1e-5);
        assert_eq!(bin_count(1000, 3).unwrap(), 3);
        // n = 10^6, one predictor: (13.8155e-6)^(1/2) = 0.0037169 → 269.04 − 0.5 → 269.
        assert_eq!(bin_count(1_000_000, 1).unwrap(), 269);
        // The paper's formula, exactly: one bin for 36 predictors on 4435 records.
        assert_eq!(bin_count(4435, 36).unwrap(), 1);
        assert!(bandwidth(1, 3).is_err());
    }

    #[test]
    fn bin_index_clamps_and_midpoints_reverse() {
        let b = Bins::new(0.0, 10.0, 4).unwrap();
        assert_eq!(b.index(-5.0), 0);
        assert_eq!(b.index(0.0), 0);
        assert_eq!(b.index(2.49), 0);
        assert_eq!(b.index(2.5), 1);
        assert_eq!(b.index(9.99), 3);
        assert_eq!(b.index(10.0), 3);
        assert_eq!(b.index(1e300), 3);
        assert_eq!(b.midpoint(0), 1.25);
        assert_eq!(b.midpoint(3), 8.75);
        for i in 0..4 {
            assert_eq!(b.index(b.midpoint(i)), i);
        }
    }
}
