#!/usr/bin/env bash
# Side-by-side comparison with the peer libraries of ../shared/PEERS.md, alternating
# ours / peers / ours / peers ... in one run, then reporting medians and ratios.
#
#   python3 -m venv /tmp/peers-venv && /tmp/peers-venv/bin/pip install apricot-select \
#       submodlib-py opendp "scikit-learn<1.6" diffprivlib numpy
#   PEERS_PYTHON=/tmp/peers-venv/bin/python benches/peers/run.sh [ROUNDS]
#
# The script (re)installs ./python into that venv itself, with the `bench` feature.
#
# Three contestants per workload, alternated: the Rust binary (`disguise-*`: our best
# algorithm for the job, and `disguise-rust-front-door`, the private selection through
# `disguise::task`), disguise from Python (`disguise-python-*`, the same front-door call
# through the package: the ratio to the Rust front door is the Python overhead), and the peers.
# The overhead is also measured paired: the package's call and the Rust front door's (timed
# in Rust by the package's `bench` hooks) alternated call by call in one Python process, the
# median of the per-pair ratios — on this 2-core VM a sub-millisecond parallel call switches
# between a fast and a slow mode every few milliseconds, so only a pair sees the same machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${PEERS_PYTHON:-python3}"
ROUNDS="${1:-5}"
DIR="${PEERS_DIR:-/tmp/disguise-peers}"
OUT="$DIR/results.jsonl"
cargo build --release --bench peers -p disguise >/dev/null 2>&1 || cargo bench -p disguise --bench peers --no-run
BIN=$(ls -t target/release/deps/peers-* | grep -v '\.d$' | head -1)
[ -f "$DIR/fl_100k_points.f64" ] || "$BIN" prepare "$DIR"
# The package with its benchmark hooks (feature `bench`: the Rust front door timed in Rust,
# for the paired measurement of disguise_python.py), built as a user's `pip install` is.
MATURIN_PEP517_ARGS="--features bench" CARGO_TARGET_DIR="$PWD/target" \
  "$PY" -m pip install -q --no-deps --force-reinstall ./python
: > "$OUT"
for w in ${PEERS_WORKLOADS:-em_1m em_1m_winner fl_10k fl_100k fl_2k_self}; do
  for _ in $(seq "$ROUNDS"); do
    "$BIN" run "$w" "$DIR" 1 >> "$OUT"
    "$PY" benches/peers/disguise_python.py "$w" "$DIR" 1 >> "$OUT"
    "$PY" benches/peers/peers.py "$w" "$DIR" 1 >> "$OUT"
  done
done
"$PY" - "$OUT" <<'PYEOF'
import json, statistics, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1])]
by = collections.defaultdict(list); sel = {}
for r in rows:
    by[(r["workload"], r["impl"])].append(r["seconds"]); sel[(r["workload"], r["impl"])] = r["selected"]
for w in dict.fromkeys(r["workload"] for r in rows):
    ours = [k for k in by if k[0] == w and k[1].startswith("disguise") and "front-door" not in k[1] and "python" not in k[1]][0]
    m0 = statistics.median(by[ours])
    print(f"{w}: {ours[1]} median {m0*1e3:.2f} ms")
    for k in by:
        if k[0] == w and k != ours and not k[1].startswith("disguise"):
            m = statistics.median(by[k])
            same = "same set" if sorted(sel[k]) == sorted(sel[ours]) else "random output" if w.startswith("em") else "DIFFERENT set"
            print(f"    {k[1]:<28} median {m*1e3:10.2f} ms   ratio peer/ours {m/m0:8.2f}x   ({same})")
    # The Python overhead: the package against the same call in Rust.
    rust = (w, "disguise-rust-front-door")
    paired = [r for r in rows if r["workload"] == w and r["impl"] == "disguise-python-paired"]
    if paired:
        ratios = sorted(r["ratio"] for r in paired)
        print(f"    {'paired in one process':<28} median {statistics.median(r['seconds'] for r in paired)*1e3:10.2f} ms"
              f"   vs Rust {statistics.median(r['rust_seconds'] for r in paired)*1e3:.2f} ms: "
              f"Python overhead {100*(statistics.median(ratios)-1):+6.1f}%"
              f"   (runs {100*(ratios[0]-1):+.1f}% … {100*(ratios[-1]-1):+.1f}%)")
    for k in by:
        if k[0] == w and k[1].startswith("disguise-python") and k[1] != "disguise-python-paired":
            m, r = statistics.median(by[k]), statistics.median(by[rust])
            same = "same set" if sel[k] == sel[rust] else "random output" if w.startswith("em") else "DIFFERENT set"
            print(f"    {k[1]:<28} median {m*1e3:10.2f} ms   vs {rust[1]} {r*1e3:.2f} ms: "
                  f"Python overhead {100*(m/r-1):+6.1f}%   ({same})")
PYEOF
