"""The warnings and errors of disguise (every library error is a ``ValueError``)."""

from __future__ import annotations

from . import _disguise

BudgetExceeded = _disguise.BudgetExceeded
LedgerError = _disguise.LedgerError
# Raised by the native module, found here: an exception pickles by where it is found, and a
# process pool (joblib, scikit-learn's n_jobs) sends a worker's refusal back as a pickle.
BudgetExceeded.__module__ = LedgerError.__module__ = __name__

__all__ = ["BudgetExceeded", "LedgerError", "InsecureSeedWarning", "NotPrivateWarning",
           "UsefulnessWarning"]


class InsecureSeedWarning(UserWarning):
    """A ``seed=`` was given: the run is reproducible by anyone and protects no one."""


class NotPrivateWarning(UserWarning):
    """The run as called is not covered by the privacy guarantee (the warning says why)."""


class UsefulnessWarning(UserWarning):
    """The paper's a-priori utility bound is vacuous for these parameters: the release is
    likely mostly noise (the warning says what would help)."""
