"""The authors' home-cell areas (Foursquare): the initial layout and the area G-step."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ppdp.mechanisms import hyobscure as hy
from ppdp.mechanisms.hyobscure.areas import (
    area_generalization,
    area_reducibility,
    area_target,
    greedy_area_generalization,
)
from ppdp.mechanisms.hyobscure.domain import entropy_reach
from ppdp.mechanisms.hyobscure.leakage import (
    ABSENT_CLUSTER_COST,
    DistanceModel,
    cluster_value_counts,
    expected_distance,
)

W = 60  # the authors' grid width


def _cell(row, col):
    return row * W + col


def _areas_of(gen):
    """Cells of each area as sets of (row, col)."""
    out = {}
    for v, g in zip(gen.domain.values, gen.labels, strict=True):
        out.setdefault(int(g), set()).add((int(v) // W, int(v) % W))
    return out


# ------------------------------------------------------------------------------------------------
# the initial layout


def test_four_areas_on_a_ragged_six_by_six_block():
    # rows 10-15, columns 20-25, with a few cells missing so that rows differ in length
    missing = {(10, 23), (12, 20), (12, 21), (14, 25), (15, 22), (15, 23), (15, 24)}
    cells = [(r, c) for r in range(10, 16) for c in range(20, 26) if (r, c) not in missing]
    domain = hy.private_domain([_cell(r, c) for r, c in cells], "grid")
    gen = area_generalization(domain, 4)
    # 2 rows of 2 areas; 6 cell rows -> bands of int(6 / 2) = 3 rows: 10-12 and 13-15.
    # In each cell row the sorted occupied columns are cut in int(n / 2) and the rest:
    #   row 10: 20 21 22 24 25 -> [20 21] | [22 24 25]
    #   row 11: 20 .. 25       -> [20 21 22] | [23 24 25]
    #   row 12: 22 23 24 25    -> [22 23] | [24 25]
    #   row 13: 20 .. 25       -> [20 21 22] | [23 24 25]
    #   row 14: 20 .. 24       -> [20 21] | [22 23 24]
    #   row 15: 20 21 25       -> [20] | [21 25]
    expected = {
        0: {(10, 20), (10, 21), (11, 20), (11, 21), (11, 22), (12, 22), (12, 23)},
        1: {(10, 22), (10, 24), (10, 25), (11, 23), (11, 24), (11, 25), (12, 24), (12, 25)},
        2: {(13, 20), (13, 21), (13, 22), (14, 20), (14, 21), (15, 20)},
        3: {(13, 23), (13, 24), (13, 25), (14, 22), (14, 23), (14, 24), (15, 21), (15, 25)},
    }
    assert _areas_of(gen) == expected
    assert gen.n_groups == 4


def test_extra_columns_go_to_the_first_row_of_areas_and_the_last_band_takes_the_rest():
    # 5 areas: int(sqrt(5)) = 2 rows of areas, one extra column, given to the FIRST row
    # (areas 0, 1, 2 on top, 3 and 4 below). 7 cell rows: bands of int(7 / 2) = 3 rows, the
    # last band takes the remaining 4 rows. Rows of 7 cells: top rows cut 2 | 2 | 3, bottom
    # rows cut 3 | 4.
    cells = [(r, c) for r in range(7) for c in range(7)]
    domain = hy.private_domain([_cell(r, c) for r, c in cells], "grid")
    areas = _areas_of(area_generalization(domain, 5))
    assert areas[0] == {(r, c) for r in range(3) for c in (0, 1)}
    assert areas[1] == {(r, c) for r in range(3) for c in (2, 3)}
    assert areas[2] == {(r, c) for r in range(3) for c in (4, 5, 6)}
    assert areas[3] == {(r, c) for r in range(3, 7) for c in (0, 1, 2)}
    assert areas[4] == {(r, c) for r in range(3, 7) for c in (3, 4, 5, 6)}


def test_one_area_holds_every_cell():
    domain = hy.private_domain([_cell(3, 5), _cell(3, 9), _cell(40, 0)], "grid")
    np.testing.assert_array_equal(area_generalization(domain, 1).labels, [0, 0, 0])


def _reference_area_initiate(cells, n_areas):
    """A plain transcription of the authors' rules, cell row by cell row, with their row index
    ``r * band_lengths[r - 1] + i`` kept as written."""
    by_row = {}
    for r, c in sorted(cells):
        by_row.setdefault(r, []).append(c)
    rows = sorted(by_row)
    n_r = int(math.sqrt(n_areas))
    extra = n_areas - n_r * n_r
    labels = {}
    area = -1
    band_len = 1
    band_lengths = []
    for r in range(n_r):
        band_len = len(rows) // n_r if r < n_r - 1 else len(rows) - (n_r - 1) * band_len
        band_lengths.append(band_len)
        n_c = n_r + 1 if extra > 0 else n_r
        extra -= 1
        for c in range(n_c):
            area += 1
            for i in range(band_len):
                row = rows[r * band_lengths[r - 1] + i]
                cols = by_row[row]
                size = len(cols) // n_c
                chunk = cols[c * size : (c + 1) * size] if c < n_c - 1 else cols[(n_c - 1) * size :]
                for col in chunk:
                    labels[(row, col)] = area
    return labels


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cells=st.sets(st.tuples(st.integers(0, 12), st.integers(0, 12)), min_size=1, max_size=120),
    n_areas=st.sampled_from([1, 2, 4, 5, 6, 9, 10, 12, 16]),
)
def test_layout_matches_a_transcription_of_the_authors_rules(cells, n_areas):
    domain = hy.private_domain([_cell(r, c) for r, c in cells], "grid")
    ref = _reference_area_initiate(cells, n_areas)
    sizes = np.bincount(list(ref.values()), minlength=n_areas)
    if len(ref) != len(cells) or (sizes == 0).any():
        with pytest.raises(ValueError, match="n_areas"):
            area_generalization(domain, n_areas)
        return
    gen = area_generalization(domain, n_areas)
    got = {
        (int(v) // W, int(v) % W): int(g) for v, g in zip(domain.values, gen.labels, strict=True)
    }
    assert got == ref


def test_layout_rejects_bad_input():
    grid = hy.private_domain([_cell(r, c) for r in range(4) for c in range(4)], "grid")
    with pytest.raises(ValueError, match="kind='grid'"):
        area_generalization(hy.private_domain([20, 21, 22]), 1)
    with pytest.raises(ValueError, match="n_areas"):
        area_generalization(grid, 0)
    with pytest.raises(ValueError, match="n_areas"):
        area_generalization(grid, 2.5)
    # 7 areas: 2 rows of areas with at most one extra column each make only 6 areas
    with pytest.raises(ValueError, match=r"n_areas=7 .*only 6 areas"):
        area_generalization(grid, 7)
    # one cell row: the first band of int(1 / 2) = 0 rows leaves areas 0 and 1 empty
    one_row = hy.private_domain([_cell(5, c) for c in range(8)], "grid")
    with pytest.raises(ValueError, match=r"n_areas=4 leaves area\(s\) \[0, 1\] without a cell"):
        area_generalization(one_row, 4)
    # a row of fewer occupied cells than areas gives all of them to the last area of its row:
    # 6 areas are 2 rows of 3, and rows of 2 cells leave areas 0, 1, 3 and 4 empty
    sparse = hy.private_domain([_cell(0, 0), _cell(0, 1), _cell(1, 0), _cell(1, 1)], "grid")
    with pytest.raises(ValueError, match=r"area\(s\) \[0, 1, 3, 4\]"):
        area_generalization(sparse, 6)


# ------------------------------------------------------------------------------------------------
# directions


def test_reducibility_of_four_areas_by_hand():
    # [left, right, up, down]: left is open when an area lies to the right (it receives the
    # right ends), right when one lies to the left, up below the first row, down above the last
    np.testing.assert_array_equal(
        area_reducibility(4),
        [[1, 0, 0, 1], [0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 1, 0]],
    )
    assert [area_target(0, 0, 4), area_target(1, 1, 4)] == [1, 0]
    assert [area_target(2, 2, 4), area_target(3, 2, 4)] == [0, 1]
    assert [area_target(0, 3, 4), area_target(1, 3, 4)] == [2, 3]


def test_reducibility_and_targets_with_an_extra_column():
    # rows of areas [0, 1, 2] and [3, 4]; the up/down step is int(5 / 2) = 2, so area 0's
    # "down" lands on area 2 of its own row, as in the authors' code
    np.testing.assert_array_equal(
        area_reducibility(5),
        [[1, 0, 0, 1], [1, 1, 0, 1], [0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 1, 0]],
    )
    assert area_target(0, 3, 5) == 2
    assert area_target(1, 3, 5) == 3
    assert area_target(4, 2, 5) == 2


@pytest.mark.parametrize("n_areas", [1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 16, 20])
def test_every_open_direction_targets_an_existing_area(n_areas):
    try:
        flags = area_reducibility(n_areas)
    except ValueError:
        assert n_areas in (3, 7, 8)
        return
    assert flags.shape == (n_areas, 4)
    for a, d in zip(*np.nonzero(flags), strict=True):
        assert 0 <= area_target(int(a), int(d), n_areas) < n_areas
        assert area_target(int(a), int(d), n_areas) != a


def test_target_rejects_closed_or_unknown_directions():
    with pytest.raises(ValueError, match="cannot give cells right"):
        area_target(0, 1, 4)
    with pytest.raises(ValueError, match="direction=7"):
        area_target(0, 7, 4)
    with pytest.raises(ValueError, match="area=4"):
        area_target(4, 0, 4)


def test_l_range_keeps_the_authors_float_path():
    # exp(H) of three equal cells is 2.9999999999999996: int(exp(H) - 2) is 0, not 1
    assert entropy_reach(np.array([5.0, 5.0, 5.0]), 2) == 0
    assert entropy_reach(np.array([5.0, 5.0, 5.0, 5.0]), 2) == 2
    assert entropy_reach(np.array([5.0, 0.0, 5.0, 0.0]), 1) == 1
    assert entropy_reach(np.zeros(3), 1) == 0


# ------------------------------------------------------------------------------------------------
# the area G-step


def _population(seed, n=240, m=12, C=3):
    """Users with home cells on a 6 x 6 block; their features depend on their cluster and on
    the quarter of the block they live in."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(10, 16, n)
    cols = rng.integers(20, 26, n)
    base = rng.gamma(1.0, 1.0, (C, m))
    clusters = rng.integers(0, C, n)
    shift = 1 + (rows[:, None] >= 13) + (cols[:, None] >= 23)
    X = rng.poisson(base[clusters] * shift) + 0.0
    X[:, 0] += 1.0
    return X, rows * W + cols, clusters


def _smallest_budget(counts, labels, distances):
    """The smallest cluster-mean budget solve_obfuscation accepts."""
    C = counts.shape[0]
    need = []
    for g in range(int(labels.max()) + 1):
        present = counts[:, labels == g].sum(axis=1) > 0
        D = distances[g][np.ix_(present, present)]
        need.append((D.min(axis=1).sum() + (C - present.sum()) * ABSENT_CLUSTER_COST) / C)
    return max(need)


_STATES = {}


def _state(seed):
    if seed not in _STATES:
        X, y, clusters = _population(seed)
        domain = hy.private_domain(y, "grid")
        gen = area_generalization(domain, 4)
        idx = domain.index(y)
        C = int(clusters.max()) + 1
        counts = cluster_value_counts(clusters, idx, C, len(domain.values))
        model = DistanceModel(X, clusters, idx, C, len(domain.values), "mean_pairwise_js")
        distances = model.all_groups(gen.labels)
        budget = _smallest_budget(counts, gen.labels, distances) + 0.02
        mappings, _ = hy.solve_obfuscation(
            counts, gen.labels, distances, budget, scope="cluster_mean"
        )
        _STATES[seed] = (gen, counts, mappings, model)
    return _STATES[seed]


def _score(counts, labels, mappings, model):
    loss = np.mean(
        expected_distance(counts, labels, mappings, model.all_groups(labels), "cluster_mean")
    )
    return hy.hybrid_leakage(counts, labels, mappings), float(loss)


def _direction(record, n_areas):
    step = n_areas // math.isqrt(n_areas)
    return {1: 0, -1: 1, -step: 2, step: 3}[record["to"] - record["from"]]


SEEDS = range(4)
PARAMS = [(10, 2), (25, 3)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("k", "l"), PARAMS)
def test_g_step_records_replay_to_the_result(seed, k, l):  # noqa: E741
    """Replaying the records gives the result; each move keeps the giver at >= k users, takes
    the end of one line of the giver toward its target, and strictly lowers both the leakage
    and the loss, which are the recorded ones; the first dominating i of the line is taken."""
    gen, counts, mappings, model = _state(seed)
    # scored by the exact leakage here; the authors' transposed score has its own tests
    new, records = greedy_area_generalization(
        gen, counts, mappings, model, k, l, np.random.default_rng(seed), score="leakage"
    )
    K = mappings.shape[0]
    users = counts.sum(axis=0)
    values = gen.domain.values
    labels = gen.labels.copy()
    leak0, loss0 = _score(counts, labels, mappings, model)
    first_leak = leak0
    for rec in records:
        moved = np.flatnonzero(np.isin(values, rec["values"]))
        assert len(moved) == len(rec["values"]) >= 1
        assert (labels[moved] == rec["from"]).all()
        d = _direction(rec, K)
        assert area_reducibility(K)[rec["from"], d] == 1
        assert area_target(rec["from"], d, K) == rec["to"]
        line_of = values // W if d < 2 else values % W
        lines = np.unique(line_of[moved])
        assert len(lines) == 1
        line = np.flatnonzero((labels == rec["from"]) & (line_of == lines[0]))
        i = len(moved)
        assert i <= entropy_reach(users[labels == rec["from"]], l)
        ends = line[-i:] if d in (0, 3) else line[:i]
        np.testing.assert_array_equal(moved, ends)
        # no shorter run of the same line was a dominating move
        for j in range(1, i):
            shorter = line[-j:] if d in (0, 3) else line[:j]
            if users[labels == rec["from"]].sum() - users[shorter].sum() < k:
                continue
            cand = labels.copy()
            cand[shorter] = rec["to"]
            leak_j, loss_j = _score(counts, cand, mappings, model)
            assert not (leak_j < leak0 and loss_j < loss0)
        labels[moved] = rec["to"]
        assert users[labels == rec["from"]].sum() >= k
        leak1, loss1 = _score(counts, labels, mappings, model)
        assert leak1 == pytest.approx(rec["leakage"], rel=1e-12, abs=1e-12)
        assert loss1 == pytest.approx(rec["utility_loss"], rel=1e-12, abs=1e-12)
        assert rec["leakage"] < leak0 and rec["utility_loss"] < loss0
        leak0, loss0 = rec["leakage"], rec["utility_loss"]
    np.testing.assert_array_equal(new.labels, labels)
    assert set(np.unique(new.labels)) <= set(range(K))
    assert np.bincount(new.labels, minlength=K).min() >= 1
    final_leak = hy.hybrid_leakage(counts, new.labels, mappings)
    assert final_leak <= first_leak


def test_g_step_moves_something_on_these_populations():
    moved = 0
    for seed in SEEDS:
        gen, counts, mappings, model = _state(seed)
        _, records = greedy_area_generalization(
            gen, counts, mappings, model, 10, 2, np.random.default_rng(seed)
        )
        moved += len(records)
    assert moved >= 4


@pytest.mark.parametrize("seed", SEEDS)
def test_g_step_is_deterministic_for_a_seed(seed):
    gen, counts, mappings, model = _state(seed)
    a = greedy_area_generalization(gen, counts, mappings, model, 10, 2, np.random.default_rng(7))
    b = greedy_area_generalization(gen, counts, mappings, model, 10, 2, np.random.default_rng(7))
    np.testing.assert_array_equal(a[0].labels, b[0].labels)
    assert a[1] == b[1]


def _reference_g_step(gen, counts, mappings, model, k, l, rng):  # noqa: E741
    """The authors' loop with their dict bookkeeping: line lists read from a snapshot taken when
    the direction is drawn, every candidate scored from scratch."""
    K = mappings.shape[0]
    users = counts.sum(axis=0)
    cells = [int(v) for v in gen.domain.values]
    pos = {v: i for i, v in enumerate(cells)}
    area_cells = {
        a: sorted(v for v, g in zip(cells, gen.labels, strict=True) if g == a) for a in range(K)
    }

    def line_dicts(area_cells):
        rowcol, colrow = {}, {}
        for a, vs in area_cells.items():
            rowcol[a], colrow[a] = {}, {}
            for v in vs:
                rowcol[a].setdefault(v // W, []).append(v % W)
                colrow[a].setdefault(v % W, []).append(v // W)
        return rowcol, colrow

    def labels_of(area_cells):
        lab = np.empty(len(cells), dtype=np.int64)
        for a, vs in area_cells.items():
            lab[[pos[v] for v in vs]] = a
        return lab

    def l_of(vs):
        return entropy_reach(users[[pos[v] for v in vs]], l)

    rowcol, colrow = line_dicts(area_cells)
    flags = area_reducibility(K)
    best_leak, best_loss = _score(counts, labels_of(area_cells), mappings, model)
    for area in rng.permutation(K).tolist():
        if l_of(area_cells[area]) <= 0:
            continue
        d = int(rng.choice(4, p=flags[area] / flags[area].sum()))
        snapshot = rowcol if d < 2 else colrow
        for line in sorted(snapshot[area]):
            grids = area_cells[area]
            change = min(l_of(grids), len(snapshot[area][line]))
            run = sorted(snapshot[area][line])
            for i in range(1, change + 1):
                part = run[-i:] if d in (0, 3) else run[:i]
                out = [line * W + x if d < 2 else x * W + line for x in part]
                kept = sorted(set(grids) - set(out))
                if users[[pos[v] for v in kept]].sum() < k:
                    continue
                to = area_target(area, d, K)
                cand = dict(area_cells)
                cand[area] = kept
                cand[to] = sorted(set(cand[to]) | set(out))
                leak1, loss1 = _score(counts, labels_of(cand), mappings, model)
                if leak1 < best_leak and loss1 < best_loss:
                    best_leak, best_loss, area_cells = leak1, loss1, cand
                    rowcol, colrow = line_dicts(area_cells)  # `snapshot` stays the old dict
                    break
    return labels_of(area_cells)


@pytest.mark.parametrize("seed", SEEDS)
def test_g_step_matches_the_authors_bookkeeping(seed):
    gen, counts, mappings, model = _state(seed)
    # the reference transcription scores by the exact leakage (the score has its own tests)
    new, _ = greedy_area_generalization(
        gen, counts, mappings, model, 10, 2, np.random.default_rng(seed + 100), score="leakage"
    )
    ref = _reference_g_step(gen, counts, mappings, model, 10, 2, np.random.default_rng(seed + 100))
    np.testing.assert_array_equal(new.labels, ref)


def test_g_step_without_room_moves_nothing():
    gen, counts, mappings, model = _state(0)
    # l above exp(H) of every area: no area may give a cell
    new, records = greedy_area_generalization(
        gen, counts, mappings, model, 1, 40, np.random.default_rng(0)
    )
    assert records == [] and new is gen
    # k above every area's users: no move keeps the giver at k
    new, records = greedy_area_generalization(
        gen, counts, mappings, model, 10_000, 1, np.random.default_rng(0)
    )
    assert records == [] and new is gen


def test_g_step_rejects_bad_input():
    gen, counts, mappings, model = _state(0)
    rng = np.random.default_rng(0)
    ages = hy.band_generalization(hy.private_domain(np.arange(18, 30)), [22, 26])
    with pytest.raises(ValueError, match="kind='grid'"):
        greedy_area_generalization(ages, counts, mappings[:3], model, 10, 2, rng)
    with pytest.raises(ValueError, match=r"mappings must have shape"):
        greedy_area_generalization(gen, counts, mappings[:3], model, 10, 2, rng)
    with pytest.raises(ValueError, match="'k'"):
        greedy_area_generalization(gen, counts, mappings, model, 0, 2, rng)
    with pytest.raises(ValueError, match="'scope'"):
        greedy_area_generalization(gen, counts, mappings, model, 10, 2, rng, scope="nope")
