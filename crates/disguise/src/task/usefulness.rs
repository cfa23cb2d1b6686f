//! Utility said up front: what the paper's analysis promises for a run's public parameters,
//! and a flag when that promise is vacuous, so that a useless release is announced before
//! anyone trains on it.

use serde::Serialize;

/// The a-priori utility of a run, from public quantities only (n, ε, the sizes of the
/// space; never the data), so stating it costs no privacy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Usefulness {
    /// The bound or condition the analysis gives, in words with its numbers.
    pub bound: String,
    /// Whether it is vacuous: the release is then expected to be mostly noise.
    pub vacuous: bool,
    /// What would help, when vacuous.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
}

impl Usefulness {
    /// The projected histogram's threshold against the counts the data can put in a cell.
    ///
    /// A cell is released when its noisy count exceeds τ = A·ln(n)/ε_h (Vinterbo 2012,
    /// Section 2.2); the noise has scale 2/ε_h. n records spread over the `cells` of the
    /// projected space give n/cells per cell on average: when τ is above that, most true
    /// cells stay below the threshold and what is released is dominated by the noise of the
    /// few largest cells and by spurious ones; when τ ≥ n even a cell holding every record
    /// needs the noise to pass.
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// assert!(Usefulness::histogram(120, 2394.0, 64).vacuous);
    /// assert!(!Usefulness::histogram(30_000, 20.0, 64).vacuous);
    /// ```
    pub fn histogram(n: usize, threshold: f64, cells: u64) -> Self {
        let n_f = n as f64;
        let even = n_f / (cells.max(1) as f64);
        let bound = format!(
            "a cell is released when its noisy count exceeds τ = {:.4}; the {n} records spread \
             evenly over the {cells} cells would give {:.4} per cell",
            threshold, even
        );
        let vacuous = threshold >= even;
        let advice = vacuous.then(|| {
            if threshold >= n_f {
                "τ ≥ n: no cell can pass on its records alone, the release is noise; a larger \
                 ε (τ falls as 1/ε), or more records, would help"
                    .to_string()
            } else {
                "a larger ε, or fewer or coarser columns (smaller k, fewer levels or bins), \
                 would help"
                    .to_string()
            }
        });
        Self {
            bound,
            vacuous,
            advice,
        }
    }
}

impl Usefulness {
    /// The private greedy with the exponential mechanism for k rounds over m candidates, on
    /// a monotone objective of sensitivity λ whose value is at most `f_max` (n for facility
    /// location and coverage, one unit per record), at ε₀ per round:
    ///
    /// E[f(S)] ≥ c·OPT − A, A = 2λ·k·ln m / ε₀,
    ///
    /// with c = 1 − 1/e for the greedy (Mitrovic et al. 2017, Theorem 3.2) and
    /// c = 1 − e^{−(1−1/e)} ≈ 0.468 for the subsample-greedy (Theorem 4.1). Vacuous when
    /// A ≥ c·f_max: even the best possible OPT then promises nothing.
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// // 10,000 points, 3 of 33 candidates at ε₀ = 0.33: A ≈ 64, far below 0.63·10,000.
    /// assert!(!Usefulness::greedy(10_000.0, 3, 33, 1.0, 0.33, false).vacuous);
    /// // 100 points at ε₀ = 0.01: A ≈ 2,100.
    /// assert!(Usefulness::greedy(100.0, 3, 33, 1.0, 0.01, false).vacuous);
    /// ```
    pub fn greedy(
        f_max: f64,
        k: usize,
        m: usize,
        lambda: f64,
        epsilon0: f64,
        subsample: bool,
    ) -> Self {
        Self::greedy_rounds(f_max, &vec![lambda; k], m, epsilon0, subsample)
    }

    /// [`Usefulness::greedy`] for an objective whose sensitivity changes with the round
    /// (`lambdas[i]` for round i + 1, e.g. mutual information): the per-round errors add up,
    /// A = 2·(Σᵢ λᵢ)·ln m / ε₀.
    pub fn greedy_rounds(
        f_max: f64,
        lambdas: &[f64],
        m: usize,
        epsilon0: f64,
        subsample: bool,
    ) -> Self {
        let k = lambdas.len();
        let lambda: f64 = lambdas.iter().sum::<f64>() / k.max(1) as f64;
        let lambda_text = if lambdas.iter().all(|&l| l == lambda) {
            format!("λ = {lambda}")
        } else {
            format!("mean λ = {lambda:.4}")
        };
        let c = if subsample {
            1.0 - (-(1.0 - (-1.0f64).exp())).exp()
        } else {
            1.0 - (-1.0f64).exp()
        };
        let m_f = m.max(1) as f64;
        let additive = 2.0 * lambdas.iter().sum::<f64>() * m_f.ln() / epsilon0;
        let bound = format!(
            "E[f(S)] ≥ {c:.3}·OPT − {additive:.4} (2λ·k·ln m/ε₀ for {lambda_text}, k = {k}, \
             m = {m}, ε₀ = {epsilon0:.4}; Mitrovic et al. 2017, Theorem {}); f is at most \
             {f_max}",
            if subsample { "4.1" } else { "3.2" }
        );
        let vacuous = additive.is_nan() || additive >= c * f_max;
        let advice = vacuous.then(|| {
            format!(
                "the privacy term {additive:.4} is at least {c:.3}·{f_max}; a larger ε, fewer \
                 picks k or fewer candidates would help"
            )
        });
        Self {
            bound,
            vacuous,
            advice,
        }
    }
}

/// The failure probability β of the high-probability bounds stated.
pub const FAILURE: f64 = 0.05;

impl Usefulness {
    /// One selection by the exponential mechanism (weights exp(ε·q/(2λ))) among `m`
    /// candidates whose scores lie in a range of width `range`: with probability ≥ 1 − β the
    /// chosen score is within (2λ/ε)·ln(m/β) of the best (Dwork and Roth 2014,
    /// Theorem 3.11, with t = ln(1/β), β = 5%). Vacuous when that is at least `useful`, the
    /// shortfall that leaves nothing of value (e.g. n/2 for the correct counts of a binary
    /// classifier: a constant guess already gets n/2).
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// // 32,561 records, 500 stumps, ε = 1: within 2·ln(10,000) ≈ 18 records of the best.
    /// assert!(!Usefulness::exponential(500.0, 1.0, 1.0, 32_561.0 / 2.0).vacuous);
    /// // 100 records at ε = 0.05: ≈ 368 > 50.
    /// assert!(Usefulness::exponential(500.0, 1.0, 0.05, 50.0).vacuous);
    /// ```
    pub fn exponential(m: f64, lambda: f64, epsilon: f64, useful: f64) -> Self {
        let error = 2.0 * lambda / epsilon * (m.max(1.0) / FAILURE).ln();
        let bound = format!(
            "with probability ≥ {:.0}%, the chosen score is within {error:.4} of the best \
             ((2λ/ε)·ln(m/β) for λ = {lambda}, ε = {epsilon:.4}, m = {m}; Dwork and Roth 2014, \
             Theorem 3.11)",
            100.0 * (1.0 - FAILURE)
        );
        let vacuous = error.is_nan() || error >= useful;
        let advice = vacuous.then(|| {
            format!(
                "that shortfall is at least {useful:.4}, what a trivial answer already achieves; \
                 a larger ε or fewer candidates would help"
            )
        });
        Self {
            bound,
            vacuous,
            advice,
        }
    }
}

impl Usefulness {
    /// The large margin mechanism on scores in [0, `n`] (counts of records): it stops at the
    /// first ℓ whose gap q₁ − q_{ℓ+1} clears a noisy threshold of about G_ℓ ≥ G₁ (Mitrovic
    /// et al. 2017, Algorithm 5; Chaudhuri et al. 2014, Algorithm 1), so a margin can be found
    /// only where the top count leads by about `g1`. Vacuous when G₁ ≥ n: no gap between
    /// counts of n records can clear it, and the search ends without a margin (or at ℓ = |V|).
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// assert!(Usefulness::margin(437.0, 200).vacuous);
    /// assert!(!Usefulness::margin(437.0, 8_124).vacuous);
    /// ```
    pub fn margin(g1: f64, n: usize) -> Self {
        let bound = format!(
            "a margin is found only where the top count leads the next by about G₁ = {g1:.4} \
             or more; counts are at most n = {n}"
        );
        let vacuous = g1.is_nan() || g1 >= n as f64;
        let advice = vacuous.then(|| {
            "no gap can clear G₁; a larger ε, or a public item list with the exponential \
             mechanism (--items, --mechanism em), would help"
                .to_string()
        });
        Self {
            bound,
            vacuous,
            advice,
        }
    }
}

impl Usefulness {
    /// [`Usefulness::margin`] for the large margin mechanism `variant` at budget (ε₀, δ₀)
    /// per selection and sensitivity λ, on scores of at most `n`: G₁ is its stopping
    /// threshold at ℓ = 1.
    ///
    /// # Errors
    /// An invalid ε₀, δ₀ (the large margin mechanisms need δ₀ > 0) or λ.
    ///
    /// ```
    /// use disguise::select::MarginVariant;
    /// use disguise::task::Usefulness;
    /// let u = Usefulness::large_margin(MarginVariant::Mitrovic, 1.0, 1e-6, 1.0, 100)?;
    /// assert!(u.vacuous); // G₁ ≈ 437 for n = 100
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn large_margin(
        variant: crate::select::MarginVariant,
        epsilon0: f64,
        delta0: f64,
        lambda: f64,
        n: usize,
    ) -> crate::Result<Self> {
        use crate::privacy::{Delta, Epsilon, Sensitivity};
        let lmm = crate::select::LargeMargin::with_variant(
            variant,
            Epsilon::new(epsilon0)?,
            Delta::new(delta0)?,
        )?;
        let g1 = lmm.stopping_threshold(1, Sensitivity::new(lambda)?);
        Ok(Self::margin(g1, n))
    }
}
