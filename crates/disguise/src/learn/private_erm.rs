//! The private baselines of Vinterbo (2012): PLR, logistic regression by objective
//! perturbation (Chaudhuri, Monteleoni and Sarwate 2011), and PMLR, q one-vs-rest PLR models.
//!
//! # Citation
//! K. Chaudhuri, C. Monteleoni, A. D. Sarwate, "Differentially Private Empirical Risk
//! Minimization", *JMLR* 12:1069–1109, 2011: Algorithm 2 (ERM with objective perturbation),
//! Theorem 9 (its ε-differential privacy; numbering of the JMLR version), and its
//! logistic-regression instance (loss `ℓ(z) = log(1 + e^{−z})`, `c = 1/4`).
//!
//! # Floating point
//! The theorem is about real numbers: an exact minimiser and noise drawn exactly from a
//! continuous density. Here the noise comes from [`crate::SecureRng`] through the
//! floating-point samplers of [`crate::noise::continuous`] (exponentials as `−ln U` of a 53-bit uniform,
//! Gaussians by Box–Muller), and the minimiser is L-BFGS run to a tight gradient tolerance.
//! Floating-point samplers leak through the pattern of representable values (Mironov, CCS
//! 2012) and an inexact minimiser is not the algorithm the theorem covers, so the guarantee
//! below is that of the idealised algorithm. These models are **baselines for comparison**
//! (as in Vinterbo's experiments), not hardened mechanisms; the library's selection and
//! histogram mechanisms use exact samplers.

use super::logistic::LogisticRegression;
use super::multinomial::argmax;
use super::optim::{self, Convergence, Options, SmoothObjective};
use super::{Design, Matrix, check_columns, dot, sigmoid, softplus};
use crate::error::{Error, Result};
use crate::noise::continuous::{gamma_integer_shape, uniform_direction};
use crate::privacy::{Epsilon, PrivacyCost};
use rand_core::{CryptoRng, Rng};
use serde::Serialize;

/// The bound `c` on `|ℓ''|` for the logistic loss `ℓ(z) = log(1 + e^{−z})`:
/// `ℓ''(z) = σ(z)σ(−z) ≤ 1/4`.
const LOGISTIC_C: f64 = 0.25;

/// The perturbation `b ∈ R^dim` of objective perturbation: density proportional to
/// `exp(−(ε′/2) ‖b‖)` (Chaudhuri et al. 2011, eq. (4) with `β = ε′/2`, as Algorithm 2 draws
/// it).
///
/// In polar coordinates the density of `r = ‖b‖` is proportional to `r^{dim−1} e^{−βr}`, so
/// `‖b‖ ~ Gamma(dim, 2/ε′)` (mean `2·dim/ε′`), independent of a uniform direction; that is how
/// it is drawn ([`gamma_integer_shape`] × [`uniform_direction`]).
///
/// # Errors
/// `dim == 0`, or `epsilon_prime` not finite and > 0.
pub fn objective_noise<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    dim: usize,
    epsilon_prime: f64,
) -> Result<Vec<f64>> {
    if !(epsilon_prime.is_finite() && epsilon_prime > 0.0) {
        return Err(Error::param(
            "epsilon_prime",
            format!("must be finite and > 0, got {epsilon_prime}"),
        ));
    }
    let direction = uniform_direction(rng, dim)?;
    let radius = gamma_integer_shape(rng, dim as u64, 2.0 / epsilon_prime)?;
    Ok(direction.into_iter().map(|u| u * radius).collect())
}

/// Public per-column bounds `[lowerⱼ, upperⱼ]` that map a row into the unit ball, as
/// objective perturbation requires (`‖x‖ ≤ 1`).
///
/// They must come from public knowledge (the schema, the domain of a binned attribute), never
/// from the private data: bounds computed from the data would themselves leak it.
///
/// The embedding of a row `x` with `p` columns is the `(p + 1)`-vector
///
/// ```text
/// x̃ = (1, z₁, …, z_p) / √(p + 1),   zⱼ = clamp((2xⱼ − lowerⱼ − upperⱼ) / (upperⱼ − lowerⱼ), −1, 1)
/// ```
///
/// i.e. each column is mapped affinely onto `[−1, 1]` (values outside the bounds are clamped,
/// a data-independent map), a constant 1 is prepended to carry the intercept, and the whole is
/// divided by `√(p + 1)` so that `‖x̃‖ ≤ 1` for every row, the constant included.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeatureBounds {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl FeatureBounds {
    /// Bounds from per-column lower and upper limits.
    ///
    /// # Errors
    /// Lengths that differ, a non-finite limit, or `lowerⱼ >= upperⱼ`.
    pub fn new(lower: Vec<f64>, upper: Vec<f64>) -> Result<Self> {
        if lower.len() != upper.len() {
            return Err(Error::param(
                "bounds",
                format!("{} lower and {} upper limits", lower.len(), upper.len()),
            ));
        }
        for (j, (&lo, &hi)) in lower.iter().zip(&upper).enumerate() {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(Error::param(
                    "bounds",
                    format!("column {j}: need finite lower < upper, got [{lo}, {hi}]"),
                ));
            }
        }
        Ok(Self { lower, upper })
    }

    /// `[0, 1]` for each of `cols` columns: the bounds of [`super::one_hot`] indicators.
    pub fn indicators(cols: usize) -> Self {
        Self {
            lower: vec![0.0; cols],
            upper: vec![1.0; cols],
        }
    }

    /// The number of columns `p`.
    pub fn len(&self) -> usize {
        self.lower.len()
    }

    /// Whether there are no columns (an intercept-only model).
    pub fn is_empty(&self) -> bool {
        self.lower.is_empty()
    }

    /// The scale `1/√(p + 1)` of the embedding.
    fn scale(&self) -> f64 {
        1.0 / ((self.len() + 1) as f64).sqrt()
    }

    /// The embedded value `zⱼ·s` of value `v` in column `j`.
    #[inline]
    fn embed_value(&self, j: usize, v: f64, s: f64) -> f64 {
        let (lo, hi) = (self.lower[j], self.upper[j]);
        let z = ((2.0 * v - lo - hi) / (hi - lo)).clamp(-1.0, 1.0);
        z * s
    }

    /// The embedding of an all-zero row: the row every embedded row starts from.
    fn embedded_zero(&self) -> Vec<f64> {
        let s = self.scale();
        std::iter::once(s)
            .chain((0..self.len()).map(|j| self.embed_value(j, 0.0, s)))
            .collect()
    }

    /// Writes the embedding of row `i` of `x` into `out` (length p + 1), starting from
    /// `zero` ([`FeatureBounds::embedded_zero`]): only the visited entries are computed, and
    /// the others are embedded zeros, so the row equals the one [`FeatureBounds::embed`]
    /// computes, bit for bit, without an `n × (p + 1)` matrix.
    #[inline]
    fn embed_row_of<X: Design>(&self, x: &X, i: usize, zero: &[f64], out: &mut [f64]) {
        out.copy_from_slice(zero);
        let s = zero[0];
        x.for_each_entry(i, |j, v| out[j + 1] = self.embed_value(j, v, s));
    }

    /// The embedding `x̃` of every row: an `n × (p + 1)` matrix whose rows have norm ≤ 1,
    /// the scaled constant in column 0. (The models embed one row at a time instead.)
    ///
    /// # Errors
    /// `x` does not have `p` columns.
    pub fn embed<X: Design>(&self, x: &X) -> Result<Matrix> {
        check_columns(x, self.len())?;
        let zero = self.embedded_zero();
        let mut data = vec![0.0; x.nrows() * (self.len() + 1)];
        for (i, row) in data.chunks_exact_mut(self.len() + 1).enumerate() {
            self.embed_row_of(x, i, &zero, row);
        }
        Matrix::new(x.nrows(), self.len() + 1, data)
    }
}

/// Options of [`PrivateLogisticRegression::fit`] and
/// [`PrivateMultinomialLogisticRegression::fit`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PlrConfig {
    /// The privacy budget ε of the whole fit (PMLR splits it over its models).
    pub epsilon: f64,
    /// The regulariser Λ > 0 of `(Λ/2)‖f‖²`. `None` picks the smallest Λ whose privacy
    /// penalty `2 ln(1 + c/(nΛ))` is ε/10, i.e. `Λ = c / (n (e^{ε/20} − 1))` (the default
    /// rule of Vinterbo's R package PrivateLR), so that ε′ = 0.9 ε calibrates the noise. Λ
    /// depends on `n`, which objective perturbation treats as public.
    pub lambda: Option<f64>,
    /// Largest number of L-BFGS iterations (default 1000).
    pub max_iters: u64,
    /// Gradient-norm tolerance of L-BFGS (default `1e-10`).
    pub tol_grad: f64,
}

impl PlrConfig {
    /// ε with the default Λ rule and optimiser settings.
    pub fn new(epsilon: f64) -> Self {
        Self {
            epsilon,
            lambda: None,
            max_iters: 1000,
            tol_grad: 1e-10,
        }
    }

    /// The same configuration with an explicit Λ.
    pub fn with_lambda(mut self, lambda: f64) -> Self {
        self.lambda = Some(lambda);
        self
    }

    fn options(&self) -> Result<Options> {
        if self.max_iters == 0 {
            return Err(Error::param("max_iters", "must be at least 1"));
        }
        if !(self.tol_grad.is_finite() && self.tol_grad >= 0.0) {
            return Err(Error::param(
                "tol_grad",
                format!("must be finite and >= 0, got {}", self.tol_grad),
            ));
        }
        Ok(Options {
            max_iters: self.max_iters,
            tol_grad: self.tol_grad,
        })
    }
}

/// The parameters Algorithm 2 derives from (ε, Λ, n) before drawing noise.
#[derive(Debug, Clone, Copy)]
struct Calibration {
    lambda: f64,
    epsilon_prime: f64,
    extra_ridge: f64,
}

fn calibrate(epsilon: f64, lambda: Option<f64>, n: usize) -> Result<Calibration> {
    let nf = n as f64;
    let lambda = match lambda {
        Some(l) => l,
        None => {
            let l = LOGISTIC_C / (nf * (epsilon / 20.0).exp_m1());
            if !(l.is_finite() && l > 0.0) {
                return Err(Error::param(
                    "lambda",
                    format!(
                        "the default rule gives Λ = {l} for ε = {epsilon}; set lambda explicitly"
                    ),
                ));
            }
            l
        }
    };
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(Error::param(
            "lambda",
            format!("must be finite and > 0, got {lambda}"),
        ));
    }
    // ε′ = ε − log(1 + 2c/(nΛ) + c²/(n²Λ²)) = ε − 2 ln(1 + c/(nΛ)).
    let penalty = 2.0 * (LOGISTIC_C / (nf * lambda)).ln_1p();
    let mut epsilon_prime = epsilon - penalty;
    let mut extra_ridge = 0.0;
    if epsilon_prime <= 0.0 {
        // Algorithm 2's second branch: add Δ so that the effective regulariser Λ + Δ costs
        // exactly ε/2, and calibrate the noise to the other half. Δ > 0 here because
        // ε′ ≤ 0 means Λ ≤ c / (n (e^{ε/2} − 1)) < c / (n (e^{ε/4} − 1)).
        extra_ridge = LOGISTIC_C / (nf * (epsilon / 4.0).exp_m1()) - lambda;
        epsilon_prime = epsilon / 2.0;
    }
    if !(extra_ridge.is_finite() && extra_ridge >= 0.0 && epsilon_prime > 0.0) {
        return Err(Error::param(
            "epsilon",
            format!("cannot calibrate objective perturbation for ε = {epsilon}, n = {n}"),
        ));
    }
    Ok(Calibration {
        lambda,
        epsilon_prime,
        extra_ridge,
    })
}

/// `J(f) = (1/n) Σ ℓ(sᵢ fᵀx̃ᵢ) + ((Λ + Δ)/2)‖f‖² + (1/n) bᵀf`, `sᵢ = ±1`. The embedded rows
/// `x̃ᵢ` are computed one at a time from `x` (dense: every entry of x̃ is nonzero).
struct PerturbedObjective<'a, X> {
    x: &'a X,
    bounds: &'a FeatureBounds,
    zero: Vec<f64>,
    signs: Vec<f64>,
    noise: Vec<f64>,
    ridge: f64,
}

impl<X: Design> SmoothObjective for PerturbedObjective<'_, X> {
    fn dim(&self) -> usize {
        self.zero.len()
    }

    fn value_and_gradient(&self, f: &[f64], grad: &mut [f64]) -> f64 {
        let inv_n = 1.0 / self.x.nrows() as f64;
        grad.fill(0.0);
        let mut loss = 0.0;
        let mut row = vec![0.0; self.zero.len()];
        for (i, &s) in self.signs.iter().enumerate() {
            self.bounds.embed_row_of(self.x, i, &self.zero, &mut row);
            let z = s * dot(f, &row);
            loss += softplus(-z);
            // ℓ′(z) = −σ(−z); d/df ℓ(s fᵀx) = ℓ′(z) s x.
            let r = -sigmoid(-z) * s;
            for (g, &xj) in grad.iter_mut().zip(&row) {
                *g += r * xj;
            }
        }
        for ((g, &fj), &bj) in grad.iter_mut().zip(f).zip(&self.noise) {
            *g = *g * inv_n + self.ridge * fj + bj * inv_n;
        }
        loss * inv_n + 0.5 * self.ridge * dot(f, f) + inv_n * dot(&self.noise, f)
    }
}

/// PLR: binary logistic regression by objective perturbation (Chaudhuri, Monteleoni and
/// Sarwate 2011, Algorithm 2), ε-differentially private.
///
/// Rows are embedded in the unit ball with public [`FeatureBounds`] (a constant feature
/// carries the intercept), labels `y ∈ {0, 1}` become `s = 2y − 1 ∈ {−1, +1}`, and with
/// `c = 1/4`:
///
/// 1. `ε′ = ε − log(1 + 2c/(nΛ) + c²/(n²Λ²))`; if `ε′ > 0` then `Δ = 0`, else
///    `Δ = c/(n(e^{ε/4} − 1)) − Λ` and `ε′ = ε/2`;
/// 2. draw `b` with density `∝ exp(−(ε′/2)‖b‖)` ([`objective_noise`]);
/// 3. return `f = argmin (1/n) Σᵢ log(1 + e^{−sᵢ fᵀx̃ᵢ}) + (Λ/2)‖f‖² + (1/n) bᵀf + (Δ/2)‖f‖²`
///    (strongly convex; minimised with L-BFGS).
///
/// `P(y = 1 | x) = σ(fᵀx̃)`.
///
/// # Guarantee
/// ε-differential privacy (pure, δ = 0) for the coefficients and everything computed from
/// them, under the neighbouring relation *replace one record* `(xᵢ, yᵢ)` of a data set of
/// public size `n`: Chaudhuri et al. 2011, Theorem 9 (Algorithm 2 is ε_p-DP when the
/// regulariser is 1-strongly convex and the loss is convex and doubly differentiable with
/// `|ℓ′| ≤ 1`, `|ℓ″| ≤ c`, for `‖xᵢ‖ ≤ 1`), with `ℓ(z) = log(1 + e^{−z})`, `c = 1/4` and
/// `N(f) = ½‖f‖²`. The whole ε is spent: `ε − ε′` pays for the regulariser's influence and
/// `ε′` calibrates `b`. The embedding uses only the public bounds, so `‖x̃ᵢ‖ ≤ 1` holds for
/// every possible record. Data with a single class are *not* refused: refusing would be a
/// data-dependent output outside the guarantee. See the module documentation for the
/// floating-point caveat. [`PrivateLogisticRegression::cost`] reports the cost for the
/// accountant.
///
/// *Runtime*: O(n·p) per objective evaluation. *Memory*: the rows `x` plus O(n + p): the
/// embedded rows are computed one at a time, never stored.
///
/// *Utility*: Chaudhuri et al. 2011 bound its generalization error; Vinterbo 2012 uses it as
/// the private binary baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrivateLogisticRegression {
    bounds: FeatureBounds,
    coefficients: Vec<f64>,
    epsilon: Epsilon,
    epsilon_prime: f64,
    lambda: f64,
    extra_ridge: f64,
    convergence: Convergence,
}

impl PrivateLogisticRegression {
    /// Fits PLR to rows `x` (within or clamped to `bounds`) and labels `y ∈ {0, 1}`, drawing
    /// the noise from `rng` (use [`crate::SecureRng::from_os`] for a real release).
    ///
    /// # Errors
    /// ε not finite and > 0 ([`Error::InvalidEpsilon`]); Λ not finite and > 0 (or the default
    /// rule underflowing for huge ε); no rows; `y` or `bounds` of the wrong length; a label
    /// other than 0/1; invalid optimiser options.
    pub fn fit<X: Design, R: Rng + CryptoRng + ?Sized>(
        x: &X,
        y: &[u32],
        bounds: &FeatureBounds,
        config: &PlrConfig,
        rng: &mut R,
    ) -> Result<Self> {
        let epsilon = Epsilon::new(config.epsilon)?;
        let options = config.options()?;
        let n = x.nrows();
        if n == 0 {
            return Err(Error::param("x", "no training examples"));
        }
        if y.len() != n {
            return Err(Error::param(
                "y",
                format!("{} labels for {n} rows", y.len()),
            ));
        }
        if let Some(i) = y.iter().position(|&c| c > 1) {
            return Err(Error::param(
                "y",
                format!("labels must be 0 or 1, got {} at row {i}", y[i]),
            ));
        }
        check_columns(x, bounds.len())?;
        let dim = bounds.len() + 1;
        let cal = calibrate(epsilon.get(), config.lambda, n)?;
        let noise = objective_noise(rng, dim, cal.epsilon_prime)?;
        let objective = PerturbedObjective {
            x,
            bounds,
            zero: bounds.embedded_zero(),
            signs: y.iter().map(|&c| if c == 1 { 1.0 } else { -1.0 }).collect(),
            noise,
            ridge: cal.lambda + cal.extra_ridge,
        };
        let (coefficients, convergence) = optim::minimize(&objective, vec![0.0; dim], options)?;
        Ok(Self {
            bounds: bounds.clone(),
            coefficients,
            epsilon,
            epsilon_prime: cal.epsilon_prime,
            lambda: cal.lambda,
            extra_ridge: cal.extra_ridge,
            convergence,
        })
    }

    /// `f`, the coefficients of the embedded features `x̃` (see [`FeatureBounds`]): index 0
    /// multiplies the scaled constant, index `j` the scaled column `j − 1`.
    pub fn coefficients(&self) -> &[f64] {
        &self.coefficients
    }

    /// The equivalent logistic regression on the original columns: `f` mapped back through
    /// the embedding, exact wherever the rows lie inside the bounds (outside them the private
    /// model clamps and this one extrapolates).
    pub fn to_logistic(&self) -> LogisticRegression {
        let p = self.bounds.len();
        let s = 1.0 / ((p + 1) as f64).sqrt();
        let mut intercept = self.coefficients[0] * s;
        let mut coefficients = Vec::with_capacity(p);
        for j in 0..p {
            let (lo, hi) = (self.bounds.lower[j], self.bounds.upper[j]);
            let fj = self.coefficients[j + 1] * s;
            coefficients.push(2.0 * fj / (hi - lo));
            intercept -= fj * (lo + hi) / (hi - lo);
        }
        LogisticRegression::from_parts(intercept, coefficients, self.convergence.clone())
    }

    /// `fᵀx̃` for each row.
    ///
    /// # Errors
    /// `x` has a different number of columns than the bounds.
    pub fn decision_function<X: Design>(&self, x: &X) -> Result<Vec<f64>> {
        check_columns(x, self.bounds.len())?;
        let zero = self.bounds.embedded_zero();
        let mut row = vec![0.0; zero.len()];
        Ok((0..x.nrows())
            .map(|i| {
                self.bounds.embed_row_of(x, i, &zero, &mut row);
                dot(&self.coefficients, &row)
            })
            .collect())
    }

    /// `P(y = 1 | x) = σ(fᵀx̃)` for each row.
    ///
    /// # Errors
    /// `x` has a different number of columns than the bounds.
    pub fn predict_proba<X: Design>(&self, x: &X) -> Result<Vec<f64>> {
        let eta = self.decision_function(x)?;
        Ok(eta.into_iter().map(sigmoid).collect())
    }

    /// The ε the fit spent.
    pub fn epsilon(&self) -> Epsilon {
        self.epsilon
    }

    /// ε′, the part of ε that calibrated the noise `b`.
    pub fn epsilon_prime(&self) -> f64 {
        self.epsilon_prime
    }

    /// The regulariser Λ used.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Δ, the extra ridge of Algorithm 2's second branch (0 when ε′ > 0 at first try).
    pub fn extra_ridge(&self) -> f64 {
        self.extra_ridge
    }

    /// How the optimisation ended.
    pub fn convergence(&self) -> &Convergence {
        &self.convergence
    }

    /// The privacy cost of the fit: pure ε-DP.
    pub fn cost(&self) -> PrivacyCost {
        PrivacyCost::Pure {
            epsilon: self.epsilon,
        }
    }
}

/// PMLR: `q` one-vs-rest [`PrivateLogisticRegression`] models, one per class, each at ε/q,
/// with class probabilities `σ(f_kᵀx̃) / Σ_j σ(f_jᵀx̃)` (Vinterbo 2012, Section 3.1.1).
///
/// # Guarantee
/// ε-differential privacy (pure) under *replace one record*, by basic sequential
/// composition (Dwork, McSherry, Nissim, Smith 2006; Dwork and Roth 2014, Theorem 3.16) of `q`
/// fits that each satisfy ε/q-DP by Chaudhuri et al. 2011, Theorem 9 (see
/// [`PrivateLogisticRegression`]): every record takes part in all `q` fits. Labels are only
/// checked against the public number of classes; the floating-point caveat of the module
/// documentation applies.
///
/// *Runtime*: `q` PLR fits.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrivateMultinomialLogisticRegression {
    models: Vec<PrivateLogisticRegression>,
    epsilon: Epsilon,
}

impl PrivateMultinomialLogisticRegression {
    /// Fits `num_classes` one-vs-rest PLR models at `config.epsilon / num_classes` each (and
    /// `config.lambda`, or the default Λ rule applied at ε/q).
    ///
    /// # Errors
    /// `num_classes < 2`, a label `>= num_classes`, and everything
    /// [`PrivateLogisticRegression::fit`] rejects.
    pub fn fit<X: Design, R: Rng + CryptoRng + ?Sized>(
        x: &X,
        y: &[u32],
        num_classes: usize,
        bounds: &FeatureBounds,
        config: &PlrConfig,
        rng: &mut R,
    ) -> Result<Self> {
        let epsilon = Epsilon::new(config.epsilon)?;
        if num_classes < 2 {
            return Err(Error::param(
                "num_classes",
                format!("need at least 2 classes, got {num_classes}"),
            ));
        }
        if let Some(i) = y.iter().position(|&c| c as usize >= num_classes) {
            return Err(Error::param(
                "y",
                format!(
                    "label {} at row {i} is not below the number of classes {num_classes}",
                    y[i]
                ),
            ));
        }
        let per_model = PlrConfig {
            epsilon: epsilon.get() / num_classes as f64,
            ..*config
        };
        let mut models = Vec::with_capacity(num_classes);
        for k in 0..num_classes {
            let yk: Vec<u32> = y.iter().map(|&c| u32::from(c as usize == k)).collect();
            models.push(PrivateLogisticRegression::fit(
                x, &yk, bounds, &per_model, rng,
            )?);
        }
        Ok(Self { models, epsilon })
    }

    /// The one-vs-rest model of each class.
    pub fn models(&self) -> &[PrivateLogisticRegression] {
        &self.models
    }

    /// Normalised class probabilities: an `n × q` matrix whose rows sum to 1.
    ///
    /// # Errors
    /// `x` has a different number of columns than the bounds.
    pub fn predict_proba<X: Design>(&self, x: &X) -> Result<Matrix> {
        let q = self.models.len();
        let per_class: Vec<Vec<f64>> = self
            .models
            .iter()
            .map(|m| m.predict_proba(x))
            .collect::<Result<_>>()?;
        let mut out = Vec::with_capacity(x.nrows() * q);
        for i in 0..x.nrows() {
            // σ(·) > 0 for finite inputs, but can underflow to 0 for all classes at once.
            let total: f64 = per_class.iter().map(|p| p[i]).sum();
            for p in &per_class {
                out.push(if total > 0.0 {
                    p[i] / total
                } else {
                    1.0 / q as f64
                });
            }
        }
        Matrix::new(x.nrows(), q, out)
    }

    /// The most probable class of each row (ties to the smaller class code).
    ///
    /// # Errors
    /// `x` has a different number of columns than the bounds.
    pub fn predict<X: Design>(&self, x: &X) -> Result<Vec<u32>> {
        Ok(self.predict_proba(x)?.row_iter().map(argmax).collect())
    }

    /// The ε of the whole fit.
    pub fn epsilon(&self) -> Epsilon {
        self.epsilon
    }

    /// The privacy cost of the whole fit: pure ε-DP.
    pub fn cost(&self) -> PrivacyCost {
        PrivacyCost::Pure {
            epsilon: self.epsilon,
        }
    }
}
