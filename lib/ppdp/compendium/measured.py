"""The anonymity a release actually has: its measured k and l, whatever mechanism produced it.

A mechanism's parameters say what it aimed for; the table it publishes says what a reader can
see. :func:`measured_anonymity` reads the second. It groups the released rows by their
quasi-identifier cells *as published*: two rows are in one class when every QI cell has the same
text, so a generalized range ``"28-33"``, a value set ``"{BA,HS}"`` or a hierarchy node is one
value, exactly as a reader who matches a person's QIs against the release would see it. It then
reports

* ``k``: the size of the smallest class, the fewest released rows among which a person whose QI
  cells match that class hides (k-anonymity, Sweeney 2002). A table whose QI tuples are all
  unique has ``k = 1``;
* ``l_distinct``: the fewest distinct private cells within one class (distinct l-diversity,
  Machanavajjhala et al. 2007): a reader who finds a person's class narrows the private value
  down to at best that many published values;
* ``l_entropy``: ``exp`` of the smallest within-class entropy (natural log) of the private
  column (entropy l-diversity). A class with ``l_entropy = L`` is as uncertain as a uniform
  choice among ``L`` values;
* ``n_classes``: the number of classes.

The private distribution of a class is read in one of two ways. Without ``domains``, every
distinct private cell (by its text) is one outcome and the class's distribution is the share of
its rows holding each cell. With ``domains``, each private cell is read by
:func:`ppdp.cells.cell_membership` as a distribution over the column's original domain (all mass
on a domain value; uniform over the members of a range, value set or hierarchy node) and the
class's distribution is the mean of its rows' memberships: the reader's uniform reading of the
regions. For exact private cells the two readings agree; for regions the second one counts the
domain values a region spreads over, so ``l_entropy`` can then exceed ``l_distinct`` (one row
``"{a,b,c}"`` gives ``l_distinct = 1`` but ``l_entropy = 3``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy.special import entr

from ppdp._validation import check_columns
from ppdp.base import check_frame
from ppdp.cells import cell_membership
from ppdp.tabular import AttributeDomain

__all__ = ["MeasuredAnonymity", "measured_anonymity"]


@dataclass(frozen=True)
class MeasuredAnonymity:
    """The measured k and l of a release (see :func:`measured_anonymity`).

    Attributes
    ----------
    k : int
        Size of the smallest class of rows sharing their released QI cells: every person
        matching the release's QIs hides among at least ``k`` released rows.
    l_distinct : int
        Fewest distinct private cells within a class: a reader who knows a person's class is left
        with at least ``l_distinct`` published private values.
    l_entropy : float
        ``exp`` of the smallest within-class entropy (nats) of the private values: every class is
        at least as uncertain as a uniform choice among ``l_entropy`` values. At least 1.
    n_classes : int
        Number of classes (distinct released QI tuples).

    Examples
    --------
    >>> import pandas as pd
    >>> released = pd.DataFrame({"zip": ["130**", "130**", "130**", "148**", "148**"],
    ...                          "disease": ["flu", "flu", "flu", "hiv", "flu"]})
    >>> m = measured_anonymity(released, ["zip"], "disease")
    >>> m.k, m.l_distinct, m.n_classes  # class 130**: everyone has flu
    (2, 1, 2)
    >>> m.as_dict()
    {'k': 2, 'l_distinct': 1, 'l_entropy': 1.0, 'n_classes': 2}
    """

    k: int
    l_distinct: int
    l_entropy: float
    n_classes: int

    def as_dict(self) -> dict[str, float]:
        """The four numbers as ``{"k": ..., "l_distinct": ..., "l_entropy": ..., "n_classes": ...}``."""
        return asdict(self)


def _text_codes(column: pd.Series, name: str) -> np.ndarray:
    """Codes ``0..m-1`` of a column's cells compared as text, in order of first appearance."""
    if column.isna().any():
        rows = list(column.index[column.isna()][:5])
        raise ValueError(f"column {name!r} has missing released values (first rows {rows})")
    codes, _ = pd.factorize(column.astype(str).to_numpy())
    return codes.astype(np.int64)


def _class_ids(frame: pd.DataFrame, qi: list[str]) -> np.ndarray:
    """Class id ``0..G-1`` of each row: rows with the same text in every QI cell share one."""
    ids = _text_codes(frame[qi[0]], qi[0])
    for c in qi[1:]:
        codes = _text_codes(frame[c], c)
        combined = ids * (int(codes.max()) + 1) + codes
        ids = pd.factorize(combined)[0].astype(np.int64)
    return ids


def _check_names(released: pd.DataFrame, qi, private, domains) -> list[str]:
    qi = check_columns(qi, name="qi", table=released, table_name="released")
    if not isinstance(private, str):
        raise TypeError(f"private must be one column name (str), got {private!r}")
    if private not in released.columns:
        raise ValueError(
            f"private column {private!r} is not in released; it has {list(released.columns)}"
        )
    if private in qi:
        raise ValueError(f"private column {private!r} is also listed in qi")
    if domains is not None:
        if not isinstance(domains, Mapping):
            raise TypeError(
                f"domains must be None or a mapping column -> AttributeDomain, "
                f"got {type(domains).__name__}"
            )
        if private not in domains:
            raise ValueError(
                f"domains has no domain for the private column {private!r} (it has "
                f"{list(domains)}); pass domains=None to read each private cell as one value"
            )
        if not isinstance(domains[private], AttributeDomain):
            raise TypeError(
                f"domains[{private!r}] must be an AttributeDomain, "
                f"got {type(domains[private]).__name__}"
            )
    return qi


def measured_anonymity(
    released: pd.DataFrame,
    qi: Sequence[str],
    private: str,
    domains: Mapping[str, AttributeDomain] | None = None,
) -> MeasuredAnonymity:
    """The k-anonymity and l-diversity a released table has, measured on its published cells.

    Parameters
    ----------
    released : DataFrame
        The table as published (or about to be scored): QI cells may be domain values or
        generalized regions, compared as text.
    qi : sequence of str
        The quasi-identifier columns, distinct; rows with the same text in all of them form a
        class.
    private : str
        The private (sensitive) column, not among ``qi``.
    domains : mapping str -> AttributeDomain, optional
        When given, it must hold the private column's original domain, and the private cells
        are read as distributions over it (:func:`ppdp.cells.cell_membership`) for
        ``l_entropy``; by default each distinct private cell is one outcome. See the module
        docstring.

    Returns
    -------
    MeasuredAnonymity
        ``k`` (smallest class size: the fewest released rows a person with given QIs hides
        among), ``l_distinct`` (fewest distinct private cells in a class: the fewest private
        values a reader who found the class is left with), ``l_entropy`` (``exp`` of the smallest
        class entropy in nats: the class is as uncertain as a uniform choice among that many
        values) and ``n_classes``.

    Raises
    ------
    TypeError
        For ``released`` not a DataFrame, ``qi`` not a sequence of names, ``private`` not a
        name, ``domains`` not a mapping of :class:`~ppdp.tabular.AttributeDomain`.
    ValueError
        For an empty table, an empty or repeated ``qi``, a column missing from ``released``,
        ``private`` among ``qi``, ``domains`` without the private column, missing cells, or a
        private cell that cannot be read as a region of its domain.

    Examples
    --------
    >>> import pandas as pd
    >>> released = pd.DataFrame({"age": ["20-30", "20-30", "40-50", "40-50", "40-50"],
    ...                          "disease": ["flu", "cold", "flu", "flu", "hiv"]})
    >>> m = measured_anonymity(released, ["age"], "disease")
    >>> m.k, m.l_distinct, m.n_classes
    (2, 2, 2)
    >>> round(m.l_entropy, 4)  # class 40-50: flu 2/3, hiv 1/3
    1.8899
    """
    released = check_frame(released, "released")
    qi = _check_names(released, qi, private, domains)
    groups = _class_ids(released, qi)
    n_classes = int(groups.max()) + 1
    sizes = np.bincount(groups, minlength=n_classes)

    # (class, private cell) pairs present, sorted by class then cell
    cells = _text_codes(released[private], private)
    n_cells = int(cells.max()) + 1
    pairs, counts = np.unique(groups * n_cells + cells, return_counts=True)
    pair_group, pair_cell = pairs // n_cells, pairs % n_cells
    distinct = np.bincount(pair_group, minlength=n_classes)

    if domains is None:
        share = counts / sizes[pair_group]
        class_entropy = np.bincount(pair_group, weights=entr(share), minlength=n_classes)
    else:
        # membership of each distinct private cell, from its first row
        _, first = np.unique(cells, return_index=True)
        raw = released[private].to_numpy(dtype=object)[first]
        table = cell_membership(pd.Series(list(raw), dtype=object), domains[private])
        weighted = counts[:, None] * table[pair_cell]
        starts = np.flatnonzero(np.r_[True, pair_group[1:] != pair_group[:-1]])
        dist = np.add.reduceat(weighted, starts, axis=0) / sizes[:, None]
        class_entropy = entr(dist).sum(axis=1)

    return MeasuredAnonymity(
        k=int(sizes.min()),
        l_distinct=int(distinct.min()),
        l_entropy=float(np.exp(class_entropy.min())),
        n_classes=n_classes,
    )
