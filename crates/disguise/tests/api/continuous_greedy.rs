//! The private continuous greedy (Rafiey & Yoshida 2020, Algorithms 1–2) and its parts:
//! closed-form and sampled multilinear gradients against exact enumeration, their proven
//! sensitivities on neighbouring datasets, the exact exponential mechanism over matroid bases
//! against its enumerated distribution (chi-square), swap rounding's independence and
//! marginals, the approximation ratio of the non-private continuous greedy against exhaustive
//! search, the `Solution` contract, and a black-box privacy audit of one step.
//!
//! Statistical tests use fixed seeds; each states its false-alarm rate.

use disguise::audit::gof::chi_square;
use disguise::audit::{AuditConfig, audit};
use disguise::constraint::{Cardinality, Graphic, Independence, Matroid, Partition};
use disguise::maximize::{
    Block, Budget, ContinuousGreedy, Directions, MatroidBases, Procedure, continuous_greedy,
    continuous_greedy_run, exhaustive, exponential_base, exponential_units, swap_round,
};
use disguise::objective::{
    ClosedForm, Coverage, FacilityLocation, GradientOracle, SampledGradient, SetFunction,
    enumerate_multilinear,
};
use disguise::privacy::{Epsilon, PrivacyCost, compose::Rule};
use disguise::select::SelectorKind;
use disguise::{Result, SecureRng};
use rand_core::Rng;
use std::collections::HashMap;

/// A uniform f64 in [0, 1) (tests need reproducibility, not security).
fn unit(rng: &mut SecureRng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A random dense facility-location instance: `records` × `candidates` similarities, about a
/// third of them zero.
fn random_facility(records: usize, candidates: usize, rng: &mut SecureRng) -> FacilityLocation {
    let sims: Vec<f64> = (0..records * candidates)
        .map(|_| {
            let u = unit(rng);
            if u < 0.33 { 0.0 } else { unit(rng) }
        })
        .collect();
    FacilityLocation::from_similarities(records, candidates, &sims).unwrap()
}

fn random_point(n: usize, rng: &mut SecureRng) -> Vec<f64> {
    (0..n)
        .map(|v| match v % 4 {
            0 => 0.0,
            1 => 1.0,
            _ => unit(rng),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Multilinear extension and gradient.
// ---------------------------------------------------------------------------------------

/// At a random point, the closed form's value is within 1e-10 of the enumerated one and
/// every partial derivative within the gradient's bound, which holds with certainty.
fn assert_closed_form_exact<F: ClosedForm>(f: &F, trial: usize, rng: &mut SecureRng) {
    let x = random_point(f.ground_size(), rng);
    let ext = f.multilinear().unwrap();
    let (value, exact) = enumerate_multilinear(f, &x).unwrap();
    let got = ext.closed_form_value(&x).unwrap().unwrap();
    assert!((got - value).abs() < 1e-10, "trial {trial}");
    let g = ext.gradient(&x, rng).unwrap();
    assert_eq!(g.error.failure_probability, 0.0);
    for (v, &e) in exact.iter().enumerate() {
        let err = (g.partial(v) - e).abs();
        assert!(
            err <= g.error.absolute,
            "trial {trial}, v = {v}: {} vs {e} (bound {})",
            g.partial(v),
            g.error.absolute
        );
    }
}

#[test]
fn facility_location_closed_form_matches_enumeration() {
    let mut rng = SecureRng::insecure_from_seed(11);
    for trial in 0..20 {
        let f = random_facility(15, 8, &mut rng);
        assert_closed_form_exact(&f, trial, &mut rng);
    }
}

#[test]
fn coverage_closed_form_matches_enumeration() {
    let mut rng = SecureRng::insecure_from_seed(12);
    for trial in 0..20 {
        let covers: Vec<Vec<usize>> = (0..25)
            .map(|_| (0..8).filter(|_| unit(&mut rng) < 0.25).collect())
            .collect();
        let weights: Vec<f64> = (0..25).map(|_| 3.0 * unit(&mut rng)).collect();
        let f = Coverage::weighted(8, &covers, &weights, 3.0).unwrap();
        assert_closed_form_exact(&f, trial, &mut rng);
    }
}

#[test]
fn sampled_gradient_is_within_its_hoeffding_bound() {
    // Each run's bound holds with probability ≥ 0.99 (γ = 0.01); with fixed seeds the test
    // is deterministic, and a wrong estimator (bias, wrong sign for v ∈ R) fails it.
    let mut rng = SecureRng::insecure_from_seed(13);
    for trial in 0..5 {
        let f = random_facility(10, 7, &mut rng);
        let x = random_point(7, &mut rng);
        let (_, exact) = enumerate_multilinear(&f, &x).unwrap();
        let est = SampledGradient::new(&f, 2000).unwrap();
        let g = est.gradient(&x, &mut rng).unwrap();
        // Range of one sampled difference for monotone submodular f: max_v f({v}).
        let range = (0..7).map(|v| f.evaluate(&[v])).fold(0.0, f64::max);
        let bound = g.error.absolute + g.error.per_range * range;
        for (v, &e) in exact.iter().enumerate() {
            assert!(
                (g.partial(v) - e).abs() <= bound,
                "trial {trial}, v = {v}: {} vs {e} (bound {bound})",
                g.partial(v),
            );
        }
        assert_eq!(g.evaluations, 2000 * 7);
        assert_eq!(g.samples, 2000);
    }
}

/// Every part of `bound` is at least the same part of `error`.
fn assert_within(error: disguise::objective::ErrorBound, bound: disguise::objective::ErrorBound) {
    assert!(error.absolute <= bound.absolute, "{error:?} vs {bound:?}");
    assert!(error.per_range <= bound.per_range, "{error:?} vs {bound:?}");
    assert!(
        error.failure_probability <= bound.failure_probability,
        "{error:?} vs {bound:?}"
    );
}

#[test]
fn every_gradient_is_within_its_oracles_a_priori_bound() {
    // The usefulness bound of a run reads `error_bound` before any gradient: it must cover
    // each gradient's own error, for the closed forms (n·unit, certain) and the estimator
    // (its grid, and the Hoeffding part at its γ).
    let mut rng = SecureRng::insecure_from_seed(17);
    let f = random_facility(12, 6, &mut rng);
    let coverage = Coverage::weighted(
        6,
        &[vec![0, 1], vec![2], vec![1, 3, 5], vec![4]],
        &[1.5, 0.25, 3.0, 2.0],
        3.0,
    )
    .unwrap();
    let closed = f.multilinear().unwrap();
    let covered = coverage.multilinear().unwrap();
    let sampled = SampledGradient::new(&f, 50).unwrap();
    assert_eq!(closed.error_bound().absolute, 12.0 * 2f64.powi(-22));
    for _ in 0..5 {
        let x = random_point(6, &mut rng);
        assert_within(
            closed.gradient(&x, &mut rng).unwrap().error,
            closed.error_bound(),
        );
        assert_within(
            covered.gradient(&x, &mut rng).unwrap().error,
            covered.error_bound(),
        );
        assert_within(
            sampled.gradient(&x, &mut rng).unwrap().error,
            sampled.error_bound(),
        );
    }
}

#[test]
fn sampled_gradient_is_unbiased_for_elements_inside_the_sample() {
    // At x = (1, 1, …, 1) every sample is R = V: the estimator must use f(V) − f(V ∖ {v}).
    let f = Coverage::new(3, &[vec![0], vec![0, 1], vec![2]]).unwrap();
    let est = SampledGradient::new(&f, 10).unwrap();
    let g = est
        .gradient(&[1.0, 1.0, 1.0], &mut SecureRng::insecure_from_seed(1))
        .unwrap();
    assert_eq!(g.to_vec(), vec![1.0, 0.0, 1.0]);
}

/// The neighbouring dataset without record `drop`.
fn without(sims: &[f64], candidates: usize, drop: usize) -> Vec<f64> {
    sims.chunks(candidates)
        .enumerate()
        .filter(|(i, _)| *i != drop)
        .flat_map(|(_, row)| row.to_vec())
        .collect()
}

#[test]
fn gradient_sensitivity_holds_on_neighbouring_datasets() {
    let mut rng = SecureRng::insecure_from_seed(14);
    for trial in 0..20 {
        let (records, m) = (12, 6);
        let sims: Vec<f64> = (0..records * m).map(|_| unit(&mut rng)).collect();
        let d = FacilityLocation::from_similarities(records, m, &sims).unwrap();
        let drop = trial % records;
        let d2 =
            FacilityLocation::from_similarities(records - 1, m, &without(&sims, m, drop)).unwrap();
        // Replace-one: the dropped record replaced by its opposite.
        let mut replaced = sims.clone();
        for j in 0..m {
            replaced[drop * m + j] = 1.0 - sims[drop * m + j];
        }
        let d3 = FacilityLocation::from_similarities(records, m, &replaced).unwrap();
        let x = random_point(m, &mut rng);
        let g = d.multilinear().unwrap().gradient(&x, &mut rng).unwrap();
        for other in [&d2, &d3] {
            let h = other.multilinear().unwrap().gradient(&x, &mut rng).unwrap();
            assert_eq!(g.sensitivity_units, 1 << 22);
            for v in 0..m {
                assert!(g.units[v].abs_diff(h.units[v]) <= g.sensitivity_units);
            }
        }
        // The sampled estimator, with the same randomness on both datasets.
        let seed = 1000 + trial as u64;
        let gs = SampledGradient::new(&d, 50)
            .unwrap()
            .gradient(&x, &mut SecureRng::insecure_from_seed(seed))
            .unwrap();
        for other in [&d2, &d3] {
            let hs = SampledGradient::new(other, 50)
                .unwrap()
                .gradient(&x, &mut SecureRng::insecure_from_seed(seed))
                .unwrap();
            assert_eq!(gs.sensitivity_units, hs.sensitivity_units);
            for v in 0..m {
                assert!(gs.units[v].abs_diff(hs.units[v]) <= gs.sensitivity_units);
            }
        }
    }
}

#[test]
fn gradient_rejects_invalid_points() {
    let f = Coverage::new(2, &[vec![0, 1]]).unwrap();
    let ext = f.multilinear().unwrap();
    let mut rng = SecureRng::insecure_from_seed(0);
    assert!(ext.gradient(&[0.5], &mut rng).is_err());
    assert!(ext.gradient(&[0.5, 1.5], &mut rng).is_err());
    assert!(ext.gradient(&[f64::NAN, 0.0], &mut rng).is_err());
    assert!(SampledGradient::new(&f, 0).is_err());
}

// ---------------------------------------------------------------------------------------
// The exact exponential mechanism over bases.
// ---------------------------------------------------------------------------------------

/// Every base of a product of uniform blocks, with its exact EM probability.
fn enumerate_bases(
    blocks: &[Block],
    scores: &[i128],
    epsilon: f64,
    sensitivity: u128,
) -> (Vec<Vec<usize>>, Vec<f64>) {
    fn subsets(items: &[usize], size: usize) -> Vec<Vec<usize>> {
        if size == 0 {
            return vec![vec![]];
        }
        if items.len() < size {
            return vec![];
        }
        let mut with: Vec<Vec<usize>> = subsets(&items[1..], size - 1)
            .into_iter()
            .map(|mut s| {
                s.insert(0, items[0]);
                s
            })
            .collect();
        with.extend(subsets(&items[1..], size));
        with
    }
    let mut bases: Vec<Vec<usize>> = vec![vec![]];
    for block in blocks {
        let choices = subsets(&block.elements, block.size);
        bases = bases
            .iter()
            .flat_map(|b| {
                choices.iter().map(move |c| {
                    let mut s = b.clone();
                    s.extend(c);
                    s.sort_unstable();
                    s
                })
            })
            .collect();
    }
    let log_w: Vec<f64> = bases
        .iter()
        .map(|b| {
            let q: i128 = b.iter().map(|&e| scores[e]).sum();
            epsilon * q as f64 / (2.0 * sensitivity as f64)
        })
        .collect();
    let max = log_w.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = log_w.iter().map(|l| (l - max).exp()).collect();
    let z: f64 = w.iter().sum();
    (bases, w.iter().map(|v| v / z).collect())
}

/// Samples the base mechanism `draws` times and runs the chi-square test against enumeration.
fn check_base_sampler(
    blocks: &[Block],
    scores: &[i128],
    epsilon: f64,
    sensitivity: u128,
    seed: u64,
) {
    let (bases, probs) = enumerate_bases(blocks, scores, epsilon, sensitivity);
    let index: HashMap<Vec<usize>, usize> = bases
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, b)| (b, i))
        .collect();
    let mut counts = vec![0u64; bases.len()];
    let mut rng = SecureRng::insecure_from_seed(seed);
    let eps = Epsilon::new(epsilon).unwrap();
    for _ in 0..40_000 {
        let b = exponential_base(&mut rng, blocks, scores, eps, sensitivity).unwrap();
        counts[*index.get(&b).expect("the sample is a base")] += 1;
    }
    let test = chi_square(&counts, &probs).unwrap();
    // False alarm 1e-4 per call.
    assert!(
        test.p_value > 1e-4,
        "chi-square {test:?}, counts {counts:?}, probs {probs:?}"
    );
}

#[test]
fn base_sampler_matches_the_exponential_mechanism_on_a_uniform_matroid() {
    let blocks = [Block {
        elements: (0..6).collect(),
        size: 3,
    }];
    // Moderate spread, ties, a negative score.
    check_base_sampler(&blocks, &[0, 3, 7, 7, 12, -5], 3.0, 10, 1);
    // Nearly uniform (small ε) — the slowest regime for the rejection step.
    check_base_sampler(&blocks, &[0, 3, 7, 7, 12, -5], 0.05, 10, 2);
    // Huge integer scores: the tilt and the exact gaps far beyond f64's 2^53.
    let big = 1i128 << 90;
    check_base_sampler(
        &blocks,
        &[big, big + (1 << 40), big - (1 << 41), 0, big, big + 7],
        1.0,
        1 << 40,
        3,
    );
}

#[test]
fn base_sampler_matches_the_exponential_mechanism_on_a_partition_matroid() {
    let p = Partition::new(vec![0, 0, 0, 1, 1, 1, 1, 2], vec![1, 2, 0]).unwrap();
    let blocks = p.uniform_blocks().unwrap();
    assert_eq!(
        blocks.iter().map(|b| b.size).collect::<Vec<_>>(),
        vec![1, 2, 0]
    );
    check_base_sampler(&blocks, &[5, 0, 2, 9, 1, 4, 4, 100], 2.0, 6, 4);
}

#[test]
fn exponential_units_matches_the_exponential_mechanism() {
    let scores = [3i128, -4, 10, 10, 0];
    let (eps, s) = (1.5, 4u128);
    let w: Vec<f64> = scores
        .iter()
        .map(|&q| (eps * q as f64 / (2.0 * s as f64)).exp())
        .collect();
    let z: f64 = w.iter().sum();
    let probs: Vec<f64> = w.iter().map(|v| v / z).collect();
    let mut counts = [0u64; 5];
    let mut rng = SecureRng::insecure_from_seed(5);
    for _ in 0..50_000 {
        counts[exponential_units(&mut rng, &scores, Epsilon::new(eps).unwrap(), s).unwrap()] += 1;
    }
    let test = chi_square(&counts, &probs).unwrap();
    assert!(test.p_value > 1e-4, "{test:?}"); // false alarm 1e-4
}

#[test]
fn base_sampler_rejects_invalid_blocks() {
    let eps = Epsilon::new(1.0).unwrap();
    let mut rng = SecureRng::insecure_from_seed(0);
    let overlapping = [
        Block {
            elements: vec![0, 1],
            size: 1,
        },
        Block {
            elements: vec![1, 2],
            size: 1,
        },
    ];
    assert!(exponential_base(&mut rng, &overlapping, &[0, 0, 0], eps, 1).is_err());
    let too_big = [Block {
        elements: vec![0],
        size: 2,
    }];
    assert!(exponential_base(&mut rng, &too_big, &[0], eps, 1).is_err());
    let unknown = [Block {
        elements: vec![3],
        size: 1,
    }];
    assert!(exponential_base(&mut rng, &unknown, &[0], eps, 1).is_err());
    let ok = [Block {
        elements: vec![0],
        size: 1,
    }];
    assert!(exponential_base(&mut rng, &ok, &[0], eps, 0).is_err());
}

// ---------------------------------------------------------------------------------------
// Swap rounding.
// ---------------------------------------------------------------------------------------

/// Rounds `sets` `runs` times; checks independence (and the base size when `base_size` is
/// given) every time and each coordinate's frequency against x with a z-test at |z| < 5
/// (false alarm ≈ 6e-7 per coordinate).
fn check_swap_rounding<C: Independence>(
    constraint: &C,
    sets: &[(u64, Vec<usize>)],
    base_size: Option<usize>,
    seed: u64,
) {
    let n = constraint.ground_size();
    let total: u64 = sets.iter().map(|s| s.0).sum();
    let mut x = vec![0.0; n];
    for (w, set) in sets {
        for &v in set {
            x[v] += *w as f64 / total as f64;
        }
    }
    let runs = 20_000;
    let mut hits = vec![0u64; n];
    let mut rng = SecureRng::insecure_from_seed(seed);
    for _ in 0..runs {
        let s = swap_round(constraint, sets, &mut rng).unwrap();
        assert!(constraint.is_independent(&s), "{s:?} is dependent");
        if let Some(r) = base_size {
            assert_eq!(s.len(), r);
        }
        for v in s {
            hits[v] += 1;
        }
    }
    for v in 0..n {
        let p = x[v];
        let freq = hits[v] as f64 / runs as f64;
        if p == 0.0 || p == 1.0 {
            assert_eq!(freq, p, "coordinate {v}");
            continue;
        }
        let z = (freq - p) / (p * (1.0 - p) / runs as f64).sqrt();
        assert!(
            z.abs() < 5.0,
            "coordinate {v}: frequency {freq} vs x = {p} (z = {z})"
        );
    }
}

#[test]
fn swap_rounding_preserves_marginals_on_a_partition_matroid() {
    let p = Partition::new(vec![0, 0, 0, 0, 1, 1, 1], vec![2, 1]).unwrap();
    let sets = vec![
        (3, vec![0, 1, 4]),
        (1, vec![2, 3, 5]),
        (2, vec![0, 3, 6]),
        (1, vec![0, 1, 4]),
    ];
    check_swap_rounding(&p, &sets, Some(3), 21);
}

#[test]
fn swap_rounding_preserves_marginals_on_a_graphic_matroid() {
    // K4: 6 edges, spanning trees of 3 edges.
    let g = Graphic::new(4, vec![(0, 1), (1, 2), (2, 3), (0, 3), (0, 2), (1, 3)]).unwrap();
    let sets = vec![
        (1, vec![0, 1, 2]),
        (2, vec![3, 4, 5]),
        (1, vec![0, 4, 5]),
        (3, vec![1, 2, 3]),
    ];
    for (_, s) in &sets {
        assert!(g.is_independent(s) && s.len() == g.rank_bound());
    }
    check_swap_rounding(&g, &sets, Some(3), 22);
}

#[test]
fn swap_rounding_of_independent_sets_that_are_not_bases() {
    // Sets of size 1 and 2 under |S| ≤ 3: padded with dummies, marginals still exact.
    let c = Cardinality::new(5, 3);
    let sets = vec![(1, vec![0]), (1, vec![1, 2]), (2, vec![3, 4]), (1, vec![])];
    check_swap_rounding(&c, &sets, None, 23);
}

#[test]
fn swap_rounding_rejects_invalid_input() {
    let c = Cardinality::new(4, 2);
    let mut rng = SecureRng::insecure_from_seed(0);
    assert!(swap_round(&c, &[], &mut rng).is_err());
    assert!(swap_round(&c, &[(0, vec![0])], &mut rng).is_err());
    assert!(swap_round(&c, &[(1, vec![0, 1, 2])], &mut rng).is_err());
    assert!(swap_round(&c, &[(1, vec![0, 0])], &mut rng).is_err());
    assert!(swap_round(&c, &[(1, vec![7])], &mut rng).is_err());
}

// ---------------------------------------------------------------------------------------
// The algorithm.
// ---------------------------------------------------------------------------------------

/// Non-private continuous greedy against exhaustive search: F(x_T) must satisfy the derived
/// discrete bound F(x_T) ≥ (1 − (1 − 1/T)^T)·OPT − r²Δ₁/(2T), and the rounded sets must reach
/// (1 − 1/e − 0.03)·OPT on average over 100 roundings.
fn check_ratio<C: MatroidBases>(f: &FacilityLocation, constraint: &C, steps: usize, seed: u64) {
    let opt = exhaustive(f, constraint).unwrap().value;
    let r = constraint.rank_bound();
    let delta1 = (0..f.ground_size())
        .map(|v| f.evaluate(&[v]))
        .fold(0.0, f64::max);
    let ext = f.multilinear().unwrap();
    let options = ContinuousGreedy::new().with_steps(steps);
    let mut rng = SecureRng::insecure_from_seed(seed);
    let run =
        continuous_greedy_run(&ext, constraint, &options, &Procedure::Argmax, &mut rng).unwrap();
    let fx = run.multilinear_value.unwrap();
    let t = steps as f64;
    let bound = (1.0 - (1.0 - 1.0 / t).powf(t)) * opt - (r * r) as f64 * delta1 / (2.0 * t);
    assert!(
        fx >= bound - 1e-3,
        "F(x) = {fx} below the derived bound {bound} (OPT {opt})"
    );
    let factor = 1.0 - (-1.0f64).exp();
    assert!(fx >= (factor - 0.02) * opt, "F(x) = {fx}, OPT = {opt}");
    let mut total = 0.0;
    for _ in 0..100 {
        let sets: Vec<(u64, Vec<usize>)> = run.bases.iter().map(|b| (1, b.clone())).collect();
        total += f.evaluate(&swap_round(constraint, &sets, &mut rng).unwrap());
    }
    assert!(
        total / 100.0 >= (factor - 0.03) * opt,
        "mean {} vs OPT {opt}",
        total / 100.0
    );
    assert!(run.solution.guarantee.is_none());
    assert!(constraint.is_independent(&run.solution.elements));
}

#[test]
fn non_private_continuous_greedy_reaches_one_minus_one_over_e() {
    let mut rng = SecureRng::insecure_from_seed(31);
    for trial in 0..6 {
        let f = random_facility(30, 10, &mut rng);
        check_ratio(&f, &Cardinality::new(10, 3), 60, trial);
        let groups: Vec<usize> = (0..10).map(|v| v % 3).collect();
        check_ratio(
            &f,
            &Partition::new(groups, vec![1, 2, 1]).unwrap(),
            60,
            trial,
        );
        // A graphic matroid on 5 vertices with 10 edges (K5): sequential directions.
        let edges: Vec<(usize, usize)> = (0..5)
            .flat_map(|u| (u + 1..5).map(move |v| (u, v)))
            .collect();
        check_ratio(&f, &Graphic::new(5, edges).unwrap(), 60, trial);
    }
}

fn small_instance() -> FacilityLocation {
    let mut rng = SecureRng::insecure_from_seed(41);
    random_facility(40, 8, &mut rng)
}

#[test]
fn private_continuous_greedy_follows_the_solution_contract() {
    let f = small_instance();
    let ext = f.multilinear().unwrap();
    let budget = Procedure::private(SelectorKind::Exponential, Budget::total(1.0, 1e-6).unwrap());
    let mut rng = SecureRng::insecure_from_seed(42);
    let c = Cardinality::new(8, 3);
    for (directions, calls) in [
        (Directions::Bases, 5),
        (Directions::Sampled { count: 20 }, 5),
        (Directions::Sequential, 15),
    ] {
        let options = ContinuousGreedy::new()
            .with_steps(5)
            .with_directions(directions);
        let run = continuous_greedy_run(&ext, &c, &options, &budget, &mut rng).unwrap();
        let s = &run.solution;
        assert_eq!(s.algorithm, "continuous-greedy");
        assert_eq!(s.selector, "em");
        assert_eq!(s.planned_rounds, calls);
        assert_eq!(s.rounds.len(), calls);
        assert_eq!(s.elements.len(), 3);
        assert_eq!(run.bases.len(), 5);
        assert!(run.bases.iter().all(|b| b.len() == 3));
        assert_eq!(s.values.len(), 3);
        assert_eq!(s.value, f.evaluate(&s.elements));
        assert_eq!(s.gain_evaluations, 5 * 8);
        let eps0 = s.budget_split.as_ref().unwrap().per_round_epsilon;
        assert!(s.rounds.iter().all(|r| r.cost
            == PrivacyCost::BoundedRange {
                epsilon: Epsilon::new(eps0).unwrap()
            }));
        // Base score sensitivity r·λ = 3, or λ = 1 per sequential pick.
        let lambda = if directions == Directions::Sequential {
            1.0
        } else {
            3.0
        };
        assert!(s.rounds.iter().all(|r| r.sensitivity.get() == lambda));
        let g = s.guarantee.unwrap();
        assert!(g.epsilon <= 1.0 && g.delta <= 1e-6);
        let basic = s.guarantees.iter().find(|g| g.rule == Rule::Basic).unwrap();
        assert!((basic.epsilon - calls as f64 * eps0).abs() < 1e-9);
        assert!(run.point.iter().sum::<f64>() <= 3.0 + 1e-12);
    }
}

#[test]
fn default_steps_are_rank_squared_and_zero_rank_touches_nothing() {
    let f = small_instance();
    let ext = f.multilinear().unwrap();
    let mut rng = SecureRng::insecure_from_seed(43);
    let per_round = Procedure::private(
        SelectorKind::Exponential,
        Budget::per_round(0.1, 0.0, 0.0).unwrap(),
    );
    let run = continuous_greedy_run(
        &ext,
        &Cardinality::new(8, 3),
        &ContinuousGreedy::new(),
        &per_round,
        &mut rng,
    )
    .unwrap();
    assert_eq!(run.steps, 9);
    let g = run.solution.guarantee.unwrap();
    assert!((g.epsilon - 0.9).abs() < 1e-9, "{g:?}"); // basic: 9 × 0.1, the best for 9 calls at δ = 0
    let empty = continuous_greedy(
        &ext,
        &Cardinality::new(8, 0),
        &ContinuousGreedy::new(),
        &per_round,
        &mut rng,
    )
    .unwrap();
    assert!(empty.elements.is_empty() && empty.rounds.is_empty() && empty.guarantee.is_none());
}

#[test]
fn continuous_greedy_rejects_what_it_cannot_do() {
    let f = small_instance();
    let ext = f.multilinear().unwrap();
    let mut rng = SecureRng::insecure_from_seed(44);
    let em = Procedure::private(SelectorKind::Exponential, Budget::total(1.0, 1e-6).unwrap());
    let c = Cardinality::new(8, 2);
    let zero = ContinuousGreedy::new().with_steps(0);
    assert!(continuous_greedy(&ext, &c, &zero, &em, &mut rng).is_err());
    let lmm = Procedure::private(SelectorKind::LargeMargin, Budget::total(1.0, 1e-6).unwrap());
    assert!(continuous_greedy(&ext, &c, &ContinuousGreedy::new(), &lmm, &mut rng).is_err());
    let edges: Vec<(usize, usize)> = (0..8).map(|i| (i % 4, (i + 1) % 5)).collect();
    let graphic = Matroid::Graphic(Graphic::new(5, edges).unwrap());
    let bases = ContinuousGreedy::new().with_directions(Directions::Bases);
    assert!(continuous_greedy(&ext, &graphic, &bases, &em, &mut rng).is_err());
    // …but auto (sequential) works there.
    let auto = ContinuousGreedy::new().with_steps(3);
    let s = continuous_greedy(&ext, &graphic, &auto, &em, &mut rng).unwrap();
    assert!(graphic.is_independent(&s.elements));
    assert!(continuous_greedy(&ext, &Cardinality::new(9, 2), &auto, &em, &mut rng).is_err());
}

#[test]
fn sampled_gradient_drives_the_continuous_greedy() {
    let f = small_instance();
    let est = SampledGradient::new(&f, 30).unwrap();
    let mut rng = SecureRng::insecure_from_seed(45);
    let options = ContinuousGreedy::new().with_steps(4);
    let run = continuous_greedy_run(
        &est,
        &Cardinality::new(8, 2),
        &options,
        &Procedure::private(SelectorKind::Exponential, Budget::total(2.0, 1e-6).unwrap()),
        &mut rng,
    )
    .unwrap();
    assert_eq!(run.gradient_method, "sampled");
    assert!(run.multilinear_value.is_none());
    assert_eq!(run.solution.gain_evaluations, 4 * 30 * 8);
    // Sensitivity of a base score: r · Σ_j λ / m = 2 · 1 (λ = 1 per sample, averaged).
    assert!(
        run.solution
            .rounds
            .iter()
            .all(|r| r.sensitivity.get() == 2.0)
    );
    assert!(run.gradient_error.unwrap().per_range > 0.0);
}

// ---------------------------------------------------------------------------------------
// Privacy audit of one step.
// ---------------------------------------------------------------------------------------

/// One continuous-greedy step on `sims`: the exact base mechanism on the closed-form
/// gradient at x, as `continuous_greedy` runs it (sensitivity r·K), with `divide` to break it.
fn one_step(
    rng: &mut SecureRng,
    sims: &[f64],
    x: &[f64],
    epsilon: f64,
    divide: u128,
) -> Result<Vec<usize>> {
    let records = sims.len() / 4;
    let f = FacilityLocation::from_similarities(records, 4, sims)?;
    let g = f.multilinear()?.gradient(x, rng)?;
    let c = Cardinality::new(4, 2);
    let blocks = c.uniform_blocks().unwrap();
    let s = g.sensitivity_units * 2 / divide;
    exponential_base(rng, &blocks, &g.units, Epsilon::new(epsilon)?, s)
}

#[test]
fn one_continuous_greedy_step_passes_a_privacy_audit() {
    // Replace-one neighbours: one record is similar to candidates 0 and 1 in D and to 2 and 3
    // in D′, next to a public-looking background record. At x = 0 the score of {0, 1} drops by
    // r·λ = 2 from D to D′ and that of {2, 3} rises by 2; the exact loss of this step is ε/2 = 0.5 (the
    // EM's factor 2 absorbs the normaliser), and 2ε if the sensitivity is cut to a quarter.
    let d = vec![0.1, 0.1, 0.1, 0.1, 1.0, 1.0, 0.0, 0.0];
    let d_prime = vec![0.1, 0.1, 0.1, 0.1, 0.0, 0.0, 1.0, 1.0];
    let x = [0.0; 4];
    let epsilon = 1.0;
    let config = AuditConfig::new(200_000);
    let mut rng = SecureRng::insecure_from_seed(51);
    let honest = |rng: &mut SecureRng, sims: &Vec<f64>| one_step(rng, sims, &x, epsilon, 1);
    let report = audit(honest, &d, &d_prime, &config, &mut rng).unwrap();
    // False alarm ≤ 1e-6 (the harness's confidence).
    assert!(
        !report.violates(epsilon),
        "ε_lower = {}",
        report.epsilon_lower
    );
    assert!(
        report.epsilon_lower > 0.35,
        "the audit should see most of the 0.5: {}",
        report.epsilon_lower
    );
    // The same step with a quarter of the sensitivity is refuted.
    let broken = |rng: &mut SecureRng, sims: &Vec<f64>| one_step(rng, sims, &x, epsilon, 4);
    let report = audit(broken, &d, &d_prime, &config, &mut rng).unwrap();
    assert!(
        report.violates(epsilon),
        "ε_lower = {}",
        report.epsilon_lower
    );
}
