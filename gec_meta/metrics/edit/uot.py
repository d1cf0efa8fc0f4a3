"""UOT-ERRANT (Goto et al. 2025, §3.3): ERRANT's edits, compared by unbalanced optimal
transport of their edit vectors instead of exact matching.

For one (hypothesis, reference) pair of a sentence: V^hyp and V^ref are the edit vectors of
the hypothesis and reference edit sets (Eqs. 5-6, :mod:`.vectors`), a and b their masses, C
their costs, T = UOT(a, b, C) (Eq. 4, :mod:`.transport`), and

    tp = sum_ij T_ij,   fp = sum_i a_i - tp,   fn = sum_j b_j - tp        (Eqs. 7-9)

are the statistics; precision, recall and F_0.5 (Eqs. 10-12) are the edit core's.  Best
reference per sentence (max F, then TP, -FP, -FN) and errant_compare's corpus running-total
choice are inherited from :class:`~gec_meta.metrics.edit.core.PRFMetric`; edits (ERRANT,
references re-extracted from their text, noop/UNK dropped) from
:class:`~gec_meta.metrics.edit.errant.Errant`.  Only :meth:`UOTErrant.edit_stats` is overridden.

Speed, for sweeps over lambda (§4.1): the edit vectors of the whole run come from one
:class:`~.vectors.EditVectorizer` call (disk- and process-cached), the masses and cost matrices
of every distinct (source, hypothesis edits, reference edits) problem are memoised for the
process, and each distinct problem is solved once per setting (systems share most outputs), so
a new lambda costs only the Sinkhorn iterations.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Sequence

import numpy as np

from gec_meta.errors import ConfigError
from gec_meta.metrics.edit.errant import Errant
from gec_meta.metrics.edit.uot_transport import (
    UOTSettings, cost_matrix, edit_masses, transport_counts, transport_plan, transport_plans_batched,
)
from gec_meta.metrics.edit.uot_vectors import VECTORIZE, EditKey, EditVectorizer, edit_set_key

log = logging.getLogger("gec_meta")
SOLVERS = ("pot", "batched")

# (vector namespace, mass, cost, precision, hyp set key, ref set key) -> (a (H,), b (G,), C (H, G))
_PROBLEMS: dict[tuple[str, str, str, str, str, str], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


@dataclass(frozen=True)
class Alignment:
    """One solved transport problem, for inspection (Figure 4).

    Attributes:
        hyp_edits: shape (H,), reference edits: ``ref_edits`` shape (G,) (core ``Edit``s).
        hyp_vectors: shape (H, D); ref_vectors: shape (G, D).
        a: shape (H,); b: shape (G,); C: shape (H, G); T: shape (H, G).
        tp, fp, fn: Eqs. 7-9; precision, recall, f: Eqs. 10-12.
    """

    hyp_edits: tuple
    ref_edits: tuple
    hyp_vectors: np.ndarray
    ref_vectors: np.ndarray
    a: np.ndarray
    b: np.ndarray
    C: np.ndarray
    T: np.ndarray
    tp: float
    fp: float
    fn: float
    precision: float
    recall: float
    f: float


@dataclass(frozen=True)
class UOTErrant(Errant, UOTSettings):
    """UOT-ERRANT; ``level: corpus`` (F of accumulated transported mass) or ``sentence``
    (``sent_uot_errant``: mean over sentences of F_0.5 against each sentence's best reference;
    TrueSkill, the paper's aggregation, reads the same sentence scores at either level).

    Fields (defaults = the paper's, §4.1 and Table 2):
        beta: 0.5 (§3.3).
        reference_edits: ``extract`` (ERRANT on the reference text, as the paper) | ``gold``.
        encoder: the sentence encoder Enc of Eq. 1 (config group ``encoder``; the paper:
            ELECTRA-base, mean pooling, 128 tokens).
        vectorize: ``remove`` (Eq. 1) | ``add`` (Table 2).
        mass, cost, reg, reg_m, reg_type, max_iter, stop_thr: the transport settings, declared
            once in :class:`~gec_meta.metrics.edit.uot_transport.UOTSettings` (mass ``norm``,
            cost ``euclidean``, epsilon = lambda = 0.1, POT 0.9.5's ``kl``, 1000 iterations,
            1e-6).
        solver: ``pot`` (one ``ot.unbalanced.sinkhorn_stabilized_unbalanced`` call per problem,
            the paper's solver) | ``batched`` (the same iteration run on stacks of same-shape
            problems, :func:`~.transport.transport_plans_batched`; equal up to float rounding,
            20-50x faster: used by the lambda search).
        precision: ``float64`` (default) | ``float32``: the official code's float32 arithmetic
            (masses, costs, POT and TP/FP/FN as there; needs ``solver: pot``), for cross-checks
            only: its sentence F differs from float64 by a few 1e-3 (up to 5.3e-3 on SEEDA).
            In the signature only when not the default.

    Differences from the official code, on purpose: edits are applied left to right with
    ERRANT's order of insertions at one position (:func:`gec_meta.edits.edit.apply_edits`, as
    gecommon); zero-mass edits are taken out of the transport problem (the official code hands
    them to POT, which fails at iteration 0 and returns an un-iterated plan; see
    :mod:`~gec_meta.metrics.edit.uot_transport`).
    """

    encoder: Any = None
    vectorize: str = "remove"
    solver: str = "pot"

    corpus_name: ClassVar[str] = "uot_errant"
    sentence_name: ClassVar[str] = "sent_uot_errant"
    # 2: insertions at one position in ERRANT's order (issue 19.1); cached v1 statistics of
    # edit sets with such insertions were built from wrong sentences.
    version: ClassVar[str] = "2"

    def __post_init__(self):
        super().__post_init__()
        if self.encoder is None or not hasattr(self.encoder, "sentence_embeddings"):
            raise ConfigError(
                f"metric.encoder must be an Encoder (encoder=minilm|electra_base|...), got {self.encoder!r}"
            )
        if self.vectorize not in VECTORIZE:
            raise ConfigError(f"metric.vectorize must be one of {VECTORIZE}, got {self.vectorize!r}")
        self.settings  # validates mass, cost, reg, reg_m, reg_type
        if self.solver not in SOLVERS:
            raise ConfigError(f"metric.solver must be one of {SOLVERS}, got {self.solver!r}")
        if self.precision == "float32" and self.solver != "pot":
            raise ConfigError("metric.precision=float32 reproduces the official code's POT calls: "
                              f"it needs metric.solver=pot, got {self.solver!r}")

    # ----------------------------------------------------------------- identity
    @property
    def settings(self) -> UOTSettings:
        """The transport settings alone (a plain :class:`UOTSettings`; numbers as floats/ints)."""
        values = {f.name: getattr(self, f.name) for f in fields(UOTSettings)}
        for k in ("reg", "reg_m", "stop_thr"):
            values[k] = float(values[k])
        values["max_iter"] = int(values["max_iter"])
        return UOTSettings(**values)

    @property
    def vectorizer(self) -> EditVectorizer:
        return EditVectorizer(self.encoder, self.vectorize)

    def options(self) -> dict[str, object]:
        opts = dict(super().options())
        opts["encoder"] = f"{self.encoder.signature()}|pooling={self.encoder.pooling}"
        if self.precision == "float64":  # the default stays out of signatures (and cache keys)
            del opts["precision"]
        return opts

    # ----------------------------------------------------------------- stage 1
    def edit_vectors(self, sources: Sequence[str], edit_sets: Sequence[tuple[int, tuple[EditKey, ...]]]):
        """Edit vectors of (sentence index, edit keys) items, shape (M,) of (E_m, D) arrays."""
        return self.vectorizer.vectors([(sources[n], keys) for n, keys in edit_sets])

    def edit_stats(self, sources, hypotheses, references, matches: np.ndarray) -> np.ndarray:
        """UOT (tp, fp, fn) of every match (Eqs. 7-9), shape (S, N, R, 3).

        Args:
            matches: object array (S, N, R) of :class:`~gec_meta.metrics.edit.core.EditMatch`.
        """
        S, N, R = matches.shape
        src = [" ".join(s.split()) for s in sources]
        # 1. every distinct (sentence, edit set) and every distinct problem
        set_index: dict[tuple[int, tuple], int] = {}
        problem_of = np.empty((S, N, R), dtype=object)
        for (s, n, r), m in np.ndenumerate(matches):
            hk = tuple(e.key for e in m.hyp_edits)
            rk = tuple(e.key for e in m.ref_edits)
            for k in (hk, rk):
                set_index.setdefault((n, k), len(set_index))
            problem_of[s, n, r] = (n, hk, rk)
        vectorizer = self.vectorizer
        namespace = vectorizer.signature()
        settings = self.settings
        items = list(set_index)
        set_keys = [edit_set_key(src[n], k) for n, k in items]
        problems = set(problem_of.ravel())
        # Vectors are only read when some problem is not yet prepared in this process.
        prepared = all(
            (namespace, settings.mass, settings.cost, settings.precision,
             set_keys[set_index[(n, hk)]], set_keys[set_index[(n, rk)]])
            in _PROBLEMS for n, hk, rk in problems
        )
        vectors: dict[int, np.ndarray] = {}
        if not prepared:
            vectors = dict(enumerate(vectorizer.vectors([(src[n], k) for n, k in items])))
        # 2. solve every distinct problem once
        order = list(problems)
        prepared_problems = []
        for n, hk, rk in order:
            hi, ri = set_index[(n, hk)], set_index[(n, rk)]
            prepared_problems.append(self._problem(namespace, set_keys[hi], set_keys[ri], vectors.get(hi), vectors.get(ri)))
        if self.solver == "batched":
            plans = transport_plans_batched(prepared_problems, settings)
        else:
            plans = [transport_plan(a, b, C, settings) for a, b, C in prepared_problems]
        solved = {prob: transport_counts(T, a, b, settings.precision)
                  for prob, T, (a, b, _) in zip(order, plans, prepared_problems)}
        out = np.zeros((S, N, R, 3))
        for idx, prob in np.ndenumerate(problem_of):
            out[idx] = solved[prob]
        return out

    def _problem(self, namespace: str, hkey: str, rkey: str, hv, rv):
        """(a (H,), b (G,), C (H, G)) of one problem, memoised for the process."""
        key = (namespace, self.mass, self.cost, self.precision, hkey, rkey)
        prob = _PROBLEMS.get(key)
        if prob is None:
            a = edit_masses(hv, self.mass, self.precision)
            b = edit_masses(rv, self.mass, self.precision)
            prob = _PROBLEMS[key] = (a, b, cost_matrix(hv, rv, self.cost, self.precision))
        return prob

    # ----------------------------------------------------------------- inspection
    def align(self, source: str, hypothesis: str, reference: str) -> Alignment:
        """The transport plan of one (source, hypothesis, reference) triple (Figure 4)."""
        matches = self.match([source], [[hypothesis]], [[reference]])
        m = matches[0, 0, 0]
        hk = tuple(e.key for e in m.hyp_edits)
        rk = tuple(e.key for e in m.ref_edits)
        hv, rv = self.vectorizer.vectors([(source, hk), (source, rk)])
        a, b = edit_masses(hv, self.mass, self.precision), edit_masses(rv, self.mass, self.precision)
        C = cost_matrix(hv, rv, self.cost, self.precision)
        T = transport_plan(a, b, C, self.settings)
        tp, fp, fn = transport_counts(T, a, b, self.precision)
        p, r, f = (float(x) for x in self.prf(np.array([tp, fp, fn])))
        return Alignment(m.hyp_edits, m.ref_edits, hv, rv, a, b, C, T, tp, fp, fn, p, r, f)
