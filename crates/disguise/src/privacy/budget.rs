//! Solving for per-round budgets from a total budget.
