//! Throughput of the private selection mechanisms (plain `std::time`, no harness).
//!
//! Run all cases:            `cargo bench -p disguise --bench select`
//! Run cases matching "em/": `cargo bench -p disguise --bench select -- em/`
//!
//! Each case is warmed up, then timed over several repetitions (each repetition runs the
//! case enough times to last ≥ 50 ms); the table reports the median time of one selection
//! and candidates processed per second (n / median). Two clocks are reported: wall time,
//! and the thread's on-CPU time from `/proc/thread-self/schedstat` (Linux; the same as
//! wall time on an idle machine, but not inflated when other processes compete for the
//! cores). Candidates/s uses the CPU time where available.
//!
//! To add a mechanism, append [`Case`]s in [`cases`] (one `Case` per mechanism × input).

use disguise::SecureRng;
use disguise::privacy::{Delta, Epsilon, Sensitivity};
use disguise::select::{Exponential, Selector, SelectorKind};
use rand_core::Rng;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Builds a case's scores.
type ScoreGen = Box<dyn Fn() -> Vec<f64>>;
/// Runs one selection on the scores and returns the chosen index.
type RunFn = Box<dyn Fn(&[f64], &mut SecureRng) -> usize>;

/// A named benchmark case: a score generator and one selection on those scores.
struct Case {
    /// `mechanism/input/n`, e.g. `em/tight/1e5`.
    name: String,
    /// Number of candidates.
    n: usize,
    /// Builds the scores (called once per case, so large inputs are not all held at once).
    scores: ScoreGen,
    /// One selection; returns the chosen index.
    run: RunFn,
}

/// Uniform scores in [0, 100) from a fixed seed.
fn uniform_scores(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SecureRng::insecure_from_seed(seed);
    (0..n)
        .map(|_| (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) * 100.0)
        .collect()
}

/// The three standard inputs: `winner` (uniform in [0, 100) plus one score 10⁶ above the
/// rest), `tight` (uniform in [0, 100): many near-ties at ε = λ = 1) and `equal`.
fn inputs(n: usize) -> Vec<(&'static str, ScoreGen)> {
    vec![
        (
            "winner",
            Box::new(move || {
                let mut s = uniform_scores(n, 1);
                s[n / 2] = 1e6 + 100.0;
                s
            }),
        ),
        ("tight", Box::new(move || uniform_scores(n, 2))),
        ("equal", Box::new(move || vec![1.0; n])),
    ]
}

const SIZES: [(usize, &str); 3] = [(1_000, "1e3"), (100_000, "1e5"), (10_000_000, "1e7")];

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    // Exact exponential mechanism, ε = 1, λ = 1.
    for (n, size) in SIZES {
        for (input, scores) in inputs(n) {
            cases.push(Case {
                name: format!("em/{input}/{size}"),
                n,
                scores,
                run: Box::new(|scores, rng| {
                    let em = Exponential::new(Epsilon::new(1.0).unwrap());
                    em.select(scores, Sensitivity::new(1.0).unwrap(), rng)
                        .unwrap()
                        .index
                }),
            });
        }
    }
    // Large margin mechanisms (ε = 1, δ = 1e-6) and report noisy max (ε = 1), λ = 1. The LMMs
    // order the scores lazily; on `winner` the margin search stops at ℓ = 1 (O(n)); on
    // `tight` (spread 100 < G₁ ≈ 430) and `equal` there is no margin and it runs to ℓ = n
    // (full sort, n Laplace draws, the exponential mechanism over everything): the worst
    // case.
    for mechanism in [
        SelectorKind::LargeMargin,
        SelectorKind::LargeMarginChaudhuri,
        SelectorKind::ReportNoisyMax,
    ] {
        for (n, size) in SIZES {
            for (input, scores) in inputs(n) {
                let selector = mechanism
                    .build(Epsilon::new(1.0).unwrap(), Delta::new(1e-6).unwrap())
                    .unwrap();
                cases.push(Case {
                    name: format!("{mechanism}/{input}/{size}"),
                    n,
                    scores,
                    run: Box::new(move |scores, rng| {
                        selector
                            .select(scores, Sensitivity::new(1.0).unwrap(), rng)
                            .unwrap()
                            .index
                    }),
                });
            }
        }
    }
    cases
}

/// Nanoseconds this thread has spent on a CPU (Linux), if available.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Median (wall, CPU) seconds per call of `case`; CPU is `None` off Linux.
fn measure(case: &Case, scores: &[f64], rng: &mut SecureRng) -> (f64, Option<f64>) {
    const TARGET: Duration = Duration::from_millis(50);
    const REPS: usize = 7;
    // Warm-up, and calibrate the number of calls per repetition.
    let start = Instant::now();
    let mut calls = 0u64;
    while calls < 3 || start.elapsed() < TARGET {
        black_box((case.run)(black_box(scores), rng));
        calls += 1;
    }
    let per_call = start.elapsed().as_secs_f64() / calls as f64;
    let iters = ((TARGET.as_secs_f64() / per_call).ceil() as u64).max(1);
    let mut wall = Vec::with_capacity(REPS);
    let mut cpu = Vec::with_capacity(REPS);
    for _ in 0..REPS {
        let c = cpu_ns();
        let t = Instant::now();
        for _ in 0..iters {
            black_box((case.run)(black_box(scores), rng));
        }
        wall.push(t.elapsed().as_secs_f64() / iters as f64);
        if let (Some(c0), Some(c1)) = (c, cpu_ns()) {
            cpu.push((c1 - c0) as f64 * 1e-9 / iters as f64);
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let cpu = (cpu.len() == REPS).then(|| median(cpu));
    (median(wall), cpu)
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is a name filter.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let mut rng = SecureRng::insecure_from_seed(2024);
    println!("| case | candidates | median wall time | median CPU time | candidates/s |");
    println!("|---|---:|---:|---:|---:|");
    for case in cases() {
        if !filters.is_empty() && !filters.iter().any(|f| case.name.contains(f.as_str())) {
            continue;
        }
        let scores = (case.scores)();
        assert_eq!(scores.len(), case.n);
        let (wall, cpu) = measure(&case, &scores, &mut rng);
        println!(
            "| {} | {} | {} | {} | {:.3e} |",
            case.name,
            case.n,
            format_time(wall),
            cpu.map_or("n/a".to_string(), format_time),
            case.n as f64 / cpu.unwrap_or(wall)
        );
    }
}

fn format_time(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.3} s")
    } else if seconds >= 1e-3 {
        format!("{:.3} ms", seconds * 1e3)
    } else {
        format!("{:.3} µs", seconds * 1e6)
    }
}
