"""The constraint language of ``ppdp._validation``, its messages, and the column-list check.

The messages are scikit-learn's wording, which tests and documentation elsewhere match: the table
below pins them value by value, and the property tests hold the membership rule of an interval to
a plain restatement of it. No module of the library imports a private scikit-learn module.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping
from numbers import Integral, Real
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ppdp._validation import (
    Interval,
    InvalidParameterError,
    StrOptions,
    check_columns,
    check_params,
    validate_hyperparameters,
)

LIB = Path(__file__).resolve().parents[1] / "lib"

NP_BOOL = f"numpy.{np.bool_.__qualname__}"  # 'numpy.bool' (numpy 2) or 'numpy.bool_' (1.26)
RANDOM_STATE = (
    "None, an int in the range [0, inf) or an instance of 'numpy.random._generator.Generator'"
)

# --------------------------------------------------------------------------------------------
# the messages, value by value
# --------------------------------------------------------------------------------------------

POSITIVE_INT_OR_NONE = [Interval(Integral, 1, None, closed="left"), None]

# (caller, parameter, constraints, value, what the message says the parameter must be)
MESSAGES = [
    ("Mondrian", "k", POSITIVE_INT_OR_NONE, 0, "an int in the range [1, inf) or None"),
    ("Mondrian", "k", POSITIVE_INT_OR_NONE, True, "an int in the range [1, inf) or None"),
    ("Mondrian", "k", POSITIVE_INT_OR_NONE, 2.0, "an int in the range [1, inf) or None"),
    (
        "MutualCover",
        "delta",
        [Interval(Real, 0, 1, closed="right")],
        0,
        "a float in the range (0.0, 1.0]",
    ),
    (
        "MutualCover",
        "delta",
        [Interval(Real, 0, 1, closed="right")],
        math.nan,
        "a float in the range (0.0, 1.0]",
    ),
    (
        "SPPM",
        "delta",
        [Interval(Real, 0, None, closed="left")],
        -1.0,
        "a float in the range [0.0, inf)",
    ),
    (
        "SPPM",
        "delta",
        [Interval(Real, 0, None, closed="left")],
        math.inf,
        "a float in the range [0.0, inf)",
    ),
    (
        "FrankWolfe",
        "tol",
        [Interval(Real, 0, None, closed="both")],
        -math.inf,
        "a float in the range [0.0, inf]",
    ),
    (
        "FrankWolfe",
        "floor",
        [Interval(Real, 0, 1, closed="neither")],
        1.0,
        "a float in the range (0.0, 1.0)",
    ),
    (
        "Imposter",
        "n_threads",
        [Interval(Integral, 1, 2, closed="both")],
        3,
        "an int in the range [1, 2]",
    ),
    (
        "RelayChain.release",
        "hop",
        [Interval(Integral, 1, 1, closed="both")],
        2,
        "an int in the range [1, 1]",
    ),
    (
        "Imposter",
        "lr",
        [Interval(Real, 0, None, closed="neither")],
        np.float64(0.0),
        "a float in the range (0.0, inf)",
    ),
    ("f", "x", [Interval(Real, None, 0, closed="neither")], 0, "a float in the range (-inf, 0.0)"),
    (
        "f",
        "x",
        [Interval(Real, 1e-10, 1e10, closed="both")],
        "a",
        "a float in the range [1e-10, 10000000000.0]",
    ),
    (
        "f",
        "x",
        [Interval(Real, 0.5, 2.5, closed="left")],
        np.bool_(True),
        "a float in the range [0.5, 2.5)",
    ),
    (
        "HyObscure",
        "solver",
        [StrOptions(("CLARABEL", "SCS"))],
        "ECOS",
        "a str among {'CLARABEL', 'SCS'}",
    ),
    (
        "RelayChain",
        "method",
        [StrOptions(("bua", "tda", "fla"))],
        None,
        "a str among {'bua', 'tda', 'fla'}",
    ),
    (
        "f",
        "solver",
        [StrOptions({"zeta", "alpha", "mid"})],
        1,
        "a str among {'alpha', 'mid', 'zeta'}",
    ),
    (
        "HyObscure",
        "distance",
        [StrOptions(("centroid_js", "mean_pairwise_js")), callable],
        "js",
        "a str among {'centroid_js', 'mean_pairwise_js'} or a callable",
    ),
    (
        "FrankWolfe",
        "certify",
        ["boolean"],
        1,
        f"an instance of 'bool' or an instance of '{NP_BOOL}'",
    ),
    ("f", "fill", ["nan"], 0.5, "numpy.nan"),
    (
        "f",
        "fill",
        [Interval(Real, 0, 1, closed="both"), "nan"],
        2,
        "a float in the range [0.0, 1.0] or numpy.nan",
    ),
    (
        "KaryRandomizedResponse",
        "epsilon",
        [Interval(Real, 0, None, closed="neither"), Mapping],
        0,
        "a float in the range (0.0, inf) or an instance of 'collections.abc.Mapping'",
    ),
    (
        "Imposter",
        "random_state",
        [None, Interval(Integral, 0, None, closed="left"), np.random.Generator],
        -1,
        RANDOM_STATE,
    ),
    ("f", "random_state", ["random_state"], 1.5, RANDOM_STATE),
    ("f", "random_state", ["random_state"], False, RANDOM_STATE),
    ("f", "x", [dict], [1], "an instance of 'dict'"),
    ("f", "x", [Real], "1", "an instance of 'float'"),
    ("f", "x", [callable], 3, "a callable"),
    ("f", "x", [None], 0, "None"),
    (
        "f",
        "x",
        [Interval(Real, 0, None, closed="left"), StrOptions(("auto",)), None],
        "manual",
        "a float in the range [0.0, inf), a str among {'auto'} or None",
    ),
]


@pytest.mark.parametrize(("caller", "name", "constraints", "value", "allowed"), MESSAGES)
def test_a_refused_value_gets_scikit_learns_message(caller, name, constraints, value, allowed):
    with pytest.raises(InvalidParameterError) as info:
        check_params({name: value}, {name: constraints}, caller)
    assert (
        str(info.value)
        == f"The {name!r} parameter of {caller} must be {allowed}. Got {value!r} instead."
    )
    # callers catch either, whichever the value's fault is
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


@pytest.mark.parametrize(
    ("constraints", "value"),
    [
        (POSITIVE_INT_OR_NONE, None),
        (POSITIVE_INT_OR_NONE, np.int64(3)),
        ([Interval(Real, 0, 1, closed="right")], 1),
        ([Interval(Real, 0, None, closed="both")], math.inf),
        ([Interval(Integral, 1, 1, closed="both")], 1),
        ([StrOptions(("a", "b"))], np.str_("b")),
        ([StrOptions(("x",)), callable], len),
        (["boolean"], np.bool_(False)),
        (["nan"], np.float32("nan")),
        ([Mapping], {"a": 1.0}),
        ([Real], True),  # a type constraint is isinstance alone; only Interval refuses booleans
        (["random_state"], None),
        (["random_state"], 2**40),
        (["random_state"], np.random.default_rng(0)),
    ],
)
def test_an_accepted_value_passes(constraints, value):
    check_params({"p": value}, {"p": constraints}, "f")


def test_a_legacy_random_state_is_refused():
    with pytest.raises(InvalidParameterError, match="Got RandomState"):
        check_params({"seed": np.random.RandomState(0)}, {"seed": ["random_state"]}, "f")


def test_check_params_follows_the_order_of_params_and_skips_names_without_constraints():
    constraints = {"a": [Interval(Integral, 0, None, closed="left")], "b": [None]}
    check_params({"c": object(), "a": 1}, constraints, "f")
    with pytest.raises(InvalidParameterError, match="'b' parameter"):
        check_params({"b": 1, "a": -1}, constraints, "f")


def test_an_unknown_constraint_is_a_mistake_in_the_code():
    with pytest.raises(ValueError, match="Unknown constraint type: array-like"):
        check_params({"x": 1}, {"x": ["array-like"]}, "f")


class _Knobs:
    _parameter_constraints: ClassVar[dict] = {
        "k": [Interval(Integral, 1, None, closed="left")],
        "name": [str],
    }

    def __init__(self, k, name="a"):
        self.k = k
        self.name = name


def test_validate_hyperparameters_names_the_class_and_reads_the_attributes():
    validate_hyperparameters(_Knobs(2))
    with pytest.raises(InvalidParameterError, match=r"^The 'k' parameter of _Knobs must be"):
        validate_hyperparameters(_Knobs(0))
    # a constructor checks its arguments before storing them
    with pytest.raises(InvalidParameterError, match="'name' parameter of _Knobs"):
        validate_hyperparameters(_Knobs(2), {"k": 2, "name": 3})


# --------------------------------------------------------------------------------------------
# Interval: the membership rule and the description
# --------------------------------------------------------------------------------------------

CLOSED = ("left", "right", "both", "neither")


def plain_member(kind, left, right, closed, value) -> bool:
    """The membership rule restated: a number of the kind, not a boolean, not NaN, within the
    bounds, a bound included when its side is closed and an absent bound being infinite."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, kind):
        return False
    if math.isnan(value):
        return False
    low = -math.inf if left is None else left
    high = math.inf if right is None else right
    above_low = value >= low if closed in ("left", "both") else value > low
    below_high = value <= high if closed in ("right", "both") else value < high
    return above_low and below_high


def plain_description(kind, left, right, closed) -> str:
    def bound(b, absent):
        if b is None:
            return absent
        return repr(float(b)) if kind is Real else str(b)

    opening = "[" if closed in ("left", "both") else "("
    closing = "]" if closed in ("right", "both") else ")"
    article = "an int" if kind is Integral else "a float"
    return f"{article} in the range {opening}{bound(left, '-inf')}, {bound(right, 'inf')}{closing}"


small_ints = st.integers(-5, 5)
bounds_int = st.none() | small_ints
bounds_real = st.none() | small_ints | st.floats(-5, 5, allow_nan=False)


@st.composite
def intervals(draw):
    kind = draw(st.sampled_from([Integral, Real]))
    bounds = bounds_int if kind is Integral else bounds_real
    left, right, closed = draw(bounds), draw(bounds), draw(st.sampled_from(CLOSED))
    if kind is Integral:
        assume(not (left is None and closed in ("left", "both")))
        assume(not (right is None and closed in ("right", "both")))
    if left is not None and right is not None:
        assume(left < right or (left == right and closed == "both"))
    return kind, left, right, closed


values = st.one_of(
    small_ints,
    st.integers(),
    st.floats(-6, 6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.inf, -math.inf, math.nan, 0.0, -0.0]),
    st.booleans(),
    st.builds(np.bool_, st.booleans()),
    st.builds(np.int64, small_ints),
    st.builds(np.float64, st.floats(-6, 6)),
    st.builds(np.float32, st.floats(-6, 6, width=32)),
    st.text(max_size=2),
    st.none(),
)


@settings(max_examples=400, deadline=None)
@given(interval=intervals(), value=values)
def test_interval_membership_is_the_plain_rule(interval, value):
    kind, left, right, closed = interval
    constraint = Interval(kind, left, right, closed=closed)
    assert constraint.is_satisfied_by(value) == plain_member(kind, left, right, closed, value)


@settings(max_examples=200, deadline=None)
@given(interval=intervals(), value=values)
def test_interval_message_names_the_range_and_the_value(interval, value):
    kind, left, right, closed = interval
    constraint = Interval(kind, left, right, closed=closed)
    assume(not constraint.is_satisfied_by(value))
    with pytest.raises(InvalidParameterError) as info:
        check_params({"p": value}, {"p": [constraint]}, "F")
    allowed = plain_description(kind, left, right, closed)
    assert str(info.value) == f"The 'p' parameter of F must be {allowed}. Got {value!r} instead."


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((str, 0, 1, "left"), ValueError, "type must be either numbers.Integral or numbers.Real"),
        ((Real, 0, 1, "open"), ValueError, "closed must be either 'left', 'right', 'both'"),
        ((Integral, 1.5, None, "left"), TypeError, "Expecting left to be an int"),
        ((Integral, 0, None, "both"), ValueError, "right can't be None when closed == both"),
        ((Integral, None, 3, "left"), ValueError, "left can't be None when closed == left"),
        ((Real, "a", 1, "left"), TypeError, "Expecting left to be a real number"),
        ((Real, 3, 1, "left"), ValueError, "right can't be less than left. Got left=3 and right=1"),
        ((Real, 1, 1, "left"), ValueError, "right can't be less than left. Got left=1 and right=1"),
    ],
)
def test_a_malformed_interval_is_refused(args, error, message):
    kind, left, right, closed = args
    with pytest.raises(error, match=re.escape(message)):
        Interval(kind, left, right, closed=closed)


def test_a_closed_interval_may_hold_one_value():
    one = Interval(Integral, 3, 3, closed="both")
    assert [one.is_satisfied_by(v) for v in (2, 3, 4)] == [False, True, False]


# --------------------------------------------------------------------------------------------
# StrOptions
# --------------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(options=st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=5, unique=True))
def test_str_options_are_listed_in_the_order_given(options):
    constraint = StrOptions(options)
    assert str(constraint) == "a str among {" + ", ".join(map(repr, options)) + "}"
    assert all(constraint.is_satisfied_by(o) for o in options)
    assert not constraint.is_satisfied_by(options[0] + "#")
    assert not constraint.is_satisfied_by(None)


def test_str_options_given_as_a_set_read_the_same_on_every_run():
    assert StrOptions({"b", "c", "a"}).options == ("a", "b", "c")


def test_str_options_hold_strings_only():
    with pytest.raises(TypeError, match="StrOptions takes strings"):
        StrOptions(("a", 1))


# --------------------------------------------------------------------------------------------
# check_columns: one wording for every list of column names
# --------------------------------------------------------------------------------------------

TABLE = pd.DataFrame({"age": [23, 35], "zip": ["130", "148"], "disease": ["flu", "hiv"]})


@pytest.mark.parametrize(
    "names", [["age", "zip"], ("age", "zip"), pd.Index(["age", "zip"]), np.array(["age", "zip"])]
)
def test_check_columns_returns_a_list_in_the_order_given(names):
    checked = check_columns(names, name="qi", table=TABLE)
    assert checked == ["age", "zip"] and all(type(c) is str for c in checked)


@pytest.mark.parametrize(
    ("names", "kwargs", "error", "message"),
    [
        (
            "age",
            {},
            TypeError,
            "qi must be a non-empty sequence of column names, got str 'age' (write ['age'] for one "
            "column)",
        ),
        ({"age"}, {}, TypeError, "qi must be a non-empty sequence of column names, got set"),
        (None, {}, TypeError, "qi must be a non-empty sequence of column names, got NoneType None"),
        (
            "age",
            {"allow_empty": True, "caller": "f"},
            TypeError,
            "qi of f must be a sequence of column names (possibly empty), got str 'age'",
        ),
        (
            None,
            {"allow_single": True},
            TypeError,
            "qi must be a column name or a non-empty sequence of column names, got NoneType None",
        ),
        ([["age"]], {}, TypeError, "qi must hold column names, got [['age']]"),
        ([], {}, ValueError, "qi is empty; name at least one column"),
        (
            [],
            {"caller": "Mondrian"},
            ValueError,
            "qi of Mondrian is empty; name at least one column",
        ),
        (
            ["age", "zip", "age", "zip", "disease"],
            {},
            ValueError,
            "qi lists a column twice: ['age', 'zip'] in ['age', 'zip', 'age', 'zip', 'disease']",
        ),
        (
            ["age", "sex", "job"],
            {"table": TABLE},
            ValueError,
            "qi columns ['sex', 'job'] are not in the table; it has ['age', 'zip', 'disease']",
        ),
        (
            ["sex"],
            {"table": TABLE, "table_name": "released"},
            ValueError,
            "qi columns ['sex'] are not in released; it has",
        ),
    ],
)
def test_check_columns_refuses_with_one_wording(names, kwargs, error, message):
    with pytest.raises(error) as info:
        check_columns(names, name="qi", **kwargs)
    assert type(info.value) is error and str(info.value).startswith(message)


def test_check_columns_names_a_list_called_columns_once():
    with pytest.raises(ValueError, match=r"^columns \['sex'\] are not in the real table"):
        check_columns(["sex"], name="columns", table=TABLE, table_name="the real table")


def test_check_columns_options():
    assert check_columns([], name="numeric", allow_empty=True) == []
    assert check_columns("age", name="qi", allow_single=True, table=TABLE) == ["age"]
    # without a table any hashable label is a name (pandas allows ints)
    assert check_columns([0, 1], name="qi") == [0, 1]


# --------------------------------------------------------------------------------------------
# no private scikit-learn module
# --------------------------------------------------------------------------------------------

_PRIVATE = re.compile(r"^sklearn(\.\w+)*\._\w*")


def private_sklearn_imports(source: str) -> list[tuple[int, str]]:
    """``(line, module)`` of each import of a private scikit-learn module (``sklearn.<...>._x``,
    or a private name imported from scikit-learn) in ``source``, by any of the ways Python
    imports: ``import``, ``from ... import``, ``importlib.import_module`` or ``__import__``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if _PRIVATE.match(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module = node.module
            if _PRIVATE.match(module):
                found.append((node.lineno, module))
            elif module == "sklearn" or module.startswith("sklearn."):
                found += [
                    (node.lineno, f"{module}.{a.name}")
                    for a in node.names
                    if _PRIVATE.match(f"{module}.{a.name}")
                ]
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if (
                called in ("import_module", "__import__")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and _PRIVATE.match(first.value)
            ):
                found.append((node.lineno, first.value))
    return found


@pytest.mark.parametrize(
    ("line", "private"),
    [
        ("from sklearn.utils._param_validation import Interval", True),
        ("from sklearn.utils._param_validation import (\n    Interval,\n    StrOptions,\n)", True),
        ("import sklearn.utils._testing", True),
        ("import sklearn._config as config", True),
        ("from sklearn.utils import _param_validation", True),
        ("from sklearn import _config", True),
        ("import importlib\nimportlib.import_module('sklearn.utils._param_validation')", True),
        ("__import__('sklearn._config')", True),
        ("def f():\n    from sklearn.utils._param_validation import Interval", True),
        ("from sklearn.base import BaseEstimator, clone", False),
        ("from sklearn.metrics import mutual_info_score", False),
        ("import sklearn.ensemble", False),
        ("from ppdp._validation import Interval", False),
        ("from sklearn_extra._private import thing", False),
        ("# sklearn.utils._param_validation in a comment", False),
        ('"""sklearn.utils._param_validation in a docstring"""', False),
    ],
)
def test_the_private_import_matcher(line, private):
    assert bool(private_sklearn_imports(line)) is private


def test_no_module_of_the_library_imports_a_private_scikit_learn_module():
    offenders = [
        f"{path.relative_to(LIB)}:{lineno}: {module}"
        for path in sorted((LIB / "ppdp").rglob("*.py"))
        if "sklearn" in (source := path.read_text())
        for lineno, module in private_sklearn_imports(source)
    ]
    assert offenders == [], "private scikit-learn modules may change in any release:\n" + "\n".join(
        offenders
    )
