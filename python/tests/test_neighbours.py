"""The neighbour harness of the Python package: what a fitted estimator or a function shows
by default — its return value, every public attribute, every warning — is a function of the
public inputs and of the values it released.

Each entry point runs with one seed on pairs of neighbouring inputs (one record replaced),
including the adversarial shapes that stay valid input (a duplicate, an out-of-bounds value,
a record outside the candidates, a level seen once). Whenever the two runs released the same
values (the picks, the attributes kept), everything else they show must be equal, released
values that differ by nature (a noisy estimate) blanked. The command line's harness is
``crates/disguise-cli/tests/cli/neighbours.rs``; RELIABILITY.md describes both.
"""

import warnings

import numpy as np
import pytest

import disguise


def shown(call):
    """Everything ``call()`` shows by default: its result (or a fitted estimator's public
    attributes, an attribute that raises recorded as its error) and its warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    seen = {"warnings": [(type(w.message).__name__, str(w.message)) for w in caught]}
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
    """A comparable copy: arrays as lists, dicts and lists recursively."""
    if isinstance(value, np.ndarray):
        return value.tolist()
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
    pairs = [("scores moved by at most the sensitivity", scores, [s + d for s, d in zip(scores, [1, -1, 0.5, 1])])]
    check(lambda s: disguise.exponential(s, epsilon=20.0, sensitivity=1.0, seed=1), pairs,
          lambda seen: seen["result"])
    check(lambda s: disguise.large_margin(s, epsilon=20.0, delta=1e-6, sensitivity=1.0, seed=1),
          pairs, lambda seen: seen["result"])


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
