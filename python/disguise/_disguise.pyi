"""Type stubs of the native module (a thin shell over the Rust library's front door).

Use the functions and classes of ``disguise`` instead: they shape the input (numpy arrays,
DataFrames, iterables), warn about seeds and turn the JSON reports into dicts.

What every call returns is the release: values released by a mechanism and what is computed
from them and the public inputs. With ``Run["diagnostics"]`` the reports (JSON) also hold,
under the key ``not_private``, what was computed from the data without noise (NOT private),
and ``Selection.gains`` is set. A call charged to a ledger that fails after its reservation
raises ``ValueError`` with one line that says what stays charged, the same for every data
set (its reason appended only with the diagnostics), from None."""

from typing import TypedDict

import numpy as np
import numpy.typing as npt

__version__: str

class BudgetExceeded(ValueError):
    """A release refused by the budget ledger: nothing was recorded or released."""

class LedgerError(ValueError):
    """A budget ledger that cannot be used (missing, foreign, corrupt, newer, locked)."""

class Priced(Exception):
    """Not an error: a priced call (``Run["price"]``) stopped at its reservation; its one
    argument is the ``Spend`` it would record."""

class Spend:
    """What one release would spend (its guarantee, calls, unit, mechanism)."""

    @property
    def epsilon(self) -> float: ...
    @property
    def delta(self) -> float: ...
    @property
    def mechanism(self) -> str: ...
    def json(self) -> str: ...
    def covers(self, other: Spend) -> bool: ...
    def same(self, other: Spend) -> bool: ...

class Ledger:
    def __init__(self, path: str, timeout: float) -> None: ...
    @staticmethod
    def create(path: str, timeout: float) -> Ledger: ...
    @property
    def path(self) -> str: ...
    def set_limit(
        self, dataset: str, limit: tuple[float, float, str, float, float], new: bool = False
    ) -> None: ...
    def set_default_limit(self, limit: tuple[float, float, str, float, float] | None) -> None: ...
    def default_limit(self) -> str: ...
    def status(self, dataset: str) -> str: ...
    def releases(self, dataset: str | None) -> str: ...
    def datasets(self) -> list[str]: ...
    def integrity_check(self) -> str: ...
    def price(self, dataset: str, parts: list[tuple[Spend, int]]) -> str: ...
    def hold(self, dataset: str, parts: list[tuple[Spend, int]], command: str) -> str: ...
    def close_hold(self, id: int) -> str: ...

class Run(TypedDict):
    """How a release runs (every release takes one): the generator of ``seed`` (None: the
    secure one) and the charge to ``ledger`` (None: none) under ``dataset``, ``command``
    describing the call in the ledger's audit log; ``diagnostics`` shows the values computed
    on the data without noise (``not_private`` in the reports, ``Selection.gains``, the reason
    of a failure after a ledger's reservation) and allows the non-private modes. ``failed``:
    what the Python layer found wrong in the private data while shaping it, under a ledger
    (``disguise._common._read_private``): the call reserves the budget, then fails with it."""

    seed: int | None
    ledger: Ledger | None
    dataset: str | None
    command: str | None
    diagnostics: bool
    failed: str | None
    price: bool
    """Only priced (``Ledger.cost``): the call raises ``Priced`` at its reservation."""
    hold: int | None
    """The reservation (``Ledger.reserve``) the call draws its spend from."""

class Greedy(TypedDict):
    """The privacy options of a greedy task, by name."""

    epsilon: float | None
    delta: float
    mechanism: str
    rule: str
    algorithm: str
    estimate_utility: float | None

def select_one(
    scores: npt.NDArray[np.float64],
    epsilon: float,
    delta: float,
    sensitivity: float,
    monotone: bool,
    variant: str | None,
    run: Run,
) -> int: ...
class Selection:
    """A selection's release: the picks, whether a guarantee covers them, the usefulness
    warning and the report (``json``: the release, and ``not_private`` with the
    diagnostics)."""

    @property
    def selected(self) -> npt.NDArray[np.int64]: ...
    @property
    def gains(self) -> npt.NDArray[np.float64] | None:
        """The picks' exact marginal gains (NOT private): None without the diagnostics."""
    @property
    def private(self) -> bool: ...
    @property
    def warning(self) -> str | None: ...
    @property
    def json(self) -> str: ...

def selection_from_state(
    selected: list[int], private: bool, warning: str | None, report: str
) -> Selection: ...
def histogram_from_state(
    released: str, columns: list[tuple[str, bool]], histogram: str, domains: str,
    records: int, seed: int | None,
) -> HistogramRelease: ...
def draft_schema(
    names: list[str], categorical: list[str], target: str | None,
    levels: list[list[str] | None], bounds: list[tuple[float, float] | None],
) -> str: ...

def budget(
    epsilon: float, delta: float, rounds: int, rule: str, kind: str, decomposable: bool
) -> str: ...
def facility_location(
    points: npt.NDArray[np.float64],
    candidates: npt.NDArray[np.float64],
    k: int,
    metric: str,
    normalizer: float | None,
    cost: float,
    greedy: Greedy,
    run: Run,
) -> Selection: ...
def max_coverage(
    covers: list[list[int]],
    candidates: int,
    k: int,
    greedy: Greedy,
    run: Run,
    edges: list[tuple[int, int]] | None = None,
) -> Selection: ...
def frequent_itemsets(
    transactions: list[list[str]],
    items: list[str] | None,
    size: int,
    epsilon: float,
    delta: float,
    top: int,
    mechanism: str | None,
    run: Run,
) -> str:
    """The report as JSON: the picks (itemset, outcome, margin, noisy frequency), the public
    sizes, the guarantee, the items it may name and the usefulness; with the diagnostics,
    ``not_private`` (each pick's true count, frequency and occurrence, ``occurring``,
    ``truncated``, ``dropped_items``)."""

MAX_NUMERIC_LEVELS: int

def features(
    codes: npt.NDArray[np.uint32],
    arities: list[int],
    labels: npt.NDArray[np.uint32],
    label_levels: int,
    public_levels: bool,
    names: list[str],
    k: int,
    objective: str,
    greedy: Greedy,
    run: Run,
) -> Selection: ...
def bin_codes(
    values: npt.NDArray[np.float64], lo: float, hi: float, count: int, name: str
) -> npt.NDArray[np.uint32]: ...
def histogram_schema(source: str, kind: str) -> str: ...

class HistogramRelease:
    def report(self) -> str:
        """The release's report as JSON; with the diagnostics, ``not_private``: the values
        clamped into the edge bins per numeric column (``clamped``)."""
    def columns(self) -> list[tuple[str, bool]]: ...
    def sample(self, n: int | None = None, values: str = "uniform") -> list[list[str]]: ...

class SynthModel:
    def report(self) -> str:
        """The release's report as JSON; with the diagnostics, ``not_private``: the values
        clamped into the edge bins per numeric column (``clamped``)."""
    def noise_warning(self) -> str | None: ...
    def columns(self) -> list[tuple[str, bool]]: ...
    def sample(self, n: int | None = None, values: str = "uniform") -> list[list[str]]: ...

def synth_fit(
    schema_json: str,
    rows: list[list[str]],
    epsilon: float,
    delta: float,
    noise: str | None,
    iterations: int,
    run: Run,
    edge_share: float = 0.2,
) -> SynthModel: ...

def histogram_fit(
    schema_json: str,
    rows: list[list[str]],
    target: str | None,
    epsilon: float,
    k: int | None,
    gamma: float | None,
    threshold_constant: float,
    gamma_rule: str,
    run: Run,
    bin_rule: str = "released",
    edge_share: float = 0.2,
) -> HistogramRelease: ...
