"""What a whole cross-validation or search costs, asked before it runs (``Ledger.cost``), and
its budget reserved at once and drawn by its folds (``Ledger.reserve``)."""

import warnings

import numpy as np
import pytest

import disguise
from conftest import labelled

sklearn = pytest.importorskip("sklearn")
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    GridSearchCV, RandomizedSearchCV, cross_val_score)
from sklearn.pipeline import make_pipeline  # noqa: E402


@pytest.fixture
def ledger(tmp_path):
    ledger = disguise.Ledger.create(tmp_path / "budget.ledger")
    ledger.set_limit("people", epsilon=1.0)
    return ledger


def pipeline(ledger, epsilon=0.1):
    return make_pipeline(
        disguise.FeatureSelector(1, epsilon=epsilon, ledger=ledger, dataset="people"),
        LogisticRegression())


def test_the_cost_of_a_cross_validation_is_asked_before_it_runs(ledger):
    X, y = labelled()
    price = ledger.cost(pipeline(ledger), X, y, cv=5)
    assert price["releases"] == 5 and price["folds"] == 5 and not price["refit"]
    assert price["cost"]["epsilon"] == 0.5 and price["fits"]
    assert price["remaining"]["epsilon"] == 1.0 and price["remaining_after"]["epsilon"] == 0.5
    assert price["spends"] == [
        {"epsilon": 0.1, "delta": 0.0, "mechanism": "exponential", "count": 5}]
    # Asking spends nothing and records nothing.
    assert ledger.releases("people") == []
    # One fit (no cv), and a price that does not fit.
    assert ledger.cost(pipeline(ledger), X, y)["releases"] == 1
    too_much = ledger.cost(pipeline(ledger, epsilon=0.3), X, y, cv=4)
    assert not too_much["fits"] and too_much["remaining_after"] is None


def test_a_reserved_cross_validation_draws_from_its_reservation_in_every_worker(ledger):
    X, y = labelled(800)
    pipe = pipeline(ledger, epsilon=0.2)
    with ledger.reserve(pipe, X, y, cv=4) as reserved:
        assert reserved.cost["fits"]
        # Reserved in full before the first fold: another release does not fit meanwhile.
        with pytest.raises(disguise.BudgetExceeded):
            disguise.exponential([1.0, 2.0], epsilon=0.25, sensitivity=1.0,
                                 ledger=disguise.Ledger(ledger.path), dataset="people")
        scores = cross_val_score(pipe, X, y, cv=4, n_jobs=2, error_score="raise")
    assert scores.shape == (4,)
    assert reserved.closed == {"id": reserved.id, "reserved": 4, "drawn": 4, "returned": 0}
    releases = ledger.releases("people")
    assert len(releases) == 1 and releases[0]["runs"] == 4
    assert f"reservation {reserved.id}" in releases[0]["command"]
    assert ledger.remaining("people")["epsilon"] == 0.2
    # Outside the block the ledger reserves as usual again.
    disguise.exponential([1.0, 2.0], epsilon=0.2, sensitivity=1.0, ledger=ledger,
                         dataset="people")
    assert ledger.remaining("people")["epsilon"] == 0.0


def test_a_search_that_does_not_all_fit_is_refused_before_its_first_fold(ledger):
    X, y = labelled()
    search = GridSearchCV(pipeline(ledger), {"featureselector__epsilon": [0.1, 0.2]}, cv=3,
                          error_score="raise")
    price = ledger.cost(search, X, y)
    # 3 folds at 0.1, 3 at 0.2, and the refit at 0.2 (it covers both candidates).
    assert price["releases"] == 7 and price["cost"]["epsilon"] == 1.1 and not price["fits"]
    with pytest.raises(disguise.BudgetExceeded, match=r"7 releases that cost ε = 1\.1.*left ε = 1"):
        with ledger.reserve(search, X, y):
            pytest.fail("the block never runs")
    assert ledger.releases("people") == []
    assert not hasattr(search, "best_params_")


def test_a_reserved_grid_search_in_parallel_spends_what_it_priced(ledger):
    X, y = labelled(800, seed=3)
    search = GridSearchCV(pipeline(ledger), {"featureselector__epsilon": [0.05, 0.1]}, cv=3,
                          n_jobs=2, error_score="raise")
    with ledger.reserve(search, X, y) as reserved:
        search.fit(X, y)
    assert reserved.cost["releases"] == 7
    assert reserved.closed["drawn"] == 7 and reserved.closed["returned"] == 0
    # Charged as priced: 3 × 0.05 + 3 × 0.1 + the refit at the candidate that covers both.
    assert ledger.status("people")["spent"]["epsilon"] == 0.55
    assert search.best_estimator_.predict(X[:3]).shape == (3,)


def test_what_a_search_stopped_by_an_error_did_not_draw_comes_back(ledger):
    X, y = labelled()
    pipe = pipeline(ledger, epsilon=0.2)
    with pytest.raises(ZeroDivisionError):
        with ledger.reserve(pipe, X, y, cv=5) as reserved:
            pipe.fit(X, y)
            pipe.fit(X, y)
            1 / 0
    assert reserved.closed == {"id": reserved.id, "reserved": 5, "drawn": 2, "returned": 3}
    assert ledger.remaining("people")["epsilon"] == 0.6


def test_a_release_the_reservation_does_not_cover_is_refused(ledger):
    X, y = labelled()
    with ledger.reserve(pipeline(ledger, epsilon=0.1), X, y, cv=2):
        bigger = pipeline(ledger, epsilon=0.3)
        with pytest.raises(disguise.BudgetExceeded, match="no run left that covers"):
            bigger.fit(X, y)
        # Another data set of the same ledger reserves as usual.
        ledger.set_limit("others", epsilon=1.0)
        disguise.exponential([1.0, 2.0], epsilon=0.5, sensitivity=1.0, ledger=ledger,
                             dataset="others")
    assert ledger.remaining("others")["epsilon"] == 0.5
    assert ledger.remaining("people")["epsilon"] == 1.0  # nothing drawn, all given back


def test_a_randomized_search_with_a_seed_is_priced_as_it_runs(ledger):
    X, y = labelled(seed=5)
    search = RandomizedSearchCV(pipeline(ledger), {"featureselector__epsilon": [0.02, 0.04, 0.06]},
                                n_iter=2, cv=2, random_state=0, error_score="raise")
    with ledger.reserve(search, X, y) as reserved:
        search.fit(X, y)
    assert reserved.cost["releases"] == 5 and reserved.closed["drawn"] == 5


def test_cost_refuses_what_it_cannot_price(ledger, tmp_path):
    X, y = labelled()
    with pytest.raises(ValueError, match="no disguise estimator"):
        ledger.cost(LogisticRegression(), X, y, cv=2)
    free = make_pipeline(disguise.FeatureSelector(1, epsilon=0.1), LogisticRegression())
    with pytest.raises(ValueError, match="not charged to this ledger"):
        ledger.cost(free, X, y, cv=2)
    other = disguise.Ledger.create(tmp_path / "other.ledger")
    with pytest.raises(ValueError, match="not charged to this ledger"):
        other.cost(pipeline(ledger), X, y, cv=2)
    search = GridSearchCV(pipeline(ledger), {"featureselector__epsilon": [0.1]}, cv=2)
    with pytest.raises(ValueError, match="its own"):
        ledger.cost(search, X, y, cv=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ledger.reserve(pipeline(ledger), X, y, cv=2):
            with pytest.raises(ValueError, match="one at a time"):
                with ledger.reserve(pipeline(ledger), X, y, cv=2):
                    pass
