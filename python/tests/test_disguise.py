"""The Python package: every function and class, the command line's seed, bad input, and
the exponential mechanism's law. Statistical tests use fixed seeds; each states its
false-alarm rate."""

import json
import math
import os
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import disguise

ROOT = Path(__file__).resolve().parents[2]


def quiet(f, *args, **kwargs):
    """Calls f with the seed and usefulness warnings silenced (tested on their own)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", disguise.InsecureSeedWarning)
        warnings.simplefilter("ignore", disguise.UsefulnessWarning)
        return f(*args, **kwargs)


def real_data(relative):
    """A file of the real data ($DISGUISE_DATA, default ../shared/data): the test is skipped
    (reported as such) when it is absent, and fails instead under DISGUISE_REQUIRE_DATA."""
    path = Path(os.environ.get("DISGUISE_DATA", ROOT.parent / "shared" / "data")) / relative
    if not path.exists():
        if os.environ.get("DISGUISE_REQUIRE_DATA"):
            pytest.fail(f"{path} is missing and DISGUISE_REQUIRE_DATA is set")
        pytest.skip(f"real data not found: {path}")
    return path


def clusters(n=900, seed=0):
    """Three well separated planar clusters and candidates at their centres plus decoys."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    X = centres[np.arange(n) % 3] + rng.normal(scale=0.3, size=(n, 2))
    candidates = np.vstack([centres, [[5.0, 5.0], [10.0, 10.0], [-3.0, 4.0]]])
    return X, candidates


def chi_square(counts, probabilities):
    expected = np.asarray(probabilities) * np.sum(counts)
    return float(np.sum((np.asarray(counts) - expected) ** 2 / expected))


# --- exponential and large margin -------------------------------------------------------


def test_exponential_follows_its_law():
    # P(i) ∝ exp(ε·s_i/(2λ)), and exp(ε·s_i/λ) for the monotone variant. 20,000 draws with
    # seeds 0..19,999; χ² with 3 degrees of freedom above 16.27 has probability 0.001 under
    # the law: a false alarm rate of 1e-3 per assertion (the seeds are fixed, so the outcome
    # is too).
    scores = [0.0, 1.0, 2.0, 3.0]
    for monotone, factor in [(False, 0.5), (True, 1.0)]:
        counts = np.zeros(4)
        for s in range(20_000):
            counts[quiet(disguise.exponential, scores, epsilon=1.0, sensitivity=1.0,
                         monotone=monotone, seed=s)] += 1
        weights = np.exp(factor * np.asarray(scores))
        stat = chi_square(counts, weights / weights.sum())
        assert stat < 16.27, (monotone, counts, stat)


def test_exponential_checks_its_arguments():
    for bad, needle in [
        (dict(epsilon=0.0, sensitivity=1.0), "epsilon"),
        (dict(epsilon=-1.0, sensitivity=1.0), "epsilon"),
        (dict(epsilon=float("nan"), sensitivity=1.0), "epsilon"),
        (dict(epsilon=1.0, sensitivity=0.0), "sensitivity"),
    ]:
        with pytest.raises(ValueError, match=needle):
            disguise.exponential([1.0, 2.0], **bad)
    with pytest.raises(ValueError, match="NaN|not finite|finite"):
        disguise.exponential([1.0, float("nan")], epsilon=1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="empty"):
        disguise.exponential([], epsilon=1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="1-D"):
        disguise.exponential([[1.0, 2.0]], epsilon=1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="seed"):
        disguise.exponential([1.0], epsilon=1.0, sensitivity=1.0, seed=-1)


def test_a_seed_warns_and_reproduces():
    with pytest.warns(disguise.InsecureSeedWarning, match="NOT private"):
        a = disguise.exponential(np.arange(50.0), epsilon=0.1, sensitivity=1.0, seed=3)
    b = quiet(disguise.exponential, np.arange(50.0), epsilon=0.1, sensitivity=1.0, seed=3)
    assert a == b
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning without a seed
        assert 0 <= disguise.exponential(np.arange(5.0), epsilon=1.0, sensitivity=1.0) < 5


def test_large_margin_finds_a_clear_winner_in_both_variants():
    scores = np.zeros(1000)
    scores[417] = 10_000.0
    for variant in ["mitrovic", "chaudhuri"]:
        pick = disguise.large_margin(scores, epsilon=1.0, delta=1e-6, sensitivity=1.0,
                                     variant=variant)
        assert pick == 417
    with pytest.raises(ValueError, match="variant"):
        disguise.large_margin(scores, epsilon=1.0, delta=1e-6, sensitivity=1.0, variant="x")
    with pytest.raises(ValueError, match="delta|δ"):
        disguise.large_margin(scores, epsilon=1.0, delta=0.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="delta|δ"):
        disguise.large_margin(scores, epsilon=1.0, delta=1.0, sensitivity=1.0)


# --- budget -------------------------------------------------------------------------------


def test_budget_is_the_command_lines_plan_with_the_chosen_rule():
    b = disguise.budget(epsilon=1.0, delta=1e-6, rounds=10)
    assert {"rules", "best", "rule", "per_round_epsilon", "per_round_delta"} <= set(b)
    assert b["rule"] == b["best"]["rule"]
    assert b["per_round_epsilon"] == b["best"]["per_round_epsilon"]
    basic = disguise.budget(epsilon=1.0, delta=1e-6, rounds=10, rule="basic")
    assert basic["rule"] == "basic"
    assert basic["per_round_epsilon"] <= 0.1 and basic["per_round_epsilon"] > 0.1 - 1e-12
    assert b["per_round_epsilon"] >= basic["per_round_epsilon"]
    # The end-to-end guarantee the accountant proves for the chosen split: within the total.
    for plan in (b, basic):
        g = plan["guarantee"]
        assert g["rule"] == plan["rule"]
        assert g["epsilon"] <= 1.0 + 1e-9 and g["delta"] <= 1e-6
        assert g["epsilon"] > 0.9, g  # the split spends (almost) the whole budget
    binary = ROOT / "target" / "debug" / "disguise"
    cli = os.environ.get("DISGUISE_BIN", str(binary))
    if Path(cli).exists():
        out = subprocess.run(
            [cli, "budget", "--epsilon", "1", "--delta", "1e-6", "--rounds", "10",
             "--format", "json"], check=True, capture_output=True, text=True).stdout
        plan = json.loads(out)
        assert plan["rules"] == b["rules"] and plan["best"] == b["best"]
    with pytest.raises(ValueError, match="rounds"):
        disguise.budget(epsilon=1.0, delta=1e-6, rounds=0)
    with pytest.raises(ValueError, match="composition|rule"):
        disguise.budget(epsilon=1.0, delta=1e-6, rounds=10, rule="nonsense")
    with pytest.raises(ValueError, match="delta|δ"):
        disguise.budget(epsilon=1.0, delta=1.5, rounds=3)


# --- facility location --------------------------------------------------------------------


def test_facility_location_chooses_the_cluster_centres():
    X, candidates = clusters()
    sel = disguise.FacilityLocation(3, epsilon=5.0, seed=1)
    with pytest.warns(disguise.InsecureSeedWarning):
        sel.fit(X, candidates=candidates)
    assert sorted(sel.ranking_.tolist()) == [0, 1, 2]
    assert sel.ranking_.dtype == np.int64
    # The exact gains are values of the data: not shown by default.
    with pytest.raises(AttributeError, match="diagnostics=True"):
        sel.gains_
    with pytest.raises(AttributeError, match="diagnostics=True"):
        sel.not_private_
    assert "values" not in sel.report_ and "not_private" not in sel.report_
    shown = quiet(disguise.FacilityLocation(3, epsilon=5.0, seed=1, diagnostics=True).fit, X,
                  candidates=candidates)
    assert shown.ranking_.tolist() == sel.ranking_.tolist()
    assert shown.gains_.shape == (3,) and np.all(shown.gains_ > 0)
    assert sel.guarantee_["epsilon"] <= 5.0 + 1e-12
    assert sel.guarantee_["private"] is False  # seeded
    assert sel.usefulness_["vacuous"] is False
    np.testing.assert_array_equal(sel.transform(candidates), candidates[sel.ranking_])
    # Without a seed the run is private.
    fresh = disguise.FacilityLocation(3, epsilon=5.0).fit(X, candidates=candidates)
    assert fresh.guarantee_["private"] is True
    assert fresh.report_["secure_rng"] is True


def test_a_refit_replaces_the_report_read_lazily():
    X, candidates = clusters()
    sel = disguise.FacilityLocation(2, epsilon=5.0, diagnostics=True).fit(X, candidates=candidates)
    first = sel.report_
    # The gains are the differences of the cumulative values, diagnostics of the report.
    assert "values" not in first
    np.testing.assert_allclose(np.cumsum(sel.gains_), first["not_private"]["values"])
    assert sel.not_private_ is first["not_private"]
    assert sel.ranking_.tolist() == first["selected"]
    sel.set_params(n_select=3).fit(X, candidates=candidates)
    assert sel.report_["k"] == 3 and len(sel.report_["selected"]) == 3
    assert sel.ranking_.tolist() == sel.report_["selected"]
    with pytest.raises(AttributeError):
        disguise.FacilityLocation(2, epsilon=1.0).report_


def test_facility_location_in_several_dimensions_and_layouts():
    rng = np.random.default_rng(5)
    centres = rng.normal(scale=20.0, size=(4, 6))
    X = centres[np.arange(2000) % 4] + rng.normal(size=(2000, 6))
    candidates = np.vstack([centres, rng.normal(scale=20.0, size=(20, 6))])
    picks = []
    for variant in [X, X.astype(np.float32), np.asfortranarray(X), X.round().astype(np.int64)]:
        sel = quiet(disguise.FacilityLocation(4, epsilon=10.0, seed=2).fit, variant,
                    candidates=candidates)
        picks.append(sorted(sel.ranking_.tolist()))
    assert picks[0] == [0, 1, 2, 3]
    assert picks[1] == picks[0] and picks[2] == picks[0]
    manhattan = quiet(disguise.FacilityLocation(4, epsilon=10.0, metric="manhattan",
                                                seed=2).fit, X, candidates=candidates)
    assert sorted(manhattan.ranking_.tolist()) == [0, 1, 2, 3]


def test_facility_location_takes_a_dataframe():
    pd = pytest.importorskip("pandas")
    X, candidates = clusters()
    frame = pd.DataFrame(X, columns=["x", "y"])
    sel = quiet(disguise.FacilityLocation(3, epsilon=5.0, seed=1).fit, frame,
                candidates=pd.DataFrame(candidates))
    assert sorted(sel.ranking_.tolist()) == [0, 1, 2]


def test_records_as_candidates_is_said_not_private():
    X, _ = clusters(n=300)
    # Not private: it runs only as a diagnostic, and warns then.
    with pytest.raises(ValueError, match="diagnostics=True"):
        disguise.FacilityLocation(3, epsilon=1.0).fit(X)
    with pytest.warns(disguise.NotPrivateWarning, match="NOT differentially private"):
        sel = disguise.FacilityLocation(3, epsilon=1.0, diagnostics=True).fit(X)
    assert sel.guarantee_["private"] is False
    with pytest.warns(disguise.NotPrivateWarning):
        assert sel.fit_transform(X).shape == (3, 2)


@pytest.mark.parametrize("estimator", ["FacilityLocation", "MaxCoverage", "FeatureSelector"])
def test_the_argmax_warns_that_it_is_not_private(estimator, tmp_path):
    # mechanism="max" ignores epsilon and returns the data's exact optimum: it runs only as
    # a diagnostic, every estimator says so, as for any non-private path, and a ledger
    # refuses it before anything is recorded.
    X, candidates = clusters(n=300)
    people = [["a"]] * 60 + [["a", "b"]] * 20 + [["c"]] * 40
    Xf, y = informative_table(n=500)
    fit = {
        "FacilityLocation": lambda **kw: disguise.FacilityLocation(2, epsilon=1.0, **kw).fit(
            X, candidates=candidates),
        "MaxCoverage": lambda **kw: disguise.MaxCoverage(1, epsilon=1.0, **kw).fit(
            people, candidates=["a", "b", "c"]),
        "FeatureSelector": lambda **kw: disguise.FeatureSelector(2, epsilon=1.0, **kw).fit(Xf, y),
    }[estimator]
    for name in ["max", " ArgMax"]:
        with pytest.raises(ValueError, match="max is not private.*pass diagnostics=True"):
            fit(mechanism=name)
        with pytest.warns(disguise.NotPrivateWarning, match="non-private argmax: epsilon is ignored"):
            sel = fit(mechanism=name, diagnostics=True)
        assert sel.guarantee_["private"] is False
        assert "NOT private" in sel.guarantee_["note"]
        assert len(sel.gains_) == len(sel.ranking_)
    with warnings.catch_warnings():
        warnings.simplefilter("error", disguise.NotPrivateWarning)  # a private one does not
        warnings.simplefilter("ignore", disguise.UsefulnessWarning)
        assert fit().guarantee_["private"] is True
    ledger = disguise.Ledger.create(tmp_path / "budget.ledger")
    ledger.set_limit("d", epsilon=10.0)
    with pytest.raises(ValueError, match="max is not private"):
        fit(mechanism="max", ledger=ledger, dataset="d")
    with pytest.raises(ValueError, match="a budget ledger cannot account for it"):
        fit(mechanism="max", ledger=ledger, dataset="d", diagnostics=True)
    assert ledger.releases() == []


def test_the_seed_gives_the_command_lines_selection(tmp_path):
    binary = Path(os.environ.get("DISGUISE_BIN", ROOT / "target" / "debug" / "disguise"))
    if not binary.exists():
        pytest.skip(f"the disguise binary is not built ({binary}); set DISGUISE_BIN")
    X, candidates = clusters(n=3000, seed=4)
    (tmp_path / "p.csv").write_text(
        "x,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in X))
    (tmp_path / "c.csv").write_text(
        "name,x,y\n"
        + "".join(f"c{i},{float(a)!r},{float(b)!r}\n" for i, (a, b) in enumerate(candidates)))
    for mechanism, delta in [("em", 0.0), ("lmm", 1e-6)]:
        for diagnostics in (False, True):
            out = subprocess.run(
                [str(binary), "select", "--points", "p.csv", "--candidates", "c.csv", "--x",
                 "x", "--y", "y", "--metric", "euclidean", "--k", "4", "--epsilon", "0.05",
                 "--delta", str(delta), "--mechanism", mechanism, "--seed", "7",
                 "--format", "json", *(["--diagnostics"] if diagnostics else [])],
                cwd=tmp_path, check=True, capture_output=True, text=True).stdout
            cli = json.loads(out)
            sel = quiet(disguise.FacilityLocation(4, epsilon=0.05, delta=delta,
                                                  mechanism=mechanism, seed=7,
                                                  diagnostics=diagnostics).fit,
                        X, candidates=candidates)
            assert sel.ranking_.tolist() == cli["selected"], mechanism
            assert sel.guarantee_["epsilon"] == cli["guarantee"]["epsilon"]
            # The same release, and with the diagnostics the same exact values.
            assert ("not_private" in cli) == ("not_private" in sel.report_) == diagnostics
            if diagnostics:
                assert sel.not_private_["values"] == cli["not_private"]["values"]


@pytest.mark.parametrize(
    "X, candidates, params, needle",
    [
        (np.array([[0.0, np.nan]]), np.zeros((2, 2)), {}, "NaN"),
        (np.zeros(5), np.zeros((2, 2)), {}, "2-D"),
        (np.zeros((0, 2)), np.zeros((2, 2)), {}, "empty"),
        (np.zeros((5, 2)), np.zeros((2, 3)), {}, "columns"),
        (np.zeros((5, 2)), np.eye(2), {"n_select": 3}, "larger than the number of candidates"),
        (np.zeros((5, 2)), np.eye(2), {"epsilon": 0.0}, "epsilon"),
        (np.zeros((5, 2)), np.eye(2), {"epsilon": -2.0}, "epsilon"),
        (np.zeros((5, 2)), np.eye(2), {"delta": 1.0}, "delta|δ"),
        (np.zeros((5, 2)), np.eye(2), {"n_select": 0}, "n_select"),
        (np.zeros((5, 2)), np.eye(2), {"metric": "cosine"}, "metric"),
        (np.zeros((5, 2)), np.eye(2), {"mechanism": "magic"}, "mechanism"),
        (np.zeros((5, 2)), np.ones((2, 2)), {}, "normaliser"),
        ([["a", "b"]], np.eye(2), {}, "X"),
    ],
)
def test_bad_input_raises_value_error(X, candidates, params, needle):
    options = {"n_select": 1, "epsilon": 1.0, **params}
    n_select = options.pop("n_select")
    with pytest.raises(ValueError, match=needle):
        disguise.FacilityLocation(n_select, **options).fit(X, candidates=candidates)


def test_parameters_follow_the_scikit_learn_conventions():
    sel = disguise.FacilityLocation(3, epsilon=1.0, metric="manhattan")
    params = sel.get_params()
    assert params["n_select"] == 3 and params["metric"] == "manhattan"
    assert sel.set_params(epsilon=2.0) is sel and sel.epsilon == 2.0
    with pytest.raises(ValueError, match="invalid parameter"):
        sel.set_params(nonsense=1)
    assert "FacilityLocation(n_select=3" in repr(sel)
    with pytest.raises(ValueError, match="not fitted"):
        sel.transform(np.eye(2))
    base = pytest.importorskip("sklearn.base")
    copy = base.clone(sel)
    assert copy.get_params() == sel.get_params() and copy is not sel


# --- maximum coverage and itemsets ----------------------------------------------------------


def test_max_coverage_from_sets_and_from_a_matrix():
    people = [["a"]] * 60 + [["a", "b"]] * 20 + [["b"]] * 10 + [["c"]] * 40
    sel = quiet(disguise.MaxCoverage(2, epsilon=10.0, seed=2).fit, people,
                candidates=["a", "b", "c"])
    assert [sel.candidates_[i] for i in sel.ranking_] == ["a", "c"]
    with pytest.raises(AttributeError, match="diagnostics=True"):
        sel.gains_
    shown = quiet(disguise.MaxCoverage(2, epsilon=10.0, seed=2, diagnostics=True).fit, people,
                  candidates=["a", "b", "c"])
    assert shown.ranking_.tolist() == sel.ranking_.tolist()
    assert shown.gains_.tolist() == [80.0, 40.0]
    assert sel.guarantee_["epsilon"] <= 10.0 + 1e-12
    matrix = np.zeros((130, 3), dtype=np.int8)
    for i, row in enumerate(people):
        for name in row:
            matrix[i, "abc".index(name)] = 1
    by_matrix = quiet(disguise.MaxCoverage(2, epsilon=10.0, seed=2).fit, matrix)
    assert by_matrix.ranking_.tolist() == sel.ranking_.tolist()
    with pytest.raises(ValueError, match="diagnostics=True"):
        disguise.MaxCoverage(1, epsilon=10.0).fit(people)
    with pytest.warns(disguise.NotPrivateWarning):
        implicit = disguise.MaxCoverage(1, epsilon=10.0, diagnostics=True).fit(people)
    assert implicit.guarantee_["private"] is False
    with pytest.raises(ValueError, match="larger than the number of candidates"):
        disguise.MaxCoverage(4, epsilon=1.0).fit(matrix)
    with pytest.raises(ValueError, match="empty"):
        disguise.MaxCoverage(1, epsilon=1.0).fit([], candidates=["a"])
    with pytest.raises(ValueError, match="listed twice"):
        disguise.MaxCoverage(1, epsilon=1.0).fit(people, candidates=["a", "a"])


def test_frequent_itemsets_with_and_without_an_item_list():
    baskets = [["tea", "cake"]] * 600 + [["bread", "milk", "eggs"]] * 1400
    items = ["bread", "cake", "eggs", "milk", "tea"]
    r = quiet(disguise.frequent_itemsets, baskets, size=2, epsilon=2.0, delta=1e-6, top=2,
              items=items, seed=1)
    assert r["mechanism"] == "em"
    assert len(r["itemsets"]) == 2 and all(len(s) == 2 for s in r["itemsets"])
    assert set(r["itemsets"][0]) <= {"bread", "milk", "eggs"}
    assert r["usefulness"]["vacuous"] is False
    lmm = quiet(disguise.frequent_itemsets, baskets * 5, size=1, epsilon=1.0, delta=1e-6,
                seed=1)
    assert lmm["mechanism"] == "lmm"
    assert lmm["itemsets"][0] in {("bread",), ("milk",), ("eggs",)}
    with pytest.raises(ValueError, match="size"):
        disguise.frequent_itemsets(baskets, size=0, epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError, match="empty"):
        disguise.frequent_itemsets([], size=1, epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError, match="epsilon"):
        disguise.frequent_itemsets(baskets, size=1, epsilon=-1.0, delta=1e-6)


def test_frequent_itemsets_show_exact_counts_only_as_diagnostics():
    # 2,000 baskets; "x" is outside the public list (dropped), and so are the 70 items of
    # the last basket, which without the list is cut to the maximum length, 64.
    baskets = [["tea", "cake"]] * 600 + [["bread", "milk", "x"]] * 1399 + [
        ["bread", "milk", *(f"i{j}" for j in range(70))]]
    items = ["bread", "cake", "milk", "tea"]
    run = lambda **kw: quiet(disguise.frequent_itemsets, baskets, size=2, epsilon=2.0,
                             delta=1e-6, top=2, items=items, seed=1, **kw)
    default, shown = run(), run(diagnostics=True)
    assert "not_private" not in default
    for pick in default["picks"]:
        assert set(pick) == {"round", "itemset", "outcome", "margin", "noisy_frequency"}
    for key in ("occurring", "truncated", "dropped_items", "true_count", "true_frequency"):
        assert key not in json.dumps(default)
    # The diagnostics come apart, beside the same release.
    not_private = shown.pop("not_private")
    assert shown == default
    assert default["itemsets"] == [("bread", "milk"), ("cake", "tea")]
    assert [p["true_count"] for p in not_private["picks"]] == [1400, 600]
    assert [p["true_frequency"] for p in not_private["picks"]] == [0.7, 0.3]
    assert all(p["occurs"] for p in not_private["picks"])
    assert not_private["occurring"] == 2 and not_private["truncated"] == 0
    assert not_private["dropped_items"] == 1399 + 70
    unlisted = quiet(disguise.frequent_itemsets, baskets, size=2, epsilon=2.0, delta=1e-6,
                     seed=1, diagnostics=True)
    assert "not_private" in unlisted and "truncated" not in unlisted
    assert unlisted["not_private"]["truncated"] == 1
    assert unlisted["not_private"]["dropped_items"] == 0
    with pytest.raises(ValueError, match="invalid diagnostics"):
        disguise.frequent_itemsets(baskets, size=2, epsilon=2.0, delta=1e-6, diagnostics="yes")


def test_frequent_itemsets_never_return_an_item_only_the_data_holds():
    # One person's rare item must not come back in the result, with or without a public
    # item list (the list drops it; without one, only released itemsets name items).
    baskets = [["bread", "milk"]] * 1400 + [["tea", "cake"]] * 600 + [["bread", "insulin"]]
    listed = quiet(disguise.frequent_itemsets, baskets, size=2, epsilon=1.0, delta=1e-6,
                   items=["tea", "bread", "milk", "cake", "tea"], seed=1)
    assert listed["items"] == ["bread", "cake", "milk", "tea"]
    unlisted = quiet(disguise.frequent_itemsets, baskets, size=2, epsilon=1.0, delta=1e-6,
                     seed=1)
    assert unlisted["itemsets"] == [("bread", "milk")]
    assert unlisted["items"] == ["bread", "milk"]
    for report in (listed, unlisted):
        assert "insulin" not in json.dumps(report)


def test_no_panic_reaches_python_on_extreme_values():
    # Huge and tiny magnitudes, many candidates: errors are ValueError, never a crash.
    for scores in [[1e308, -1e308], [5e-324, 0.0], list(range(10_000))]:
        try:
            disguise.exponential(scores, epsilon=1e-9, sensitivity=1e300)
        except ValueError:
            pass
    with pytest.raises(ValueError):
        disguise.FacilityLocation(1, epsilon=1.0).fit(np.full((3, 2), 1e300), np.eye(2))
    assert math.isfinite(disguise.budget(epsilon=50.0, delta=0.5, rounds=10**9)["per_round_epsilon"])


# --- feature selection ----------------------------------------------------------------------


def informative_table(n=3000, seed=0):
    """y, a copy of y with 10% flipped, a weaker copy (30% flipped), and two noise columns."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    strong = np.where(rng.random(n) < 0.1, 1 - y, y)
    weak = np.where(rng.random(n) < 0.3, 1 - y, y)
    X = np.column_stack([rng.integers(0, 4, n), strong, rng.integers(0, 3, n), weak])
    return X, y


def test_feature_selector_chooses_the_informative_columns():
    # 20,000 records: the sensitivity (about 1/n bits) is small next to the weak column's
    # 0.04 bits, so at ε = 5 the choice is all but certain (and the seed fixes it).
    X, y = informative_table(n=20_000)
    sel = quiet(disguise.FeatureSelector(2, epsilon=5.0, seed=1).fit, X, y)
    assert sel.ranking_.tolist() == [1, 3]
    assert sel.get_support().tolist() == [False, True, False, True]
    assert sel.get_support(indices=True).tolist() == [1, 3]
    np.testing.assert_array_equal(sel.transform(X), X[:, [1, 3]])
    assert sel.get_feature_names_out().tolist() == ["x1", "x3"]
    assert "values" not in sel.report_
    shown = quiet(disguise.FeatureSelector(2, epsilon=5.0, seed=1, diagnostics=True).fit, X, y)
    assert shown.ranking_.tolist() == [1, 3]
    assert shown.gains_[0] > shown.gains_[1] > 0
    assert sel.guarantee_["epsilon"] <= 5.0 + 1e-12
    assert sel.usefulness_["vacuous"] is False
    # Text categories, public levels and a DataFrame give the same choice.
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": X[:, 0], "b": np.where(X[:, 1] == 1, "yes", "no"),
                          "c": X[:, 2], "d": X[:, 3]})
    by_frame = quiet(disguise.FeatureSelector(2, epsilon=5.0, seed=1).fit, frame, y)
    assert by_frame.get_feature_names_out().tolist() == ["b", "d"]
    assert list(by_frame.transform(frame).columns) == ["b", "d"]
    public = disguise.FeatureSelector(
        2, epsilon=5.0, categories=[[0, 1, 2, 3], ["no", "yes"], [0, 1, 2], [0, 1]],
        classes=[0, 1]).fit(frame, y)
    assert sorted(public.ranking_.tolist()) == [1, 3]


def test_feature_selection_in_a_scikit_learn_pipeline_on_nhanes():
    path = real_data("nhanes_diabetes/nhanes_diabetes_binary.csv")
    pd = pytest.importorskip("pandas")
    sklearn = pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline

    table = pd.read_csv(path)
    X, y = table.drop(columns=["ID", "diabetes"]), table["diabetes"]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    pipe = make_pipeline(disguise.FeatureSelector(5, epsilon=1.0, seed=3),
                         LogisticRegression(max_iter=1000))
    quiet(pipe.fit, X_train, y_train)
    selector = pipe[0]
    assert selector.support_.sum() == 5
    assert len(selector.get_feature_names_out()) == 5
    # Better than always predicting the majority class: the chosen features carry signal.
    majority = max(y_test.mean(), 1 - y_test.mean())
    assert pipe.score(X_test, y_test) >= majority - 0.01
    copy = clone(pipe)
    assert copy[0].get_params() == selector.get_params()


def test_the_seed_gives_the_command_lines_feature_selection(tmp_path):
    binary = Path(os.environ.get("DISGUISE_BIN", ROOT / "target" / "debug" / "disguise"))
    if not binary.exists():
        pytest.skip(f"the disguise binary is not built ({binary}); set DISGUISE_BIN")
    X, y = informative_table(n=2000, seed=9)
    rows = "".join(",".join(str(v) for v in row) + f",{label}\n" for row, label in zip(X, y))
    (tmp_path / "t.csv").write_text("a,b,c,d,y\n" + rows)
    out = subprocess.run(
        [str(binary), "features", "--data", "t.csv", "--label", "y", "--k", "3", "--epsilon",
         "0.3", "--seed", "11", "--format", "json", "--diagnostics"],
        cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    cli = json.loads(out)
    sel = quiet(disguise.FeatureSelector(3, epsilon=0.3, seed=11, diagnostics=True).fit, X, y)
    assert sel.ranking_.tolist() == cli["selected"]
    assert sel.not_private_["values"] == cli["not_private"]["values"]


def test_feature_selector_keeps_no_label_level_read_from_the_data():
    # One person's rare label: its name is in no attribute and not in the report, unless
    # the levels were given publicly.
    X, y = informative_table(n=1000)
    labels = np.where(y == 1, "yes", "no").astype(object)
    labels[17] = "rare-diagnosis"
    sel = quiet(disguise.FeatureSelector(1, epsilon=1.0).fit, X, labels)
    assert not hasattr(sel, "classes_")
    assert "rare-diagnosis" not in json.dumps(sel.report_)
    public = quiet(disguise.FeatureSelector(1, epsilon=1.0,
                                            classes=["no", "rare-diagnosis", "yes"]).fit, X, labels)
    assert public.classes_.tolist() == ["no", "rare-diagnosis", "yes"]
    # A refit without public levels drops the previous fit's.
    public.set_params(classes=None)
    quiet(public.fit, X, labels)
    assert not hasattr(public, "classes_")


@pytest.mark.parametrize(
    "X, y, params, needle",
    [
        (np.zeros((10, 2)), np.zeros(9), {}, "records"),
        (np.column_stack([np.arange(100.0), np.zeros(100)]), np.zeros(100), {},
         "numeric with 100 distinct values"),
        (np.array([[0.0, np.nan]] * 5), np.zeros(5), {}, "NaN"),
        (np.zeros((10, 2)), np.zeros(10), {"n_features": 3}, "larger than the number of features"),
        (np.zeros((10, 2)), np.zeros(10), {"epsilon": 0.0}, "epsilon"),
        (np.zeros(10), np.zeros(10), {}, "2-D"),
        (np.zeros((10, 2)), np.zeros(10), {"categories": [[0]]}, "categories"),
        (np.ones((10, 2)), np.zeros(10), {"categories": [[0], [0]]}, "not among its categories"),
    ],
)
def test_feature_selector_refuses_bad_input(X, y, params, needle):
    options = {"n_features": 1, "epsilon": 1.0, **params}
    k = options.pop("n_features")
    with pytest.raises(ValueError, match=needle):
        disguise.FeatureSelector(k, **options).fit(X, y)


def test_ctrl_c_interrupts_a_long_run():
    # A run of about half a minute (3 million records × 300 candidates × 100 rounds),
    # interrupted half a second in: KeyboardInterrupt must reach Python at once.
    import signal
    import sys
    import time

    # A process started with SIGINT ignored keeps it ignored, Python included, and so do its
    # children: .ci/run launched in the background by a non-interactive shell ran this child
    # deaf to Ctrl-C (it finished its 15 s fit). The child restores the interactive handler.
    script = (
        "import signal\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "import numpy as np, disguise, sys\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.normal(size=(3_000_000, 2))\n"
        "C = rng.normal(size=(300, 2))\n"
        "print('started', flush=True)\n"
        "disguise.FacilityLocation(100, epsilon=1.0).fit(X, candidates=C)\n"
        "print('finished', flush=True)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "started"
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    sent = time.monotonic()
    out, err = child.communicate(timeout=30)
    waited = time.monotonic() - sent
    assert "KeyboardInterrupt" in err, f"return code {child.returncode}, stdout {out!r}, stderr {err!r}"
    assert "finished" not in out
    assert waited < 5.0, f"{waited:.1f} s after Ctrl-C"


# --- projected histograms ---------------------------------------------------------------------

SCHEMA = {
    "target": "sick",
    "missing": "?",
    "columns": [
        {"name": "smoker", "type": "categorical", "levels": ["no", "yes"]},
        {"name": "age", "type": "numeric", "bounds": [0, 100], "bins": 4, "nullable": True},
        {"name": "city", "type": "categorical", "levels": ["a", "b", "c"]},
        {"name": "sick", "type": "categorical", "levels": ["no", "yes"]},
    ],
}


def sick_table(n=3000, seed=0):
    """sick = smoker for 90% of records; age and city are unrelated; some ages missing."""
    rng = np.random.default_rng(seed)
    smoker = rng.random(n) < 0.3
    sick = np.where(rng.random(n) < 0.9, smoker, ~smoker)
    age = rng.uniform(0, 100, n)
    age[rng.random(n) < 0.05] = np.nan
    return {
        "smoker": np.where(smoker, "yes", "no"),
        "age": age,
        "city": rng.choice(["a", "b", "c"], n),
        "sick": np.where(sick, "yes", "no"),
    }


def test_projected_histogram_releases_n_rows_that_keep_the_signal():
    data = sick_table()
    h = quiet(disguise.ProjectedHistogram(epsilon=2.0, schema=SCHEMA, k=1, seed=4).fit, data)
    assert h.attributes_ == ["smoker"]
    assert h.k_ == 1 and 0 < h.gamma_ <= 1
    assert h.guarantee_["epsilon"] <= 2.0 + 1e-12
    assert h.usefulness_["vacuous"] is False
    table = h.sample()
    assert len(table) == 3000  # n, public under replace-one neighbours
    assert list(table.columns) == ["smoker", "sick"]
    agree = np.mean(table["smoker"] == table["sick"])
    assert 0.85 <= agree <= 0.95, agree
    assert len(h.sample(250)) == 250 and len(h.sample(0)) == 0
    # The same release from a DataFrame and from rows in the schema's order.
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(data)
    by_frame = quiet(disguise.ProjectedHistogram(epsilon=2.0, schema=SCHEMA, k=1, seed=4).fit,
                     frame)
    assert by_frame.report_["support_size"] == h.report_["support_size"]
    rows = list(zip(*(data[c] for c in ["smoker", "age", "city", "sick"])))
    by_rows = quiet(disguise.ProjectedHistogram(epsilon=2.0, schema=SCHEMA, k=1, seed=4).fit,
                    rows)
    assert by_rows.sample().equals(table)


def test_tables_show_the_values_clamped_only_as_diagnostics():
    # 5 ages outside the public bounds [0, 100] are clamped into the edge bins: how many is
    # counted on the data, shown only with diagnostics=True, beside the same release.
    data = sick_table(n=1000)
    data["age"] = data["age"].copy()
    data["age"][:3] = 150.0
    data["age"][3:5] = -1.0
    for make in (
        lambda **kw: disguise.ProjectedHistogram(epsilon=2.0, schema=SCHEMA, k=2, seed=4, **kw),
        lambda **kw: disguise.Synthesizer(epsilon=2.0, schema=SCHEMA, seed=4, **kw),
    ):
        default = quiet(make().fit, data)
        assert "not_private" not in default.report_
        assert "clamped" not in json.dumps(default.report_)
        with pytest.raises(AttributeError, match="fit with diagnostics=True"):
            default.not_private_
        shown = quiet(make(diagnostics=True).fit, data)
        assert shown.not_private_ == {"clamped": [["age", 5]]}
        report = dict(shown.report_)
        assert report.pop("not_private") == shown.not_private_
        assert report == default.report_
        assert shown.sample(30).equals(default.sample(30))
    # Nothing clamped: an empty list.
    inside = quiet(disguise.ProjectedHistogram(epsilon=2.0, schema=SCHEMA, k=1, seed=4,
                                               diagnostics=True).fit, sick_table(n=500))
    assert inside.not_private_ == {"clamped": []}


def test_projected_histogram_gamma_rules_and_the_balanced_default():
    data = sick_table()
    fit = lambda **kw: quiet(disguise.ProjectedHistogram(
        epsilon=4.0, schema=SCHEMA, k=1, seed=4, **kw).fit, data)
    paper, surplus, default = fit(gamma_rule="paper"), fit(gamma_rule="surplus"), fit()
    assert surplus.gamma_ > paper.gamma_
    assert surplus.report_["gamma_method"] == "surplus γ rule"
    assert surplus.guarantee_["epsilon"] <= 4.0 + 1e-12
    # The default is the balanced rule: √h/(√h + √e_p), at most 10 h/ε.
    assert default.report_["gamma_method"] == "balanced γ rule"
    est = default.report_["gamma_estimate"]
    h, p = est["epsilon_h_cells"], est["epsilon_p"]
    assert default.gamma_ == pytest.approx(min(h**0.5 / (h**0.5 + p**0.5), 10 * h / 4.0), rel=1e-12)
    # Kept and dropped predictors, in table order.
    assert len(default.attributes_) == 1
    assert sorted(default.attributes_ + default.dropped_) == sorted(
        c["name"] for c in SCHEMA["columns"] if c["name"] != SCHEMA["target"])
    with pytest.raises(ValueError, match="gamma rule"):
        disguise.ProjectedHistogram(epsilon=1.0, schema=SCHEMA, gamma_rule="best").fit(data)


def test_projected_histogram_on_adult_with_the_shipped_schema():
    path = real_data("uci_adult/adult.data")
    pd = pytest.importorskip("pandas")
    schema_path = ROOT / "crates" / "disguise" / "schemas" / "adult.schema.toml"
    schema = json.loads(disguise._disguise.histogram_schema(str(schema_path), "path"))
    names = [c["name"] for c in schema["columns"]]
    frame = pd.read_csv(path, header=None, names=names, skipinitialspace=True, dtype=str)
    h = quiet(disguise.ProjectedHistogram(epsilon=1.0, schema=schema_path, seed=1).fit, frame)
    assert h.report_["records"] == len(frame) == 32_561
    assert h.guarantee_["epsilon"] <= 1.0 + 1e-12
    table = h.sample()
    assert len(table) == len(frame)
    target = schema["target"]
    share = np.mean(table[target] == ">50K")
    assert 0.15 <= share <= 0.35, share  # 24% in the data


def test_projected_histogram_cuts_numeric_columns_for_the_predictors_kept():
    # Four numeric predictors over 2,000 records, y = [x0 > 0.5]; k = 1 is kept. The bandwidth
    # rule bw = (ln n/n)^(1/(p+1)) with ln 2000/2000 = 0.0038 gives 16 bins for p = 1 (the
    # default, as the command line's --bin-rule released) and 3 for all p = 4 (the paper's).
    schema = {"target": "y", "columns": [
        *({"name": f"x{j}", "type": "numeric", "bounds": [0, 1]} for j in range(4)),
        {"name": "y", "type": "categorical", "levels": ["a", "b"]}]}
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(2000, 4))
    data = {**{f"x{j}": x[:, j] for j in range(4)}, "y": np.where(x[:, 0] > 0.5, "b", "a")}
    # Under the default rule the columns are cut where their data lie: 15 private quantiles
    # (sixteenths) look for point masses, and the 16 bins cut noisy cell counts (up to 16
    # bins, fewer where edges coincide); the paper's rule is exact, equal width, without
    # private edges.
    for rule, bins in [("released", 16), ("paper", 3)]:
        h = quiet(disguise.ProjectedHistogram(epsilon=8.0, schema=schema, k=1, seed=1,
                                              bin_rule=rule, values="midpoint").fit, data)
        assert h.attributes_ == ["x0"], h.report_
        assert 2 <= h.report_["bins"]["x0"] <= bins, h.report_
        edges = h.report_.get("edges")
        if rule == "released":
            assert [c["quantiles"] for c in edges["columns"]] == [15] * 4, edges
            assert all(len(c["cell_counts"]) >= 16 for c in edges["columns"]), edges
        else:
            assert edges is None and h.report_["bins"] == {"x0": 3}, h.report_
        assert len({float(v) for v in h.sample()["x0"]}) <= bins
    with pytest.raises(ValueError, match="bin rule"):
        disguise.ProjectedHistogram(epsilon=1.0, schema=schema, bin_rule="fine").fit(data)


def test_projected_histogram_refuses_bad_input_and_warns_when_useless():
    with pytest.raises(ValueError, match="schema"):
        disguise.ProjectedHistogram(epsilon=1.0, schema=42).fit(sick_table())
    with pytest.raises(ValueError, match="bounds|levels|columns"):
        disguise.ProjectedHistogram(
            epsilon=1.0, schema={"target": "x", "columns": [{"name": "x", "type": "numeric"}]}
        ).fit({"x": [1.0]})
    with pytest.raises(ValueError, match="no column 'city'"):
        data = sick_table()
        del data["city"]
        disguise.ProjectedHistogram(epsilon=1.0, schema=SCHEMA).fit(data)
    with pytest.raises(ValueError, match="epsilon"):
        disguise.ProjectedHistogram(epsilon=0.0, schema=SCHEMA).fit(sick_table())
    bad = sick_table()
    bad["city"] = bad["city"].astype(object)
    bad["city"][3] = "zzz"
    with pytest.raises(ValueError, match="data:4:3: column 'city': \"zzz\" is not one of"):
        disguise.ProjectedHistogram(epsilon=1.0, schema=SCHEMA).fit(bad)
    no_missing = dict(SCHEMA, missing=None)
    del no_missing["missing"]
    with pytest.raises(ValueError, match="missing"):
        disguise.ProjectedHistogram(epsilon=1.0, schema=no_missing).fit(sick_table())
    # The expectation reads the release (cells and rows released), so the run is seeded: with
    # seed 0 one of the two released cells is expected to be noise, holding most rows.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", disguise.InsecureSeedWarning)
        with pytest.warns(disguise.UsefulnessWarning, match="most of the release is expected to be noise"):
            h = disguise.ProjectedHistogram(epsilon=0.05, schema=SCHEMA, k=2, gamma=0.5,
                                            seed=0).fit(sick_table(n=400))
    assert h.usefulness_["vacuous"] is True and h.usefulness_["worst_case"] is False
    with pytest.raises(ValueError, match="not fitted"):
        disguise.ProjectedHistogram(epsilon=1.0, schema=SCHEMA).sample()


def test_a_cost_per_candidate_defaults_to_the_subsample_greedy():
    X, candidates = clusters()
    sel = quiet(disguise.FacilityLocation(3, epsilon=5.0, cost=50.0, seed=2).fit, X,
                candidates=candidates)
    assert sel.report_["algorithm"] == "subsample-greedy"
    assert sel.report_["objective"] == "penalized" and sel.report_["cost"] == 50.0
    assert "Theorem 4.1" in sel.usefulness_["bound"]
    # Every chosen centre serves 300 records: worth its cost, so the value grows (the
    # gains are exact values of the data: diagnostics).
    shown = quiet(disguise.FacilityLocation(3, epsilon=5.0, cost=50.0, seed=2,
                                            diagnostics=True).fit, X, candidates=candidates)
    assert shown.ranking_.tolist() == sel.ranking_.tolist()
    assert np.all(shown.gains_ > 0)
    greedy = quiet(disguise.FacilityLocation(3, epsilon=5.0, cost=50.0, algorithm="greedy",
                                             seed=2).fit, X, candidates=candidates)
    assert greedy.report_["algorithm"] == "greedy"


def test_a_vacuous_worst_case_bound_is_a_note_not_a_warning():
    # At ε = 0.001 the a-priori bounds of all three selection estimators say nothing. That is
    # a theorem's worst case, not a verdict on the release: no warning, the report says it
    # (vacuous, worst_case), and the lazily written report agrees with what the fit returned.
    X, candidates = clusters()
    people = [["a"]] * 60 + [["a", "b"]] * 20 + [["b"]] * 10 + [["c"]] * 40
    Xf, y = informative_table(n=2_000)
    fits = [
        lambda s: disguise.FacilityLocation(3, epsilon=0.001, seed=s, diagnostics=True).fit(
            X, candidates=candidates),
        lambda s: disguise.MaxCoverage(2, epsilon=0.001, seed=s, diagnostics=True).fit(
            people, candidates=["a", "b", "c"]),
        lambda s: disguise.FeatureSelector(2, epsilon=0.001, seed=s, diagnostics=True).fit(Xf, y),
    ]
    for fit in fits:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", disguise.InsecureSeedWarning)
            warnings.simplefilter("error", disguise.UsefulnessWarning)
            sel = fit(3)
        assert sel.usefulness_["vacuous"] is True and sel.usefulness_["worst_case"] is True
        assert sel.ranking_.tolist() == sel.report_["selected"]
        # One schema for every task: the cumulative values are always "values" (a
        # diagnostic).
        np.testing.assert_allclose(np.cumsum(sel.gains_), sel.not_private_["values"])


def test_the_namespace_shows_the_public_names_only():
    shown = set(dir(disguise))
    assert not shown & {"np", "os", "json", "math", "inspect", "warnings", "Any", "Callable"}
    assert set(disguise.__all__) <= shown and "__version__" in shown
    for name in disguise.__all__:
        assert getattr(disguise, name) is not None
    assert not any(n.startswith("_") and n != "__version__" for n in shown)


def test_booleans_match_a_schema_that_spells_them_with_capitals():
    # One spelling rule: Python's True/False, pandas' "True", a spreadsheet's "TRUE" all match
    # the levels "True"/"False", and the release writes the schema's spelling.
    schema = {"target": "sick", "columns": [
        {"name": "smoker", "type": "categorical", "levels": ["False", "True"]},
        {"name": "sick", "type": "categorical", "levels": ["no", "yes"]}]}
    data = {"smoker": [True, False] * 300, "sick": ["yes", "no"] * 300}
    h = quiet(disguise.ProjectedHistogram(epsilon=2.0, schema=schema, k=1, seed=1).fit, data)
    assert set(h.sample(200)["smoker"]) == {"False", "True"}
    mixed = {"smoker": ["TRUE", "false"] * 300, "sick": ["yes", "no"] * 300}
    quiet(disguise.ProjectedHistogram(epsilon=2.0, schema=schema, k=1, seed=1).fit, mixed)


def test_feature_selector_bins_numeric_columns_over_public_bounds():
    # A continuous column with many values is refused unless binned over public bounds; with
    # bins= it is cut by the library's rule (values outside clamped), like --bins COL:MIN:MAX:N.
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 3000)
    age = np.where(y == 1, rng.uniform(50, 95, 3000), rng.uniform(10, 50, 3000))
    noise = rng.normal(size=3000)
    X = np.column_stack([noise, age])
    with pytest.raises(ValueError, match="PUBLIC bounds"):
        disguise.FeatureSelector(1, epsilon=5.0).fit(X, y)
    fit = lambda bins: quiet(disguise.FeatureSelector(1, epsilon=5.0, bins=bins, seed=3).fit, X, y)
    sel = fit({0: (-4, 4, 8), 1: (17, 90, 8)})
    assert sel.ranking_.tolist() == [1]
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"noise": noise, "age": age})
    named = quiet(disguise.FeatureSelector(1, epsilon=5.0, bins={"noise": (-4, 4, 8), "age": (17, 90, 8)},
                                           seed=3).fit, frame, y)
    assert named.ranking_.tolist() == [1]
    # The same codes as the library's bins: 10 and 95 fall outside [17, 90] and are clamped.
    codes = disguise._disguise.bin_codes(np.array([10.0, 17.0, 53.5, 89.9, 95.0]), 17.0, 90.0, 8, "age")
    assert codes.tolist() == [0, 0, 4, 7, 7]
    for bad, match in [({"height": (0, 1, 2)}, "no column named 'height'"),
                       ({1: (90, 17, 8)}, "invalid bins of column 'x1'"),
                       ({1: (17, 90)}, "expected \\(min, max, count\\)"),
                       ({1: (17, 90, 0)}, "bins of 1")]:
        with pytest.raises(ValueError, match=match):
            disguise.FeatureSelector(1, epsilon=5.0, bins=bad).fit(X, y)
    with pytest.raises(ValueError, match="row 2 is NaN"):
        disguise.FeatureSelector(1, epsilon=5.0, bins={1: (17, 90, 8)}).fit(
            np.column_stack([noise[:3], [20.0, np.nan, 30.0]]), y[:3])


def test_max_coverage_from_an_edge_list_protects_one_friendship():
    # A star around "hub" plus a pair: the hub's friends are the most people. The unit is one
    # friendship replaced by another, which changes up to four friend lists: the guarantee is
    # group privacy of size 4.
    people = ["hub"] + [f"p{i}" for i in range(40)] + ["x", "y"]
    edges = [("hub", f"p{i}") for i in range(40)] + [("x", "y"), ("x", "y"), ("x", "x"),
                                                    ("x", "stranger")]
    sel = quiet(disguise.MaxCoverage(1, epsilon=2.0, input="edges", seed=1).fit, edges,
                candidates=people)
    assert [sel.candidates_[i] for i in sel.ranking_] == ["hub"]
    assert sel.guarantee_["epsilon"] == pytest.approx(8.0)
    assert sel.report_["input"] == "edges"
    assert sel.report_["privacy_unit"].startswith("one friendship (one line of the edge list)")
    assert sel.report_["records"] == len(people)
    # The same graph as an (m, 2) array gives the same picks (same seed).
    array = np.array(edges, dtype=object)
    again = quiet(disguise.MaxCoverage(1, epsilon=2.0, input="edges", seed=1).fit, array,
                  candidates=people)
    assert again.ranking_.tolist() == sel.ranking_.tolist()
    with pytest.raises(ValueError, match="public list of people"):
        disguise.MaxCoverage(1, epsilon=2.0, input="edges").fit(edges)
    with pytest.raises(ValueError, match="a pair of names"):
        disguise.MaxCoverage(1, epsilon=2.0, input="edges").fit([("a", "b", "c")], candidates=["a"])
    with pytest.raises(ValueError, match="invalid input"):
        disguise.MaxCoverage(1, epsilon=2.0, input="graph").fit(edges, candidates=people)


# --- whole-table synthetic data --------------------------------------------------------------


def test_synthesizer_releases_every_column_and_keeps_the_strong_pair():
    data = sick_table()
    s = quiet(disguise.Synthesizer(epsilon=3.0, schema=SCHEMA, seed=2).fit, data)
    assert s.guarantee_["epsilon"] <= 3.0 + 1e-12 and s.guarantee_["delta"] == 0.0
    assert s.report_["noise"] == "laplace"
    assert ("smoker", "sick") in s.tree_ or ("sick", "smoker") in s.tree_
    table = s.sample()
    columns = list(table.columns) if hasattr(table, "columns") else list(table)
    assert columns == ["smoker", "age", "city", "sick"]
    assert len(table["sick"]) == 3000  # n, public under replace-one neighbours
    agree = np.mean(np.asarray(table["smoker"]) == np.asarray(table["sick"]))
    assert 0.8 <= agree <= 0.97, agree
    assert len(s.sample(10)["age"]) == 10
    # The same seed draws the same records.
    again = s.sample(50)
    assert list(np.asarray(again["city"])) == list(np.asarray(s.sample(50)["city"]))


def test_a_fitted_synthesizer_pickles_and_saves_and_draws_without_spending(tmp_path):
    import pickle
    import joblib
    data = sick_table()
    s = quiet(disguise.Synthesizer(epsilon=3.0, schema=SCHEMA, seed=2).fit, data)
    # A pickled (or joblib-dumped) fitted model draws the same records as the original.
    back = pickle.loads(pickle.dumps(s))
    assert list(np.asarray(back.sample(40)["city"])) == list(np.asarray(s.sample(40)["city"]))
    assert back.report_ == s.report_ and back.guarantee_ == s.guarantee_
    joblib.dump(s, tmp_path / "s.joblib")
    again = joblib.load(tmp_path / "s.joblib")
    assert list(np.asarray(again.sample(40)["age"], dtype=str)) == \
        list(np.asarray(s.sample(40)["age"], dtype=str))
    # save/load: the command line's model file; drawing reads no data and spends nothing.
    path = tmp_path / "model.json"
    s.save(path)
    assert json.loads(path.read_text())["format"] == "disguise-synth-model"
    loaded = quiet(disguise.Synthesizer.load, path, seed=7)
    assert loaded.guarantee_["epsilon"] == s.guarantee_["epsilon"]
    assert loaded.report_["columns"] == ["smoker", "age", "city", "sick"]
    table = loaded.sample(200)
    assert len(table["sick"]) == 200
    agree = np.mean(np.asarray(table["smoker"]) == np.asarray(table["sick"]))
    assert agree > 0.7, agree
    assert list(np.asarray(quiet(disguise.Synthesizer.load, path, seed=7).sample(20)["city"])) \
        == list(np.asarray(loaded.sample(20)["city"]))
    # Unfitted, damaged or missing models raise ValueError naming the problem.
    with pytest.raises(ValueError, match="not fitted"):
        disguise.Synthesizer(epsilon=1.0, schema=SCHEMA).save(tmp_path / "x.json")
    (tmp_path / "bad.json").write_text(path.read_text()[:100])
    with pytest.raises(ValueError, match="bad.json:1:"):
        disguise.Synthesizer.load(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="nope.json"):
        disguise.Synthesizer.load(tmp_path / "nope.json")


def test_synthetic_numeric_values_are_drawn_inside_their_bins_or_are_midpoints():
    data = sick_table()
    integer = dict(SCHEMA, columns=[dict(c, integer=True) if c["name"] == "age" else c
                                    for c in SCHEMA["columns"]])

    def ages(values, schema=SCHEMA):
        s = quiet(disguise.Synthesizer(epsilon=3.0, schema=schema, seed=2, values=values).fit, data)
        a = np.asarray(s.sample()["age"], dtype=float)
        assert np.isnan(a).any()  # NaN in, the missing value of a nullable column out
        return a[~np.isnan(a)]

    uniform = ages("uniform")
    # Four bins over [0, 100]: drawn inside them, not four midpoints.
    assert len(np.unique(uniform)) > 100 and 0 <= uniform.min() and uniform.max() <= 100
    assert set(np.unique(ages("midpoint")).tolist()) <= {12.5, 37.5, 62.5, 87.5}
    whole = ages("uniform", integer)
    assert np.all(whole == np.round(whole)) and len(np.unique(whole)) > 20
    h = quiet(disguise.ProjectedHistogram(epsilon=3.0, schema=SCHEMA, seed=2, values="midpoint").fit,
              data)
    assert len(h.sample(10)["sick"]) == 10
    for estimator in (disguise.Synthesizer(epsilon=1.0, schema=SCHEMA, values="mean"),
                      disguise.ProjectedHistogram(epsilon=1.0, schema=SCHEMA, values="mean")):
        fitted = quiet(estimator.fit, data)
        with pytest.raises(ValueError, match="mean"):
            fitted.sample(3)


def test_integer_columns_come_from_the_schema_and_excluded_columns_are_dropped():
    data = sick_table()
    data["age"] = np.nan_to_num(data["age"], nan=50.0).astype(np.int64)
    data["id"] = np.arange(len(data["age"]))
    schema = dict(SCHEMA, missing=None, columns=[
        dict(c, nullable=False) if c["name"] == "age" else c for c in SCHEMA["columns"]
    ] + [{"name": "id", "type": "numeric", "bounds": [0, 10000]}])
    # An integer dtype is a function of the private values: it never decides how values are
    # written; the schema does.
    s = quiet(disguise.Synthesizer(epsilon=3.0, schema=schema, seed=2, exclude=["ID"]).fit, data)
    table = s.sample(200)
    columns = list(table.columns) if hasattr(table, "columns") else list(table)
    assert "id" not in columns and "age" in columns
    assert not np.all(np.asarray(table["age"], dtype=float) % 1 == 0)
    whole = dict(schema, columns=[dict(c, integer=True) if c["name"] == "age" else c
                                  for c in schema["columns"]])
    s = quiet(disguise.Synthesizer(epsilon=3.0, schema=whole, seed=2, exclude="id").fit, data)
    ages = np.asarray(s.sample(200)["age"], dtype=float)
    assert np.all(ages == np.round(ages))
    with pytest.raises(ValueError, match="no column 'nope'"):
        disguise.Synthesizer(epsilon=1.0, schema=schema, exclude=["nope"]).fit(data)
    with pytest.raises(ValueError, match="every column"):
        disguise.ProjectedHistogram(epsilon=1.0, schema=schema,
                                    exclude=[c["name"] for c in schema["columns"]]).fit(data)


def test_synthesizer_gaussian_needs_delta_and_bad_input_raises_value_error():
    data = sick_table(600)
    g = disguise.Synthesizer(epsilon=1.0, delta=1e-6, schema=SCHEMA).fit(data)
    assert g.report_["noise"] == "gaussian" and g.guarantee_["private"] is True
    assert g.guarantee_["rule"] == "zcdp"
    for kw, needle in [
        ({"epsilon": 1.0, "noise": "gaussian"}, "δ > 0"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": 1.0, "noise": "uniform"}, "noise"),
        ({"epsilon": 1.0, "iterations": 0}, "iterations"),
    ]:
        with pytest.raises(ValueError, match=needle):
            disguise.Synthesizer(schema=SCHEMA, **kw).fit(data)
    with pytest.raises(ValueError, match="not fitted"):
        disguise.Synthesizer(epsilon=1.0, schema=SCHEMA).sample(3)
    with pytest.raises(ValueError, match="no column"):
        disguise.Synthesizer(epsilon=1.0, schema=SCHEMA).fit({"smoker": ["no"]})


def test_numeric_columns_without_bins_get_private_edges_inside_the_budget():
    # A point mass at 0 for 90 % of the records: the edges give 0 a bin of its own, the
    # synthetic column keeps its zeros, and the edges' share is reported and in the budget.
    rng = np.random.default_rng(1)
    n = 3000
    gain = np.where(rng.uniform(size=n) < 0.9, 0, rng.integers(1, 99_999, size=n))
    schema = {"target": "y", "columns": [
        {"name": "gain", "type": "numeric", "bounds": [0, 99_999], "integer": True},
        {"name": "y", "type": "categorical", "levels": ["a", "b"]}]}
    data = {"gain": gain.astype(float), "y": np.where(gain > 0, "b", "a")}
    s = quiet(disguise.Synthesizer(epsilon=2.0, delta=1e-9, schema=schema, seed=3).fit, data)
    edges = s.report_["edges"]
    assert [c["column"] for c in edges["columns"]] == ["gain"]
    assert edges["columns"][0]["masses"] == ["0"], edges
    assert edges["columns"][0]["edges"][0] == "1", edges  # the bin [0, 1) holds 0 alone
    assert s.guarantee_["epsilon"] <= 2.0 + 1e-12
    zeros = float(np.mean(np.asarray(s.sample()["gain"], dtype=float) == 0))
    assert abs(zeros - 0.9) < 0.05, zeros
    # A larger share buys the edges more of the budget; outside (0, 1) it is refused.
    more = quiet(disguise.Synthesizer(epsilon=2.0, delta=1e-9, schema=schema, seed=3,
                                      edge_share=0.5).fit, data)
    assert more.report_["edges"]["budget"]["rho"] > edges["budget"]["rho"]
    with pytest.raises(ValueError, match="edge_share"):
        disguise.Synthesizer(epsilon=2.0, schema=schema, edge_share=1.0).fit(data)
    h = quiet(disguise.ProjectedHistogram(epsilon=2.0, schema=schema, k=1, seed=3).fit, data)
    assert abs(h.report_["edges"]["budget"]["epsilon"] - 0.2 * 2.0) < 1e-12
    assert h.guarantee_["epsilon"] <= 2.0 + 1e-12


def test_aim_is_the_default_with_delta_and_measures_the_target_with_its_predictors():
    data = sick_table()
    s = quiet(disguise.Synthesizer(epsilon=3.0, delta=1e-6, schema=SCHEMA, seed=2).fit, data)
    assert s.report_["method"] == "aim" and s.tree_ is None
    assert s.guarantee_["epsilon"] <= 3.0 + 1e-12 and s.guarantee_["delta"] <= 1e-6
    # Every column's 1-way first, then the chosen marginals; sick = smoker is measured.
    ones = [m for m in s.report_["measured"] if len(m["columns"]) == 1]
    assert len(ones) >= 4 and all("selection_epsilon" not in m for m in ones[:4])
    assert any({"smoker", "sick"} <= set(m) for m in s.marginals_), s.marginals_
    table = s.sample()
    agree = np.mean(np.asarray(table["smoker"]) == np.asarray(table["sick"]))
    assert 0.8 <= agree <= 0.97, agree
    # A fitted AIM model pickles like MST's.
    import pickle
    back = pickle.loads(pickle.dumps(s))
    assert list(np.asarray(back.sample(30)["city"])) == list(np.asarray(s.sample(30)["city"]))
    mst = quiet(disguise.Synthesizer(epsilon=3.0, delta=1e-6, schema=SCHEMA, seed=2,
                                     method="mst").fit, data)
    assert mst.report_["method"] == "mst" and len(mst.tree_) == 3
    with pytest.raises(ValueError, match="method"):
        disguise.Synthesizer(epsilon=3.0, delta=1e-6, schema=SCHEMA, method="pgm").fit(data)
    with pytest.raises(ValueError, match="δ > 0"):
        disguise.Synthesizer(epsilon=3.0, schema=SCHEMA, method="aim").fit(data)
    with pytest.raises(ValueError, match="nosuch"):
        disguise.Synthesizer(epsilon=3.0, delta=1e-6, schema=SCHEMA, target="nosuch").fit(data)


def test_a_dict_schema_error_names_its_key_path():
    data = sick_table()
    broken = json.loads(json.dumps(SCHEMA))
    del broken["columns"][3]["type"]
    with pytest.raises(ValueError, match=r"columns\[3\]\.type: missing") as caught:
        disguise.Synthesizer(epsilon=1.0, schema=broken).fit(data)
    assert "line 1" not in str(caught.value) and "column 3" not in str(caught.value)
    broken = json.loads(json.dumps(SCHEMA))
    broken["columns"][0]["type"] = "catgorical"
    with pytest.raises(ValueError, match=r"columns\[0\]: unknown variant `catgorical`"):
        disguise.ProjectedHistogram(epsilon=1.0, schema=broken).fit(data)
