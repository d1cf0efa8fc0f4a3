"""The one edit-metric core shared by M2, ERRANT, their weighted variants, GoToScorer and CLEME.

Two stages, two classes:

* :class:`PRFMetric` -- metrics whose statistics are TP/FP/FN(-like) counts of every
  (system, sentence, reference): F_beta, the best-reference choice (errant_compare's
  tie-break), the corpus running-total reference choice, and ``level`` (corpus score from
  accumulated counts, or the mean sentence score).  GoToScorer (chunks, Gotou et al. 2020) and
  CLEME (chunks, Ye et al. 2023) produce such counts without matching edits.
* :class:`EditMetric` -- a PRF metric whose counts come from matching edits:

    TP = sum of weights of hypothesis edits that match a reference edit
    FP = sum of weights of hypothesis edits that match none
    FN = sum of weights of reference edits that no hypothesis edit matches

  With unit weights these are the counts of m2scorer (Dahlmeier & Ng 2012) and errant_compare
  (Bryant et al. 2017).  Subclasses supply the *matching* (:meth:`EditMetric.match`: how edits
  are extracted and aligned); weighted variants (PT-M2 / PT-ERRANT, Gong et al. 2022;
  UOT-ERRANT, Goto et al. 2025) override the *weighting* hook :meth:`EditMetric.edit_stats` and
  nothing else, so there is exactly one scoring loop.

Statistics layout: shape (S, N, R, K) with the last axis starting (tp, fp, fn) (K = 3; 4 with
GoToScorer's and CLEME's tn).

**Given hypothesis edits.**  A system read from a hypothesis M2 file
(:func:`gec_meta.data.m2.read_hypothesis_m2`) is a row of
:class:`~gec_meta.data.m2.EditedSentence` s: texts that carry their edits.  A metric with
:attr:`PRFMetric.accepts_hypothesis_edits` reads them through :func:`given_edits` instead of
extracting edits from the text; :meth:`PRFMetric.bind` then puts a digest of those edits into
the cache key (the per-system cache is keyed by the *text*, which does not determine the edits)
and ``hyp_edits=m2`` into the signature.  Other metrics score the text.
"""

from __future__ import annotations

import abc
import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.edits.edit import Edit, EditKey  # noqa: F401  (the package's one edit type)
from gec_meta.fields import positive, valid
from gec_meta.errors import ConfigError
from gec_meta.metrics.base import ANY_LANGUAGE, Metric, f_beta
from gec_meta.stopwatch import timed
from gec_meta.metrics.uses_edits import UsesEdits

LEVELS = ("corpus", "sentence")


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


def reference_kind_for(reference_edits: str) -> str:
    """The reference kind (:meth:`gec_meta.data.refsets.References.for_metric`) a metric with a
    ``reference_edits`` field reads: ``extract`` -> ``text`` (edits re-extracted from the
    reference texts), ``gold`` -> ``m2`` (the reference set's gold edits as they are).

    Raises:
        ConfigError: another value.
    """
    kinds = {"extract": "text", "gold": "m2"}
    if reference_edits not in kinds:
        raise ConfigError(f"metric.reference_edits must be 'extract' or 'gold', got {reference_edits!r}")
    return kinds[reference_edits]


def given_edits(row: Sequence[str]) -> tuple[tuple, ...] | None:
    """The edits one system's sentences carry (a hypothesis M2 file's), or None.

    Args:
        row: one system's sentences, shape (N,).

    Returns:
        shape (N,) of :class:`~gec_meta.data.m2.GoldEdit` tuples when every sentence carries
        its edits, else None (the metric extracts edits from the text).
    """
    edits = [getattr(h, "edits", None) for h in row]
    return None if any(e is None for e in edits) else tuple(edits)


def hypothesis_edits_digest(hypotheses: Sequence[Sequence[str]]) -> str:
    """Hash of the given edits of every system (shape (S, N)); "" when no system has any."""
    from gec_meta.cache import text_hash

    rows = [given_edits(row) for row in hypotheses]
    if all(r is None for r in rows):
        return ""
    return text_hash(*(
        "-" if r is None else repr([[(e.start, e.end, e.corrections, e.type) for e in sent] for sent in r])
        for r in rows
    ))[:20]


def prf_key(tp: float, fp: float, fn: float, beta: float) -> tuple[float, float, float, float]:
    """Sort key of errant_compare's best-reference choice: F, then TP, then -FP, then -FN."""
    f = float(f_beta(tp, fp, fn, beta)[2])
    return (f, tp, -fp, -fn)


@dataclass(frozen=True)
class PRFMetric(UsesEdits, Metric, abc.ABC):
    """A metric whose statistics are (tp, fp, fn, ...) of every (system, sentence, reference).

    Fields:
        beta: F-measure beta; 0.5 as in the CoNLL-2014 shared task (Ng et al. 2014).
        level: ``corpus`` (F_beta of counts accumulated over the corpus with errant_compare's /
            m2scorer's running-total reference choice) or ``sentence`` (mean over sentences of
            F_beta against each sentence's best reference: SentM2, SentERRANT, ...).  Keyword
            only; it changes the metric's :attr:`name` (``m2`` -> ``sentm2``) but, unless
            :attr:`level_in_statistics`, not its statistics or their cache key.
        threads: CPU cores the statistics may use (the worker processes of ERRANT's
            extraction and of the matching, :mod:`gec_meta.parallel`; None = the job's cores);
            never part of the signature or the cache key (the bits do not depend on it).
            Keyword only.

    Class attributes:
        corpus_name / sentence_name: :attr:`name` at each level.
        level_in_statistics: True when ``level`` changes :meth:`statistics` (PT's sentence
            fallback); the cache key then carries the level's name.
        accepts_hypothesis_edits: True when :meth:`statistics` scores the edits a hypothesis
            carries (:func:`given_edits`) rather than edits extracted from its text.
    """

    beta: float = field(default=0.5, metadata=valid(positive()))
    level: str = field(default="corpus", repr=False, kw_only=True)
    threads: int | None = field(default=None, repr=False, compare=False, kw_only=True)
    #: digest of the given hypothesis edits of the systems this metric is bound to ("" = none).
    _hyp_edits: str = field(default="", repr=False, kw_only=True)

    corpus_name: ClassVar[str] = "prf"
    sentence_name: ClassVar[str] = ""  # "" = corpus_name
    level_in_statistics: ClassVar[bool] = False
    accepts_hypothesis_edits: ClassVar[bool] = False
    stat_names: ClassVar[tuple[str, ...]] = ("tp", "fp", "fn")
    #: edits come from the language's extractor (:func:`gec_meta.edits.languages.edit_extractor`)
    languages: ClassVar[tuple[str, ...] | str] = ANY_LANGUAGE

    def __post_init__(self):
        super().__post_init__()
        if self.level not in LEVELS:
            raise ConfigError(f"metric.level must be one of {LEVELS}, got {self.level!r}")

    # ----------------------------------------------------------------- identity
    @property
    def name(self) -> str:  # type: ignore[override]
        if self.level == "sentence" and self.sentence_name:
            return self.sentence_name
        return self.corpus_name

    @property
    def stats_name(self) -> str:
        return self.name if self.level_in_statistics else self.corpus_name

    def options(self) -> dict[str, object]:
        opts = super().options()
        if not self.sentence_name and self.level != "corpus":
            opts["level"] = self.level  # the name does not tell the levels apart (GoToScorer)
        if self._hyp_edits:
            opts["hyp_edits"] = "m2"
        if self._language != "en":  # the extractor, where ERRANT's versions name it for English
            from gec_meta.edits.languages import extractor_name

            opts["edits"] = extractor_name(self._language)
        return opts

    def stats_options(self) -> dict[str, object]:
        # beta and level only enter stage 2: sweeping them never re-extracts edits.
        opts = {k: v for k, v in self.options().items() if k not in ("beta", "level")}
        if self._hyp_edits:
            opts["hyp_edits"] = self._hyp_edits
        return opts

    def bind(self, sources, hypotheses, references, systems=None) -> "PRFMetric":
        """This metric, marked with a digest of the given hypothesis edits when it scores them
        (:func:`hypothesis_edits_digest`; see the module docstring); else itself."""
        if not self.accepts_hypothesis_edits:
            return self
        digest = hypothesis_edits_digest(hypotheses)
        return dataclasses.replace(self, _hyp_edits=digest) if digest != self._hyp_edits else self

    # ----------------------------------------------------------------- stage 2
    def prf(self, stats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Precision, recall and F_beta of statistics of shape (..., K) (the first three)."""
        return f_beta(stats[..., 0], stats[..., 1], stats[..., 2], self.beta)

    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        return self.prf(stats)[2]

    def best_reference(self, stats: np.ndarray) -> np.ndarray:
        """Per sentence: max F, then TP, then -FP, then -FN; first reference on a full tie.

        Args:
            stats: shape (S, N, R, K), K >= 3.

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
            stats: shape (S, N, R, K), K >= 3; the choice is :meth:`running_best`'s (here only
                (tp, fp, fn) take part, not tn).

        Returns:
            int array of shape (S, N).
        """
        S, N, R, K = stats.shape
        best = np.zeros((S, N), dtype=np.int64)
        if R == 1:
            return best
        total = np.zeros((S, K))
        rows = np.arange(S)
        for n in range(N):
            k = self.running_best(total[:, None, :] + stats[:, n], stats[:, n])
            best[:, n] = k
            total += stats[rows, n, k]
        return best

    def running_best(self, cand: np.ndarray, own: np.ndarray) -> np.ndarray:
        """The corpus rule's choice among the references of one sentence: max F_beta of the
        running totals plus the reference's statistics, then TP, -FP, -FN (errant_compare).

        Args:
            cand: shape (S, R, K), the running totals plus each reference's statistics.
            own: shape (S, R, K), each reference's statistics of this sentence alone.

        Returns:
            int array of shape (S,).
        """
        f = f_beta(cand[..., 0], cand[..., 1], cand[..., 2], self.beta)[2]
        return _first_best(f, cand)

    def corpus_stats(self, stats: np.ndarray) -> np.ndarray:
        """Summed statistics of every system over the corpus with the running-total reference
        choice, shape (S, K)."""
        return self.chosen_reference_stats(stats)[:, :, 0, :].sum(axis=1)

    def chosen_reference_stats(self, stats: np.ndarray) -> np.ndarray:
        """Every sentence's statistics against the reference the corpus-level score chose for
        it (:meth:`corpus_best_reference`), shape (S, N, 1, K): their sum is :meth:`corpus_stats`.

        The permutation tests of soft pairwise accuracy swap these between two systems
        (:meth:`gec_meta.meta.aggregation.Default.swapped_pairs_scores`): a sentence keeps the
        reference it was scored against.  Choosing again on every permutation would follow the
        corpus rule's running totals exactly, at the cost of one sequential pass over the corpus
        per permutation and pair (minutes per metric for m2scorer's rule)."""
        best = self.corpus_best_reference(stats)
        return np.take_along_axis(stats, best[:, :, None, None], axis=2)

    def corpus_prf(self, stats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The system-level (P, R, F_beta) that go with :meth:`corpus_scores`, each of shape
        (S,): of the counts accumulated over the corpus at ``level=corpus``, the means of the
        sentence values (best reference per sentence) at ``level=sentence``.

        Args:
            stats: shape (S, N, R, K).
        """
        if self.level == "sentence":
            best = self.best_reference(stats)
            chosen = np.take_along_axis(stats, best[:, :, None, None], axis=2)[:, :, 0, :]
            p, r, f = self.prf(chosen)
            return p.mean(axis=1), r.mean(axis=1), f.mean(axis=1)
        return self.prf(self.corpus_stats(stats))

    @property
    def corpus_reduction(self) -> str | None:
        # sentence level: the mean of the sentence scores; corpus level: F of accumulated counts
        return "mean" if self.level == "sentence" else None

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        """``level=corpus``: F_beta of the counts accumulated over the corpus; ``sentence``:
        the mean sentence F_beta (best reference per sentence).  Shape (S,)."""
        if self.level == "sentence":
            return self.sentence_scores(stats).mean(axis=1)
        return self.score_from_stats(self.corpus_stats(stats))


@dataclass(frozen=True)
class EditMetric(PRFMetric, abc.ABC):
    """A PRF metric whose counts come from matching hypothesis edits with reference edits."""

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
        with timed("edit_matching"):  # timing.json's part: the rest (e.g. PT weights) shows apart
            matches = self.match(sources, hypotheses, references)
        return self.edit_stats(sources, hypotheses, references, matches)


def _first_best(f: np.ndarray, st: np.ndarray) -> np.ndarray:
    """Index of the best reference: max F, then TP, then -FP, then -FN, the first on a full
    tie (errant_compare's and m2scorer's order).

    Args:
        f: shape (..., R).
        st: shape (..., R, 3): (tp, fp, fn) behind each F.

    Returns:
        int array of shape (...).
    """
    return lexicographic_best((f, st[..., 0], -st[..., 1], -st[..., 2]))


def rounded_running_best(cand: np.ndarray, beta: float) -> np.ndarray:
    """The reference of each system that errant_compare's (and ChERRANT's) running-total rule
    keeps: the largest F_beta of the totals *rounded to 4 decimals* (Python's ``round``: their
    ``computeFScore`` returns ``round(f, 4)`` and ``evaluate_edits`` compares that), then TP,
    -FP, -FN; the first on a full tie.  gec-metrics' ERRANT compares the unrounded F instead
    (:func:`_first_best`); the two differ only when two references' running F agree to 4
    decimals but not beyond.

    Args:
        cand: shape (S, R, K), K >= 3: the running totals plus each reference's counts.
        beta: the F-measure beta.

    Returns:
        int array of shape (S,).
    """
    f = f_beta(cand[..., 0], cand[..., 1], cand[..., 2], beta)[2]
    return lexicographic_best((python_round4(f), cand[..., 0], -cand[..., 1], -cand[..., 2]))


def python_round4(x: np.ndarray) -> np.ndarray:
    """``round(float(v), 4)`` of every value, shape as ``x``: the official scripts round a
    Python float (errant_compare's and ChERRANT's ``computeFScore``, CLEME's ``compute_f`` and
    ``compute_acc``), which is correctly rounded, where ``np.round`` rounds ``v * 1e4`` and can
    differ in the last digit (0.04375: Python 0.0437, numpy 0.0438).  Both pick the integer
    nearest to ``v * 1e4`` and divide it by 1e4 the same way, so they can differ only where
    ``v * 1e4`` is within rounding error of a half: those few values go through Python's
    ``round``, the rest through numpy (a Python call per value cost seconds on BN-10GEC)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.round(x, 4)
    scaled = x * 1e4
    near = np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6
    if near.any():
        out[near] = [round(float(v), 4) for v in x[near]]
    return out


def lexicographic_best(keys: Sequence[np.ndarray]) -> np.ndarray:
    """Index of the reference with the largest keys, compared in order (the first key decides,
    the next breaks its ties, ...); the first reference on a full tie.

    Args:
        keys: each of shape (..., R).

    Returns:
        int array of shape (...).
    """
    R = keys[0].shape[-1]
    best = np.zeros(keys[0].shape[:-1], dtype=np.int64)
    held = [k[..., 0] for k in keys]
    for j in range(1, R):
        better = tied = None
        for k, h in zip(keys, held):
            c = k[..., j]
            if better is None:
                better, tied = c > h, c == h
            else:
                better |= tied & (c > h)
                tied &= c == h
        best[better] = j
        if j + 1 < R:  # the keys held by the best so far
            held = [np.where(better, k[..., j], h) for k, h in zip(keys, held)]
    return best
