"""The attacker suite's fast paths against the computations they replace.

anonymeter's neighbour searches, the distinct cells of a released column, the attacker fitted once
per training set and the workload's answers computed once: each must give what the direct
computation gives, ties and all.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdp.attacks.suite import (
    _attacker,
    _fit_predict,
    _gower_neighbors,
    _GowerInference,
    _linked,
    _numpy_global_seed,
)
from ppdp.cells import _cell_key, _distinct_cells, cell_membership, table_domains


def mixed_frame(n: int, seed: int) -> pd.DataFrame:
    """Few distinct values per column, so that many distances tie."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 24, n),
            "hours": rng.choice([10.0, 20.0, 40.0], n),
            "flat": np.full(n, 3),  # a constant column: anonymeter's range of 1
            "edu": rng.choice(["hs", "ba", "ms"], n),
            "sex": rng.choice(["f", "m"], n),
            "secret": rng.choice(["a", "b", "c"], n),
        }
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 10, 60])
def test_gower_neighbors_are_anonymeters(seed, k):
    import anonymeter.evaluators  # noqa: F401  (imported first: the neighbours module imports it back)
    from anonymeter.neighbors.mixed_types_kneighbors import MixedTypeKNeighbors

    candidates = mixed_frame(50, seed)
    queries = mixed_frame(30, seed + 100)
    for columns in (["age", "hours", "flat", "edu", "sex"], ["edu", "sex"], ["age"]):
        expected = (
            MixedTypeKNeighbors(n_neighbors=min(k, len(candidates)), n_jobs=1)
            .fit(candidates[columns])
            .kneighbors(queries[columns], return_distance=False)
        )
        got = _gower_neighbors(candidates[columns], queries[columns], k)
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("seed", range(3))
def test_gower_inference_gives_anonymeters_evaluation(seed):
    from anonymeter.evaluators import InferenceEvaluator

    train, syn, control = (mixed_frame(80, seed + s) for s in (0, 10, 20))
    aux = ["age", "hours", "edu", "sex"]

    def results(model):
        ev = InferenceEvaluator(
            ori=train,
            syn=syn,
            aux_cols=aux,
            secret="secret",
            n_attacks=40,
            control=control,
            inference_model=model,
        )
        with _numpy_global_seed(seed):
            return ev.evaluate(n_jobs=1).results()

    expected, got = results(None), results(_GowerInference(syn, aux, "secret"))
    assert (got.n_success, got.n_control) == (expected.n_success, expected.n_control)


@pytest.mark.filterwarnings("ignore:Attack is as good or worse:UserWarning")
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [1, 5])
def test_linked_counts_anonymeters_links(seed, k):
    from anonymeter.evaluators import LinkabilityEvaluator

    train, syn, control = (mixed_frame(80, seed + s) for s in (0, 10, 20))
    halves = (["age", "hours"], ["edu", "sex", "secret"])
    ev = LinkabilityEvaluator(
        ori=train, syn=syn, aux_cols=halves, n_attacks=40, n_neighbors=k, control=control
    )
    with _numpy_global_seed(seed):
        raw = ev.evaluate(n_jobs=1).results()
    # the same targets: drawn on train, then on control, from the same legacy state
    with _numpy_global_seed(seed):
        n_success = _linked(train, syn, 40, halves, k)
        n_control = _linked(control, syn, 40, halves, k)
    assert (n_success, n_control) == (raw.n_success, raw.n_control)


COLUMNS = {
    "ints": pd.Series([3, 1, 3, 2, 1, 1]),
    "floats with signed zeros": pd.Series([0.0, -0.0, 1.5, 0.0, 1.5, 2.0]),
    "text": pd.Series(["b", "a", "[1, 3]", "b", "a", "z"]),
    "mixed objects": pd.Series([1, "1", 1.0, 1, "x", 1.0], dtype=object),
}


@pytest.mark.parametrize("name", COLUMNS)
def test_distinct_cells_follow_the_per_cell_keys(name):
    col = COLUMNS[name]
    raw = col.to_numpy(dtype=object)
    first, inverse = _distinct_cells(col, raw)
    keys = np.array([_cell_key(v) for v in raw.tolist()], dtype=object)
    # the distinct cells in key order, each cell pointing at one with its key, as np.unique gives
    _, expected_first, expected_inverse = np.unique(keys, return_index=True, return_inverse=True)
    if name != "floats with signed zeros":
        np.testing.assert_array_equal(first, expected_first)
        np.testing.assert_array_equal(inverse, expected_inverse.reshape(-1))
    # every cell maps to a cell of equal value (0.0 and -0.0 parse alike)
    assert all(raw[first[inverse[i]]] == raw[i] for i in range(len(raw)))
    order = [_cell_key(v) for v in raw[first].tolist()]
    assert order == sorted(order)


def test_cell_membership_of_numeric_cells_matches_per_value_parsing():
    df = pd.DataFrame({"x": [1, 5, 3, 5, 1, 2]})
    (domain,) = table_domains(df, ["x"], numeric=["x"]).values()
    got = cell_membership(df["x"], domain)
    for i, v in enumerate(df["x"]):
        np.testing.assert_array_equal(got[i], cell_membership(pd.Series([v]), domain)[0])


def test_an_attacker_fitted_once_predicts_as_a_fresh_fit():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(120, 4))
    y = (x[:, 0] + rng.normal(scale=0.5, size=120) > 0).astype(int)
    x_test = rng.normal(size=(30, 4))
    for model in ("xgb", "lr"):
        _, first = _fit_predict(model, 3, 20, x, y, x_test)
        _, again = _fit_predict(model, 3, 20, x, y, x_test)  # from the cache
        fresh = _attacker(model, 3, 20).fit(x, y).predict_proba(x_test)
        np.testing.assert_array_equal(first, fresh)
        np.testing.assert_array_equal(again, fresh)
        # another training set is not served from the cache
        _, other = _fit_predict(model, 3, 20, x, 1 - y, x_test)
        assert not np.array_equal(other, first)


@pytest.mark.parametrize("seed", range(3))
def test_nearest_record_guesses_are_anonymeters_knn_inference(seed):
    """The benchmark's anonymeter_nn attacker: anonymeter's KNN guess (its own neighbour search),
    on the release's cells drawn once."""
    import anonymeter.evaluators  # noqa: F401  (imported first: the neighbours module imports it back)
    from anonymeter.neighbors.mixed_types_kneighbors import MixedTypeKNeighbors

    from ppdp.attacks.suite import _anonymeter_frame, nearest_record_guesses
    from ppdp.cells import sample_cells

    released, people = mixed_frame(60, seed), mixed_frame(25, seed + 50)
    columns = list(released.columns)
    domains = table_domains(
        pd.concat([released, people]), columns, numeric=["age", "hours", "flat"]
    )
    aux = ["age", "hours", "flat", "edu", "sex"]
    got = nearest_record_guesses(
        released, people, domains=domains, aux=aux, secret="secret", random_state=seed
    )
    drawn = sample_cells(released, domains, [*aux, "secret"], np.random.default_rng(seed))
    syn = _anonymeter_frame(drawn, domains, [*aux, "secret"])
    idx = (
        MixedTypeKNeighbors(n_neighbors=1, n_jobs=1)
        .fit(syn[aux])
        .kneighbors(_anonymeter_frame(people, domains, aux), return_distance=False)
    )
    assert got.tolist() == drawn["secret"].to_numpy()[idx.ravel()].tolist()
    # a Generator seeded with the int draws the same cells
    again = nearest_record_guesses(
        released,
        people,
        domains=domains,
        aux=aux,
        secret="secret",
        random_state=np.random.default_rng(seed),
    )
    assert again.tolist() == got.tolist()
    # on the release itself, every released person's own secret (distance 0, first of its ties)
    own = nearest_record_guesses(
        released, released, domains=domains, aux=aux, secret="secret", random_state=seed
    )
    exact = released[aux].astype(str).agg("|".join, axis=1)
    unique = ~exact.duplicated(keep=False).to_numpy()
    assert (own[unique] == released["secret"].to_numpy()[unique]).all()


def _random_cells(rng, n_columns: int):
    """Per column a domain of 2-12 values and 1-10 cells over it: singletons (a value kept as
    released), ranges (generalized) or the whole domain (suppressed), as distributions."""
    cells = []
    for _ in range(n_columns):
        size = int(rng.integers(2, 13))
        rows = []
        for _ in range(int(rng.integers(1, 11))):
            kind = rng.integers(3)
            mass = np.zeros(size)
            if kind == 0:
                mass[rng.integers(size)] = 1.0
            elif kind == 1:
                lo = int(rng.integers(size))
                hi = int(rng.integers(lo, size)) + 1
                mass[lo:hi] = rng.random(hi - lo) + 0.1
            else:
                mass[:] = 1.0
            rows.append(mass / mass.sum())
        cells.append(np.array(rows))
    return cells


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_columns=st.integers(1, 5),
    n_targets=st.integers(0, 40),
    n_classes=st.integers(0, 60),
)
def test_narrowed_match_weights_are_the_dense_products_bit_for_bit(
    seed, n_columns, n_targets, n_classes
):
    """The pairs of a target and a class narrowed column by column, then multiplied out, give
    every weight the full product gives, to the last bit, zeros included."""
    from ppdp.attacks import targeted as T
    from ppdp.attacks.targeted import _dense_match_weights, _match_weights

    rng = np.random.default_rng(seed)
    cells = _random_cells(rng, n_columns)
    codes = np.stack([rng.integers(0, c.shape[1], n_targets) for c in cells], axis=1).reshape(
        n_targets, n_columns
    )
    class_cells = np.stack([rng.integers(0, c.shape[0], n_classes) for c in cells], axis=1).reshape(
        n_classes, n_columns
    )
    dense = _dense_match_weights(codes, cells, class_cells)
    assert dense.shape == (n_targets, n_classes)
    np.testing.assert_array_equal(_match_weights(codes, cells, class_cells), dense)
    # narrowed whatever the share of pairs the most selective column allows
    share = T._SPARSE_SHARE
    T._SPARSE_SHARE = 1
    try:
        narrowed = _match_weights(codes, cells, class_cells)
    finally:
        T._SPARSE_SHARE = share
    np.testing.assert_array_equal(narrowed, dense)
    assert not np.signbit(narrowed).any()


def test_match_weights_narrow_a_selective_column_and_agree_with_the_dense_ones():
    """Released values kept exactly in one column of 200 values: about 1 in 200 pairs survive it,
    and the narrowed weights equal the dense ones."""
    from ppdp.attacks import targeted as T

    rng = np.random.default_rng(0)
    exact = np.eye(200)
    coarse = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])
    cells = [coarse, exact]
    codes = np.stack([rng.integers(0, 3, 300), rng.integers(0, 200, 300)], axis=1)
    class_cells = np.stack([rng.integers(0, 2, 500), rng.integers(0, 200, 500)], axis=1)
    weights = T._match_weights(codes, cells, class_cells)
    np.testing.assert_array_equal(weights, T._dense_match_weights(codes, cells, class_cells))
    assert 0 < (weights > 0).mean() < 1 / 200
