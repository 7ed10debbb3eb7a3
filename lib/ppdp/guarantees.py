"""What a mechanism promised, measured on what it released.

Every mechanism declares a privacy guarantee through its hyper-parameters (k, l, delta, epsilon,
a distortion or distance budget). This module gives that guarantee one shape:

* a mechanism implements ``guarantee_checks() -> list[GuaranteeCheck]``, which measures each
  declared bound on the table or channel it last released (or, where the guarantee is a property
  of the fitted channel, on that channel);
* before a release leaves the mechanism it calls :func:`enforce`, which raises
  :class:`GuaranteeViolation` if any check fails, so a violating table is never returned;
* :func:`guarantee_report` turns the checks into a small DataFrame for readers and tests.

A check compares the measured value with the declared one exactly, up to ``tol`` (default
``1e-12``, i.e. floating-point rounding of the measurement, not solver residue). A mechanism whose
solver leaves residue must repair its table before release rather than loosen ``tol``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

import pandas as pd

__all__ = ["GuaranteeCheck", "GuaranteeViolation", "enforce", "guarantee_report"]

#: Default slack of a check: rounding of the measurement itself.
CHECK_TOL = 1e-12

_SENSES = ("at_least", "at_most")


@dataclass(frozen=True)
class GuaranteeCheck:
    """One declared bound and its value on the release.

    Parameters
    ----------
    mechanism : str
        Class name of the mechanism, e.g. ``"MutualCover"``.
    guarantee : str
        Short name of the property, e.g. ``"k-anonymity"``, ``"delta-probability"``,
        ``"epsilon-LDP"``, ``"distortion budget"``.
    declared : float
        The bound the mechanism promised (its hyper-parameter).
    measured : float
        The worst value over the release (smallest group, largest ratio, ...).
    sense : {"at_least", "at_most"}
        ``measured >= declared`` (k, l) or ``measured <= declared`` (delta, epsilon, budgets).
    where : str
        Where the worst value sits (a group, a column, a table of a chain), for the reader.
    tol : float
        Absolute slack allowed for rounding of the measurement.

    Raises
    ------
    ValueError
        If ``sense`` is not ``"at_least"`` or ``"at_most"``, or ``tol`` is negative or NaN.

    Examples
    --------
    >>> from ppdp.guarantees import GuaranteeCheck
    >>> check = GuaranteeCheck("Mondrian", "k-anonymity", 4.0, 5.0, "at_least", "group 2")
    >>> check.holds
    True
    >>> check.describe()
    'Mondrian: k-anonymity requires >= 4, measured 5 at group 2'
    >>> GuaranteeCheck("KaryRandomizedResponse", "epsilon-LDP", 1.0, 1.2, "at_most").holds
    False
    """

    mechanism: str
    guarantee: str
    declared: float
    measured: float
    sense: str
    where: str = ""
    tol: float = CHECK_TOL

    def __post_init__(self):
        if self.sense not in _SENSES:
            raise ValueError(f"sense must be one of {_SENSES}, got {self.sense!r}")
        if not self.tol >= 0:
            raise ValueError(f"tol must be >= 0, got {self.tol!r}")

    @property
    def holds(self) -> bool:
        """Whether the release meets the declared bound (NaN never holds)."""
        if self.sense == "at_least":
            return bool(self.measured >= self.declared - self.tol)
        return bool(self.measured <= self.declared + self.tol)

    def describe(self) -> str:
        op = ">=" if self.sense == "at_least" else "<="
        where = f" at {self.where}" if self.where else ""
        return (
            f"{self.mechanism}: {self.guarantee} requires {op} {self.declared:.10g}, "
            f"measured {self.measured:.10g}{where}"
        )


class GuaranteeViolation(RuntimeError):
    """A release would break the guarantee its mechanism declared; nothing was released.

    Parameters
    ----------
    failed : list of GuaranteeCheck
        The checks that do not hold; kept as the attribute ``failed`` and described in the
        message.

    Examples
    --------
    >>> from ppdp.guarantees import GuaranteeCheck, GuaranteeViolation
    >>> broken = GuaranteeCheck("Mondrian", "k-anonymity", 4.0, 3.0, "at_least", "group 0")
    >>> err = GuaranteeViolation([broken])
    >>> print(err)
    release withheld, declared guarantee broken: Mondrian: k-anonymity requires >= 4, measured 3 at group 0
    >>> err.failed[0].measured
    3.0
    """

    def __init__(self, failed: list[GuaranteeCheck]):
        self.failed = list(failed)
        lines = "; ".join(c.describe() for c in self.failed)
        super().__init__(f"release withheld, declared guarantee broken: {lines}")


def enforce(checks: Iterable[GuaranteeCheck]) -> list[GuaranteeCheck]:
    """Return ``checks`` as a list if every one holds; raise :class:`GuaranteeViolation` if not.

    Parameters
    ----------
    checks : iterable of GuaranteeCheck
        A mechanism's ``guarantee_checks()``, measured on what it is about to release.

    Returns
    -------
    list of GuaranteeCheck
        ``checks``, every one holding.

    Raises
    ------
    GuaranteeViolation
        If any check fails; it carries the failed checks (all of them) in ``failed``.

    Examples
    --------
    >>> from ppdp.guarantees import GuaranteeCheck, enforce
    >>> ok = GuaranteeCheck("Mondrian", "k-anonymity", 4.0, 5.0, "at_least", "group 2")
    >>> bad = GuaranteeCheck("Mondrian", "l-diversity", 2.0, 1.5, "at_least", "group 0")
    >>> enforce([ok]) == [ok]
    True
    >>> enforce([ok, bad])
    Traceback (most recent call last):
    ...
    ppdp.guarantees.GuaranteeViolation: release withheld, declared guarantee broken: Mondrian: l-diversity requires >= 2, measured 1.5 at group 0
    """
    checks = list(checks)
    failed = [c for c in checks if not c.holds]
    if failed:
        raise GuaranteeViolation(failed)
    return checks


def guarantee_report(mechanism) -> pd.DataFrame:
    """The mechanism's declared guarantees beside their values on what it released.

    Parameters
    ----------
    mechanism : object
        A fitted mechanism with a ``guarantee_checks()`` method.

    Returns
    -------
    DataFrame
        One row per check: mechanism, guarantee, declared, measured, sense, where, tol, holds.

    Raises
    ------
    TypeError
        If ``mechanism`` has no ``guarantee_checks()`` or it returns anything but
        :class:`GuaranteeCheck` objects.
    sklearn.exceptions.NotFittedError
        From ``guarantee_checks()``, before the mechanism is fitted.

    Examples
    --------
    >>> import pandas as pd
    >>> from ppdp.guarantees import guarantee_report
    >>> from ppdp.mechanisms.mondrian import Mondrian
    >>> df = pd.DataFrame({"age": [23, 25, 31, 35, 41, 47, 52, 58],
    ...                    "disease": ["flu", "cold"] * 4})
    >>> mech = Mondrian(["age"], "disease", k=2, l=2).fit(df)
    >>> guarantee_report(mech)[["guarantee", "declared", "measured", "where", "holds"]]
         guarantee  declared  measured    where  holds
    0  k-anonymity       2.0       2.0  group 0   True
    1  l-diversity       2.0       2.0  group 0   True
    """
    checks_fn = getattr(mechanism, "guarantee_checks", None)
    if not callable(checks_fn):
        raise TypeError(
            f"mechanism must implement guarantee_checks(); {type(mechanism).__name__} does not"
        )
    rows = []
    for check in checks_fn():
        if not isinstance(check, GuaranteeCheck):
            raise TypeError(
                f"{type(mechanism).__name__}.guarantee_checks() must return GuaranteeCheck "
                f"objects, got {type(check).__name__}"
            )
        rows.append({**asdict(check), "holds": check.holds})
    columns = ["mechanism", "guarantee", "declared", "measured", "sense", "where", "tol", "holds"]
    return pd.DataFrame(rows, columns=columns)
