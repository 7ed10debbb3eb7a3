"""SPPM on a user's own table: profiles, their empirical joint, and a release of every row.

:class:`TableMapping` builds problem (1) from a pandas DataFrame and releases a perturbed copy of
it through the library's protocol (:mod:`ppdp.base`)::

    tm = TableMapping(private=["income"], released=["age", "education"], delta=0.3)
    released = tm.fit(df).release(random_state=0)

* ``A`` is the tuple of a row's ``private`` values and ``B`` the tuple of its ``released`` values.
  The alphabet of ``B`` (and of the released values, ``B^ = B``) is the set of profiles observed
  in the table, in sorted order (lexicographic over the columns, each column's values in their
  sorted order); the alphabet of ``A`` likewise. ``p(a, b)`` is the empirical joint of the rows.
* The distortion is Hamming (:class:`.HammingDistortion`: the number of released columns that
  differ, or with ``"normalized_hamming"`` that number over the number of released columns) or
  squared Euclidean (:class:`.SquaredDistortion` between the profiles' numeric values).
* ``method`` picks the solver of the mapping: :class:`.SPPM`, :class:`.CertifiedMapping`,
  :class:`.ExactMapping` or :class:`.ExponentialMechanism` (with the budget ``delta``).
* A release draws, for each row, ``b^ ~ p(. | b)`` from the fitted mapping (the mapping whose
  budget the solver checked) and writes ``b^``'s values into the released columns; every other
  column is returned unchanged.

The helpers :func:`encode_columns`, :func:`profile_alphabet` and :func:`empirical_joint` are the
steps of that construction; the paper's experiments (:mod:`ppdp.experiments.sppm`) build their
Census and Movie problems with the last two.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Sequence
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ppdp._validation import (
    Interval,
    StrOptions,
    check_columns,
    check_params,
    validate_hyperparameters,
)
from ppdp.base import (
    Mechanism,
    RepeatedReleaseWarning,
    check_fitted,
    check_frame,
    check_random_state,
)
from ppdp.guarantees import enforce

from .certified import CertifiedMapping
from .distortion import Distortion, HammingDistortion, SquaredDistortion
from .exact import ExactMapping
from .exponential import ExponentialMechanism
from .frank_wolfe import SPPM
from .problem import DELTA, min_feasible_budget

__all__ = ["TableMapping", "empirical_joint", "encode_columns", "profile_alphabet"]

METHODS = {
    "sppm": SPPM,
    "certified": CertifiedMapping,
    "exact": ExactMapping,
    "exponential": ExponentialMechanism,
}
DISTORTIONS = ("hamming", "normalized_hamming", "squared")
ORDERS = ("sorted", "frequency")


# ------------------------------------------------------------------------------------------------
# helpers


def encode_columns(df: pd.DataFrame, columns: Sequence[Any]) -> tuple[np.ndarray, list]:
    """Integer codes of ``df[columns]``, column by column, in each column's sorted value order.

    Parameters
    ----------
    df : pandas.DataFrame
    columns : sequence of column labels

    Returns
    -------
    codes : int64 array of shape (len(df), len(columns))
        ``codes[i, j]`` is the rank of row ``i``'s value among column ``j``'s distinct values.
    categories : list of arrays
        Column ``j``'s distinct values, sorted (``categories[j][codes[:, j]]`` gives the column).

    Raises
    ------
    ValueError
        If a column has missing values.
    TypeError
        If a column mixes value types that cannot be sorted.

    Examples
    --------
    >>> import pandas as pd
    >>> from ppdp.mechanisms.sppm.table import encode_columns
    >>> df = pd.DataFrame({"age": [30, 20, 30], "city": ["B", "A", "A"]})
    >>> codes, categories = encode_columns(df, ["age", "city"])
    >>> codes
    array([[1, 1],
           [0, 0],
           [1, 0]])
    >>> [c.tolist() for c in categories]
    [[20, 30], ['A', 'B']]
    """
    codes, categories = [], []
    for col in columns:
        series = df[col]
        if series.isna().any():
            raise ValueError(f"column {col!r} has missing values; fill or drop them first")
        try:
            c, uniques = pd.factorize(series, sort=True)
        except TypeError as exc:
            kinds = sorted({type(v).__name__ for v in pd.unique(series.to_numpy())})
            raise TypeError(
                f"column {col!r} mixes value types {kinds} that cannot be sorted; give it one "
                "type (e.g. .astype(str))"
            ) from exc
        codes.append(np.asarray(c, dtype=np.int64))
        categories.append(np.asarray(uniques))
    if not codes:
        return np.zeros((len(df), 0), dtype=np.int64), categories
    return np.column_stack(codes), categories


def profile_alphabet(
    codes, *, order: str = "sorted", top: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The alphabet of the observed profiles (rows of ``codes``) and each row's profile index.

    Parameters
    ----------
    codes : integer array of shape (n, k)
        One profile per row (e.g. from :func:`encode_columns`).
    order : {"sorted", "frequency"}, default "sorted"
        ``"sorted"``: lexicographic order of the profile vectors. ``"frequency"``: decreasing
        number of rows, ties in lexicographic order (the experiments' Census and Movie alphabets).
    top : int or None
        Keep only the first ``top`` profiles of that order; rows whose profile is dropped get
        index ``-1``.

    Returns
    -------
    alphabet : array of shape (m, k)
        The profiles, in alphabet order.
    index : int64 array of shape (n,)
        Row ``i``'s position in the alphabet (``-1`` when its profile was dropped by ``top``).
    first : int64 array of shape (m,)
        For each profile, the first row holding it.

    Raises
    ------
    ValueError
        If ``codes`` is not a non-empty 2-D array, or ``order`` or ``top`` is not allowed (an
        ``InvalidParameterError``, also a ``TypeError``).

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm.table import profile_alphabet
    >>> codes = np.array([[1, 0], [0, 1], [1, 0], [0, 0], [1, 0]])
    >>> alphabet, index, first = profile_alphabet(codes)
    >>> alphabet.tolist(), index, first
    ([[0, 0], [0, 1], [1, 0]], array([2, 1, 2, 0, 2]), array([3, 1, 0]))
    >>> profile_alphabet(codes, order="frequency", top=1)[1]
    array([ 0, -1,  0, -1,  0])
    """
    check_params(
        {"order": order, "top": top},
        {"order": [StrOptions(ORDERS)], "top": [Interval(Integral, 1, None, closed="left"), None]},
        "profile_alphabet",
    )
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.shape[0] == 0:
        raise ValueError(f"codes must be a non-empty 2-D array, got shape {codes.shape}")
    uniq, first, inverse, counts = np.unique(
        codes, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    inverse = inverse.ravel()
    if order == "sorted":
        ranked = np.arange(uniq.shape[0])
    else:
        ranked = np.lexsort((np.arange(uniq.shape[0]), -counts))
    if top is not None:
        ranked = ranked[: int(top)]
    rank = np.full(uniq.shape[0], -1)
    rank[ranked] = np.arange(ranked.size)
    return uniq[ranked], rank[inverse], first[ranked].astype(np.int64)


def empirical_joint(a_index, b_index, n_a: int, n_b: int) -> np.ndarray:
    """The empirical joint ``p(a, b)`` of paired indices: an ``(n_a, n_b)`` array summing to 1.

    Parameters
    ----------
    a_index, b_index : integer arrays of shape (n,)
        Each row's private and released profile (e.g. the ``index`` of
        :func:`profile_alphabet`).
    n_a, n_b : int
        The sizes of the two alphabets.

    Returns
    -------
    ndarray of shape (n_a, n_b)

    Examples
    --------
    >>> from ppdp.mechanisms.sppm.table import empirical_joint
    >>> empirical_joint([0, 0, 1, 1], [0, 1, 1, 1], 2, 2)
    array([[0.25, 0.25],
           [0.  , 0.5 ]])
    """
    counts = np.zeros((int(n_a), int(n_b)))
    np.add.at(counts, (np.asarray(a_index), np.asarray(b_index)), 1.0)
    return counts / counts.sum()


# ------------------------------------------------------------------------------------------------
# the mechanism


class TableMapping(Mechanism):
    """A privacy-preserving mapping of a table's released columns (SPPM on a DataFrame).

    Parameters
    ----------
    private : str or list of str
        Columns forming the private attribute ``A``.
    released : str or list of str
        Columns forming the released profile ``B`` (disjoint from ``private``); these, and only
        these, are perturbed by :meth:`release`.
    delta : float
        Distortion budget: the mapping meets ``E[d(B, B^)] <= delta`` over the fitted table.
    distortion : {"hamming", "normalized_hamming", "squared"}, default "hamming"
        ``"hamming"``: the number of released columns in which two profiles differ (so ``delta``
        is in columns, between 0 and ``len(released)``); ``"normalized_hamming"``: that number
        divided by ``len(released)`` (the experiments' Census and Movie distortion, budgets in
        [0, 1]); ``"squared"``: squared Euclidean distance between the profiles' values (numeric
        released columns only).
    method : {"sppm", "certified", "exact", "exponential"}, default "sppm"
        :class:`.SPPM` (Frank-Wolfe with column generation), :class:`.CertifiedMapping` (the
        optimum by column generation, with a certificate of its gap), :class:`.ExactMapping` (the
        convex program with cvxpy on all pairs: small alphabets only) or
        :class:`.ExponentialMechanism` with budget ``delta``.
    **method_params
        Passed to the method's constructor (e.g. ``n_steps=50`` for SPPM, ``solver="SCS"`` for
        the exact program). ``delta`` is this class's own; ``beta`` is not accepted.

    Attributes
    ----------
    p_ab_ : ndarray of shape (|A|, |B|)
        Empirical joint of the private and released profiles of the fitted rows.
    distortion_ : Distortion
        The distortion over the alphabet of ``B`` (``|B| x |B|``).
    profiles_ : DataFrame
        The alphabet of ``B``: one row per profile (row ``j`` is profile ``j``), the released
        columns with their dtypes.
    private_profiles_ : DataFrame
        The alphabet of ``A``, likewise.
    profile_index_ : ndarray of shape (n_rows,)
        Each fitted row's profile (position in ``profiles_``).
    mechanism_ : SPPM, CertifiedMapping, ExactMapping or ExponentialMechanism
        The fitted core; :meth:`release` draws from its ``mapping_`` through its ``release``,
        which re-checks the budget on that mapping.
    mapping_ : sparse matrix or ndarray of shape (|B|, |B|)
        ``mechanism_.mapping_``.
    leakage_ : float
        ``I(A; B^)`` in bits of the mapping (:func:`ppdp.infotheory.leakage`).
    expected_distortion_ : float
        ``E[d(B, B^)]`` of the mapping.
    min_budget_ : float
        The smallest feasible budget (:func:`.min_feasible_budget`; 0 for these distortions).

    Raises
    ------
    TypeError, ValueError
        From :meth:`fit`, if a parameter is not allowed: columns that are missing, repeated or
        both private and released, ``method_params`` that the method does not take,
        ``"squared"`` on non-numeric columns, or a ``delta`` below the smallest feasible budget.

    Examples
    --------
    Publishing ``age`` and ``city`` of a table while hiding ``income``: at a budget of half a
    column per row, the leakage falls from 0.725 bits (the released columns as they are) to
    0.012, and the private column is untouched:

    >>> import pandas as pd
    >>> from ppdp import infotheory
    >>> from ppdp.mechanisms.sppm import TableMapping
    >>> df = pd.DataFrame({
    ...     "income": ["low", "low", "low", "high", "high", "high", "low", "high", "low", "high"],
    ...     "age": [20, 20, 30, 30, 40, 40, 20, 40, 30, 30],
    ...     "city": ["A", "A", "B", "B", "B", "A", "A", "B", "A", "B"],
    ... })
    >>> tm = TableMapping(private="income", released=["age", "city"], delta=0.5, n_steps=20)
    >>> tm = tm.fit(df)
    >>> len(tm.profiles_), round(float(infotheory.mutual_information(tm.p_ab_)), 3)
    (5, 0.725)
    >>> round(tm.leakage_, 3), round(tm.expected_distortion_, 3)
    (0.012, 0.5)
    >>> released = tm.release(random_state=0)
    >>> released.head(3)
      income  age city
    0    low   40    B
    1    low   20    A
    2    low   30    B
    >>> released["income"].equals(df["income"])
    True
    """

    #: The bound every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "the distortion budget of the mapping it draws from, E[d(B, B^)] at most ``delta``"
        " (Eq. 2), for SPPM, the certified and exact optima and the exponential mechanism"
        " alike."
    )

    #: Each release maps every record again through the fitted channel p(b^ | b); several releases
    #: of one fit give an attacker several draws for the same person.
    repetition: ClassVar[str] = "leaks"

    _parameter_constraints: ClassVar[dict] = {
        "distortion": [StrOptions(DISTORTIONS)],
        "method": [StrOptions(tuple(METHODS))],
        "delta": DELTA,
    }

    def __init__(
        self,
        *,
        private,
        released,
        delta,
        distortion: str = "hamming",
        method: str = "sppm",
        **method_params,
    ):
        self.private = private
        self.released = released
        self.delta = delta
        self.distortion = distortion
        self.method = method
        self.method_params = method_params

    def get_params(self, deep: bool = True) -> dict:
        """The constructor's parameters, ``method_params`` flattened in (as given to it)."""
        return {**super().get_params(deep=deep), **self.method_params}

    def set_params(self, **params) -> TableMapping:
        """Set parameters; names that are not this class's own go to ``method_params``."""
        names = super().get_params(deep=False)
        own = {k: params.pop(k) for k in list(params) if k in names}
        super().set_params(**own)
        self.method_params = {**self.method_params, **params}
        return self

    # -- checks -------------------------------------------------------------------------------

    def _check_params(self, df: pd.DataFrame) -> tuple[list, list]:
        # a single name stands for a one-column list
        private = check_columns(
            self.private, name="private", table=df, table_name="df", allow_single=True
        )
        released = check_columns(
            self.released, name="released", table=df, table_name="df", allow_single=True
        )
        shared = [c for c in private if c in released]
        if shared:
            raise ValueError(
                f"private = {private!r} and released = {released!r} share the columns {shared}; "
                "a column is either private or released"
            )
        validate_hyperparameters(self)
        core = METHODS[self.method]
        allowed = [
            p
            for p in inspect.signature(core.__init__).parameters
            if p not in ("self", "delta", "beta")
        ]
        unknown = sorted(set(self.method_params) - set(allowed))
        if unknown:
            raise TypeError(
                f"method_params {unknown} are not parameters of method={self.method!r} "
                f"({core.__name__}); it takes {allowed}"
            )
        if self.distortion == "squared":
            bad = [
                c
                for c in released
                if not pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c])
            ]
            if bad:
                raise TypeError(
                    f"distortion='squared' needs numeric released columns; {bad} are not "
                    f"(dtypes {[str(df[c].dtype) for c in bad]}); use 'hamming' for categories"
                )
        return private, released

    def _make_distortion(self, df: pd.DataFrame, released: list, alphabet, first) -> Distortion:
        if self.distortion == "squared":
            points = df[released].iloc[first].to_numpy(dtype=np.float64)
            if not np.all(np.isfinite(points)):
                raise ValueError(
                    f"distortion='squared' needs finite released values; {released} hold "
                    "infinite ones"
                )
            return SquaredDistortion(points)
        return HammingDistortion(alphabet, normalize=self.distortion == "normalized_hamming")

    # -- protocol -----------------------------------------------------------------------------

    def fit(self, df: pd.DataFrame) -> TableMapping:
        """Build ``p(a, b)`` and the distortion from ``df`` and fit the mapping; returns ``self``."""
        df = check_frame(df)
        private, released = self._check_params(df)
        a_codes, _ = encode_columns(df, private)
        b_codes, _ = encode_columns(df, released)
        _, a_index, a_first = profile_alphabet(a_codes)
        b_alphabet, b_index, b_first = profile_alphabet(b_codes)
        p_ab = empirical_joint(a_index, b_index, a_first.size, b_first.size)
        dist = self._make_distortion(df, released, b_alphabet, b_first)
        smallest = min_feasible_budget(p_ab, dist)
        if float(self.delta) < smallest:
            raise ValueError(
                f"delta = {self.delta!r} is infeasible: it must be >= {smallest:.6g}, the "
                "smallest feasible budget (sum_b p(b) min_b^ d(b, b^))"
            )
        core = METHODS[self.method]
        if core is ExponentialMechanism:
            mechanism = core(delta=self.delta, **self.method_params)
        else:
            mechanism = core(self.delta, **self.method_params)
        mechanism.fit(p_ab, dist)

        self.p_ab_ = p_ab
        self.distortion_ = dist
        self.min_budget_ = smallest
        self.profiles_ = df[released].iloc[b_first].reset_index(drop=True)
        self.private_profiles_ = df[private].iloc[a_first].reset_index(drop=True)
        self.profile_index_ = b_index
        self.private_index_ = a_index
        self.private_columns_, self.released_columns_ = private, released
        self.mechanism_ = mechanism
        self.mapping_ = mechanism.mapping_
        self.leakage_ = float(mechanism.leakage_)
        self.expected_distortion_ = float(mechanism.distortion_)
        self._table = df.copy()
        self._first = b_first
        return self

    def guarantee_checks(self) -> list:
        """The fitted core mapping's distortion budget ``E[d(B, B^)] <= delta``, measured on the
        mapping :meth:`release` draws from (the core's own checks)."""
        check_fitted(self, "mechanism_")
        return list(self.mechanism_.guarantee_checks())

    def release(self, random_state=None) -> pd.DataFrame:
        """A copy of the fitted table whose released columns hold each row's drawn ``b^``.

        Each row's ``b^`` is drawn from ``p(. | b)`` of its profile ``b`` with
        ``mechanism_.release`` (which checks the budget on the mapping it draws from); the private
        and other columns, the column order, the index and the dtypes are those of the fitted
        table.
        """
        check_fitted(self, "mechanism_")
        rng = check_random_state(random_state)
        enforce(self.guarantee_checks())
        with warnings.catch_warnings():
            # this table's own ledger accounts for repeated releases; the core's would warn again
            warnings.simplefilter("ignore", RepeatedReleaseWarning)
            drawn = self.mechanism_.release(self.profile_index_, random_state=rng)
        drawn = np.asarray(drawn, dtype=np.int64)
        out = self._table.copy()
        values = self._table[self.released_columns_].iloc[self._first[drawn]]
        for col in self.released_columns_:
            out[col] = values[col].set_axis(out.index)
        return out
