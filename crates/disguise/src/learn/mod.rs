//! Learning on original and on released data: the classifiers of Vinterbo (2012), Section 3.
//!
//! Vinterbo compares, by ten-fold cross-validation stratified on the label,
//!
//! | task        | original data | synthetic release | private baseline |
//! |-------------|---------------|-------------------|------------------|
//! | binary      | OLR           | HLR               | PLR              |
//! | multi-class | OMLR          | HMLR              | PMLR             |
//!
//! * OLR / HLR: [`LogisticRegression`] (binary, maximum likelihood with a tiny ridge);
//! * OMLR / HMLR: [`MultinomialLogisticRegression`] (softmax, reference class 0, like R's
//!   `nnet::multinom`);
//! * PLR: [`PrivateLogisticRegression`], objective perturbation of Chaudhuri, Monteleoni and
//!   Sarwate (2011), Algorithm 2;
//! * PMLR: [`PrivateMultinomialLogisticRegression`], q one-vs-rest PLR models at ε/q each.
//!
//! Training on a histogram release is training on weighted data (the weights are the released
//! counts), so every non-private fit takes optional **sample weights**; a weight of `w` is
//! exactly equivalent to `w` copies of the row. Metrics: [`auc`] (binary, Mann–Whitney with
//! ties counted half) and [`hand_till`] (multi-class); folds: [`StratifiedKFold`].
//!
//! Data is a [`Design`]: a dense row-major [`Matrix`] of finite `f64` (n rows × d columns), or
//! a [`CodedMatrix`] that stores one small code per categorical (binned) column and produces
//! its indicator features when a model reads the row (the same fits in a fraction of the
//! memory). Labels are `u32` class codes `0..K`. Categorical columns become dense indicator
//! columns with [`one_hot`]. Every fallible function returns [`crate::Result`].
//!
//! ```
//! use disguise::learn::{LogisticRegression, LogisticConfig, Matrix, auc};
//!
//! // One feature; the label is 1 more often when the feature is large.
//! let x = Matrix::from_rows(&[
//!     vec![0.0], vec![1.0], vec![2.0], vec![3.0], vec![4.0], vec![5.0],
//! ])?;
//! let y = [0, 0, 1, 0, 1, 1];
//! let model = LogisticRegression::fit(&x, &y, None, &LogisticConfig::default())?;
//! assert!(model.coefficients()[0] > 0.0);
//! let p = model.predict_proba(&x)?;
//! let positive: Vec<bool> = y.iter().map(|&c| c == 1).collect();
//! assert!(auc(&p, &positive, None)? > 0.8);
//! # Ok::<(), disguise::Error>(())
//! ```

mod cv;
mod design;
mod logistic;
mod metrics;
mod multinomial;
mod optim;
mod private_erm;

pub use crate::noise::continuous::{
    gamma_integer_shape, standard_exponential, standard_normal, uniform_direction,
};
pub use cv::StratifiedKFold;
pub use design::{CodedBlock, CodedMatrix, Codes, Design};
pub use logistic::{LogisticConfig, LogisticProblem, LogisticRegression};
pub use metrics::{auc, hand_till};
pub use multinomial::{MultinomialLogisticRegression, MultinomialProblem};
pub use optim::{Convergence, SmoothObjective};
pub use private_erm::{
    FeatureBounds, PlrConfig, PrivateLogisticRegression, PrivateMultinomialLogisticRegression,
    objective_noise,
};

use crate::error::{Error, Result};
use std::borrow::Cow;

/// A dense matrix of finite `f64`, stored row-major: `rows × cols` values, row `i` at
/// `data[i * cols .. (i + 1) * cols]`.
///
/// Every constructor rejects NaN and ±∞, so models built on a `Matrix` never see them.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Matrix {
    /// A `rows × cols` matrix from row-major `data`.
    ///
    /// # Errors
    /// `data.len() != rows * cols` (or the product overflows), or a non-finite value.
    ///
    /// ```
    /// use disguise::learn::Matrix;
    /// let m = Matrix::new(2, 3, vec![1., 2., 3., 4., 5., 6.])?;
    /// assert_eq!(m.row(1), &[4., 5., 6.]);
    /// assert!(Matrix::new(2, 2, vec![1., f64::NAN, 0., 0.]).is_err());
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn new(rows: usize, cols: usize, data: Vec<f64>) -> Result<Self> {
        let len = rows
            .checked_mul(cols)
            .ok_or_else(|| Error::Overflow(format!("matrix of {rows} x {cols} values")))?;
        if data.len() != len {
            return Err(Error::param(
                "matrix",
                format!(
                    "{rows} rows x {cols} columns need {len} values, got {}",
                    data.len()
                ),
            ));
        }
        if let Some(k) = data.iter().position(|v| !v.is_finite()) {
            return Err(Error::param(
                "matrix",
                format!(
                    "value at row {}, column {} is not finite: {}",
                    k / cols,
                    k % cols,
                    data[k]
                ),
            ));
        }
        Ok(Self { rows, cols, data })
    }

    /// A matrix from a slice of equally long rows (zero rows give a 0 × 0 matrix).
    ///
    /// # Errors
    /// Rows of different lengths, or a non-finite value.
    pub fn from_rows(rows: &[Vec<f64>]) -> Result<Self> {
        let cols = rows.first().map_or(0, Vec::len);
        if let Some(i) = rows.iter().position(|r| r.len() != cols) {
            return Err(Error::param(
                "matrix",
                format!("row {i} has {} values, row 0 has {cols}", rows[i].len()),
            ));
        }
        Self::new(rows.len(), cols, rows.concat())
    }

    /// Number of rows (examples).
    pub fn nrows(&self) -> usize {
        self.rows
    }

    /// Number of columns (features).
    pub fn ncols(&self) -> usize {
        self.cols
    }

    /// Row `i`.
    ///
    /// # Panics
    /// If `i >= nrows()`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// The value at row `i`, column `j`.
    ///
    /// # Panics
    /// If the position is outside the matrix.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        assert!(j < self.cols, "column {j} out of range");
        self.data[i * self.cols + j]
    }

    /// All values, row-major.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// The rows, in order.
    pub fn row_iter(&self) -> impl Iterator<Item = &[f64]> + '_ {
        // Not `chunks_exact(cols)`: it panics for 0 columns, where rows are empty slices.
        (0..self.rows).map(move |i| self.row(i))
    }

    /// A new matrix made of the rows at `indices` (in that order; repeats allowed).
    ///
    /// # Errors
    /// An index `>= nrows()`.
    pub fn select_rows(&self, indices: &[usize]) -> Result<Matrix> {
        let mut data = Vec::with_capacity(indices.len().saturating_mul(self.cols));
        for &i in indices {
            if i >= self.rows {
                return Err(Error::param(
                    "indices",
                    format!("row index {i} out of range for {} rows", self.rows),
                ));
            }
            data.extend_from_slice(self.row(i));
        }
        Ok(Matrix {
            rows: indices.len(),
            cols: self.cols,
            data,
        })
    }

    /// The columns of `self` followed by the columns of `other` (same number of rows), e.g.
    /// numeric features next to [`one_hot`] indicators.
    ///
    /// # Errors
    /// Different numbers of rows.
    pub fn hstack(&self, other: &Matrix) -> Result<Matrix> {
        if self.rows != other.rows {
            return Err(Error::param(
                "matrix",
                format!(
                    "cannot place {} rows next to {} rows",
                    other.rows, self.rows
                ),
            ));
        }
        let cols = self.cols + other.cols;
        let mut data = Vec::with_capacity(self.rows * cols);
        for i in 0..self.rows {
            data.extend_from_slice(self.row(i));
            data.extend_from_slice(other.row(i));
        }
        Ok(Matrix {
            rows: self.rows,
            cols,
            data,
        })
    }
}

/// Indicator (dummy) coding of categorical columns, **dropping the first level** of each
/// column as the reference, as R's `glm`/`model.matrix` treatment contrasts do.
///
/// `columns[j][i]` is the level of example `i` in categorical column `j`, in `0..arities[j]`.
/// Column `j` becomes `arities[j] − 1` indicator columns for levels `1, …, arities[j] − 1`
/// (level 0 is all zeros), in column order; a column of arity 1 contributes nothing. Dropping
/// one level per column keeps the design identifiable next to an intercept.
///
/// ```
/// use disguise::learn::one_hot;
/// // Two examples, one column with 3 levels and one with 2.
/// let m = one_hot(&[vec![0, 2], vec![1, 0]], &[3, 2])?;
/// assert_eq!(m.ncols(), 2 + 1);
/// assert_eq!(m.row(0), &[0., 0., 1.]);
/// assert_eq!(m.row(1), &[0., 1., 0.]);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// No columns, `columns.len() != arities.len()`, columns of different lengths, an arity of 0,
/// or a level `>= ` its column's arity.
pub fn one_hot(columns: &[Vec<u32>], arities: &[u32]) -> Result<Matrix> {
    if columns.is_empty() {
        return Err(Error::param("columns", "no categorical columns to encode"));
    }
    if columns.len() != arities.len() {
        return Err(Error::param(
            "arities",
            format!("{} columns but {} arities", columns.len(), arities.len()),
        ));
    }
    let n = columns[0].len();
    let mut offsets = Vec::with_capacity(columns.len());
    let mut width = 0usize;
    for (j, (col, &a)) in columns.iter().zip(arities).enumerate() {
        if col.len() != n {
            return Err(Error::param(
                "columns",
                format!("column {j} has {} values, column 0 has {n}", col.len()),
            ));
        }
        if a == 0 {
            return Err(Error::param("arities", format!("column {j} has arity 0")));
        }
        if let Some(i) = col.iter().position(|&v| v >= a) {
            return Err(Error::param(
                "columns",
                format!(
                    "column {j}, row {i}: level {} is not below the arity {a}",
                    col[i]
                ),
            ));
        }
        offsets.push(width);
        width += a as usize - 1;
    }
    let len = n
        .checked_mul(width)
        .ok_or_else(|| Error::Overflow(format!("one-hot matrix of {n} x {width}")))?;
    let mut data = vec![0.0; len];
    for (col, &off) in columns.iter().zip(&offsets) {
        for (i, &v) in col.iter().enumerate() {
            if v > 0 {
                data[i * width + off + v as usize - 1] = 1.0;
            }
        }
    }
    Matrix::new(n, width, data)
}

/// Checks the optional weights of `n` examples and returns them (all ones when absent), borrowed
/// when given: a release can have millions of weighted rows.
pub(crate) fn checked_weights(weights: Option<&[f64]>, n: usize) -> Result<Cow<'_, [f64]>> {
    let Some(w) = weights else {
        return Ok(Cow::Owned(vec![1.0; n]));
    };
    if w.len() != n {
        return Err(Error::param(
            "weights",
            format!("{} weights for {n} examples", w.len()),
        ));
    }
    if let Some(i) = w.iter().position(|v| !v.is_finite() || *v < 0.0) {
        return Err(Error::param(
            "weights",
            format!("weight {i} must be finite and >= 0, got {}", w[i]),
        ));
    }
    let total: f64 = w.iter().sum();
    if !(total.is_finite() && total > 0.0) {
        return Err(Error::param(
            "weights",
            format!("the total weight must be finite and > 0, got {total}"),
        ));
    }
    Ok(Cow::Borrowed(w))
}

/// Checks that `x` and the labels describe the same non-empty set of examples, that every
/// label is below `num_classes`, and that every class has positive total weight.
pub(crate) fn check_training_data<X: Design>(
    x: &X,
    y: &[u32],
    weights: &[f64],
    num_classes: usize,
) -> Result<()> {
    if x.nrows() == 0 {
        return Err(Error::param("x", "no training examples"));
    }
    if y.len() != x.nrows() {
        return Err(Error::param(
            "y",
            format!("{} labels for {} rows", y.len(), x.nrows()),
        ));
    }
    let mut class_weight = vec![0.0; num_classes];
    for (i, (&c, &w)) in y.iter().zip(weights).enumerate() {
        let slot = class_weight.get_mut(c as usize).ok_or_else(|| {
            Error::param(
                "y",
                format!("label {c} at row {i} is not below the number of classes {num_classes}"),
            )
        })?;
        *slot += w;
    }
    if let Some(c) = class_weight.iter().position(|&w| w <= 0.0) {
        return Err(Error::param(
            "y",
            format!("class {c} has no examples (or only zero weights)"),
        ));
    }
    Ok(())
}

/// Checks that `x` has `cols` columns (for prediction).
pub(crate) fn check_columns<X: Design>(x: &X, cols: usize) -> Result<()> {
    if x.ncols() != cols {
        return Err(Error::param(
            "x",
            format!("the model was fitted on {cols} columns, got {}", x.ncols()),
        ));
    }
    Ok(())
}

/// `log(1 + e^z)` without overflow or loss of precision.
#[inline]
pub(crate) fn softplus(z: f64) -> f64 {
    if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

/// The logistic function `1 / (1 + e^{−z})` without overflow.
#[inline]
pub(crate) fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
