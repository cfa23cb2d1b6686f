//! Multinomial (softmax) logistic regression with sample weights (OMLR / HMLR).

use super::logistic::LogisticConfig;
use super::optim::{self, Convergence, SmoothObjective};
use super::{Design, Matrix, check_columns, check_training_data, checked_weights, dot};
use crate::error::{Error, Result};
use serde::Serialize;
use std::borrow::Cow;

/// The objective of weighted multinomial logistic regression with reference class 0.
///
/// Class 0 has linear predictor 0; class `k = 1, …, K−1` has `η_k = β_{k0} + β_kᵀx` (the
/// parametrisation of R's `nnet::multinom`, identifiable without a penalty). Parameters are
/// laid out class by class: `θ = (β_{10}, β_1, β_{20}, β_2, …)`, i.e. `(K−1)·(d+1)` values.
/// With `P(k | x) = e^{η_k} / Σ_j e^{η_j}`,
///
/// ```text
/// f(θ) = ( Σᵢ wᵢ [log Σ_k e^{η_k(xᵢ)} − η_{yᵢ}(xᵢ)] + λ/2 Σ_{k≥1} ‖β_k‖² ) / Σᵢ wᵢ
/// ```
///
/// (intercepts unpenalised; log-sum-exp evaluated stably). Gradient for class `k ≥ 1`:
/// `( Σᵢ wᵢ (P(k | xᵢ) − [yᵢ = k]) (1, xᵢ) + λ (0, β_k) ) / W`, exact. With `K = 2` this is
/// exactly [`super::LogisticProblem`]. The rows `x` are any [`Design`] (dense [`Matrix`] by
/// default).
#[derive(Debug, Clone)]
pub struct MultinomialProblem<'a, X = Matrix> {
    x: &'a X,
    y: &'a [u32],
    weights: Cow<'a, [f64]>,
    total_weight: f64,
    l2: f64,
    num_classes: usize,
}

impl<'a, X: Design> MultinomialProblem<'a, X> {
    /// Validates and wraps the data; labels are in `0..num_classes`.
    ///
    /// # Errors
    /// `num_classes < 2`, no rows, lengths that differ, a label `>= num_classes`, a class with
    /// no (positive-weight) example, a negative or non-finite weight, or `l2` negative or
    /// non-finite.
    pub fn new(
        x: &'a X,
        y: &'a [u32],
        weights: Option<&'a [f64]>,
        num_classes: usize,
        l2: f64,
    ) -> Result<Self> {
        if num_classes < 2 {
            return Err(Error::param(
                "num_classes",
                format!("need at least 2 classes, got {num_classes}"),
            ));
        }
        if !(l2.is_finite() && l2 >= 0.0) {
            return Err(Error::param(
                "l2",
                format!("must be finite and >= 0, got {l2}"),
            ));
        }
        let weights = checked_weights(weights, x.nrows())?;
        check_training_data(x, y, &weights, num_classes)?;
        let total_weight = weights.iter().sum();
        Ok(Self {
            x,
            y,
            weights,
            total_weight,
            l2,
            num_classes,
        })
    }
}

/// Fills `eta` (length K, `eta[0] = 0`) with the linear predictors of row `i` of `x` and
/// turns it into class probabilities in place; returns `log Σ_k e^{η_k}`.
fn softmax_row<X: Design>(params: &[f64], x: &X, i: usize, eta: &mut [f64]) -> f64 {
    let stride = x.ncols() + 1;
    eta[0] = 0.0;
    for (k, e) in eta[1..].iter_mut().enumerate() {
        let b = &params[k * stride..(k + 1) * stride];
        *e = b[0] + x.row_dot(i, &b[1..]);
    }
    let m = eta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut s = 0.0;
    for e in eta.iter_mut() {
        *e = (*e - m).exp();
        s += *e;
    }
    for e in eta.iter_mut() {
        *e /= s;
    }
    m + s.ln()
}

impl<X: Design> SmoothObjective for MultinomialProblem<'_, X> {
    /// (K − 1)(d + 1).
    fn dim(&self) -> usize {
        (self.num_classes - 1) * (self.x.ncols() + 1)
    }

    fn value_and_gradient(&self, params: &[f64], grad: &mut [f64]) -> f64 {
        assert_eq!(params.len(), self.dim(), "parameter length");
        let stride = self.x.ncols() + 1;
        grad.fill(0.0);
        let mut value = 0.0;
        let mut prob = vec![0.0; self.num_classes];
        for (i, (&y, &w)) in self.y.iter().zip(self.weights.iter()).enumerate() {
            if w == 0.0 {
                continue;
            }
            let lse = softmax_row(params, self.x, i, &mut prob);
            let eta_y = if y == 0 {
                0.0
            } else {
                let b = &params[(y as usize - 1) * stride..y as usize * stride];
                b[0] + self.x.row_dot(i, &b[1..])
            };
            value += w * (lse - eta_y);
            for k in 1..self.num_classes {
                let r = w * (prob[k] - if y as usize == k { 1.0 } else { 0.0 });
                let g = &mut grad[(k - 1) * stride..k * stride];
                g[0] += r;
                self.x.add_row(i, r, &mut g[1..]);
            }
        }
        for k in 0..self.num_classes - 1 {
            let b = &params[k * stride + 1..(k + 1) * stride];
            value += 0.5 * self.l2 * dot(b, b);
            for (g, &bj) in grad[k * stride + 1..(k + 1) * stride].iter_mut().zip(b) {
                *g += self.l2 * bj;
            }
        }
        optim::per_unit_weight(value, grad, self.total_weight)
    }
}

/// A fitted multinomial logistic regression with `K` classes and reference class 0.
///
/// Minimises [`MultinomialProblem`] (negative weighted log-likelihood plus a tiny ridge
/// [`LogisticConfig::l2`] on the non-intercept coefficients) with L-BFGS from `argmin`,
/// starting from zero slopes and intercepts `log(W_k / W_0)` (the weighted class shares).
/// With two classes it is the binary [`super::LogisticRegression`].
///
/// *Runtime*: O(n·d·K) per objective evaluation (O(n·blocks·K) on a
/// [`super::CodedMatrix`]). *Memory*: the rows plus O(n + d·K).
///
/// ```
/// use disguise::learn::{LogisticConfig, Matrix, MultinomialLogisticRegression};
///
/// let x = Matrix::new(6, 1, vec![0., 0.5, 2., 2.5, 4., 4.5])?;
/// let y = [0, 0, 1, 1, 2, 2];
/// let m = MultinomialLogisticRegression::fit(&x, &y, None, 3, &LogisticConfig::default())?;
/// let p = m.predict_proba(&x)?;
/// assert_eq!(p.ncols(), 3);
/// assert!(p.get(0, 0) > 0.5 && p.get(5, 2) > 0.5);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MultinomialLogisticRegression {
    num_classes: usize,
    num_features: usize,
    params: Vec<f64>,
    convergence: Convergence,
}

impl MultinomialLogisticRegression {
    /// Fits the model to rows `x` (a dense [`Matrix`] or any [`Design`]), labels
    /// `y ∈ 0..num_classes` and optional weights.
    ///
    /// # Errors
    /// See [`MultinomialProblem::new`]; also an invalid `config`. Non-convergence is not an
    /// error: check [`MultinomialLogisticRegression::convergence`].
    pub fn fit<X: Design>(
        x: &X,
        y: &[u32],
        weights: Option<&[f64]>,
        num_classes: usize,
        config: &LogisticConfig,
    ) -> Result<Self> {
        let options = config.validate()?;
        let problem = MultinomialProblem::new(x, y, weights, num_classes, config.l2)?;
        let mut class_weight = vec![0.0; num_classes];
        for (&c, &w) in y.iter().zip(problem.weights.iter()) {
            class_weight[c as usize] += w;
        }
        let stride = x.ncols() + 1;
        let mut start = vec![0.0; problem.dim()];
        for k in 1..num_classes {
            start[(k - 1) * stride] = (class_weight[k] / class_weight[0]).ln();
        }
        let (params, convergence) = optim::minimize(&problem, start, options)?;
        Ok(Self {
            num_classes,
            num_features: x.ncols(),
            params,
            convergence,
        })
    }

    /// Number of classes `K`.
    pub fn num_classes(&self) -> usize {
        self.num_classes
    }

    /// `(β_{k0}, β_k)` of class `k` (intercept first); all zeros for the reference class 0.
    ///
    /// # Panics
    /// If `k >= num_classes()`.
    pub fn class_coefficients(&self, k: usize) -> Vec<f64> {
        assert!(k < self.num_classes, "class {k} out of range");
        let stride = self.num_features + 1;
        if k == 0 {
            vec![0.0; stride]
        } else {
            self.params[(k - 1) * stride..k * stride].to_vec()
        }
    }

    /// How the optimisation ended.
    pub fn convergence(&self) -> &Convergence {
        &self.convergence
    }

    /// Class probabilities: an `n × K` matrix whose rows sum to 1.
    ///
    /// # Errors
    /// `x` has a different number of columns than the training data.
    pub fn predict_proba<X: Design>(&self, x: &X) -> Result<Matrix> {
        check_columns(x, self.num_features)?;
        let mut out = Vec::with_capacity(x.nrows() * self.num_classes);
        let mut prob = vec![0.0; self.num_classes];
        for i in 0..x.nrows() {
            softmax_row(&self.params, x, i, &mut prob);
            out.extend_from_slice(&prob);
        }
        Matrix::new(x.nrows(), self.num_classes, out)
    }

    /// The most probable class of each row (ties to the smaller class code).
    ///
    /// # Errors
    /// `x` has a different number of columns than the training data.
    pub fn predict<X: Design>(&self, x: &X) -> Result<Vec<u32>> {
        let p = self.predict_proba(x)?;
        Ok(p.row_iter().map(argmax).collect())
    }
}

/// Index of the largest value (first on ties).
pub(crate) fn argmax(row: &[f64]) -> u32 {
    let mut best = 0;
    for (k, &v) in row.iter().enumerate() {
        if v > row[best] {
            best = k;
        }
    }
    best as u32
}
