"""Tables with increasing privacy along a multi-hop relay chain: BUA, PLSA, TDA, FLA.

Implements the relay-chain paper of Wei Chang and Jie Wu (privacy strengthened during propagation
on a mobile social network): a table ``T0`` travels along a social
chain ``v0 -> v1 -> ... -> vl``; participant ``v_{i-1}`` publishes ``T_i``, computed only from the
table it received, such that ``P(T_i) <= (l - i + 1) * delta`` (Sec. 2, problem formulation).

Definitions (Sec. 2 and Sec. 5)
-------------------------------
* Equivalence class: rows with identical quasi-identifier (QI) tuples.
* Privacy disclosure ``P(T) = max over classes JS(p(sensitive in T), p(sensitive in class))`` with
  the Jensen-Shannon divergence in bits (:func:`ppdp.infotheory.pairwise_js_divergence`).
* Merging cost: weighted squared Euclidean distance ``d(a, b) = sum_k w_k (a_k - b_k)^2`` with QI
  weights ``W`` (``w_k >= 0``, ``sum w_k = 1``, uniform by default). A class's QIs are replaced by the
  class mean (Sec. 5).
* Utility loss ``UL(T') = sum_t d(t', t) / sum_t d(t_bar, t)`` over rows, where ``t`` is the original
  value, ``t'`` the sanitized one and ``t_bar`` the value in the all-in-one-class table (Sec. 5): 0
  for the untouched table, 1 for the table merged into one class.

Algorithms
----------
* :func:`bua` - Algorithm 1 (bottom-up): basic groups holding every sensitive value once, a dominating
  sensitive value per group (quotas proportional to frequencies), the remaining tuples join the
  nearest group dominated by their value; then groups violating ``delta`` merge with the nearest
  group that lowers their disclosure until every class meets ``delta``; then PLSA.
* :func:`plsa` - Algorithm 2: split a class by halving each sensitive value's tuples (lower and
  upper half along the class's principal axis), so the halves keep the class's sensitive
  distribution; recurse while both halves meet the bound.
* :func:`tda` - Algorithm 3 (top-down): binary splits while both halves meet ``delta`` (phase I),
  then PLSA (phase II).
* :func:`fla` - Sec. 3.3 (forward looking): TDA phase I gives master classes; inside each master
  class the partition with the smaller loss among BUA and TDA phase II is kept (ties: TDA phase
  II). With a look-ahead
  threshold it also builds ``T1`` at the next hop's threshold, ``T2`` at the current one and ``T3``
  from ``T2`` at the next one, and publishes ``T1`` when ``2 U(T1) > U(T2) + U(T3)``.
* :class:`RelayChain` - the chain ``T_1, ..., T_l``.

Choices where the paper is silent or ambiguous
----------------------------------------------
* Relay view. A participant sees only the table it received: its units are that table's
  equivalence classes, which it can merge but never split (rows of one class are
  indistinguishable). Every output is therefore a coarsening of the input. Because class means
  are size-weighted, the loss that a participant measures on its own input differs from the loss
  against ``T0`` by a constant (parallel-axis theorem), so every comparison it makes (FLA's options
  and look-ahead) is the one it would make knowing ``T0``.
* An input table that already meets the threshold is forwarded unchanged (option I of Fig. 2); no
  coarsening can lose less.
* TDA phase I "creates clusters T1 and T2": we sort the units along the principal axis of the
  weighted QIs and along each QI axis, and take the cut with the smallest within-cluster loss among
  the cuts whose two halves both meet ``delta`` (all cuts evaluated at once with cumulative sums).
  If no cut qualifies, the set is an output class.
* BUA phase I: seeds are the tuples (units) carrying the rarest sensitive value, in row order; each
  seed takes the nearest free unit carrying each value it still lacks. Dominating values are
  handed out with quotas proportional to the value frequencies (largest remainder), greedily by the
  distance from a group's centroid to the nearest remaining unit of that value; each remaining unit
  joins the nearest group dominated by its (majority) value.
* PLSA's acceptance bound is ``min(delta, P)`` where ``P`` is the disclosure of the partition it
  receives, so PLSA never raises ``P(T)`` (Sec. 3.1: "keeping their privacy-level unchanged").
  Odd counts are rounded up and down alternately over the sensitive values.
* BUA phase II picks the violating group with the largest disclosure (ties: lowest index), scans
  the other groups by centroid distance and merges with the first whose union has a smaller
  disclosure; if none exists, with the one whose union discloses least (so the loop terminates).
* Ties are broken by row number (first row of a unit), so equal inputs give equal outputs
  (Theorem 2).
* Classes as published. Two classes of a partition can have the same mean, and then the published
  table shows them as one class (their rows are indistinguishable to a reader and to the next
  participant). Counts and labels of published tables (``RelayChain.labels_``, ``n_classes_``)
  are those of the published table; the merged class discloses no more than the worse of its
  parts (the JS divergence is convex), so the bound still holds.

Guarantee
---------
Every published table is measured before it leaves: :func:`sanitize` raises
:class:`ppdp.guarantees.GuaranteeViolation` if ``P`` of the table it is about to return exceeds
``delta``, and :class:`RelayChain` if any ``P(T_i)`` exceeds ``(l - i + 1) * delta``
(:meth:`RelayChain.guarantee_checks`).

Computation
-----------
The delta-independent parts of the algorithms (the candidate cuts of a set of units, PLSA's split
of a class, BUA's phase I) are computed once per table and reused for every threshold; whole
steps are cached by exact threshold, and BUA by the range of thresholds that decides all of its
comparisons alike. Within :func:`reuse_units` the tables of several chains are shared by content
(every chain from ``T0`` starts on the same table). None of this changes a result: the values are
the same to the last bit as those computed afresh.

Modules of the package, each importing only from the ones listed before it:

* ``checks``: the parameter and input checks shared by the others, and :data:`METHODS`;
* ``units``: a participant's units (the equivalence classes of the table it received), their
  caches and threshold windows, :func:`reuse_units`, and the reading of a table into units;
* ``measures``: disclosure, merging loss and principal axes on units;
* ``top_down``: TDA phase I, the cut search (Algorithm 3);
* ``level_split``: PLSA (Algorithm 2);
* ``bottom_up``: BUA, phases I and II, then PLSA (Algorithm 1);
* ``partition``: one participant's step on units (BUA, TDA, FLA with its look-ahead) and
  :class:`RelayWarning`;
* ``metrics``: :func:`equivalence_classes`, :func:`class_disclosure`,
  :func:`privacy_disclosure` and :func:`utility_loss`;
* ``sanitization``: :func:`generalize`, :func:`bua`, :func:`tda`, :func:`fla`, :func:`plsa` and
  :func:`sanitize` on a DataFrame;
* ``chain``: :class:`RelayChain`.
"""

from __future__ import annotations

from .chain import RelayChain
from .checks import METHODS
from .metrics import class_disclosure, equivalence_classes, privacy_disclosure, utility_loss
from .partition import RelayWarning
from .sanitization import bua, fla, generalize, plsa, sanitize, tda
from .units import reuse_units

__all__ = [
    "METHODS",
    "RelayChain",
    "RelayWarning",
    "bua",
    "class_disclosure",
    "equivalence_classes",
    "fla",
    "generalize",
    "plsa",
    "privacy_disclosure",
    "reuse_units",
    "sanitize",
    "tda",
    "utility_loss",
]

# Internals that the tests and benchmarks read through this package (``relay._js_rows``, ...).
# Replace one (monkeypatch) in the module that defines it, where its callers look it up.
from .bottom_up import _bua as _bua
from .bottom_up import _bua_run as _bua_run
from .chain import _chain_checks as _chain_checks
from .measures import REFERENCES as REFERENCES
from .measures import _js_rows as _js_rows
from .measures import _principal_axis as _principal_axis
from .measures import _principal_order as _principal_order
from .measures import _reference as _reference
from .measures import _sse as _sse
from .top_down import _best_cut as _best_cut
from .top_down import _cut_costs as _cut_costs
from .top_down import _tda_phase1 as _tda_phase1
from .units import _TOL as _TOL
from .units import UNITS as UNITS
from .units import _prepare as _prepare
from .units import _shared as _shared
from .units import _Units as _Units
from .units import _Window as _Window
