//! The non-private baseline: return the best score.

use super::{Selection, Selector, validate_scores};
use crate::error::Result;
use crate::noise::SecureRng;
use crate::privacy::{PrivacyCost, Sensitivity};

/// The papers' non-private `MAX` selector (the ε = ∞ baseline): returns the index of the
/// largest score, the lowest such index on ties.
///
/// # Guarantee
///
/// **None.** The output is a deterministic function of the data; [`Selector::cost`] is
/// [`PrivacyCost::NonPrivate`] and the accountant reports no finite ε for any run that uses
/// it. It exists as the reference point "what would greedy do without privacy" in
/// experiments (mitrovic2017 and rafiey2020 plot it as the top line), never for release.
///
/// # Exactness
///
/// Scores are compared exactly as `f64` values; the random generator is not touched.
///
/// # Runtime
///
/// O(|V|), one pass.
///
/// ```
/// use disguise::prelude::*;
/// use disguise::select::Argmax;
///
/// let mut rng = SecureRng::insecure_from_seed(1);
/// let pick = Argmax.select(&[2.0, 7.0, 7.0, 1.0], Sensitivity::new(1.0)?, &mut rng)?;
/// assert_eq!(pick.index, 1); // the tie 7.0 / 7.0 goes to the lower index
/// assert_eq!(Argmax.cost(), PrivacyCost::NonPrivate);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Argmax;

impl Argmax {
    /// The index of the largest score (lowest index on ties), after validating `scores`.
    pub fn argmax(scores: &[f64]) -> Result<usize> {
        validate_scores(scores)?;
        let mut best = 0;
        for (i, &s) in scores.iter().enumerate().skip(1) {
            // Strict `>` keeps the first of equal maxima.
            if s > scores[best] {
                best = i;
            }
        }
        Ok(best)
    }
}

impl Selector for Argmax {
    /// Errors: [`crate::Error::EmptyCandidates`], [`crate::Error::NonFiniteScore`].
    fn select(
        &self,
        scores: &[f64],
        _sensitivity: Sensitivity,
        _rng: &mut SecureRng,
    ) -> Result<Selection> {
        Ok(Selection {
            index: Self::argmax(scores)?,
            margin: None,
        })
    }

    fn cost(&self) -> PrivacyCost {
        PrivacyCost::NonPrivate
    }

    fn name(&self) -> &'static str {
        "max"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn pick(scores: &[f64]) -> Result<Selection> {
        let mut rng = SecureRng::insecure_from_seed(0);
        Argmax.select(scores, Sensitivity::new(1.0).unwrap(), &mut rng)
    }

    #[test]
    fn returns_largest_with_lowest_index_on_ties() {
        assert_eq!(pick(&[1.0]).unwrap().index, 0);
        assert_eq!(pick(&[1.0, 3.0, 2.0]).unwrap().index, 1);
        assert_eq!(pick(&[5.0, 5.0, 5.0]).unwrap().index, 0);
        assert_eq!(pick(&[-4.0, 9.0, 0.0, 9.0]).unwrap().index, 1);
        // −0.0 and +0.0 are equal scores: the first wins.
        assert_eq!(pick(&[-1.0, -0.0, 0.0]).unwrap().index, 1);
        assert_eq!(pick(&[1.0, 3.0]).unwrap().margin, None);
    }

    #[test]
    fn rejects_empty_and_non_finite() {
        crate::testing::assert_rejects_bad_scores(&Argmax);
        assert_eq!(
            pick(&[f64::NEG_INFINITY, 1.0]),
            Err(Error::NonFiniteScore {
                index: 0,
                value: f64::NEG_INFINITY
            })
        );
    }

    #[test]
    fn is_non_private() {
        assert_eq!(Argmax.cost(), PrivacyCost::NonPrivate);
        assert_eq!(Argmax.name(), "max");
    }
}
