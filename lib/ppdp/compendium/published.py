"""The numbers the papers print, read from ``claims.yaml``, the one place they are typed in.

A notebook that draws a paper's point beside ours, or prints a paper's table beside our run, takes
the paper's numbers from here. Two kinds of entries answer :func:`published_value`:

- a claim id: the claim's numeric ``published`` field;
- a key of the file's ``published:`` section, which holds reference numbers that are shown but not
  judged (a table's cells, a competitor's operating point)::

      published:
        imposter.krr_operating_point:
          where: IMPOSTER Sec. 5.6
          value: [68.91, 75.17]

``value`` is a number or a list of numbers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ppdp.compendium.yamlfile import read_yaml
from ppdp.memo import Memo, digest

#: ``claims.yaml`` at the root of the compendium (the library is installed from ``lib/``).
DEFAULT_CLAIMS = Path(__file__).resolve().parents[3] / "claims.yaml"
PUBLISHED_KEYS = ("where", "value")


def published_value(key: str, path: str | os.PathLike | None = None) -> float | list[float]:
    """The paper's number for a claim id or a ``published:`` entry.

    Parameters
    ----------
    key : str
        A claim id (``"imposter.gender_accuracy_b"``) or a key of the ``published:`` section.
    path : path-like, optional
        The claims file; by default ``claims.yaml`` at the root of the compendium.

    Returns
    -------
    float or list of float
        The number, or the numbers of a ``published:`` entry given as a list (a new list on every
        call: changing it changes nothing the next caller reads).

    Raises
    ------
    KeyError
        When neither a claim nor a ``published:`` entry has this key, or the claim's published
        value is a phrase rather than a number.
    FileNotFoundError
        When the claims file does not exist.
    """
    path = Path(path) if path is not None else DEFAULT_CLAIMS
    if not path.is_file():
        raise FileNotFoundError(
            f"claims file {path} does not exist; pass path= to published_value when the library "
            "is used outside the compendium"
        )
    # by content: a file replaced with its modification time restored is read again; the bytes
    # hashed are the bytes parsed, so a file replaced between the two steps cannot be mixed up
    content = path.read_bytes()
    claims, section = CLAIMS_FILES.get(digest(content), lambda: _read(str(path), content))
    if key in section:
        value = section[key]
        return list(value) if isinstance(value, tuple) else value
    if key in claims:
        value = claims[key]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise KeyError(f"claim {key!r} was published as {value!r}, which is not a number")
        return float(value)
    raise KeyError(
        f"{key!r} is neither a claim id nor a 'published:' entry of the claims file "
        f"({len(claims)} claims, {len(section)} published entries)"
    )


def load_published(raw: Any, where: str) -> dict[str, float | list[float]]:
    """Validate the ``published:`` section of a claims file: key -> number or list of numbers."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: 'published' must be a mapping of keys to entries, got {raw!r}")
    out: dict[str, float | list[float]] = {}
    for key, entry in raw.items():
        at = f"{where}: published entry {key!r}"
        if not isinstance(key, str) or not key.strip():
            raise ValueError(f"{at}: the key must be a non-empty string")
        if not isinstance(entry, dict) or set(entry) != set(PUBLISHED_KEYS):
            got = sorted(map(str, entry)) if isinstance(entry, dict) else entry
            raise ValueError(
                f"{at} must be a mapping with exactly {list(PUBLISHED_KEYS)}; got {got}"
            )
        if not isinstance(entry["where"], str) or not entry["where"].strip():
            raise ValueError(f"{at}: 'where' must be a non-empty string, got {entry['where']!r}")
        value = entry["value"]
        items = value if isinstance(value, list) else [value]
        if not items or any(isinstance(v, bool) or not isinstance(v, int | float) for v in items):
            raise ValueError(f"{at}: 'value' must be a number or a list of numbers, got {value!r}")
        out[key] = [float(v) for v in items] if isinstance(value, list) else float(value)
    return out


#: The claims files read so far, by a digest of their bytes (an edited file is read again).
CLAIMS_FILES = Memo(
    "published.claims_files",
    "a claims file's published values, by a digest of the file's bytes",
    freeze=True,
)


def _read(path: str, content: bytes) -> tuple[dict[str, Any], dict[str, float | list[float]]]:
    raw = read_yaml(path, text=content.decode())
    if not isinstance(raw, dict) or not isinstance(raw.get("claims"), list):
        raise ValueError(f"{path}: expected a mapping with a 'claims' list")
    claims = {
        e["id"]: e.get("published") for e in raw["claims"] if isinstance(e, dict) and "id" in e
    }
    return claims, load_published(raw.get("published"), path)
