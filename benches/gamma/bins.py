"""How numeric columns are cut (EXPERIMENTS.md, "Bins for the columns released"): Adult or Iris, 5-fold
stratified splits × 2 repeats, fixed seeds, `disguise histogram` on the 4 training folds with
each setting. AUC: logistic regression trained on the synthetic rows, tested on the held-out
fold with its numeric values cut into the release's own bins (binary: the last class against
the rest); class TV and mean 2-way TV
against the training rows, also at the release's bins.

    python benches/gamma/bins.py BINARY EPSILON bins [iris]    # --bin-rule paper vs released
    python benches/gamma/bins.py BINARY EPSILON rules [iris]   # the γ rules, released bins
(in a venv with numpy, pandas, scikit-learn; DISGUISE_DATA as for the tests)"""
import itertools, json, subprocess, sys, tomllib
import numpy as np, pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import OneHotEncoder
import os
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("DISGUISE_DATA", f"{ROOT}/../shared/data")
WORK = os.environ.get("GAMMA_WORK", "/tmp")
BIN = sys.argv[1]; EPS = float(sys.argv[2]); MODE = sys.argv[3]
NAME = sys.argv[4] if len(sys.argv) > 4 else "adult"
S = f"{ROOT}/crates/disguise/schemas/{NAME}.schema.toml"
SETTINGS = {
    "bins": [("paper", ["--bin-rule", "paper"]), ("released", ["--bin-rule", "released"]),
             *([("released-k4", ["--bin-rule", "released", "--k", "4"])] if NAME == "adult" else [])],
    "rules": [(r, ["--bin-rule", "released", "--gamma-rule", r]) for r in ["paper", "surplus", "balanced"]],
}[MODE]
schema = tomllib.load(open(S, "rb"))
cols = [c["name"] for c in schema["columns"]]
num = {c["name"]: c for c in schema["columns"] if c["type"] == "numeric"}
FILES = {"adult": ["uci_adult/adult.data", "uci_adult/adult.test"], "iris": ["uci_iris/iris.data"]}[NAME]
df = pd.concat([pd.read_csv(f"{DATA}/{f}", header=None, names=cols, dtype=str, skipinitialspace=True, comment="|")
                for f in FILES])
df = df.dropna()
T = schema["target"]
df[T] = df[T].str.rstrip(".")
POS = sorted(df[T].unique())[-1]
def tobins(d, col, count):
    lo, hi = num[col]["bounds"]; w = (hi - lo) / count
    x = d[col].astype(float).clip(lo, hi)
    i = np.minimum(((x - lo) / w).astype(int), count - 1)
    return (lo + (i + 0.5) * w).round(6).astype(str)
def tv(a, b):
    pa = a.value_counts(normalize=True); pb = b.value_counts(normalize=True)
    return 0.5 * pa.subtract(pb, fill_value=0).abs().sum()
out = []
for r in range(2):
    for fold, (tr, te) in enumerate(StratifiedKFold(5, shuffle=True, random_state=2026 + r).split(df, df[T])):
        train, test = df.iloc[tr], df.iloc[te]
        train.to_csv(f"{WORK}/bins-train.csv", header=False, index=False)
        for rule, extra in SETTINGS:
            rep = json.loads(subprocess.run([BIN, "histogram", "--data", f"{WORK}/bins-train.csv", "--schema", S,
                "--epsilon", str(EPS), "--seed", str(1000 + 5 * r + fold), *extra, "--format", "json",
                "--out", f"{WORK}/bins-syn.csv"], capture_output=True, text=True, check=True).stdout)
            syn = pd.read_csv(f"{WORK}/bins-syn.csv", dtype=str, keep_default_na=False)
            keep = rep["columns"]; preds = [c for c in keep if c != T]
            # the release's bins: count from the report's domains is not printed; infer from bounds
            # and the midpoints' spacing (every bin width is (hi-lo)/count).
            dtr, dte, dsy = train[keep].copy(), test[keep].copy(), syn[keep].copy()
            for c in preds:
                if c in num:
                    lo, hi = num[c]["bounds"]
                    mids = sorted(set(float(v) for v in syn[c]))
                    # smallest spacing between distinct midpoints is one bin width
                    w = min(np.diff(mids)) if len(mids) > 1 else (hi - lo)
                    count = max(1, round((hi - lo) / w))
                    dtr[c] = tobins(train, c, count); dte[c] = tobins(test, c, count)
                    dsy[c] = tobins(syn, c, count)
            enc = OneHotEncoder(handle_unknown="ignore").fit(pd.concat([dsy[preds], dte[preds]]))
            y = (dsy[T] == POS).astype(int)
            if y.nunique() < 2:
                auc = 0.5
            else:
                m = LogisticRegression(max_iter=2000).fit(enc.transform(dsy[preds]), y)
                auc = roc_auc_score((dte[T] == POS).astype(int), m.predict_proba(enc.transform(dte[preds]))[:, 1])
            two = np.mean([tv(dsy[a] + "|" + dsy[b], dtr[a] + "|" + dtr[b]) for a, b in itertools.combinations(keep, 2)])
            res = dict(rule=rule, fold=5 * r + fold, k=rep["k"], attrs="/".join(rep["attributes"]), gamma=rep["gamma"],
                       cls=tv(dsy[T], dtr[T]), two=two, auc=auc)
            print(json.dumps(res), flush=True); out.append(res)
d = pd.DataFrame(out)
print(d.groupby("rule")[["k", "gamma", "cls", "two", "auc"]].agg(["mean", "std"]).round(3).to_string())
p = d.pivot(index="fold", columns="rule", values="auc")
a, b = ("released", "paper") if MODE == "bins" else ("balanced", "surplus")
diff = p[a] - p[b]
print("AUC %s - %s: %.3f ± %.3f (95%% CI half-width)" % (a, b, diff.mean(), 2.262 * diff.std() / np.sqrt(len(diff))))
