//! Wall-clock timing shared by the bench binaries (included with `#[path]`).

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Runs `f` `reps` times and returns (best, median).
pub fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed()
        })
        .collect();
    times.sort();
    (times[0], times[reps / 2])
}
