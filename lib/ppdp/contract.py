"""The mechanism contract as executable checks, in the spirit of scikit-learn's estimator checks.

Every DataFrame-level mechanism subclasses :class:`ppdp.base.Mechanism`. A :class:`MechanismCase`
says how to build one (good parameters, a small table, one bad value per checked parameter);
:func:`contract_checks` yields every check of the contract, each a function of the case that
raises :class:`AssertionError` when the mechanism breaks the contract::

    import pytest
    from ppdp.contract import MechanismCase, contract_checks

    CASE = MechanismCase("mine", make=lambda: MyMechanism(k=5), table=my_table,
                         bad_params={"k": 0}, column="age")

    @pytest.mark.parametrize("check", contract_checks(), ids=lambda c: c.__name__)
    def test_contract(check):
        check(CASE)

The checks:

* it is a :class:`~ppdp.base.Mechanism` that states its guarantee (``guarantee``); its constructor stores the parameters as given
  (``get_params``), and :func:`sklearn.base.clone` and pickling round-trip;
* ``release`` and ``guarantee_checks`` before ``fit`` raise
  :class:`~sklearn.exceptions.NotFittedError`;
* ``fit`` returns ``self`` and leaves the caller's table unchanged;
* the same ``random_state`` gives the same bytes, another one another release, and a Generator
  is used as is and advanced (random mechanisms); a bad ``random_state`` is refused by name;
  ``fit_release`` is ``fit`` then ``release`` from one stream;
* the release has the table's columns in their order (and its index, for mechanisms that keep the
  records), each with its input's dtype unless the mechanism declares that it changes it
  (:attr:`ppdp.base.Mechanism.recast_columns`);
* ``release`` consults ``guarantee_checks`` and raises
  :class:`~ppdp.guarantees.GuaranteeViolation` on a violated bound;
  :func:`~ppdp.guarantees.guarantee_report` works;
* a bad hyper-parameter is accepted by the constructor and rejected by ``fit``, which names it;
* bad tables (no rows, a missing column, a missing or infinite value) raise a ValueError or
  TypeError that says what is wrong; a categorical dtype and a column of one value are either
  released or refused with such an error.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import re
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ppdp.base import REPETITION, RepeatedReleaseWarning

__all__ = ["ArrayCase", "MechanismCase", "array_contract_checks", "contract_checks"]


@dataclass(frozen=True)
class MechanismCase:
    """How the contract checks build and feed one mechanism.

    Attributes
    ----------
    name : str
        A short name for test ids.
    make : callable
        ``make()`` returns a new, unfitted mechanism with good parameters.
    table : callable
        ``table()`` returns a new small table the mechanism fits.
    bad_params : dict
        Parameter name -> a value ``fit`` must reject with an error naming the parameter.
    column : str
        A column of the table the mechanism reads (for the missing-column and missing-value
        checks).
    numeric : str, optional
        A numeric column it reads (for the infinite-value check); None skips that check.
    named_columns : bool
        Whether the mechanism reads columns by name (False for a synthesizer of whatever
        columns it is given, for which a table without a column is just another table).
    random : bool
        Whether the release depends on ``random_state``.
    keeps_index : bool
        Whether the release keeps the table's index row for row.
    release_params : dict
        Extra keyword arguments of ``release``.

    Examples
    --------
    k-ary randomized response on one column of a six-row table; a negative ``epsilon`` is the
    value ``fit`` must reject:

    >>> import pandas as pd
    >>> from ppdp.contract import MechanismCase
    >>> from ppdp.mechanisms.randomized_response import KaryRandomizedResponse
    >>> def table():
    ...     return pd.DataFrame({"age": [23, 25, 31, 35, 41, 47],
    ...                          "sex": ["F", "M", "M", "F", "M", "F"]})
    >>> case = MechanismCase("krr", make=lambda: KaryRandomizedResponse(1.0, columns=["sex"]),
    ...                      table=table, bad_params={"epsilon": -1.0}, column="sex")
    >>> case.make().fit(case.table()).release(random_state=0).shape
    (6, 2)
    """

    name: str
    make: Callable[[], Any]
    table: Callable[[], pd.DataFrame]
    bad_params: Mapping[str, Any]
    column: str
    numeric: str | None = None
    named_columns: bool = True
    random: bool = True
    keeps_index: bool = True
    release_params: Mapping[str, Any] = field(default_factory=dict)


def _fit(mech, table: pd.DataFrame, random_state: Any = 0):
    """``mech.fit(table)``, with ``random_state`` when ``fit`` takes one."""
    if "random_state" in inspect.signature(mech.fit).parameters:
        return mech.fit(table, random_state=random_state)
    return mech.fit(table)


def _release(case: MechanismCase, mech, random_state: Any) -> pd.DataFrame:
    # the checks release many times from one fit on purpose; check_repetition watches the warning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RepeatedReleaseWarning)
        return mech.release(random_state=random_state, **case.release_params)


def _fitted(case: MechanismCase):
    return _fit(case.make(), case.table())


# ------------------------------------------------------------------------------------------------
# the protocol


def check_is_a_mechanism(case: MechanismCase) -> None:
    from ppdp.base import Mechanism

    mech = case.make()
    assert isinstance(mech, Mechanism), f"{case.name}: not a ppdp.base.Mechanism"
    for verb in ("fit", "release", "fit_release", "guarantee_checks", "get_params"):
        assert callable(getattr(mech, verb, None)), f"{case.name}: no {verb}()"
    stated = getattr(type(mech), "guarantee", None)
    assert isinstance(stated, str) and stated.strip(), (
        f"{case.name}: {type(mech).__name__}.guarantee does not state the bound its releases keep"
    )


def check_constructor_stores_parameters_and_clones(case: MechanismCase) -> None:
    from sklearn.base import clone

    mech = case.make()
    params = mech.get_params(deep=False)
    twin = clone(mech)  # raises when the constructor changes a parameter it stores
    assert type(twin) is type(mech)
    for name, value in twin.get_params(deep=False).items():
        assert name in params, f"{case.name}: clone has the unknown parameter {name!r}"
        _assert_same_value(value, params[name], f"{case.name}: clone's {name}")
    # set_params changes what get_params reports
    name = next(iter(case.bad_params))
    good = params[name]
    mech.set_params(**{name: good})
    _assert_same_value(mech.get_params(deep=False)[name], good, f"{case.name}: set_params")


def _assert_same_value(a, b, what: str) -> None:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert np.array_equal(a, b), what
    elif hasattr(a, "get_params") and hasattr(b, "get_params"):
        assert type(a) is type(b), what
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        # a component without get_params (cloned by deep copy): same class, same attributes
        assert type(a) is type(b) and vars(a).keys() == vars(b).keys(), what
    else:
        assert a == b or (a is b), f"{what}: {a!r} != {b!r}"


def check_not_fitted(case: MechanismCase) -> None:
    mech = case.make()
    _unfitted_refuses(case.name, mech, lambda: _release(case, mech, 0))


def _unfitted_refuses(name: str, mech, release: Callable[[], Any]) -> None:
    """``release()`` and ``mech.guarantee_checks()`` raise NotFittedError before ``fit``."""
    from sklearn.exceptions import NotFittedError

    for call in (release, mech.guarantee_checks):
        try:
            call()
        except NotFittedError:
            continue
        raise AssertionError(f"{name}: an unfitted mechanism did not raise NotFittedError")


def check_fit_returns_self_and_keeps_the_table(case: MechanismCase) -> None:
    mech = case.make()
    table = case.table()
    before = table.copy(deep=True)
    assert _fit(mech, table) is mech, f"{case.name}: fit did not return self"
    pd.testing.assert_frame_equal(table, before, obj=f"{case.name}: the fitted table")
    _release(case, mech, 0)
    pd.testing.assert_frame_equal(table, before, obj=f"{case.name}: the table after release")


def check_same_random_state_same_bytes(case: MechanismCase) -> None:
    mech = _fitted(case)
    first = _release(case, mech, 3)
    pd.testing.assert_frame_equal(first, _release(case, mech, 3), obj=f"{case.name}: release(3)")
    again = _fit(case.make(), case.table())
    pd.testing.assert_frame_equal(
        first, _release(case, again, 3), obj=f"{case.name}: a second fit's release(3)"
    )
    pd.testing.assert_frame_equal(
        first,
        _release(case, mech, np.random.default_rng(3)),
        obj=f"{case.name}: release(default_rng(3))",
    )
    if "random_state" in inspect.signature(mech.fit).parameters:
        # a random fit takes a Generator, and two equal Generators give the same fit
        twice = [_fit(case.make(), case.table(), np.random.default_rng(0)) for _ in range(2)]
        pd.testing.assert_frame_equal(
            _release(case, twice[0], 3),
            _release(case, twice[1], 3),
            obj=f"{case.name}: two fits from default_rng(0)",
        )
    stream = np.random.default_rng(3)
    before = stream.bit_generator.state
    _release(case, mech, stream)
    moved = stream.bit_generator.state != before
    # a Generator is used as is: a random release advances it, a deterministic one leaves it
    assert moved == case.random, (
        f"{case.name}: release {'did not advance' if case.random else 'advanced'} its Generator"
    )
    if case.random:
        other = _release(case, mech, 4)
        assert not first.equals(other), f"{case.name}: release(3) equals release(4)"
        assert not _release(case, mech, stream).equals(_release(case, mech, stream)), (
            f"{case.name}: two releases from one Generator are equal"
        )


def check_bad_random_state(case: MechanismCase) -> None:
    """``release`` (and a random ``fit``) refuse a bad ``random_state`` by name."""
    mech = _fitted(case)
    calls = {"release": lambda bad: _release(case, mech, bad)}
    if "random_state" in inspect.signature(mech.fit).parameters:
        calls["fit"] = lambda bad: _fit(case.make(), case.table(), bad)
    _refuses_bad_random_states(case.name, calls)


def _refuses_bad_random_states(name: str, calls: Mapping[str, Callable[[Any], Any]]) -> None:
    """Each call (verb -> call(random_state)) refuses bad values with an error naming it."""
    bads = (("seed", TypeError), (1.5, TypeError), (True, TypeError), (-1, ValueError))
    for verb, call in calls.items():
        for bad, error in bads:
            try:
                call(bad)
            except error as err:
                assert "random_state" in str(err), (
                    f"{name}: {verb}(random_state={bad!r}) did not name random_state: {err}"
                )
                continue
            raise AssertionError(f"{name}: {verb}(random_state={bad!r}) did not raise {error}")


def check_fit_release_is_fit_then_release(case: MechanismCase) -> None:
    """``fit_release(df, s)`` equals fit then release from one ``default_rng(s)`` stream."""
    if case.release_params:
        return  # fit_release passes options to fit only; this case's release needs its own
    table = case.table()
    released = case.make().fit_release(table, random_state=5)
    stream = np.random.default_rng(5)
    mech = case.make()
    if "random_state" in inspect.signature(mech.fit).parameters:
        mech.fit(table, random_state=stream)
    else:
        mech.fit(table)
    expected = _release(case, mech, stream)
    pd.testing.assert_frame_equal(released, expected, obj=f"{case.name}: fit_release(df, 5)")


def check_release_schema(case: MechanismCase) -> None:
    """The release is a frame with the table's columns in their order, each with its input's
    dtype unless the mechanism declares that it changes it, and (``keeps_index``) its index.

    A column that silently becomes ``object`` (or float, or text) breaks every consumer that
    reads it by dtype; a mechanism that changes a column's dtype on purpose names the attribute
    that lists such columns in its class attribute ``recast_columns``.
    """
    table = case.table()
    mech = _fit(case.make(), table)
    released = _release(case, mech, 0)
    assert isinstance(released, pd.DataFrame), f"{case.name}: release is not a DataFrame"
    assert list(released.columns) == list(table.columns), (
        f"{case.name}: released columns {list(released.columns)} differ from {list(table.columns)}"
    )
    declared = _declared_recast_columns(mech, list(table.columns))
    changed = {
        c: f"{table[c].dtype} -> {released[c].dtype}"
        for c in table.columns
        if c not in declared and released[c].dtype != table[c].dtype
    }
    assert not changed, (
        f"{case.name}: release changes the dtype of undeclared columns {changed}; keep them, or "
        f"name the attribute listing them in {type(mech).__name__}.recast_columns"
    )
    if case.keeps_index:
        pd.testing.assert_index_equal(released.index, table.index, obj=f"{case.name}: index")


def _declared_recast_columns(mech, columns: list[str]) -> set[str]:
    """The columns whose dtype ``mech`` declares its release may change (``recast_columns``)."""
    declared: set[str] = set()
    for attribute in getattr(type(mech), "recast_columns", ()):
        if attribute == "*":
            return set(columns)
        named = getattr(mech, attribute)
        if named is None:
            continue
        declared.update([named] if isinstance(named, str) else list(named))
    return declared


def check_guarantees_are_enforced(case: MechanismCase) -> None:
    from ppdp.guarantees import GuaranteeCheck, GuaranteeViolation, guarantee_report

    mech = _fitted(case)
    report = guarantee_report(mech)
    assert list(report.columns)[:2] == ["mechanism", "guarantee"]
    assert report["holds"].all(), f"{case.name}: a fitted mechanism breaks its own guarantee"
    broken = GuaranteeCheck(case.name, "contract check", 1.0, 2.0, "at_most", "test")
    mech.guarantee_checks = lambda: [broken]  # an instance attribute shadows the method
    try:
        _release(case, mech, 0)
    except GuaranteeViolation:
        return
    raise AssertionError(f"{case.name}: release did not consult guarantee_checks()")


def check_pickle_round_trip(case: MechanismCase) -> None:
    mech = _fitted(case)
    loaded = pickle.loads(pickle.dumps(mech))
    pd.testing.assert_frame_equal(
        _release(case, mech, 5), _release(case, loaded, 5), obj=f"{case.name}: after pickle"
    )
    copied = copy.deepcopy(mech)
    pd.testing.assert_frame_equal(
        _release(case, mech, 6), _release(case, copied, 6), obj=f"{case.name}: after deepcopy"
    )


def check_bad_parameters_raise_at_fit(case: MechanismCase) -> None:
    _fit_refuses_bad_parameters(case, lambda mech: _fit(mech, case.table()))


def _fit_refuses_bad_parameters(case, fit: Callable[[Any], Any]) -> None:
    """Each of ``case.bad_params``, stored by the constructor's path, is refused by ``fit(mech)``
    with an error naming it."""
    for name, value in case.bad_params.items():
        mech = case.make().set_params(**{name: value})  # the constructor path stores it too
        try:
            fit(mech)
        except (TypeError, ValueError) as err:
            assert re.search(rf"\b{re.escape(name)}\b", str(err)), (
                f"{case.name}: {name}={value!r} raised without naming it: {err}"
            )
            continue
        raise AssertionError(f"{case.name}: fit accepted {name}={value!r}")


# ------------------------------------------------------------------------------------------------
# bad and unusual tables


def _refused_clearly(case: MechanismCase, table: pd.DataFrame, words: tuple[str, ...], what: str):
    """fit + release on ``table`` must raise a ValueError or TypeError mentioning a word."""
    try:
        _release(case, _fit(case.make(), table), 0)
    except (TypeError, ValueError) as err:
        text = str(err).lower()
        assert any(w.lower() in text for w in words), (
            f"{case.name}: {what} raised an unclear message: {err}"
        )
        return
    raise AssertionError(f"{case.name}: {what} was released")


def _released_or_refused(case: MechanismCase, table: pd.DataFrame, column: str, what: str):
    """fit + release on ``table`` either releases its columns or names ``column``."""
    try:
        released = _release(case, _fit(case.make(), table), 0)
    except (TypeError, ValueError) as err:
        assert column in str(err), f"{case.name}: {what} refused without naming {column!r}: {err}"
        return
    assert list(released.columns) == list(table.columns), f"{case.name}: {what}: columns"


def check_empty_table(case: MechanismCase) -> None:
    table = case.table().iloc[:0]
    _refused_clearly(case, table, ("row", "empty"), "a table without rows")


def check_missing_column(case: MechanismCase) -> None:
    if not case.named_columns:
        return
    table = case.table().drop(columns=case.column)
    _refused_clearly(case, table, (case.column,), f"a table without {case.column!r}")


def check_missing_value(case: MechanismCase) -> None:
    table = case.table()
    table[case.column] = table[case.column].astype(object)
    table.iloc[1, table.columns.get_loc(case.column)] = None
    _refused_clearly(case, table, (case.column, "missing", "nan"), "a missing value")


def check_infinite_value(case: MechanismCase) -> None:
    if case.numeric is None:
        return
    table = case.table()
    table[case.numeric] = table[case.numeric].astype(np.float64)
    table.iloc[1, table.columns.get_loc(case.numeric)] = np.inf
    _refused_clearly(case, table, (case.numeric, "finite", "inf"), "an infinite value")


def check_categorical_dtype(case: MechanismCase) -> None:
    table = case.table()
    text = [c for c in table.columns if not pd.api.types.is_numeric_dtype(table[c])]
    if not text:
        return
    table[text[0]] = table[text[0]].astype("category")
    _released_or_refused(case, table, text[0], "a categorical column")


def check_column_of_one_value(case: MechanismCase) -> None:
    table = case.table()
    table[case.column] = table[case.column].iloc[0]
    _released_or_refused(case, table, case.column, "a column of one value")


def _declared_repetition(mech) -> str | None:
    """The ``repetition`` a class below the protocol's ABCs declares itself, or None."""
    from ppdp.base import ArrayMechanism, Mechanism, ReleaseLedger

    protocol = {Mechanism, ArrayMechanism, ReleaseLedger}
    for klass in type(mech).__mro__:
        if klass in protocol:
            return None
        if "repetition" in vars(klass):
            return vars(klass)["repetition"]
    return None


def _check_repetition(name: str, make_fitted: Callable[[], Any], release: Callable) -> None:
    """The ledger counts releases, resets on fit, and acts on the declared ``repetition``."""
    mech = make_fitted()
    kind = _declared_repetition(mech)
    assert kind in REPETITION, (
        f"{name}: {type(mech).__name__} declares no repetition (one of {sorted(REPETITION)}): "
        "what does a second release from one fit add?"
    )
    assert mech.n_releases_ == 0, f"{name}: a new fit counts {mech.n_releases_} releases"
    warned = []
    for n in (1, 2, 3):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            release(mech, n)
        warned.append(sum(issubclass(w.category, RepeatedReleaseWarning) for w in caught))
        assert mech.n_releases_ == n, f"{name}: {n} releases counted as {mech.n_releases_}"
    expected = [0, 1, 0] if kind == "leaks" else [0, 0, 0]
    assert warned == expected, (
        f"{name}: repetition {kind!r} issued {warned} RepeatedReleaseWarnings on releases 1-3, "
        f"expected {expected}"
    )
    if kind == "composes":
        assert mech.spent() != mech._composed(1), f"{name}: spent() does not grow with releases"
    elif kind == "leaks":
        assert mech.spent() is None, f"{name}: spent() claims a bound repetition does not keep"


def check_repetition(case: MechanismCase) -> None:
    """The mechanism declares what a repeated release adds, and its releases are counted."""
    _check_repetition(
        case.name,
        lambda: _fitted(case),
        lambda mech, n: mech.release(random_state=n, **case.release_params),
    )
    refit = _fitted(case)
    _release(case, refit, 0)
    _fit(refit, case.table())
    assert refit.n_releases_ == 0, f"{case.name}: fit does not reset the release count"


_CHECKS = (
    check_is_a_mechanism,
    check_constructor_stores_parameters_and_clones,
    check_not_fitted,
    check_fit_returns_self_and_keeps_the_table,
    check_same_random_state_same_bytes,
    check_bad_random_state,
    check_fit_release_is_fit_then_release,
    check_release_schema,
    check_guarantees_are_enforced,
    check_pickle_round_trip,
    check_bad_parameters_raise_at_fit,
    check_empty_table,
    check_missing_column,
    check_missing_value,
    check_infinite_value,
    check_categorical_dtype,
    check_column_of_one_value,
    check_repetition,
)


def contract_checks() -> Iterator[Callable[[MechanismCase], None]]:
    """Every check of the mechanism contract, in order (each takes a :class:`MechanismCase`).

    Yields
    ------
    callable
        A check ``check(case)``: returns None when the mechanism keeps that part of the contract
        and raises ``AssertionError``, with the case's name and what broke, when it does not.

    Examples
    --------
    Every check on k-ary randomized response, then the same mechanism with a ``bad_params`` value
    that ``fit`` in fact accepts, which the check of bad parameters reports:

    >>> import dataclasses
    >>> import pandas as pd
    >>> from ppdp.contract import MechanismCase, contract_checks
    >>> from ppdp.mechanisms.randomized_response import KaryRandomizedResponse
    >>> def table():
    ...     return pd.DataFrame({"age": [23, 25, 31, 35, 41, 47],
    ...                          "sex": ["F", "M", "M", "F", "M", "F"]})
    >>> case = MechanismCase("krr", make=lambda: KaryRandomizedResponse(1.0, columns=["sex"]),
    ...                      table=table, bad_params={"epsilon": -1.0}, column="sex")
    >>> passed = 0
    >>> for check in contract_checks():
    ...     check(case)
    ...     passed += 1
    >>> passed
    18
    >>> lax = dataclasses.replace(case, bad_params={"epsilon": 2.0})
    >>> for check in contract_checks():
    ...     try:
    ...         check(lax)
    ...     except AssertionError as err:
    ...         print(check.__name__, "-", err)
    check_bad_parameters_raise_at_fit - krr: fit accepted epsilon=2.0
    """
    yield from _CHECKS


# ------------------------------------------------------------------------------------------------
# the array-level mechanisms (ppdp.base.ArrayMechanism)


@dataclass(frozen=True)
class ArrayCase:
    """How the contract checks build and feed one array-level mechanism.

    Attributes
    ----------
    name : str
        A short name for test ids.
    make : callable
        ``make()`` returns a new, unfitted mechanism with good parameters.
    fit_inputs : callable
        ``fit_inputs()`` returns ``(args, kwargs)`` of a good ``fit`` call, new each time; a
        ``random_state`` is added when ``fit`` takes one.
    bad_params : dict
        Parameter name -> a value ``fit`` must reject with an error naming the parameter.
    release_inputs : callable
        ``release_inputs()`` returns ``(args, kwargs)`` of ``release`` besides ``random_state``.
    random : bool
        Whether the release depends on ``random_state``.

    Examples
    --------
    The exponential mechanism on a three-value distribution with a Hamming distortion:

    >>> import numpy as np
    >>> from ppdp.contract import ArrayCase
    >>> from ppdp.mechanisms.sppm import ExponentialMechanism, HammingDistortion
    >>> def inputs():
    ...     p_ab = np.array([[0.2, 0.1, 0.2], [0.1, 0.3, 0.1]])
    ...     return (p_ab, HammingDistortion(np.arange(3)[:, None])), {}
    >>> case = ArrayCase("exponential", lambda: ExponentialMechanism(beta=1.0), inputs,
    ...                  {"beta": -1.0}, release_inputs=lambda: ((np.array([0, 1, 2]),), {}))
    >>> args, kwargs = case.fit_inputs()
    >>> case.make().fit(*args, **kwargs).release(np.array([0, 1, 2]), random_state=0).shape
    (3,)
    """

    name: str
    make: Callable[[], Any]
    fit_inputs: Callable[[], tuple[tuple, dict]]
    bad_params: Mapping[str, Any]
    release_inputs: Callable[[], tuple[tuple, dict]] = lambda: ((), {})
    random: bool = True


def _array_fit(case: ArrayCase, mech, random_state: Any = 0, inputs=None):
    args, kwargs = case.fit_inputs() if inputs is None else inputs
    if "random_state" in inspect.signature(mech.fit).parameters:
        kwargs = {**kwargs, "random_state": random_state}
    return mech.fit(*args, **kwargs)


def _array_release(case: ArrayCase, mech, random_state: Any):
    args, kwargs = case.release_inputs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RepeatedReleaseWarning)
        return mech.release(*args, random_state=random_state, **kwargs)


def _same_output(a, b) -> bool:
    """Equal outputs, to the byte: arrays, frames, dataclasses of them, sequences, scalars."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, pd.DataFrame | pd.Series):
        return a.equals(b)
    if dataclasses.is_dataclass(a):
        return all(
            _same_output(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
        )
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same_output(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_output(a[k], b[k]) for k in a)
    return bool(a == b)


def check_is_an_array_mechanism(case: ArrayCase) -> None:
    from ppdp.base import ArrayMechanism

    mech = case.make()
    assert isinstance(mech, ArrayMechanism), f"{case.name}: not a ppdp.base.ArrayMechanism"
    for verb in ("fit", "release", "guarantee_checks", "get_params", "set_params"):
        assert callable(getattr(mech, verb, None)), f"{case.name}: no {verb}()"
    assert not hasattr(mech, "sample"), f"{case.name}: release is the one output verb, not sample"
    stated = getattr(type(mech), "guarantee", None)
    assert isinstance(stated, str) and stated.strip(), (
        f"{case.name}: {type(mech).__name__}.guarantee does not state the bound its releases keep"
    )
    assert "random_state" in inspect.signature(mech.release).parameters, (
        f"{case.name}: release takes no random_state"
    )


def check_array_not_fitted(case: ArrayCase) -> None:
    mech = case.make()
    _unfitted_refuses(case.name, mech, lambda: _array_release(case, mech, 0))


def check_fit_returns_self_and_keeps_the_inputs(case: ArrayCase) -> None:
    mech = case.make()
    inputs = case.fit_inputs()
    before = copy.deepcopy(inputs)
    assert _array_fit(case, mech, inputs=inputs) is mech, f"{case.name}: fit did not return self"
    for position, (now, then) in enumerate(zip(inputs[0], before[0], strict=True)):
        if isinstance(now, np.ndarray):
            assert _same_output(now, then), f"{case.name}: fit changed its input #{position}"
    for key, now in inputs[1].items():
        if isinstance(now, np.ndarray):
            assert _same_output(now, before[1][key]), f"{case.name}: fit changed {key}"


def check_array_same_random_state_same_output(case: ArrayCase) -> None:
    mech = _array_fit(case, case.make())
    first = _array_release(case, mech, 3)
    assert _same_output(first, _array_release(case, mech, 3)), f"{case.name}: release(3) twice"
    again = _array_fit(case, case.make())
    assert _same_output(first, _array_release(case, again, 3)), (
        f"{case.name}: a second fit's release(3)"
    )
    assert _same_output(first, _array_release(case, mech, np.random.default_rng(3))), (
        f"{case.name}: release(default_rng(3)) differs from release(3)"
    )
    if "random_state" in inspect.signature(mech.fit).parameters:
        twice = [_array_fit(case, case.make(), np.random.default_rng(0)) for _ in range(2)]
        assert _same_output(_array_release(case, twice[0], 3), _array_release(case, twice[1], 3)), (
            f"{case.name}: two fits from default_rng(0)"
        )
    stream = np.random.default_rng(3)
    before = stream.bit_generator.state
    _array_release(case, mech, stream)
    moved = stream.bit_generator.state != before
    assert moved == case.random, (
        f"{case.name}: release {'did not advance' if case.random else 'advanced'} its Generator"
    )
    if case.random:
        assert not _same_output(first, _array_release(case, mech, 4)), (
            f"{case.name}: release(3) equals release(4)"
        )


def check_array_bad_random_state(case: ArrayCase) -> None:
    mech = _array_fit(case, case.make())
    calls = {"release": lambda bad: _array_release(case, mech, bad)}
    if "random_state" in inspect.signature(mech.fit).parameters:
        calls["fit"] = lambda bad: _array_fit(case, case.make(), bad)
    _refuses_bad_random_states(case.name, calls)


def check_array_guarantees_are_enforced(case: ArrayCase) -> None:
    from ppdp.guarantees import GuaranteeCheck, GuaranteeViolation

    mech = _array_fit(case, case.make())
    checks = mech.guarantee_checks()
    assert all(c.holds for c in checks), f"{case.name}: a fitted mechanism breaks its guarantee"
    broken = GuaranteeCheck(case.name, "contract check", 1.0, 2.0, "at_most", "test")
    mech.guarantee_checks = lambda: [broken]  # an instance attribute shadows the method
    try:
        _array_release(case, mech, 0)
    except GuaranteeViolation:
        return
    raise AssertionError(f"{case.name}: release did not consult guarantee_checks()")


def check_array_pickle_round_trip(case: ArrayCase) -> None:
    mech = _array_fit(case, case.make())
    loaded = pickle.loads(pickle.dumps(mech))
    assert _same_output(_array_release(case, mech, 5), _array_release(case, loaded, 5)), (
        f"{case.name}: a release after pickling differs"
    )


def check_array_bad_parameters_raise_at_fit(case: ArrayCase) -> None:
    _fit_refuses_bad_parameters(case, lambda mech: _array_fit(case, mech))


def check_array_repetition(case: ArrayCase) -> None:
    def release(mech, n):
        args, kwargs = case.release_inputs()
        return mech.release(*args, random_state=n, **kwargs)

    _check_repetition(case.name, lambda: _array_fit(case, case.make()), release)
    refit = _array_fit(case, case.make())
    _array_release(case, refit, 0)
    _array_fit(case, refit)
    assert refit.n_releases_ == 0, f"{case.name}: fit does not reset the release count"


_ARRAY_CHECKS = (
    check_is_an_array_mechanism,
    check_constructor_stores_parameters_and_clones,
    check_array_not_fitted,
    check_fit_returns_self_and_keeps_the_inputs,
    check_array_same_random_state_same_output,
    check_array_bad_random_state,
    check_array_guarantees_are_enforced,
    check_array_pickle_round_trip,
    check_array_bad_parameters_raise_at_fit,
    check_array_repetition,
)


def array_contract_checks() -> Iterator[Callable[[ArrayCase], None]]:
    """Every check of the contract for array-level mechanisms (each takes an :class:`ArrayCase`).

    The same protocol as :func:`contract_checks` where arrays replace the table: the
    constructor stores, ``fit`` validates and returns ``self``, learned state ends in ``_``,
    ``release(..., random_state)`` is the one output verb, seeded alike, guarded by
    ``guarantee_checks`` and counted by the release ledger.

    Yields
    ------
    callable
        A check ``check(case)`` that raises ``AssertionError`` naming the case and what broke.

    Examples
    --------
    Every check on the exponential mechanism of a three-value distribution:

    >>> import numpy as np
    >>> from ppdp.contract import ArrayCase, array_contract_checks
    >>> from ppdp.mechanisms.sppm import ExponentialMechanism, HammingDistortion
    >>> def inputs():
    ...     p_ab = np.array([[0.2, 0.1, 0.2], [0.1, 0.3, 0.1]])
    ...     return (p_ab, HammingDistortion(np.arange(3)[:, None])), {}
    >>> case = ArrayCase("exponential", lambda: ExponentialMechanism(beta=1.0), inputs,
    ...                  {"beta": -1.0}, release_inputs=lambda: ((np.array([0, 1, 2]),), {}))
    >>> for check in array_contract_checks():
    ...     check(case)
    >>> len(list(array_contract_checks()))
    10
    """
    yield from _ARRAY_CHECKS
