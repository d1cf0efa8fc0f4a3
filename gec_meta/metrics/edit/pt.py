"""PT-M2 and PT-ERRANT (Gong et al. 2022): edit metrics whose edits are weighted by how much
a pretrained scorer's score moves when the edit alone is applied.

For a source S, a reference R and each edit e of the union U of hypothesis and reference
edits (keyed by (start, end, correction)), with S_e = S with only e applied (Algorithm 1,
``Correct(S, e)``):

    delta_e = score(S_e, R) - score(S, R)          (Eq. 1; score = BERTScore F by default)
    w_e     = |delta_e|                              (weights=absolute, §4.2 "Edit Score")
    w_e     = 1 / |delta_e|, 0 if delta_e == 0       (weights=inverse, the Figure 3 ablation)
    TP = sum of w over matched hypothesis edits, FP = over unmatched hypothesis edits,
    FN = over unmatched reference edits              (Eqs. 2-4 as weighted counts)

Sentence-level variants (``level: sentence``, names ``sent_pt_m2`` / ``sent_pt_errant``; the
paper's main results, Table 5 "Sentence") add the official code's fallback (``compute_weight_edits(...,
sent_level=True)`` in pygongnlp/PT-M2): when every weight of U is zero, each edit of U gets
1/|U|, i.e. the sentence is scored as plain SentM2 / SentERRANT.  The corpus-level variants
keep zero weights.  The level therefore changes the statistics, and the sentence-level name
stays in the cache key (``level_in_statistics``).

Only the weighting hook :meth:`~gec_meta.metrics.edit.core.EditMetric.edit_stats` (and the
identity: the scorer's signature enters :meth:`options` and thus the cache key) is
overridden; matching is M2's / ERRANT's own.  With ``scorer=self`` (unit weights) the
statistics are exactly M2's / ERRANT's.

gec-metrics 0.1.1 (``PTERRANT`` with ``BertScore``) computes the same corpus-level PT-ERRANT
statistics: weights per reference, unnormalised, on the deduplicated union of hypothesis and
reference edits.  Its running-total reference choice is errant_compare's (F, TP, -FP, -FN);
ours is PT-M2's own (:meth:`PTErrant.running_best`: F, TP, then the smaller proposed +
beta^2 gold), which chooses otherwise where F and TP tie under PT weights (SEEDA +Fluency,
MiniLM: one sentence of LM-Critic, 0.502439 -> 0.502507; review of session 23).  Configured the
same way (e.g. ``encoder=minilm``: MiniLM layer 6, no idf, no rescaling;
``scorer.empty_pair=bert_score``, the default) the system scores otherwise agree to ~1e-7
(float32 batching noise).  With
``scorer.empty_pair=identical`` an empty reference (an annotator deleted the sentence) gives
its delete-everything edit the weight |F("", "") - F(S, "")| = 1 instead of 0.

Speed: all (S_e, R) and (S, R) pairs of the whole run are collected first, deduplicated and
scored in one scorer call (each distinct text is embedded once, cached on disk).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

import numpy as np

from gec_meta.data.m2 import apply_edits as apply_gold_edits
from gec_meta.edits.edit import EditKey, apply_edits
from gec_meta.errors import ConfigError
from gec_meta.metrics.base import f_beta
from gec_meta.metrics.edit.core import lexicographic_best
from gec_meta.metrics.edit.errant import Errant
from gec_meta.metrics.edit.m2 import M2
from gec_meta.stopwatch import timed

WEIGHTINGS = ("absolute", "inverse")

#: Sentence scores of PT metrics with a model scorer closer than this are ties
#: (:meth:`gec_meta.metrics.base.Metric.comparable_scores`).  Edit weights are differences of
#: float32-based scores (~1e-3); encoding a text in another batch moves them by up to ~2e-6
#: (SEEDA +Fluency PT-ERRANT, MiniLM: sentence scores differ by <= 1.8e-6 between encoder batch
#: sizes 64 and 7), while distinct sentence scores of a run differ by >= 4e-5.  Without it, a
#: statistics cache whose systems were scored under different encoder caches turned ~70 draws
#: into wins (issue 17 item 8).
PT_TIE_TOLERANCE = 1e-5


@dataclass(eq=False)
class SelfScorer:
    """The ``self`` edit scorer: weight 1 for every edit (PT-M2's ``--scorer self``)."""

    name: ClassVar[str] = "self"
    unit_weights: ClassVar[bool] = True

    def signature(self) -> str:
        return "self"

    def score(self, cands, refs, idf_sentences=None) -> np.ndarray:
        return np.zeros(len(cands))


def edit_weights(deltas: np.ndarray, weights: str) -> np.ndarray:
    """PT edit weights from score differences.

    Args:
        deltas: any shape, score(S_e, R) - score(S, R).
        weights: ``absolute`` (|delta|, Eq. 1) or ``inverse`` (1/|delta|, Figure 3; 0 where
            delta == 0: an edit the scorer cannot see carries no weight).
    """
    a = np.abs(np.asarray(deltas, dtype=np.float64))
    if weights == "absolute":
        return a
    with np.errstate(divide="ignore"):
        return np.where(a > 0, 1.0 / np.where(a > 0, a, 1.0), 0.0)


@dataclass(frozen=True)
class PTWeighting:
    """The PT weighting hook, mixed into an edit metric (put it first in the bases).

    Fields:
        scorer: the edit scorer (config group ``scorer``: bertscore, bartscore, self).
        weights: ``absolute`` (the paper) or ``inverse`` (Figure 3 ablation).
    """

    scorer: Any = field(default_factory=SelfScorer)
    weights: str = "absolute"

    level_in_statistics: ClassVar[bool] = True  # the sentence-level all-zero fallback

    @property
    def tie_tolerance(self) -> float:  # type: ignore[override]
        """:data:`PT_TIE_TOLERANCE` with a model scorer (float32 states), 0 with ``self``."""
        return 0.0 if getattr(self.scorer, "unit_weights", False) else PT_TIE_TOLERANCE

    def __post_init__(self):
        parent = getattr(super(), "__post_init__", None)
        if parent is not None:  # e.g. Errant's check of reference_edits
            parent()
        if self.weights not in WEIGHTINGS:
            raise ConfigError(f"metric.weights must be one of {WEIGHTINGS}, got {self.weights!r}")
        if not hasattr(self.scorer, "signature") or not hasattr(self.scorer, "score"):
            raise ConfigError(f"metric.scorer must be an edit scorer (scorer=bertscore|bartscore|self), got {self.scorer!r}")

    def options(self) -> dict[str, object]:
        opts = dict(super().options())
        opts["scorer"] = self.scorer.signature()
        return opts

    def reference_texts(self, sources: Sequence[str], references: Sequence[Sequence[Any]]) -> list[list[str]]:
        """Reference sentences, shape (R, N): the text itself, or the gold edits applied."""
        if getattr(self, "reference_kind", "text") == "m2":
            return [[apply_gold_edits(sources[n], ref[n]) for n in range(len(sources))] for ref in references]
        return [[" ".join(str(ref[n]).split()) for n in range(len(sources))] for ref in references]

    def edit_stats(self, sources, hypotheses, references, matches: np.ndarray) -> np.ndarray:
        """Weighted (tp, fp, fn) of every match, shape (S, N, R, 3).

        Args:
            matches: object array (S, N, R) of :class:`EditMatch`.
        """
        with timed("pt_weights"):
            return self._weighted_counts(sources, references, matches)

    def _weighted_counts(self, sources, references, matches: np.ndarray) -> np.ndarray:
        S, N, R = matches.shape
        unit = bool(getattr(self.scorer, "unit_weights", False))
        src = [" ".join(s.split()) for s in sources]
        refs = self.reference_texts(sources, references) if not unit else None
        # 1. every (sentence, reference, edit) whose weight is needed
        needed: dict[tuple[int, int], set[EditKey]] = {}
        for (s, n, r), m in np.ndenumerate(matches):
            bucket = needed.setdefault((n, r), set())
            bucket.update(e.key for e in m.hyp_edits)
            bucket.update(e.key for e in m.ref_edits)
        # 2. one scorer call for all distinct (S_e, R) and (S, R) pairs
        weight: dict[tuple[int, int, EditKey], float] = {}
        if unit:
            for (n, r), keys in needed.items():
                for k in keys:
                    weight[(n, r, k)] = 1.0
        else:
            slots = [(n, r, k) for (n, r), keys in needed.items() for k in sorted(keys)]
            base = sorted(needed)
            cands = [src[n] for n, r in base] + [apply_edits(src[n], [k]) for n, r, k in slots]
            rtext = [refs[r][n] for n, r in base] + [refs[r][n] for n, r, k in slots]
            idf_sents = [t for ref in refs for t in ref]
            scores = np.asarray(self.scorer.score(cands, rtext, idf_sents), dtype=np.float64)
            base_score = dict(zip(base, scores[: len(base)]))
            deltas = scores[len(base):] - np.array([base_score[(n, r)] for n, r, k in slots])
            for slot, w in zip(slots, edit_weights(deltas, self.weights)):
                weight[slot] = float(w)
        # 3. weighted counts
        fallback = self.level == "sentence"
        out = np.zeros((S, N, R, 3))
        for (s, n, r), m in np.ndenumerate(matches):
            w = {e.key: weight[(n, r, e.key)] for e in (*m.hyp_edits, *m.ref_edits)}
            if fallback and w and sum(w.values()) == 0.0:
                w = dict.fromkeys(w, 1.0 / len(w))
            tp = sum(w[e.key] for e, ok in zip(m.hyp_edits, m.hyp_matched) if ok)
            fp = sum(w[e.key] for e, ok in zip(m.hyp_edits, m.hyp_matched) if not ok)
            fn = sum(w[e.key] for e, ok in zip(m.ref_edits, m.ref_matched) if not ok)
            out[s, n, r] = (tp, fp, fn)
        return out


@dataclass(frozen=True)
class PTM2(PTWeighting, M2):
    """PT-M2: m2scorer matching (Dahlmeier & Ng 2012), PT edit weights (Gong et al. 2022).
    ``level: corpus``: F0.5 of the weighted counts summed over the corpus (Table 5 "Corpus");
    ``level: sentence`` (``sent_pt_m2``, the paper's main PT-M2, Table 5 "Sentence"): mean over
    sentences of F0.5 against each sentence's best annotator, with the all-zero fallback."""

    corpus_name: ClassVar[str] = "pt_m2"
    sentence_name: ClassVar[str] = "sent_pt_m2"
    version: ClassVar[str] = "1"


@dataclass(frozen=True)
class PTErrant(PTWeighting, Errant):
    """PT-ERRANT: ERRANT edits and matching (Bryant et al. 2017), PT weights; ``level`` as
    :class:`PTM2` (``sent_pt_errant``: mean sentence F0.5 with the all-zero fallback, Table 5)."""

    corpus_name: ClassVar[str] = "pt_errant"
    sentence_name: ClassVar[str] = "sent_pt_errant"
    version: ClassVar[str] = "1"

    def running_best(self, cand: np.ndarray, own: np.ndarray) -> np.ndarray:
        """The corpus-level choice of PT-M2's code (``errant_score.batch_multi_pre_rec_f1_errant``,
        m2scorer's rule on ERRANT's weighted counts): the largest unrounded F_beta of the running
        totals plus the reference's counts, then the larger running TP, then the *smaller*
        proposed + beta^2 gold (running (TP + FP) + beta^2 (TP + FN)); the first on a full tie.
        With unit weights every reference proposes the same, so this is errant_compare's
        (F, TP, -FP, -FN) up to its rounding; with PT weights a reference's weights move its
        proposed total, and the two rules part where F and TP tie (every reference while the
        running TP is 0).  gec-metrics' ``PTERRANT`` keeps (F, TP, -FP, -FN).

        Args:
            cand: shape (S, R, 3), the running totals plus each reference's counts.
            own: shape (S, R, 3), each reference's counts of this sentence alone.

        Returns:
            int array of shape (S,).
        """
        tp, fp, fn = cand[..., 0], cand[..., 1], cand[..., 2]
        f = f_beta(tp, fp, fn, self.beta)[2]
        return lexicographic_best((f, tp, -((tp + fp) + self.beta * self.beta * (tp + fn))))
