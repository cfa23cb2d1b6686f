"""The privacy budget ledger from Python: ``disguise.Ledger`` and ``ledger=``."""

import re
import sqlite3
import threading

import numpy as np
import pytest

import disguise


@pytest.fixture
def ledger(tmp_path):
    return disguise.Ledger.create(tmp_path / "budget.ledger")


def test_releases_are_charged_until_the_limit_then_refused(ledger):
    ledger.set_limit("scores", epsilon=1.0)
    scores = [1.0, 50.0, 2.0]
    for _ in range(4):
        disguise.exponential(scores, epsilon=0.25, sensitivity=1.0, ledger=ledger, dataset="scores")
    with pytest.raises(disguise.BudgetExceeded, match="budget exceeded on data set scores"):
        disguise.exponential(scores, epsilon=0.25, sensitivity=1.0, ledger=ledger, dataset="scores")
    # A refusal is a ValueError, as every refusal of the library.
    assert issubclass(disguise.BudgetExceeded, ValueError)
    status = ledger.status("scores")
    assert status["releases"] == 4
    assert status["spent"]["epsilon"] == 1.0
    assert status["remaining"] == {
        "epsilon": 0.0,
        "delta": 0.0,
        "rho": None,
        "pure_epsilon": None,
        "approximate_epsilon": None,
        "approximate_delta": None,
    }
    assert status["limit"]["filter"] == "basic"
    releases = ledger.releases("scores")
    assert [r["epsilon"] for r in releases] == [0.25] * 4
    assert releases[0]["command"].startswith("python: disguise.exponential(epsilon=0.25")
    assert releases[0]["calls"][0]["count"] == 1
    assert {r["unit"] for r in releases} == {"record"} and status["unit"] == "record"
    assert ledger.datasets() == ["scores"]
    assert ledger.integrity_check() == "ok"


def test_estimators_charge_each_fit_and_a_refused_fit_stays_unfitted(ledger):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    grid = rng.uniform(-2, 2, size=(10, 2))
    ledger.set_limit("points", epsilon=1.0, delta=1e-6)
    sel = disguise.FacilityLocation(3, epsilon=0.5, delta=1e-7, ledger=ledger, dataset="points")
    sel.fit(X, candidates=grid)
    assert sel.ranking_.shape == (3,)
    sel.fit(X, candidates=grid)
    fresh = disguise.FacilityLocation(3, epsilon=0.5, ledger=ledger, dataset="points")
    with pytest.raises(disguise.BudgetExceeded):
        fresh.fit(X, candidates=grid)
    assert not hasattr(fresh, "ranking_")
    assert ledger.status("points")["releases"] == 2
    # The records themselves as candidates are not private: refused before anything runs.
    with pytest.raises(ValueError, match="NOT private"):
        disguise.FacilityLocation(2, epsilon=0.1, ledger=ledger).fit(X)
    assert ledger.status("points")["releases"] == 2


def _releases():
    """One call of every release of the package, on small data, taking ledger= and dataset=."""
    rng = np.random.default_rng(0)
    X, grid = rng.normal(size=(100, 2)), rng.uniform(-2, 2, size=(5, 2))
    people = [["a"], ["a", "b"], ["c"]] * 30
    y = np.array([0, 1] * 100)
    table = np.column_stack([y, 1 - y, np.zeros(200, dtype=int)])
    schema = {"target": "sick", "columns": [
        {"name": "smoker", "type": "categorical", "levels": ["no", "yes"]},
        {"name": "sick", "type": "categorical", "levels": ["no", "yes"]}]}
    rows = {"smoker": ["yes", "no"] * 100, "sick": ["yes", "no"] * 100}
    baskets = [["tea", "cake"]] * 60 + [["bread", "milk"]] * 140
    return {
        "exponential": lambda **kw: disguise.exponential(
            [1.0, 50.0], epsilon=1.0, sensitivity=1.0, **kw),
        "large_margin": lambda **kw: disguise.large_margin(
            [0.0] * 9 + [500.0], epsilon=1.0, delta=1e-6, sensitivity=1.0, **kw),
        "FacilityLocation": lambda **kw: disguise.FacilityLocation(1, epsilon=1.0, **kw).fit(
            X, candidates=grid),
        "MaxCoverage": lambda **kw: disguise.MaxCoverage(1, epsilon=1.0, **kw).fit(
            people, candidates=["a", "b", "c"]),
        "FeatureSelector": lambda **kw: disguise.FeatureSelector(1, epsilon=1.0, **kw).fit(
            table, y),
        "ProjectedHistogram": lambda **kw: disguise.ProjectedHistogram(
            epsilon=1.0, schema=schema, k=1, **kw).fit(rows),
        "frequent_itemsets": lambda **kw: disguise.frequent_itemsets(
            baskets, size=2, epsilon=1.0, delta=1e-6, items=["bread", "cake", "milk", "tea"],
            **kw),
    }


@pytest.mark.parametrize("name", sorted(_releases()))
def test_a_release_charged_to_a_ledger_must_name_its_data_set(ledger, name):
    # No name derived from the data: each resample of the records would get a budget of its
    # own. Refused before anything runs or is recorded.
    release = _releases()[name]
    with pytest.raises(ValueError, match="invalid dataset: required with ledger="):
        release(ledger=ledger)
    with pytest.raises(ValueError, match="invalid dataset: 7 "):
        release(ledger=ledger, dataset=7)
    assert ledger.releases() == [] and ledger.datasets() == []
    ledger.set_limit("d", epsilon=10.0, delta=1e-3)
    release(ledger=ledger, dataset="d")
    assert [r["dataset"] for r in ledger.releases()] == ["d"]
    with pytest.raises(ValueError, match="give ledger="):
        release(dataset="d")


def test_every_fold_of_a_cross_validation_is_charged_to_the_one_data_set(ledger):
    pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline

    ledger.set_limit("x", epsilon=10.0)
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 500)
    X = np.column_stack([np.where(rng.random(500) < 0.1, 1 - y, y), rng.integers(0, 3, 500)])
    selector = disguise.FeatureSelector(1, epsilon=1.0, ledger=ledger, dataset="x")
    copy = clone(selector)
    assert copy.ledger is ledger and copy.dataset == "x"
    scores = cross_val_score(make_pipeline(selector, LogisticRegression()), X, y, cv=5,
                             error_score="raise")
    assert len(scores) == 5
    assert ledger.datasets() == ["x"]
    assert ledger.status("x")["releases"] == 5
    # Without a name no fold runs: none gets a budget of its own.
    unnamed = make_pipeline(disguise.FeatureSelector(1, epsilon=1.0, ledger=ledger),
                            LogisticRegression())
    with pytest.raises(ValueError, match="dataset"):
        cross_val_score(unnamed, X, y, cv=5, error_score="raise")
    assert ledger.datasets() == ["x"] and ledger.status("x")["releases"] == 5


def test_every_front_door_takes_the_ledger(ledger):
    pd = pytest.importorskip("pandas")
    ledger.set_limit("all", epsilon=100.0, delta=1e-3)
    kw = {"ledger": ledger, "dataset": "all"}
    disguise.large_margin([0.0] * 9 + [500.0], epsilon=1.0, delta=1e-6, sensitivity=1.0, **kw)
    people = [["a"], ["a", "b"], ["c"]] * 30
    disguise.MaxCoverage(1, epsilon=1.0, **kw).fit(people, candidates=["a", "b", "c"])
    y = np.array([0, 1] * 200)
    X = np.column_stack([y, 1 - y, np.zeros(400, dtype=int)])
    disguise.FeatureSelector(1, epsilon=1.0, **kw).fit(X, y)
    schema = {"target": "sick", "columns": [
        {"name": "smoker", "type": "categorical", "levels": ["no", "yes"]},
        {"name": "sick", "type": "categorical", "levels": ["no", "yes"]}]}
    data = pd.DataFrame({"smoker": ["yes", "no"] * 200, "sick": ["yes", "no"] * 200})
    disguise.ProjectedHistogram(epsilon=1.0, schema=schema, k=1, **kw).fit(data)
    disguise.Synthesizer(epsilon=1.0, delta=1e-6, schema=schema, **kw).fit(data)
    baskets = [["tea", "cake"]] * 60 + [["bread", "milk"]] * 140
    disguise.frequent_itemsets(
        baskets, size=2, epsilon=1.0, delta=1e-6, items=["bread", "cake", "milk", "tea"], **kw
    )
    mechanisms = [r["mechanism"] for r in ledger.releases("all")]
    assert len(mechanisms) == 6, mechanisms
    assert ledger.status("all")["spent"]["epsilon"] <= 6.0 + 1e-9


def test_a_pipeline_clone_shares_the_ledger(ledger):
    sklearn = pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    ledger.set_limit("t", epsilon=1.0)
    selector = disguise.FeatureSelector(1, epsilon=1.0, ledger=ledger, dataset="t")
    copy = clone(selector)
    assert copy.ledger is ledger
    y = np.array([0, 1] * 100)
    X = np.column_stack([y, np.zeros(200, dtype=int)])
    make_pipeline(copy, LogisticRegression()).fit(X, y)
    assert ledger.status("t")["releases"] == 1
    assert sklearn is not None


def test_threads_racing_for_a_limit_that_allows_five_charge_exactly_five(ledger):
    ledger.set_limit("race", epsilon=1.25)
    outcomes = []

    def one():
        try:
            disguise.exponential(
                [1.0, 2.0, 3.0], epsilon=0.25, sensitivity=1.0, ledger=ledger, dataset="race"
            )
            outcomes.append("released")
        except disguise.BudgetExceeded:
            outcomes.append("refused")

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["refused"] * 3 + ["released"] * 5
    assert ledger.status("race")["releases"] == 5


def test_unusable_ledgers_raise_ledger_error_and_are_left_untouched(tmp_path):
    with pytest.raises(disguise.LedgerError, match="ledger init"):
        disguise.Ledger(tmp_path / "missing.ledger")
    assert not (tmp_path / "missing.ledger").exists()
    text = tmp_path / "notes.txt"
    text.write_text("not a ledger\n" * 100)
    with pytest.raises(disguise.LedgerError, match="not a disguise ledger"):
        disguise.Ledger(text)
    assert text.read_text() == "not a ledger\n" * 100
    with pytest.raises(disguise.LedgerError, match="already exists"):
        disguise.Ledger.create(text)
    with pytest.raises(ValueError, match="timeout"):
        disguise.Ledger(text, timeout=-1)
    ledger = disguise.Ledger.create(tmp_path / "b.ledger")
    with pytest.raises(ValueError):
        ledger.set_limit("d", epsilon=0.0)
    with pytest.raises(ValueError, match="disguise.Ledger"):
        disguise.exponential([1.0], epsilon=1.0, sensitivity=1.0, ledger="b.ledger")
    # Reopened, the same file.
    assert disguise.Ledger(tmp_path / "b.ledger").datasets() == []


def test_budgets_typed_as_decimals_add_up_exactly(ledger):
    ledger.set_limit("car", epsilon=0.3)
    scores = [1.0, 50.0, 2.0]
    disguise.exponential(scores, epsilon=0.1, sensitivity=1.0, ledger=ledger, dataset="car")
    assert ledger.remaining("car")["epsilon"] == 0.2
    disguise.exponential(scores, epsilon=0.2, sensitivity=1.0, ledger=ledger, dataset="car")
    assert ledger.remaining("car")["epsilon"] == 0.0
    assert ledger.status("car")["spent"]["epsilon"] == 0.3
    with pytest.raises(disguise.BudgetExceeded):
        disguise.exponential(scores, epsilon=0.01, sensitivity=1.0, ledger=ledger, dataset="car")


def test_a_data_set_without_a_limit_takes_nothing_unless_the_ledger_has_a_default(ledger):
    scores = [1.0, 50.0, 2.0]
    with pytest.raises(disguise.BudgetExceeded, match="no limit"):
        disguise.exponential(scores, epsilon=0.1, sensitivity=1.0, ledger=ledger, dataset="x")
    assert ledger.releases() == []
    ledger.set_default_limit(epsilon=0.5)
    assert ledger.default_limit()["epsilon"] == 0.5
    disguise.exponential(scores, epsilon=0.5, sensitivity=1.0, ledger=ledger, dataset="x")
    assert ledger.status("x")["limit"]["epsilon"] == 0.5
    # Names alike to an existing one are refused, not given a budget of their own.
    with pytest.raises(ValueError, match="did you mean"):
        disguise.exponential(scores, epsilon=0.1, sensitivity=1.0, ledger=ledger, dataset=" X")
    ledger.set_default_limit(epsilon=None)
    assert ledger.default_limit() is None


def test_a_zcdp_limit_admits_many_small_releases(ledger):
    ledger.set_limit("logs", epsilon=1.0, delta=1e-6, rule="zcdp")
    limit = ledger.status("logs")["limit"]
    assert limit["filter"] == "zcdp" and 0.024 < limit["rho"] < 0.025
    # Before any release what is left is worth the limit itself.
    left = ledger.remaining("logs")
    assert (left["epsilon"], left["delta"]) == (1.0, 1e-6)
    assert (left["approximate_epsilon"], left["approximate_delta"]) == (0.0, 0.0)
    scores = [1.0, 50.0, 2.0]
    # One exponential-mechanism call of 0.1 costs rho = 0.1**2 / 8: 19 fit, not 10.
    for _ in range(19):
        disguise.exponential(scores, epsilon=0.1, sensitivity=1.0, ledger=ledger, dataset="logs")
    with pytest.raises(disguise.BudgetExceeded, match="zcdp filter"):
        disguise.exponential(scores, epsilon=0.1, sensitivity=1.0, ledger=ledger, dataset="logs")
    left = ledger.remaining("logs")
    assert 0 < left["rho"] < 0.1**2 / 8 and left["pure_epsilon"] < 0.1
    # The epsilon the rho left converts to at the limit's delta: small, not nothing.
    assert 0 < left["epsilon"] < 0.2 and left["delta"] == 1e-6
    # The rule is fixed by the first release; the limit can be lowered, not raised.
    with pytest.raises(ValueError, match="filter"):
        ledger.set_limit("logs", epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError, match="lowered, not raised"):
        ledger.set_limit("logs", epsilon=2.0, delta=1e-6, rule="zcdp")
    # Nor below what is spent: that limit would refuse everything after.
    with pytest.raises(ValueError, match="already spent ρ"):
        ledger.set_limit("logs", epsilon=0.1, delta=1e-6, rule="zcdp")
    assert ledger.status("logs")["limit"]["epsilon"] == 1.0
    with pytest.raises(ValueError, match="delta"):
        ledger.set_limit("pure", epsilon=1.0, rule="zcdp")
    with pytest.raises(ValueError, match="rule"):
        ledger.set_limit("pure", epsilon=1.0, rule="advanced")


def test_a_utility_estimate_is_charged_with_the_picks(ledger):
    # 200 people: "a" covers half, "b" a quarter. The estimate of the share covered spends
    # 0.5 more, in the guarantee and in the ledger.
    people = [["a"], ["b"], ["a"], ["c"]] * 50
    ledger.set_limit("people", epsilon=3.0)
    sel = disguise.MaxCoverage(
        2, epsilon=1.0, estimate_utility=0.5, ledger=ledger, dataset="people"
    ).fit(people, candidates=["a", "b", "c"])
    est = sel.utility_estimate_
    assert est["epsilon"] == 0.5 and est["sensitivity"] == pytest.approx(1 / 200)
    assert 0.0 <= est["low"] <= est["estimate"] <= est["high"] <= 1.0
    assert est["high"] - est["low"] <= 2 * (1 / 100) * np.log(20) + 1e-6
    assert sel.guarantee_["epsilon"] == 1.5 and sel.guarantee_["rule"] == "basic"
    assert sel.report_["selection_guarantee"]["epsilon"] == 1.0
    assert ledger.status("people")["spent"]["epsilon"] == 1.5
    # Without it, no estimate and no extra spend.
    with pytest.warns(disguise.InsecureSeedWarning):
        plain = disguise.MaxCoverage(2, epsilon=1.0, seed=3).fit(people, candidates=["a", "b", "c"])
    assert plain.utility_estimate_ is None and plain.guarantee_["epsilon"] == 1.0
    with pytest.raises(ValueError, match="invalid estimate_utility"):
        disguise.MaxCoverage(1, epsilon=1.0, estimate_utility=0).fit(people, candidates=["a"])
    with pytest.raises(ValueError, match="invalid estimate_utility"):
        disguise.MaxCoverage(1, epsilon=1.0, estimate_utility="much").fit(people, candidates=["a"])
    with pytest.raises(ValueError, match="protect nothing"):
        disguise.MaxCoverage(1, mechanism="max", estimate_utility=0.1, diagnostics=True).fit(
            people, candidates=["a"]
        )
    # Facility location: the share of the records' service, sensitivity 1/n.
    X = np.random.default_rng(0).normal(size=(400, 2))
    grid = np.random.default_rng(1).uniform(-2, 2, size=(10, 2))
    with pytest.warns(disguise.InsecureSeedWarning):
        fl = disguise.FacilityLocation(2, epsilon=1.0, estimate_utility=0.2, seed=5).fit(
            X, candidates=grid
        )
    assert fl.utility_estimate_["sensitivity"] == pytest.approx(1 / 400)
    assert fl.guarantee_["epsilon"] == pytest.approx(1.2)


def test_a_new_name_one_or_two_edits_from_a_data_set_is_refused_as_a_typo(ledger):
    # nursry for nursery would give the same people a second budget: refused by a limit and
    # by a release, with the way to confirm a genuinely new data set; nothing recorded.
    ledger.set_limit("nursery", epsilon=1.0)
    ledger.set_limit("adult", epsilon=1.0)
    for typo, existing in [("nursry", "nursery"), ("adlut", "adult"), ("Nursry", "nursery")]:
        suggestion = re.escape(f'did you mean "{existing}"?')
        with pytest.raises(ValueError, match=suggestion + ".*new=True"):
            ledger.set_limit(typo, epsilon=5.0)
        with pytest.raises(ValueError, match=suggestion):
            disguise.exponential([1.0, 50.0], epsilon=0.1, sensitivity=1.0, ledger=ledger,
                                 dataset=typo)
        with pytest.raises(ValueError, match=suggestion):
            ledger.remaining(typo)
    assert sorted(ledger.datasets()) == ["adult", "nursery"] and ledger.releases() == []
    # Three edits away is another name.
    ledger.set_limit("adult-v2", epsilon=1.0)
    assert sorted(ledger.datasets()) == ["adult", "adult-v2", "nursery"]
    # Confirmed new, a near name is a data set of its own, found by its exact name after.
    ledger.set_limit("adult2", epsilon=0.5, new=True)
    disguise.exponential([1.0, 50.0], epsilon=0.1, sensitivity=1.0, ledger=ledger,
                         dataset="adult2")
    assert ledger.remaining("adult2")["epsilon"] == 0.4
    with pytest.raises(ValueError, match="invalid new"):
        ledger.set_limit("adult3", epsilon=0.5, new="yes")
    # Case alone is never another data set, confirmed or not.
    with pytest.raises(ValueError, match="did you mean"):
        ledger.set_limit("ADULT", epsilon=0.5, new=True)


@pytest.mark.parametrize(
    "alike, existing",
    [
        ("\ufeffadult", "adult"),  # byte order mark
        ("adu\u200blt", "adult"),  # zero-width space
        ("\uff41\uff44\uff55\uff4c\uff54", "adult"),  # full width
        ("cafe\u0301", "caf\u00e9"),  # decomposed e + accent
    ],
)
def test_a_look_alike_of_a_data_set_name_is_refused_with_a_suggestion(ledger, alike, existing):
    # Invisible characters, Unicode spellings and full-width letters would give the same
    # data a second budget: refused wherever a name is taken, nothing recorded.
    for name in ("adult", "caf\u00e9"):
        ledger.set_limit(name, epsilon=1.0)
    suggestion = re.escape(f'did you mean "{existing}"')
    with pytest.raises(ValueError, match=suggestion):
        disguise.exponential([1.0, 50.0], epsilon=0.1, sensitivity=1.0, ledger=ledger,
                             dataset=alike)
    with pytest.raises(ValueError, match=suggestion):
        disguise.MaxCoverage(1, epsilon=0.1, ledger=ledger, dataset=alike).fit(
            [["a"], ["b"]], candidates=["a", "b"])
    with pytest.raises(ValueError, match=suggestion):
        ledger.set_limit(alike, epsilon=5.0)
    with pytest.raises(ValueError, match=suggestion):
        ledger.status(alike)
    assert ledger.releases() == []
    assert sorted(ledger.datasets()) == ["adult", "caf\u00e9"]
    with pytest.raises(ValueError, match="empty"):
        ledger.set_limit("\ufeff\u200b", epsilon=1.0)


def test_coverage_of_a_friendship_graph_is_recorded_at_the_edge_level(ledger):
    # One friendship replaced by another changes up to four friend lists: the release is
    # recorded at the edge unit with group privacy of size 4 of the run's ε.
    ledger.set_limit("graph", epsilon=10.0)
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")]
    sel = disguise.MaxCoverage(1, epsilon=1.0, input="edges", ledger=ledger,
                               dataset="graph").fit(edges, candidates=["a", "b", "c", "d"])
    releases = ledger.releases("graph")
    assert [r["unit"] for r in releases] == ["edge"]
    assert ledger.status("graph")["unit"] == "edge"
    assert releases[0]["epsilon"] == pytest.approx(4.0)
    assert sel.guarantee_["epsilon"] == pytest.approx(4.0)
    assert ledger.status("graph")["spent"]["epsilon"] == pytest.approx(4.0)
    # A record-level release cannot share the data set's budget.
    with pytest.raises(ValueError, match="edge-level releases"):
        disguise.MaxCoverage(1, epsilon=1.0, ledger=ledger, dataset="graph").fit(
            [["a"], ["b"]], candidates=["a", "b"])
    assert len(ledger.releases("graph")) == 1


TWO_COLUMNS = {"target": "sick", "columns": [
    {"name": "smoker", "type": "categorical", "levels": ["no", "yes"]},
    {"name": "sick", "type": "categorical", "levels": ["no", "yes"]}]}


def _failing(bad):
    """Every release whose run fails on private data read after its reservation: ``bad`` (0
    or 1) picks one of two malformed data sets, with different reasons."""
    level = ["zzz", "qqq"][bad]
    table = {"smoker": ["yes", level] * 50, "sick": ["no", "yes"] * 50}
    points = np.array([[0.0, 1.0], [[np.nan, 1.0], [1.0, np.inf]][bad]])
    long = [[f"i{j}" for j in range(64)]] * (14 + bad)
    coded = np.array([[0, 1], [1, 0], [[7, 1], [1, 9]][bad]] * 20)
    matrix = np.ones((30, 3))
    matrix[bad, bad] = np.nan
    missing = {"smoker": ["yes", [None, np.nan][bad]] * 50, "sick": ["no", "yes"] * 50}
    return {
        # Found by the Python layer while it shapes the data: deferred to after the
        # reservation too (a text among the scores, a value outside the public categories,
        # a NaN in a 0/1 matrix, an edge that is no pair, a missing value the schema does
        # not allow, a row of the wrong width).
        "exponential, a text": lambda **kw: disguise.exponential(
            [1.0, ["x", "y"][bad]], epsilon=1.0, sensitivity=1.0, **kw),
        "FacilityLocation, a text": lambda **kw: disguise.FacilityLocation(
            1, epsilon=1.0, **kw).fit([[0.0, 1.0], [["a", 1.0], [1.0, "b"]][bad]],
                                      candidates=np.eye(2)),
        "FeatureSelector": lambda **kw: disguise.FeatureSelector(
            1, epsilon=1.0, categories=[[0, 1], [0, 1]], classes=[0, 1], **kw).fit(
                coded, np.arange(60) % 2),
        "MaxCoverage, a matrix": lambda **kw: disguise.MaxCoverage(1, epsilon=1.0, **kw).fit(
            matrix),
        "MaxCoverage, edges": lambda **kw: disguise.MaxCoverage(
            1, epsilon=1.0, input="edges", **kw).fit(
                [("a", "b"), [("a", "b", "c"), ("c",)][bad]], candidates=["a", "b", "c"]),
        "ProjectedHistogram, a missing value": lambda **kw: disguise.ProjectedHistogram(
            epsilon=1.0, schema=TWO_COLUMNS, k=1, **kw).fit(missing),
        "Synthesizer, a row's width": lambda **kw: disguise.Synthesizer(
            epsilon=1.0, schema=TWO_COLUMNS, **kw).fit(
                [["yes", "no"], [["no"], ["no", "yes", "no"]][bad]] * 20),
        # Found by the library.
        "exponential": lambda **kw: disguise.exponential(
            [1.0, [np.nan, np.inf][bad]], epsilon=1.0, sensitivity=1.0, **kw),
        "FacilityLocation": lambda **kw: disguise.FacilityLocation(1, epsilon=1.0, **kw).fit(
            points, candidates=np.eye(2)),
        "ProjectedHistogram": lambda **kw: disguise.ProjectedHistogram(
            epsilon=1.0, schema=TWO_COLUMNS, k=1, **kw).fit(table),
        "Synthesizer": lambda **kw: disguise.Synthesizer(
            epsilon=1.0, schema=TWO_COLUMNS, **kw).fit(table),
        # Counting would enumerate more subsets than the limit: found on the transactions.
        "frequent_itemsets": lambda **kw: disguise.frequent_itemsets(
            long, size=5, epsilon=1.0, delta=1e-6, **kw),
    }


def test_checks_that_need_no_data_come_before_the_reservation(ledger):
    # An incomplete schema, a target outside it, an item list that admits no itemset of the
    # size asked: refused at once, with their reasons, and nothing is charged.
    ledger.set_limit("d", epsilon=10.0, delta=1e-3)
    kw = {"ledger": ledger, "dataset": "d"}
    table = {"smoker": ["yes", "no"] * 50, "sick": ["no", "yes"] * 50}
    incomplete = {"target": "sick", "columns": [
        {"name": "smoker", "type": "categorical"},
        {"name": "sick", "type": "categorical", "levels": ["no", "yes"]}]}
    with pytest.raises(ValueError, match="no public domain for column"):
        disguise.ProjectedHistogram(epsilon=1.0, schema=incomplete, k=1, **kw).fit(table)
    with pytest.raises(ValueError, match="no public domain for column"):
        disguise.Synthesizer(epsilon=1.0, schema=incomplete, **kw).fit(table)
    with pytest.raises(ValueError, match="no column 'age' in the schema"):
        disguise.ProjectedHistogram(epsilon=1.0, schema=TWO_COLUMNS, target="age", k=1,
                                    **kw).fit(table)
    with pytest.raises(ValueError, match="none exist"):
        disguise.frequent_itemsets([["a", "b"]] * 10, size=3, epsilon=1.0, delta=1e-6,
                                   items=["a", "b"], **kw)
    with pytest.raises(ValueError, match="no column 'sick'"):
        disguise.Synthesizer(epsilon=1.0, schema=TWO_COLUMNS, **kw).fit({"smoker": ["no"]})
    assert ledger.releases("d") == []


@pytest.mark.parametrize("name", sorted(_failing(0)))
def test_a_release_that_fails_after_its_reservation_says_what_stays_charged(tmp_path, name):
    # After the reservation the error is one line, the same for every data set: what stays
    # charged. Its reason depends on the private data: only with diagnostics=True, and the
    # original error is not chained (raised from None).
    path = tmp_path / "budget.ledger"
    messages = []
    # An edge list is charged at the edge unit: 4 times the run's ε.
    epsilon = 4 if "edges" in name else 1
    for bad in (0, 1):
        if path.exists():
            path.unlink()
        ledger = disguise.Ledger.create(path)
        ledger.set_limit("d", epsilon=10.0, delta=1e-3)
        with pytest.raises(ValueError) as failed:
            _failing(bad)[name](ledger=ledger, dataset="d")
        error = failed.value
        assert type(error) is ValueError
        assert error.__cause__ is None and error.__suppress_context__ is True
        messages.append(str(error))
        # The release stays charged.
        assert len(ledger.releases("d")) == 1
    assert messages[0] == messages[1]
    pattern = (
        rf"^the release failed after its budget was reserved; release 1 of \(ε = {epsilon}, δ = "
        r"[0-9e.-]+\) stays charged to d in .*budget\.ledger; the reason depends on the "
        r"private data and is shown only with diagnostics=True$"
    )
    assert re.match(pattern, messages[0]), messages[0]
    line = messages[0].replace(str(path), "FILE")
    for secret in ("zzz", "qqq", "NaN", "nan", "inf", "subsets", "7", "9", "'x'", "'a'",
                   "missing", "fields"):
        assert secret not in line
    # With diagnostics=True the reason follows, marked NOT private.
    with pytest.raises(ValueError, match=r"stays charged to d in .*; the reason \(NOT private, "
                       r"shown because of diagnostics=True\): .+") as shown:
        _failing(0)[name](ledger=ledger, dataset="d", diagnostics=True)
    assert shown.value.__cause__ is None and shown.value.__suppress_context__ is True
    assert len(ledger.releases("d")) == 2
    # Without a ledger nothing is charged: the error says what it found at once.
    with pytest.raises(ValueError) as plain:
        _failing(0)[name]()
    assert "budget was reserved" not in str(plain.value)


def test_a_data_set_of_an_older_ledger_with_releases_and_no_limit_takes_no_more(tmp_path):
    # A ledger of format 2 recorded releases without a limit: on opening, the data set's
    # limit becomes what it spent, so no limit chosen after seeing its outputs applies.
    path = tmp_path / "old.ledger"
    c = sqlite3.connect(path)
    c.executescript(
        """
        PRAGMA application_id = 1682394212; PRAGMA user_version = 2;
        CREATE TABLE limits (id INTEGER PRIMARY KEY, dataset TEXT NOT NULL,
            time TEXT NOT NULL, epsilon REAL NOT NULL, delta REAL NOT NULL) STRICT;
        CREATE TABLE releases (id INTEGER PRIMARY KEY AUTOINCREMENT, dataset TEXT NOT NULL,
            time TEXT NOT NULL, command TEXT NOT NULL, mechanism TEXT NOT NULL,
            runs INTEGER NOT NULL, epsilon REAL NOT NULL, delta REAL NOT NULL,
            rule TEXT NOT NULL, secure INTEGER NOT NULL,
            unit TEXT NOT NULL DEFAULT 'record') STRICT;
        CREATE TABLE calls (release INTEGER NOT NULL, kind TEXT NOT NULL,
            epsilon REAL NOT NULL, delta REAL NOT NULL, count INTEGER NOT NULL) STRICT;
        INSERT INTO releases (dataset, time, command, mechanism, runs, epsilon, delta, rule,
            secure) VALUES ('old', 't', 'python: disguise.exponential', 'em', 1, 0.3, 0,
            'single', 1);
        """
    )
    c.commit()
    c.close()
    ledger = disguise.Ledger(path)
    status = ledger.status("old")
    assert status["limit"]["epsilon"] == 0.3 and status["remaining"]["epsilon"] == 0.0
    with pytest.raises(ValueError, match="lowered, not raised"):
        ledger.set_limit("old", epsilon=2.0)
    ledger.set_default_limit(epsilon=5.0)
    with pytest.raises(disguise.BudgetExceeded):
        disguise.exponential([1.0, 50.0], epsilon=0.1, sensitivity=1.0, ledger=ledger,
                             dataset="old")
    assert len(ledger.releases("old")) == 1
