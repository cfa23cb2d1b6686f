//! The one vocabulary of selection mechanisms: every selector a user can name, for every
//! task (`--mechanism` on the command line, `mechanism=` in Python, the `mechanism` field of
//! every report).
//!
//! A task accepts a subset of the kinds, as a constant slice beside the task that it checks in
//! `validate` ([`Privacy::MECHANISMS`](crate::task::Privacy::MECHANISMS) for the greedy tasks
//! and hypothesis selection, [`Itemsets::MECHANISMS`](crate::task::Itemsets::MECHANISMS),
//! every kind for [`Sample`](crate::task::Sample)); the command line offers exactly that
//! slice. A new selector is one variant here (its name, help, calibration and call kind) plus
//! its own file in `select/`.

use super::{Argmax, Exponential, LargeMargin, MarginVariant, ReportNoisyMax, Selector};
use crate::error::Result;
use crate::names::{Named, named_traits};
use crate::privacy::budget::CallKind;
use crate::privacy::{Delta, Epsilon};

/// A selection mechanism by name: its name, aliases, help, calibration and the kind of
/// privacy cost of one call are defined here once.
///
/// ```
/// use disguise::prelude::*;
/// use disguise::select::SelectorKind;
///
/// let lmm: SelectorKind = "LMM".parse()?; // case-insensitive, aliases accepted
/// assert_eq!(lmm, SelectorKind::LargeMargin);
/// assert_eq!(lmm.build(Epsilon::new(0.5)?, Delta::new(1e-6)?)?.name(), "lmm");
/// assert!(lmm.build(Epsilon::new(0.5)?, Delta::ZERO).is_err()); // δ > 0 needed
/// assert!("gumbel".parse::<SelectorKind>().is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SelectorKind {
    /// The exponential mechanism ([`Exponential::new`]): ε-DP and ε-bounded-range per call;
    /// the selector of Theorems 3.1–3.5 and 4.1 of Mitrovic et al. (2017). The default.
    #[default]
    Exponential,
    /// [`Exponential::monotone`]: twice the sharpness, private only for monotone scores.
    ExponentialMonotone,
    /// The large margin mechanism as presented by Mitrovic et al. (2017), Algorithm 5
    /// ([`LargeMargin::new`]): (ε, δ)-DP per call, δ > 0; Theorems 5.3–5.5.
    LargeMargin,
    /// The original large margin mechanism of Chaudhuri et al. (2014), Algorithm 1
    /// ([`LargeMargin::chaudhuri`]): (ε, δ)-DP per call, δ > 0.
    LargeMarginChaudhuri,
    /// Report noisy max with Laplace noise ([`ReportNoisyMax::new`]): ε-DP per call.
    ReportNoisyMax,
    /// [`ReportNoisyMax::monotone`]: half the noise, private only for monotone scores.
    ReportNoisyMaxMonotone,
    /// The non-private [`Argmax`] (the papers' `MAX`): NO privacy guarantee, a baseline.
    Argmax,
}

impl SelectorKind {
    /// The selector calibrated to ε (and δ for the large margin mechanisms; the pure
    /// mechanisms ignore δ, the argmax both).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) for δ = 0 with a large
    /// margin mechanism.
    pub fn build(self, epsilon: Epsilon, delta: Delta) -> Result<Box<dyn Selector>> {
        Ok(match self {
            SelectorKind::Exponential => Box::new(Exponential::new(epsilon)),
            SelectorKind::ExponentialMonotone => Box::new(Exponential::monotone(epsilon)),
            SelectorKind::LargeMargin => Box::new(LargeMargin::new(epsilon, delta)?),
            SelectorKind::LargeMarginChaudhuri => Box::new(LargeMargin::chaudhuri(epsilon, delta)?),
            SelectorKind::ReportNoisyMax => Box::new(ReportNoisyMax::new(epsilon)),
            SelectorKind::ReportNoisyMaxMonotone => Box::new(ReportNoisyMax::monotone(epsilon)),
            SelectorKind::Argmax => Box::new(Argmax),
        })
    }

    /// Whether the selection has a privacy guarantee (everything but the argmax).
    pub fn is_private(self) -> bool {
        self != SelectorKind::Argmax
    }

    /// Whether each call needs its own δ > 0 (the large margin mechanisms).
    pub fn needs_delta(self) -> bool {
        self.margin_variant().is_some()
    }

    /// The large margin variant, for the two large margin mechanisms.
    pub fn margin_variant(self) -> Option<MarginVariant> {
        match self {
            SelectorKind::LargeMargin => Some(MarginVariant::Mitrovic),
            SelectorKind::LargeMarginChaudhuri => Some(MarginVariant::Chaudhuri),
            _ => None,
        }
    }

    /// The kind of privacy cost of one call (which composition rules apply), for the
    /// mechanisms private on any scores; `None` for the argmax and for the monotone variants,
    /// whose guarantee needs a property of the scores that the composition of a greedy's
    /// marginal gains does not establish.
    pub fn call_kind(self) -> Option<CallKind> {
        match self {
            SelectorKind::Exponential => Some(CallKind::BoundedRange),
            SelectorKind::ReportNoisyMax => Some(CallKind::Pure),
            SelectorKind::LargeMargin | SelectorKind::LargeMarginChaudhuri => {
                Some(CallKind::Approximate)
            }
            SelectorKind::ExponentialMonotone
            | SelectorKind::ReportNoisyMaxMonotone
            | SelectorKind::Argmax => None,
        }
    }
}

impl Named for SelectorKind {
    const KIND: &'static str = "mechanism";
    const ALL: &'static [Self] = &[
        SelectorKind::Exponential,
        SelectorKind::ExponentialMonotone,
        SelectorKind::LargeMargin,
        SelectorKind::LargeMarginChaudhuri,
        SelectorKind::ReportNoisyMax,
        SelectorKind::ReportNoisyMaxMonotone,
        SelectorKind::Argmax,
    ];

    fn name(self) -> &'static str {
        match self {
            SelectorKind::Exponential => "em",
            SelectorKind::ExponentialMonotone => "em-monotone",
            SelectorKind::LargeMargin => "lmm",
            SelectorKind::LargeMarginChaudhuri => "lmm-chaudhuri",
            SelectorKind::ReportNoisyMax => "report-noisy-max",
            SelectorKind::ReportNoisyMaxMonotone => "report-noisy-max-monotone",
            SelectorKind::Argmax => "max",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            SelectorKind::Exponential => &["exponential"],
            SelectorKind::LargeMargin => &["large-margin"],
            SelectorKind::LargeMarginChaudhuri => &["large-margin-chaudhuri"],
            SelectorKind::ReportNoisyMax => &["rnm"],
            SelectorKind::Argmax => &["argmax"],
            SelectorKind::ExponentialMonotone | SelectorKind::ReportNoisyMaxMonotone => &[],
        }
    }

    fn help(self) -> &'static str {
        match self {
            SelectorKind::Exponential => {
                "The exponential mechanism (ε-DP, bounded range: every composition rule applies)"
            }
            SelectorKind::ExponentialMonotone => {
                "The exponential mechanism at twice the sharpness, private only for monotone scores"
            }
            SelectorKind::LargeMargin => {
                "The large margin mechanism as in Mitrovic et al. 2017, Alg. 5 ((ε, δ)-DP; needs δ > 0)"
            }
            SelectorKind::LargeMarginChaudhuri => {
                "The original large margin mechanism of Chaudhuri et al. 2014 ((ε, δ)-DP; needs δ > 0)"
            }
            SelectorKind::ReportNoisyMax => "Report noisy max with Laplace noise (pure ε-DP)",
            SelectorKind::ReportNoisyMaxMonotone => {
                "Report noisy max at half the noise, private only for monotone scores"
            }
            SelectorKind::Argmax => "The non-private argmax: NO privacy guarantee, a baseline",
        }
    }
}

named_traits!(SelectorKind);

/// Serialised by its [`Named::name`] (`"em"`, `"lmm"`, ...), as every report names it.
impl serde::Serialize for SelectorKind {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eps(e: f64) -> Epsilon {
        Epsilon::new(e).unwrap()
    }

    /// Every name builds the selector of that name; δ = 0 is refused exactly by the large
    /// margin mechanisms; an unknown name lists the valid ones.
    #[test]
    fn every_kind_builds_the_selector_of_its_name() {
        let delta = Delta::new(1e-6).unwrap();
        for &kind in SelectorKind::ALL {
            let selector = kind.build(eps(0.5), delta).unwrap();
            assert_eq!(selector.name(), kind.name());
            assert_eq!(kind.name().parse::<SelectorKind>().unwrap(), kind);
            assert_eq!(
                kind.build(eps(0.5), Delta::ZERO).is_err(),
                kind.needs_delta(),
                "{kind}"
            );
        }
        let err = "nope".parse::<SelectorKind>().unwrap_err().to_string();
        assert!(
            err.contains("expected one of em, em-monotone, lmm"),
            "{err}"
        );
    }

    /// The call kind is the one of the selector's own cost, for the kinds that have one.
    #[test]
    fn call_kind_agrees_with_the_selectors_cost() {
        let delta = Delta::new(1e-6).unwrap();
        for &kind in SelectorKind::ALL {
            let cost = kind.build(eps(0.5), delta).unwrap().cost();
            if let Some(call) = kind.call_kind() {
                let approximate = matches!(cost, crate::privacy::PrivacyCost::Approximate { .. });
                assert_eq!(approximate, call == CallKind::Approximate, "{kind}");
            }
            assert_eq!(kind.is_private(), kind != SelectorKind::Argmax);
        }
    }

    #[test]
    fn serialises_by_name() {
        let json = serde_json::to_string(&SelectorKind::LargeMarginChaudhuri).unwrap();
        assert_eq!(json, "\"lmm-chaudhuri\"");
    }
}
