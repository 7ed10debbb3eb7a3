"""The checks a profile (``config/<profile>.yaml``) passes before the pipeline runs anything.

The Snakefile calls :func:`check_profile` on the profile it was given, before it builds a job: a
profile that fails stops the dry run with one message naming the file, the run and the key. The
checks, in order:

1. the file itself: a key given twice (:func:`~ppdp.compendium.yamlfile.read_yaml`);
2. the profile's shape against ``config/schema.yaml`` (required keys, known runs and notebooks,
   types, no NaN);
3. a deciding profile (``decides``) against the profile it decides and the claims
   (:func:`~ppdp.report.deciding.deciding_problems`), its comparison across kernels against this
   machine (:func:`~ppdp.report.deciding.kernel_comparison_problems`), and the deciding profiles
   a profile reads (``decided_by``, :func:`~ppdp.report.deciding.decided_by_problems`);
4. each run's parameters: only names its notebook's ``parameters`` cell assigns, minus those the
   pipeline sets (:data:`INJECTED`), and values the notebook's own checks accept (the rules of
   ``config/parameters.schema.json``).

What depends on the command line (one ``--configfile``) or on the machine's data files stays
in the Snakefile.
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..compendium.yamlfile import read_yaml
from ..experiments.parameter_schema import schema_error
from .claims import load_claims
from .costs import parameters_cell
from .deciding import decided_by_problems, deciding_problems, kernel_comparison_problems

__all__ = ["INJECTED", "check_profile", "notebook_parameters"]

#: The notebook parameters the pipeline sets for every run, never a profile.
INJECTED = ("profile", "results_csv", "figures_dir")


def notebook_parameters(root: str | os.PathLike, notebook: str) -> set[str]:
    """The names the notebook's ``parameters`` cell assigns: the parameters papermill may set.

    Raises
    ------
    ValueError
        If ``notebooks/<notebook>.ipynb`` has no ``parameters`` cell or more than one.
    """
    names = set()
    for node in parameters_cell(notebook, Path(root) / "notebooks"):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def check_profile(
    path: str | os.PathLike, config: Mapping[str, Any], root: str | os.PathLike
) -> None:
    """Refuse the profile ``config`` read from ``path`` unless it passes every check above.

    Parameters
    ----------
    path : path-like
        The profile's file (``--configfile``).
    config : mapping
        The profile as Snakemake read it.
    root : path-like
        The project's folder (``config/``, ``notebooks/``, ``claims.yaml``).

    Raises
    ------
    ValueError
        Naming the file, the run and the key of the first check that fails (every problem of the
        deciding checks at once).
    """
    root = Path(root)
    read_yaml(path)
    error = schema_error(read_yaml(root / "config" / "schema.yaml"), config)
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "top level"
        raise ValueError(f"config profile {path}: {where}: {error.message}")
    profile = config["profile"]
    read: dict[str, Any] = {}

    def other_profile(name: str, why: str) -> Any:
        file = root / "config" / f"{name}.yaml"
        if not file.exists():
            raise ValueError(
                f"config profile {profile!r}: {why} {name!r}, but {file.name} does not exist"
            )
        if name not in read:
            read[name] = read_yaml(file)
        return read[name]

    decides = config.get("decides")
    if decides is not None:
        decided = other_profile(decides["profile"], "decides.profile names")
        claim_runs = {claim.id: claim.run for claim in load_claims(root / "claims.yaml")}
        problems = deciding_problems(config, decided, claim_runs)
        if problems:
            raise ValueError("\n".join(problems))
        # a comparison across kernels that this machine cannot make: refused now, not by the
        # report after the runs (it probes the kernels, about two seconds per setting)
        problems = kernel_comparison_problems(config)
        if problems:
            raise ValueError("\n".join(problems))
    deciding = {
        name: other_profile(name, "decided_by names") for name in config.get("decided_by", [])
    }
    problems = decided_by_problems(config, deciding, root)
    if problems:
        raise ValueError("\n".join(problems))
    rules = json.loads((root / "config" / "parameters.schema.json").read_text())["$defs"]
    for name, run in config["runs"].items():
        allowed = notebook_parameters(root, run["notebook"]) - set(INJECTED)
        if "threads" in run:
            allowed.discard("n_jobs")
        unknown = sorted(set(run.get("parameters", {})) - allowed)
        if unknown:
            raise ValueError(
                f"config profile {profile!r}, run {name!r}: unknown parameters {unknown} for "
                f"notebooks/{run['notebook']}.ipynb; its parameters are {sorted(allowed)}"
            )
        # the values, against the rules the notebook itself checks (PARAMETERS of its experiment
        # module, written out as config/parameters.schema.json): a bad value stops the run here
        error = schema_error(rules[run["notebook"]], run.get("parameters", {}))
        if error is not None:
            where = ".".join(str(p) for p in error.absolute_path) or "parameters"
            raise ValueError(
                f"config profile {profile!r}, run {name!r}: parameter {where}: {error.message}"
            )
