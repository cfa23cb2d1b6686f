//! A private estimate of a selection's own utility: "the picks cover 87 % ± 2 % of the
//! people", learned without looking at the data, for a small extra budget that the release's
//! guarantee (and a budget ledger) includes.
//!
//! # The mechanism
//! The utility of a choice S is u(S) = f(S)/c for the task's objective f and a public
//! constant c (n records for facility location and coverage, the number of edges for a
//! cut). Between neighbouring data sets (the task's own relation, for the fixed S) u moves
//! by at most Δ = λ/c, where λ bounds the change of f(S) itself (the task's
//! [`UtilityScale`]). The Laplace mechanism releases
//!
//! ũ = u(S) + Lap(b),  b = Δ/ε_u,
//!
//! which is ε_u-DP for the fixed S (Dwork and Roth 2014, Theorem 3.6), with the float-safe
//! grid sampler of [`crate::noise::Laplace`], whose rounding of u to the grid is charged by
//! [`laplace_scale_for`] (ε = (Δ + g)/b ≤ ε_u). S is the output of the selection, an
//! (ε, δ)-DP mechanism; the pair (S, ũ) is an adaptive composition of the two, so it is
//! (ε + ε_u, δ)-DP by basic composition (Dwork and Roth 2014, Theorem 3.16, which allows
//! the second mechanism to depend on the first one's output) — the guarantee the release
//! then states ([`PrivacyReport::with_estimate`](super::PrivacyReport::with_estimate)).
//!
//! # Precision
//! u is a double, f(S)/c rounded once: two neighbours' utilities differ by at most
//! Δ + 2·½ulp, at most Δ + 2⁻⁵²·max(|low|, |high|, 1). The noise is calibrated to that
//! bound ([`estimate_noise`]), not to Δ alone, so the rounding of u costs no privacy; the
//! report states Δ.
//!
//! # What is printed
//! The estimate is clamped to the utility's public range [`UtilityScale::low`,
//! `UtilityScale::high`] (post-processing). The interval ũ ± b·ln(1/α) holds the true
//! utility with probability at least 1 − α (the Laplace tail: P(|Lap(b)| > t) = e^{−t/b};
//! on the sampler's grid the tail is within a factor 1 ± 2⁻⁴⁰ of it, which the width's
//! margin of 10⁻⁶·b covers), intersected with the range.

use crate::disclosure::{Disclose, Public, Released};
use crate::error::{Error, Result};
use crate::noise::{Laplace, SecureRng, laplace_epsilon, laplace_scale_for};
use crate::numeric::decimal::{at_most_typed, tidy_up};
use crate::privacy::Epsilon;
use serde::Serialize;

/// The confidence of the interval an estimate reports.
pub const ESTIMATE_CONFIDENCE: f64 = 0.95;

/// What a task's utility u(S) = f(S)/c allows an estimate to say, from public quantities
/// only: how far it moves between neighbouring data sets for a fixed S, and its range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct UtilityScale {
    /// Δ: the largest change of u(S) between neighbouring data sets (the task's relation),
    /// for any fixed S.
    pub sensitivity: f64,
    /// The smallest value u can take.
    pub low: f64,
    /// The largest value u can take.
    pub high: f64,
}

impl UtilityScale {
    /// A utility f(S)/`divisor` whose objective value moves by at most `value_bound`
    /// between neighbours and lies in [`low`·divisor, `high`·divisor].
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `estimate_utility` when the divisor is 0 (no
    /// records: nothing to estimate).
    pub fn of(value_bound: f64, divisor: usize, low: f64, high: f64) -> Result<Self> {
        if divisor == 0 {
            return Err(Error::param(
                "estimate_utility",
                "the data has no records: there is no utility to estimate",
            ));
        }
        // Rounded up: the Laplace noise is calibrated to it.
        let sensitivity = crate::numeric::round::div_up(value_bound, divisor as f64);
        Ok(Self {
            sensitivity,
            low,
            high,
        })
    }
}

/// A private estimate of a choice's utility, with its confidence interval: released values
/// (the noisy utility and the interval around it) and the public calibration.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct UtilityEstimate {
    /// The noisy utility, clamped to the utility's range.
    pub estimate: Released<f64>,
    /// The interval's lower end.
    pub low: Released<f64>,
    /// The interval's upper end.
    pub high: Released<f64>,
    /// The probability that the interval holds the true utility (at least).
    pub confidence: Public<f64>,
    /// The ε the estimate spent (rounded up; at most the ε asked for).
    pub epsilon: Public<f64>,
    /// The utility's sensitivity Δ the noise is calibrated to (from public sizes only:
    /// [`UtilityScale`]).
    pub sensitivity: Public<f64>,
    /// The Laplace scale b.
    pub noise_scale: Public<f64>,
    /// The mechanism.
    pub mechanism: &'static str,
}

/// The Laplace noise an estimate at `epsilon` (as typed) adds to a utility of `scale`, and
/// the ε it spends: a budget typed as ε_u is spent at most as typed
/// ([`at_most_typed`]), the grid's rounding included.
///
/// # Errors
/// As [`laplace_scale_for`] (ε_u at most 2⁻⁴⁰).
pub fn estimate_noise(scale: &UtilityScale, epsilon: Epsilon) -> Result<(Laplace, f64)> {
    // The rounding of u = f(S)/c to a double (see *Precision*), added to Δ (rounded up).
    let magnitude = scale.low.abs().max(scale.high.abs()).max(1.0);
    let bound = (scale.sensitivity + magnitude * f64::EPSILON).next_up();
    let b = laplace_scale_for(bound, at_most_typed(epsilon.get()))?;
    let spent = tidy_up(laplace_epsilon(bound, b)?);
    Ok((Laplace::new(b)?, spent))
}

/// The ε of an estimate asked for (`None`: none), checked: a valid budget, after a private
/// selection (an estimate of the non-private argmax's utility would protect nothing).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `estimate_utility`: an invalid ε, or the argmax.
pub fn estimate_epsilon(
    epsilon: Option<f64>,
    mechanism: crate::select::SelectorKind,
) -> Result<Option<Epsilon>> {
    let Some(e) = epsilon else {
        return Ok(None);
    };
    let epsilon =
        Epsilon::total(e).map_err(|err| Error::param("estimate_utility", err.to_string()))?;
    if !mechanism.is_private() {
        return Err(Error::param(
            "estimate_utility",
            "mechanism max is not private, so an estimate would protect nothing (its exact \
             utility is in the report)",
        ));
    }
    Ok(Some(epsilon))
}

/// How many trials a greedy run makes and whether it estimates its utility, as a front end
/// asks for them: checked before any data is read.
///
/// ```
/// use disguise::select::SelectorKind;
/// use disguise::task::TrialOptions;
///
/// let asked = TrialOptions {
///     trials: Some(3),
///     estimate_utility: Some(0.1),
///     mechanism: SelectorKind::default(),
///     rows: false,
/// };
/// let err = asked.estimate().unwrap_err().to_string();
/// assert!(err.contains("drop --trials"), "{err}");
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct TrialOptions {
    /// Independent trials (`None`: one run, reported as such).
    pub trials: Option<u64>,
    /// The ε of a private estimate of the choice's utility (`None`: none).
    pub estimate_utility: Option<f64>,
    /// The selection mechanism of every round.
    pub mechanism: crate::select::SelectorKind,
    /// Whether the report is written as CSV rows, which have no place for an estimate.
    pub rows: bool,
}

impl TrialOptions {
    /// Checks the number of trials: at least one.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `trials` when it is 0.
    pub fn validate(&self) -> Result<()> {
        if self.trials == Some(0) {
            return Err(Error::param("trials", "must be at least 1"));
        }
        Ok(())
    }

    /// The ε of the estimate asked for, checked ([`estimate_epsilon`]): a valid budget, for
    /// one private trial whose report has a place for it.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `estimate_utility`: an invalid ε, the argmax, more
    /// than one trial, or CSV rows.
    pub fn estimate(&self) -> Result<Option<Epsilon>> {
        let epsilon = estimate_epsilon(self.estimate_utility, self.mechanism)?;
        if epsilon.is_some() && self.trials.is_some_and(|t| t > 1) {
            return Err(Error::param(
                "estimate_utility",
                "it estimates one release's utility (drop --trials)",
            ));
        }
        if epsilon.is_some() && self.rows {
            return Err(Error::param(
                "estimate_utility",
                "use --format table or json (CSV has no place for it)",
            ));
        }
        Ok(epsilon)
    }

    /// Refuses an estimate for a task whose utility has no public sensitivity.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `estimate_utility` when one is asked for.
    pub fn refuse_estimate(&self, task: &str) -> Result<()> {
        if self.estimate_utility.is_some() {
            return Err(Error::param(
                "estimate_utility",
                format!(
                    "{task} has no utility with a public sensitivity to estimate it by \
                     (select, cover and cut have one)"
                ),
            ));
        }
        Ok(())
    }

    /// Refuses more than one trial for a distributed run (the workers answer process 0's
    /// rounds: one run spans the cluster), then checks the estimate.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `trials`, or as [`TrialOptions::estimate`].
    pub fn one_trial(&self) -> Result<()> {
        if self.trials.is_some_and(|t| t > 1) {
            return Err(Error::param(
                "trials",
                "a distributed run makes one trial (drop --trials or --workers/--hosts)",
            ));
        }
        self.estimate().map(|_| ())
    }
}

/// Releases `utility` (the exact u(S) of a private choice) as a noisy estimate at
/// `epsilon`: ũ = u(S) + Lap(b), b = Δ/ε_u (Δ from `scale`, with the rounding of u to a
/// double added: [`estimate_noise`]), ε_u-DP for the fixed choice S by the Laplace
/// mechanism (Dwork and Roth 2014, Theorem 3.6); after an (ε, δ)-DP choice of S the pair is
/// (ε + ε_u, δ)-DP by basic composition (Theorem 3.16,
/// [`PrivacyReport::with_estimate`](super::PrivacyReport::with_estimate)). The estimate is
/// clamped to the utility's range, and the interval ũ ± b·ln 20 (then clamped) holds u(S)
/// with probability at least 95 %.
///
/// ```
/// use disguise::SecureRng;
/// use disguise::privacy::Epsilon;
/// use disguise::task::{UtilityScale, estimate_utility};
/// // Coverage of 10,000 people: one person moves the covered share by 1/10,000.
/// let scale = UtilityScale::of(1.0, 10_000, 0.0, 1.0)?;
/// let mut rng = SecureRng::from_os()?;
/// let e = estimate_utility(0.87, &scale, Epsilon::new(0.1)?, &mut rng)?;
/// assert!(*e.epsilon <= 0.1 && *e.noise_scale >= 1e-3);
/// let (low, estimate, high) = (*e.low, *e.estimate, *e.high);
/// assert!(low <= estimate && estimate <= high && high <= 1.0);
/// // b·ln 20 = 0.003: "0.87 ± 0.003" with probability 95 %.
/// assert!(high - low <= 2.0 * 0.0031);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// As [`estimate_noise`]; [`Error::InvalidParameter`] if `utility` is not finite.
pub fn estimate_utility(
    utility: f64,
    scale: &UtilityScale,
    epsilon: Epsilon,
    rng: &mut SecureRng,
) -> Result<UtilityEstimate> {
    let (noise, spent) = estimate_noise(scale, epsilon)?;
    let noisy = noise.sample(rng, utility)?;
    let b = noise.scale();
    let half = b * ((1.0 / (1.0 - ESTIMATE_CONFIDENCE)).ln() + 1e-6);
    let clamp = |x: f64| x.clamp(scale.low, scale.high);
    // The Laplace mechanism's output, and post-processing of it with public values.
    let noisy = Released::new(noisy);
    Ok(UtilityEstimate {
        estimate: noisy.map(clamp),
        low: noisy.map(|x| clamp(x - half)),
        high: noisy.map(|x| clamp(x + half)),
        confidence: Public::new(ESTIMATE_CONFIDENCE),
        epsilon: Public::new(spent),
        sensitivity: Public::new(scale.sensitivity),
        noise_scale: Public::new(b),
        mechanism: "laplace",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_holds_the_truth_as_often_as_it_says() {
        // 4,000 estimates at b = 0.05 (Δ = 0.005, ε = 0.1): the interval misses with
        // probability 0.05 each, so about 200 misses; 270 is beyond 4.9 standard deviations
        // (false alarm below 10⁻⁶), and so is 130.
        let scale = UtilityScale::of(1.0, 200, -10.0, 10.0).unwrap();
        let mut rng = SecureRng::insecure_from_seed(7);
        let eps = Epsilon::new(0.1).unwrap();
        let misses = (0..4000)
            .filter(|_| {
                let e = estimate_utility(0.5, &scale, eps, &mut rng).unwrap();
                !(*e.low <= 0.5 && 0.5 <= *e.high)
            })
            .count();
        assert!((130..=270).contains(&misses), "{misses} misses of 4,000");
    }

    #[test]
    fn the_spend_is_at_most_what_was_typed() {
        let scale = UtilityScale::of(1.0, 3, 0.0, 1.0).unwrap();
        for typed in [0.1, 0.3, 1.0, 0.05, 2.5] {
            let (noise, spent) = estimate_noise(&scale, Epsilon::new(typed).unwrap()).unwrap();
            assert!(spent <= typed, "{spent} > {typed}");
            let rounding = scale.sensitivity + f64::EPSILON;
            let true_epsilon = laplace_epsilon(rounding, noise.scale()).unwrap();
            assert!(true_epsilon <= spent);
        }
    }

    #[test]
    fn an_estimate_stays_in_the_range() {
        let scale = UtilityScale::of(1.0, 2, 0.0, 1.0).unwrap();
        let mut rng = SecureRng::insecure_from_seed(1);
        for _ in 0..200 {
            let e = estimate_utility(1.0, &scale, Epsilon::new(0.01).unwrap(), &mut rng).unwrap();
            let (low, estimate, high) = (*e.low, *e.estimate, *e.high);
            assert!(0.0 <= low && low <= estimate && estimate <= high && high <= 1.0);
        }
        assert!(UtilityScale::of(1.0, 0, 0.0, 1.0).is_err());
    }
}
