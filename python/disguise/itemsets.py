"""Private frequent itemsets: ``frequent_itemsets``."""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from . import _disguise
from ._common import _call, _positive_int, _run, _warn_if_vacuous, _warn_seed
from .ledger import Ledger

__all__ = ["frequent_itemsets"]


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
