"""Coarse grids for problem (1) on one-dimensional points, and mappings carried back to the fine grid.

Not in the paper. When the profiles are points on a line with squared distortion (the synthetic
data of Sec. 4.1), neighbouring released values are nearly interchangeable: the optimum on
``|B| = 4,096`` points and on their 2,048 merged pairs agree to 1e-5 bits (0.21841 bits at a
budget of 0.02 on [0, 1]). A coarse optimum, spread back over the merged points,
therefore starts the fine problem near its optimum, and
:class:`~ppdp.mechanisms.sppm.CertifiedMapping` can certify it without solving a master
on all pairs of the fine grid.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .distortion import SquaredDistortion

#: Halving stops before a grid would have fewer values than this.
COARSEST = 64


def on_a_line(dist) -> bool:
    """Whether ``dist`` is a squared distortion between one-dimensional points."""
    return isinstance(dist, SquaredDistortion) and dist.points.shape[1] == 1


def halve(p: np.ndarray, dist: SquaredDistortion):
    """Merge consecutive points (in sorted order) in pairs.

    Returns
    -------
    p_coarse : ndarray of shape (|A|, ceil(|B| / 2))
        ``p(a, b)`` summed over each pair.
    dist_coarse : SquaredDistortion
        Between the pairs' midpoints (an odd last point stays alone).
    parent : ndarray of shape (|B|,)
        The coarse index of each fine point.
    """
    x = dist.points[:, 0]
    order = np.argsort(x, kind="stable")
    parent = np.empty(x.size, dtype=np.int64)
    parent[order] = np.arange(x.size) // 2
    n_c = (x.size + 1) // 2
    size = np.bincount(parent, minlength=n_c)
    mid = np.bincount(parent, weights=x, minlength=n_c) / size
    p_c = np.stack([np.bincount(parent, weights=row, minlength=n_c) for row in p])
    return p_c, SquaredDistortion(mid), parent


def prolong(mapping, parent: np.ndarray, *, drop: float = 0.0) -> sp.csr_matrix:
    """Carry a coarse mapping to the fine grid.

    Each fine profile gets its coarse profile's row, and each coarse released value's mass is
    split equally over the fine values merged into it, so every fine released value keeps its
    coarse value's posterior.

    Parameters
    ----------
    mapping : sparse matrix of shape (|B_coarse|, |B_coarse|)
    parent : ndarray of shape (|B|,)
        Coarse index of each fine point (composed over several halvings if need be).
    drop : float
        Coarse entries at most this large are removed first (rows renormalized): interior-point
        solutions leave every pair a little mass, which would otherwise all be carried over.
    """
    coarse = sp.csr_matrix(mapping, dtype=float, copy=True)  # drop must not touch the caller's
    if drop > 0:
        coarse.data[coarse.data <= drop] = 0.0
        coarse.eliminate_zeros()
        coarse = sp.csr_matrix(sp.diags(1.0 / np.asarray(coarse.sum(axis=1)).ravel()) @ coarse)
    n_f, n_c = parent.size, coarse.shape[0]
    size = np.bincount(parent, minlength=n_c).astype(float)
    up = sp.csr_matrix((np.ones(n_f), (np.arange(n_f), parent)), shape=(n_f, n_c))
    split = sp.csr_matrix((1.0 / size[parent], (parent, np.arange(n_f))), shape=(n_c, n_f))
    return sp.csr_matrix(up @ coarse @ split)


def prolonged_size(mapping, parent: np.ndarray, *, drop: float = 0.0) -> int:
    """The number of pairs of ``prolong(mapping, parent, drop=drop)``, without forming it.

    Each kept coarse entry ``(i, j)`` becomes ``size(i) x size(j)`` fine entries, with ``size``
    the number of fine points merged into a coarse one.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.sppm.multilevel import prolong, prolonged_size
    >>> coarse, parent = np.array([[0.9, 0.1], [0.00005, 0.99995]]), np.array([0, 0, 0, 1])
    >>> prolonged_size(coarse, parent), prolong(coarse, parent).nnz
    (16, 16)
    >>> prolonged_size(coarse, parent, drop=1e-4), prolong(coarse, parent, drop=1e-4).nnz
    (13, 13)
    """
    coarse = sp.coo_matrix(mapping)
    size = np.bincount(parent, minlength=coarse.shape[0])
    kept = coarse.data > drop
    return int((size[coarse.row[kept]] * size[coarse.col[kept]]).sum())


def grids(p: np.ndarray, dist: SquaredDistortion, largest: int):
    """The coarse problems to solve before ``(p, dist)``, coarsest first.

    Halves the grid until it would have fewer than ``2 * COARSEST`` values; keeps the grids with
    at most ``largest`` values (and fewer than ``|B|``). Returns a list of ``(p, dist, parent)``,
    coarsest first, where ``parent`` maps the grid after it in the list (``(p, dist)`` itself
    after the last) to this one, composed over the grids skipped in between.
    """
    chain, parents = [(p, dist)], []
    while chain[-1][1].shape[0] >= 2 * COARSEST:
        p_c, d_c, parent = halve(*chain[-1])
        chain.append((p_c, d_c))
        parents.append(parent)
    # parents[k] maps grid k to grid k + 1; keep grids 1.. with at most `largest` values
    kept = [k for k in range(1, len(chain)) if chain[k][1].shape[0] <= largest]
    out = []
    for i, k in enumerate(kept):
        finer = kept[i - 1] if i > 0 else 0
        parent = np.arange(chain[finer][1].shape[0])
        for j in range(finer, k):
            parent = parents[j][parent]
        out.append((*chain[k], parent))
    return out[::-1]


def interpolate_posterior(post: np.ndarray, mass: np.ndarray, coarse, fine) -> np.ndarray:
    """A posterior on the fine grid: the coarse one, linear between the coarse values.

    Only coarse values with mass above ``1e-4`` of the largest are interpolated (the posterior of
    a value the mapping leaves empty is arbitrary); beyond the outermost ones it stays constant.
    The optimum's posterior varies smoothly along the line, so this is closer to the fine
    optimum's than the piecewise-constant posterior of :func:`prolong`, and gives a tighter
    Lagrange bound (:func:`~ppdp.mechanisms.sppm.bounds.posterior_lower_bound`).

    Parameters
    ----------
    post : ndarray of shape (|A|, |B_coarse|)
    mass : ndarray of shape (|B_coarse|,)
        ``q(b^)`` of the coarse mapping.
    coarse, fine : SquaredDistortion
        On one-dimensional points.
    """
    used = mass > 1e-4 * mass.max()
    x = coarse.points[used, 0]
    order = np.argsort(x, kind="stable")
    out = np.stack([np.interp(fine.points[:, 0], x[order], row[used][order]) for row in post])
    return out / out.sum(axis=0)
