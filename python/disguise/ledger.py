"""The privacy budget ledger: ``Ledger``, the file the command line's ``--ledger`` uses."""

from __future__ import annotations

import json
import os

from . import _disguise

__all__ = ["Ledger"]


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

    @classmethod
    def create(cls, path: str | os.PathLike, *, timeout: float = 30.0) -> "Ledger":
        """Creates a new, empty ledger at ``path`` (refused if the file exists)."""
        ledger = cls.__new__(cls)
        ledger._native = _disguise.Ledger.create(os.fspath(path), float(timeout))
        ledger._file, ledger._timeout = os.path.abspath(os.fspath(path)), float(timeout)
        return ledger

    def __reduce__(self):
        # A ledger pickles as its file (its absolute path when it was opened) and timeout:
        # the process that loads it opens the same file, so every worker of a process pool
        # reserves in it.
        return (_reopen, (self._file, self._timeout))

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


def _reopen(path: str, timeout: float) -> Ledger:
    """A pickled ``Ledger`` opened again (it must exist: a pickle never creates one)."""
    return Ledger(path, timeout=timeout)
