"""IMPOSTER: implicit-privacy detection and protection by data generation.

Yang, Wang, Hu, Chen and Jiang, "Implicit privacy preservation: a framework based on data
generation", Security and Safety 1 (2022) 2022008.

Two modules:

Detection (Section 4.2.1, Definition 2, Algorithm 1)
    :func:`attribute_correlations` scores every public attribute ``x_i`` against the explicit
    private attribute ``s``; :func:`detect_implicit_privacy` keeps those with score ``>= theta``
    and, when a performance threshold ``beta`` is given, checks with a classifier ``f`` that the
    kept set predicts ``s`` with accuracy (or F1) ``>= beta``; otherwise it returns the empty set.

    The paper describes the score as normalized mutual information (0 = independent, 1 = perfect
    correlation) but prints Eq. (7) as ``(H(x|s) + H(s|x)) / H(x, s)``, which is a normalized
    *distance* (0 = identical, 1 = independent); it equals ``1 - I(x; s) / H(x, s)``. We select on
    a proper NMI from :mod:`ppdp.infotheory` (``I / mean(H(x), H(s))``, scikit-learn's arithmetic
    normalization) and report the printed formula's value beside it. Numeric attributes with more
    than ``max_categories`` distinct values are cut into ``n_bins`` quantile bins before any
    information measure (plug-in mutual information of a near-unique column is biased up to
    ``H(s)``; the paper does not say how it treated them). Pearson's correlation is offered as the
    alternative ``rho`` of Definition 2 (absolute value; a categorical attribute scores the largest
    absolute point-biserial correlation of its one-hot indicators with ``s``).

Protection (Section 4.2.2, Eqs. 8-13, Algorithm 2), class :class:`Imposter`
    A VAE (encoder ``E``, decoder/generator ``G``; Eq. 8) whose decoder is also the generator of a
    conditional GAN with two discriminators (Eq. 10): ``D1`` tells reconstructions
    ``x~ = G(E(x) | s)`` from generated samples ``x^ = G(z | s)``, both conditioned on ``s``
    (Eq. 11); ``D2`` predicts ``s`` from a generated sample (Eq. 12) and ``G`` is trained to fool it
    with weight ``lambda``. ``lambda = 0`` is the CGAN + VAE the paper compares against.

    Mixed tables: each categorical column is one-hot encoded and decoded by a softmax block
    (reconstruction = cross-entropy); each numeric column is mapped to its empirical CDF value in
    ``(0, 1)`` (mid-ranks), decoded by a sigmoid and mapped back by the inverse empirical CDF, so
    generated numerics are always values seen in training (in range, same dtype). Reconstruction of
    a numeric column is a Gaussian log-likelihood with ``sigma = numeric_sigma``.

Choices where the paper is silent or loose (also stated in the notebook):

- The generated record covers every modelled column (the public attributes and the class label);
  ``s`` is the condition and is drawn from its training marginal when sampling.
- ``E`` and ``G`` take one combined gradient step per batch on Eq. (13) (VAE loss + the generator
  side of Eq. 10) after ``D1`` and ``D2`` took theirs, instead of the three separate ``G`` steps of
  Algorithm 2 (lines 7, 10, 11); the objective is the same.
- ``G`` plays ``D1`` with the non-saturating loss ``-log D1(x^|s)`` (Goodfellow et al. 2014), which
  has the same fixed point as Eq. (3) and does not stall early in training.
- ``G`` plays ``D2`` as written (``privacy_loss="minimax"``: descend ``V2``); ``"confusion"``
  instead pushes ``D2``'s output towards 1/2 (cross-entropy to the uniform label), a common and
  more stable variant.
- Categorical outputs reach ``D1``/``D2`` as softmax probabilities (both the "real"
  reconstructions and the generated samples come out of ``G``, so neither is one-hot); a release
  draws each category from those probabilities.

The package is cut into four modules, each importing only from those listed before it:

- ``checks``: the input checks shared by detection and protection (the table, the private
  attribute :func:`check_private_attribute`, the attributes to score or generate, the seed);
- ``detection``: Algorithm 1, :func:`discretize_for_information`,
  :func:`attribute_correlations`, :func:`detect_implicit_privacy` and :class:`DetectionResult`;
- ``codec``: :class:`TableCodec`, the encoding of a mixed table for the generator and back;
- ``protection``: :class:`Imposter`, its networks, their training (Algorithm 2) and the
  sampling of a release.
"""

from __future__ import annotations

from .checks import check_private_attribute
from .codec import TableCodec
from .detection import (
    DetectionResult,
    attribute_correlations,
    detect_implicit_privacy,
    discretize_for_information,
)
from .protection import Imposter

__all__ = [
    "DetectionResult",
    "Imposter",
    "TableCodec",
    "attribute_correlations",
    "check_private_attribute",
    "detect_implicit_privacy",
    "discretize_for_information",
]

# The settings' vocabularies, still read here (``imposter.CORRELATIONS``); a test that replaces
# one (monkeypatch) does it in the module that defines it, where its callers look it up.
from .detection import CORRELATIONS as CORRELATIONS
from .protection import PRIVACY_LOSSES as PRIVACY_LOSSES
