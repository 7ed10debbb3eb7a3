"""Areas of home cells as the HyObscure authors' code builds and adjusts them (Foursquare).

The authors' check-in experiments (their repository scottshufe/HyObscure,
``code/python/checkin_tradeoff_scenario_I``) do not solve the I-problem for home cells: they
cut the occupied cells of the 60-column grid into a fixed layout of rectangular-ish areas
(``main.area_initiate``) and then, in every round of ``obfuscations.HyObscure``, shift whole runs
of cells at the edge of an area into a neighbouring area when that lowers both their privacy
score and the utility loss under the current obfuscation. This module reproduces both steps:

* :func:`area_generalization`: the initial layout of ``n_areas`` areas;
* ``area_reducibility`` and ``area_target``: the directions in which an area may give
  cells away and the area that receives them;
* :func:`greedy_area_generalization`: one pass of their area G-step.

Layout of areas
---------------
``R = int(sqrt(n_areas))`` rows of areas. The occupied cell rows (sorted) are cut into ``R``
bands of ``int(n_rows / R)`` cell rows, the last band taking the rest. Row ``r`` of areas holds
``R + 1`` areas while ``n_areas - R * R`` extra columns remain (handed out from the *first* row
of areas down, one per row), ``R`` areas otherwise. Inside a band every cell row is cut on its
own: its sorted occupied columns go in chunks of ``int(n_cells_in_row / n_cols)`` to the areas of
the row from left to right, the last area taking the rest. Areas are numbered row of areas by
row of areas, left to right.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ppdp._validation import check_params
from ppdp.base import check_random_state

from .checks import BUDGET_SCOPE, GREEDY_SCORE, POSITIVE_INT, check_value_counts
from .domain import Generalization, PrivateDomain, entropy_reach
from .leakage import GREEDY_SCORES, DistanceModel, expected_distance

#: The four directions of the authors' G-step, in the order of their reducibility flags.
DIRECTIONS = ("left", "right", "up", "down")


# ------------------------------------------------------------------------------------------------
# the layout of areas (``main.area_initiate``)


def _area_columns(n_areas: int, caller: str) -> np.ndarray:
    """Number of areas in each row of areas, as ``area_initiate`` lays them out.

    Raises
    ------
    ValueError
        When ``n_areas`` is not a positive integer, or when the layout cannot hold ``n_areas``
        areas: the extra columns are handed out at most one per row of areas, so only
        ``R * R + min(n_areas - R * R, R)`` areas are made (e.g. 6 for ``n_areas`` = 7 or 8).
    """
    check_params({"n_areas": n_areas}, {"n_areas": POSITIVE_INT}, caller)
    n_areas = int(n_areas)
    n_rows = math.isqrt(n_areas)  # int(np.sqrt(n_areas)) in their code
    extra = n_areas - n_rows * n_rows
    # main.py l. 60-64: the first `extra` rows of areas get one more column each
    cols = np.where(np.arange(n_rows) < extra, n_rows + 1, n_rows)
    if cols.sum() != n_areas:
        raise ValueError(
            f"n_areas={n_areas} cannot be laid out as the authors' area_initiate does: "
            f"{n_rows} rows of areas with at most one extra column each hold only "
            f"{int(cols.sum())} areas"
        )
    return cols


def area_reducibility(n_areas: int) -> np.ndarray:
    """The authors' direction flags of each area (``area_reducibility`` of ``area_initiate``).

    Direction 0 ("left") takes cells from the right end of the area's cell rows and gives them to
    the next area of the same row of areas, so it is open when such an area exists; direction 1
    ("right") gives the left ends to the previous area; direction 2 ("up") gives the top ends of
    the area's cell columns to the row of areas above; direction 3 ("down") gives the bottom ends
    to the row below. The names follow the side the area shrinks towards.

    Parameters
    ----------
    n_areas : int
        Number of areas of the layout.

    Returns
    -------
    ndarray of int64, shape (n_areas, 4)
        ``flags[a, d] = 1`` when area ``a`` may give cells away in direction ``d``.

    Raises
    ------
    ValueError
        When ``n_areas`` is not a positive integer or the layout cannot hold that many areas.
    """
    cols = _area_columns(n_areas, "area_reducibility")
    n_rows = len(cols)
    row = np.repeat(np.arange(n_rows), cols)
    col = np.concatenate([np.arange(c) for c in cols])
    last_col = cols[row] - 1
    return np.stack(
        [col < last_col, col > 0, row > 0, row < n_rows - 1],
        axis=1,
    ).astype(np.int64)


def area_target(area: int, direction: int, n_areas: int) -> int:
    """The area that receives the cells an area gives away, exactly as the authors' G-step.

    ``area + 1`` (left), ``area - 1`` (right), ``area - s`` (up) and ``area + s`` (down), with
    ``s = int(n_areas / int(sqrt(n_areas)))``. When the layout has extra columns the rows of
    areas differ in length and ``s`` is not the row length of every row, so "up" and "down" can
    land on an area that is not above or below (for ``n_areas=5``, area 0 goes "down" to area 2,
    the last area of its own row); this is what their code does (``obfuscations.py`` l. 101-108).

    Parameters
    ----------
    area : int
        Giving area, ``0 <= area < n_areas``.
    direction : int
        0, 1, 2 or 3 (see :data:`DIRECTIONS`).
    n_areas : int
        Number of areas.

    Raises
    ------
    ValueError
        When ``direction`` is not 0-3, ``area`` is out of range, or the flags of
        ``area_reducibility`` close that direction for that area.
    """
    flags = area_reducibility(n_areas)
    if not 0 <= int(area) < n_areas:
        raise ValueError(f"area={area} is not an area of the {n_areas} areas")
    if int(direction) not in (0, 1, 2, 3):
        raise ValueError(f"direction={direction} must be 0 (left), 1 (right), 2 (up) or 3 (down)")
    area, direction = int(area), int(direction)
    if not flags[area, direction]:
        raise ValueError(
            f"area {area} of {n_areas} cannot give cells {DIRECTIONS[direction]} (direction "
            f"{direction}): the authors' reducibility flags close it"
        )
    step = n_areas // math.isqrt(n_areas)
    return area + (1, -1, -step, step)[direction]


def area_generalization(domain: PrivateDomain, n_areas: int) -> Generalization:
    """The authors' initial areas of home cells (``main.area_initiate``).

    See the module docstring for the layout. Their code indexes the cell rows of row of areas
    ``r`` as ``grid_rows[r * area_row_lens[r - 1] + i]`` (``main.py`` l. 78). For ``r = 0`` this
    reads ``area_row_lens[-1]``, the band just appended, times 0; for ``r >= 1`` it reads the
    length of a non-last band, ``int(n_rows / R)``, so the start is always ``r * int(n_rows / R)``:
    the quirk has no effect and the bands are consecutive.

    Parameters
    ----------
    domain : PrivateDomain
        Home cells (``kind="grid"``); its values are the occupied cells ``row * width + col``.
    n_areas : int
        Number of areas.

    Returns
    -------
    Generalization
        ``labels[v]`` is the authors' area code (0 to ``n_areas - 1``) of cell ``domain.values[v]``.

    Raises
    ------
    ValueError
        When the domain is not a grid, ``n_areas`` is not a positive integer, the layout cannot
        hold ``n_areas`` areas, or an area gets no cell (too few cell rows or too few cells in
        every row of a band).

    Examples
    --------
    The 16 cells of rows 0-3 and columns 0-3 of a 60-column grid, cut into 2 x 2 areas:

    >>> from ppdp.mechanisms.hyobscure import area_generalization, private_domain
    >>> cells = [row * 60 + col for row in range(4) for col in range(4)]
    >>> gen = area_generalization(private_domain(cells, kind="grid"), 4)
    >>> gen.labels.reshape(4, 4)
    array([[0, 0, 1, 1],
           [0, 0, 1, 1],
           [2, 2, 3, 3],
           [2, 2, 3, 3]])
    """
    if domain.kind != "grid":
        raise ValueError(
            f"areas are cut from grid cells; the domain must have kind='grid', got "
            f"kind={domain.kind!r}"
        )
    cols_per_row = _area_columns(n_areas, "area_generalization")
    n_rows_areas = len(cols_per_row)
    width = int(domain.grid_width)
    rows = domain.values // width  # values are sorted: by row, then by column
    uniq_rows, row_pos, row_sizes = np.unique(rows, return_inverse=True, return_counts=True)
    band = len(uniq_rows) // n_rows_areas
    # band of each cell row; the last band takes the rest (all rows when band == 0)
    if band > 0:
        row_band = np.minimum(np.arange(len(uniq_rows)) // band, n_rows_areas - 1)
    else:
        row_band = np.full(len(uniq_rows), n_rows_areas - 1)
    cell_band = row_band[row_pos]
    n_cols = cols_per_row[cell_band]
    # position of each cell among the occupied cells of its row
    row_start = np.r_[0, np.cumsum(row_sizes)[:-1]]
    pos_in_row = np.arange(len(rows)) - row_start[row_pos]
    chunk = row_sizes[row_pos] // n_cols
    col_area = np.where(
        chunk > 0, np.minimum(pos_in_row // np.maximum(chunk, 1), n_cols - 1), n_cols - 1
    )
    first_area = np.r_[0, np.cumsum(cols_per_row)[:-1]]
    labels = (first_area[cell_band] + col_area).astype(np.int64)
    sizes = np.bincount(labels, minlength=int(n_areas))
    if (sizes == 0).any():
        empty = np.flatnonzero(sizes == 0).tolist()
        raise ValueError(
            f"n_areas={n_areas} leaves area(s) {empty} without a cell: the {len(rows)} occupied "
            f"cells lie in {len(uniq_rows)} cell rows, cut into {n_rows_areas} bands of "
            f"{band} rows (the last takes the rest) and each row into {cols_per_row.tolist()} "
            "chunks"
        )
    return Generalization(domain=domain, labels=labels)


# ------------------------------------------------------------------------------------------------
# the area G-step (``obfuscations.HyObscure``, body of one ``op`` round)


def greedy_area_generalization(
    generalization: Generalization,
    counts_cy: np.ndarray,
    mappings: np.ndarray,
    distance_model: DistanceModel,
    k: int,
    l: int,  # noqa: E741
    random_state: Any,
    *,
    scope: str = "cluster_mean",
    score: str = "transposed",
    value_counts: np.ndarray | None = None,
) -> tuple[Generalization, list[dict]]:
    """One pass of the authors' area G-step for home cells (``obfuscations.HyObscure``).

    The body of one round ``op`` of their loop after the O-problem (``obfuscations.py``
    l. 45-154), under the fixed ``mappings``:

    1. Areas are visited in an order shuffled by ``random_state``.
    2. An area is adjusted only if ``int(exp(H) - l) > 0``, ``H`` the entropy (nats) of its
       users over its cells (their ``l_diversity``).
    3. A direction is drawn with probabilities proportional to the area's flags
       (``area_reducibility``); the receiving area is ``area_target``. Left and right
       work on the area's cell rows, up and down on its cell columns ("lines").
    4. For each line (sorted), with ``change_range = min(int(exp(H) - l), len(line))`` and ``H``
       recomputed for the area as it now stands, the last ``i`` cells of the line (left, down)
       or the first ``i`` (right, up) are tried for ``i = 1 ... change_range``. A move is
       considered only if the area keeps at least ``k`` users; it is scored by the utility loss
       ``mean(expected_distance(..., scope))`` (their ``Mean_JSD``) and the privacy ``score``
       (their ``Mean_KL_div``, ``"transposed"``). The first ``i`` with both strictly below
       the incumbent's is accepted (it becomes the incumbent) and the pass goes on to the next
       line.

    The entropy ``H`` and the users of steps 2 and 4 are counted on ``value_counts``, by default
    the users of ``counts_cy`` (the authors' check-in code counts its published users,
    ``df_test``); the score and the loss are always those of ``counts_cy``.

    Unlike Algorithm 3 (:func:`~ppdp.mechanisms.hyobscure.improve_generalization`),
    contiguity, ``alpha`` and ``beta`` are not enforced: the receiving area may grow without
    bound and an area may be split (a whole line can leave). Only ``k`` and the entropy of the
    giving area are consulted.

    Deviations from their code (the first two leave the result unchanged, the third only covers
    inputs on which their code fails):

    * Their line lists are read from a snapshot taken when the area's direction is drawn
      (``area_grid_line_list_dict`` keeps pointing to the dict that an accepted move replaces,
      ``obfuscations.py`` l. 65-69 and 79 vs l. 145). Here each line is read from the current
      membership; since a move only takes cells of the line being processed, the two readings
      agree.
    * Their ``for i in area_grid_dict_cur`` print loop (l. 121) rebinds the loop variable ``i``
      of the moves; the next iteration of ``range`` restores it, so it has no effect either.
    * An area without users, or whose flags are all 0 (``n_areas=1``), is skipped, where their
      code fails (0/0 entropy, NaN probabilities).
    * Their cell ids use 60 columns; here ``domain.grid_width``.

    Parameters
    ----------
    generalization : Generalization
        Current areas (a grid domain), e.g. from :func:`area_generalization`; groups 0..K-1.
    counts_cy : ndarray, shape (C, V)
        Users per (cluster, cell).
    mappings : ndarray, shape (K, C, C)
        Fixed obfuscation mappings (from the O-problem).
    distance_model : DistanceModel
        Cluster distances inside each area.
    k : int
        Fewest users a giving area must keep.
    l : int
        Entropy threshold: an area gives at most ``int(exp(H) - l)`` cells of a line.
    random_state : None, int or numpy.random.Generator
        Order of the areas and the directions.
    scope : {"cluster_mean", "group", "global"}
        Loss scope of :func:`expected_distance` (the authors': ``"cluster_mean"``).
    score : {"transposed", "leakage"}
        Privacy score of the incumbent and of every move: ``"transposed"``, the authors'
        ``Mean_KL_div`` with the mapping read transposed
        (:func:`~ppdp.mechanisms.hyobscure.transposed_leakage`), or ``"leakage"``, the
        leakage ``I(Y; C^, Y~)`` of the mapping as released
        (:func:`~ppdp.mechanisms.hyobscure.hybrid_leakage`).
    value_counts : ndarray, shape (V,), optional
        Users per cell on which ``k`` and the entropy ``l`` are counted, e.g. those of a whole
        population; by default ``counts_cy.sum(axis=0)``.

    Returns
    -------
    generalization : Generalization
        The areas after the pass (the input when nothing was accepted).
    records : list of dict
        One per accepted move, in order: ``"values"`` (moved cell ids, ascending), ``"from"``,
        ``"to"``, ``"leakage"`` (the ``score`` after the move, bits) and ``"utility_loss"``
        after the move.

    Raises
    ------
    ValueError
        When the domain is not a grid, ``k``, ``l``, ``scope`` or ``score`` are invalid,
        ``mappings`` does not have one (C, C) matrix per area, or ``value_counts`` does not hold
        one count per cell.

    Examples
    --------
    Sixty users on the 2 x 2 areas of :func:`area_generalization`'s example, two clusters, and
    the O-problem's mappings under the authors' budget scope:

    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import (
    ...     area_generalization, greedy_area_generalization, private_domain, solve_obfuscation)
    >>> from ppdp.mechanisms.hyobscure.leakage import DistanceModel, cluster_value_counts
    >>> cells = np.array([row * 60 + col for row in range(4) for col in range(4)])
    >>> domain = private_domain(cells, kind="grid")
    >>> gen = area_generalization(domain, 4)
    >>> rng = np.random.default_rng(0)
    >>> y = rng.choice(cells, 60)  # home cells
    >>> clusters = rng.integers(0, 2, 60)
    >>> X = rng.poisson(1 + 2 * clusters[:, None] + (y[:, None] % 60 > 1), (60, 3)) + 1.0
    >>> idx = domain.index(y)
    >>> counts = cluster_value_counts(clusters, idx, 2, len(cells))
    >>> model = DistanceModel(X, clusters, idx, 2, len(cells), "centroid_js")
    >>> mappings, _ = solve_obfuscation(
    ...     counts, gen.labels, model.all_groups(gen.labels), 0.5, scope="cluster_mean")
    >>> new, records = greedy_area_generalization(
    ...     gen, counts, mappings, model, 5, 2, np.random.default_rng(0))
    >>> [(r["values"], r["from"], r["to"]) for r in records]  # cell (2, 2) joins area 2
    [([122], 3, 2)]
    >>> new.labels.reshape(4, 4)
    array([[0, 0, 1, 1],
           [0, 0, 1, 1],
           [2, 2, 2, 3],
           [2, 2, 3, 3]])
    """
    rng = check_random_state(random_state)
    check_params(
        {"k": k, "l": l, "scope": scope, "score": score},
        {"k": POSITIVE_INT, "l": POSITIVE_INT, "scope": BUDGET_SCOPE, "score": GREEDY_SCORE},
        "greedy_area_generalization",
    )
    domain = generalization.domain
    if domain.kind != "grid":
        raise ValueError(
            f"the area G-step moves grid cells; the domain must have kind='grid', got "
            f"kind={domain.kind!r}"
        )
    counts_cy = np.asarray(counts_cy, dtype=np.float64)
    mappings = np.asarray(mappings, dtype=np.float64)
    labels = np.asarray(generalization.labels, dtype=np.int64).copy()
    K = int(labels.max()) + 1
    C = counts_cy.shape[0]
    if mappings.shape != (K, C, C):
        raise ValueError(
            f"mappings must have shape (K, C, C) = {(K, C, C)} for {K} areas; got {mappings.shape}"
        )
    flags = area_reducibility(K)
    width = int(domain.grid_width)
    cell_row = domain.values // width
    cell_col = domain.values % width
    value_counts = check_value_counts(value_counts, counts_cy)
    privacy = GREEDY_SCORES[score]

    def loss(lab: np.ndarray, dist: np.ndarray) -> float:
        return float(np.mean(expected_distance(counts_cy, lab, mappings, dist, scope)))

    distances = distance_model.all_groups(labels)
    best_I = privacy(counts_cy, labels, mappings)
    best_Q = loss(labels, distances)
    records: list[dict] = []
    for area in rng.permutation(K).tolist():
        if entropy_reach(value_counts[labels == area], l) <= 0:
            continue
        p = flags[area].astype(np.float64)
        if p.sum() == 0:
            continue
        d = int(rng.choice(4, p=p / p.sum()))
        to_area = area_target(area, d, K)
        # a line is a cell row (left/right) or a cell column (up/down); as the values are
        # sorted, the cells of a line come out ordered along it
        line_of = cell_row if d < 2 else cell_col
        from_end = d in (0, 3)
        for line in np.unique(line_of[labels == area]).tolist():
            members = labels == area
            cells = np.flatnonzero(members & (line_of == line))
            change_range = min(entropy_reach(value_counts[members], l), len(cells))
            users = value_counts[members].sum()
            for i in range(1, change_range + 1):
                moved = cells[-i:] if from_end else cells[:i]
                if users - value_counts[moved].sum() < k:  # their k_anonymity check
                    continue
                cand = labels.copy()
                cand[moved] = to_area
                cand_d = distances.copy()
                cand_d[area] = distance_model.group(cand == area)
                cand_d[to_area] = distance_model.group(cand == to_area)
                Qc = loss(cand, cand_d)
                if not Qc < best_Q:
                    continue
                Ic = privacy(counts_cy, cand, mappings)
                if not Ic < best_I:
                    continue
                labels, distances, best_I, best_Q = cand, cand_d, Ic, Qc
                records.append(
                    {
                        "values": sorted(int(v) for v in domain.values[moved]),
                        "from": int(area),
                        "to": int(to_area),
                        "leakage": Ic,
                        "utility_loss": Qc,
                    }
                )
                break
    if not records:
        return generalization, records
    return Generalization(domain=domain, labels=labels), records
