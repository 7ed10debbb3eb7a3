"""Named in-memory caches: every value the library computes once and reuses is held by one of these.

A module that reuses a result (a fitted attacker for a training set it has seen, the k-means split
of a seed, a trained generator) declares a :class:`Memo` at module level, with a name, a bound
and a sentence on what it keeps. :func:`memos` lists them all, so a reader sees what state outlives
a call, and :func:`clear_memos` empties them (the tests use it to prove that a cached and a fresh
computation agree). A cache changes no result: it returns what the computation would, only sooner.

Two rules make that hold. A key holds everything the computation reads, by content:
:func:`digest` hashes arrays whole (bytes, dtype and shape), frames by their values, index, columns
and dtypes, files by their bytes, so that two inputs share a key only when they are equal. And a
value handed out cannot be changed behind the cache's back: a :class:`Memo` made with
``freeze=True`` keeps read-only copies (arrays not writeable, lists as tuples, dicts as read-only
mappings) and hands out a fresh copy of a pandas object on every lookup.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Memo", "clear_memos", "digest", "frozen", "memos"]

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
    freeze : bool, default False
        Keep a read-only copy of each computed value (see :func:`frozen`): a caller cannot change
        what later lookups return. For values that are not plain data (a fitted model, an object
        with caches of its own) leave it off.

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

    With ``freeze=True`` a list comes back as a tuple and an array read-only:

    >>> import numpy as np
    >>> rows = Memo("doc.rows", "a range, by its length", freeze=True)
    >>> rows.get("list", lambda: [0, 1, 2]), rows.get("array", lambda: np.arange(3)).flags.writeable
    ((0, 1, 2), False)
    >>> rows.forget()
    """

    def __init__(self, name: str, keeps: str, maxsize: int | None = None, *, freeze: bool = False):
        if name in _REGISTRY:
            raise ValueError(f"a Memo named {name!r} exists already; names must be unique")
        if maxsize is not None and (
            isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1
        ):
            raise ValueError(f"maxsize must be None or an int >= 1, got {maxsize!r}")
        self.name = name
        self.keeps = keeps
        self.maxsize = maxsize
        self.freeze = bool(freeze)
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
            The kept or the newly computed value (with ``freeze``, its read-only copy; a pandas
            object inside it is copied on the way out).

        Raises
        ------
        TypeError
            With ``freeze``, if the computed value holds something :func:`frozen` cannot freeze.

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
            return self._handed_out(self._values[key])
        self.misses += 1
        value = compute()
        if self.freeze:
            try:
                value = frozen(value)
            except TypeError as exc:
                raise TypeError(f"Memo {self.name!r} keeps frozen values: {exc}") from exc
        self._values[key] = value
        if self.maxsize is not None and len(self._values) > self.maxsize:
            self._values.popitem(last=False)
        return self._handed_out(value)

    def _handed_out(self, value: Any) -> Any:
        # pandas objects cannot be made read-only: each caller gets its own copy
        if self.freeze and _holds_pandas(value):
            return _copy_pandas(value)
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


def _holds_pandas(value: Any) -> bool:
    if isinstance(value, pd.DataFrame | pd.Series | pd.Index):
        return True
    return isinstance(value, tuple) and any(_holds_pandas(v) for v in value)


def _copy_pandas(value: Any) -> Any:
    if isinstance(value, pd.DataFrame | pd.Series | pd.Index):
        return value.copy(deep=True)
    if isinstance(value, tuple):
        items = [_copy_pandas(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value


_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, np.generic, range)


def frozen(value: Any) -> Any:
    """A copy of ``value`` that its receiver cannot change in place.

    Arrays are copied and made read-only, lists and tuples become tuples (named tuples keep their
    type), dicts read-only mappings, sets frozensets, frozen dataclasses are rebuilt from frozen
    fields; pandas objects are deep copies (:class:`Memo` hands out a further copy on every
    lookup, as pandas has no read-only frames). Numbers, strings and bytes are kept as they are.

    Parameters
    ----------
    value : object
        Plain data: the types above, nested in any way.

    Returns
    -------
    object
        The frozen copy.

    Raises
    ------
    TypeError
        If ``value`` holds anything else (a fitted model, a mutable dataclass): such a value
        cannot be frozen, and its cache must be made without ``freeze``.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.memo import frozen
    >>> value = frozen({"a": [1, 2], "b": np.zeros(2)})
    >>> value["a"], value["b"].flags.writeable
    ((1, 2), False)
    >>> value["c"] = 3
    Traceback (most recent call last):
    ...
    TypeError: 'mappingproxy' object does not support item assignment
    """
    if isinstance(value, _IMMUTABLE):
        return value
    if isinstance(value, np.ndarray):
        out = np.array(value, copy=True)
        out.flags.writeable = False
        return out
    if isinstance(value, pd.DataFrame | pd.Series | pd.Index):
        return value.copy(deep=True)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(frozen(v) for v in value))
    if isinstance(value, list | tuple):
        return tuple(frozen(v) for v in value)
    if isinstance(value, set | frozenset):
        return frozenset(frozen(v) for v in value)
    if isinstance(value, Mapping):
        return MappingProxyType({k: frozen(v) for k, v in value.items()})
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if not type(value).__dataclass_params__.frozen:
            raise TypeError(f"cannot freeze an instance of the mutable dataclass {type(value)!r}")
        fields = {f.name: frozen(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **fields)
    raise TypeError(f"cannot freeze a value of type {type(value).__name__!r}")


def digest(*parts: Any) -> str:
    """A content digest of ``parts``: equal only when every part has equal content.

    Every key of a :class:`Memo` that holds data is built with it, so that two inputs share a
    cached value only when the computation would read the same from both. Arrays are hashed whole
    (dtype, shape and bytes); pandas objects by their values, index, columns and dtypes
    (categories included); dicts by their items whatever their order; sequences, sets and frozen
    dataclasses element by element. Each part is tagged with its type and length, so ``("ab",)``
    and ``("a", "b")`` differ, and so do ``1`` and ``1.0``.

    Parameters
    ----------
    *parts : object
        Numbers, strings, bytes, None, numpy arrays and scalars, pandas DataFrames, Series and
        Indexes, and lists, tuples, sets, dicts and dataclasses of these.

    Returns
    -------
    str
        40 hexadecimal digits (BLAKE2b, 20 bytes).

    Raises
    ------
    TypeError
        If a part is of another type (its content would be unknown).

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.memo import digest
    >>> a = np.arange(6.0).reshape(2, 3)
    >>> digest(a, "x") == digest(a.copy(), "x")
    True
    >>> b = a.copy(); b[1, 1] = -1.0
    >>> digest(a, "x") == digest(b, "x"), digest(a) == digest(a.reshape(3, 2))
    (False, False)
    >>> digest({"k": 1, "j": 2}) == digest({"j": 2, "k": 1}), digest(1) == digest(1.0)
    (True, False)
    """
    h = hashlib.blake2b(digest_size=20)
    _feed(h, parts)
    return h.hexdigest()


def _tag(h, name: str, *info: Any) -> None:
    h.update(f"<{name}:{':'.join(map(str, info))}>".encode())


def _feed_array(h, a: np.ndarray) -> None:
    if a.dtype.hasobject:
        _tag(h, "objects", a.shape)
        for item in a.reshape(-1).tolist():
            _feed(h, item)
        return
    _tag(h, "array", a.dtype.str, a.shape)
    h.update(np.ascontiguousarray(a).reshape(-1).view(np.uint8))


def _feed_values(h, values: pd.Series | pd.Index) -> None:
    """The values of a Series or Index (numpy, categorical or extension dtypes), not its labels."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        _tag(h, "categorical", values.dtype.ordered)
        _feed(h, values.dtype.categories)
        _feed_array(h, np.asarray(values.array.codes))
        return
    if isinstance(values.dtype, np.dtype) and not values.dtype.hasobject:
        _feed_array(h, values.to_numpy())
        return
    # object and extension values: pandas' per-element hash, and the elements' types, which that
    # hash does not tell apart (1 and "1")
    array = values.to_numpy(dtype=object)
    _tag(h, "elements", values.dtype, len(array))
    _feed(h, tuple(sorted({type(v).__name__ for v in array.tolist()})))
    _feed_array(h, pd.util.hash_array(array, categorize=False))


def _feed(h, part: Any) -> None:
    if isinstance(part, bool | int | float | complex | str | bytes | type(None)):
        _tag(h, type(part).__name__, len(repr(part)))
        h.update(repr(part).encode())
    elif isinstance(part, np.ndarray):
        _feed_array(h, part)
    elif isinstance(part, np.generic):
        _feed_array(h, np.asarray(part))
    elif isinstance(part, pd.DataFrame):
        _tag(h, "frame", *part.shape)
        _feed(h, part.columns)
        _feed(h, part.index)
        for i in range(part.shape[1]):
            column = part.iloc[:, i]
            _tag(h, "dtype", column.dtype)
            _feed_values(h, column)
    elif isinstance(part, pd.Series):
        _tag(h, "series", len(part), part.dtype)
        _feed(h, part.name)
        _feed(h, part.index)
        _feed_values(h, part)
    elif isinstance(part, pd.MultiIndex):
        _tag(h, "multiindex", part.nlevels, len(part))
        _feed(h, list(part.names))
        for level in range(part.nlevels):
            _feed(h, part.get_level_values(level))
    elif isinstance(part, pd.Index):
        _tag(h, "index", type(part).__name__, len(part), part.dtype)
        _feed(h, part.name)
        _feed_values(h, part)
    elif isinstance(part, list | tuple):
        _tag(h, type(part).__name__, len(part))
        for item in part:
            _feed(h, item)
    elif isinstance(part, set | frozenset):
        _tag(h, "set", len(part))
        for item_digest in sorted(digest(item) for item in part):
            h.update(item_digest.encode())
    elif isinstance(part, Mapping):
        _tag(h, "mapping", len(part))
        for pair_digest in sorted(digest(k, v) for k, v in part.items()):
            h.update(pair_digest.encode())
    elif dataclasses.is_dataclass(part) and not isinstance(part, type):
        _tag(h, "dataclass", type(part).__qualname__)
        for field in dataclasses.fields(part):
            _feed(h, (field.name, getattr(part, field.name)))
    else:
        raise TypeError(
            f"digest cannot hash a {type(part).__name__!r}: give its content as arrays, frames, "
            "numbers, strings, or sequences and dicts of these"
        )


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
