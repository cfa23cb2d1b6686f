"""Private greedy selection as scikit-learn estimators: ``FacilityLocation``,
``MaxCoverage``, ``FeatureSelector``."""

from __future__ import annotations

import json
import warnings
from typing import Any, Mapping, Sequence

import numpy as np

from . import _disguise
from ._common import (_Diagnosed, _Params, _priceable, _estimate_epsilon, _guarantee, _matrix,
                      _not_private_attribute, _only_as_diagnostic, _read_private,
                      _refuse_non_private, _shaped, _floats, _warn_seed, _positive_int)
from .exceptions import NotPrivateWarning, UsefulnessWarning
from .ledger import Ledger

__all__ = ["FacilityLocation", "MaxCoverage", "FeatureSelector"]


class _Selected(_Diagnosed):
    """What the greedy selection estimators share: their privacy options as the native call
    takes them, and the fitted state: ``ranking_`` at once, ``report_``, ``guarantee_`` and
    ``usefulness_`` parsed from the report when first read, and with ``diagnostics=True`` the
    exact ``gains_`` and ``not_private_``."""

    def _greedy(self, algorithm: Any) -> dict:
        """The privacy options of the native call (``Greedy`` in ``_disguise.pyi``): the
        estimator's epsilon, delta, mechanism and rule, and ``algorithm``."""
        return {
            "epsilon": None if self.epsilon is None else float(self.epsilon),
            "delta": float(self.delta),
            "mechanism": str(self.mechanism),
            "rule": str(self.rule),
            "algorithm": str(algorithm),
            "estimate_utility": _estimate_epsilon(getattr(self, "estimate_utility", None)),
        }

    def _set_selection(self, selection: Any, private: bool, note: str | None = None) -> None:
        if not selection.private:
            # The argmax: whatever epsilon says, the choice is the data's exact best.
            warnings.warn(
                f"mechanism={self.mechanism!r} is the non-private argmax: epsilon is ignored "
                "and the selection is NOT differentially private",
                NotPrivateWarning,
                stacklevel=3,
            )
            private, note = False, note or "mechanism max (the argmax): NOT private"
        self._selection, self._private, self._note = selection, private, note
        self.__dict__.pop("_report", None)
        self.ranking_ = selection.selected
        self._gains = selection.gains
        if selection.warning:
            warnings.warn(selection.warning, UsefulnessWarning, stacklevel=3)

    @property
    def gains_(self) -> np.ndarray:
        """Each pick's marginal gain on the private data: NOT private, kept only when the
        estimator was fitted with ``diagnostics=True``."""
        gains = self.__dict__.get("_gains")
        if gains is None:
            raise _not_private_attribute("gains_")
        return gains

    @property
    def report_(self) -> dict:
        """The library's report of the run (a dict, as ``disguise ... --format json``)."""
        if "_report" not in self.__dict__:
            self._report = json.loads(self._selection.json)
        return self._report

    @property
    def guarantee_(self) -> dict:
        """epsilon, delta and rule of the end-to-end guarantee, and whether it holds
        (``private``: False for a seeded run or candidates taken from the data)."""
        return _guarantee(self.report_, self._private, self._note)

    @property
    def usefulness_(self) -> dict | None:
        """The paper's a-priori utility bound and whether it is vacuous."""
        return self.report_.get("usefulness")

    @property
    def utility_estimate_(self) -> dict | None:
        """With ``estimate_utility=``: the private estimate of the choice's utility
        (``estimate``, its 95 % interval ``low`` to ``high``, the ``epsilon`` it spent), else
        None."""
        return self.report_.get("utility_estimate")


class FacilityLocation(_Selected, _Params):
    """Private facility location: choose ``n_select`` of the candidates that best serve the
    records, by the private greedy of Mitrovic et al. (2017).

    f(S) = sum over records of (1 - min(1, d(record, nearest chosen candidate) / m)), d the
    ``metric`` and m the ``normalizer`` (default: the diagonal of the candidates' bounding
    box), so each record contributes at most 1 and every marginal gain moves by at most 1 when
    one record changes: each round is one exponential-mechanism (or large-margin) selection at
    sensitivity 1, and the total (epsilon, delta) is split over the rounds by the accountant's
    best composition rule (``rule="auto"``).

    ``cost`` (public, in records served) maximises f(S) - cost * |S| instead: only candidates
    worth their cost are chosen; the objective is then non-monotone and the default algorithm
    is the subsample-greedy (Algorithm 4). Its utility theorem (Theorem 4.1) needs f >= 0,
    which f - cost * |S| is not, so no utility bound is claimed (``usefulness_`` says so);
    the privacy guarantee is unaffected.

    The candidates must be public (fixed without looking at the records). Omitting them uses
    the records themselves (apricot's convention): the selection then reveals records and is
    NOT private, so it runs only with ``diagnostics=True``; a ``NotPrivateWarning`` says so
    and ``guarantee_["private"]`` is False. So does ``mechanism="max"``, the non-private
    greedy (a baseline that ignores epsilon).

    ``ledger=`` (a ``Ledger``) charges every ``fit`` to a persistent privacy budget, under
    the data set named by ``dataset`` (required with a ledger: one name for every fit on the
    same records, e.g. every fold of a cross-validation); a fit over the data set's limit
    raises ``BudgetExceeded`` and leaves the estimator unfitted.

    ``estimate_utility=eps`` also releases a private estimate of the choice's utility, with
    its 95 % interval (``utility_estimate_``), by the Laplace mechanism at that extra epsilon:
    the guarantee adds it by basic composition and a ledger charges it.

    Attributes after ``fit``: ``ranking_`` (selected candidate indices in selection order),
    ``guarantee_`` (epsilon, delta, rule, private), ``usefulness_`` (the paper's a-priori
    utility bound and whether it is vacuous) and ``report_`` (the library's report: the
    release). With ``diagnostics=True`` also ``gains_`` (the picks' marginal gains) and
    ``not_private_`` (values and utilities after each pick), computed on the private
    records: NOT covered by the guarantee, for the data's curator only.

    >>> import numpy as np, disguise
    >>> X = np.random.default_rng(0).normal(size=(500, 3))
    >>> grid = np.random.default_rng(1).uniform(-2, 2, size=(20, 3))  # public candidates
    >>> sel = disguise.FacilityLocation(3, epsilon=2.0).fit(X, candidates=grid)
    >>> sel.transform(grid).shape
    (3, 3)
    """

    def __init__(
        self,
        n_select: int,
        *,
        epsilon: float | None = None,
        delta: float = 0.0,
        metric: str = "euclidean",
        mechanism: str = "exponential",
        rule: str = "auto",
        algorithm: str | None = None,
        normalizer: float | None = None,
        cost: float = 0.0,
        seed: int | None = None,
        ledger: Ledger | None = None,
        dataset: str | None = None,
        estimate_utility: float | None = None,
        diagnostics: bool = False,
    ):
        self._keep_params(locals())

    def _placeholder(self, X: Any, candidates: Any = None, y: Any = None) -> None:
        """A fitted state from the public parameters alone, while a fit is priced
        (``Ledger.cost``): the first k candidates."""
        self.ranking_ = np.arange(int(self.n_select))

    @_priceable
    def fit(self, X: Any, candidates: Any = None, y: Any = None) -> "FacilityLocation":
        """Selects from ``candidates`` ((m, d), public) to serve the records ``X`` ((n, d));
        returns self."""
        k = _positive_int(self.n_select, "n_select")
        seed = _warn_seed(self.seed)
        shaped = _shaped(X, "X", 2)
        note = None
        if candidates is None:
            _refuse_non_private(self.ledger, "candidates=None makes the selection NOT private")
            _only_as_diagnostic(self.diagnostics, "candidates=None (the records as candidates)")
        run = self._fit_run(seed)
        if candidates is None:
            warnings.warn(
                "candidates=None uses the private records as candidates: the selection then "
                "reveals records and is NOT differentially private; pass public candidates",
                NotPrivateWarning,
                stacklevel=2,
            )
            note = "candidates taken from the private records: NOT private"
            records = cands = _floats(shaped, "X")
        else:
            cands = _matrix(candidates, "candidates")
            records = _read_private(run, lambda: _floats(shaped, "X"),
                                    lambda: np.zeros(shaped.shape))
        selection = _disguise.facility_location(
            records,
            cands,
            k,
            str(self.metric),
            None if self.normalizer is None else float(self.normalizer),
            float(self.cost),
            # "auto": the library chooses (the subsample greedy for f − cost·|S|).
            self._greedy(self.algorithm or "auto"),
            run,
        )
        self._set_selection(selection, candidates is not None, note)
        return self

    def transform(self, candidates: Any) -> np.ndarray:
        """The selected rows of ``candidates``, in selection order."""
        self._check_fitted()
        return np.asarray(candidates)[self.ranking_]

    def fit_transform(self, X: Any, candidates: Any = None, y: Any = None) -> np.ndarray:
        """``fit``, then the selected candidates (the records when none are given)."""
        self.fit(X, candidates)
        return self.transform(X if candidates is None else candidates)

    def _check_fitted(self) -> None:
        if not hasattr(self, "ranking_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet: call fit first")


class MaxCoverage(_Selected, _Params):
    """Private maximum coverage: choose ``n_select`` candidates that cover the most people,
    by the private greedy of Mitrovic et al. (2017).

    ``fit(sets)`` takes one record per person: either a list of iterables of hashable
    candidate names (the candidates that cover that person), or an (n, m) 0/1 matrix whose
    columns are the candidates (apricot's ``MaxCoverageSelection`` convention). One person's
    record changes any marginal gain by at most 1, so each round is one selection at
    sensitivity 1. The candidates must be public: give their list with ``candidates=`` for
    iterable input (otherwise the names seen in the data are used, which reveals that they
    occur: it runs only with ``diagnostics=True``, and a ``NotPrivateWarning`` says so); a
    matrix's columns are public by shape. ``mechanism="max"``, the non-private greedy (a
    baseline that ignores epsilon), runs only with ``diagnostics=True`` and warns too.

    ``input="edges"`` (the command line's ``--edges``) takes a friendship graph instead:
    ``fit(edges, candidates=people)`` with ``edges`` an iterable of (u, v) pairs of names (or
    an (m, 2) array) and ``candidates`` the PUBLIC list of people (required); choosing a person
    covers their friends, edges with a name outside the list and self-loops are left out, a
    repeated edge counts once. Neighbours then differ in one friendship (one line of the edge
    list) replaced by another, which changes up to four friend lists (the old friendship's two
    ends and the new one's), so the guarantee is group privacy of size 4 of the run's,
    (4 epsilon, 4 e^(3 epsilon) delta): ``guarantee_`` says so, and a ledger records the
    release at the edge unit.

    ``ledger=`` (a ``Ledger``) charges every ``fit`` to a persistent privacy budget, under
    the data set named by ``dataset`` (required with a ledger: one name for every fit on the
    same records, e.g. every fold of a cross-validation); a fit over the data set's limit
    raises ``BudgetExceeded`` and leaves the estimator unfitted.

    ``estimate_utility=eps`` also releases a private estimate of the choice's utility, with
    its 95 % interval (``utility_estimate_``), by the Laplace mechanism at that extra epsilon:
    the guarantee adds it by basic composition and a ledger charges it.

    Attributes after ``fit``: ``ranking_``, ``candidates_`` (the names ``ranking_`` indexes),
    ``guarantee_``, ``usefulness_``, ``report_``; with ``diagnostics=True`` also ``gains_``
    (people newly covered by each pick) and ``not_private_``, NOT covered by the guarantee.

    >>> import disguise
    >>> people = [["a"], ["a", "b"], ["c"], ["a"], ["b"]] * 20
    >>> disguise.MaxCoverage(1, epsilon=5.0).fit(people, candidates=["a", "b", "c"]).ranking_
    array([0])
    """

    def __init__(
        self,
        n_select: int,
        *,
        epsilon: float | None = None,
        delta: float = 0.0,
        mechanism: str = "exponential",
        rule: str = "auto",
        algorithm: str = "auto",
        seed: int | None = None,
        ledger: Ledger | None = None,
        dataset: str | None = None,
        input: str = "sets",
        estimate_utility: float | None = None,
        diagnostics: bool = False,
    ):
        self._keep_params(locals())

    def _placeholder(self, sets: Any, candidates: Any = None, y: Any = None) -> None:
        """A fitted state from the public parameters alone, while a fit is priced
        (``Ledger.cost``): the first candidates."""
        self.ranking_ = np.arange(int(self.n_select))

    @_priceable
    def fit(self, sets: Any, candidates: Sequence | None = None, y: Any = None) -> "MaxCoverage":
        """Selects the candidates that cover the most of ``sets`` (with ``input="edges"``:
        the people whose friends are the most people, ``sets`` then the friendships); returns
        self."""
        k = _positive_int(self.n_select, "n_select")
        seed = _warn_seed(self.seed)
        private = True
        edges = None
        if self.input not in ("sets", "edges"):
            raise ValueError(f"invalid input {self.input!r}: expected 'sets' or 'edges'")
        matrix_like = isinstance(sets, np.ndarray) or hasattr(sets, "to_numpy")
        if self.input == "sets" and not matrix_like and candidates is None:
            _refuse_non_private(self.ledger, "without candidates= the selection is NOT private")
            _only_as_diagnostic(self.diagnostics, "no candidates= (names seen in the data)")
        run = self._fit_run(seed)
        if self.input == "edges":
            if candidates is None:
                raise ValueError("invalid candidates: input='edges' needs the public list of people")
            names = list(candidates)
            index = {name: i for i, name in enumerate(names)}
            if len(index) != len(names):
                raise ValueError("invalid candidates: a name is listed twice")
            lines = list(sets.tolist() if isinstance(sets, np.ndarray) else sets)
            if not lines:
                raise ValueError("invalid edges: empty")

            def read_edges() -> list[tuple[int, int]]:
                edges = []
                for pair in lines:
                    try:
                        u, v = pair
                    except (TypeError, ValueError):
                        raise ValueError(
                            f"invalid edges: an edge is a pair of names, got {pair!r}") from None
                    try:
                        edges.append((index.get(u, -1), index.get(v, -1)))
                    except TypeError:
                        raise ValueError(
                            f"invalid edges: names must be hashable, got {pair!r}") from None
                return edges

            edges = _read_private(run, read_edges, lambda: [(-1, -1)] * len(lines))
            covers = []
        elif matrix_like:
            matrix = np.asarray(sets)
            if matrix.ndim != 2 or matrix.size == 0:
                raise ValueError(f"invalid sets: expected a non-empty 2-D 0/1 matrix, got shape {matrix.shape}")

            def read_matrix() -> list[list[int]]:
                if np.issubdtype(matrix.dtype, np.floating) and np.isnan(matrix).any():
                    raise ValueError("invalid sets: the matrix holds NaN")
                return [np.flatnonzero(row).tolist() for row in matrix]

            covers = _read_private(run, read_matrix, lambda: [[] for _ in matrix])
            names = list(candidates) if candidates is not None else list(range(matrix.shape[1]))
            if len(names) != matrix.shape[1]:
                raise ValueError(
                    f"invalid candidates: {len(names)} names for {matrix.shape[1]} columns"
                )
        else:
            rows = [list(s) for s in sets]
            if not rows:
                raise ValueError("invalid sets: empty")
            if candidates is None:
                warnings.warn(
                    "no candidates= list: the candidates are the names seen in the data, which "
                    "reveals that they occur; the selection is NOT differentially private",
                    NotPrivateWarning,
                    stacklevel=2,
                )
                private = False
                names = list(dict.fromkeys(x for row in rows for x in row))
            else:
                names = list(candidates)
            index = {name: i for i, name in enumerate(names)}
            if len(index) != len(names):
                raise ValueError("invalid candidates: a name is listed twice")
            # Names not in the public list cover nobody that can be chosen: left out.
            covers = [[index[x] for x in row if x in index] for row in rows]
        selection = _disguise.max_coverage(
            covers, len(names), k, self._greedy(self.algorithm), run, edges
        )
        self.candidates_ = names
        note = None if private else "candidates taken from the data: NOT private"
        self._set_selection(selection, private, note)
        return self


def _columns(X: Any) -> tuple[list[np.ndarray], list[str] | None]:
    """The columns of a table (a DataFrame keeps its column names) as 1-D arrays."""
    if hasattr(X, "columns") and hasattr(X, "iloc"):
        names = [str(c) for c in X.columns]
        return [np.asarray(X.iloc[:, j]) for j in range(X.shape[1])], names
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"invalid X: expected a 2-D table (records × features), got shape {array.shape}")
    return [array[:, j] for j in range(array.shape[1])], None


def _levels(levels: Sequence | None, name: str) -> list | None:
    """A column's public levels as a list, none listed twice."""
    if levels is None:
        return None
    levels = list(levels)
    try:
        distinct = len(set(levels))
    except TypeError:
        raise ValueError(f"invalid categories of {name}: levels must be hashable") from None
    if distinct != len(levels):
        raise ValueError(f"invalid categories of {name}: a level is listed twice")
    return levels


def _code(values: np.ndarray, name: str, levels: Sequence | None) -> tuple[np.ndarray, list]:
    """Category codes of one column: by the public ``levels`` when given, else by the
    distinct values in sorted order (a numeric column with more than MAX_NUMERIC_LEVELS
    distinct values is refused: bin it over public bounds first)."""
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise ValueError(f"invalid {name}: holds NaN (code missing values as a category first)")
    if levels is not None:
        levels = _levels(levels, name)
        index = {v: i for i, v in enumerate(levels)}
        try:
            codes = np.fromiter((index[v] for v in values.tolist()), dtype=np.uint32,
                                count=len(values))
        except KeyError as e:
            raise ValueError(f"invalid {name}: value {e.args[0]!r} is not among its categories") from None
        return codes, levels
    try:
        uniques, codes = np.unique(values, return_inverse=True)
    except TypeError:  # mixed types: compare as text
        uniques, codes = np.unique(values.astype(str), return_inverse=True)
    if values.dtype.kind in "iuf" and len(uniques) > _disguise.MAX_NUMERIC_LEVELS:
        raise ValueError(
            f"invalid {name}: numeric with {len(uniques)} distinct values (more than "
            f"{_disguise.MAX_NUMERIC_LEVELS}): bin it over PUBLIC bounds first (e.g. "
            "np.digitize with fixed edges), or leave it out"
        )
    return codes.astype(np.uint32).ravel(), uniques.tolist()


class FeatureSelector(_Selected, _Params):
    """Private feature selection: the ``n_features`` columns of a discrete table most
    informative about a label, chosen by the private greedy of Mitrovic et al. (2017) on the
    mutual information I(label; features) under the naive Bayes model (``objective=
    "discernibility"``: Vinterbo's k-discernibility).

    A scikit-learn compatible selector (``fit(X, y)``, ``transform``, ``get_support``,
    ``get_params``/``set_params``; works in ``make_pipeline`` and with ``clone``) that does not
    import scikit-learn. Each column is a set of categories: integers, strings or booleans; a
    numeric column with more than 32 distinct values must be binned over public bounds:
    ``bins={"age": (17, 90, 8)}`` cuts column ``age`` (a DataFrame's name, or an index) into 8
    equal bins over the public range [17, 90], values outside clamped into the edge bins (the
    command line's ``--bins age:17:90:8``; scikit-learn's ``KBinsDiscretizer`` takes its edges
    from the data, which is not private). The categories are taken from the data unless
    ``categories`` (one list of levels per column; a binned column's are its bins) and
    ``classes`` (the label's levels) give them publicly; when the set of values is itself
    sensitive, give them.

    Privacy: each row is one person's record, neighbouring tables differ in one record and n
    is public; each round is one selection at the objective's proven sensitivity
    (``docs/proofs/mutual-information.md``), and the total (epsilon, delta) is split over the
    rounds by the accountant's best rule. ``mechanism="max"``, the non-private greedy (a
    baseline that ignores epsilon), runs only with ``diagnostics=True`` and issues a
    ``NotPrivateWarning``.

    ``ledger=`` (a ``Ledger``) charges every ``fit`` to a persistent privacy budget, under
    the data set named by ``dataset`` (required with a ledger: one name for every fit on the
    same records, e.g. every fold of a cross-validation); a fit over the data set's limit
    raises ``BudgetExceeded`` and leaves the estimator unfitted.

    Attributes after ``fit``: ``ranking_`` (chosen column indices in selection order),
    ``support_`` (a boolean mask), ``guarantee_``, ``usefulness_``, ``report_``,
    ``n_features_in_``, for a DataFrame ``feature_names_in_``, with ``diagnostics=True``
    ``gains_`` and ``not_private_`` (NOT private),
    and ``classes_`` only when ``classes`` gives the label's levels (levels read from the
    data are not kept: a rare one would reveal that someone has it).

    >>> import numpy as np, disguise
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 2000)
    >>> X = np.column_stack([y, rng.integers(0, 3, 2000), 1 - y])
    >>> disguise.FeatureSelector(1, epsilon=5.0).fit(X, y).get_support().tolist() in (
    ...     [True, False, False], [False, False, True])
    True
    """

    def __init__(
        self,
        n_features: int,
        *,
        epsilon: float | None = None,
        delta: float = 0.0,
        mechanism: str = "exponential",
        objective: str = "mutual-information",
        rule: str = "auto",
        algorithm: str = "auto",
        categories: Sequence[Sequence] | None = None,
        classes: Sequence | None = None,
        seed: int | None = None,
        ledger: Ledger | None = None,
        dataset: str | None = None,
        bins: Mapping[str | int, tuple[float, float, int]] | None = None,
        diagnostics: bool = False,
    ):
        self._keep_params(locals())

    def _bins(self, width: int, shown: list[str]) -> dict[int, tuple[float, float, int]]:
        """The columns ``bins`` names and their public bins, checked without the data: column
        index → (min, max, count)."""
        out: dict[int, tuple[float, float, int]] = {}
        for key, spec in (self.bins or {}).items():
            if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
                j = int(key)
                if not 0 <= j < width:
                    raise ValueError(f"invalid bins: column {j} does not exist ({width} columns)")
            elif key in shown:
                j = shown.index(key)
            else:
                raise ValueError(f"invalid bins: no column named {key!r}")
            try:
                lo, hi, count = spec
            except (TypeError, ValueError):
                raise ValueError(f"invalid bins of {key!r}: expected (min, max, count), got {spec!r}") from None
            count = _positive_int(count, f"bins of {key!r}")
            lo, hi = float(lo), float(hi)
            # The bins alone, on no value.
            _disguise.bin_codes(np.empty(0), lo, hi, count, f"column {shown[j]!r}")
            out[j] = (lo, hi, count)
        return out

    @staticmethod
    def _binned(values: np.ndarray, name: str, bins: tuple[float, float, int]) -> tuple[np.ndarray, list]:
        """A column's codes by its public bins, and its levels (the bins)."""
        lo, hi, count = bins
        try:
            values = np.ascontiguousarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"invalid column {name!r}: binned columns must be numeric") from None
        return _disguise.bin_codes(values, lo, hi, count, f"column {name!r}"), list(range(count))

    def _placeholder(self, X: Any, y: Any = None) -> None:
        """A fitted state from the public shape alone, while a fit is priced
        (``Ledger.cost``): the first columns, so that a pipeline's later steps can be priced
        on the right number of columns."""
        names = [str(c) for c in X.columns] if hasattr(X, "columns") else None
        columns = len(names) if names is not None else int(np.shape(X)[1])
        self.ranking_ = np.arange(min(int(self.n_features), columns))
        self.n_features_in_ = columns
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.support_ = np.zeros(columns, dtype=bool)
        self.support_[self.ranking_] = True

    @_priceable
    def fit(self, X: Any, y: Any) -> "FeatureSelector":
        """Chooses the features of ``X`` most informative about ``y``; returns self."""
        k = _positive_int(self.n_features, "n_features")
        seed = _warn_seed(self.seed)
        columns, names = _columns(X)
        labels = np.asarray(y).ravel()
        if not columns or len(labels) == 0:
            raise ValueError("invalid X: empty")
        n = len(labels)
        if any(len(c) != n for c in columns):
            raise ValueError(f"invalid X: {len(columns[0])} records for {n} labels")
        if self.categories is not None and len(self.categories) != len(columns):
            raise ValueError(
                f"invalid categories: {len(self.categories)} lists for {len(columns)} columns"
            )
        shown = names or [f"x{j}" for j in range(len(columns))]
        bins = self._bins(len(columns), shown)
        # The public levels, checked before the data is read.
        for j, levels in enumerate(self.categories or []):
            _levels(levels, f"column {shown[j]!r}")
        _levels(self.classes, "y")
        run = self._fit_run(seed)

        def read() -> tuple[np.ndarray, list[int], np.ndarray, list]:
            coded = [
                self._binned(c, shown[j], bins[j]) if j in bins else
                _code(c, f"column {shown[j]!r}",
                      None if self.categories is None else self.categories[j])
                for j, c in enumerate(columns)
            ]
            label_codes, label_levels = _code(labels, "y", self.classes)
            return (
                np.ascontiguousarray(np.vstack([c for c, _ in coded]), dtype=np.uint32),
                [max(len(levels), 1) for _, levels in coded],
                np.ascontiguousarray(label_codes, dtype=np.uint32),
                label_levels,
            )

        codes, arities, label_codes, label_levels = _read_private(
            run, read, lambda: (np.zeros((len(columns), n), dtype=np.uint32), [1] * len(columns),
                                np.zeros(n, dtype=np.uint32), []))
        selection = _disguise.features(
            codes,
            arities,
            label_codes,
            max(len(label_levels), 1),
            # Named by the user (public): the a-priori bound may use how many there are.
            self.classes is not None,
            shown,
            k,
            str(self.objective),
            self._greedy(self.algorithm),
            run,
        )
        self.n_features_in_ = len(columns)
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        if self.classes is not None:
            self.classes_ = np.asarray(label_levels)
        else:
            self.__dict__.pop("classes_", None)
        self._set_selection(selection, True)
        self.support_ = np.zeros(len(columns), dtype=bool)
        self.support_[self.ranking_] = True
        return self

    def get_support(self, indices: bool = False) -> np.ndarray:
        """The boolean mask of the chosen columns, or their indices (in column order)."""
        self._check_fitted()
        return np.flatnonzero(self.support_) if indices else self.support_.copy()

    def transform(self, X: Any) -> Any:
        """The chosen columns of ``X`` (in column order; a DataFrame stays one)."""
        self._check_fitted()
        if hasattr(X, "iloc"):
            if X.shape[1] != self.n_features_in_:
                raise ValueError(f"invalid X: {X.shape[1]} columns, fitted on {self.n_features_in_}")
            return X.iloc[:, np.flatnonzero(self.support_)]
        array = np.asarray(X)
        if array.ndim != 2 or array.shape[1] != self.n_features_in_:
            raise ValueError(f"invalid X: shape {array.shape}, fitted on {self.n_features_in_} columns")
        return array[:, self.support_]

    def fit_transform(self, X: Any, y: Any) -> Any:
        """``fit``, then ``transform`` of the same ``X``."""
        return self.fit(X, y).transform(X)

    def get_feature_names_out(self, input_features: Sequence[str] | None = None) -> np.ndarray:
        """The names of the chosen columns (``x0``, ``x1``, … without names)."""
        self._check_fitted()
        if input_features is None:
            input_features = getattr(self, "feature_names_in_", None)
        if input_features is None:
            input_features = [f"x{j}" for j in range(self.n_features_in_)]
        return np.asarray(input_features, dtype=object)[self.support_]

    def __sklearn_tags__(self):
        # scikit-learn asks estimators for their tags; answered only when it is installed
        # (this package never imports it otherwise).
        from sklearn.utils import Tags, TargetTags, TransformerTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=True),
            transformer_tags=TransformerTags(),
        )

    def _check_fitted(self) -> None:
        if not hasattr(self, "support_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet: call fit first")
