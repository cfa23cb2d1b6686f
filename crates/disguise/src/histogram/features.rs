//! The features of the classifier comparison ([`FeatureEncoding`]): how a table's rows, or a
//! release's cells, become the design matrix of logistic regression — the encoding, apart
//! from the evaluation that uses it (`evaluate.rs`).
//!
//! # The coding
//! Every model sees the same design, computed from the **public** domains of the schema only:
//! a numeric column becomes one feature, its value scaled into [0, 1] by the column's public
//! bounds (values outside are clamped, as the discretization clamps them); a categorical
//! column becomes indicators of its levels except the first (R's treatment contrasts); a
//! nullable column gets the missing marker as an extra level (categorical) or an extra
//! indicator (numeric, whose value is then 0). A released record carries a bin, not a
//! value: its numeric feature is the bin's midpoint, scaled the same way — what R's `glm`
//! sees when trained on the released CSV.
//!
//! The scaling is an affine, data-independent map: it does not change the (unpenalised)
//! maximum-likelihood predictions of OLR/HLR, it keeps L-BFGS well conditioned (Adult's
//! `fnlwgt` reaches 1.5·10⁶), and it is exactly the [0, 1] box PLR/PMLR need as public
//! feature bounds ([`FeatureEncoding::bounds`]).

use super::discretized::Domain;
use super::table::{ColumnValues, Table};
use crate::error::{Error, Result};
use crate::learn::{CodedBlock, CodedMatrix, Codes, FeatureBounds, Matrix};

/// The layout of one encoded column.
#[derive(Debug, Clone, PartialEq)]
enum Slot {
    /// A scaled number in [0, 1] (lo, hi are the public bounds; `bins` its bin count) and,
    /// when nullable, an indicator of the missing marker right after it.
    Numeric {
        lo: f64,
        hi: f64,
        bins: usize,
        nullable: bool,
    },
    /// Indicators of codes 1..size (code 0 is the reference level).
    Categorical { size: usize },
}

impl Slot {
    fn width(&self) -> usize {
        match self {
            Slot::Numeric { nullable, .. } => 1 + usize::from(*nullable),
            Slot::Categorical { size } => size.saturating_sub(1),
        }
    }

    /// The feature of every code, for a slot starting at feature `offset`: a bin's scaled
    /// midpoint (b + ½)/bins and the missing indicator (numeric), or the indicator of a level,
    /// none for the reference level 0 (categorical).
    fn entries(&self, offset: usize) -> Vec<Option<(usize, f64)>> {
        match *self {
            Slot::Numeric { bins, nullable, .. } => (0..bins)
                .map(|b| Some((offset, (b as f64 + 0.5) / bins as f64)))
                .chain(nullable.then_some(Some((offset + 1, 1.0))))
                .collect(),
            Slot::Categorical { size } => (0..size)
                .map(|v| (v > 0).then(|| (offset + v - 1, 1.0)))
                .collect(),
        }
    }
}

/// The design matrix of logistic regression for some columns of a table, from their public
/// domains only (see the [module documentation](self) for the coding).
///
/// ```
/// use disguise::histogram::{Bins, Domain, FeatureEncoding};
/// let domains = vec![
///     Domain::Numeric { bins: Bins::new(0.0, 10.0, 2)?, missing: None },
///     Domain::Categorical { levels: vec!["a".into(), "b".into(), "c".into()], missing: None },
/// ];
/// let enc = FeatureEncoding::new(&domains, &[0, 1])?;
/// assert_eq!(enc.width(), 1 + 2);
/// // A released record in bin 1 (midpoint 7.5) with level "c":
/// let x = enc.encode_codes(&[vec![1, 2]])?;
/// assert_eq!(x.row(0), &[0.75, 0.0, 1.0]);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureEncoding {
    columns: Vec<usize>,
    slots: Vec<Slot>,
    width: usize,
}

impl FeatureEncoding {
    /// The encoding of table columns `columns` (indices into `domains`, in that order).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a column index outside `domains`.
    pub fn new(domains: &[Domain], columns: &[usize]) -> Result<Self> {
        let mut slots = Vec::with_capacity(columns.len());
        for &c in columns {
            let domain = domains.get(c).ok_or_else(|| {
                Error::param(
                    "columns",
                    format!("column {c} outside the {} domains", domains.len()),
                )
            })?;
            slots.push(match domain {
                Domain::Numeric { bins, missing } => {
                    let (lo, hi) = bins.bounds();
                    Slot::Numeric {
                        lo,
                        hi,
                        bins: bins.count(),
                        nullable: missing.is_some(),
                    }
                }
                Domain::Categorical { .. } => Slot::Categorical {
                    size: domain.size() as usize,
                },
            });
        }
        let width = slots.iter().map(Slot::width).sum();
        Ok(Self {
            columns: columns.to_vec(),
            slots,
            width,
        })
    }

    /// The number of features.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The encoded table columns, in order.
    pub fn columns(&self) -> &[usize] {
        &self.columns
    }

    /// The public bounds of every feature: [0, 1] (scaled numbers and indicators alike), as
    /// PLR/PMLR need them.
    pub fn bounds(&self) -> FeatureBounds {
        FeatureBounds::indicators(self.width)
    }

    /// The features of the table rows `rows` (original values), dense.
    /// [`encode_table_coded`](FeatureEncoding::encode_table_coded) gives the same matrix in
    /// a fraction of the memory.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a row or column outside the table, or a column whose
    /// type differs from its domain's.
    pub fn encode_table(&self, table: &Table, rows: &[usize]) -> Result<Matrix> {
        self.encode_table_coded(table, rows)?.to_dense()
    }

    /// The features of the table rows `rows` (original values) as a [`CodedMatrix`]: one
    /// code per categorical column and one number per numeric column per row, instead of
    /// [`width`](FeatureEncoding::width) doubles.
    ///
    /// ```
    /// use disguise::histogram::{ColumnSpec, DomainSource, FeatureEncoding, Schema, Table, domains_for};
    /// use disguise::learn::Design;
    /// let schema = Schema::new(vec![
    ///     ColumnSpec::numeric("x", 0.0, 10.0),
    ///     ColumnSpec::categorical("c", &["a", "b", "c"]),
    /// ])?;
    /// let t = Table::from_rows(&schema, &[vec!["2.5", "c"], vec!["20", "a"]], DomainSource::Schema, "rows")?;
    /// let enc = FeatureEncoding::new(&domains_for(&t, 2)?, &[0, 1])?;
    /// let x = enc.encode_table_coded(&t, &[0, 1])?;
    /// assert_eq!(x.to_dense()?, enc.encode_table(&t, &[0, 1])?);
    /// assert_eq!(x.to_dense()?.row(0), &[0.25, 0.0, 1.0]);
    /// assert_eq!(x.to_dense()?.row(1), &[1.0, 0.0, 0.0]); // 20 clamped to the bound 10
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`encode_table`](FeatureEncoding::encode_table).
    pub fn encode_table_coded(&self, table: &Table, rows: &[usize]) -> Result<CodedMatrix> {
        if let Some(&c) = self.columns.iter().find(|&&c| c >= table.width()) {
            return Err(Error::param(
                "columns",
                format!("column {c} outside the table's {} columns", table.width()),
            ));
        }
        if let Some(&r) = rows.iter().find(|&&r| r >= table.rows()) {
            return Err(Error::param(
                "rows",
                format!("row {r} outside the table's {} rows", table.rows()),
            ));
        }
        let mut blocks = Vec::with_capacity(self.slots.len());
        let mut offset = 0;
        for (&c, slot) in self.columns.iter().zip(&self.slots) {
            match (slot, table.column(c)) {
                (
                    Slot::Numeric {
                        lo, hi, nullable, ..
                    },
                    ColumnValues::Numeric(values),
                ) => {
                    let mut scaled = Vec::with_capacity(rows.len());
                    for &r in rows {
                        let v = values[r];
                        if v.is_nan() {
                            if !nullable {
                                return Err(Error::param(
                                    "table",
                                    format!("column {c} has a missing value but no missing code"),
                                ));
                            }
                            scaled.push(f64::NAN);
                        } else {
                            scaled.push(((v - lo) / (hi - lo)).clamp(0.0, 1.0));
                        }
                    }
                    blocks.push(CodedBlock::Numbers {
                        values: scaled,
                        column: offset,
                        missing: nullable.then_some(offset + 1),
                    });
                }
                (Slot::Categorical { .. }, ColumnValues::Categorical(codes)) => {
                    let entries = slot.entries(offset);
                    let mut column = Codes::with_capacity(radix(entries.len())?, rows.len());
                    for &r in rows {
                        let v = codes.get(r);
                        if v as usize >= entries.len() {
                            return Err(Error::param(
                                "table",
                                format!(
                                    "column {c}: code {v} outside its domain of {}",
                                    entries.len()
                                ),
                            ));
                        }
                        column.push(v)?;
                    }
                    blocks.push(CodedBlock::Lookup {
                        codes: column,
                        entries,
                    });
                }
                _ => {
                    return Err(Error::param(
                        "columns",
                        format!("column {c}: the table's type differs from the domain's"),
                    ));
                }
            }
            offset += slot.width();
        }
        CodedMatrix::new(rows.len(), self.width, blocks)
    }

    /// The features of released records given as codes, one per encoded column (bins for
    /// numeric columns, which become their scaled midpoints (b + ½)/bins), dense.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a row of the wrong length or a code outside its domain.
    pub fn encode_codes(&self, rows: &[Vec<u32>]) -> Result<Matrix> {
        let mut coded = self.coded_rows(rows.len())?;
        for row in rows {
            coded.push(row)?;
        }
        coded.finish()?.to_dense()
    }

    /// A builder of the features of released records, one row of codes at a time, into a
    /// [`CodedMatrix`] (the rows of [`encode_codes`](FeatureEncoding::encode_codes) without
    /// the dense matrix); `capacity` rows are reserved.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a domain of 2³² codes or more.
    pub fn coded_rows(&self, capacity: usize) -> Result<CodedRows<'_>> {
        let mut offset = 0;
        let mut entries = Vec::with_capacity(self.slots.len());
        let mut codes = Vec::with_capacity(self.slots.len());
        for slot in &self.slots {
            let e = slot.entries(offset);
            codes.push(Codes::with_capacity(radix(e.len())?, capacity));
            entries.push(e);
            offset += slot.width();
        }
        Ok(CodedRows {
            encoding: self,
            entries,
            codes,
            rows: 0,
        })
    }
}

/// The codes of a column of `size` values as a `u32` radix.
fn radix(size: usize) -> Result<u32> {
    u32::try_from(size).map_err(|_| Error::param("domains", "a domain has 2^32 values or more"))
}

/// Rows of released codes being encoded into a [`CodedMatrix`]; see
/// [`FeatureEncoding::coded_rows`].
#[derive(Debug)]
pub struct CodedRows<'a> {
    encoding: &'a FeatureEncoding,
    entries: Vec<Vec<Option<(usize, f64)>>>,
    codes: Vec<Codes>,
    rows: usize,
}

impl CodedRows<'_> {
    /// Appends a released record: one code per encoded column (a bin for a numeric column,
    /// the bin count for its missing marker; a level code for a categorical column).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a row of the wrong length or a code outside its
    /// domain; the rows pushed before stay.
    pub fn push(&mut self, row: &[u32]) -> Result<()> {
        let i = self.rows;
        let slots = &self.encoding.slots;
        if row.len() != slots.len() {
            return Err(Error::param(
                "codes",
                format!(
                    "row {i} has {} codes for {} columns",
                    row.len(),
                    slots.len()
                ),
            ));
        }
        if let Some(((&v, slot), _)) = row
            .iter()
            .zip(slots)
            .zip(&self.entries)
            .find(|&((&v, _), e)| v as usize >= e.len())
        {
            return Err(Error::param(
                "codes",
                match *slot {
                    Slot::Numeric { bins, .. } => {
                        format!("row {i}: bin {v} outside a column of {bins} bins")
                    }
                    Slot::Categorical { size } => {
                        format!("row {i}: code {v} outside a domain of {size}")
                    }
                },
            ));
        }
        for (&v, column) in row.iter().zip(&mut self.codes) {
            column.push(v)?;
        }
        self.rows += 1;
        Ok(())
    }

    /// The number of rows pushed.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The matrix of the rows pushed.
    ///
    /// # Errors
    /// Never for rows accepted by [`push`](CodedRows::push) (the blocks are checked again).
    pub fn finish(self) -> Result<CodedMatrix> {
        let blocks = self
            .codes
            .into_iter()
            .zip(self.entries)
            .map(|(codes, entries)| CodedBlock::Lookup { codes, entries })
            .collect();
        CodedMatrix::new(self.rows, self.encoding.width, blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histogram::{Bins, ColumnSpec, DomainSource, Schema, domains_for};
    use crate::learn::Design;

    #[test]
    fn encoding_scales_clamps_and_codes_levels() {
        let domains = vec![
            Domain::Numeric {
                bins: Bins::new(-2.0, 2.0, 4).unwrap(),
                missing: Some("?".into()),
            },
            Domain::Categorical {
                levels: vec!["a".into(), "b".into()],
                missing: Some("?".into()),
            },
        ];
        let enc = FeatureEncoding::new(&domains, &[1, 0]).unwrap();
        // categorical: 3 codes → 2 indicators; numeric nullable: value + indicator.
        assert_eq!(enc.width(), 4);
        let x = enc
            .encode_codes(&[vec![2, 3], vec![0, 4], vec![1, 0]])
            .unwrap();
        assert_eq!(x.row(0), &[0.0, 1.0, 0.875, 0.0]);
        assert_eq!(x.row(1), &[0.0, 0.0, 0.0, 1.0]);
        assert_eq!(x.row(2), &[1.0, 0.0, 0.125, 0.0]);
        assert!(enc.encode_codes(&[vec![3, 0]]).is_err());
        assert!(enc.encode_codes(&[vec![0, 5]]).is_err());
        assert!(enc.encode_codes(&[vec![0]]).is_err());
        // A midpoint of the original scale encodes to the same feature as its bin.
        let schema = Schema::new(vec![
            ColumnSpec::numeric("v", -2.0, 2.0),
            ColumnSpec::categorical("y", &["n", "y"]),
        ])
        .unwrap();
        let rows = vec![
            vec!["1.5", "n"],
            vec!["-7", "y"],
            vec!["9", "n"],
            vec!["0", "y"],
        ];
        let t = Table::from_rows(&schema, &rows, DomainSource::Schema, "rows").unwrap();
        let enc = FeatureEncoding::new(&domains_for(&t, 4).unwrap(), &[0, 1]).unwrap();
        let x = enc.encode_table(&t, &[0, 1, 2, 3]).unwrap();
        assert_eq!(x.ncols(), 2);
        let col0: Vec<f64> = x.row_iter().map(|r| r[0]).collect();
        assert_eq!(col0, [0.875, 0.0, 1.0, 0.5]);
        assert_eq!(enc.bounds().len(), 2);
    }

    /// The coded features of a table with missing values are the dense features written out
    /// by hand, and the released codes' builder gives what `encode_codes` gives.
    #[test]
    fn coded_features_are_the_dense_features() {
        let mut schema = Schema::new(vec![
            ColumnSpec::numeric("x", 0.0, 8.0),
            ColumnSpec::categorical("c", &["a", "b", "c"]),
        ])
        .unwrap();
        schema.missing = Some("?".into());
        schema.columns.iter_mut().for_each(|c| c.nullable = true);
        schema.validate().unwrap();
        let rows = vec![
            vec!["2", "b"],
            vec!["?", "a"],
            vec!["-3", "?"],
            vec!["8", "c"],
        ];
        let t = Table::from_rows(&schema, &rows, DomainSource::Schema, "rows").unwrap();
        let domains = domains_for(&t, 4).unwrap();
        let enc = FeatureEncoding::new(&domains, &[1, 0]).unwrap();
        // c: levels b, c, ? → 3 indicators; x: value and missing flag.
        assert_eq!(enc.width(), 5);
        let coded = enc.encode_table_coded(&t, &[0, 1, 2, 3, 1]).unwrap();
        assert_eq!(coded.nrows(), 5);
        let dense = coded.to_dense().unwrap();
        let want: [[f64; 5]; 5] = [
            [1.0, 0.0, 0.0, 0.25, 0.0],
            [0.0, 0.0, 0.0, 0.0, 1.0],
            [0.0, 0.0, 1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 1.0],
        ];
        for (i, w) in want.iter().enumerate() {
            assert_eq!(dense.row(i), w, "row {i}");
        }
        assert_eq!(enc.encode_table(&t, &[0, 1, 2, 3, 1]).unwrap(), dense);
        // Codes: (c, x-bin); x has bin_count(4) bins and its missing code after them.
        let bins = match &domains[0] {
            Domain::Numeric { bins, .. } => bins.count() as u32,
            Domain::Categorical { .. } => unreachable!("x is numeric"),
        };
        let released = vec![vec![3, 0], vec![0, bins], vec![2, bins - 1]];
        let mut builder = enc.coded_rows(1).unwrap();
        for r in &released {
            builder.push(r).unwrap();
        }
        assert!(builder.push(&[4, 0]).is_err());
        assert!(builder.push(&[0, bins + 1]).is_err());
        assert!(builder.push(&[0]).is_err());
        assert_eq!(builder.rows(), 3);
        let from_codes = builder.finish().unwrap().to_dense().unwrap();
        assert_eq!(from_codes, enc.encode_codes(&released).unwrap());
        let mid = |b: u32| (f64::from(b) + 0.5) / f64::from(bins);
        assert_eq!(from_codes.row(0), &[0.0, 0.0, 1.0, mid(0), 0.0]);
        assert_eq!(from_codes.row(1), &[0.0, 0.0, 0.0, 0.0, 1.0]);
        assert_eq!(from_codes.row(2), &[0.0, 1.0, 0.0, mid(bins - 1), 0.0]);
    }
}
