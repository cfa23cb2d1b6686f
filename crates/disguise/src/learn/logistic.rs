//! Binary logistic regression with sample weights (OLR on original data, HLR on a release).

use super::optim::{self, Convergence, Options, SmoothObjective};
use super::{
    Design, Matrix, check_columns, check_training_data, checked_weights, dot, sigmoid, softplus,
};
use crate::error::{Error, Result};
use serde::Serialize;
use std::borrow::Cow;

/// Options of [`LogisticRegression::fit`] (and of the multinomial fit).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LogisticConfig {
    /// Ridge λ ≥ 0 on the coefficients (not the intercept): the objective gains
    /// `λ/2 · ‖β‖²`. The default `1e-6` is negligible next to the log-likelihood of any real
    /// data set (the fit matches unpenalised maximum likelihood, as R's `glm`, to many digits)
    /// but keeps the minimiser finite when the classes are separable, where maximum likelihood
    /// has no solution.
    pub l2: f64,
    /// Largest number of L-BFGS iterations (default 1000).
    pub max_iters: u64,
    /// Stop when the Euclidean norm of the gradient of the weight-normalised objective
    /// (see [`LogisticProblem`]) falls below this (default `1e-9`).
    pub tol_grad: f64,
}

impl Default for LogisticConfig {
    fn default() -> Self {
        Self {
            l2: 1e-6,
            max_iters: 1000,
            tol_grad: 1e-9,
        }
    }
}

impl LogisticConfig {
    pub(crate) fn validate(&self) -> Result<Options> {
        if !(self.l2.is_finite() && self.l2 >= 0.0) {
            return Err(Error::param(
                "l2",
                format!("must be finite and >= 0, got {}", self.l2),
            ));
        }
        if !(self.tol_grad.is_finite() && self.tol_grad >= 0.0) {
            return Err(Error::param(
                "tol_grad",
                format!("must be finite and >= 0, got {}", self.tol_grad),
            ));
        }
        if self.max_iters == 0 {
            return Err(Error::param("max_iters", "must be at least 1"));
        }
        Ok(Options {
            max_iters: self.max_iters,
            tol_grad: self.tol_grad,
        })
    }
}

/// The objective of weighted binary logistic regression, exposed so that it can be checked
/// (e.g. against finite differences) and reused.
///
/// Parameters are `θ = (β₀, β₁, …, β_d)`: the intercept first. With the linear predictor
/// `ηᵢ = β₀ + βᵀxᵢ` and labels `yᵢ ∈ {0, 1}`,
///
/// ```text
/// f(θ) = ( Σᵢ wᵢ [log(1 + e^{ηᵢ}) − yᵢ ηᵢ] + λ/2 Σ_{j≥1} β_j² ) / Σᵢ wᵢ
/// ```
///
/// which is the negative weighted log-likelihood plus a ridge on the coefficients, divided by
/// the total weight `W` so that tolerances do not depend on the data size (the minimiser is
/// that of the undivided objective). `log(1 + e^η)` is evaluated without overflow.
/// Gradient: `( Σᵢ wᵢ (σ(ηᵢ) − yᵢ) (1, xᵢ) + λ (0, β) ) / W`, exact.
///
/// The rows `x` are any [`Design`] (dense [`Matrix`] by default).
#[derive(Debug, Clone)]
pub struct LogisticProblem<'a, X = Matrix> {
    x: &'a X,
    y: &'a [u32],
    weights: Cow<'a, [f64]>,
    total_weight: f64,
    l2: f64,
}

impl<'a, X: Design> LogisticProblem<'a, X> {
    /// Validates and wraps the data.
    ///
    /// # Errors
    /// No rows, lengths that differ, a label other than 0/1, a class with no (positive-weight)
    /// example, a negative or non-finite weight, or `l2` negative or non-finite.
    pub fn new(x: &'a X, y: &'a [u32], weights: Option<&'a [f64]>, l2: f64) -> Result<Self> {
        if !(l2.is_finite() && l2 >= 0.0) {
            return Err(Error::param(
                "l2",
                format!("must be finite and >= 0, got {l2}"),
            ));
        }
        let weights = checked_weights(weights, x.nrows())?;
        check_training_data(x, y, &weights, 2)?;
        let total_weight = weights.iter().sum();
        Ok(Self {
            x,
            y,
            weights,
            total_weight,
            l2,
        })
    }
}

impl<X: Design> SmoothObjective for LogisticProblem<'_, X> {
    /// d + 1.
    fn dim(&self) -> usize {
        self.x.ncols() + 1
    }

    fn value_and_gradient(&self, params: &[f64], grad: &mut [f64]) -> f64 {
        assert_eq!(params.len(), self.dim(), "parameter length");
        let (b0, beta) = (params[0], &params[1..]);
        grad.fill(0.0);
        let mut value = 0.0;
        for (i, (&y, &w)) in self.y.iter().zip(self.weights.iter()).enumerate() {
            if w == 0.0 {
                continue;
            }
            let eta = b0 + self.x.row_dot(i, beta);
            let yf = f64::from(y);
            value += w * (softplus(eta) - yf * eta);
            let r = w * (sigmoid(eta) - yf);
            grad[0] += r;
            self.x.add_row(i, r, &mut grad[1..]);
        }
        value += 0.5 * self.l2 * dot(beta, beta);
        for (g, &b) in grad[1..].iter_mut().zip(beta) {
            *g += self.l2 * b;
        }
        optim::per_unit_weight(value, grad, self.total_weight)
    }
}

/// A fitted binary logistic regression `P(y = 1 | x) = σ(β₀ + βᵀx)`.
///
/// Fits by minimising [`LogisticProblem`] with L-BFGS (the `argmin` crate), starting from
/// `β = 0` and `β₀ = logit` of the weighted share of class 1.
///
/// *Weights*: a weight `w` on a row is exactly `w` copies of it (fractional weights are
/// allowed), which is how a fit on a histogram release (HLR) uses its noisy counts.
///
/// *Runtime*: O(n·d) per objective evaluation (O(n·blocks) on a [`super::CodedMatrix`]);
/// typically tens of L-BFGS iterations. *Memory*: the rows plus O(n + d).
///
/// ```
/// use disguise::learn::{LogisticRegression, LogisticConfig, Matrix};
///
/// // A 2 × 2 table: x = 0 has 3 positives and 1 negative, x = 1 has 1 positive and
/// // 3 negatives, given as 4 distinct rows with counts as weights.
/// let x = Matrix::new(4, 1, vec![0., 0., 1., 1.])?;
/// let y = [1, 0, 1, 0];
/// let counts = [3., 1., 1., 3.];
/// let m = LogisticRegression::fit(&x, &y, Some(&counts), &LogisticConfig::default())?;
/// // Maximum likelihood: β₀ = logit(3/4) = ln 3, β₁ = logit(1/4) − logit(3/4) = −2 ln 3.
/// assert!((m.intercept() - 3f64.ln()).abs() < 1e-4);
/// assert!((m.coefficients()[0] + 2.0 * 3f64.ln()).abs() < 1e-4);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogisticRegression {
    intercept: f64,
    coefficients: Vec<f64>,
    convergence: Convergence,
}

impl LogisticRegression {
    /// Fits the model to rows `x` (a dense [`Matrix`] or any [`Design`]), labels `y ∈ {0, 1}`
    /// and optional non-negative `weights`.
    ///
    /// # Errors
    /// See [`LogisticProblem::new`]; also an invalid `config`. Non-convergence within
    /// `max_iters` is **not** an error: check [`LogisticRegression::convergence`].
    pub fn fit<X: Design>(
        x: &X,
        y: &[u32],
        weights: Option<&[f64]>,
        config: &LogisticConfig,
    ) -> Result<Self> {
        let options = config.validate()?;
        let problem = LogisticProblem::new(x, y, weights, config.l2)?;
        let w1: f64 = problem
            .y
            .iter()
            .zip(problem.weights.iter())
            .filter(|(c, _)| **c == 1)
            .map(|(_, w)| w)
            .sum();
        let p1 = w1 / problem.total_weight;
        let mut start = vec![0.0; problem.dim()];
        start[0] = (p1 / (1.0 - p1)).ln();
        let (params, convergence) = optim::minimize(&problem, start, options)?;
        Ok(Self::from_parts(
            params[0],
            params[1..].to_vec(),
            convergence,
        ))
    }

    pub(crate) fn from_parts(
        intercept: f64,
        coefficients: Vec<f64>,
        convergence: Convergence,
    ) -> Self {
        Self {
            intercept,
            coefficients,
            convergence,
        }
    }

    /// β₀.
    pub fn intercept(&self) -> f64 {
        self.intercept
    }

    /// β₁, …, β_d, one per column of the training matrix.
    pub fn coefficients(&self) -> &[f64] {
        &self.coefficients
    }

    /// How the optimisation ended.
    pub fn convergence(&self) -> &Convergence {
        &self.convergence
    }

    /// The linear predictor `β₀ + βᵀx` of each row.
    ///
    /// # Errors
    /// `x` has a different number of columns than the training data.
    pub fn decision_function<X: Design>(&self, x: &X) -> Result<Vec<f64>> {
        check_columns(x, self.coefficients.len())?;
        Ok((0..x.nrows())
            .map(|i| self.intercept + x.row_dot(i, &self.coefficients))
            .collect())
    }

    /// `P(y = 1 | x)` for each row.
    ///
    /// # Errors
    /// `x` has a different number of columns than the training data.
    pub fn predict_proba<X: Design>(&self, x: &X) -> Result<Vec<f64>> {
        let eta = self.decision_function(x)?;
        Ok(eta.into_iter().map(sigmoid).collect())
    }
}
