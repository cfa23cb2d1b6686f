//! Private selection: the papers' selection procedure O(q, D; ε₀, δ₀).
//!
//! A [`Selector`] receives the qualities q(v) of all candidates and their sensitivity λ and
//! returns one index. It is the only place (besides the histogram sampler) where privacy
//! noise enters an algorithm.

mod argmax;
mod exact;
pub(crate) mod exponential;
mod large_margin;
mod noisy_max;

pub use argmax::Argmax;
pub use exponential::{Exponential, sample_exponential};
pub use large_margin::{LargeMargin, MarginVariant};
pub use noisy_max::ReportNoisyMax;

use crate::error::{Error, Result};
use crate::names::{Named, named_traits};
use crate::noise::SecureRng;
use crate::privacy::{Delta, Epsilon, PrivacyCost, Sensitivity};
use serde::Serialize;

/// The outcome of one private selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Selection {
    /// Index of the chosen candidate in the score slice.
    pub index: usize,
    /// For the large margin mechanisms: the margin parameter ℓ found (the size of the top set
    /// the final exponential mechanism sampled from). `None` for other selectors.
    pub margin: Option<usize>,
}

/// One private choice among candidates, given their scores and sensitivity.
pub trait Selector: Send + Sync {
    /// Chooses one index of `scores`.
    ///
    /// `sensitivity` is λ: the largest change of any single score between neighbouring
    /// datasets. Errors on an empty slice or a non-finite score.
    fn select(
        &self,
        scores: &[f64],
        sensitivity: Sensitivity,
        rng: &mut SecureRng,
    ) -> Result<Selection>;

    /// The privacy cost of one call to [`Selector::select`].
    fn cost(&self) -> PrivacyCost;

    /// A short name for output and logs (`em`, `lmm`, `lmm-chaudhuri`, ...).
    fn name(&self) -> &'static str;
}

/// Checks a score vector before any selector touches it: non-empty, every score finite.
///
/// Shared by every [`Selector`] so that all of them reject the same inputs with the same
/// errors: [`Error::EmptyCandidates`] for an empty slice and [`Error::NonFiniteScore`] (with
/// the first offending index) for NaN or ±∞.
pub(crate) fn validate_scores(scores: &[f64]) -> Result<()> {
    if scores.is_empty() {
        return Err(Error::EmptyCandidates);
    }
    match scores.iter().position(|s| !s.is_finite()) {
        Some(index) => Err(Error::NonFiniteScore {
            index,
            value: scores[index],
        }),
        None => Ok(()),
    }
}

/// Every selector a user can name (`disguise sample --mechanism`, [`selector_by_name`]): its
/// name, help and calibration are defined here once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SelectorKind {
    /// [`Exponential::new`].
    Exponential,
    /// [`Exponential::monotone`].
    ExponentialMonotone,
    /// [`LargeMargin::new`].
    LargeMargin,
    /// [`LargeMargin::chaudhuri`].
    LargeMarginChaudhuri,
    /// [`ReportNoisyMax::new`].
    ReportNoisyMax,
    /// [`ReportNoisyMax::monotone`].
    ReportNoisyMaxMonotone,
    /// The non-private [`Argmax`].
    Argmax,
}

impl SelectorKind {
    /// The selector calibrated to ε (and δ for the large margin mechanisms; the pure
    /// mechanisms ignore δ, the argmax both).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for δ = 0 with a large margin mechanism.
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
}

impl Named for SelectorKind {
    const KIND: &'static str = "selector";
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

    fn help(self) -> &'static str {
        match self {
            SelectorKind::Exponential => "The exponential mechanism (ε-DP)",
            SelectorKind::ExponentialMonotone => {
                "The exponential mechanism at twice the sharpness, private only for monotone scores"
            }
            SelectorKind::LargeMargin => {
                "The large margin mechanism of Mitrovic et al. 2017, Alg. 5 ((ε, δ)-DP; δ > 0)"
            }
            SelectorKind::LargeMarginChaudhuri => {
                "The large margin mechanism of Chaudhuri et al. 2014 ((ε, δ)-DP; δ > 0)"
            }
            SelectorKind::ReportNoisyMax => "Report noisy max with Laplace noise (ε-DP)",
            SelectorKind::ReportNoisyMaxMonotone => {
                "Report noisy max at half the noise, private only for monotone scores"
            }
            SelectorKind::Argmax => "The non-private argmax: NO privacy guarantee, a baseline",
        }
    }
}

named_traits!(SelectorKind);

/// Builds a selector from its [`Selector::name`], for the CLI and configuration files.
///
/// * `em` — [`Exponential::new`]`(ε)`; `em-monotone` — [`Exponential::monotone`]`(ε)`;
/// * `lmm` — [`LargeMargin::new`]`(ε, δ)`; `lmm-chaudhuri` —
///   [`LargeMargin::chaudhuri`]`(ε, δ)` (both need δ > 0);
/// * `report-noisy-max` — [`ReportNoisyMax::new`]`(ε)`; `report-noisy-max-monotone` —
///   [`ReportNoisyMax::monotone`]`(ε)`;
/// * `max` — the non-private [`Argmax`] (ε and δ ignored).
///
/// The pure mechanisms ignore δ (they spend δ = 0). The `*-monotone` variants are only
/// private for monotone scores (see their docs).
///
/// # Errors
/// [`Error::InvalidParameter`] for an unknown name (the message lists the valid ones) or
/// for δ = 0 with a large margin mechanism.
///
/// ```
/// use disguise::prelude::*;
/// use disguise::select::selector_by_name;
///
/// let lmm = selector_by_name("lmm", Epsilon::new(0.5)?, Delta::new(1e-6)?)?;
/// assert_eq!(lmm.name(), "lmm");
/// assert!(selector_by_name("lmm", Epsilon::new(0.5)?, Delta::ZERO).is_err());
/// assert!(selector_by_name("gumbel", Epsilon::new(0.5)?, Delta::ZERO).is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn selector_by_name(name: &str, epsilon: Epsilon, delta: Delta) -> Result<Box<dyn Selector>> {
    SelectorKind::from_name(name)?.build(epsilon, delta)
}
