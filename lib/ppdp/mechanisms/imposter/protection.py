"""Implicit-privacy protection by data generation: Eqs. (8)-(13) and Algorithm 2 (Section 4.2.2).

:class:`Imposter` holds the networks (encoder ``E``, generator ``G``, discriminators ``D1`` and
``D2``), their training loop and the sampling of a release. The networks are torch's, imported
when a model is built or sampled rather than with the package.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ppdp._validation import Interval, StrOptions, check_params, validate_hyperparameters
from ppdp.base import Mechanism, NotFittedError, check_fitted, check_random_state
from ppdp.guarantees import enforce

from .checks import (
    _POSITIVE_INT,
    _check_columns,
    _check_frame,
    _training_seed,
    check_private_attribute,
)
from .codec import TableCodec

#: The module's logger (silent unless the application configures ``ppdp``'s).
logger = logging.getLogger(__name__)

#: How the generator plays the privacy discriminator ``D2`` (``Imposter(privacy_loss=...)``).
PRIVACY_LOSSES = ("minimax", "confusion")


def _torch():
    import torch

    return torch


def _set_deterministic(mode: bool, warn_only: bool = False) -> None:
    """``torch.use_deterministic_algorithms(mode)`` without importing TorchInductor.

    The public function also sets TorchInductor's ``deterministic`` option, which imports the
    compiler stack (about 2 s per process) for a setting that only compiled graphs read; this
    module compiles none, so only the operators' flag is set. A PyTorch without the private
    setter gets the public function.
    """
    torch = _torch()
    setter = getattr(torch._C, "_set_deterministic_algorithms", None)
    if setter is None:
        torch.use_deterministic_algorithms(mode, warn_only=warn_only)
    else:
        setter(mode, warn_only=warn_only)


class Imposter(Mechanism):
    """Implicit-privacy protection module: VAE + CGAN with a privacy discriminator (Eqs. 8-13).

    Parameters
    ----------
    lam : float >= 0
        Weight ``lambda`` of the privacy game ``V2`` in Eq. (10). 0 gives CGAN + VAE.
    private : str
        The binary explicit private attribute ``s`` (the condition of ``G`` and ``D1``).
    label : str, optional
        The class label; generated with the public attributes (it must differ from ``s``).
    columns : list of str, optional
        The attributes to generate (the implicit-privacy set ``x_p``); None: every column but
        ``private``. The label is added when it is not listed.
    epochs : int >= 1
        Passes over the training table (``n_ite = epochs * ceil(n / batch_size)`` iterations).
    batch_size : int >= 2
        ``m`` of Algorithm 2.
    latent_dim, hidden : int
        Size of ``z`` and of the hidden layers (two per network).
    lr : float
        Adam learning rate of every network (betas 0.5, 0.9).
    numeric_sigma : float
        Standard deviation of the Gaussian reconstruction likelihood of numeric columns.
    privacy_loss : "minimax" or "confusion"
        How ``G`` plays ``D2`` (see module doc).
    n_threads : int in {1, 2}
        Torch intra-op threads used while fitting and sampling.
    progress : bool
        Show a progress bar over epochs.

    Attributes (after :meth:`fit`)
    -------------------------------
    codec_ : TableCodec of the generated columns
    private_, label_, columns_ : names
    private_values_ : the two values of ``s`` (index 1 is coded 1)
    private_prior_ : training frequency of ``s = private_values_[1]``
    history_ : DataFrame, one row per epoch: mean ``recon``, ``kl``, ``d1_loss``, ``g_d1_loss``,
        ``d2_loss``, ``d2_accuracy`` (on generated batches), ``g_loss``.
    encoder_, generator_, d1_, d2_ : the torch modules
    n_fitted_, fitted_columns_, fitted_index_ : size, columns and index of the fitted table
    unmodelled_ : list of the fitted table's columns that are not generated (neither
        ``columns_`` nor ``private_``; empty when every one is generated)

    Release (:meth:`release`, the library protocol of :mod:`ppdp.base`)
    -------------------------------------------------------------------
    ``release(random_state, n=None)`` returns ``n`` synthetic records (default: as many as the
    fitted table) with exactly the fitted table's columns, in its order and with its dtypes. The
    generated columns (``columns_``, the label and ``s``) are :meth:`sample`'s with the
    :func:`~ppdp.base.check_random_state` generator, so ``release(seed, n=k)`` and
    ``sample(k, numpy.random.default_rng(seed))`` agree on them. Columns that IMPOSTER does not
    model (outside ``columns``) are released empty (missing values): a synthetic release never
    carries a real record's value. The index is the fitted table's when ``n`` equals the fitted
    size and a fresh ``RangeIndex(n)`` otherwise; the rows are synthetic either way.

    Examples
    --------
    One epoch of tiny networks, enough to show the release's shape (the generated values depend
    on torch's kernels, so only their properties are shown): ``hours`` is not modelled and is
    released empty, and every generated age is one seen in training.

    >>> import pandas as pd
    >>> df = pd.DataFrame({
    ...     "age": [23, 25, 31, 35, 41, 47, 52, 58] * 3,
    ...     "job": ["nurse", "clerk", "nurse", "driver", "clerk", "nurse", "driver", "clerk"] * 3,
    ...     "hours": [40, 40, 30, 30] * 6,
    ...     "sex": ["F", "M", "F", "M", "M", "F", "M", "M"] * 3,
    ...     "income": ["low", "high"] * 12,
    ... })
    >>> from ppdp.mechanisms.imposter import Imposter
    >>> mech = Imposter(1.0, private="sex", label="income", columns=["age", "job"], epochs=1,
    ...                 hidden=8, latent_dim=2, batch_size=8, progress=False)
    >>> mech = mech.fit(df, random_state=0)
    >>> mech.output_columns_, mech.unmodelled_, len(mech.history_)
    (['age', 'job', 'sex', 'income'], ['hours'], 1)
    >>> released = mech.release(random_state=0)
    >>> released.shape, list(released.columns) == list(df.columns)
    ((24, 5), True)
    >>> bool(released["age"].isin(df["age"]).all()), bool(released["hours"].isna().all())
    (True, True)
    >>> released.equals(mech.release(random_state=0))
    True
    """

    #: The bound every release is checked against (listed on the API reference's index).
    guarantee: ClassVar[str] = (
        "none declared: ``lam`` weighs the privacy discriminator in the generator's loss (Eq. "
        "10), and how well a release hides the private column is measured by attacks, not "
        "promised."
    )

    #: A release samples the fitted generator, trained without a formal bound; more samples show
    #: more of what it memorized.
    repetition: ClassVar[str] = "leaks"

    _parameter_constraints: ClassVar[dict] = {
        "lam": [Interval(Real, 0, None, closed="left")],
        "epochs": _POSITIVE_INT,
        "batch_size": [Interval(Integral, 2, None, closed="left")],
        "latent_dim": _POSITIVE_INT,
        "hidden": _POSITIVE_INT,
        "lr": [Interval(Real, 0, None, closed="neither")],
        "numeric_sigma": [Interval(Real, 0, None, closed="neither")],
        "privacy_loss": [StrOptions(PRIVACY_LOSSES)],
        # this library trains on small CPUs
        "n_threads": [Interval(Integral, 1, 2, closed="both")],
    }

    def __init__(
        self,
        lam: float = 1.0,
        *,
        private: str | None = None,
        label: str | None = None,
        columns: Sequence[str] | None = None,
        epochs: int = 50,
        batch_size: int = 256,
        latent_dim: int = 16,
        hidden: int = 128,
        lr: float = 1e-3,
        numeric_sigma: float = 0.1,
        privacy_loss: str = "minimax",
        n_threads: int = 1,
        progress: bool = True,
    ):
        self.lam = lam
        self.private = private
        self.label = label
        self.columns = columns
        self.epochs = epochs
        self.batch_size = batch_size
        self.latent_dim = latent_dim
        self.hidden = hidden
        self.lr = lr
        self.numeric_sigma = numeric_sigma
        self.privacy_loss = privacy_loss
        self.n_threads = n_threads
        self.progress = progress

    # -- networks ---------------------------------------------------------------------------------

    def _build(self, width: int):
        torch = _torch()
        nn = torch.nn
        h, d = int(self.hidden), int(self.latent_dim)

        # plain containers of torch's own modules (no class local to this method), so that a
        # fitted Imposter pickles; built in the order that fixes the initial weights
        encoder = nn.ModuleDict(
            {
                "body": nn.Sequential(nn.Linear(width, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU()),
                "mu": nn.Linear(h, d),
                "logvar": nn.Linear(h, d),
            }
        )

        def mlp(n_in, n_out, act):
            return nn.Sequential(
                nn.Linear(n_in, h), act(), nn.Linear(h, h), act(), nn.Linear(h, n_out)
            )

        generator = mlp(d + 2, width, nn.ReLU)
        d1 = mlp(width + 2, 1, lambda: nn.LeakyReLU(0.2))
        d2 = mlp(width, 1, lambda: nn.LeakyReLU(0.2))
        return encoder, generator, d1, d2

    def _activate(self, logits):
        """Softmax per categorical block, sigmoid per numeric column."""
        torch = _torch()
        parts = []
        for col, start, stop in self.codec_.blocks_:
            block = logits[:, start:stop]
            if self.codec_.kinds_[col] == "numeric":
                parts.append(torch.sigmoid(block))
            else:
                parts.append(torch.softmax(block, dim=1))
        return torch.cat(parts, dim=1)

    def _reconstruction(self, logits, x, targets):
        """Negative log-likelihood of Eq. (8): cross-entropy per categorical, Gaussian per numeric."""
        torch = _torch()
        f = torch.nn.functional
        total = logits.new_zeros(())
        j = 0
        for col, start, stop in self.codec_.blocks_:
            if self.codec_.kinds_[col] == "numeric":
                pred = torch.sigmoid(logits[:, start])
                total = total + ((pred - x[:, start]) ** 2).mean() / (
                    2 * float(self.numeric_sigma) ** 2
                )
            else:
                total = total + f.cross_entropy(logits[:, start:stop], targets[:, j])
                j += 1
        return total

    # -- fitting -----------------------------------------------------------------------------------

    def fit(self, df: pd.DataFrame, random_state: Any = None) -> Imposter:
        """Train ``E``, ``G``, ``D1``, ``D2`` on ``df`` (Algorithm 2).

        Parameters
        ----------
        df : DataFrame
            The training table; it holds ``private``, ``label`` and ``columns``.
        random_state : None, int >= 0 or numpy.random.Generator
            Seeds the weight initialisation, the batch order and the training noise: an int
            ``s`` seeds torch with ``s``; a Generator gives one int drawn from it
            (:func:`ppdp.base.check_random_state`).
        """
        validate_hyperparameters(self)
        seed = _training_seed(random_state)
        private, label, columns = self.private, self.label, self.columns
        if private is None:
            raise ValueError(
                "private must name the binary private column of df (Imposter(private=...)), "
                "got None"
            )
        df = _check_frame(df)
        values = check_private_attribute(df, private, label)
        cols = _check_columns(df, columns, [private])
        if label is not None and label not in cols:
            cols = [*cols, label]
        if len(df) < 2:
            raise ValueError(f"df needs at least 2 rows to train, got {len(df)}")
        torch = _torch()
        f = torch.nn.functional
        self.private_, self.label_, self.columns_ = private, label, cols
        self.private_values_ = values
        self.private_dtype_ = df[private].dtype
        self.output_columns_ = [c for c in df.columns if c in cols or c == private]
        self.n_fitted_ = len(df)
        self.fitted_columns_ = list(df.columns)
        self.fitted_index_ = df.index.copy()
        self.unmodelled_ = [c for c in df.columns if c not in self.output_columns_]
        s_np = (df[private].to_numpy() == values[1]).astype(np.float32)
        self.private_prior_ = float(s_np.mean())
        self.codec_ = TableCodec().fit(df[cols])
        x_np = self.codec_.encode(df[cols])
        t_np = self.codec_.targets(df[cols])

        previous_threads = torch.get_num_threads()
        previous_det = torch.are_deterministic_algorithms_enabled()
        previous_warn = torch.is_deterministic_algorithms_warn_only_enabled()
        torch.set_num_threads(int(self.n_threads))
        _set_deterministic(True)
        try:
            torch.manual_seed(seed)
            gen = torch.Generator().manual_seed(seed)
            enc, dec, d1, d2 = self._build(self.codec_.width_)
            self.encoder_, self.generator_, self.d1_, self.d2_ = enc, dec, d1, d2

            def adam(params):
                # foreach: the same arithmetic, one call per step for all of a network's tensors
                return torch.optim.Adam(params, lr=float(self.lr), betas=(0.5, 0.9), foreach=True)

            opt_eg = adam([*enc.parameters(), *dec.parameters()])
            opt_d1, opt_d2 = adam(d1.parameters()), adam(d2.parameters())
            discriminators = torch.nn.ModuleList([d1, d2])
            x_all = torch.from_numpy(x_np)
            t_all = torch.from_numpy(t_np)
            s_all = torch.from_numpy(s_np)
            n = x_all.shape[0]
            m = min(int(self.batch_size), n)
            bce = f.binary_cross_entropy_with_logits
            history = []
            from tqdm import tqdm

            for epoch in tqdm(
                range(int(self.epochs)), desc="IMPOSTER", disable=not self.progress, leave=False
            ):
                perm = torch.randperm(n, generator=gen)
                sums = dict.fromkeys(
                    ("recon", "kl", "d1_loss", "g_d1_loss", "d2_loss", "d2_accuracy", "g_loss"), 0.0
                )
                n_batches = 0
                for start in range(0, n - m + 1, m):
                    idx = perm[start : start + m]
                    x, t, s = x_all[idx], t_all[idx], s_all[idx]
                    s_oh = torch.stack([1 - s, s], dim=1)
                    # lines 2-4: encode, reparameterize, reconstruct x~ = G(E(x) | s)
                    hid = enc["body"](x)
                    mu, logvar = enc["mu"](hid), enc["logvar"](hid)
                    zl = mu + torch.exp(0.5 * logvar) * torch.randn(mu.shape, generator=gen)
                    logits_rec = dec(torch.cat([zl, s_oh], dim=1))
                    x_tilde = self._activate(logits_rec)
                    # line 5: x^ = G(z | s), z ~ N(0, I)
                    z = torch.randn((m, int(self.latent_dim)), generator=gen)
                    x_hat = self._activate(dec(torch.cat([z, s_oh], dim=1)))
                    # line 8: generated minibatches with s = 0 and s = 1
                    z2 = torch.randn((2 * m, int(self.latent_dim)), generator=gen)
                    s2 = torch.cat([torch.zeros(m), torch.ones(m)])
                    s2_oh = torch.stack([1 - s2, s2], dim=1)
                    x_priv = self._activate(dec(torch.cat([z2, s2_oh], dim=1)))
                    # line 6: D1 ascends V1 (Eq. 11)
                    d1_loss = bce(
                        d1(torch.cat([x_tilde.detach(), s_oh], 1)).squeeze(1), torch.ones(m)
                    ) + bce(d1(torch.cat([x_hat.detach(), s_oh], 1)).squeeze(1), torch.zeros(m))
                    opt_d1.zero_grad()
                    d1_loss.backward()
                    opt_d1.step()
                    # line 9: D2 ascends V2 (Eq. 12)
                    d2_logits = d2(x_priv.detach()).squeeze(1)
                    d2_loss = bce(d2_logits, s2)
                    opt_d2.zero_grad()
                    d2_loss.backward()
                    opt_d2.step()
                    # lines 7, 10, 11: E and G descend Eq. (13). D1 and D2 pass the gradient
                    # back to their inputs only: gradients of their own weights would be
                    # discarded (their next step zeroes them first), so none are computed
                    discriminators.requires_grad_(False)
                    recon = self._reconstruction(logits_rec, x, t)
                    kl = (-0.5 * (1 + logvar - mu**2 - torch.exp(logvar)).sum(dim=1)).mean()
                    g_d1 = bce(d1(torch.cat([x_hat, s_oh], 1)).squeeze(1), torch.ones(m))
                    d2_out = d2(x_priv).squeeze(1)
                    if self.privacy_loss == "minimax":
                        g_d2 = -bce(d2_out, s2)
                    else:
                        g_d2 = bce(d2_out, torch.full((2 * m,), 0.5))
                    g_loss = recon + kl + g_d1 + float(self.lam) * g_d2
                    opt_eg.zero_grad()
                    g_loss.backward()
                    opt_eg.step()
                    discriminators.requires_grad_(True)
                    with torch.no_grad():
                        acc = ((d2_logits > 0).float() == s2).float().mean()
                    for key, val in (
                        ("recon", recon),
                        ("kl", kl),
                        ("d1_loss", d1_loss),
                        ("g_d1_loss", g_d1),
                        ("d2_loss", d2_loss),
                        ("d2_accuracy", acc),
                        ("g_loss", g_loss),
                    ):
                        sums[key] += float(val.detach())
                    n_batches += 1
                history.append({"epoch": epoch + 1, **{k: v / n_batches for k, v in sums.items()}})
                logger.debug("IMPOSTER epoch %d: %s", epoch + 1, history[-1])
                if not all(np.isfinite(v) for v in history[-1].values()):
                    raise FloatingPointError(
                        f"training diverged at epoch {epoch + 1} (non-finite loss {history[-1]}); "
                        f"lower lr (now {self.lr}) or lam (now {self.lam})"
                    )
            self.history_ = pd.DataFrame(history)
            logger.info(
                "IMPOSTER: %d epochs on %d rows, last generator loss %.4g, privacy discriminator "
                "accuracy %.3f",
                int(self.epochs),
                n,
                history[-1]["g_loss"] if history else float("nan"),
                history[-1]["d2_accuracy"] if history else float("nan"),
            )
            for net in (enc, dec, d1, d2):
                net.eval()
        finally:
            torch.set_num_threads(previous_threads)
            _set_deterministic(previous_det, previous_warn)
        return self

    # -- sampling ----------------------------------------------------------------------------------

    def _check_fitted(self):
        if not hasattr(self, "history_"):
            raise NotFittedError("this Imposter is not fitted yet; call fit(df) first")

    def generate_activated(self, z: np.ndarray, s01: np.ndarray) -> np.ndarray:
        """Generator outputs (softmax/sigmoid blocks) for latent codes ``z`` and conditions ``s``."""
        self._check_fitted()
        torch = _torch()
        previous_threads = torch.get_num_threads()
        torch.set_num_threads(int(self.n_threads))
        try:
            with torch.no_grad():
                zt = torch.from_numpy(np.asarray(z, dtype=np.float32))
                st = torch.from_numpy(np.asarray(s01, dtype=np.float32))
                s_oh = torch.stack([1 - st, st], dim=1)
                out = self._activate(self.generator_(torch.cat([zt, s_oh], dim=1))).numpy()
        finally:
            torch.set_num_threads(previous_threads)
        return out

    def sample(self, n: int, random_state: Any = None, s: Any = None) -> pd.DataFrame:
        """Draw ``n`` synthetic records ``(x^, s)`` with the training table's columns and dtypes.

        ``s`` is drawn from its training marginal unless given (one of the two values, or an
        array of ``n`` such values). Generation: ``z ~ N(0, I)``, ``x^ = G(z | s)`` (Eq. 9), then
        categories drawn from the softmax blocks with ``rng``.
        """
        self._check_fitted()
        check_params({"n": n}, {"n": _POSITIVE_INT}, "Imposter.sample")
        rng = check_random_state(random_state)
        n = int(n)
        if s is None:
            s01 = (rng.random(n) < self.private_prior_).astype(np.float32)
        else:
            s_arr = np.broadcast_to(np.asarray(s, dtype=object), (n,))
            known = np.isin(s_arr, self.private_values_)
            if not known.all():
                raise ValueError(
                    f"s must hold values of {list(self.private_values_)}, got {s_arr[~known][:3]}"
                )
            s01 = (s_arr == self.private_values_[1]).astype(np.float32)
        z = rng.standard_normal((n, int(self.latent_dim))).astype(np.float32)
        table = self.codec_.decode(self.generate_activated(z, s01), rng)
        table[self.private_] = pd.Series(
            np.where(s01 == 1, self.private_values_[1], self.private_values_[0])
        )
        table[self.private_] = table[self.private_].astype(self.private_dtype_)
        return table[self.output_columns_]

    def guarantee_checks(self) -> list:
        """None: IMPOSTER declares no measurable bound.

        ``lam`` weighs the privacy discriminator's game in the generator's loss (Eq. 10); how
        well the release hides ``s`` is measured by attacks (the benchmark, Table 2), not
        promised. The empty list makes :func:`ppdp.guarantees.guarantee_report` say so.
        """
        self._check_fitted()
        return []

    def release(self, random_state: Any = None, *, n: int | None = None) -> pd.DataFrame:
        """``n`` synthetic records with the fitted table's columns (see the class docstring).

        ``n`` defaults to the number of fitted rows; the index is the fitted table's when ``n``
        equals that number, a fresh ``RangeIndex(n)`` otherwise. The same int ``random_state``
        gives the same table.
        """
        check_fitted(self, ["history_", "n_fitted_"])
        rng = check_random_state(random_state)
        check_params({"n": n}, {"n": [*_POSITIVE_INT, None]}, "Imposter.release")
        enforce(self.guarantee_checks())
        if n is None:
            n = self.n_fitted_
        n = int(n)
        table = self.sample(n, rng)
        table.index = self.fitted_index_ if n == self.n_fitted_ else pd.RangeIndex(n)
        for col in self.unmodelled_:
            table[col] = pd.Series(pd.NA, index=table.index, dtype="object")
        return table[self.fitted_columns_]
