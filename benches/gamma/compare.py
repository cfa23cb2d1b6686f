import json, sys, collections
import numpy as np
rows = []
for f in sys.argv[1:]:
    for l in open(f):
        if l.startswith("{"): rows.append(json.loads(l))
by = collections.defaultdict(dict)
for r in rows: by[(r["data"], r["eps"])].setdefault(r["setting"], {})[r["fold"]] = r
# metric: (key, higher is better)
metrics = [("cls", False), ("two", False), ("auc", True)]
print("| data | ε | γ paper / surplus / balanced | class TV paper / surplus / balanced | 2-way TV | AUC | balanced vs better (Δ, 95% CI) |")
worst = []
for key in sorted(by, key=lambda k: (k[0], k[1])):
    s = by[key]
    folds = sorted(set(s.get("paper", {})) & set(s.get("surplus", {})) & set(s.get("balanced", {})))
    if not folds: continue
    val = lambda st, m: np.array([s[st][f][m] for f in folds])
    cells = []
    verdicts = []
    for m, hib in metrics:
        means = {st: val(st, m).mean() for st in ["paper", "surplus", "balanced"]}
        better = max(["paper", "surplus"], key=lambda st: means[st] if hib else -means[st])
        d = val("balanced", m) - val(better, m)
        if not hib: d = -d   # positive = balanced better
        ci = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
        cells.append(f"{means['paper']:.3f} / {means['surplus']:.3f} / **{means['balanced']:.3f}**")
        verdicts.append(f"{m} {d.mean():+.3f} ± {ci:.3f} vs {better}")
        worst.append((d.mean(), d.mean() + ci, key, m, better))
    g = {st: val(st, 'gamma').mean() for st in ["paper", "surplus", "balanced"]}
    print(f"| {key[0]} | {key[1]} | {g['paper']:.2f} / {g['surplus']:.2f} / {g['balanced']:.2f} | " + " | ".join(cells) + " | " + "; ".join(verdicts) + f" | n={len(folds)}")
print()
for w in sorted(worst)[:8]: print("worst:", w)
