"""Named in-memory caches: every value the library computes once and reuses is held by one of these.

A module that reuses a result (a fitted attacker for a training set it has seen, the k-means split
of a seed, a trained generator) declares a :class:`Memo` at module level, with a name, a bound
and a sentence on what it keeps. :func:`memos` lists them all, so a reader sees what state outlives
a call, and :func:`clear_memos` empties them (the tests use it to prove that a cached and a fresh
computation agree). A cache changes no result: it returns what the computation would, only sooner;
keys hold everything the computation reads.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["Memo", "clear_memos", "memos"]

_REGISTRY: dict[str, Memo] = {}


class Memo:
    """A named, optionally bounded, least-recently-used cache of computed values.

    Parameters
    ----------
    name : str
        Unique name, ``"<module>.<what>"``, under which :func:`memos` lists it.
    keeps : str
        What a value is and what its key holds, in one sentence.
    maxsize : int, optional
        The most values kept; the least recently used goes first. None keeps every value.

    Attributes
    ----------
    hits, misses : int
        Lookups answered from the cache and computed, since it was made or last cleared.
    scopes : int
        How many :meth:`isolated` blocks are open; a cache meant to work only inside such a block
        (values shared by the runs of one block, nothing kept after) checks it.

    Raises
    ------
    ValueError
        If ``name`` is already taken or ``maxsize`` is not a positive integer.

    Examples
    --------
    >>> from ppdp.memo import Memo
    >>> squares = Memo("doc.squares", "x squared, by x", maxsize=2)
    >>> squares.get(3, lambda: 3 * 3), squares.get(3, lambda: -1)
    (9, 9)
    >>> squares.hits, squares.misses, len(squares)
    (1, 1, 1)
    >>> squares.forget()
    """

    def __init__(self, name: str, keeps: str, maxsize: int | None = None):
        if name in _REGISTRY:
            raise ValueError(f"a Memo named {name!r} exists already; names must be unique")
        if maxsize is not None and (
            isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1
        ):
            raise ValueError(f"maxsize must be None or an int >= 1, got {maxsize!r}")
        self.name = name
        self.keeps = keeps
        self.maxsize = maxsize
        self._values: OrderedDict[Hashable, Any] = OrderedDict()
        self.hits = 0
        self.misses = 0
        self.scopes = 0
        _REGISTRY[name] = self

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value under ``key``, computed by ``compute()`` and kept if it is not there yet.

        Parameters
        ----------
        key : hashable
            Everything ``compute`` reads that may change between calls.
        compute : callable
            Called with no argument on a miss.

        Returns
        -------
        object
            The kept or the newly computed value.

        Examples
        --------
        >>> from ppdp.memo import Memo
        >>> m = Memo("doc.get", "a constant")
        >>> m.get("k", lambda: 1), m.get("k", lambda: 2)
        (1, 1)
        >>> m.forget()
        """
        if key in self._values:
            self.hits += 1
            self._values.move_to_end(key)
            return self._values[key]
        self.misses += 1
        value = compute()
        self._values[key] = value
        if self.maxsize is not None and len(self._values) > self.maxsize:
            self._values.popitem(last=False)
        return value

    def clear(self) -> None:
        """Drop every value and reset the counts.

        Examples
        --------
        >>> from ppdp.memo import Memo
        >>> m = Memo("doc.clear", "a constant")
        >>> _ = m.get("k", lambda: 1)
        >>> m.clear(); len(m)
        0
        >>> m.forget()
        """
        self._values.clear()
        self.hits = self.misses = 0

    @contextmanager
    def isolated(self, maxsize: int | None = None) -> Iterator[Memo]:
        """Within the block, use a fresh, separate store of at most ``maxsize`` values.

        The values kept before the block are back after it, and those computed inside are
        dropped: a timing loop gets fresh computations without losing what other callers cached,
        and a long loop over inputs it will not see again keeps the cache small.

        Parameters
        ----------
        maxsize : int, optional
            The bound inside the block (None: unbounded).

        Yields
        ------
        Memo
            This cache.

        Raises
        ------
        ValueError
            If ``maxsize`` is not None or a positive integer.

        Examples
        --------
        >>> from ppdp.memo import Memo
        >>> m = Memo("doc.isolated", "a constant")
        >>> _ = m.get("kept", lambda: 1)
        >>> with m.isolated(maxsize=1):
        ...     _ = m.get("a", lambda: 2); _ = m.get("b", lambda: 3); print(len(m))
        1
        >>> len(m), m.get("kept", lambda: 0)
        (1, 1)
        >>> m.forget()
        """
        if maxsize is not None and (
            isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1
        ):
            raise ValueError(f"maxsize must be None or an int >= 1, got {maxsize!r}")
        saved = self._values, self.maxsize
        self._values, self.maxsize = OrderedDict(), maxsize
        self.scopes += 1
        try:
            yield self
        finally:
            self.scopes -= 1
            self._values, self.maxsize = saved

    def forget(self) -> None:
        """Take this cache off the registry (for caches made in examples and tests).

        Examples
        --------
        >>> from ppdp.memo import Memo, memos
        >>> m = Memo("doc.forget", "nothing")
        >>> m.forget(); "doc.forget" in memos()
        False
        """
        _REGISTRY.pop(self.name, None)

    def keys(self) -> list[Hashable]:
        """The keys kept, least recently used first.

        Returns
        -------
        list

        Examples
        --------
        >>> from ppdp.memo import Memo
        >>> m = Memo("doc.keys", "a constant")
        >>> _ = m.get("a", lambda: 1); _ = m.get("b", lambda: 2); _ = m.get("a", lambda: 0)
        >>> m.keys()
        ['b', 'a']
        >>> m.forget()
        """
        return list(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._values

    def __iter__(self) -> Iterator[Hashable]:
        return iter(list(self._values))

    def __repr__(self) -> str:
        bound = "unbounded" if self.maxsize is None else f"at most {self.maxsize}"
        return f"Memo({self.name!r}, {len(self)} values, {bound}: {self.keeps})"


def memos() -> dict[str, Memo]:
    """Every cache the imported modules declared, by name.

    Returns
    -------
    dict of str to Memo

    Examples
    --------
    >>> import ppdp.attacks.suite
    >>> from ppdp.memo import memos
    >>> "attacks.suite.fitted_attackers" in memos()
    True
    """
    return dict(_REGISTRY)


def clear_memos() -> None:
    """Empty every cache (values and counts), as in a fresh process.

    Examples
    --------
    >>> from ppdp.memo import clear_memos, memos
    >>> clear_memos()
    >>> all(len(m) == 0 for m in memos().values())
    True
    """
    for memo in _REGISTRY.values():
        memo.clear()
