//! Lei's (2011) bandwidth rule, as Vinterbo 2012 (Section 2.1.1) cuts numeric columns:
//! bw(n, d) = (ln(n)/n)^(1/(d+1)) ([`bandwidth`]) and ⌈1/bw(n, d − 1) − 0.5⌉ equal bins for
//! a column without a schema `bins` ([`bin_count`]), and which predictors it counts
//! ([`BinRule`], a schema's setting; applied to a schema by
//! [`default_bins`](super::default_bins)).

use crate::error::{Error, Result};
use serde::Serialize;

/// Lei's discretization bandwidth bw(n, d) = (ln(n)/n)^(1/(d+1)) (Vinterbo 2012, Section
/// 2.1.1, natural logarithm), for n ≥ 2 records in d dimensions.
///
/// ```
/// use disguise::histogram::bandwidth;
/// // (ln 100 / 100)^(1/3)
/// let bw = bandwidth(100, 2)?;
/// assert!((bw - (100f64.ln() / 100.0).powf(1.0 / 3.0)).abs() < 1e-15);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for n < 2 (ln 1 = 0 gives a zero bandwidth).
pub fn bandwidth(n: u64, d: usize) -> Result<f64> {
    if n < 2 {
        return Err(Error::param(
            "n",
            format!("the bandwidth needs at least 2 records, got {n}"),
        ));
    }
    let n = n as f64;
    Ok((n.ln() / n).powf(1.0 / (d as f64 + 1.0)))
}

/// The number of bins of a numeric predictor: ⌈1/bw(n, d − 1) − 0.5⌉ for n records with
/// d − 1 = `predictors` predictor columns (Vinterbo 2012, Section 2.1.1), exactly.
///
/// The formula gives **one bin** when there are many predictors for few records (Landsat:
/// n = 6435, d − 1 = 36 gives ⌈1.195 − 0.5⌉ = 1): the column is then constant, carries no
/// information, and the projection never considers it (the paper asks |Vᵢ| ≥ 2 of every
/// attribute it works with, Section 2; a one-bin column is dropped from the candidates, a
/// decision on public quantities only). A schema's `bins = N` overrides the formula for a
/// column; a release counts the predictors it keeps instead of all d − 1
/// ([`BinRule::Released`], [`default_bins`](super::default_bins)).
///
/// ```
/// use disguise::histogram::bin_count;
/// // Adult: n = 32561, 14 predictors: 1/bw = 1.74 → ⌈1.24⌉ = 2 bins.
/// assert_eq!(bin_count(32561, 14)?, 2);
/// // Iris with one predictor: (ln 150/150)^(1/2) = 0.183 → ⌈5.47 − 0.5⌉ = 5.
/// assert_eq!(bin_count(150, 1)?, 5);
/// // Landsat: 36 predictors for 6435 records → one bin.
/// assert_eq!(bin_count(6435, 36)?, 1);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// As [`bandwidth`].
pub fn bin_count(n: u64, predictors: usize) -> Result<usize> {
    let bw = bandwidth(n, predictors)?;
    // bw ≤ 1 (ln n < n), so 1/bw − 0.5 ≥ 0.5 and there is at least one bin; 1/bw ≤ n/ln n,
    // so the cast cannot overflow for any u64 n.
    let bins = (1.0 / bw - 0.5).ceil();
    Ok((bins as usize).max(1))
}

/// How many predictors the bandwidth rule counts when a numeric column's schema gives no
/// `bins` ([`bin_count`]). Public either way: n, the schema and the paper's simulation only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BinRule {
    /// The paper's: all d − 1 predictors (Vinterbo 2012, Section 2.1.1). The experiments
    /// reproduce the paper with it, and it is the rule wherever no release is being made
    /// (the target unknown).
    #[default]
    Paper,
    /// **Beyond the paper, the default of a release**: the predictors a release is expected
    /// to keep: a given k, else k̂ = the k the paper's simulation (MDA at σ = 0.1 on a
    /// simulated table of the same n, predictors and classes, cut by the paper's rule) gives,
    /// so the columns
    /// released are cut for a (k̂ + 1)-dimensional histogram, not for all d: on Adult
    /// (n = 48,842, 14 predictors, k̂ = 4) 5 bins instead of 2. Needs the schema's target
    /// (categorical); without it, the paper's rule.
    Released,
    /// **Whole-table synthetic data** ([`crate::synth`]): cut for 2-way marginals measured
    /// with noise. A 2-way table of two numeric columns cut into b bins has b² cells, each
    /// expecting n/b² records; b is the largest count whose cells still expect at least one
    /// noise standard deviation s of records, b = ⌊√(n/s)⌋, at least 2 and at most Lei's
    /// 2-dimensional rule ([`bin_count`]`(n, 1)`). s (the schema's `marginal_noise_sd`) is
    /// public: it follows from ε, δ and the number of columns. Set by the synthesizer, not
    /// named by users.
    Marginals,
}

impl crate::names::Named for BinRule {
    const KIND: &'static str = "bin rule";
    const ALL: &'static [Self] = &[BinRule::Released, BinRule::Paper];

    fn name(self) -> &'static str {
        match self {
            BinRule::Released => "released",
            BinRule::Paper => "paper",
            BinRule::Marginals => "marginals",
        }
    }

    fn help(self) -> &'static str {
        match self {
            BinRule::Released => {
                "the bandwidth rule for the k̂ predictors a release is expected to keep \
                 (default)"
            }
            BinRule::Paper => "the bandwidth rule for all d − 1 predictors, Vinterbo's",
            BinRule::Marginals => {
                "cells of a noisy 2-way marginal expect at least one noise standard deviation \
                 of records (synthetic data)"
            }
        }
    }
}

crate::names::named_traits!(BinRule);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_follow_the_formula() {
        // Hand computation: n = 1000, d − 1 = 3: (ln 1000/1000)^(1/4) = 0.006908^0.25 = 0.28830;
        // 1/bw = 3.4686 → ⌈2.9686⌉ = 3.
        assert!((bandwidth(1000, 3).unwrap() - 0.288_30).abs() < 1e-5);
        assert_eq!(bin_count(1000, 3).unwrap(), 3);
        // n = 10^6, one predictor: (13.8155e-6)^(1/2) = 0.0037169 → 269.04 − 0.5 → 269.
        assert_eq!(bin_count(1_000_000, 1).unwrap(), 269);
        // The paper's formula, exactly: one bin for 36 predictors on 4435 records.
        assert_eq!(bin_count(4435, 36).unwrap(), 1);
        assert!(bandwidth(1, 3).is_err());
    }
}
