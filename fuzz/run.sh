#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for a set number of inputs and prints a table:
#
#   fuzz/run.sh [RUNS] [TARGET...]        (default: 100000 inputs, every target)
#
# cargo fuzz (libFuzzer) needs nightly compiler flags: the stable toolchain is asked for them
# with RUSTC_BOOTSTRAP=1. Targets are built without a sanitizer (the code is safe Rust: the
# fuzzers look for panics, aborts, hangs and runaway memory, which need none). The `cli`
# target runs the `disguise` binary of the main workspace, built here first (test profile:
# optimised, with overflow checks, and shared with `cargo test`).
#
# Corpora grow under fuzz/corpus/<target> (not committed), seeded from fuzz/seeds/<target>.
# An input that crashes a target is saved under fuzz/artifacts/<target>/; minimise it with
#   RUSTC_BOOTSTRAP=1 cargo fuzz tmin -s none <target> <file>
# and keep it as a regression file in crates/disguise/tests/fuzz_regressions/<target>/.
set -euo pipefail
cd "$(dirname "$0")"

RUNS="${1:-100000}"
shift || true
export RUSTC_BOOTSTRAP=1
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list)
fi

cargo fuzz build -s none
for t in "${targets[@]}"; do
  if [ "$t" = cli ]; then
    (cd .. && cargo build -q --profile test -p disguise-cli --bin disguise)
    export DISGUISE_BIN="$PWD/../target/debug/disguise"
  fi
done

# Inputs are written to files: keep them in memory when a RAM disk is there.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
mkdir -p logs
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
dirty="$(git status --porcelain -- ../crates ../fuzz 2>/dev/null | grep -q . && echo '+changes' || true)"
printf '%-16s %12s %10s %10s %9s %6s\n' target inputs seconds "inputs/s" failures slow
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "seeds/$t" "artifacts/$t"
  extra=()
  [ "$t" = schema ] && extra=(../crates/disguise/schemas)
  log="logs/$t.log"
  before=$(find "artifacts/$t" -type f | wc -l)
  start=$(date +%s.%N)
  set +e
  cargo fuzz run -s none "$t" "corpus/$t" "seeds/$t" "${extra[@]}" -- \
    -runs="$RUNS" -max_len=4096 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
    >"$log" 2>&1
  rc=$?
  set -e
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  inputs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  inputs=${inputs:-0}
  after=$(find "artifacts/$t" -type f | wc -l)
  failures=$((after - before))
  # A crash stops libFuzzer (exit code != 0); the cli target records its failures as files.
  if [ "$rc" -ne 0 ] && [ "$failures" -eq 0 ]; then failures=1; fi
  slow=$(grep -c '^cli: slow' "$log" || true)
  rate=$(awk -v n="$inputs" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
  printf '%-16s %12s %10.0f %10s %9s %6s\n' "$t" "$inputs" "$secs" "$rate" "$failures" "$slow"
done
echo "commit $commit$dirty; logs in fuzz/logs/, failing inputs in fuzz/artifacts/"
