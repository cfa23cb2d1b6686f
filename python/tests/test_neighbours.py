"""The neighbour harness of the Python package: what a fitted estimator or a function shows
by default — its return value, every public attribute, every warning — is a function of the
public inputs and of the values it released.

Each entry point runs with one seed on pairs of neighbouring inputs (one record replaced),
including the adversarial shapes that stay valid input (a duplicate, an out-of-bounds value
clamped, a record outside the candidates, a level or an item seen once, a missing value, an
item outside the public list, a transaction cut to the maximum length). Whenever the two runs
released the same values (the picks, the attributes kept and cells released, the model's tree,
the itemsets), everything else they show must be equal, released values that differ by
nature (a noisy estimate, noisy counts and the synthetic rows drawn from them, a fit's losses)
blanked. The command line's harness is
``crates/disguise-cli/tests/cli/neighbours.rs``; RELIABILITY.md describes both.
"""

import warnings

import numpy as np
import pytest

import disguise


def shown(call):
    """Everything ``call()`` shows by default: its result (or a fitted estimator's public
    attributes, an attribute that raises recorded as its error) and its warnings. A call may
    return ``(estimator, extra)``: what its methods returned (``sample(n)``), by name."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    seen = {"warnings": [(type(w.message).__name__, str(w.message)) for w in caught]}
    if isinstance(result, tuple):
        result, extra = result
        seen.update({name: plain(value) for name, value in extra.items()})
    if isinstance(result, (dict, list, int, float, str)):
        seen["result"] = plain(result)
        return seen
    for name in dir(result):
        if name.endswith("_") and not name.startswith("_"):
            try:
                seen[name] = plain(getattr(result, name))
            except AttributeError as e:
                seen[name] = ("AttributeError", str(e))
    return seen


def plain(value):
    """A comparable copy: arrays as lists, tables as dicts of lists, dicts and lists
    recursively."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if hasattr(value, "to_dict") and hasattr(value, "columns"):  # a DataFrame
        return {str(c): plain(np.asarray(value[c])) for c in value.columns}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (np.generic,)):
        return value.item()
    return value


def blank(value, keys):
    """``value`` with the entries named ``keys`` blanked at any depth."""
    if isinstance(value, dict):
        return {k: "(masked)" if k in keys else blank(v, keys) for k, v in value.items()}
    if isinstance(value, list):
        return [blank(v, keys) for v in value]
    return value


def check(call, pairs, released, masked=()):
    """For each (shape, a, b): when ``released`` of both runs coincide, everything shown must
    coincide (``masked`` keys blanked). At least half the pairs must coincide."""
    compared = 0
    for shape, a, b in pairs:
        seen_a, seen_b = shown(lambda: call(a)), shown(lambda: call(b))
        if released(seen_a) != released(seen_b):
            continue
        compared += 1
        assert blank(seen_a, masked) == blank(seen_b, masked), (
            f"the neighbours differ by {shape}; what is shown differs although the released "
            "values coincide"
        )
    assert 2 * compared >= len(pairs), f"only {compared} of {len(pairs)} pairs coincided"


def ranking(seen):
    return seen.get("ranking_")


def replaced(rows, i, row):
    out = [list(r) if isinstance(r, (list, tuple)) else r for r in rows]
    out[i] = row
    return out


def points():
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [5.0, 5.0], [9.0, 1.0]])
    return (centres[np.arange(90) % 3] + rng.normal(scale=0.2, size=(90, 2))).tolist()


CANDIDATES = np.array([[0.0, 0.0], [5.0, 5.0], [9.0, 1.0], [20.0, 20.0]])


def test_facility_location_shows_only_its_release():
    X = points()
    pairs = [
        ("a duplicate record", X, replaced(X, 1, X[0])),
        ("a record far outside the candidates", X, replaced(X, 2, [500.0, -300.0])),
        ("a record on a candidate", X, replaced(X, 3, [20.0, 20.0])),
    ]
    for extra, masked in [({}, ()), ({"estimate_utility": 1.0}, ("utility_estimate_",))]:
        check(
            lambda data: disguise.FacilityLocation(2, epsilon=40.0, seed=3, **extra).fit(
                np.array(data), candidates=CANDIDATES),
            pairs,
            ranking,
            masked + ("estimate", "low", "high"),
        )


def sets():
    return [["a"], ["a", "d"], ["a"], ["b"], ["b", "c"]] * 10


def test_max_coverage_shows_only_its_release():
    S = sets()
    check(
        lambda data: disguise.MaxCoverage(2, epsilon=40.0, seed=2, estimate_utility=1.0).fit(
            data, candidates=["a", "b", "c", "d"]),
        [
            ("a duplicate record", S, replaced(S, 1, ["a"])),
            ("a record outside the candidates", S, replaced(S, 2, ["zed"])),
            ("a record partly outside", S, replaced(S, 3, ["a", "zed"])),
        ],
        ranking,
        ("estimate", "low", "high"),
    )
    edges = [(f"u0", f"u{v}") for v in range(1, 10)] + [("u1", "u2"), ("u3", "u4"), ("u5", "u6")]
    people = [f"u{i}" for i in range(10)]
    check(
        lambda data: disguise.MaxCoverage(2, epsilon=40.0, seed=4, input="edges").fit(
            data, candidates=people),
        [
            ("a repeated edge", edges, replaced(edges, 9, ("u0", "u1"))),
            ("a self-loop", edges, replaced(edges, 10, ("u3", "u3"))),
            ("an edge to a stranger", edges, replaced(edges, 11, ("u5", "stranger"))),
        ],
        ranking,
    )


def table():
    rng = np.random.default_rng(5)
    y = np.arange(200) % 2
    X = np.column_stack([y, rng.integers(0, 3, 200), (np.arange(200) // 2) % 3])
    return X, y


def test_feature_selector_shows_only_its_release():
    X, y = table()

    def neighbour(i, row, label):
        X2, y2 = X.copy(), y.copy()
        X2[i], y2[i] = row, label
        return X2, y2

    pairs = [
        ("a duplicate record", (X, y), neighbour(1, X[0], y[0])),
        ("a level seen once", (X, y), neighbour(2, [1, 7, 0], 0)),
        ("a label seen once", (X, y), neighbour(3, [1, 1, 1], 5)),
    ]
    check(
        lambda data: disguise.FeatureSelector(1, epsilon=40.0, seed=6).fit(*data),
        pairs,
        ranking,
    )
    # With public categories and classes too.
    check(
        lambda data: disguise.FeatureSelector(
            1, epsilon=40.0, seed=6, categories=[[0, 1], [0, 1, 2, 7], [0, 1, 2]],
            classes=[0, 1, 5]).fit(*data),
        pairs,
        ranking,
    )


def test_the_selectors_show_only_their_choice():
    scores = [1.0, 50.0, 2.0, 49.0]
    pairs = [("scores moved by at most the sensitivity", scores,
              [s + d for s, d in zip(scores, [1, 1, 0.5, -1])])]
    check(lambda s: disguise.exponential(s, epsilon=20.0, sensitivity=1.0, seed=1), pairs,
          lambda seen: seen["result"])
    check(lambda s: disguise.large_margin(s, epsilon=20.0, delta=1e-6, sensitivity=1.0, seed=1),
          pairs, lambda seen: seen["result"])


# --- the tables and the itemsets -------------------------------------------------------------

# A schema as the package takes it: every domain public, a nullable numeric column, a level
# nobody may have.
TABLE_SCHEMA = {
    "target": "sick",
    "missing": "?",
    "columns": [
        {"name": "smoker", "type": "categorical", "levels": ["no", "yes", "rare"]},
        {"name": "age", "type": "numeric", "bounds": [0, 100], "bins": 4, "nullable": True},
        {"name": "city", "type": "categorical", "levels": ["a", "b", "c"]},
        {"name": "sick", "type": "categorical", "levels": ["no", "yes"]},
    ],
}


def records(n=300):
    """Rows in the schema's order: sick follows smoker for 90% of the records."""
    out = []
    for i in range(n):
        smoker = "yes" if i % 3 == 0 else "no"
        sick = smoker if i % 10 else ("no" if smoker == "yes" else "yes")
        out.append([smoker, float((i * 37) % 100), "abc"[(i // 3) % 3], sick])
    return out


def table_pairs():
    R = records()
    return [
        ("a duplicate record", R, replaced(R, 1, R[0])),
        ("an out-of-bounds value, clamped", R, replaced(R, 2, ["no", 500.0, "b", "no"])),
        ("a level seen once", R, replaced(R, 3, ["rare", 40.0, "a", "yes"])),
        ("a missing value seen once", R, replaced(R, 4, ["no", None, "c", "no"])),
    ]


def with_sample(estimator, data, n=20):
    """``estimator.fit(data)`` and what ``sample(n)`` draws from it."""
    estimator.fit(data)
    return estimator, {"sample": estimator.sample(n)}


def test_projected_histogram_shows_only_its_release():
    # Released: the attributes kept and the cells released. The noisy counts (the synthetic
    # rows they give, and so the sample) differ by nature between neighbours.
    for k in (1, 2, None):
        check(
            lambda data: with_sample(disguise.ProjectedHistogram(
                epsilon=50.0, schema=TABLE_SCHEMA, k=k, seed=3), data),
            table_pairs(),
            lambda seen: (seen["attributes_"], seen["report_"]["support_size"]),
            ("noisy_rows", "synthetic_rows", "sample"),
        )


def test_synthesizer_shows_only_its_release():
    # Released: the measured marginals and the values merged by the compression of the noisy 1-ways. The
    # fit (its losses, its iterations) and the rows drawn differ by nature.
    for delta in (0.0, 1e-6):
        check(
            lambda data: with_sample(disguise.Synthesizer(
                epsilon=20.0, delta=delta, schema=TABLE_SCHEMA, seed=3), data),
            table_pairs(),
            lambda seen: (seen["marginals_"], seen["report_"]["merged"]),
            ("fit", "sample"),
        )


BASKETS = [["bread", "milk"]] * 140 + [["tea", "cake"]] * 60 + [["bread", "tea"]] * 20 \
    + [["milk"]] * 20


def test_frequent_itemsets_show_only_their_release():
    B = BASKETS
    pairs = [
        ("a duplicate transaction", B, replaced(B, 1, B[200])),
        ("an item seen once", B, replaced(B, 2, ["bread", "insulin"])),
        ("items outside the list", B, replaced(B, 3, ["zzz", "yyy"])),
        ("a transaction cut to the maximum length", B,
         replaced(B, 4, [f"i{j}" for j in range(80)])),
    ]
    # With and without a public item list (the exponential mechanism over its universe, the
    # large margin mechanism over the itemsets that occur): released, the itemsets and their
    # margins; the noisy frequencies differ by nature.
    for items in (["bread", "cake", "milk", "tea", "insulin"], None):
        check(
            lambda data: disguise.frequent_itemsets(
                data, size=2, epsilon=20.0, delta=1e-6, top=2, items=items, seed=3),
            pairs,
            lambda seen: [(p["itemset"], p["margin"]) for p in seen["result"]["picks"]],
            ("noisy_frequency",),
        )


def test_the_harness_catches_a_diagnostic():
    # A negative control: with diagnostics=True the gains are shown, and a pair whose picks
    # coincide but whose gains differ must be caught.
    S = sets()
    with pytest.raises(AssertionError, match="what is shown differs"):
        check(
            lambda data: disguise.MaxCoverage(2, epsilon=40.0, seed=2, diagnostics=True).fit(
                data, candidates=["a", "b", "c", "d"]),
            [("a record outside the candidates", S, replaced(S, 2, ["zed"]))],
            ranking,
        )
    # In a table's report: the attributes kept coincide, the values clamped do not.
    with pytest.raises(AssertionError, match="what is shown differs"):
        check(
            lambda data: disguise.ProjectedHistogram(
                epsilon=50.0, schema=TABLE_SCHEMA, k=1, seed=3, diagnostics=True).fit(data),
            [table_pairs()[1]],
            lambda seen: seen["attributes_"],
            ("noisy_rows", "synthetic_rows"),
        )
    # And in a returned dict: the itemsets coincide, their true counts do not.
    with pytest.raises(AssertionError, match="what is shown differs"):
        check(
            lambda data: disguise.frequent_itemsets(
                data, size=2, epsilon=20.0, delta=1e-6, seed=3, diagnostics=True),
            [("a duplicate transaction", BASKETS, replaced(BASKETS, 1, BASKETS[200]))],
            lambda seen: seen["result"]["itemsets"],
            ("noisy_frequency",),
        )


def test_non_private_modes_run_only_as_diagnostics():
    X = np.array(points())
    with pytest.raises(ValueError, match="diagnostics=True"):
        disguise.FacilityLocation(2, epsilon=1.0).fit(X)
    with pytest.raises(ValueError, match="diagnostics=True"):
        disguise.FacilityLocation(2, mechanism="max").fit(X, candidates=CANDIDATES)
    with pytest.raises(ValueError, match="diagnostics=True"):
        disguise.MaxCoverage(1, epsilon=1.0).fit(sets())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = disguise.FacilityLocation(2, mechanism="max", diagnostics=True).fit(
            X, candidates=CANDIDATES)
    assert len(sel.gains_) == 2
    assert "values" in sel.not_private_
    private = disguise.FacilityLocation(2, epsilon=1.0).fit(X, candidates=CANDIDATES)
    with pytest.raises(AttributeError, match="diagnostics=True"):
        private.gains_
    assert "not_private" not in private.report_
    for key in ("values", "utility", "final_utility", "gain_evaluations"):
        assert key not in private.report_


def test_public_classes_bound_the_feature_utility_by_their_number():
    # Classes named by the user are public: the a-priori bound is log2 of their number; read
    # from the data, it allows one level per record (log2 n), the same for every data set.
    X, y = table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", disguise.InsecureSeedWarning)
        named = disguise.FeatureSelector(1, epsilon=1.0, seed=1, classes=[0, 1]).fit(X, y)
        seen = disguise.FeatureSelector(1, epsilon=1.0, seed=1).fit(X, y)
    assert named.usefulness_["bound"].endswith("f is at most 1"), named.usefulness_
    assert seen.usefulness_["bound"].endswith("f is at most 7.6439"), seen.usefulness_
