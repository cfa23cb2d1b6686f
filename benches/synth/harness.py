"""`disguise synth` against smartnoise-synth's MST and AIM, side by side (EXPERIMENTS.md,
"Whole-table synthetic data").

Every side gets the same split (80 % train, 20 % test, stratified on the target, seed = the
repetition), the same discretized table (the schema's public bounds cut into the bins below,
exactly as disguise cuts them) and the same public domains (an `mbi` Domain built from the
schema, never from the data). Each fit runs in its own process under /usr/bin/time -v (wall
time, peak RSS). Metrics, on the codes:
  * tv1 / tv2: mean total-variation distance between the synthetic and the real training
    table over all 1-way / all 2-way marginals;
  * auc: logistic regression on one-hot predictors trained on the synthetic table, tested on
    the real held-out rows (binary AUC, or macro one-vs-rest AUC).

Neighbours: disguise is calibrated for replace-one neighbours, MST and AIM for add/remove.
Every side is run at the same *replace-one* (ε, δ = 1e-9):
  * disguise: `--epsilon ε --delta 1e-9 --noise gaussian` as is.
  * MST (its own sensitivities): replacing a record doubles each measurement's L2² (ρ × 2)
    and each selection score's L1 sensitivity (ρ × 4); MST spends ρ/3 on each of 1-ways,
    selection, 2-ways, so its replace-one ρ is 8/3 of its nominal ρ. It runs at nominal
    ρ' = 3ρ/8, with ρ = cdp_rho(ε, δ).
  * AIM: 90 % of its ρ goes to Gaussian measurements, 10 % to exponential mechanisms, so its
    replace-one ρ is 2·0.9 + 4·0.1 = 2.2 times its nominal ρ: it runs at ρ' = ρ/2.2.
Records come from mbi's `synthetic_data(method="sample")` (i.i.d. sampling), not its default
rounding (see ../shared/PEERS.md).

Usage (in the smartnoise venv, see run.sh):
    python benches/synth/harness.py run SIDE DATASET EPSILON REP   # appends to results.jsonl
    python benches/synth/harness.py report                          # table + figure
"""
import json, os, subprocess, sys, time
import numpy as np
import pandas as pd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benches", "gamma"))
import harness as gamma  # noqa: E402  (the data sets' loading, shared with the γ bench)

BIN = os.environ.get("DISGUISE_BIN", f"{ROOT}/target/release/disguise")
WORK = os.environ.get("SYNTH_WORK", "/tmp/disguise-synth")
DELTA = 1e-9
# Bins of every numeric column, public and the same for every side.
BINS = {"adult": 8, "iris": 5, "landsat": 4}
TIMEOUT = int(os.environ.get("SYNTH_TIMEOUT", "1800"))


def dataset(name):
    files, schema_path, _ = gamma.DATASETS["landsat4" if name == "landsat" else name]
    gamma.DATASETS[name] = (files, schema_path, BINS[name])
    gamma.HERE = WORK
    df, schema, schema_out = gamma.load(name)
    return df, schema, schema_out


def codes_of(df, schema):
    """The table as codes, cut exactly as disguise cuts it (Bins::index)."""
    missing = schema.get("missing")
    out, sizes = {}, []
    for c in schema["columns"]:
        col = df[c["name"]]
        nullable = c.get("nullable", False) and missing is not None
        if c["type"] == "categorical":
            levels = list(c["levels"])
            index = {l: i for i, l in enumerate(levels)}
            size = len(levels) + (1 if nullable else 0)
            codes = col.map(lambda v: index.get(v, len(levels))).astype(int).values
        else:
            lo, hi = c["bounds"]
            count = c["bins"]
            t = np.clip((col.astype(float).values - lo) / (hi - lo), 0.0, 1.0)
            codes = np.minimum((t * count).astype(int), count - 1)
            size = count + (1 if nullable else 0)
        out[c["name"]] = codes
        sizes.append(size)
    return pd.DataFrame(out), sizes


def split(df, schema, rep):
    from sklearn.model_selection import StratifiedShuffleSplit
    y = df[schema["target"]].values
    s = StratifiedShuffleSplit(n_splits=1, test_size=0.2, random_state=rep)
    return next(s.split(np.zeros(len(y)), y))


def tv_scores(real, syn, sizes):
    cols = list(real.columns)
    d = len(cols)
    def law(frame, idx, shape):
        flat = np.ravel_multi_index([frame[cols[i]].values for i in idx], shape)
        counts = np.bincount(flat, minlength=int(np.prod(shape))).astype(float)
        return counts / max(counts.sum(), 1.0)
    tv1 = [0.5 * np.abs(law(real, [i], [sizes[i]]) - law(syn, [i], [sizes[i]])).sum() for i in range(d)]
    tv2 = []
    for i in range(d):
        for j in range(i + 1, d):
            shape = [sizes[i], sizes[j]]
            tv2.append(0.5 * np.abs(law(real, [i, j], shape) - law(syn, [i, j], shape)).sum())
    return float(np.mean(tv1)), float(np.mean(tv2))


def auc(train, test, target, sizes_by_name):
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.preprocessing import OneHotEncoder
    predictors = [c for c in train.columns if c != target]
    cats = [list(range(sizes_by_name[c])) for c in predictors]
    enc = OneHotEncoder(categories=cats, handle_unknown="ignore")
    xs = enc.fit_transform(train[predictors].values)
    xt = enc.transform(test[predictors].values)
    ys, yt = train[target].values, test[target].values
    classes = sorted(set(yt))
    if len(set(ys)) < 2:
        return 0.5
    model = LogisticRegression(max_iter=2000).fit(xs, ys)
    p = model.predict_proba(xt)
    if len(classes) == 2:
        pos = list(model.classes_).index(classes[1]) if classes[1] in model.classes_ else None
        return float(roc_auc_score(yt == classes[1], p[:, pos])) if pos is not None else 0.5
    full = np.zeros((len(yt), len(classes)))
    for k, c in enumerate(model.classes_):
        if c in classes:
            full[:, classes.index(c)] = p[:, k]
    return float(roc_auc_score(yt, full, multi_class="ovr", average="macro", labels=classes))


class TimedOut(Exception):
    pass


def timed(cmd):
    """Runs cmd under /usr/bin/time -v: (wall seconds, peak RSS MB, the process). A run past
    SYNTH_TIMEOUT is killed with everything it started and raises TimedOut."""
    import signal
    start = time.time()
    child = subprocess.Popen(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = child.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        raise TimedOut()
    proc = subprocess.CompletedProcess(child.args, child.returncode, out, err)
    wall = time.time() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {proc.stderr[-2000:]}")
    rss = next(int(l.split()[-1]) for l in proc.stderr.splitlines() if "Maximum resident" in l)
    return wall, rss / 1024.0, proc


def nominal_epsilon(rho_target, delta):
    """The ε smartnoise converts to ρ_target at δ (its cdp_rho), by bisection."""
    from snsynth.utils import cdp_rho
    lo, hi = 1e-4, 50.0
    for _ in range(60):
        mid = (lo * hi) ** 0.5
        if cdp_rho(mid, delta) > rho_target:
            hi = mid
        else:
            lo = mid
    return lo


def fit_peer(side, train_csv, sizes_json, epsilon, out_csv):
    """Runs MST or AIM on the coded table (in its own process, for time -v)."""
    import warnings
    warnings.filterwarnings("ignore")
    from mbi import Dataset, Domain
    from snsynth.utils import cdp_rho
    sizes = json.load(open(sizes_json))
    frame = pd.read_csv(train_csv)
    cols = list(frame.columns)
    domain = Domain(cols, sizes)
    data = Dataset({c: frame[c].values for c in cols}, domain)
    rho = cdp_rho(epsilon, DELTA)
    n = len(frame)
    if side == "mst":
        from snsynth.mst.mst import MSTSynthesizer
        eps = nominal_epsilon(3.0 * rho / 8.0, DELTA)
        m = MSTSynthesizer(epsilon=eps, delta=DELTA)
        m.MST(data, eps, DELTA)
        syn = m.undo_compress_fn(m.synthesizer.synthetic_data(rows=n, method="sample"))
    else:
        from snsynth.aim.aim import AIMSynthesizer
        eps = nominal_epsilon(rho / 2.2, DELTA)
        a = AIMSynthesizer(epsilon=eps, delta=DELTA)
        a.rho = cdp_rho(eps, DELTA)
        a.AIM(data, AIMSynthesizer.get_workload(data, degree=2, max_cells=10000))
        syn = a.synthesizer.synthetic_data(rows=n, method="sample")
    pd.DataFrame({c: np.asarray(syn.df[c]) for c in cols}).to_csv(out_csv, index=False)


def run(side, name, epsilon, rep):
    df, schema, schema_path = dataset(name)
    target = schema["target"]
    train_idx, test_idx = split(df, schema, rep)
    codes, sizes = codes_of(df, schema)
    sizes_by_name = dict(zip(codes.columns, sizes))
    real_train, real_test = codes.iloc[train_idx], codes.iloc[test_idx]
    tag = f"{name}-{side}-{epsilon}-{rep}"
    os.makedirs(WORK, exist_ok=True)
    if side == "disguise":
        raw = f"{WORK}/{name}-{rep}-train.csv"
        df.iloc[train_idx].to_csv(raw, header=False, index=False)
        out = f"{WORK}/{tag}.csv"
        if os.path.exists(out):
            os.remove(out)
        wall, rss, _ = timed([BIN, "synth", "--data", raw, "--schema", schema_path,
                              "--epsilon", str(epsilon), "--delta", str(DELTA), "--noise", "gaussian",
                              "--out", out, "--seed", str(rep + 1), "--quiet"])
        syn_raw = pd.read_csv(out)
        syn_raw.columns = [c["name"] for c in schema["columns"]]
        for c in schema["columns"]:
            if c["type"] == "numeric":
                syn_raw[c["name"]] = syn_raw[c["name"]].astype(float)
            else:
                syn_raw[c["name"]] = syn_raw[c["name"]].astype(str)
        syn, _ = codes_of(syn_raw, schema)
    else:
        train_csv = f"{WORK}/{name}-{rep}-codes.csv"
        real_train.to_csv(train_csv, index=False)
        sizes_json = f"{WORK}/{name}-sizes.json"
        json.dump(sizes, open(sizes_json, "w"))
        out = f"{WORK}/{tag}.csv"
        try:
            wall, rss, _ = timed([sys.executable, __file__, "fit-peer", side, train_csv, sizes_json, str(epsilon), out])
        except TimedOut:
            row = dict(side=side, data=name, epsilon=epsilon, rep=rep, rows=len(real_train),
                       timed_out=TIMEOUT)
            with open(f"{WORK}/results.jsonl", "a") as f:
                f.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
            return
        syn = pd.read_csv(out)
    tv1, tv2 = tv_scores(real_train.reset_index(drop=True), syn, sizes)
    row = dict(side=side, data=name, epsilon=epsilon, rep=rep, rows=len(real_train),
               tv1=tv1, tv2=tv2, auc=auc(syn, real_test, target, sizes_by_name),
               seconds=wall, rss_mb=rss)
    with open(f"{WORK}/results.jsonl", "a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def report():
    rows = [json.loads(l) for l in open(f"{WORK}/results.jsonl")]
    for r in rows:
        if "timed_out" in r:
            print(f"did not finish in {r['timed_out']} s: {r['side']} {r['data']} ε = {r['epsilon']} rep {r['rep']}")
    frame = pd.DataFrame([r for r in rows if "timed_out" not in r])
    g = frame.groupby(["data", "epsilon", "side"])
    stats = g.agg(["mean", "std", "count"])
    lines = ["| data | ε | side | reps | tv1 | tv2 | AUC | seconds | peak RSS MB |", "|---|---|---|---|---|---|---|---|---|"]
    for (data, eps, side), r in stats.iterrows():
        f = lambda k, p=3: f"{r[(k, 'mean')]:.{p}f} ± {0 if np.isnan(r[(k, 'std')]) else r[(k, 'std')]:.{p}f}"
        lines.append(f"| {data} | {eps} | {side} | {int(r[('tv1', 'count')])} | {f('tv1')} | {f('tv2')} | {f('auc')} | {f('seconds', 2)} | {f('rss_mb', 0)} |")
    print("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    means = g.mean(numeric_only=True).reset_index()
    datas = sorted(means["data"].unique())
    fig, axes = plt.subplots(2, len(datas), figsize=(4 * len(datas), 6.5), squeeze=False)
    for k, data in enumerate(datas):
        for side, style in [("disguise", "o-"), ("mst", "s--"), ("aim", "^:")]:
            m = means[(means["data"] == data) & (means["side"] == side)].sort_values("epsilon")
            if len(m):
                axes[0][k].plot(m["epsilon"], m["tv2"], style, label=side)
                axes[1][k].plot(m["epsilon"], m["auc"], style, label=side)
        axes[0][k].set_title(data)
        axes[0][k].set_xscale("log"); axes[1][k].set_xscale("log")
        axes[0][k].set_ylabel("mean 2-way TV (lower is better)")
        axes[1][k].set_ylabel("AUC, train on synthetic")
        axes[1][k].set_xlabel("ε (replace-one, δ = 1e-9)")
        axes[0][k].legend()
    fig.tight_layout()
    out = os.environ.get("SYNTH_FIGURE", f"{ROOT}/docs/figures/synth.png")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"figure: {out}")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "run":
        run(sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "fit-peer":
        fit_peer(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), sys.argv[6])
    elif cmd == "report":
        report()
    else:
        sys.exit(__doc__)
