"""MST, a differentially private synthesizer of categorical tables.

McKenna, Miklau and Sheldon, "Winning the NIST Contest: A scalable and general approach to
differentially private synthetic data", Journal of Privacy and Confidentiality 11(3), 2021
(doi:10.29012/jpc.778, arXiv:2108.04978): the MST mechanism, the paper's general-purpose instance
of its select-measure-generate approach. With the privacy budget turned into ``rho``-zCDP and split
in three equal parts, it

1. **measures** every one-way marginal with the Gaussian mechanism (``rho / 3``);
2. **compresses** each attribute's domain: values whose noisy count is below three times the noise
   scale are merged into one "rare" value (post-processing of step 1);
3. **selects** a maximum spanning tree of two-way marginals with ``d - 1`` rounds of the
   exponential mechanism (``rho / 3``), scoring a candidate pair by the L1 distance between its
   marginal in the data and in the model estimated from step 1 (Kruskal's algorithm with a private
   choice of each edge);
4. **measures** the ``d - 1`` selected two-way marginals with the Gaussian mechanism (``rho / 3``);
5. **generates**: Private-PGM (the ``mbi`` package) estimates a graphical model over the measured
   cliques, and synthetic rows are drawn from it; a "rare" value is replaced by one of the original
   values it merged, uniformly.

Accounting (zero-concentrated DP, Bun and Steinke 2016; neighbouring tables differ by adding or
removing one row). A marginal (a vector of counts) has L2 sensitivity 1, so the Gaussian mechanism
with standard deviation ``sigma`` per cell is ``1 / (2 sigma^2)``-zCDP. ``k`` marginals measured
with equal weight each get ``sigma = sqrt(3 / (2 rho)) * sqrt(k)``, so the step costs
``k / (2 sigma^2) = rho / 3``. The exponential mechanism with score sensitivity 1 and privacy
parameter ``eps_i`` (selection probability proportional to ``exp(eps_i * score / 2)``) is
``eps_i``-DP and hence ``eps_i^2 / 8``-zCDP (Cesar and Rogers 2021, bounded range); with
``eps_i = sqrt(8 (rho / 3) / (d - 1))`` the ``d - 1`` rounds cost ``rho / 3``. zCDP composes by
addition, and :func:`cdp_rho` picks the largest ``rho`` whose zCDP implies ``(epsilon, delta)``-DP
by the conversion of Canonne, Kamath and Steinke ("The Discrete Gaussian for Differential
Privacy", NeurIPS 2020, Section 2.3).

What is private. Under add/remove-one-row neighbours the measurements, the selections and the
number of rows estimated from them are private, and a release is post-processing of them, if two
other inputs do not depend on the rows: the attribute **domains** (give them in ``domains`` from
public knowledge of the schema; the default ``domains=None`` takes the observed values, so a value
one person holds is in the domain only if that person is in the table: not private), and the
**number of released rows**: by default the model's total (the inverse-variance weighted mean of
the noisy marginals' sums, at least 1), rounded; the true ``n`` is never stored. Private-PGM's
reference MST does the same: ``est.synthetic_data()`` draws ``max(1, int(model.total))`` rows
(truncated rather than rounded). An explicit ``n_rows`` is the caller's knowledge, private only if
it does not depend on the table.

All randomness (measurement noise, selection, sampling and the undoing of the compression) comes
from one :class:`numpy.random.Generator`; the estimation is deterministic, so the same seed gives the
same table on the same machine. ``mbi`` (Private-PGM on JAX, run on the CPU in single precision,
JAX's default) is imported on first use.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import warnings
from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ppdp._validation import Interval, check_params, validate_hyperparameters
from ppdp.base import Mechanism, check_fitted, check_frame, check_random_state
from ppdp.guarantees import CHECK_TOL, GuaranteeCheck, enforce

__all__ = ["MST", "cdp_delta", "cdp_epsilon", "cdp_rho"]

#: The module's logger (silent unless the application configures ``ppdp``'s).
logger = logging.getLogger(__name__)

_NONNEGATIVE = [Interval(Real, 0, None, closed="left")]
_POSITIVE = [Interval(Real, 0, None, closed="neither")]
_PROBABILITY = [Interval(Real, 0, 1, closed="neither")]

#: Noisy counts below this many standard deviations are merged into the "rare" value.
_RARE_SIGMAS = 3.0


# -- zCDP to (epsilon, delta)-DP --------------------------------------------------------------------


def _bisect(predicate, lo: float, hi: float) -> tuple[float, float]:
    """Shrink ``[lo, hi]`` (``predicate(lo)`` false, ``predicate(hi)`` true) to adjacent floats."""
    while True:
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            return lo, hi
        if predicate(mid):
            hi = mid
        else:
            lo = mid


def cdp_delta(rho: float, epsilon: float) -> float:
    """Smallest ``delta`` such that ``rho``-zCDP implies ``(epsilon, delta)``-DP.

    Canonne, Kamath and Steinke (2020), Section 2.3: ``rho``-zCDP implies
    ``(epsilon, delta)``-DP with

    ``delta = inf_{alpha > 1} exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1)
    * (1 - 1/alpha)^alpha``,

    tighter than the classical ``exp(-(epsilon - rho)^2 / (4 rho))``. The logarithm of the
    bracketed expression has derivative ``(2 alpha - 1) rho - epsilon + log(1 - 1/alpha)`` in
    ``alpha``, increasing from ``-inf`` at ``alpha = 1``; its root, found by bisection, is the
    minimizer. The bound holds at every ``alpha > 1``, so a rounded minimizer still gives a valid
    ``delta``.

    Parameters
    ----------
    rho : float >= 0
        zCDP parameter.
    epsilon : float >= 0

    Returns
    -------
    float
        ``delta`` in ``[0, 1]``; 0 when ``rho == 0``.

    Raises
    ------
    ValueError
        When ``rho`` or ``epsilon`` is negative.

    Examples
    --------
    >>> import math
    >>> from ppdp.mechanisms.mst import cdp_delta
    >>> delta = cdp_delta(0.1, 1.0)
    >>> round(delta, 5)
    0.00893
    >>> delta < math.exp(-((1.0 - 0.1) ** 2) / (4 * 0.1))  # tighter than the classical bound
    True
    """
    check_params(
        {"rho": rho, "epsilon": epsilon},
        {"rho": _NONNEGATIVE, "epsilon": _NONNEGATIVE},
        "cdp_delta",
    )
    rho, epsilon = float(rho), float(epsilon)
    if rho == 0.0:
        return 0.0

    def past_minimum(alpha: float) -> bool:
        return (2.0 * alpha - 1.0) * rho - epsilon + math.log1p(-1.0 / alpha) >= 0.0

    # at this alpha the derivative is > (epsilon + 1) + 3 rho - epsilon - log(2) > 0
    _, alpha = _bisect(past_minimum, 1.0, (epsilon + 1.0) / (2.0 * rho) + 2.0)
    log_delta = (
        (alpha - 1.0) * (alpha * rho - epsilon)
        + alpha * math.log1p(-1.0 / alpha)
        - math.log(alpha - 1.0)
    )
    return 1.0 if log_delta >= 0.0 else math.exp(log_delta)


def cdp_rho(epsilon: float, delta: float) -> float:
    """Largest ``rho`` such that ``rho``-zCDP implies ``(epsilon, delta)``-DP.

    Bisection on ``rho`` with :func:`cdp_delta` (increasing in ``rho``) down to adjacent floats;
    the returned value satisfies ``cdp_delta(rho, epsilon) <= delta``. This is how MST turns its
    ``(epsilon, delta)`` budget into the ``rho`` it spends.

    Parameters
    ----------
    epsilon : float > 0
    delta : float in (0, 1)

    Returns
    -------
    float
        ``rho > 0``.

    Raises
    ------
    ValueError
        When ``epsilon`` is not positive or ``delta`` is not in (0, 1).

    Examples
    --------
    The zCDP budget of MST at ``epsilon = 1`` and its default ``delta``:

    >>> from ppdp.mechanisms.mst import cdp_delta, cdp_rho
    >>> rho = cdp_rho(1.0, 1e-9)
    >>> round(rho, 5)
    0.01497
    >>> cdp_delta(rho, 1.0) <= 1e-9
    True
    """
    check_params(
        {"epsilon": epsilon, "delta": delta},
        {"epsilon": _POSITIVE, "delta": _PROBABILITY},
        "cdp_rho",
    )
    epsilon, delta = float(epsilon), float(delta)

    def too_large(rho: float) -> bool:
        return cdp_delta(rho, epsilon) > delta

    hi = epsilon + 1.0
    while not too_large(hi):
        hi *= 2.0
    rho, _ = _bisect(too_large, 0.0, hi)
    return rho


def cdp_epsilon(rho: float, delta: float) -> float:
    """Smallest ``epsilon`` such that ``rho``-zCDP implies ``(epsilon, delta)``-DP.

    Bisection on ``epsilon`` with :func:`cdp_delta` (decreasing in ``epsilon``), started from the
    classical bound ``rho + 2 sqrt(rho log(1/delta))``; the returned value satisfies
    ``cdp_delta(rho, epsilon) <= delta``. The inverse of :func:`cdp_rho` in ``rho``.

    Parameters
    ----------
    rho : float >= 0
    delta : float in (0, 1)

    Returns
    -------
    float
        ``epsilon >= 0``; 0 when ``rho == 0``.

    Raises
    ------
    ValueError
        When ``rho`` is negative or ``delta`` is not in (0, 1).

    Examples
    --------
    >>> from ppdp.mechanisms.mst import cdp_epsilon, cdp_rho
    >>> round(cdp_epsilon(0.1, 1e-6), 3)
    2.142
    >>> round(cdp_epsilon(cdp_rho(1.0, 1e-9), 1e-9), 6)  # the inverse of cdp_rho
    1.0
    """
    check_params(
        {"rho": rho, "delta": delta},
        {"rho": _NONNEGATIVE, "delta": _PROBABILITY},
        "cdp_epsilon",
    )
    rho, delta = float(rho), float(delta)
    if rho == 0.0:
        return 0.0

    def enough(epsilon: float) -> bool:
        return cdp_delta(rho, epsilon) <= delta

    hi = rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))
    while not enough(hi):
        hi *= 2.0
    _, epsilon = _bisect(enough, 0.0, hi)
    return epsilon


# -- Private-PGM (mbi) -----------------------------------------------------------------------------


@functools.cache
def _mbi():
    """The ``mbi`` package, imported on first use.

    Its import warns that JAX runs in single precision (a concern for tables of more than about
    100,000 rows) and, when enabled, about JAX's persistent compilation cache; both are silenced
    for the import only, and no JAX setting is changed.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="JAX is running in float32", category=UserWarning)
        warnings.filterwarnings(
            "ignore", message="JAX persistent compilation", category=UserWarning
        )
        import mbi
        import mbi.estimation
        import mbi.marginal_loss
    return mbi


@functools.cache
def _estimate_fn():
    """Private-PGM's mirror descent (Armijo steps) as one compiled program.

    ``MirrorDescent.estimate`` compiles its initialization eagerly, operation by operation, and
    its iterations in blocks of 50; on one CPU core that costs several seconds of compilation per
    model structure. Tracing the estimator's own ``_init``, ``_step`` (``iters`` times, in a
    ``fori_loop``) and ``_finalize`` under one ``jax.jit`` runs the same algorithm, with the same
    result, from a single compilation.
    """
    import jax

    def run(loss, total, domain, iters, estimator):
        state = estimator._init(domain, loss, total)
        state = jax.lax.fori_loop(0, iters, lambda _, s: estimator._step(s, loss, total), state)
        return estimator._finalize(state, total)

    return jax.jit(run, static_argnames=("domain", "iters", "estimator"))


@dataclasses.dataclass(frozen=True)
class _MergedQuery:
    """Query of a compressed one-way marginal: its counts, the last ("rare") one scaled.

    The rare value's noisy count is the sum of ``m`` noisy counts, with variance ``m sigma^2``;
    dividing it and its query by ``sqrt(m)`` gives every entry the standard deviation ``sigma``
    of the measurement. Hashable by value, so that equal structures share a compiled program.
    """

    weights: tuple[float, ...]

    def __call__(self, factor):
        import jax.numpy as jnp

        return factor.datavector() * jnp.asarray(self.weights)

    def op_norm_sq(self) -> float:
        return float(max(w * w for w in self.weights))


# -- helpers ----------------------------------------------------------------------------------------


def _simplex_projection(z: np.ndarray, w2: np.ndarray, total: float) -> np.ndarray:
    """``argmin sum_i w2_i (mu_i - z_i)^2`` over ``mu >= 0`` with ``sum(mu) = total``.

    The KKT conditions give ``mu_i = max(0, z_i - lam / w2_i)`` with ``lam`` set so that the sum is
    ``total``; the sum decreases in ``lam``, which bisection finds.
    """

    def mass(lam: float) -> float:
        return float(np.maximum(z - lam / w2, 0.0).sum())

    # all terms >= total at lo, all <= 0 at hi
    lo, hi = float(np.min(w2 * (z - total))), float(np.max(w2 * z))
    lo, hi = _bisect(lambda lam: mass(lam) <= total, lo, hi)
    mu = np.maximum(z - hi / w2, 0.0)
    s = mu.sum()
    return mu * (total / s) if s > 0 else np.full(z.size, total / z.size)


class _Components:
    """Union-find over the attributes, for the spanning tree."""

    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, i: int, j: int) -> None:
        self.parent[self.find(i)] = self.find(j)


def _check_domains(domains, columns: list) -> dict:
    """``domains`` as column -> pandas Index of unique, non-missing values."""
    if not isinstance(domains, Mapping):
        raise TypeError(f"domains must be a mapping column -> values, got {type(domains).__name__}")
    missing = [c for c in columns if c not in domains]
    if missing:
        raise ValueError(f"domains gives no values for the columns {missing}")
    extra = [c for c in domains if c not in set(columns)]
    if extra:
        raise ValueError(f"domains names columns {extra} that are not in the table {columns}")
    out = {}
    for col in columns:
        values = domains[col]
        if isinstance(values, str | bytes) or not hasattr(values, "__iter__"):
            raise TypeError(
                f"domains[{col!r}] must be a list of values, got {type(values).__name__}"
            )
        index = pd.Index(list(values), dtype=object)
        if len(index) == 0:
            raise ValueError(f"domains[{col!r}] is empty; a domain needs at least one value")
        if index.hasnans:
            raise ValueError(f"domains[{col!r}] holds a missing value; values must be non-missing")
        if not index.is_unique:
            repeated = list(index[index.duplicated()].unique()[:5])
            raise ValueError(f"domains[{col!r}] repeats the values {repeated}")
        out[col] = index
    return out


def _observed_domain(series: pd.Series, col) -> pd.Index:
    """The distinct values of a column, sorted (a categorical column: in category order)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        present = set(series.cat.codes[series.cat.codes >= 0].unique())
        return pd.Index(
            [v for i, v in enumerate(series.cat.categories) if i in present], dtype=object
        )
    values = pd.unique(series.to_numpy())
    try:
        return pd.Index(np.sort(values), dtype=object)
    except TypeError:
        raise TypeError(
            f"column {col!r} mixes values that cannot be sorted; give its domain in `domains`"
        ) from None


def _typed_values(domain: pd.Index, series: pd.Series, col) -> pd.Series:
    """The domain's values in the column's dtype (what a release writes)."""
    try:
        typed = pd.Series(list(domain), dtype=object).astype(series.dtype)
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"domains[{col!r}] holds values that column {col!r} (dtype {series.dtype}) cannot "
            f"hold: {err}"
        ) from None
    same = [not pd.isna(t) and t == v for t, v in zip(typed.tolist(), domain, strict=True)]
    if not all(same):
        bad = [v for v, ok in zip(domain, same, strict=True) if not ok][:5]
        raise ValueError(
            f"domains[{col!r}] holds values {bad} that column {col!r} (dtype {series.dtype}) "
            f"cannot hold"
        )
    return typed


class MST(Mechanism):
    """MST synthetic data: noisy one- and two-way marginals on a private maximum spanning tree.

    McKenna, Miklau and Sheldon (2021), the MST mechanism; the module docstring gives its steps
    and accounting. Every column of the fitted table is modelled as a categorical attribute with a
    finite domain.

    Parameters
    ----------
    epsilon : float > 0
        Privacy budget: the fit spends ``rho = cdp_rho(epsilon, delta)``-zCDP, which implies
        ``(epsilon, delta)``-differential privacy (adding or removing one row) for a release whose
        domains are public (``domains``) and whose size is the noisy total (``n_rows=None``).
    delta : float in (0, 1)
    domains : mapping column -> list of values, or None
        The public domain of every column, in order; each fitted value must lie in its column's
        domain. ``None`` takes each column's distinct values in the fitted table, sorted (a
        categorical column: its observed categories in category order), which reveals them: the
        release is then not differentially private.
    n_iters : int >= 1
        Iterations of Private-PGM's mirror descent. The estimation is compiled once per model
        structure, which dominates its time; the iterations themselves are cheap.

    Attributes
    ----------
    columns_ : list of the fitted columns
    domains_ : dict column -> list of values (the domain, in order)
    rho_ : float, the zCDP budget ``cdp_rho(epsilon, delta)``
    zcdp_ : dict step -> zCDP spent by it: ``"one_way"``, ``"selection"``, ``"two_way"`` (each
        ``rho_ / 3``; a one-column table spends all of ``rho_`` on its one-way marginal)
    sigma_ : dict step -> standard deviation of the Gaussian noise per cell, ``"one_way"`` and
        ``"two_way"``: ``sqrt(3 / (2 rho_)) * sqrt(k)`` for ``k`` marginals in the step
    selection_epsilon_ : float, ``eps_i`` of each exponential-mechanism round (0 for one column)
    noisy_one_way_ : dict column -> noisy counts of its one-way marginal over its full domain
    kept_ : dict column -> indices (into the domain) of the values kept by the compression; the
        others, if any, are merged into one "rare" value
    cliques_ : list of the selected column pairs (the tree's edges, in order of selection; each
        pair in the table's column order)
    measurements_ : list of the ``mbi.LinearMeasurement`` given to Private-PGM (one-way marginals
        over the compressed domains, then the selected two-way marginals); ``len`` is their count
    total_ : float, the number of rows estimated from the noisy marginals alone (at least 1): the
        model's total and, rounded, the default number of released rows
    model_ : ``mbi.MarkovRandomField`` over the compressed domains; its attributes are named
        ``"a0", "a1", ...`` in the table's column order, a rare value is the last of its domain

    Release (the library protocol of :mod:`ppdp.base`)
    ---------------------------------------------------
    ``fit(df, random_state)`` spends the budget (its noise and selections are random);
    ``release(random_state, n_rows=None)`` draws synthetic rows from the fitted model, which is
    post-processing and may be repeated at no further privacy cost. ``fit_release(df, seed)`` runs
    both from one generator, so the same seed gives the same table.

    Examples
    --------
    A 24-row table of two columns, with few mirror-descent iterations to keep the example fast:

    >>> import pandas as pd
    >>> from ppdp.mechanisms.mst import MST
    >>> df = pd.DataFrame({"sex": ["F", "M", "F", "M", "F", "F", "M", "F"] * 3,
    ...                    "smoker": ["no", "no", "yes", "no", "no", "yes", "no", "no"] * 3})
    >>> mst = MST(epsilon=1.0, n_iters=10).fit(df, random_state=0)
    >>> mst.cliques_, mst.domains_
    ([('sex', 'smoker')], {'sex': ['F', 'M'], 'smoker': ['no', 'yes']})
    >>> round(mst.rho_, 5), mst.zcdp_spent() <= mst.rho_ * (1 + 1e-12)
    (0.01497, True)
    >>> synthetic = mst.release(random_state=0)
    >>> synthetic.columns.tolist(), len(synthetic) == round(mst.total_)
    (['sex', 'smoker'], True)
    >>> mst.release(random_state=0, n_rows=5).shape
    (5, 2)
    """

    #: The bound every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "(epsilon, delta)-differential privacy (add/remove one row) through rho-zCDP: the zCDP "
        "spent by the noise scales and selection rounds actually used is at most ``rho_``, which "
        "implies ``epsilon`` at ``delta``, for a release on public ``domains`` of the size the "
        "noisy total gives (``n_rows=None``). Not private: the observed domains "
        "(``domains=None``) or an ``n_rows`` that depends on the table, such as its true size."
    )

    #: A release samples the fitted private model; more rows or more tables are post-processing and
    #: spend nothing more (Dwork and Roth, Proposition 2.1).
    repetition: ClassVar[str] = "post-processing"

    _parameter_constraints: ClassVar[dict] = {
        "epsilon": _POSITIVE,
        "delta": _PROBABILITY,
        "domains": [Mapping, None],
        "n_iters": [Interval(Integral, 1, None, closed="left")],
    }

    _FITTED = (
        "columns_",
        "domains_",
        "rho_",
        "zcdp_",
        "sigma_",
        "selection_epsilon_",
        "noisy_one_way_",
        "kept_",
        "cliques_",
        "measurements_",
        "total_",
        "model_",
        "_values",
        "_tree",
    )

    def __init__(
        self,
        epsilon: float,
        delta: float = 1e-9,
        *,
        domains: Mapping[Any, Any] | None = None,
        n_iters: int = 1000,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.domains = domains
        self.n_iters = n_iters

    # -- fitting -----------------------------------------------------------------------------------

    def _encode(self, df: pd.DataFrame) -> tuple[dict, dict, np.ndarray]:
        """Domains, typed domain values and the ``(n, d)`` integer codes of ``df``."""
        columns = list(df.columns)
        if not columns:
            raise ValueError("df has no columns; MST needs at least one attribute")
        for col in columns:
            if df[col].isna().any():
                raise ValueError(f"column {col!r} holds missing values; MST needs complete columns")
        if self.domains is None:
            domains = {col: _observed_domain(df[col], col) for col in columns}
        else:
            domains = _check_domains(self.domains, columns)
        values, codes = {}, np.empty((len(df), len(columns)), dtype=np.int64)
        for j, col in enumerate(columns):
            series = df[col]
            values[col] = _typed_values(domains[col], series, col)
            index = pd.Index(values[col].tolist(), dtype=object)
            found = index.get_indexer(pd.Index(series.tolist(), dtype=object))
            if np.any(found < 0):
                bad = pd.unique(series[found < 0].to_numpy())[:5].tolist()
                raise ValueError(
                    f"domains: column {col!r} holds values {bad} outside its domain "
                    f"(allowed: the {len(index)} values of domains[{col!r}])"
                )
            codes[:, j] = found
        return domains, values, codes

    def fit(self, df: pd.DataFrame, random_state: Any = None) -> MST:
        """Measure, compress, select and estimate (steps 1-4 and the model of step 5).

        Parameters
        ----------
        df : DataFrame
            Non-empty, unique column names, no missing values; every column is an attribute.
        random_state : None, int >= 0 or numpy.random.Generator
            Draws the measurement noise and the selections
            (:func:`ppdp.base.check_random_state`); ``None`` draws fresh entropy, so only a seed
            or a Generator makes the fit reproducible. ``fit_release`` passes one stream to both
            ``fit`` and ``release``.

        Returns
        -------
        MST
            ``self``.
        """
        for name in self._FITTED:
            self.__dict__.pop(name, None)
        validate_hyperparameters(self)
        df = check_frame(df)
        rng = check_random_state(random_state)
        domains, values, codes = self._encode(df)
        columns = list(df.columns)
        d = len(columns)
        sizes = [len(domains[c]) for c in columns]

        rho = cdp_rho(self.epsilon, self.delta)
        if d == 1:  # no pair to select or measure: the whole budget goes to the one marginal
            zcdp = {"one_way": rho, "selection": 0.0, "two_way": 0.0}
        else:
            zcdp = {"one_way": rho / 3.0, "selection": rho / 3.0, "two_way": rho / 3.0}

        # 1. one-way marginals, rho/3 in total: k measurements of 1/(2 sigma^2) each
        sigma1 = math.sqrt(d / (2.0 * zcdp["one_way"]))
        noisy1 = []
        for j in range(d):
            counts = np.bincount(codes[:, j], minlength=sizes[j]).astype(np.float64)
            noisy1.append(counts + rng.normal(0.0, sigma1, size=sizes[j]))

        # 2. compression (post-processing): counts below 3 sigma merge into a last "rare" value
        kept, compressed, size_c, mapping = [], [], [], []
        for j in range(d):
            y = noisy1[j]
            keep = np.flatnonzero(y >= _RARE_SIGMAS * sigma1)
            kept.append(keep)
            if keep.size == sizes[j]:
                mapping.append(np.arange(sizes[j]))
                compressed.append((y, np.ones(sizes[j])))
            else:
                m = sizes[j] - keep.size
                to = np.full(sizes[j], keep.size)
                to[keep] = np.arange(keep.size)
                mapping.append(to)
                rare = y[to == keep.size].sum()
                compressed.append(
                    (np.append(y[keep], rare), np.append(np.ones(keep.size), 1.0 / math.sqrt(m)))
                )
            size_c.append(int(mapping[j].max()) + 1)
        ccodes = np.stack([mapping[j][codes[:, j]] for j in range(d)], axis=1)
        # the number of rows, from the noisy totals (inverse-variance weighted)
        sums = [float(y.sum()) for y in noisy1]
        variances = [sizes[j] * sigma1**2 for j in range(d)]

        # 3. selection, rho/3 in total over d - 1 rounds
        edges: list[tuple[int, int]] = []
        selection_epsilon = 0.0
        if d > 1:
            # the selection's model needs a positive total (a total below 1 warns further down)
            total1 = max(1.0, _weighted_total(sums, variances))
            # Private-PGM's estimate from one-way measurements alone: a product of independent
            # marginals, each the least-squares fit to its (compressed) measurement on the simplex
            # of the estimated total (the loss separates by attribute), computed here exactly
            fitted1 = [_simplex_projection(y_c, w * w, total1) for y_c, w in compressed]
            scores = {}
            for a in range(d):
                for b in range(a + 1, d):
                    x = np.bincount(
                        ccodes[:, a] * size_c[b] + ccodes[:, b], minlength=size_c[a] * size_c[b]
                    )
                    xhat = np.outer(fitted1[a], fitted1[b]).ravel() / total1
                    scores[a, b] = float(np.abs(x - xhat).sum())
            # Exponential mechanism with sensitivity 1 (adding or removing a row moves one cell of
            # the data's marginal by 1; the model's marginal is already private), as in the paper:
            # pick a pair with probability proportional to exp(eps_i * score / 2), which is
            # eps_i-DP and eps_i^2/8-zCDP; eps_i = sqrt(8 (rho/3) / (d - 1)). Sampled exactly by
            # the Gumbel-max trick.
            selection_epsilon = math.sqrt(8.0 * zcdp["selection"] / (d - 1))
            components = _Components(d)
            for _ in range(d - 1):
                candidates = [e for e in scores if components.find(e[0]) != components.find(e[1])]
                q = np.array([scores[e] for e in candidates])
                pick = int(np.argmax(0.5 * selection_epsilon * q + rng.gumbel(size=q.size)))
                edges.append(candidates[pick])
                components.union(*candidates[pick])

        # 4. selected two-way marginals, rho/3 in total, on the compressed domains
        sigma2 = math.sqrt(len(edges) / (2.0 * zcdp["two_way"])) if edges else None
        noisy2 = []
        for a, b in edges:
            x = np.bincount(
                ccodes[:, a] * size_c[b] + ccodes[:, b], minlength=size_c[a] * size_c[b]
            ).astype(np.float64)
            y = x + rng.normal(0.0, sigma2, size=x.size)
            noisy2.append(y)
            sums.append(float(y.sum()))
            variances.append(x.size * sigma2**2)
        # the number of rows the model (and by default the release) holds: from the noisy
        # measurements only, never from len(df)
        total = _weighted_total(sums, variances)
        if total < 1.0:
            warnings.warn(
                f"MST: the number of rows estimated from the noisy marginals is {total:.4g}, "
                f"below 1 (a table too small for epsilon = {float(self.epsilon):g}); the model, "
                "and a release with n_rows=None, use 1 row",
                UserWarning,
                stacklevel=2,
            )
            total = 1.0

        # 5. Private-PGM
        mbi = _mbi()
        names = [f"a{j}" for j in range(d)]
        domain = mbi.Domain(names, size_c)
        measurements = []
        for j, (y_c, w) in enumerate(compressed):
            if np.all(w == 1.0):
                measurements.append(mbi.LinearMeasurement(y_c * w, (names[j],), sigma1))
            else:
                query = _MergedQuery(tuple(float(v) for v in w))
                measurements.append(
                    mbi.LinearMeasurement(y_c * w, (names[j],), sigma1, query=query)
                )
        for (a, b), y in zip(edges, noisy2, strict=True):
            measurements.append(mbi.LinearMeasurement(y, (names[a], names[b]), sigma2))
        model = self._estimate(mbi, domain, measurements, total)

        self.columns_ = columns
        self.domains_ = {c: list(domains[c]) for c in columns}
        self.rho_ = rho
        self.zcdp_ = zcdp
        self.sigma_ = (
            {"one_way": sigma1} if sigma2 is None else {"one_way": sigma1, "two_way": sigma2}
        )
        self.selection_epsilon_ = selection_epsilon
        self.noisy_one_way_ = {c: noisy1[j] for j, c in enumerate(columns)}
        self.kept_ = {c: kept[j] for j, c in enumerate(columns)}
        self.cliques_ = [(columns[a], columns[b]) for a, b in edges]
        self.measurements_ = measurements
        self.total_ = total
        self.model_ = model
        logger.info(
            "MST: %d columns, %d two-way marginals selected, rho = %.4g zCDP for "
            "(epsilon = %g, delta = %g)",
            d,
            len(edges),
            rho,
            float(self.epsilon),
            float(self.delta),
        )
        self._values = values
        self._tree = (names, edges, kept, sizes)
        return self

    def _estimate(self, mbi, domain, measurements, total: float):
        """Private-PGM's mirror descent on the L2 loss of the measurements, on the CPU."""
        import jax

        loss = mbi.marginal_loss.from_linear_measurements(measurements, domain)
        estimator = mbi.estimation.MirrorDescent()
        with jax.default_device(jax.devices("cpu")[0]):
            return _estimate_fn()(loss, total, domain, int(self.n_iters), estimator)

    # -- guarantees and release --------------------------------------------------------------------

    def zcdp_spent(self) -> float:
        """zCDP spent: ``sum_i 1/(2 sigma_i^2)`` over the measurements + ``(d-1) eps_i^2 / 8``."""
        check_fitted(self, ["measurements_", "rho_"])
        gaussian = sum(1.0 / (2.0 * float(m.stddev) ** 2) for m in self.measurements_)
        selection = len(self.cliques_) * self.selection_epsilon_**2 / 8.0
        return gaussian + selection

    def _composed(self, n_releases: int) -> dict[str, float]:
        """The fit's ``(epsilon, delta)``: releases are post-processing of the fitted model."""
        return {"epsilon": float(self.epsilon), "delta": float(self.delta)}

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """The privacy budget, measured on the fitted mechanism.

        Two checks (sense ``at_most``): the zCDP spent (:meth:`zcdp_spent`, from the noise scales
        actually used and the selection rounds actually run) against ``rho_``; and the smallest
        ``epsilon`` that this zCDP implies at ``delta`` (:func:`cdp_epsilon`) against ``epsilon``.
        Both allow a relative ``1e-12`` for the rounding of the sums.
        """
        spent = self.zcdp_spent()
        return [
            GuaranteeCheck(
                mechanism=type(self).__name__,
                guarantee="rho-zCDP",
                declared=self.rho_,
                measured=spent,
                sense="at_most",
                where=f"{len(self.measurements_)} measurements, {len(self.cliques_)} selections",
                tol=CHECK_TOL * max(1.0, self.rho_),
            ),
            GuaranteeCheck(
                mechanism=type(self).__name__,
                guarantee="(epsilon, delta)-DP",
                declared=float(self.epsilon),
                measured=cdp_epsilon(spent, self.delta),
                sense="at_most",
                where=f"delta={self.delta:g}",
                tol=CHECK_TOL * max(1.0, float(self.epsilon)),
            ),
        ]

    def release(self, random_state: Any = None, n_rows: int | None = None) -> pd.DataFrame:
        """Synthetic rows drawn from the fitted graphical model.

        The model is a tree over the (compressed) attributes: the first column is drawn from its
        marginal, every other one from its conditional given its parent in the tree, taken from
        the model's two-way marginals; a "rare" value is then replaced by one of the values it
        merged, uniformly. The draws of a column are stratified within each value of its parent
        (each row is drawn from the conditional, and the group's counts stay within one of their
        expectation), the counterpart of Private-PGM's randomized rounding.

        Parameters
        ----------
        random_state : None, int >= 0 or numpy.random.Generator
            :func:`ppdp.base.check_random_state`; the same int gives the same table.
        n_rows : int >= 1 or None
            Rows to draw. ``None`` draws the model's total, ``total_`` (estimated from the noisy
            marginals, at least 1), rounded to the nearest integer (half to even), as
            Private-PGM's MST draws its model's total: the size is then private too. An explicit
            ``n_rows`` is the caller's public knowledge; the true number of rows is not, and a
            release of that size is not differentially private.

        Returns
        -------
        DataFrame
            The fitted table's columns, in its order and with its dtypes, and a ``RangeIndex``
            (a synthetic row is no row of the table).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        GuaranteeViolation
            If the budget spent exceeds the declared one (:meth:`guarantee_checks`).
        """
        check_fitted(self, ["model_", "_tree"])
        rng = check_random_state(random_state)
        check_params(
            {"n_rows": n_rows},
            {"n_rows": [Interval(Integral, 1, None, closed="left"), None]},
            "MST.release",
        )
        enforce(self.guarantee_checks())
        # total_ >= 1 (fit clips it, with a warning), so the rounded size is at least 1
        n = round(self.total_) if n_rows is None else int(n_rows)
        codes = self._sample(n, rng)
        index = pd.RangeIndex(n)
        out = {}
        for j, col in enumerate(self.columns_):
            typed = self._values[col]
            out[col] = pd.Series(typed.iloc[codes[:, j]].to_numpy(), index=index, dtype=typed.dtype)
        return pd.DataFrame(out, index=index)

    def _sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``(n, d)`` codes into the full domains, drawn from the model."""
        names, edges, kept, sizes = self._tree
        d = len(names)
        compressed = np.empty((n, d), dtype=np.int64)

        def marginal(attrs) -> np.ndarray:
            table = np.asarray(self.model_.project(attrs).datavector(flatten=False), np.float64)
            return np.clip(table, 0.0, None)

        def draw(p: np.ndarray, size: int) -> np.ndarray:
            # stratified uniforms: row i gets (pi_i + U_i) / size for a random permutation pi, so
            # each row is drawn from p and the counts of the group are within 1 of size * p
            cdf = np.cumsum(p / p.sum()) if p.sum() > 0 else np.linspace(1 / p.size, 1, p.size)
            u = (rng.permutation(size) + rng.random(size)) / size
            return np.minimum(np.searchsorted(cdf, u, side="right"), p.size - 1)

        neighbours: dict[int, list[int]] = {j: [] for j in range(d)}
        for a, b in edges:
            neighbours[a].append(b)
            neighbours[b].append(a)
        order, parent = [0], {0: None}
        for j in order:  # breadth-first from the first column
            for k in neighbours[j]:
                if k not in parent:
                    parent[k] = j
                    order.append(k)
        for j in order:
            if parent[j] is None:
                compressed[:, j] = draw(marginal((names[j],)), n)
            else:
                p = parent[j]
                joint = marginal((names[p], names[j]))
                for v in range(joint.shape[0]):
                    rows = np.flatnonzero(compressed[:, p] == v)
                    if rows.size:
                        row = joint[v] if joint[v].sum() > 0 else joint.sum(axis=0)
                        compressed[rows, j] = draw(row, rows.size)
        # undo the compression: a "rare" code becomes one of its merged values, uniformly
        codes = np.empty_like(compressed)
        for j in range(d):
            keep = kept[j]
            if keep.size == sizes[j]:
                codes[:, j] = compressed[:, j]
                continue
            merged = np.setdiff1d(np.arange(sizes[j]), keep)
            rare = compressed[:, j] == keep.size
            codes[~rare, j] = keep[compressed[~rare, j]]
            codes[rare, j] = merged[rng.integers(0, merged.size, size=int(rare.sum()))]
        return codes

    def fit_release(self, df: pd.DataFrame, random_state: Any = None) -> pd.DataFrame:
        """``fit(df, random_state=g).release(random_state=g)`` with one generator ``g``."""
        return super().fit_release(df, random_state=random_state)


def _weighted_total(sums: list[float], variances: list[float]) -> float:
    """Inverse-variance weighted mean of noisy totals (the minimum-variance unbiased estimate)."""
    weights = 1.0 / np.asarray(variances)
    return float(np.dot(weights, sums) / weights.sum())
