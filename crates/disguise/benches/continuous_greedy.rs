//! Continuous-greedy and k-submodular benchmarks.
//!
//! 1. On the Uber instance (10,000 Manhattan pickups × 100 candidates on a 10 × 10 grid,
//!    Manhattan distance, k = 10): gain evaluations and wall time of the private discrete
//!    greedy (Mitrovic et al. Algorithm 2) against the private continuous greedy (closed-form
//!    gradient, exact base sampler) with T = 10 and T = r² = 100, and with a sampled gradient
//!    (m = 20, T = 10); plus the base sampler alone.
//! 2. Algorithm 4 (subsampled k-submodular greedy) against Algorithm 3 on k-type facility
//!    location (3 types) over the same pickups and 1,000 candidates: evaluations measured
//!    against the formula Σ_j k·m_j and the bound k·(n·H_r·ln(r/γ) + r).
//!
//! Run: `cargo bench -p disguise --bench continuous_greedy` (add `-- quick` for fewer
//! repetitions). Uses `$DISGUISE_DATA/uber_nyc_apr14/pickups_manhattan_10k.csv`, or a seeded
//! synthetic stand-in if the data is absent. Plain `std::time`: best and median of the
//! repetitions.

use disguise::SecureRng;
use disguise::constraint::Cardinality;
use disguise::data::{locate_for_test, read_columns};
use disguise::maximize::MatroidBases;
use disguise::maximize::{
    Budget, ContinuousGreedy, Procedure, continuous_greedy, exponential_base, greedy,
    k_submodular_greedy, k_submodular_sample_size, k_submodular_subsample_greedy,
};
use disguise::objective::{
    ClosedForm, FacilityLocation, GradientOracle, Metric, Normalizer, SampledGradient,
    k_type_facility_location,
};
use disguise::privacy::Epsilon;
use disguise::select::SelectorKind;
use rand_core::Rng;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn unit(rng: &mut SecureRng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (Duration, Duration, T) {
    let mut last = None;
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            let out = black_box(f());
            let e = t.elapsed();
            last = Some(out);
            e
        })
        .collect();
    times.sort();
    (times[0], times[reps / 2], last.expect("reps ≥ 1"))
}

fn report(label: &str, (best, median): (Duration, Duration), evaluations: u64) {
    println!(
        "{label:<58} best {:>10.3} ms  median {:>10.3} ms  {evaluations:>12} evaluations",
        best.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3,
    );
}

/// The pickups (lat, lon), or a seeded uniform stand-in in the same box.
fn pickups() -> Vec<[f64; 2]> {
    if let Ok(Some(path)) = locate_for_test("uber_nyc_apr14/pickups_manhattan_10k.csv")
        && let Ok(cols) = read_columns(&path, &["lat", "lon"], None)
    {
        return cols.numeric[0]
            .iter()
            .zip(&cols.numeric[1])
            .map(|(&a, &b)| [a, b])
            .collect();
    }
    println!("(synthetic pickups: the Uber file was not found)");
    let mut rng = SecureRng::insecure_from_seed(1);
    (0..10_000)
        .map(|_| {
            [
                40.70 + 0.18 * unit(&mut rng),
                -74.02 + 0.09 * unit(&mut rng),
            ]
        })
        .collect()
}

fn grid(side: usize) -> Vec<[f64; 2]> {
    (0..side * side)
        .map(|i| {
            let (a, b) = (i / side, i % side);
            [
                40.70 + 0.18 * (a as f64 + 0.5) / side as f64,
                -74.02 + 0.09 * (b as f64 + 0.5) / side as f64,
            ]
        })
        .collect()
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let reps = if quick { 2 } else { 5 };
    let records = pickups();
    let candidates = grid(10);
    let f = FacilityLocation::new(
        Metric::Manhattan,
        &records,
        &candidates,
        Normalizer::Fixed(0.27),
    )
    .unwrap();
    let k = 10;
    let c = Cardinality::new(candidates.len(), k);
    let budget =
        || Procedure::private(SelectorKind::Exponential, Budget::total(0.1, 1e-6).unwrap());
    println!(
        "facility location: {} records × {} candidates, k = {k}, total ε = 0.1",
        records.len(),
        candidates.len()
    );

    let mut rng = SecureRng::insecure_from_seed(2);
    let (b, m, s) = time(reps, || greedy(&f, &c, &budget(), &mut rng).unwrap());
    report(
        "private greedy (Mitrovic Alg. 2)",
        (b, m),
        s.gain_evaluations,
    );

    let ext = f.multilinear().unwrap();
    let (b, m, _) = time(reps, || f.multilinear().unwrap());
    report("closed-form precomputation (sort per record)", (b, m), 0);
    let x = vec![0.1; candidates.len()];
    let (b, m, g) = time(reps, || ext.gradient(&x, &mut rng).unwrap());
    report("one closed-form gradient", (b, m), g.evaluations);
    let blocks = c.uniform_blocks().unwrap();
    let eps = Epsilon::new(0.01).unwrap();
    let s = g.sensitivity_units * k as u128;
    let (b, m, _) = time(reps * 20, || {
        exponential_base(&mut rng, &blocks, &g.units, eps, s).unwrap()
    });
    report("one exact base sample (ε₀ = 0.01)", (b, m), 0);

    for steps in [10usize, 100] {
        let options = ContinuousGreedy::new().with_steps(steps);
        let (b, m, s) = time(reps, || {
            continuous_greedy(&ext, &c, &options, &budget(), &mut rng).unwrap()
        });
        report(
            &format!("private continuous greedy, closed form, T = {steps}"),
            (b, m),
            s.gain_evaluations,
        );
    }
    let sampled = SampledGradient::new(&f, 20).unwrap();
    let options = ContinuousGreedy::new().with_steps(10);
    let (b, m, s) = time(reps.min(2), || {
        continuous_greedy(&sampled, &c, &options, &budget(), &mut rng).unwrap()
    });
    report(
        "private continuous greedy, sampled m = 20, T = 10",
        (b, m),
        s.gain_evaluations,
    );

    // --- k-submodular: Algorithm 3 vs Algorithm 4.
    let many = grid(32); // 1024 candidates
    let types: Vec<usize> = (0..records.len()).map(|i| i % 3).collect();
    let kf = k_type_facility_location(
        Metric::Manhattan,
        &records,
        &types,
        3,
        &many,
        Normalizer::Fixed(0.27),
    )
    .unwrap();
    let (n, r, gamma) = (many.len(), 10usize, 0.1);
    let kc = Cardinality::new(n, r);
    println!("\nk-type facility location: 3 types, {n} candidates, r = {r}, γ = {gamma}");
    let (b, m, full) = time(reps.min(3), || {
        k_submodular_greedy(&kf, &kc, &budget(), &mut rng).unwrap()
    });
    report(
        "Algorithm 3 (k-submodular greedy)",
        (b, m),
        full.solution.gain_evaluations,
    );
    let (b, m, sub) = time(reps.min(3), || {
        k_submodular_subsample_greedy(&kf, &kc, gamma, &budget(), &mut rng).unwrap()
    });
    report(
        "Algorithm 4 (subsampled)",
        (b, m),
        sub.solution.gain_evaluations,
    );
    let formula: usize = (0..r)
        .map(|j| 3 * k_submodular_sample_size(n - j, j, r, gamma))
        .sum();
    let harmonic: f64 = (1..=r).map(|i| 1.0 / i as f64).sum();
    let bound = 3.0 * (n as f64 * harmonic * (r as f64 / gamma).ln() + r as f64);
    println!(
        "Algorithm 4 formula Σ_j k·m_j = {formula}, bound k(n·H_r·ln(r/γ) + r) = {bound:.0}, \
         Algorithm 3 k·Σ_j (n − j) = {}; values: Alg. 3 {:.1}, Alg. 4 {:.1}",
        (0..r).map(|j| 3 * (n - j)).sum::<usize>(),
        full.solution.value,
        sub.solution.value,
    );
    assert_eq!(sub.solution.gain_evaluations, formula as u64);
}
