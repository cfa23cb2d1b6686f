#!/usr/bin/env bash
# The cost of private bin edges in a `synth` run (BENCHMARKS.md, "Private bin edges"): the
# shipped Adult schema (six numeric columns cut at private quantiles) against the same schema
# with the edges of one such run given as public `edges` (the same domains, no quantiles to
# draw), N runs each in turn (A B A B ...), secure generator (a new tree every run, so the
# fit's cost averages out), wall and peak RSS by /usr/bin/time; prints the medians and the
# median of the pairwise ratios.
#   benches/synth/edges_cost.sh [N] (DISGUISE_BIN, DISGUISE_DATA as the tests)
set -euo pipefail
N=${1:-25}
BIN=${DISGUISE_BIN:-target/release/disguise}
DATA=${DISGUISE_DATA:-../shared/data}/uci_adult/adult.data
SCHEMA=crates/disguise/schemas/adult.schema.toml
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The public twin: the edges one run released, written into the schema.
"$BIN" synth --data "$DATA" --schema "$SCHEMA" --epsilon 1 --delta 1e-9 --out "$WORK/x.csv" \
    --format json --quiet > "$WORK/r.json"
python3 - "$WORK/r.json" "$SCHEMA" "$WORK/public.toml" <<'PY'
import json, re, sys
edges = {c["column"]: c["edges"] for c in json.load(open(sys.argv[1]))["edges"]["columns"]}
out, name = [], None
for line in open(sys.argv[2]).read().split("\n"):
    m = re.match(r'name = "(.*)"', line)
    name = m.group(1) if m else name
    out.append(line)
    if line.startswith("integer = true") and name in edges:
        out.append("edges = [" + ", ".join(edges[name]) + "]")
open(sys.argv[3], "w").write("\n".join(out))
PY
# Wall time in nanoseconds around the process (`time`'s %e has 10 ms steps), peak RSS from it.
run() {
    local start end
    start=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$WORK/t" "$BIN" synth --data "$DATA" --schema "$1" \
        --epsilon 1 --delta 1e-9 --out "$WORK/o.csv" --quiet > /dev/null
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000 )) $(cat "$WORK/t")"
}
for _ in $(seq "$N"); do
    echo "A $(run "$SCHEMA")"
    echo "B $(run "$WORK/public.toml")"
done > "$WORK/times"
python3 - "$WORK/times" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
a = [(float(w) / 1e6, int(m)) for s, w, m in rows if s == "A"]
b = [(float(w) / 1e6, int(m)) for s, w, m in rows if s == "B"]
med = lambda v: statistics.median(v)
print(f"private edges: wall {med([w for w, _ in a]):.3f} s, peak {med([m for _, m in a]) / 1024:.1f} MiB")
print(f"public edges:  wall {med([w for w, _ in b]):.3f} s, peak {med([m for _, m in b]) / 1024:.1f} MiB")
print(f"ratio A/B, pair by pair: median {med([x[0] / y[0] for x, y in zip(a, b)]):.3f}")
PY
