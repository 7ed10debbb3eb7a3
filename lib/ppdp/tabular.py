"""The table core shared by every table mechanism, attack and utility measure.

A table is a pandas DataFrame with quasi-identifiers (QIs) and, usually, one sensitive attribute.
This module holds what Mondrian, Anatomy, Mutual Cover, the disclosure attacks and the
information-loss and query measures all need, and nothing of any one algorithm:

* :class:`Hierarchy`: a generalization tree for a categorical QI;
* :func:`validate_table`, :class:`AttributeDomain`, :func:`build_domains`, :func:`encode_table`:
  checked input and the integer encoding of every QI;
* :func:`is_k_anonymous`, :func:`is_l_diverse`, :func:`measure_k_anonymity`,
  :func:`measure_l_diversity`: the k-anonymity and l-diversity (Mutual Cover, Definition 2) of a
  partition;
* :class:`GeneralizedTable` and :func:`generalize`: a partition published with generalized QI values
  (a range, a value set or a hierarchy node per group).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Number

import numpy as np
import pandas as pd

from ppdp._validation import check_columns

__all__ = [
    "AttributeDomain",
    "GeneralizedTable",
    "Hierarchy",
    "build_domains",
    "encode_table",
    "generalize",
    "is_k_anonymous",
    "is_l_diverse",
    "measure_k_anonymity",
    "measure_l_diversity",
    "sensitive_codes",
    "validate_table",
]


# --------------------------------------------------------------------------------------------
# Categorical hierarchies
# --------------------------------------------------------------------------------------------


class Hierarchy:
    """A generalization tree for one categorical attribute.

    Parameters
    ----------
    parents : mapping
        ``child -> parent`` for every node except the root. Leaves (nodes that are nobody's parent)
        are the attribute's values.

    Raises
    ------
    TypeError
        If ``parents`` is not a non-empty mapping.
    ValueError
        If ``parents`` does not describe one tree: several roots, a cycle, or nodes unreachable from
        the root.

    Notes
    -----
    The distance between two leaves is the information loss of generalizing both to their lowest
    common ancestor: ``dis(a, b) = |leaves(lca(a, b))| - 1`` (0 when ``a == b``), the numerator of
    Xiao and Tao's ILoss. A flat tree (all leaves under the root) gives a constant distance between
    distinct values, i.e. a rescaled 0/1 distance.

    Examples
    --------
    >>> h = Hierarchy({"BA": "College", "MS": "College", "PhD": "College",
    ...                "HS": "School", "9th": "School", "College": "Any", "School": "Any"})
    >>> h.root, h.leaves
    ('Any', ['BA', 'MS', 'PhD', 'HS', '9th'])
    >>> h.lca(["BA", "PhD"]), h.ancestors("MS")
    ('College', ['MS', 'College', 'Any'])
    >>> h.distance("BA", "PhD"), h.distance("BA", "HS")  # 3 - 1 and 5 - 1 leaves
    (2.0, 4.0)
    """

    def __init__(self, parents: Mapping[Hashable, Hashable]):
        if not isinstance(parents, Mapping) or not parents:
            raise TypeError(f"parents must be a non-empty mapping child -> parent, got {parents!r}")
        self.parents = dict(parents)
        children: dict[Hashable, list] = {}
        for child, parent in self.parents.items():
            children.setdefault(parent, []).append(child)
        roots = {p for p in children if p not in self.parents}
        if len(roots) != 1:
            raise ValueError(
                f"parents must describe one tree with a single root, found roots {sorted(map(str, roots))}"
            )
        self.root = roots.pop()
        self.children = children
        # depth-first order of the leaves, children in insertion order
        order: list = []
        stack = [self.root]
        seen = set()
        while stack:
            node = stack.pop()
            if node in seen:
                raise ValueError(f"parents contains a cycle through {node!r}")
            seen.add(node)
            kids = children.get(node)
            if kids is None:
                order.append(node)
            else:
                stack.extend(reversed(kids))
        if len(seen) != len(self.parents) + 1:
            raise ValueError("parents contains nodes unreachable from the root")
        self.leaves = order
        self._rank = {leaf: i for i, leaf in enumerate(order)}
        self._leaf_span: dict[Hashable, tuple[int, int]] = {}
        for node in [*self.parents, self.root]:
            self._leaf_span[node] = self._span(node)

    def _span(self, node) -> tuple[int, int]:
        if node in self._rank:
            return self._rank[node], self._rank[node]
        lo, hi = None, None
        stack = [node]
        while stack:
            n = stack.pop()
            if n in self._rank:
                r = self._rank[n]
                lo = r if lo is None else min(lo, r)
                hi = r if hi is None else max(hi, r)
            else:
                stack.extend(self.children[n])
        return lo, hi

    def ancestors(self, node) -> list:
        """``node`` and its ancestors up to the root."""
        path = [node]
        while node in self.parents:
            node = self.parents[node]
            path.append(node)
        return path

    def lca(self, values) -> Hashable:
        """Lowest common ancestor of the given leaves."""
        values = list(values)
        if not values:
            raise ValueError("lca needs at least one value")
        common = self.ancestors(values[0])
        for v in values[1:]:
            anc = set(self.ancestors(v))
            common = [n for n in common if n in anc]
        return common[0]

    def leaves_under(self, node) -> list:
        lo, hi = self._leaf_span[node]
        return self.leaves[lo : hi + 1]

    def n_leaves_under(self, node) -> int:
        lo, hi = self._leaf_span[node]
        return hi - lo + 1

    def distance(self, a, b) -> float:
        """``|leaves(lca(a, b))| - 1``, 0 when ``a == b``."""
        if a == b:
            return 0.0
        return float(self.n_leaves_under(self.lca([a, b])) - 1)


# --------------------------------------------------------------------------------------------
# Validation and encoding shared by Mondrian, Anatomy and Mutual Cover
# --------------------------------------------------------------------------------------------


def validate_table(
    table,
    qi: Sequence[str],
    sensitive: str | None = None,
    *,
    categorical: Sequence[str] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> tuple[list[str], set[str], dict[str, Hierarchy]]:
    """Check a microdata table and its attribute roles; return ``(qi, categorical, hierarchies)``.

    Parameters
    ----------
    table : pandas.DataFrame
        The microdata, one row per person, with unique column names.
    qi : sequence of str
        The quasi-identifier columns, distinct and non-empty.
    sensitive : str, optional
        The sensitive column, not among ``qi``.
    categorical : sequence of str, default ()
        The QIs to treat as categorical; every other QI must be numeric (continuous).
    hierarchies : mapping str -> Hierarchy, optional
        A generalization tree per categorical QI; the columns named here are categorical too.

    Returns
    -------
    qi : list of str
        The QI names as a list.
    categorical : set of str
        The categorical QIs: ``categorical`` and the keys of ``hierarchies``.
    hierarchies : dict of str -> Hierarchy
        A copy of ``hierarchies`` (empty if none).

    Raises
    ------
    TypeError
        For a table that is not a DataFrame, ``qi`` not a sequence of names, a ``hierarchies``
        value that is not a :class:`Hierarchy`, or non-numeric values in a continuous QI.
    ValueError
        For duplicated column names, an empty table, an empty ``qi``, a QI listed twice, a QI or
        sensitive column missing from the table, a sensitive column also in ``qi``, categorical
        columns that are not QIs, NaN or infinite values, or categorical values missing from a
        hierarchy. The message names the offending parameter and value.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"age": [23, 25, 31, 35], "edu": ["BA", "MS", "HS", "HS"],
    ...                       "disease": ["flu", "cold", "flu", "hiv"]})
    >>> validate_table(table, ["age", "edu"], "disease", categorical=["edu"])
    (['age', 'edu'], {'edu'}, {})
    >>> validate_table(table, ["age", "edu"], "disease")
    Traceback (most recent call last):
    ...
    TypeError: continuous QI column 'edu' must be numeric, ...
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame, got {type(table).__name__}")
    duplicated = list(dict.fromkeys(table.columns[table.columns.duplicated()].tolist()))
    if duplicated:
        # table[name] would be a DataFrame and a release could not say which column is which
        raise ValueError(
            f"table has duplicated column names {duplicated}; every column needs a unique name"
        )
    if len(table) == 0:
        raise ValueError("table is empty")
    qi = check_columns(qi, name="qi", table=table)
    if sensitive is not None:
        if sensitive not in table.columns:
            raise ValueError(
                f"sensitive column {sensitive!r} is not in the table; it has {list(table.columns)}"
            )
        if sensitive in qi:
            raise ValueError(f"sensitive column {sensitive!r} is also listed in qi")
    hierarchies = dict(hierarchies or {})
    categorical = set(categorical) | set(hierarchies)
    unknown = sorted(categorical - set(qi))
    if unknown:
        raise ValueError(f"categorical/hierarchies name columns {unknown} that are not in qi {qi}")
    for name, h in hierarchies.items():
        if not isinstance(h, Hierarchy):
            raise TypeError(f"hierarchies[{name!r}] must be a Hierarchy, got {type(h).__name__}")
    cols = [*qi, sensitive] if sensitive is not None else qi
    for c in cols:
        if table[c].isna().any():
            rows = list(table.index[table[c].isna()][:5])
            raise ValueError(
                f"column {c!r} holds NaN/missing values (first rows {rows}); drop or impute them first"
            )
    for c in qi:
        col = table[c]
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            # an infinite value would widen every range it falls in to "x-inf" and has no
            # finite distance to the others
            infinite = np.isinf(col.to_numpy(dtype=float))
            if infinite.any():
                rows = list(table.index[infinite][:5])
                raise ValueError(
                    f"QI column {c!r} holds infinite values (first rows {rows}); only finite "
                    "numbers are allowed"
                )
    for c in qi:
        if c in categorical:
            if c in hierarchies:
                leaves = set(hierarchies[c].leaves)
                bad = sorted({v for v in pd.unique(table[c]) if v not in leaves}, key=str)
                if bad:
                    raise ValueError(
                        f"categorical column {c!r} has values {bad[:5]} that are not leaves of its hierarchy"
                    )
        elif not (
            pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c])
        ):
            raise TypeError(
                f"continuous QI column {c!r} must be numeric, got dtype {table[c].dtype}; "
                "list it in categorical= if it is categorical"
            )
    return qi, categorical, hierarchies


@dataclass
class AttributeDomain:
    """The global domain of one QI: sorted values, kind and (optional) hierarchy.

    ``values[code]`` is the value of a code; numeric domains are sorted ascending, categorical
    ones by value (0/1 distance) or in the hierarchy's leaf order.

    Attributes
    ----------
    name : str
        The column name.
    kind : {"numeric", "categorical"}
        Numeric values are compared by their absolute difference, categorical ones by the 0/1
        distance or, with a hierarchy, by :meth:`Hierarchy.distance`.
    values : numpy.ndarray
        The domain values, one per code.
    hierarchy : Hierarchy or None, default None
        The generalization tree of a categorical domain.

    Examples
    --------
    >>> import numpy as np
    >>> age = AttributeDomain("age", "numeric", np.array([23, 25, 31, 35]))
    >>> age.size, age.span, age.domain_size  # domain_size = 35 - 23 + 1 for integers
    (4, 12.0, 13.0)
    >>> age.encode([31, 23, 31]).tolist()
    [2, 0, 2]
    >>> age.distance_matrix(np.array([0]), np.array([1, 3])).tolist()
    [[2.0, 12.0]]
    """

    name: str
    kind: str  # "numeric" or "categorical"
    values: np.ndarray
    hierarchy: Hierarchy | None = None

    @property
    def size(self) -> int:
        return len(self.values)

    @property
    def integer(self) -> bool:
        """Numeric with integral values only (then the group range is an integer grid)."""
        return self.kind == "numeric" and bool(np.all(np.mod(self.values, 1) == 0))

    @property
    def span(self) -> float:
        """Largest distance between two values of the domain (``dis_max(A, T)``)."""
        if self.kind == "numeric":
            return float(self.values[-1] - self.values[0])
        if self.hierarchy is not None:
            return float(self.hierarchy.n_leaves_under(self.hierarchy.lca(self.values)) - 1)
        return 1.0 if self.size > 1 else 0.0

    @property
    def domain_size(self) -> float:
        """``|D_A|`` of ILoss: ``max - min + 1`` for integer attributes (the paper's Table 1),
        ``max - min`` for real-valued ones, the number of values (leaves) for categorical ones."""
        if self.kind == "numeric":
            width = float(self.values[-1] - self.values[0])
            return width + 1.0 if self.integer else max(width, 0.0)
        if self.hierarchy is not None:
            return float(len(self.hierarchy.leaves))
        return float(self.size)

    def encode(self, column) -> np.ndarray:
        """Codes of ``column``'s values; raises ValueError for values outside the domain."""
        col = np.asarray(column)
        if self.kind == "numeric":
            codes = np.searchsorted(self.values, col)
            codes_c = np.minimum(codes, self.size - 1)
            ok = self.values[codes_c] == col
        else:
            lookup = {v: i for i, v in enumerate(self.values.tolist())}
            codes_c = np.fromiter(
                (lookup.get(v, -1) for v in col.tolist()), dtype=np.int64, count=len(col)
            )
            ok = codes_c >= 0
        if not ok.all():
            bad = col[~ok][:5].tolist()
            raise ValueError(f"column {self.name!r} has values {bad} outside its domain")
        return codes_c.astype(np.int64)

    def distance_matrix(self, a_codes: np.ndarray, b_codes: np.ndarray) -> np.ndarray:
        """``dis(values[a], values[b])`` for every pair (Definitions 6 and 7)."""
        if self.kind == "numeric":
            return np.abs(self.values[a_codes][:, None] - self.values[b_codes][None, :]).astype(
                float
            )
        if self.hierarchy is None:
            return (a_codes[:, None] != b_codes[None, :]).astype(float)
        h = self.hierarchy
        vals = self.values
        return np.array(
            [[h.distance(vals[i], vals[j]) for j in b_codes] for i in a_codes], dtype=float
        )


def build_domains(
    table: pd.DataFrame, qi: Sequence[str], categorical, hierarchies
) -> dict[str, AttributeDomain]:
    """One :class:`AttributeDomain` per QI from the values present in ``table``.

    Parameters
    ----------
    table : pandas.DataFrame
        The microdata, checked by :func:`validate_table`.
    qi : sequence of str
        The quasi-identifier columns, in the order of the returned dict.
    categorical : collection of str
        The categorical QIs (with or without a hierarchy); the others get numeric domains.
    hierarchies : mapping str -> Hierarchy
        A generalization tree per categorical QI that has one.

    Returns
    -------
    dict of str -> AttributeDomain
        Numeric domains hold the sorted distinct values; categorical ones the values sorted (as text
        when they cannot be compared), or the hierarchy's leaves present in ``table`` in leaf order.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"age": [31, 23, 25, 23], "edu": ["MS", "BA", "HS", "BA"]})
    >>> domains = build_domains(table, ["age", "edu"], {"edu"}, {})
    >>> domains["age"].kind, domains["age"].values.tolist()
    ('numeric', [23, 25, 31])
    >>> domains["edu"].kind, domains["edu"].values.tolist()
    ('categorical', ['BA', 'HS', 'MS'])
    """
    domains = {}
    for c in qi:
        if c in hierarchies:
            h = hierarchies[c]
            present = set(pd.unique(table[c]).tolist())
            vals = np.array([leaf for leaf in h.leaves if leaf in present], dtype=object)
            domains[c] = AttributeDomain(c, "categorical", vals, h)
        elif c in categorical:
            vals = pd.unique(table[c])
            try:
                vals = np.array(sorted(vals.tolist()), dtype=object)
            except TypeError:
                vals = np.array(sorted(vals.tolist(), key=str), dtype=object)
            domains[c] = AttributeDomain(c, "categorical", vals, None)
        else:
            domains[c] = AttributeDomain(c, "numeric", np.unique(table[c].to_numpy()), None)
    return domains


def encode_table(
    table: pd.DataFrame,
    qi: Sequence[str],
    *,
    categorical: Sequence[str] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
    domains: Mapping[str, AttributeDomain] | None = None,
) -> tuple[np.ndarray, dict[str, AttributeDomain]]:
    """Integer codes (n, d) of the QIs and their domains (built from ``table`` unless given).

    Parameters
    ----------
    table : pandas.DataFrame
        The microdata.
    qi : sequence of str
        The quasi-identifier columns; column ``j`` of the codes is ``qi[j]``.
    categorical : sequence of str, default ()
        The categorical QIs; see :func:`validate_table`.
    hierarchies : mapping str -> Hierarchy, optional
        A generalization tree per categorical QI.
    domains : mapping str -> AttributeDomain, optional
        Domains to encode with (for instance those of a larger table); by default
        :func:`build_domains` of ``table``.

    Returns
    -------
    codes : numpy.ndarray of int64, shape (n, len(qi))
        ``codes[i, j]`` is the code of row ``i``'s value of ``qi[j]`` in its domain.
    domains : dict of str -> AttributeDomain
        The domains used.

    Raises
    ------
    TypeError
        As :func:`validate_table`, for a table or QI roles of the wrong type.
    ValueError
        As :func:`validate_table`, for an invalid table or QI roles; also for a value outside a
        given domain.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"age": [31, 23, 25, 23], "edu": ["MS", "BA", "HS", "BA"]})
    >>> codes, domains = encode_table(table, ["age", "edu"], categorical=["edu"])
    >>> codes.tolist()
    [[2, 2], [0, 0], [1, 1], [0, 0]]
    >>> domains["edu"].values[codes[:, 1]].tolist()
    ['MS', 'BA', 'HS', 'BA']
    """
    qi, categorical, hierarchies = validate_table(
        table, qi, categorical=categorical, hierarchies=hierarchies
    )
    if domains is None:
        domains = build_domains(table, qi, categorical, hierarchies)
    codes = np.column_stack([domains[c].encode(table[c].to_numpy()) for c in qi])
    return codes, dict(domains)


def sensitive_codes(table: pd.DataFrame, sensitive: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of the column ``sensitive`` and its sorted distinct values.

    ``uniques[codes]`` gives the column back.

    Parameters
    ----------
    table : pandas.DataFrame
        The table holding the column.
    sensitive : str
        The sensitive column.

    Returns
    -------
    codes : numpy.ndarray of int64, shape (n,)
        The code ``0..S-1`` of every row's value.
    uniques : numpy.ndarray, shape (S,)
        The distinct values, sorted.

    Raises
    ------
    TypeError
        For a column whose values cannot be ordered together (numbers and strings); the message
        names it.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"disease": ["flu", "cold", "flu", "hiv"]})
    >>> codes, uniques = sensitive_codes(table, "disease")
    >>> codes.tolist(), uniques.tolist()
    ([1, 0, 1, 2], ['cold', 'flu', 'hiv'])
    """
    values = table[sensitive].to_numpy()
    try:
        uniques, codes = np.unique(values, return_inverse=True)
    except TypeError:
        kinds = sorted({"number" if isinstance(v, Number) else type(v).__name__ for v in values})
        raise TypeError(
            f"sensitive column {sensitive!r} mixes value types {kinds}; give it values of one "
            "type (for instance all strings)"
        ) from None
    return codes.astype(np.int64), uniques


def is_l_diverse(sensitive_values, groups, l: float) -> bool:  # noqa: E741 (the paper's l)
    """Definition 2: in every group each sensitive value makes up at most ``1/l`` of the group.

    Parameters
    ----------
    sensitive_values : array_like, shape (n,)
        The sensitive value of every row.
    groups : array_like, shape (n,)
        The group id of every row.
    l : float
        The diversity required.

    Returns
    -------
    bool
        Whether the partition is l-diverse.

    Examples
    --------
    >>> groups = [0, 0, 0, 1, 1, 1]
    >>> disease = ["flu", "cold", "flu", "hiv", "flu", "cold"]
    >>> is_l_diverse(disease, groups, 1.5)  # flu is 2/3 of group 0
    True
    >>> is_l_diverse(disease, groups, 2)
    False
    """
    frame = pd.DataFrame({"g": np.asarray(groups), "s": np.asarray(sensitive_values)})
    sizes = frame.groupby("g").size()
    top = frame.groupby(["g", "s"]).size().groupby(level=0).max()
    return bool((top * l <= sizes).all())


def is_k_anonymous(groups, k: int) -> bool:
    """Every group holds at least ``k`` tuples.

    Parameters
    ----------
    groups : array_like, shape (n,)
        The group id of every row.
    k : int
        The smallest group size allowed.

    Returns
    -------
    bool
        Whether the partition is k-anonymous.

    Examples
    --------
    >>> is_k_anonymous([0, 0, 0, 1, 1, 1], 3), is_k_anonymous([0, 0, 0, 1, 1, 1], 4)
    (True, False)
    """
    return bool(pd.Series(np.asarray(groups)).value_counts().min() >= k)


def measure_k_anonymity(groups) -> tuple[int, int]:
    """The smallest group size and the id of a group of that size (``groups``: ids ``0..G-1``).

    Parameters
    ----------
    groups : array_like of int, shape (n,)
        The group id ``0..G-1`` of every row; ids without rows are ignored.

    Returns
    -------
    k : int
        The size of the smallest group: the partition is k-anonymous for this ``k`` and no larger.
    group : int
        The id of the first group of that size.

    Examples
    --------
    >>> measure_k_anonymity([0, 0, 0, 1, 1, 2, 2, 2])
    (2, 1)
    """
    sizes = np.bincount(np.asarray(groups, dtype=np.int64))
    sizes = np.where(sizes > 0, sizes, np.iinfo(np.int64).max)
    g = int(np.argmin(sizes))
    return int(sizes[g]), g


def measure_l_diversity(groups, sensitive_codes) -> tuple[float, int]:
    """The largest ``l`` for which the partition is l-diverse in the sense of Definition 2.

    A group of ``m`` tuples whose most frequent sensitive value occurs ``c`` times is l-diverse
    for every ``l <= m / c``; the partition's value is the smallest ``m / c``.

    Parameters
    ----------
    groups : array_like of int, shape (n,)
        The group id ``0..G-1`` of every row.
    sensitive_codes : array_like of int, shape (n,)
        The integer code ``0..S-1`` of every row's sensitive value (see :func:`sensitive_codes`).

    Returns
    -------
    l : float
        The smallest ``m / c`` over the groups (ids without rows are ignored).
    group : int
        The first group where it is reached.

    Examples
    --------
    >>> groups = [0, 0, 0, 1, 1, 1]
    >>> codes = [1, 0, 1, 2, 1, 0]  # flu, cold, flu | hiv, flu, cold
    >>> measure_l_diversity(groups, codes)  # group 0: 3 tuples, flu twice
    (1.5, 0)
    """
    groups = np.asarray(groups, dtype=np.int64)
    codes = np.asarray(sensitive_codes, dtype=np.int64)
    n_groups, n_codes = int(groups.max()) + 1, int(codes.max()) + 1
    counts = np.bincount(groups * n_codes + codes, minlength=n_groups * n_codes)
    counts = counts.reshape(n_groups, n_codes)
    sizes, top = counts.sum(axis=1), counts.max(axis=1)
    ratio = np.divide(sizes, top, out=np.full(n_groups, np.inf), where=top > 0)
    g = int(np.argmin(ratio))
    return float(ratio[g]), g


# --------------------------------------------------------------------------------------------
# Generalized table
# --------------------------------------------------------------------------------------------


@dataclass
class GeneralizedTable:
    """A partition published with generalized QI values (one region per group).

    Attributes
    ----------
    qi : list of str
        The QI names.
    domains : dict of AttributeDomain
        The domain of every QI, by name.
    groups : ndarray (n,)
        Group id of every row, in the row order of the input table.
    membership : dict name -> bool ndarray (n_groups, domain size)
        Which domain values each group's generalized value covers (the interval ``[lo, hi]`` of a
        numeric QI, the value set or the hierarchy node of a categorical one).
    sensitive : ndarray (n,) or None
        The unchanged sensitive value of every row.
    labels : dict name -> list of str
        The published text of each group's generalized value (``"28-33"``, ``"{1,2}"``, a node).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> h = Hierarchy({"BA": "College", "MS": "College", "HS": "School", "9th": "School",
    ...                "College": "Any", "School": "Any"})
    >>> table = pd.DataFrame({"age": [23, 25, 27, 31, 35, 39],
    ...                       "edu": ["BA", "MS", "BA", "HS", "9th", "HS"],
    ...                       "disease": ["flu", "cold", "flu", "hiv", "flu", "cold"]})
    >>> codes, domains = encode_table(table, ["age", "edu"], hierarchies={"edu": h})
    >>> released = generalize(codes, np.array([0, 0, 0, 1, 1, 1]), ["age", "edu"], domains,
    ...                       table["disease"])
    >>> released.n_groups
    2
    >>> released.to_frame("disease")
         age      edu disease
    0  23-27  College     flu
    1  23-27  College    cold
    2  23-27  College     flu
    3  31-39   School     hiv
    4  31-39   School     flu
    5  31-39   School    cold
    """

    qi: list[str]
    domains: dict[str, AttributeDomain]
    groups: np.ndarray
    membership: dict[str, np.ndarray]
    sensitive: np.ndarray | None = None
    labels: dict[str, list[str]] = field(default_factory=dict)

    @property
    def n_groups(self) -> int:
        return int(self.groups.max()) + 1 if len(self.groups) else 0

    def to_frame(self, sensitive_name: str | None = "sensitive") -> pd.DataFrame:
        """The published table: one row per tuple, QIs as text (``"28-33"``, ``"{1,2}"``, node)."""
        data = {c: np.asarray(self.labels[c], dtype=object)[self.groups] for c in self.qi}
        if self.sensitive is not None and sensitive_name:
            data[sensitive_name] = self.sensitive
        return pd.DataFrame(data)


def generalize(
    codes: np.ndarray,
    groups: np.ndarray,
    qi: Sequence[str],
    domains: Mapping[str, AttributeDomain],
    sensitive=None,
) -> GeneralizedTable:
    """Generalize each group's QI values (range, value set or hierarchy node).

    A numeric QI is published as the range ``"lo-hi"`` of its group's values (a single value if
    they are all equal), a categorical one as the set ``"{a,b}"`` of its group's values or, with a
    hierarchy, as their lowest common ancestor.

    Parameters
    ----------
    codes : numpy.ndarray of int, shape (n, len(qi))
        The QI codes of the rows, as from :func:`encode_table`.
    groups : numpy.ndarray of int, shape (n,)
        The group id ``0..G-1`` of every row.
    qi : sequence of str
        The QI names, in the column order of ``codes``.
    domains : mapping str -> AttributeDomain
        The domain of every QI.
    sensitive : array_like, shape (n,), optional
        The sensitive values, published unchanged.

    Returns
    -------
    GeneralizedTable
        The groups, each QI's covered domain values and labels per group, and the sensitive values.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> table = pd.DataFrame({"age": [23, 25, 27, 31, 35, 39],
    ...                       "edu": ["BA", "MS", "BA", "HS", "HS", "9th"]})
    >>> codes, domains = encode_table(table, ["age", "edu"], categorical=["edu"])
    >>> released = generalize(codes, np.array([0, 0, 0, 1, 1, 1]), ["age", "edu"], domains)
    >>> released.labels
    {'age': ['23-27', '31-39'], 'edu': ['{BA,MS}', '{9th,HS}']}
    >>> released.membership["age"].astype(int)
    array([[1, 1, 1, 0, 0, 0],
           [0, 0, 0, 1, 1, 1]])
    """
    groups = np.asarray(groups, dtype=np.int64)
    n_groups = int(groups.max()) + 1
    membership, labels = {}, {}
    for a, c in enumerate(qi):
        dom = domains[c]
        present = np.zeros((n_groups, dom.size), dtype=bool)
        present[groups, codes[:, a]] = True
        if dom.kind == "numeric":
            lo = present.argmax(axis=1)
            hi = dom.size - 1 - present[:, ::-1].argmax(axis=1)
            idx = np.arange(dom.size)
            m = (idx[None, :] >= lo[:, None]) & (idx[None, :] <= hi[:, None])
            labs = [
                _fmt(dom.values[a_])
                if a_ == b_
                else f"{_fmt(dom.values[a_])}-{_fmt(dom.values[b_])}"
                for a_, b_ in zip(lo, hi, strict=True)
            ]
        elif dom.hierarchy is None:
            m = present
            labs = [
                "{" + ",".join(_fmt(v) for v in dom.values[row]) + "}"
                if row.sum() > 1
                else _fmt(dom.values[row][0])
                for row in present
            ]
        else:
            h = dom.hierarchy
            m = np.zeros_like(present)
            labs = []
            pos = {v: i for i, v in enumerate(dom.values.tolist())}
            for g in range(n_groups):
                node = h.lca(dom.values[present[g]].tolist())
                for leaf in h.leaves_under(node):
                    if leaf in pos:
                        m[g, pos[leaf]] = True
                labs.append(str(node))
        membership[c] = m
        labels[c] = labs
    sens = None if sensitive is None else np.asarray(sensitive)
    return GeneralizedTable(list(qi), dict(domains), groups, membership, sens, labels)


def _fmt(v) -> str:
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return str(int(v))
    return str(v)
