"""Synthetic tables judged as a user judges them: on raw values, each side with its own default
handling of numeric columns (EXPERIMENTS.md, "Numeric columns on raw values").

Where `harness.py` hands every side the same discretized table, here every side gets the raw
training rows and the schema's public bounds, and cuts numeric columns its own way:
  * disguise: `disguise synth` with the schema's bounds and no `bins` (its default: private
    quantile edges, values drawn inside their bins);
  * histogram: `disguise histogram` the same way (the metrics on the columns it keeps);
  * MST, AIM (smartnoise-synth): their own default for a continuous column, `BinTransformer`
    (10 equal bins, values written as bin midpoints), given the public bounds (so that no
    budget goes to estimating them), categorical columns through `LabelTransformer`; fitted
    and sampled through the public `Synthesizer` API.
Every side carries the same replace-one (ε, δ = 1e-9), as in harness.py (MST at nominal 3ρ/8,
AIM at nominal ρ/2.2).

Metrics, on raw values, synthetic against the real training rows:
  * ks: the mean Kolmogorov–Smirnov distance over the numeric columns (and each column's);
  * zero: for Adult, the share of capital-gain = 0 (real: about 0.917);
  * distinct: the fewest distinct values any numeric column takes (1 = a column collapsed);
  * tv1 / tv2: mean total variation over the 1-way / 2-way marginals of the categorical
    columns;
  * auc: logistic regression (standardized numeric columns, one-hot categorical ones)
    trained on the synthetic table, tested on the real held-out rows.

Data sets: adult, iris, landsat (../shared/data), car and nursery (held-out categorical UCI
tables, files in $UCI_EXTRA: see HELD_OUT) and wdbc (scikit-learn's breast cancer
table, 569 × 30 numeric; its bounds, the observed range widened by 10 % and rounded out, are
*treated* as public here — a stand-in for bounds a domain expert would give).

Usage (in the smartnoise venv of run.sh; DISGUISE_BIN as harness.py):
    python benches/synth/raw.py run SIDE DATASET EPSILON REP    # appends to raw.jsonl
    python benches/synth/raw.py report
"""
import json, math, os, sys, time
import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))


def _load_harness():
    """This folder's harness.py (split, timing, the peers' ε, the γ bench's loaders), under its
    own name: it imports the γ bench's module, also called `harness`."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("synth_harness", f"{HERE}/harness.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


harness = _load_harness()

WORK = harness.WORK
RESULTS = f"{WORK}/raw.jsonl"
DELTA = harness.DELTA


def wdbc():
    """scikit-learn's breast cancer table and a schema with bounds treated as public."""
    from sklearn.datasets import load_breast_cancer
    b = load_breast_cancer(as_frame=True)
    df = b.frame.copy()
    df.columns = [c.replace(" ", "_") for c in df.columns]
    df["target"] = np.where(b.target == 1, "benign", "malignant")
    cols = []
    for c in df.columns:
        if c == "target":
            cols.append({"name": c, "type": "categorical", "levels": ["benign", "malignant"]})
            continue
        lo, hi = float(df[c].min()), float(df[c].max())
        pad = 0.1 * (hi - lo)
        scale = 10 ** math.floor(math.log10(max(hi - lo, 1e-12)))
        lo = max(0.0, math.floor((lo - pad) / scale) * scale)
        hi = math.ceil((hi + pad) / scale) * scale
        cols.append({"name": c, "type": "numeric", "bounds": [lo, hi]})
    return df, {"columns": cols, "target": "target"}


# Held-out categorical tables of the UCI kind (never tuned on): the files car.data (1,728
# cars, class last) and nursery.data (12,960 applications, with a header row) in $UCI_EXTRA.
# Their levels are the UCI documentation's, public.
HELD_OUT = {
    "car": (["buying", "maint", "doors", "persons", "lug_boot", "safety", "class"], False),
    "nursery": (["parents", "has_nurs", "form", "children", "housing", "finance", "social",
                 "health", "class"], True),
}


def held_out(name):
    """A held-out table and its schema: every column categorical, the last the target."""
    names, header = HELD_OUT[name]
    path = os.path.join(os.environ.get("UCI_EXTRA", "/tmp/uci"), f"{name}.data")
    df = pd.read_csv(path, header=0 if header else None, names=names, dtype=str,
                     keep_default_na=False)
    df = df[df[names[-1]] != ""].reset_index(drop=True)
    cols = [{"name": c, "type": "categorical", "levels": sorted(df[c].unique())} for c in names]
    return df, {"columns": cols, "target": names[-1]}


def dataset(name):
    """(raw frame, schema as a dict, path of a headerless comma schema without bins)."""
    os.makedirs(WORK, exist_ok=True)
    if name in HELD_OUT:
        df, schema = held_out(name)
    elif name == "wdbc":
        df, schema = wdbc()
    else:
        key = "landsat4" if name == "landsat" else name
        files, schema_path, _ = harness.gamma.DATASETS[key]
        harness.gamma.DATASETS[f"{name}-raw"] = (files, schema_path, None)
        harness.gamma.HERE = WORK
        df, schema, _ = harness.gamma.load(f"{name}-raw")
    path = f"{WORK}/{name}-raw.schema.toml"
    lines = ['has_header = false', 'delimiter = ","']
    if "target" in schema:
        lines.append(f'target = "{schema["target"]}"')
    if schema.get("missing") is not None:
        lines.append(f'missing = "{schema["missing"]}"')
    for c in schema["columns"]:
        lines.append("[[columns]]")
        lines.append(f'name = "{c["name"]}"')
        lines.append(f'type = "{c["type"]}"')
        if c["type"] == "numeric":
            lo, hi = c["bounds"]
            lines.append(f"bounds = [{lo!r}, {hi!r}]")
            if c.get("integer"):
                lines.append("integer = true")
        else:
            lines.append("levels = [" + ", ".join(json.dumps(str(l)) for l in c["levels"]) + "]")
        if c.get("nullable"):
            lines.append("nullable = true")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    for c in schema["columns"]:
        c.pop("bins", None)
        if c["type"] == "categorical":
            df[c["name"]] = df[c["name"]].astype(str)
    return df, schema, path


def ks(a, b):
    """The two-sample Kolmogorov–Smirnov distance of a and b."""
    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    if len(a) == 0 or len(b) == 0:
        return 1.0
    grid = np.union1d(a, b)
    fa = np.searchsorted(a, grid, side="right") / len(a)
    fb = np.searchsorted(b, grid, side="right") / len(b)
    return float(np.max(np.abs(fa - fb)))


def tv_categorical(real, syn, cats):
    def law(frame, cols):
        return frame.groupby(cols, observed=True).size() / max(len(frame), 1)
    tv1 = [0.5 * law(real, [c]).sub(law(syn, [c]), fill_value=0).abs().sum() for c in cats]
    tv2 = [0.5 * law(real, [a, b]).sub(law(syn, [a, b]), fill_value=0).abs().sum()
           for i, a in enumerate(cats) for b in cats[i + 1:]]
    mean = lambda xs: float(np.mean(xs)) if xs else float("nan")
    return mean(tv1), mean(tv2)


def auc(train, test, schema):
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    target = schema["target"]
    nums = [c["name"] for c in schema["columns"] if c["type"] == "numeric" and c["name"] != target]
    cats = [c["name"] for c in schema["columns"] if c["type"] == "categorical" and c["name"] != target]
    ys, yt = train[target].astype(str).values, test[target].astype(str).values
    if len(set(ys)) < 2:
        return 0.5
    pre = ColumnTransformer([("num", StandardScaler(), nums),
                             ("cat", OneHotEncoder(handle_unknown="ignore"), cats)])
    model = make_pipeline(pre, LogisticRegression(max_iter=3000)).fit(train, ys)
    p = model.predict_proba(test)
    classes = sorted(set(yt))
    if len(classes) == 2:
        known = list(model.classes_)
        return float(roc_auc_score(yt == classes[1], p[:, known.index(classes[1])])) if classes[1] in known else 0.5
    full = np.zeros((len(yt), len(classes)))
    for k, c in enumerate(model.classes_):
        if c in classes:
            full[:, classes.index(c)] = p[:, k]
    # Classes the synthetic table has and the test rows lack take their share away: renormalize.
    total = full.sum(axis=1, keepdims=True)
    full = np.where(total > 0, full / np.where(total > 0, total, 1), 1.0 / len(classes))
    return float(roc_auc_score(yt, full, multi_class="ovr", average="macro", labels=classes))


def auc_binned(train, test, schema):
    """The AUC as issue targets state it: logistic regression on one-hot predictors, each
    numeric column cut into 10 equal bins over its public bounds."""
    def cut(frame):
        out = frame.copy()
        for c in schema["columns"]:
            if c["type"] == "numeric":
                lo, hi = c["bounds"]
                x = pd.to_numeric(out[c["name"]], errors="coerce")
                b = np.clip(np.floor((x - lo) / (hi - lo) * 10), 0, 9)
                out[c["name"]] = np.where(np.isnan(b), "missing", b.astype("Int64").astype(str))
        return out
    columns = [dict(c, type="categorical") for c in schema["columns"]]
    return auc(cut(train), cut(test), dict(schema, columns=columns))


def fit_peer(side, train_csv, schema_json, epsilon, out_csv):
    """MST or AIM through smartnoise-synth's public API, its default for continuous columns
    (10 equal bins, midpoints) over the public bounds (in its own process, for time -v)."""
    import warnings
    warnings.filterwarnings("ignore")
    from snsynth import Synthesizer
    from snsynth.transform import BinTransformer, LabelTransformer, TableTransformer
    from snsynth.utils import cdp_rho
    schema = json.load(open(schema_json))
    frame = pd.read_csv(train_csv, dtype={c["name"]: str for c in schema["columns"] if c["type"] == "categorical"},
                        keep_default_na=False)
    transformers = []
    for c in schema["columns"]:
        if c["type"] == "numeric":
            lo, hi = c["bounds"]
            transformers.append(BinTransformer(bins=10, lower=lo, upper=hi))
        else:
            transformers.append(LabelTransformer())
    rho = cdp_rho(epsilon, DELTA)
    nominal = harness.nominal_epsilon(3.0 * rho / 8.0 if side == "mst" else rho / 2.2, DELTA)
    synth = Synthesizer.create(side, epsilon=nominal, delta=DELTA)
    synth.fit(frame, transformer=TableTransformer(transformers), preprocessor_eps=0.0)
    out = synth.sample(len(frame))
    out.to_csv(out_csv, index=False)


def run(side, name, epsilon, rep):
    df, schema, schema_path = dataset(name)
    train_idx, test_idx = harness.split(df, schema, rep)
    train, test = df.iloc[train_idx].reset_index(drop=True), df.iloc[test_idx].reset_index(drop=True)
    tag = f"raw-{name}-{side}-{epsilon}-{rep}"
    out = f"{WORK}/{tag}.csv"
    if os.path.exists(out):
        os.remove(out)
    names = [c["name"] for c in schema["columns"]]
    try:
        if side in ("disguise", "disguise-aim", "disguise-mst"):
            # "disguise" is `synth` as a user runs it (its default method); the others name one.
            raw = f"{WORK}/raw-{name}-{rep}-train.csv"
            train.to_csv(raw, header=False, index=False)
            method = [] if side == "disguise" else ["--method", side.split("-")[1]]
            wall, rss, _ = harness.timed([harness.BIN, "synth", "--data", raw, "--schema", schema_path,
                                          "--epsilon", str(epsilon), "--delta", str(DELTA),
                                          "--noise", "gaussian", "--out", out, "--seed", str(rep + 1),
                                          "--quiet"] + method)
            syn = pd.read_csv(out, keep_default_na=False, dtype=str)
            syn.columns = names
        elif side == "histogram":
            # The projected histogram (Vinterbo 2012) keeps k̂ predictors and the target: the
            # metrics below are on the columns it writes.
            raw = f"{WORK}/raw-{name}-{rep}-train.csv"
            train.to_csv(raw, header=False, index=False)
            wall, rss, _ = harness.timed([harness.BIN, "histogram", "--data", raw, "--schema", schema_path,
                                          "--epsilon", str(epsilon), "--out", out, "--seed", str(rep + 1),
                                          "--quiet"])
            syn = pd.read_csv(out, keep_default_na=False, dtype=str)
            kept = set(syn.columns)
            schema = dict(schema, columns=[c for c in schema["columns"] if c["name"] in kept])
            train = train[[c["name"] for c in schema["columns"]]]
            test = test[[c["name"] for c in schema["columns"]]]
            names = [c["name"] for c in schema["columns"]]
            syn = syn[names]
        else:
            raw = f"{WORK}/raw-{name}-{rep}-train-header.csv"
            train.to_csv(raw, index=False)
            schema_json = f"{WORK}/raw-{name}.schema.json"
            json.dump(schema, open(schema_json, "w"))
            wall, rss, _ = harness.timed([sys.executable, __file__, "fit-peer", side, raw, schema_json,
                                          str(epsilon), out])
            syn = pd.read_csv(out, keep_default_na=False, dtype=str)[names]
    except harness.TimedOut:
        row = dict(side=side, data=name, epsilon=epsilon, rep=rep, timed_out=harness.TIMEOUT)
        with open(RESULTS, "a") as f:
            f.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)
        return
    nums = [c["name"] for c in schema["columns"] if c["type"] == "numeric"]
    cats = [c["name"] for c in schema["columns"] if c["type"] == "categorical"]
    for c in nums:
        syn[c] = pd.to_numeric(syn[c], errors="coerce")
    for c in cats:
        syn[c] = syn[c].astype(str)
    per_column = {c: ks(train[c].dropna(), syn[c].dropna()) for c in nums}
    tv1, tv2 = tv_categorical(train, syn, cats)
    row = dict(side=side, data=name, epsilon=epsilon, rep=rep, rows=len(train),
               ks=float(np.mean(list(per_column.values()))) if nums else float("nan"),
               ks_columns=per_column,
               distinct=int(min(syn[c].nunique() for c in nums)) if nums else None,
               kept=len(nums),
               tv1=tv1, tv2=tv2, auc=auc(syn, test, schema), auc10=auc_binned(syn, test, schema),
               seconds=wall, rss_mb=rss)
    if name == "adult" and "capital-gain" in syn:
        row["zero"] = float((syn["capital-gain"] == 0).mean())
        row["zero_real"] = float((train["capital-gain"] == 0).mean())
    with open(RESULTS, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def report():
    rows = [json.loads(l) for l in open(RESULTS)]
    for r in rows:
        if "timed_out" in r:
            print(f"did not finish in {r['timed_out']} s: {r['side']} {r['data']} ε = {r['epsilon']} rep {r['rep']}")
    frame = pd.DataFrame([r for r in rows if "timed_out" not in r]).drop(columns=["ks_columns"])
    if "zero" not in frame:
        frame["zero"] = np.nan
    g = frame.groupby(["data", "epsilon", "side"])
    stats = g.agg(["mean", "std", "count"])
    if "auc10" not in frame:
        frame["auc10"] = np.nan
    if "rss_mb" not in frame:
        frame["rss_mb"] = np.nan
    lines = ["| data | ε | side | reps | KS (numeric) | fewest values | capital-gain = 0 | tv1 | tv2 (categorical) | AUC | AUC (10 bins) | seconds | MB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (data, eps, side), r in stats.iterrows():
        def f(k, p=3):
            m, s = r[(k, "mean")], r[(k, "std")]
            if np.isnan(m):
                return "–"
            return f"{m:.{p}f} ± {0 if np.isnan(s) else s:.{p}f}"
        lines.append(f"| {data} | {eps} | {side} | {int(r[('ks', 'count')])} | {f('ks')} | "
                     f"{r[('distinct', 'mean')]:.0f} | {f('zero')} | {f('tv1')} | {f('tv2')} | {f('auc')} | {f('auc10')} | {f('seconds', 2)} | {f('rss_mb', 0)} |")
    print("\n".join(lines))


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "run":
        run(sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "fit-peer":
        fit_peer(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), sys.argv[6])
    elif cmd == "report":
        report()
    else:
        sys.exit(__doc__)
