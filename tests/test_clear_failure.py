"""Configuration mistakes get one line that says what is wrong, not a library's traceback."""

from __future__ import annotations

import pytest

from ppdp.compendium.yamlfile import read_yaml
from ppdp.datasets.fetch import data_dir

BROKEN = "claims:\n  - id: a\n    value: [1, 2\n  - id: b\n"


def test_a_yaml_syntax_error_names_the_file_line_and_column(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text(BROKEN)
    with pytest.raises(ValueError) as info:
        read_yaml(path)
    message = str(info.value)
    assert message.startswith(f"{path}:4:7: YAML syntax error:"), message
    assert "\n" not in message
    assert info.value.__suppress_context__  # PyYAML's traceback is not chained


def test_the_report_and_the_benchmark_read_yaml_through_it(tmp_path):
    from ppdp import report
    from ppdp.experiments.benchmark.data import load_roles

    path = tmp_path / "claims.yaml"
    path.write_text(BROKEN)
    with pytest.raises(ValueError, match=r"claims\.yaml:4:7: YAML syntax error"):
        report.load_claims(path)
    roles = tmp_path / "roles.yaml"
    roles.write_text(BROKEN)
    with pytest.raises(ValueError, match=r"roles\.yaml:4:7: YAML syntax error"):
        load_roles(roles)


def test_a_data_dir_that_is_a_file_is_named(tmp_path, monkeypatch):
    file = tmp_path / "data.txt"
    file.write_text("not a directory")
    monkeypatch.setenv("PPDP_DATA_DIR", str(file))
    with pytest.raises(ValueError, match=r"PPDP_DATA_DIR names a file, .*data\.txt"):
        data_dir()
    monkeypatch.setenv("PPDP_DATA_DIR", str(tmp_path / "fresh"))
    assert data_dir() == (tmp_path / "fresh").resolve()


def test_infeasible_settings_raise_infeasible_error_which_callers_catch_by_type():
    """Group bounds no partition meets are an InfeasibleError (a ValueError): the experiments
    record them as a result by its type, without reading the message."""
    import numpy as np

    from ppdp.base import InfeasibleError
    from ppdp.mechanisms import hyobscure as hy

    rng = np.random.default_rng(0)
    y = rng.integers(20, 30, 100)
    domain = hy.private_domain(y)
    with pytest.raises(InfeasibleError, match="n_groups=9 exceeds"):
        hy.initial_generalization(y, domain, 9, 20, 60, 1, 10, rng)
    assert issubclass(InfeasibleError, ValueError)


def test_a_bad_notebook_parameter_is_one_line_in_a_kernel(capsys):
    """IPython (the notebooks' kernel) renders the parameter error as its message alone."""
    from IPython.core.interactiveshell import InteractiveShell

    from ppdp.experiments.common import Param, ParameterValueError, check_parameters

    with pytest.raises(ParameterValueError, match=r"parameter n_rows=-1 is not allowed"):
        check_parameters({"n_rows": -1}, {"n_rows": Param("int", low=1)})
    shell = InteractiveShell.instance()
    try:
        result = shell.run_cell(
            "from ppdp.experiments.common import Param, check_parameters\n"
            "check_parameters({'n_rows': -1}, {'n_rows': Param('int', low=1)})\n"
        )
    finally:
        InteractiveShell.clear_instance()
    assert isinstance(result.error_in_exec, ValueError)
    shown = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert shown == [
        "ParameterValueError: parameter n_rows=-1 is not allowed: expected an integer >= 1"
    ], shown
