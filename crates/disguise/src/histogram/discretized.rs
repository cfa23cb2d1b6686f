//! A discretized table ([`Discretized`]): every column coded in a finite public [`Domain`]
//! — its levels, or the [`Bins`] of a numeric column — and a code written back as its level,
//! its bin's midpoint or a value drawn inside the bin ([`Written`]). Built from a [`Table`]
//! with given domains, or from codes; [`discretize`](super::discretize) gives the domains a
//! schema makes and reads files straight into them.

use super::bins::format_number;
use super::bins::{Bins, Values};
use super::table::{ColumnValues, Table};
use crate::data::Codes;
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use serde::Serialize;
use std::sync::Arc;

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

impl Discretized {
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

    /// This table, with [`Discretized::is_private`] as `private` says: whether every domain
    /// came from the schema, which the reader of its files knows and its codes do not.
    pub(super) fn marked_private(mut self, private: bool) -> Self {
        self.private = private;
        self
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
