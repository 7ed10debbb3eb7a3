"""The cross-paper benchmark's data: column roles, the two tables and their three-way split.

Roles are stated once, in ``roles.yaml`` beside this module; see
:mod:`ppdp.experiments.benchmark` for the datasets and :mod:`ppdp.experiments.benchmark.run` for
the protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "DATASETS",
    "BenchmarkData",
    "Split",
    "adult_table",
    "load_dataset",
    "load_public_domains",
    "load_roles",
    "load_threat_models",
    "movielens_table",
    "split",
]

DATASETS = ("adult", "movielens")
ROLES_FILE = Path(__file__).with_name("roles.yaml")
PUBLIC_DOMAINS_FILE = Path(__file__).with_name("public_domains.yaml")


def _roles_file(path: str | Path | None) -> dict[str, Any]:
    from ppdp.compendium.yamlfile import read_yaml

    return read_yaml(path or ROLES_FILE)


def load_threat_models(path: str | Path | None = None) -> dict[str, dict[str, str]]:
    """What each attacker knows, wants and how it is scored (``threat_models`` of the roles
    file)."""
    return dict(_roles_file(path)["threat_models"])


def load_roles(path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The column roles of every dataset (``roles.yaml``)."""
    roles = {k: v for k, v in _roles_file(path).items() if k != "threat_models"}
    for name, spec in roles.items():
        missing = {"private", "task", "positive", "quasi_identifiers", "numeric"} - set(spec)
        if missing:
            raise ValueError(f"benchmark roles of {name!r} lack {sorted(missing)}")
    return roles


def load_public_domains(name: str, path: str | Path | None = None) -> dict[str, list]:
    """The documented domain of every column of one dataset (``public_domains.yaml``).

    The domains come from the datasets' documentation (UCI's ``adult.names``, MovieLens-1M's
    README) and from the benchmark's construction of its derived columns, never from the rows: the
    same for every subsample and seed, so that a differentially private synthesizer (MST) can be
    given them without revealing which values the table holds. The file states its sources.

    Parameters
    ----------
    name : {"adult", "movielens"}
    path : str or path-like, optional
        Another file of the same layout; default ``public_domains.yaml`` beside this module.

    Returns
    -------
    dict of str to list
        Column -> its values in order (an integer range ``{integers: [low, high]}`` of the file
        expanded to every integer from ``low`` to ``high``), for the columns of the dataset's
        table in their order (quasi-identifiers, private attributes, task).

    Raises
    ------
    ValueError
        If ``name`` is not a benchmark dataset, or the file gives no domains for it, misses or
        adds a column of its table, or gives a column an empty, repeated or malformed domain.

    Examples
    --------
    >>> domains = load_public_domains("adult")
    >>> list(domains) == [*load_roles()["adult"]["quasi_identifiers"], "sex", "income"]
    True
    >>> domains["age"][0], domains["age"][-1], len(domains["native_country"])
    (17, 90, 41)
    >>> load_public_domains("movielens")["age"]
    [1, 18, 25, 35, 45, 50, 56]
    """
    from ppdp.compendium.yamlfile import read_yaml

    if name not in DATASETS:
        raise ValueError(f"dataset must be one of {DATASETS}, got {name!r}")
    source = Path(path or PUBLIC_DOMAINS_FILE)
    spec = read_yaml(source) or {}
    if not isinstance(spec.get(name), Mapping):
        raise ValueError(f"{source.name} gives no domains for the dataset {name!r}")
    roles = load_roles()[name]
    columns = [*roles["quasi_identifiers"], *roles["private"], roles["task"]]
    given = spec[name]
    missing = [c for c in columns if c not in given]
    extra = [c for c in given if c not in columns]
    if missing or extra:
        raise ValueError(
            f"{source.name}: the domains of {name!r} must name exactly its columns {columns}; "
            f"missing {missing}, not a column {extra}"
        )
    domains = {}
    for column in columns:
        values = given[column]
        if isinstance(values, Mapping):
            bounds = values.get("integers")
            ok = (
                set(values) == {"integers"}
                and isinstance(bounds, list)
                and len(bounds) == 2
                and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
                and bounds[0] <= bounds[1]
            )
            if not ok:
                raise ValueError(
                    f"{source.name}: {name}.{column} must be a list of values or "
                    f"{{integers: [low, high]}} with integers low <= high, got {values!r}"
                )
            values = list(range(bounds[0], bounds[1] + 1))
        if not isinstance(values, list) or not values:
            raise ValueError(
                f"{source.name}: {name}.{column} must be a non-empty list of values, got {values!r}"
            )
        repeated = sorted({v for v in values if values.count(v) > 1}, key=repr)
        if repeated:
            raise ValueError(f"{source.name}: {name}.{column} repeats the values {repeated}")
        domains[column] = values
    return domains


@dataclass
class BenchmarkData:
    """One dataset of the benchmark: its table, column roles and value domains.

    Attributes
    ----------
    name : str
    table : DataFrame
        The real rows: private attributes, quasi-identifiers and the task.
    roles : dict
        Its entry of ``roles.yaml``.
    domains : dict of AttributeDomain
        The domain of every column, from the real table (:func:`ppdp.cells.table_domains`).
    note : str
        How the table was drawn (subsample size).
    """

    name: str
    table: pd.DataFrame
    roles: dict[str, Any]
    domains: dict
    note: str = ""

    @property
    def private(self) -> list[str]:
        return list(self.roles["private"])

    @property
    def protected(self) -> str:
        """The private attribute every mechanism protects (the first)."""
        return self.roles["private"][0]

    @property
    def qi(self) -> list[str]:
        return list(self.roles["quasi_identifiers"])

    @property
    def task(self) -> str:
        return self.roles["task"]

    @property
    def numeric(self) -> list[str]:
        return list(self.roles["numeric"])

    @property
    def columns(self) -> list[str]:
        return list(self.table.columns)


def _stratified_sample(frame: pd.DataFrame, by: str, n: int | None, seed: int) -> pd.DataFrame:
    if n is None or n >= len(frame):
        return frame.reset_index(drop=True)
    from sklearn.model_selection import train_test_split

    keep, _ = train_test_split(frame, train_size=int(n), stratify=frame[by], random_state=seed)
    return keep.sort_index().reset_index(drop=True)


def adult_table(n_rows: int | None, seed: int = 0, roles: Mapping | None = None) -> pd.DataFrame:
    """UCI Adult (train and test files) with the benchmark's columns, complete rows only."""
    from ppdp.datasets import load_adult

    roles = roles or load_roles()["adult"]
    columns = [*roles["quasi_identifiers"], *roles["private"], roles["task"]]
    frame = load_adult()[columns].dropna().reset_index(drop=True)
    for c in columns:
        if c not in roles["numeric"]:
            frame[c] = frame[c].astype(str)
    return _stratified_sample(frame, roles["private"][0], n_rows, seed)


_MOVIELENS_GENRES = {
    "drama": "genre_drama",
    "comedy": "genre_comedy",
    "action": "genre_action",
    "thriller": "genre_thriller",
    "romance": "genre_romance",
    "sci_fi": "genre_sci_fi",
}


def movielens_table(n_rows: int | None, seed: int = 0, roles: Mapping | None = None):
    """MovieLens-1M users: private gender and age group, rating features in terciles, the task.

    Each user's ratings are split at random (``seed``) into four fifths, which give the features,
    and one fifth, which gives the task: ``action_fan`` is 1 when the share of action movies among
    the user's held-out ratings is above the median user's share, a recommender's question about
    what the user will watch next. An unprotected XGBoost model predicts it with an AUC of about
    0.86 (3-fold cross-validation on all users); the held-out mean rating, the task before, reached
    only about 0.61, too close to chance to tell mechanisms apart.
    """
    from ppdp.datasets import load_movielens_1m

    roles = roles or load_roles()["movielens"]
    ml = load_movielens_1m()
    ratings = ml.ratings[["user_id", "item_id"]]
    rng = np.random.default_rng(seed)
    held = rng.random(len(ratings)) < 0.2
    genres = ml.items[["item_id", *_MOVIELENS_GENRES.values()]]
    seen = ratings[~held].merge(genres, on="item_id", how="left")
    per_user = seen.groupby("user_id")
    feats = pd.DataFrame({"activity": per_user.size()})
    for name, col in _MOVIELENS_GENRES.items():
        feats[name] = per_user[col].mean()
    later = ratings[held].merge(genres, on="item_id", how="left")
    target = later.groupby("user_id")[_MOVIELENS_GENRES["action"]].mean()
    users = ml.users.set_index("user_id")
    frame = feats.join(target.rename("held_action"), how="inner").join(users, how="inner")
    for c in ["activity", *_MOVIELENS_GENRES]:
        # terciles over users, levels 1/2/3 (ranks first: ties split by order)
        frame[c] = pd.qcut(frame[c].rank(method="first"), 3, labels=False).astype(np.int64) + 1
    median = frame["held_action"].median()
    frame["action_fan"] = (frame["held_action"] > median).astype(int).astype(str)
    frame["gender"] = frame["gender"].astype(str)
    frame["occupation"] = frame["occupation"].astype(str)
    frame["age"] = frame["age"].astype(np.int64)
    columns = [*roles["quasi_identifiers"], *roles["private"], roles["task"]]
    frame = frame.reset_index(drop=True)[columns]
    return _stratified_sample(frame, roles["private"][0], n_rows, seed)


def load_dataset(name: str, n_rows: int | None, seed: int = 0) -> BenchmarkData:
    """The table, roles and domains of one benchmark dataset (``"adult"`` or ``"movielens"``)."""
    from ppdp.cells import table_domains

    if name not in DATASETS:
        raise ValueError(f"dataset must be one of {DATASETS}, got {name!r}")
    roles = load_roles()[name]
    table = (adult_table if name == "adult" else movielens_table)(n_rows, seed, roles)
    domains = table_domains(table, list(table.columns), numeric=roles["numeric"])
    note = f"{len(table):,} rows" + (
        "" if n_rows is None else f" (stratified subsample, seed {seed})"
    )
    return BenchmarkData(name, table, dict(roles), domains, note)


@dataclass(frozen=True)
class Split:
    """One seed's three disjoint parts of the real rows (each keeps the table's row labels).

    Attributes
    ----------
    train : DataFrame
        The people a mechanism protects and releases (40%); the targeted attackers' targets are
        drawn from them.
    aux : DataFrame
        The attacker's auxiliary real records (40%, as many as the release): other people than
        the released ones. The no-release baseline and Scenario II train on them; with as many
        records as the release, an attacker trained on the release does not gain from its size
        alone.
    control : DataFrame
        People in neither (20%): every targeted attack is also scored on them, to separate what
        the release teaches about everyone from what it gives away about the people in it.
    """

    train: pd.DataFrame
    aux: pd.DataFrame
    control: pd.DataFrame

    @property
    def test(self) -> pd.DataFrame:
        """Every held-out real row (``aux`` and ``control``): the utility task's test set."""
        return pd.concat([self.aux, self.control]).sort_index()


def split(data: BenchmarkData, seed: int) -> Split:
    """Stratified 40/40/20 split of the real rows into ``train``, ``aux`` and ``control``.

    The parts keep the table's row labels, so a released row and a held-out one never share a
    label: the attacks check by label that they score people their attacker did not train on."""
    from sklearn.model_selection import train_test_split

    strata = data.table[data.protected]
    train, held = train_test_split(data.table, train_size=0.4, stratify=strata, random_state=seed)
    aux, control = train_test_split(
        held, train_size=2 / 3, stratify=held[data.protected], random_state=seed
    )
    return Split(train.sort_index(), aux.sort_index(), control.sort_index())
