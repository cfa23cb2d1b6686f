//! Report noisy max with Laplace noise.

use super::exact::sum_sign;
use super::{Selection, Selector, validate_scores};
use crate::error::{Error, Result};
use crate::noise::{Laplace, SecureRng, laplace_granularity};
use crate::privacy::{Epsilon, PrivacyCost, Sensitivity};
use std::cmp::Ordering;

/// Report noisy max: add independent Laplace noise to every score and return the index of
/// the largest noisy score (only the index is released, never the noisy values).
///
/// * [`ReportNoisyMax::new`]: noise Lap(2λ/ε), valid for any scores of sensitivity λ.
/// * [`ReportNoisyMax::monotone`]: noise Lap(λ/ε), valid only for *monotone* scores (see
///   below), e.g. counting queries.
///
/// # Guarantee
///
/// ε-differential privacy ([`PrivacyCost::Pure`]; not bounded-range, so it composes by the
/// pure-DP and zCDP (ε²/2) rules, not the tighter bounded-range one).
/// Dwork & Roth, *The Algorithmic Foundations of Differential Privacy* (2014), Claim 3.9:
/// for neighbouring datasets D ~ D' (the papers' relation: D, D' ∈ Xⁿ differ in one entry;
/// in general any relation under which λ bounds every score change,
/// |q(v, D) − q(v, D')| ≤ λ for all v),
/// * with noise Lap(2λ/ε) on each score, the released index is ε-DP for arbitrary
///   sensitivity-λ scores (fixing the other noises, candidate i wins on D' whenever its
///   noise is at least 2λ above the smallest value that makes it win on D);
/// * with noise Lap(λ/ε) it is ε-DP when the scores are monotone: for every neighbouring
///   pair either all q(v, D′) ≥ q(v, D) or all q(v, D′) ≤ q(v, D) (Claim 3.9's counting
///   queries). Using [`ReportNoisyMax::monotone`] on non-monotone scores gives only 2ε-DP.
///
/// # Exactness
///
/// The noise comes from the float-safe Laplace sampler [`crate::noise::Laplace`], which
/// draws from a discrete Laplace distribution on a power-of-two grid of granularity g
/// ([`laplace_granularity`]), so there are no floating-point artefacts in the noise itself
/// (Mironov 2012). Two further steps keep the proof exact:
/// * **Comparisons are exact.** The winner is decided by comparing the *real* sums
///   q(i) + Zᵢ (see `select/exact.rs`), never rounded `f64` sums: a rounded comparison
///   would depend on rounding errors proportional to the (private) score magnitudes, which
///   Claim 3.9 does not cover. The released value is an index, so no noisy float escapes.
/// * **The grid is paid for.** Shifting grid noise is only possible by multiples of g, so
///   the proof's shift of 2λ (or λ) becomes ⌈2λ/g⌉·g ≤ 2λ + g. The noise scale is therefore
///   computed from λ̃ = (λ + g)(1 + 2⁻⁵⁰) instead of λ (the factor absorbs the rounding of
///   the scale), with g the grid of that scale: a relative inflation of about 2⁻⁴⁰ in
///   practice. The guarantee is exactly ε, up to the event |noise| > 2⁵³·g ≥ 4096·b
///   (probability < e⁻⁴⁰⁹⁶) in which the sampler rounds its output to a double.
/// * A noise scale so large that it overflows, or ε ≤ 2⁻⁴⁰ (where the grid alone would
///   cost ε), is a typed error.
///
/// # Runtime
///
/// O(|V|): one Laplace draw and one comparison per candidate.
///
/// ```
/// use disguise::prelude::*;
/// use disguise::select::ReportNoisyMax;
///
/// let mut rng = SecureRng::from_os()?;
/// let rnm = ReportNoisyMax::new(Epsilon::new(1.0)?);
/// let pick = rnm.select(&[3.0, 50.0, 4.0], Sensitivity::new(1.0)?, &mut rng)?;
/// assert!(pick.index < 3);
/// assert_eq!(rnm.cost(), PrivacyCost::Pure { epsilon: Epsilon::new(1.0)? });
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportNoisyMax {
    epsilon: Epsilon,
    monotone: bool,
}

impl ReportNoisyMax {
    /// Report noisy max with Lap(2λ/ε) noise: ε-DP for any scores of sensitivity λ.
    pub fn new(epsilon: Epsilon) -> Self {
        Self {
            epsilon,
            monotone: false,
        }
    }

    /// Report noisy max with Lap(λ/ε) noise: ε-DP **only** for monotone scores (on every
    /// neighbouring pair all scores move in the same direction, as counting queries do
    /// under adding or removing one record). See the type-level *Guarantee*.
    pub fn monotone(epsilon: Epsilon) -> Self {
        Self {
            epsilon,
            monotone: true,
        }
    }

    /// The budget ε of one call.
    pub fn epsilon(&self) -> Epsilon {
        self.epsilon
    }

    /// Whether this is the monotone (Lap(λ/ε)) variant.
    pub fn is_monotone(&self) -> bool {
        self.monotone
    }

    /// The Laplace scale actually used for sensitivity λ: c·λ̃/ε with c = 2 (or 1 for the
    /// monotone variant) and λ̃ ≥ λ + g the grid-corrected sensitivity.
    pub fn noise_scale(&self, sensitivity: Sensitivity) -> Result<f64> {
        let c = if self.monotone { 1.0 } else { 2.0 };
        let lambda = grid_corrected_sensitivity(sensitivity.get(), self.epsilon.get(), &[c])?;
        Ok(c * lambda / self.epsilon.get())
    }
}

impl Selector for ReportNoisyMax {
    /// Errors: [`Error::EmptyCandidates`], [`Error::NonFiniteScore`], and an
    /// [`Error::InvalidParameter`] if the noise scale 2λ/ε exceeds ≈ 4.4e304 (or ε ≤ 2⁻⁴⁰).
    fn select(
        &self,
        scores: &[f64],
        sensitivity: Sensitivity,
        rng: &mut SecureRng,
    ) -> Result<Selection> {
        validate_scores(scores)?;
        let noise = Laplace::new(self.noise_scale(sensitivity)?)?;
        let mut best = 0;
        let mut best_noise = finite_noise(noise.sample_noise(rng))?;
        for (i, &score) in scores.iter().enumerate().skip(1) {
            let noise = finite_noise(noise.sample_noise(rng))?;
            // Exact test of q(i) + Zᵢ > q(best) + Z_best; ties (probability ~0 with
            // continuous-looking noise, but possible on the grid) keep the lower index,
            // a data-independent rule, which the shift argument allows.
            if sum_sign(&[score, noise, -scores[best], -best_noise]) == Ordering::Greater {
                best = i;
                best_noise = noise;
            }
        }
        Ok(Selection {
            index: best,
            margin: None,
        })
    }

    fn cost(&self) -> PrivacyCost {
        PrivacyCost::Pure {
            epsilon: self.epsilon,
        }
    }

    fn name(&self) -> &'static str {
        if self.monotone {
            "report-noisy-max-monotone"
        } else {
            "report-noisy-max"
        }
    }
}

/// Largest Laplace scale the selectors accept: f64::MAX/2¹² ≈ 4.4e304, so that a draw
/// beyond the double range needs |noise| > 4096·b (probability < e⁻⁴⁰⁹⁶).
pub(crate) const MAX_NOISE_SCALE: f64 = f64::MAX / 4096.0;

/// Turns a Laplace draw into an error in the (probability < e⁻⁴⁰⁹⁶ at scales up to
/// [`MAX_NOISE_SCALE`]) event that it left the double range, so that exact comparisons only
/// ever see finite values. The event does not depend on the data.
pub(crate) fn finite_noise(x: f64) -> Result<f64> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(Error::param(
            "noise",
            "a Laplace draw exceeded the double range (probability < e^-4096)",
        ))
    }
}

/// A number in an error message: plain when moderate, else scientific (`1e308`, not 309
/// digits).
fn short(x: f64) -> String {
    if x == 0.0 || (1e-4..1e6).contains(&x.abs()) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// The Laplace noises of scales cᵢ·λ̃/ε for the given coefficients, with λ̃ from
/// [`grid_corrected_sensitivity`], and the coarsest grid step among them: `(λ̃, noises, g)`.
pub(crate) fn grid_noises<const N: usize>(
    lambda: f64,
    epsilon: f64,
    coefficients: [f64; N],
) -> Result<(f64, [Laplace; N], f64)> {
    let lt = grid_corrected_sensitivity(lambda, epsilon, &coefficients)?;
    let mut noises = Vec::with_capacity(N);
    for c in coefficients {
        noises.push(Laplace::new(c * lt / epsilon)?);
    }
    let g = noises.iter().map(Laplace::granularity).fold(0.0, f64::max);
    let noises: [Laplace; N] = noises
        .try_into()
        .unwrap_or_else(|_| unreachable!("one noise per coefficient"));
    Ok((lt, noises, g))
}

/// λ̃ with λ̃ ≥ (λ + g)(1 + 2⁻⁵⁰), where g is the grid granularity of every Laplace scale
/// cᵢ·λ̃/ε used with it (`coefficients` lists the cᵢ).
///
/// Grid noise can only be shifted by multiples of g, so a privacy proof that shifts a noise
/// by c·λ (c ≥ 1) must shift it by ⌈cλ/g⌉·g ≤ cλ + g ≤ c(λ + g) instead: calibrating every
/// scale to λ + g makes the original proof go through unchanged. The factor (1 + 2⁻⁵⁰)
/// absorbs the two roundings in computing c·λ̃/ε. The search assumes (and checks) only that
/// the granularity does not decrease when the scale grows, which holds for a
/// power-of-two grid tied to the scale.
pub(crate) fn grid_corrected_sensitivity(
    lambda: f64,
    epsilon: f64,
    coefficients: &[f64],
) -> Result<f64> {
    const ROUNDING: f64 = 1.0 + 1.0 / (1u64 << 50) as f64;
    // Find an upper bound U with (λ + g(U)) · ROUNDING ≤ U; then λ̃ = (λ + g(U)) · ROUNDING
    // has scales ≤ those at U, hence grid ≤ g(U), hence λ̃ ≥ (λ + g(λ̃)) · ROUNDING.
    let mut upper = 2.0 * lambda;
    for _ in 0..64 {
        let mut g = 0.0f64;
        for &c in coefficients {
            let scale = c * upper / epsilon;
            // NaN cannot occur (λ, ε finite and > 0), but is rejected too.
            if scale.is_nan() || scale > MAX_NOISE_SCALE {
                return Err(Error::param(
                    "sensitivity",
                    format!(
                        "the noise scale {c}·λ/ε for λ = {} and ε = {} is above {:.2e}, the \
                         largest the Laplace sampler supports: rescale the scores and λ by \
                         the same small factor (the selection does not change)",
                        short(lambda),
                        short(epsilon),
                        MAX_NOISE_SCALE
                    ),
                ));
            }
            // λ/ε so small that the scale is 0 or subnormal: no grid can represent it.
            if scale < f64::MIN_POSITIVE {
                return Err(Error::param(
                    "sensitivity",
                    format!(
                        "the noise scale {c}·λ/ε for λ = {} and ε = {} is below the smallest \
                         normal double: rescale the scores and λ by the same large factor \
                         (the selection does not change), or use a smaller ε",
                        short(lambda),
                        short(epsilon)
                    ),
                ));
            }
            g = g.max(laplace_granularity(scale)?);
        }
        let candidate = (lambda + g) * ROUNDING;
        if candidate <= upper {
            return Ok(candidate);
        }
        upper = 2.0 * candidate;
    }
    Err(Error::param(
        "sensitivity",
        "the Laplace grid granularity grows too fast with the scale",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assert_rejects_bad_scores, eps, sens};

    /// P(q₀ + Z₀ > q₁ + Z₁) for Z₀, Z₁ iid Lap(b) and gap d = q₀ − q₁ ≥ 0: the difference
    /// of two Laplaces has P(Z₁ − Z₀ < d) = 1 − ½·e^{−d/b}·(1 + d/(2b)).
    fn p_first_wins(d: f64, b: f64) -> f64 {
        1.0 - 0.5 * (-d / b).exp() * (1.0 + d / (2.0 * b))
    }

    #[test]
    fn extreme_scales_are_refused_in_short_words() {
        // Too large: the message shows 1e308, not its 309 digits.
        let err = grid_corrected_sensitivity(1e308, 1.0, &[2.0])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("λ = 1e308") && err.contains("rescale"),
            "{err}"
        );
        assert!(!err.contains("000000"), "{err}");
        // Too small: λ/ε underflows (it used to fail as "invalid scale ... got 0").
        let err = grid_corrected_sensitivity(1e-308, 700.0, &[2.0])
            .unwrap_err()
            .to_string();
        assert!(err.contains("below the smallest normal double"), "{err}");
        for mechanism in [
            Box::new(ReportNoisyMax::new(eps(700.0))) as Box<dyn Selector>,
            Box::new(
                crate::select::LargeMargin::new(
                    eps(700.0),
                    crate::privacy::Delta::new(1e-6).unwrap(),
                )
                .unwrap(),
            ),
        ] {
            let mut rng = SecureRng::insecure_from_seed(1);
            let err = mechanism
                .select(&[1e308, -1e308], sens(1e-308), &mut rng)
                .unwrap_err()
                .to_string();
            assert!(err.contains("rescale"), "{err}");
        }
    }

    #[test]
    fn two_candidates_match_closed_form() {
        // For each gap, 40 000 draws; |p̂ − p| ≤ 4.9·σ (two-sided p ≈ 1e-6 each, 4 cases).
        let n = 40_000;
        for (k, &(d, monotone)) in [(0.0, false), (1.0, false), (3.0, false), (1.0, true)]
            .iter()
            .enumerate()
        {
            let rnm = if monotone {
                ReportNoisyMax::monotone(eps(1.0))
            } else {
                ReportNoisyMax::new(eps(1.0))
            };
            let b = if monotone { 1.0 } else { 2.0 };
            let mut rng = SecureRng::insecure_from_seed(100 + k as u64);
            let mut wins = 0;
            for _ in 0..n {
                if rnm.select(&[d, 0.0], sens(1.0), &mut rng).unwrap().index == 0 {
                    wins += 1;
                }
            }
            let p = p_first_wins(d, b);
            let p_hat = wins as f64 / n as f64;
            let sigma = (p * (1.0 - p) / n as f64).sqrt();
            assert!(
                (p_hat - p).abs() <= 4.9 * sigma,
                "gap {d} monotone {monotone}: p̂ = {p_hat}, p = {p}"
            );
        }
    }

    #[test]
    fn huge_scores_are_compared_exactly() {
        // Two equal scores of magnitude 1e17 (ulp 16) with noise of scale 1: rounded f64
        // sums q + Z would both round back to 1e17, tie, and always return index 0. Exact
        // comparisons make the choice a fair coin. 400 draws, accept 120..=280 (8σ).
        let mut rng = SecureRng::insecure_from_seed(7);
        let base = 1e17;
        let rnm = ReportNoisyMax::new(eps(2.0));
        let mut ones = 0;
        for _ in 0..400 {
            ones += rnm
                .select(&[base, base], sens(1.0), &mut rng)
                .unwrap()
                .index;
        }
        assert!((120..=280).contains(&ones), "{ones}");
    }

    #[test]
    fn noise_scale_is_calibrated_and_conservative() {
        let rnm = ReportNoisyMax::new(eps(0.5));
        let scale = rnm.noise_scale(sens(3.0)).unwrap();
        assert!((12.0..=12.0 * (1.0 + 1e-9)).contains(&scale), "{scale}");
        let g = laplace_granularity(scale).unwrap();
        // The scale covers λ + g.
        assert!(scale >= 2.0 * (3.0 + g) / 0.5);
        let mono = ReportNoisyMax::monotone(eps(0.5))
            .noise_scale(sens(3.0))
            .unwrap();
        assert!((6.0..=6.0 * (1.0 + 1e-9)).contains(&mono), "{mono}");
    }

    #[test]
    fn validates_and_reports_cost() {
        let mut rng = SecureRng::insecure_from_seed(1);
        let rnm = ReportNoisyMax::new(eps(1.0));
        assert_rejects_bad_scores(&rnm);
        assert_rejects_bad_scores(&ReportNoisyMax::monotone(eps(1.0)));
        assert_eq!(rnm.cost(), PrivacyCost::Pure { epsilon: eps(1.0) });
        assert_eq!(rnm.name(), "report-noisy-max");
        assert_eq!(
            ReportNoisyMax::monotone(eps(1.0)).name(),
            "report-noisy-max-monotone"
        );
        assert_eq!(rnm.select(&[4.0], sens(1.0), &mut rng).unwrap().index, 0);
        assert!(
            rnm.select(&[0.0, 1.0], Sensitivity::new(1e308).unwrap(), &mut rng)
                .is_err()
        );
    }
}
