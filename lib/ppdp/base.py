"""One protocol for every mechanism: ``fit(df)``, ``release(random_state)``, ``fit_release``.

Modelled on scikit-learn and diffprivlib. Every DataFrame-level mechanism subclasses the ABC
:class:`Mechanism`. Its constructor stores the hyper-parameters as given (so ``get_params``,
``set_params`` and :func:`sklearn.base.clone` work); :meth:`Mechanism.fit` checks them and learns
from a pandas DataFrame, returning ``self``; learned state ends in ``_``;
:meth:`Mechanism.release` draws one protected table, a DataFrame with the fitted table's columns
(values generalized, perturbed or generated), after checking the mechanism's declared guarantee on
it (:meth:`Mechanism.guarantee_checks`, :mod:`ppdp.guarantees`)::

    mech = MutualCover(qi=["age", "zip"], sensitive="disease", delta=0.5, l=2)
    released = mech.fit(df).release(random_state=0)

``random_state`` is None (fresh entropy), an int seed, or a :class:`numpy.random.Generator`, which is
used as is and advanced, as in scikit-learn. The same int gives the same bytes.
"""

from __future__ import annotations

import inspect
import numbers
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

__all__ = [
    "InfeasibleError",
    "Mechanism",
    "NotFittedError",
    "check_fitted",
    "check_frame",
    "check_random_state",
]


class InfeasibleError(ValueError):
    """No partition, generalization or mapping meets the constraints asked for.

    The table and the parameters are each valid; together they admit no solution (a budget below
    the smallest achievable distortion, group bounds no partition of the users meets). Callers
    that treat infeasibility as a result catch this type, never a message's text.

    Parameters
    ----------
    *args : object
        As for ``ValueError``: usually one message that says which constraint cannot be met.

    Examples
    --------
    It is a ValueError, so code that only checks arguments catches it too:

    >>> from ppdp.base import InfeasibleError
    >>> try:
    ...     raise InfeasibleError("no partition into groups of at least 5 users")
    ... except ValueError as err:
    ...     print(type(err).__name__, "-", err)
    InfeasibleError - no partition into groups of at least 5 users
    """


def check_random_state(random_state: Any, name: str = "random_state") -> np.random.Generator:
    """A :class:`numpy.random.Generator` from None, an int seed >= 0 or a Generator.

    A Generator is returned as is (the caller's stream advances); an int seeds a new one; None
    draws fresh entropy from the operating system. scikit-learn's own helper returns the legacy
    ``RandomState``, which this library does not use.

    Parameters
    ----------
    random_state : None, int >= 0 or numpy.random.Generator
        The seed or stream to use.
    name : str
        The argument's name in the error messages.

    Returns
    -------
    numpy.random.Generator
        ``random_state`` itself when it is a Generator, otherwise a new one.

    Raises
    ------
    ValueError
        For a negative int.
    TypeError
        For anything else (a float, a bool, a legacy ``RandomState``).

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.base import check_random_state
    >>> check_random_state(0).integers(10, size=3).tolist()
    [8, 6, 5]
    >>> check_random_state(0).integers(10, size=3).tolist()  # the same int, the same draws
    [8, 6, 5]
    >>> g = np.random.default_rng(1)
    >>> check_random_state(g) is g
    True
    >>> check_random_state(1.5)
    Traceback (most recent call last):
    ...
    TypeError: random_state must be None, an int >= 0 or a numpy.random.Generator, got float 1.5
    """
    if random_state is None or isinstance(random_state, np.random.Generator):
        return np.random.default_rng(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"{name} must be an int >= 0, got {random_state!r}")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        f"{name} must be None, an int >= 0 or a numpy.random.Generator, "
        f"got {type(random_state).__name__} {random_state!r}"
    )


def check_frame(df: Any, name: str = "df") -> pd.DataFrame:
    """``df`` itself if it is a non-empty DataFrame with unique string column names.

    Parameters
    ----------
    df : object
        The table to check.
    name : str
        The argument's name in the error messages.

    Returns
    -------
    pandas.DataFrame
        ``df``, unchanged (not a copy).

    Raises
    ------
    TypeError
        If ``df`` is not a ``pandas.DataFrame``.
    ValueError
        If it has no rows or repeats a column name.

    Examples
    --------
    >>> import pandas as pd
    >>> from ppdp.base import check_frame
    >>> df = pd.DataFrame({"age": [23, 41], "zip": ["a", "b"]})
    >>> check_frame(df) is df
    True
    >>> check_frame(df.iloc[:0], name="table")
    Traceback (most recent call last):
    ...
    ValueError: table has no rows; a release needs at least one
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}")
    if len(df) == 0:
        raise ValueError(f"{name} has no rows; a release needs at least one")
    duplicated = sorted({str(c) for c in df.columns[df.columns.duplicated()]})
    if duplicated:
        raise ValueError(f"{name} repeats the column names {duplicated}; names must be unique")
    return df


def check_fitted(mechanism: Any, attributes: str | list[str] | None = None) -> None:
    """Raise :class:`sklearn.exceptions.NotFittedError` unless ``fit`` has run.

    scikit-learn's ``check_is_fitted`` semantics: fitted means every named attribute exists, or,
    with none named, that some attribute ends in ``_`` (learned state). Its own function needs the
    scikit-learn estimator tags, which a mechanism need not carry.

    Parameters
    ----------
    mechanism : object
        The mechanism (or any object) to check.
    attributes : str, list of str or None
        The learned attributes that ``fit`` sets; None accepts any attribute ending in ``_``.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If a named attribute is missing (or, with none named, no attribute ends in ``_``).

    Examples
    --------
    >>> import pandas as pd
    >>> from ppdp.base import check_fitted
    >>> from ppdp.mechanisms.randomized_response import KaryRandomizedResponse
    >>> mech = KaryRandomizedResponse(1.0)
    >>> check_fitted(mech)
    Traceback (most recent call last):
    ...
    sklearn.exceptions.NotFittedError: this KaryRandomizedResponse is not fitted yet; call fit(df) before release()
    >>> check_fitted(mech.fit(pd.DataFrame({"sex": ["F", "M", "M"]})), "matrices_")  # passes
    """
    if attributes is None:
        fitted = any(k.endswith("_") and not k.startswith("__") for k in vars(mechanism))
    else:
        names = [attributes] if isinstance(attributes, str) else list(attributes)
        fitted = all(hasattr(mechanism, name) for name in names)
    if not fitted:
        raise NotFittedError(
            f"this {type(mechanism).__name__} is not fitted yet; call fit(df) before release()"
        )


class Mechanism(BaseEstimator, ABC):
    """The protocol every DataFrame-level mechanism follows.

    A subclass

    * stores its constructor's arguments as given, under their own names (scikit-learn's rule,
      so that ``get_params``, ``set_params``, :func:`sklearn.base.clone` and pickling work), and
      checks nothing there;
    * checks its hyper-parameters and the table in :meth:`fit`, learns, and returns ``self``;
      learned state ends in ``_``; a mechanism whose fitting is random takes ``random_state``
      in ``fit`` too;
    * draws a protected table in :meth:`release`, after enforcing :meth:`guarantee_checks` on
      what it is about to release (:func:`ppdp.guarantees.enforce`);
    * declares its guarantees in :meth:`guarantee_checks` (an empty list when it promises no
      measurable bound), so that :func:`ppdp.guarantees.guarantee_report` works on it.

    ``tests/test_mechanism_contract.py`` runs every registered mechanism through the same checks.

    Attributes
    ----------
    guarantee : str
        Class attribute: the bound every release is checked against, in a sentence.
    recast_columns : tuple of str
        Class attribute: the attributes naming the columns whose dtype a release changes on
        purpose (``"*"``: every column); empty by default, every column keeping its dtype.

    Examples
    --------
    A minimal mechanism that releases the fitted table with one column dropped to its mode, and
    promises no measurable bound:

    >>> import pandas as pd
    >>> from ppdp.base import Mechanism, check_fitted, check_random_state
    >>> from ppdp.guarantees import enforce, guarantee_report
    >>> class Mode(Mechanism):
    ...     guarantee = "none declared: an illustration"
    ...     def __init__(self, column="sex"):
    ...         self.column = column
    ...     def fit(self, df):
    ...         self.table_ = df.copy()
    ...         return self
    ...     def guarantee_checks(self):
    ...         check_fitted(self, "table_")
    ...         return []
    ...     def release(self, random_state=None):
    ...         check_random_state(random_state)
    ...         enforce(self.guarantee_checks())
    ...         out = self.table_.copy()
    ...         out[self.column] = out[self.column].mode().iloc[0]
    ...         return out
    >>> df = pd.DataFrame({"age": [23, 41, 35], "sex": ["F", "M", "M"]})
    >>> Mode().fit_release(df, random_state=0)
       age sex
    0   23   M
    1   41   M
    2   35   M
    >>> Mode(column="age").get_params()
    {'column': 'age'}
    >>> len(guarantee_report(Mode().fit(df)))
    0
    """

    #: The bound every release is checked against, in a sentence with the paper's definition
    #: or equation ("none declared" and why, for a mechanism that promises none). The API
    #: reference's index lists it for every mechanism.
    guarantee: ClassVar[str]

    #: The attributes (constructor parameters or fitted state) that name the columns whose dtype
    #: a release changes on purpose (a generalized column released as text ranges, an integer
    #: column as class means); ``"*"`` for every column. Every other column keeps its input's
    #: dtype, which the contract checks (:mod:`ppdp.contract`).
    recast_columns: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def fit(self, df: pd.DataFrame, *args: Any, **kwargs: Any):
        """Check the hyper-parameters, learn from ``df`` and return ``self``.

        A mechanism whose fitting is random takes ``random_state`` here as well; learned state
        ends in ``_``.
        """

    @abstractmethod
    def release(self, random_state: Any = None) -> pd.DataFrame:
        """One protected table with the fitted table's columns, its guarantee checked first.

        The mechanism's ``guarantee_checks()`` are enforced (:func:`ppdp.guarantees.enforce`)
        before the table is returned, so a release that breaks a declared bound raises
        :class:`~ppdp.guarantees.GuaranteeViolation` instead.
        """

    @abstractmethod
    def guarantee_checks(self) -> list:
        """The fitted mechanism's declared bounds, each measured on what it releases.

        Returns a list of :class:`~ppdp.guarantees.GuaranteeCheck` (empty when the mechanism
        promises no measurable bound); raises
        :class:`~sklearn.exceptions.NotFittedError` before :meth:`fit`.
        """

    def fit_release(self, df: pd.DataFrame, random_state: Any = None, **fit_params: Any):
        """One protected copy of ``df``: fit, then release, from one random stream.

        Equals ``g = check_random_state(random_state)`` then
        ``fit(df, random_state=g, **fit_params).release(random_state=g)`` when ``fit`` is random
        (takes ``random_state``), and ``fit(df, **fit_params).release(random_state=g)`` otherwise.
        """
        rng = check_random_state(random_state)
        if "random_state" in inspect.signature(self.fit).parameters:
            fit_params = {**fit_params, "random_state": rng}
        return self.fit(df, **fit_params).release(random_state=rng)
