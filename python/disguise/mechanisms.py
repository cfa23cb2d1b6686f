"""One private choice, and a budget's plan: ``exponential``, ``large_margin``, ``budget``."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from . import _disguise
from ._common import (_call, _floats, _positive_int, _read_private, _run, _shaped,
                      _warn_seed)
from .ledger import Ledger

__all__ = ["exponential", "large_margin", "budget"]


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
