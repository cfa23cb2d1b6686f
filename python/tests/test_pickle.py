"""Pickling (joblib, process pools), scikit-learn's parallel cross-validation and search
under one ledger, and drafting a schema from a DataFrame."""

import os
import pickle
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import disguise
from conftest import labelled

ROOT = Path(__file__).resolve().parents[2]


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


@pytest.fixture
def ledger(tmp_path):
    return disguise.Ledger.create(tmp_path / "budget.ledger")


def test_a_ledger_pickles_as_its_file_and_each_copy_reserves_in_it(ledger, tmp_path):
    ledger.set_limit("scores", epsilon=1.0)
    back = pickle.loads(pickle.dumps(ledger))
    assert back.path == ledger.path and back is not ledger
    disguise.exponential([1.0, 5.0], epsilon=0.25, sensitivity=1.0, ledger=back,
                         dataset="scores")
    # The release through the copy is in the one file.
    assert ledger.remaining("scores")["epsilon"] == 0.75
    # Opened again from another working directory: the path is absolute.
    here = os.getcwd()
    try:
        os.chdir(tmp_path.parent)
        assert pickle.loads(pickle.dumps(back)).remaining("scores")["epsilon"] == 0.75
    finally:
        os.chdir(here)
    # A pickle never creates a ledger: a missing file stays an error.
    gone = pickle.dumps(ledger)
    os.rename(ledger.path, tmp_path / "moved.ledger")
    with pytest.raises(disguise.LedgerError):
        pickle.loads(gone)


@pytest.mark.parametrize("kind", ["facility", "coverage", "features"])
def test_fitted_selections_pickle_as_their_release_without_diagnostics(kind):
    rng = np.random.default_rng(1)
    if kind == "facility":
        X = rng.normal(size=(300, 2))
        fit = lambda **kw: disguise.FacilityLocation(3, epsilon=1.0, **kw).fit(
            X, candidates=rng.uniform(-2, 2, size=(20, 2)))
    elif kind == "coverage":
        sets = [set(rng.choice(40, 5, replace=False).tolist()) for _ in range(15)]
        fit = lambda **kw: disguise.MaxCoverage(3, epsilon=1.0, **kw).fit(
            sets, candidates=list(range(15)))
    else:
        X, y = labelled()
        fit = lambda **kw: disguise.FeatureSelector(1, epsilon=2.0, **kw).fit(X, y)
    plain = quiet(fit)
    back = pickle.loads(pickle.dumps(plain))
    assert back.ranking_.tolist() == plain.ranking_.tolist()
    assert back.report_ == plain.report_ and back.guarantee_ == plain.guarantee_
    # Fitted with the diagnostics: the pickle holds the release only (it can be handed on).
    diagnosed = quiet(fit, diagnostics=True)
    assert "not_private" in diagnosed.report_ and diagnosed.gains_ is not None
    back = pickle.loads(pickle.dumps(diagnosed))
    assert back.ranking_.tolist() == diagnosed.ranking_.tolist()
    assert "not_private" not in back.report_
    with pytest.raises(AttributeError, match="NOT private"):
        back.gains_
    with pytest.raises(AttributeError, match="NOT private"):
        back.not_private_
    # Read from the native release too, not only the cached dict.
    back.__dict__.pop("_report", None)
    assert "not_private" not in back.report_
    assert b"not_private" not in pickle.dumps(diagnosed)


def test_a_fitted_projected_histogram_pickles_and_draws_the_same_records():
    schema = {"columns": [
        {"name": "smoker", "type": "categorical", "levels": ["no", "yes"]},
        {"name": "age", "type": "numeric", "bounds": [0, 100], "bins": 4},
        {"name": "sick", "type": "categorical", "levels": ["no", "yes"]}]}
    data = {"smoker": ["yes", "no"] * 500, "age": [30.0, 160.0] * 500,
            "sick": ["yes", "no"] * 500}
    h = quiet(disguise.ProjectedHistogram(epsilon=3.0, schema=schema, target="sick", seed=3,
                                          diagnostics=True).fit, data)
    assert "not_private" in h.report_
    back = pickle.loads(pickle.dumps(h))
    assert "not_private" not in back.report_ and back.k_ == h.k_
    first, again = h.sample(60), back.sample(60)
    for column in ("smoker", "sick"):
        assert list(np.asarray(first[column])) == list(np.asarray(again[column]))
    assert len(back.sample()["sick"]) == 1000
    # A damaged state is refused, not sampled from.
    rebuild, state = h._release.__reduce__()
    with pytest.raises(ValueError, match="out of order|cells"):
        rebuild(state[0], state[1], state[2].replace('"size":', '"size":1,"x":'),
                state[3], state[4], state[5])


def test_cross_validation_in_parallel_charges_every_fold_to_the_one_ledger(ledger):
    sklearn = pytest.importorskip("sklearn")
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    del sklearn
    X, y = labelled(800)
    ledger.set_limit("people", epsilon=2.0)
    pipe = make_pipeline(
        disguise.FeatureSelector(1, epsilon=0.25, ledger=ledger, dataset="people"),
        LogisticRegression())
    scores = cross_val_score(pipe, X, y, cv=4, n_jobs=2, error_score="raise")
    assert scores.shape == (4,)
    status = ledger.status("people")
    assert status["releases"] == 4 and status["spent"]["epsilon"] == 1.0
    # Processes other than this one recorded them: the commands name the estimator.
    assert all("FeatureSelector" in r["command"] for r in ledger.releases("people"))
    # Four more folds would pass the limit by 0.5: with error_score="raise" the refusal
    # says what is spent and what is left.
    ledger.set_limit("people", epsilon=1.5)
    with pytest.raises(disguise.BudgetExceeded, match=r"spent ε = 1(\.\d+)?, .*left ε = "):
        cross_val_score(pipe, X, y, cv=4, n_jobs=2, error_score="raise")
    assert ledger.status("people")["spent"]["epsilon"] <= 1.5


def test_grid_search_in_parallel_charges_every_fit(ledger):
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    X, y = labelled(800, seed=2)
    ledger.set_limit("people", epsilon=5.0)
    pipe = make_pipeline(
        disguise.FeatureSelector(1, epsilon=0.25, ledger=ledger, dataset="people"),
        LogisticRegression())
    search = GridSearchCV(pipe, {"featureselector__epsilon": [0.1, 0.2]}, cv=3, n_jobs=2,
                          error_score="raise")
    search.fit(X, y)
    releases = ledger.releases("people")
    # 2 candidates × 3 folds, and the refit with the best.
    assert len(releases) == 7
    assert sorted(r["epsilon"] for r in releases[:6]) == [0.1] * 3 + [0.2] * 3
    assert releases[6]["epsilon"] == search.best_params_["featureselector__epsilon"]
    # The fitted search pickles (joblib.dump) with its ledger as a path.
    import joblib
    back = pickle.loads(pickle.dumps(search))
    assert back.predict(X[:5]).tolist() == search.predict(X[:5]).tolist()
    del joblib


def test_draft_schema_of_a_dataframe_is_the_command_lines_draft(tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"age": [23.0, 41.0, 35.0], "sex": ["F", "M", "F"],
                          "visits": [1, 2, 3], "smoker": [True, False, True]})
    text = disguise.draft_schema(frame, target="sex")
    # Categorical by dtype; every domain left to fill in, so the draft does not parse yet.
    assert 'name = "sex"\ntype = "categorical"\nlevels = [] # FILL IN' in text
    assert 'name = "smoker"\ntype = "categorical"' in text
    assert 'name = "visits"\ntype = "numeric"\nbounds = [] # FILL IN' in text
    assert "23" not in text and '"M"' not in text
    with pytest.raises(ValueError):
        disguise.Synthesizer(epsilon=1.0, schema=text).fit(frame)
    binary = Path(os.environ.get("DISGUISE_BIN", ROOT / "target" / "debug" / "disguise"))
    if binary.exists():
        frame.to_csv(tmp_path / "t.csv", index=False)
        cli = subprocess.run(
            [str(binary), "schema", "--data", str(tmp_path / "t.csv"), "--target", "sex",
             "--categorical", "sex,smoker"], check=True, capture_output=True, text=True).stdout
        assert cli == text
    # From the data, said loudly: a warning, and every domain marked in the text.
    with pytest.warns(disguise.NotPrivateWarning, match="NOT private"):
        filled = disguise.draft_schema(frame, target="sex", domains="data",
                                       path=tmp_path / "s.toml")
    assert (tmp_path / "s.toml").read_text() == filled
    assert 'bounds = [23.0, 41.0] # READ FROM THE DATA (NOT private)' in filled
    assert 'levels = ["F", "M"] # READ FROM THE DATA (NOT private)' in filled
    assert filled.count("READ FROM THE DATA") == 5  # four columns and the warning
    s = quiet(disguise.Synthesizer(epsilon=1.0, schema=str(tmp_path / "s.toml")).fit, frame)
    assert len(s.sample(5)) == 5
    # Names only, and the errors.
    assert disguise.draft_schema(["a", "b"], categorical=["b"]).count("[[columns]]") == 2
    with pytest.raises(ValueError, match="repeated"):
        disguise.draft_schema(["a", "A"])
    with pytest.raises(ValueError, match="no column"):
        disguise.draft_schema(frame, target="income")
    with pytest.raises(ValueError, match="needs the data"):
        disguise.draft_schema(["a"], domains="data")
    with pytest.raises(ValueError, match="invalid domains"):
        disguise.draft_schema(frame, domains="guess")
