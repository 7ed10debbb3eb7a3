"""k-ary randomized response (k-RR), the baseline of the IMPOSTER paper.

Yang, Wang, Hu, Chen and Jiang, "Implicit privacy preservation: a framework based on data
generation", Security and Safety 1 (2022) 2022008, Section 3.1, Eq. (1); the mechanism is that of
Kairouz, Oh and Viswanath (2016). A value ``s`` of an attribute with alphabet of size ``k`` is kept
with probability ``e^eps / (k - 1 + e^eps)`` and replaced by each of the ``k - 1`` other values with
probability ``1 / (k - 1 + e^eps)``. The channel satisfies ``eps``-local differential privacy: any
two rows of its matrix differ by a factor of at most ``e^eps``.

The alphabet of an attribute is the set of values observed when the mechanism is fitted (for a
numeric attribute, its distinct values), so a randomized table only holds values of the original
one and keeps every column's dtype.

The channel actually applied differs from Eq. (1) in the last bits: a value is kept when a uniform
draw of :meth:`numpy.random.Generator.random` (a multiple of ``2^-53``) falls below the keep
probability, so only keep probabilities on that grid can be realized. We round the keep
probability down to the grid (towards more privacy) until the realized channel's likelihood ratio
is at most ``e^eps``. For moderate ``eps`` this moves it by a few multiples of ``2^-53``; for
``eps`` above about ``37 + ln(k - 1)``, where Eq. (1)'s flip probability is below ``2^-53`` and a
naive draw would never flip (an identity channel, with no finite ``eps``), the applied channel
flips with probability ``2^-53`` and its ratio stays below ``e^eps``.
:meth:`KaryRandomizedResponse.guarantee_checks` measures that applied channel.
"""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Mapping, Sequence
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ppdp._validation import Interval, check_columns, check_params, validate_hyperparameters
from ppdp.base import Mechanism, check_fitted, check_random_state
from ppdp.guarantees import GuaranteeCheck, enforce

__all__ = [
    "KaryRandomizedResponse",
    "krr_applied_keep",
    "krr_keep_probability",
    "krr_matrix",
    "randomize_codes",
]

#: Resolution of ``Generator.random()``: its draws are the multiples of ``2^-53`` in ``[0, 1)``.
_GRID = 2.0**-53


#: Constraints of the functions' arguments and of :class:`KaryRandomizedResponse`'s epsilon.
_EPSILON = [Interval(Real, 0, None, closed="neither")]
_K = [Interval(Integral, 1, None, closed="left")]


def _check_k_epsilon(k, epsilon, caller: str) -> tuple[int, float]:
    """``k`` (the alphabet size, an int >= 1) and ``epsilon`` (finite, > 0) as int and float."""
    check_params({"k": k, "epsilon": epsilon}, {"k": _K, "epsilon": _EPSILON}, caller)
    return int(k), float(epsilon)


def krr_keep_probability(k: int, epsilon: float) -> float:
    """Probability that k-RR reports the true value, ``e^eps / (k - 1 + e^eps)`` (Eq. 1).

    Computed as ``1 / (1 + (k - 1) e^-eps)`` so that large ``epsilon`` does not overflow.

    Parameters
    ----------
    k : int
        Size of the alphabet, at least 1.
    epsilon : float
        The privacy budget, finite and > 0.

    Returns
    -------
    float
        The keep probability, in ``[1/k, 1]``.

    Raises
    ------
    ValueError
        If ``k`` is not an int >= 1 or ``epsilon`` not a finite number > 0 (an
        ``InvalidParameterError``, also a ``TypeError``).

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.randomized_response import krr_keep_probability
    >>> round(krr_keep_probability(3, 1.0), 4)  # e / (2 + e)
    0.5761
    >>> krr_keep_probability(2, np.log(3))  # randomized response with a 3:1 bias
    0.75
    """
    k, epsilon = _check_k_epsilon(k, epsilon, "krr_keep_probability")
    return float(1.0 / (1.0 + (k - 1) * np.exp(-epsilon)))


def krr_matrix(k: int, epsilon: float) -> np.ndarray:
    """The ``(k, k)`` channel ``Q[s, r] = Q(r | s)`` of Eq. (1); rows sum to one.

    Parameters
    ----------
    k : int
        Size of the alphabet, at least 1.
    epsilon : float
        The privacy budget, finite and > 0.

    Returns
    -------
    ndarray (k, k)
        :func:`krr_keep_probability` on the diagonal, ``1 / (k - 1 + e^eps)`` elsewhere.

    Raises
    ------
    ValueError
        If ``k`` is not an int >= 1 or ``epsilon`` not a finite number > 0 (an
        ``InvalidParameterError``, also a ``TypeError``).

    Examples
    --------
    With ``e^eps = 2`` the true value is twice as likely as each other one:

    >>> import numpy as np
    >>> from ppdp.mechanisms.randomized_response import krr_matrix
    >>> Q = krr_matrix(3, np.log(2))
    >>> Q.round(3).tolist()
    [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]
    >>> round(float(np.log(Q.max(axis=0) / Q.min(axis=0)).max()), 6)  # the channel's epsilon
    0.693147
    """
    k, _ = _check_k_epsilon(k, epsilon, "krr_matrix")
    keep = krr_keep_probability(k, epsilon)
    # 1 / (k - 1 + e^eps) written without the cancellation of (1 - keep) / (k - 1)
    flip = float(np.exp(-epsilon) / (1.0 + (k - 1) * np.exp(-epsilon))) if k > 1 else 0.0
    matrix = np.full((k, k), flip)
    np.fill_diagonal(matrix, keep)
    return matrix


def _keep_log_ratio(keep, k: int) -> np.ndarray:
    """``|log(keep / flip)|`` of the k-RR channel keeping with ``keep``, flips uniform."""
    keep = np.asarray(keep, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.abs(np.log(keep) + np.log(k - 1) - np.log1p(-keep))


def krr_applied_keep(k: int, epsilon: float) -> float:
    """Keep probability :func:`randomize_codes` realizes: Eq. (1)'s on the ``2^-53`` grid.

    The largest multiple ``t`` of ``2^-53`` not above Eq. (1)'s keep probability whose channel
    (keep with ``t``, else a uniform other value) has likelihood ratio ``<= e^eps``; a draw
    ``u = Generator.random()`` then keeps exactly when ``u < t``, with probability exactly ``t``.

    Parameters
    ----------
    k : int
        Size of the alphabet, at least 1.
    epsilon : float
        The privacy budget, finite and > 0.

    Returns
    -------
    float
        The keep probability applied, a multiple of ``2^-53`` at most Eq. (1)'s (1 for ``k = 1``).

    Raises
    ------
    ValueError
        If ``k`` is not an int >= 1 or ``epsilon`` not a finite number > 0 (an
        ``InvalidParameterError``, also a ``TypeError``).

    Examples
    --------
    For moderate ``epsilon`` it is Eq. (1)'s within a few ``2^-53``; for a huge one it still
    flips with probability ``2^-53`` where Eq. (1) rounds to an identity channel:

    >>> from ppdp.mechanisms.randomized_response import krr_applied_keep, krr_keep_probability
    >>> abs(krr_applied_keep(3, 1.0) - krr_keep_probability(3, 1.0)) <= 4 * 2.0**-53
    True
    >>> krr_keep_probability(2, 50.0), 1 - krr_applied_keep(2, 50.0) == 2.0**-53
    (1.0, True)
    """
    k, epsilon = _check_k_epsilon(k, epsilon, "krr_applied_keep")
    if k == 1:
        return 1.0
    # keep >= 1/k > 0, so the grid point below it is positive; the loop runs at most a few times
    t = np.floor(krr_keep_probability(k, epsilon) / _GRID) * _GRID
    while t > _GRID and _keep_log_ratio(t, k) > epsilon:
        t -= _GRID
    return float(t)


def _krr_log_ratio_from_keep(keep: np.ndarray) -> float:
    """Largest log likelihood ratio of the channel keeping value ``s`` with ``keep[s]`` and
    moving to each other value with ``(1 - keep[s]) / (k - 1)``, in O(k) (no k x k matrix)."""
    k = keep.size
    if k == 1:
        return 0.0
    flip = (1.0 - keep) / (k - 1)
    # column r holds keep[r] and flip[s] for s != r: extremes of flip without row r
    order = np.argsort(flip, kind="stable")
    top, second = order[-1], order[-2]
    bottom, next_bottom = order[0], order[1]
    index = np.arange(k)
    high_flip = np.where(index == top, flip[second], flip[top])
    low_flip = np.where(index == bottom, flip[next_bottom], flip[bottom])
    high = np.maximum(keep, high_flip)
    low = np.minimum(keep, low_flip)
    with np.errstate(divide="ignore"):
        ratio = np.where(high > 0, np.log(high) - np.log(low), 0.0)
    return float(ratio.max())


def _apply_keep(codes: np.ndarray, keep: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Keep code ``s`` when a uniform draw is below ``keep[s]``, else a uniform other code."""
    k = keep.size
    if k == 1:
        return codes.copy()
    flip = rng.random(codes.shape) >= keep[codes]
    other = rng.integers(0, k - 1, size=codes.shape)
    other = other + (other >= codes)
    return np.where(flip, other, codes)


def randomize_codes(codes, k: int, epsilon: float, random_state: Any = None) -> np.ndarray:
    """Apply k-RR to integer codes in ``{0, ..., k-1}``.

    With probability ``1 - keep`` a code is replaced by one of the other ``k - 1`` codes, drawn
    uniformly: draw ``u`` in ``{0, ..., k-2}`` and report ``u + (u >= code)``. ``keep`` is
    :func:`krr_applied_keep` (Eq. 1 on the grid of the uniform draws).

    Parameters
    ----------
    codes : array-like of int
        Codes in ``{0, ..., k-1}``, of any shape.
    k : int
        Size of the alphabet, at least 1.
    epsilon : float
        The privacy budget, finite and > 0.
    random_state : None, int >= 0 or numpy.random.Generator
        :func:`ppdp.base.check_random_state`; a Generator is used as is and advanced.

    Returns
    -------
    ndarray of int64
        The reported codes, of the shape of ``codes``.

    Raises
    ------
    TypeError
        If ``codes`` are not integers, or ``random_state`` is not a seed or a Generator.
    ValueError
        If a code lies outside ``[0, k - 1]``, or ``k`` or ``epsilon`` is out of range (an
        ``InvalidParameterError``, also a ``TypeError``).

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.randomized_response import randomize_codes
    >>> randomize_codes([0, 1, 2, 0, 1, 2, 0, 1], 3, 1.0, random_state=0).tolist()
    [2, 1, 2, 0, 0, 1, 2, 0]
    >>> reported = randomize_codes(np.zeros(10_000, dtype=int), 3, 1.0, random_state=0)
    >>> float((reported == 0).mean())  # e / (2 + e) = 0.576
    0.5761
    """
    rng = check_random_state(random_state)
    check_params({"k": k}, {"k": _K}, "randomize_codes")
    k = int(k)
    codes = np.asarray(codes)
    if codes.size and (not np.issubdtype(codes.dtype, np.integer)):
        raise TypeError(f"codes must be integers, got dtype {codes.dtype}")
    if codes.size and (codes.min() < 0 or codes.max() >= k):
        raise ValueError(
            f"codes must lie in [0, {k - 1}], got range [{codes.min()}, {codes.max()}]"
        )
    keep = krr_applied_keep(k, epsilon)
    codes = codes.astype(np.int64, copy=False)
    return _apply_keep(codes, np.full(k, keep), rng)


def _value_kind(value) -> str:
    if isinstance(value, numbers.Number) and not isinstance(value, bool | np.bool_):
        return "number"
    return type(value).__name__


def _check_alphabet_column(series: pd.Series, col) -> np.ndarray:
    """Observed values of one column, sorted; rejects missing, infinite and mixed-type values."""
    if series.isna().any():
        raise ValueError(f"column {col!r} holds missing values; k-RR needs complete columns")
    values = pd.unique(series.to_numpy())
    numeric = pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series)
    if series.dtype == object:
        kinds = sorted({_value_kind(v) for v in values})
        if len(kinds) > 1:
            raise TypeError(
                f"column {col!r} mixes value types {kinds}; k-RR needs one type per column "
                f"(convert it, e.g. with .astype(str))"
            )
        numeric = kinds == ["number"]
    if numeric:
        finite = np.isfinite(values.astype(np.float64))
        if not finite.all():
            bad = [float(v) for v in values[~finite][:3]]
            raise ValueError(
                f"column {col!r} holds non-finite values {bad}; k-RR needs finite values"
            )
    return np.sort(values)


def _check_unique_columns(df: pd.DataFrame, columns) -> None:
    duplicated = [c for c, n in Counter(df.columns).items() if n > 1 and c in set(columns)]
    if duplicated:
        raise ValueError(
            f"df has duplicated column names {duplicated}; each randomized column needs a unique "
            f"name"
        )


class KaryRandomizedResponse(Mechanism):
    """k-RR applied independently to several columns of a table (Section 3.1, Eq. 1).

    Parameters
    ----------
    epsilon : float or mapping column -> float
        Privacy budget of each randomized attribute (> 0), per release. A single number applies
        to every column.
    columns : sequence of str or None
        Columns to randomize; ``None`` randomizes every column of the table given to ``fit``.
    epsilon_cap : float or None
        The most epsilon a column may spend over all releases of one fit (> 0). Releases of one
        fit compose sequentially: ``n`` releases spend ``n`` times a column's ``epsilon``
        (:meth:`~ppdp.base.ReleaseLedger.spent`). The release that would take a column past the cap is refused with
        :class:`~ppdp.guarantees.GuaranteeViolation`; None sets no cap.

    Attributes
    ----------
    columns_ : list of str
    domains_ : dict column -> numpy array of the observed values (the alphabet, sorted)
    epsilons_ : dict column -> float
    matrices_ : dict column -> (k, k) channel applied: Eq. (1) with the keep probability of
        :func:`krr_applied_keep`. :meth:`randomize` keeps value ``s`` with probability
        ``matrices_[col][s, s]`` and otherwise reports one of the other values uniformly.
    table_ : DataFrame
        A copy of the fitted table; :meth:`release` randomizes it.
    n_releases_ : int
        Tables released since the last ``fit``.

    Examples
    --------
    Sex and disease randomized with ``epsilon = 1`` each; age is not touched:

    >>> import pandas as pd
    >>> from ppdp.mechanisms.randomized_response import KaryRandomizedResponse
    >>> df = pd.DataFrame({
    ...     "age": [23, 25, 31, 35, 41, 47, 52, 58],
    ...     "sex": ["F", "M", "M", "F", "M", "F", "F", "M"],
    ...     "disease": ["flu", "cold", "flu", "ulcer", "cold", "flu", "ulcer", "cold"],
    ... })
    >>> mech = KaryRandomizedResponse(1.0, columns=["sex", "disease"]).fit(df)
    >>> mech.domains_["disease"].tolist()
    ['cold', 'flu', 'ulcer']
    >>> mech.release(random_state=0)
       age sex disease
    0   23   F     flu
    1   25   M   ulcer
    2   31   M    cold
    3   35   F   ulcer
    4   41   F     flu
    5   47   M     flu
    6   52   F    cold
    7   58   M    cold
    >>> [(c.where, round(c.measured, 3), c.holds) for c in mech.guarantee_checks()]
    [('sex', 1.0, True), ('disease', 1.0, True)]

    Each release of the same people spends the budget again; a cap refuses the release that
    would exceed it:

    >>> capped = KaryRandomizedResponse(1.0, columns=["sex"], epsilon_cap=2.0).fit(df)
    >>> _ = capped.release(random_state=1), capped.release(random_state=2)
    >>> capped.spent()
    {'sex': 2.0}
    >>> capped.release(random_state=3)
    Traceback (most recent call last):
    ...
    ppdp.guarantees.GuaranteeViolation: release withheld, declared guarantee broken: KaryRandomizedResponse: epsilon over all releases (sequential composition) requires <= 2, measured 3 at sex, release 3
    """

    #: The bound every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "epsilon-local differential privacy of each randomized column: the largest log "
        "likelihood ratio of its channel is at most that column's ``epsilon``."
    )

    #: Releases of one fit compose sequentially (Dwork and Roth, Theorem 3.16).
    repetition: ClassVar[str] = "composes"

    _parameter_constraints: ClassVar[dict] = {
        "epsilon": [*_EPSILON, Mapping],
        "epsilon_cap": [None, *_EPSILON],
    }

    def __init__(
        self,
        epsilon: float | Mapping[str, float] = 1.0,
        columns: Sequence[str] | None = None,
        epsilon_cap: float | None = None,
    ):
        self.epsilon = epsilon
        self.columns = columns
        self.epsilon_cap = epsilon_cap

    def _check_columns(self) -> list[str] | None:
        """``columns`` as a list of distinct names, or None (every column)."""
        columns = self.columns
        if columns is None:
            return None
        # an empty list is refused by fit, which says what to give instead
        return check_columns(columns, name="columns", allow_empty=True)

    def _check_epsilon(self, epsilon) -> None:
        """One budget for every column, or a mapping column -> budget; each finite and > 0."""
        validate_hyperparameters(self, {"epsilon": epsilon})
        if isinstance(epsilon, Mapping):
            names = {col: f"epsilon[{col!r}]" for col in epsilon}
            check_params(
                {names[col]: eps for col, eps in epsilon.items()},
                dict.fromkeys(names.values(), _EPSILON),
                type(self).__name__,
            )

    def fit(self, df: pd.DataFrame) -> KaryRandomizedResponse:
        """Learn each column's alphabet (its observed values) and its channel."""
        # a failed refit must not leave the previous table's channels in place
        for name in ("columns_", "epsilons_", "domains_", "matrices_", "table_"):
            self.__dict__.pop(name, None)
        self._check_epsilon(self.epsilon)
        validate_hyperparameters(self, {"epsilon_cap": self.epsilon_cap})
        chosen = self._check_columns()
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
        if len(df) == 0:
            raise ValueError("df is empty: k-RR needs at least one row to learn the alphabets")
        columns = list(dict.fromkeys(df.columns)) if chosen is None else chosen
        check_columns(columns, name="columns", table=df, allow_empty=True)
        if not columns:
            raise ValueError("columns is empty: give at least one column to randomize")
        _check_unique_columns(df, columns)
        if isinstance(self.epsilon, Mapping):
            absent = [c for c in columns if c not in self.epsilon]
            if absent:
                raise ValueError(f"epsilon gives no budget for columns {absent}")
            epsilons = {c: float(self.epsilon[c]) for c in columns}
        else:
            epsilons = dict.fromkeys(columns, float(self.epsilon))
        domains, matrices = {}, {}
        for col in columns:
            domains[col] = _check_alphabet_column(df[col], col)
            k = len(domains[col])
            keep = krr_applied_keep(k, epsilons[col])
            matrix = np.full((k, k), (1.0 - keep) / (k - 1) if k > 1 else 0.0)
            np.fill_diagonal(matrix, keep)
            matrices[col] = matrix
        self.columns_ = columns
        self.epsilons_ = epsilons
        self.domains_ = domains
        self.matrices_ = matrices
        self.table_ = df.copy()
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """epsilon-LDP of each column's applied channel: the largest log likelihood ratio.

        One check per randomized column: ``max_r max_{s, s'} log(Q(r | s) / Q(r | s'))`` of the
        channel :meth:`randomize` applies (keep with the diagonal of ``matrices_``, otherwise a
        uniform other value) against that column's ``epsilon`` (sense ``at_most``).
        """
        check_fitted(self, "matrices_")
        return [
            GuaranteeCheck(
                mechanism=type(self).__name__,
                guarantee="epsilon-LDP",
                declared=self.epsilons_[col],
                measured=_krr_log_ratio_from_keep(np.diag(self.matrices_[col]).astype(float)),
                sense="at_most",
                where=str(col),
            )
            for col in self.columns_
        ]

    def _composed(self, n_releases: int) -> dict[str, float]:
        """Each column's epsilon over ``n_releases`` releases: ``n`` times its own."""
        return {col: n_releases * self.epsilons_[col] for col in self.columns_}

    def _release_cap(self) -> list[GuaranteeCheck]:
        """Each column's epsilon after the next release against ``epsilon_cap``."""
        if self.epsilon_cap is None:
            return []
        n_next = self.n_releases_ + 1
        return [
            GuaranteeCheck(
                mechanism=type(self).__name__,
                guarantee="epsilon over all releases (sequential composition)",
                declared=float(self.epsilon_cap),
                measured=spent,
                sense="at_most",
                where=f"{col}, release {n_next}",
            )
            for col, spent in self._composed(n_next).items()
        ]

    def randomize(self, df: pd.DataFrame, random_state: Any = None) -> pd.DataFrame:
        """Return a copy of ``df`` whose fitted columns went through k-RR; other columns unchanged.

        Raises :class:`ppdp.guarantees.GuaranteeViolation` (and randomizes nothing) if a fitted
        channel's likelihood ratio exceeds its ``e^epsilon``.
        """
        check_fitted(self, "domains_")
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
        rng = check_random_state(random_state)
        missing = [c for c in self.columns_ if c not in df.columns]
        if missing:
            raise ValueError(f"columns {missing} were fitted but are not in the table")
        _check_unique_columns(df, self.columns_)
        enforce(self.guarantee_checks())
        out = df.copy()
        for col in self.columns_:
            domain = self.domains_[col]
            values = df[col].to_numpy()
            if df[col].isna().any():
                raise ValueError(
                    f"column {col!r} holds missing values; k-RR needs complete columns"
                )
            try:
                codes = np.searchsorted(domain, values)
            except TypeError as err:
                raise TypeError(
                    f"column {col!r} holds values not comparable with its fitted alphabet "
                    f"({domain.dtype}): {err}"
                ) from None
            codes = np.clip(codes, 0, len(domain) - 1)
            unknown = domain[codes] != values
            if np.any(unknown):
                bad = pd.unique(values[unknown])[:5]
                raise ValueError(
                    f"column {col!r} holds values outside the fitted alphabet: {list(bad)}"
                )
            keep = np.diag(self.matrices_[col]).astype(np.float64)
            new = _apply_keep(codes.astype(np.int64), keep, rng)
            out[col] = pd.Series(domain[new], index=df.index).astype(df[col].dtype)
        return out

    def fit_randomize(self, df: pd.DataFrame, random_state: Any = None) -> pd.DataFrame:
        """``fit(df)`` then ``randomize(df, random_state)``."""
        return self.fit(df).randomize(df, random_state)

    def release(self, random_state: Any = None) -> pd.DataFrame:
        """The fitted table with every fitted column passed through k-RR (Eq. 1).

        Each value ``s`` of a column with alphabet size ``k`` is kept with probability
        ``e^eps / (k - 1 + e^eps)`` (on the grid of :func:`krr_applied_keep`) and otherwise
        replaced by one of the ``k - 1`` other values uniformly, independently per value; each
        column's channel is ``eps``-locally differentially private.

        Parameters
        ----------
        random_state : None, int >= 0 or numpy.random.Generator
            :func:`ppdp.base.check_random_state`: an int ``s`` gives the same bytes as
            ``randomize(table, np.random.default_rng(s))``; a Generator is used as is and
            advanced.

        Returns
        -------
        DataFrame
            ``randomize(table, rng)`` of the fitted table: its columns in their order, its index
            and dtypes; columns not fitted are unchanged.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        GuaranteeViolation
            From :meth:`randomize`, if a channel's likelihood ratio exceeds ``e^eps``
            (:meth:`guarantee_checks`); nothing is released.
        """
        check_fitted(self, ["matrices_", "table_"])
        return self.randomize(self.table_, check_random_state(random_state))
