"""Reproduction report: claims validation, verdicts, Markdown rendering, and the real claims.yaml."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from ppdp.experiments.common import tidy_rows, write_results
from ppdp.report import (
    CAUSES,
    MAX_FIGURE_BYTES,
    Check,
    build_report,
    check_complete,
    evaluate,
    git_state,
    load_claims,
    load_summaries,
    main,
    verdict_differences,
)
from ppdp.report.verdicts import _natural_key

ROOT = Path(__file__).resolve().parents[1]


def _claims_file(tmp_path, entries, n_claims=None):
    """``claims.yaml`` with ``entries``, stating ``n_claims`` before them when given."""
    path = tmp_path / "claims.yaml"
    head = {} if n_claims is None else {"n_claims": n_claims}
    path.write_text(yaml.safe_dump({**head, "claims": entries}, sort_keys=False))
    return path


def _row(text, cid):
    """The table row of claim ``cid`` in a report's Markdown."""
    return next(line for line in text.splitlines() if line.startswith(f"| [`{cid}`]"))


def _details(text, cid):
    """The details block of claim ``cid``: from its heading to the next heading."""
    block = text.split(f"\n#### `{cid}`\n", 1)[1]
    return re.split(r"\n#{1,4} ", block, maxsplit=1)[0]


def _claim(cid, op=">=", value=1.0, **extra):
    return {
        "id": cid,
        "paper": "p",
        "notebook": "nb",
        "where": "Fig. 1",
        "statement": "s",
        "published": value,
        "check": {"op": op, "value": value, **extra},
        **extra.pop("top", {}),
    }


@pytest.mark.parametrize(
    ("op", "threshold", "measured", "expected"),
    [
        (">=", 1, 1, True),
        (">=", 1, 0.99, False),
        ("<", 1, 0.5, True),
        ("==", 1, 1, True),
        ("==", 1, 0, False),
        ("<=", 2, 3, False),
        (">", 0, float("nan"), False),
    ],
)
def test_check_ops(op, threshold, measured, expected):
    assert Check(op, threshold).holds(measured) is expected


def test_check_approx():
    check = Check("approx", 10.0, rel_tol=0.1)
    assert check.holds(10.9) and not check.holds(11.1)
    assert "10" in check.describe()


def test_load_claims_validates(tmp_path):
    with pytest.raises(ValueError, match="lacks the keys"):
        load_claims(_claims_file(tmp_path, [{"id": "a"}]))
    with pytest.raises(ValueError, match="appears twice"):
        load_claims(_claims_file(tmp_path, [_claim("a"), _claim("a")]))
    with pytest.raises(ValueError, match=r"check 'op' must be one of \['>=', .*, got '~'"):
        load_claims(_claims_file(tmp_path, [_claim("a", op="~")]))
    with pytest.raises(ValueError, match="rel_tol or abs_tol"):
        load_claims(_claims_file(tmp_path, [_claim("a", op="approx")]))


def test_evaluate_verdicts(tmp_path):
    claims = load_claims(
        _claims_file(
            tmp_path,
            [
                _claim("p.good", ">=", 1.0),
                _claim("p.bad", "<=", 0.0),
                _claim("p.absent"),
                {**_claim("p.other_run"), "run": "missing_run"},
            ],
        )
    )
    rows = tidy_rows("claims", "", {"p.good": 2.0, "p.bad": 1.0}, seed=0)
    rows += tidy_rows("claims", "", {"p.good": 4.0}, seed=1)
    write_results(rows, tmp_path / "results" / "nb.csv")
    # a run of the profile without results yet (a partial pipeline) is "not yet run"
    table = evaluate(claims, tmp_path / "results", runs=["nb", "missing_run"]).set_index("id")
    assert table.loc["p.good", "verdict"] == "reproduced"
    assert table.loc["p.good", "measured"] == 3.0 and table.loc["p.good", "n"] == 2
    assert table.loc["p.bad", "verdict"] == "not reproduced"
    # the run has results but no value for this claim
    assert table.loc["p.absent", "verdict"] == "not measured"
    assert "measured no value" in table.loc["p.absent", "detail"]
    assert "no results" in table.loc["p.other_run", "detail"]


def test_build_report_writes_markdown_with_figure_links(tmp_path):
    claims_path = _claims_file(tmp_path, [{**_claim("p.good"), "figure": "fig1"}])
    write_results(tidy_rows("claims", "", {"p.good": 2.0}), tmp_path / "results" / "nb.csv")
    out = tmp_path / "reports" / "smoke" / "reproduction.md"
    assert (
        main(
            [
                "--claims",
                str(claims_path),
                "--results",
                str(tmp_path / "results"),
                "--output",
                str(out),
                "--profile",
                "smoke",
                "--figures",
                str(tmp_path / "figures"),
            ]
        )
        == 0
    )
    text = out.read_text()
    assert "profile `smoke`" in text
    assert "1 reproduced, 0 not reproduced, 0 not measured, 0 not yet run" in text
    assert "(../../figures/nb/fig1.png)" in text


def test_real_claims_file_is_valid():
    claims = load_claims(ROOT / "claims.yaml")
    assert len({c.id for c in claims}) == len(claims)
    for claim in claims:
        assert claim.id.startswith(f"{claim.paper}."), claim.id
        assert (ROOT / "notebooks" / f"{claim.notebook}.ipynb").exists(), claim.notebook


def test_report_of_nothing_is_all_not_yet_run(tmp_path):
    runs = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["runs"]
    (tmp_path / "none").mkdir()
    table = build_report(
        ROOT / "claims.yaml", tmp_path / "none", tmp_path / "r.md", profile="x", runs=runs
    )
    assert set(table["verdict"]) == {"not yet run"}
    text = (tmp_path / "r.md").read_text()
    assert f"**Warning:** {len(table)} claims are not yet run" in text
    assert "Runs without a recorded environment: " in text


def test_interval_from_the_run_or_a_t_interval(tmp_path):
    from scipy import stats

    claims = load_claims(
        _claims_file(tmp_path, [_claim("p.boot", ">", 0.0), _claim("p.seeds", ">", 0.0)])
    )
    rows = tidy_rows("claims", "", {"p.boot": 1.0}, intervals={"p.boot": (0.2, 1.5)})
    values = [1.0, 2.0, 4.0]
    for seed, v in enumerate(values):
        rows += tidy_rows("claims", "", {"p.seeds": v}, seed=seed)
    write_results(rows, tmp_path / "results" / "nb.csv")
    table = evaluate(claims, tmp_path / "results").set_index("id")
    assert (table.loc["p.boot", "ci_low"], table.loc["p.boot", "ci_high"]) == (0.2, 1.5)
    lo, hi = stats.t.interval(0.95, len(values) - 1, loc=7 / 3, scale=stats.sem(values))
    assert table.loc["p.seeds", "ci_low"] == pytest.approx(lo)
    assert table.loc["p.seeds", "ci_high"] == pytest.approx(hi)


@pytest.mark.parametrize(
    ("op", "low", "high", "expected"),
    [
        (">", 0.1, 2.0, True),
        (">", -0.1, 2.0, False),
        ("<", -2.0, -0.1, True),
        ("<", -2.0, 0.3, False),
    ],
)
def test_interval_checks_need_the_whole_interval(tmp_path, op, low, high, expected):
    claims = load_claims(_claims_file(tmp_path, [_claim("p.m", op, 0.0, basis="interval")]))
    mid = (low + high) / 2
    rows = tidy_rows("claims", "", {"p.m": mid}, intervals={"p.m": (low, high)})
    write_results(rows, tmp_path / "results" / "nb.csv")
    table = evaluate(claims, tmp_path / "results")
    assert (table.loc[0, "verdict"] == "reproduced") is expected
    assert "whole interval" in table.loc[0, "check"]
    # the same claim judged on the mean only
    plain = load_claims(_claims_file(tmp_path, [_claim("p.m", op, 0.0)]))
    assert evaluate(plain, tmp_path / "results").loc[0, "verdict"] == (
        "reproduced" if Check(op, 0.0).holds(mid) else "not reproduced"
    )


def test_interval_check_without_an_interval_fails_and_bad_basis_is_rejected(tmp_path):
    claims = load_claims(_claims_file(tmp_path, [_claim("p.m", ">", 0.0, basis="interval")]))
    write_results(tidy_rows("claims", "", {"p.m": 1.0}), tmp_path / "results" / "nb.csv")
    assert evaluate(claims, tmp_path / "results").loc[0, "verdict"] == "not reproduced"
    with pytest.raises(ValueError, match="check 'basis' must be"):
        load_claims(_claims_file(tmp_path, [_claim("p.x", "==", 1.0, basis="interval")]))
    with pytest.raises(ValueError, match="check 'basis' must be"):
        load_claims(_claims_file(tmp_path, [_claim("p.x", ">", 1.0, basis="median")]))


def test_unknown_check_keys_are_rejected(tmp_path):
    # a bare YAML `on:` key loads as the boolean True
    path = tmp_path / "claims.yaml"
    entry = yaml.safe_dump({"claims": [_claim("p.m", ">", 0.0)]}).replace(
        "op: '>'", "op: '>'\n    on: interval"
    )
    path.write_text(entry)
    with pytest.raises(ValueError, match="unknown check keys"):
        load_claims(path)


def test_real_claims_name_runs_of_every_profile():
    for config in sorted((ROOT / "config").glob("*.yaml")):
        if config.name.endswith("schema.yaml"):  # the profiles' and the claims file's schemas
            continue
        profile = yaml.safe_load(config.read_text())
        if "decides" in profile:  # a deciding profile reruns some runs (test_deciding_profile.py)
            continue
        for claim in load_claims(ROOT / "claims.yaml"):
            assert claim.run in profile["runs"], (config.name, claim.id, claim.run)


def test_provenance_records_the_environment(tmp_path):
    import platform

    import numpy as np
    from threadpoolctl import threadpool_info

    from ppdp.report import write_provenance

    out = tmp_path / "p" / "run.json"
    assert main(["provenance", "--output", str(out), "--run", "r", "--profile", "x"]) == 0
    record = json.loads(out.read_text())
    assert (record["run"], record["profile"]) == ("r", "x")
    assert record["python"] == platform.python_version()
    assert record["packages"]["numpy"] == np.__version__
    assert record["cpu_count"] == os.cpu_count()
    blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert sorted((b["internal_api"], b["version"], b["num_threads"]) for b in blas) == sorted(
        (b["internal_api"], b["version"], b["num_threads"]) for b in record["blas"]
    )
    assert "/" not in json.dumps(record["blas"])  # no machine paths
    import torch

    assert record["torch_cpu"] == torch.backends.cpu.get_cpu_capability()
    assert record["mkl_cbwr"] == (os.environ.get("MKL_CBWR") or "unset")
    assert record["cpu_model"] and record["cpu_model"] != "unknown"
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    expected = [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]
    assert record["numpy_simd"] == (" ".join(expected) or "baseline only")
    # the compendium's commit, or "unknown" without git / outside a repository
    outside = write_provenance(tmp_path / "o.json", run="r", profile="x", repo=tmp_path)
    assert outside["git"] == {"commit": "unknown", "clean": "unknown"}
    inside = write_provenance(tmp_path / "i.json", run="r", profile="x", repo=ROOT)
    if shutil.which("git") and (ROOT / ".git").exists():
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        assert inside["git"]["commit"] == head
        assert isinstance(inside["git"]["clean"], bool)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_clean_tree_ignores_the_published_reports_only(tmp_path):
    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "reports" / "figures").mkdir(parents=True)
    (tmp_path / "reports" / "deciding" / "d").mkdir(parents=True)
    published = [
        "reports/reproduction.md",
        "reports/figures/a.png",
        "reports/deciding/d/verdicts.csv",
    ]
    for name in (*published, "code.py"):
        (tmp_path / name).write_text("v1")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
    assert git_state(tmp_path)["clean"] is True
    # the publishing step deletes and rewrites the report and its figures; a deciding profile's
    # report rewrites its committed folder
    (tmp_path / "reports" / "reproduction.md").unlink()
    (tmp_path / "reports" / "figures" / "a.png").write_text("v2")
    (tmp_path / "reports" / "deciding" / "d" / "verdicts.csv").write_text("v2")
    assert git_state(tmp_path)["clean"] is True
    (tmp_path / "code.py").write_text("v2")
    assert git_state(tmp_path)["clean"] is False


def _env(kernel="Haswell", numpy="2.0.0", commit="a" * 40, torch_cpu="AVX2"):
    return {
        "python": "3.11.9",
        "platform": "Linux x86_64",
        "packages": {"numpy": numpy, "scipy": "1.14.0"},
        "torch_cpu": torch_cpu,
        "blas": [
            {
                "owner": "numpy",
                "internal_api": "openblas",
                "version": "0.3.27",
                "kernel": kernel,
                "num_threads": 2,
            }
        ],
        "cpu_count": 4,
        "cpus_usable": 2,
        "git": {"commit": commit, "clean": True},
    }


def test_report_header_lists_runs_and_flags_differing_environments(tmp_path):
    claims_path = _claims_file(
        tmp_path, [_claim("p.a"), {**_claim("p.b"), "run": "other", "notebook": "nb"}], n_claims=2
    )
    results = tmp_path / "results"
    write_results(tidy_rows("claims", "", {"p.a": 2.0}), results / "nb.csv")
    write_results(tidy_rows("claims", "", {"p.b": 2.0}), results / "other.csv")
    (results / "provenance").mkdir()
    (results / "benchmarks").mkdir()
    for run, env, seconds in [("nb", _env(), 65.4), ("other", _env("SkylakeX"), 3725.0)]:
        (results / "provenance" / f"{run}.json").write_text(json.dumps(env))
        (results / "benchmarks" / f"{run}.tsv").write_text(
            "s\th:m:s\tmax_rss\tcpu_time\n" + f"{seconds}\t0:01:05\t100.0\t{seconds}\n"
        )
    out = tmp_path / "r.md"
    build_report(claims_path, results, out, profile="x", runs=["nb", "other"], complete=True)
    text = out.read_text()
    assert "## Provenance" in text
    assert "Wall time per run: nb 1 min 05 s, other 1 h 02 min." in text
    blas_row = next(line for line in text.splitlines() if line.startswith("| BLAS |"))
    assert "**differ**" in blas_row and "SkylakeX" in blas_row and "Haswell" in blas_row
    assert "did not all run in the same environment (BLAS)" in text
    commit_row = next(line for line in text.splitlines() if line.startswith("| git commit |"))
    assert commit_row.split(" | ")[1] == "aaaaaaaaaa"
    torch_row = next(
        line for line in text.splitlines() if line.startswith("| PyTorch CPU kernels |")
    )
    assert torch_row.split(" | ")[1] == "AVX2"
    # PyTorch's kernels differ: flagged like BLAS
    (results / "provenance" / "other.json").write_text(json.dumps(_env(torch_cpu="AVX512")))
    build_report(claims_path, results, out, profile="x", runs=["nb", "other"], complete=True)
    torch_row = next(
        line for line in out.read_text().splitlines() if line.startswith("| PyTorch CPU kernels |")
    )
    assert "**differ**" in torch_row and "AVX512" in torch_row
    # the same environment everywhere: no warning
    (results / "provenance" / "other.json").write_text(json.dumps(_env()))
    build_report(claims_path, results, out, profile="x", runs=["nb", "other"], complete=True)
    assert "**Warning:**" not in out.read_text()


def test_published_figures_are_copied_downscaled_and_linked_next_to_the_report(tmp_path):
    import numpy as np
    from PIL import Image

    figures = tmp_path / "figures" / "default"
    (figures / "nb").mkdir(parents=True)
    noise = np.random.default_rng(0).integers(0, 256, (700, 700, 3), dtype=np.uint8)
    Image.fromarray(noise).save(figures / "nb" / "big.png")
    Image.new("RGB", (50, 40), "white").save(figures / "nb" / "small.png")
    Image.new("RGB", (50, 40), "white").save(figures / "nb" / "unlinked.png")
    assert (figures / "nb" / "big.png").stat().st_size > 1_000_000
    claims_path = _claims_file(
        tmp_path,
        [{**_claim("p.a"), "figure": "big"}, {**_claim("p.b"), "figure": "small"}],
        n_claims=2,
    )
    write_results(tidy_rows("claims", "", {"p.a": 2.0, "p.b": 2.0}), tmp_path / "res" / "nb.csv")
    published = tmp_path / "reports" / "figures"
    (published / "nb").mkdir(parents=True)
    (published / "nb" / "stale.png").write_bytes(b"old")
    out = tmp_path / "reports" / "reproduction.md"
    build_report(
        claims_path,
        tmp_path / "res",
        out,
        profile="default",
        figures_dir=figures,
        runs=["nb"],
        complete=True,
        publish_figures=published,
    )
    assert sorted(p.name for p in (published / "nb").iterdir()) == ["big.png", "small.png"]
    small = (published / "nb" / "small.png").read_bytes()
    assert small == (figures / "nb" / "small.png").read_bytes()
    big = published / "nb" / "big.png"
    assert big.stat().st_size <= MAX_FIGURE_BYTES
    with Image.open(big) as image:
        assert image.width < 700 and image.width / image.height == pytest.approx(1, abs=0.01)
    text = out.read_text()
    assert "[big](figures/nb/big.png)" in text and "[small](figures/nb/small.png)" in text
    # the profile's own report keeps linking the profile's figures
    own = tmp_path / "reports" / "default" / "reproduction.md"
    build_report(claims_path, tmp_path / "res", own, profile="default", figures_dir=figures)
    assert "[big](../../figures/default/nb/big.png)" in own.read_text()


def test_committed_report_shows_its_figures():
    """reports/reproduction.md links figures committed next to it, each small, none unlinked."""
    report = ROOT / "reports" / "reproduction.md"
    links = set(re.findall(r"\]\(([^)]+\.png)\)", report.read_text()))
    assert links
    for link in links:
        assert link.startswith("figures/"), link
        assert (report.parent / link).is_file(), link
    committed = {
        p.relative_to(report.parent).as_posix()
        for p in (ROOT / "reports" / "figures").rglob("*.png")
    }
    assert committed == links
    sizes = [(report.parent / link).stat().st_size for link in links]
    assert max(sizes) <= MAX_FIGURE_BYTES


def test_summary_opens_the_papers_section_with_measured_values(tmp_path):
    entries = [{**_claim("p.gain"), "unit": "%"}, _claim("p.other")]
    path = tmp_path / "claims.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "claims": entries,
                "summaries": {"p": "The gain is {p.gain} and the other {p.other}."},
            }
        )
    )
    rows = tidy_rows("claims", "", {"p.gain": 6.25}, intervals={"p.gain": (3.0, 10.0)})
    write_results(rows, tmp_path / "results" / "nb.csv")
    out = tmp_path / "reproduction.md"
    build_report(path, tmp_path / "results", out, profile="smoke")
    text = out.read_text()
    section = text[text.index("## p") :]
    assert section.splitlines()[2] == "The gain is 6.25% [3, 10] and the other —."


@pytest.mark.parametrize(
    ("summaries", "match"),
    [
        ({"p": "cites {p.missing}"}, r"unknown claims \['p.missing'\]"),
        ({"q": "text"}, "has no claim"),
        ({"p": ""}, "non-empty string"),
        (["p"], r"'summaries' must be a mapping of papers to paragraphs.*, got \['p'\]"),
    ],
)
def test_bad_summaries_are_rejected(tmp_path, summaries, match):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [_claim("p.gain")], "summaries": summaries}))
    with pytest.raises(ValueError, match=match):
        load_summaries(path, load_claims(path))


def test_real_summaries_cite_real_claims():
    claims = load_claims(ROOT / "claims.yaml")
    summaries = load_summaries(ROOT / "claims.yaml", claims)
    assert "hyobscure" in summaries


# ------------------------------------------------------------------------------------------------
# causes of the claims that do not reproduce


def _cause(kind="budget", why="fewer seeds than the paper", evidence=("p.good",)):
    return {"kind": kind, "why": why, "evidence": list(evidence)}


@pytest.mark.parametrize(
    ("cause", "match"),
    [
        ("budget", "'cause' must be a mapping with exactly the keys"),
        ({"kind": "budget", "why": "w"}, "cause lacks the keys ['evidence']"),
        (_cause(kind="unlucky"), "cause 'kind' must be one of ['protocol', 'data',"),
        (_cause(why="  "), "cause 'why' must be a non-empty string"),
        (_cause(evidence=()), "cause 'evidence' must be a non-empty list"),
        (_cause(evidence=("p.nowhere",)), "'p.nowhere' is neither a claim id"),
        (_cause(evidence=("nb.ipynb#Fig. 9",)), "nb.ipynb has no heading 'Fig. 9'"),
        (_cause(evidence=("notes.md#Budget",)), "notes.md has no heading 'Budget'"),
    ],
)
def test_bad_causes_are_rejected(tmp_path, cause, match):
    (tmp_path / "nb.ipynb").write_text(
        json.dumps({"cells": [{"cell_type": "markdown", "source": ["## Fig. 2: curves\n"]}]})
    )
    (tmp_path / "notes.md").write_text("# Notes\n\nBudget is discussed in prose only.\n")
    entries = [_claim("p.good"), {**_claim("p.bad"), "cause": cause}]
    with pytest.raises(ValueError, match=re.escape(match) if "'" in match else match):
        load_claims(_claims_file(tmp_path, entries))


def test_cause_evidence_names_claims_files_and_headings(tmp_path):
    (tmp_path / "nb.ipynb").write_text(
        json.dumps({"cells": [{"cell_type": "markdown", "source": ["## Fig. 2: curves\n"]}]})
    )
    (tmp_path / "bench.py").write_text("")
    cause = _cause(evidence=("p.good", "nb.ipynb#fig. 2", "bench.py"))
    claims = load_claims(
        _claims_file(tmp_path, [_claim("p.good"), {**_claim("p.bad"), "cause": cause}])
    )
    assert claims[1].cause.evidence == ("p.good", "nb.ipynb#fig. 2", "bench.py")
    assert claims[1].cause.describe().startswith("**budget**: fewer seeds than the paper")


def _report_with_misses(tmp_path, causes, **kwargs):
    """Four claims on run ``nb``: one reproduced, three not, with the given causes (None: none)."""
    entries = [_claim("p.good")]
    for i, kind in enumerate(causes):
        entry = _claim(f"p.miss{i}", "<=", 0.0)
        if kind is not None:
            entry["cause"] = _cause(kind=kind, why=f"reason {i}")
        entries.append(entry)
    path = _claims_file(tmp_path, entries)
    values = {"p.good": 2.0, **{f"p.miss{i}": 1.0 for i in range(len(causes))}}
    write_results(tidy_rows("claims", "", values), tmp_path / "results" / "nb.csv")
    out = tmp_path / "report.md"
    table = build_report(path, tmp_path / "results", out, profile="t", **kwargs)
    return table, out


def test_report_counts_the_misses_by_cause_and_shows_why(tmp_path):
    table, out = _report_with_misses(tmp_path, ["budget", "data", "budget", None, "refuted"])
    text = out.read_text()
    assert "Not reproduced, by cause: 1 data, 2 budget, 1 refuted, 1 no cause given." in text
    assert "- **why**: **budget**: reason 0 (evidence: `p.good`)" in _details(text, "p.miss0")
    assert "**why**" not in _details(text, "p.good")
    assert list(table["cause"]) == ["", "budget", "data", "budget", "", "refuted"]


def test_a_miss_without_a_cause_is_rejected_when_causes_are_required(tmp_path):
    with pytest.raises(ValueError, match=r"1 claims are not reproduced .* no cause .*: p\.miss1;"):
        _report_with_misses(tmp_path, ["data", None], require_causes=True)
    assert not (tmp_path / "report.md").exists()
    table, out = _report_with_misses(tmp_path, ["data", "ambiguous"], require_causes=True)
    assert out.exists() and (table["verdict"] == "not reproduced").sum() == 2


def test_a_reproduced_claim_needs_no_cause_and_hides_the_one_it_has(tmp_path):
    path = _claims_file(
        tmp_path, [_claim("p.good"), {**_claim("p.fine"), "cause": _cause(kind="protocol")}]
    )
    write_results(
        tidy_rows("claims", "", {"p.good": 2.0, "p.fine": 3.0}), tmp_path / "r" / "nb.csv"
    )
    build_report(path, tmp_path / "r", tmp_path / "out.md", profile="t", require_causes=True)
    text = (tmp_path / "out.md").read_text()
    assert "**protocol**" not in text and "by cause" not in text


def test_a_verdict_that_differs_between_two_runs_is_unstable(tmp_path):
    path = _claims_file(
        tmp_path,
        [_claim("p.good"), _claim("p.flip"), {**_claim("p.miss", "<=", 0.0), "cause": _cause()}],
    )
    write_results(
        tidy_rows("claims", "", {"p.good": 2.0, "p.flip": 1.5, "p.miss": 1.0}),
        tmp_path / "one" / "nb.csv",
    )
    write_results(
        tidy_rows("claims", "", {"p.good": 3.0, "p.flip": 0.5, "p.miss": 2.0}),
        tmp_path / "two" / "nb.csv",
    )
    out = tmp_path / "report.md"
    table = build_report(
        path, tmp_path / "one", out, profile="t", compare=tmp_path / "two", require_causes=True
    ).set_index("id")
    assert list(table["verdict"]) == ["reproduced", "unstable", "not reproduced"]
    assert "reproduced here, not reproduced in" in table.loc["p.flip", "detail"]
    assert "(measured 0.5)" in table.loc["p.flip", "detail"]
    text = out.read_text()
    assert "1 reproduced, 1 not reproduced, 0 not measured, 0 not yet run, 1 unstable" in text
    assert "1 claims are *unstable*" in text
    # without a second run nothing is unstable, and the summary does not mention it
    build_report(path, tmp_path / "one", out, profile="t")
    text = out.read_text()
    summary = next(line for line in text.splitlines() if line.startswith("Summary:"))
    # (the legend of cause kinds names the kind `unstable`, not a verdict)
    assert "unstable" not in summary and "claims are *unstable*" not in text


# ------------------------------------------------------------------------------------------------
# a report is complete, or it fails


def _two_runs(tmp_path):
    """Claims p.a, p.b of run ``nb`` and p.c, p.d of run ``other``, results that measure all four
    (p.d with its interval rows), and a claims file that states ``n_claims: 4`` before its list."""
    entries = [
        _claim("p.a"),
        _claim("p.b"),
        {**_claim("p.c"), "run": "other"},
        {**_claim("p.d"), "run": "other"},
    ]
    path = _claims_file(tmp_path, entries, n_claims=4)
    results = tmp_path / "results"
    write_results(tidy_rows("claims", "", {"p.a": 2.0, "p.b": 2.0}), results / "nb.csv")
    other = tidy_rows("claims", "", {"p.c": 2.0, "p.d": 2.0}, intervals={"p.d": (1.5, 2.5)})
    write_results(other, results / "other.csv")
    return path, results


def _cut(path, before):
    """Cut the claims file just before the entry of claim ``before``, as an interrupted write
    would: what is left is valid YAML with fewer claims."""
    text = path.read_text()
    path.write_text(text[: text.index(f"- id: {before}\n")])


def _args(path, results, out, *extra):
    return [
        "--claims",
        str(path),
        "--results",
        str(results),
        "--profile",
        "x",
        "--output",
        str(out),
        *extra,
    ]


PIPELINE = ("--runs", "nb", "other", "--complete")


def test_claims_file_cut_at_a_run_boundary_contradicts_its_stated_count(tmp_path, capsys):
    path, results = _two_runs(tmp_path)
    out = tmp_path / "r.md"
    assert main(_args(path, results, out)) == 0
    _cut(path, "p.c")  # run `other` is gone entirely
    out.unlink()
    # the default CLI (no --complete, no runs) reads the count the file states
    assert main(_args(path, results, out)) == 1
    assert "holds 2 claims but states n_claims: 4 (the last is 'p.b')" in capsys.readouterr().err
    assert main(_args(path, results, out, *PIPELINE)) == 1
    assert "states n_claims: 4" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(ValueError, match=r"holds 2 claims but states n_claims: 4"):
        load_claims(path)
    # without the line, --expected-claims is the count; --complete refuses to run with neither
    path.write_text(path.read_text().replace("n_claims: 4\n", ""))
    assert main(_args(path, results, out, "--expected-claims", "4")) == 1
    assert "holds 2 claims, expected 4 (--expected-claims)" in capsys.readouterr().err
    assert main(_args(path, results, out, *PIPELINE)) == 1
    assert "states no 'n_claims'" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("n_claims", [0, -1, "4", True, 2.0])
def test_a_stated_count_must_be_a_positive_integer(tmp_path, n_claims):
    path = _claims_file(tmp_path, [_claim("p.a"), _claim("p.b")], n_claims=n_claims)
    with pytest.raises(ValueError, match=r"'n_claims' must be a positive integer"):
        load_claims(path)


def test_claims_file_cut_inside_a_run_fails_the_pipeline(tmp_path, capsys):
    path, results = _two_runs(tmp_path)
    out = tmp_path / "r.md"
    _cut(path, "p.d")
    assert main(_args(path, results, out, *PIPELINE)) == 1
    assert "holds 3 claims but states n_claims: 4 (the last is 'p.c')" in capsys.readouterr().err
    # a count that agrees (p.d removed on purpose) still fails: the results measure p.d
    path.write_text(path.read_text().replace("n_claims: 4", "n_claims: 3"))
    assert main(_args(path, results, out, *PIPELINE)) == 1
    err = capsys.readouterr().err
    listed = [line for line in err.splitlines() if "is not a claim of claims.yaml" in line]
    # the claim only, not its interval rows
    assert len(listed) == 1 and "claims row 'p.d'" in listed[0]
    assert listed[0].startswith(f"{results / 'other.csv'}:")
    assert not out.exists()
    # outside the pipeline's mode it remains a warning in the report
    assert main(_args(path, results, out, "--runs", "nb", "other")) == 0
    assert "does not list for run 'other'" in capsys.readouterr().err
    assert "**Warning:**" in out.read_text()


def test_a_renamed_claim_fails_the_pipeline(tmp_path, capsys):
    path, results = _two_runs(tmp_path)
    out = tmp_path / "r.md"
    path.write_text(path.read_text().replace("- id: p.b\n", "- id: p.b_renamed\n"))
    assert main(_args(path, results, out, *PIPELINE)) == 1
    err = capsys.readouterr().err
    assert "claims row 'p.b' is not a claim of claims.yaml (did you mean 'p.b_renamed'?)" in err
    assert f"{results / 'nb.csv'}: claim 'p.b_renamed': no row" in err
    assert not out.exists()
    # outside the pipeline's mode: a report with a claim "not measured", which its exit status
    # counts
    assert main(_args(path, results, out, "--runs", "nb", "other")) == 3
    err = capsys.readouterr().err
    assert "3 reproduced, 0 not reproduced, 1 not measured" in err
    assert "1 of 4 claims not judged" in err


def test_a_claim_of_a_run_the_profile_lacks_fails_the_pipeline(tmp_path):
    path, results = _two_runs(tmp_path)
    with pytest.raises(ValueError, match=r"claim 'p\.c' \(and 1 more\): run 'other' is not a run"):
        build_report(path, results, tmp_path / "r.md", profile="x", runs=["nb"], complete=True)


def test_a_claim_the_profile_cannot_measure_must_be_listed(tmp_path, capsys):
    path = _claims_file(tmp_path, [_claim("p.a"), _claim("p.b"), _claim("p.z")], n_claims=3)
    results = tmp_path / "results"
    write_results(tidy_rows("claims", "", {"p.a": 2.0, "p.b": 2.0}), results / "nb.csv")
    out = tmp_path / "r.md"
    report = {"profile": "x", "runs": ["nb"], "complete": True}
    with pytest.raises(
        ValueError, match=r"nb\.csv: claim 'p\.z': no row \(experiment 'claims', metric 'p\.z'\)"
    ):
        build_report(path, results, out, **report)
    assert not out.exists()
    table = build_report(path, results, out, **report, allow_unmeasured=["p.z"]).set_index("id")
    assert table.loc["p.z", "verdict"] == "not measured"
    assert "- **verdict**: not measured (this profile's parameters do not measure it)" in (
        _details(out.read_text(), "p.z")
    )
    # a stale or misspelt allowance would hide a value lost later
    with pytest.raises(ValueError, match=r"names claims that their runs measure: p\.a;"):
        build_report(path, results, out, **report, allow_unmeasured=["p.z", "p.a"])
    with pytest.raises(ValueError, match=r"the claims file does not have: p\.y$"):
        build_report(path, results, out, **report, allow_unmeasured=["p.z", "p.y"])
    # the CLI takes them from the profile's config (its runs' `unmeasured`) or as a flag
    config = tmp_path / "profile.yaml"
    spec = {"notebook": "nb", "unmeasured": ["p.z"]}
    config.write_text(yaml.safe_dump({"profile": "x", "runs": {"nb": spec}}))
    args = _args(path, results, out, "--complete")
    assert main([*args, "--config", str(config)]) == 0
    assert main([*args, "--runs", "nb", "--allow-unmeasured", "p.z"]) == 0
    capsys.readouterr()
    assert main([*args, "--runs", "nb"]) == 1
    assert "claim 'p.z': no row" in capsys.readouterr().err
    config.write_text(yaml.safe_dump({"profile": "x", "runs": {"nb": {**spec, "unmeasured": 1}}}))
    assert main([*args, "--config", str(config)]) == 1
    assert "runs.nb.unmeasured must be a list of claim ids, got 1" in capsys.readouterr().err


def test_unstable_is_a_cause_kind(tmp_path):
    assert CAUSES[-1] == "unstable"
    table, out = _report_with_misses(tmp_path, ["unstable", "data"], require_causes=True)
    assert list(table["cause"]) == ["", "unstable", "data"]
    text = out.read_text()
    assert "Not reproduced, by cause: 1 data, 1 unstable." in text
    assert "*unstable* (the verdict differs between kernel settings" in text
    assert "**unstable**: reason 0 (evidence: `p.good`)" in _details(text, "p.miss0")


def _compared_runs(tmp_path, flip_cause=None):
    """Claims on run ``nb``, measured in two results folders: p.flip is reproduced in ``one``
    and not in ``two``; p.miss is not reproduced in either."""
    flip = _claim("p.flip") if flip_cause is None else {**_claim("p.flip"), "cause": flip_cause}
    miss = {**_claim("p.miss", "<=", 0.0), "cause": _cause()}
    path = _claims_file(tmp_path, [_claim("p.good"), flip, miss], n_claims=3)
    one, two = tmp_path / "one", tmp_path / "two"
    write_results(
        tidy_rows("claims", "", {"p.good": 2.0, "p.flip": 1.5, "p.miss": 1.0}), one / "nb.csv"
    )
    write_results(
        tidy_rows("claims", "", {"p.good": 3.0, "p.flip": 0.5, "p.miss": 2.0}), two / "nb.csv"
    )
    return path, one, two


def test_strict_compare_fails_on_a_verdict_that_differs_unless_its_cause_is_unstable(
    tmp_path, capsys
):
    path, one, two = _compared_runs(tmp_path)
    out = tmp_path / "r.md"
    with pytest.raises(
        ValueError,
        match=r"1 claims have verdicts that differ .*\(--fail-on-unstable\): "
        r"p\.flip \(reproduced here, not reproduced in .*two\)$",
    ):
        build_report(path, one, out, profile="t", compare=two, strict_compare=True)
    assert not out.exists()
    args = _args(path, one, out, "--compare", str(two))
    assert main([*args, "--fail-on-unstable"]) == 1
    assert "p.flip (reproduced here, not reproduced in" in capsys.readouterr().err
    assert main(args) == 0  # without it, the claim is marked unstable and the report written
    # the claims file says the claim's verdict depends on the run: the difference is expected
    unstable = _cause(kind="unstable", why="differs between BLAS kernels", evidence=("p.good",))
    path, one, two = _compared_runs(tmp_path, flip_cause=unstable)
    table = build_report(path, one, out, profile="t", compare=two, strict_compare=True)
    assert table.set_index("id").loc["p.flip", "verdict"] == "unstable"
    assert main([*args, "--fail-on-unstable"]) == 0
    # nothing to compare with
    with pytest.raises(ValueError, match=r"strict_compare=True .* needs compare"):
        build_report(path, one, out, profile="t", strict_compare=True)
    with pytest.raises(SystemExit):
        main([*_args(path, one, out), "--fail-on-unstable"])
    assert "--fail-on-unstable needs --compare" in capsys.readouterr().err


def test_verdict_differences_names_each_claim_both_verdicts_and_its_cause(tmp_path):
    path, one, two = _compared_runs(tmp_path)
    claims = load_claims(path)
    differ = verdict_differences(evaluate(claims, one), evaluate(claims, two))
    assert differ.to_dict("records") == [
        {"id": "p.flip", "verdict": "reproduced", "other_verdict": "not reproduced", "cause": ""}
    ]
    same = verdict_differences(evaluate(claims, one), evaluate(claims, one))
    assert same.empty and list(same.columns) == ["id", "verdict", "other_verdict", "cause"]
    # a claim the other run did not measure differs too
    write_results(tidy_rows("claims", "", {"p.good": 3.0, "p.miss": 2.0}), two / "nb.csv")
    differ = verdict_differences(evaluate(claims, one), evaluate(claims, two))
    assert list(zip(differ["id"], differ["other_verdict"], strict=True)) == [
        ("p.flip", "not measured")
    ]


def test_real_claims_file_states_its_count_before_its_list():
    """The pipeline (--complete) needs ``n_claims``; before the list, a file cut short keeps it."""
    claims = load_claims(ROOT / "claims.yaml", require_count=True)
    text = (ROOT / "claims.yaml").read_text()
    line = re.search(r"^n_claims: (\d+)$", text, re.M)
    assert line and int(line.group(1)) == len(claims)
    assert line.start() < text.index("\nclaims:")


@pytest.mark.parametrize("profile", ["smoke", "default", "paper"])
def test_every_committed_profile_judges_every_claim_or_fails(tmp_path, profile):
    """Results that measure every claim of a profile's runs, except those its config lists as
    ``unmeasured``, make a complete report of every claim; one value fewer fails it."""
    runs = yaml.safe_load((ROOT / "config" / f"{profile}.yaml").read_text())["runs"]
    claims = load_claims(ROOT / "claims.yaml")
    allowed = {run: spec.get("unmeasured", []) for run, spec in runs.items()}
    for run, ids in allowed.items():
        assert set(ids) <= {c.id for c in claims if c.run == run}, (profile, run, ids)
    results = tmp_path / "results"

    def rows_of(values):
        """The claims rows of ``values``, with an ``.across`` row for each claim that declares
        its unstated settings (at another value of the first)."""
        rows = tidy_rows("claims", "", values)
        for claim in claims:
            if claim.id in values and claim.across:
                across = {claim.id + ".across": 1.0}
                rows += tidy_rows("claims", "", across, parameters={claim.across[0]: "other"})
        return rows

    for run in runs:
        values = {c.id: 1.0 for c in claims if c.run == run and c.id not in allowed[run]}
        rows = rows_of(values) if values else tidy_rows("other", "", {"x": 1.0})
        write_results(rows, results / f"{run}.csv")
    unmeasured = [cid for ids in allowed.values() for cid in ids]
    table = evaluate(claims, results, runs=list(runs), complete=True)
    check_complete(table, allow_unmeasured=unmeasured)
    assert len(table) == len(claims)
    assert set(table.loc[table["verdict"] == "not measured", "id"]) == set(unmeasured)
    lost = next(c for c in claims if c.id not in unmeasured)
    values = {c.id: 1.0 for c in claims if c.run == lost.run and c.id not in allowed[lost.run]}
    del values[lost.id]
    write_results(rows_of(values), results / f"{lost.run}.csv")
    table = evaluate(claims, results, runs=list(runs), complete=True)
    with pytest.raises(ValueError, match=rf"claim {re.escape(repr(lost.id))}: no row "):
        check_complete(table, allow_unmeasured=unmeasured)


def test_across_values_of_an_interval_claim_are_judged_on_their_intervals(tmp_path):
    """Where a claim's check reads its whole interval, a value at another setting is judged on the
    interval the run gives there (the ``ci_low`` / ``ci_high`` of its ``<id>.across`` rows): a mean that meets
    the threshold with an interval that crosses it does not make the claim ambiguous, an interval
    wholly past it does, and a value with no interval fails such a check."""
    path = _claims_file(
        tmp_path,
        [
            {
                **_claim("p.rho", "<", 0.0, basis="interval"),
                "cause": _cause("ambiguous", "grid", ["p.rho"]),
            }
        ],
        n_claims=1,
    )
    rows = tidy_rows("claims", "", {"p.rho": -0.8}, intervals={"p.rho": (-1.0, 0.4)})
    grids = {"a": (-0.9, -1.0, 0.2), "b": (-0.95, -1.0, -0.6), "c": (-0.9, None, None)}
    for grid, (value, low, high) in grids.items():
        bounds = {} if low is None else {"p.rho.across": (low, high)}
        rows += tidy_rows(
            "claims", "", {"p.rho.across": value}, parameters={"grid": grid}, intervals=bounds
        )
    write_results(rows, tmp_path / "res" / "nb.csv")
    table = evaluate(load_claims(path), tmp_path / "res", runs=["nb"]).set_index("id")
    row = table.loc["p.rho"]
    assert (row["measured"], row["ci_low"], row["ci_high"]) == (-0.8, -1.0, 0.4)
    assert row["verdict"] == "ambiguous"
    assert row["detail"] == "fails at this profile's value, holds at grid = b"
    assert row["across"] == "grid = a: -0.9 [-1, 0.2]; grid = b: -0.95 [-1, -0.6]; grid = c: -0.9"
    # the interval rows of a value are its own, not claims rows of their own
    assert not table.attrs["unlisted"]
    # values are listed in the order of their numbers, not of their text
    labels = ["k=100", "k=25", "k=minimal", "k=-1.5", "k=3"]
    assert sorted(labels, key=_natural_key) == ["k=-1.5", "k=3", "k=25", "k=100", "k=minimal"]


def test_a_verdict_that_flips_over_an_unstated_setting_is_ambiguous(tmp_path):
    """A claim measured at other plausible values of a setting the paper leaves open
    (``<id>.across`` rows) is ambiguous where the check's verdict differs among them, and keeps its
    verdict where it does not; every value is shown beside the measured one."""
    path = _claims_file(
        tmp_path,
        [
            {**_claim("p.gap", "<=", 0.02), "cause": _cause("ambiguous", "m", ["p.far"])},
            _claim("p.order", "==", 1),
            {**_claim("p.far", "<=", 0.02), "cause": _cause("refuted", "no m", ["p.gap"])},
        ],
        n_claims=3,
    )
    rows = tidy_rows("claims", "", {"p.gap": 0.041, "p.order": 1.0, "p.far": 0.5})
    for m, gap, order, far in ((4, 0.012, 1.0, 0.3), (8, 0.058, 1.0, 0.7)):
        values = {"p.gap.across": gap, "p.order.across": order, "p.far.across": far}
        rows += tidy_rows("claims", "", values, parameters={"m": m})
    write_results(rows, tmp_path / "res" / "nb.csv")
    out = tmp_path / "report.md"
    table = build_report(
        path, tmp_path / "res", out, profile="t", runs=["nb"], complete=True, require_causes=True
    ).set_index("id")
    assert table.loc["p.gap", "verdict"] == "ambiguous"
    assert table.loc["p.gap", "detail"] == "fails at this profile's value, holds at m = 4"
    assert table.loc["p.gap", "across"] == "m = 4: 0.012; m = 8: 0.058"
    assert table.loc["p.order", "verdict"] == "reproduced"
    assert table.loc["p.far", "verdict"] == "not reproduced"
    text = out.read_text()
    assert "1 ambiguous (of 3 claims)" in text and "1 claims are *ambiguous*" in text
    assert "| 0.041 | ambiguous |" in _row(text, "p.gap")
    assert "- **across the unstated settings**: m = 4: 0.012; m = 8: 0.058" in _details(
        text, "p.gap"
    )
    # an ambiguous claim needs a cause that names the unstated setting, as a miss does
    bare = _claims_file(
        tmp_path, [_claim("p.gap", "<=", 0.02), _claim("p.order", "==", 1), _claim("p.far")], 3
    )
    with pytest.raises(ValueError, match=r"not reproduced or ambiguous .* gives no cause.*p\.gap"):
        build_report(bare, tmp_path / "res", out, profile="t", require_causes=True)
    # across rows of a claim that the claims file lacks are unlisted claims rows
    write_results(
        tidy_rows("claims", "", {"p.new.across": 1.0}, parameters={"m": 4}),
        tmp_path / "res2" / "nb.csv",
    )
    with pytest.raises(ValueError, match=r"claims row 'p\.new' is not a claim of claims\.yaml"):
        build_report(
            _claims_file(tmp_path, [_claim("p.gap")], 1),
            tmp_path / "res2",
            out,
            profile="t",
            runs=["nb"],
            complete=True,
        )


def test_a_claim_marked_unstable_shows_why_beside_any_verdict(tmp_path):
    """A claim whose cause is ``unstable`` shows that cause even where this run reproduces it, and
    the summary names it: the run's verdict on it decides nothing."""
    path = _claims_file(
        tmp_path,
        [
            _claim("p.good"),
            {**_claim("p.edge"), "cause": _cause("unstable", "kernels", ["p.good"])},
        ],
        n_claims=2,
    )
    write_results(
        tidy_rows("claims", "", {"p.good": 2.0, "p.edge": 1.5}), tmp_path / "r" / "nb.csv"
    )
    out = tmp_path / "report.md"
    table = build_report(path, tmp_path / "r", out, profile="t").set_index("id")
    assert list(table["verdict"]) == ["reproduced", "reproduced"]
    text = out.read_text()
    assert "1 claims are marked *unstable* in claims.yaml" in text and "`p.edge`." in text
    assert "**unstable**: kernels" in _details(text, "p.edge")
    assert _row(text, "p.edge").endswith("| reproduced † |")
    assert "**why**" not in _details(text, "p.good")
    assert _row(text, "p.good").endswith("| reproduced |")
