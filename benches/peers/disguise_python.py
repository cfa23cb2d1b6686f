"""disguise from Python: the same jobs as the Rust binary's `disguise-em-exact` and
`disguise-rust-front-door` lines (see run.sh), through the Python package, timed the same way
(including building the objective), after untimed warm-up calls for at least 0.5 s and 5
calls as the Rust side does (numpy's OpenBLAS thread spins for the first ~0.1 s of a fresh
process and would otherwise be charged to the package);
each line is the median of 21 timed calls, as on the Rust side.
Prints one JSON line per run:
{"impl","workload","seconds","selected"}.

With the package built with the `bench` feature (run.sh does so), also the paired
measurement: the package's call alternated call by call with the Rust front door's, timed in
Rust by the feature's hook, in this one process ({"impl": "disguise-python-paired", ...,
"rust_seconds", "ratio"}: the median of the per-pair ratios).

Usage: disguise_python.py WORKLOAD DIR REPS (needs `pip install ./python` in the venv).
"""
import json
import sys
import time
import warnings

import numpy as np

import disguise


def emit(impl, workload, seconds, selected):
    print(json.dumps({"impl": impl, "workload": workload, "seconds": seconds,
                      "selected": [int(s) for s in selected]}), flush=True)


STEADY_CALLS = 21
WARM_UP_CALLS = 5
WARM_UP_SECONDS = 0.5


def warm_up(f):
    start, calls = time.perf_counter(), 0
    while calls < WARM_UP_CALLS or time.perf_counter() - start < WARM_UP_SECONDS:
        f()
        calls += 1


def median_of(f):
    times, last = [], None
    for _ in range(STEADY_CALLS):
        t = time.perf_counter()
        last = f()
        times.append(time.perf_counter() - t)
    return sorted(times)[STEADY_CALLS // 2], last


PAIRS = 201  # at most, and at least MIN_PAIRS: as many as fit in PAIR_SECONDS
MIN_PAIRS = 21
PAIR_SECONDS = 3.0


def paired(workload, python_call, rust_seconds):
    """The package's call and the same call in Rust (`rust_seconds()`, timed in Rust by the
    `bench` feature's hook), alternated call by call in this process (the order swapped every
    pair); emits the medians of both and the median of the per-pair ratios. The VM's speed
    for a sub-millisecond parallel call switches between two modes every few milliseconds:
    a pair shares its mode, two processes need not."""
    warm_up(lambda: (python_call(), rust_seconds()))
    ratios, ours, theirs = [], [], []
    start = time.perf_counter()
    for i in range(PAIRS):
        if i >= MIN_PAIRS and time.perf_counter() - start > PAIR_SECONDS:
            break
        if i % 2:
            r = rust_seconds()
            t = time.perf_counter()
            python_call()
            p = time.perf_counter() - t
        else:
            t = time.perf_counter()
            python_call()
            p = time.perf_counter() - t
            r = rust_seconds()
        ours.append(p)
        theirs.append(r)
        ratios.append(p / r)
    med = lambda xs: sorted(xs)[len(xs) // 2]
    print(json.dumps({"impl": "disguise-python-paired", "workload": workload,
                      "seconds": med(ours), "rust_seconds": med(theirs),
                      "ratio": med(ratios), "selected": []}), flush=True)


def main():
    workload, d, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    warnings.simplefilter("ignore")  # the seed, records as candidates: measured, not used
    if workload.startswith("em_1m"):
        name = "scores_1m.f64" if workload == "em_1m" else "scores_1m_winner.f64"
        scores = np.fromfile(f"{d}/{name}", dtype="<f8")
        # Seeded as the Rust contestant is: the same seed, the same sampling work.
        warm_up(lambda: disguise.exponential(scores, epsilon=1.0, sensitivity=1.0, seed=1))
        for _ in range(reps):
            seconds, pick = median_of(
                lambda: disguise.exponential(scores, epsilon=1.0, sensitivity=1.0, seed=1))
            emit("disguise-python-em", workload, seconds, [pick])
        if hasattr(disguise._disguise, "_bench_exponential_seconds"):
            # Seeded on both sides: the exact sampler's work depends on the draw.
            for _ in range(reps):
                paired(workload,
                       lambda: disguise.exponential(scores, epsilon=1.0, sensitivity=1.0, seed=1),
                       lambda: disguise._disguise._bench_exponential_seconds(scores, 1)[0])
        return
    if workload == "fl_2k_self":
        points = np.fromfile(f"{d}/fl_10k_points.f64", dtype="<f8").reshape(-1, 2)[:2000]
        cands, k = None, 10
    else:
        points = np.fromfile(f"{d}/{workload}_points.f64", dtype="<f8").reshape(-1, 2)
        cands = np.fromfile(f"{d}/{workload}_candidates.f64", dtype="<f8").reshape(-1, 2)
        k = 3 if workload == "fl_10k" else 10

    def call():
        return disguise.FacilityLocation(k, epsilon=1.0, metric="manhattan", normalizer=0.266,
                                         seed=1).fit(points, candidates=cands)

    warm_up(call)
    for _ in range(reps):
        seconds, sel = median_of(call)
        emit("disguise-python-front-door", workload, seconds, sel.ranking_)
    if hasattr(disguise._disguise, "_bench_select_seconds"):
        # Unseeded on both sides, as users run it: the greedy's work does not depend on the
        # draw, and the seed's warning is not part of a private release.
        same = points if cands is None else cands
        for _ in range(reps):
            paired(workload,
                   lambda: disguise.FacilityLocation(k, epsilon=1.0, metric="manhattan",
                                                     normalizer=0.266).fit(points, candidates=cands),
                   lambda: disguise._disguise._bench_select_seconds(points, same, k)[0])


if __name__ == "__main__":
    main()
