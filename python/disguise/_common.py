"""What every release shares: the checks of its arguments and data, how it runs (its seed,
ledger and diagnostics), scikit-learn's parameter protocol and the report's guarantee."""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any, Callable

import numpy as np

from .exceptions import InsecureSeedWarning, UsefulnessWarning
from . import _disguise
from .ledger import _PRICING, Ledger


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
        if _PRICING.get() is not None:
            raise ValueError(
                "invalid ledger: a release without a ledger inside a fit being priced "
                "(Ledger.cost) would run: charge every disguise estimator to the ledger")
        return {
            "seed": seed, "ledger": None, "dataset": None, "command": None,
            "diagnostics": diagnostics, "failed": None, "price": False, "hold": None,
        }
    if not isinstance(ledger, Ledger):
        raise ValueError(f"invalid ledger: {ledger!r} (a disguise.Ledger)")
    pricing = _PRICING.get()
    if dataset is None:
        raise ValueError(
            "invalid dataset: required with ledger= (the data set whose budget this release "
            'spends, e.g. dataset="adult"; the same name for every release on the same records)'
        )
    if not isinstance(dataset, str):
        raise ValueError(f"invalid dataset: {dataset!r} (a name, as a str)")
    hold = ledger._hold
    return {
        "seed": seed, "ledger": ledger._native, "dataset": dataset, "command": command(),
        "diagnostics": diagnostics, "failed": None,
        "price": pricing is not None and pricing.ledger._file == ledger._file,
        "hold": hold[1] if hold is not None and hold[0] == dataset.strip() else None,
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

    def __getstate__(self) -> dict:
        """What a pickle (``joblib.dump``, a process pool) keeps: the parameters and the
        release — never the diagnostics (exact values of the private data: ``gains_``,
        ``not_private_``), so that a pickled estimator can be handed on as the release is.
        A ``ledger`` pickles as its file."""
        state = self.__dict__.copy()
        state.pop("_gains", None)
        for key in ("_report", "report_"):
            report = state.get(key)
            if isinstance(report, dict) and "not_private" in report:
                state[key] = {k: v for k, v in report.items() if k != "not_private"}
        return state


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


def _priceable(fit: Callable) -> Callable:
    """A ``fit`` that ``Ledger.cost`` can price: while a fit is priced on this thread, its
    release stops at its reservation (the native call raises ``Priced`` with what it would
    spend, before it reads the data); the spend is collected, and the estimator takes a
    placeholder state computed from public shapes only (``_placeholder``), so that a
    pipeline's later steps can be priced in turn."""

    @functools.wraps(fit)
    def priced(self, *args: Any, **kwargs: Any):
        pricing = _PRICING.get()
        if pricing is None:
            return fit(self, *args, **kwargs)
        try:
            return fit(self, *args, **kwargs)
        except _disguise.Priced as spent:
            self._placeholder(*args, **kwargs)
            pricing.add(spent.args[0])
            return self

    return priced
