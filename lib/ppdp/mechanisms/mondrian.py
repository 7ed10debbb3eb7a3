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
  leaves for a :class:`~ppdp.tabular.Hierarchy`) and cut at the median of that order. A
  categorical QI is then generalized to the set of its values in the group (0/1 distance) or to
  the lowest common ancestor of those values in the hierarchy. Numeric QIs are generalized to
  ``[min, max]``.
* ``refine="anatomy"`` splits every final group further into groups of ``l`` (or ``l + 1``)
  tuples with distinct sensitive values, as the authors' released Mutual Cover code does after
  its median cuts. The paper's Algorithm 2 does not show this step; it is off by default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ppdp._validation import Interval, StrOptions, validate_hyperparameters
from ppdp.base import Mechanism, check_fitted, check_random_state
from ppdp.guarantees import GuaranteeCheck, enforce
from ppdp.tabular import (
    AttributeDomain,
    Hierarchy,
    encode_table,
    generalize,
    measure_k_anonymity,
    measure_l_diversity,
    sensitive_codes,
    validate_table,
)

__all__ = ["Mondrian"]


# --------------------------------------------------------------------------------------------
# Mondrian
# --------------------------------------------------------------------------------------------


def _check_k_l(refine, k, l, sensitive) -> None:  # noqa: E741 (the paper's l)
    """The guarantees asked for: at least one of k and l, and what l and refine need."""
    if refine == "anatomy" and l is None:
        raise ValueError("refine='anatomy' needs l")
    if k is None and l is None:
        raise ValueError("give k (k-anonymity), l (l-diversity) or both; got neither")
    if l is not None and sensitive is None:
        raise ValueError("l-diversity needs the sensitive column: pass sensitive=")


class Mondrian(Mechanism):
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
    table_ : DataFrame
        A copy of the fitted table; :meth:`release` publishes this table, generalized. Set only
        once the partition has passed :meth:`guarantee_checks`.

    Notes
    -----
    The published QIs are text labels (``"28-33"``, ``"{a,b}"``, a hierarchy node), so their
    input dtype cannot be kept; the sensitive column keeps its input dtype.

    Examples
    --------
    Eight patients, groups of at least two with two distinct diseases each:

    >>> import pandas as pd
    >>> from ppdp.mechanisms.mondrian import Mondrian
    >>> df = pd.DataFrame({
    ...     "age": [23, 25, 31, 35, 41, 47, 52, 58],
    ...     "zip": ["a", "b", "a", "b", "a", "a", "b", "b"],
    ...     "disease": ["flu", "cold", "flu", "ulcer", "cold", "flu", "ulcer", "cold"],
    ... })
    >>> mech = Mondrian(["age", "zip"], "disease", k=2, l=2, categorical=["zip"]).fit(df)
    >>> mech.n_groups_, mech.groups_.tolist()
    (4, [0, 0, 1, 1, 2, 2, 3, 3])
    >>> mech.release(random_state=0)
         age    zip disease
    0  23-25  {a,b}     flu
    1  23-25  {a,b}    cold
    2  31-35  {a,b}     flu
    3  31-35  {a,b}   ulcer
    4  41-47      a    cold
    5  41-47      a     flu
    6  52-58      b   ulcer
    7  52-58      b    cold
    >>> [(c.guarantee, c.measured, c.holds) for c in mech.guarantee_checks()]
    [('k-anonymity', 2.0, True), ('l-diversity', 2.0, True)]
    """

    #: The bound every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "k-anonymity (every group at least ``k`` records) and l-diversity (Definition 2 of"
        " Mutual Cover) of at least ``l`` in every group, each when it is set."
    )

    #: A release is the fitted partition generalized; every release is the same table.
    repetition: ClassVar[str] = "deterministic"
    #: Generalized quasi-identifiers are released as ranges and value sets (text).
    recast_columns: ClassVar[tuple[str, ...]] = ("qi",)

    _parameter_constraints: ClassVar[dict] = {
        "refine": [StrOptions(("none", "anatomy"))],
        "k": [Interval(Integral, 1, None, closed="left"), None],
        "l": [Interval(Real, 1, None, closed="left"), None],
    }

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
        self.qi = qi
        self.sensitive = sensitive
        self.k = k
        self.l = l
        self.categorical = categorical
        self.hierarchies = hierarchies
        self.refine = refine

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, table: pd.DataFrame) -> Mondrian:
        """Partition ``table`` (Algorithm 2) and generalize it; the partition's checks run first.

        Raises ValueError when ``k`` or ``l`` cannot be met by any partition of ``table``, and
        :class:`~ppdp.guarantees.GuaranteeViolation` when the partition breaks either.
        """
        validate_hyperparameters(self)
        _check_k_l(self.refine, self.k, self.l, self.sensitive)
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
            sens, uniques = sensitive_codes(table, self.sensitive)
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
        self.__dict__.pop("table_", None)
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
        self.table_ = table.copy()
        self.generalized_ = generalize(codes, self.groups_, qi, domains, sens_values)
        return self

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """k-anonymity (smallest group) and l-diversity (Definition 2) of the fitted partition.

        The generalized table publishes one region per group, so its equivalence classes are
        the groups (or unions of groups with equal regions, which only makes them larger).
        """
        check_fitted(self, "groups_")
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
        check_fitted(self, "generalized_")
        enforce(self.guarantee_checks())
        name = sensitive_name or self.sensitive
        frame = self.generalized_.to_frame(name)
        if self.sensitive is not None and name:
            frame[name] = frame[name].astype(self.sensitive_dtype_)
        return frame

    def fit_transform(self, table: pd.DataFrame) -> pd.DataFrame:
        return self.fit(table).transform()

    def release(self, random_state: Any = None) -> pd.DataFrame:
        """The fitted table with every QI generalized: the table :meth:`transform` publishes.

        Every QI of a tuple is replaced by the generalized value of its group (LeFevre et al.; the
        partition of Algorithm 2 of Mutual Cover): ``"lo-hi"`` for a numeric QI, the set of the
        group's values (0/1 distance) or the lowest common ancestor in the hierarchy for a
        categorical one. Each group is then one equivalence class of the release (or part of a
        larger one when two groups get equal labels), so the release is k-anonymous and
        l-diverse (Definition 2) whenever the partition is.

        Parameters
        ----------
        random_state : None, int >= 0 or numpy.random.Generator
            Validated (:func:`ppdp.base.check_random_state`) and otherwise unused: Mondrian is
            deterministic, so every ``random_state`` gives the same release and a Generator is
            not advanced.

        Returns
        -------
        DataFrame
            The fitted table's columns in their order, with its index and row order: the QIs as
            the text labels of :meth:`transform`, the sensitive and every other column unchanged
            (input dtype kept).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        GuaranteeViolation
            If the partition breaks ``k`` or ``l`` (:meth:`guarantee_checks`); nothing is released.
        """
        check_fitted(self, ["generalized_", "table_"])
        check_random_state(random_state)
        # transform() runs enforce(self.guarantee_checks()) before it returns the labels
        generalized = self.transform()
        released = self.table_.copy()
        for c in self.qi_:
            released[c] = pd.Series(generalized[c].to_numpy(), index=released.index, dtype=object)
        return released
