"""ILoss of randomized values (Mutual Cover, Section 5.2) and of generalized values (Xiao and Tao).

Randomized value (Mutual Cover): ``ILoss(v) = dis(v~, v) / |D_A|`` with ``dis = |v~ - v|`` for a
numeric QI; for a categorical QI the paper's formula is read with its distance (0/1 or the
hierarchy distance) in place of ``|v~ - v|``.

Generalized value (Xiao and Tao, SIGMOD 2006): ``ILoss(v*) = (|v*| - 1) / |D_A|`` where ``|v*|`` is
the number of domain values the generalized value covers; for an integer interval ``[lo, hi]``
that is ``hi - lo``, for a real interval its length.

``|D_A|`` is the size of the attribute's domain: ``max - min + 1`` for an integer QI (Table 1 of
the paper gives 55 for ages 16-70), the number of values (leaves) for a categorical one.
The loss of a table is the sum over tuples and QIs (``ILoss(T')`` of the paper).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ppdp.tabular import GeneralizedTable, Hierarchy, build_domains, validate_table

__all__ = ["iloss_generalized", "iloss_randomized"]


def iloss_randomized(
    original: pd.DataFrame,
    released: pd.DataFrame,
    qi: Sequence[str],
    *,
    categorical: Sequence[str] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
    per_attribute: bool = False,
):
    """``ILoss(T')`` of a randomized release: ``sum_t sum_A dis(t'[A], t[A]) / |D_A|``.

    Domains (``|D_A|``) are those of ``original``. Returns a float, or a Series per QI when
    ``per_attribute`` is true.

    Parameters
    ----------
    original : DataFrame
        The original table.
    released : DataFrame
        The randomized release, row by row the tuples of ``original`` (same length and order),
        its QIs holding domain values.
    qi : sequence of str
        The quasi-identifiers summed over.
    categorical : sequence of str, optional
        QIs compared with the 0/1 distance (the others are numeric, distance ``|v~ - v|``).
    hierarchies : mapping str -> Hierarchy, optional
        Categorical QIs compared with the hierarchy distance instead; ``|D_A|`` is then the
        number of leaves.
    per_attribute : bool, default False
        Return the loss of each QI instead of their sum.

    Returns
    -------
    float or pandas.Series
        ``ILoss(T')``, or a Series named ``iloss`` indexed by QI.

    Raises
    ------
    TypeError, ValueError
        For a table or QI list that :func:`ppdp.tabular.validate_table` rejects (a table that is
        not a DataFrame, a missing column, missing values, ...) or tables of different lengths.

    Examples
    --------
    Two of four ages moved (by 2 and 5 on a domain of ``50 - 20 + 1 = 31`` years) and one sex
    flipped (on a domain of 2):

    >>> import pandas as pd
    >>> original = pd.DataFrame({"age": [20, 30, 40, 50], "sex": ["F", "M", "F", "M"]})
    >>> released = pd.DataFrame({"age": [22, 30, 35, 50], "sex": ["F", "F", "F", "M"]})
    >>> round(iloss_randomized(original, released, ["age", "sex"], categorical=["sex"]), 3)
    0.726
    >>> iloss_randomized(original, released, ["age", "sex"], categorical=["sex"],
    ...                  per_attribute=True).round(3).to_dict()
    {'age': 0.226, 'sex': 0.5}
    """
    qi, categorical, hierarchies = validate_table(
        original, qi, categorical=categorical, hierarchies=hierarchies
    )
    validate_table(released, qi, categorical=categorical, hierarchies=hierarchies)
    if len(released) != len(original):
        raise ValueError(
            f"released has {len(released)} rows, original {len(original)}; they must match row by row"
        )
    domains = build_domains(original, qi, categorical, hierarchies)
    losses = {}
    for c in qi:
        dom = domains[c]
        a, b = original[c].to_numpy(), released[c].to_numpy()
        if dom.kind == "numeric":
            dist = np.abs(b.astype(float) - a.astype(float))
        elif dom.hierarchy is None:
            dist = (a != b).astype(float)
        else:
            h = dom.hierarchy
            dist = np.array([h.distance(x, y) for x, y in zip(a.tolist(), b.tolist(), strict=True)])
        size = dom.domain_size
        losses[c] = float(dist.sum() / size) if size > 0 else 0.0
    out = pd.Series(losses, name="iloss")
    return out if per_attribute else float(out.sum())


def iloss_generalized(generalized: GeneralizedTable, *, per_attribute: bool = False):
    """``sum_t sum_A (|v*| - 1) / |D_A|`` of a generalized table (Xiao and Tao).

    Parameters
    ----------
    generalized : GeneralizedTable
        The release, e.g. ``Mondrian(...).fit(...).generalized_``; ``|D_A|`` comes from its
        domains.
    per_attribute : bool, default False
        Return the loss of each QI instead of their sum.

    Returns
    -------
    float or pandas.Series
        ``ILoss(T*)``, or a Series named ``iloss`` indexed by QI.

    Raises
    ------
    TypeError
        If ``generalized`` is not a :class:`~ppdp.tabular.GeneralizedTable`.

    Examples
    --------
    Two groups of two rows: ages generalized to ranges of width 10 on a domain of 31 years,
    sex to ``{F,M}`` (2 values covered of 2):

    >>> import numpy as np
    >>> import pandas as pd
    >>> from ppdp.tabular import encode_table, generalize
    >>> table = pd.DataFrame({"age": [20, 30, 40, 50], "sex": ["F", "M", "F", "M"]})
    >>> codes, domains = encode_table(table, ["age", "sex"], categorical=["sex"])
    >>> released = generalize(codes, np.array([0, 0, 1, 1]), ["age", "sex"], domains)
    >>> released.to_frame(None)["age"].tolist()
    ['20-30', '20-30', '40-50', '40-50']
    >>> iloss_generalized(released, per_attribute=True).round(3).to_dict()
    {'age': 1.29, 'sex': 2.0}
    >>> round(iloss_generalized(released), 3)
    3.29
    """
    if not isinstance(generalized, GeneralizedTable):
        raise TypeError(f"generalized must be a GeneralizedTable, got {type(generalized).__name__}")
    sizes = np.bincount(generalized.groups, minlength=generalized.n_groups).astype(float)
    losses = {}
    for c in generalized.qi:
        dom = generalized.domains[c]
        m = generalized.membership[c]
        if dom.kind == "numeric":
            idx = np.arange(dom.size)
            lo = np.where(m, idx, dom.size).min(axis=1)
            hi = np.where(m, idx, -1).max(axis=1)
            width = dom.values[hi].astype(float) - dom.values[lo].astype(float)
        elif dom.hierarchy is None:
            width = m.sum(axis=1) - 1.0
        else:
            h = dom.hierarchy
            width = np.array([h.n_leaves_under(h.lca(dom.values[row].tolist())) - 1.0 for row in m])
        size = dom.domain_size
        losses[c] = float(width @ sizes / size) if size > 0 else 0.0
    out = pd.Series(losses, name="iloss")
    return out if per_attribute else float(out.sum())
