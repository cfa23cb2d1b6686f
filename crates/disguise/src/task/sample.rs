//! [`Sample`]: run one selection mechanism many times on the same scores and count its picks
//! — a look at the mechanism's output distribution (and a way to audit it from the outside).
//!
//! Privacy: each run is one selection with the mechanism's own guarantee
//! ([`Selector::cost`](crate::select::Selector::cost)) for scores of sensitivity λ
//! (neighbouring datasets move every score by at most λ). The counts of many runs on the same
//! scores are NOT a private release: N runs compose to N times the budget. The report states
//! the guarantee of one run, never of the counts.

use super::Usefulness;
use crate::disclosure::{Disclose, Public, Released};
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::privacy::{Delta, Epsilon, Sensitivity};
use crate::select::{Selector, SelectorKind};
use serde::Serialize;

/// Repeated selections by one mechanism: which, its budget for one run, the scores'
/// sensitivity and the number of runs.
///
/// ```
/// use disguise::prelude::*;
/// use disguise::select::SelectorKind;
/// use disguise::task::Sample;
///
/// let request = Sample { trials: 1_000, ..Sample::new(SelectorKind::Exponential, 1.0) };
/// let report = request.run(&[10.0, 9.0, 1.0], &mut SecureRng::insecure_from_seed(1))?;
/// assert_eq!(report.counts.iter().sum::<u64>(), 1_000);
/// assert!(report.counts[0] > report.counts[2]);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The selector.
    pub mechanism: SelectorKind,
    /// ε of one selection.
    pub epsilon: f64,
    /// δ of one selection (> 0 for the large margin mechanisms).
    pub delta: f64,
    /// λ: the largest change of any one score between neighbouring datasets.
    pub sensitivity: f64,
    /// The number of independent selections (≥ 1).
    pub trials: u64,
}

impl Sample {
    /// One selection by `mechanism` at budget ε = `epsilon`, δ = 0, sensitivity 1.
    pub fn new(mechanism: SelectorKind, epsilon: f64) -> Self {
        Self {
            mechanism,
            epsilon,
            delta: 0.0,
            sensitivity: 1.0,
            trials: 1,
        }
    }

    /// Validates every option and builds the selector.
    ///
    /// # Errors
    /// An invalid ε (above the 700 cap too), δ or λ; [`Error::InvalidParameter`] naming
    /// `trials` (0) or the mechanism's own condition (e.g. δ > 0 for the large margin
    /// mechanisms).
    pub fn validate(&self) -> Result<Box<dyn Selector>> {
        let epsilon = Epsilon::total(self.epsilon)?;
        let delta = Delta::new(self.delta)?;
        Sensitivity::new(self.sensitivity)?;
        if self.trials == 0 {
            return Err(Error::param("trials", "must be at least 1"));
        }
        self.mechanism.build(epsilon, delta)
    }

    /// The exponential mechanism's bound (Dwork and Roth 2014, Theorem 3.11; it holds for
    /// the monotone variant too, whose error is half as large) against the range of the
    /// scores: a shortfall as large as the range says nothing. `None` for the other
    /// selectors and for equal scores.
    pub fn usefulness(&self, scores: &[f64]) -> Option<Usefulness> {
        if !matches!(
            self.mechanism,
            SelectorKind::Exponential | SelectorKind::ExponentialMonotone
        ) {
            return None;
        }
        let (lo, hi) = scores
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        let range = hi - lo;
        (range > 0.0).then(|| {
            Usefulness::exponential(scores.len() as f64, self.sensitivity, self.epsilon, range)
        })
    }

    /// Runs the selections on `scores` and counts the picks.
    ///
    /// # Errors
    /// As [`Sample::validate`]; the selector's errors on the scores (none, NaN, …).
    pub fn run(&self, scores: &[f64], rng: &mut SecureRng) -> Result<SampleReport> {
        let selector = self.validate()?;
        let sensitivity = Sensitivity::new(self.sensitivity)?;
        let mut counts = vec![0u64; scores.len()];
        for _ in 0..self.trials {
            counts[selector.select(scores, sensitivity, rng)?.index] += 1;
        }
        let (epsilon, delta) = selector.cost().epsilon_delta().unzip();
        Ok(SampleReport {
            mechanism: selector.name(),
            trials: Public::new(self.trials),
            // The selections' outputs, counted.
            counts: Released::new(counts),
            // The selector's cost, from the options.
            guarantee: PerSelection {
                epsilon: epsilon.map(Public::new),
                delta: delta.map(Public::new),
            },
            // The scores are the caller's own public input.
            usefulness: self.usefulness(scores).map(Public::new),
            secure_rng: Public::new(rng.is_secure()),
        })
    }
}

/// The (ε, δ) of one selection; both `None` for the non-private argmax.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Disclose)]
pub struct PerSelection {
    /// ε of one selection.
    pub epsilon: Option<Public<f64>>,
    /// δ of one selection.
    pub delta: Option<Public<f64>>,
}

/// The report of a [`Sample`]: how often each score was picked, and the guarantee of ONE
/// selection (the counts of all runs together are not a private release).
///
/// The scores are the caller's own input, public to whoever runs it, so a function of them
/// (the usefulness against their range) is public; the counts are the selections' outputs,
/// released. A report without diagnostics; `--mechanism max` on public scores is public too.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct SampleReport {
    /// The selector.
    pub mechanism: &'static str,
    /// The number of selections.
    pub trials: Public<u64>,
    /// How often each score was picked.
    pub counts: Released<Vec<u64>>,
    /// The guarantee of one selection.
    pub guarantee: PerSelection,
    /// The exponential mechanism's error bound against the scores' range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usefulness: Option<Public<Usefulness>>,
    /// Whether the generator was keyed by the operating system (a seeded run is not private).
    pub secure_rng: Public<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_refused_before_any_selection() {
        let ok = Sample::new(SelectorKind::Exponential, 1.0);
        assert!(ok.validate().is_ok());
        let zero = Sample { trials: 0, ..ok };
        let err = zero.validate().err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("trials")));
        let huge = Sample { epsilon: 1e6, ..ok };
        assert!(huge.validate().is_err());
        let lmm = Sample::new(SelectorKind::LargeMargin, 1.0);
        assert!(lmm.validate().is_err(), "lmm needs δ > 0");
        let negative = Sample {
            sensitivity: -1.0,
            ..ok
        };
        assert!(negative.validate().is_err());
    }

    #[test]
    fn the_counts_add_up_and_the_argmax_has_no_guarantee() {
        let scores = [5.0, 4.0, 0.0];
        let mut rng = SecureRng::insecure_from_seed(4);
        let argmax = Sample {
            trials: 50,
            ..Sample::new(SelectorKind::Argmax, 1.0)
        };
        let report = argmax.run(&scores, &mut rng).unwrap();
        assert_eq!(*report.counts, [50, 0, 0]);
        assert_eq!(report.guarantee.epsilon, None);
        assert!(!*report.secure_rng);
        let em = Sample {
            trials: 200,
            ..Sample::new(SelectorKind::Exponential, 0.5)
        };
        let report = em.run(&scores, &mut rng).unwrap();
        assert_eq!(report.counts.iter().sum::<u64>(), 200);
        assert_eq!(report.guarantee.epsilon, Some(Public::new(0.5)));
        assert!(report.usefulness.is_some());
        // Equal scores: no range to measure a shortfall against.
        assert!(em.usefulness(&[1.0, 1.0]).is_none());
    }
}
