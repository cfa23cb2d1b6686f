//! The one place the learners call the optimiser: L-BFGS from `argmin` with a Moré–Thuente
//! line search, on a smooth convex objective given as value + gradient in one pass.

use crate::error::{Error, Result};
use argmin::core::{CostFunction, Executor, Gradient, State, TerminationReason};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use serde::Serialize;
use std::cell::RefCell;

/// A smooth objective f(θ): its value and gradient at a point, computed in one pass over
/// the data. The learners' problems ([`super::LogisticProblem`],
/// [`super::MultinomialProblem`]) implement it; the optimiser minimises it.
pub trait SmoothObjective {
    /// Number of parameters.
    fn dim(&self) -> usize;

    /// Writes ∇f(θ) at `params` into `grad` (length `dim()`) and returns f(θ).
    fn value_and_gradient(&self, params: &[f64], grad: &mut [f64]) -> f64;

    /// f(θ).
    ///
    /// # Panics
    /// If `params.len() != dim()`.
    fn value(&self, params: &[f64]) -> f64 {
        let mut g = vec![0.0; self.dim()];
        self.value_and_gradient(params, &mut g)
    }

    /// ∇f(θ).
    ///
    /// # Panics
    /// If `params.len() != dim()`.
    fn gradient(&self, params: &[f64]) -> Vec<f64> {
        let mut g = vec![0.0; self.dim()];
        self.value_and_gradient(params, &mut g);
        g
    }
}

/// How an optimisation ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Convergence {
    /// L-BFGS iterations used.
    pub iterations: u64,
    /// Whether the optimiser stopped because it met its tolerance (gradient norm or change of
    /// the objective) or because the line search could make no further progress at a point
    /// whose gradient norm is below `1e-6` — as opposed to running out of iterations.
    pub converged: bool,
    /// The Euclidean norm of the (scaled) objective's gradient at the returned parameters.
    pub gradient_norm: f64,
    /// The optimiser's own words for why it stopped.
    pub reason: String,
}

/// Options of [`minimize`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    pub max_iters: u64,
    pub tol_grad: f64,
}

/// One evaluation: the point, the value there and the gradient there.
type Evaluation = (Vec<f64>, f64, Vec<f64>);

/// Caches the last (params, value, gradient): argmin asks for the cost and the gradient at the
/// same point separately, and each costs a pass over the data.
struct Cached<'a, O> {
    objective: &'a O,
    last: RefCell<Option<Evaluation>>,
}

impl<O: SmoothObjective> Cached<'_, O> {
    fn eval(&self, p: &[f64]) -> (f64, Vec<f64>) {
        if let Some((q, v, g)) = self.last.borrow().as_ref()
            && q.as_slice() == p
        {
            return (*v, g.clone());
        }
        let mut g = vec![0.0; self.objective.dim()];
        let v = self.objective.value_and_gradient(p, &mut g);
        *self.last.borrow_mut() = Some((p.to_vec(), v, g.clone()));
        (v, g)
    }
}

impl<O: SmoothObjective> CostFunction for Cached<'_, O> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, p: &Vec<f64>) -> std::result::Result<f64, argmin::core::Error> {
        finite(p)?;
        Ok(self.eval(p).0)
    }
}

impl<O: SmoothObjective> Gradient for Cached<'_, O> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, p: &Vec<f64>) -> std::result::Result<Vec<f64>, argmin::core::Error> {
        finite(p)?;
        Ok(self.eval(p).1)
    }
}

/// Refuses a non-finite trial point. Without this, a degenerate L-BFGS direction (NaN once
/// progress stalls at rounding level) makes argmin's Moré–Thuente line search loop forever:
/// its inner run has no iteration limit and NaN steps fail every termination test. The
/// error ends the line search; L-BFGS then stops with `SolverExit` and [`minimize`] keeps
/// the best point found.
fn finite(p: &[f64]) -> std::result::Result<(), argmin::core::Error> {
    if p.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(argmin::core::Error::msg("non-finite trial point"))
    }
}

/// Minimises `objective` from `start` with L-BFGS (memory 10).
pub(crate) fn minimize<O: SmoothObjective>(
    objective: &O,
    start: Vec<f64>,
    options: Options,
) -> Result<(Vec<f64>, Convergence)> {
    let optimiser_error = |e: argmin::core::Error| Error::param("optimiser", e.to_string());
    let problem = Cached {
        objective,
        last: RefCell::new(None),
    };
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 10)
        .with_tolerance_grad(options.tol_grad)
        .map_err(optimiser_error)?
        .with_tolerance_cost(0.0)
        .map_err(optimiser_error)?;
    let result = Executor::new(problem, solver)
        .configure(|state| state.param(start.clone()).max_iters(options.max_iters))
        .run()
        .map_err(optimiser_error)?;
    let mut state = result.state;
    let iterations = state.get_iter();
    let reason = state.get_termination_reason().cloned();
    let params = state
        .take_best_param()
        .or_else(|| state.take_param())
        .unwrap_or(start);
    let mut grad = vec![0.0; objective.dim()];
    let value = objective.value_and_gradient(&params, &mut grad);
    if !value.is_finite() {
        return Err(Error::param(
            "optimiser",
            "the objective is not finite at the solution (data too extreme for f64)",
        ));
    }
    let gradient_norm = grad.iter().map(|g| g * g).sum::<f64>().sqrt();
    let converged = match &reason {
        Some(TerminationReason::SolverConverged) => true,
        Some(TerminationReason::SolverExit(_)) => gradient_norm <= 1e-6,
        _ => false,
    };
    Ok((
        params,
        Convergence {
            iterations,
            converged,
            gradient_norm,
            reason: reason.map_or_else(|| "not terminated".to_string(), |r| r.text().to_string()),
        },
    ))
}

/// A weighted sum and its gradient (in place) divided by the total weight: the mean loss
/// per unit of weight.
pub(crate) fn per_unit_weight(value: f64, grad: &mut [f64], total_weight: f64) -> f64 {
    let inv_w = 1.0 / total_weight;
    grad.iter_mut().for_each(|g| *g *= inv_w);
    value * inv_w
}
