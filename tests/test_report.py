"""Reproduction report: claims validation, verdicts, Markdown rendering, and the real claims.yaml."""

from pathlib import Path

import pytest
import yaml

from ppdp.experiments.common import tidy_rows, write_results
from ppdp.report import Check, build_report, evaluate, load_claims, main

ROOT = Path(__file__).resolve().parents[1]


def _claims_file(tmp_path, entries):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": entries}))
    return path


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
    with pytest.raises(ValueError, match="check must be"):
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
    table = evaluate(claims, tmp_path / "results").set_index("id")
    assert table.loc["p.good", "verdict"] == "reproduced"
    assert table.loc["p.good", "measured"] == 3.0 and table.loc["p.good", "n"] == 2
    assert table.loc["p.bad", "verdict"] == "not reproduced"
    assert table.loc["p.absent", "verdict"] == "not yet run"
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
    assert "1 reproduced, 0 not reproduced, 0 not yet run" in text
    assert "(../../figures/nb/fig1.png)" in text


def test_real_claims_file_is_valid():
    claims = load_claims(ROOT / "claims.yaml")
    assert len({c.id for c in claims}) == len(claims)
    for claim in claims:
        assert claim.id.startswith(f"{claim.paper}."), claim.id
        assert (ROOT / "notebooks" / f"{claim.notebook}.ipynb").exists(), claim.notebook


def test_report_of_nothing_is_all_not_yet_run(tmp_path):
    table = build_report(ROOT / "claims.yaml", tmp_path / "none", tmp_path / "r.md", profile="x")
    assert set(table["verdict"]) == {"not yet run"}


def test_interval_from_the_run_or_a_t_interval(tmp_path):
    from scipy import stats

    claims = load_claims(
        _claims_file(tmp_path, [_claim("p.boot", ">", 0.0), _claim("p.seeds", ">", 0.0)])
    )
    rows = tidy_rows("claims", "", {"p.boot": 1.0, "p.boot.ci_low": 0.2, "p.boot.ci_high": 1.5})
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
    rows = tidy_rows("claims", "", {"p.m": mid, "p.m.ci_low": low, "p.m.ci_high": high})
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
