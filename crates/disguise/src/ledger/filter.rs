//! The privacy filters that stop a data set's releases at its limit, and the exact budget
//! arithmetic they run on.
//!
//! The analyst chooses each release — its ε and δ, its rounds, whether to run at all —
//! after seeing the outputs of the previous ones, and the ledger stops the sequence at the
//! limit. That is the setting of *privacy filters* (Rogers, Roth, Ullman and Vadhan 2016,
//! "Privacy Odometers and Filters: Pay-as-you-Go Composition"), not of the composition
//! theorems for parameters fixed in advance: advanced composition and the optimal
//! composition of Kairouz, Oh and Viswanath do not hold when each εᵢ depends on earlier
//! outputs. A ledger therefore refuses only by a filter proven for fully adaptive
//! composition, fixed when the limit is set ([`Filter`], recorded with the [`Limit`]), never
//! re-chosen per release. The proofs, with their exact conditions, are in
//! `docs/proofs/ledger-composition.md`:
//!
//! * [`Filter::Basic`] — admit release i iff Σⱼ≤ᵢ εⱼ ≤ ε_L and Σⱼ≤ᵢ δⱼ ≤ δ_L, each release
//!   at its own end-to-end (εᵢ, δᵢ) times its runs. Basic composition is a valid filter for
//!   adaptively chosen (εᵢ, δᵢ) (Rogers et al. 2016, §3; proven in the note by induction on
//!   the number of releases). Within one release, whose parameters are fixed before its
//!   data is read, its (εᵢ, δᵢ) is the accountant's best rule (zCDP, KOV, the decomposable
//!   greedy, …), so a single release at exactly the limit fits.
//! * [`Filter::Zcdp`] (δ_L > 0) — pure and bounded-range releases spend zCDP: a pure ε-DP
//!   call ρ = ε²/2 (Bun–Steinke 2016, Prop. 3.3), an ε-bounded-range call (the exponential
//!   mechanism) ρ = ε²/8 (Cesar–Rogers 2021, Lemma 3.2), a release the sum over its
//!   recorded calls; admitted iff Σρᵢ ≤ ρ_L, where ρ_L is the largest ρ whose conversion
//!   (Canonne–Kamath–Steinke 2020, Prop. 12) gives at most (ε_L − ε_A, δ_L − δ_A). The
//!   Rényi filter of Feldman and Zrnic (2021, Thm. 3.1: for a fixed order α, adaptively
//!   chosen Rényi bounds whose sum never exceeds B give (α, B)-RDP) holds at every α with
//!   B = αρ_L, which is ρ_L-zCDP. Approximate releases ((ε, δ)-DP with δ > 0, the large
//!   margin mechanisms) spend by basic composition from their own part (ε_A, δ_A) of the
//!   limit, fixed with it (0 by default, which refuses them); the two parts, each a filter,
//!   compose concurrently (Vadhan–Wang 2021; Lyu 2022; Haney et al. 2023) into (ε_L, δ_L).
//!
//! # Exact arithmetic
//!
//! A budget is the decimal the user typed, and a reported guarantee the decimal it prints
//! as ([`crate::numeric::decimal`]: the library spends typed budgets at most as typed and
//! reports bounds as decimals at or above them). Sums, limits and what is left are exact
//! rationals of those decimals, so releases of ε = 0.1 and 0.2 fit a limit of 0.3 exactly,
//! and what is left prints as typed. The zCDP costs of recorded calls are the exact squares
//! of the doubles the mechanisms ran with; ρ_L is a double, rounded down, whose conversion
//! is checked against the limit with every operation rounded up.

use super::Spend;
use crate::error::{Error, Result};
use crate::names::{Named, named_traits};
use crate::numeric::decimal::{self, Exact, carrier_down, carrier_up, shortest, typed};
use crate::privacy::compose::{rho_for, zcdp_to_dp_core};
use crate::privacy::{Delta, Epsilon, PrivacyCost};
use num_traits::{Signed, Zero};
use serde::Serialize;

/// The privacy filter that stops a data set's releases at its limit (see the
/// [module documentation](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Filter {
    /// Basic composition: the releases' ε and δ add up to at most the limit's.
    #[default]
    Basic,
    /// zCDP: pure and exponential-mechanism releases add up their ρ to at most ρ_L; for
    /// many small releases (needs δ > 0).
    Zcdp,
}

impl Named for Filter {
    const KIND: &'static str = "rule";
    const ALL: &'static [Self] = &[Filter::Basic, Filter::Zcdp];

    fn name(self) -> &'static str {
        match self {
            Filter::Basic => "basic",
            Filter::Zcdp => "zcdp",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Filter::Basic => {
                "basic composition: the releases' ε and δ add up to at most the limit (a \
                 release at exactly the limit fits)"
            }
            Filter::Zcdp => {
                "zCDP: pure and exponential-mechanism releases add up ε²/2 or ε²/8 to at \
                 most the ρ of the limit; admits many more small releases (needs δ > 0)"
            }
        }
    }
}

named_traits!(Filter);

/// A data set's total budget: the (ε, δ) all its releases together may spend, and the
/// filter that stops them there.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Limit {
    /// Total ε.
    pub epsilon: f64,
    /// Total δ ∈ [0, 1); 0 admits pure releases only.
    pub delta: f64,
    /// The filter.
    pub filter: Filter,
    /// [`Filter::Zcdp`] only: the ε of the limit that approximate releases may spend, by
    /// basic composition (0 for the basic filter).
    pub approximate_epsilon: f64,
    /// [`Filter::Zcdp`] only: the δ of the limit that approximate releases may spend.
    pub approximate_delta: f64,
    /// [`Filter::Zcdp`] only: ρ_L, the zCDP budget of the pure and bounded-range releases,
    /// computed when the limit is made and recorded with it.
    pub rho: Option<f64>,
}

impl Limit {
    /// A limit with the basic filter.
    ///
    /// ```
    /// use disguise::ledger::{Filter, Limit};
    /// let limit = Limit::new(0.3, 0.0)?;
    /// assert_eq!(limit.filter, Filter::Basic);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidEpsilon`] or [`Error::InvalidDelta`].
    pub fn new(epsilon: f64, delta: f64) -> Result<Self> {
        Epsilon::total(epsilon)?;
        Delta::new(delta)?;
        Ok(Self {
            epsilon,
            delta,
            filter: Filter::Basic,
            approximate_epsilon: 0.0,
            approximate_delta: 0.0,
            rho: None,
        })
    }

    /// A limit with the zCDP filter, all of it for pure and bounded-range releases
    /// ([`Limit::approximate`] sets aside a part for approximate ones).
    ///
    /// ```
    /// use disguise::ledger::Limit;
    /// let limit = Limit::zcdp(1.0, 1e-6)?;
    /// let rho = limit.rho.unwrap();
    /// assert!(rho > 0.0187 && rho < 0.025); // 1 = ρ + 2√(ρ ln 10⁶) at ρ ≈ 0.0176, tighter by CKS
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Limit::new`], and [`Error::InvalidParameter`] naming `delta` for δ = 0.
    pub fn zcdp(epsilon: f64, delta: f64) -> Result<Self> {
        Self::new(epsilon, delta)?.with_filter(Filter::Zcdp)
    }

    /// A limit from the parts a front end takes: (ε, δ), the filter, and under zCDP the part
    /// (ε_A, δ_A) set aside for approximate releases ([`Limit::approximate`]; both 0 under
    /// the basic filter, whose every release spends from the whole limit). The filter's
    /// option is named as `flag` spells it (`rule`).
    ///
    /// ```
    /// use disguise::ledger::{Filter, Limit};
    /// let flag = |p: &str| format!("--{p}");
    /// let limit = Limit::of(1.0, 1e-6, Filter::Zcdp, 0.1, 1e-7, &flag)?;
    /// assert_eq!(limit.approximate_epsilon, 0.1);
    /// assert!(Limit::of(1.0, 1e-6, Filter::Basic, 0.1, 1e-7, &flag).is_err());
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Limit::new`], [`Limit::with_filter`] and [`Limit::approximate`];
    /// [`Error::InvalidParameter`] naming `approximate` for a part under the basic filter.
    pub fn of(
        epsilon: f64,
        delta: f64,
        filter: Filter,
        approximate_epsilon: f64,
        approximate_delta: f64,
        flag: &dyn Fn(&str) -> String,
    ) -> Result<Self> {
        let limit = Self::new(epsilon, delta)?.with_filter(filter)?;
        if filter == Filter::Zcdp {
            limit.approximate(approximate_epsilon, approximate_delta)
        } else if approximate_epsilon != 0.0 || approximate_delta != 0.0 {
            let reason = format!(
                "only a {} zcdp limit sets aside a part for approximate releases",
                flag("rule")
            );
            Err(Error::param("approximate", reason))
        } else {
            Ok(limit)
        }
    }

    /// A limit written `EPSILON[,DELTA]` (δ = 0 when left out) under `filter`: a default
    /// limit given in one option.
    ///
    /// ```
    /// use disguise::ledger::{Filter, Limit};
    /// let limit = Limit::parse("1,1e-6", Filter::Basic)?;
    /// assert_eq!((limit.epsilon, limit.delta), (1.0, 1e-6));
    /// assert_eq!(Limit::parse(" 2 ", Filter::Basic)?.delta, 0.0);
    /// assert!(Limit::parse("1;1e-6", Filter::Basic).is_err());
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] named `limit` for text of another form; as
    /// [`Limit::new`] and [`Limit::with_filter`].
    pub fn parse(text: &str, filter: Filter) -> Result<Self> {
        let (epsilon, delta) = text.split_once(',').unwrap_or((text, "0"));
        let number = |t: &str| -> Result<f64> {
            t.trim().parse().map_err(|_| {
                let reason = format!("{text:?} is not EPSILON[,DELTA] (e.g. 1,1e-6)");
                Error::param("limit", reason)
            })
        };
        Self::new(number(epsilon)?, number(delta)?)?.with_filter(filter)
    }

    /// The same limit with filter `filter` (ρ_L computed for zCDP).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `delta` for zCDP at δ = 0.
    pub fn with_filter(mut self, filter: Filter) -> Result<Self> {
        self.filter = filter;
        if filter == Filter::Basic {
            self.approximate_epsilon = 0.0;
            self.approximate_delta = 0.0;
        }
        self.finish()
    }

    /// The same zCDP limit with (ε_A, δ_A) of it set aside for approximate releases
    /// ((ε, δ)-DP with δ > 0: the large margin mechanisms), which spend it by basic
    /// composition; ρ_L is computed from what is left.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `approximate` for a basic limit, or for a part
    /// that leaves nothing (ε_A ≥ ε or δ_A ≥ δ).
    pub fn approximate(mut self, epsilon: f64, delta: f64) -> Result<Self> {
        if self.filter != Filter::Zcdp {
            return Err(Error::param(
                "approximate",
                "only a zcdp limit sets aside a part for approximate releases (under the \
                 basic filter every release spends from the whole limit)",
            ));
        }
        if !(epsilon.is_finite() && epsilon >= 0.0) {
            return Err(Error::InvalidEpsilon(epsilon));
        }
        Delta::new(delta)?;
        if (epsilon > 0.0) != (delta > 0.0) {
            return Err(Error::param(
                "approximate",
                "the part for approximate releases needs both ε > 0 and δ > 0 (every \
                 approximate release spends some of each), or neither",
            ));
        }
        self.approximate_epsilon = epsilon;
        self.approximate_delta = delta;
        self.finish()
    }

    /// The part of a zCDP limit for pure and bounded-range releases, (ε_L − ε_A, δ_L − δ_A),
    /// each the largest double at or below the exact difference of the decimals: the (ε, δ)
    /// that ρ_L converts to at most. `None` when nothing is left to it.
    fn zcdp_part(&self) -> Option<(f64, f64)> {
        let eps = shortest(self.epsilon) - shortest(self.approximate_epsilon);
        let del = shortest(self.delta) - shortest(self.approximate_delta);
        (eps.is_positive() && del.is_positive()).then(|| (carrier_down(&eps), carrier_down(&del)))
    }

    /// Checks the parts and computes ρ_L.
    fn finish(mut self) -> Result<Self> {
        self.rho = None;
        if self.filter == Filter::Basic {
            return Ok(self);
        }
        if self.delta <= 0.0 {
            return Err(Error::param(
                "delta",
                "the zcdp filter needs a limit with δ > 0 (zCDP converts to (ε, δ) only at \
                 δ > 0); at δ = 0 use the basic filter",
            ));
        }
        let Some((eps, del)) = self.zcdp_part() else {
            return Err(Error::param(
                "approximate",
                format!(
                    "the part for approximate releases (ε = {}, δ = {}) must leave some of \
                     the limit (ε = {}, δ = {}) to the pure and exponential-mechanism ones",
                    typed(self.approximate_epsilon),
                    typed(self.approximate_delta),
                    typed(self.epsilon),
                    typed(self.delta)
                ),
            ));
        };
        self.rho = Some(rho_for(eps, del)?);
        Ok(self)
    }

    /// Checks a limit read back from a file or built by hand: its numbers, and that its ρ_L
    /// (if any) is the one its conversion allows.
    pub(crate) fn validate(&self) -> Result<()> {
        let recomputed = match self.filter {
            Filter::Basic => Limit::new(self.epsilon, self.delta)?,
            Filter::Zcdp => Limit::zcdp(self.epsilon, self.delta)?
                .approximate(self.approximate_epsilon, self.approximate_delta)?,
        };
        if let (Some(mine), Some(max)) = (self.rho, recomputed.rho)
            && mine > max
        {
            return Err(Error::param(
                "rho",
                format!("ρ = {mine} exceeds what the limit allows ({max})"),
            ));
        }
        Ok(())
    }

    /// Whether `other` is nowhere above `self` (same filter; every part at most as large).
    pub(crate) fn covers(&self, other: &Limit) -> bool {
        let le = |a: f64, b: f64| shortest(a) <= shortest(b);
        self.filter == other.filter
            && le(other.epsilon, self.epsilon)
            && le(other.delta, self.delta)
            && le(other.approximate_epsilon, self.approximate_epsilon)
            && le(other.approximate_delta, self.approximate_delta)
            && other.rho.unwrap_or(0.0) <= self.rho.unwrap_or(0.0)
    }
}

/// A release's charge in the units of the filters: exact.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Charge {
    /// Σ runs·εᵢ of the releases' own guarantees (the basic filter; under zCDP, of the
    /// approximate releases only).
    pub epsilon: Exact,
    /// Σ runs·δᵢ, likewise.
    pub delta: Exact,
    /// Σ runs·ρᵢ of the pure and bounded-range releases (the zCDP filter).
    pub rho: Exact,
}

/// The exact totals of a data set's releases under both filters.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Totals {
    /// Number of releases.
    pub releases: u64,
    /// Every release by its own guarantee: the basic filter's view of a limit with δ > 0.
    pub all: Charge,
    /// The basic filter's view of a pure limit (δ = 0): a release reported with δ > 0 whose
    /// recorded calls are all pure or bounded range by the basic composition of its calls
    /// (pure, Σε of the calls), every other release by its own guarantee. (A release
    /// reported at δ > 0 by zCDP is also (Σεᵢ, 0)-DP by basic composition of its calls;
    /// which of its guarantees the filter charges depends on the limit and the release
    /// only, never on the outputs.)
    pub pure: Charge,
    /// The zCDP filter's view: ρ of the pure and bounded-range releases, (ε, δ) of the
    /// approximate ones.
    pub zcdp: Charge,
}

impl Totals {
    /// Adds `runs` runs of a release's own guarantee (ε, δ), read as the decimals they
    /// print as, to the view of the basic filter under a limit with δ > 0.
    pub fn add_own(&mut self, epsilon: f64, delta: f64, runs: u64) {
        let runs = Exact::from_integer(runs.into());
        self.all.epsilon += shortest(epsilon) * &runs;
        self.all.delta += shortest(delta) * runs;
    }

    /// Adds `runs` runs of a release's own guarantee to the view of the basic filter under
    /// a pure limit: for a release that is pure itself (δ = 0), or whose calls are not
    /// recorded or not all pure.
    pub fn add_pure_own(&mut self, epsilon: f64, delta: f64, runs: u64) {
        let runs = Exact::from_integer(runs.into());
        self.pure.epsilon += shortest(epsilon) * &runs;
        self.pure.delta += shortest(delta) * runs;
    }

    /// Adds `count` pure or bounded-range calls of a release reported with δ > 0 to the view
    /// of the basic filter under a pure limit: the exact double each call ran with.
    pub fn add_pure_call(&mut self, cost: PrivacyCost, count: u64) {
        match cost.epsilon_delta() {
            Some((epsilon, 0.0)) => {
                self.pure.epsilon += decimal::exact(epsilon) * Exact::from_integer(count.into());
            }
            // Never recorded this way (such a release enters whole); counted whole if it is.
            Some((epsilon, delta)) => self.add_pure_own(epsilon, delta, count),
            None => {}
        }
    }

    /// Adds `count` recorded calls of a release without approximate calls to the zCDP view:
    /// the exact square of the double each call ran with, over 8 (bounded range) or 2
    /// (pure), or the ρ of a zCDP call.
    pub fn add_zcdp_call(&mut self, cost: PrivacyCost, count: u64) {
        let square = |e: f64| decimal::exact(e) * decimal::exact(e);
        let rho = match cost {
            PrivacyCost::BoundedRange { epsilon } => {
                square(epsilon.get()) / Exact::from_integer(8.into())
            }
            PrivacyCost::Pure { epsilon } => square(epsilon.get()) / Exact::from_integer(2.into()),
            // Never recorded this way (such a release enters whole); counted whole if it is.
            PrivacyCost::Approximate { epsilon, delta } => {
                self.add_zcdp_own(epsilon.get(), delta.get(), count);
                return;
            }
            // A ρ-zCDP call (the Gaussian mechanism) spends its ρ, the exact double it ran with.
            PrivacyCost::Zcdp { rho } => decimal::exact(rho),
            PrivacyCost::NonPrivate => return,
        };
        self.zcdp.rho += rho * Exact::from_integer(count.into());
    }

    /// Adds `runs` runs of a release whose calls are not recorded, or that has an
    /// approximate call, to the zCDP view by its own guarantee: a pure one (δ = 0) as
    /// ρ = ε²/2, an approximate one to the part for approximate releases.
    pub fn add_zcdp_own(&mut self, epsilon: f64, delta: f64, runs: u64) {
        let runs = Exact::from_integer(runs.into());
        let e = shortest(epsilon);
        if delta == 0.0 {
            self.zcdp.rho += &e * &e / Exact::from_integer(2.into()) * runs;
        } else {
            self.zcdp.epsilon += e * &runs;
            self.zcdp.delta += shortest(delta) * runs;
        }
    }

    /// Adds one release to every view.
    ///
    /// # Errors
    /// Overflowing counts.
    pub fn add_spend(&mut self, spend: &Spend) -> Result<()> {
        let (epsilon, delta) = (spend.guarantee.epsilon, spend.guarantee.delta);
        let runs = spend.runs;
        self.add_own(epsilon, delta, runs);
        let by_calls =
            !spend.calls.is_empty() && !spend.calls.iter().any(|(c, _)| is_approximate(c));
        let mut calls = Vec::with_capacity(spend.calls.len());
        for &(cost, count) in &spend.calls {
            let n = count.checked_mul(runs).ok_or_else(|| {
                Error::Overflow(format!("{count} calls times {runs} runs do not fit in u64"))
            })?;
            calls.push((cost, n));
        }
        // A ρ-zCDP call has no pure ε: such a release is charged by its own (ε, δ) there.
        let pure_calls = !calls
            .iter()
            .any(|(c, _)| matches!(c, PrivacyCost::Zcdp { .. }));
        if by_calls && pure_calls && delta > 0.0 {
            for &(cost, n) in &calls {
                self.add_pure_call(cost, n);
            }
        } else {
            self.add_pure_own(epsilon, delta, runs);
        }
        if by_calls {
            for &(cost, n) in &calls {
                self.add_zcdp_call(cost, n);
            }
        } else {
            self.add_zcdp_own(epsilon, delta, runs);
        }
        self.releases = self.releases.checked_add(1).ok_or_else(|| {
            Error::Overflow("more than 2^64 − 1 releases on one data set".to_string())
        })?;
        Ok(())
    }

    /// The basic filter's view for a limit of δ `delta`.
    fn basic(&self, delta: f64) -> &Charge {
        if delta == 0.0 { &self.pure } else { &self.all }
    }

    /// What these totals have spent, as `limit`'s filter counts it (basic composition of
    /// the releases' own guarantees without a limit).
    pub fn spent(&self, limit: Option<&Limit>) -> Spent {
        let filter = limit.map_or(Filter::Basic, |l| l.filter);
        match filter {
            Filter::Basic => {
                let view = self.basic(limit.map_or(1.0, |l| l.delta));
                Spent {
                    filter,
                    epsilon: carrier_up(&view.epsilon),
                    delta: carrier_up(&view.delta),
                    rho: None,
                }
            }
            Filter::Zcdp => Spent {
                filter,
                epsilon: carrier_up(&self.zcdp.epsilon),
                delta: carrier_up(&self.zcdp.delta),
                rho: Some(carrier_up(&self.zcdp.rho)),
            },
        }
    }

    /// What is left of `limit` after these totals (0 where exhausted).
    pub fn remaining(&self, limit: &Limit) -> Remaining {
        let left = |limit: f64, spent: &Exact| {
            let r = shortest(limit) - spent;
            if r.is_positive() { r } else { Exact::zero() }
        };
        match limit.filter {
            Filter::Basic => Remaining {
                epsilon: carrier_down(&left(limit.epsilon, &self.basic(limit.delta).epsilon)),
                delta: carrier_down(&left(limit.delta, &self.basic(limit.delta).delta)),
                rho: None,
                pure_epsilon: None,
                approximate_epsilon: None,
                approximate_delta: None,
            },
            Filter::Zcdp => {
                let rho_l = decimal::exact(limit.rho.unwrap_or(0.0));
                let rho = &rho_l - &self.zcdp.rho;
                let rho = if rho.is_positive() {
                    rho
                } else {
                    Exact::zero()
                };
                let rho_f = carrier_down(&rho);
                // The largest pure release that fits: ε²/2 ≤ ρ left, rounded down.
                let mut pure = (2.0 * rho_f).sqrt();
                while pure > 0.0
                    && decimal::exact(pure) * decimal::exact(pure) / Exact::from_integer(2.into())
                        > rho
                {
                    pure = pure.next_down();
                }
                // The (ε, δ) that the ρ left converts to, at the δ at which the limit's (ε, δ)
                // became ρ_L, by the same conversion: the limit's own part before anything
                // is charged to it (ρ_L is the ρ of that part), none once ρ is spent, and in
                // between the conversion of the ρ left (itself rounded down), rounded down to
                // a decimal and never above the part.
                let (part_epsilon, part_delta) = limit.zcdp_part().unwrap_or((0.0, 0.0));
                let epsilon = if self.zcdp.rho.is_zero() {
                    part_epsilon
                } else if rho_f <= 0.0 || part_delta <= 0.0 {
                    0.0
                } else {
                    carrier_down(&decimal::exact(zcdp_to_dp_core(rho_f, part_delta)))
                        .min(part_epsilon)
                };
                Remaining {
                    epsilon,
                    delta: part_delta,
                    rho: Some(rho_f),
                    pure_epsilon: Some(pure),
                    approximate_epsilon: Some(carrier_down(&left(
                        limit.approximate_epsilon,
                        &self.zcdp.epsilon,
                    ))),
                    approximate_delta: Some(carrier_down(&left(
                        limit.approximate_delta,
                        &self.zcdp.delta,
                    ))),
                }
            }
        }
    }

    /// Whether these totals are within `limit`.
    pub fn within(&self, limit: &Limit) -> bool {
        match limit.filter {
            Filter::Basic => {
                let view = self.basic(limit.delta);
                view.epsilon <= shortest(limit.epsilon) && view.delta <= shortest(limit.delta)
            }
            Filter::Zcdp => {
                self.zcdp.rho <= decimal::exact(limit.rho.unwrap_or(0.0))
                    && self.zcdp.epsilon <= shortest(limit.approximate_epsilon)
                    && self.zcdp.delta <= shortest(limit.approximate_delta)
            }
        }
    }
}

/// Whether a call is approximate ((ε, δ)-DP with δ possibly > 0).
pub(crate) fn is_approximate(cost: &PrivacyCost) -> bool {
    matches!(cost, PrivacyCost::Approximate { .. })
}

/// What a data set's releases have spent, as its filter counts it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spent {
    /// The filter counting.
    pub filter: Filter,
    /// Σεᵢ: of every release (basic), or of the approximate releases (zCDP). A decimal at
    /// or above the exact sum.
    pub epsilon: f64,
    /// Σδᵢ, likewise.
    pub delta: f64,
    /// zCDP only: Σρᵢ of the pure and bounded-range releases.
    pub rho: Option<f64>,
}

/// What is left of a limit: decimals at or below the exact remainder, so that what is left
/// is never overstated.
///
/// Under the basic filter, `epsilon` and `delta` are what is left of the limit: spending
/// them in full fits. Under the zCDP filter, what is left is ρ (`rho`), and `epsilon` at
/// `delta` says what it is worth: the (ε, δ)-DP guarantee that the ρ left converts to, by
/// the conversion that turned the limit into ρ_L — a fresh limit's `epsilon` is its own ε,
/// and it falls as releases spend ρ, to 0 when ρ is spent. The part of the limit set aside
/// for approximate releases is left apart, in `approximate_epsilon` and
/// `approximate_delta`.
///
/// ```
/// use disguise::ledger::{Ledger, Limit, Spend, Unit};
/// use disguise::privacy::{Guarantee, compose::Rule};
/// # let dir = tempfile::tempdir().unwrap();
/// let ledger = Ledger::create(&dir.path().join("budget.ledger"))?;
/// ledger.set_limit("logs", Limit::zcdp(1.0, 1e-6)?)?;
/// let fresh = ledger.status("logs")?.remaining.unwrap();
/// assert_eq!((fresh.epsilon, fresh.delta), (1.0, 1e-6));
/// let pure = |epsilon| Spend::protecting(Unit::Record, Guarantee { epsilon, delta: 0.0, rule: Rule::Single });
/// ledger.reserve("logs", &pure(0.1))?; // ρ = 0.1²/2 = 0.005 of ρ_L ≈ 0.0245
/// let left = ledger.status("logs")?.remaining.unwrap();
/// assert!(left.epsilon > 0.8 && left.epsilon < 1.0 && left.delta == 1e-6);
/// assert_eq!(left.approximate_epsilon, Some(0.0)); // none was set aside
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Remaining {
    /// ε left. Basic filter: of the limit. zCDP filter: the ε of the (ε, δ)-DP guarantee
    /// that the ρ left converts to at `delta` (Canonne–Kamath–Steinke 2020, Prop. 12: the
    /// conversion that made ρ_L), rounded down; the limit's ε (less its part for
    /// approximate releases) before any release charges ρ, 0 once ρ is spent.
    pub epsilon: f64,
    /// Basic filter: δ left of the limit. zCDP filter: the δ of that guarantee, the limit's
    /// δ (less its part for approximate releases), whatever is spent.
    pub delta: f64,
    /// zCDP only: ρ left for pure and bounded-range releases.
    pub rho: Option<f64>,
    /// zCDP only: the largest ε of one pure ε-DP release that still fits (√(2ρ left)); an
    /// exponential-mechanism call of twice that fits too (ρ = ε²/8).
    pub pure_epsilon: Option<f64>,
    /// zCDP only: ε left of the part of the limit for approximate releases (0 when none was
    /// set aside).
    pub approximate_epsilon: Option<f64>,
    /// zCDP only: δ left of the part of the limit for approximate releases.
    pub approximate_delta: Option<f64>,
}

/// The cost of `spend` in words, for a refusal under `limit`: its ε and δ as the filter
/// charges them, and under zCDP its ρ.
pub(crate) fn cost_words(spend: &Spend, limit: &Limit) -> String {
    let runs = if spend.runs > 1 {
        format!(" × {} runs", crate::numeric::display::thousands(spend.runs))
    } else {
        String::new()
    };
    let mut alone = Totals::default();
    if alone.add_spend(spend).is_err() {
        return format!(
            "ε = {}, δ = {}{runs}",
            typed(spend.guarantee.epsilon),
            typed(spend.guarantee.delta)
        );
    }
    let basic = alone.basic(limit.delta);
    let own = format!(
        "ε = {}, δ = {}",
        typed(carrier_up(&basic.epsilon)),
        typed(carrier_up(&basic.delta)),
    );
    let runs = if spend.runs > 1 {
        format!(" ({} runs)", crate::numeric::display::thousands(spend.runs))
    } else {
        String::new()
    };
    if limit.filter == Filter::Basic {
        return format!("{own}{runs}");
    }
    if alone.zcdp.rho.is_zero() {
        format!("{own}{runs} (approximate: spent from the limit's part for approximate releases)")
    } else {
        format!(
            "ρ = {}{runs}",
            decimal::rounded(carrier_up(&alone.zcdp.rho), 6, std::cmp::Ordering::Greater)
        )
    }
}

impl Charge {
    /// Whether every part of this charge is at most `other`'s.
    fn within(&self, other: &Charge) -> bool {
        self.epsilon <= other.epsilon && self.delta <= other.delta && self.rho <= other.rho
    }
}

/// Whether `actual`, alone, is charged at most what `reserved`, alone, is, in every view of
/// [`Totals`]: the basic filter's (own guarantees, and the pure calls under a pure limit)
/// and the zCDP filter's (ρ, and the part for approximate releases). Overflowing counts are
/// not within.
pub(crate) fn charged_within(reserved: &Spend, actual: &Spend) -> bool {
    let alone = |spend: &Spend| {
        let mut totals = Totals::default();
        totals.add_spend(spend).ok().map(|()| totals)
    };
    let (Some(reserved), Some(actual)) = (alone(reserved), alone(actual)) else {
        return false;
    };
    actual.all.within(&reserved.all)
        && actual.pure.within(&reserved.pure)
        && actual.zcdp.within(&reserved.zcdp)
}

/// Whether the calls `actual` (each group's count times `actual_runs`) are covered by the
/// calls `reserved` (times `reserved_runs`): each call matched to a reserved call of the
/// same kind whose cost is at least its own in every parameter (ε and δ, or ρ), no
/// reserved call matched twice. A non-private call is never covered.
///
/// Within a kind, costs are pairs (a, b) — (ε, δ), or (ε or ρ, 0) — and the matching is
/// the greedy one: the run's calls by decreasing a, each given the reserved call of least
/// b ≥ its own among those with a at least its own. It finds a matching whenever one
/// exists: the reserved calls available to a call are available to every later one (their
/// a is at least the later call's too), and exchanging the call's choice for any other
/// feasible one leaves every later call at least as well served.
pub(crate) fn calls_covered(
    reserved: &[(PrivacyCost, u64)],
    reserved_runs: u64,
    actual: &[(PrivacyCost, u64)],
    actual_runs: u64,
) -> bool {
    /// (kind, a, b) of a cost; `None` for a non-private call.
    fn key(cost: PrivacyCost) -> Option<(u8, f64, f64)> {
        Some(match cost {
            PrivacyCost::BoundedRange { epsilon } => (0, epsilon.get(), 0.0),
            PrivacyCost::Pure { epsilon } => (1, epsilon.get(), 0.0),
            PrivacyCost::Approximate { epsilon, delta } => (2, epsilon.get(), delta.get()),
            PrivacyCost::Zcdp { rho } => (3, rho, 0.0),
            PrivacyCost::NonPrivate => return None,
        })
    }
    // (a, b, calls) of one kind, by decreasing a.
    let of_kind = |calls: &[(PrivacyCost, u64)], runs: u64, kind: u8| {
        let mut out: Vec<(f64, f64, u128)> = calls
            .iter()
            .filter_map(|&(cost, count)| {
                let (k, a, b) = key(cost)?;
                (k == kind).then_some((a, b, u128::from(count) * u128::from(runs)))
            })
            .collect();
        out.sort_by(|x, y| y.0.total_cmp(&x.0));
        out
    };
    if actual.iter().any(|&(cost, _)| key(cost).is_none()) {
        return false;
    }
    for kind in 0..4 {
        let wanted = of_kind(actual, actual_runs, kind);
        let offered = of_kind(reserved, reserved_runs, kind);
        // The reserved calls whose a is at least the current call's: (b, calls left).
        let mut pool: Vec<(f64, u128)> = Vec::new();
        let mut next = 0;
        for (a, b, mut calls) in wanted {
            while next < offered.len() && offered[next].0 >= a {
                pool.push((offered[next].1, offered[next].2));
                next += 1;
            }
            while calls > 0 {
                let Some(slot) = pool
                    .iter_mut()
                    .filter(|(offered_b, left)| *left > 0 && *offered_b >= b)
                    .min_by(|x, y| x.0.total_cmp(&y.0))
                else {
                    return false;
                };
                let taken = calls.min(slot.1);
                slot.1 -= taken;
                calls -= taken;
            }
        }
    }
    true
}
