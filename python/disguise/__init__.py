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

from . import _disguise
from .exceptions import (BudgetExceeded, InsecureSeedWarning, LedgerError, NotPrivateWarning,
                         UsefulnessWarning)
from .itemsets import frequent_itemsets
from .ledger import Ledger, Reservation
from .mechanisms import budget, exponential, large_margin
from .selection import FacilityLocation, FeatureSelector, MaxCoverage
from .synth import ProjectedHistogram, Synthesizer, draft_schema

__version__ = _disguise.__version__

__all__ = [
    "BudgetExceeded",
    "Ledger",
    "LedgerError",
    "Reservation",
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
    "draft_schema",
    "frequent_itemsets",
]


# The families, each a module of its own (``disguise.selection.FeatureSelector`` is
# ``disguise.FeatureSelector``).
_MODULES = ["exceptions", "itemsets", "ledger", "mechanisms", "selection", "synth"]


def __dir__() -> list[str]:
    # What `dir(disguise)` and completion show: the public names, not the helpers and the
    # modules this file imports (np, os, json, math, inspect, typing's names).
    return sorted(__all__ + ["__version__"] + _MODULES)
