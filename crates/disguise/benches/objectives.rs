//! Objective benchmarks: facility-location gains for one round and a whole non-private greedy
//! (k = 10), on the paper's instance size (10,000 records × 33 candidates) and on
//! 1,000,000 × 1,000, plus the other objectives on moderate sizes.
//!
//! Run: `cargo bench -p disguise --bench objectives` (add `-- quick` to skip the largest
//! instance). Plain `std::time`; each line prints the best and median of several repetitions
//! and the throughput in record × candidate pairs per second.

use disguise::SecureRng;
use disguise::objective::{
    Coverage, FacilityLocation, Metric, MutualInformation, Normalizer, SetFunction,
};
use rand_core::Rng;
use std::time::{Duration, Instant};
use timing::time;

#[path = "support/timing.rs"]
mod timing;

/// A uniform f64 in [0, 1) from the seeded generator (benchmarks need no security).
fn unit(rng: &mut SecureRng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `n` points uniform in the Manhattan lat/lon box.
fn points(n: usize, rng: &mut SecureRng) -> Vec<[f64; 2]> {
    (0..n)
        .map(|_| [40.70 + 0.18 * unit(rng), -74.02 + 0.09 * unit(rng)])
        .collect()
}

/// Prints a timing, with the throughput `work / best time` in `unit`s per second if given.
fn report(label: &str, work: Option<(f64, &str)>, (best, median): (Duration, Duration)) {
    let rate = work.map_or(String::new(), |(w, unit)| {
        format!("{:>8.3} G {unit}/s", w / best.as_secs_f64() / 1e9)
    });
    println!(
        "{label:<52} best {:>10.3} ms  median {:>10.3} ms  {rate}",
        best.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3,
    );
}

/// The non-private greedy: k rounds of bulk gains over the unchosen candidates and an argmax.
/// Returns the chosen elements and the number of gain evaluations (record × candidate pairs
/// are this times n).
fn greedy<F: SetFunction>(f: &F, k: usize) -> (Vec<usize>, usize) {
    let mut state = f.empty();
    let mut chosen = Vec::new();
    let mut remaining: Vec<usize> = (0..f.ground_size()).collect();
    let mut gains = vec![0.0; remaining.len()];
    let mut evaluations = 0;
    for _ in 0..k.min(f.ground_size()) {
        let g = &mut gains[..remaining.len()];
        f.gains(&state, &remaining, g);
        evaluations += remaining.len();
        let best = (0..g.len())
            .max_by(|&a, &b| g[a].total_cmp(&g[b]).then(b.cmp(&a)))
            .expect("non-empty");
        let v = remaining.remove(best);
        f.insert(&mut state, v);
        chosen.push(v);
    }
    (chosen, evaluations)
}

fn facility_location(n: usize, m: usize, metric: Metric, reps: usize, rng: &mut SecureRng) {
    let records = points(n, rng);
    let candidates = points(m, rng);
    let norm = match metric {
        Metric::Haversine => Normalizer::CandidateBoundingBox,
        _ => Normalizer::Fixed(0.266),
    };
    let t = Instant::now();
    let f = FacilityLocation::new(metric, &records, &candidates, norm).expect("valid instance");
    let build = t.elapsed();
    let name = format!("fl {} {n}×{m}", metric.name());
    println!("{name:<52} build {:>9.3} ms", build.as_secs_f64() * 1e3);
    let all: Vec<usize> = (0..m).collect();
    let mut out = vec![0.0; m];
    let empty = f.empty();
    report(
        &format!("{name} gains, round 1"),
        Some(((n * m) as f64, "pairs")),
        time(reps, || f.gains(&empty, &all, &mut out)),
    );
    let one = [m / 2];
    let mut one_out = [0.0];
    report(
        &format!("{name} gains, 1 candidate"),
        Some((n as f64, "pairs")),
        time(reps, || f.gains(&empty, &one, &mut one_out)),
    );
    let mut evals = 0;
    let timing = time(reps, || {
        let (chosen, e) = greedy(&f, 10);
        evals = e;
        chosen
    });
    report(
        &format!("{name} greedy k = 10 (whole run)"),
        Some(((evals * n) as f64, "pairs")),
        timing,
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let mut rng = SecureRng::insecure_from_seed(2017);
    println!("threads: {}", rayon::current_num_threads());

    // The paper's instance (Mitrovic et al. 2017 §6.1): 10,000 pickups, 33 locations.
    facility_location(10_000, 33, Metric::Manhattan, 51, &mut rng);
    facility_location(10_000, 33, Metric::Haversine, 51, &mut rng);
    if !quick {
        facility_location(1_000_000, 1_000, Metric::Manhattan, 3, &mut rng);
        facility_location(1_000_000, 1_000, Metric::Euclidean, 1, &mut rng);
        facility_location(1_000_000, 1_000, Metric::Haversine, 1, &mut rng);
    }

    // Weighted coverage: 1,000,000 records each covering 5 of 10,000 candidates.
    let (n, m) = (1_000_000, 10_000);
    let covers: Vec<Vec<usize>> = (0..n)
        .map(|_| {
            (0..5)
                .map(|_| (rng.next_u64() % m as u64) as usize)
                .collect()
        })
        .collect();
    let weights: Vec<f64> = (0..n).map(|_| unit(&mut rng)).collect();
    let cov = Coverage::weighted(m, &covers, &weights, 1.0).expect("valid coverage");
    let mut evals = 0;
    let timing = time(5, || {
        let (c, e) = greedy(&cov, 10);
        evals = e;
        c
    });
    report(
        &format!("coverage {n}×{m} (5 per record) greedy k = 10"),
        // Each gain evaluation reads |R(v)| ≈ 5n/m incidences.
        Some(((evals * 5 * n / m) as f64, "incidences")),
        timing,
    );

    // Mutual information: the paper's NHANES shape, 23,876 records × 23 binary features.
    let (n, m) = (23_876, 23);
    let labels: Vec<u32> = (0..n).map(|_| rng.next_u32() % 2).collect();
    let features: Vec<Vec<u32>> = (0..m)
        .map(|j| {
            labels
                .iter()
                .map(|&y| {
                    let flip = unit(&mut rng) < 0.1 + 0.4 * j as f64 / m as f64;
                    y ^ u32::from(flip)
                })
                .collect()
        })
        .collect();
    let mi = MutualInformation::new(&features, &vec![2; m], &labels, 2).expect("valid table");
    for k in [5, 10, 15] {
        let timing = time(3, || greedy(&mi, k).0);
        report(
            &format!("mutual information {n}×{m} greedy k = {k}"),
            None,
            timing,
        );
    }
}
