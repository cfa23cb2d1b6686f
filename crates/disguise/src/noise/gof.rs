//! Goodness-of-fit helpers for the samplers' statistical tests (test builds only).
//!
//! statrs 0.18 has the chi-square and Kolmogorov distributions' ingredients but no ready
//! chi-square or KS *test*, so the two classic tests are written out here.

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// Pearson chi-square test of `observed` counts against cell probabilities `probs` (summing
/// to 1). Adjacent cells are merged until every expected count is ≥ 5 (the usual validity
/// rule). Panics (test failure) when the p-value is below `alpha`, i.e. with false-alarm rate
/// `alpha` when the sampler is correct.
pub(crate) fn chi_square_test(observed: &[u64], probs: &[f64], alpha: f64) {
    assert_eq!(
        observed.len(),
        probs.len(),
        "cells and probabilities differ in length"
    );
    let total_p: f64 = probs.iter().sum();
    assert!(
        (total_p - 1.0).abs() < 1e-9,
        "cell probabilities sum to {total_p}, not 1"
    );
    let n: u64 = observed.iter().sum();
    let n_f = n as f64;
    // Merge small cells left to right; a small remainder joins the last merged cell.
    let mut cells: Vec<(f64, f64)> = Vec::new(); // (observed, expected)
    let (mut o, mut e) = (0.0, 0.0);
    for (&obs, &p) in observed.iter().zip(probs) {
        o += obs as f64;
        e += p * n_f;
        if e >= 5.0 {
            cells.push((o, e));
            o = 0.0;
            e = 0.0;
        }
    }
    if e > 0.0 || o > 0.0 {
        match cells.last_mut() {
            Some(last) => {
                last.0 += o;
                last.1 += e;
            }
            None => cells.push((o, e)),
        }
    }
    assert!(cells.len() >= 2, "too few cells for a chi-square test");
    let stat: f64 = cells.iter().map(|(o, e)| (o - e) * (o - e) / e).sum();
    let df = (cells.len() - 1) as f64;
    let p_value = ChiSquared::new(df).unwrap().sf(stat);
    assert!(
        p_value >= alpha,
        "chi-square rejects: statistic {stat:.2} on {df} df, p = {p_value:.3e} < {alpha:e}\n\
         cells (observed, expected): {cells:?}"
    );
}

/// Two-sided one-sample Kolmogorov–Smirnov test of `samples` against the continuous `cdf`.
/// Uses the asymptotic bound P(√n·D > c) ≤ 2·exp(−2c²), so the false-alarm rate is at most
/// `alpha` (asymptotically, and conservative for the fine grids our samplers output on).
pub(crate) fn ks_test(samples: &mut [f64], cdf: impl Fn(f64) -> f64, alpha: f64) {
    let n = samples.len();
    assert!(n >= 100, "KS test needs a reasonable sample");
    samples.sort_by(|a, b| a.partial_cmp(b).expect("NaN sample"));
    let n_f = n as f64;
    let mut d: f64 = 0.0;
    for (i, &x) in samples.iter().enumerate() {
        let f = cdf(x);
        d = d
            .max(((i + 1) as f64 / n_f - f).abs())
            .max((f - i as f64 / n_f).abs());
    }
    let c = ((2.0 / alpha).ln() / 2.0).sqrt();
    assert!(
        d * n_f.sqrt() <= c,
        "KS rejects: D = {d:.5}, sqrt(n)·D = {:.3} > {c:.3} (alpha {alpha:e})",
        d * n_f.sqrt()
    );
}

/// z-test helper: |observed − expected| ≤ z·sd.
pub(crate) fn assert_within(observed: f64, expected: f64, sd: f64, z: f64, what: &str) {
    assert!(
        (observed - expected).abs() <= z * sd,
        "{what}: observed {observed}, expected {expected} ± {z}·{sd}"
    );
}
