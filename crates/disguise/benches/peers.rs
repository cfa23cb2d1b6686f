//! Our side of the peer comparison (see `benches/peers/run.sh`, which alternates this binary
//! with the Python peers of `../shared/PEERS.md` and reports ratios).
//!
//! * `cargo bench -p disguise --bench peers -- prepare DIR` writes the standard workloads as
//!   raw little-endian f64 files (built deterministically from `$DISGUISE_DATA`):
//!   `scores_1m.f64`, `scores_1m_winner.f64`, `fl_10k_points.f64` + `fl_10k_candidates.f64`
//!   (the 10k Manhattan sample × the 33 landmarks), `fl_100k_points.f64` +
//!   `fl_100k_candidates.f64` (PEERS.md's `fl_100k`: every ⌊N/100000⌋-th in-box pickup,
//!   first 100,000, × the 40 × 25 grid).
//! * `cargo bench -p disguise --bench peers -- run WORKLOAD DIR REPS` times our implementation
//!   and prints one JSON line per run: `{"impl","workload","seconds","selected"}`.

use disguise::SecureRng;
use disguise::constraint::Cardinality;
use disguise::data::{locate, read_columns};
use disguise::maximize::{lazy_greedy, standard_greedy};
use disguise::objective::{FacilityLocation, Metric, Normalizer};
use disguise::prelude::*;
use rand_core::Rng;
use std::path::Path;
use std::time::Instant;

fn write_f64(path: &Path, values: &[f64]) {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes).expect("write workload");
}

fn read_f64(path: &Path) -> Vec<f64> {
    let bytes = std::fs::read(path).expect("read workload (run `prepare` first)");
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

fn pairs(flat: &[f64]) -> Vec<[f64; 2]> {
    flat.chunks_exact(2).map(|c| [c[0], c[1]]).collect()
}

fn linspace(a: f64, b: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| a + (b - a) * i as f64 / (n - 1) as f64)
        .collect()
}

fn prepare(dir: &Path) {
    std::fs::create_dir_all(dir).expect("create dir");
    // scores_1m: 10^6 scores uniform in [0, 100) (a public, seeded workload), and a variant
    // with one clear winner.
    let mut rng = SecureRng::insecure_from_seed(1_000_000);
    let scores: Vec<f64> = (0..1_000_000)
        .map(|_| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 100.0)
        .collect();
    write_f64(&dir.join("scores_1m.f64"), &scores);
    let mut winner = scores.clone();
    winner[123_456] = 1e6;
    write_f64(&dir.join("scores_1m_winner.f64"), &winner);

    let sample = locate("uber_nyc_apr14/pickups_manhattan_10k.csv").expect("data");
    let cols = read_columns(&sample, &["lat", "lon"], None).expect("sample");
    let pts: Vec<f64> = (0..cols.rows())
        .flat_map(|i| [cols.numeric[0][i], cols.numeric[1][i]])
        .collect();
    write_f64(&dir.join("fl_10k_points.f64"), &pts);
    let land = locate("manhattan_candidates/landmarks_33.csv").expect("data");
    let cols = read_columns(&land, &["lat", "lon"], None).expect("landmarks");
    let cands: Vec<f64> = (0..cols.rows())
        .flat_map(|i| [cols.numeric[0][i], cols.numeric[1][i]])
        .collect();
    write_f64(&dir.join("fl_10k_candidates.f64"), &cands);

    let full = locate("uber_nyc_apr14/uber-raw-data-apr14.csv").expect("data");
    let cols = read_columns(&full, &["Lat", "Lon"], None).expect("raw file");
    let inside: Vec<[f64; 2]> = (0..cols.rows())
        .map(|i| [cols.numeric[0][i], cols.numeric[1][i]])
        .filter(|p| (40.70..=40.88).contains(&p[0]) && (-74.02..=-73.91).contains(&p[1]))
        .collect();
    let step = inside.len() / 100_000;
    let pts: Vec<f64> = inside
        .iter()
        .step_by(step)
        .take(100_000)
        .flat_map(|p| *p)
        .collect();
    write_f64(&dir.join("fl_100k_points.f64"), &pts);
    let mut grid = Vec::new();
    for lat in linspace(40.70, 40.88, 40) {
        for lon in linspace(-74.02, -73.91, 25) {
            grid.extend([lat, lon]);
        }
    }
    write_f64(&dir.join("fl_100k_candidates.f64"), &grid);
    eprintln!(
        "prepared workloads in {} ({} in-box pickups, step {step})",
        dir.display(),
        inside.len()
    );
}

/// Timed calls per front-door measurement (after the warm-up): their median is the
/// measurement, so that a sub-millisecond call is not one noisy sample.
const STEADY_CALLS: usize = 21;

/// Untimed calls before a front-door measurement, for at least [`WARM_UP_SECONDS`] and at
/// least this many calls: caches, allocator and thread pool settle.
const WARM_UP_CALLS: usize = 5;

/// The warm-up's length in time, as criterion warms up by time: a fresh Python process has
/// numpy's OpenBLAS thread spinning for its first ~0.1 s (measured: calls run 0.37 instead of
/// 0.25 ms then), which a count of calls would charge to the package.
const WARM_UP_SECONDS: f64 = 0.5;

/// Calls `f` untimed for the warm-up.
fn warm_up<T>(mut f: impl FnMut() -> T) {
    let start = Instant::now();
    let mut calls = 0;
    while calls < WARM_UP_CALLS || start.elapsed().as_secs_f64() < WARM_UP_SECONDS {
        f();
        calls += 1;
    }
}

/// The median time of `calls` runs of `f`, and the last result.
fn median_of<T>(calls: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::with_capacity(calls);
    let mut last = None;
    for _ in 0..calls {
        let t = Instant::now();
        last = Some(f());
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    (times[calls / 2], last.expect("at least one call"))
}

/// The call a user of the front door makes (what the Python package calls): for the
/// facility-location workloads `Select` with the exponential mechanism at ε = 1, seeded so
/// that the Python contestant's choice can be compared; for the score workloads one
/// exponential mechanism built by name. Timed after untimed warm-up calls, as the Python
/// contestant is, so that both compare steady state (thread pools, first-call set-up).
fn front_door(workload: &str, dir: &Path) -> Option<(f64, Vec<usize>)> {
    if workload.starts_with("em_1m") {
        let file = if workload == "em_1m" {
            "scores_1m.f64"
        } else {
            "scores_1m_winner.f64"
        };
        let scores = read_f64(&dir.join(file));
        let call = || {
            let selector = disguise::select::SelectorKind::Exponential
                .build(Epsilon::new(1.0)?, disguise::privacy::Delta::ZERO)?;
            // Seeded as the Python contestant is: the exact sampler's running time is random,
            // and the same seed makes both do the same work.
            let mut rng = SecureRng::insecure_from_seed(1);
            selector.select(&scores, Sensitivity::new(1.0)?, &mut rng)
        };
        warm_up(|| call().expect("warm-up"));
        let (seconds, pick) = median_of(STEADY_CALLS, || call().expect("select"));
        return Some((seconds, vec![pick.index]));
    }
    let (points, cands, k) = match workload {
        "fl_10k" | "fl_100k" => (
            read_f64(&dir.join(format!("{workload}_points.f64"))),
            read_f64(&dir.join(format!("{workload}_candidates.f64"))),
            if workload == "fl_10k" { 3 } else { 10 },
        ),
        "fl_2k_self" => {
            let mut points = read_f64(&dir.join("fl_10k_points.f64"));
            points.truncate(4000);
            (points.clone(), points, 10)
        }
        _ => return None,
    };
    // The three-line front door a Rust user calls, report included (as the package's is).
    let (points, cands) = (pairs(&points), pairs(&cands));
    let call = || {
        let request = Select::new(k)
            .epsilon(1.0)
            .metric(Metric::Manhattan)
            .normalizer(0.266);
        request.run(&points, &cands, &mut SecureRng::insecure_from_seed(1))
    };
    warm_up(|| call().expect("warm-up"));
    let (seconds, report) = median_of(STEADY_CALLS, || call().expect("run"));
    Some((seconds, report.choice.selected.into_inner()))
}

fn run(workload: &str, dir: &Path, reps: usize) {
    for _ in 0..reps {
        if let Some((seconds, selected)) = front_door(workload, dir) {
            println!(
                "{{\"impl\":\"disguise-rust-front-door\",\"workload\":\"{workload}\",\"seconds\":{seconds},\"selected\":{selected:?}}}"
            );
        }
        let (name, seconds, selected): (&str, f64, Vec<usize>) = match workload {
            "em_1m" | "em_1m_winner" => {
                let file = if workload == "em_1m" {
                    "scores_1m.f64"
                } else {
                    "scores_1m_winner.f64"
                };
                let scores = read_f64(&dir.join(file));
                let mut rng = SecureRng::from_os().expect("os rng");
                let em = Exponential::new(Epsilon::new(1.0).expect("eps"));
                let lambda = Sensitivity::new(1.0).expect("lambda");
                let t = Instant::now();
                let pick = em.select(&scores, lambda, &mut rng).expect("select");
                (
                    "disguise-em-exact",
                    t.elapsed().as_secs_f64(),
                    vec![pick.index],
                )
            }
            "fl_10k" | "fl_100k" => {
                let k = if workload == "fl_10k" { 3 } else { 10 };
                let points = pairs(&read_f64(&dir.join(format!("{workload}_points.f64"))));
                let cands = pairs(&read_f64(&dir.join(format!("{workload}_candidates.f64"))));
                let t = Instant::now();
                let f = FacilityLocation::new(
                    Metric::Manhattan,
                    &points,
                    &cands,
                    Normalizer::Fixed(0.266),
                )
                .expect("objective");
                let c = Cardinality::new(cands.len(), k);
                let sol = if workload == "fl_10k" {
                    standard_greedy(&f, &c).expect("greedy")
                } else {
                    lazy_greedy(&f, &c).expect("greedy")
                };
                ("disguise-greedy", t.elapsed().as_secs_f64(), sol.elements)
            }
            "fl_2k_self" => {
                // Records are also the candidates (apricot's setting): the first 2,000 pickups.
                let mut points = pairs(&read_f64(&dir.join("fl_10k_points.f64")));
                points.truncate(2000);
                let t = Instant::now();
                let f = FacilityLocation::new(
                    Metric::Manhattan,
                    &points,
                    &points,
                    Normalizer::Fixed(0.266),
                )
                .expect("objective");
                let sol = lazy_greedy(&f, &Cardinality::new(points.len(), 10)).expect("greedy");
                ("disguise-greedy", t.elapsed().as_secs_f64(), sol.elements)
            }
            other => panic!("unknown workload {other}"),
        };
        println!(
            "{{\"impl\":\"{name}\",\"workload\":\"{workload}\",\"seconds\":{seconds},\"selected\":{selected:?}}}"
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args.first().map(String::as_str) {
        Some("prepare") => prepare(Path::new(&args[1])),
        Some("run") => run(
            &args[1],
            Path::new(&args[2]),
            args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5),
        ),
        _ => eprintln!(
            "usage: peers prepare DIR | peers run em_1m|em_1m_winner|fl_10k|fl_100k|fl_2k_self DIR [REPS] \
             (see benches/peers/run.sh)"
        ),
    }
}
