"""The Landsat check of EXPERIMENTS.md ("Numeric columns on raw values"): how close `synth`
gets when its numeric columns are cut at the *exact* (non-private) quantiles — the targets of
the private edges, k/b and the tails 1/(2b), 1 − 1/(2b) — given as public `edges`, so that
the whole budget goes to the marginals. A yardstick for the private edges, NOT a private
release (the edges are read off the data).

    python benches/synth/exact_edges.py DATASET BINS EPSILON   # after raw.py made its files
"""
import json, os, subprocess, sys, tomllib
import numpy as np
import pandas as pd
from scipy.stats import ks_2samp

WORK = os.environ.get("SYNTH_WORK", "/tmp/disguise-synth")
BIN = os.environ.get("DISGUISE_BIN", "target/release/disguise")


def main(data, bins, epsilon):
    schema = tomllib.load(open(f"{WORK}/{data}-raw.schema.toml", "rb"))
    names = [c["name"] for c in schema["columns"]]
    train = f"{WORK}/raw-{data}-0-train.csv"
    real = pd.read_csv(train, header=None, names=names)
    targets = [1 / (2 * bins)] + [k / bins for k in range(1, bins)] + [1 - 1 / (2 * bins)]
    lines = [f'has_header = false\ndelimiter = ","\ntarget = "{schema["target"]}"\n']
    for c in schema["columns"]:
        if c["type"] == "numeric":
            q = np.quantile(real[c["name"]], targets, method="inverted_cdf")
            c = dict(c, edges=sorted(set(float(v) for v in q)))
        lines.append("[[columns]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in c.items()))
    exact = f"{WORK}/{data}-exact-edges.toml"
    open(exact, "w").write("".join(lines))
    ks = []
    for seed in (1, 2, 3):
        out = f"{WORK}/{data}-exact-{seed}.csv"
        subprocess.run([BIN, "synth", "--data", train, "--schema", exact, "--epsilon", str(epsilon),
                        "--delta", "1e-9", "--out", out, "--seed", str(seed), "--quiet"],
                       check=True, capture_output=True)
        syn = pd.read_csv(out)
        ks.append(np.mean([ks_2samp(real[c["name"]], syn[c["name"]]).statistic
                           for c in schema["columns"] if c["type"] == "numeric"]))
    print(f"{data} b = {bins} ε = {epsilon}: mean KS with exact quantile edges {np.round(ks, 3)}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
