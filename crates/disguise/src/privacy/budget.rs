//! Solving for per-round budgets from a total budget.
//!
//! The question users actually have: *"I may spend (ε, δ) in total and my algorithm makes k
//! selections — what ε₀ can each selection use?"* For every composition rule of
//! [`super::compose`] this module finds the **largest** ε₀ whose k-fold composition is
//! within (ε, δ), marks which rules are valid for the kind of call and objective, and picks
//! the valid rule with the largest ε₀ ([`plan`], the `auto` choice).
//!
//! # Per rule
//!
//! * basic — closed form ε₀ = ε/k.
//! * advanced — closed form: the positive root of kε₀²/2 + ε₀·b = ε with b = √(2k·ln(1/δ′)),
//!   ε₀ = 2ε / (b + √(b² + 2kε)) (the cancellation-free form).
//! * kov — bisection on ε₀ of the monotone predicate `kov_delta(k, ε₀, ε) ≤ δ`.
//! * zcdp — bisection on ε₀ of `zcdp_to_dp(k·ε₀²/8, δ) ≤ ε` (ε₀²/2 for pure calls).
//! * decomposable — closed form ε₀ = 2·ln(1 + ε/G(δ)), independent of k, the inverse of
//!   ε = (e^{ε₀/2} − 1)·G(δ) ([`super::compose::decomposable`]; proof for replace-one
//!   neighbours in [`super::proofs::decomposable_greedy`]). Valid only for one run of the
//!   private greedy (Algorithms 1 and 2) with the standard exponential mechanism on an
//!   objective that is decomposable; the accountant, which proves a run's guarantee, applies
//!   it only with evidence that the library's greedy creates.
//!
//! Every returned ε₀ is **checked with the forward formula** — the exact code path
//! [`super::compose::Accountant`] uses for k calls of that cost — and moved down until the
//! check passes, so `compose(k × ε₀) ≤ (ε, δ)` always holds (conservative direction: the
//! inverse never over-promises). Bisections keep the feasible end.
//!
//! # δ split
//!
//! * Bounded-range (exponential mechanism) and pure calls spend no δ themselves: advanced
//!   composition gets δ′ = δ, zCDP, KOV and the decomposable rule are evaluated at δ.
//! * Approximate calls (the large margin mechanisms) need a per-round δ₀ > 0:
//!   basic uses δ₀ = δ/k (all of δ); advanced uses δ₀ = δ/(2k) and leaves the rest,
//!   δ′ = δ − kδ₀ ≥ δ/2, to the advanced-composition slack. No KOV, zCDP or decomposable
//!   credit is given to approximate calls. (δ₀ is rounded down, δ′ as the accountant
//!   computes it.)
//!
//! # Example
//!
//! ```
//! use disguise::privacy::budget::{plan, BudgetQuery};
//! use disguise::privacy::compose::Rule;
//!
//! let query = BudgetQuery::new(1.0, 1e-6, 10)?;
//! let plan = plan(&query)?;
//! let best = plan.best.unwrap();
//! assert_eq!(best.rule, Rule::Zcdp);
//! assert!((best.per_round_epsilon - 0.1396).abs() < 1e-4);
//! # Ok::<(), disguise::Error>(())
//! ```

use super::compose::{
    KOV_MAX_ROUNDS, Rule, advanced_core, basic_core, bounded_range_rho, decomposable_core,
    decomposable_factor, kov_core, kov_delta_core, pure_rho, round::*, zcdp_to_dp_core,
};
use super::{Delta, Epsilon, PrivacyCost};
use crate::disclosure::Public;
use crate::error::{Error, Result};
use crate::names::{Named, named_traits};
use serde::Serialize;

/// The kind of selector called in every round: decides which rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// ε₀-bounded-range calls: the exponential mechanism (ε₀²/8-zCDP).
    #[default]
    BoundedRange,
    /// Pure ε₀-DP calls, e.g. report noisy max (ε₀²/2-zCDP).
    Pure,
    /// Approximate (ε₀, δ₀)-DP calls: the large margin mechanisms (basic and advanced rules
    /// only).
    Approximate,
}

impl CallKind {
    /// The [`PrivacyCost`] of one call of this kind (δ₀ is ignored except for
    /// [`CallKind::Approximate`]).
    pub fn cost(self, epsilon0: Epsilon, delta0: Delta) -> PrivacyCost {
        match self {
            CallKind::BoundedRange => PrivacyCost::BoundedRange { epsilon: epsilon0 },
            CallKind::Pure => PrivacyCost::Pure { epsilon: epsilon0 },
            CallKind::Approximate => PrivacyCost::Approximate {
                epsilon: epsilon0,
                delta: delta0,
            },
        }
    }
}

impl Named for CallKind {
    const KIND: &'static str = "kind";
    const ALL: &'static [Self] = &[
        CallKind::BoundedRange,
        CallKind::Pure,
        CallKind::Approximate,
    ];

    fn name(self) -> &'static str {
        match self {
            CallKind::BoundedRange => "bounded-range",
            CallKind::Pure => "pure",
            CallKind::Approximate => "approximate",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            CallKind::BoundedRange => &["bounded_range"],
            _ => &[],
        }
    }

    fn help(self) -> &'static str {
        match self {
            CallKind::BoundedRange => {
                "The exponential mechanism (ε₀-bounded range): every rule applies"
            }
            CallKind::Pure => {
                "A pure ε₀-DP selector such as report noisy max (no decomposable rule)"
            }
            CallKind::Approximate => {
                "An (ε₀, δ₀) selector such as the large margin mechanisms: basic and advanced \
                 only, with δ split into a per-round δ₀"
            }
        }
    }
}

named_traits!(CallKind);

/// A total budget to split over rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetQuery {
    /// Total ε.
    pub epsilon: Epsilon,
    /// Total δ.
    pub delta: Delta,
    /// Number of rounds k (≥ 1).
    pub rounds: u64,
    /// The selector called in every round.
    pub kind: CallKind,
    /// The objective is λ-decomposable and the algorithm is the private greedy of
    /// mitrovic2017 (Alg. 1 or 2) with the standard exponential mechanism: offers the
    /// decomposable rule. This only plans a budget: the guarantee of an actual run is proved
    /// by the accountant, which applies the rule only to the library's greedy on a
    /// decomposable objective (see [`super::compose::DecomposableGreedy`]).
    pub decomposable: bool,
}

impl BudgetQuery {
    /// Validates a query for exponential-mechanism rounds on a general objective: ε finite
    /// and > 0, δ ∈ [0, 1), k ≥ 1.
    ///
    /// ```
    /// use disguise::privacy::budget::BudgetQuery;
    /// assert!(BudgetQuery::new(1.0, 1e-6, 10).is_ok());
    /// assert!(BudgetQuery::new(-1.0, 1e-6, 10).is_err());
    /// assert!(BudgetQuery::new(1.0, 1.0, 10).is_err());
    /// assert!(BudgetQuery::new(1.0, 1e-6, 0).is_err());
    /// ```
    pub fn new(epsilon: f64, delta: f64, rounds: u64) -> Result<Self> {
        // Planned at most as typed (see `Epsilon::total`): the composed total then prints
        // as the budget asked for, never above it.
        let epsilon = Epsilon::new(crate::numeric::decimal::at_most_typed(epsilon))?;
        let delta = Delta::total(delta)?;
        check_rounds(rounds)?;
        Ok(Self {
            epsilon,
            delta,
            rounds,
            kind: CallKind::default(),
            decomposable: false,
        })
    }

    /// The same query for another kind of call.
    pub fn with_kind(mut self, kind: CallKind) -> Self {
        self.kind = kind;
        self
    }

    /// The same query with the objective declared decomposable (or not).
    pub fn with_decomposable(mut self, decomposable: bool) -> Self {
        self.decomposable = decomposable;
        self
    }
}

/// The per-round budget one rule allows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleBudget {
    /// The rule.
    pub rule: Rule,
    /// Largest per-round ε₀ (rounded down); `None` when the rule does not apply.
    pub per_round_epsilon: Option<f64>,
    /// The per-round δ₀ that goes with it (0 for pure and bounded-range calls).
    pub per_round_delta: Option<f64>,
    /// Whether the rule applies to this query.
    pub valid: bool,
    /// Why the rule does not apply, or a remark on how it was applied.
    pub note: Option<String>,
}

/// The winning rule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BestBudget {
    /// The rule with the largest valid per-round ε₀.
    pub rule: Rule,
    /// Its per-round ε₀.
    pub per_round_epsilon: f64,
    /// Its per-round δ₀.
    pub per_round_delta: f64,
}

/// Per-round budgets under every rule, and the best. Every field is public
/// ([`crate::disclosure`]): [`plan`] computes it from a [`BudgetQuery`], the options alone,
/// without any data.
#[derive(Debug, Clone, PartialEq, Serialize, crate::disclosure::Disclose)]
pub struct BudgetPlan {
    /// Number of rounds k.
    pub rounds: Public<u64>,
    /// Total ε, as asked (each rule's per-round ε₀ composes to at most it).
    pub epsilon: Public<f64>,
    /// Total δ, as asked.
    pub delta: Public<f64>,
    /// Kind of call in every round.
    pub kind: Public<CallKind>,
    /// Whether the objective was declared decomposable.
    pub decomposable: Public<bool>,
    /// One entry per rule: basic, advanced, kov, zcdp, and decomposable when declared.
    pub rules: Vec<Public<RuleBudget>>,
    /// The valid rule with the largest ε₀ (ties go to the earlier rule); `None` if no rule
    /// is valid.
    pub best: Option<Public<BestBudget>>,
}

/// The per-round budget of one rule, chosen from a [`BudgetPlan`] ([`BudgetPlan::split`]),
/// with the end-to-end guarantee the accountant proves for the plan's rounds of it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BudgetSplit {
    /// The rule that set the split.
    pub rule: Rule,
    /// The per-round ε₀.
    pub per_round_epsilon: f64,
    /// The per-round δ₀.
    pub per_round_delta: f64,
    /// The end-to-end guarantee of the rounds at (ε₀, δ₀) under `rule`; `None` for the
    /// decomposable rule, whose evidence only a greedy run holds.
    pub guarantee: Option<super::Guarantee>,
}

/// A [`BudgetPlan`] with the split of one rule ([`BudgetPlan::choose`]): the plan's fields
/// (every rule's budget) and, at the top level, the chosen rule, its per-round (ε₀, δ₀) and
/// their guarantee. What Python's `disguise.budget` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChosenBudget {
    /// The budget under every rule.
    #[serde(flatten)]
    pub plan: BudgetPlan,
    /// The chosen rule's split.
    #[serde(flatten)]
    pub split: BudgetSplit,
}

impl BudgetPlan {
    /// The plan with its split under `rule` (the best valid one for `None`).
    ///
    /// # Errors
    /// As [`BudgetPlan::split`].
    pub fn choose(self, rule: Option<Rule>) -> Result<ChosenBudget> {
        let split = self.split(rule)?;
        Ok(ChosenBudget { plan: self, split })
    }

    /// The split under `rule`, or the best valid one for `None`, with its guarantee.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `rule` when no rule (or not the one named) can
    /// split the budget, with each rule's reason.
    pub fn split(&self, rule: Option<Rule>) -> Result<BudgetSplit> {
        let chosen = match rule {
            None => self
                .best
                .map(|b| (b.rule, b.per_round_epsilon, b.per_round_delta)),
            Some(r) => self
                .rules
                .iter()
                .find(|e| e.rule == r && e.valid)
                .and_then(|e| Some((r, e.per_round_epsilon?, e.per_round_delta.unwrap_or(0.0)))),
        };
        let Some((rule_used, epsilon0, delta0)) = chosen else {
            let notes: Vec<String> = (self.rules.iter())
                .filter_map(|r| r.note.as_ref().map(|n| format!("{}: {n}", r.rule.name())))
                .collect();
            let named = rule.map_or(String::new(), |r| format!(" named {:?}", r.name()));
            return Err(Error::param(
                "rule",
                format!(
                    "no composition rule{named} can split (ε = {}, δ = {}) over {} rounds ({})",
                    self.epsilon,
                    self.delta,
                    self.rounds,
                    notes.join("; ")
                ),
            ));
        };
        let cost = self.kind.cost(Epsilon::new(epsilon0)?, Delta::new(delta0)?);
        let composed = super::compose::compose_homogeneous(
            cost,
            *self.rounds,
            Delta::new(*self.delta)?,
            super::compose::ComposeOptions::default(),
        )?;
        Ok(BudgetSplit {
            rule: rule_used,
            per_round_epsilon: epsilon0,
            per_round_delta: delta0,
            guarantee: composed.get(rule_used).cloned(),
        })
    }
}

fn check_rounds(rounds: u64) -> Result<()> {
    if rounds == 0 {
        Err(Error::param("rounds", "must be at least 1"))
    } else {
        Ok(())
    }
}

fn need_delta(delta: Delta, rule: &str) -> Result<f64> {
    if delta.get() > 0.0 {
        Ok(delta.get())
    } else {
        Err(Error::param(
            "delta",
            format!("the {rule} rule needs δ > 0"),
        ))
    }
}

/// Moves `x` down until `ok(x)` holds: a few ulps first, then geometrically growing steps.
/// `None` if it reaches 0 (or `x` is not positive and finite).
fn shrink_until(mut x: f64, ok: impl Fn(f64) -> bool) -> Option<f64> {
    if !(x.is_finite() && x > 0.0) {
        return None;
    }
    for _ in 0..8 {
        if ok(x) {
            return Some(x);
        }
        x = x.next_down();
    }
    let mut step = 1e-14;
    while x > 0.0 && step < 1.0 {
        if ok(x) {
            return Some(x);
        }
        x *= 1.0 - step;
        step *= 2.0;
    }
    None
}

/// The largest x > 0 with `ok(x)` for a predicate that holds below some threshold and fails
/// above it, starting from `guess`. Returns the feasible end of the final bracket: with a
/// monotone predicate, the largest such double.
///
/// The bracket is found by galloping (factors 2, 4, 16, 256, …) and narrowed geometrically
/// while it spans more than a factor 4, so a threshold 300 orders of magnitude from the guess
/// costs about 20 evaluations, not 1000; plain bisection then runs to adjacent doubles.
fn largest_feasible(guess: f64, ok: impl Fn(f64) -> bool) -> Option<f64> {
    let tiniest = f64::from_bits(1);
    let (mut lo, mut hi);
    let mut factor = 2.0f64;
    if ok(guess) {
        lo = guess;
        loop {
            let next = (lo * factor).min(f64::MAX);
            if !ok(next) {
                hi = next;
                break;
            }
            if next == f64::MAX {
                return Some(next);
            }
            lo = next;
            factor *= factor;
        }
    } else {
        hi = guess;
        loop {
            let next = (hi / factor).max(tiniest);
            if ok(next) {
                lo = next;
                break;
            }
            if next == tiniest {
                return None;
            }
            hi = next;
            factor *= factor;
        }
    }
    // Invariant: ok(lo), !ok(hi).
    while hi > 4.0 * lo {
        let mid = lo.sqrt() * hi.sqrt();
        if !(mid > lo && mid < hi) {
            break;
        }
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    for _ in 0..200 {
        let mid = lo + (hi - lo) / 2.0;
        if mid <= lo || mid >= hi {
            break;
        }
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

fn no_positive(rule: &str) -> Error {
    Error::param(
        "epsilon",
        format!("no positive per-round ε₀ satisfies the {rule} rule at this budget"),
    )
}

/// Basic composition inverted: the largest ε₀ with k·ε₀ ≤ ε (k·ε₀ rounded up).
///
/// ```
/// use disguise::privacy::{budget, Epsilon};
/// let e0 = budget::basic_per_round(10, Epsilon::new(1.0)?)?;
/// assert!((e0 - 0.1).abs() < 1e-15 && e0 * 10.0 <= 1.0);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn basic_per_round(rounds: u64, epsilon: Epsilon) -> Result<f64> {
    check_rounds(rounds)?;
    basic_inverse(rounds, epsilon.get()).ok_or_else(|| no_positive("basic"))
}

fn basic_inverse(k: u64, eps: f64) -> Option<f64> {
    let guess = div_down(eps, count_up(k));
    shrink_until(guess, |e0| basic_core(k, e0) <= eps)
}

/// Advanced composition (mitrovic2017 Thm 3.2) inverted: the largest ε₀ with
/// kε₀²/2 + ε₀·√(2k·ln(1/δ′)) ≤ ε. Errors when δ′ = 0.
///
/// ```
/// use disguise::privacy::{budget, Delta, Epsilon};
/// let e0 = budget::advanced_per_round(10, Epsilon::new(1.0)?, Delta::new(1e-6)?)?;
/// assert!((e0 - 0.0591).abs() < 1e-4);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn advanced_per_round(rounds: u64, epsilon: Epsilon, delta_prime: Delta) -> Result<f64> {
    check_rounds(rounds)?;
    let dp = need_delta(delta_prime, "advanced")?;
    advanced_inverse(rounds, epsilon.get(), dp).ok_or_else(|| no_positive("advanced"))
}

fn advanced_inverse(k: u64, eps: f64, delta_prime: f64) -> Option<f64> {
    let kf = k as f64;
    let b = (2.0 * kf * (1.0 / delta_prime).ln()).sqrt();
    let guess = 2.0 * eps / (b + (b * b + 2.0 * kf * eps).sqrt());
    shrink_until(guess, |e0| {
        advanced_core(mul_up(count_up(k), sq_up(e0)), delta_prime) <= eps
    })
}

/// Optimal composition (Kairouz–Oh–Viswanath 2015) inverted: the largest ε₀ whose k-fold
/// optimal δ at ε is ≤ δ, by bisection, checked with [`super::compose::kov`].
/// Errors for more than [`KOV_MAX_ROUNDS`] rounds.
///
/// ```
/// use disguise::privacy::{budget, Delta, Epsilon};
/// let e0 = budget::kov_per_round(10, Epsilon::new(1.0)?, Delta::new(1e-6)?)?;
/// assert!(e0 > 0.1 && e0 < 0.1001);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn kov_per_round(rounds: u64, epsilon: Epsilon, delta: Delta) -> Result<f64> {
    check_rounds(rounds)?;
    if rounds > KOV_MAX_ROUNDS {
        return Err(Error::param(
            "rounds",
            format!("the KOV sum is computed for at most {KOV_MAX_ROUNDS} rounds, got {rounds}"),
        ));
    }
    kov_inverse(rounds, epsilon.get(), delta.get()).ok_or_else(|| no_positive("KOV"))
}

fn kov_inverse(k: u64, eps: f64, delta: f64) -> Option<f64> {
    let guess = basic_inverse(k, eps)?;
    let found = largest_feasible(guess, |e0| kov_delta_core(k, e0, eps) <= delta)?;
    shrink_until(found, |e0| kov_core(k, e0, delta) <= eps)
}

/// zCDP composition inverted: the largest ε₀ such that k calls of ε₀ — bounded range
/// (ρ = kε₀²/8) or pure (ρ = kε₀²/2) — convert ([`super::compose::zcdp_to_dp`], tight) to
/// ε at δ. Errors for approximate calls or δ = 0.
///
/// ```
/// use disguise::privacy::{budget, Delta, Epsilon};
/// use disguise::privacy::budget::CallKind;
/// let e0 = budget::zcdp_per_round(10, Epsilon::new(1.0)?, Delta::new(1e-6)?,
///                                 CallKind::BoundedRange)?;
/// assert!((e0 - 0.1396).abs() < 1e-4);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn zcdp_per_round(rounds: u64, epsilon: Epsilon, delta: Delta, kind: CallKind) -> Result<f64> {
    check_rounds(rounds)?;
    let d = need_delta(delta, "zCDP")?;
    if kind == CallKind::Approximate {
        return Err(Error::param(
            "kind",
            "approximate (ε, δ) calls have no zCDP bound",
        ));
    }
    zcdp_inverse(rounds, epsilon.get(), d, kind).ok_or_else(|| no_positive("zCDP"))
}

fn zcdp_forward(k: u64, e0: f64, delta: f64, kind: CallKind) -> f64 {
    let Ok(e0) = Epsilon::new(e0) else {
        return f64::INFINITY;
    };
    let rho1 = match kind {
        CallKind::Pure => pure_rho(e0),
        _ => bounded_range_rho(e0),
    };
    zcdp_to_dp_core(mul_up(count_up(k), rho1), delta)
}

fn zcdp_inverse(k: u64, eps: f64, delta: f64, kind: CallKind) -> Option<f64> {
    let guess = div_down(eps, count_up(k));
    let ok = |e0: f64| zcdp_forward(k, e0, delta, kind) <= eps;
    let found = largest_feasible(guess, ok)?;
    shrink_until(found, ok)
}

/// The decomposable rule inverted: the largest ε₀ with (e^{ε₀/2} − 1)·G(δ) ≤ ε, i.e.
/// ε₀ = 2·ln(1 + ε/G(δ)) (rounded down and checked with the forward formula), for any number
/// of rounds. Errors when δ = 0.
///
/// The rule is proven for one run of the private greedy (Algorithms 1 and 2) with the
/// standard exponential mechanism on a decomposable objective, for replace-one neighbours
/// ([`super::proofs::decomposable_greedy`]).
///
/// ```
/// use disguise::privacy::{budget, Delta, Epsilon};
/// // 2·ln(1 + 1/G(10⁻⁶)), G(10⁻⁶) ≈ 17.69.
/// let e0 = budget::decomposable_per_round(Epsilon::new(1.0)?, Delta::new(1e-6)?)?;
/// assert!((e0 - 0.1100).abs() < 1e-4);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn decomposable_per_round(epsilon: Epsilon, delta: Delta) -> Result<f64> {
    let d = need_delta(delta, "decomposable")?;
    decomposable_inverse(epsilon.get(), d).ok_or_else(|| no_positive("decomposable"))
}

fn decomposable_inverse(eps: f64, delta: f64) -> Option<f64> {
    let guess = 2.0 * (eps / decomposable_factor(delta)).ln_1p();
    shrink_until(guess, |e0| decomposable_core(e0, delta) <= eps)
}

/// Splits a total δ for approximate calls: returns (per-round δ₀, δ′) for advanced
/// composition, δ₀ = δ/(2k) rounded down and δ′ = δ − k·δ₀ (≥ δ/2) as the accountant
/// computes it.
///
/// ```
/// use disguise::privacy::{budget, Delta};
/// let (d0, dp) = budget::split_delta(Delta::new(1e-6)?, 10)?;
/// assert!(d0 <= 5e-8 && dp >= 5e-7 && dp + 10.0 * d0 <= 1e-6);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn split_delta(delta: Delta, rounds: u64) -> Result<(f64, f64)> {
    check_rounds(rounds)?;
    Ok(split_half(delta.get(), rounds))
}

fn split_half(delta: f64, k: u64) -> (f64, f64) {
    let d0 = div_down(delta, mul_up(2.0, count_up(k)));
    let dp = sub_down(delta, mul_up(count_up(k), d0));
    (d0, dp)
}

/// Per-round δ₀ for basic composition of approximate calls: δ/k rounded down, checked so
/// that k·δ₀ (rounded up) ≤ δ.
fn split_basic(delta: f64, k: u64) -> f64 {
    let d0 = div_down(delta, count_up(k));
    shrink_until(d0, |d| mul_up(count_up(k), d) <= delta).unwrap_or(0.0)
}

fn entry(rule: Rule, found: Option<(f64, f64)>, note: Option<String>) -> RuleBudget {
    match found {
        Some((e0, d0)) => RuleBudget {
            rule,
            per_round_epsilon: Some(e0),
            per_round_delta: Some(d0),
            valid: true,
            note,
        },
        None => RuleBudget {
            rule,
            per_round_epsilon: None,
            per_round_delta: None,
            valid: false,
            note: Some(note.unwrap_or_else(|| "no positive ε₀ satisfies the rule".into())),
        },
    }
}

fn invalid(rule: Rule, why: &str) -> RuleBudget {
    entry(rule, None, Some(why.to_string()))
}

/// Per-round budgets under every rule for `query`, and the best valid one (`auto`).
///
/// *Runtime*: dominated by KOV, O(k) per bisection step (about 120 steps); everything else
/// is O(1).
pub fn plan(query: &BudgetQuery) -> Result<BudgetPlan> {
    check_rounds(query.rounds)?;
    let k = query.rounds;
    let eps = query.epsilon.get();
    let delta = query.delta.get();
    let mut rules = Vec::new();

    match query.kind {
        CallKind::BoundedRange | CallKind::Pure => {
            rules.push(entry(
                Rule::Basic,
                basic_inverse(k, eps).map(|e0| (e0, 0.0)),
                None,
            ));
            rules.push(if delta > 0.0 {
                entry(
                    Rule::Advanced,
                    advanced_inverse(k, eps, delta).map(|e0| (e0, 0.0)),
                    Some("δ′ = δ".into()),
                )
            } else {
                invalid(Rule::Advanced, "needs δ > 0")
            });
            rules.push(if k > KOV_MAX_ROUNDS {
                invalid(
                    Rule::Kov,
                    &format!("computed for at most {KOV_MAX_ROUNDS} rounds"),
                )
            } else {
                entry(
                    Rule::Kov,
                    kov_inverse(k, eps, delta).map(|e0| (e0, 0.0)),
                    None,
                )
            });
            rules.push(if delta > 0.0 {
                entry(
                    Rule::Zcdp,
                    zcdp_inverse(k, eps, delta, query.kind).map(|e0| (e0, 0.0)),
                    Some(
                        match query.kind {
                            CallKind::Pure => "ρ = kε₀²/2, tight conversion",
                            _ => "ρ = kε₀²/8, tight conversion",
                        }
                        .into(),
                    ),
                )
            } else {
                invalid(Rule::Zcdp, "needs δ > 0")
            });
        }
        CallKind::Approximate => {
            if delta > 0.0 {
                let d0 = split_basic(delta, k);
                rules.push(entry(
                    Rule::Basic,
                    basic_inverse(k, eps)
                        .filter(|_| d0 > 0.0)
                        .map(|e0| (e0, d0)),
                    Some("δ₀ = δ/k".into()),
                ));
                let (d0, dp) = split_half(delta, k);
                rules.push(entry(
                    Rule::Advanced,
                    if d0 > 0.0 && dp > 0.0 {
                        advanced_inverse(k, eps, dp).map(|e0| (e0, d0))
                    } else {
                        None
                    },
                    Some("δ₀ = δ/(2k), δ′ = δ − kδ₀".into()),
                ));
            } else {
                let why = "approximate (ε₀, δ₀) calls need δ > 0";
                rules.push(invalid(Rule::Basic, why));
                rules.push(invalid(Rule::Advanced, why));
            }
            rules.push(invalid(
                Rule::Kov,
                "only for pure or bounded-range calls (no KOV credit for approximate calls)",
            ));
            rules.push(invalid(
                Rule::Zcdp,
                "approximate (ε, δ) calls have no zCDP bound",
            ));
        }
    }

    if query.decomposable {
        rules.push(if query.kind != CallKind::BoundedRange {
            invalid(
                Rule::Decomposable,
                "needs exponential-mechanism (bounded-range) calls",
            )
        } else if delta <= 0.0 {
            invalid(Rule::Decomposable, "needs δ > 0")
        } else {
            entry(
                Rule::Decomposable,
                decomposable_inverse(eps, delta).map(|e0| (e0, 0.0)),
                Some("independent of k; greedy with the exponential mechanism only".into()),
            )
        });
    }

    let best = rules
        .iter()
        .filter(|r| r.valid)
        .fold(None::<BestBudget>, |best, r| {
            let e0 = r.per_round_epsilon.expect("valid entries carry ε₀");
            match best {
                Some(b) if b.per_round_epsilon >= e0 => Some(b),
                _ => Some(BestBudget {
                    rule: r.rule,
                    per_round_epsilon: e0,
                    per_round_delta: r.per_round_delta.unwrap_or(0.0),
                }),
            }
        });

    // Every value is a function of the query: the options.
    Ok(BudgetPlan {
        rounds: Public::new(k),
        // The budget asked for, as typed (it is planned at most as typed).
        epsilon: Public::new(crate::numeric::decimal::tidy_up(eps)),
        delta: Public::new(crate::numeric::decimal::tidy_up(delta)),
        kind: Public::new(query.kind),
        decomposable: Public::new(query.decomposable),
        rules: rules.into_iter().map(Public::new).collect(),
        best: best.map(Public::new),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::compose::{self, ComposeOptions, DecomposableGreedy, compose_homogeneous};

    #[test]
    fn a_chosen_budget_states_the_plan_and_the_split_side_by_side() {
        let query = BudgetQuery::new(1.0, 1e-6, 10).unwrap();
        let chosen = plan(&query).unwrap().choose(None).unwrap();
        let doc = serde_json::to_value(&chosen).unwrap();
        assert_eq!(doc["rounds"], 10);
        assert_eq!(
            doc["rules"].as_array().unwrap().len(),
            chosen.plan.rules.len()
        );
        let best = chosen.plan.best.unwrap();
        assert_eq!(doc["per_round_epsilon"], best.per_round_epsilon);
        assert_eq!(chosen.split.rule, best.rule);
        assert!(chosen.split.guarantee.unwrap().epsilon <= 1.0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            cases: 200,
            rng_seed: proptest::test_runner::RngSeed::Fixed(41),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
        /// Any valid query gets a plan (a rule that cannot serve it is marked not applicable,
        /// never an error), and every per-round value it offers, composed forward by the
        /// accountant, stays within the total.
        #[test]
        fn every_valid_query_gets_a_plan_within_budget(
            log_eps in -300.0f64..2.845, // ε in [1e-300, 700]
            delta_choice in 0usize..4,
            log_delta in -300.0f64..-1e-7,
            log_rounds in 0.0f64..13.0,
            max_rounds in proptest::bool::weighted(0.05),
            kind_choice in 0usize..3,
            decomposable in proptest::bool::ANY,
        ) {
            // As typed: at most 15 significant digits (see `numeric::decimal::tidy_up`).
            let eps: f64 = format!("{:.11e}", 10f64.powf(log_eps)).parse().unwrap();
            let del = match delta_choice {
                0 => 0.0,
                1 => 0.5,
                _ => format!("{:.11e}", 10f64.powf(log_delta)).parse().unwrap(),
            };
            let k = if max_rounds { u64::MAX } else { 10f64.powf(log_rounds) as u64 };
            let kind = [CallKind::BoundedRange, CallKind::Pure, CallKind::Approximate][kind_choice];
            let q = BudgetQuery::new(eps, del, k).unwrap().with_kind(kind)
                .with_decomposable(decomposable);
            let p = plan(&q).unwrap();
            for r in p.rules.iter().filter(|r| r.valid) {
                let e0 = r.per_round_epsilon.unwrap();
                let d0 = r.per_round_delta.unwrap();
                proptest::prop_assert!(e0 > 0.0 && e0.is_finite(), "{:?}: {e0}", r.rule);
                if k > 1_000_000 {
                    continue; // forward composition of that many calls is checked below
                }
                let decomposable_evidence = (r.rule == Rule::Decomposable)
                    .then(|| DecomposableGreedy::new(e(e0), k));
                // At the planned δ (the typed δ read at most as typed), as every release.
                let c = compose_homogeneous(kind.cost(e(e0), d(d0)), k, q.delta,
                    ComposeOptions { decomposable: decomposable_evidence }).unwrap();
                let g = c.get(r.rule).unwrap();
                proptest::prop_assert!(g.epsilon <= eps && g.delta <= del,
                    "{:?} k={k} ε={eps} δ={del}: ({}, {})", r.rule, g.epsilon, g.delta);
            }
        }
    }

    #[test]
    fn a_split_is_the_chosen_rule_with_the_guarantee_it_proves() {
        let query = BudgetQuery::new(1.0, 1e-6, 10).unwrap();
        let p = plan(&query).unwrap();
        let best = p.split(None).unwrap();
        assert_eq!(Some(best.rule), p.best.map(|b| b.rule));
        let g = best.guarantee.unwrap();
        assert!(g.epsilon <= 1.0 && g.delta <= 1e-6, "{g:?}");
        let basic = p.split(Some(Rule::Basic)).unwrap();
        assert_eq!(basic.rule, Rule::Basic);
        assert!(basic.per_round_epsilon <= best.per_round_epsilon);
        // A rule that cannot serve the query is refused with every rule's reason.
        let pure = plan(&BudgetQuery::new(1.0, 0.0, 10).unwrap()).unwrap();
        let err = pure.split(Some(Rule::Advanced)).unwrap_err().to_string();
        assert!(
            err.contains("named \"advanced\"") && err.contains("advanced:"),
            "{err}"
        );
        // The decomposable rule's evidence is a greedy run's: no guarantee from the plan.
        let decomposable = plan(&query.with_decomposable(true)).unwrap();
        let split = decomposable.split(Some(Rule::Decomposable)).unwrap();
        assert!(split.guarantee.is_none());
    }

    fn e(x: f64) -> Epsilon {
        Epsilon::new(x).unwrap()
    }
    fn d(x: f64) -> Delta {
        Delta::new(x).unwrap()
    }
    fn close(got: f64, want: f64, tol: f64) {
        assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
    }
    fn find(plan: &BudgetPlan, rule: Rule) -> &RuleBudget {
        plan.rules.iter().find(|r| r.rule == rule).unwrap()
    }

    // Issue values: total ε = 1, δ = 1e-6, k = 10. KOV, zCDP and the CLI example are also
    // checked against Python references (bisection on the same formulas in double
    // precision; the zCDP minimum over α by a 300-step ternary search).
    #[test]
    fn known_inverse_values() {
        let (k, eps, del) = (10, e(1.0), d(1e-6));
        close(basic_per_round(k, eps).unwrap(), 0.1, 1e-15);
        close(advanced_per_round(k, eps, del).unwrap(), 0.0591, 5e-5);
        close(
            zcdp_per_round(k, eps, del, CallKind::BoundedRange).unwrap(),
            0.1396,
            5e-5,
        );
        close(
            zcdp_per_round(k, eps, del, CallKind::BoundedRange).unwrap(),
            0.13958788016024423,
            1e-11,
        );
        // 2·ln(1 + 1/G(10⁻⁶)) with G(10⁻⁶) = 17.68842079085992 (Python: Newton on
        // e^θ = 1 + θ + ln 10⁶, G = e^θ).
        close(
            decomposable_per_round(eps, del).unwrap(),
            0.10998778026174971,
            1e-12,
        );
        close(
            kov_per_round(k, eps, del).unwrap(),
            0.10006289063124307,
            1e-9,
        );
    }

    #[test]
    fn cli_example_values() {
        let q = BudgetQuery::new(0.1, 9.5367431640625e-7, 10)
            .unwrap()
            .with_decomposable(true);
        let p = plan(&q).unwrap();
        let get = |r| find(&p, r).per_round_epsilon.unwrap();
        close(get(Rule::Basic), 0.01, 1e-17);
        close(get(Rule::Advanced), 0.005994820597487048, 1e-12);
        close(get(Rule::Kov), 0.01009290532429511, 1e-9);
        close(get(Rule::Zcdp), 0.015982937063770308, 1e-11);
        close(get(Rule::Decomposable), 0.0112431272879817, 1e-12);
        let best = p.best.unwrap();
        assert_eq!(best.rule, Rule::Zcdp);
        assert_eq!(best.per_round_epsilon, get(Rule::Zcdp));
    }

    /// forward(inverse(ε)) ≤ ε through the accountant, for every rule and many budgets; and
    /// the inverse is nearly maximal: 1.00001·ε₀ overshoots.
    #[test]
    fn inverse_is_conservative_and_tight() {
        for kind in [
            CallKind::BoundedRange,
            CallKind::Pure,
            CallKind::Approximate,
        ] {
            for &k in &[1u64, 2, 10, 37, 500] {
                for &eps in &[0.01, 0.3, 1.0, 4.0] {
                    for &del in &[0.0, 1e-10, 9.5367431640625e-7, 1e-3] {
                        let q = BudgetQuery::new(eps, del, k)
                            .unwrap()
                            .with_kind(kind)
                            .with_decomposable(true);
                        let p = plan(&q).unwrap();
                        for r in p.rules.iter().filter(|r| r.valid) {
                            let e0 = r.per_round_epsilon.unwrap();
                            let d0 = r.per_round_delta.unwrap();
                            let check = |x: f64| {
                                let cost = kind.cost(e(x), d(d0));
                                // The evidence only the greedy driver creates, for the
                                // decomposable entry (valid only for bounded-range calls).
                                let decomposable = (r.rule == Rule::Decomposable)
                                    .then(|| DecomposableGreedy::new(e(x), k));
                                let c = compose_homogeneous(
                                    cost,
                                    k,
                                    q.delta,
                                    ComposeOptions { decomposable },
                                )
                                .unwrap();
                                c.get(r.rule).map(|g| {
                                    assert!(g.delta <= del, "{:?} {} > {del}", r.rule, g.delta);
                                    g.epsilon
                                })
                            };
                            let fwd = check(e0).unwrap_or_else(|| {
                                panic!(
                                    "{kind:?} k={k} ε={eps} δ={del}: {:?} not applicable",
                                    r.rule
                                )
                            });
                            assert!(
                                fwd <= eps,
                                "{kind:?} k={k} ε={eps} δ={del} {:?}: {fwd}",
                                r.rule
                            );
                            if let Some(over) = check(e0 * 1.00001) {
                                assert!(
                                    over > eps,
                                    "{kind:?} k={k} ε={eps} δ={del} {:?}: not maximal",
                                    r.rule
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn best_is_largest_valid() {
        let q = BudgetQuery::new(1.0, 1e-6, 10).unwrap();
        let p = plan(&q).unwrap();
        let rules: Vec<Rule> = p.rules.iter().map(|r| r.rule).collect();
        assert_eq!(rules, [Rule::Basic, Rule::Advanced, Rule::Kov, Rule::Zcdp]);
        assert!(p.rules.iter().all(|r| r.valid));
        let best = p.best.unwrap();
        let max = p
            .rules
            .iter()
            .map(|r| r.per_round_epsilon.unwrap())
            .fold(0.0, f64::max);
        assert_eq!(best.per_round_epsilon, max);
        assert_eq!(best.rule, Rule::Zcdp);
        // Decomposable appears only when declared, and wins for many rounds.
        let q = BudgetQuery::new(0.5, 1e-6, 1000)
            .unwrap()
            .with_decomposable(true);
        let p = plan(&q).unwrap();
        assert_eq!(p.rules.len(), 5);
        assert_eq!(p.best.unwrap().rule, Rule::Decomposable);
    }

    #[test]
    fn decomposable_serves_any_total_epsilon() {
        // The replace-one proof has no cap at ε ≤ 1 (mitrovic2017 Thm 3.1's form had one):
        // ε = 3 at δ = 10⁻⁶ gives 2·ln(1 + 3/G) = 0.3133.
        let q = BudgetQuery::new(3.0, 1e-6, 10)
            .unwrap()
            .with_decomposable(true);
        let p = plan(&q).unwrap();
        let dec = find(&p, Rule::Decomposable);
        assert!(dec.valid);
        close(dec.per_round_epsilon.unwrap(), 0.3133278575581768, 1e-12);
        assert!(compose::decomposable(e(dec.per_round_epsilon.unwrap()), d(1e-6)).unwrap() <= 3.0);
        // For pure calls the rule is offered but invalid.
        let p = plan(&q.with_kind(CallKind::Pure)).unwrap();
        assert!(!find(&p, Rule::Decomposable).valid);
    }

    #[test]
    fn delta_zero() {
        let q = BudgetQuery::new(1.0, 0.0, 10)
            .unwrap()
            .with_decomposable(true);
        let p = plan(&q).unwrap();
        assert!(find(&p, Rule::Basic).valid);
        assert!(find(&p, Rule::Kov).valid);
        assert!(!find(&p, Rule::Advanced).valid);
        assert!(!find(&p, Rule::Zcdp).valid);
        assert!(!find(&p, Rule::Decomposable).valid);
        assert!(find(&p, Rule::Advanced).per_round_epsilon.is_none());
        assert_eq!(p.best.unwrap().rule, Rule::Basic);
        // Approximate calls need δ > 0: nothing is valid.
        let p = plan(&q.with_kind(CallKind::Approximate)).unwrap();
        assert!(p.best.is_none());
    }

    #[test]
    fn approximate_calls_split_delta() {
        let q = BudgetQuery::new(1.0, 1e-6, 10)
            .unwrap()
            .with_kind(CallKind::Approximate);
        let p = plan(&q).unwrap();
        let b = find(&p, Rule::Basic);
        close(b.per_round_delta.unwrap(), 1e-7, 1e-21);
        assert!(b.per_round_delta.unwrap() * 10.0 <= 1e-6);
        let a = find(&p, Rule::Advanced);
        let d0 = a.per_round_delta.unwrap();
        close(d0, 5e-8, 1e-22);
        // δ′ = δ − kδ₀ ≈ 5e-7: ε₀ solves kε₀²/2 + ε₀√(2k ln(1/δ′)) = 1.
        let b2 = (20.0 * (1.0 / 5e-7f64).ln()).sqrt();
        close(
            a.per_round_epsilon.unwrap(),
            2.0 / (b2 + (b2 * b2 + 20.0).sqrt()),
            1e-9,
        );
        assert!(!find(&p, Rule::Kov).valid && !find(&p, Rule::Zcdp).valid);
        let (sd0, sdp) = split_delta(d(1e-6), 10).unwrap();
        assert_eq!(sd0, d0);
        assert!(sdp >= 5e-7 && sdp + 10.0 * sd0 <= 1e-6);
    }

    #[test]
    fn more_rounds_smaller_per_round_budget() {
        let mut prev = [f64::INFINITY; 4];
        for k in [1u64, 2, 5, 10, 20, 50, 100] {
            let p = plan(&BudgetQuery::new(1.0, 1e-6, k).unwrap()).unwrap();
            for (i, r) in p.rules.iter().enumerate() {
                let e0 = r.per_round_epsilon.unwrap();
                assert!(e0 < prev[i], "{:?} k={k}", r.rule);
                prev[i] = e0;
            }
        }
    }

    #[test]
    fn invalid_inputs() {
        assert!(BudgetQuery::new(0.0, 1e-6, 10).is_err());
        assert!(BudgetQuery::new(-1.0, 1e-6, 10).is_err());
        assert!(BudgetQuery::new(f64::NAN, 1e-6, 10).is_err());
        assert!(BudgetQuery::new(f64::INFINITY, 1e-6, 10).is_err());
        assert!(BudgetQuery::new(1.0, 1.0, 10).is_err());
        assert!(BudgetQuery::new(1.0, -1e-9, 10).is_err());
        assert!(BudgetQuery::new(1.0, 1e-6, 0).is_err());
        let mut q = BudgetQuery::new(1.0, 1e-6, 10).unwrap();
        q.rounds = 0;
        assert!(plan(&q).is_err());
        assert!(basic_per_round(0, e(1.0)).is_err());
        assert!(advanced_per_round(0, e(1.0), d(1e-6)).is_err());
        assert!(advanced_per_round(10, e(1.0), Delta::ZERO).is_err());
        assert!(kov_per_round(0, e(1.0), d(1e-6)).is_err());
        assert!(kov_per_round(KOV_MAX_ROUNDS + 1, e(1.0), d(1e-6)).is_err());
        assert!(zcdp_per_round(10, e(1.0), Delta::ZERO, CallKind::BoundedRange).is_err());
        assert!(zcdp_per_round(10, e(1.0), d(1e-6), CallKind::Approximate).is_err());
        assert!(decomposable_per_round(e(1.0), Delta::ZERO).is_err());
        assert!(split_delta(d(1e-6), 0).is_err());
    }

    #[test]
    fn huge_round_counts_do_not_panic() {
        let p = plan(&BudgetQuery::new(1.0, 1e-6, u64::MAX).unwrap()).unwrap();
        assert!(!find(&p, Rule::Kov).valid);
        let b = find(&p, Rule::Basic).per_round_epsilon.unwrap();
        assert!(b > 0.0 && b * (u64::MAX as f64) <= 1.0);
        assert_eq!(p.best.unwrap().rule, Rule::Zcdp);
        // Tiny and huge budgets.
        let p = plan(&BudgetQuery::new(1e-300, 1e-300, 3).unwrap()).unwrap();
        assert!(p.best.is_some());
        let p = plan(&BudgetQuery::new(1e300, 0.5, 3).unwrap()).unwrap();
        assert!(p.best.is_some());
        let _ = compose::basic(3, e(1e300)).unwrap();
    }
}
