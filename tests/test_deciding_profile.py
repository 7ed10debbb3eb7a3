"""Deciding profiles (ppdp.report.deciding): a profile that reruns some runs of another with more
seeds is refused unless it differs in nothing else, its report judges its runs' claims and writes
the verdicts it decides, and the decided profile's report shows them beside its own."""

from __future__ import annotations

import copy
import functools
import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from ppdp.compendium.yamlfile import read_yaml
from ppdp.experiments.common import tidy_rows, write_results
from ppdp.experiments.parameter_schema import schema_error
from ppdp.report import (
    DECIDED_COLUMNS,
    apply_decided,
    build_report,
    decided_by_problems,
    decided_verdicts,
    deciding_problems,
    load_claims,
    main,
    profile_digest,
    read_decided_verdicts,
    seeds_to_decide,
    verdicts_path,
)
from ppdp.report.deciding import kernel_comparison_problems
from ppdp.report.provenance import SAME_SOURCES, changed_sources

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = read_yaml(ROOT / "config" / "schema.yaml")


def _config(name: str) -> dict:
    return read_yaml(ROOT / "config" / f"{name}.yaml")


def _claim_runs() -> dict[str, str]:
    return {claim.id: claim.run for claim in load_claims(ROOT / "claims.yaml")}


def test_the_decisive_profile_reruns_the_defaults_runs_with_more_seeds_only():
    decisive, default = _config("decisive"), _config("default")
    assert schema_error(SCHEMA, decisive) is None
    assert deciding_problems(decisive, default, _claim_runs()) == []
    for run, spec in decisive["runs"].items():
        assert spec["parameters"]["n_seeds"] > default["runs"][run]["parameters"]["n_seeds"]


def _kernels(numpy="X86_V3", blas="Haswell", torch="AVX2", cbwr="COMPATIBLE") -> dict:
    """The kernel fields of a provenance record."""
    entry = {"owner": "numpy", "internal_api": "openblas", "version": "0.3.31", "num_threads": 1}
    return {"numpy_simd": numpy, "blas": [{**entry, "kernel": blas}], "torch_cpu": torch,
            "mkl_cbwr": cbwr}  # fmt: skip


def _probe(first: dict, other: dict, calls: list):
    """A kernel probe that gives ``first`` in ``environ`` (the test's own environment) and
    ``other`` in any other, recording each call's thread count."""

    def probe(env, threads=None):
        calls.append(threads)
        return first if env is ENVIRON else other

    return probe


ENVIRON = {"OPENBLAS_CORETYPE": "Haswell", "MKL_CBWR": "COMPATIBLE"}


def test_a_comparison_of_kernels_this_machine_cannot_make_is_refused_before_any_run():
    """On an AVX2 machine without AVX-512 the machine's own kernels are the capped ones for numpy
    and OpenBLAS; only MKL_CBWR differs, which PyTorch alone reads. A deciding profile that reruns
    a HyObscure run there would reproduce its bits, and its report would refuse the comparison
    after the runs: the profile is refused first, naming the run and what to do."""
    decisive = _config("decisive")
    assert decisive["decides"]["compare_kernels"] == ["hyobscure_movielens"]
    calls = []
    avx2 = _probe(_kernels(), _kernels(cbwr="unset"), calls)
    problems = kernel_comparison_problems(decisive, ENVIRON, probe=avx2)
    assert len(problems) == 1 and "runs 'hyobscure_movielens' again" in problems[0]
    assert "numpy X86_V3, openblas Haswell" in problems[0] and "AVX-512" in problems[0]
    assert calls == [2, 2]  # the run's threads, as its job gets them; each setting probed once
    # AVX-512: numpy's loops and OpenBLAS's kernel differ, so the rerun can compute other bits
    avx512 = _probe(_kernels(), _kernels("X86_V3 X86_V4", "SkylakeX", "AVX512", "unset"), [])
    assert kernel_comparison_problems(decisive, ENVIRON, probe=avx512) == []


def test_pytorchs_kernels_count_only_for_the_notebooks_that_import_it():
    spec = {"profile": "p", "decides": {"compare_kernels": ["a", "b"]}}
    runs = {"a": {"notebook": "imposter", "threads": 1}, "b": {"notebook": "mutual_cover"}}
    calls = []
    torch_only = _probe(_kernels(), _kernels(torch="AVX512", cbwr="unset"), calls)
    problems = kernel_comparison_problems({**spec, "runs": runs}, ENVIRON, probe=torch_only)
    assert len(problems) == 1 and "runs 'b' again" in problems[0]
    assert calls == [1, 1]  # both runs on one thread: one probe per setting
    # without compare_kernels nothing is probed
    assert kernel_comparison_problems({"profile": "p", "runs": runs}, probe=None) == []
    assert kernel_comparison_problems(_config("default"), probe=None) == []


def test_only_a_deciding_profile_may_leave_runs_out():
    partial = copy.deepcopy(_config("default"))
    del partial["runs"]["benchmark"]
    error = schema_error(SCHEMA, partial)
    assert error is not None and "benchmark" in error.message
    decisive = copy.deepcopy(_config("decisive"))
    del decisive["decides"]["differs_in"]
    error = schema_error(SCHEMA, decisive)
    assert error is not None and "differs_in" in error.message


def test_a_parameter_outside_differs_in_is_refused():
    decisive, default = copy.deepcopy(_config("decisive")), _config("default")
    decisive["runs"]["hyobscure_foursquare"]["parameters"]["n_draws"] = 5
    problems = deciding_problems(decisive, default, _claim_runs())
    assert len(problems) == 1
    assert "run 'hyobscure_foursquare': parameter n_draws is 5, but 3" in problems[0]
    assert "differs_in (n_seeds) does not name it" in problems[0]
    # a parameter the decided profile does not set is a difference too
    del decisive["runs"]["hyobscure_foursquare"]["parameters"]["n_draws"]
    decisive["runs"]["hyobscure_movielens"]["parameters"].pop("overrides")
    problems = deciding_problems(decisive, default, _claim_runs())
    assert any("parameter n_draws is 'unset'" in p for p in problems)
    assert any("hyobscure_movielens': parameter overrides is 'unset'" in p for p in problems)


def test_a_deciding_profile_must_change_what_it_says_and_run_what_it_decides():
    decisive, default = copy.deepcopy(_config("decisive")), _config("default")
    decisive["decides"]["differs_in"] = ["n_seeds", "n_draws"]
    decisive["decides"]["claims"] += ["relay_chains.no_such_claim"]
    decisive["decides"]["claims"] += [
        next(cid for cid, run in _claim_runs().items() if run == "sppm")
    ]
    decisive["runs"]["hyobscure_movielens"]["notebook"] = "sppm"
    problems = "\n".join(deciding_problems(decisive, default, _claim_runs()))
    assert "differs_in names 'n_draws', but no run sets it to another value" in problems
    assert "no claim 'relay_chains.no_such_claim' in claims.yaml" in problems
    assert "belongs to run 'sppm', which this profile does not run" in problems
    assert "run 'hyobscure_movielens': notebook is 'sppm', but 'hyobscure'" in problems
    # a deciding profile of a deciding profile
    problems = deciding_problems(
        {**decisive, "decides": {**decisive["decides"], "profile": "decisive"}},
        _config("decisive"),
        _claim_runs(),
    )
    assert any("itself a deciding profile" in p for p in problems)


def test_decided_by_names_a_profile_that_decides_it_and_has_verdicts(tmp_path):
    default = {**_config("default"), "decided_by": ["decisive", "smoke"]}
    problems = decided_by_problems(
        default, {"decisive": _config("decisive"), "smoke": _config("smoke")}, tmp_path
    )
    assert any("'smoke', which does not decide it" in p for p in problems)
    assert any(
        "reports/deciding/decisive/verdicts.csv do not exist: run `make reproduce "
        "PROFILE=decisive`" in p
        for p in problems
    )


def test_verdicts_made_from_another_version_of_the_config_are_refused(tmp_path):
    decisive = _config("decisive")
    path = verdicts_path(tmp_path, "decisive")
    path.parent.mkdir(parents=True)
    table = pd.DataFrame(
        {
            "id": decisive["decides"]["claims"],
            "run": "r",
            "measured": 1.0,
            "ci_low": 0.5,
            "ci_high": 1.5,
            "n": 50,
            "verdict": "reproduced",
            "detail": "",
        }
    )
    default = {**_config("default"), "decided_by": ["decisive"]}
    decided_verdicts(table, decisive, commit="abc").to_csv(path, index=False)
    assert decided_by_problems(default, {"decisive": decisive}, tmp_path) == []
    # one parameter more, or one claim fewer, and the committed verdicts are another config's
    changed = copy.deepcopy(decisive)
    changed["runs"]["hyobscure_movielens"]["parameters"]["n_seeds"] = 49
    fewer = {
        **decisive,
        "decides": {**decisive["decides"], "claims": decisive["decides"]["claims"][1:]},
    }
    for config in (changed, fewer):
        problems = decided_by_problems(default, {"decisive": config}, tmp_path)
        assert (
            len(problems) == 1
            and "made from another version of config/decisive.yaml" in (problems[0])
        )


# a deciding profile's report, on results made here: two runs, and a claim of each


def _claims(tmp_path) -> Path:
    entries = [
        {
            "id": f"p.{name}",
            "paper": "p",
            "notebook": run,
            "run": run,
            "where": "Fig. 1",
            "statement": "s",
            "published": 1,
            "check": {"op": ">=", "value": 1.0},
        }
        for name, run in (("a", "one"), ("b", "one"), ("c", "two"))
    ]
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"n_claims": 3, "claims": entries}, sort_keys=False))
    return path


def _results(folder: Path, values: dict[str, list[float]], commit="abc1234567") -> Path:
    for run, ids in (("one", ("p.a", "p.b")), ("two", ("p.c",))):
        rows = [
            row
            for seed, value in enumerate(values[run])
            for cid in ids
            for row in tidy_rows("claims", "", {cid: value}, seed=seed)
        ]
        write_results(rows, folder / f"{run}.csv")
        (folder / "provenance").mkdir(parents=True, exist_ok=True)
        (folder / "provenance" / f"{run}.json").write_text(
            json.dumps({"git": {"commit": commit, "clean": True}})
        )
    return folder


def _deciding(claims: list[str], runs=("one",)) -> dict:
    """The config of a deciding profile of the made-up runs."""
    return {
        "profile": "decisive",
        "decides": {"profile": "default", "claims": claims, "differs_in": ["n_seeds"]},
        "runs": {run: {"notebook": run, "parameters": {"n_seeds": 3}} for run in runs},
    }


def _deciding_report(claims, results, out, decided: list[str], runs=("one",), **options):
    """The report of a deciding profile of the made-up runs that decides ``decided``."""
    return build_report(
        claims,
        results,
        out,
        profile="decisive",
        runs=list(runs),
        decides=_deciding(decided, runs=runs),
        **options,
    )


def test_a_deciding_report_judges_its_runs_and_writes_the_verdicts_it_decides(tmp_path):
    claims = _claims(tmp_path)
    results = _results(tmp_path / "decisive", {"one": [2.0, 3.0, 4.0], "two": [0.0]})
    out = tmp_path / "reports" / "deciding" / "decisive" / "reproduction.md"
    decides = _deciding(["p.a"])
    table = build_report(
        claims, results, out, profile="decisive", runs=["one"], complete=True, decides=decides
    )
    # run "two" is not this profile's: its claim is not judged, or even listed
    assert list(table["id"]) == ["p.a", "p.b"]
    verdicts = read_decided_verdicts(out.parent / "verdicts.csv")
    assert tuple(verdicts.columns) == DECIDED_COLUMNS
    assert verdicts.to_dict("records")[0] | {"ci_low": 0, "ci_high": 0, "config_digest": 0} == {
        "id": "p.a",
        "run": "one",
        "measured": 3.0,
        "ci_low": 0,
        "ci_high": 0,
        "n": 3,
        "verdict": "reproduced",
        "detail": "",
        "profile": "decisive",
        "commit": "abc1234567",
        "config_digest": 0,
    }
    assert verdicts["config_digest"].tolist() == [profile_digest(decides)]
    text = out.read_text()
    assert "*deciding profile* of profile `default`" in text and "`p.a`" in text
    # 2, 3, 4: a t-interval of half-width 2.48 around 3 spans the threshold 1
    details = text.split("#### `p.a`", 1)[1].split("####", 1)[0]
    assert "**still open**: the interval spans the threshold 1; at the measured spread about 5" in (
        details
    )
    assert "still open" not in text.split("#### `p.b`", 1)[1]  # not a claim it decides


def test_a_claim_whose_run_gives_its_interval_over_the_seeds_is_extrapolated_in_seeds(tmp_path):
    # HyObscure writes a claim as one row (seed -1) with a paired bootstrap over its seeds: the
    # seeds the interval rests on are the run's n_seeds, not the one row
    claims = _claims(tmp_path)
    results = _results(tmp_path / "decisive", {"one": [0.0], "two": [0.0]})
    rows = [
        row
        for cid in ("p.a", "p.b")
        for row in tidy_rows("claims", "", {cid: 1.5}, seed=-1, intervals={cid: (0.5, 2.5)})
    ]
    write_results(rows, results / "one.csv")
    out = tmp_path / "deciding" / "reproduction.md"
    decides = _deciding(["p.a"])
    decides["runs"]["one"]["parameters"]["n_seeds"] = 50
    build_report(claims, results, out, profile="decisive", runs=["one"], decides=decides)
    details = out.read_text().split("#### `p.a`", 1)[1].split("####", 1)[0]
    # half-width 1 at distance 0.5 from the threshold 1: 50 * 2**2 seeds
    assert "(n = 1)" in details
    assert "about 200 seeds (now 50) would end it on one side" in details, details


def test_a_deciding_report_that_leaves_a_decided_claim_open_writes_nothing(tmp_path):
    claims = _claims(tmp_path)
    results = _results(tmp_path / "decisive", {"one": [2.0], "two": [0.0]})
    out = tmp_path / "deciding" / "reproduction.md"
    with pytest.raises(ValueError, match=r"decides claims it does not judge: \['p.c'\]"):
        _deciding_report(claims, results, out, ["p.c"])
    assert not out.exists() and not (out.parent / "verdicts.csv").exists()
    # runs of two commits do not make one deciding profile
    (results / "provenance" / "one.json").write_text(
        json.dumps({"git": {"commit": "other", "clean": True}})
    )
    with pytest.raises(ValueError, match="come from one commit"):
        _deciding_report(claims, results, out, ["p.a"], runs=("one", "two"), complete=True)
    assert not out.exists()


def test_a_verdict_that_other_kernels_flip_is_decided_unstable(tmp_path):
    claims = _claims(tmp_path)
    results = _results(tmp_path / "decisive", {"one": [2.0, 3.0, 4.0], "two": [0.0]})
    # the rerun under other kernels: p.a and p.b fall below the threshold 1
    other = _results(tmp_path / "decisive-other-kernels", {"one": [0.5, 0.6], "two": [0.0]})
    (other / "two.csv").unlink()  # only run "one" runs again
    out = tmp_path / "deciding" / "reproduction.md"
    _deciding_report(claims, results, out, ["p.a"], complete=True, compare=other)
    verdicts = read_decided_verdicts(out.parent / "verdicts.csv")
    assert verdicts["verdict"].tolist() == ["unstable"]
    assert "reproduced here, not reproduced in" in verdicts["detail"].iloc[0]


def test_a_comparison_whose_verdicts_agree_says_so(tmp_path):
    """Runs again under other kernels that move values but no verdict: the report says how many
    claims it compared, and marks none unstable."""
    claims = _claims(tmp_path)
    results = _results(tmp_path / "decisive", {"one": [2.0, 3.0, 4.0], "two": [0.0]})
    other = _results(tmp_path / "decisive-other-kernels", {"one": [2.5, 3.5], "two": [0.0]})
    (other / "two.csv").unlink()
    out = tmp_path / "deciding" / "reproduction.md"
    _deciding_report(claims, results, out, ["p.a"], complete=True, compare=other)
    assert read_decided_verdicts(out.parent / "verdicts.csv")["verdict"].tolist() == ["reproduced"]
    text = out.read_text()
    assert f"Runs again under other CPU kernels (`{other}`)" in text
    assert "claims judged in both gets the same verdict" in text and "*unstable*:" not in text


def _complete_build(claims, results, out, decides, **options):
    """The pipeline's build of a deciding report of run "one" (``complete``), to call later."""
    return functools.partial(
        build_report,
        claims,
        results,
        out,
        profile="decisive",
        runs=["one"],
        complete=True,
        decides=decides,
        **options,
    )


#: The kernel fields of a run's provenance on an AVX2 machine under the caps.
AVX2_CAPPED = {
    "numpy_simd": "X86_V3",
    "blas": [{"owner": "numpy", "internal_api": "openblas", "kernel": "Haswell", "num_threads": 2}],
    "torch_cpu": "AVX2",
    "mkl_cbwr": "COMPATIBLE",
}


def _record_kernels(folder: Path, run: str, **fields) -> None:
    path = folder / "provenance" / f"{run}.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **AVX2_CAPPED, **fields}))


@pytest.mark.parametrize(
    ("notebook", "other", "refused"),
    [
        # an AVX2 machine's own kernels: only MKL_CBWR differs, which a notebook without PyTorch
        # never reads
        ("one", {"mkl_cbwr": "unset"}, True),
        ("imposter", {"mkl_cbwr": "unset"}, False),
        ("one", {}, True),
        # an AVX-512 machine's own kernels
        ("one", {"numpy_simd": "X86_V4", "torch_cpu": "AVX512"}, False),
        ("one", {"blas": [{**AVX2_CAPPED["blas"][0], "kernel": "SkylakeX"}]}, False),
    ],
)
def test_a_kernel_comparison_that_compares_nothing_is_refused(tmp_path, notebook, other, refused):
    claims = _claims(tmp_path)
    results = _results(tmp_path / "decisive", {"one": [2.0, 3.0, 4.0], "two": [0.0]})
    again = _results(tmp_path / "decisive-other-kernels", {"one": [2.0, 3.0, 4.0], "two": [0.0]})
    (again / "two.csv").unlink()
    _record_kernels(results, "one")
    _record_kernels(again, "one", **other)
    decides = _deciding(["p.a"])
    decides["runs"]["one"]["notebook"] = notebook
    out = tmp_path / "deciding" / "reproduction.md"
    build = _complete_build(claims, results, out, decides, compare=again)
    if not refused:
        build()
        assert read_decided_verdicts(out.parent / "verdicts.csv")["verdict"].tolist() == [
            "reproduced"
        ]
        return
    with pytest.raises(
        ValueError, match=r"run one computed with the same kernels .* tests nothing"
    ):
        build()
    assert not out.exists() and not (out.parent / "verdicts.csv").exists()


def test_the_decided_report_shows_the_deciding_verdict_beside_its_own(tmp_path):
    claims = _claims(tmp_path)
    deciding = _results(tmp_path / "decisive", {"one": [0.5, 0.6, 0.7, 0.8], "two": [0.0]})
    verdicts_out = tmp_path / "reports" / "deciding" / "decisive" / "reproduction.md"
    build_report(
        claims, deciding, verdicts_out, profile="decisive", runs=["one"], decides=_deciding(["p.a"])
    )
    own = _results(tmp_path / "default", {"one": [1.5, 2.5], "two": [3.0]}, commit="def")
    out = tmp_path / "reports" / "default" / "reproduction.md"
    assert (
        main(
            [
                "--claims",
                str(claims),
                "--results",
                str(own),
                "--output",
                str(out),
                "--profile",
                "default",
                "--runs",
                "one",
                "two",
                "--complete",
                "--decided-by",
                str(verdicts_out.parent / "verdicts.csv"),
            ]
        )
        == 0
    )
    text = out.read_text()
    # the deciding verdict counts; the profile's own is in the details
    assert "Summary: 2 reproduced, 1 not reproduced" in text
    row = next(line for line in text.splitlines() if line.startswith("| [`p.a`]"))
    assert "0.65" in row and "not reproduced ‡" in row
    details = text.split("#### `p.a`", 1)[1].split("####", 1)[0]
    assert "**decided by**: profile decisive (abc1234567)" in details
    assert "this profile's own: 2 [" in details and "(n = 2), reproduced" in details
    assert "1 of them have another verdict here" in text


def test_apply_decided_refuses_claims_it_does_not_hold_and_double_decisions():
    table = pd.DataFrame(
        {
            "id": ["p.a"],
            "measured": [1.0],
            "ci_low": [0.5],
            "ci_high": [1.5],
            "n": [2],
            "verdict": ["reproduced"],
            "detail": [""],
        }
    )
    values = ["p.a", "one", 0.0, 0, 0, 5, "x", "", "d", "c", "f"]
    row = dict(zip(DECIDED_COLUMNS, values, strict=True))
    with pytest.raises(ValueError, match="does not hold"):
        apply_decided(table, pd.DataFrame([{**row, "id": "p.z"}]))
    with pytest.raises(ValueError, match="decided by two"):
        apply_decided(table, pd.DataFrame([row, row]))


def test_a_damaged_verdicts_file_is_refused(tmp_path):
    path = tmp_path / "verdicts.csv"
    path.write_text("id,verdict\np.a,reproduced\n")
    with pytest.raises(ValueError, match="columns"):
        read_decided_verdicts(path)
    row = ["p.a", "one", "1", "0", "2", "3", "not yet run", "", "d", "c", "f"]
    path.write_text(",".join(DECIDED_COLUMNS) + "\n" + ",".join(row) + "\n")
    with pytest.raises(ValueError, match=r"without a deciding verdict: \['p.a'\]"):
        read_decided_verdicts(path)


def test_verdicts_live_in_the_deciding_profiles_report_folder():
    assert verdicts_path("/x", "decisive") == Path("/x/reports/deciding/decisive/verdicts.csv")


def test_seeds_to_decide_follow_the_square_root_law():
    # half-width 2 at 10 seeds, 1 from the threshold: 2 / sqrt(n / 10) = 1 at n = 40
    assert seeds_to_decide(0.0, 1.0, -1.0, 3.0, 10) == 40
    # the arm towards the threshold: ceil(4 * (0.6 / 0.5)**2) = ceil(5.76)
    assert seeds_to_decide(0.0, -0.5, -1.0, 0.1, 4) == 6
    # an asymmetric interval whose short arm just crosses: more seeds than now, never fewer
    assert seeds_to_decide(50.0, 74.69, 48.71, 95.42, 20) == 23
    assert seeds_to_decide(50.0, 74.69, 49.99, 75.0, 20) == 21
    assert seeds_to_decide(0.0, 1.0, 0.5, 1.5, 10) is None  # decided: the interval is above 0
    assert seeds_to_decide(0.0, 0.0, -1.0, 1.0, 10) is None  # the mean on the threshold
    assert seeds_to_decide(0.0, 1.0, float("nan"), 3.0, 10) is None


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


def test_changed_sources_are_what_decides_a_runs_results(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    config = {"profile": "p", "runs": {"one": {"notebook": "one", "parameters": {"n_seeds": 3}}}}
    first = _commit(
        repo,
        {
            "lib/ppdp/mech.py": "x = 1\n",
            "lib/ppdp/report/render.py": "y = 1\n",
            "claims.yaml": "a\n",
            "config/p.yaml": yaml.safe_dump(config),
        },
        "runs",
    )
    # the claims, the report's code, the profile's other keys and a run's scheduling hints say
    # nothing about a run's results
    hinted = {"profile": "p", "runs": {"one": {**config["runs"]["one"], "cpu_minutes": 9.5}}}
    _commit(
        repo,
        {
            "lib/ppdp/report/render.py": "y = 2\n",
            "claims.yaml": "b\n",
            "config/p.yaml": yaml.safe_dump({**hinted, "decided_by": ["q"]}),
        },
        "report",
    )
    assert changed_sources(repo, first, profile="p", runs=["one"]) == []
    # an uncommitted edit of the library counts; so does a run's parameter
    (repo / "lib" / "ppdp" / "mech.py").write_text("x = 2\n")
    assert changed_sources(repo, first, profile="p", runs=["one"]) == ["lib/ppdp/mech.py"]
    _git(repo, "checkout", "-q", "--", "lib/ppdp/mech.py")
    config["runs"]["one"]["parameters"]["n_seeds"] = 5
    (repo / "config" / "p.yaml").write_text(yaml.safe_dump(config))
    assert changed_sources(repo, first, profile="p", runs=["one"]) == ["config/p.yaml (run one)"]
    assert changed_sources(repo, "0" * 40, profile="p", runs=["one"]) is None
    assert changed_sources(repo, first, profile="nosuch", runs=["one"]) is None


def test_a_deciding_report_may_judge_runs_of_an_earlier_commit_with_the_same_sources(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    decides = _deciding(["p.a"])
    claims = _claims(repo)
    first = _commit(
        repo,
        {"lib/ppdp/mech.py": "x = 1\n", "config/decisive.yaml": yaml.safe_dump(decides)},
        "runs",
    )
    results = _results(tmp_path / "results", {"one": [2.0, 3.0, 4.0], "two": [0.0]}, commit=first)
    for run in ("one", "two"):
        path = results / "provenance" / f"{run}.json"
        record = json.loads(path.read_text())
        path.write_text(json.dumps({**record, "python": "3.12", **AVX2_CAPPED}))
    _commit(repo, {"claims.yaml": claims.read_text() + "\n"}, "causes rewritten")
    out = repo / "reports" / "deciding" / "decisive" / "reproduction.md"
    build = _complete_build(claims, results, out, decides)
    build()
    row = [line for line in out.read_text().splitlines() if line.startswith("| git commit |")]
    assert row == [
        f"| git commit | {first[:10]} | {_git(repo, 'rev-parse', 'HEAD')[:10]}; {SAME_SOURCES} |"
    ], row
    # once the library changes, the runs are no longer this tree's
    _commit(repo, {"lib/ppdp/mech.py": "x = 2\n"}, "library")
    out.unlink()
    with pytest.raises(ValueError, match=r"changed what they compute since \(lib/ppdp/mech.py\)"):
        build()
    assert not out.exists()
