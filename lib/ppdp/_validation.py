"""Hyper-parameter and column-list checks: declarative constraints, one wording.

Every mechanism, attack and utility measure takes :class:`Interval`, :class:`StrOptions` and the
check functions from here (it sits in the core layer, below all of them). The constraint language
is scikit-learn's (its estimators declare theirs the same way), implemented here on public Python
alone so that the library depends on no private scikit-learn module.

A mechanism class lists its constraints in a ``_parameter_constraints`` class attribute,
``{name: [constraint, ...]}``, and checks them with :func:`validate_hyperparameters`; a function
checks its arguments with :func:`check_params`. A value is valid when it meets one constraint of
its list. A constraint is

* an :class:`Interval` of ints or reals, or a :class:`StrOptions` set of strings;
* ``None`` (the value ``None``), a type (its instances), ``callable`` (any callable);
* ``"boolean"`` (``bool`` or ``numpy.bool_``), ``"nan"`` (a float NaN), or ``"random_state"``
  (what :func:`ppdp.base.check_random_state` takes: None, an int >= 0 or a
  :class:`numpy.random.Generator`).

A value that meets none raises :class:`InvalidParameterError` (a ``ValueError`` and a
``TypeError``) naming the parameter, its owner, what is allowed and the value, in scikit-learn's
words::

    The 'k' parameter of Mondrian must be an int in the range [1, inf). Got 0 instead.

Two differences from scikit-learn's own constraints, both deliberate:

* a boolean is not a number: ``True`` is an ``int`` to Python, and scikit-learn's ``Interval``
  accepts it, but ``k=True`` or ``epsilon=False`` is a mistake here;
* :class:`StrOptions` lists its options in the order given, so that a message reads the same on
  every run (scikit-learn keeps them in a set, whose order follows string hashing).

NaN never lies in an :class:`Interval`; an unbounded side excludes infinity unless it is closed
(``Interval(Real, 0, None, closed="left")`` is ``[0, inf)``, ``closed="both"`` is ``[0, inf]``).
A closed interval may hold one value (``Interval(Integral, 1, 1, closed="both")``).

:func:`check_columns` checks a list of column names (a QI list, the columns of a marginal, the
features of an attack): a list, not empty, no column twice, every column in the table, with one
wording wherever a list of columns is an argument.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "check_columns",
    "check_params",
    "validate_hyperparameters",
]


class InvalidParameterError(ValueError, TypeError):
    """A parameter of the wrong type or out of its range.

    Both a ``ValueError`` and a ``TypeError`` (as scikit-learn's exception of this name), so that
    callers catching either, whichever the value's fault is, catch it.
    """


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool | np.bool_)


def _type_name(t: type) -> str:
    """``int`` for Integral, ``float`` for Real, a builtin's name, or ``module.QualName``."""
    if t is Real:
        return "float"
    if t is Integral:
        return "int"
    if t.__module__ == "builtins":
        return t.__qualname__
    return f"{t.__module__}.{t.__qualname__}"


def _either(constraints: Sequence) -> str:
    """``"a, b or c"``: the constraints as a message lists them."""
    if len(constraints) == 1:
        return str(constraints[0])
    return f"{', '.join(str(c) for c in constraints[:-1])} or {constraints[-1]}"


class _Constraint:
    """A set of valid values: :meth:`is_satisfied_by` tests one, ``str`` describes them."""

    def is_satisfied_by(self, val: Any) -> bool:
        raise NotImplementedError

    def __str__(self) -> str:
        raise NotImplementedError


class Interval(_Constraint):
    """Ints or reals between two bounds; booleans and NaN are never inside.

    Parameters
    ----------
    type : {numbers.Integral, numbers.Real}
        The numbers the interval holds: ints (numpy's too) or any real number.
    left, right : int, float or None
        The bounds; None is minus or plus infinity. For ints, an unbounded side must be open.
    closed : {"left", "right", "both", "neither"}
        Which bounds belong to the interval: ``[left, right)``, ``(left, right]``,
        ``[left, right]`` or ``(left, right)``. An unbounded side that is closed holds infinity.

    Raises
    ------
    ValueError
        For another ``type`` or ``closed``, ``right`` below ``left``, or ``right == left`` unless
        ``closed="both"``.
    TypeError
        For bounds that are not numbers of ``type``.

    Examples
    --------
    >>> from numbers import Integral, Real
    >>> positive = Interval(Real, 0, None, closed="neither")
    >>> str(positive)
    'a float in the range (0.0, inf)'
    >>> positive.is_satisfied_by(0.5), positive.is_satisfied_by(0), positive.is_satisfied_by(True)
    (True, False, False)
    >>> Interval(Integral, 1, 1, closed="both").is_satisfied_by(1)
    True
    """

    def __init__(self, type, left, right, *, closed: str):
        self.type = type
        self.left = left
        self.right = right
        self.closed = closed
        self._check_params()

    def _check_params(self) -> None:
        if self.type not in (Integral, Real):
            raise ValueError(
                f"type must be either numbers.Integral or numbers.Real. Got {self.type} instead."
            )
        if self.closed not in ("left", "right", "both", "neither"):
            raise ValueError(
                "closed must be either 'left', 'right', 'both' or 'neither'. "
                f"Got {self.closed} instead."
            )
        if self.type is Integral:
            suffix = "for an interval over the integers."
            if self.left is not None and not isinstance(self.left, Integral):
                raise TypeError(f"Expecting left to be an int {suffix}")
            if self.right is not None and not isinstance(self.right, Integral):
                raise TypeError(f"Expecting right to be an int {suffix}")
            if self.left is None and self.closed in ("left", "both"):
                raise ValueError(f"left can't be None when closed == {self.closed} {suffix}")
            if self.right is None and self.closed in ("right", "both"):
                raise ValueError(f"right can't be None when closed == {self.closed} {suffix}")
        else:
            if self.left is not None and not isinstance(self.left, Real):
                raise TypeError("Expecting left to be a real number.")
            if self.right is not None and not isinstance(self.right, Real):
                raise TypeError("Expecting right to be a real number.")
        if self.left is None or self.right is None:
            return
        # a closed interval may hold one value (e.g. hop in 1..hops with hops = 1)
        one_point = self.left == self.right and self.closed == "both"
        if self.right <= self.left and not one_point:
            raise ValueError(
                f"right can't be less than left. Got left={self.left} and right={self.right}"
            )

    def __contains__(self, val) -> bool:
        if not isinstance(val, Integral) and math.isnan(val):
            return False
        # a closed side refuses only what lies beyond its bound, an open side its bound too
        beyond_left = operator.lt if self.closed in ("left", "both") else operator.le
        beyond_right = operator.gt if self.closed in ("right", "both") else operator.ge
        left = -math.inf if self.left is None else self.left
        right = math.inf if self.right is None else self.right
        return not (beyond_left(val, left) or beyond_right(val, right))

    def is_satisfied_by(self, val: Any) -> bool:
        return not _is_bool(val) and isinstance(val, self.type) and val in self

    def __str__(self) -> str:
        kind = "an int" if self.type is Integral else "a float"
        left = "-inf" if self.left is None else self.left
        right = "inf" if self.right is None else self.right
        if self.type is Real:
            # bounds given as ints still read as floats: (0.0, 1.0]
            left = left if self.left is None else float(left)
            right = right if self.right is None else float(right)
        opening = "[" if self.closed in ("left", "both") else "("
        closing = "]" if self.closed in ("right", "both") else ")"
        return f"{kind} in the range {opening}{left}, {right}{closing}"

    def __repr__(self) -> str:
        return (
            f"Interval({_type_name(self.type)}, {self.left!r}, {self.right!r}, "
            f"closed={self.closed!r})"
        )


def _ordered(options: Iterable) -> tuple:
    """The options in the order given (sorted when given as a set, which has none)."""
    if isinstance(options, set | frozenset):
        return tuple(sorted(options, key=repr))
    return tuple(options)


class StrOptions(_Constraint):
    """One of a few strings, listed in the order given.

    Parameters
    ----------
    options : iterable of str
        The valid strings. A set is listed sorted, so that messages read the same on every run.

    Examples
    --------
    >>> solver = StrOptions(("CLARABEL", "SCS"))
    >>> str(solver)
    "a str among {'CLARABEL', 'SCS'}"
    >>> solver.is_satisfied_by("SCS"), solver.is_satisfied_by("scs")
    (True, False)
    """

    def __init__(self, options: Iterable[str]):
        self.options = _ordered(options)
        bad = [o for o in self.options if not isinstance(o, str)]
        if bad:
            raise TypeError(f"StrOptions takes strings; got {bad!r} among {self.options!r}")

    def is_satisfied_by(self, val: Any) -> bool:
        return isinstance(val, str) and val in self.options

    def __str__(self) -> str:
        return f"a str among {{{', '.join(repr(o) for o in self.options)}}}"

    def __repr__(self) -> str:
        return f"StrOptions({self.options!r})"


class _InstancesOf(_Constraint):
    def __init__(self, type: type):
        self.type = type

    def is_satisfied_by(self, val: Any) -> bool:
        return isinstance(val, self.type)

    def __str__(self) -> str:
        return f"an instance of {_type_name(self.type)!r}"


class _NoneConstraint(_Constraint):
    def is_satisfied_by(self, val: Any) -> bool:
        return val is None

    def __str__(self) -> str:
        return "None"


class _NanConstraint(_Constraint):
    def is_satisfied_by(self, val: Any) -> bool:
        return not isinstance(val, Integral) and isinstance(val, Real) and math.isnan(val)

    def __str__(self) -> str:
        return "numpy.nan"


class _Callables(_Constraint):
    def is_satisfied_by(self, val: Any) -> bool:
        return callable(val)

    def __str__(self) -> str:
        return "a callable"


class _AnyOf(_Constraint):
    """A shorthand for several constraints, described as a message lists them."""

    def __init__(self, *constraints: _Constraint):
        self.constraints = constraints

    def is_satisfied_by(self, val: Any) -> bool:
        return any(c.is_satisfied_by(val) for c in self.constraints)

    def __str__(self) -> str:
        return _either(self.constraints)


def _booleans() -> _AnyOf:
    return _AnyOf(_InstancesOf(bool), _InstancesOf(np.bool_))


def _random_states() -> _AnyOf:
    # ppdp.base.check_random_state's contract, listed in the order the library's constraints
    # state it (a legacy RandomState is refused: the library draws from Generators only)
    return _AnyOf(
        _NoneConstraint(),
        Interval(Integral, 0, None, closed="left"),
        _InstancesOf(np.random.Generator),
    )


_SHORTHANDS = {"boolean": _booleans, "nan": _NanConstraint, "random_state": _random_states}


def _as_constraint(constraint: Any) -> _Constraint:
    """The constraint object a ``_parameter_constraints`` entry stands for."""
    if isinstance(constraint, _Constraint):
        return constraint
    if constraint is None:
        return _NoneConstraint()
    if constraint is callable:
        return _Callables()
    if isinstance(constraint, type):
        return _InstancesOf(constraint)
    if isinstance(constraint, str) and constraint in _SHORTHANDS:
        return _SHORTHANDS[constraint]()
    if isinstance(constraint, float) and math.isnan(constraint):
        return _NanConstraint()
    raise ValueError(f"Unknown constraint type: {constraint}")


def check_params(params: Mapping[str, Any], constraints: Mapping[str, list], caller: str) -> None:
    """Check each of ``params`` (name -> value) against its ``constraints`` (name -> list).

    A value is valid when it meets one constraint of its list; names without constraints are not
    checked. ``caller`` (a function or class name) is named in the message.

    Raises
    ------
    InvalidParameterError
        For the first value, in the order of ``params``, that meets none of its constraints.
    ValueError
        For a constraint this module does not know (a mistake in the caller's code).

    Examples
    --------
    >>> from numbers import Integral
    >>> positive_or_none = [Interval(Integral, 1, None, closed="left"), None]
    >>> check_params({"k": 3}, {"k": positive_or_none}, "F")  # valid: nothing happens
    >>> try:
    ...     check_params({"k": 0}, {"k": positive_or_none}, "F")
    ... except InvalidParameterError as err:
    ...     print(err)
    The 'k' parameter of F must be an int in the range [1, inf) or None. Got 0 instead.
    """
    for name, value in params.items():
        if name not in constraints:
            continue
        allowed = [_as_constraint(c) for c in constraints[name]]
        if not any(c.is_satisfied_by(value) for c in allowed):
            raise InvalidParameterError(
                f"The {name!r} parameter of {caller} must be {_either(allowed)}. "
                f"Got {value!r} instead."
            )


def validate_hyperparameters(owner: Any, params: Mapping[str, Any] | None = None) -> None:
    """Check ``owner``'s hyper-parameters against its class's ``_parameter_constraints``.

    ``params`` (name -> value) defaults to the attributes of ``owner`` of those names, in the
    order of the constraints; a constructor passes its arguments before storing them. The message
    names ``owner``'s class.
    """
    constraints = type(owner)._parameter_constraints
    if params is None:
        params = {name: getattr(owner, name) for name in constraints}
    check_params(params, constraints, type(owner).__name__)


# --------------------------------------------------------------------------------------------
# lists of column names
# --------------------------------------------------------------------------------------------


def _is_hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def check_columns(
    names: Any,
    *,
    name: str,
    table: pd.DataFrame | None = None,
    table_name: str = "the table",
    caller: str | None = None,
    allow_empty: bool = False,
    allow_single: bool = False,
) -> list:
    """``names`` as a list of distinct column names, each a column of ``table`` when one is given.

    Parameters
    ----------
    names : sequence of str
        The column names: a list, tuple, :class:`pandas.Index` or 1-D array. A single ``str`` is
        refused (``list("age")`` would be three one-letter columns) unless ``allow_single``.
    name : str
        The argument's name in the messages (``"qi"``, ``"columns"``).
    table : DataFrame, optional
        When given, every name must be one of its columns.
    table_name : str, default "the table"
        How the messages name ``table`` (``"released"``, ``"the real table"``).
    caller : str, optional
        The function or class named in the messages (``"qi of Mondrian"``).
    allow_empty : bool, default False
        Whether an empty list is valid.
    allow_single : bool, default False
        Whether one name given as a ``str`` stands for a one-column list.

    Returns
    -------
    list
        The names, in the order given.

    Raises
    ------
    TypeError
        If ``names`` is not a sequence of names (a ``str`` without ``allow_single``, a set, a
        mapping, a number), or holds a name that cannot be a column label (a list).
    ValueError
        If it is empty (unless ``allow_empty``), lists a column twice, or names columns
        ``table`` lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"age": [23, 35], "zip": ["130", "148"], "disease": ["flu", "hiv"]})
    >>> check_columns(("age", "zip"), name="qi", table=table)
    ['age', 'zip']
    >>> try:
    ...     check_columns("age", name="qi")
    ... except TypeError as err:
    ...     print(err)
    qi must be a non-empty sequence of column names, got str 'age' (write ['age'] for one column)
    >>> check_columns(["age", "zip", "age"], name="qi")
    Traceback (most recent call last):
    ...
    ValueError: qi lists a column twice: ['age'] in ['age', 'zip', 'age']
    >>> check_columns(["age", "sex"], name="qi", table=table)
    Traceback (most recent call last):
    ...
    ValueError: qi columns ['sex'] are not in the table; it has ['age', 'zip', 'disease']
    """
    label = name if caller is None else f"{name} of {caller}"
    if allow_single and isinstance(names, str):
        names = [names]
    if isinstance(names, pd.Index | np.ndarray) and np.ndim(names) == 1:
        listed = names.tolist()
    elif isinstance(names, Sequence) and not isinstance(names, str | bytes):
        listed = list(names)
    else:
        sequence = "sequence of column names" + (" (possibly empty)" if allow_empty else "")
        wanted = sequence if allow_empty else f"non-empty {sequence}"
        if allow_single:
            wanted = f"column name or a {wanted}"
        # list("age") would be three one-letter columns: say how to name one column
        hint = f" (write [{names!r}] for one column)" if isinstance(names, str) else ""
        raise TypeError(f"{label} must be a {wanted}, got {type(names).__name__} {names!r}{hint}")
    unhashable = [c for c in listed if not _is_hashable(c)]
    if unhashable:
        raise TypeError(f"{label} must hold column names, got {unhashable!r}")
    if not listed and not allow_empty:
        raise ValueError(f"{label} is empty; name at least one column")
    repeated = [c for c, count in Counter(listed).items() if count > 1]
    if repeated:
        raise ValueError(f"{label} lists a column twice: {repeated} in {listed}")
    if table is not None:
        missing = [c for c in listed if c not in table.columns]
        if missing:
            # "qi columns [...]", but "columns [...]" rather than "columns columns [...]"
            what = "columns" if name == "columns" else f"{name} columns"
            raise ValueError(
                f"{what} {missing} are not in {table_name}; it has {list(table.columns)}"
            )
    return listed
