"""The quick start of the Python guide (python/README.md), also the README's, run as written
on the UCI Adult data."""

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ADULT = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
         "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
         "hours-per-week", "native-country", "income"]


def quick_start(path):
    text = path.read_text(encoding="utf-8")
    python = text[text.index("## Python" if path.name == "README.md" and path.parent == ROOT
                             else "## Quick start"):]
    return re.search(r"```python\n(.*?)```", python, re.S).group(1)


def test_the_readme_and_the_guide_open_with_the_same_quick_start():
    guide = quick_start(ROOT / "python" / "README.md")
    assert quick_start(ROOT / "README.md") == guide
    # About ten lines of work after the imports, as promised.
    work = [line for line in guide.splitlines()
            if line.strip() and not line.startswith(("import", "from"))]
    assert len(work) <= 11, work


def test_the_quick_start_runs_on_adult(tmp_path, monkeypatch):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    data = Path(os.environ.get("DISGUISE_DATA", ROOT.parent / "shared" / "data"))
    source = data / "uci_adult" / "adult.data"
    if not source.exists():
        if os.environ.get("DISGUISE_REQUIRE_DATA"):
            pytest.fail(f"{source} is missing and DISGUISE_REQUIRE_DATA is set")
        pytest.skip(f"real data not found: {source}")
    pd.read_csv(source, names=ADULT, skipinitialspace=True, na_values="?").to_csv(
        tmp_path / "adult.csv", index=False)
    code = quick_start(ROOT / "python" / "README.md").replace(
        '"crates/disguise/schemas/', f'"{ROOT}/crates/disguise/schemas/')
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(code, "python/README.md", "exec"), scope)
    ledger = scope["ledger"]
    assert ledger.remaining("adult")["epsilon"] == 0.5
    assert len(scope["copy"]) == len(pd.read_csv(tmp_path / "adult.csv"))
    assert scope["pick"].steps[0][1].support_.sum() == 3
    assert scope["clf"].classes_.tolist() == ["<=50K", ">50K"]
