"""Hyper-parameter checks with scikit-learn's declarative constraints.

The one module of the library that imports :mod:`sklearn.utils._param_validation` (private to
scikit-learn, and the machinery sklearn-compatible libraries such as imbalanced-learn build on);
every mechanism, attack and utility measure takes :class:`Interval`, :class:`StrOptions` and the
check functions from here (it sits in the core layer, below all of them).
A mechanism class lists its constraints in a ``_parameter_constraints`` class attribute,
``{name: [constraint, ...]}`` (a value is valid when it meets one of them; ``None``, ``callable``
or a type are constraints too), and checks them with :func:`validate_hyperparameters`, as
scikit-learn's estimators do with theirs; a function checks its arguments with
:func:`check_params`. A value that meets none raises :class:`InvalidParameterError` (a
``ValueError`` and a ``TypeError``) naming the parameter, its owner, what is allowed and the value::

    The 'k' parameter of Mondrian must be an int in the range [1, inf). Got 0 instead.

Two differences from scikit-learn's own constraints, both deliberate:

* a boolean is not a number: ``True`` is an ``int`` to Python, and scikit-learn's ``Interval``
  accepts it, but ``k=True`` or ``epsilon=False`` is a mistake here;
* :class:`StrOptions` lists its options in the order given, so that a message reads the same on
  every run (scikit-learn keeps them in a set, whose order follows string hashing).

NaN never lies in an :class:`Interval`; an unbounded side excludes infinity unless it is closed
(``Interval(Real, 0, None, closed="left")`` is ``[0, inf)``, ``closed="both"`` is ``[0, inf]``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from sklearn.utils._param_validation import Interval as _Interval
from sklearn.utils._param_validation import InvalidParameterError, validate_parameter_constraints
from sklearn.utils._param_validation import StrOptions as _StrOptions

__all__ = [
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "check_params",
    "validate_hyperparameters",
]


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool | np.bool_)


class Interval(_Interval):
    """scikit-learn's ``Interval`` of ints or reals, booleans excluded."""

    def _check_params(self):
        # a closed interval may hold one value (e.g. hop in 1..hops with hops = 1), which
        # scikit-learn's check (right > left) rejects
        if self.left is not None and self.left == self.right and self.closed == "both":
            return
        super()._check_params()

    def is_satisfied_by(self, val):
        return not _is_bool(val) and super().is_satisfied_by(val)


def _ordered(options: Iterable) -> tuple:
    """The options in the order given (sorted when given as a set, which has none)."""
    if isinstance(options, set | frozenset):
        return tuple(sorted(options, key=repr))
    return tuple(options)


class StrOptions(_StrOptions):
    """scikit-learn's ``StrOptions``: one of a few strings, listed in the order given."""

    def __init__(self, options, *, deprecated=None):
        ordered = _ordered(options)
        super().__init__(set(ordered), deprecated=deprecated)
        self.options = ordered


def check_params(params: Mapping[str, Any], constraints: Mapping[str, list], caller: str) -> None:
    """Check each of ``params`` (name -> value) against its ``constraints`` (name -> list).

    A value is valid when it meets one constraint of its list; names without constraints are not
    checked. ``caller`` (a function or class name) is named in the message.

    Raises
    ------
    InvalidParameterError
        For the first value, in the order of ``params``, that meets none of its constraints.
    """
    validate_parameter_constraints(dict(constraints), dict(params), caller_name=caller)


def validate_hyperparameters(owner: Any, params: Mapping[str, Any] | None = None) -> None:
    """Check ``owner``'s hyper-parameters against its class's ``_parameter_constraints``.

    ``params`` (name -> value) defaults to the attributes of ``owner`` of those names, in the
    order of the constraints; a constructor passes its arguments before storing them.
    """
    constraints = type(owner)._parameter_constraints
    if params is None:
        params = {name: getattr(owner, name) for name in constraints}
    check_params(params, constraints, type(owner).__name__)
