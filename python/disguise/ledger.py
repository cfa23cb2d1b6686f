"""The privacy budget ledger: ``Ledger``, the file the command line's ``--ledger`` uses."""

from __future__ import annotations

import contextvars
import json
import os
from typing import Any

from . import _disguise

__all__ = ["Ledger", "Reservation"]

# The fit being priced on this thread (``Ledger.cost``), if any: its releases stop at their
# reservation with what they would spend, and record nothing.
_PRICING: contextvars.ContextVar = contextvars.ContextVar("disguise_pricing", default=None)


class Ledger:
    """A privacy budget ledger: every release on a data set recorded in an SQLite file that
    outlives the process, and a release refused when the data set's recorded releases would
    compose to more than its limit. The same file as the command line's ``--ledger``.

    ``Ledger(path)`` opens an existing ledger (``Ledger.create(path)`` makes a new one);
    ``timeout`` is how many seconds to wait while another process holds it. Give it to any
    release as ``ledger=``, with ``dataset=`` naming the data set whose budget it spends
    (required: one name for every release on the same records — every fold of a
    cross-validation, every program — so that they all count against one limit). Before a
    release reads its data, its planned cost is recorded in one transaction; over the limit
    it raises ``BudgetExceeded`` (a ``ValueError``) and nothing is recorded, run or returned.
    A run that fails after its reservation stays charged: it raises a ``ValueError`` whose
    message is the same for every data set and says what stays charged (its reason, which
    may depend on the data, is appended only with ``diagnostics=True``).

    A limit is stopped by a privacy filter fixed with it (``rule=``): ``"basic"`` (the
    default; the releases' epsilons and deltas add up, and one release at exactly the limit
    fits) or ``"zcdp"`` (pure and exponential-mechanism releases add up rho = eps**2/2 or
    eps**2/8; many more small releases fit; needs delta > 0). Budgets are exact decimals:
    releases of 0.1 and 0.2 fit a limit of 0.3. A data set without a limit takes none
    (``BudgetExceeded``) unless the ledger has a default limit (``set_default_limit``).
    After its first release a limit can be lowered, not raised.

    >>> import disguise, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "budget.ledger")
    >>> ledger = disguise.Ledger.create(path)
    >>> ledger.set_limit("scores", epsilon=1.0)
    >>> disguise.exponential([1.0, 50.0, 2.0], epsilon=0.6, sensitivity=1.0,
    ...                      ledger=ledger, dataset="scores")
    1
    >>> ledger.remaining("scores")["epsilon"]
    0.4
    >>> disguise.exponential([1.0, 50.0, 2.0], epsilon=0.6, sensitivity=1.0,  # doctest: +IGNORE_EXCEPTION_DETAIL
    ...                      ledger=ledger, dataset="scores")
    Traceback (most recent call last):
    BudgetExceeded: budget exceeded on data set scores
    """

    def __init__(self, path: str | os.PathLike, *, timeout: float = 30.0):
        self._native = _disguise.Ledger(os.fspath(path), float(timeout))
        self._file, self._timeout = os.path.abspath(os.fspath(path)), float(timeout)
        self._hold: tuple[str, int] | None = None

    @classmethod
    def create(cls, path: str | os.PathLike, *, timeout: float = 30.0) -> "Ledger":
        """Creates a new, empty ledger at ``path`` (refused if the file exists)."""
        ledger = cls.__new__(cls)
        ledger._native = _disguise.Ledger.create(os.fspath(path), float(timeout))
        ledger._file, ledger._timeout = os.path.abspath(os.fspath(path)), float(timeout)
        ledger._hold = None
        return ledger

    def __reduce__(self):
        # A ledger pickles as its file (its absolute path when it was opened) and timeout:
        # the process that loads it opens the same file, so every worker of a process pool
        # reserves in it.
        return (_reopen, (self._file, self._timeout, self._hold))

    @property
    def path(self) -> str:
        """The ledger's file."""
        return str(self._native.path)

    def set_limit(
        self,
        dataset: str,
        *,
        epsilon: float,
        delta: float = 0.0,
        rule: str = "basic",
        approximate_epsilon: float = 0.0,
        approximate_delta: float = 0.0,
        new: bool = False,
    ) -> None:
        """Sets the total budget of ``dataset`` and the filter that stops its releases there
        (``rule``: ``"basic"`` or ``"zcdp"``); every change is kept. With ``delta=0`` only
        pure epsilon-DP releases fit. Under ``"zcdp"``, ``approximate_epsilon`` and
        ``approximate_delta`` set aside a part of the limit for approximate releases (the
        large margin mechanisms; none by default). After the data set's first release the
        limit can only be lowered, with the same rule, and not below what is already spent
        (``ValueError``: such a limit would refuse every later release).

        A new name within two edits of an existing data set's (one for names of up to
        three letters; case, white space and Unicode spelling aside: ``nursry`` beside
        ``nursery``, ``adlut`` beside ``adult``) is refused with "did you mean" as a likely
        typo — a second name would give the same people a second budget — unless
        ``new=True`` confirms that it is another data set. A name that differs from an
        existing one only by case, white space or Unicode spelling is always refused."""
        if not isinstance(new, bool):
            raise ValueError(f"invalid new: {new!r} (True or False)")
        self._native.set_limit(
            str(dataset),
            (
                float(epsilon),
                float(delta),
                str(rule),
                float(approximate_epsilon),
                float(approximate_delta),
            ),
            new,
        )

    def set_default_limit(
        self,
        *,
        epsilon: float | None,
        delta: float = 0.0,
        rule: str = "basic",
        approximate_epsilon: float = 0.0,
        approximate_delta: float = 0.0,
    ) -> None:
        """Sets the limit a new data set gets at its first release (recorded as its own);
        ``epsilon=None`` removes it, so that a release into a data set without a limit is
        refused."""
        self._native.set_default_limit(
            None
            if epsilon is None
            else (
                float(epsilon),
                float(delta),
                str(rule),
                float(approximate_epsilon),
                float(approximate_delta),
            )
        )

    def default_limit(self) -> dict | None:
        """The default limit of new data sets (None without one)."""
        return json.loads(self._native.default_limit())

    def status(self, dataset: str) -> dict:
        """``limit`` (epsilon, delta, ``filter`` and, for zCDP, ``rho`` and the part for
        approximate releases), ``releases`` (their number), ``unit`` (what its releases
        protect: ``"record"``, one person's record, or ``"edge"``; None before any),
        ``spent`` (as the filter counts: epsilon and delta, and for zCDP rho) and
        ``remaining`` (None without a limit; see ``remaining``)."""
        return json.loads(self._native.status(str(dataset)))

    def remaining(self, dataset: str) -> dict | None:
        """What is left of ``dataset``'s limit (None without a limit), rounded down: under
        ``"basic"``, ``epsilon`` and ``delta``, decimals that can be spent in full; under
        ``"zcdp"``, ``rho``, the ``epsilon`` that ρ is worth at ``delta`` (the (ε, δ)-DP
        guarantee of spending all of it, by the conversion that made the limit's ρ: a fresh
        limit shows its own ε), ``pure_epsilon`` (the largest pure release that still fits)
        and ``approximate_epsilon`` and ``approximate_delta`` left for approximate releases
        (None under ``"basic"``)."""
        return self.status(dataset)["remaining"]

    def releases(self, dataset: str | None = None) -> list[dict]:
        """The recorded releases, oldest first (of ``dataset``, or all): time, command,
        mechanism, runs, the per-run epsilon, delta and rule, the per-call costs, the privacy
        unit."""
        return json.loads(self._native.releases(None if dataset is None else str(dataset)))

    def cost(self, estimator: Any, X: Any, y: Any = None, *, cv: Any = None,
             groups: Any = None) -> dict:
        """What fitting ``estimator`` would cost — once, or on every fold of ``cv`` (as
        ``cross_val_score(estimator, X, y, cv=cv)`` fits it), or, for a ``GridSearchCV`` or
        ``RandomizedSearchCV``, on every candidate and fold and the refit — under the data
        set's filter, asked before anything runs. Each fit is run only until its releases
        reach their reservation (public parameters and shapes: nothing is recorded, no
        release runs, no private value is used); every disguise estimator in it must be
        charged to this ledger. Needs scikit-learn.

        Returns a dict: ``dataset``; ``releases`` (how many), ``candidates``, ``folds``,
        ``refit``; ``spends`` (each distinct cost: ``epsilon``, ``delta``, ``mechanism``,
        ``count``); ``cost`` (all of them as the filter counts them: ``epsilon`` and
        ``delta``, under zCDP also ``rho``); ``limit``; ``remaining`` now and
        ``remaining_after`` (None if it does not fit); ``fits``. The refit is counted at a
        candidate's cost that covers every candidate (the search chooses the candidate after
        seeing the folds' scores).

        >>> import disguise, os, tempfile, numpy as np
        >>> from sklearn.model_selection import GridSearchCV
        >>> ledger = disguise.Ledger.create(os.path.join(tempfile.mkdtemp(), "b.ledger"))
        >>> ledger.set_limit("people", epsilon=1.0)
        >>> selector = disguise.FeatureSelector(1, epsilon=0.1, ledger=ledger, dataset="people")
        >>> search = GridSearchCV(selector, {"epsilon": [0.05, 0.1]}, cv=3, scoring=lambda *a: 0)
        >>> X = np.random.default_rng(0).integers(0, 2, (90, 3)); y = X[:, 0]
        >>> price = ledger.cost(search, X, y)
        >>> price["releases"], price["cost"]["epsilon"], price["fits"]
        (7, 0.55, True)
        """
        return _SearchPlan(self, estimator, X, y, cv, groups).price()

    def reserve(self, estimator: Any, X: Any, y: Any = None, *, cv: Any = None,
                groups: Any = None) -> Reservation:
        """The whole of what ``cost`` prices, reserved while a ``with`` block runs it, or
        refused before anything runs (``BudgetExceeded``) when it does not all fit: the
        releases inside draw from it (every worker of ``n_jobs`` too), and what no release
        drew — a fold that never ran — is given back at the end (``Reservation``)::

            with ledger.reserve(search, X, y) as reserved:
                search.fit(X, y)
            reserved.closed   # {"reserved": 7, "drawn": 7, "returned": 0, ...}
        """
        return Reservation(self, _SearchPlan(self, estimator, X, y, cv, groups))

    def datasets(self) -> list[str]:
        """The data sets with a limit or a release."""
        return list(self._native.datasets())

    def integrity_check(self) -> str:
        """SQLite's integrity check of the file: ``"ok"`` when intact."""
        return self._native.integrity_check()

    def __repr__(self) -> str:
        return f"Ledger({self.path!r})"

    # One file, shared: copies (scikit-learn's clone) refer to the same ledger.
    def __copy__(self) -> "Ledger":
        return self

    def __deepcopy__(self, memo: dict) -> "Ledger":
        return self


def _reopen(path: str, timeout: float, hold: tuple[str, int] | None = None) -> Ledger:
    """A pickled ``Ledger`` opened again (it must exist: a pickle never creates one), drawing
    from the reservation it drew from."""
    ledger = Ledger(path, timeout=timeout)
    ledger._hold = None if hold is None else (str(hold[0]), int(hold[1]))
    return ledger


class _PricedFit(Exception):
    """Control flow of ``Ledger.cost``: every release of the fit being priced has said what
    it would spend, so the rest of the fit (a pipeline's later steps) need not run."""


class _Pricing:
    """The spends of one fit being priced: ``expect`` releases (the disguise estimators in
    it), each stopped at its reservation (``_common._priceable``)."""

    def __init__(self, ledger: Ledger, expect: int):
        self.ledger, self.expect, self.spends = ledger, expect, []

    def add(self, spend: Any) -> None:
        self.spends.append(spend)
        if len(self.spends) >= self.expect:
            raise _PricedFit()


def _charged_estimators(estimator: Any) -> list:
    """The disguise estimators in ``estimator`` (itself, a pipeline's steps, any nested
    parameter): those that can be priced."""
    found, seen = [], set()

    def visit(value: Any) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        if hasattr(value, "_placeholder") and hasattr(value, "get_params"):
            found.append(value)
        if hasattr(value, "get_params") and not isinstance(value, type):
            try:
                params = value.get_params(deep=False)
            except TypeError:
                return
            for v in params.values():
                visit(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(v[1] if isinstance(v, tuple) and len(v) >= 2 else v)

    visit(estimator)
    return found


def _rows(X: Any, index: Any) -> Any:
    """The rows ``index`` of ``X`` (a DataFrame, an array or a list)."""
    if X is None:
        return None
    if hasattr(X, "iloc"):
        return X.iloc[index]
    try:
        import numpy as np

        return np.asarray(X)[index] if not isinstance(X, list) else [X[i] for i in index]
    except (TypeError, ValueError):
        return [X[i] for i in index]


class _SearchPlan:
    """The releases a fit, a cross-validation or a search would make, priced by running each
    fit until its releases stop at their reservation (``_Pricing``): no data set is charged
    and no release runs. Folds from ``cv`` (scikit-learn's ``check_cv``), candidates from a
    ``GridSearchCV``'s grid or a ``RandomizedSearchCV``'s sampler (give it a
    ``random_state``: the search draws its candidates again), and the refit reserved at a
    candidate's cost that covers every candidate (one of each cost when none does)."""

    def __init__(self, ledger: Ledger, estimator: Any, X: Any, y: Any, cv: Any, groups: Any):
        try:
            from sklearn.base import clone, is_classifier
            from sklearn.model_selection import ParameterGrid, ParameterSampler, check_cv
        except ImportError:
            raise ValueError("Ledger.cost and Ledger.reserve need scikit-learn") from None
        is_search = hasattr(estimator, "estimator") and (
            hasattr(estimator, "param_grid") or hasattr(estimator, "param_distributions"))
        if is_search:
            if cv is not None:
                raise ValueError("invalid cv: the search has its own (its cv= parameter)")
            base = estimator.estimator
            if hasattr(estimator, "param_grid"):
                candidates = list(ParameterGrid(estimator.param_grid))
            else:
                candidates = list(ParameterSampler(
                    estimator.param_distributions, estimator.n_iter,
                    random_state=estimator.random_state))
            cv = estimator.cv
            refit = bool(estimator.refit)
            folds_given = True
        else:
            base, candidates, refit, folds_given = estimator, [{}], False, cv is not None
        charged = _charged_estimators(clone(base))
        if not charged:
            raise ValueError(
                f"invalid estimator: no disguise estimator in {type(base).__name__}, so it "
                "spends nothing")
        datasets = set()
        for e in charged:
            other = getattr(e, "ledger", None)
            if not isinstance(other, Ledger) or other._file != ledger._file:
                raise ValueError(
                    f"invalid estimator: {type(e).__name__} is not charged to this ledger "
                    f"({ledger.path}): give it ledger= and dataset=")
            datasets.add(e.dataset)
        if len(datasets) != 1:
            raise ValueError(f"invalid estimator: its releases name several data sets {sorted(datasets)}")
        self.ledger, self.dataset = ledger, datasets.pop()
        if folds_given:
            splitter = check_cv(cv, y, classifier=is_classifier(base))
            trains = [train for train, _ in splitter.split(X, y, groups)]
        else:
            trains = [None]
        expect = len(charged)
        spends = []
        for candidate in candidates:
            configured = clone(base).set_params(**candidate)
            for train in trains:
                spends.extend(self._price(clone(configured), X if train is None else
                                          _rows(X, train), y if train is None else
                                          _rows(y, train), expect))
        if refit:
            each = [self._price(clone(base).set_params(**c), X, y, expect) for c in candidates]
            spends.extend(self._refit(each))
        self.parts: list[list] = []
        for spend in spends:
            for part in self.parts:
                if part[0].same(spend):
                    part[1] += 1
                    break
            else:
                self.parts.append([spend, 1])
        self.releases = len(spends)
        self.shape = {"candidates": len(candidates), "folds": len(trains) if folds_given else 0,
                      "refit": refit}
        shape = (f"{len(candidates)} candidates × " if is_search else "") + (
            f"{len(trains)} folds" if folds_given else "one fit") + (" + refit" if refit else "")
        self.command = (f"python: {type(estimator).__name__}"
                        + (f" of {type(base).__name__}" if is_search else "") + f" ({shape})")

    def _price(self, fit: Any, X: Any, y: Any, expect: int) -> list:
        pricing = _Pricing(self.ledger, expect)
        token = _PRICING.set(pricing)
        try:
            fit.fit(X, y)
        except _PricedFit:
            pass
        finally:
            _PRICING.reset(token)
        if len(pricing.spends) != expect:
            raise ValueError(
                f"invalid estimator: priced {len(pricing.spends)} of its {expect} disguise "
                "releases (a disguise estimator that a pipeline does not fit?)")
        return pricing.spends

    @staticmethod
    def _refit(each: list) -> list:
        """The refit's reservation: a candidate's spends that cover every candidate's, else
        every candidate's (the unused given back when the reservation closes)."""
        for spends in each:
            if all(len(other) == len(spends)
                   and all(a.covers(b) for a, b in zip(spends, other)) for other in each):
                return list(spends)
        out: list = []
        for spends in each:
            if not any(len(o) == len(spends) and all(a.same(b) for a, b in zip(o, spends))
                       for o in _chunks(out, len(spends))):
                out.extend(spends)
        return out

    def price(self) -> dict:
        native = json.loads(self.ledger._native.price(
            self.dataset, [(spend, count) for spend, count in self.parts]))
        return {
            "dataset": self.dataset,
            "releases": self.releases,
            **self.shape,
            "spends": [{"epsilon": s.epsilon, "delta": s.delta, "mechanism": s.mechanism,
                        "count": n} for s, n in self.parts],
            "cost": native["cost"],
            "limit": native["limit"],
            "remaining": native["remaining"],
            "remaining_after": native["remaining_after"],
            "fits": native["fits"],
        }


def _chunks(items: list, size: int) -> list:
    return [items[i:i + size] for i in range(0, len(items), size)] if size else []


class Reservation:
    """The budget of a whole fit, cross-validation or search, reserved at once
    (``Ledger.reserve``): a context manager. Entering records every release the search will
    make, if the data set's limit admits all of them (else ``BudgetExceeded``, nothing
    recorded, nothing run); inside, each release of the ledger's estimators on that data set
    — in this process or in a worker of ``n_jobs`` — draws its reserved share before it
    reads the data instead of reserving anew; leaving gives back what was not drawn (a fold
    that never ran, a search stopped by an error). ``cost`` is ``Ledger.cost``'s answer;
    after leaving, ``closed`` says what was reserved, drawn and given back."""

    def __init__(self, ledger: Ledger, plan: _SearchPlan):
        self.ledger, self._plan = ledger, plan
        self.cost = plan.price()
        self.id: int | None = None
        self.closed: dict | None = None

    def __enter__(self) -> "Reservation":
        if self.ledger._hold is not None:
            raise ValueError(
                f"invalid reservation: the ledger already draws from reservation "
                f"{self.ledger._hold[1]}; one at a time per Ledger object")
        hold = json.loads(self.ledger._native.hold(
            self._plan.dataset, [(s, n) for s, n in self._plan.parts], self._plan.command))
        self.id = hold["id"]
        self.ledger._hold = (self._plan.dataset, self.id)
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.ledger._hold = None
        if self.id is not None:
            self.closed = json.loads(self.ledger._native.close_hold(self.id))
        return False

    def __repr__(self) -> str:
        return (f"Reservation(dataset={self._plan.dataset!r}, releases="
                f"{self._plan.releases}, id={self.id})")
