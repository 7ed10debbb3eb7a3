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

import functools
import inspect
import numbers
import warnings
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from ppdp.guarantees import enforce

__all__ = [
    "REPETITION",
    "ArrayMechanism",
    "InfeasibleError",
    "Mechanism",
    "NotFittedError",
    "ReleaseLedger",
    "RepeatedReleaseWarning",
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


#: What a second release from one fit adds to the first, for each kind a mechanism declares in
#: its ``repetition`` class attribute. The release ledger (:class:`ReleaseLedger`) acts on it.
REPETITION: dict[str, str] = {
    "deterministic": "every release is the same table, so a repeated release tells nothing new",
    "post-processing": (
        "every release is a fresh draw from what the fit already makes public, so a repeated "
        "release reveals nothing more (post-processing)"
    ),
    "composes": (
        "every release spends the budget again: n releases give n times the per-release "
        "epsilon (sequential composition)"
    ),
    "leaks": (
        "every release is another independent draw for the same people, and their guarantee is "
        "that of one release: an attacker who holds several can average the draws"
    ),
}


class RepeatedReleaseWarning(UserWarning):
    """A fitted mechanism whose guarantee covers one release released a second table.

    Issued once per fit, on the second release, by mechanisms whose ``repetition`` is
    ``"leaks"``. Release once and reuse the table, or refit, when the guarantee must hold for
    what an attacker sees; silence it (``warnings.catch_warnings``) where many draws are
    the point, as in a Monte Carlo estimate over releases.

    Parameters
    ----------
    *args : object
        As for ``UserWarning``: the message, which names the mechanism and what repetition leaks.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from ppdp.base import RepeatedReleaseWarning
    >>> from ppdp.mechanisms.mutual_cover import MutualCover
    >>> df = pd.DataFrame({"age": [23, 25, 31, 35, 41, 47, 52, 58], "disease": list("abab" * 2)})
    >>> mech = MutualCover(["age"], "disease", delta=0.5, l=2).fit(df)
    >>> first = mech.release(random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     second = mech.release(random_state=1)
    >>> [w.category.__name__ for w in caught], mech.n_releases_
    (['RepeatedReleaseWarning'], 2)
    """


def _ledger_wrapped(method, counts_release: bool):
    """``method`` with the ledger's bookkeeping around it (see :class:`ReleaseLedger`).

    The bookkeeping runs only in the outermost call, so a subclass's ``release`` that calls its
    parent's counts one release, not two.
    """

    @functools.wraps(method)
    def wrapped(self, *args, **kwargs):
        if self.__dict__.get("_ledger_busy"):
            return method(self, *args, **kwargs)
        self.__dict__["_ledger_busy"] = True
        try:
            if not counts_release:
                self.__dict__["_n_releases"] = 0
                fitted = method(self, *args, **kwargs)
                self.__dict__["_n_releases"] = 0
                return fitted
            self._before_release()
            out = method(self, *args, **kwargs)
            self.__dict__["_n_releases"] = self.n_releases_ + 1
            self._after_release()
            return out
        finally:
            self.__dict__.pop("_ledger_busy", None)

    wrapped._ledger = True
    return wrapped


class ReleaseLedger:
    """Every release of a fitted mechanism is counted, and its repetition accounted for.

    A subclass declares in ``repetition`` (a key of :data:`REPETITION`) what a second release from
    one fit adds to the first. The ledger wraps the subclass's own ``fit`` and ``release`` (and
    ``sample``, where a table mechanism draws under that name too) once, when the class is
    created, so no mechanism can forget to count: ``fit`` resets the count, each successful
    release adds one (:attr:`n_releases_`), and then

    * ``"composes"``: :meth:`spent` reports the composed guarantee of the releases so far, and
      a release that would take it past the mechanism's cap (``_release_cap()``) is refused
      with :class:`~ppdp.guarantees.GuaranteeViolation` before anything is drawn;
    * ``"leaks"``: the second release issues one :class:`RepeatedReleaseWarning` naming what
      repetition leaks;
    * ``"deterministic"`` and ``"post-processing"``: nothing to account for.

    Why a wrapper rather than a call in each ``release``: the count is part of the guarantee, and
    a mechanism that forgot the call would silently promise one release's bound for many.

    Attributes
    ----------
    repetition : str
        Class attribute: a key of :data:`REPETITION`.
    n_releases_ : int
        Releases since the last ``fit``.

    Examples
    --------
    k-ary randomized response composes: two releases of one fit spend twice its epsilon.

    >>> import pandas as pd
    >>> from ppdp.mechanisms.randomized_response import KaryRandomizedResponse
    >>> mech = KaryRandomizedResponse(0.5, columns=["sex"]).fit(pd.DataFrame({"sex": list("FMF")}))
    >>> mech.repetition, mech.n_releases_
    ('composes', 0)
    >>> _ = mech.release(random_state=0), mech.release(random_state=1)
    >>> mech.n_releases_, mech.spent()
    (2, {'sex': 1.0})
    """

    #: What a repeated release adds (a key of :data:`REPETITION`). Every concrete mechanism
    #: declares its own, and the contract checks that it does (:mod:`ppdp.contract`); the
    #: default assumes the worst.
    repetition: ClassVar[str] = "leaks"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # ``sample``: the table mechanisms whose draws have a second name (Mutual Cover's
        # ``sample(table)``, IMPOSTER's ``sample(n)``) release the fitted people through it too
        for name, counts_release in (("fit", False), ("release", True), ("sample", True)):
            method = cls.__dict__.get(name)
            wrappable = method is not None and not getattr(method, "__isabstractmethod__", False)
            if wrappable and not getattr(method, "_ledger", False):
                setattr(cls, name, _ledger_wrapped(method, counts_release))

    @property
    def n_releases_(self) -> int:
        """Tables released since the last ``fit`` (0 before the first release)."""
        return int(self.__dict__.get("_n_releases", 0))

    def spent(self):
        """The guarantee of every release since the last ``fit`` together.

        For ``repetition == "composes"`` the composed budget (``_composed(n)``); for
        ``"post-processing"`` and ``"deterministic"`` the budget of one release, which repetition
        leaves unchanged (None for a mechanism without a budget, such as Mondrian); None for
        ``"leaks"``, whose repetition no theorem bounds.

        Returns
        -------
        object or None
            The mechanism's budget over its releases (k-RR: column -> epsilon; MST:
            ``{"epsilon": ..., "delta": ...}``), or None.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        """
        check_fitted(self)
        if self.repetition == "composes":
            return self._composed(self.n_releases_)
        if self.repetition == "leaks":
            return None
        return self._composed(min(self.n_releases_, 1))

    def _composed(self, n_releases: int):
        """The guarantee of ``n_releases`` releases (a mechanism with a budget overrides it)."""
        return None

    def _release_cap(self) -> list:
        """Checks that the next release keeps the composed budget within the user's cap.

        A list of :class:`~ppdp.guarantees.GuaranteeCheck` measured as if the next release had
        happened; empty when no cap is set (the default). Read only for ``"composes"``.
        """
        return []

    def _before_release(self) -> None:
        if self.repetition == "composes":
            enforce(self._release_cap())

    def _after_release(self) -> None:
        if self.repetition == "leaks" and self.n_releases_ == 2:
            warnings.warn(
                f"a second release from one fit of {type(self).__name__}: {REPETITION['leaks']}",
                RepeatedReleaseWarning,
                stacklevel=3,
            )


class Mechanism(ReleaseLedger, BaseEstimator, ABC):
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
      measurable bound), so that :func:`ppdp.guarantees.guarantee_report` works on it;
    * declares in ``repetition`` what a second release from one fit adds (:class:`ReleaseLedger`
      counts the releases and acts on it).

    ``tests/test_mechanism_contract.py`` runs every registered mechanism through the same checks.

    Attributes
    ----------
    guarantee : str
        Class attribute: the bound every release is checked against, in a sentence.
    repetition : str
        Class attribute: a key of :data:`REPETITION`.
    n_releases_ : int
        Tables released since the last ``fit``.
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
    ...     repetition = "deterministic"
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


class ArrayMechanism(ReleaseLedger, BaseEstimator, ABC):
    """The protocol of the array-level mechanisms: the same habits on arrays instead of tables.

    HyObscure's estimators (users by features with one private value each), SPPM's mappings
    (a joint distribution ``p(a, b)`` and a distortion) and the exponential mechanism work on
    arrays; :class:`Mechanism`'s table adapters sit on top of some of them. A subclass

    * stores its constructor's arguments as given and checks nothing there, so that
      ``get_params``, ``set_params``, :func:`sklearn.base.clone` and pickling work;
    * checks its hyper-parameters and inputs in ``fit(*arrays, **options)``, learns, and returns
      ``self``; learned state ends in ``_``; a random fit takes ``random_state``;
    * draws its output in ``release(*inputs, random_state=None, **options)`` (the one output
      verb, as for tables), after enforcing :meth:`guarantee_checks`;
    * declares ``guarantee`` and ``repetition`` as :class:`Mechanism` does.

    :func:`ppdp.contract.array_contract_checks` runs every public one through the same checks
    (``tests/test_contract_cases_*.py``; ``tests/test_every_mechanism_has_a_case.py`` fails on a
    public one without a case).

    Attributes
    ----------
    guarantee : str
        Class attribute: the bound every release is checked against, in a sentence.
    repetition : str
        Class attribute: a key of :data:`REPETITION`.
    n_releases_ : int
        Releases since the last ``fit``.

    Examples
    --------
    A mechanism that releases, for each input value, the fitted mapping's most likely output:

    >>> import numpy as np
    >>> from ppdp.base import ArrayMechanism, check_fitted, check_random_state
    >>> from ppdp.guarantees import enforce
    >>> class Mode(ArrayMechanism):
    ...     guarantee = "none declared: an illustration"
    ...     repetition = "deterministic"
    ...     def __init__(self, shift=1):
    ...         self.shift = shift
    ...     def fit(self, counts):
    ...         self.mapping_ = (np.arange(len(counts)) + self.shift) % len(counts)
    ...         return self
    ...     def guarantee_checks(self):
    ...         check_fitted(self, "mapping_")
    ...         return []
    ...     def release(self, b, random_state=None):
    ...         check_random_state(random_state)
    ...         enforce(self.guarantee_checks())
    ...         return self.mapping_[np.asarray(b)]
    >>> Mode().fit([3, 1, 2]).release([0, 2, 2]).tolist()
    [1, 0, 0]
    >>> Mode(shift=2).get_params()
    {'shift': 2}
    """

    #: The bound every release is checked against, in a sentence with the paper's definition.
    guarantee: ClassVar[str]

    @abstractmethod
    def fit(self, *args: Any, **kwargs: Any):
        """Check the hyper-parameters and inputs, learn, and return ``self``."""

    @abstractmethod
    def release(self, *args: Any, random_state: Any = None, **kwargs: Any):
        """One protected output, the declared guarantee checked first."""

    @abstractmethod
    def guarantee_checks(self) -> list:
        """The fitted mechanism's declared bounds (an empty list when it promises none)."""
