//! Maximization algorithms, generic over objective × constraint × selector.
//!
//! Every greedy-type algorithm here is one loop (the private driver):
//!
//! ```text
//! S ← ∅
//! repeat (at most the planned number of rounds):
//!     C      ← candidates this round (policy: all feasible / a random subsample / …)
//!     scores ← objective.gains(S, C)               one bulk pass over the data
//!     v      ← selector.select(scores, λ(|S|))      the only place noise enters
//!     S      ← S ∪ {v}                              unless v is a dummy
//! ```
//!
//! | function | paper | candidates per round | privacy |
//! |---|---|---|---|
//! | [`greedy`] with [`Cardinality`](crate::constraint::Cardinality) | Algorithm 1, Thm 3.1/3.2/5.3 | all of V \ S | any selector, k rounds |
//! | [`greedy`] with a matroid / p-system | Algorithm 2, Thm 3.3/3.5/5.4 | feasible v ∉ S | any selector, r(I) rounds |
//! | [`subsample_greedy`] | Algorithm 4, Thm 4.1/5.5, Cor 4.2 | a uniform \|V\|/k subsample + a dummy | any selector, k rounds |
//! | [`standard_greedy`] | Nemhauser et al. 1978 | all feasible | none (argmax) |
//! | [`lazy_greedy`] | Minoux 1978 | lazily re-evaluated upper bounds | none |
//! | [`stochastic_greedy`] | Mirzasoleiman et al. 2015 | (n/k)·ln(1/α) random feasible | none |
//! | [`random_greedy`] | Buchbinder et al. 2014 | uniform among the top k | none |
//! | [`exhaustive`] | — | every feasible set | none (tests, tiny instances) |
//! | [`continuous_greedy`] | Rafiey & Yoshida 2020, Alg. 1–2 (matroids) | a direction per step: EM over all bases ([`exponential_base`]), r sequential picks, or sampled bases; then [`swap_round`] | EM only, T (or T·r) calls |
//! | [`k_submodular_greedy`] | Rafiey & Yoshida 2020, Alg. 3 | every (element, type) pair with a feasible support | any selector, r(M) rounds |
//! | [`k_submodular_subsample_greedy`] | Rafiey & Yoshida 2020, Alg. 4 | the pairs of a data-independent element sample | any selector, r(M) rounds |
//!
//! The selection procedure is a parameter ([`Procedure`]): a private [`SelectorKind`](crate::select::SelectorKind) calibrated
//! from a [`Budget`], the non-private argmax, or any [`Selector`](crate::select::Selector) you
//! built. Every run returns a [`Solution`] with the picks, the value after each pick, the
//! number of gain evaluations, the cost and sensitivity of every selector call, and the
//! end-to-end guarantee.

mod base_sampler;
mod baselines;
mod continuous_greedy;
mod driver;
mod exhaustive;
mod greedy;
mod k_submodular;
mod procedure;
mod subsample;
mod swap_rounding;

pub use base_sampler::{
    Block, MatroidBases, exponential_base, exponential_units, max_weight_base, random_base,
};
pub use baselines::{lazy_greedy, random_greedy, stochastic_greedy};
pub use continuous_greedy::{
    ContinuousGreedy, ContinuousGreedyRun, Directions, continuous_greedy, continuous_greedy_run,
};
pub use driver::{Planned, planned};
pub use exhaustive::{EXHAUSTIVE_LIMIT, exhaustive};
pub use greedy::{greedy, standard_greedy};
pub use k_submodular::{
    Assignment, k_submodular_exhaustive, k_submodular_greedy, k_submodular_sample_size,
    k_submodular_subsample_greedy,
};
pub use procedure::{Budget, Procedure};
pub use subsample::subsample_greedy;
pub use swap_rounding::swap_round;

use crate::privacy::budget::BestBudget;
use crate::privacy::{Guarantee, PrivacyCost, Sensitivity};
use serde::Serialize;

/// The result of a maximization run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Solution {
    /// The algorithm (`greedy`, `subsample-greedy`, `lazy-greedy`, …).
    pub algorithm: &'static str,
    /// The objective's name.
    pub objective: &'static str,
    /// The constraint's name.
    pub constraint: &'static str,
    /// The selector's name (`em`, `lmm`, `max`, …; `none` for algorithms without one).
    pub selector: &'static str,
    /// The chosen elements, in the order they were picked (dummies never appear).
    pub elements: Vec<usize>,
    /// f(S) after each pick: `values[i]` is the value of `elements[..=i]`.
    pub values: Vec<f64>,
    /// f(S) of the final solution (f(∅) when nothing was picked).
    pub value: f64,
    /// One record per selector call, in order.
    pub rounds: Vec<Round>,
    /// The number of selector calls the privacy analysis covers, fixed before the data is
    /// touched (k, or the rank bound r(I)); `rounds.len()` never exceeds it. The guarantee
    /// composes this many calls even if the run stopped earlier, because the stopping time
    /// is itself an output.
    pub planned_rounds: usize,
    /// How many marginal gains f(S ∪ {v}) − f(S) were evaluated (the runtime measure of the
    /// papers; for [`exhaustive`], one per set evaluated).
    pub gain_evaluations: u64,
    /// Whether the random generator was keyed by the operating system. A run driven by a
    /// seeded generator is reproducible by anyone and protects no one, whatever the
    /// guarantee says.
    pub secure_rng: bool,
    /// For a total budget ([`Budget::Total`]): the per-round (ε₀, δ₀) the accountant chose
    /// and the composition rule it was chosen for. `None` for a per-round budget.
    pub budget_split: Option<BestBudget>,
    /// The end-to-end (ε, δ) under every composition rule that applies (empty for a
    /// non-private run).
    pub guarantees: Vec<Guarantee>,
    /// The best of [`Solution::guarantees`] (smallest ε at the requested δ), naming the
    /// winning rule; `None` for a non-private run and for a run with no planned call
    /// (k = 0 touches no data and spends nothing).
    pub guarantee: Option<Guarantee>,
    /// The calls the guarantees compose: each per-call cost with its number of calls
    /// (`planned_rounds` calls of one cost for every algorithm of this module); empty for a
    /// non-private run. What a budget ledger composes across runs ([`crate::ledger`]).
    #[serde(skip)]
    pub calls: Vec<(PrivacyCost, u64)>,
}

/// One selector call of a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Round {
    /// How many scores the selector saw (real candidates plus dummies).
    pub candidates: usize,
    /// How many of them were dummies or already-chosen elements (score 0).
    pub dummies: usize,
    /// The element added, or `None` when the selector chose a dummy (nothing is added).
    pub pick: Option<usize>,
    /// The sensitivity λ passed to the selector (the objective's bound for |S| chosen).
    pub sensitivity: Sensitivity,
    /// The privacy cost of this call, as reported by the selector.
    pub cost: PrivacyCost,
    /// The large margin mechanisms' margin ℓ, if any.
    pub margin: Option<usize>,
}

impl Solution {
    /// A run that has picked nothing yet, with f(∅) = `value`: no rounds, no evaluations,
    /// no guarantee, no planned call and a seeded generator until its algorithm says
    /// otherwise (with struct-update syntax).
    pub(crate) fn empty(
        algorithm: &'static str,
        objective: &'static str,
        constraint: &'static str,
        selector: &'static str,
        value: f64,
    ) -> Self {
        Self {
            algorithm,
            objective,
            constraint,
            selector,
            elements: Vec::new(),
            values: Vec::new(),
            value,
            rounds: Vec::new(),
            planned_rounds: 0,
            gain_evaluations: 0,
            secure_rng: false,
            budget_split: None,
            guarantees: Vec::new(),
            guarantee: None,
            calls: Vec::new(),
        }
    }

    /// The per-call costs, in order (what the accountant composes).
    pub fn costs(&self) -> Vec<PrivacyCost> {
        self.rounds.iter().map(|r| r.cost).collect()
    }

    /// Whether every selector call was private (and there was at least one).
    pub fn is_private(&self) -> bool {
        !self.rounds.is_empty()
            && self
                .rounds
                .iter()
                .all(|r| !matches!(r.cost, PrivacyCost::NonPrivate))
    }
}
