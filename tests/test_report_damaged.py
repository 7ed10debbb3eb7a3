"""Damaged or incomplete results never become verdicts: the report refuses them, naming the file,
the row's line and the claim, or (outside the pipeline's mode) says in its exit status that it
left claims unjudged.

Every test starts from a small valid results file and damages it as a file can be damaged: a
value lost or overflowed, a row repeated, an interval written the wrong way round, rows cut off,
another run's file copied in, a label misspelt.
"""

import math
import shutil

import pandas as pd
import pytest
import yaml

from ppdp.experiments.common import tidy_rows, write_results
from ppdp.report import build_report, evaluate, load_claims, main, render

#: The pipeline's mode and the plain one.
MODES = {"complete": ["--complete"], "plain": []}


def _claim(cid, op, value, run="nb", across=None):
    entry = {
        "id": cid,
        "paper": "p",
        "notebook": run,
        "where": "Fig. 1",
        "statement": "s",
        "published": value,
        "check": {"op": op, "value": value},
    }
    return {**entry, "across": across} if across else entry


def _claims(tmp_path, entries):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"n_claims": len(entries), "claims": entries}, sort_keys=False))
    return path


def _valid(tmp_path, across=False, flip=False):
    """``claims.yaml`` and ``results/nb.csv``: ``p.a`` (>= 1) over three seeds, ``p.b`` (<= 5)
    with nothing random (seed -1) and, with ``across``, ``p.a``'s values at two other values of
    its unstated setting ``k`` (one of which fails the check when ``flip``)."""
    path = _claims(
        tmp_path,
        [_claim("p.a", ">=", 1.0, across=["k"] if across else None), _claim("p.b", "<=", 5.0)],
    )
    rows = []
    for seed, value in enumerate([2.0, 3.0, 4.0]):
        rows += tidy_rows("claims", "", {"p.a": value}, seed=seed)
    rows += tidy_rows("claims", "", {"p.b": 2.0})
    if across:
        for k, value in {1: 0.5 if flip else 2.5, 2: 3.0}.items():
            rows += tidy_rows("claims", "", {"p.a.across": value}, parameters={"k": k})
    csv = tmp_path / "results" / "nb.csv"
    write_results(rows, csv)
    return path, csv


def _edit(csv, change):
    """Rewrite ``csv`` as ``change`` returns its rows (read as text, so nothing is reparsed)."""
    frame = pd.read_csv(csv, dtype=str, keep_default_na=False)
    change(frame).to_csv(csv, index=False)


def _line(csv, metric, seed=None):
    """The line of ``csv`` (1 is the header) that holds ``metric`` (at ``seed``)."""
    frame = pd.read_csv(csv, dtype=str, keep_default_na=False)
    hit = frame["metric"] == metric
    if seed is not None:
        hit &= frame["seed"] == str(seed)
    return int(frame.index[hit][0]) + 2


def _report(capsys, path, csv, *extra, runs=("nb",)):
    """Run the CLI; its exit status, stderr and the report's path."""
    out = path.parent / "reproduction.md"
    args = ["--claims", str(path), "--results", str(csv.parent), "--output", str(out)]
    code = main([*args, "--profile", "t", "--runs", *runs, *extra])
    return code, capsys.readouterr().err, out


def _set(frame, metric, column, value, seed=None):
    hit = frame["metric"] == metric
    if seed is not None:
        hit &= frame["seed"] == str(seed)
    frame.loc[hit, column] = value
    return frame


def test_valid_results_are_judged_in_both_modes(tmp_path, capsys):
    path, csv = _valid(tmp_path)
    for extra in MODES.values():
        code, err, _ = _report(capsys, path, csv, *extra)
        assert code == 0, err
        assert "2 reproduced, 0 not reproduced, 0 not measured" in err
    table = evaluate(load_claims(path), csv.parent).set_index("id")
    assert table.loc["p.a", "n"] == 3 and table.loc["p.a", "measured"] == 3.0


@pytest.mark.parametrize("mode", MODES)
def test_a_nan_claim_value_is_an_error(tmp_path, capsys, mode):
    path, csv = _valid(tmp_path)
    _edit(csv, lambda f: _set(f, "p.a", "value", "nan", seed=1))
    code, err, out = _report(capsys, path, csv, *MODES[mode])
    assert code == 1
    assert f"{csv}:{_line(csv, 'p.a', 1)}: claim 'p.a': value is nan" in err
    assert not out.exists()


@pytest.mark.parametrize("mode", MODES)
def test_an_extra_seed_row_without_a_value_is_an_error(tmp_path, capsys, mode):
    path, csv = _valid(tmp_path)

    def add_seed(frame):
        extra = frame[frame["metric"] == "p.a"].iloc[[0]].assign(seed="3", value="")
        return pd.concat([frame, extra], ignore_index=True)

    _edit(csv, add_seed)
    code, err, _ = _report(capsys, path, csv, *MODES[mode])
    assert code == 1
    assert f"{csv}:{_line(csv, 'p.a', 3)}: claim 'p.a': value is nan" in err


def test_a_claim_row_without_a_seed_is_an_error(tmp_path, capsys):
    path, csv = _valid(tmp_path)
    _edit(csv, lambda f: _set(f, "p.a", "seed", "", seed=2))
    code, err, _ = _report(capsys, path, csv)
    assert code == 1
    line = _line(csv, "p.a", "")
    assert f"{csv}:{line}: claim 'p.a': its row has no seed" in err


@pytest.mark.parametrize("mode", MODES)
def test_tripled_rows_are_one_seed_not_three(tmp_path, capsys, mode):
    path, csv = _valid(tmp_path)

    def triple(frame):
        row = frame[frame["metric"] == "p.b"]
        return pd.concat([frame, row, row], ignore_index=True)

    _edit(csv, triple)
    code, err, out = _report(capsys, path, csv, *MODES[mode])
    assert code == 1
    frame = pd.read_csv(csv, dtype=str)
    lines = ", ".join(str(i + 2) for i in frame.index[frame["metric"] == "p.b"])
    assert f"{csv}:{lines.split(',')[0]}: claim 'p.b': lines {lines} are the same row (seed -1" in (
        err
    )
    assert not out.exists()


def test_a_repeated_seed_is_an_error(tmp_path):
    path, csv = _valid(tmp_path)
    _edit(csv, lambda f: _set(f, "p.a", "seed", "0", seed=2))
    with pytest.raises(ValueError, match=r"claim 'p\.a': lines \d+, \d+ are the same row \(seed 0"):
        evaluate(load_claims(path), csv.parent)


def test_the_across_rows_make_a_claim_ambiguous(tmp_path, capsys):
    path, csv = _valid(tmp_path, across=True, flip=True)
    code, err, _ = _report(capsys, path, csv, "--complete")
    assert code == 0, err
    table = evaluate(load_claims(path), csv.parent).set_index("id")
    assert table.loc["p.a", "verdict"] == "ambiguous"


@pytest.mark.parametrize("mode", MODES)
def test_deleted_across_rows_do_not_make_an_ambiguous_claim_reproduced(tmp_path, capsys, mode):
    path, csv = _valid(tmp_path, across=True, flip=True)
    _edit(csv, lambda f: f[f["metric"] != "p.a.across"])
    code, err, out = _report(capsys, path, csv, *MODES[mode])
    line = f"{csv}: claim 'p.a': no 'p.a.across' rows, though claims.yaml declares its unstated"
    assert line in err
    if mode == "complete":
        assert code == 1 and not out.exists()
    else:
        assert code == 3
        assert "1 of 2 claims not judged" in err
        table = evaluate(load_claims(path), csv.parent).set_index("id")
        assert table.loc["p.a", "verdict"] == "not measured"
        assert (
            "- **verdict**: not measured (no values at the other values of its unstated settings "
            "(k))\n" in out.read_text()
        )


def test_an_across_row_without_its_declared_setting_is_an_error(tmp_path):
    path, csv = _valid(tmp_path, across=True)
    _edit(csv, lambda f: f.rename(columns={"k": "kk"}))
    with pytest.raises(ValueError, match=r"\(p\.a\.across row\): sets none of its declared"):
        evaluate(load_claims(path), csv.parent)


@pytest.mark.parametrize("mode", MODES)
def test_an_inverted_interval_is_an_error(tmp_path, capsys, mode):
    path, csv = _valid(tmp_path)
    _edit(csv, lambda f: _set(_set(f, "p.b", "ci_low", "1.5"), "p.b", "ci_high", "-0.5"))
    code, err, out = _report(capsys, path, csv, *MODES[mode])
    assert code == 1
    line = _line(csv, "p.b")
    assert f"{csv}:{line}: claim 'p.b': interval inverted, ci_low 1.5 > ci_high -0.5" in err
    assert not out.exists()


def test_an_interval_with_one_end_is_an_error(tmp_path):
    path, csv = _valid(tmp_path)
    _edit(csv, lambda f: _set(f, "p.b", "ci_low", "1.5"))
    with pytest.raises(ValueError, match=r"claim 'p\.b': interval \[1\.5, nan\] has one end"):
        evaluate(load_claims(path), csv.parent)


@pytest.mark.parametrize(("column", "text"), [("value", "inf"), ("value", "-inf")])
def test_an_infinite_value_names_its_claim_and_file(tmp_path, capsys, column, text):
    path, csv = _valid(tmp_path)
    _edit(csv, lambda f: _set(f, "p.b", column, text))
    code, err, _ = _report(capsys, path, csv)
    assert code == 1
    assert f"{csv}:{_line(csv, 'p.b')}: claim 'p.b': value is {text}" in err


def test_an_infinite_interval_end_is_an_error(tmp_path, capsys):
    path, csv = _valid(tmp_path)
    _edit(csv, lambda f: _set(_set(f, "p.b", "ci_low", "-inf"), "p.b", "ci_high", "3"))
    code, err, _ = _report(capsys, path, csv, "--complete")
    assert code == 1
    assert (
        f"{csv}:{_line(csv, 'p.b')}: claim 'p.b': interval [-inf, 3.0] has an infinite end" in err
    )


def test_the_report_never_prints_a_malformed_interval(tmp_path):
    path, csv = _valid(tmp_path)
    claims = load_claims(path)
    table = evaluate(claims, csv.parent)
    # a table handed to render directly, past evaluate's checks
    table.loc[table["id"] == "p.b", ["ci_low", "ci_high"]] = [1.5, -0.5]
    table.loc[table["id"] == "p.a", ["measured", "ci_low", "ci_high"]] = [math.inf, 0.0, math.inf]
    text = render(claims, table, profile="t")
    assert "[1.5, -0.5]" not in text
    assert "| inf |" in text


@pytest.mark.parametrize("mode", MODES)
def test_missing_claim_rows(tmp_path, capsys, mode):
    path, csv = _valid(tmp_path)
    _edit(csv, lambda f: f[f["metric"] != "p.b"])
    code, err, out = _report(capsys, path, csv, *MODES[mode])
    assert f"{csv}: claim 'p.b': no row (experiment 'claims', metric 'p.b')" in err
    if mode == "complete":
        assert code == 1 and not out.exists()
    else:
        assert code == 3 and out.exists()
        assert "1 of 2 claims not judged (not measured or not yet run): exit status 3" in err


def test_a_results_file_cut_in_half(tmp_path, capsys):
    path, csv = _valid(tmp_path)
    lines = csv.read_text().splitlines(keepends=True)
    csv.write_text("".join(lines[: len(lines) // 2]))  # the header and p.b's row
    code, err, out = _report(capsys, path, csv)
    assert code == 3 and out.exists()
    assert f"{csv}: claim 'p.a': no row" in err
    assert "1 of 2 claims not judged" in err


@pytest.mark.parametrize("mode", MODES)
def test_a_results_file_holding_only_its_header(tmp_path, capsys, mode):
    path, csv = _valid(tmp_path)
    csv.write_text(csv.read_text().splitlines(keepends=True)[0])
    code, err, _ = _report(capsys, path, csv, *MODES[mode])
    for cid in ("p.a", "p.b"):
        assert f"{csv}: claim '{cid}': no row" in err
    assert code == (1 if mode == "complete" else 3)


def _two_runs(tmp_path):
    path, csv = _valid(tmp_path)
    entries = yaml.safe_load(path.read_text())["claims"] + [_claim("p.c", ">", 0.0, run="other")]
    path = _claims(tmp_path, entries)
    write_results(tidy_rows("claims", "", {"p.c": 1.0}), csv.parent / "other.csv")
    return path, csv


@pytest.mark.parametrize("mode", MODES)
def test_another_runs_file_under_this_runs_name(tmp_path, capsys, mode):
    path, csv = _two_runs(tmp_path)
    shutil.copy(csv.parent / "other.csv", csv)
    code, err, out = _report(capsys, path, csv, *MODES[mode], runs=("nb", "other"))
    assert code == 1 and not out.exists()
    line = _line(csv, "p.c")
    assert f"{csv}:{line}: claim 'p.c' is a claim of run 'other', not of 'nb'" in err


@pytest.mark.parametrize("mode", MODES)
def test_a_misspelt_experiment_label(tmp_path, capsys, mode):
    path, csv = _valid(tmp_path)
    _edit(csv, lambda f: _set(f, "p.b", "experiment", "claim"))
    code, err, out = _report(capsys, path, csv, *MODES[mode])
    assert code == 1 and not out.exists()
    assert f"{csv}:{_line(csv, 'p.b')}: claim 'p.b': its row has experiment 'claim', not" in err


@pytest.mark.parametrize("mode", MODES)
def test_a_misspelt_claim_id(tmp_path, capsys, mode):
    path, csv = _valid(tmp_path)
    _edit(csv, lambda f: _set(f, "p.b", "metric", "p.bb"))
    code, err, _ = _report(capsys, path, csv, *MODES[mode])
    line = _line(csv, "p.bb")
    assert (
        f"{csv}:{line}: claims row 'p.bb' is not a claim of claims.yaml (did you mean 'p.b'?)"
        in (err)
    )
    assert code == (1 if mode == "complete" else 3)


def test_every_problem_is_listed_at_once(tmp_path):
    from ppdp.report import ResultsError

    path, csv = _two_runs(tmp_path)
    _edit(csv, lambda f: _set(f, "p.a", "value", "nan", seed=0))
    _edit(csv.parent / "other.csv", lambda f: pd.concat([f, f], ignore_index=True))
    with pytest.raises(ResultsError) as caught:
        build_report(path, csv.parent, tmp_path / "r.md", profile="t", complete=True)
    problems = caught.value.problems
    assert isinstance(caught.value, ValueError)
    assert len(problems) == 2
    assert problems[0].startswith(f"{csv}:{_line(csv, 'p.a', 0)}: claim 'p.a': value is nan")
    assert problems[1].startswith(f"{csv.parent / 'other.csv'}:2: claim 'p.c': lines 2, 3")
    assert str(caught.value).splitlines()[1:] == problems


def test_the_help_documents_the_exit_statuses(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["--help"])
    assert caught.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0: the report is written and judges every claim; 1: no report" in text
    assert "3: without --complete, the report is written but leaves claims unjudged" in text
