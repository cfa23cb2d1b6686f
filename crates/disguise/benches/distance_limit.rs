//! The machine's limit for the distributed facility-location benchmark (benches/scale): how
//! many Manhattan record–candidate evaluations one core makes per second in a tight loop of
//! the same distance (f32, min with the normaliser, summed), next to the library's kernel
//! (`FacilityLocation::gains`, one thread). Prints one JSON line.
//!
//!     cargo bench -p disguise --bench distance_limit

use disguise::objective::{FacilityLocation, Metric, Normalizer, SetFunction};
use std::hint::black_box;
use std::time::Instant;

const RECORDS: usize = 1 << 20;
const CANDIDATES: usize = 100;
const REPEATS: usize = 10;

/// Σ_i min(1, |x_i − cx| + |y_i − cy|) for each candidate: the distance, clipped and summed,
/// with nothing else (no state, no integer units).
fn tight(xs: &[f32], ys: &[f32], cands: &[[f32; 2]]) -> f32 {
    let mut total = 0.0f32;
    for &[cx, cy] in cands {
        // Eight partial sums so the loop vectorises (float addition is not associative).
        let mut acc = [0.0f32; 8];
        for (xc, yc) in xs.chunks_exact(8).zip(ys.chunks_exact(8)) {
            for k in 0..8 {
                acc[k] += ((xc[k] - cx).abs() + (yc[k] - cy).abs()).min(1.0);
            }
        }
        total += acc.iter().sum::<f32>();
    }
    total
}

fn main() {
    let points = disguise::data::ClusteredPoints::new(1);
    let pts: Vec<[f64; 2]> = (0..RECORDS as u64).map(|i| points.point(i)).collect();
    let cands: Vec<[f64; 2]> = points.candidates(CANDIDATES);
    let scale = 1.0 / 50.0;
    let xs: Vec<f32> = pts.iter().map(|p| (p[0] * scale) as f32).collect();
    let ys: Vec<f32> = pts.iter().map(|p| (p[1] * scale) as f32).collect();
    let c32: Vec<[f32; 2]> = cands
        .iter()
        .map(|c| [(c[0] * scale) as f32, (c[1] * scale) as f32])
        .collect();
    let evals = (RECORDS * CANDIDATES * REPEATS) as f64;
    black_box(tight(&xs, &ys, &c32));
    let t = Instant::now();
    for _ in 0..REPEATS {
        black_box(tight(black_box(&xs), black_box(&ys), black_box(&c32)));
    }
    let limit = evals / t.elapsed().as_secs_f64();

    let f = FacilityLocation::new(Metric::Manhattan, &pts, &cands, Normalizer::Fixed(50.0))
        .expect("objective");
    let all: Vec<usize> = (0..CANDIDATES).collect();
    let mut out = vec![0.0; CANDIDATES];
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let kernel = one.install(|| {
        let state = f.empty();
        f.gains(&state, &all, &mut out);
        let t = Instant::now();
        for _ in 0..REPEATS {
            f.gains(black_box(&state), &all, &mut out);
        }
        evals / t.elapsed().as_secs_f64()
    });
    println!(
        "{{\"tight_loop_evals_per_s_one_core\":{limit:.4e},\"kernel_evals_per_s_one_core\":{kernel:.4e},\"records\":{RECORDS},\"candidates\":{CANDIDATES}}}"
    );
}
