"""Private synthetic data: ``ProjectedHistogram`` (Vinterbo's projected histograms) and
``Synthesizer`` (AIM and MST on disguise's engine), their schema."""

from __future__ import annotations

import json
import math
import os
import warnings
from typing import Any, Sequence

import numpy as np

from . import _disguise
from ._common import (_Diagnosed, _Params, _priceable, _guarantee, _positive_int, _read_private,
                      _warn_if_vacuous, _warn_seed)
from .exceptions import NotPrivateWarning, UsefulnessWarning
from .ledger import Ledger

__all__ = ["ProjectedHistogram", "Synthesizer", "draft_schema"]


def _schema_json(schema: Any) -> str:
    """The validated schema as JSON, from a dict (the TOML keys), a path or TOML text."""
    import os

    if isinstance(schema, dict):
        return _disguise.histogram_schema(json.dumps(schema), "json")
    if isinstance(schema, (str, os.PathLike)):
        text = os.fspath(schema)
        if "\n" not in text and "[[columns]]" not in text:
            return _disguise.histogram_schema(text, "path")
        return _disguise.histogram_schema(text, "toml")
    raise ValueError(f"invalid schema: a dict, a path or TOML text, not {type(schema).__name__}")


def draft_schema(
    data: Any,
    *,
    target: str | None = None,
    categorical: Sequence[str] | None = None,
    domains: str = "blank",
    path: str | os.PathLike | None = None,
) -> str:
    """A draft schema (TOML, ``docs/schema.md``) for a table, to edit and then give to
    ``Synthesizer`` or ``ProjectedHistogram``: the text ``disguise schema --data FILE`` drafts
    for the same table saved as CSV. ``data`` is a DataFrame, a dict of columns or a list of
    column names; ``target`` the label column. ``categorical`` names the categorical
    columns; without it a column is categorical when its dtype is not numeric (object,
    string, category, bool; for a dict, when its values are not all numbers).

    **Every domain must be public knowledge** — documentation, standards, round figures —
    never read from the data: a release on a schema whose levels or bounds came from the
    records is not private (a rare level says that someone has it, a bound is one person's
    value). By default (``domains="blank"``) the levels and bounds are left empty, and the
    draft does not parse until you fill them in. ``domains="data"`` fills them in from the
    data — NOT private: each is marked ``READ FROM THE DATA`` in the draft, a
    ``NotPrivateWarning`` says so, and they must each be confirmed as public (or replaced)
    before any release uses the schema. ``path=`` also writes the draft there (atomically).

    >>> import disguise
    >>> text = disguise.draft_schema({"age": [23.0, 41.0], "sex": ["F", "M"]}, target="sex")
    >>> text.count("[[columns]]"), text.count("levels = [] # FILL IN")
    (2, 1)
    """
    if domains not in ("blank", "data"):
        raise ValueError(f'invalid domains: {domains!r} ("blank" or "data")')
    frame = None
    if hasattr(data, "columns") and hasattr(data, "dtypes"):
        frame = data
        names = [str(c) for c in data.columns]
    elif isinstance(data, dict):
        names = [str(c) for c in data]
    elif isinstance(data, (list, tuple)) and all(isinstance(c, str) for c in data):
        names = list(data)
        if domains == "data":
            raise ValueError('invalid domains: "data" needs the data, not only its column names')
    else:
        raise ValueError(
            "invalid data: a DataFrame, a dict of columns or a list of column names, not "
            f"{type(data).__name__}")
    if len(set(n.strip().lower() for n in names)) != len(names):
        raise ValueError(f"invalid data: a column name is repeated (columns: {names})")

    def column(i: int) -> np.ndarray:
        if frame is not None:
            return frame.iloc[:, i].to_numpy()
        return np.asarray(list(data.values())[i], dtype=object)

    def is_numeric(i: int) -> bool:
        if frame is not None:
            kind = getattr(frame.dtypes.iloc[i], "kind", "O")
            return kind in "iuf"
        if isinstance(data, dict):
            values = list(data.values())[i]
            return all(isinstance(v, (int, float, np.integer, np.floating))
                       and not isinstance(v, (bool, np.bool_)) for v in values)
        return True

    if categorical is None:
        categorical = [n for i, n in enumerate(names) if not is_numeric(i)]
    elif isinstance(categorical, str):
        categorical = [categorical]
    categorical = [str(c) for c in categorical]
    wanted = {c.strip().lower() for c in categorical}
    levels: list = [None] * len(names)
    bounds: list = [None] * len(names)
    if domains == "data":
        warnings.warn(
            "draft_schema(domains=\"data\"): the levels and bounds are read from the data and "
            "are NOT private; confirm each is public knowledge (or replace it) before a release "
            "uses the schema",
            NotPrivateWarning,
            stacklevel=2,
        )
        for i, name in enumerate(names):
            values = column(i)
            present = [v for v in values.tolist()
                       if v is not None and not (isinstance(v, float) and math.isnan(v))]
            if name.strip().lower() in wanted:
                levels[i] = sorted({_field(v, None, name) for v in present})
            elif present:
                try:
                    numbers = np.asarray(present, dtype=np.float64)
                except (TypeError, ValueError):
                    raise ValueError(
                        f"invalid data: column {name!r} is not numeric; name it in "
                        "categorical=") from None
                bounds[i] = (float(numbers.min()), float(numbers.max()))
    text = _disguise.draft_schema(
        names, categorical, None if target is None else str(target), levels, bounds)
    if path is not None:
        _write_atomically(os.fspath(path), text)
    return text


def _write_atomically(path: str, text: str) -> None:
    """Writes ``text`` to ``path`` through a temporary file beside it, then a rename: a
    reader sees the old file or the whole new one."""
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".disguise-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _prepared_schema(schema: Any, exclude: Any) -> str:
    """The validated schema of a fit as JSON, without the columns ``exclude`` names (as
    ``--exclude`` on the command line: neither read nor written). Whether a numeric column is
    an integer column is the schema's to say (``"integer": True``), never inferred from the
    data: a column's dtype is a function of its values, and one record with a fraction would
    change how every value is written."""
    text = _schema_json(schema)
    if exclude is None or (not isinstance(exclude, str) and len(exclude) == 0):
        return text
    wanted = [exclude] if isinstance(exclude, str) else list(exclude)
    parsed = json.loads(text)
    names = [c["name"] for c in parsed["columns"]]
    lowered = {n.strip().lower(): n for n in names}
    drop = set()
    for name in wanted:
        found = lowered.get(str(name).strip().lower())
        if found is None:
            raise ValueError(f"invalid exclude: no column {name!r} in the schema (columns: {names})")
        drop.add(found)
    parsed["columns"] = [c for c in parsed["columns"] if c["name"] not in drop]
    if not parsed["columns"]:
        raise ValueError("invalid exclude: it excludes every column of the schema")
    return _disguise.histogram_schema(json.dumps(parsed), "json")


def _field(value: Any, missing: str | None, name: str) -> str:
    """One value as the text the schema parses; None and NaN are the missing marker."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        if missing is None:
            raise ValueError(
                f"invalid data: column {name!r} has a missing value and the schema declares no "
                "`missing` marker"
            )
        return missing
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    return str(value)


class ProjectedHistogram(_Diagnosed, _Params):
    """Vinterbo's (2012) differentially private projected histogram: a synthetic table for
    training classifiers.

    ``fit(data)`` chooses k predictors privately (PRIVATEKD, with epsilon_p), releases a
    thresholded Laplace histogram of the data projected onto them and the target (with
    epsilon_h = gamma * epsilon), and ``sample(n)`` draws n synthetic records from the
    normalised noisy histogram (default n: the number of records, public under replace-one
    neighbours) — post-processing that costs no privacy. The guarantee is epsilon-DP for
    replace-one neighbours when every domain is public.

    ``schema`` declares every column's public domain (levels of a categorical column, bounds
    and optionally bins of a numeric one; see docs/schema.md): a dict with the TOML keys
    (``{"target": "y", "columns": [{"name": "age", "type": "numeric", "bounds": [0, 100]},
    ...]}``), a path to a TOML file, or TOML text. ``data`` is a DataFrame, a dict of columns
    or a 2-D array/list of rows in the schema's column order.

    ``k`` (default: chosen by simulation on public quantities, as the paper) and ``gamma``
    (default: estimated) may be fixed. An estimated gamma splits epsilon by ``gamma_rule``:
    ``"balanced"`` (the default, beyond the paper: the projection and the histogram in the
    ratio of the square roots of their needs, the histogram's need computed for its real cell
    space, the histogram at most 10 times its need), ``"paper"`` (Vinterbo's equation (11),
    the ratio of the two needs) or ``"surplus"`` (the projection its need, the histogram the
    rest); all use public quantities only. Numeric columns without ``bins`` or ``edges`` in
    the schema get as many bins as the paper's bandwidth rule gives for the predictors the
    release keeps (``bin_rule="released"``, the default: a given ``k``, else the paper's
    simulated k; 5 bins on Adult), cut at private bin edges paid from ``edge_share``
    (default 0.2) of epsilon (``report_["edges"]``); ``"paper"`` keeps the paper's equal bins
    for all predictors (2 bins on Adult's 14), without private edges. Every domain comes
    from the schema: a column without levels or bounds is refused (domains read from the data
    would reveal records), and a value outside a numeric column's bounds is clamped into its
    edge bin. A release never cuts a numeric column into one bin (at least 2; ``bin_rule=
    "paper"`` stays exact). ``values="uniform"`` (default) draws a sampled numeric value
    inside its bin, ``"midpoint"`` writes the bin's midpoint; a numeric column the schema marks ``"integer": True`` gets
    whole numbers; ``exclude`` names columns neither read nor written (an identifier).

    Attributes after ``fit``, the release and what is computed from it and the public
    inputs: ``attributes_`` (the kept predictors, in table order), ``dropped_`` (the
    predictors left out), ``k_``, ``gamma_``, ``guarantee_``, ``usefulness_`` and
    ``report_`` (the library's report: the budget split, the released cells and rows). With
    ``diagnostics=True`` also ``not_private_`` (and ``report_["not_private"]``): how many
    values of each numeric column were clamped into its edge bins, counted on the private
    data, NOT covered by the guarantee.

    ``ledger=`` (a ``Ledger``) charges every ``fit`` to a persistent privacy budget, under
    the data set named by ``dataset`` (required with a ledger); a fit over the data set's
    limit raises ``BudgetExceeded`` and leaves the estimator unfitted (sampling is free). A
    fit that fails after its reservation (a value the schema cannot read) raises a
    ``ValueError`` that says what stays charged, its reason only with ``diagnostics=True``.

    >>> import disguise
    >>> schema = {"target": "sick", "columns": [
    ...     {"name": "smoker", "type": "categorical", "levels": ["no", "yes"]},
    ...     {"name": "age", "type": "numeric", "bounds": [0, 100], "bins": 4},
    ...     {"name": "sick", "type": "categorical", "levels": ["no", "yes"]}]}
    >>> data = {"smoker": ["yes", "no"] * 500, "age": [30.0, 60.0] * 500, "sick": ["yes", "no"] * 500}
    >>> h = disguise.ProjectedHistogram(epsilon=2.0, schema=schema, k=1).fit(data)
    >>> table = h.sample(100)
    >>> len(table["sick"])
    100
    """

    def __init__(
        self,
        *,
        epsilon: float,
        schema: Any,
        target: str | None = None,
        k: int | None = None,
        gamma: float | None = None,
        threshold_constant: float = 0.5,
        seed: int | None = None,
        ledger: Ledger | None = None,
        dataset: str | None = None,
        gamma_rule: str = "balanced",
        bin_rule: str = "released",
        values: str = "uniform",
        edge_share: float = 0.2,
        exclude: Sequence[str] | None = None,
        diagnostics: bool = False,
    ):
        self._keep_params(locals())

    def _placeholder(self, data: Any, y: Any = None) -> None:
        """Nothing, while a fit is priced (``Ledger.cost``): a table is drawn only from a
        fitted model, never inside a pipeline."""

    @_priceable
    def fit(self, data: Any, y: Any = None) -> "ProjectedHistogram":
        """Releases the projected histogram of ``data``; returns self."""
        seed = _warn_seed(self.seed)
        schema_json = _prepared_schema(self.schema, self.exclude)
        k = None if self.k is None else _positive_int(self.k, "k")
        run = self._fit_run(seed)
        rows = _schema_rows(data, schema_json, run)
        self._release = _disguise.histogram_fit(
            schema_json,
            rows,
            None if self.target is None else str(self.target),
            float(self.epsilon),
            k,
            None if self.gamma is None else float(self.gamma),
            float(self.threshold_constant),
            str(self.gamma_rule),
            run,
            str(self.bin_rule),
            float(self.edge_share),
        )
        report = json.loads(self._release.report())
        self.report_ = report
        self.attributes_ = list(report["attributes"])
        self.dropped_ = list(report["dropped"])
        self.k_ = report["k"]
        self.gamma_ = report["gamma"]
        self.guarantee_ = _guarantee(report, bool(report.get("guarantee")))
        self.usefulness_ = report.get("usefulness")
        _warn_if_vacuous(self.usefulness_)
        return self

    def sample(self, n: int | None = None) -> Any:
        """``n`` synthetic records (default: as many as the data had), in a random order (the
        release's ``seed`` makes it reproducible), as a DataFrame when pandas is installed,
        else a dict of columns. A numeric value is drawn uniformly inside its bin (an integer
        for an integer column), or is the bin's midpoint with ``values="midpoint"``:
        post-processing, no privacy cost."""
        if not hasattr(self, "_release"):
            raise ValueError("this ProjectedHistogram is not fitted yet: call fit first")
        return _sample_frame(self._release, n, self.values)


def _schema_rows(data: Any, schema_json: str, run: dict) -> list[list[str]]:
    """The records of ``data`` (a DataFrame, a dict of columns or rows in the schema's column
    order) as lists of field texts in the schema's column order. Its columns (the schema's
    names) and its number of records are public and checked at once; what is found in the
    records (a row of the wrong width, a missing value the schema does not allow) is read as
    ``_read_private`` says."""
    schema = json.loads(schema_json)
    names = [c["name"] for c in schema["columns"]]
    missing = schema.get("missing")
    if hasattr(data, "columns") or isinstance(data, dict):
        available = {str(c): c for c in data.keys()} if isinstance(data, dict) else {
            str(c): c for c in data.columns}
        lowered = {k.lower(): v for k, v in available.items()}
        columns = []
        for name in names:
            key = available.get(name, lowered.get(name.lower()))
            if key is None:
                raise ValueError(f"invalid data: no column {name!r} (the schema's columns: {names})")
            columns.append(list(np.asarray(data[key], dtype=object)))
        table = None
    else:
        table = [list(row) for row in data]
        columns = None
    if (len(table) if table is not None else max(len(c) for c in columns)) == 0:
        raise ValueError("invalid data: empty")

    def read() -> list[list[str]]:
        by_column = columns
        if table is not None:
            if any(len(row) != len(names) for row in table):
                raise ValueError(
                    f"invalid data: every row needs {len(names)} fields, the schema's columns "
                    f"{names}"
                )
            by_column = [list(col) for col in zip(*table)]
        lengths = {len(c) for c in by_column}
        if len(lengths) != 1:
            raise ValueError(f"invalid data: columns of different lengths {sorted(lengths)}")
        texts = [[_field(v, missing, name) for v in col] for col, name in zip(by_column, names)]
        return [list(r) for r in zip(*texts)]

    return _read_private(run, read, list)


def _sample_frame(release: Any, n: int | None, values: str) -> Any:
    """``n`` records drawn from a native release, as a DataFrame when pandas is installed,
    else a dict of columns; numeric columns as floats, drawn inside their bins
    (``values="uniform"``) or their bins' midpoints (``values="midpoint"``)."""
    if n is not None:
        n = int(n)
        if n < 0:
            raise ValueError(f"invalid n: {n} (at least 0)")
    values = release.sample(n, str(values))
    out = {}
    for (name, numeric), column in zip(release.columns(), values):
        if numeric:
            out[name] = np.array([float(v) if v not in ("", None) else np.nan
                                  for v in _numbers_or_missing(column)], dtype=np.float64)
        else:
            out[name] = np.asarray(column, dtype=object)
    try:
        import pandas as pd
    except ImportError:
        return out
    return pd.DataFrame(out)


class Synthesizer(_Diagnosed, _Params):
    """Whole-table differentially private synthetic data on disguise's engine: AIM (McKenna,
    Mullins, Sheldon, Miklau 2022) or MST (McKenna, Miklau, Sheldon 2021).

    ``method="aim"`` (the default when ``delta > 0``) measures every column's counts with
    discrete Gaussian noise, then in rounds lets the exponential mechanism choose the marginal
    (every 2-way, and the 3-ways that hold the ``target`` column — by default the schema's
    ``target``) the current model gets most wrong, measures it and refits a graphical model on
    a junction tree; the guarantee is (epsilon, delta)-DP through zCDP. ``method="mst"`` (the
    default at ``delta=0``) measures every column's counts, chooses d - 1 pairs of columns as
    a private maximum spanning tree (the exponential mechanism inside disguise's private
    greedy on the graphic matroid), measures those pairs and fits a tree-structured model;
    with ``delta=0`` its measurements are discrete Laplace and the guarantee pure epsilon-DP.
    ``sample(n)`` draws n records from the model (default n: the number of records, public
    under replace-one neighbours) — post-processing that costs no privacy. Neighbours are
    replace-one; every domain must be public (``schema``, as for ``ProjectedHistogram``).
    A numeric column with neither ``bins`` nor ``edges`` is cut at private bin edges, paid
    from ``edge_share`` (default 0.2) of the budget split over those columns, into as many bins
    as a noisy 2-way marginal's cells can hold (each expecting at least one noise standard
    deviation of records); ``report_["edges"]`` lists them. ``values="uniform"`` (default) draws a
    numeric value inside its bin, ``"midpoint"`` writes the bin's midpoint; a numeric column the schema marks ``"integer": True`` gets
    whole numbers; ``exclude`` names columns neither read nor written (an
    identifier).

    Attributes after ``fit``, the release and what is computed from it and the public
    inputs: ``marginals_`` (the measured marginals of two or more columns, as tuples of
    column names, in the order the exponential mechanism chose them; ``report_["measured"]``
    lists every measurement with its noise and the selection's epsilon), ``tree_`` (MST's
    pairs; ``None`` for AIM), ``guarantee_`` and ``report_`` (the noise, the values merged by the compression of
    the noisy 1-ways, the fit to the noisy marginals). With ``diagnostics=True`` also
    ``not_private_`` (and ``report_["not_private"]``): how many values of each numeric column
    were clamped into its edge bins, counted on the private data, NOT covered by the
    guarantee. ``ledger=`` charges every ``fit`` as for the other estimators; a fit that fails
    after its reservation raises a ``ValueError`` that says what stays charged, its reason
    only with ``diagnostics=True``.

    >>> import disguise
    >>> schema = {"columns": [
    ...     {"name": "smoker", "type": "categorical", "levels": ["no", "yes"]},
    ...     {"name": "age", "type": "numeric", "bounds": [0, 100], "bins": 4},
    ...     {"name": "sick", "type": "categorical", "levels": ["no", "yes"]}]}
    >>> data = {"smoker": ["yes", "no"] * 500, "age": [30.0, 60.0] * 500, "sick": ["yes", "no"] * 500}
    >>> s = disguise.Synthesizer(epsilon=3.0, schema=schema).fit(data)
    >>> table = s.sample(100)
    >>> sorted(table.columns) if hasattr(table, "columns") else sorted(table)
    ['age', 'sick', 'smoker']
    """

    def __init__(
        self,
        *,
        epsilon: float,
        schema: Any,
        delta: float = 0.0,
        noise: str | None = None,
        iterations: int = 1000,
        seed: int | None = None,
        ledger: Ledger | None = None,
        dataset: str | None = None,
        values: str = "uniform",
        exclude: Sequence[str] | None = None,
        diagnostics: bool = False,
        edge_share: float = 0.2,
        method: str | None = None,
        target: str | None = None,
    ):
        self._keep_params(locals())

    def _placeholder(self, data: Any, y: Any = None) -> None:
        """Nothing, while a fit is priced (``Ledger.cost``): a table is drawn only from a
        fitted model, never inside a pipeline."""

    @_priceable
    def fit(self, data: Any, y: Any = None) -> "Synthesizer":
        """Fits the private model of ``data``; returns self."""
        seed = _warn_seed(self.seed)
        schema_json = _prepared_schema(self.schema, self.exclude)
        iterations = _positive_int(self.iterations, "iterations")
        run = self._fit_run(seed)
        rows = _schema_rows(data, schema_json, run)
        self._model = _disguise.synth_fit(
            schema_json,
            rows,
            float(self.epsilon),
            float(self.delta),
            None if self.noise is None else str(self.noise),
            iterations,
            run,
            float(self.edge_share),
            None if self.method is None else str(self.method),
            None if self.target is None else str(self.target),
        )
        report = json.loads(self._model.report())
        self.report_ = report
        self.marginals_ = [tuple(m["columns"]) for m in report["measured"]
                           if len(m["columns"]) > 1]
        self.tree_ = [tuple(p) for p in report["tree"]] if "tree" in report else None
        self.guarantee_ = _guarantee(report, True)
        warning = self._model.noise_warning()
        if warning:
            warnings.warn(warning, UsefulnessWarning, stacklevel=2)
        return self

    def sample(self, n: int | None = None) -> Any:
        """``n`` synthetic records (default: as many as the data had), drawn independently
        from the fitted model (the ``seed`` makes it reproducible), as a DataFrame when pandas
        is installed, else a dict of columns. A numeric value is drawn uniformly inside its
        bin (an integer for an integer column), or is the bin's midpoint with
        ``values="midpoint"``: post-processing, no privacy cost."""
        if not hasattr(self, "_model"):
            raise ValueError("this Synthesizer is not fitted yet: call fit first")
        return _sample_frame(self._model, n, self.values)

    def save(self, path: str | os.PathLike) -> None:
        """Writes the fitted model to ``path`` (JSON, ``docs/model-format.md``; the file
        ``disguise synth --save-model`` writes): released values and public metadata only.
        ``Synthesizer.load(path)`` or ``disguise synth --model path`` draws from it later
        without the data and without spending budget (post-processing)."""
        if not hasattr(self, "_model"):
            raise ValueError("this Synthesizer is not fitted yet: call fit first")
        self._model.save(os.fspath(path))

    @classmethod
    def load(cls, path: str | os.PathLike, *, values: str = "uniform",
             seed: int | None = None) -> "Synthesizer":
        """A fitted Synthesizer from a kept model (``save`` or ``disguise synth
        --save-model``): ``sample`` draws from it, reading no data and spending nothing;
        ``guarantee_`` is that of the release that made the model (every table drawn from
        it carries that and no more). ``seed`` makes its samples reproducible (INSECURE)."""
        model = _disguise.synth_load(os.fspath(path), _warn_seed(seed))
        guarantee = json.loads(model.guarantee())
        out = cls(epsilon=guarantee["epsilon"], schema=None, delta=guarantee["delta"],
                  values=values, seed=seed)
        out._model = model
        out.guarantee_ = guarantee
        out.report_ = {"model": os.fspath(path), "guarantee": guarantee,
                       "columns": [name for name, _ in model.columns()]}
        return out


def _numbers_or_missing(column: list[str]) -> list[str]:
    """Numeric texts; anything that is not a number (the missing marker) becomes ''."""
    out = []
    for v in column:
        try:
            float(v)
            out.append(v)
        except ValueError:
            out.append("")
    return out
