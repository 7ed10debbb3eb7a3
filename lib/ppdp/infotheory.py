"""Information-theoretic measures shared by every paper in the compendium.

All quantities are in **bits** (logarithms base 2). Probability vectors and tables may be given as
probabilities or as non-negative counts; they are normalized internally (except ``p_ab`` in the
leakage functions, which must already be a distribution). Zero probabilities are handled exactly
with the convention ``0 log 0 = 0``.

Results that are mathematically confined to an interval (entropy, mutual information and KL
divergence are ``>= 0``; NMI and Jensen-Shannon divergence lie in ``[0, 1]``) are returned clipped to
that interval, which only removes floating-point rounding of order ``1e-16``. Inputs are never
clipped: negative, NaN or infinite entries, zero total mass and wrong shapes raise ``ValueError``
(or ``TypeError`` for non-numeric data), with a message naming the parameter, the offending value
and what is allowed.

Functions
---------
Tables and vectors: :func:`entropy`, :func:`joint_entropy`, :func:`conditional_entropy`,
:func:`mutual_information`, :func:`normalized_mutual_information`.

Samples: :func:`contingency`, :func:`entropy_from_samples`,
:func:`conditional_entropy_from_samples`, :func:`mutual_information_from_samples`,
:func:`normalized_mutual_information_from_samples`.

Divergences: :func:`kl_divergence`, :func:`js_divergence`, :func:`pairwise_js_divergence`.

Privacy leakage of a randomized mapping ``p(b^|b)`` (SPPM Eq. (1)/(3), HyObscure Theorem 1):
:func:`leakage`, :func:`leakage_log_ratio`, :func:`leakage_gradient`.

Implementation
--------------
The sums run on scipy's elementwise kernels ``scipy.special.entr``, ``rel_entr`` and ``xlogy``
(``entr`` is what :func:`scipy.stats.entropy` sums; calling the ufuncs directly avoids that
function's fixed cost of about 0.4 ms, which would dominate small tables in optimization loops),
and the empirical mutual information is :func:`sklearn.metrics.mutual_info_score` on the
contingency table. This module keeps its own code only for input validation, for counting label
pairs (which scikit-learn's ``contingency_matrix`` would re-sort), for the normalizations of the
NMI, and for the leakage of a mapping and the blocked pairwise Jensen-Shannon divergence, which no
library provides.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import entr, rel_entr, xlogy
from sklearn.metrics import mutual_info_score

__all__ = [
    "conditional_entropy",
    "conditional_entropy_from_samples",
    "contingency",
    "entropy",
    "entropy_from_samples",
    "joint_entropy",
    "js_divergence",
    "kl_divergence",
    "leakage",
    "leakage_gradient",
    "leakage_log_ratio",
    "mutual_information",
    "mutual_information_from_samples",
    "normalized_mutual_information",
    "normalized_mutual_information_from_samples",
    "pairwise_js_divergence",
]

#: Allowed values of the ``average`` argument of the NMI functions.
NMI_AVERAGES = ("arithmetic", "geometric", "min", "max")

#: Tolerance on ``|sum(p_ab) - 1|`` in the leakage functions.
P_AB_ATOL = 1e-9

#: Default tolerance on ``|sum_b^ p(b^|b) - 1|`` for the rows of a mapping.
MAPPING_ATOL = 1e-6

# Default number of float64 elements in one block of pairwise_js_divergence (8 MiB).
_PAIRWISE_BLOCK = 2**20

# Contingency tables of samples are dense up to max(n_samples, _DENSE_CELLS) cells, else sparse.
_DENSE_CELLS = 2**16

_LN2 = math.log(2.0)


# ---------------------------------------------------------------------------------------------------
# validation helpers


def _shape_text(arr: np.ndarray) -> str:
    return f"ndim={arr.ndim} with shape {arr.shape}"


def _as_real_array(x: Any, name: str) -> np.ndarray:
    """Convert to a float64 ndarray, rejecting non-numeric, boolean and complex data."""
    if sp.issparse(x):
        raise TypeError(f"{name} must be a dense array-like; got a scipy.sparse {type(x).__name__}")
    arr = np.asarray(x)
    if arr.dtype == np.bool_ or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(
            f"{name} must hold real numbers (integer or float dtype); got dtype {arr.dtype}"
        )
    return arr.astype(np.float64, copy=False)


def _check_entries(arr: np.ndarray, name: str) -> None:
    """Raise unless every entry is finite and non-negative."""
    finite = np.isfinite(arr)
    if not finite.all():
        idx = tuple(int(i) for i in np.argwhere(~finite)[0])
        raise ValueError(
            f"{name} has a non-finite entry {float(arr[idx])!r} at index {idx}; entries must be finite"
        )
    negative = arr < 0
    if negative.any():
        idx = tuple(int(i) for i in np.argwhere(negative)[0])
        raise ValueError(
            f"{name} has a negative entry {float(arr[idx])!r} at index {idx}; entries must be >= 0"
        )


def _distribution(x: Any, name: str, ndim: int | None = None, min_ndim: int = 1) -> np.ndarray:
    """Validate probabilities or counts and return them normalized to total mass 1 (float64)."""
    arr = _as_real_array(x, name)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D; got {_shape_text(arr)}")
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} must be at least {min_ndim}-D; got {_shape_text(arr)}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty; got shape {arr.shape}")
    _check_entries(arr, name)
    total = arr.sum()
    if not total > 0:
        raise ValueError(
            f"{name} has zero total mass (all entries are 0); need at least one positive entry"
        )
    return arr / total


def _entropy_normalized(p: np.ndarray, axis: int | None = None) -> np.ndarray | float:
    """Entropy (bits, unclipped) of an already normalized, validated array along ``axis``.

    ``scipy.stats.entropy(p, base=2, axis=axis)`` without its renormalization and fixed cost.
    """
    return entr(p).sum(axis=axis) / _LN2


def _conditional_nats(table: Any, given: int) -> float:
    """``-sum t log(t / t_given)`` in nats of a non-negative 2-D table, dense or sparse.

    ``t_given`` is the marginal of the conditioning axis ``given``; every ``rel_entr`` term is
    ``<= 0`` since a cell never exceeds its marginal. Divided by the table's total this is the
    conditional entropy of the other variable.
    """
    marginal = np.asarray(table.sum(axis=1 - given), dtype=np.float64).ravel()
    if sp.issparse(table):
        cells = table.tocoo()
        index = cells.row if given == 0 else cells.col
        return -float(rel_entr(cells.data, marginal[index]).sum())
    marginal = marginal[:, None] if given == 0 else marginal[None, :]
    return -float(rel_entr(table, marginal).sum())


def _marginal_entropy(p: np.ndarray) -> float:
    """Entropy (bits) of a normalized marginal; exactly 0 when it has a single non-zero cell.

    A marginal summed from a normalized table can total ``1 - 2**-53``, whose entropy is ``1e-16``
    rather than 0; NMI's degenerate cases are decided by the support, not by that residue.
    """
    if np.count_nonzero(p) <= 1:
        return 0.0
    return _nonneg(_entropy_normalized(p))


def _nonneg(value: float) -> float:
    # "+ 0.0" turns a -0.0 (e.g. the entropy of a point mass, -1 * log 1) into 0.0
    return max(float(value), 0.0) + 0.0


def _unit(value: float) -> float:
    return min(max(float(value), 0.0), 1.0) + 0.0


def _check_average(average: Any) -> str:
    if not isinstance(average, str) or average not in NMI_AVERAGES:
        raise ValueError(f"average must be one of {NMI_AVERAGES}; got {average!r}")
    return average


def _check_axis(given: Any) -> int:
    if isinstance(given, bool) or not isinstance(given, int | np.integer) or given not in (0, 1):
        raise ValueError(f"given must be the axis 0 or 1 of the 2-D joint table; got {given!r}")
    return int(given)


# ---------------------------------------------------------------------------------------------------
# tables and vectors


def entropy(p: Any) -> float:
    """Shannon entropy ``H(p)`` in bits of a 1-D distribution.

    Parameters
    ----------
    p : array_like, shape (k,)
        Probabilities or non-negative counts; normalized internally. Zero entries contribute 0
        (``0 log 0 = 0``).

    Returns
    -------
    float
        ``-sum_i p_i log2 p_i``, in ``[0, log2(number of non-zero entries)]``.

    Raises
    ------
    TypeError
        If ``p`` is not real numeric.
    ValueError
        If ``p`` is not 1-D, is empty, has a negative or non-finite entry, or has zero total mass.

    Examples
    --------
    >>> entropy([0.5, 0.5])
    1.0
    >>> entropy([1, 1, 2])  # counts: (1/4, 1/4, 1/2)
    1.5
    >>> entropy([1, 0])  # a point mass
    0.0
    """
    return _nonneg(_entropy_normalized(_distribution(p, "p", ndim=1)))


def joint_entropy(joint: Any) -> float:
    """Joint entropy ``H(X_1, ..., X_N)`` in bits of an N-D table.

    Parameters
    ----------
    joint : array_like, N-D (N >= 1)
        Joint probabilities or counts; normalized internally.

    Returns
    -------
    float
        ``-sum p log2 p`` over all cells (``0 log 0 = 0``).

    Raises
    ------
    TypeError
        If ``joint`` is not real numeric.
    ValueError
        If ``joint`` is a scalar (0-D), is empty, has a negative or non-finite entry, or has zero
        total mass.

    Examples
    --------
    >>> joint_entropy([[1, 1], [1, 1]])  # two independent fair bits
    2.0
    >>> joint_entropy([[0.5, 0.0], [0.0, 0.5]])  # two copies of one fair bit
    1.0
    """
    return _nonneg(_entropy_normalized(_distribution(joint, "joint", min_ndim=1)))


def conditional_entropy(joint: Any, given: int = 0) -> float:
    """Conditional entropy of one variable of a 2-D table given the other, in bits.

    Parameters
    ----------
    joint : array_like, shape (|X|, |Y|)
        Joint probabilities or counts of ``(X, Y)``; normalized internally.
    given : {0, 1}, default 0
        Axis of the conditioning variable: ``given=0`` returns ``H(Y | X)``, ``given=1`` returns
        ``H(X | Y)``.

    Returns
    -------
    float
        ``sum_{x,y} p(x, y) log2(p(given) / p(x, y))``, computed term by term (each term is
        ``>= 0``); cells with ``p(x, y) = 0`` contribute 0.

    Raises
    ------
    TypeError
        If ``joint`` is not real numeric.
    ValueError
        If ``joint`` is not 2-D, is empty, has a negative or non-finite entry, or has zero total
        mass, or if ``given`` is not 0 or 1.

    Examples
    --------
    >>> joint = [[3, 1], [1, 3]]  # Y equals X with probability 3/4
    >>> round(conditional_entropy(joint), 4)  # H(Y | X) = H(1/4, 3/4)
    0.8113
    >>> round(entropy([1, 3]), 4)
    0.8113
    >>> conditional_entropy([[1, 0], [0, 1]], given=1)  # X is determined by Y
    0.0
    """
    p = _distribution(joint, "joint", ndim=2)
    axis = _check_axis(given)
    return _nonneg(_conditional_nats(p, axis) / _LN2)


def _mi_table(p: np.ndarray) -> float:
    """Mutual information (bits, unclipped) of a normalized, validated 2-D table.

    ``sum p log(p / (p(x) p(y)))`` split as ``rel_entr(p, p(x)) - xlogy(p, p(y))``: the product
    ``p(x) p(y)`` in ``rel_entr(p, outer)`` underflows to 0 (and the term to ``inf``) for cells
    below about ``1e-162``, while ``p / p(x)`` stays in ``(0, 1]``.
    """
    px = p.sum(axis=1, keepdims=True)
    py = p.sum(axis=0, keepdims=True)
    return float(np.sum(rel_entr(p, px) - xlogy(p, py))) / _LN2


def mutual_information(joint: Any) -> float:
    """Mutual information ``I(X; Y)`` in bits of a 2-D joint table.

    Parameters
    ----------
    joint : array_like, shape (|X|, |Y|)
        Joint probabilities or counts; normalized internally.

    Returns
    -------
    float
        ``sum_{x,y} p(x,y) log2(p(x,y) / (p(x) p(y)))`` over cells with ``p(x,y) > 0``; clipped at
        0 to remove rounding (as :func:`sklearn.metrics.mutual_info_score` does).

    Raises
    ------
    TypeError
        If ``joint`` is not real numeric.
    ValueError
        If ``joint`` is not 2-D, is empty, has a negative or non-finite entry, or has zero total
        mass.

    Examples
    --------
    >>> mutual_information([[1, 0], [0, 1]])  # Y is a copy of a fair bit X
    1.0
    >>> mutual_information([[1, 1], [1, 1]])  # independent
    0.0
    >>> joint = [[3, 1], [1, 3]]
    >>> round(mutual_information(joint), 4)  # H(Y) - H(Y | X) = 1 - 0.8113
    0.1887
    """
    return _nonneg(_mi_table(_distribution(joint, "joint", ndim=2)))


def _nmi(mi: float, hx: float, hy: float, average: str) -> float:
    """Normalize ``mi`` following :func:`sklearn.metrics.normalized_mutual_info_score`.

    Same special cases, and each ``average`` is the ``average_method`` of that name (the geometric
    mean is taken as ``sqrt(hx) sqrt(hy)``, which cannot underflow). That function takes labels
    only, so it cannot serve tables, and on samples it would re-sort them six times.
    """
    if hx == 0 and hy == 0:
        return 1.0
    if mi <= 0 or min(hx, hy) == 0:
        # a zero-entropy marginal makes X and Y independent: I = 0 whatever the normalizer
        return 0.0
    if average == "arithmetic":
        normalizer = 0.5 * (hx + hy)
    elif average == "geometric":
        normalizer = math.sqrt(hx) * math.sqrt(hy)
    elif average == "min":
        normalizer = min(hx, hy)
    else:
        normalizer = max(hx, hy)
    return _unit(mi / normalizer)


def normalized_mutual_information(joint: Any, average: str = "arithmetic") -> float:
    """Normalized mutual information ``I(X; Y) / avg(H(X), H(Y))`` of a 2-D joint table.

    Parameters
    ----------
    joint : array_like, shape (|X|, |Y|)
        Joint probabilities or counts; normalized internally.
    average : {"arithmetic", "geometric", "min", "max"}, default "arithmetic"
        Mean of ``H(X)`` and ``H(Y)`` used as normalizer; ``"arithmetic"`` is scikit-learn's
        default ``average_method``.

    Returns
    -------
    float
        NMI in ``[0, 1]``. Degenerate cases follow
        :func:`sklearn.metrics.normalized_mutual_info_score`: if both ``H(X) = 0`` and
        ``H(Y) = 0`` (each marginal has a single non-zero cell) the value is **1.0** (a perfect
        match); otherwise if ``I(X; Y) = 0`` (in particular when one entropy is 0) it is 0.0.

    Raises
    ------
    TypeError
        If ``joint`` is not real numeric.
    ValueError
        If ``joint`` is not 2-D, is empty, has a negative or non-finite entry, or has zero total
        mass, or if ``average`` is not one of the four names.

    Examples
    --------
    >>> normalized_mutual_information([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    1.0
    >>> round(normalized_mutual_information([[3, 1], [1, 3]]), 4)  # both entropies are 1 bit
    0.1887
    >>> normalized_mutual_information([[1, 0], [0, 0]])  # both variables constant
    1.0
    """
    avg = _check_average(average)
    p = _distribution(joint, "joint", ndim=2)
    hx = _marginal_entropy(p.sum(axis=1))
    hy = _marginal_entropy(p.sum(axis=0))
    return _nmi(_nonneg(_mi_table(p)), hx, hy, avg)


# ---------------------------------------------------------------------------------------------------
# samples


def _factorize(x: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes (int64) and the labels of a 1-D column of hashable, non-missing labels."""
    if isinstance(x, pd.DataFrame):
        raise ValueError(
            f"{name} must be a 1-D column of labels; got a DataFrame of shape {x.shape}"
        )
    if sp.issparse(x):
        raise TypeError(f"{name} must be a 1-D column of labels; got a scipy.sparse matrix")
    if isinstance(x, pd.Series | pd.Index | pd.Categorical):
        col = x
    elif isinstance(x, np.ndarray):
        if x.ndim != 1:
            raise ValueError(f"{name} must be a 1-D column of labels; got {_shape_text(x)}")
        col = x
    elif isinstance(x, str | bytes) or not hasattr(x, "__len__"):
        raise TypeError(
            f"{name} must be a 1-D sequence of labels (list, numpy array, pandas Series); "
            f"got {type(x).__name__}"
        )
    else:
        col = pd.Series(list(x), dtype=object)
    if len(col) == 0:
        raise ValueError(f"{name} must contain at least one sample; got length 0")
    missing = np.asarray(pd.isna(col))
    if missing.any():
        pos = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"{name} has a missing label (NaN/None/NA) at position {pos}; labels must be non-missing"
        )
    try:
        codes, labels = pd.factorize(col, sort=True)
    except TypeError:
        # labels of mutually unorderable types: keep the order of first appearance
        try:
            codes, labels = pd.factorize(col, sort=False)
        except TypeError as exc:
            raise TypeError(f"{name} must hold hashable labels; {exc}") from exc
    return np.asarray(codes, dtype=np.int64), np.asarray(labels)


def _paired_codes(x: Any, y: Any, xname: str, yname: str):
    cx, lx = _factorize(x, xname)
    cy, ly = _factorize(y, yname)
    if cx.shape[0] != cy.shape[0]:
        raise ValueError(
            f"{xname} and {yname} must have the same length; "
            f"got len({xname})={cx.shape[0]} and len({yname})={cy.shape[0]}"
        )
    return cx, lx, cy, ly


def _count_table(cx: np.ndarray, nx: int, cy: np.ndarray, ny: int, *, dense: bool = False):
    """Contingency counts (int64) of paired codes ``cx`` in ``[0, nx)`` and ``cy`` in ``[0, ny)``.

    One ``bincount`` gives the dense table when it has at most ``max(n, 2**16)`` cells (or when
    ``dense``); otherwise a COO array holds the observed pairs only, so high-cardinality labels
    never allocate ``nx * ny`` cells. (``sklearn.metrics.cluster.contingency_matrix`` builds the
    same table but re-sorts the labels, several times slower on codes that are already dense.)
    """
    cells = cx * ny + cy
    if dense or nx * ny <= max(cx.shape[0], _DENSE_CELLS):
        return np.bincount(cells, minlength=nx * ny).astype(np.int64, copy=False).reshape(nx, ny)
    cells, counts = np.unique(cells, return_counts=True)
    table = sp.coo_array((counts.astype(np.int64), (cells // ny, cells % ny)), shape=(nx, ny))
    # np.unique sorted the cells row-major without duplicates: flagging that spares scipy's
    # sp.find (inside mutual_info_score) a lexsort of the coordinates
    table.has_canonical_format = True
    return table


def _mi_counts(table: Any) -> float:
    """Mutual information (bits, >= 0) of a table of counts, dense or sparse, by scikit-learn."""
    return mutual_info_score(None, None, contingency=table) / _LN2


def contingency(x: Any, y: Any, *, return_labels: bool = False):
    """Contingency table of two sample columns.

    Parameters
    ----------
    x, y : array_like or pandas.Series, shape (n,)
        Paired samples with any hashable labels. Missing labels (NaN, None, ``pd.NA``, NaT) are an
        error.
    return_labels : bool, default False
        Also return the labels of the rows and columns.

    Returns
    -------
    table : numpy.ndarray of int64, shape (n_x_labels, n_y_labels)
        ``table[i, j]`` counts the samples with ``x = x_labels[i]`` and ``y = y_labels[j]``.
        Labels are sorted when they are mutually orderable, otherwise in order of first
        appearance.
    x_labels, y_labels : numpy.ndarray
        Only if ``return_labels`` is true.

    Raises
    ------
    TypeError
        If ``x`` or ``y`` is not a 1-D sequence of labels (for instance a string, a scalar or a
        scipy.sparse matrix) or holds unhashable labels.
    ValueError
        If ``x`` or ``y`` is a DataFrame or a multi-dimensional array, is empty or has a missing
        label, or if ``x`` and ``y`` differ in length.

    Examples
    --------
    >>> table, x_labels, y_labels = contingency(
    ...     ["a", "a", "b", "b", "c", "c"], [0, 0, 1, 1, 1, 1], return_labels=True
    ... )
    >>> table
    array([[2, 0],
           [0, 2],
           [0, 2]])
    >>> x_labels.tolist(), y_labels.tolist()
    (['a', 'b', 'c'], [0, 1])
    """
    cx, lx, cy, ly = _paired_codes(x, y, "x", "y")
    table = _count_table(cx, lx.shape[0], cy, ly.shape[0], dense=True)
    if return_labels:
        return table, lx, ly
    return table


def entropy_from_samples(x: Any) -> float:
    """Empirical (plug-in) entropy in bits of a column of labels.

    Parameters
    ----------
    x : array_like or pandas.Series, shape (n,)
        Hashable, non-missing labels.

    Returns
    -------
    float
        Entropy of the empirical label distribution.

    Raises
    ------
    TypeError
        If ``x`` is not a 1-D sequence of labels (for instance a string, a scalar or a scipy.sparse
        matrix) or holds unhashable labels.
    ValueError
        If ``x`` is a DataFrame or a multi-dimensional array, is empty or has a missing label.

    Examples
    --------
    >>> entropy_from_samples(["a", "b", "a", "b"])
    1.0
    >>> round(entropy_from_samples([0, 0, 1, 1, 1, 1]), 4)  # H(1/3, 2/3)
    0.9183
    """
    codes, labels = _factorize(x, "x")
    counts = np.bincount(codes, minlength=labels.shape[0])
    return _nonneg(_entropy_normalized(counts / codes.shape[0]))


def conditional_entropy_from_samples(x: Any, given: Any) -> float:
    """Empirical conditional entropy ``H(x | given)`` in bits.

    Parameters
    ----------
    x, given : array_like or pandas.Series, shape (n,)
        Paired hashable, non-missing labels.

    Returns
    -------
    float
        ``sum n(x, g)/n log2(n(g) / n(x, g))`` over observed pairs.

    Raises
    ------
    TypeError
        If ``x`` or ``given`` is not a 1-D sequence of labels (for instance a string, a scalar or a
        scipy.sparse matrix) or holds unhashable labels.
    ValueError
        If ``x`` or ``given`` is a DataFrame or a multi-dimensional array, is empty or has a missing
        label, or if ``x`` and ``given`` differ in length.

    Examples
    --------
    >>> zip_code = ["a", "a", "b", "b", "c", "c"]
    >>> disease = [0, 0, 1, 1, 1, 1]
    >>> conditional_entropy_from_samples(disease, given=zip_code)  # the zip code decides it
    0.0
    >>> round(conditional_entropy_from_samples(zip_code, given=disease), 4)  # 2/3 of H(1/2, 1/2)
    0.6667
    """
    cx, lx, cg, lg = _paired_codes(x, given, "x", "given")
    table = _count_table(cx, lx.shape[0], cg, lg.shape[0])
    return _nonneg(_conditional_nats(table, 1) / cx.shape[0] / _LN2)


def mutual_information_from_samples(x: Any, y: Any) -> float:
    """Empirical (plug-in) mutual information ``I(x; y)`` in bits.

    High-cardinality labels never build a dense table: only the observed pairs are counted.

    Parameters
    ----------
    x, y : array_like or pandas.Series, shape (n,)
        Paired hashable, non-missing labels.

    Returns
    -------
    float
        ``sklearn.metrics.mutual_info_score(x, y) / ln 2``, computed by that function on the
        contingency table of the integer codes of the labels.

    Raises
    ------
    TypeError
        If ``x`` or ``y`` is not a 1-D sequence of labels (for instance a string, a scalar or a
        scipy.sparse matrix) or holds unhashable labels.
    ValueError
        If ``x`` or ``y`` is a DataFrame or a multi-dimensional array, is empty or has a missing
        label, or if ``x`` and ``y`` differ in length.

    Examples
    --------
    >>> zip_code = ["a", "a", "b", "b", "c", "c"]
    >>> disease = [0, 0, 1, 1, 1, 1]
    >>> round(mutual_information_from_samples(zip_code, disease), 4)  # all of H(disease)
    0.9183
    >>> mutual_information_from_samples([0, 1, 0, 1], ["x", "x", "y", "y"])  # independent
    0.0
    """
    cx, lx, cy, ly = _paired_codes(x, y, "x", "y")
    return _mi_counts(_count_table(cx, lx.shape[0], cy, ly.shape[0]))


def normalized_mutual_information_from_samples(
    x: Any, y: Any, average: str = "arithmetic"
) -> float:
    """Empirical normalized mutual information of two label columns.

    Parameters
    ----------
    x, y : array_like or pandas.Series, shape (n,)
        Paired hashable, non-missing labels.
    average : {"arithmetic", "geometric", "min", "max"}, default "arithmetic"
        See :func:`normalized_mutual_information`.

    Returns
    -------
    float
        Equals ``sklearn.metrics.normalized_mutual_info_score(x, y, average_method=average)``,
        including its convention: 1.0 when both columns are constant, 0.0 when only one is.

    Raises
    ------
    TypeError
        If ``x`` or ``y`` is not a 1-D sequence of labels (for instance a string, a scalar or a
        scipy.sparse matrix) or holds unhashable labels.
    ValueError
        If ``x`` or ``y`` is a DataFrame or a multi-dimensional array, is empty or has a missing
        label, if ``x`` and ``y`` differ in length, or if ``average`` is not one of the four names.

    Examples
    --------
    >>> zip_code = ["a", "a", "b", "b", "c", "c"]
    >>> disease = [0, 0, 1, 1, 1, 1]
    >>> round(normalized_mutual_information_from_samples(zip_code, disease), 4)
    0.7337
    >>> normalized_mutual_information_from_samples(zip_code, disease, average="min")
    1.0
    """
    avg = _check_average(average)
    cx, lx, cy, ly = _paired_codes(x, y, "x", "y")
    n = cx.shape[0]
    table = _count_table(cx, lx.shape[0], cy, ly.shape[0])
    hx = _marginal_entropy(np.asarray(table.sum(axis=1)).ravel() / n)
    hy = _marginal_entropy(np.asarray(table.sum(axis=0)).ravel() / n)
    return _nmi(_mi_counts(table), hx, hy, avg)


# ---------------------------------------------------------------------------------------------------
# divergences


def _two_vectors(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    pn = _distribution(p, "p", ndim=1)
    qn = _distribution(q, "q", ndim=1)
    if pn.shape != qn.shape:
        raise ValueError(f"p and q must have the same shape; got {pn.shape} and {qn.shape}")
    return pn, qn


def kl_divergence(p: Any, q: Any) -> float:
    """Kullback-Leibler divergence ``D(p || q)`` in bits.

    Parameters
    ----------
    p, q : array_like, shape (k,)
        Probabilities or counts over the same alphabet; each normalized internally.

    Returns
    -------
    float
        ``sum_i p_i log2(p_i / q_i)`` over ``p_i > 0``; ``+inf`` when ``p`` puts mass where ``q``
        has none (``p_i > 0 = q_i``). Clipped at 0 to remove rounding.

    Raises
    ------
    TypeError
        If ``p`` or ``q`` is not real numeric.
    ValueError
        If ``p`` or ``q`` is not 1-D, is empty, has a negative or non-finite entry, or has zero
        total mass, or if ``p`` and ``q`` differ in length.

    Examples
    --------
    >>> round(kl_divergence([0.5, 0.5], [0.25, 0.75]), 4)
    0.2075
    >>> kl_divergence([1, 1], [1, 0])  # p puts mass where q has none
    inf
    >>> kl_divergence([1, 3], [2, 6])  # counts are normalized: the same distribution
    0.0
    """
    pn, qn = _two_vectors(p, q)
    # scipy.stats.entropy(p, q, base=2); rel_entr(p_i, 0) = inf for p_i > 0
    return _nonneg(np.sum(rel_entr(pn, qn)) / _LN2)


def js_divergence(p: Any, q: Any) -> float:
    """Jensen-Shannon divergence in bits.

    Parameters
    ----------
    p, q : array_like, shape (k,)
        Probabilities or counts over the same alphabet; each normalized internally.

    Returns
    -------
    float
        ``JS(p, q) = D(p || m) / 2 + D(q || m) / 2`` with ``m = (p + q) / 2``, in ``[0, 1]``. This is
        the divergence, i.e. the square of ``scipy.spatial.distance.jensenshannon(p, q, base=2)``.

    Raises
    ------
    TypeError
        If ``p`` or ``q`` is not real numeric.
    ValueError
        If ``p`` or ``q`` is not 1-D, is empty, has a negative or non-finite entry, or has zero
        total mass, or if ``p`` and ``q`` differ in length.

    Examples
    --------
    >>> js_divergence([1, 0], [0, 1])  # disjoint supports: the maximum
    1.0
    >>> round(js_divergence([0.5, 0.5], [0.25, 0.75]), 4)
    0.0488
    """
    pn, qn = _two_vectors(p, q)
    # rel_entr(d, m) = rel_entr(d, p + q) + d ln 2 with m = (p + q) / 2, which can underflow to 0
    # for subnormal p, q (scipy.spatial.distance.jensenshannon builds m and turns that into inf)
    total = pn + qn
    terms = (rel_entr(pn, total) + rel_entr(qn, total)) / _LN2 + total
    return _unit(0.5 * np.sum(terms))


def _row_distributions(x: Any, name: str) -> np.ndarray:
    arr = _as_real_array(x, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (one distribution per row); got {_shape_text(arr)}")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one column; got shape {arr.shape}")
    _check_entries(arr, name)
    totals = arr.sum(axis=1)
    empty = ~(totals > 0)
    if empty.any():
        row = int(np.flatnonzero(empty)[0])
        raise ValueError(
            f"{name} row {row} has zero total mass; every row needs at least one positive entry"
        )
    return arr / totals[:, None]


def pairwise_js_divergence(P: Any, Q: Any = None, *, chunk_rows: int | None = None) -> np.ndarray:
    """Jensen-Shannon divergences (bits) between all rows of ``P`` and all rows of ``Q``.

    Parameters
    ----------
    P : array_like, shape (n, k)
        One distribution (probabilities or counts) per row; rows normalized internally.
    Q : array_like, shape (m, k), optional
        Second set of rows; if omitted, ``Q = P``.
    chunk_rows : int, optional
        Rows of ``P`` processed per block. The default bounds each block to about 2**20 float64
        elements (``chunk_rows * m * k``), i.e. a few tens of MiB of temporaries.

    Returns
    -------
    numpy.ndarray, shape (n, m)
        ``D[i, j] = js_divergence(P[i], Q[j])``, in ``[0, 1]``. When ``Q`` is omitted the matrix is
        exactly symmetric with a zero diagonal.

    Raises
    ------
    TypeError
        If ``P`` or ``Q`` is not real numeric, or ``chunk_rows`` is not an int.
    ValueError
        If ``P`` or ``Q`` is not 2-D, has no column, has a negative or non-finite entry or a row of
        zero total mass; if ``P`` and ``Q`` differ in their number of columns; if ``chunk_rows`` is
        not positive.

    Notes
    -----
    Uses ``JS(p, q) = H((p + q)/2) - (H(p) + H(q))/2``, vectorized over blocks of rows.

    Examples
    --------
    >>> P = [[1, 0], [0, 1], [1, 1]]
    >>> pairwise_js_divergence(P).round(3)
    array([[0.   , 1.   , 0.311],
           [1.   , 0.   , 0.311],
           [0.311, 0.311, 0.   ]])
    >>> D = pairwise_js_divergence(P, [[1, 0]], chunk_rows=1)
    >>> D.shape, round(float(D[2, 0]), 4) == round(js_divergence([1, 1], [1, 0]), 4)
    ((3, 1), True)
    """
    pn = _row_distributions(P, "P")
    symmetric = Q is None
    qn = pn if symmetric else _row_distributions(Q, "Q")
    if qn.shape[1] != pn.shape[1]:
        raise ValueError(
            f"P and Q must have the same number of columns; got {pn.shape[1]} and {qn.shape[1]}"
        )
    n, k = pn.shape
    m = qn.shape[0]
    if chunk_rows is None:
        chunk = max(1, _PAIRWISE_BLOCK // max(1, m * k))
    elif isinstance(chunk_rows, bool) or not isinstance(chunk_rows, int | np.integer):
        raise TypeError(f"chunk_rows must be a positive int or None; got {chunk_rows!r}")
    elif chunk_rows < 1:
        raise ValueError(f"chunk_rows must be a positive int or None; got {chunk_rows!r}")
    else:
        chunk = int(chunk_rows)
    hp = _entropy_normalized(pn, axis=1)
    hq = hp if symmetric else _entropy_normalized(qn, axis=1)
    out = np.empty((n, m), dtype=np.float64)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        mix = 0.5 * (pn[start:stop, None, :] + qn[None, :, :])
        hm = _entropy_normalized(mix, axis=2)
        out[start:stop] = hm - 0.5 * (hp[start:stop, None] + hq[None, :])
    np.clip(out, 0.0, 1.0, out=out)
    if symmetric:
        np.fill_diagonal(out, 0.0)
    return out


# ---------------------------------------------------------------------------------------------------
# leakage of a randomized mapping


def _check_p_ab(p_ab: Any) -> np.ndarray:
    arr = _as_real_array(p_ab, "p_ab")
    if arr.ndim != 2:
        raise ValueError(f"p_ab must be 2-D with shape (|A|, |B|); got {_shape_text(arr)}")
    if arr.size == 0:
        raise ValueError(f"p_ab must not be empty; got shape {arr.shape}")
    _check_entries(arr, "p_ab")
    total = float(arr.sum())
    if abs(total - 1.0) > P_AB_ATOL:
        raise ValueError(
            f"p_ab must be a joint distribution summing to 1 (within {P_AB_ATOL:g}); "
            f"got sum {total!r}"
        )
    # remove the (at most 1e-9) rounding so that p(a) and p(a, b^) are consistent
    return arr / total


def _check_mapping(mapping: Any, n_b: int, atol: float):
    """Validate a row-stochastic mapping; sparse input stays sparse (CSC), dense becomes float64."""
    if isinstance(atol, bool) or not isinstance(atol, int | float | np.floating | np.integer):
        raise TypeError(f"atol must be a non-negative float; got {atol!r}")
    if not atol >= 0:
        raise ValueError(f"atol must be a non-negative float; got {atol!r}")
    if sp.issparse(mapping):
        if (
            not (
                np.issubdtype(mapping.dtype, np.integer)
                or np.issubdtype(mapping.dtype, np.floating)
            )
            or mapping.dtype == np.bool_
        ):
            raise TypeError(
                f"mapping must hold real numbers (integer or float dtype); got dtype {mapping.dtype}"
            )
        m = sp.csc_array(mapping, dtype=np.float64)
        m.sum_duplicates()
        data = m.data
        if not np.isfinite(data).all():
            bad = data[~np.isfinite(data)][0]
            raise ValueError(
                f"mapping has a non-finite entry {float(bad)!r}; entries must be finite"
            )
        if (data < 0).any():
            bad = data[data < 0][0]
            raise ValueError(f"mapping has a negative entry {float(bad)!r}; entries must be >= 0")
        row_sums = np.asarray(m.sum(axis=1)).ravel()
    else:
        m = _as_real_array(mapping, "mapping")
        if m.ndim != 2:
            raise ValueError(f"mapping must be 2-D with shape (|B|, |B^|); got {_shape_text(m)}")
        _check_entries(m, "mapping")
        row_sums = m.sum(axis=1)
    if m.shape[0] != n_b or m.shape[1] == 0:
        raise ValueError(
            f"mapping must have shape (|B|, |B^|) = ({n_b}, k>=1) to match p_ab; got {m.shape}"
        )
    off = np.abs(row_sums - 1.0)
    if (off > atol).any():
        row = int(np.argmax(off))
        raise ValueError(
            f"mapping rows must be distributions p(b^|b) summing to 1 (within atol={atol:g}); "
            f"row {row} sums to {float(row_sums[row])!r}"
        )
    return m


def _columns(columns: Any, n_cols: int) -> np.ndarray | None:
    if columns is None:
        return None
    if isinstance(columns, slice):
        return np.arange(n_cols)[columns]
    cols = np.asarray(columns)
    if cols.size == 0 and cols.ndim == 1:
        return np.empty(0, dtype=np.intp)
    if cols.dtype == np.bool_ or not np.issubdtype(cols.dtype, np.integer):
        raise TypeError(
            f"columns must be a slice or 1-D integer indices of mapping columns; "
            f"got dtype {cols.dtype}"
        )
    if cols.ndim != 1:
        raise ValueError(f"columns must be 1-D; got {_shape_text(cols)}")
    if cols.size and (cols.min() < 0 or cols.max() >= n_cols):
        raise ValueError(
            f"columns must be indices in [0, {n_cols}); got values from {cols.min()} to {cols.max()}"
        )
    return cols.astype(np.intp, copy=False)


def _joint_out(p: np.ndarray, m, cols: np.ndarray | None) -> np.ndarray:
    """``p(a, b^) = sum_b p(a, b) p(b^|b)`` for the selected columns, shape (|A|, len(cols))."""
    if cols is not None:
        m = m[:, cols]
    if sp.issparse(m):
        return np.asarray(m.T @ p.T).T
    return p @ m


def leakage(p_ab: Any, mapping: Any, *, atol: float = MAPPING_ATOL) -> float:
    """Privacy leakage ``I(A; B^)`` in bits of a randomized mapping ``p(b^|b)``.

    The private variable ``A`` and the public variable ``B`` have joint distribution ``p_ab``; the
    published ``B^`` is drawn from ``p(b^|b)`` (the Markov chain ``A -> B -> B^``). This is SPPM
    Eq. (1)/(3) and the quantity computed by HyObscure's Theorem 1::

        p(a, b^) = sum_b p(a, b) p(b^|b)
        I(A; B^) = sum_{a, b^} p(a, b^) log2( p(a, b^) / (p(a) p(b^)) )

    with ``p(a) = sum_b p(a, b)`` and ``p(b^) = sum_a p(a, b^)``; cells with ``p(a, b^) = 0``
    contribute 0.

    Parameters
    ----------
    p_ab : array_like, shape (|A|, |B|)
        Joint distribution of ``(A, B)``; must sum to 1 within 1e-9 (not counts).
    mapping : array_like or scipy.sparse matrix/array, shape (|B|, |B^|)
        Row-stochastic matrix of ``p(b^|b)``. Sparse input is kept sparse (never densified).
    atol : float, default 1e-6
        Tolerance on each row sum of ``mapping``.

    Returns
    -------
    float
        ``I(A; B^)``, clipped at 0 to remove rounding. By data processing it is at most
        ``mutual_information(p_ab)``, with equality for the identity mapping, and 0 for a
        constant mapping (all rows equal).

    Raises
    ------
    TypeError
        If ``p_ab`` or ``mapping`` is not real numeric, or ``atol`` is not a number.
    ValueError
        If ``p_ab`` is not a 2-D joint distribution summing to 1 (within 1e-9) with finite,
        non-negative entries; if ``mapping`` does not have ``|B|`` rows and at least one column, has
        a negative or non-finite entry, or has a row not summing to 1 within ``atol``; if ``atol``
        is negative.

    Examples
    --------
    Randomized response on a bit ``B`` that agrees with the private bit ``A`` three times in four:

    >>> import numpy as np
    >>> p_ab = np.array([[0.375, 0.125], [0.125, 0.375]])
    >>> round(mutual_information(p_ab), 4)
    0.1887
    >>> round(leakage(p_ab, np.eye(2)), 4)  # publishing B itself leaks all of I(A; B)
    0.1887
    >>> rr = np.array([[0.75, 0.25], [0.25, 0.75]])  # keep B with probability 3/4
    >>> round(leakage(p_ab, rr), 4)
    0.0456
    >>> leakage(p_ab, [[0.5, 0.5], [0.5, 0.5]])  # a constant mapping leaks nothing
    0.0
    """
    p = _check_p_ab(p_ab)
    m = _check_mapping(mapping, p.shape[1], atol)
    joint = _joint_out(p, m, None)
    pa = p.sum(axis=1)
    pb_hat = joint.sum(axis=0)
    rows, cols = np.nonzero(joint)
    vals = joint[rows, cols]
    return _nonneg(np.sum(vals * (np.log2(vals) - np.log2(pa[rows]) - np.log2(pb_hat[cols]))))


def _log_ratio(joint: np.ndarray, pa: np.ndarray, floor: float | None) -> np.ndarray:
    """``log2(p(a,b^) / (p(a) p(b^)))``; NaN where p(a) = 0 or p(b^) = 0, -inf where p(a,b^) = 0."""
    pb_hat = joint.sum(axis=0)
    num = joint if floor is None else np.maximum(joint, floor)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log2(num) - np.log2(pa)[:, None]
        out -= np.log2(pb_hat)[None, :]
    out[~(pa > 0), :] = np.nan
    out[:, ~(pb_hat > 0)] = np.nan
    return out


def leakage_log_ratio(
    p_ab: Any, mapping: Any, columns: Any = None, *, atol: float = MAPPING_ATOL
) -> np.ndarray:
    """Pointwise leakage ``L[a, b^] = log2( p(a, b^) / (p(a) p(b^)) )``.

    Parameters
    ----------
    p_ab : array_like, shape (|A|, |B|)
        Joint distribution of ``(A, B)``; must sum to 1 within 1e-9.
    mapping : array_like or scipy.sparse matrix/array, shape (|B|, |B^|)
        Row-stochastic matrix of ``p(b^|b)``; kept sparse if sparse.
    columns : slice or array_like of int, optional
        Only these ``b^`` columns (for chunked computation over huge alphabets).
    atol : float, default 1e-6
        Tolerance on each row sum of ``mapping``.

    Returns
    -------
    numpy.ndarray, shape (|A|, |B^|) or (|A|, len(columns))
        ``p(a, b^) = sum_b p(a, b) p(b^|b)``. Zero conventions:

        - ``NaN`` in a column ``b^`` with ``p(b^) = 0`` (unused output: no single value; see
          :func:`leakage_gradient` for its limit) and in a row ``a`` with ``p(a) = 0``;
        - ``-inf`` where ``p(a, b^) = 0`` but ``p(a) > 0`` and ``p(b^) > 0``.

        ``leakage = sum p(a, b^) L[a, b^]`` over cells with ``p(a, b^) > 0``.

    Raises
    ------
    TypeError
        If ``p_ab`` or ``mapping`` is not real numeric, or ``atol`` is not a number, or ``columns``
        is not a slice or integer indices.
    ValueError
        If ``p_ab`` is not a 2-D joint distribution summing to 1 (within 1e-9) with finite,
        non-negative entries; if ``mapping`` does not have ``|B|`` rows and at least one column, has
        a negative or non-finite entry, or has a row not summing to 1 within ``atol``; if ``atol``
        is negative; if ``columns`` is not 1-D or holds an index outside ``[0, |B^|)``.

    Examples
    --------
    >>> import numpy as np
    >>> p_ab = np.array([[0.375, 0.125], [0.125, 0.375]])
    >>> rr = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> L = leakage_log_ratio(p_ab, rr)
    >>> L.round(3)
    array([[ 0.322, -0.415],
           [-0.415,  0.322]])
    >>> round(float(np.sum(p_ab @ rr * L)), 4) == round(leakage(p_ab, rr), 4)
    True
    >>> leakage_log_ratio(p_ab, rr, columns=[1]).shape
    (2, 1)
    >>> leakage_log_ratio([[0.5, 0.0], [0.0, 0.5]], np.eye(2))  # a zero cell of p(a, b^)
    array([[  1., -inf],
           [-inf,   1.]])
    """
    p = _check_p_ab(p_ab)
    m = _check_mapping(mapping, p.shape[1], atol)
    cols = _columns(columns, m.shape[1])
    return _log_ratio(_joint_out(p, m, cols), p.sum(axis=1), None)


def leakage_gradient(
    p_ab: Any,
    mapping: Any,
    columns: Any = None,
    *,
    floor: float | None = None,
    atol: float = MAPPING_ATOL,
) -> np.ndarray:
    """Gradient of the leakage ``I(A; B^)`` with respect to the mapping entries ``p(b^|b)``.

    Treating ``I`` (see :func:`leakage`) as a function of the unconstrained entries
    ``m[b, b^] = p(b^|b)`` with ``p(a)`` fixed by ``p_ab``::

        dI / dm[b, b^] = sum_a p(a, b) L[a, b^],   L = leakage_log_ratio(p_ab, mapping)

    (the ``+1/ln 2`` terms of the derivative cancel because ``sum_a p(a, b^) = p(b^)``). On the
    simplex of row-stochastic mappings only differences within a row matter.

    Parameters
    ----------
    p_ab : array_like, shape (|A|, |B|)
        Joint distribution of ``(A, B)``; must sum to 1 within 1e-9.
    mapping : array_like or scipy.sparse matrix/array, shape (|B|, |B^|)
        Row-stochastic matrix of ``p(b^|b)``; kept sparse if sparse.
    columns : slice or array_like of int, optional
        Only these ``b^`` columns: the result is then ``full[:, columns]``, so callers with huge
        output alphabets can compute the gradient in chunks of columns.
    floor : float, optional
        Positive floor for ``p(a, b^)`` inside the log ratio (see zero conventions). ``None``
        (default) returns the exact derivative, including ``-inf``.
    atol : float, default 1e-6
        Tolerance on each row sum of ``mapping``.

    Returns
    -------
    numpy.ndarray, shape (|B|, |B^|) or (|B|, len(columns))
        Dense gradient.

    Raises
    ------
    TypeError
        If ``p_ab`` or ``mapping`` is not real numeric, or ``atol`` is not a number, or ``columns``
        is not a slice or integer indices, or ``floor`` is not a number.
    ValueError
        If ``p_ab`` is not a 2-D joint distribution summing to 1 (within 1e-9) with finite,
        non-negative entries; if ``mapping`` does not have ``|B|`` rows and at least one column, has
        a negative or non-finite entry, or has a row not summing to 1 within ``atol``; if ``atol``
        is negative; if ``columns`` is not 1-D or holds an index outside ``[0, |B^|)``; if ``floor``
        is not positive and finite.

    Notes
    -----
    Zero conventions:

    - Terms with ``p(a, b) = 0`` contribute 0 (whatever ``L[a, b^]`` is).
    - Unused output column (``p(b^) = 0``): the derivative is not defined there; the value is the
      directional limit of moving mass into that fresh symbol,
      ``sum_a p(a, b) log2(p(a|b) / p(a))``, which is 0 for rows with ``p(b) = 0``. It equals the
      one-sided finite difference ``(I(m + eps e_{b,b^}) - I(m)) / eps`` exactly.
    - Where ``p(a, b^) = 0`` but ``p(a, b) > 0`` (and ``p(b^) > 0``) the true derivative is
      ``-inf`` (adding mass to a zero cell of ``p(a, b^)`` has infinite slope); ``-inf`` is returned
      there by default. With ``floor`` set, ``L`` is evaluated with ``p(a, b^)`` replaced by
      ``max(p(a, b^), floor)`` in every cell, which gives finite costs for callers such as
      Frank-Wolfe linear programs.

    Examples
    --------
    >>> import numpy as np
    >>> p_ab = np.array([[0.375, 0.125], [0.125, 0.375]])
    >>> rr = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> leakage_gradient(p_ab, rr).round(3)
    array([[ 0.069, -0.115],
           [-0.115,  0.069]])

    Moving mass from ``p(1|0)`` to ``p(0|0)`` raises the leakage at the rate of the difference of
    the row's two entries, as a finite difference confirms:

    >>> eps = 1e-6
    >>> shifted = rr + [[eps, -eps], [0, 0]]
    >>> round((leakage(p_ab, shifted) - leakage(p_ab, rr)) / eps, 3)
    0.184

    A zero cell of ``p(a, b^)`` gives ``-inf``, unless ``floor`` bounds the log ratio:

    >>> p_ab = np.array([[0.5, 0.0], [0.0, 0.5]])
    >>> leakage_gradient(p_ab, np.eye(2))
    array([[ 0.5, -inf],
           [-inf,  0.5]])
    >>> leakage_gradient(p_ab, np.eye(2), floor=1e-6).round(3)
    array([[ 0.5  , -8.966],
           [-8.966,  0.5  ]])
    """
    if floor is not None:
        if isinstance(floor, bool) or not isinstance(floor, int | float | np.integer | np.floating):
            raise TypeError(f"floor must be None or a positive float; got {floor!r}")
        if not (np.isfinite(floor) and floor > 0):
            raise ValueError(f"floor must be None or a positive finite float; got {floor!r}")
        floor = float(floor)
    p = _check_p_ab(p_ab)
    m = _check_mapping(mapping, p.shape[1], atol)
    cols = _columns(columns, m.shape[1])
    joint = _joint_out(p, m, cols)
    pa = p.sum(axis=1)
    pb_hat = joint.sum(axis=0)
    ratio = _log_ratio(joint, pa, floor)
    finite = np.where(np.isfinite(ratio), ratio, 0.0)
    grad = p.T @ finite
    if floor is None:
        zero_cell = (joint == 0) & (pa[:, None] > 0) & (pb_hat[None, :] > 0)
        if zero_cell.any():
            hits = (p.T > 0).astype(np.float64) @ zero_cell.astype(np.float64)
            grad[hits > 0] = -np.inf
    unused = ~(pb_hat > 0)
    if unused.any():
        pb = p.sum(axis=0)
        rows, bs = np.nonzero(p)
        vals = p[rows, bs]
        terms = vals * (np.log2(vals) - np.log2(pa[rows]) - np.log2(pb[bs]))
        fresh = np.bincount(bs, weights=terms, minlength=p.shape[1])
        grad[:, unused] = fresh[:, None]
    return grad
