"""The one Metric interface.

Design (after sacrebleu's ``metrics/base.py``): a metric turns raw text into *sufficient
statistics* once, and every score is a pure function of those statistics.  The statistics of a
whole dataset form one float array of shape ``(num_systems, num_sentences, num_references,
num_stats)``; stage 1 (scoring, expensive, cached) produces it, stage 2 (aggregation, cheap)
reads it.  Sweeping aggregations or the best-reference rule therefore never rescores.

Reference-free metrics use ``num_references == 1`` (a dummy axis) and ignore the references.
"""

from __future__ import annotations

import abc
import dataclasses
from dataclasses import dataclass, field, fields
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.cache.code import STATISTICS_CODE


@dataclass(frozen=True)
class Metric(abc.ABC):
    """Base class of every metric.

    Subclasses are frozen dataclasses whose fields are the options that change the number
    (they all enter :meth:`signature`).  They implement :meth:`statistics` and, unless the
    defaults fit, :meth:`sentence_scores` / :meth:`corpus_scores`.

    Class attributes:
        name: short name used in configs and signatures (``errant``, ``m2``, ...).
        needs_source / needs_references: what :meth:`statistics` reads.
        stat_names: names of the last axis of the statistics array.
        higher_is_better: direction of the score.
        version: bump whenever the statistics of the same input change (invalidates caches).
        cacheable: False for metrics whose statistics are cheaper to recompute than to cache
            (they are then always computed for all systems at once).
        languages: the languages (ISO 639-1) the metric has an honest implementation for, or
            :data:`ANY_LANGUAGE`; English only unless a metric says otherwise.  Metrics whose
            support depends on a model (an encoder) override :meth:`language_problem`.

    The language of the text a metric scores is ``_language`` (``en`` by default; the task sets
    the dataset's through :meth:`for_language`).  It enters :meth:`options` (``lang=zh``) only
    when it is not English, so English signatures and cache keys are unchanged.
    """

    name: ClassVar[str] = "metric"
    needs_source: ClassVar[bool] = True
    needs_references: ClassVar[bool] = True
    stat_names: ClassVar[tuple[str, ...]] = ("score",)
    higher_is_better: ClassVar[bool] = True
    version: ClassVar[str] = "1"
    cacheable: ClassVar[bool] = True
    #: its statistics depend on edits from the language's extractor
    #: (:func:`gec_meta.edits.languages.edit_extractor`), whose identity then enters :meth:`cache_key`
    #: (set with :meth:`extractor_identity` by :class:`gec_meta.metrics.uses_edits.UsesEdits`)
    uses_edits: ClassVar[bool] = False
    languages: ClassVar[tuple[str, ...] | str] = ("en",)
    #: the language of the texts scored (set from the dataset by :meth:`for_language`)
    _language: str = field(default="en", repr=False, kw_only=True)

    #: Sentence scores closer than this (absolute) are ties wherever sentence scores are
    #: compared pairwise (TrueSkill, Expected Wins, sentence-level agreement): see
    #: :meth:`comparable_scores`.  0 (exact comparison) for metrics whose scores are exact
    #: rationals or float64 arithmetic on counts; metrics computed from float32 model states
    #: set it above their batching noise (enters :meth:`signature` when non-zero).
    tie_tolerance: ClassVar[float] = 0.0

    def __post_init__(self):
        """Check every field against the range declared next to it
        (:func:`gec_meta.config.check_fields`: a ConfigError naming ``metric.<field>``).
        Subclasses with their own ``__post_init__`` call this first."""
        from gec_meta.fields import check_fields

        check_fields(self, "metric")

    # ----------------------------------------------------------------- stage 1: statistics
    @abc.abstractmethod
    def statistics(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[Sequence[str]],
        references: Sequence[Sequence[str]],
    ) -> np.ndarray:
        """Sufficient statistics of every (system, sentence, reference).

        Args:
            sources: shape (num_sentences,).
            hypotheses: shape (num_systems, num_sentences).
            references: shape (num_references, num_sentences); ignored (may be empty) when
                ``needs_references`` is False.

        Returns:
            float64 array of shape (num_systems, num_sentences, R, len(stat_names)) where
            R = num_references, or 1 for reference-free metrics.
        """

    #: True when a system's statistics depend on the other systems scored with it (GoToScorer's
    #: weights, an LLM's answers per set, score files looked up by system name): such a metric
    #: has no score of one edited sentence on its own (:mod:`gec_meta.analysis.attribution`).
    depends_on_system_set: ClassVar[bool] = False

    #: False when system scores cannot be recomputed from permuted per-sentence statistics
    #: (scores read from ``.sys.score`` files): such a metric gets no soft pairwise accuracy.
    permutable: ClassVar[bool] = True

    def bind(self, sources, hypotheses, references, systems=None) -> "Metric":
        """The metric as it scores *this* set of systems.

        Most metrics score each system on its own and return ``self``.  Metrics whose
        statistics depend on the whole system set (GoToScorer's correction-difficulty weights,
        Gotou et al. 2020) return a copy that carries that set's identity in its
        :meth:`cache_key`; metrics read from score files (``from_files``) look up the systems
        by name.  Called by :func:`gec_meta.meta.task.compute_statistics` before the cache
        lookup; arguments as in :meth:`statistics`, plus ``systems`` (names, shape (S,)) when
        the caller knows them.
        """
        return self

    # ----------------------------------------------------------------- stage 2: scores
    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        """Score of statistics summed (or not) over sentences.

        Args:
            stats: shape (..., len(stat_names)).

        Returns:
            shape (...): one score per leading index.  The default reads the single
            statistic ``score``.
        """
        return stats[..., 0]

    def best_reference(self, stats: np.ndarray) -> np.ndarray:
        """Index of the best reference for every (system, sentence), judged per sentence.

        Args:
            stats: shape (S, N, R, K).

        Returns:
            int array of shape (S, N).  Ties go to the lowest reference index.
        """
        return np.argmax(self.score_from_stats(stats), axis=-1)

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        """Sentence-level scores against the best reference of each sentence.

        Args:
            stats: shape (S, N, R, K).

        Returns:
            shape (S, N).
        """
        best = self.best_reference(stats)
        chosen = np.take_along_axis(stats, best[:, :, None, None], axis=2)[:, :, 0, :]
        return self.score_from_stats(chosen)

    def comparable_scores(self, stats: np.ndarray) -> np.ndarray:
        """:meth:`sentence_scores` for pairwise comparisons: scores of one sentence within
        :attr:`tie_tolerance` of each other made equal (:func:`merge_near_ties`).

        Args:
            stats: shape (S, N, R, K).

        Returns:
            shape (S, N), float64; the sentence scores themselves when the tolerance is 0.
        """
        return merge_near_ties(np.asarray(self.sentence_scores(stats), dtype=np.float64), self.tie_tolerance)

    @property
    def corpus_reduction(self) -> str | None:
        """How :meth:`corpus_scores` follows from :meth:`sentence_scores`: ``"mean"`` or
        ``"sum"`` over sentences, or None when it comes from statistics accumulated over the
        corpus (edit or n-gram counts).  Resampling sentences (bootstrap, permutation) uses it
        to re-aggregate without recomputing (None: recompute on every resample)."""
        return "mean"

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        """The metric's own corpus-level score of every system (the ``default`` aggregation).

        The default is the mean of the sentence scores; metrics with a corpus statistic (edit
        counts, n-gram counts) override this.

        Args:
            stats: shape (S, N, R, K).

        Returns:
            shape (S,).
        """
        return self.sentence_scores(stats).mean(axis=1)

    def diagnostics(self, stats: np.ndarray, systems: Sequence[str]) -> dict[str, object]:
        """Facts about the statistics that a reader of the results needs (e.g. how many scores
        are missing), recorded under ``"diagnostics"`` in every result file; default none.

        Args:
            stats: shape (S, N, R, K).
            systems: shape (S,).
        """
        return {}

    def reset_usage(self) -> None:
        """Start counting :meth:`usage` afresh (called by :meth:`gec_meta.meta.task.Task.run`)."""

    def usage(self) -> dict | None:
        """What computing the statistics cost since :meth:`reset_usage` (LLM evaluators: requests,
        tokens, retries, cache hits, wall time), recorded in a run's ``timing.json`` and
        ``results.md``, never in ``results.json``; default None."""
        return None

    # ----------------------------------------------------------------- language
    @property
    def language(self) -> str:
        """ISO 639-1 code of the texts this metric scores (``en`` unless :meth:`for_language`)."""
        return self._language

    def language_problem(self, language: str) -> str | None:
        """None when this metric can score ``language`` honestly, else one line saying why not
        and what to set instead (the message of :meth:`for_language`'s ConfigError)."""
        if self.languages == ANY_LANGUAGE or language in self.languages:
            from gec_meta.metrics.languages import model_language_problem

            return model_language_problem(self, language)  # an English-only encoder or scorer
        return (f"metric {self.name} has no implementation for language {language!r} (it supports "
                f"{', '.join(self.languages)}: {self.language_note or 'an English model'}); choose another metric")

    #: what makes the metric language-specific, for :meth:`language_problem`'s message
    language_note: ClassVar[str] = ""

    def for_language(self, language: str) -> "Metric":
        """This metric set to score texts in ``language``.

        Raises:
            ConfigError: the metric has no honest implementation for ``language``
                (:meth:`language_problem`), before any work.
        """
        from gec_meta.errors import ConfigError

        problem = self.language_problem(language)
        if problem:
            raise ConfigError(problem)
        return self if language == self._language else dataclasses.replace(self, _language=language)

    # ----------------------------------------------------------------- identity
    def options(self) -> dict[str, object]:
        """The fields that change the number, as plain values (for signatures and caches);
        ``lang`` when the language is not English."""
        opts = {f.name: getattr(self, f.name) for f in fields(self) if f.repr}
        if self._language != "en":
            opts["lang"] = self._language
        return opts

    def signature(self) -> str:
        """Description of this metric for result signatures, e.g. ``errant(beta=0.5,v=1)``;
        a metric with models also names the device they ran on (``device=cpu``,
        :func:`gec_meta.devices.devices_of`), which :meth:`cache_key` leaves out."""
        from gec_meta.devices import devices_of
        from gec_meta.meta.components import component

        ties = {"ties": self.tie_tolerance} if self.tie_tolerance else {}
        devices = devices_of(self)
        device = {"device": "+".join(devices)} if devices else {}
        return component(self.name, {**self.options(), **ties, **device, "v": self.version})

    def code_version(self) -> str:
        """The version of the code this metric can run, to key what it computes (statistics, and
        the SPA p-values its scores give under permutations): the source of the modules of
        :data:`STATISTICS_CODE` that its objects (its class, edit scorer, encoder, chat backend)
        import, directly or not (:func:`gec_meta.cache.code.module_code_version`).  An edit of
        another metric's module leaves it unchanged."""
        from gec_meta.cache.code import module_code_version, object_modules

        return module_code_version(frozenset(object_modules(self)), STATISTICS_CODE)

    def cache_key(self) -> str:
        """Identity of the statistics this metric produces (options that affect stage 1).

        By default every option; metrics whose options only affect stage 2 (e.g. beta)
        override :meth:`stats_options` so sweeping them reuses the cache.
        """
        parts = [self.stats_name, f"v:{self.version}"]
        parts += [f"{k}:{v}" for k, v in sorted(self.stats_options().items())]
        if self.uses_edits:
            parts.append(f"extractor:{self.extractor_identity()}")
        return "|".join(parts)

    def extractor_identity(self) -> str:
        """The edit extractor's cache namespace, for :meth:`cache_key` when :attr:`uses_edits`:
        defined by :class:`gec_meta.metrics.uses_edits.UsesEdits`, the one module of the metrics
        that imports the extractors (for BERTScore or GLEU it would put ERRANT's code into
        :meth:`code_version`)."""
        raise NotImplementedError(f"{type(self).__name__} sets uses_edits = True: derive it from "
                                  "gec_meta.metrics.uses_edits.UsesEdits, which sets it and names the extractor")

    @property
    def stats_name(self) -> str:
        """The name in :meth:`cache_key` (default :attr:`name`; the edit metrics' sentence-level
        names, e.g. ``sentm2``, share the corpus name's statistics)."""
        return self.name

    def stats_options(self) -> dict[str, object]:
        """Options that affect :meth:`statistics` (default: all of them)."""
        return self.options()


#: :attr:`Metric.languages` of a metric that works on any language (it reads tokens, or edits
#: from :func:`gec_meta.edits.languages.edit_extractor`).
ANY_LANGUAGE = "any"


def present_mask(references) -> tuple[tuple[bool, ...], ...] | None:
    """Which reference slots hold a reference, shape (R, N), for references in a metric's form:
    :attr:`gec_meta.data.refsets.ReferenceRows.present` (False at an M2 annotator's stand-in
    under ``missing_annotator=skip``), else None (every slot is a reference)."""
    return getattr(references, "present", None)


def merge_near_ties(scores: np.ndarray, tolerance: float) -> np.ndarray:
    """Sentence scores with near-ties made exact ties, per sentence.

    The scores of one sentence (a column) are sorted; a score within ``tolerance`` of the
    previous one joins its group, and every member of a group gets the group's lowest score.
    The order of distinct groups is kept, so comparisons (win/draw/loss) of scores further
    apart than the tolerance do not change; scores of one group become draws.  Float32 noise
    of a model's states (~1e-6 between batchings) thus cannot turn a draw into a win.

    Args:
        scores: shape (S, N); NaN (no score) stays NaN.
        tolerance: absolute; 0 returns ``scores`` unchanged.

    Returns:
        shape (S, N).
    """
    if not tolerance:
        return scores
    x = np.array(scores, dtype=np.float64)
    order = np.argsort(x, axis=0, kind="stable")  # NaN sorted last
    sorted_x = np.take_along_axis(x, order, axis=0)
    new_group = np.ones_like(sorted_x, dtype=bool)
    new_group[1:] = ~(np.diff(sorted_x, axis=0) <= tolerance)  # NaN: never joins
    group_start = np.where(new_group, np.arange(x.shape[0])[:, None], 0)
    group_start = np.maximum.accumulate(group_start, axis=0)
    merged = np.take_along_axis(sorted_x, group_start, axis=0)
    out = np.empty_like(x)
    np.put_along_axis(out, order, merged, axis=0)
    return out


def f_beta(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, beta: float) -> np.ndarray:
    """F_beta with the conventions of m2scorer and errant_compare.

    precision = 1 when nothing was proposed (fp == 0 and tp == 0 means P = 1, as
    errant_compare's ``computeFScore`` does: ``tp/(tp+fp) if fp else 1.0``), recall = 1 when
    nothing was to be found, and F = 0 when P + R = 0.

    Args:
        tp, fp, fn: arrays of the same shape (counts or weights).
        beta: the F-measure beta (0.5 in CoNLL-2014, Ng et al. 2014).

    Returns:
        (precision, recall, f) arrays of that shape.
    """
    tp = np.asarray(tp, dtype=np.float64)
    fp = np.asarray(fp, dtype=np.float64)
    fn = np.asarray(fn, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(fp != 0, tp / (tp + fp), 1.0)
        r = np.where(fn != 0, tp / (tp + fn), 1.0)
        b2 = beta * beta
        denom = b2 * p + r
        f = np.where((p + r) != 0, (1 + b2) * p * r / np.where(denom == 0, 1.0, denom), 0.0)
    return p, r, f
