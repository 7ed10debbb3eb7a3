"""HyObscure and its baselines on a pandas DataFrame: ``fit(df)``, ``release(random_state)``.

:class:`TableObfuscation` wraps one array-level mechanism of this package (:class:`HyObscure`,
:class:`XObf`, :class:`YGen` or a baseline of Sect. IV-A5) in the library's protocol
(:mod:`ppdp.base`). ``fit`` prepares what the mechanism needs exactly as the experiments do
(:mod:`ppdp.experiments.hyobscure`): user clusters by k-means on the features (Algorithm 2,
line 1), the initial generalization ``G^0`` of the I-problem (Algorithm 1, Eqs. 23-25), then the
mechanism's own fit. ``release`` draws one published data set (Sect. III-F) and writes it back into
the table: obfuscated features ``X^`` in the feature columns, the generalized value ``Y~`` of each
user in the private column, as a readable label (``group_labels``).
"""

from __future__ import annotations

import copy
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype

from ppdp._validation import check_columns, validate_hyperparameters
from ppdp.base import (
    Mechanism,
    RepeatedReleaseWarning,
    check_fitted,
    check_frame,
    check_random_state,
)
from ppdp.guarantees import GuaranteeCheck, enforce

from .baselines import DPObfuscation, Frapp, PrivCheck, RandomObfuscation, Similarity
from .checks import DOMAIN, POSITIVE_INT, as_features, as_private, check_bound_order
from .domain import Generalization, initial_generalization, private_domain
from .estimators import HyObscure, XObf, YGen
from .leakage import cluster_users

__all__ = ["TableObfuscation", "group_labels"]

#: The mechanisms :class:`TableObfuscation` accepts, in the order of the paper's figures.
MECHANISMS = (HyObscure, XObf, YGen, PrivCheck, RandomObfuscation, Frapp, Similarity, DPObfuscation)

#: Mechanisms that work on user clusters (Algorithm 2, line 1); the others draw users directly.
_CLUSTERED = (HyObscure, PrivCheck)

#: The I-problem's settings; HyObscure, XObf and YGen hold their own under the same names.
_GENERALIZATION_PARAMS = ("n_groups", "k", "alpha", "l", "beta", "domain", "grid_width", "n_init")

_LEARNED = (
    "mechanism_",
    "generalization_",
    "initial_generalization_",
    "clusters_",
    "group_labels_",
    "columns_",
    "feature_columns_",
    "private_column_",
    "_table",
    "_feature_dtypes",
)


def group_labels(generalization: Generalization) -> list[str]:
    """A readable label for each generalized value ``y~`` (Sect. II-A), indexed by group.

    Parameters
    ----------
    generalization : Generalization

    Returns
    -------
    list of str
        For ages (``kind="interval"``), the group's smallest and largest exact value, ``"25-34"``
        (the age stages of Sect. II-A; ``"25"`` for a group of one value). The groups are disjoint
        intervals, so the labels are distinct. For home cells (``kind="grid"``), the group's
        number and the rows and columns its cells span, ``"area 2: rows 10-12, cols 30-33"``
        (contiguous areas may have overlapping bounding boxes; the number keeps labels distinct).

    Raises
    ------
    TypeError
        When ``generalization`` is not a :class:`Generalization`.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdp.mechanisms.hyobscure import Generalization, private_domain
    >>> from ppdp.mechanisms.hyobscure.table import group_labels
    >>> ages = Generalization(private_domain([20, 21, 22, 23, 24]), np.array([0, 0, 0, 1, 2]))
    >>> group_labels(ages)
    ['20-22', '23', '24']
    >>> cells = private_domain([61, 62, 121, 122, 180], kind="grid")
    >>> group_labels(Generalization(cells, np.array([0, 0, 1, 1, 1])))
    ['area 0: rows 1-1, cols 1-2', 'area 1: rows 2-3, cols 0-2']
    """
    if not isinstance(generalization, Generalization):
        raise TypeError(
            f"generalization must be a Generalization; got {type(generalization).__name__}"
        )
    if generalization.domain.kind == "interval":
        return [f"{lo}-{hi}" if lo != hi else f"{lo}" for lo, hi in generalization.intervals()]
    width = int(generalization.domain.grid_width)
    labels = []
    for g in range(generalization.n_groups):
        cells = generalization.domain.values[generalization.labels == g]
        rows, cols = cells // width, cells % width
        labels.append(
            f"area {g}: rows {int(rows.min())}-{int(rows.max())}, "
            f"cols {int(cols.min())}-{int(cols.max())}"
        )
    return labels


def _check_mechanism(mechanism: Any):
    allowed = ", ".join(cls.__name__ for cls in MECHANISMS)
    if isinstance(mechanism, type) and issubclass(mechanism, MECHANISMS):
        raise TypeError(
            f"mechanism must be an instance of one of {allowed}; got the class "
            f"{mechanism.__name__} itself (write mechanism={mechanism.__name__}(...))"
        )
    if not isinstance(mechanism, MECHANISMS):
        raise TypeError(
            f"mechanism must be an instance of one of {allowed}; "
            f"got {type(mechanism).__name__} {mechanism!r}"
        )
    return mechanism


class TableObfuscation(Mechanism):
    """HyObscure, a variant or a baseline on a table: obfuscated features, generalized private value.

    Each row of the table is a user: the ``private`` column holds the exact private value ``y``
    (an age, a home cell id), the ``features`` columns the insensitive data ``x`` (ratings,
    check-in counts; non-negative numbers). A release replaces each user's features by those of
    another user with the same generalized value ``y~`` (obfuscation stays inside the groups,
    Sect. II-A) and the exact value by the label of ``y~``.

    Parameters
    ----------
    mechanism : HyObscure, XObf, YGen, PrivCheck, RandomObfuscation, Frapp, Similarity or DPObfuscation
        An instance carrying the mechanism's own hyper-parameters (Algorithm 4 and its variants,
        or a baseline of Sect. IV-A5). ``fit`` fits a deep copy, ``mechanism_``; the instance
        given is left untouched.
    private : column label
        The column of exact private values (integers).
    features : list of column labels, optional
        The insensitive feature columns. Default: every column but ``private`` (and but the
        ``clusters`` column if one is named).
    clusters : None, column label or array_like, optional
        The user clusters ``C`` of Algorithm 2 for HyObscure, XObf, YGen and PrivCheck (the other
        baselines draw users, not clusters, and ignore them). None: k-means on the features with
        the mechanism's ``n_clusters`` (as the experiments do). A column of ``df``, or one label per
        row (a Series must carry ``df``'s index): precomputed clusters, renumbered ``0..C-1`` in
        sorted order. A named column is released unchanged like any other column; drop it
        before publishing if it was derived from the features.
    n_groups, k, alpha, l, beta : int, optional
        Requested number of groups ``|Y~|``, (k, alpha)-uniqueness (Definition 2) and
        (l, beta)-variety (Definition 3) of the initial generalization ``G^0`` (Algorithm 1).
        For HyObscure, XObf and YGen, None means the mechanism's own value, and a value that
        differs from it is an error. For the baselines, None means HyObscure's default (Table II:
        4 groups, k=100, alpha=200, l=4, beta=8).
    domain : {"interval", "grid"}, optional
        Ages (groups are intervals) or home cells of a grid ``grid_width`` cells wide (groups are
        contiguous areas). None: as for ``n_groups`` (default ``"interval"``).
    grid_width : int, optional
        None: as for ``n_groups`` (default 60).
    n_init : int, optional
        Random restarts of the I-problem's constraint-aware k-means. None: as for ``n_groups``
        (default 10).
    kmeans_n_init : int, default 4
        Restarts of the k-means that clusters the users when ``clusters`` is None (4, as in the
        experiments' splits).

    Attributes
    ----------
    mechanism_ : HyObscure, XObf, YGen or a baseline
        The fitted copy of ``mechanism``; its own learned state (``leakage_``, ``mappings_``,
        ``epsilon_``, ...) is there.
    generalization_ : Generalization
        The released generalization: the mechanism's final one (after the G-problem for HyObscure
        and YGen), ``G^0`` for XObf and the baselines.
    initial_generalization_ : Generalization
        ``G^0``, the I-problem's solution (Algorithm 1).
    group_labels_ : list of str
        The label released for each group of ``generalization_`` (``group_labels``).
    clusters_ : ndarray (n,) or None
        The user clusters handed to the mechanism (None for the user-level baselines without
        given clusters).
    columns_ : list
        The fitted table's columns, in order.
    feature_columns_ : list
    private_column_ : column label

    Notes
    -----
    *Seeds.* ``random_state`` is None, an int >= 0 or a :class:`numpy.random.Generator`
    (:func:`ppdp.base.check_random_state`). ``fit(df, random_state)`` draws everything from one
    stream, in this order: the k-means clusters (when needed), ``G^0``, then the mechanism's fit
    (``HyObscure.fit(X, y, random_state=...)`` runs the G-problem's moves on it). ``release(random_state)``
    draws one data set from a stream of its own: the same fit and the same int give the same
    frame. :meth:`~ppdp.base.Mechanism.fit_release` uses a single stream for both:
    ``fit_release(df, s)`` equals
    ``g = numpy.random.default_rng(s); fit(df, random_state=g).release(random_state=g)``.

    With ``kmeans_n_init=10`` (the k-means restarts of :func:`cluster_users`) and no ``clusters``,
    fitting HyObscure, XObf or YGen through the table is ``mechanism.fit(X, y, random_state=rng)`` itself,
    which draws its clusters and ``G^0`` in the same order.

    *Guarantees.* ``release`` draws through the mechanism's ``release``, which re-measures its
    declared bounds (utility budget of Eq. (16), (k, alpha), (l, beta), contiguity; PrivCheck's
    budget) and raises :class:`~ppdp.guarantees.GuaranteeViolation` instead of drawing from a
    channel that breaks them. Random, Frapp, Similarity and DP declare no checked bound
    (DP's ``epsilon_`` holds by construction and is reported on ``mechanism_``).

    *Repeated releases.* This adapter counts its releases (``n_releases_``) and warns
    (:class:`~ppdp.base.RepeatedReleaseWarning`) on the second of one fit, whatever the engine:
    each is another draw for the same users. The engine's own count advances with it
    (``mechanism_.n_releases_``; for DP, ``mechanism_.spent()`` is the composed epsilon).

    *Released table.* Same columns (order), same index; feature columns hold the published
    features with their original dtypes (they are copies of other users' rows); the private
    column holds the labels of ``group_labels_`` (pandas' text dtype ``"str"``); every other
    column is released unchanged.

    Examples
    --------
    Forty users: an age and three activity counts each.

    >>> import numpy as np
    >>> import pandas as pd
    >>> from ppdp.mechanisms.hyobscure import HyObscure, RandomObfuscation, TableObfuscation
    >>> rng = np.random.default_rng(0)
    >>> age = rng.integers(20, 28, 40)
    >>> profile = rng.integers(0, 2, 40)
    >>> counts = rng.poisson(1 + 2 * profile[:, None] + (age[:, None] > 23), (40, 3)) + 1
    >>> df = pd.DataFrame(counts, columns=["films", "books", "games"]).assign(age=age)
    >>> hy = HyObscure(n_groups=2, k=10, alpha=30, l=2, beta=6, budget=0.05, n_clusters=2)
    >>> table = TableObfuscation(hy, private="age", kmeans_n_init=1).fit(df, random_state=0)
    >>> table.group_labels_
    ['20-23', '24-27']
    >>> released = table.release(random_state=1)
    >>> released.columns.tolist()
    ['films', 'books', 'games', 'age']
    >>> released["age"].value_counts().sort_index()
    age
    20-23    17
    24-27    23
    Name: count, dtype: int64
    >>> round(table.mechanism_.leakage_, 3)
    0.984

    A baseline on the same table, with Table II's bounds replaced by ones these users can meet:

    >>> random = TableObfuscation(
    ...     RandomObfuscation(p_rand=0.5), private="age", n_groups=2, k=10, alpha=30, l=2, beta=6)
    >>> random.fit(df, random_state=0).release(random_state=1).head(3)
       films  books  games    age
    0      3      2      3  24-27
    1      1      5      2  24-27
    2      3      1      2  24-27
    """

    #: The bound every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "its engine's: HyObscure, XObf and YGen keep the utility budget (Eq. 16), (k, "
        "alpha)-uniqueness, (l, beta)-variety and contiguous groups; PrivCheck its budget; the "
        "other baselines declare none."
    )

    #: Each release obfuscates every user again with the fitted mappings; several releases of one fit
    #: give an attacker several draws for the same user.
    repetition: ClassVar[str] = "leaks"
    #: The private attribute is released as its group's label (text, e.g. ``"24-27"``).
    recast_columns: ClassVar[tuple[str, ...]] = ("private",)

    _parameter_constraints: ClassVar[dict] = {
        **{
            name: [*DOMAIN, None] if name == "domain" else [*POSITIVE_INT, None]
            for name in _GENERALIZATION_PARAMS
        },
        "kmeans_n_init": POSITIVE_INT,
    }

    def __init__(
        self,
        mechanism: Any,
        *,
        private: Any,
        features: Any = None,
        clusters: Any = None,
        n_groups: int | None = None,
        k: int | None = None,
        alpha: int | None = None,
        l: int | None = None,  # noqa: E741
        beta: int | None = None,
        domain: str | None = None,
        grid_width: int | None = None,
        n_init: int | None = None,
        kmeans_n_init: int = 4,
    ):
        self.mechanism = mechanism
        self.private = private
        self.features = features
        self.clusters = clusters
        self.n_groups = n_groups
        self.k = k
        self.alpha = alpha
        self.l = l
        self.beta = beta
        self.domain = domain
        self.grid_width = grid_width
        self.n_init = n_init
        self.kmeans_n_init = kmeans_n_init

    # -- checks ----------------------------------------------------------------------------------
    def _check_private(self, df: pd.DataFrame):
        private = self.private
        try:
            present = private in df.columns
        except TypeError:  # an unhashable value cannot be a column label
            present = False
        if not present:
            raise ValueError(
                f"private must name a column of df; got {private!r}, the columns are "
                f"{list(df.columns)}"
            )
        return private

    def _check_clusters(self, df: pd.DataFrame, private):
        """``(column or None, raw labels or None)`` for the ``clusters`` parameter."""
        clusters = self.clusters
        if clusters is None:
            return None, None
        if np.ndim(clusters) == 0:
            try:
                present = clusters in df.columns
            except TypeError:
                present = False
            if not present:
                raise ValueError(
                    f"clusters must be None, a column of df or one label per row; got {clusters!r}, "
                    f"which is not a column (the columns are {list(df.columns)})"
                )
            if clusters == private:
                raise ValueError(
                    f"clusters must not be the private column {private!r}; give a column of user "
                    "clusters, one label per row, or None (k-means on the features)"
                )
            return clusters, df[clusters].to_numpy()
        if isinstance(clusters, pd.Series):
            if not clusters.index.equals(df.index):
                raise ValueError(
                    "clusters given as a pandas Series must carry df's index (one label per row, "
                    "in df's order)"
                )
            clusters = clusters.to_numpy()
        arr = np.asarray(clusters)
        if arr.ndim != 1 or arr.shape[0] != len(df):
            raise ValueError(
                f"clusters must be None, a column of df or one label per row ({len(df)}); got "
                f"an array of shape {arr.shape}"
            )
        return None, arr

    def _check_features(self, df: pd.DataFrame, private, cluster_column) -> list:
        features = self.features
        if features is None:
            features = [c for c in df.columns if c != private and c != cluster_column]
            if not features:
                raise ValueError(
                    f"features is None and df has no column besides private={private!r} "
                    f"(columns: {list(df.columns)}); HyObscure needs at least one feature column"
                )
        else:
            features = check_columns(features, name="features", table=df, table_name="df")
            for role, column in (("private", private), ("clusters", cluster_column)):
                if column is not None and column in features:
                    raise ValueError(
                        f"features must not include the {role} column {column!r}; got {features!r}"
                    )
        for c in features:
            if not is_numeric_dtype(df[c].dtype):
                raise TypeError(
                    f"features must be numeric columns (ratings, counts); column {c!r} has dtype "
                    f"{df[c].dtype} (choose the feature columns with features=[...])"
                )
            values = df[c].to_numpy(dtype=np.float64, na_value=np.nan)
            if not np.isfinite(values).all() or (values < 0).any():
                raise ValueError(
                    f"features must hold finite, non-negative values (ratings, counts); column "
                    f"{c!r} holds missing, infinite or negative values"
                )
        return features

    def _generalization_settings(self, mechanism, engine) -> dict[str, Any]:
        """The I-problem's settings: the mechanism's own (HyObscure family) or the given ones.

        ``engine`` holds the mechanism's checked hyper-parameters (its ``_checked_params()``).
        """
        # checked by fit (_parameter_constraints); numbers as ints, as the mechanisms read them
        given = {name: getattr(self, name) for name in _GENERALIZATION_PARAMS}
        given = {n: v if v is None or n == "domain" else int(v) for n, v in given.items()}
        if isinstance(mechanism, HyObscure):
            own = {name: getattr(engine, name) for name in _GENERALIZATION_PARAMS}
            for name, value in given.items():
                if value is not None and value != own[name]:
                    raise ValueError(
                        f"{name}={value!r} conflicts with the mechanism's own {name}={own[name]!r}; "
                        f"for {type(mechanism).__name__} leave {name}=None (the mechanism's "
                        f"value is used) or give {name}={own[name]!r}"
                    )
            return own
        defaults = HyObscure()._checked_params()  # Table II
        settings = {
            name: getattr(defaults, name) if value is None else value
            for name, value in given.items()
        }
        check_bound_order(settings["k"], settings["alpha"], settings["l"], settings["beta"])
        return settings

    # -- protocol --------------------------------------------------------------------------------
    def fit(self, df: pd.DataFrame, random_state: Any = None) -> TableObfuscation:
        """Cluster the users, solve the I-problem and fit the mechanism on ``df``.

        Parameters
        ----------
        df : DataFrame
            One row per user: the ``private`` column and the feature columns.
        random_state : None, int >= 0 or numpy.random.Generator
            One stream for the k-means clusters (Algorithm 2, line 1; only for HyObscure, XObf,
            YGen and PrivCheck without given ``clusters``), ``G^0`` (Algorithm 1) and the
            mechanism's fit (the G-problem's moves of Algorithm 3 for HyObscure and YGen), in
            that order.

        Returns
        -------
        self
        """
        # a failed refit must not leave the previous table's state in place
        for name in _LEARNED:
            self.__dict__.pop(name, None)
        template = _check_mechanism(self.mechanism)
        validate_hyperparameters(self)
        # the engine's constructor stores its hyper-parameters as given: check them before use
        engine = template._checked_params()
        df = check_frame(df)
        private = self._check_private(df)
        cluster_column, raw_clusters = self._check_clusters(df, private)
        features = self._check_features(df, private, cluster_column)
        settings = self._generalization_settings(template, engine)
        kmeans_n_init = int(self.kmeans_n_init)
        rng = check_random_state(random_state)

        X = as_features(df[features])
        try:
            y = as_private(df[private], X.shape[0])
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"private column {private!r}: {exc}") from exc
        clusters = None
        if raw_clusters is not None:
            if pd.isna(raw_clusters).any():
                raise ValueError("clusters must give a label to every row; some are missing")
            try:
                clusters = np.unique(raw_clusters, return_inverse=True)[1].astype(np.int64)
            except TypeError as exc:
                raise TypeError(
                    f"clusters must hold labels of one sortable type; got {exc}"
                ) from exc
            clusters = clusters.reshape(-1)

        n_values = np.unique(y).size
        if n_values < settings["l"]:
            raise ValueError(
                f"private column {private!r} holds {n_values} distinct value(s); the "
                f"generalization's l={settings['l']} needs at least {settings['l']}"
            )
        mechanism = copy.deepcopy(template)
        if clusters is None and isinstance(mechanism, _CLUSTERED):
            clusters = cluster_users(X, engine.n_clusters, rng, n_init=kmeans_n_init)
        domain = private_domain(y, settings["domain"], settings["grid_width"])
        gen0 = initial_generalization(
            y,
            domain,
            settings["n_groups"],
            settings["k"],
            settings["alpha"],
            settings["l"],
            settings["beta"],
            rng,
            n_init=settings["n_init"],
        )
        if isinstance(mechanism, HyObscure):
            mechanism.fit(X, y, random_state=rng, clusters=clusters, generalization=gen0)
        else:
            mechanism.fit(X, y, generalization=gen0, clusters=clusters, random_state=rng)

        self.mechanism_ = mechanism
        self.initial_generalization_ = gen0
        self.generalization_ = mechanism.generalization_
        self.group_labels_ = group_labels(self.generalization_)
        self.clusters_ = clusters
        self.columns_ = list(df.columns)
        self.feature_columns_ = features
        self.private_column_ = private
        self._table = df.copy()
        self._feature_dtypes = df[features].dtypes
        return self

    def release(self, random_state: Any = None) -> pd.DataFrame:
        """One published table (Sect. III-F; Algorithm 4, line 6).

        Parameters
        ----------
        random_state : None, int >= 0 or numpy.random.Generator
            Drives the draw of each user's published features.

        Returns
        -------
        DataFrame
            The fitted table's columns and index: the feature columns hold ``X^`` (row ``u`` is
            the feature row of a user with the same ``y~``), the private column the label of
            ``y~`` (``group_labels_``), every other column as fitted.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        ppdp.guarantees.GuaranteeViolation
            When the fitted mechanism no longer meets a bound it declared (checked by its
            ``release`` before it draws).
        """
        check_fitted(self, "mechanism_")
        rng = check_random_state(random_state)
        enforce(self.guarantee_checks())
        with warnings.catch_warnings():
            # this adapter's own ledger counts the release and warns on a repeated one
            warnings.simplefilter("ignore", RepeatedReleaseWarning)
            # the mechanism's own release checks its bounds too
            published = self.mechanism_.release(random_state=rng)
        out = self._table.copy()
        for j, column in enumerate(self.feature_columns_):
            values = pd.Series(published.features[:, j], index=out.index)
            out[column] = values.astype(self._feature_dtypes[column])
        labels = np.asarray(self.group_labels_, dtype=object)
        out[self.private_column_] = pd.Series(
            labels[published.groups], index=out.index, dtype="str"
        )
        return out

    def guarantee_checks(self) -> list[GuaranteeCheck]:
        """The fitted mechanism's declared bounds, measured on the channel ``release`` draws from.

        HyObscure, XObf and YGen: utility budget (Eq. 16), (k, alpha)-uniqueness, (l, beta)-variety
        and contiguity; PrivCheck: its budget; the other baselines declare none (empty list).
        """
        check_fitted(self, "mechanism_")
        return list(self.mechanism_.guarantee_checks())
