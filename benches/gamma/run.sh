#!/usr/bin/env bash
# The γ-rule measurement of EXPERIMENTS.md ("The budget split"), about 25 minutes on 2 cores:
#   python3 -m venv /tmp/gamma-venv && /tmp/gamma-venv/bin/pip install numpy pandas scikit-learn
#   GAMMA_PYTHON=/tmp/gamma-venv/bin/python benches/gamma/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${GAMMA_PYTHON:-python3}"
export GAMMA_DATA="${GAMMA_DATA:-/tmp/disguise-gamma}"
cargo build --release -p disguise-cli >/dev/null
[ -f "$GAMMA_DATA/splice.csv" ] || GAMMA_PYTHON="$PY" benches/gamma/prepare.sh "$GAMMA_DATA"
for d in adult car splice landsat4 iris; do
    "$PY" benches/gamma/harness.py "$d" > "$GAMMA_DATA/$d.jsonl"
done
"$PY" benches/gamma/compare.py "$GAMMA_DATA"/*.jsonl
