"""One utility suite for every release: a COUNT workload and a train-on-release prediction task.

A cross-mechanism benchmark scores tables of very different shapes with the same yardstick:
Mondrian generalizations (``"28-33"``, ``"{BA,HS}"``), k-ary randomized response and SPPM
mappings (domain values), IMPOSTER synthetic records (possibly another number of rows) and relay
chains' class means (numbers between domain values). :mod:`ppdp.cells` reads every released cell
as a distribution over the original domain; this module scores a release with

* a **count workload** (:func:`count_workload`): random conjunctive queries
  ``SELECT COUNT(*) WHERE A1 in S1 AND ... AND Ak in Sk`` over ``1..max_attributes`` distinct
  columns, a contiguous range of values for a numeric column and a value subset for a
  categorical one, each with a positive answer on the real table;
* **expected answers** (:func:`expected_counts`): a row satisfies a query with the probability
  that its cells, read as independent distributions over their domains, fall inside the query's
  region, i.e. the product over the query's columns of the cell mass inside the accepted values.
  On a real table this is the exact count; on a generalized one it is the uniformity estimate of
  LeFevre et al. (2006);
* the **workload error** (:func:`workload_error`): per query ``|c_rel * n / n_rel - c| / c``, the
  released answer scaled to the real table's size (a synthetic table may have another number of
  rows);
* a **prediction task** (:func:`task_scores`): a classifier trained on the release, in the
  features of :func:`ppdp.cells.design_matrix`, and tested on held-out real records (AUC and
  accuracy).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
import pandas as pd

from ppdp._validation import Interval, StrOptions, check_columns, check_params
from ppdp.base import check_frame, check_random_state
from ppdp.cells import cell_membership, design_matrix
from ppdp.classifiers import make_model
from ppdp.tabular import AttributeDomain

__all__ = [
    "MODELS",
    "CountQuery",
    "count_workload",
    "expected_counts",
    "task_scores",
    "workload_error",
]

#: The models :func:`task_scores` may train: ``"xgb"`` (XGBoost) and ``"lr"`` (logistic regression).
MODELS = ("xgb", "lr")

# consecutive candidate queries with a zero answer after which count_workload gives up
_MAX_FAILURES = 1000
# cap on the entries of one (rows x queries) block of expected_counts (memory ~ 8 bytes each)
_BLOCK_ENTRIES = 1 << 22


# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------


def _fmt(value) -> str:
    """A domain value as text: integral numbers without a trailing ``.0``."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
        x = float(value)
        if np.isfinite(x) and x.is_integer():
            return str(int(x))
        return repr(x)
    return str(value)


def _describe(domain: AttributeDomain, codes: Sequence[int]) -> str:
    """``in [lo, hi]`` for a contiguous numeric range (``= v`` for one value), ``in {a, b}``
    otherwise."""
    vals = domain.values[list(codes)]
    contiguous = codes[-1] - codes[0] == len(codes) - 1
    if domain.kind == "numeric" and len(codes) == 1:
        return f"= {_fmt(vals[0])}"
    if domain.kind == "numeric" and contiguous:
        return f"in [{_fmt(vals[0])}, {_fmt(vals[-1])}]"
    return "in {" + ", ".join(_fmt(v) for v in vals.tolist()) + "}"


@dataclass(frozen=True)
class CountQuery:
    """``COUNT(*) WHERE columns[0] in codes[0] AND ... AND columns[k-1] in codes[k-1]``.

    Parameters
    ----------
    columns : tuple of str
        The distinct columns the query constrains (at least one).
    codes : tuple of tuple of int
        For each column, the domain codes (indices into ``AttributeDomain.values``) its predicate
        accepts; non-empty. Stored sorted and without repeats.
    labels : tuple of str, optional
        A readable predicate per column (``"in [30, 45]"``, ``"in {BA, MS}"``), used by
        ``str(query)``; filled by :func:`count_workload` and :meth:`from_codes`. Not part of
        equality.

    Examples
    --------
    >>> str(CountQuery(("age",), ((2, 3, 4),)))
    'age in codes {2, 3, 4}'
    """

    columns: tuple[str, ...]
    codes: tuple[tuple[int, ...], ...]
    labels: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self):
        columns = tuple(check_columns(self.columns, name="columns"))
        if not all(isinstance(c, str) for c in columns):
            raise TypeError(f"columns must be column names (str), got {columns!r}")
        if isinstance(self.codes, str) or not isinstance(self.codes, Iterable):
            raise TypeError(f"codes must be a tuple of code tuples, got {self.codes!r}")
        raw = tuple(self.codes)
        if len(raw) != len(columns):
            raise ValueError(
                f"codes must hold one code set per column: {len(columns)} columns {columns!r} "
                f"but {len(raw)} code sets"
            )
        codes = []
        for c, cs in zip(columns, raw, strict=True):
            if isinstance(cs, str) or not isinstance(cs, Iterable):
                raise TypeError(f"codes of column {c!r} must be a tuple of ints, got {cs!r}")
            cs = tuple(cs)
            if not cs:
                raise ValueError(f"codes of column {c!r} is empty; a predicate accepts some value")
            if not all(isinstance(x, Integral) and not isinstance(x, bool | np.bool_) for x in cs):
                raise TypeError(f"codes of column {c!r} must be ints, got {cs!r}")
            if min(cs) < 0:
                raise ValueError(f"codes of column {c!r} must be >= 0, got {cs!r}")
            codes.append(tuple(sorted({int(x) for x in cs})))
        labels = tuple(self.labels)
        if labels and len(labels) != len(columns):
            raise ValueError(
                f"labels must be empty or hold one label per column ({len(columns)}), got {labels!r}"
            )
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "codes", tuple(codes))
        object.__setattr__(self, "labels", labels)

    @classmethod
    def from_codes(
        cls, domains: Mapping[str, AttributeDomain], predicates: Mapping[str, Iterable[int]]
    ) -> CountQuery:
        """A query from ``{column: accepted codes}``, labelled with the domains' values.

        Raises ValueError for a column without a domain or a code outside its domain.
        """
        query = cls(tuple(predicates), tuple(tuple(v) for v in predicates.values()))
        _check_queries([query], domains, None)
        labels = tuple(
            _describe(domains[c], cs) for c, cs in zip(query.columns, query.codes, strict=True)
        )
        return cls(query.columns, query.codes, labels)

    def __str__(self) -> str:
        if self.labels:
            parts = [f"{c} {lab}" for c, lab in zip(self.columns, self.labels, strict=True)]
        else:
            parts = [
                f"{c} in codes {{{', '.join(map(str, cs))}}}"
                for c, cs in zip(self.columns, self.codes, strict=True)
            ]
        return " AND ".join(parts)


def _check_domains(domains, caller: str) -> None:
    if not isinstance(domains, Mapping):
        raise TypeError(
            f"domains of {caller} must be a mapping column -> AttributeDomain, "
            f"got {type(domains).__name__}"
        )
    for name, d in domains.items():
        if not isinstance(d, AttributeDomain):
            raise TypeError(f"domains[{name!r}] must be an AttributeDomain, got {type(d).__name__}")


def _check_have_domains(value: list, name: str, domains: Mapping[str, AttributeDomain]) -> None:
    no_domain = [c for c in value if c not in domains]
    if no_domain:
        raise ValueError(f"{name} {no_domain} have no domain in domains (it has {list(domains)})")


def _check_queries(queries, domains: Mapping[str, AttributeDomain], frame_columns) -> list:
    if isinstance(queries, CountQuery) or not isinstance(queries, Iterable):
        raise TypeError(
            f"queries must be a sequence of CountQuery, got {type(queries).__name__} {queries!r}"
        )
    queries = list(queries)
    for i, q in enumerate(queries):
        if not isinstance(q, CountQuery):
            raise TypeError(f"queries[{i}] must be a CountQuery, got {type(q).__name__} {q!r}")
        for c, cs in zip(q.columns, q.codes, strict=True):
            if c not in domains:
                raise ValueError(
                    f"queries[{i}] uses column {c!r}, which has no domain in domains "
                    f"(it has {list(domains)})"
                )
            if frame_columns is not None and c not in frame_columns:
                raise ValueError(
                    f"queries[{i}] uses column {c!r}, which is not in the table; it has "
                    f"{list(frame_columns)}"
                )
            size = domains[c].size
            if cs[-1] >= size:
                raise ValueError(
                    f"queries[{i}] accepts code {cs[-1]} of column {c!r}, whose domain has only "
                    f"{size} values (codes 0..{size - 1})"
                )
    return queries


# --------------------------------------------------------------------------------------------
# Expected answers
# --------------------------------------------------------------------------------------------


def _answers(
    memberships: Mapping[str, np.ndarray],
    n_rows: int,
    queries: Sequence[CountQuery],
    sizes: Mapping[str, int],
) -> np.ndarray:
    """Expected counts of ``queries`` given each column's ``(n_rows, |domain|)`` memberships."""
    n_q = len(queries)
    if n_q == 0:
        return np.zeros(0)
    # per column: the queries that constrain it and the 0/1 matrix (|domain|, those queries)
    accept: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for j, q in enumerate(queries):
        for c, cs in zip(q.columns, q.codes, strict=True):
            accept.setdefault(c, ([], []))
            accept[c][0].append(j)
            accept[c][1].append(cs)
    blocks = {}
    for c, (idx, code_sets) in accept.items():
        a = np.zeros((sizes[c], len(idx)))
        cols = np.repeat(np.arange(len(idx)), [len(cs) for cs in code_sets])
        a[np.concatenate([np.asarray(cs, dtype=np.int64) for cs in code_sets]), cols] = 1.0
        blocks[c] = (np.asarray(idx, dtype=np.int64), a)
    counts = np.zeros(n_q)
    step = max(1, _BLOCK_ENTRIES // n_q)
    for start in range(0, n_rows, step):
        stop = min(n_rows, start + step)
        p = np.ones((stop - start, n_q))
        for c, (idx, a) in blocks.items():
            p[:, idx] *= memberships[c][start:stop] @ a
        counts += p.sum(axis=0)
    return counts


def _memberships(
    frame: pd.DataFrame, domains: Mapping[str, AttributeDomain], columns: Iterable[str]
) -> dict[str, np.ndarray]:
    return {c: cell_membership(frame[c], domains[c]) for c in columns}


def expected_counts(
    frame: pd.DataFrame, domains: Mapping[str, AttributeDomain], queries: Sequence[CountQuery]
) -> np.ndarray:
    """Expected number of rows of ``frame`` satisfying each query.

    Each cell is read as the distribution :func:`ppdp.cells.cell_membership` gives it (a domain
    value, a range ``"lo-hi"``, a value set ``"{a,b}"``, a hierarchy node or a number between two
    domain values); a row satisfies a query with probability the product, over the query's
    columns, of the cell's mass inside the accepted codes, and the answer is the sum over rows.
    On a real table (every cell one domain value) this is the exact count.

    Parameters
    ----------
    frame : DataFrame
        A real or released table holding every column the queries use.
    domains : mapping str -> AttributeDomain
        The original domains (e.g. :func:`ppdp.cells.table_domains` of the real table).
    queries : sequence of CountQuery

    Returns
    -------
    ndarray of float, shape (len(queries),)
        Each in ``[0, len(frame)]``.

    Raises
    ------
    TypeError, ValueError
        For a frame that is not a DataFrame, a query that is not a :class:`CountQuery`, uses a
        column missing from ``frame`` or ``domains`` or a code outside the domain, or a cell that
        cannot be read as a region of its domain.

    Examples
    --------
    A Mondrian-like release of two groups; the query ``age in [25, 30] AND edu in {BA}``:

    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> real = pd.DataFrame({"age": [25, 30, 35, 40, 45, 50],
    ...                      "edu": ["HS", "BA", "HS", "MS", "BA", "MS"]})
    >>> released = pd.DataFrame({"age": ["25-35"] * 3 + ["40-50"] * 3,
    ...                          "edu": ["{BA,HS}"] * 3 + ["{BA,MS}"] * 3})
    >>> domains = table_domains(real, ["age", "edu"], numeric=["age"])
    >>> query = CountQuery.from_codes(domains, {"age": [0, 1], "edu": [0]})
    >>> print(query)
    age in [25, 30] AND edu in {BA}
    >>> expected_counts(real, domains, [query]).tolist()
    [1.0]

    Each of the three rows of the first group lies in ``[25, 30]`` with probability 2/3 and has
    ``BA`` with probability 1/2:

    >>> expected_counts(released, domains, [query]).round(3).tolist()
    [1.0]
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    _check_domains(domains, "expected_counts")
    queries = _check_queries(queries, domains, frame.columns)
    used = list(dict.fromkeys(c for q in queries for c in q.columns))
    memberships = _memberships(frame, domains, used)
    return _answers(memberships, len(frame), queries, {c: domains[c].size for c in used})


def workload_error(
    real: pd.DataFrame,
    released: pd.DataFrame,
    domains: Mapping[str, AttributeDomain],
    queries: Sequence[CountQuery],
    *,
    truth=None,
) -> np.ndarray:
    """Relative error of each query's answer on ``released``, scaled to ``real``'s size.

    ``|c_rel * len(real) / len(released) - c_real| / c_real`` with ``c_rel`` and ``c_real`` the
    :func:`expected_counts` of the query on the two tables; scaling makes a synthetic table of
    another size comparable.

    Parameters
    ----------
    real : DataFrame
        The original table; every query needs a positive answer on it (as
        :func:`count_workload` guarantees).
    released : DataFrame
        The release, non-empty.
    domains : mapping str -> AttributeDomain
    queries : sequence of CountQuery
    truth : array-like of float, shape (len(queries),), optional
        ``expected_counts(real, domains, queries)`` when already computed, e.g. once for the
        many releases of one table; by default computed here.

    Returns
    -------
    ndarray of float, shape (len(queries),)
        Zero for the identity release.

    Raises
    ------
    ValueError
        For an empty table or a query whose answer on ``real`` is 0 (its relative error is
        undefined), ``truth`` not one count per query, besides the errors of
        :func:`expected_counts`.
    TypeError
        For a table that is not a DataFrame, besides the errors of :func:`expected_counts`.

    Examples
    --------
    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> real = pd.DataFrame({"age": [25, 30, 35, 40, 45, 50],
    ...                      "edu": ["HS", "BA", "HS", "MS", "BA", "MS"]})
    >>> released = pd.DataFrame({"age": ["25-35"] * 3 + ["40-50"] * 3,
    ...                          "edu": ["{BA,HS}"] * 3 + ["{BA,MS}"] * 3})
    >>> domains = table_domains(real, ["age", "edu"], numeric=["age"])
    >>> queries = count_workload(real, domains, ["age", "edu"], n_queries=4, random_state=0)
    >>> workload_error(real, released, domains, queries).round(3).tolist()
    [0.0, 0.0, 0.167, 0.125]
    >>> workload_error(real, real, domains, queries).tolist()
    [0.0, 0.0, 0.0, 0.0]
    """
    real = check_frame(real, "real")
    released = check_frame(released, "released")
    if truth is None:
        truth = expected_counts(real, domains, queries)
    else:
        truth = np.asarray(truth, dtype=float)
        if truth.shape != (len(queries),):
            raise ValueError(
                f"truth must hold one count per query ({len(queries)}), got shape {truth.shape}"
            )
    zero = np.flatnonzero(truth <= 0)
    if zero.size:
        raise ValueError(
            f"queries {zero[:5].tolist()} have no matching row in real; a relative error needs a "
            "positive true count (draw queries with count_workload on the real table)"
        )
    estimate = expected_counts(released, domains, queries) * (len(real) / len(released))
    return np.abs(estimate - truth) / truth


def count_workload(
    real: pd.DataFrame,
    domains: Mapping[str, AttributeDomain],
    columns: Sequence[str],
    *,
    n_queries: int = 200,
    max_attributes: int = 3,
    random_state,
) -> list[CountQuery]:
    """Random COUNT queries, each with a positive answer on ``real``.

    A query constrains ``k`` distinct columns of ``columns``, ``k`` uniform on
    ``1..min(max_attributes, len(columns))`` and the columns uniform among the ``k``-subsets. A numeric column gets a
    contiguous range of domain codes (width uniform on ``1..|D|-1``, start uniform among the
    positions where it fits: a proper range, never the whole domain); a categorical one a random
    subset of its values of size uniform on ``1..ceil(|D|/2)`` (a proper subset for ``|D| > 1``).
    A single-value domain gives the predicate that accepts its one value. A query whose count on
    ``real`` is 0 is drawn again.

    Parameters
    ----------
    real : DataFrame
        The original table (its cells are read by :func:`ppdp.cells.cell_membership`).
    domains : mapping str -> AttributeDomain
        Domain of each column, e.g. :func:`ppdp.cells.table_domains` of ``real``.
    columns : sequence of str
        The distinct columns queries may constrain.
    n_queries : int, default 200
    max_attributes : int, default 3
        Largest number of columns of a query; values above ``len(columns)`` mean
        ``len(columns)`` (so one call fits tables with few columns).
    random_state : None, int or numpy.random.Generator
        An int seeds a new generator (the same seed gives the same list); a Generator is
        advanced. Candidates are drawn one after the other from the stream, so the first
        ``m`` queries of a run with ``n_queries > m`` are those of a run with ``n_queries=m``.

    Returns
    -------
    list of CountQuery
        ``n_queries`` queries, columns in the order of ``columns``, labelled with domain values.

    Raises
    ------
    TypeError, ValueError
        For a table that is not a DataFrame or is empty, ``domains`` that is not a mapping of
        :class:`~ppdp.tabular.AttributeDomain`, ``columns`` that is not a non-empty list of
        distinct columns of ``real`` with domains, ``n_queries`` or ``max_attributes`` below 1,
        or a ``random_state`` that is a negative int or neither an int nor a Generator.
    RuntimeError
        After 1000 candidates in a row with a zero count on ``real``.

    Examples
    --------
    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> real = pd.DataFrame({"age": [25, 30, 35, 40, 45, 50],
    ...                      "edu": ["HS", "BA", "HS", "MS", "BA", "MS"]})
    >>> domains = table_domains(real, ["age", "edu"], numeric=["age"])
    >>> queries = count_workload(real, domains, ["age", "edu"], n_queries=4, random_state=0)
    >>> for query in queries:
    ...     print(query)
    age in [30, 35] AND edu in {BA}
    age in [30, 50]
    age in [30, 50] AND edu in {HS, MS}
    edu in {BA, HS}
    >>> expected_counts(real, domains, queries).tolist()
    [1.0, 5.0, 3.0, 4.0]
    """
    check_params(
        {"n_queries": n_queries, "max_attributes": max_attributes},
        {
            "n_queries": [Interval(Integral, 1, None, closed="left")],
            "max_attributes": [Interval(Integral, 1, None, closed="left")],
        },
        "count_workload",
    )
    real = check_frame(real, "real")
    _check_domains(domains, "count_workload")
    columns = check_columns(columns, name="columns", table=real, table_name="real")
    _check_have_domains(columns, "columns", domains)
    rng = check_random_state(random_state)
    n_queries, max_attributes = int(n_queries), min(int(max_attributes), len(columns))
    doms = [domains[c] for c in columns]
    memberships = _memberships(real, domains, columns)
    sizes = {c: d.size for c, d in zip(columns, doms, strict=True)}

    def draw() -> CountQuery:
        k = int(rng.integers(1, max_attributes + 1))
        picked = np.sort(rng.choice(len(columns), size=k, replace=False))
        codes = []
        for a in picked.tolist():
            d = doms[a]
            if d.size == 1:
                codes.append((0,))
            elif d.kind == "numeric":
                width = int(rng.integers(1, d.size))
                start = int(rng.integers(0, d.size - width + 1))
                codes.append(tuple(range(start, start + width)))
            else:
                m = int(rng.integers(1, -(-d.size // 2) + 1))
                codes.append(tuple(np.sort(rng.choice(d.size, size=m, replace=False)).tolist()))
        cols = tuple(columns[a] for a in picked.tolist())
        labels = tuple(_describe(domains[c], cs) for c, cs in zip(cols, codes, strict=True))
        return CountQuery(cols, tuple(codes), labels)

    queries: list[CountQuery] = []
    failures = 0
    drawn = 0
    while len(queries) < n_queries:
        # candidates are answered in batches sized by the acceptance rate seen so far; the
        # accepted list does not depend on the batch size (candidates are taken in stream order)
        rate = max(len(queries) / drawn if drawn else 0.8, 0.05)
        batch_size = max(16, int(1.2 * (n_queries - len(queries)) / rate))
        batch = [draw() for _ in range(batch_size)]
        drawn += batch_size
        answers = _answers(memberships, len(real), batch, sizes)
        for q, answer in zip(batch, answers.tolist(), strict=True):
            if answer > 0:
                queries.append(q)
                failures = 0
                if len(queries) == n_queries:
                    break
            else:
                failures += 1
                if failures >= _MAX_FAILURES:
                    raise RuntimeError(
                        f"count_workload: {_MAX_FAILURES} random queries in a row had no matching "
                        f"row in real ({len(queries)} of n_queries={n_queries} found); use fewer "
                        "max_attributes or columns with fewer values"
                    )
    return queries


# --------------------------------------------------------------------------------------------
# Prediction task
# --------------------------------------------------------------------------------------------


def task_scores(
    released: pd.DataFrame,
    real_test: pd.DataFrame,
    *,
    domains: Mapping[str, AttributeDomain],
    features: Sequence[str],
    target: str,
    positive=None,
    random_state: int = 0,
    model: str = "xgb",
    n_estimators: int = 100,
) -> dict[str, float]:
    """AUC and accuracy on real records of a classifier trained on the release.

    Features are :func:`ppdp.cells.design_matrix` of ``features`` (expected value of a numeric
    cell, membership weights of a categorical one), the same encoding for the release and the
    test records; labels are ``target`` as strings.

    Parameters
    ----------
    released : DataFrame
        Training table (a release, or the real training table for a baseline).
    real_test : DataFrame
        Held-out real records.
    domains : mapping str -> AttributeDomain
        Domains of ``features``.
    features : sequence of str
        Distinct feature columns, not including ``target``.
    target : str
    positive : optional
        Class whose AUC is reported (compared as ``str``); must occur in ``real_test``. By
        default the minority class of ``real_test`` when it has two classes; with more, the AUC
        is the macro average of the one-vs-rest AUCs of ``real_test``'s classes.
    random_state : int >= 0, default 0
        The int seed handed to the XGBoost model's ``random_state`` (logistic regression is
        deterministic): the same int gives the same scores.
    model : {"xgb", "lr"}, default "xgb"
        ``"xgb"``: XGBClassifier (max_depth 6, learning_rate 0.1, hist, one thread);
        ``"lr"``: StandardScaler then LogisticRegression(max_iter=1000).
    n_estimators : int, default 100
        Trees of the XGBoost model.

    Returns
    -------
    dict
        ``{"auc": float, "accuracy": float}``. When the release has a single class the model
        predicts it (AUC 0.5); the AUC is NaN when ``real_test`` holds a single class (undefined).

    Raises
    ------
    ValueError
        For ``target`` among the features or missing from a table, a missing target value,
        ``positive`` not a class of ``real_test``, a feature without a domain or repeated, an
        empty table, or ``random_state``, ``model`` or ``n_estimators`` out of range.
    TypeError
        For a table that is not a DataFrame, ``domains`` that is not a mapping of
        :class:`~ppdp.tabular.AttributeDomain` or ``features`` that is not a sequence of names.

    Examples
    --------
    Every other record trains, the others test; a release that keeps two age ranges still
    separates the classes, one that generalizes every age to the whole domain cannot:

    >>> import pandas as pd
    >>> from ppdp.cells import table_domains
    >>> real = pd.DataFrame({"age": [22, 25, 28, 31, 34, 37, 40, 43, 46, 49, 52, 55],
    ...                      "income": ["low"] * 6 + ["high"] * 6})
    >>> train, test = real.iloc[::2], real.iloc[1::2]
    >>> domains = table_domains(real, ["age"], numeric=["age"])
    >>> two_ranges = train.assign(age=["22-34"] * 3 + ["40-52"] * 3)
    >>> scores = task_scores(two_ranges, test, domains=domains, features=["age"],
    ...                      target="income", model="lr")
    >>> {name: round(value, 3) for name, value in scores.items()}
    {'auc': 1.0, 'accuracy': 0.833}
    >>> task_scores(train.assign(age="22-52"), test, domains=domains, features=["age"],
    ...             target="income", model="lr")
    {'auc': 0.5, 'accuracy': 0.5}
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics import roc_auc_score
    from threadpoolctl import threadpool_limits

    check_params(
        {"random_state": random_state, "model": model, "n_estimators": n_estimators},
        {
            "random_state": [Interval(Integral, 0, None, closed="left")],
            "model": [StrOptions(MODELS)],
            "n_estimators": [Interval(Integral, 1, None, closed="left")],
        },
        "task_scores",
    )
    released = check_frame(released, "released")
    real_test = check_frame(real_test, "real_test")
    _check_domains(domains, "task_scores")
    features = check_columns(features, name="features")
    if target in features:
        raise ValueError(f"target {target!r} must not be among the features {features}")
    _check_have_domains(features, "features", domains)
    for name, frame in (("released", released), ("real_test", real_test)):
        if target not in frame.columns:
            raise ValueError(
                f"target {target!r} is not a column of {name}; it has {list(frame.columns)}"
            )
        if frame[target].isna().any():
            raise ValueError(f"target {target!r} has missing values in {name}")
    y_train = released[target].astype(str).to_numpy()
    y_test = real_test[target].astype(str).to_numpy()
    test_classes, test_counts = np.unique(y_test, return_counts=True)
    if positive is not None:
        positive = str(positive)
        if positive not in test_classes:
            raise ValueError(
                f"positive={positive!r} is not a class of real_test[{target!r}]; its classes are "
                f"{test_classes.tolist()}"
            )
    elif test_classes.size == 2:
        positive = str(test_classes[int(np.argmin(test_counts))])

    x_train = design_matrix(released, domains, features)
    x_test = design_matrix(real_test, domains, features)
    classes, y_codes = np.unique(y_train, return_inverse=True)
    if classes.size == 1:
        proba = np.ones((len(real_test), 1))
    else:
        clf = make_model(model, random_state=int(random_state), n_estimators=int(n_estimators))
        # one thread: OpenMP/BLAS pools on a shared machine spin far more than they gain
        with threadpool_limits(limits=1), warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(x_train, y_codes)
            proba = np.asarray(clf.predict_proba(x_test), dtype=float)
    pred = classes[np.argmax(proba, axis=1)]
    accuracy = float(np.mean(pred == y_test))

    def score_of(label: str) -> np.ndarray:
        hit = np.flatnonzero(classes == label)
        return proba[:, hit[0]] if hit.size else np.zeros(len(real_test))

    if test_classes.size < 2:
        auc = float("nan")
    elif positive is not None:
        auc = float(roc_auc_score(y_test == positive, score_of(positive)))
    else:
        auc = float(np.mean([roc_auc_score(y_test == c, score_of(c)) for c in test_classes]))
    return {"auc": auc, "accuracy": accuracy}
