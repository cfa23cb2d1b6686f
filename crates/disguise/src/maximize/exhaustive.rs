//! Exhaustive search over every feasible set: the exact optimum OPT for small instances.

use super::Solution;
use super::baselines::non_private_solution;
use super::driver::check_sizes;
use crate::constraint::Independence;
use crate::error::{Error, Result};
use crate::objective::SetFunction;

/// The largest number of candidate sets [`exhaustive`] agrees to enumerate (an upper bound
/// Σ_{i ≤ r} C(|V|, i) is checked before starting).
pub const EXHAUSTIVE_LIMIT: u64 = 1 << 24;

/// The exact maximum of `objective` over all feasible sets of `constraint` (of every size,
/// so non-monotone objectives are handled), by depth-first enumeration in increasing element
/// order. Ties keep the first set found (the lexicographically smallest).
///
/// Meant for tests and for measuring approximation ratios on small instances (|V| ≲ 20).
///
/// # Guarantee
/// None (not private).
///
/// # Runtime
/// One gain evaluation (an incremental insert) per feasible set; refuses to start, with an
/// error, when Σ_{i ≤ r(I)} C(|V|, i) exceeds [`EXHAUSTIVE_LIMIT`].
///
/// ```
/// use disguise::constraint::Cardinality;
/// use disguise::maximize::exhaustive;
/// # use disguise::objective::{Properties, SetFunction};
/// # use disguise::privacy::Sensitivity;
/// # struct Weights(Vec<f64>);
/// # impl SetFunction for Weights {
/// #     type State = f64;
/// #     fn ground_size(&self) -> usize { self.0.len() }
/// #     fn empty(&self) -> f64 { 0.0 }
/// #     fn gains(&self, _: &f64, c: &[usize], out: &mut [f64]) {
/// #         for (o, &v) in out.iter_mut().zip(c) { *o = self.0[v]; }
/// #     }
/// #     fn insert(&self, s: &mut f64, v: usize) { *s += self.0[v]; }
/// #     fn value(&self, s: &f64) -> f64 { *s }
/// #     fn sensitivity(&self, _: usize) -> Sensitivity { Sensitivity::new(1.0).unwrap() }
/// #     fn properties(&self) -> Properties {
/// #         Properties::NONE
/// #     }
/// #     fn name(&self) -> &'static str { "weights" }
/// # }
/// let best = exhaustive(&Weights(vec![2.0, -1.0, 3.0, -5.0]), &Cardinality::new(4, 3))?;
/// assert_eq!(best.elements, vec![0, 2]); // the negative elements are left out
/// assert_eq!(best.value, 5.0);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn exhaustive<F, C>(objective: &F, constraint: &C) -> Result<Solution>
where
    F: SetFunction + ?Sized,
    C: Independence + ?Sized,
{
    let n = objective.ground_size();
    check_sizes(n, constraint)?;
    let bound = subsets_up_to(n, constraint.rank_bound());
    if bound > EXHAUSTIVE_LIMIT {
        return Err(Error::param(
            "exhaustive search",
            format!(
                "up to {bound} feasible sets ({n} elements, rank {}) exceed the limit of \
                 {EXHAUSTIVE_LIMIT}; use a greedy algorithm",
                constraint.rank_bound()
            ),
        ));
    }
    let mut search = Search {
        objective,
        constraint,
        current: Vec::new(),
        best: Vec::new(),
        best_value: f64::NEG_INFINITY,
        evaluations: 0,
    };
    let state = objective.empty();
    let cstate = constraint.empty();
    search.visit(0, &state, &cstate)?;

    let mut solution = non_private_solution("exhaustive", objective, constraint.name());
    solution.selector = "none";
    solution.gain_evaluations = search.evaluations;
    let mut state = objective.empty();
    solution.value = objective.value(&state);
    for &v in &search.best {
        objective.insert(&mut state, v);
        solution.elements.push(v);
        solution.value = objective.value(&state);
        solution.values.push(solution.value);
    }
    Ok(solution)
}

/// Σ_{i ≤ r} C(n, i), saturating.
fn subsets_up_to(n: usize, r: usize) -> u64 {
    let mut total: u64 = 0;
    let mut term: u128 = 1; // C(n, i)
    for i in 0..=r.min(n) {
        total = total.saturating_add(u64::try_from(term).unwrap_or(u64::MAX));
        if total == u64::MAX {
            break;
        }
        // C(n, i+1) = C(n, i)·(n − i)/(i + 1), exact in integers.
        term = term.saturating_mul((n - i) as u128) / (i as u128 + 1);
    }
    total
}

struct Search<'a, F: SetFunction + ?Sized, C: Independence + ?Sized> {
    objective: &'a F,
    constraint: &'a C,
    current: Vec<usize>,
    best: Vec<usize>,
    best_value: f64,
    evaluations: u64,
}

impl<F: SetFunction + ?Sized, C: Independence + ?Sized> Search<'_, F, C> {
    fn visit(&mut self, start: usize, state: &F::State, cstate: &C::State) -> Result<()> {
        let value = self.objective.value(state);
        if !value.is_finite() {
            return Err(Error::NonFiniteScore {
                index: self.current.last().copied().unwrap_or(0),
                value,
            });
        }
        if value > self.best_value {
            self.best_value = value;
            self.best.clone_from(&self.current);
        }
        for v in start..self.objective.ground_size() {
            if !self.constraint.can_add(cstate, v) {
                continue;
            }
            let mut next = state.clone();
            let mut cnext = cstate.clone();
            self.objective.insert(&mut next, v);
            self.constraint.insert(&mut cnext, v);
            self.evaluations += 1;
            self.current.push(v);
            self.visit(v + 1, &next, &cnext)?;
            self.current.pop();
        }
        Ok(())
    }
}
