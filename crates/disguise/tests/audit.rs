//! The empirical privacy audit of the selection mechanisms.
//!
//! 1. Exact goodness of fit: the exponential mechanism (standard and monotone) on ~10
//!    candidates, and the ordered picks of a 3-round private greedy, against their exact
//!    distributions (chi-square, each test's false-alarm rate 1e-4).
//! 2. Black-box privacy-loss lower bounds on worst-case neighbours: the real mechanisms must
//!    not be refuted (`ε_lower ≤ ε`; a correct mechanism fails with probability ≤ 1e-6 per
//!    audit, the harness's default confidence).
//! 3. Testing the tester: deliberately broken variants must be refuted (`ε_lower > ε`, which
//!    for a correct mechanism would happen with probability ≤ 1e-6). The seeds are fixed, so
//!    every outcome here is deterministic; the stated rates say how unlucky a seed would have
//!    to be to make a correct implementation fail.

use disguise::audit::exact::exponential_probabilities;
use disguise::audit::gof::chi_square;
use disguise::audit::{AuditConfig, AuditReport, audit};
use disguise::prelude::*;
use disguise::select::{LargeMargin, LargeMarginChaudhuri, ReportNoisyMax, sample_exponential};
use rand_core::Rng;
use std::fmt::Debug;

fn eps(e: f64) -> Epsilon {
    Epsilon::new(e).unwrap()
}

fn sens(l: f64) -> Sensitivity {
    Sensitivity::new(l).unwrap()
}

/// The classic worst case of the standard exponential mechanism: q(D) = (λ, 0, …, 0) and
/// q(D′) = (0, λ, …, λ). Outputting index 0 has privacy loss
/// ln(e^{ε/2}(1 + (n−1)e^{ε/2}) / (e^{ε/2} + n − 1)), which tends to ε as n grows.
fn opposite_neighbours(n: usize, lambda: f64) -> (Vec<f64>, Vec<f64>) {
    let mut d = vec![0.0; n];
    d[0] = lambda;
    let mut d_prime = vec![lambda; n];
    d_prime[0] = 0.0;
    (d, d_prime)
}

/// A monotone pair (every score moves the same way, by at most λ): q(D) = (λ, 0, …, 0),
/// q(D′) = (0, …, 0). The monotone mechanism's loss on index 0 is
/// ln(n·e^ε / (e^ε + n − 1)) → ε.
fn monotone_neighbours(n: usize, lambda: f64) -> (Vec<f64>, Vec<f64>) {
    let mut d = vec![0.0; n];
    d[0] = lambda;
    (d, vec![0.0; n])
}

/// Audits a selector on a pair of score vectors, with the selection's index as the output.
fn audit_selector(
    selector: &dyn Selector,
    lambda: f64,
    pair: &(Vec<f64>, Vec<f64>),
    config: AuditConfig,
    seed: u64,
) -> AuditReport<usize> {
    let lambda = sens(lambda);
    let mechanism = |rng: &mut SecureRng, scores: &Vec<f64>| {
        selector.select(scores, lambda, rng).map(|s| s.index)
    };
    let mut rng = SecureRng::insecure_from_seed(seed);
    audit(mechanism, &pair.0, &pair.1, &config, &mut rng).unwrap()
}

/// Prints the essentials of a report (shown by `cargo test -- --nocapture` and on failure).
fn summary<O: Debug>(name: &str, report: &AuditReport<O>) -> String {
    let best = report.best.as_ref().map(|b| {
        format!(
            "{:?} on {} output(s) starting {:?}: hits {}/{} vs {}/{}, p_lo {:.3e}, p_hi {:.3e}",
            b.direction,
            b.outputs.len(),
            b.outputs.first(),
            b.numerator_hits,
            b.trials,
            b.denominator_hits,
            b.trials,
            b.numerator_lower,
            b.denominator_upper
        )
    });
    let line = format!(
        "{name}: eps_lower = {:.4} ({})",
        report.epsilon_lower,
        best.unwrap_or_default()
    );
    println!("{line}");
    line
}

// ---------------------------------------------------------------------------------------
// 1. Exact goodness of fit
// ---------------------------------------------------------------------------------------

#[test]
fn exponential_mechanism_matches_its_exact_distribution() {
    // Ten candidates with spread-out scores, so that every probability is clearly non-zero
    // and distinct; chi-square at false-alarm rate 1e-4 per mode.
    let scores = [3.0, -1.5, 0.0, 2.25, 7.0, 5.5, 1e-3, -4.0, 6.0, 4.0];
    let (epsilon, lambda) = (eps(0.8), sens(1.5));
    for (divisor, seed) in [(2u32, 11u64), (1, 12)] {
        let exact = exponential_probabilities(&scores, epsilon, lambda, divisor).unwrap();
        let mut rng = SecureRng::insecure_from_seed(seed);
        let mut counts = [0u64; 10];
        for _ in 0..200_000 {
            counts[sample_exponential(&mut rng, &scores, epsilon, lambda, divisor).unwrap()] += 1;
        }
        let test = chi_square(&counts, &exact).unwrap();
        assert!(
            test.p_value > 1e-4,
            "divisor {divisor}: {test:?}, {counts:?}"
        );
    }
    // The selectors are the same distributions.
    for (selector, exact, seed) in [
        (
            Exponential::new(epsilon),
            exponential_probabilities(&scores, epsilon, lambda, 2).unwrap(),
            13u64,
        ),
        (
            Exponential::monotone(epsilon),
            exponential_probabilities(&scores, epsilon, lambda, 1).unwrap(),
            14,
        ),
    ] {
        let mut rng = SecureRng::insecure_from_seed(seed);
        let mut counts = [0u64; 10];
        for _ in 0..100_000 {
            counts[selector.select(&scores, lambda, &mut rng).unwrap().index] += 1;
        }
        let test = chi_square(&counts, &exact).unwrap();
        assert!(test.p_value > 1e-4, "{test:?}, {counts:?}");
    }
}

/// A tiny private greedy on an additive objective: f(S) = Σ_{v∈S} w_v, so the gain of every
/// remaining item is its weight (sensitivity λ); each round runs the exponential mechanism
/// over the remaining items. Returns the ordered picks.
fn private_greedy(weights: &[f64], k: usize, em: &Exponential, rng: &mut SecureRng) -> Vec<usize> {
    let mut remaining: Vec<usize> = (0..weights.len()).collect();
    let mut picks = Vec::with_capacity(k);
    for _ in 0..k {
        let gains: Vec<f64> = remaining.iter().map(|&v| weights[v]).collect();
        let choice = em.select(&gains, sens(1.0), rng).unwrap().index;
        picks.push(remaining.remove(choice));
    }
    picks
}

#[test]
fn private_greedy_sequence_matches_its_exact_distribution() {
    // 6 items, k = 3 rounds: 6·5·4 = 120 ordered outcomes, each with exact probability
    // Π_rounds w(pick) / Σ_{remaining} w, w(v) = exp(ε·w_v/(2λ)). Chi-square at 1e-4.
    let weights = [4.0, 3.0, 2.5, 1.0, 0.0, 2.0];
    let (k, epsilon) = (3, 1.2);
    let em = Exponential::new(eps(epsilon));
    let weight = |v: usize| (epsilon * weights[v] / 2.0).exp();

    let mut outcomes: Vec<Vec<usize>> = Vec::new();
    let mut exact: Vec<f64> = Vec::new();
    let n = weights.len();
    for a in 0..n {
        for b in (0..n).filter(|&b| b != a) {
            for c in (0..n).filter(|&c| c != a && c != b) {
                let seq = [a, b, c];
                let mut p = 1.0;
                let mut remaining: Vec<usize> = (0..n).collect();
                for &v in &seq {
                    let total: f64 = remaining.iter().map(|&u| weight(u)).sum();
                    p *= weight(v) / total;
                    remaining.retain(|&u| u != v);
                }
                outcomes.push(seq.to_vec());
                exact.push(p);
            }
        }
    }
    assert!((exact.iter().sum::<f64>() - 1.0).abs() < 1e-12);

    let mut counts = vec![0u64; outcomes.len()];
    let mut rng = SecureRng::insecure_from_seed(21);
    for _ in 0..300_000 {
        let picks = private_greedy(&weights, k, &em, &mut rng);
        let (a, b, c) = (picks[0], picks[1], picks[2]);
        // Position of (a, b, c) in the enumeration order above.
        let rank = |x: usize, skip: &[usize]| x - skip.iter().filter(|&&s| s < x).count();
        counts[(a * (n - 1) + rank(b, &[a])) * (n - 2) + rank(c, &[a, b])] += 1;
    }
    let test = chi_square(&counts, &exact).unwrap();
    assert!(test.p_value > 1e-4, "{test:?}");
    assert!(test.degrees_of_freedom > 50, "{test:?}");
}

// ---------------------------------------------------------------------------------------
// 2. The real mechanisms pass
// ---------------------------------------------------------------------------------------

#[test]
fn exponential_mechanism_passes_and_the_bound_is_tight() {
    // 50 candidates: the true loss of index 0 is ln(e^½(1 + 49e^½)/(e^½ + 49)) = 0.979 for
    // ε = 1. Not refuted (false alarm ≤ 1e-6), and with 750k evaluation runs per side the
    // certified bound comes within 0.2 of ε: the harness has power, not just validity.
    let epsilon = 1.0;
    let em = Exponential::new(eps(epsilon));
    let report = audit_selector(
        &em,
        1.0,
        &opposite_neighbours(50, 1.0),
        AuditConfig::new(1_000_000),
        31,
    );
    let line = summary("em", &report);
    assert!(!report.violates(epsilon), "{line}");
    assert!(report.epsilon_lower > 0.8 * epsilon, "{line}");
    assert_eq!(
        report.best.as_ref().unwrap().outputs,
        vec![0usize],
        "{line}"
    );
}

#[test]
fn monotone_exponential_mechanism_passes_on_monotone_neighbours() {
    // True loss ln(50e/(e + 49)) = 0.966 for ε = 1 (false alarm ≤ 1e-6).
    let epsilon = 1.0;
    let em = Exponential::monotone(eps(epsilon));
    let report = audit_selector(
        &em,
        1.0,
        &monotone_neighbours(50, 1.0),
        AuditConfig::new(1_000_000),
        32,
    );
    let line = summary("em monotone", &report);
    assert!(!report.violates(epsilon), "{line}");
    assert!(report.epsilon_lower > 0.75 * epsilon, "{line}");
}

#[test]
fn report_noisy_max_passes() {
    // Both modes on their worst-case neighbour shapes (false alarm ≤ 1e-6 each).
    let epsilon = 1.0;
    let report = audit_selector(
        &ReportNoisyMax::new(eps(epsilon)),
        1.0,
        &opposite_neighbours(10, 1.0),
        AuditConfig::new(300_000),
        33,
    );
    let line = summary("report noisy max", &report);
    assert!(!report.violates(epsilon), "{line}");
    assert!(report.epsilon_lower > 0.3, "{line}");
    let report = audit_selector(
        &ReportNoisyMax::monotone(eps(epsilon)),
        1.0,
        &monotone_neighbours(10, 1.0),
        AuditConfig::new(300_000),
        34,
    );
    let line = summary("report noisy max (monotone)", &report);
    assert!(!report.violates(epsilon), "{line}");
    assert!(report.epsilon_lower > 0.3, "{line}");
}

/// Neighbours for a large margin mechanism whose margin search is near its decision
/// boundary: the top two scores are close (so ℓ = 1 essentially never passes) and the gap
/// to the rest sits at the ℓ = 2 stopping threshold, so ℓ ∈ {2, 3, …} varies between runs.
/// D′ swaps the order of the top two (each moves by λ) and raises the rest by λ, which both
/// shrinks the gap (ℓ shifts) and changes the final exponential mechanism's odds.
fn margin_neighbours(threshold: f64, n: usize, lambda: f64) -> (Vec<f64>, Vec<f64>) {
    let top = threshold;
    let mut d = vec![0.0; n];
    d[0] = top + lambda;
    d[1] = top;
    let mut d_prime = vec![lambda; n];
    d_prime[0] = top;
    d_prime[1] = top + lambda;
    (d, d_prime)
}

/// Audits an LMM on margin neighbours with (index, ℓ) as the output: both are released.
fn audit_lmm(
    selector: &dyn Selector,
    pair: &(Vec<f64>, Vec<f64>),
    delta: f64,
    seed: u64,
) -> AuditReport<(usize, usize)> {
    let lambda = sens(1.0);
    let mechanism = |rng: &mut SecureRng, scores: &Vec<f64>| {
        let s = selector.select(scores, lambda, rng)?;
        Ok((s.index, s.margin.unwrap_or(0)))
    };
    let mut rng = SecureRng::insecure_from_seed(seed);
    let config = AuditConfig::new(300_000).with_delta(delta);
    audit(mechanism, &pair.0, &pair.1, &config, &mut rng).unwrap()
}

#[test]
fn large_margin_mechanism_passes() {
    // (ε, δ) = (1, 1e-6); the bound subtracts δ. False alarm ≤ 1e-6.
    let (epsilon, delta) = (1.0, 1e-6);
    let lmm = LargeMargin::new(eps(epsilon), Delta::new(delta).unwrap()).unwrap();
    let pair = margin_neighbours(lmm.stopping_threshold(2, sens(1.0)), 10, 1.0);
    let report = audit_lmm(&lmm, &pair, delta, 41);
    let line = summary("lmm", &report);
    assert!(!report.violates(epsilon), "{line}");
    // The margin really varies on these neighbours (otherwise the test would be idle).
    let margins: std::collections::BTreeSet<usize> =
        report.counts.iter().map(|c| c.output.1).collect();
    assert!(margins.len() >= 2, "{margins:?}");
}

#[test]
fn large_margin_mechanism_chaudhuri_passes() {
    let (epsilon, delta) = (1.0, 1e-6);
    let lmm = LargeMarginChaudhuri::new(eps(epsilon), Delta::new(delta).unwrap()).unwrap();
    let pair = margin_neighbours(lmm.stopping_threshold(2, sens(1.0)), 10, 1.0);
    let report = audit_lmm(&lmm, &pair, delta, 42);
    let line = summary("lmm-chaudhuri", &report);
    assert!(!report.violates(epsilon), "{line}");
    let margins: std::collections::BTreeSet<usize> =
        report.counts.iter().map(|c| c.output.1).collect();
    assert!(margins.len() >= 2, "{margins:?}");
}

// ---------------------------------------------------------------------------------------
// 3. Testing the tester: broken variants are refuted
// ---------------------------------------------------------------------------------------

#[test]
fn exponential_mechanism_without_the_factor_two_is_flagged() {
    // Weights exp(ε·q/λ) on non-monotone neighbours: true loss of index 0 is
    // ln(e(1 + 49e)/(e + 49)) = 1.955 for ε = 1, so a claim of ε = 1 must be refuted.
    let epsilon = 1.0;
    let pair = opposite_neighbours(50, 1.0);
    let broken = |rng: &mut SecureRng, scores: &Vec<f64>| {
        sample_exponential(rng, scores, eps(epsilon), sens(1.0), 1)
    };
    let mut rng = SecureRng::insecure_from_seed(51);
    let report = audit(
        broken,
        &pair.0,
        &pair.1,
        &AuditConfig::new(200_000),
        &mut rng,
    )
    .unwrap();
    let line = summary("em without factor 2", &report);
    assert!(report.violates(epsilon), "{line}");
}

#[test]
fn monotone_exponential_mechanism_on_non_monotone_neighbours_is_flagged() {
    // The same 2ε loss, reached through the public monotone selector used outside its
    // precondition.
    let epsilon = 1.0;
    let report = audit_selector(
        &Exponential::monotone(eps(epsilon)),
        1.0,
        &opposite_neighbours(50, 1.0),
        AuditConfig::new(200_000),
        52,
    );
    let line = summary("monotone em, non-monotone neighbours", &report);
    assert!(report.violates(epsilon), "{line}");
}

#[test]
fn report_noisy_max_monotone_on_non_monotone_neighbours_is_flagged() {
    // Lap(λ/ε) noise is only ε-DP for monotone scores; here it loses more than ε.
    let epsilon = 1.0;
    let report = audit_selector(
        &ReportNoisyMax::monotone(eps(epsilon)),
        1.0,
        &opposite_neighbours(10, 1.0),
        AuditConfig::new(300_000),
        53,
    );
    let line = summary("monotone rnm, non-monotone neighbours", &report);
    assert!(report.violates(epsilon), "{line}");
}

#[test]
fn argmax_is_flagged_at_any_epsilon() {
    // Deterministic output: P_D(0) = 1, P_D′(0) = 0; only the sample size limits the bound.
    let report = audit_selector(
        &disguise::select::Argmax,
        1.0,
        &opposite_neighbours(10, 1.0),
        AuditConfig::new(100_000),
        54,
    );
    let line = summary("argmax", &report);
    assert!(report.violates(5.0), "{line}");
}

/// Laplace(0, `scale`) by inversion in plain floating point. Test-only: fast, and exact
/// enough for coarse bucketed outputs, but *not* float-safe (Mironov 2012) — the library's
/// mechanisms use [`disguise::noise::laplace`], which is some 20× slower and would make the
/// millions of runs below take most of a minute.
fn fast_laplace(rng: &mut SecureRng, scale: f64) -> f64 {
    let bits = rng.next_u64();
    // 52 bits for u ∈ (0, 1] (never 0, so ln u is finite), 1 bit for the sign.
    let u = ((bits >> 12) + 1) as f64 * 2f64.powi(-52);
    let magnitude = -scale * u.ln();
    if bits & 1 == 0 { magnitude } else { -magnitude }
}

/// AboveThreshold (Dwork & Roth, Algorithm 1) with threshold T = 0 and sensitivity-1 queries:
/// noisy threshold T + Lap(2/ε), each query q_i + Lap(4/ε), stop at the first noisy query at
/// or above the noisy threshold. Returns the index (or `None`) and, if `leak`, the noisy value
/// of that query bucketed to width 1/(2ε) — the broken variant.
fn above_threshold(
    rng: &mut SecureRng,
    queries: &[f64],
    epsilon: f64,
    leak: bool,
) -> Result<Option<(usize, i64)>> {
    let threshold = fast_laplace(rng, 2.0 / epsilon);
    for (i, &q) in queries.iter().enumerate() {
        let noisy = q + fast_laplace(rng, 4.0 / epsilon);
        if noisy >= threshold {
            let bucket = if leak {
                (noisy * 2.0 * epsilon).floor() as i64
            } else {
                0
            };
            return Ok(Some((i, bucket)));
        }
    }
    Ok(None)
}

/// Ten queries at ½ on D and −½ on D′ (each moved by 1), then one more at ½ on both.
/// Conditioned on the released value v of the last query, the noisy threshold is ≤ v, so
/// each of the ten "below" answers compares a query against v with only Lap(4/ε) noise: an
/// ε/4 leak each, 2.5ε in total for small v, far beyond the ε the sparse vector proof gives.
fn sparse_vector_neighbours() -> (Vec<f64>, Vec<f64>) {
    let mut d = vec![0.5; 10];
    let mut d_prime = vec![-0.5; 10];
    d.push(0.5);
    d_prime.push(0.5);
    (d, d_prime)
}

#[test]
fn sparse_vector_releasing_the_noisy_value_is_flagged() {
    // ε = 3; the exact leak on {index 10, v ≤ 0.5} is ln(P_D′/P_D) ≈ 4.6 (numerical
    // integration), on an event of probability ≈ 3e-5 under D: millions of runs needed.
    let epsilon = 3.0;
    let pair = sparse_vector_neighbours();
    let broken = |rng: &mut SecureRng, q: &Vec<f64>| above_threshold(rng, q, epsilon, true);
    let mut rng = SecureRng::insecure_from_seed(55);
    let config = AuditConfig::new(5_000_000);
    let report = audit(broken, &pair.0, &pair.1, &config, &mut rng).unwrap();
    let line = summary("sparse vector releasing the value", &report);
    assert!(report.violates(epsilon), "{line}");
}

#[test]
fn sparse_vector_releasing_only_the_index_passes() {
    // The control for the test above: same neighbours, the correct output. ε-DP (Dwork &
    // Roth, Theorem 3.23), so not refuted (false alarm ≤ 1e-6).
    let epsilon = 3.0;
    let pair = sparse_vector_neighbours();
    let correct = |rng: &mut SecureRng, q: &Vec<f64>| above_threshold(rng, q, epsilon, false);
    let mut rng = SecureRng::insecure_from_seed(56);
    let report = audit(
        correct,
        &pair.0,
        &pair.1,
        &AuditConfig::new(1_000_000),
        &mut rng,
    )
    .unwrap();
    let line = summary("sparse vector (index only)", &report);
    assert!(!report.violates(epsilon), "{line}");
}
