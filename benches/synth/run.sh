#!/usr/bin/env bash
# The synthetic-data comparison of EXPERIMENTS.md ("Whole-table synthetic data"):
#   python3 -m venv /tmp/sn-venv && /tmp/sn-venv/bin/pip install smartnoise-synth pandas scikit-learn matplotlib
#   SYNTH_PYTHON=/tmp/sn-venv/bin/python benches/synth/run.sh [SIDES...]   (default: disguise mst aim)
# Results append to $SYNTH_WORK/results.jsonl (default /tmp/disguise-synth); a side's run that
# is already there is skipped, so the script can be stopped and resumed. MST takes about a
# minute per run, AIM up to tens of minutes on Adult and Landsat (SYNTH_TIMEOUT, default 1800 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${SYNTH_PYTHON:-python3}"
export SYNTH_WORK="${SYNTH_WORK:-/tmp/disguise-synth}"
mkdir -p "$SYNTH_WORK"
touch "$SYNTH_WORK/results.jsonl"
SIDES=("${@:-disguise mst aim}")
[[ " ${SIDES[*]} " == *" disguise "* ]] && cargo build --release -p disguise-cli >/dev/null
for side in ${SIDES[*]}; do
  for rep in 0 1 2 3 4; do
    for data in iris adult landsat; do
      for eps in 0.1 1.0 3.0; do
        key="\"side\": \"$side\", \"data\": \"$data\", \"epsilon\": $eps, \"rep\": $rep,"
        grep -qF "$key" "$SYNTH_WORK/results.jsonl" && continue
        "$PY" benches/synth/harness.py run "$side" "$data" "$eps" "$rep" || echo "failed: $side $data $eps $rep" >&2
      done
    done
  done
done
"$PY" benches/synth/harness.py report
