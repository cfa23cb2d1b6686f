//! Privacy parameters, per-call costs, and the accountant.
//!
//! * [`Epsilon`], [`Delta`], [`Sensitivity`] are validated newtypes: once you hold one, it is
//!   in its domain, so mechanisms never re-check.
//! * [`PrivacyCost`] is what one mechanism call spends, with the structure the accountant can
//!   exploit (pure, bounded range, approximate).
//! * [`compose`] turns a sequence of costs into end-to-end [`Guarantee`]s under each
//!   composition rule; [`budget`] solves the inverse problem (largest per-round ε₀ for a
//!   total budget).
//! * [`proofs`] renders the proofs of the privacy steps that are not a citation of a
//!   published theorem (the files of `docs/proofs/`).

pub mod budget;
pub mod compose;
pub mod proofs;
mod unit;

pub use unit::Unit;

use crate::error::{Error, Result};
use serde::Serialize;

/// A privacy-loss parameter ε: finite and strictly positive.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Epsilon(f64);

impl Epsilon {
    /// Validates ε.
    ///
    /// ```
    /// use disguise::privacy::Epsilon;
    /// assert!(Epsilon::new(0.1).is_ok());
    /// assert!(Epsilon::new(0.0).is_err());
    /// assert!(Epsilon::new(f64::NAN).is_err());
    /// ```
    pub fn new(value: f64) -> Result<Self> {
        if value.is_finite() && value > 0.0 {
            Ok(Self(value))
        } else {
            Err(Error::InvalidEpsilon(value))
        }
    }
    /// Validates a total budget ε a user asks a task to spend: [`Epsilon::new`], and at
    /// most [`MAX_EPSILON`]. The value returned is the one to spend: the largest double not
    /// above the decimal typed ([`crate::numeric::decimal::at_most_typed`]), so that a run
    /// asked for ε = 0.1 spends at most 0.1 — not the double nearest 0.1, a hair above.
    ///
    /// ```
    /// use disguise::privacy::Epsilon;
    /// assert!(Epsilon::total(10.0).is_ok());
    /// assert!(Epsilon::total(1e6).unwrap_err().to_string().contains("too large"));
    /// ```
    pub fn total(value: f64) -> Result<Self> {
        let epsilon = Self::new(value)?;
        if value > MAX_EPSILON {
            return Err(Error::param(
                "epsilon",
                format!(
                    "{} is too large (at most {MAX_EPSILON}): e^ε, the factor by which one \
                     record may change the odds of any output, exceeds 10^304 and nothing is \
                     protected; typical values are 0.1 to 10",
                    crate::numeric::display::input(value)
                ),
            ));
        }
        Ok(Self(crate::numeric::decimal::at_most_typed(epsilon.0)))
    }

    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// The largest total ε a task accepts ([`Epsilon::total`]). e^ε bounds the factor by which
/// one person's record may change the probability of any output: at ε = 700 that factor is
/// already 10^304, and past ε ≈ 709 it exceeds the largest double, where the accountant's
/// arithmetic (sums of ε², e^ε) stops being meaningful. An ε anywhere near this protects no
/// one.
pub const MAX_EPSILON: f64 = 700.0;

/// A failure-probability parameter δ ∈ [0, 1).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Delta(f64);

impl Delta {
    /// Validates δ.
    ///
    /// ```
    /// use disguise::privacy::Delta;
    /// assert!(Delta::new(0.0).is_ok());
    /// assert!(Delta::new(1.0).is_err());
    /// ```
    pub fn new(value: f64) -> Result<Self> {
        if (0.0..1.0).contains(&value) {
            Ok(Self(value))
        } else {
            Err(Error::InvalidDelta(value))
        }
    }
    /// Validates a total δ a user asks a task to spend, and returns the value to spend: the
    /// largest double not above the decimal typed (see [`Epsilon::total`]).
    ///
    /// ```
    /// use disguise::privacy::Delta;
    /// assert!(Delta::total(1e-6)?.get() <= 1e-6);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn total(value: f64) -> Result<Self> {
        Self::new(value).map(|d| Self(crate::numeric::decimal::at_most_typed(d.0)))
    }
    /// δ = 0 (pure differential privacy).
    pub const ZERO: Delta = Delta(0.0);
    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// The sensitivity λ of a score vector: the largest change of any single score between
/// neighbouring datasets. Finite and strictly positive.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Sensitivity(f64);

impl Sensitivity {
    /// Validates λ.
    ///
    /// ```
    /// use disguise::privacy::Sensitivity;
    /// assert!(Sensitivity::new(1.0).is_ok());
    /// assert!(Sensitivity::new(-1.0).is_err());
    /// ```
    pub fn new(value: f64) -> Result<Self> {
        if value.is_finite() && value > 0.0 {
            Ok(Self(value))
        } else {
            Err(Error::InvalidSensitivity(value))
        }
    }
    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// What one mechanism call costs, with the structure that tighter composition rules use.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PrivacyCost {
    /// ε-DP and ε-bounded-range (the exponential mechanism; Dong–Durfee–Rogers 2020), hence
    /// ε²/8-zCDP.
    BoundedRange {
        /// ε of the call.
        epsilon: Epsilon,
    },
    /// ε-DP (e.g. report noisy max with Laplace noise), hence ε²/2-zCDP.
    Pure {
        /// ε of the call.
        epsilon: Epsilon,
    },
    /// (ε, δ)-DP only (both large margin mechanisms): composes only by the basic and advanced
    /// rules.
    Approximate {
        /// ε of the call.
        epsilon: Epsilon,
        /// δ of the call.
        delta: Delta,
    },
    /// ρ-zCDP only (the Gaussian mechanism, Bun–Steinke 2016; the discrete Gaussian,
    /// Canonne–Kamath–Steinke 2020): composes only by the zCDP rule (ρ adds up), and is
    /// (ε, δ)-DP only through the conversion at the run's δ.
    Zcdp {
        /// ρ of the call (finite, > 0).
        rho: f64,
    },
    /// No privacy at all (the non-private argmax baseline).
    NonPrivate,
}

/// k·e^{(k−1)ε}·δ, the δ of group privacy for groups of k, rounded up.
fn group_delta(k: u32, epsilon: f64, delta: f64) -> f64 {
    use crate::numeric::round::{mul_up, nudge_up};
    let k = f64::from(k);
    let grow = nudge_up(mul_up(k - 1.0, epsilon).exp(), 4);
    mul_up(k, mul_up(grow, delta))
}

impl PrivacyCost {
    /// The cost of the same call for neighbours that differ in up to `size` records (group
    /// privacy): an ε-bounded-range call is kε-bounded-range (its privacy loss over a path
    /// of k neighbours is a sum of k losses, each within a range of ε), an ε-DP call kε-DP
    /// (Dwork and Roth 2014, Theorem 2.2), an (ε, δ)-DP call (kε, k·e^{(k−1)ε}·δ)-DP (Vadhan
    /// 2017, Lemma 2.2). Rounded up; `None` when a cost leaves its domain (δ ≥ 1).
    ///
    /// ```
    /// use disguise::privacy::{Epsilon, PrivacyCost};
    /// let em = PrivacyCost::BoundedRange { epsilon: Epsilon::new(0.25)? };
    /// assert_eq!(em.group(2), Some(PrivacyCost::BoundedRange { epsilon: Epsilon::new(0.5)? }));
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn group(self, size: u32) -> Option<PrivacyCost> {
        let k = size.max(1);
        let times =
            |e: Epsilon| Epsilon::new(crate::numeric::round::mul_up(f64::from(k), e.get())).ok();
        Some(match self {
            PrivacyCost::BoundedRange { epsilon } => PrivacyCost::BoundedRange {
                epsilon: times(epsilon)?,
            },
            PrivacyCost::Pure { epsilon } => PrivacyCost::Pure {
                epsilon: times(epsilon)?,
            },
            PrivacyCost::Approximate { epsilon, delta } => PrivacyCost::Approximate {
                epsilon: times(epsilon)?,
                delta: Delta::new(group_delta(k, epsilon.get(), delta.get())).ok()?,
            },
            // ρ-zCDP is k²ρ-zCDP for groups of k (Bun–Steinke 2016, Proposition 1.9).
            PrivacyCost::Zcdp { rho } => {
                let k = f64::from(k);
                let grown = crate::numeric::round::mul_up(crate::numeric::round::mul_up(k, k), rho);
                if !grown.is_finite() {
                    return None;
                }
                PrivacyCost::Zcdp { rho: grown }
            }
            PrivacyCost::NonPrivate => PrivacyCost::NonPrivate,
        })
    }

    /// (ε, δ) of the call alone; `None` for a non-private call and for a ρ-zCDP call (whose
    /// ε depends on the δ it is converted at).
    pub fn epsilon_delta(&self) -> Option<(f64, f64)> {
        match *self {
            PrivacyCost::BoundedRange { epsilon } | PrivacyCost::Pure { epsilon } => {
                Some((epsilon.get(), 0.0))
            }
            PrivacyCost::Approximate { epsilon, delta } => Some((epsilon.get(), delta.get())),
            PrivacyCost::Zcdp { .. } | PrivacyCost::NonPrivate => None,
        }
    }

    /// A ρ-zCDP call.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless ρ is finite and positive.
    pub fn zcdp(rho: f64) -> Result<Self> {
        if rho.is_finite() && rho > 0.0 {
            Ok(PrivacyCost::Zcdp { rho })
        } else {
            Err(Error::param(
                "rho",
                format!("must be finite and positive, got {rho}"),
            ))
        }
    }
}

/// An end-to-end (ε, δ) guarantee, with the composition rule that proved it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Guarantee {
    /// Total ε (rounded up: never smaller than the true bound of the rule).
    pub epsilon: f64,
    /// Total δ (rounded up).
    pub delta: f64,
    /// The rule that proved this guarantee.
    pub rule: compose::Rule,
}

impl Guarantee {
    /// This guarantee stated at the budget as typed, (`epsilon`, `delta`), when it is within
    /// it (an (ε′, δ′)-DP mechanism with ε′ ≤ ε and δ′ ≤ δ is (ε, δ)-DP): the decimals a
    /// person typed and a ledger adds exactly, not the double a hair below them that
    /// [`Epsilon::total`] spends. A pure guarantee stays pure. Unchanged otherwise.
    ///
    /// ```
    /// use disguise::privacy::Guarantee;
    /// use disguise::privacy::compose::Rule;
    /// let g = Guarantee { epsilon: 0.09999999999999999, delta: 0.0, rule: Rule::Basic };
    /// let typed = g.within_typed(0.1, 0.0);
    /// assert_eq!((typed.epsilon, typed.delta), (0.1, 0.0));
    /// ```
    pub fn within_typed(self, epsilon: f64, delta: f64) -> Self {
        if self.epsilon <= epsilon && self.delta <= delta {
            Self {
                epsilon,
                delta: if self.delta > 0.0 { delta } else { 0.0 },
                ..self
            }
        } else {
            self
        }
    }

    /// This guarantee followed by a pure ε-DP mechanism that may depend on its output:
    /// (ε₁ + ε, δ₁)-DP by basic composition (Dwork and Roth 2014, Theorem 3.16), reported as
    /// the exact sum of the two decimals, rounded up, with the rule [`compose::Rule::Basic`].
    ///
    /// ```
    /// use disguise::privacy::{Guarantee, compose::Rule};
    /// let g = Guarantee { epsilon: 0.7, delta: 1e-6, rule: Rule::Zcdp };
    /// let both = g.then_pure(0.1);
    /// assert_eq!((both.epsilon, both.delta, both.rule), (0.8, 1e-6, Rule::Basic));
    /// ```
    pub fn then_pure(self, epsilon: f64) -> Guarantee {
        use crate::numeric::decimal::{carrier_up, shortest};
        Guarantee {
            epsilon: carrier_up(&(shortest(self.epsilon) + shortest(epsilon))),
            delta: self.delta,
            rule: compose::Rule::Basic,
        }
    }

    /// The guarantee for neighbours that differ in up to `size` records (group privacy): an
    /// (ε, δ)-DP mechanism is (kε, k·e^{(k−1)ε}·δ)-DP for datasets that differ in k records
    /// (Dwork and Roth 2014, Theorem 2.2, for δ = 0; Vadhan 2017, "The Complexity of
    /// Differential Privacy", Lemma 2.2, for δ > 0). Rounded up; δ is capped at 1 (then
    /// vacuous). For example, an edge of a friendship graph sits in two people's friend
    /// lists, so protecting one friendship is the guarantee for `size` = 2.
    ///
    /// ```
    /// use disguise::privacy::{Guarantee, compose::Rule};
    /// let g = Guarantee { epsilon: 0.5, delta: 1e-6, rule: Rule::Basic };
    /// let edge = g.group(2);
    /// assert!(edge.epsilon >= 1.0 && edge.epsilon < 1.0 + 1e-12);
    /// assert!(edge.delta >= 2.0 * 0.5f64.exp() * 1e-6);
    /// ```
    pub fn group(self, size: u32) -> Guarantee {
        use crate::numeric::decimal::{Exact, carrier_up, shortest, tidy_up};
        let k = size.max(1);
        // The decimals the guarantee prints as are its bounds (`numeric::decimal`): k times
        // them, exactly, reported as a decimal at or above.
        let epsilon = carrier_up(&(shortest(self.epsilon) * Exact::from_integer(k.into())));
        let delta = if self.delta == 0.0 {
            0.0
        } else {
            // A double above each decimal bound (within half a gap of the double below it).
            let (e, d) = (self.epsilon.next_up(), self.delta.next_up());
            tidy_up(group_delta(k, e, d)).min(1.0)
        };
        Guarantee {
            epsilon,
            delta,
            rule: self.rule,
        }
    }
}
