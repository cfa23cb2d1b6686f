#!/usr/bin/env bash
# Side-by-side comparison with the peer libraries of ../shared/PEERS.md, alternating
# ours / peers / ours / peers ... in one run, then reporting medians and ratios.
#
#   python3 -m venv /tmp/peers-venv && /tmp/peers-venv/bin/pip install apricot-select \
#       submodlib-py opendp "scikit-learn<1.6" diffprivlib numpy ./python
#   PEERS_PYTHON=/tmp/peers-venv/bin/python benches/peers/run.sh [ROUNDS]
#
# Three contestants per workload, alternated: the Rust binary (`disguise-*`: our best
# algorithm for the job, and `disguise-rust-front-door`, the private selection through
# `disguise::task`), disguise from Python (`disguise-python-*`, the same front-door call
# through the package: the ratio to the Rust front door is the Python overhead), and the peers.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${PEERS_PYTHON:-python3}"
ROUNDS="${1:-5}"
DIR="${PEERS_DIR:-/tmp/disguise-peers}"
OUT="$DIR/results.jsonl"
cargo build --release --bench peers -p disguise >/dev/null 2>&1 || cargo bench -p disguise --bench peers --no-run
BIN=$(ls -t target/release/deps/peers-* | grep -v '\.d$' | head -1)
[ -f "$DIR/fl_100k_points.f64" ] || "$BIN" prepare "$DIR"
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
    for k in by:
        if k[0] == w and k[1].startswith("disguise-python"):
            m, r = statistics.median(by[k]), statistics.median(by[rust])
            same = "same set" if sel[k] == sel[rust] else "random output" if w.startswith("em") else "DIFFERENT set"
            print(f"    {k[1]:<28} median {m*1e3:10.2f} ms   vs {rust[1]} {r*1e3:.2f} ms: "
                  f"Python overhead {100*(m/r-1):+6.1f}%   ({same})")
PYEOF
