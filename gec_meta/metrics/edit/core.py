"""The one edit-metric core shared by M2, ERRANT and their weighted variants.

An edit metric compares the edits of a hypothesis with the edits of each reference:

    TP = sum of weights of hypothesis edits that match a reference edit
    FP = sum of weights of hypothesis edits that match none
    FN = sum of weights of reference edits that no hypothesis edit matches

With unit weights these are the counts of m2scorer (Dahlmeier & Ng 2012) and errant_compare
(Bryant et al. 2017).  Subclasses supply the *matching* (:meth:`EditMetric.match`: how edits
are extracted and aligned); weighted variants (PT-M2 / PT-ERRANT, Gong et al. 2022;
UOT-ERRANT, Goto et al. 2025) override the *weighting* hook :meth:`EditMetric.edit_stats` and
nothing else, so there is exactly one scoring loop.

Statistics layout: shape (S, N, R, 3) with the last axis (tp, fp, fn).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.metrics.base import Metric, f_beta


@dataclass(frozen=True)
class Edit:
    """A token-span edit of the source: replace tokens [start, end) by ``correction``.

    ``type`` is informative (ERRANT's error type or the M2 gold type) and does not take part
    in matching.
    """

    start: int
    end: int
    correction: str
    type: str = ""

    @property
    def key(self) -> tuple[int, int, str]:
        return (self.start, self.end, self.correction)


@dataclass(frozen=True)
class EditMatch:
    """The edits of one hypothesis and one reference, and which of them matched.

    Attributes:
        hyp_edits: shape (H,).
        ref_edits: shape (G,).
        hyp_matched: shape (H,), True where the hypothesis edit is a true positive.
        ref_matched: shape (G,), True where the reference edit was found.
    """

    hyp_edits: tuple[Edit, ...]
    ref_edits: tuple[Edit, ...]
    hyp_matched: tuple[bool, ...]
    ref_matched: tuple[bool, ...]

    def counts(self) -> tuple[float, float, float]:
        tp = float(sum(self.hyp_matched))
        return tp, float(len(self.hyp_edits)) - tp, float(len(self.ref_edits) - sum(self.ref_matched))


def match_by_key(hyp_edits: Sequence[Edit], ref_edits: Sequence[Edit]) -> EditMatch:
    """errant_compare's matching: an edit matches when (start, end, correction) are equal."""
    ref_keys = {e.key for e in ref_edits}
    hyp_keys = {e.key for e in hyp_edits}
    return EditMatch(
        tuple(hyp_edits),
        tuple(ref_edits),
        tuple(e.key in ref_keys for e in hyp_edits),
        tuple(e.key in hyp_keys for e in ref_edits),
    )


def prf_key(tp: float, fp: float, fn: float, beta: float) -> tuple[float, float, float, float]:
    """Sort key of errant_compare's best-reference choice: F, then TP, then -FP, then -FN."""
    f = float(f_beta(tp, fp, fn, beta)[2])
    return (f, tp, -fp, -fn)


@dataclass(frozen=True)
class EditMetric(Metric, abc.ABC):
    """Edit-based metric with P/R/F_beta.

    Fields:
        beta: F-measure beta; 0.5 as in the CoNLL-2014 shared task (Ng et al. 2014).
    """

    beta: float = 0.5

    stat_names: ClassVar[tuple[str, ...]] = ("tp", "fp", "fn")

    def stats_options(self) -> dict[str, object]:
        # beta only enters stage 2: sweeping it never re-extracts edits.
        return {k: v for k, v in self.options().items() if k != "beta"}

    # ----------------------------------------------------------------- stage 1 hooks
    @abc.abstractmethod
    def match(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[Sequence[str]],
        references: Sequence[Sequence[object]],
    ) -> np.ndarray:
        """Extract and align edits.

        Returns:
            object array of shape (S, N, R) holding :class:`EditMatch` (identical inputs may
            share one object).
        """

    def edit_stats(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[Sequence[str]],
        references: Sequence[Sequence[object]],
        matches: np.ndarray,
    ) -> np.ndarray:
        """The weighting hook: (tp, fp, fn) of every match.  Unit weights here.

        Args:
            matches: object array (S, N, R) from :meth:`match`.

        Returns:
            shape (S, N, R, 3).
        """
        out = np.zeros(matches.shape + (3,), dtype=np.float64)
        cache: dict[int, tuple[float, float, float]] = {}
        for idx, m in np.ndenumerate(matches):
            c = cache.get(id(m))
            if c is None:
                c = cache[id(m)] = m.counts()
            out[idx] = c
        return out

    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        matches = self.match(sources, hypotheses, references)
        return self.edit_stats(sources, hypotheses, references, matches)

    # ----------------------------------------------------------------- stage 2
    def prf(self, stats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Precision, recall and F_beta of statistics of shape (..., 3)."""
        return f_beta(stats[..., 0], stats[..., 1], stats[..., 2], self.beta)

    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        return self.prf(stats)[2]

    def best_reference(self, stats: np.ndarray) -> np.ndarray:
        """Per sentence: max F, then TP, then -FP, then -FN; first reference on a full tie.

        Args:
            stats: shape (S, N, R, 3).

        Returns:
            shape (S, N).
        """
        return _first_best(self.score_from_stats(stats), stats)

    def corpus_best_reference(self, stats: np.ndarray) -> np.ndarray:
        """errant_compare's corpus-level choice: per sentence the reference that maximises
        (F, TP, -FP, -FN) of the *running totals plus this sentence* (first one on ties).

        All systems advance together, sentence by sentence (each system's running total gets
        the same float additions in the same order as a per-system loop).

        Args:
            stats: shape (S, N, R, 3).

        Returns:
            int array of shape (S, N).
        """
        S, N, R, _ = stats.shape
        best = np.zeros((S, N), dtype=np.int64)
        if R == 1:
            return best
        total = np.zeros((S, 3))
        rows = np.arange(S)
        for n in range(N):
            cand = total[:, None, :] + stats[:, n]  # (S, R, 3)
            f = f_beta(cand[..., 0], cand[..., 1], cand[..., 2], self.beta)[2]
            k = _first_best(f, cand)
            best[:, n] = k
            total += stats[rows, n, k]
        return best

    def corpus_stats(self, stats: np.ndarray) -> np.ndarray:
        """Summed (tp, fp, fn) of every system over the corpus, shape (S, 3)."""
        best = self.corpus_best_reference(stats)
        chosen = np.take_along_axis(stats, best[:, :, None, None], axis=2)[:, :, 0, :]
        return chosen.sum(axis=1)

    @property
    def corpus_reduction(self) -> str | None:
        return None  # corpus F from accumulated edit counts

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        """Corpus F_beta from edit counts accumulated over the corpus, shape (S,)."""
        return self.score_from_stats(self.corpus_stats(stats))


def _first_best(f: np.ndarray, st: np.ndarray) -> np.ndarray:
    """Index of the best reference: max F, then TP, then -FP, then -FN, the first on a full
    tie (errant_compare's and m2scorer's order).

    Args:
        f: shape (..., R).
        st: shape (..., R, 3): (tp, fp, fn) behind each F.

    Returns:
        int array of shape (...).
    """
    best = np.zeros(f.shape[:-1], dtype=np.int64)
    bf, btp, bfp, bfn = f[..., 0], st[..., 0, 0], st[..., 0, 1], st[..., 0, 2]
    for j in range(1, f.shape[-1]):
        jf, jtp, jfp, jfn = f[..., j], st[..., j, 0], st[..., j, 1], st[..., j, 2]
        better = (jf > bf) | ((jf == bf) & ((jtp > btp) | ((jtp == btp) & (
            (jfp < bfp) | ((jfp == bfp) & (jfn < bfn))))))
        best = np.where(better, j, best)
        bf, btp = np.where(better, jf, bf), np.where(better, jtp, btp)
        bfp, bfn = np.where(better, jfp, bfp), np.where(better, jfn, bfn)
    return best
