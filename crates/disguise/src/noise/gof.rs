//! Goodness-of-fit helpers for the samplers' statistical tests (test builds only).
//!
//! The chi-square test is the audit's ([`crate::audit::gof::chi_square`]); statrs 0.18 has no
//! ready KS *test*, so that one is written out here.

/// Pearson chi-square test of `observed` counts against cell probabilities `probs` (summing
/// to 1), by [`crate::audit::gof::chi_square`] (which pools cells with expected count < 5).
/// Panics (test failure) when the p-value is below `alpha`, i.e. with false-alarm rate
/// `alpha` when the sampler is correct.
pub(crate) fn chi_square_test(observed: &[u64], probs: &[f64], alpha: f64) {
    let test = crate::audit::gof::chi_square(observed, probs).expect("valid chi-square input");
    assert!(
        test.p_value >= alpha,
        "chi-square rejects: statistic {:.2} on {} df, p = {:.3e} < {alpha:e}\n\
         observed {observed:?}",
        test.statistic,
        test.degrees_of_freedom,
        test.p_value
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
