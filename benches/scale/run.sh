#!/usr/bin/env bash
# Distributed private facility location at scale (issue: 10^8 records on this machine), and
# the scaling curve on 10^7 records. Not run in CI (minutes, 1.6 GB of data).
#
#   benches/scale/run.sh WORKDIR [N] [PROCESSES...]
#   e.g. benches/scale/run.sh /work/scale 100000000 2
#        benches/scale/run.sh /work/scale 10000000 1 2 4
#
# For each process count P: P local processes × 1 worker (RAYON_NUM_THREADS=1 each, so P
# processes share the cores as P workers would), k = 10, 100 candidates, from 16 Parquet
# parts; wall time and peak RSS of every process by /usr/bin/time -v; a run with k = 1 too,
# to separate reading from the rounds. First the machine's limit: one core's tight loop of
# the same distance (benches/distance_limit.rs), in the same run.
set -euo pipefail
cd "$(dirname "$0")/../.."
work="$1"; n="${2:-100000000}"; shift 2 || true
counts=("${@:-2}")
cargo build --release -p disguise-cli >/dev/null 2>&1
bin="$PWD/target/release/disguise"
data="$work/n$n"
[ -d "$data/points" ] || "$bin" generate points --n "$n" --parts 16 --candidates 100 --out "$data" --format parquet --seed 1
[ -n "${SKIP_LIMIT:-}" ] || cargo bench -p disguise --bench distance_limit 2>/dev/null | grep "^{"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# With several processes, k = 10 runs twice more: links in the clear and encrypted with a
# cluster key (the cost of authentication and encryption), alternated.
key="$work/cluster.key"
[ -f "$key" ] || "$bin" cluster key --out "$key"
for p in "${counts[@]}"; do
  runs=("1 plain" "10 plain")
  [ "$p" -gt 1 ] && runs+=("10 keyed" "10 plain" "10 keyed")
  for run in "${runs[@]}"; do
    read -r k mode <<<"$run"
    hosts="$work/hosts-$p.txt"; : > "$hosts"
    for _ in $(seq "$p"); do echo "127.0.0.1:$(free_port)" >> "$hosts"; done
    args=(select --points "$data/points" --candidates "$data/candidates.csv" --x x --y y --k "$k"
          --epsilon 1 --seed 1 --format json --hosts "$hosts" --timeout 600 --workers 1)
    [ "$mode" = keyed ] && args+=(--cluster-key "$key")
    for i in $(seq 1 $((p - 1))); do
      RAYON_NUM_THREADS=1 /usr/bin/time -v "$bin" "${args[@]}" --process "$i" >/dev/null 2>"$work/time-$p-$k-$i.txt" &
    done
    RAYON_NUM_THREADS=1 /usr/bin/time -v "$bin" "${args[@]}" --process 0 >"$work/out-$p-$k.json" 2>"$work/time-$p-$k-0.txt"
    wait
    wall=$(grep "Elapsed" "$work/time-$p-$k-0.txt" | awk '{print $NF}')
    rss=$(grep -h "Maximum resident" "$work"/time-"$p"-"$k"-*.txt | awk '{print $NF}' | sort -n | tail -1)
    sel=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['selected'])" "$work/out-$p-$k.json")
    echo "{\"n\":$n,\"processes\":$p,\"k\":$k,\"links\":\"$mode\",\"wall\":\"$wall\",\"max_rss_kb\":$rss,\"selected\":\"$sel\"}"
  done
done
