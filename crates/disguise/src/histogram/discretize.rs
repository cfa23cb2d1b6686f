//! Discretization (Vinterbo 2012, Section 2.1.1): the finite domains a schema gives its
//! columns — numeric ones cut over their public bounds into the bins of the schema's
//! `bins` or `edges`, else of Lei's bandwidth rule under its [`BinRule`] ([`default_bins`])
//! — and a table or data files coded in them ([`Discretized::new`], [`Discretized::read`]).
//! The rule's formula is in [`bin_rule`](super::bin_rule), the coded table in
//! [`discretized`](super::discretized); both are re-exported here.

pub use super::bin_rule::{BinRule, bandwidth, bin_count};
pub use super::bins::{Bins, Values};
pub use super::discretized::{Discretized, Domain, Written, written_values};
use super::params::{DEFAULT_SEED, simulate_k_with};
use super::privatekd::DEFAULT_SIGMA;
use super::schema::{ColumnSpec, ColumnType, DomainSource, Schema};
use super::table::{SchemaReader, Table, Value, check_complete, data_bounds, sorted_levels};
use crate::data::Codes;
use crate::error::{Error, Result};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// The bins of a numeric predictor without a schema `bins` under `schema`'s
/// [`BinRule`], for n records: [`bin_count`] for the d − 1 predictors (the paper's), or for
/// the k̂ a release is expected to keep ([`BinRule::Released`]).
///
/// # Errors
/// As [`bin_count`] and [`simulate_k_with`].
pub fn default_bins(schema: &Schema, n: u64) -> Result<usize> {
    Ok(rule_bins(schema, n)?.max(schema.min_bins))
}

/// The number of bins a numeric column's schema fixes (`bins`, or the bins its `edges`
/// make), if it does.
pub(crate) fn fixed_bins(c: &ColumnSpec) -> Option<usize> {
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
    let size = |c: &ColumnSpec, bins: usize| {
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
    let k = simulate_k_with(n, informative, q, paper, DEFAULT_SIGMA, DEFAULT_SEED)?;
    bin_count(n, k)
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
        let data = data.marked_private(inferred.is_empty());
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
}
