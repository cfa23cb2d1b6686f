//! Composition of adaptive mechanism calls into an end-to-end guarantee.
//!
//! An algorithm such as private greedy makes k adaptive calls to a selector, each spending a
//! [`PrivacyCost`]. The [`Accountant`] records those costs (they may differ from round to
//! round, e.g. when the sensitivity changes) and, for a target δ, proves an end-to-end
//! (ε, δ) [`Guarantee`] under every composition rule that applies, and picks the best
//! (smallest ε). The per-rule functions ([`basic`], [`advanced`], [`kov`], [`kov_delta`],
//! [`bounded_range_zcdp`], [`zcdp_to_dp`], [`zcdp_to_dp_simple`], [`decomposable`]) compute
//! the same bounds for k homogeneous calls; [`super::budget`] solves the inverse problem.
//!
//! # The rules
//!
//! Below, call i spends (εᵢ, δᵢ); k calls in total; δ is the target.
//!
//! * [`Rule::Single`] — one call: its own (ε₁, δ₁). Applies iff k = 1 and δ₁ ≤ δ.
//! * [`Rule::Basic`] — basic composition (Dwork–Roth 2014 Thm 3.16; mitrovic2017 Thm 2.4 (1)):
//!   ε = Σεᵢ, δ = Σδᵢ. Applies to any private calls, iff Σδᵢ ≤ δ.
//! * [`Rule::Advanced`] — advanced composition in the form of mitrovic2017 Thm 3.2
//!   (Dwork–Rothblum–Vadhan 2010 with the Bun–Steinke 2016 first term):
//!   ε = Σεᵢ²/2 + √(2·ln(1/δ′)·Σεᵢ²), δ = δ′ + Σδᵢ. For k homogeneous calls this is
//!   kε₀²/2 + ε₀·√(2k·ln(1/δ′)). (mitrovic2017 Thm 2.4 prints √(2·ln(1/δ′))·ε₀ without the
//!   k under the root, and δ′ + kδ for δ′ + kδ₀: typos — Thm 3.2 and the original theorem
//!   have √(2k·ln(1/δ′)).) The heterogeneous
//!   form is valid for pure *and* approximate calls: it is implied by
//!   Kairouz–Oh–Viswanath 2015's heterogeneous bound
//!   Σεᵢ·tanh(εᵢ/2) + √(2·ln(1/δ′)·Σεᵢ²) with δ = 1 − (1−δ′)Π(1−δᵢ), since
//!   ε·tanh(ε/2) ≤ ε²/2 and 1 − (1−δ′)Π(1−δᵢ) ≤ δ′ + Σδᵢ.
//!   **δ split:** the calls' own Σδᵢ is taken first and *all* the rest of the target goes to
//!   δ′ = δ − Σδᵢ; the rule applies iff δ′ > 0.
//! * [`Rule::Kov`] — the optimal composition of k homogeneous ε₀-DP calls
//!   (Kairouz–Oh–Viswanath 2015 Thm 3.3; the same sum for every ε is in Murtagh–Vadhan 2016):
//!   with p = e^ε₀/(1+e^ε₀),
//!   δ(ε) = Σⱼ C(k,j)·p^(k−j)·(1−p)^j·[1 − e^(ε−(k−2j)ε₀)]₊,
//!   the hockey-stick divergence of k-fold randomized response, which dominates every
//!   ε₀-DP mechanism. The reported ε is the smallest ε (found by bisection, δ(ε) being
//!   decreasing) with δ(ε) ≤ δ. Applies iff every call is pure or bounded range (ε₀-DP, no
//!   δ) with one common ε₀, and k ≤ [`KOV_MAX_ROUNDS`] (the sum costs O(√k)). Large-margin
//!   (approximate) calls get no KOV credit here.
//! * [`Rule::Zcdp`] — bounded range → zCDP → (ε, δ). An ε-bounded-range call (every
//!   exponential mechanism; Dong–Durfee–Rogers 2020) is ε²/8-zCDP (Cesar–Rogers 2021);
//!   a pure ε-DP call is ε²/2-zCDP (Bun–Steinke 2016 Prop 3.3); zCDP adds up over
//!   adaptive calls: ρ = Σρᵢ. ρ-zCDP is then converted to (ε, δ) with the tight conversion of
//!   Canonne–Kamath–Steinke 2020 (Prop 12 / Cor 13; also Asoodeh et al. 2021),
//!   ε(ρ, δ) = min over α > 1 of αρ + [ln(1/δ) + (α−1)·ln(1−1/α) − ln α]/(α−1),
//!   which is never worse than the classic ρ + 2√(ρ·ln(1/δ)) ([`zcdp_to_dp_simple`]).
//!   Every α gives a valid ε, so the minimisation (a log grid then golden section, see
//!   [`zcdp_to_dp`]) only affects tightness, never validity. Applies iff no call is
//!   approximate and δ > 0.
//! * [`Rule::Decomposable`] — the k-independent bound of Gupta et al. 2010 for the private
//!   greedy on a decomposable objective, **proven for our replace-one neighbours** in
//!   `docs/proofs/decomposable-greedy.md` (rendered as
//!   [`proofs::decomposable_greedy`](super::proofs::decomposable_greedy)). If f_D = Σ_{x∈D} f_x with every
//!   f_x monotone and f_x(S) − f_x(∅) ∈ [0, λ], and every round of mitrovic2017 Algorithm 1
//!   or 2 is the standard exponential mechanism with weights exp(ε₀·gain/(2λ)), the run is
//!   (ε, δ)-DP for every δ ∈ (0, 1) with
//!   ε = (e^{ε₀/2} − 1)·G(δ),  G(δ) = min over θ > 0 of (θ + ln(1/δ))/(1 − e^{−θ}),
//!   **whatever k is**. (G(δ) = e^{θ*} where e^{θ*} = 1 + θ* + ln(1/δ); G(10⁻⁶) ≈ 17.69.)
//!   This is tighter than the restatement in mitrovic2017 Thm 3.1 / 3.3,
//!   2ε₀(e−1)·ln(3e/δ) when ≤ 1, and implies it (that form was stated for datasets differing
//!   by the presence of one record and is not used). Applies only with the sealed evidence
//!   [`DecomposableGreedy`] in [`ComposeOptions::decomposable`], which only the library's
//!   greedy (Algorithms 1 and 2, [`Exponential::new`](crate::select::Exponential::new), an
//!   objective declaring [`Properties::decomposable`](crate::objective::Properties)) can
//!   create, and only when the recorded calls are exactly that run's calls; δ > 0.
//!
//! # Neighbour relation
//!
//! Datasets D, D′ ∈ Xⁿ that differ in one record, n public (replace-one; mitrovic2017
//! Def. 2.2). Single, basic, advanced, KOV and zCDP are statements about adaptive
//! compositions of per-call guarantees and hold for whatever relation the per-call
//! guarantees are proven for (here replace-one for every selector of the library). The
//! decomposable rule is not a composition of per-call guarantees: its own proof
//! ([`proofs::decomposable_greedy`](super::proofs::decomposable_greedy)) is for replace-one and covers add/remove as the
//! special case of a record with f_x ≡ 0.
//!
//! A [`PrivacyCost::NonPrivate`] call makes the whole run non-private: no rule applies and
//! [`Composition::best`] is `None`.
//!
//! # Conservative rounding
//!
//! A reported ε (and δ) is never smaller than the exact value of the rule's formula, and is
//! a double whose shortest decimal — what is printed, and what a budget ledger adds up — is
//! at or above that value ([`crate::numeric::decimal::tidy_up`]).
//! Additions, multiplications, divisions and square roots are rounded upward exactly
//! (error-free transformations with `mul_add`, then `next_up` when the rounded result is
//! below the exact one); results of `ln`, `exp` and friends (accurate to about one ulp) are
//! nudged two ulps in the safe direction; the zCDP conversion adds an explicit floating-point
//! error bound (16 machine epsilons times the sum of the magnitudes of its terms); the KOV
//! sum is inflated by a relative margin that bounds its accumulated rounding error
//! (10⁻⁹ + k(ε₀+1)·10⁻¹³) and every bisection returns its feasible end. Counts k are
//! converted to `f64` rounding up.
//!
//! # Example
//!
//! ```
//! use disguise::privacy::{Delta, Epsilon, PrivacyCost};
//! use disguise::privacy::compose::{Accountant, ComposeOptions, Rule};
//!
//! let mut accountant = Accountant::new();
//! for _ in 0..10 {
//!     accountant.record(PrivacyCost::BoundedRange { epsilon: Epsilon::new(0.1)? });
//! }
//! let composition = accountant.compose(Delta::new(1e-6)?, ComposeOptions::default())?;
//! let best = composition.best.unwrap();
//! assert_eq!(best.rule, Rule::Zcdp);
//! assert!((best.epsilon - 0.700).abs() < 1e-3);
//! # Ok::<(), disguise::Error>(())
//! ```

use super::{Delta, Epsilon, Guarantee, PrivacyCost};
use crate::error::{Error, Result};
use crate::names::{Named, named_traits};
use crate::numeric::decimal::{tidy_up, tidy_up_at_most};
use serde::Serialize;
use std::collections::BTreeMap;

/// A composition rule the accountant can use.
///
/// Single, basic, advanced, KOV and zCDP compose per-call guarantees and hold for the
/// neighbour relation those are proven for (replace-one for every selector of the library);
/// the decomposable rule has its own replace-one proof. The formulas and sources are in the
/// [module documentation](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Basic composition: (Σε, Σδ) (Dwork–Roth 2014 Thm 3.16).
    Basic,
    /// Advanced composition: Σεᵢ²/2 + √(2·ln(1/δ′)·Σεᵢ²), δ′ + Σδᵢ (Dwork–Rothblum–Vadhan;
    /// mitrovic2017 Thm 3.2).
    Advanced,
    /// Optimal composition of k homogeneous pure-DP calls (Kairouz–Oh–Viswanath 2015).
    Kov,
    /// Bounded range → zCDP → (ε, δ) (Dong–Durfee–Rogers 2020, Cesar–Rogers 2021, tight
    /// conversion of Canonne–Kamath–Steinke 2020).
    Zcdp,
    /// One greedy run (Algorithms 1/2) with the exponential mechanism on a decomposable
    /// objective: (e^{ε₀/2} − 1)·G(δ) whatever k is, for replace-one neighbours (the argument
    /// of Gupta et al. 2010, proven in [`proofs::decomposable_greedy`](
    /// super::proofs::decomposable_greedy); see [`decomposable`]).
    Decomposable,
    /// No composition: the single call's own guarantee.
    Single,
}

impl Rule {
    /// The rule's name as printed and serialised (`basic`, `advanced`, `kov`, `zcdp`,
    /// `decomposable`, `single`).
    pub fn name(self) -> &'static str {
        match self {
            Rule::Basic => "basic",
            Rule::Advanced => "advanced",
            Rule::Kov => "kov",
            Rule::Zcdp => "zcdp",
            Rule::Decomposable => "decomposable",
            Rule::Single => "single",
        }
    }
}

impl Named for Rule {
    const KIND: &'static str = "rule";
    const ALL: &'static [Self] = &[
        Rule::Basic,
        Rule::Advanced,
        Rule::Kov,
        Rule::Zcdp,
        Rule::Decomposable,
        Rule::Single,
    ];

    fn name(self) -> &'static str {
        Rule::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            Rule::Basic => "Basic composition: ε₀ = ε/k",
            Rule::Advanced => "Advanced composition (needs δ > 0)",
            Rule::Kov => "Optimal composition of Kairouz–Oh–Viswanath (pure per-call guarantees)",
            Rule::Zcdp => "Bounded range / pure → zCDP → (ε, δ) (needs δ > 0)",
            Rule::Decomposable => {
                "Decomposable objectives (Gupta et al.; exponential mechanism with greedy; δ > 0)"
            }
            Rule::Single => "No composition: one call's own guarantee",
        }
    }
}

named_traits!(Rule);

/// Above this many rounds the KOV sum (about 39·√k terms per evaluation, evaluated inside a
/// bisection: 0.5 s for the whole budget plan at 10⁷ rounds on a 2-core machine) is not
/// computed and [`Rule::Kov`] is reported as inapplicable. zCDP composition is tighter than
/// KOV long before that many rounds in every case measured.
pub const KOV_MAX_ROUNDS: u64 = 10_000_000;

// Directed rounding (`*_up` ≥ exact, `*_down` ≤ exact) lives in `crate::numeric::round`.
pub(crate) use crate::numeric::round;

use round::*;

mod advanced;
mod basic;
mod decomposable;
mod kov;
mod single;
mod zcdp;

pub use advanced::advanced;
pub(crate) use advanced::advanced_core;
pub use basic::basic;
pub(crate) use basic::basic_core;
pub use decomposable::decomposable;
pub(crate) use decomposable::{decomposable_core, decomposable_factor};
pub use kov::{kov, kov_delta};
pub(crate) use kov::{kov_core, kov_delta_core};
pub(crate) use zcdp::zcdp_to_dp_core;
pub use zcdp::{
    bounded_range_rho, bounded_range_zcdp, pure_rho, rho_for, zcdp_to_dp, zcdp_to_dp_simple,
};

// ---------------------------------------------------------------------------------------------
// Per-rule formulas for k homogeneous calls (validated, public) and their unchecked cores.
// ---------------------------------------------------------------------------------------------

fn check_rounds(rounds: u64) -> Result<()> {
    if rounds == 0 {
        Err(Error::param("rounds", "must be at least 1"))
    } else {
        Ok(())
    }
}

fn check_positive_delta(delta: Delta, rule: &str) -> Result<f64> {
    if delta.get() > 0.0 {
        Ok(delta.get())
    } else {
        Err(Error::param(
            "delta",
            format!("the {rule} rule needs δ > 0 (it gives no finite ε at δ = 0)"),
        ))
    }
}

/// A composed ε as reported: finite, and a double whose shortest decimal is at or above the
/// bound ([`tidy_up`]).
fn finite(v: f64) -> Result<f64> {
    if v.is_finite() {
        Ok(tidy_up(v))
    } else {
        Err(Error::Overflow(format!(
            "the composed privacy loss is not a finite number ({v})"
        )))
    }
}

// ---------------------------------------------------------------------------------------------
// The accountant.
// ---------------------------------------------------------------------------------------------

/// The recorded calls as every rule sees them: counts and sums over the calls, all rounded
/// up, and the groups of equal cost.
pub(crate) struct Calls<'a> {
    /// Number of calls.
    pub calls: u64,
    /// Σεᵢ.
    pub sum_eps: f64,
    /// Σδᵢ.
    pub sum_delta: f64,
    /// Σεᵢ².
    pub sum_sq: f64,
    /// Σρᵢ of the pure and bounded-range calls.
    pub rho: f64,
    /// Whether any call is approximate ((ε, δ) with δ > 0 possible).
    pub any_approximate: bool,
    /// Whether every call has the same ε₀.
    pub homogeneous: bool,
    /// ε₀ of the first group (every call's when `homogeneous`).
    pub epsilon0: f64,
    /// The calls grouped by cost, with their multiplicity.
    pub groups: &'a BTreeMap<(u8, u64, u64), (PrivacyCost, u64)>,
}

/// What a rule says about the recorded calls at the target δ.
pub(crate) enum Applied {
    /// The end-to-end guarantee it proves (ε before the finiteness check, δ ≤ target).
    Guarantee {
        /// ε.
        epsilon: f64,
        /// δ.
        delta: f64,
    },
    /// Why it does not apply.
    Inapplicable(String),
}

/// One composition rule, one file each: its name, its neighbour relation and applicability
/// in its documentation, and the guarantee it proves for recorded calls.
pub(crate) trait CompositionRule: Sync {
    /// The rule's name in reports.
    fn rule(&self) -> Rule;
    /// The guarantee for `calls` at target δ, or why the rule does not apply; an error for
    /// evidence that contradicts the calls.
    fn apply(&self, calls: &Calls<'_>, target: f64, options: &ComposeOptions) -> Result<Applied>;
}

/// Every rule, in the order reports list them (ties for the best go to the earlier one).
const RULES: [&dyn CompositionRule; 6] = [
    &single::Single,
    &basic::Basic,
    &advanced::Advanced,
    &kov::Kov,
    &zcdp::Zcdp,
    &decomposable::Decomposable,
];

/// Sealed evidence that the calls being composed are **one run** of the private greedy
/// algorithm (mitrovic2017 Algorithm 1 or 2) with the standard exponential mechanism
/// (weights exp(ε₀·gain/(2λ)), [`Exponential::new`](crate::select::Exponential::new)) in
/// every round, on an objective that declares itself decomposable
/// ([`Properties::decomposable`](crate::objective::Properties)): the only setting in which
/// [`Rule::Decomposable`] is proven ([`proofs::decomposable_greedy`](
/// super::proofs::decomposable_greedy)).
///
/// It cannot be constructed outside the library: [`crate::maximize::greedy`] creates it for
/// its own accountant and nothing hands it out. So the decomposable rule cannot be applied
/// through the public accountant to anything else — the monotone exponential mechanism,
/// the large margin mechanisms, report noisy max, subsample or random greedy, the
/// continuous greedy, the k-submodular greedy, or several runs composed together — and the
/// accountant refuses (a typed error) evidence that does not match the recorded calls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecomposableGreedy {
    epsilon0: Epsilon,
    rounds: u64,
}

impl DecomposableGreedy {
    /// Evidence for `rounds` planned rounds at ε₀: only for the greedy driver's own run.
    pub(crate) fn new(epsilon0: Epsilon, rounds: u64) -> Self {
        Self { epsilon0, rounds }
    }

    /// ε₀ of every round.
    pub fn epsilon0(&self) -> Epsilon {
        self.epsilon0
    }

    /// The number of rounds of the run (the calls recorded for it).
    pub fn rounds(&self) -> u64 {
        self.rounds
    }
}

/// What the caller knows about the algorithm beyond the costs themselves.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ComposeOptions {
    /// Evidence that the recorded calls are one greedy run with the exponential mechanism on
    /// a decomposable objective: enables [`Rule::Decomposable`]. Only the library can create
    /// it; public callers pass `None` (the default).
    pub decomposable: Option<DecomposableGreedy>,
}

/// A rule that did not produce a guarantee, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inapplicable {
    /// The rule.
    pub rule: Rule,
    /// Why it does not apply.
    pub reason: String,
}

/// The guarantees of a recorded sequence of calls at a target δ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Composition {
    /// Number of calls composed.
    pub calls: u64,
    /// The target δ.
    pub target_delta: f64,
    /// One guarantee per applicable rule, each with δ ≤ the target, in the order single,
    /// basic, advanced, kov, zcdp, decomposable.
    pub guarantees: Vec<Guarantee>,
    /// The rules that did not apply, with the reason.
    pub inapplicable: Vec<Inapplicable>,
    /// The guarantee with the smallest ε (ties go to the earlier rule above); `None` when no
    /// rule applies — in particular when any call was non-private.
    pub best: Option<Guarantee>,
}

impl Composition {
    /// The guarantee proved by `rule`, if it applied.
    pub fn get(&self, rule: Rule) -> Option<&Guarantee> {
        self.guarantees.iter().find(|g| g.rule == rule)
    }
}

/// Records the [`PrivacyCost`] of every mechanism call of a run and composes them.
///
/// Calls are stored grouped by identical cost (with their multiplicity), so recording k
/// equal calls one at a time gives exactly — bit for bit — the same composition as
/// [`compose_homogeneous`] with k, and the order of recording never matters.
///
/// *Runtime*: `record` is O(log g) for g distinct costs; `compose` is O(g) plus O(k) per
/// KOV evaluation when KOV applies.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Accountant {
    groups: BTreeMap<(u8, u64, u64), (PrivacyCost, u64)>,
    non_private: u64,
    overflowed: bool,
}

impl Accountant {
    /// An accountant with nothing recorded.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one call.
    pub fn record(&mut self, cost: PrivacyCost) {
        self.record_many(cost, 1);
    }

    /// Records `count` calls of the same cost.
    pub fn record_many(&mut self, cost: PrivacyCost, count: u64) {
        if count == 0 {
            return;
        }
        let key = match cost {
            PrivacyCost::BoundedRange { epsilon } => (0, epsilon.get().to_bits(), 0),
            PrivacyCost::Pure { epsilon } => (1, epsilon.get().to_bits(), 0),
            PrivacyCost::Approximate { epsilon, delta } => {
                // +0.0 and −0.0 are the same δ.
                (2, epsilon.get().to_bits(), (delta.get() + 0.0).to_bits())
            }
            PrivacyCost::Zcdp { rho } => (3, (rho + 0.0).to_bits(), 0),
            PrivacyCost::NonPrivate => {
                self.bump_non_private(count);
                return;
            }
        };
        let entry = self.groups.entry(key).or_insert((cost, 0));
        match entry.1.checked_add(count) {
            Some(c) => entry.1 = c,
            None => self.overflowed = true,
        }
        if self.calls_checked().is_none() {
            self.overflowed = true;
        }
    }

    fn bump_non_private(&mut self, count: u64) {
        match self.non_private.checked_add(count) {
            Some(c) => self.non_private = c,
            None => self.overflowed = true,
        }
        if self.calls_checked().is_none() {
            self.overflowed = true;
        }
    }

    fn calls_checked(&self) -> Option<u64> {
        self.groups
            .values()
            .try_fold(self.non_private, |acc, (_, c)| acc.checked_add(*c))
    }

    /// Number of calls recorded (saturating at `u64::MAX`).
    pub fn calls(&self) -> u64 {
        self.calls_checked().unwrap_or(u64::MAX)
    }

    /// The end-to-end guarantees at target `delta` under every applicable rule, and the best.
    ///
    /// Errors when nothing was recorded, when the call count overflowed `u64`, or when a
    /// composed ε overflows `f64`.
    pub fn compose(&self, delta: Delta, options: ComposeOptions) -> Result<Composition> {
        if self.overflowed {
            return Err(Error::Overflow(
                "more than 2^64 − 1 calls recorded".to_string(),
            ));
        }
        let calls = self.calls();
        if calls == 0 {
            return Err(Error::param(
                "calls",
                "nothing to compose: no call recorded",
            ));
        }
        // Not snapped again: a budget's δ is already at most the decimal typed
        // (`Delta::total`), and snapping is not idempotent (each pass would move it a double
        // further down, and the guarantee would print below what was asked).
        let target = delta.get();
        let mut out = Composition {
            calls,
            target_delta: target,
            guarantees: Vec::new(),
            inapplicable: Vec::new(),
            best: None,
        };
        if self.non_private > 0 {
            for rule in RULES {
                out.inapplicable.push(Inapplicable {
                    rule: rule.rule(),
                    reason: "a non-private call (e.g. argmax) was made: the run has no \
                             privacy guarantee"
                        .to_string(),
                });
            }
            return Ok(out);
        }

        // Aggregates, all rounded up.
        let (mut sum_eps, mut sum_delta, mut sum_sq, mut rho) = (0.0, 0.0, 0.0, 0.0);
        let mut any_approximate = false;
        let mut any_zcdp = false;
        let mut epsilons = Vec::with_capacity(self.groups.len());
        for (cost, count) in self.groups.values() {
            let n = count_up(*count);
            if let PrivacyCost::Zcdp { rho: r } = *cost {
                rho = add_up(rho, mul_up(n, r));
                any_zcdp = true;
                continue;
            }
            let (eps, del) = cost
                .epsilon_delta()
                .expect("non-private and zCDP calls handled above");
            sum_eps = add_up(sum_eps, mul_up(n, eps));
            sum_delta = add_up(sum_delta, mul_up(n, del));
            sum_sq = add_up(sum_sq, mul_up(n, sq_up(eps)));
            match *cost {
                PrivacyCost::BoundedRange { epsilon } => {
                    rho = add_up(rho, mul_up(n, bounded_range_rho(epsilon)));
                }
                PrivacyCost::Pure { epsilon } => {
                    rho = add_up(rho, mul_up(n, pure_rho(epsilon)));
                }
                PrivacyCost::Approximate { .. } => any_approximate = true,
                PrivacyCost::Zcdp { .. } | PrivacyCost::NonPrivate => {
                    unreachable!("handled above")
                }
            }
            epsilons.push(eps);
        }
        if any_zcdp {
            // A ρ-zCDP call has no ε of its own: only the zCDP rule composes it.
            for rule in RULES {
                if rule.rule() == Rule::Zcdp {
                    continue;
                }
                out.inapplicable.push(Inapplicable {
                    rule: rule.rule(),
                    reason: "a ρ-zCDP call (the Gaussian mechanism) composes only by zCDP"
                        .to_string(),
                });
            }
            let zcdp = if any_approximate {
                Applied::Inapplicable("approximate (ε, δ) calls have no zCDP bound".to_string())
            } else if target <= 0.0 {
                Applied::Inapplicable("needs δ > 0".to_string())
            } else {
                Applied::Guarantee {
                    epsilon: zcdp_to_dp_core(rho, target),
                    delta: target,
                }
            };
            match zcdp {
                Applied::Guarantee { epsilon, delta } => {
                    let g = Guarantee {
                        epsilon: finite(epsilon)?,
                        delta: tidy_up_at_most(delta, target),
                        rule: Rule::Zcdp,
                    };
                    out.guarantees.push(g);
                    out.best = Some(g);
                }
                Applied::Inapplicable(reason) => out.inapplicable.push(Inapplicable {
                    rule: Rule::Zcdp,
                    reason,
                }),
            }
            return Ok(out);
        }
        let recorded = Calls {
            calls,
            sum_eps,
            sum_delta,
            sum_sq,
            rho,
            any_approximate,
            homogeneous: epsilons.windows(2).all(|w| w[0] == w[1]),
            epsilon0: epsilons[0],
            groups: &self.groups,
        };
        // Every rule is asked in turn; the best is the smallest ε among those that apply.
        for rule in RULES {
            match rule.apply(&recorded, target, &options)? {
                // Reported as decimals at or above the proven bounds, the shortest within a
                // relative 2⁻⁵⁰ (so a total a hair below the budget asked prints as asked).
                Applied::Guarantee { epsilon, delta } => out.guarantees.push(Guarantee {
                    epsilon: finite(epsilon)?,
                    delta: tidy_up_at_most(delta, target),
                    rule: rule.rule(),
                }),
                Applied::Inapplicable(reason) => out.inapplicable.push(Inapplicable {
                    rule: rule.rule(),
                    reason,
                }),
            }
        }

        out.best = out
            .guarantees
            .iter()
            .copied()
            .reduce(|best, g| if g.epsilon < best.epsilon { g } else { best });
        Ok(out)
    }
}

/// Composes a sequence of calls (see [`Accountant::compose`]).
pub fn compose(
    costs: &[PrivacyCost],
    delta: Delta,
    options: ComposeOptions,
) -> Result<Composition> {
    let mut accountant = Accountant::new();
    for &cost in costs {
        accountant.record(cost);
    }
    accountant.compose(delta, options)
}

/// Composes `rounds` calls of the same cost as one k-fold event (see [`Accountant::compose`]).
pub fn compose_homogeneous(
    cost: PrivacyCost,
    rounds: u64,
    delta: Delta,
    options: ComposeOptions,
) -> Result<Composition> {
    check_rounds(rounds)?;
    let mut accountant = Accountant::new();
    accountant.record_many(cost, rounds);
    accountant.compose(delta, options)
}

/// Shorthands shared by the tests of the accountant (below) and of each rule (in its file).
#[cfg(test)]
mod test_support {
    use super::{Delta, Epsilon, PrivacyCost};

    /// ε, which the test knows to be valid.
    pub(super) fn e(x: f64) -> Epsilon {
        Epsilon::new(x).unwrap()
    }

    /// δ, which the test knows to be valid.
    pub(super) fn d(x: f64) -> Delta {
        Delta::new(x).unwrap()
    }

    /// An ε-bounded-range call (the exponential mechanism).
    pub(super) fn br(x: f64) -> PrivacyCost {
        PrivacyCost::BoundedRange { epsilon: e(x) }
    }

    /// A pure ε-DP call.
    pub(super) fn pure(x: f64) -> PrivacyCost {
        PrivacyCost::Pure { epsilon: e(x) }
    }

    /// An approximate (ε, δ)-DP call.
    pub(super) fn approx(x: f64, y: f64) -> PrivacyCost {
        PrivacyCost::Approximate {
            epsilon: e(x),
            delta: d(y),
        }
    }

    /// Asserts |got − want| ≤ tol.
    pub(super) fn close(got: f64, want: f64, tol: f64) {
        assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
    }
}

// The accountant's tests, and those that check every rule at once (known values, upper
// bounds, invalid inputs, monotonicity); each rule's own tests are in its file.
#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;
    use num_rational::BigRational;

    fn exact(x: f64) -> BigRational {
        BigRational::from_float(x).unwrap()
    }

    #[test]
    fn directed_rounding_is_exact_in_the_safe_direction() {
        let values = [
            0.1,
            0.2,
            0.3,
            1.0 / 3.0,
            2.0f64.sqrt(),
            1e-300,
            3e-310,
            7.5,
            1e10,
            123.456,
        ];
        for &a in &values {
            for &b in &values {
                let (ea, eb) = (exact(a), exact(b));
                if !(a / b).is_finite() {
                    assert_eq!(div_up(a, b), f64::INFINITY);
                    assert_eq!(div_down(a, b), f64::MAX);
                    continue;
                }
                assert!(exact(add_up(a, b)) >= &ea + &eb);
                assert!(exact(add_down(a, b)) <= &ea + &eb);
                assert!(exact(sub_down(a, b)) <= &ea - &eb);
                assert!(exact(mul_up(a, b)) >= &ea * &eb);
                assert!(exact(div_up(a, b)) >= &ea / &eb);
                assert!(exact(div_down(a, b)) <= &ea / &eb);
                // ... and tight: at most one ulp away.
                assert!(add_up(a, b).next_down() <= a + b);
                assert!(mul_up(a, b).next_down() <= a * b);
            }
            let s = sqrt_up(a);
            assert!(exact(s) * exact(s) >= exact(a));
        }
        assert_eq!(count_up(10), 10.0);
        let big = (1u64 << 53) + 1;
        assert!(count_up(big) as u128 >= big as u128);
    }

    #[test]
    fn invalid_inputs() {
        assert!(compose(&[], d(1e-6), ComposeOptions::default()).is_err());
        assert!(compose_homogeneous(br(0.1), 0, d(1e-6), ComposeOptions::default()).is_err());
        // Overflow is an error, not a panic or a wrong count.
        let mut acc = Accountant::new();
        acc.record_many(br(0.1), u64::MAX);
        acc.record(br(0.1));
        assert!(matches!(
            acc.compose(d(1e-6), ComposeOptions::default()),
            Err(Error::Overflow(_))
        ));
        // A finite ε whose composition overflows f64.
        let huge = compose_homogeneous(br(1e300), 1 << 40, d(1e-6), ComposeOptions::default());
        assert!(matches!(huge, Err(Error::Overflow(_))));
    }

    #[test]
    fn one_at_a_time_equals_k_fold() {
        let opts = ComposeOptions::default();
        for (cost, k) in [
            (br(0.1), 10u64),
            (br(0.01), 50),
            (pure(0.3), 7),
            (approx(0.1, 1e-8), 10),
        ] {
            let mut acc = Accountant::new();
            for _ in 0..k {
                acc.record(cost);
            }
            let one = acc.compose(d(1e-6), opts).unwrap();
            let fold = compose_homogeneous(cost, k, d(1e-6), opts).unwrap();
            assert_eq!(one, fold, "{cost:?} × {k}");
            if let PrivacyCost::BoundedRange { epsilon } = cost {
                let run = ComposeOptions {
                    decomposable: Some(DecomposableGreedy::new(epsilon, k)),
                };
                assert_eq!(
                    acc.compose(d(1e-6), run).unwrap(),
                    compose_homogeneous(cost, k, d(1e-6), run).unwrap()
                );
            }
            // And they agree with the per-rule functions.
            let (eps0, _) = cost.epsilon_delta().unwrap();
            assert_eq!(
                one.get(Rule::Basic).unwrap().epsilon,
                basic(k, e(eps0)).unwrap()
            );
            if let PrivacyCost::BoundedRange { .. } = cost {
                assert_eq!(
                    one.get(Rule::Zcdp).unwrap().epsilon,
                    bounded_range_zcdp(k, e(eps0), d(1e-6)).unwrap()
                );
                assert_eq!(
                    one.get(Rule::Advanced).unwrap().epsilon,
                    advanced(k, e(eps0), d(1e-6)).unwrap()
                );
                assert_eq!(
                    one.get(Rule::Kov).unwrap().epsilon,
                    kov(k, e(eps0), d(1e-6)).unwrap()
                );
            }
        }
        // Order of heterogeneous calls does not matter.
        let seq = [br(0.1), pure(0.2), br(0.05), br(0.1), pure(0.2)];
        let mut rev = seq;
        rev.reverse();
        assert_eq!(
            compose(&seq, d(1e-6), opts).unwrap(),
            compose(&rev, d(1e-6), opts).unwrap()
        );
    }

    #[test]
    fn accountant_best_and_applicability_for_em_calls() {
        let c = compose_homogeneous(br(0.1), 10, d(1e-6), ComposeOptions::default()).unwrap();
        let rules: Vec<Rule> = c.guarantees.iter().map(|g| g.rule).collect();
        assert_eq!(rules, [Rule::Basic, Rule::Advanced, Rule::Kov, Rule::Zcdp]);
        let best = c.best.unwrap();
        assert_eq!(best.rule, Rule::Zcdp);
        close(best.epsilon, 0.700, 5e-4);
        assert_eq!(best.delta, 1e-6);
        assert_eq!(c.get(Rule::Basic).unwrap().delta, 0.0);
        let inapplicable: Vec<Rule> = c.inapplicable.iter().map(|i| i.rule).collect();
        assert_eq!(inapplicable, [Rule::Single, Rule::Decomposable]);

        // With evidence of one greedy run on a decomposable objective, the k-independent bound
        // (e^{0.005} − 1)·G(10⁻⁶) = 0.0887 wins at k = 1000 (zCDP: 0.70).
        let run = |epsilon0: f64, rounds: u64| ComposeOptions {
            decomposable: Some(DecomposableGreedy::new(e(epsilon0), rounds)),
        };
        let c = compose_homogeneous(br(0.01), 1000, d(1e-6), run(0.01, 1000)).unwrap();
        let best = c.best.unwrap();
        assert_eq!(best.rule, Rule::Decomposable);
        close(best.epsilon, 0.08866, 1e-5);
        assert_eq!(best.delta, 1e-6);
        // For 10 rounds of 0.1 it applies (0.907) but zCDP (0.700) is better.
        let c = compose_homogeneous(br(0.1), 10, d(1e-6), run(0.1, 10)).unwrap();
        close(c.get(Rule::Decomposable).unwrap().epsilon, 0.9069, 1e-4);
        assert_eq!(c.best.unwrap().rule, Rule::Zcdp);
        // At δ = 0 it does not apply.
        let c = compose_homogeneous(br(0.1), 10, Delta::ZERO, run(0.1, 10)).unwrap();
        assert!(c.get(Rule::Decomposable).is_none());
    }

    #[test]
    fn heterogeneous_calls() {
        let seq = [br(0.1), br(0.2), pure(0.1)];
        let c = compose(&seq, d(1e-6), ComposeOptions::default()).unwrap();
        let b = c.get(Rule::Basic).unwrap().epsilon;
        assert!((0.4..0.4 + 1e-15).contains(&b));
        // Σε² = 0.06: 0.03 + √(2·ln(10⁶)·0.06).
        let want_adv = 0.03 + (2.0 * 1e6f64.ln() * 0.06).sqrt();
        close(c.get(Rule::Advanced).unwrap().epsilon, want_adv, 1e-12);
        // ρ = 0.01/8 + 0.04/8 + 0.01/2 = 0.01125.
        let z = c.get(Rule::Zcdp).unwrap().epsilon;
        close(z, zcdp_to_dp(0.01125, d(1e-6)).unwrap(), 1e-12);
        assert!(c.get(Rule::Kov).is_none());
        assert!(c.get(Rule::Decomposable).is_none());
    }

    #[test]
    fn approximate_calls_split_delta() {
        // Ten LMM calls at (0.1, 1e-8): basic (1.0, 1e-7); advanced with δ′ = 1e-6 − 1e-7.
        let c =
            compose_homogeneous(approx(0.1, 1e-8), 10, d(1e-6), ComposeOptions::default()).unwrap();
        let b = c.get(Rule::Basic).unwrap();
        close(b.epsilon, 1.0, 2e-15); // rounded up, then to a decimal at or above it
        close(b.delta, 1e-7, 1e-21);
        assert!(b.delta >= 1e-7);
        let a = c.get(Rule::Advanced).unwrap();
        let want = 0.05 + 0.1 * (20.0 * (1.0 / 9e-7f64).ln()).sqrt();
        close(a.epsilon, want, 1e-9);
        assert!(a.delta <= 1e-6);
        assert!(c.get(Rule::Kov).is_none() && c.get(Rule::Zcdp).is_none());
        // The calls' own δ exceeds the target: nothing applies.
        let c =
            compose_homogeneous(approx(0.1, 1e-6), 10, d(1e-6), ComposeOptions::default()).unwrap();
        assert!(c.best.is_none());
    }

    #[test]
    fn non_private_call_gives_no_guarantee() {
        let c = compose(
            &[br(0.1), PrivacyCost::NonPrivate, br(0.1)],
            d(1e-6),
            ComposeOptions::default(),
        )
        .unwrap();
        assert!(c.best.is_none());
        assert!(c.guarantees.is_empty());
        assert_eq!(c.inapplicable.len(), 6);
        assert_eq!(c.calls, 3);
    }

    #[test]
    fn pure_delta_zero_target() {
        let c = compose_homogeneous(br(0.1), 10, Delta::ZERO, ComposeOptions::default()).unwrap();
        let rules: Vec<Rule> = c.guarantees.iter().map(|g| g.rule).collect();
        assert_eq!(rules, [Rule::Basic, Rule::Kov]);
        assert_eq!(c.best.unwrap().rule, Rule::Basic); // ties go to basic
        assert!(c.guarantees.iter().all(|g| g.delta == 0.0));
    }

    #[test]
    fn more_rounds_cost_more() {
        let del = d(1e-6);
        let mut prev = [0.0f64; 4];
        for k in 1..=60u64 {
            let now = [
                basic(k, e(0.1)).unwrap(),
                advanced(k, e(0.1), del).unwrap(),
                kov(k, e(0.1), del).unwrap(),
                bounded_range_zcdp(k, e(0.1), del).unwrap(),
            ];
            for r in 0..4 {
                assert!(
                    now[r] > prev[r],
                    "rule {r}, k = {k}: {} ≤ {}",
                    now[r],
                    prev[r]
                );
            }
            prev = now;
        }
        // Smaller δ costs more ε.
        assert!(
            bounded_range_zcdp(10, e(0.1), d(1e-9)).unwrap()
                > bounded_range_zcdp(10, e(0.1), d(1e-6)).unwrap()
        );
        assert!(kov(10, e(0.1), d(1e-9)).unwrap() > kov(10, e(0.1), d(1e-6)).unwrap());
    }
}
