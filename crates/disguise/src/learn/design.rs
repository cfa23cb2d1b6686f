//! The rows a model reads: a dense [`Matrix`], or a [`CodedMatrix`] that keeps one small code
//! (or one number) per block of columns and produces the features from it on the fly.
//!
//! Indicator (one-hot) and binned features are mostly zeros: a row of Adult's 14 predictors
//! has about 100 features of which at most 14 are nonzero. A dense matrix stores all of them as
//! `f64` (800 bytes per row); a coded one stores a byte or two per categorical or binned column
//! and computes the nonzero features when a model reads the row. The models of this module
//! read rows only through [`Design`], so both give the same fits (see [`Design::row_dot`] for
//! the arithmetic).

use super::{Matrix, dot};
use crate::error::{Error, Result};

/// The rows of features the models of this module are fitted to and predict on: implemented
/// by the dense [`Matrix`] and the compact [`CodedMatrix`].
///
/// A model reads row `i` only through [`for_each_entry`](Design::for_each_entry) (which
/// visits the entries that may be nonzero, in increasing column order) and the two
/// operations built on it, [`row_dot`](Design::row_dot) and [`add_row`](Design::add_row).
pub trait Design {
    /// Number of rows (examples).
    fn nrows(&self) -> usize;

    /// Number of columns (features).
    fn ncols(&self) -> usize;

    /// Calls `f(j, x_ij)` for every entry of row `i` that may be nonzero, in increasing column
    /// order `j`; the entries not visited are 0.
    ///
    /// # Panics
    /// If `i >= nrows()`.
    fn for_each_entry<F: FnMut(usize, f64)>(&self, i: usize, f: F);

    /// `βᵀxᵢ = Σ_j β_j·x_ij`, summed left to right over the visited entries (from −0, the
    /// neutral element of addition).
    ///
    /// Skipping zero entries changes nothing but possibly the sign of a zero result: a
    /// skipped term `β_j·0` is ±0 (β is finite), and adding ±0 to a nonzero partial sum
    /// returns it unchanged. So a coded row gives, bit for bit, the dot product of its dense
    /// row whenever that product is not zero, and ±0 when it is.
    ///
    /// # Panics
    /// If `i >= nrows()` or `beta` is shorter than `ncols()`.
    fn row_dot(&self, i: usize, beta: &[f64]) -> f64 {
        let mut s = -0.0;
        self.for_each_entry(i, |j, v| s += beta[j] * v);
        s
    }

    /// `out += r·xᵢ`, entry by entry (the skipped entries would add ±0, which leaves a
    /// nonzero value unchanged, as in [`row_dot`](Design::row_dot)).
    ///
    /// # Panics
    /// If `i >= nrows()` or `out` is shorter than `ncols()`.
    fn add_row(&self, i: usize, r: f64, out: &mut [f64]) {
        self.for_each_entry(i, |j, v| out[j] += r * v);
    }
}

impl Design for Matrix {
    fn nrows(&self) -> usize {
        Matrix::nrows(self)
    }

    fn ncols(&self) -> usize {
        Matrix::ncols(self)
    }

    /// Visits every entry of the row, zeros included.
    fn for_each_entry<F: FnMut(usize, f64)>(&self, i: usize, mut f: F) {
        for (j, &v) in self.row(i).iter().enumerate() {
            f(j, v);
        }
    }

    fn row_dot(&self, i: usize, beta: &[f64]) -> f64 {
        dot(beta, self.row(i))
    }

    fn add_row(&self, i: usize, r: f64, out: &mut [f64]) {
        for (o, &x) in out.iter_mut().zip(self.row(i)) {
            *o += r * x;
        }
    }
}

/// One code per row in the narrowest unsigned integer type that holds every code below a
/// given radix (`u8` up to 256 codes, `u16` up to 65,536, else `u32`).
///
/// ```
/// use disguise::learn::Codes;
/// let mut c = Codes::with_capacity(3, 2);
/// c.push(2)?;
/// c.push(0)?;
/// assert!(c.push(3).is_err());
/// assert_eq!((c.len(), c.get(0), c.get(1), c.radix()), (2, 2, 0, 3));
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Codes {
    radix: u32,
    store: Store,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Store {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Codes {
    /// An empty column for codes `0..radix`, with room for `capacity` codes.
    pub fn with_capacity(radix: u32, capacity: usize) -> Self {
        let store = if radix <= 1 << 8 {
            Store::U8(Vec::with_capacity(capacity))
        } else if radix <= 1 << 16 {
            Store::U16(Vec::with_capacity(capacity))
        } else {
            Store::U32(Vec::with_capacity(capacity))
        };
        Self { radix, store }
    }

    /// The column of `codes`, each below `radix`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a code `>= radix`.
    pub fn from_slice(radix: u32, codes: &[u32]) -> Result<Self> {
        let mut c = Self::with_capacity(radix, codes.len());
        for &code in codes {
            c.push(code)?;
        }
        Ok(c)
    }

    /// Appends a code.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a code `>= radix()`.
    pub fn push(&mut self, code: u32) -> Result<()> {
        if code >= self.radix {
            return Err(Error::param(
                "codes",
                format!("code {code} is not below the radix {}", self.radix),
            ));
        }
        // The conversions cannot fail: the store was chosen for codes below the radix.
        match &mut self.store {
            Store::U8(v) => v.push(code as u8),
            Store::U16(v) => v.push(code as u16),
            Store::U32(v) => v.push(code),
        }
        Ok(())
    }

    /// The code of row `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match &self.store {
            Store::U8(v) => u32::from(v[i]),
            Store::U16(v) => u32::from(v[i]),
            Store::U32(v) => v[i],
        }
    }

    /// The number of codes.
    pub fn len(&self) -> usize {
        match &self.store {
            Store::U8(v) => v.len(),
            Store::U16(v) => v.len(),
            Store::U32(v) => v.len(),
        }
    }

    /// Whether there are no codes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every code is below this.
    pub fn radix(&self) -> u32 {
        self.radix
    }

    /// Reverses the order of the codes, in place.
    pub fn reverse(&mut self) {
        match &mut self.store {
            Store::U8(v) => v.reverse(),
            Store::U16(v) => v.reverse(),
            Store::U32(v) => v.reverse(),
        }
    }

    /// The codes of rows `rows`, in that order.
    ///
    /// # Panics
    /// If a row is `>= len()`.
    fn select(&self, rows: &[usize]) -> Self {
        let store = match &self.store {
            Store::U8(v) => Store::U8(rows.iter().map(|&i| v[i]).collect()),
            Store::U16(v) => Store::U16(rows.iter().map(|&i| v[i]).collect()),
            Store::U32(v) => Store::U32(rows.iter().map(|&i| v[i]).collect()),
        };
        Self {
            radix: self.radix,
            store,
        }
    }
}

/// A block of columns of a [`CodedMatrix`]: each row has at most one nonzero entry in it.
#[derive(Debug, Clone, PartialEq)]
pub enum CodedBlock {
    /// Row `i` has the entry `entries[codes[i]]`: `Some((column, value))`, or nothing
    /// (`None`, e.g. the reference level of an indicator coding).
    Lookup {
        /// One code per row, each below `entries.len()`.
        codes: Codes,
        /// The entry of each code.
        entries: Vec<Option<(usize, f64)>>,
    },
    /// Row `i` has the value `values[i]` in `column`, or, when `values[i]` is NaN (missing),
    /// a 1 in column `missing`.
    Numbers {
        /// One finite value or NaN per row.
        values: Vec<f64>,
        /// The column of the values.
        column: usize,
        /// The indicator column of a missing value (`None`: no value may be missing).
        missing: Option<usize>,
    },
}

impl CodedBlock {
    /// The smallest and largest column the block can fill (`None` if it fills none).
    fn span(&self) -> Option<(usize, usize)> {
        let columns: Vec<usize> = match self {
            CodedBlock::Lookup { entries, .. } => entries.iter().flatten().map(|e| e.0).collect(),
            CodedBlock::Numbers {
                column, missing, ..
            } => std::iter::once(*column).chain(*missing).collect(),
        };
        Some((*columns.iter().min()?, *columns.iter().max()?))
    }

    fn len(&self) -> usize {
        match self {
            CodedBlock::Lookup { codes, .. } => codes.len(),
            CodedBlock::Numbers { values, .. } => values.len(),
        }
    }
}

/// A design matrix stored as one code or number per block of columns, for features that are
/// mostly zeros — indicators of categorical levels, binned numbers ([`CodedBlock`]). It
/// stores O(rows × blocks) small integers instead of O(rows × columns) doubles and visits
/// only the (at most one per block) nonzero entries of a row.
///
/// The blocks cover disjoint, increasing ranges of columns, so that the entries of a row come
/// in increasing column order ([`Design::for_each_entry`]); columns no block fills are 0.
///
/// ```
/// use disguise::learn::{CodedBlock, CodedMatrix, Codes, Design};
/// // Column 0: a number (NaN = missing, indicated in column 1); columns 2–3: indicators of
/// // levels 1 and 2 of a categorical column with 3 levels.
/// let x = CodedMatrix::new(2, 4, vec![
///     CodedBlock::Numbers { values: vec![0.25, f64::NAN], column: 0, missing: Some(1) },
///     CodedBlock::Lookup {
///         codes: Codes::from_slice(3, &[2, 0])?,
///         entries: vec![None, Some((2, 1.0)), Some((3, 1.0))],
///     },
/// ])?;
/// let dense = x.to_dense()?;
/// assert_eq!(dense.row(0), &[0.25, 0.0, 0.0, 1.0]);
/// assert_eq!(dense.row(1), &[0.0, 1.0, 0.0, 0.0]);
/// assert_eq!(x.row_dot(0, &[2.0, 5.0, 7.0, 3.0]), 0.5 + 3.0);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CodedMatrix {
    rows: usize,
    cols: usize,
    blocks: Vec<CodedBlock>,
}

impl CodedMatrix {
    /// A `rows × cols` matrix from its blocks.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a block with a number of rows other than `rows`, a code
    /// without an entry, an entry or value that is not finite (NaN marks a missing number and
    /// needs a `missing` column), a column `>= cols`, or blocks whose column ranges overlap or
    /// are not in increasing order.
    pub fn new(rows: usize, cols: usize, blocks: Vec<CodedBlock>) -> Result<Self> {
        let mut next = 0usize; // the first column the next block may fill
        for (b, block) in blocks.iter().enumerate() {
            if block.len() != rows {
                return Err(Error::param(
                    "blocks",
                    format!("block {b} has {} rows, the matrix {rows}", block.len()),
                ));
            }
            match block {
                CodedBlock::Lookup { codes, entries } => {
                    if codes.radix() as usize > entries.len() {
                        return Err(Error::param(
                            "blocks",
                            format!(
                                "block {b}: codes up to {} but {} entries",
                                codes.radix(),
                                entries.len()
                            ),
                        ));
                    }
                    if let Some(&(_, v)) = entries.iter().flatten().find(|e| !e.1.is_finite()) {
                        return Err(Error::param(
                            "blocks",
                            format!("block {b}: entry value {v} is not finite"),
                        ));
                    }
                }
                CodedBlock::Numbers {
                    values,
                    column,
                    missing,
                } => {
                    if *missing == Some(*column) {
                        return Err(Error::param(
                            "blocks",
                            format!("block {b}: the missing indicator is the value's column"),
                        ));
                    }
                    if let Some(i) = values
                        .iter()
                        .position(|v| v.is_infinite() || (v.is_nan() && missing.is_none()))
                    {
                        return Err(Error::param(
                            "blocks",
                            format!(
                                "block {b}, row {i}: value {} is not finite (and no missing \
                                 indicator)",
                                values[i]
                            ),
                        ));
                    }
                }
            }
            if let Some((lo, hi)) = block.span() {
                if lo < next || hi >= cols {
                    return Err(Error::param(
                        "blocks",
                        format!(
                            "block {b} fills columns {lo}..={hi}: the blocks must fill disjoint, \
                             increasing ranges of the {cols} columns"
                        ),
                    ));
                }
                next = hi + 1;
            }
        }
        Ok(Self { rows, cols, blocks })
    }

    /// The blocks.
    pub fn blocks(&self) -> &[CodedBlock] {
        &self.blocks
    }

    /// The same matrix, dense.
    ///
    /// # Errors
    /// [`Error::Overflow`] if rows × columns overflows.
    pub fn to_dense(&self) -> Result<Matrix> {
        let len = self
            .rows
            .checked_mul(self.cols)
            .ok_or_else(|| Error::Overflow(format!("matrix of {} x {}", self.rows, self.cols)))?;
        let mut data = vec![0.0; len];
        for i in 0..self.rows {
            let row = &mut data[i * self.cols..(i + 1) * self.cols];
            self.for_each_entry(i, |j, v| row[j] = v);
        }
        Matrix::new(self.rows, self.cols, data)
    }

    /// Reverses the order of the rows, in place (for rows built last to first).
    pub fn reverse_rows(&mut self) {
        for block in &mut self.blocks {
            match block {
                CodedBlock::Lookup { codes, .. } => codes.reverse(),
                CodedBlock::Numbers { values, .. } => values.reverse(),
            }
        }
    }

    /// A new matrix made of the rows at `indices` (in that order; repeats allowed).
    ///
    /// # Errors
    /// An index `>= nrows()`.
    pub fn select_rows(&self, indices: &[usize]) -> Result<CodedMatrix> {
        if let Some(&i) = indices.iter().find(|&&i| i >= self.rows) {
            return Err(Error::param(
                "indices",
                format!("row index {i} out of range for {} rows", self.rows),
            ));
        }
        let blocks = self
            .blocks
            .iter()
            .map(|block| match block {
                CodedBlock::Lookup { codes, entries } => CodedBlock::Lookup {
                    codes: codes.select(indices),
                    entries: entries.clone(),
                },
                CodedBlock::Numbers {
                    values,
                    column,
                    missing,
                } => CodedBlock::Numbers {
                    values: indices.iter().map(|&i| values[i]).collect(),
                    column: *column,
                    missing: *missing,
                },
            })
            .collect();
        Ok(CodedMatrix {
            rows: indices.len(),
            cols: self.cols,
            blocks,
        })
    }
}

impl Design for CodedMatrix {
    fn nrows(&self) -> usize {
        self.rows
    }

    fn ncols(&self) -> usize {
        self.cols
    }

    #[inline]
    fn for_each_entry<F: FnMut(usize, f64)>(&self, i: usize, mut f: F) {
        assert!(i < self.rows, "row {i} out of range");
        for block in &self.blocks {
            match block {
                CodedBlock::Lookup { codes, entries } => {
                    if let Some((j, v)) = entries[codes.get(i) as usize] {
                        f(j, v);
                    }
                }
                CodedBlock::Numbers {
                    values,
                    column,
                    missing,
                } => {
                    let v = values[i];
                    if !v.is_nan() {
                        f(*column, v);
                    } else if let Some(m) = missing {
                        f(*m, 1.0);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::SecureRng;
    use rand_core::Rng;

    /// A random coded matrix: a nullable number, a 3-level categorical, a binned number with a
    /// missing bin and a categorical of `wide` levels (u16 codes above 256), 5 % missing
    /// numbers.
    fn random_coded(rows: usize, wide: u32, seed: u64) -> CodedMatrix {
        let mut rng = SecureRng::insecure_from_seed(seed);
        let mut below = |n: u64| (rng.next_u64() % n) as u32;
        let mut numbers = Vec::with_capacity(rows);
        let mut cat = Codes::with_capacity(3, rows);
        let mut bins = Codes::with_capacity(5, rows);
        let levels = wide;
        let mut wide = Codes::with_capacity(levels, rows);
        for _ in 0..rows {
            numbers.push(if below(20) == 0 {
                f64::NAN
            } else {
                f64::from(below(1001)) / 1000.0
            });
            cat.push(below(3)).unwrap();
            bins.push(below(5)).unwrap();
            wide.push(below(u64::from(levels))).unwrap();
        }
        // Columns: 0 number, 1 its missing flag, 2–3 levels 1, 2; 4 bin value, 5 missing
        // bin; 6.. levels 1.. of the wide column.
        let bin_entries = (0..4)
            .map(|b| Some((4, (f64::from(b) + 0.5) / 4.0)))
            .chain([Some((5, 1.0))])
            .collect();
        let wide_entries = std::iter::once(None)
            .chain((1..levels as usize).map(|v| Some((5 + v, 1.0))))
            .collect();
        CodedMatrix::new(
            rows,
            5 + levels as usize,
            vec![
                CodedBlock::Numbers {
                    values: numbers,
                    column: 0,
                    missing: Some(1),
                },
                CodedBlock::Lookup {
                    codes: cat,
                    entries: vec![None, Some((2, 1.0)), Some((3, 1.0))],
                },
                CodedBlock::Lookup {
                    codes: bins,
                    entries: bin_entries,
                },
                CodedBlock::Lookup {
                    codes: wide,
                    entries: wide_entries,
                },
            ],
        )
        .unwrap()
    }

    #[test]
    fn codes_take_the_narrowest_type() {
        for (radix, bytes) in [(2u32, 1usize), (256, 1), (257, 2), (65_536, 2), (65_537, 4)] {
            let c = Codes::from_slice(radix, &[0, radix - 1]).unwrap();
            let width = match c.store {
                Store::U8(_) => 1,
                Store::U16(_) => 2,
                Store::U32(_) => 4,
            };
            assert_eq!(width, bytes, "radix {radix}");
            assert_eq!((c.get(0), c.get(1)), (0, radix - 1));
        }
        assert!(Codes::from_slice(4, &[4]).is_err());
    }

    #[test]
    fn coded_rows_equal_their_dense_rows() {
        let x = random_coded(500, 300, 7);
        let dense = x.to_dense().unwrap();
        let mut rng = SecureRng::insecure_from_seed(8);
        let beta: Vec<f64> = (0..x.ncols())
            .map(|_| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
            .collect();
        for i in 0..x.nrows() {
            // The visited entries, spread out, are the dense row.
            let mut row = vec![0.0; x.ncols()];
            let mut last = None;
            x.for_each_entry(i, |j, v| {
                assert!(last.is_none_or(|l| l < j), "increasing columns");
                last = Some(j);
                row[j] = v;
            });
            assert_eq!(row, dense.row(i));
            // The dot product and the update are the dense ones, bit for bit (nonzero here).
            let (a, b) = (x.row_dot(i, &beta), dense.row_dot(i, &beta));
            assert_eq!(a.to_bits(), b.to_bits(), "row {i}");
            let (mut ga, mut gb) = (beta.clone(), beta.clone());
            x.add_row(i, 0.3, &mut ga);
            dense.add_row(i, 0.3, &mut gb);
            assert_eq!(ga, gb);
        }
        // Selecting rows selects the dense rows.
        let pick = [3, 3, 499, 0];
        let sel = x.select_rows(&pick).unwrap().to_dense().unwrap();
        for (k, &i) in pick.iter().enumerate() {
            assert_eq!(sel.row(k), dense.row(i));
        }
        assert!(x.select_rows(&[500]).is_err());
        // Reversing the rows reverses the dense rows.
        let mut rev = x.clone();
        rev.reverse_rows();
        let rev = rev.to_dense().unwrap();
        for i in 0..x.nrows() {
            assert_eq!(rev.row(i), dense.row(x.nrows() - 1 - i));
        }
    }

    /// Labels of 3 classes that depend on the features, and weights 0..4 (some zero).
    fn labels_and_weights(x: &Matrix, seed: u64) -> (Vec<u32>, Vec<f64>) {
        let mut rng = SecureRng::insecure_from_seed(seed);
        let mut y = Vec::with_capacity(x.nrows());
        let mut w = Vec::with_capacity(x.nrows());
        for row in x.row_iter() {
            let score = row[0] + row[2] - row[3] + 2.0 * row[4] + row[10] - row[1];
            let noise = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            y.push(if score + noise < 0.8 {
                0
            } else if score + noise < 1.6 {
                1
            } else {
                2
            });
            w.push((rng.next_u64() % 5) as f64);
        }
        (y, w)
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// Every model fitted to a coded matrix equals, bit for bit, the same model fitted to the
    /// dense matrix it stands for: coefficients, convergence and predictions.
    #[test]
    fn models_fit_coded_and_dense_rows_identically() {
        use crate::learn::{
            FeatureBounds, LogisticConfig, LogisticRegression, MultinomialLogisticRegression,
            PlrConfig, PrivateLogisticRegression, PrivateMultinomialLogisticRegression,
        };
        let coded = random_coded(300, 12, 11);
        let dense = coded.to_dense().unwrap();
        let (y3, w) = labels_and_weights(&dense, 12);
        let y2: Vec<u32> = y3.iter().map(|&c| u32::from(c == 2)).collect();
        let cfg = LogisticConfig {
            max_iters: 40,
            ..LogisticConfig::default()
        };

        let a = LogisticRegression::fit(&coded, &y2, Some(&w), &cfg).unwrap();
        let b = LogisticRegression::fit(&dense, &y2, Some(&w), &cfg).unwrap();
        assert!(a.convergence().iterations > 5, "{:?}", a.convergence());
        assert_eq!(a.intercept().to_bits(), b.intercept().to_bits());
        assert_eq!(bits(a.coefficients()), bits(b.coefficients()));
        assert_eq!(a.convergence(), b.convergence());
        assert_eq!(
            bits(&a.predict_proba(&coded).unwrap()),
            bits(&b.predict_proba(&dense).unwrap())
        );

        let a = MultinomialLogisticRegression::fit(&coded, &y3, Some(&w), 3, &cfg).unwrap();
        let b = MultinomialLogisticRegression::fit(&dense, &y3, Some(&w), 3, &cfg).unwrap();
        for k in 0..3 {
            assert_eq!(
                bits(&a.class_coefficients(k)),
                bits(&b.class_coefficients(k))
            );
        }
        assert_eq!(a.convergence(), b.convergence());
        assert_eq!(
            bits(a.predict_proba(&coded).unwrap().as_slice()),
            bits(b.predict_proba(&dense).unwrap().as_slice())
        );

        // The private models draw their noise first: equal seeds, equal noise.
        let bounds = FeatureBounds::indicators(coded.ncols());
        let plr = PlrConfig {
            max_iters: 40,
            ..PlrConfig::new(2.0)
        };
        let fit = |x: &dyn Fn(&mut SecureRng) -> PrivateLogisticRegression| {
            x(&mut SecureRng::insecure_from_seed(13))
        };
        let a = fit(&|r| PrivateLogisticRegression::fit(&coded, &y2, &bounds, &plr, r).unwrap());
        let b = fit(&|r| PrivateLogisticRegression::fit(&dense, &y2, &bounds, &plr, r).unwrap());
        assert_eq!(bits(a.coefficients()), bits(b.coefficients()));
        assert_eq!(a.convergence(), b.convergence());
        assert_eq!(
            bits(&a.predict_proba(&coded).unwrap()),
            bits(&b.predict_proba(&dense).unwrap())
        );
        // The rows embedded one at a time are the rows of the embedded matrix.
        assert_eq!(bounds.embed(&coded).unwrap(), bounds.embed(&dense).unwrap());

        let mut rng = SecureRng::insecure_from_seed(14);
        let a = PrivateMultinomialLogisticRegression::fit(&coded, &y3, 3, &bounds, &plr, &mut rng)
            .unwrap();
        let mut rng = SecureRng::insecure_from_seed(14);
        let b = PrivateMultinomialLogisticRegression::fit(&dense, &y3, 3, &bounds, &plr, &mut rng)
            .unwrap();
        assert_eq!(
            bits(a.predict_proba(&coded).unwrap().as_slice()),
            bits(b.predict_proba(&dense).unwrap().as_slice())
        );
    }

    #[test]
    fn bad_blocks_are_refused() {
        let codes = |c: &[u32]| Codes::from_slice(3, c).unwrap();
        let ind = vec![None, Some((0, 1.0)), Some((1, 1.0))];
        let ok = CodedBlock::Lookup {
            codes: codes(&[1, 2]),
            entries: ind.clone(),
        };
        assert!(CodedMatrix::new(2, 2, vec![ok.clone()]).is_ok());
        // Wrong row count, column out of range, overlapping or decreasing blocks.
        assert!(CodedMatrix::new(3, 2, vec![ok.clone()]).is_err());
        assert!(CodedMatrix::new(2, 1, vec![ok.clone()]).is_err());
        assert!(CodedMatrix::new(2, 4, vec![ok.clone(), ok.clone()]).is_err());
        let num = |column, missing, values: Vec<f64>| CodedBlock::Numbers {
            values,
            column,
            missing,
        };
        assert!(CodedMatrix::new(2, 3, vec![num(2, None, vec![0.0, 1.0]), ok.clone()]).is_err());
        assert!(CodedMatrix::new(2, 3, vec![ok.clone(), num(2, None, vec![0.0, 1.0])]).is_ok());
        // Too few entries for the codes; non-finite values; NaN without a missing column.
        let short = CodedBlock::Lookup {
            codes: codes(&[0, 0]),
            entries: vec![None, None],
        };
        assert!(CodedMatrix::new(2, 2, vec![short]).is_err());
        let inf = CodedBlock::Lookup {
            codes: codes(&[0, 0]),
            entries: vec![None, None, Some((0, f64::INFINITY))],
        };
        assert!(CodedMatrix::new(2, 2, vec![inf]).is_err());
        assert!(CodedMatrix::new(2, 1, vec![num(0, None, vec![f64::NAN, 1.0])]).is_err());
        assert!(CodedMatrix::new(2, 2, vec![num(0, Some(1), vec![f64::NAN, 1.0])]).is_ok());
        assert!(CodedMatrix::new(2, 2, vec![num(0, Some(0), vec![0.0, 1.0])]).is_err());
    }
}
