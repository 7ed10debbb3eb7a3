"""The library's logs in the compendium's runs: shown at the level ``PPDP_LOG_LEVEL`` names.

The library logs its long steps under the logger ``"ppdp"`` and stays silent by default (a
``NullHandler``, the rule for libraries). The compendium is an application of it: when the
environment variable ``PPDP_LOG_LEVEL`` is set (the Snakefile sets ``INFO`` for every notebook
run), :mod:`ppdp.experiments` calls :func:`show_library_logs` on import, so each notebook run's log
(papermill's ``--log-output``) holds the library's steps with their times. An interactive session or
``nbval`` leaves it unset and the notebooks quiet.
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["LEVEL_VARIABLE", "show_library_logs"]

#: The environment variable that names the level (``INFO``, ``DEBUG``, ...) to show.
LEVEL_VARIABLE = "PPDP_LOG_LEVEL"

#: The format of a shown record: time, logger and message.
FORMAT = "%(asctime)s %(name)s: %(message)s"


def show_library_logs(level: str | int | None = None) -> logging.Handler | None:
    """Show the library's log records at ``level`` and above on standard error.

    Parameters
    ----------
    level : str, int or None
        A :mod:`logging` level or its name; None reads :data:`LEVEL_VARIABLE` and does nothing
        when it is unset or empty.

    Returns
    -------
    logging.Handler or None
        The handler added to the ``"ppdp"`` logger (one per process: a second call changes its
        level), or None when nothing is shown.

    Raises
    ------
    ValueError
        When ``level`` (or the variable) names no logging level.

    Examples
    --------
    >>> import logging
    >>> from ppdp.compendium.logs import show_library_logs
    >>> handler = show_library_logs("INFO")
    >>> logging.getLogger("ppdp").level == logging.INFO
    True
    >>> show_library_logs("LOUD")
    Traceback (most recent call last):
    ...
    ValueError: PPDP_LOG_LEVEL must name a logging level (DEBUG, INFO, WARNING, ERROR), got 'LOUD'
    >>> logging.getLogger("ppdp").removeHandler(handler)
    >>> logging.getLogger("ppdp").setLevel(logging.NOTSET)
    """
    if level is None:
        level = os.environ.get(LEVEL_VARIABLE, "").strip()
        if not level:
            return None
    number = level if isinstance(level, int) else logging.getLevelName(str(level).upper())
    if not isinstance(number, int):
        raise ValueError(
            f"{LEVEL_VARIABLE} must name a logging level (DEBUG, INFO, WARNING, ERROR), got {level!r}"
        )
    logger = logging.getLogger("ppdp")
    logger.setLevel(number)
    for handler in logger.handlers:
        if getattr(handler, "_ppdp_shown", False):
            handler.setLevel(number)
            return handler
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.setLevel(number)
    handler._ppdp_shown = True
    logger.addHandler(handler)
    return handler
