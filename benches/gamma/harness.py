"""The γ rules of `disguise histogram` measured side by side (EXPERIMENTS.md, "The budget split").

For every (data set, ε, rule) and each of 10 releases (5-fold stratified splits, 2 repeats,
fixed seeds): `disguise histogram --gamma-rule RULE --seed S` releases the 4 training folds;
the synthetic rows are scored against those training rows — class balance (total variation
distance of the target's distribution), 2-way distance (mean total variation distance over
the pairs of released columns), the share of synthetic rows in cells no training row is in —
and by train-on-synthetic AUC on the held-out fold (logistic regression on one-hot released
predictors; binary AUC, or macro one-vs-rest AUC).

Usage (in a venv with numpy, pandas, scikit-learn; see run.sh):
    python benches/gamma/harness.py DATASET [RULE ...] > DATASET.jsonl
    python benches/gamma/compare.py *.jsonl
"""
import itertools, json, math, os, subprocess, sys, tomllib
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import OneHotEncoder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("DISGUISE_BIN", f"{ROOT}/target/release/disguise")
SHARED = os.environ.get("DISGUISE_DATA", f"{ROOT}/../shared/data")
SCHEMAS = f"{ROOT}/crates/disguise/schemas"
EXTRA = os.environ.get("GAMMA_DATA", "/tmp/disguise-gamma")  # prepare.sh's output
HERE = os.environ.get("GAMMA_WORK", "/tmp/disguise-gamma/work")
DATASETS = {
    "adult": ([f"{SHARED}/uci_adult/adult.data", f"{SHARED}/uci_adult/adult.test"], f"{SCHEMAS}/adult.schema.toml", None),
    "car": ([f"{EXTRA}/car.csv"], f"{EXTRA}/car.schema.toml", None),
    "splice": ([f"{EXTRA}/splice.csv"], f"{EXTRA}/splice.schema.toml", None),
    "landsat4": ([f"{SHARED}/uci_landsat/sat.trn", f"{SHARED}/uci_landsat/sat.tst"], f"{SCHEMAS}/landsat.schema.toml", 4),
    "iris": ([f"{SHARED}/uci_iris/iris.data"], f"{SCHEMAS}/iris.schema.toml", None),
}


def load(name):
    files, schema_path, bins = DATASETS[name]
    schema = tomllib.load(open(schema_path, "rb"))
    delim = schema.get("delimiter", ",")
    comment = schema.get("comment")
    rows = []
    for f in files:
        for line in open(f):
            line = line.strip()
            if not line or (comment and line.startswith(comment)):
                continue
            fields = line.split() if delim == " " else [x.strip() for x in line.split(delim)]
            rows.append(fields)
    cols = schema["columns"]
    df = pd.DataFrame(rows, columns=[c["name"] for c in cols])
    for c in cols:
        if c.get("aliases"):
            df[c["name"]] = df[c["name"]].replace(c["aliases"])
        if c["type"] == "numeric":
            df[c["name"]] = df[c["name"]].astype(float)
            if bins:
                c["bins"] = bins
    # schema copy: comma, headerless, no comment, optional bins
    text = open(schema_path).read()
    lines = []
    for l in text.splitlines():
        s = l.split("#")[0].strip()
        if s.startswith("delimiter") or s.startswith("comment") or s.startswith("has_header"):
            continue
        lines.append(l)
        if bins and s.startswith("bounds"):
            lines.append(f"bins = {bins}")
    out = f"{HERE}/{name}.schema.toml"
    os.makedirs(HERE, exist_ok=True)
    with open(out, "w") as f:
        f.write('has_header = false\ndelimiter = ","\n' + "\n".join(lines) + "\n")
    return df, schema, out


def bandwidth_bins(n, d):
    bw = (math.log(n) / n) ** (1.0 / (d + 1.0))
    return max(int(math.ceil(1.0 / bw - 0.5)), 1)


def discretize(df, schema, n_train, bins_rule):
    """Every column as a string code (numeric: bin index)."""
    cols = schema["columns"]
    d1 = len(cols) - 1
    out = {}
    for c in cols:
        v = df[c["name"]]
        if c["type"] == "numeric":
            lo, hi = c["bounds"]
            s = c.get("bins") or bins_rule(n_train, d1)
            x = pd.to_numeric(v).clip(lo, hi)
            b = np.minimum(np.floor((x - lo) / (hi - lo) * s), s - 1).astype(int)
            out[c["name"]] = b.astype(str)
        else:
            out[c["name"]] = v.astype(str)
    return pd.DataFrame(out)


def tv(a, b):
    pa = a.value_counts(normalize=True)
    pb = b.value_counts(normalize=True)
    idx = pa.index.union(pb.index)
    return 0.5 * float(np.abs(pa.reindex(idx, fill_value=0) - pb.reindex(idx, fill_value=0)).sum())


def auc_of(syn, test, predictors, target, classes):
    if len(syn) == 0 or syn[target].nunique() < 2 or not predictors:
        return 0.5
    enc = OneHotEncoder(handle_unknown="ignore")
    X = enc.fit_transform(syn[predictors])
    model = LogisticRegression(max_iter=300, C=1e4)
    model.fit(X, syn[target])
    p = model.predict_proba(enc.transform(test[predictors]))
    full = np.zeros((len(test), len(classes)))
    for j, c in enumerate(model.classes_):
        full[:, classes.index(c)] = p[:, j]
    y = test[target].values
    if len(classes) == 2:
        return float(roc_auc_score((y == classes[1]).astype(int), full[:, 1]))
    present = [c for c in classes if (y == c).any()]
    if len(present) < len(classes):
        keep = [classes.index(c) for c in present]
        full = full[:, keep]
        full = full / np.maximum(full.sum(1, keepdims=True), 1e-300)
        classes = present
    full = np.where(full.sum(1, keepdims=True) > 0, full, 1.0 / len(classes))
    full = full / full.sum(1, keepdims=True)
    order = sorted(range(len(classes)), key=lambda j: classes[j])
    full = full[:, order]
    classes = [classes[j] for j in order]
    return float(roc_auc_score(y, full, multi_class="ovr", average="macro", labels=classes))


def release(name, schema_copy, train_raw, epsilon, seed, gamma=None, rule=None, extra=()):
    tag = f"{name}-{epsilon}-{seed}-{gamma}-{rule}-{os.getpid()}"
    data = f"{HERE}/{tag}.csv"
    out = f"{HERE}/{tag}.syn.csv"
    train_raw.to_csv(data, header=False, index=False)
    cmd = [BIN, "histogram", "--data", data, "--schema", schema_copy, "--epsilon", str(epsilon),
           "--out", out, "--seed", str(seed), "--format", "json", *extra]
    if gamma is not None:
        cmd += ["--gamma", repr(gamma)]
    if rule is not None:
        cmd += ["--gamma-rule", rule]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{cmd}: {r.stderr}")
    report = json.loads(r.stdout)
    syn = pd.read_csv(out, dtype=str, keep_default_na=False)
    os.remove(data)
    os.remove(out)
    return report, syn, r.stderr


def measure(name, epsilons, settings, folds=5, bins_rule=bandwidth_bins, extra=(), repeats=1):
    """settings: list of (label, fn(epsilon, e_p, e_h) -> dict(gamma=..) or dict(rule=..))."""
    df, schema, schema_copy = load(name)
    target = schema["target"]
    classes = [str(x) for x in next(c for c in schema["columns"] if c["name"] == target)["levels"]]
    splits = []
    for r in range(repeats):
        skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=2026 + r)
        splits.extend(skf.split(df, df[target]))
    results = []
    for fold, (tr, te) in enumerate(splits):
        train_raw, test_raw = df.iloc[tr], df.iloc[te]
        n = len(train_raw)
        dtrain = discretize(train_raw, schema, n, bins_rule)
        dtest = discretize(test_raw, schema, n, bins_rule)
        for eps in epsilons:
            est = None
            for label, how in settings:
                kw = how(eps, est) if est is not None else how(eps, None)
                report, syn, err = release(name, schema_copy, train_raw, eps, 1000 + fold, extra=extra, **kw)
                if est is None and report.get("gamma_estimate"):
                    ge = report["gamma_estimate"]
                    est = (ge["epsilon_p"], ge["epsilon_h_cells"])
                if est is None:
                    m = report["gamma_method"]
                    import re
                    g = re.search(r"ε_h = ([0-9.e-]+), ε_p = ([0-9.e-]+)", m)
                    est = (float(g.group(2)), float(g.group(1))) if g else None
                cols = report["columns"]
                preds = [c for c in cols if c != target]
                dsyn = discretize(syn, {"columns": [c for c in schema["columns"] if c["name"] in cols]}, n,
                                  lambda n_, d_: bins_rule(n, len(schema["columns"]) - 1))
                cls = tv(dsyn[target], dtrain[target])
                pairs = list(itertools.combinations(cols, 2))
                two = float(np.mean([tv(dsyn[a] + "|" + dsyn[b], dtrain[a] + "|" + dtrain[b]) for a, b in pairs])) if pairs else 0.0
                def keys(d):
                    out = d[cols[0]].astype(str)
                    for c in cols[1:]:
                        out = out + "|" + d[c].astype(str)
                    return out
                key_tr = set(keys(dtrain))
                key_syn = keys(dsyn)
                empty = float((~key_syn.isin(key_tr)).mean()) if len(syn) else 1.0
                auc = auc_of(dsyn, dtest, preds, target, classes)
                results.append(dict(data=name, eps=eps, setting=label, fold=fold, gamma=report["gamma"],
                                    eps_p=report["epsilon_p"], eps_h=report["epsilon_h"], k=report["k"],
                                    attrs="/".join(report["attributes"]), cls=cls, two=two, empty=empty, auc=auc,
                                    e_p=est[0] if est else None, e_h=est[1] if est else None,
                                    notes=" ; ".join(report.get("notes", []))))
                print(json.dumps(results[-1]), flush=True)
    return results


if __name__ == "__main__":
    rules = sys.argv[2:] or ["paper", "surplus", "balanced"]
    measure(sys.argv[1], [0.1, 1.0, 3.0], [(r, lambda e, est, r=r: dict(rule=r)) for r in rules], repeats=2)
