"""Pickled round trips of fitted disguise objects on UCI Adult: the time of
pickle.loads(pickle.dumps(x)) (median of REPS), the pickle's size, and the first sample drawn
from the loaded object. Not in CI. Usage: python roundtrip.py [DATA_DIR] [REPS]"""

import os
import pickle
import sys
import tempfile
import time
import warnings

import pandas as pd

import disguise

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "data")
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 21
ADULT = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
         "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
         "hours-per-week", "native-country", "income"]
CATS = ["workclass", "education", "marital-status", "occupation", "relationship", "race", "sex"]
SCHEMA = os.path.join(ROOT, "crates", "disguise", "schemas", "adult.schema.toml")


def median_seconds(f):
    times = []
    for _ in range(REPS):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main():
    warnings.simplefilter("ignore")
    df = pd.read_csv(os.path.join(DATA, "uci_adult", "adult.data"), names=ADULT,
                     skipinitialspace=True, na_values="?")
    ledger = disguise.Ledger.create(os.path.join(tempfile.mkdtemp(), "b.ledger"))
    ledger.set_limit("adult", epsilon=10, delta=1e-5)
    fitted = {
        "Ledger": ledger,
        "FeatureSelector": disguise.FeatureSelector(
            3, epsilon=1, ledger=ledger, dataset="adult").fit(df[CATS].fillna("?"), df["income"]),
        "Synthesizer (AIM)": disguise.Synthesizer(
            epsilon=1, delta=1e-6, schema=SCHEMA).fit(df),
        "Synthesizer (MST)": disguise.Synthesizer(
            epsilon=1, delta=1e-6, schema=SCHEMA, method="mst").fit(df),
        "ProjectedHistogram": disguise.ProjectedHistogram(epsilon=1, schema=SCHEMA).fit(df),
    }
    print(f"{'object':<20} {'bytes':>10} {'round trip ms':>14} {'then sample(n) ms':>18}")
    for name, obj in fitted.items():
        size = len(pickle.dumps(obj))
        seconds = median_seconds(lambda: pickle.loads(pickle.dumps(obj)))
        back = pickle.loads(pickle.dumps(obj))
        if hasattr(back, "sample"):
            start = time.perf_counter()
            back.sample()
            sample = f"{(time.perf_counter() - start) * 1e3:18.1f}"
        else:
            sample = f"{'–':>18}"
        print(f"{name:<20} {size:>10,} {seconds * 1e3:14.2f} {sample}")


if __name__ == "__main__":
    main()
