#!/usr/bin/env bash
# Peak memory of the readers: /usr/bin/time -v "Maximum resident set size" of each command
# on a generated wide table (10^6 rows, 50 columns, 4 used) and on UCI Adult repeated 20
# times. Not run in CI.
#
# usage: benches/memory/run.sh WORKDIR BINARY [BINARY ...]
#   e.g. benches/memory/run.sh /tmp/mem target/release/disguise /tmp/old/disguise
# Needs $DISGUISE_DATA (for uci_adult/adult.data) and python3.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
schemas="$here/../../crates/disguise/schemas"
work="$1"; shift
mkdir -p "$work"
cd "$work"
[ -f wide.csv ] || python3 "$here/wide.py" 1000000 wide.csv cand.csv
if [ ! -f adult20.data ]; then
    for _ in $(seq 20); do cat "${DISGUISE_DATA:?set DISGUISE_DATA}/uci_adult/adult.data"; done > adult20.data
fi
cat > schema4.toml <<'TOML'
target = "label"
columns = [
    { name = "label", type = "categorical", levels = ["0", "1"] },
    { name = "c01", type = "categorical", levels = ["0", "1"] },
    { name = "c02", type = "categorical", levels = ["0", "1", "2"] },
    { name = "c03", type = "categorical", levels = ["0", "1", "2", "3"] },
]
TOML
exclude="id,lat,lon,$(seq -f 'c%02g' 4 46 | paste -sd,)"
peak() { # prints "KB seconds" of one run
    /usr/bin/time -v "$@" > /dev/null 2> time.txt || { cat time.txt >&2; exit 1; }
    local kb wall
    kb=$(grep 'Maximum resident' time.txt | awk '{print $NF}')
    wall=$(grep 'Elapsed (wall' time.txt | awk '{print $NF}')
    echo "$kb $wall"
}
for bin in "$@"; do
    echo "== $bin"
    echo "features (MI)      $(peak "$bin" features --data wide.csv --label label --exclude "$exclude" --k 2 --epsilon 1 --seed 1 --quiet)"
    echo "features (discern) $(peak "$bin" features --data wide.csv --label label --exclude "$exclude" --k 2 --epsilon 1 --seed 1 --quiet --objective discernibility)"
    echo "histogram wide     $(peak "$bin" histogram --data wide.csv --schema schema4.toml --epsilon 1 --k 2 --seed 1 --out h.csv)"
    echo "hypothesis wide    $(peak "$bin" hypothesis --data wide.csv --schema schema4.toml --epsilon 1 --delta 1e-6 --seed 1 --quiet)"
    echo "select wide        $(peak "$bin" select --points wide.csv --candidates cand.csv --k 3 --epsilon 1 --seed 1 --quiet)"
    echo "histogram adult20  $(peak "$bin" histogram --data adult20.data --schema "$schemas/adult.schema.toml" --epsilon 1 --seed 1 --out a.csv)"
    echo "histogram adult20 --k 3 $(peak "$bin" histogram --data adult20.data --schema "$schemas/adult.schema.toml" --epsilon 1 --k 3 --seed 1 --out a.csv)"
done
