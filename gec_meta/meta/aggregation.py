"""Aggregations: sentence-level statistics or scores -> one score per system.

Pure functions of arrays (no metric state, no global state); every aggregation also knows how
to re-aggregate on resamples of the sentences (:meth:`Aggregation.resample`, shape (P, S)):

* ``default``        the metric's own corpus score (edit/n-gram counts accumulated over the
                     corpus for M2, ERRANT, GLEU; the mean for sentence metrics);
* ``average``        the mean of the sentence scores;
* ``trueskill``      TrueSkill (Herbrich et al. 2006) over sentence-level pairwise comparisons,
                     ties = draws, as the "Rethinking" paper (Goto et al. 2025, §2.2) proposes;
* ``expected_wins``  Expected Wins (Bojar et al. 2013; GJG15 §3) over the same comparisons.

and the system scores of two systems that swap their per-sentence statistics on chosen
sentences (:meth:`Aggregation.swapped_pairs_scores`, shape (pairs, R, 2): the paired
permutation test of soft pairwise accuracy, :mod:`gec_meta.meta.spa`).

An ensemble of metrics (:mod:`gec_meta.metrics.ensemble`) is aggregated member by member: each
aggregation's ``__call__``, ``resample`` and ``swapped_pairs_scores`` run on every member's
statistics and the ensemble combines the members' system scores (:func:`_member_wise`, applied
to every subclass once, so no aggregation has to know about ensembles).
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gec_meta.errors import ConfigError
from gec_meta.meta.resampling import sentence_counts
from gec_meta.meta.trueskill import (TrueSkillParams, _trueskill_env, pairwise_outcomes, trueskill_mu,
                                     trueskill_mu_swapped)

__all__ = ["Aggregation", "Default", "Average", "TrueSkillAggregation", "ExpectedWins", "load_aggregation",
           "trueskill_scores", "expected_wins_from_wins", "win_matrix", "pairwise_outcomes", "_trueskill_env",
           "AGGREGATIONS"]


def _member_wise(method, kind: str):
    """``method`` of an aggregation, applied member by member when the metric is an ensemble
    (it has ``member_parts``): the members' system scores under this aggregation, combined by the
    ensemble (Goto et al. 2025's rank-average ensemble is per aggregation)."""

    @functools.wraps(method)
    def wrapper(self, metric, stats, *args, **kwargs):
        member_parts = getattr(metric, "member_parts", None)
        if member_parts is None:
            return method(self, metric, stats, *args, **kwargs)
        parts = member_parts(np.asarray(stats))
        if kind != "swapped_pairs_scores":  # __call__ (S,) and resample (P, S): combine across S
            return metric.combine_systems([method(self, m, s, *args, **kwargs) for m, s in parts])
        pairs, signs = args
        return metric.combine_swapped([self(m, s) for m, s in parts],
                                      [np.asarray(method(self, m, s, pairs, signs)) for m, s in parts], pairs)

    return wrapper


@dataclass(frozen=True)
class Aggregation:
    """Base class: ``name`` and options enter the result signature."""

    name: ClassVar[str] = "aggregation"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for kind in ("__call__", "resample", "swapped_pairs_scores"):
            if kind in cls.__dict__:
                setattr(cls, kind, _member_wise(cls.__dict__[kind], kind))

    def __post_init__(self):
        from gec_meta.fields import check_fields

        check_fields(self, "aggregation")

    def options(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items()}

    def signature(self) -> str:
        from gec_meta.meta.components import component

        return component(self.name, self.options())

    def __call__(self, metric, stats: np.ndarray) -> np.ndarray:
        """System scores, shape (S,), from statistics of shape (S, N, R, K)."""
        raise NotImplementedError

    def resample(self, metric, stats: np.ndarray, indices: np.ndarray) -> np.ndarray:
        """The system scores ``self(metric, stats[:, idx])`` of every resample ``idx``.

        The default recomputes every resample; aggregations that are functions of per-sentence
        values override it with a vectorised form (equal to recomputing to rounding).

        Args:
            metric: the bound metric.
            stats: shape (S, N, R, K).
            indices: shape (P, N'), sentence indices of every resample.

        Returns:
            shape (P, S).
        """
        out = [np.asarray(self(metric, stats[:, idx]), dtype=np.float64) for idx in np.asarray(indices)]
        return np.stack(out) if out else np.zeros((0, stats.shape[0]))

    def swapped_pair_scores(self, metric, stats: np.ndarray, i: int, j: int, signs: np.ndarray) -> np.ndarray:
        """The scores of systems i and j when they swap their statistics on the sentences n
        where ``signs[r, n] == -1`` (permutation r), the other systems unchanged.

        Args:
            metric: the bound metric.
            stats: shape (S, N, R_refs, K).
            i, j: two distinct system indices.
            signs: shape (R, N) of -1/+1 (:func:`gec_meta.meta.spa.permutation_signs`).

        Returns:
            shape (R, 2): column 0 system i's score, column 1 system j's.
        """
        return self.swapped_pairs_scores(metric, stats, [(i, j)], signs)[0]

    def swapped_pairs_scores(self, metric, stats: np.ndarray, pairs, signs: np.ndarray) -> np.ndarray:
        """:meth:`swapped_pair_scores` of every pair, shape (len(pairs), R, 2).

        The default recomputes the whole aggregation on every permutation (R calls per pair);
        every aggregation here overrides it with an equivalent vectorised form.
        """
        stats = np.asarray(stats)
        out = np.zeros((len(pairs), len(signs), 2))
        for q, (i, j) in enumerate(pairs):
            for r, keep in enumerate(np.asarray(signs) > 0):
                st = stats.copy()
                st[i, ~keep], st[j, ~keep] = stats[j, ~keep], stats[i, ~keep]
                out[q, r] = np.asarray(self(metric, st), dtype=np.float64)[[i, j]]
        return out


def _comparable(metric, stats: np.ndarray) -> np.ndarray:
    """The metric's sentence scores for pairwise comparisons, shape (S, N):
    :meth:`gec_meta.metrics.base.Metric.comparable_scores` (near-ties merged by the metric's tie
    tolerance), or the plain sentence scores of an object that only has ``sentence_scores``."""
    comparable = getattr(metric, "comparable_scores", None)
    return comparable(stats) if comparable is not None else np.asarray(metric.sentence_scores(stats), dtype=np.float64)


def _finite_sentence_scores(metric, stats: np.ndarray, indices: np.ndarray) -> np.ndarray | None:
    """The metric's sentence scores, shape (S, N), if they are all finite and there is at least
    one resample; else None (NaN-aware means: the caller recomputes every resample)."""
    sentence = np.asarray(metric.sentence_scores(stats), dtype=np.float64)
    return sentence if np.isfinite(sentence).all() and len(indices) else None


def _resampled_reduction(sentence: np.ndarray, indices: np.ndarray, how: str) -> np.ndarray:
    """Mean (``how="mean"``) or sum of the sentence scores, shape (S, N), over every resample
    (P, N'): ``counts @ sentence.T`` (/ N'), shape (P, S)."""
    total = sentence_counts(indices, sentence.shape[1]) @ sentence.T
    return total / indices.shape[1] if how == "mean" else total


def _nan_mean_rows(scores: np.ndarray) -> np.ndarray:
    """Mean over the last axis leaving NaN out (all-NaN rows: NaN, reported downstream)."""
    if not np.isnan(scores).any():
        return scores.mean(axis=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(scores, axis=-1)


def _swap_lanes(a: np.ndarray, b: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per permutation, ``a`` where keep else ``b`` and the converse.

    Args:
        a, b: per-sentence values of two systems, shape (N, ...).
        keep: bool, shape (R, N) (signs > 0).

    Returns:
        two arrays of shape (R, N, ...).
    """
    k = keep.reshape(keep.shape + (1,) * (a.ndim - 1))
    return np.where(k, a, b), np.where(k, b, a)


def _swapped_reductions(sentence: np.ndarray, pairs, signs: np.ndarray, how: str) -> np.ndarray:
    """Mean (``how="mean"``, NaN left out) or sum of the swapped sentence scores of every pair,
    shape (pairs, R, 2), from the sentence scores (S, N): one matrix product when they are all
    finite (equal to summing the swapped scores to rounding), else lane by lane."""
    keep = np.asarray(signs) > 0
    out = np.zeros((len(pairs), len(keep), 2))
    if np.isfinite(sentence).all():
        # linear: lane-i's sum = i's scores on the kept sentences + j's on the swapped ones
        kept = keep.astype(np.float64) @ sentence.T  # (R, S)
        total = sentence.sum(axis=1)
        for q, (i, j) in enumerate(pairs):
            out[q, :, 0] = kept[:, i] + (total[j] - kept[:, j])
            out[q, :, 1] = kept[:, j] + (total[i] - kept[:, i])
        return out / sentence.shape[1] if how == "mean" else out
    for q, (i, j) in enumerate(pairs):
        for c, lanes in enumerate(_swap_lanes(sentence[i], sentence[j], keep)):
            out[q, :, c] = _nan_mean_rows(lanes) if how == "mean" else lanes.sum(axis=1)
    return out


#: Largest swapped-statistics array (elements) built at once by Default.swapped_pairs_scores.
_LANE_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class Default(Aggregation):
    name: ClassVar[str] = "default"

    def __call__(self, metric, stats):
        return np.asarray(metric.corpus_scores(stats), dtype=np.float64)

    def resample(self, metric, stats, indices):
        """Vectorised when the metric declares its corpus score the mean or sum of its sentence
        scores (``metric.corpus_reduction``: SentM2, BERTScore, Scribendi, ...) and they are
        finite; corpus scores from statistics accumulated over the corpus (M2, ERRANT, GLEU,
        GREEN: edit or n-gram counts) are recomputed on every resample."""
        indices = np.asarray(indices)
        how = getattr(metric, "corpus_reduction", None)
        sentence = _finite_sentence_scores(metric, stats, indices) if how in ("mean", "sum") else None
        if sentence is None:
            return super().resample(metric, stats, indices)
        return _resampled_reduction(sentence, indices, how)

    def swapped_pairs_scores(self, metric, stats, pairs, signs):
        """Metrics whose corpus score is the mean or sum of finite sentence scores: that
        reduction of the swapped sentence scores.  Otherwise (counts accumulated over the corpus:
        M2, ERRANT, GLEU, GREEN) the corpus score of the swapped statistics, each permutation's
        pair as two pseudo-systems (the corpus score of one system depends on its statistics
        only), in chunks of permutations; corpus-level edit metrics swap the statistics of
        the reference each sentence was scored against (see ``chosen_reference_stats``)."""
        signs = np.asarray(signs)
        stats = np.asarray(stats)
        how = getattr(metric, "corpus_reduction", None)
        sentence = _finite_sentence_scores(metric, stats, signs) if how in ("mean", "sum") else None
        if sentence is not None:
            return _swapped_reductions(sentence, pairs, signs, how)
        fast = getattr(metric, "swapped_pairs_corpus_scores", None)
        if fast is not None:  # a metric with its own vectorised form (GLEU's sampled references)
            return np.asarray(fast(stats, pairs, signs), dtype=np.float64)
        chosen = getattr(metric, "chosen_reference_stats", None)
        if chosen is not None:
            # Corpus-level edit and n-gram metrics: each sentence keeps the reference its counts
            # were scored against in the real run (``chosen_reference_stats``; exact for GREEN's
            # per-sentence choice, the corpus rule's choice for M2/ERRANT), so a swap moves
            # (counts of j - counts of i) on the flipped sentences: one (R, N) @ (N, K) product
            # per pair.  Used only where it reproduces the metric's own corpus scores.
            counts = np.asarray(chosen(stats), dtype=np.float64)[:, :, 0, :]  # (S, N, K)
            totals = counts.sum(axis=1)
            if np.array_equal(np.asarray(metric.score_from_stats(totals)), np.asarray(metric.corpus_scores(stats))):
                flip = (signs < 0).astype(np.float64)
                out = np.zeros((len(pairs), len(flip), 2))
                for q, (i, j) in enumerate(pairs):
                    moved = flip @ (counts[j] - counts[i])  # (R, K)
                    out[q, :, 0] = metric.score_from_stats(totals[i] + moved)
                    out[q, :, 1] = metric.score_from_stats(totals[j] - moved)
                return out
        keep = signs > 0
        R = len(keep)
        chunk = max(1, _LANE_ELEMENTS // max(1, 2 * int(np.prod(stats.shape[1:]))))
        out = np.zeros((len(pairs), R, 2))
        for q, (i, j) in enumerate(pairs):
            both, swapped = stats[[i, j]], stats[[j, i]]  # (2, N, R_refs, K)
            for start in range(0, R, chunk):
                k = keep[start:start + chunk]
                n = len(k)
                # (2, n, N, R_refs, K) in one pass: [lane-i of every permutation, lane-j of every one]
                lanes = np.where(k[None, :, :, None, None], both[:, None], swapped[:, None])
                scores = np.asarray(metric.corpus_scores(lanes.reshape((2 * n,) + stats.shape[1:])), dtype=np.float64)
                out[q, start:start + n, 0], out[q, start:start + n, 1] = scores[:n], scores[n:]
        return out


@dataclass(frozen=True)
class Average(Aggregation):
    """Mean of the sentence scores; NaN sentence scores (no score, e.g. an LLM evaluator's
    missing answer) are left out of the mean, and a system without any score gets NaN."""

    name: ClassVar[str] = "average"

    def __call__(self, metric, stats):
        return _nan_mean_rows(np.asarray(metric.sentence_scores(stats), dtype=np.float64))

    def resample(self, metric, stats, indices):
        """Vectorised mean when every sentence score is finite; else recomputed per resample."""
        indices = np.asarray(indices)
        sentence = _finite_sentence_scores(metric, stats, indices)
        if sentence is None:
            return super().resample(metric, stats, indices)
        return _resampled_reduction(sentence, indices, "mean")

    def swapped_pairs_scores(self, metric, stats, pairs, signs):
        """The (NaN-aware) mean of the swapped sentence scores, vectorised over permutations."""
        sentence = np.asarray(metric.sentence_scores(stats), dtype=np.float64)
        return _swapped_reductions(sentence, pairs, signs, "mean")


@dataclass(frozen=True)
class TrueSkillAggregation(TrueSkillParams, Aggregation):
    """TrueSkill over sentence-level pairwise comparisons; the system score is the final mu
    (:mod:`gec_meta.meta.trueskill`).

    Order (deterministic, part of the signature): sentence by sentence, and within a sentence
    every pair (i, j), i < j, in system-index order; the result depends on the order of the
    systems, so the dataset's configured order is used (SEEDA alphabetical, GJG15 Table 3).

    Fields and defaults: :class:`gec_meta.meta.trueskill.TrueSkillParams` (gec-metrics /
    "Rethinking" Appendix A, after SEEDA's human TrueSkill).
    """

    name: ClassVar[str] = "trueskill"

    def options(self):
        opts = super().options()
        if self.order == "sentence":
            opts.pop("seed")
        return opts

    def __call__(self, metric, stats):
        return trueskill_mu(_comparable(metric, stats), None, self)[0]

    def resample(self, metric, stats, indices):
        """All resamples at once (:func:`gec_meta.meta.trueskill.trueskill_mu`)."""
        return trueskill_mu(_comparable(metric, stats), np.asarray(indices), self)

    def swapped_pairs_scores(self, metric, stats, pairs, signs):
        """Every (pair, permutation) a lane of the vectorised games
        (:func:`gec_meta.meta.trueskill.trueskill_mu_swapped`)."""
        return trueskill_mu_swapped(_comparable(metric, stats), pairs, np.asarray(signs), self)


def trueskill_scores(scores: np.ndarray, **params) -> np.ndarray:
    """TrueSkill mu of every system from sentence scores (one run).

    Args:
        scores: shape (S, N); higher is better; equal scores are draws; NaN pairs skipped.
        **params: :class:`gec_meta.meta.trueskill.TrueSkillParams` fields (defaults there).

    Returns:
        shape (S,).
    """
    return trueskill_mu(scores, None, TrueSkillParams(**params))[0]


def win_matrix(scores: np.ndarray) -> np.ndarray:
    """wins[i, j] = number of sentences where system i scored strictly higher than j.

    Args:
        scores: shape (S, N); NaN never wins.
    """
    x = np.asarray(scores, dtype=np.float64)
    return (x[:, None, :] > x[None, :, :]).sum(axis=2)


def expected_wins_from_wins(wins: np.ndarray) -> np.ndarray:
    """Expected Wins (Bojar et al. 2013; Grundkiewicz et al. 2015, §3.2):

        EW(S_i) = 1/(|S|-1) * sum_{j != i} wins(i,j) / (wins(i,j) + wins(j,i))

    Ties count for neither system.  Guard: a pair that was never decided (no win either way)
    adds 0 to both systems' sums (the denominator stays |S|-1), with a warning, instead of a
    division by zero.

    Args:
        wins: shape (S, S), or (..., S, S) for many win matrices at once.

    Returns:
        shape (S,) (or (..., S)).
    """
    wins = np.asarray(wins, dtype=np.float64)
    S = wins.shape[-1]
    if S < 2:
        raise ValueError("Expected Wins needs at least two systems")
    total = wins + np.swapaxes(wins, -1, -2)
    undecided = (total == 0) & ~np.eye(S, dtype=bool)
    if undecided.any():
        pairs = int(undecided.reshape(-1, S, S).sum(axis=(1, 2)).max() // 2)
        warnings.warn(f"Expected Wins: {pairs} system pair(s) never decided; they contribute 0", stacklevel=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(total > 0, wins / np.where(total > 0, total, 1), 0.0)
    ratio[..., np.arange(S), np.arange(S)] = 0.0
    return ratio.sum(axis=-1) / (S - 1)


@dataclass(frozen=True)
class ExpectedWins(Aggregation):
    """Expected Wins over sentence-level pairwise comparisons of the metric's sentence scores."""

    name: ClassVar[str] = "expected_wins"

    def __call__(self, metric, stats):
        return expected_wins_from_wins(win_matrix(_comparable(metric, stats)))

    def resample(self, metric, stats, indices):
        """Win counts of every resample at once: ``counts @ beats`` with beats[i, j, n] = 1
        where system i scored higher than j on sentence n."""
        indices = np.asarray(indices)
        x = _comparable(metric, stats)
        S, N = x.shape
        beats = (x[:, None, :] > x[None, :, :]).astype(np.float64)  # (S, S, N)
        wins = (sentence_counts(indices, N) @ beats.reshape(S * S, N).T).reshape(-1, S, S)
        return np.stack([expected_wins_from_wins(w) for w in wins])

    def swapped_pairs_scores(self, metric, stats, pairs, signs):
        """Only the win counts involving i or j change: per permutation, rows and columns i and
        j of the win matrix are recounted, the rest is the unchanged win matrix; Expected Wins
        of all lanes at once.  One matrix product serves every pair: kept[r, a, b] = wins of a
        over b on the sentences that permutation r keeps, so lane-i's wins over k are
        kept[r, i, k] + (wins[j, k] - kept[r, j, k]) (j's wins on the swapped sentences).
        """
        x = _comparable(metric, stats)
        S, N = x.shape
        beats = (x[:, None, :] > x[None, :, :]).astype(np.float64)  # (S, S, N)
        base = beats.sum(axis=2)
        kept = ((np.asarray(signs) > 0).astype(np.float64) @ beats.reshape(S * S, N).T).reshape(-1, S, S)
        out = np.zeros((len(pairs), len(kept), 2))
        for q, (i, j) in enumerate(pairs):
            wins = np.broadcast_to(base, kept.shape).copy()  # (R, S, S), integer-valued: exact
            wins[:, i, :] = kept[:, i, :] + base[j, :] - kept[:, j, :]
            wins[:, j, :] = kept[:, j, :] + base[i, :] - kept[:, i, :]
            wins[:, :, i] = kept[:, :, i] + base[:, j] - kept[:, :, j]
            wins[:, :, j] = kept[:, :, j] + base[:, i] - kept[:, :, i]
            wins[:, i, j] = kept[:, i, j] + base[j, i] - kept[:, j, i]
            wins[:, j, i] = kept[:, j, i] + base[i, j] - kept[:, i, j]
            wins[:, i, i] = wins[:, j, j] = 0.0
            out[q] = expected_wins_from_wins(wins)[:, [i, j]]
        return out


AGGREGATIONS = {
    "default": Default,
    "average": Average,
    "trueskill": TrueSkillAggregation,
    "expected_wins": ExpectedWins,
}


def load_aggregation(name: str, **options) -> Aggregation:
    if name not in AGGREGATIONS:
        raise ConfigError(f"unknown aggregation {name!r}; choose from {list(AGGREGATIONS)}")
    return AGGREGATIONS[name](**options)
