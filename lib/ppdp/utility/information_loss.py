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
    """``sum_t sum_A (|v*| - 1) / |D_A|`` of a generalized table (Xiao and Tao)."""
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
