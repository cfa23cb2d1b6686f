//! Private selection: the papers' selection procedure O(q, D; ε₀, δ₀).
//!
//! A [`Selector`] receives the qualities q(v) of all candidates and their sensitivity λ and
//! returns one index. It is the only place (besides the histogram sampler) where privacy
//! noise enters an algorithm.

mod argmax;
mod exact;
pub(crate) mod exponential;
mod kind;
mod large_margin;
mod noisy_max;

pub use argmax::Argmax;
pub use exponential::{Exponential, sample_exponential};
pub use kind::SelectorKind;
pub use large_margin::{LargeMargin, MarginVariant};
pub use noisy_max::ReportNoisyMax;

use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::privacy::{PrivacyCost, Sensitivity};
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
