"""The peer libraries' side of the comparison (see run.sh and ../../../shared/PEERS.md).

Usage: peers.py WORKLOAD DIR REPS  -> one JSON line per run: {"impl","workload","seconds","selected"}
Workloads are the raw little-endian f64 files written by `cargo bench -p disguise --bench peers -- prepare DIR`.
Not used by the test suite; needs a venv with opendp, diffprivlib, submodlib-py, apricot-select, numpy.
"""
import json
import sys
import time

import numpy as np


def emit(impl, workload, seconds, selected):
    print(json.dumps({"impl": impl, "workload": workload, "seconds": seconds,
                      "selected": [int(s) for s in selected]}), flush=True)


def em(workload, d, reps):
    import opendp.prelude as dp
    from diffprivlib.mechanisms import Exponential
    dp.enable_features("contrib")
    name = "scores_1m.f64" if workload == "em_1m" else "scores_1m_winner.f64"
    scores = np.fromfile(f"{d}/{name}", dtype="<f8")
    as_list = scores.tolist()
    for _ in range(reps):
        # OpenDP: noisy max with Gumbel noise (zCDP output measure) = the exponential mechanism.
        # scale = 2*lambda/eps for eps = 1, lambda = 1 (weights exp(eps q / (2 lambda))).
        t = time.perf_counter()
        m = dp.m.make_noisy_max(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                                dp.linf_distance(T=float), dp.zero_concentrated_divergence(), scale=2.0)
        pick = m(as_list)
        emit("opendp-noisy-max-gumbel", workload, time.perf_counter() - t, [pick])
        # diffprivlib: float exponential mechanism, including set-up (as PEERS.md measured it).
        t = time.perf_counter()
        pick = Exponential(epsilon=1.0, sensitivity=1.0, utility=as_list).randomise()
        emit("diffprivlib-exponential", workload, time.perf_counter() - t, [pick])


def numpy_greedy(points, cands, k):
    # Plain numpy greedy over the dense similarity, as PEERS.md's baseline.
    sim = np.maximum(0.0, 1.0 - (np.abs(points[:, None, 0] - cands[None, :, 0])
                                 + np.abs(points[:, None, 1] - cands[None, :, 1])) / 0.266)
    best = np.zeros(len(points))
    chosen = []
    for _ in range(k):
        gains = np.maximum(sim - best[:, None], 0.0).sum(axis=0)
        gains[chosen] = -1.0
        j = int(np.argmax(gains))
        chosen.append(j)
        best = np.maximum(best, sim[:, j])
    return chosen


def fl_self(workload, d, reps):
    # apricot selects among the records themselves: the first 2,000 pickups of the 10k sample
    # are both records and candidates, with the same similarity as ours, given precomputed.
    from apricot import FacilityLocationSelection
    points = np.fromfile(f"{d}/fl_10k_points.f64", dtype="<f8").reshape(-1, 2)[:2000]
    for _ in range(reps):
        t = time.perf_counter()
        sim = np.maximum(0.0, 1.0 - (np.abs(points[:, None, 0] - points[None, :, 0])
                                     + np.abs(points[:, None, 1] - points[None, :, 1])) / 0.266)
        sel = FacilityLocationSelection(10, metric="precomputed", optimizer="lazy").fit(sim)
        emit("apricot-lazy", workload, time.perf_counter() - t, sel.ranking)


def fl(workload, d, reps):
    if workload == "fl_2k_self":
        return fl_self(workload, d, reps)
    from submodlib import FacilityLocationFunction
    k = 3 if workload == "fl_10k" else 10
    points = np.fromfile(f"{d}/{workload}_points.f64", dtype="<f8").reshape(-1, 2)
    cands = np.fromfile(f"{d}/{workload}_candidates.f64", dtype="<f8").reshape(-1, 2)
    for _ in range(reps):
        # submodlib: dense similarity built in numpy, then lazy greedy (the time includes both,
        # as ours includes building the objective).
        t = time.perf_counter()
        sim = np.maximum(0.0, 1.0 - (np.abs(points[:, None, 0] - cands[None, :, 0])
                                     + np.abs(points[:, None, 1] - cands[None, :, 1])) / 0.266)
        obj = FacilityLocationFunction(n=len(cands), mode="dense", sijs=sim, separate_rep=True,
                                       n_rep=len(points))
        res = obj.maximize(budget=k, optimizer="LazyGreedy", stopIfZeroGain=False,
                           stopIfNegativeGain=False, verbose=False, show_progress=False)
        emit("submodlib-lazy", workload, time.perf_counter() - t, [r[0] for r in res])
        if workload == "fl_10k":
            t = time.perf_counter()
            chosen = numpy_greedy(points, cands, k)
            emit("numpy-greedy", workload, time.perf_counter() - t, chosen)


if __name__ == "__main__":
    workload, d, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    (em if workload.startswith("em") else fl)(workload, d, reps)
