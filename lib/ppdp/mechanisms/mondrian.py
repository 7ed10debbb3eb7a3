"""Mondrian multidimensional partitioning under k-anonymity and l-diversity, and generalization.

Mondrian (LeFevre, DeWitt and Ramakrishnan, ICDE 2006) splits a table recursively at the median
of one quasi-identifier (QI) at a time. Mutual Cover (Li, Wang and He, Algorithm 2,
``partition_table``) uses the same recursion as its partition step and accepts a cut only if both
halves stay l-diverse in the sense of its Definition 2 (every sensitive value makes up at most
``1/l`` of a group). The same partition, published with generalized QI values, is the
generalization baseline of the paper's experiments (Figs. 5, 6b and 7b).

Choices where the sources leave room (each one is a documented choice, not a guess at a number):

* The attribute to cut is the one with the widest *normalized* range in the part being split
  (LeFevre et al.); when the cut at its median is refused, the next widest is tried (Algorithm 2,
  lines 2-14). The authors' released code orders attributes by unnormalized variance instead.
* The cut is ``t[A] <= median`` versus ``t[A] > median`` (Algorithm 2, lines 5-6) with the lower
  median, so a cut whose median equals the maximum is refused.
* Categorical attributes are ordered (by value for 0/1 distance, by the depth-first order of the
  leaves for a :class:`Hierarchy`) and cut at the median of that order. A categorical QI is then
  generalized to the set of its values in the group (0/1 distance) or to the lowest common
  ancestor of those values in the hierarchy. Numeric QIs are generalized to ``[min, max]``.
* ``refine="anatomy"`` splits every final group further into groups of ``l`` (or ``l + 1``)
  tuples with distinct sensitive values, as the authors' released Mutual Cover code does after
  its median cuts. The paper's Algorithm 2 does not show this step; it is off by default.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ppdp.guarantees import GuaranteeCheck, enforce

__all__ = [
    "AttributeDomain",
    "GeneralizedTable",
    "Hierarchy",
    "Mondrian",
    "encode_table",
    "is_k_anonymous",
    "is_l_diverse",
    "measure_k_anonymity",
    "measure_l_diversity",
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

    Notes
    -----
    The distance between two leaves is the information loss of generalizing both to their lowest
    common ancestor: ``dis(a, b) = |leaves(lca(a, b))| - 1`` (0 when ``a == b``), the numerator of
    Xiao and Tao's ILoss. A flat tree (all leaves under the root) gives a constant distance between
    distinct values, i.e. a rescaled 0/1 distance.
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

    Raises ``TypeError``/``ValueError`` naming the offending parameter and value: a table that is
    not a DataFrame or has duplicated column names, an empty or duplicated QI list, a QI or
    sensitive column missing from the table, NaN or infinite values, non-numeric values in a
    continuous QI, categorical values missing from a hierarchy.
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame, got {type(table).__name__}")
    duplicated = list(dict.fromkeys(table.columns[table.columns.duplicated()].tolist()))
    if duplicated:
        # table[name] would be a DataFrame and a release could not say which column is which
        raise ValueError(
            f"table has duplicated column names {duplicated}; every column needs a unique name"
        )
    if isinstance(qi, str) or not isinstance(qi, Sequence) or len(qi) == 0:
        raise TypeError(f"qi must be a non-empty sequence of column names, got {qi!r}")
    qi = list(qi)
    if len(set(qi)) != len(qi):
        raise ValueError(f"qi {qi!r} lists a column twice")
    if len(table) == 0:
        raise ValueError("table is empty")
    missing = [c for c in qi if c not in table.columns]
    if missing:
        raise ValueError(f"qi columns {missing} are not in the table; it has {list(table.columns)}")
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
    """One :class:`AttributeDomain` per QI from the values present in ``table``."""
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
    """Integer codes (n, d) of the QIs and their domains (built from ``table`` unless given)."""
    qi, categorical, hierarchies = validate_table(
        table, qi, categorical=categorical, hierarchies=hierarchies
    )
    if domains is None:
        domains = build_domains(table, qi, categorical, hierarchies)
    codes = np.column_stack([domains[c].encode(table[c].to_numpy()) for c in qi])
    return codes, dict(domains)


def _sensitive_codes(table: pd.DataFrame, sensitive: str) -> tuple[np.ndarray, np.ndarray]:
    uniques, codes = np.unique(table[sensitive].to_numpy(), return_inverse=True)
    return codes.astype(np.int64), uniques


def is_l_diverse(sensitive_values, groups, l: float) -> bool:  # noqa: E741 (the paper's l)
    """Definition 2: in every group each sensitive value makes up at most ``1/l`` of the group."""
    frame = pd.DataFrame({"g": np.asarray(groups), "s": np.asarray(sensitive_values)})
    sizes = frame.groupby("g").size()
    top = frame.groupby(["g", "s"]).size().groupby(level=0).max()
    return bool((top * l <= sizes).all())


def is_k_anonymous(groups, k: int) -> bool:
    """Every group holds at least ``k`` tuples."""
    return bool(pd.Series(np.asarray(groups)).value_counts().min() >= k)


def measure_k_anonymity(groups) -> tuple[int, int]:
    """The smallest group size and the id of a group of that size (``groups``: ids ``0..G-1``)."""
    sizes = np.bincount(np.asarray(groups, dtype=np.int64))
    sizes = np.where(sizes > 0, sizes, np.iinfo(np.int64).max)
    g = int(np.argmin(sizes))
    return int(sizes[g]), g


def measure_l_diversity(groups, sensitive_codes) -> tuple[float, int]:
    """The largest ``l`` for which the partition is l-diverse in the sense of Definition 2.

    A group of ``m`` tuples whose most frequent sensitive value occurs ``c`` times is l-diverse
    for every ``l <= m / c``; the partition's value is the smallest ``m / c``. Returns that value
    and the group where it is reached. ``groups`` are ids ``0..G-1`` and ``sensitive_codes``
    integer codes ``0..S-1``.
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
    domains : dict of AttributeDomain
    groups : ndarray (n,)
        Group id of every row, in the row order of the input table.
    membership : dict name -> bool ndarray (n_groups, domain size)
        Which domain values each group's generalized value covers (the interval ``[lo, hi]`` of a
        numeric QI, the value set or the hierarchy node of a categorical one).
    sensitive : ndarray (n,) or None
        The unchanged sensitive value of every row.
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
    """Generalize each group's QI values (range, value set or hierarchy node)."""
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


# --------------------------------------------------------------------------------------------
# Mondrian
# --------------------------------------------------------------------------------------------


class Mondrian:
    """Mondrian median partitioning under k-anonymity and/or l-diversity (Algorithm 2).

    Parameters
    ----------
    qi : sequence of str
        Quasi-identifier columns.
    sensitive : str, optional
        Sensitive column; required when ``l`` is given.
    k : int, optional
        Every group holds at least ``k`` tuples.
    l : float, optional
        Every group is l-diverse (Definition 2): each sensitive value at most ``1/l`` of it.
    categorical : sequence of str
        QIs compared with 0/1 distance (all others must be numeric and use ``|a - b|``).
    hierarchies : mapping name -> Hierarchy
        Categorical QIs with a generalization tree.
    refine : {"none", "anatomy"}
        ``"none"`` (default) keeps the groups of Algorithm 2. ``"anatomy"`` splits every final
        group further with Anatomy's group creation (:func:`ppdp.mechanisms.anatomy.anatomy_groups`)
        into groups of ``l`` (or ``l + 1``) tuples with distinct sensitive values, as the authors'
        released code does after its median cuts; it needs ``l``. Not described in the paper's text.

    Attributes
    ----------
    groups_ : ndarray (n,)
        Group id of every row (row order of the fitted table); ids follow the depth-first order
        of the recursion, lower halves first.
    n_groups_ : int
    domains_ : dict of AttributeDomain
    codes_ : ndarray (n, d)
        QI codes of the fitted table.
    generalized_ : GeneralizedTable
        Set only once the partition has passed :meth:`guarantee_checks`.

    Notes
    -----
    The published QIs are text labels (``"28-33"``, ``"{a,b}"``, a hierarchy node), so their
    input dtype cannot be kept; the sensitive column keeps its input dtype.
    """

    def __init__(
        self,
        qi: Sequence[str],
        sensitive: str | None = None,
        *,
        k: int | None = None,
        l: float | None = None,  # noqa: E741 (the paper's l)
        categorical: Sequence[str] = (),
        hierarchies: Mapping[str, Hierarchy] | None = None,
        refine: str = "none",
    ):
        if refine not in ("none", "anatomy"):
            raise ValueError(f"refine must be 'none' or 'anatomy', got {refine!r}")
        if refine == "anatomy" and l is None:
            raise ValueError("refine='anatomy' needs l")
        if k is None and l is None:
            raise ValueError("give k (k-anonymity), l (l-diversity) or both; got neither")
        if k is not None and (isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1):
            raise ValueError(f"k must be a positive integer, got {k!r}")
        if l is not None:
            if (
                isinstance(l, bool)
                or not isinstance(l, int | float | np.integer | np.floating)
                or not l >= 1
            ):
                raise ValueError(f"l must be a number >= 1, got {l!r}")
            if sensitive is None:
                raise ValueError("l-diversity needs the sensitive column: pass sensitive=")
        self.qi = qi
        self.sensitive = sensitive
        self.k = k
        self.l = l
        self.categorical = tuple(categorical)
        self.hierarchies = dict(hierarchies or {})
        self.refine = refine

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, table: pd.DataFrame) -> Mondrian:
        qi, categorical, hierarchies = validate_table(
            table,
            self.qi,
            self.sensitive,
            categorical=self.categorical,
            hierarchies=self.hierarchies,
        )
        codes, domains = encode_table(table, qi, categorical=categorical, hierarchies=hierarchies)
        n = len(table)
        if self.k is not None and self.k > n:
            raise ValueError(f"k={self.k} is larger than the number of tuples ({n})")
        sens = None
        if self.sensitive is not None:
            sens, uniques = _sensitive_codes(table, self.sensitive)
            if self.l is not None:
                if self.l > len(uniques):
                    raise ValueError(
                        f"l={self.l} is larger than the number of distinct sensitive values "
                        f"({len(uniques)}) of column {self.sensitive!r}"
                    )
                top = np.bincount(sens).max()
                if top * self.l > n:
                    raise ValueError(
                        f"the table itself is not {self.l}-diverse: the most frequent value of "
                        f"{self.sensitive!r} covers {top} of {n} tuples (more than 1/l); no l-diverse "
                        "partition exists"
                    )
        # nothing of an earlier fit may be released if this one fails its checks
        self.__dict__.pop("generalized_", None)
        self.groups_ = self._partition(codes, sens, domains, qi)
        if self.refine == "anatomy":
            self.groups_ = self._refine(self.groups_, sens)
        self.n_groups_ = int(self.groups_.max()) + 1
        self.codes_ = codes
        self.domains_ = domains
        self.qi_ = qi
        self.sensitive_codes_ = sens
        enforce(self.guarantee_checks())
        sens_values = table[self.sensitive].to_numpy() if self.sensitive is not None else None
        self.sensitive_dtype_ = table[self.sensitive].dtype if self.sensitive is not None else None
        self.generalized_ = generalize(codes, self.groups_, qi, domains, sens_values)
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """k-anonymity (smallest group) and l-diversity (Definition 2) of the fitted partition.

        The generalized table publishes one region per group, so its equivalence classes are
        the groups (or unions of groups with equal regions, which only makes them larger).
        """
        if not hasattr(self, "groups_"):
            raise RuntimeError("call fit(table) before guarantee_checks()")
        checks = []
        if self.k is not None:
            size, g = measure_k_anonymity(self.groups_)
            checks.append(
                GuaranteeCheck(
                    "Mondrian", "k-anonymity", float(self.k), float(size), "at_least", f"group {g}"
                )
            )
        if self.l is not None:
            value, g = measure_l_diversity(self.groups_, self.sensitive_codes_)
            checks.append(
                GuaranteeCheck(
                    "Mondrian", "l-diversity", float(self.l), value, "at_least", f"group {g}"
                )
            )
        return checks

    def _accept(self, sens, part: np.ndarray, n_sens: int) -> bool:
        if len(part) == 0:
            return False
        if self.k is not None and len(part) < self.k:
            return False
        if self.l is not None:
            top = np.bincount(sens[part], minlength=n_sens).max()
            if top * self.l > len(part):
                return False
        return True

    def _partition(self, codes, sens, domains, qi) -> np.ndarray:
        n, d = codes.shape
        spans = np.array([self._width(domains[c], np.arange(domains[c].size)) for c in qi])
        n_sens = int(sens.max()) + 1 if sens is not None else 0
        groups = np.empty(n, dtype=np.int64)
        next_id = 0
        stack = [np.arange(n)]
        while stack:
            part = stack.pop()
            sub = codes[part]
            widths = np.array([self._width(domains[c], sub[:, a]) for a, c in enumerate(qi)])
            norm = np.divide(widths, spans, out=np.zeros(d), where=spans > 0)
            order = np.argsort(-norm, kind="stable")
            split = None
            for a in order:
                if norm[a] <= 0:
                    break
                col = sub[:, a]
                median = np.partition(col, (len(col) - 1) // 2)[(len(col) - 1) // 2]
                low = col <= median
                small, big = part[low], part[~low]
                if self._accept(sens, small, n_sens) and self._accept(sens, big, n_sens):
                    split = (small, big)
                    break
            if split is None:
                groups[part] = next_id
                next_id += 1
            else:
                # push the upper half first so that the lower half is numbered first
                stack.append(split[1])
                stack.append(split[0])
        return groups

    def _refine(self, groups: np.ndarray, sens: np.ndarray) -> np.ndarray:
        from ppdp.mechanisms.anatomy import anatomy_groups

        l_div = int(np.ceil(self.l))
        out = np.empty_like(groups)
        next_id = 0
        order = np.argsort(groups, kind="stable")
        bounds = np.cumsum(np.bincount(groups))[:-1]
        for rows in np.split(order, bounds):
            local = np.unique(sens[rows], return_inverse=True)[1]
            sub = anatomy_groups(local, l_div)
            out[rows] = sub + next_id
            next_id += int(sub.max()) + 1
        return out

    @staticmethod
    def _width(dom: AttributeDomain, col: np.ndarray) -> float:
        """Range of the codes ``col``: ``max - min`` of a numeric QI, the number of leaves under
        the common ancestor minus one with a hierarchy, the number of distinct values minus one
        with 0/1 distance."""
        lo, hi = col.min(), col.max()
        if dom.kind == "numeric":
            return float(dom.values[hi] - dom.values[lo])
        if dom.hierarchy is not None:
            h = dom.hierarchy
            return float(h.n_leaves_under(h.lca(dom.values[np.unique(col)].tolist())) - 1)
        return float(len(np.unique(col)) - 1)

    # -- outputs ------------------------------------------------------------------------------
    def group_indices(self) -> list[np.ndarray]:
        """Row positions of each group, in group-id order."""
        order = np.argsort(self.groups_, kind="stable")
        bounds = np.cumsum(np.bincount(self.groups_, minlength=self.n_groups_))[:-1]
        return np.split(order, bounds)

    def transform(self, sensitive_name: str | None = None) -> pd.DataFrame:
        """The generalized table (QIs as text, sensitive values unchanged), in the input row order."""
        if not hasattr(self, "generalized_"):
            raise RuntimeError("call fit(table) before transform()")
        enforce(self.guarantee_checks())
        name = sensitive_name or self.sensitive
        frame = self.generalized_.to_frame(name)
        if self.sensitive is not None and name:
            frame[name] = frame[name].astype(self.sensitive_dtype_)
        return frame

    def fit_transform(self, table: pd.DataFrame) -> pd.DataFrame:
        return self.fit(table).transform()
