#!/usr/bin/env bash
# One 2-process run of the 10^8 × 100, k = 10 selection of run.sh, with the binary BIN: for a
# paired comparison of two builds, run in turn and timed whole:
#
#   for i in 1 2 3 4; do for b in NEW OLD; do
#     /usr/bin/time -f "$b %e s %U+%S cpu %M KB" benches/scale/one_run.sh $b DATA; done; done
#
# DATA is run.sh's data directory (WORKDIR/n100000000). Free ports each time; process 0's
# report goes to /tmp/one-run-$(basename BIN).json, to compare the selections.
set -euo pipefail
bin="$1"; data="$2"
hosts=$(mktemp /tmp/hosts-XXXXXX.txt)
trap 'rm -f "$hosts"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
for _ in 1 2; do echo "127.0.0.1:$(free_port)" >> "$hosts"; done
args=(select --points "$data/points" --candidates "$data/candidates.csv" --x x --y y --k 10
      --epsilon 1 --seed 1 --format json --hosts "$hosts" --timeout 600 --workers 1)
RAYON_NUM_THREADS=1 "$bin" "${args[@]}" --process 1 >/dev/null 2>&1 &
RAYON_NUM_THREADS=1 "$bin" "${args[@]}" --process 0 >"/tmp/one-run-$(basename "$bin").json" 2>/dev/null
wait
