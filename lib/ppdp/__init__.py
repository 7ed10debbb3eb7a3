"""Privacy-preserving data publishing: five papers in one library.

The public surface is this package's ``__all__``: every mechanism, its supporting types, the
attack suites and utility measures, and the contract, importable by name::

    from ppdp import Mondrian, MutualCover, guarantee_report

    released = MutualCover(qi=["age", "zip"], sensitive="disease", delta=0.5, l=2).fit(df).release(0)

The names resolve on first use (PEP 562): ``import ppdp`` stays light, and a mechanism that needs
PyTorch (:class:`Imposter`) loads it only when it is asked for. The API reference documents every
name here, and ``tests/test_public_surface.py`` checks that the two agree. The library logs its
long steps through :mod:`logging` under the logger ``"ppdp"`` and its children, silent unless the
application configures them (``logging.getLogger("ppdp").setLevel(logging.INFO)`` and a handler).
"""

import importlib
import logging

# the one place for the version: pyproject.toml reads it, tests compare CITATION.cff and CHANGELOG.md
__version__ = "0.1.0"

# a library is silent until its user configures logging (the logging HOWTO's rule for libraries)
logging.getLogger(__name__).addHandler(logging.NullHandler())

#: Public name -> the module that defines it.
_SURFACE = {
    # the protocol, its contract and the guarantees every release is checked against
    "Mechanism": "ppdp.base",
    "ArrayMechanism": "ppdp.base",
    "InfeasibleError": "ppdp.base",
    "NotFittedError": "ppdp.base",
    "ReleaseLedger": "ppdp.base",
    "RepeatedReleaseWarning": "ppdp.base",
    "check_random_state": "ppdp.base",
    "MechanismCase": "ppdp.contract",
    "ArrayCase": "ppdp.contract",
    "contract_checks": "ppdp.contract",
    "array_contract_checks": "ppdp.contract",
    "GuaranteeCheck": "ppdp.guarantees",
    "GuaranteeViolation": "ppdp.guarantees",
    "enforce": "ppdp.guarantees",
    "guarantee_report": "ppdp.guarantees",
    "Memo": "ppdp.memo",
    # the table core
    "AttributeDomain": "ppdp.tabular",
    "GeneralizedTable": "ppdp.tabular",
    "Hierarchy": "ppdp.tabular",
    # mechanisms on tables
    "Mondrian": "ppdp.mechanisms.mondrian",
    "Anatomy": "ppdp.mechanisms.anatomy",
    "MutualCover": "ppdp.mechanisms.mutual_cover",
    "RandomOutputTable": "ppdp.mechanisms.mutual_cover",
    "KaryRandomizedResponse": "ppdp.mechanisms.randomized_response",
    "RelayChain": "ppdp.mechanisms.relay",
    "RelayWarning": "ppdp.mechanisms.relay",
    "TableMapping": "ppdp.mechanisms.sppm",
    "TableObfuscation": "ppdp.mechanisms.hyobscure",
    "Imposter": "ppdp.mechanisms.imposter",
    "DetectionResult": "ppdp.mechanisms.imposter",
    "TableCodec": "ppdp.mechanisms.imposter",
    "MST": "ppdp.mechanisms.mst",
    # mechanisms on arrays: HyObscure's estimators and baselines, SPPM's mappings
    "HyObscure": "ppdp.mechanisms.hyobscure",
    "XObf": "ppdp.mechanisms.hyobscure",
    "YGen": "ppdp.mechanisms.hyobscure",
    "PrivCheck": "ppdp.mechanisms.hyobscure",
    "RandomObfuscation": "ppdp.mechanisms.hyobscure",
    "Frapp": "ppdp.mechanisms.hyobscure",
    "Similarity": "ppdp.mechanisms.hyobscure",
    "DPObfuscation": "ppdp.mechanisms.hyobscure",
    "Generalization": "ppdp.mechanisms.hyobscure",
    "PrivateDomain": "ppdp.mechanisms.hyobscure",
    "Release": "ppdp.mechanisms.hyobscure",
    "SPPM": "ppdp.mechanisms.sppm",
    "ExactMapping": "ppdp.mechanisms.sppm",
    "CertifiedMapping": "ppdp.mechanisms.sppm",
    "ExponentialMechanism": "ppdp.mechanisms.sppm",
    "Distortion": "ppdp.mechanisms.sppm",
    "DenseDistortion": "ppdp.mechanisms.sppm",
    "HammingDistortion": "ppdp.mechanisms.sppm",
    "SquaredDistortion": "ppdp.mechanisms.sppm",
    "LinearStep": "ppdp.mechanisms.sppm",
    # attacks on a release
    "attribute_inference": "ppdp.attacks.suite",
    "record_linkage": "ppdp.attacks.suite",
    "nearest_record_guesses": "ppdp.attacks.suite",
    "anonymeter_risks": "ppdp.attacks.suite",
    "learned_posteriors": "ppdp.attacks.suite",
    "InferenceAttack": "ppdp.attacks.inference",
    "ObfuscationChannel": "ppdp.attacks.obfuscation",
    "KnownTable": "ppdp.attacks.random_tables",
    # what a release keeps
    "ml_efficacy": "ppdp.utility.ml_efficacy",
    "iloss_generalized": "ppdp.utility.information_loss",
    "iloss_randomized": "ppdp.utility.information_loss",
    "mean_marginal_tv": "ppdp.utility.marginals",
    "marginal_distance": "ppdp.utility.marginals",
    "CountQuery": "ppdp.utility.workload",
    "count_workload": "ppdp.utility.workload",
    "workload_error": "ppdp.utility.workload",
    "task_scores": "ppdp.utility.workload",
    "Predicate": "ppdp.utility.queries",
    "Query": "ppdp.utility.queries",
    "cf_rmse": "ppdp.utility.recommendation",
    "activity_map": "ppdp.utility.recommendation",
    # data
    "MovieLens": "ppdp.datasets",
    "CacheCorruptionWarning": "ppdp.datasets",
    "DatasetUnavailableError": "ppdp.datasets",
}

__all__ = sorted(_SURFACE)


def __getattr__(name: str):
    """Load a public name from its module on first use (PEP 562)."""
    module = _SURFACE.get(name)
    if module is None:
        raise AttributeError(f"module 'ppdp' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
