"""disguise: differentially private selection and submodular maximization.

Choose a few representative or informative items from sensitive data about people, with a
proven (epsilon, delta) guarantee attached to every result. This package is a thin shell over
the Rust library's front door: the same requests, validated in one place, run by the same code
as the ``disguise`` command line (so ``seed=S`` gives the command line's ``--seed S`` result).

Three lines from data to a private selection (apricot's convention, with a budget):

>>> import numpy as np, disguise
>>> X = np.random.default_rng(0).normal(size=(1000, 4))         # private records
>>> spots = np.random.default_rng(1).uniform(-2, 2, size=(50, 4))  # public candidates
>>> sel = disguise.FacilityLocation(5, epsilon=1.0).fit(X, candidates=spots)
>>> sel.ranking_.shape
(5,)

What a release returns — its result, its attributes, its warnings — is the release: values
released by a mechanism, and what is computed from them and from the public inputs. Values
computed from the private data without noise (a selection's exact gains, an itemset's true
count, the values clamped into a bin) are shown only with ``diagnostics=True``, apart from
the release (``not_private`` in a result, ``not_private_`` on an estimator) and NOT covered
by the guarantee; the non-private modes (``mechanism="max"``, the records as candidates)
run only then.

Without a seed, all noise comes from the operating system's secure generator. ``seed=S`` is a
reproducible mode for tests and experiments only: it is insecure, and a warning says so.
Every error of the library (bad parameters or data) is raised as ``ValueError``.

Every release can be charged to a persistent privacy budget ledger (``Ledger``, the file the
command line's ``--ledger`` uses): pass ``ledger=`` and ``dataset=`` (required with a ledger:
the name of the data set whose budget the release spends, the same for every release on the
same records); a release over the data set's limit raises ``BudgetExceeded`` and returns
nothing, and one that fails after its budget was reserved raises a ``ValueError`` that says
what stays charged (its reason, which may depend on the data, only with ``diagnostics=True``).
"""

from __future__ import annotations

import inspect
import json
import os
import math
import warnings
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from . import _disguise

__version__ = _disguise.__version__

BudgetExceeded = _disguise.BudgetExceeded
LedgerError = _disguise.LedgerError

__all__ = [
    "BudgetExceeded",
    "Ledger",
    "LedgerError",
    "InsecureSeedWarning",
    "NotPrivateWarning",
    "UsefulnessWarning",
    "exponential",
    "large_margin",
    "budget",
    "FacilityLocation",
    "MaxCoverage",
    "FeatureSelector",
    "ProjectedHistogram",
    "Synthesizer",
    "frequent_itemsets",
]


def __dir__() -> list[str]:
    # What `dir(disguise)` and completion show: the public names, not the helpers and the
    # modules this file imports (np, os, json, math, inspect, typing's names).
    return sorted(__all__ + ["__version__"])


class InsecureSeedWarning(UserWarning):
    """A ``seed=`` was given: the run is reproducible by anyone and protects no one."""


class NotPrivateWarning(UserWarning):
    """The run as called is not covered by the privacy guarantee (the warning says why)."""


class UsefulnessWarning(UserWarning):
    """The paper's a-priori utility bound is vacuous for these parameters: the release is
    likely mostly noise (the warning says what would help)."""


def _warn_seed(seed: int | None) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"invalid seed: {seed!r} (an integer in [0, 2^64), or None)")
    warnings.warn(
        f"seed={seed} makes this run reproducible and NOT private (insecure generator; for "
        "tests and experiments only)",
        InsecureSeedWarning,
        stacklevel=3,
    )
    return int(seed)


def _warn_if_vacuous(usefulness: dict | None) -> None:
    """A UsefulnessWarning when most of the release is expected to be noise (the command
    line's `warning: most of the release is expected to be noise` line). A worst-case bound
    that says nothing at these parameters is not a warning (the release may be good): it is
    in ``usefulness_`` with ``worst_case`` true."""
    if usefulness and usefulness.get("vacuous") and not usefulness.get("worst_case", True):
        advice = usefulness.get("advice") or "a larger epsilon would help"
        warnings.warn(
            f"most of the release is expected to be noise: {usefulness['bound']}; {advice}",
            UsefulnessWarning,
            stacklevel=3,
        )


def _shaped(values: Any, name: str, ndim: int) -> np.ndarray:
    """``values`` as an array of its own shape, without converting its values (a numpy array
    as it is), the shape checked: ``ndim`` dimensions, none empty. The shape is public (the
    number of records and columns); the values are read by ``_floats``."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as e:
        raise ValueError(f"invalid {name}: {e}") from None
    if array.ndim != ndim:
        expected = "a 1-D array" if ndim == 1 else "a 2-D array (rows × columns)"
        raise ValueError(f"invalid {name}: expected {expected}, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(
            f"invalid {name}: empty" + ("" if ndim == 1 else f" (shape {array.shape})"))
    return array


def _floats(array: np.ndarray, name: str) -> np.ndarray:
    """A C-contiguous float64 copy of ``array`` (no copy when it already is one; float32,
    Fortran-ordered and integer input is converted once)."""
    try:
        return np.ascontiguousarray(array, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"invalid {name}: {e}") from None


def _matrix(values: Any, name: str) -> np.ndarray:
    """A 2-D C-contiguous float64 array (a DataFrame works): no copy when it already is one;
    float32, Fortran-ordered and integer input is converted once."""
    return _floats(_shaped(values, name, 2), name)


def _read_private(run: dict, read: Callable[[], Any], placeholder: Callable[[], Any]) -> Any:
    """The private data shaped for the native call by ``read()``. A ``ValueError`` it raises
    was found in the data: without a ledger it is raised at once (nothing is charged, and
    the data's holder sees what was found); under a ledger it is deferred to the native call
    (``run["failed"]``, which ``placeholder()``'s data of the same public shape then
    accompanies), which reserves the budget first and then fails with the line that says
    what stays charged — the command line's order, which reads the data after the
    reservation — so that what is wrong with a data set is never learned for free."""
    try:
        return read()
    except ValueError as e:
        if run["ledger"] is None:
            raise
        run["failed"] = str(e)
        return placeholder()


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

    @classmethod
    def create(cls, path: str | os.PathLike, *, timeout: float = 30.0) -> "Ledger":
        """Creates a new, empty ledger at ``path`` (refused if the file exists)."""
        ledger = cls.__new__(cls)
        ledger._native = _disguise.Ledger.create(os.fspath(path), float(timeout))
        return ledger

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
    ) -> None:
        """Sets the total budget of ``dataset`` and the filter that stops its releases there
        (``rule``: ``"basic"`` or ``"zcdp"``); every change is kept. With ``delta=0`` only
        pure epsilon-DP releases fit. Under ``"zcdp"``, ``approximate_epsilon`` and
        ``approximate_delta`` set aside a part of the limit for approximate releases (the
        large margin mechanisms; none by default). After the data set's first release the
        limit can only be lowered, with the same rule, and not below what is already spent
        (``ValueError``: such a limit would refuse every later release)."""
        self._native.set_limit(
            str(dataset),
            (
                float(epsilon),
                float(delta),
                str(rule),
                float(approximate_epsilon),
                float(approximate_delta),
            ),
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
        """What is left of ``dataset``'s limit (None without a limit), as decimals that can be
        spent in full: under ``"basic"``, ``epsilon`` and ``delta``; under ``"zcdp"``,
        ``rho``, ``pure_epsilon`` (the largest pure release that still fits) and the
        ``epsilon`` and ``delta`` left for approximate releases."""
        return self.status(dataset)["remaining"]

    def releases(self, dataset: str | None = None) -> list[dict]:
        """The recorded releases, oldest first (of ``dataset``, or all): time, command,
        mechanism, runs, the per-run epsilon, delta and rule, the per-call costs, the privacy
        unit."""
        return json.loads(self._native.releases(None if dataset is None else str(dataset)))

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


def _run(
    seed: int | None,
    ledger: Any,
    dataset: Any,
    command: Callable[[], str],
    diagnostics: Any = False,
) -> dict:
    """How a native call runs (``Run`` in ``_disguise.pyi``, the one argument every native
    release takes for it): with the generator of ``seed`` (checked by ``_warn_seed``), charged
    to ``ledger`` (not without one) under the data set ``dataset`` names — required with a
    ledger: a name derived from the data would give every resample (a cross-validation's
    folds) a budget of its own. ``command`` describes the call for the audit log; it is called
    only with a ledger (an estimator's repr costs about 20 µs, a tenth of a small selection).
    ``diagnostics`` shows the values computed on the data without noise beside the release
    (``not_private``) and allows the non-private modes."""
    if not isinstance(diagnostics, (bool, np.bool_)):
        raise ValueError(f"invalid diagnostics: {diagnostics!r} (True or False)")
    diagnostics = bool(diagnostics)
    if ledger is None:
        if dataset is not None:
            raise ValueError("invalid dataset: it names a data set in a ledger; give ledger=")
        return {
            "seed": seed, "ledger": None, "dataset": None, "command": None,
            "diagnostics": diagnostics, "failed": None,
        }
    if not isinstance(ledger, Ledger):
        raise ValueError(f"invalid ledger: {ledger!r} (a disguise.Ledger)")
    if dataset is None:
        raise ValueError(
            "invalid dataset: required with ledger= (the data set whose budget this release "
            'spends, e.g. dataset="adult"; the same name for every release on the same records)'
        )
    if not isinstance(dataset, str):
        raise ValueError(f"invalid dataset: {dataset!r} (a name, as a str)")
    return {
        "seed": seed, "ledger": ledger._native, "dataset": dataset, "command": command(),
        "diagnostics": diagnostics, "failed": None,
    }


def _call(name: str, **params: Any) -> str:
    """A call's description for the ledger's audit log."""
    shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
    return f"python: disguise.{name}({shown})"


def _refuse_non_private(ledger: Any, why: str) -> None:
    if ledger is not None:
        raise ValueError(f"invalid ledger: {why}, so a budget ledger cannot account for it")


def _only_as_diagnostic(diagnostics: Any, what: str) -> None:
    """A non-private mode (``what``) runs only when the diagnostics were asked for: its whole
    output is computed from the data without noise."""
    if not (isinstance(diagnostics, (bool, np.bool_)) and bool(diagnostics)):
        raise ValueError(
            f"invalid {what}: it is not private (its output is computed from the data without "
            "noise), so it runs only as a diagnostic: pass diagnostics=True, or "
            "choose a private alternative"
        )


def _not_private_attribute(name: str) -> AttributeError:
    return AttributeError(
        f"{name} holds exact values of the private data (NOT private): fit with "
        "diagnostics=True to see them"
    )


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"invalid {name}: {value!r} (a positive integer)")
    return int(value)


def exponential(
    scores: Any,
    *,
    epsilon: float,
    sensitivity: float,
    monotone: bool = False,
    seed: int | None = None,
    ledger: Ledger | None = None,
    dataset: str | None = None,
    diagnostics: bool = False,
) -> int:
    """One private choice by the exponential mechanism: the index of the chosen score.

    Chooses index i with probability proportional to exp(epsilon * scores[i] / (2 *
    sensitivity)), or exp(epsilon * scores[i] / sensitivity) with ``monotone=True`` (valid
    only when every score moves in the same direction between neighbouring datasets).
    epsilon-differentially private when each score changes by at most ``sensitivity``
    between neighbouring datasets (McSherry and Talwar 2007). Sampled exactly, without
    floating-point leaks.

    >>> import disguise
    >>> disguise.exponential([1.0, 50.0, 2.0], epsilon=1.0, sensitivity=1.0)
    1

    ``ledger=`` charges the choice to a budget ledger (``Ledger``), under the data set named
    by ``dataset`` (required with a ledger). The result is the choice alone; a choice that
    fails after its budget was reserved (a NaN score) raises a ``ValueError`` that says what
    stays charged, its reason only with ``diagnostics=True``.
    """
    seed = _warn_seed(seed)
    shaped = _shaped(scores, "scores", 1)
    run = _run(seed, ledger, dataset, lambda: _call(
        "exponential", epsilon=epsilon, sensitivity=sensitivity, monotone=monotone), diagnostics)
    array = _read_private(run, lambda: _floats(shaped, "scores"), lambda: np.zeros(shaped.shape))
    return _disguise.select_one(
        array, float(epsilon), 0.0, float(sensitivity), bool(monotone), None, run
    )


def large_margin(
    scores: Any,
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    variant: str = "mitrovic",
    seed: int | None = None,
    ledger: Ledger | None = None,
    dataset: str | None = None,
    diagnostics: bool = False,
) -> int:
    """One private choice by the large margin mechanism: the index of the chosen score.

    ``variant="mitrovic"`` is Mitrovic et al. (2017), Algorithm 5; ``"chaudhuri"`` is
    Chaudhuri et al. (2014), Algorithm 1. (epsilon, delta)-differentially private with
    delta > 0 when each score changes by at most ``sensitivity``; it chooses among the top
    scores up to the first large gap, so it pays little for many candidates when the best
    ones stand out.

    >>> import disguise
    >>> disguise.large_margin([0.0] * 99 + [5000.0], epsilon=1.0, delta=1e-6, sensitivity=1.0)
    99

    ``ledger=`` charges the choice to a budget ledger (``Ledger``), under the data set named
    by ``dataset`` (required with a ledger); ``diagnostics=True`` shows the reason of a
    failure after the reservation, as for ``exponential``.
    """
    seed = _warn_seed(seed)
    shaped = _shaped(scores, "scores", 1)
    run = _run(seed, ledger, dataset, lambda: _call(
        "large_margin", epsilon=epsilon, delta=delta, sensitivity=sensitivity, variant=variant),
        diagnostics)
    array = _read_private(run, lambda: _floats(shaped, "scores"), lambda: np.zeros(shaped.shape))
    return _disguise.select_one(
        array, float(epsilon), float(delta), float(sensitivity), False, str(variant), run
    )


def budget(
    *,
    epsilon: float,
    delta: float,
    rounds: int,
    rule: str = "auto",
    kind: str = "bounded-range",
    decomposable: bool = False,
) -> dict:
    """The per-round budget of ``rounds`` adaptive selections within a total (epsilon, delta).

    Returns what ``disguise budget --format json`` prints (``rules``: every composition rule
    with its per-round epsilon and delta and whether it applies; ``best``), plus the chosen
    rule's ``per_round_epsilon``, ``per_round_delta`` and ``rule`` at the top level, and
    ``guarantee``: the end-to-end (epsilon, delta) the accountant proves for ``rounds`` calls
    at that per-round budget under that rule (within the total);
    ``rule="auto"`` takes the valid rule that gives each round the most, a rule name
    (``basic``, ``advanced``, ``kov``, ``zcdp``, ``decomposable``) forces it. ``kind`` is the
    selector called in every round (``bounded-range`` for the exponential mechanism,
    ``pure``, ``approximate`` for the large margin mechanisms).

    >>> import disguise
    >>> b = disguise.budget(epsilon=1.0, delta=1e-6, rounds=10)
    >>> b["per_round_epsilon"] > 1.0 / 10  # better than basic composition's 0.1
    True
    >>> basic = disguise.budget(epsilon=1.0, delta=1e-6, rounds=10, rule="basic")
    >>> round(basic["per_round_epsilon"], 9)  # rounded down: spending it never exceeds ε
    0.1
    """
    rounds = _positive_int(rounds, "rounds")
    text = _disguise.budget(
        float(epsilon), float(delta), rounds, str(rule), str(kind), bool(decomposable)
    )
    return json.loads(text)


class _Params:
    """get_params/set_params/repr by the constructor's signature, as scikit-learn does, without
    importing scikit-learn."""

    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [p for p in signature.parameters if p != "self"]

    def _keep_params(self, arguments: dict) -> None:
        """Keeps the constructor's arguments (its ``locals()``, read first thing: ``self`` and
        the parameters) as attributes of the same names, unchecked, as scikit-learn's
        convention has it: ``fit`` checks them, and ``clone`` finds what was given."""
        for name, value in arguments.items():
            if name != "self":
                setattr(self, name, value)

    def _fit_run(self, seed: int | None) -> dict:
        """How a ``fit`` runs (``_run``): with ``seed``, charged to the estimator's ``ledger``
        under its ``dataset``, recorded as the estimator's repr."""
        return _run(
            seed,
            self.ledger,
            self.dataset,
            lambda: f"python: {self!r}.fit",
            getattr(self, "diagnostics", False),
        )

    def get_params(self, deep: bool = True) -> dict:
        """The constructor's parameters and their values."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any):
        """Sets constructor parameters; returns self."""
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class _Diagnosed:
    """An estimator whose report holds its diagnostics under ``not_private`` when it was
    fitted with ``diagnostics=True``: ``not_private_``."""

    @property
    def not_private_(self) -> dict:
        """The fit's diagnostics: what it computed on the private data without noise (for
        the selections the values and utilities after each pick, for the tables the values
        clamped into the edge bins, …), NOT covered by the guarantee; kept only when the
        estimator was fitted with ``diagnostics=True``."""
        found = self.report_.get("not_private")
        if found is None:
            raise _not_private_attribute("not_private_")
        return found


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


def _estimate_epsilon(value: Any) -> float | None:
    """``estimate_utility=`` as the native call takes it (checked there)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"invalid estimate_utility: {value!r} (an epsilon, e.g. 0.1)")
    return float(value)


def _guarantee(report: dict, private: bool, note: str | None = None) -> dict:
    g = report.get("guarantee") or {}
    out = {
        "epsilon": g.get("epsilon"),
        "delta": g.get("delta"),
        "rule": g.get("rule"),
        "private": private and bool(report.get("secure_rng")) and bool(g),
    }
    if not report.get("secure_rng"):
        out["note"] = "seeded run: reproducible by anyone, so NOT private"
    if note:
        out["note"] = note
    return out


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


def frequent_itemsets(
    transactions: Iterable[Iterable[Any]],
    *,
    size: int,
    epsilon: float,
    delta: float,
    top: int = 1,
    items: Sequence | None = None,
    mechanism: str | None = None,
    seed: int | None = None,
    ledger: Ledger | None = None,
    dataset: str | None = None,
    diagnostics: bool = False,
) -> dict:
    """The ``top`` most frequent itemsets of ``size`` items, released privately.

    One transaction per person (its items, any hashable values shown with ``str``). With a
    public ``items`` list the exponential mechanism chooses among all itemsets of that list
    (the default then); without it the large margin mechanism (``"lmm"``) chooses among the
    itemsets that occur, and may release nothing when no clear margin exists. Returns the
    release as a dict: ``itemsets`` (the released itemsets as tuples of item names, None for a
    round that released nothing), ``picks`` (per round: the itemset, its ``outcome``, the
    margin and the noisy frequency), ``items`` (the public ``items`` list, in canonical order,
    or without one only the items of the released itemsets: never an item read from the
    transactions), the public sizes, the guarantee (``epsilon``, ``delta``) and
    ``usefulness``. With a public item list an itemset that does not occur in the data is
    released as any other.

    ``diagnostics=True`` adds ``not_private``: values computed on the transactions without
    noise, NOT covered by the guarantee — per pick its true count and frequency and whether
    it occurs, the number of itemsets that occur (``occurring``), of transactions cut to the
    maximum length (``truncated``) and of item occurrences outside the list
    (``dropped_items``).

    >>> import disguise
    >>> baskets = [["tea", "cake"]] * 600 + [["bread", "milk"]] * 1400
    >>> items = ["bread", "cake", "milk", "tea"]
    >>> r = disguise.frequent_itemsets(baskets, size=2, epsilon=1.0, delta=1e-6, items=items)
    >>> r["itemsets"]
    [('bread', 'milk')]
    >>> "not_private" in r
    False

    ``ledger=`` charges the release to a budget ledger (``Ledger``), under the data set
    named by ``dataset`` (required with a ledger); a release that fails after its
    reservation raises a ``ValueError`` that says what stays charged, its reason only with
    ``diagnostics=True``.
    """
    seed = _warn_seed(seed)
    rows = [[str(x) for x in t] for t in transactions]
    if not rows:
        raise ValueError("invalid transactions: empty")
    public = None if items is None else [str(x) for x in items]
    text = _disguise.frequent_itemsets(
        rows,
        public,
        _positive_int(size, "size"),
        float(epsilon),
        float(delta),
        _positive_int(top, "top"),
        None if mechanism is None else str(mechanism),
        _run(seed, ledger, dataset, lambda: _call(
            "frequent_itemsets", size=size, epsilon=epsilon, delta=delta, top=top,
            items=items, mechanism=mechanism), diagnostics),
    )
    report = json.loads(text)
    _warn_if_vacuous(report.get("usefulness"))
    report["itemsets"] = [
        None if p.get("itemset") is None else tuple(p["itemset"]) for p in report["picks"]
    ]
    return report
