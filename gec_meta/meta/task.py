"""The meta-evaluation task: one typed :class:`Task` with one :meth:`Task.run`, and its :class:`Result`.

A task is dataset + references + metric + aggregation + meta-evaluation options.  Three stages
meet at plain data (see ``STYLE.md``):

1. :meth:`Task.statistics` (expensive): the metric bound to the dataset's systems and its
   statistics, shape (S, N, R, K), through :func:`compute_statistics` (cached on disk per system
   by content: metric identity + that system's text + the references, so a system shared by
   several settings (SEEDA Base and +Fluency) or sweeps is scored once).
2. :meth:`Task.score` (cheap): the aggregation's system scores, shape (S,) -> :class:`Scored`.
   Needs no human judgments (``gec-meta score`` scores your own files this way).
3. :meth:`Task.run`: 1 + 2, then system scores and sentence scores vs the human judgments
   (:func:`compare_with_humans`), bootstrap CIs -> :class:`Result`, whose :meth:`Result.to_json`
   is the ``results.json`` of a run.

No Hydra and no process state here: ``gec-meta-run`` (:mod:`gec_meta.cli.run`), ``gec-meta``,
:mod:`gec_meta.api`, :mod:`gec_meta.report.reproduce` and the experiment scripts build Tasks.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from gec_meta import cache, stopwatch
from gec_meta.cache.claims import fill
from gec_meta.data.datasets import Dataset
from gec_meta.data.refsets import References
from gec_meta.fields import boolean, check_fields, integer, integer_list, one_of, valid
from gec_meta.errors import ConfigError, GecMetaError
from gec_meta.meta.aggregation import Aggregation
from gec_meta.meta.evaluation import SENTENCE_VARIANTS, sentence_agreement, system_correlations, top_k, window_analysis
from gec_meta.meta.signature import result_signature
from gec_meta.meta.wmt_stats import SPA_TRUESKILL
from gec_meta.metrics.base import Metric


#: The fewest bootstrap resamples accepted (``meta_eval.bootstrap_samples``; 0 = no CIs): with B
#: resamples each 2.5% tail of the percentile interval holds 0.025 B of them, at least one from
#: B = 40 on (fewer give an "interval" that may not contain the point estimate).
MIN_BOOTSTRAP_SAMPLES = 40


#: The fewest sign vectors accepted for the permutation tests of SPA (``meta_eval.spa_permutations``;
#: 0 = off): a p-value from R permutations moves in steps of 1/R.
MIN_PERMUTATIONS = 100

#: The most bootstrap resamples and SPA sign vectors accepted: 10x the 1000 of WMT and
#: mt-metrics-eval.  Work grows linearly (every resample re-aggregates the statistics, every
#: sign vector is an (N,) row of the permutation tests), so a mistyped extra digit is an error,
#: not hours of computation or a MemoryError.
MAX_RESAMPLES = 10_000


class MetricOutputError(GecMetaError, ValueError):
    """A metric returned statistics of the wrong shape or with NaN/inf."""


def _check_stats(metric: Metric, stats: np.ndarray, expected: tuple[int, int, int]) -> np.ndarray:
    stats = np.asarray(stats, dtype=np.float64)
    S, N, R = expected
    want = (S, N, R, len(metric.stat_names))
    if stats.shape != want:
        raise MetricOutputError(
            f"metric {metric.name} returned statistics of shape {stats.shape}, expected {want} "
            f"(systems, sentences, references, {metric.stat_names})"
        )
    bad = ~np.isfinite(stats)
    if bad.any():
        s, n, r, k = map(int, np.argwhere(bad)[0])
        raise MetricOutputError(
            f"metric {metric.name} returned a non-finite statistic ({stats[s, n, r, k]}) for system "
            f"#{s}, sentence #{n} (line {n + 1}), reference #{r}, statistic {metric.stat_names[k]!r}"
        )
    return stats


def _cached_entry_ok(array: np.ndarray, shape: tuple[int, ...]) -> bool:
    """A cached statistics array is usable: float64 of the expected shape, all finite (fresh
    statistics are checked by :func:`_check_stats` before they are stored)."""
    return array.shape == shape and array.dtype == np.float64 and bool(np.isfinite(array).all())


def compute_statistics(
    metric: Metric,
    sources: Sequence[str],
    hypotheses: Sequence[Sequence[str]],
    references,
    use_cache: bool = True,
    systems: Sequence[str] | None = None,
    bind: bool = True,
) -> np.ndarray:
    """Statistics of every system, with the per-system content-addressed cache.

    Args:
        sources: shape (N,).
        hypotheses: shape (S, N).
        references: shape (R, N) in the form the metric reads (text or gold edits), or None
            for reference-free metrics.
        systems: the system names, shape (S,), if known (see :meth:`Metric.bind`).
        bind: call :meth:`Metric.bind` first (False when the caller passes a bound metric).

    Returns:
        shape (S, N, R, K) (R = 1 for reference-free metrics).
    """
    N = len(sources)
    for s, hyp in enumerate(hypotheses):
        if len(hyp) != N:
            raise MetricOutputError(f"system #{s} has {len(hyp)} sentences, the sources {N}")
    refs = references if (metric.needs_references and references is not None) else ()
    if bind:
        metric = metric.bind(sources, hypotheses, refs, systems=systems)
    R = len(refs) if metric.needs_references else 1
    if metric.needs_references and R == 0:
        raise GecMetaError(f"metric {metric.name} needs references but none were given")
    member_statistics = getattr(metric, "member_statistics", None)
    if member_statistics is not None:  # an ensemble: every member through this function and its cache
        return _check_stats(metric, member_statistics(sources, hypotheses, refs, use_cache, systems),
                            (len(hypotheses), N, R))
    if not metric.cacheable:
        return _check_stats(metric, metric.statistics(sources, hypotheses, refs), (len(hypotheses), N, R))
    # Stand-in references (an annotator absent from a sentence) score otherwise than the same
    # texts as real references in metrics that combine references: their mask is in the key.
    present = getattr(refs, "present", None)
    context = cache.text_hash(metric.cache_key(), metric.code_version(), *sources,
                              *(repr(tuple(r)) for r in refs), *(() if present is None else (repr(present),)))
    keys = [f"stats|{context}|{cache.text_hash(*hyp)}" for hyp in hypotheses]
    arrays: list[np.ndarray | None] = [None] * len(keys)

    def load(s: int) -> bool:
        a = cache.load_array(keys[s])
        if a is not None and not _cached_entry_ok(a, (N, R, len(metric.stat_names))):
            # A checksummed entry that is still wrong (written by other code): recompute it.
            cache.drop_array(keys[s], f"statistics of shape {a.shape}, dtype {a.dtype} or non-finite")
            a = None
        arrays[s] = a
        return a is not None

    def compute(todo: list[int]) -> None:
        fresh = metric.statistics(sources, [hypotheses[s] for s in todo], refs)
        fresh = _check_stats(metric, fresh, (len(todo), N, R))
        for j, s in enumerate(todo):
            arrays[s] = fresh[j]
            if use_cache:
                cache.save_array(keys[s], fresh[j], about={"metric": metric.cache_key()})

    todo = [s for s in range(len(keys)) if not (use_cache and load(s))]
    # Systems that another live job sharing the cache is scoring are waited for, not rescored.
    fill(keys, todo, lambda s: cache.entry_exists(keys[s]) and load(s), compute,
         cache.cache_root() if use_cache else None, what=f"{metric.name} statistics")
    return np.stack(arrays, axis=0) if arrays else np.zeros((0, N, R, len(metric.stat_names)))


def _where(ds: Dataset, s: int, n: int) -> tuple[str, str, int | None]:
    """Where system s's sentence n came from: (label, file, line); file "" when unknown."""
    name = ds.systems[s]
    path = ds.files.get(name, "")
    text = ds.hypotheses[s][n]
    line = getattr(text, "line", 0) or n + 1  # a hypothesis M2's S line, else the text line
    return f"{ds.name} system {name!r}", path, line


def _text_locator(ds: Dataset, refs):
    """``locate(text, n)`` for :func:`gec_meta.edits.extract.text_origins`: the first system
    (then reference) whose sentence n is ``text``, as ("<file>:<line>" or "<dataset> system 'X',
    line L", its file or system)."""
    def locate(text: str, n: int):
        for s, hyp in enumerate(ds.hypotheses):
            if n < len(hyp) and hyp[n] == text:
                label, path, line = _where(ds, s, n)
                return (f"{path}:{line} ({label})", path) if path else (f"{label}, line {line}", label)
        for r, texts in enumerate(getattr(refs, "texts", ()) or ()):
            if n < len(texts) and texts[n] == text:
                where = refs.where(r, n)
                return where, where.rpartition(":")[0] or where
        return None
    return locate


def _locate(exc, ds: Dataset, refs=None):
    """A :class:`~gec_meta.edits.extract.SentenceTooLong` re-raised naming the file (when known),
    line and system of the dataset whose text it is (or a reference's, if no system output has
    that text)."""
    for s, hyp in enumerate(ds.hypotheses):
        for n, text in enumerate(hyp):
            if text == exc.target:
                label, path, line = _where(ds, s, n)
                if path:
                    return exc.located(f"{label}: ", path, line)
                return exc.located(f"{label}, line {line}: ")
    for r, texts in enumerate(getattr(refs, "texts", ()) or ()):
        for n, text in enumerate(texts):
            if text == exc.target:
                return exc.located(f"reference {refs.where(r, n)}: ")
    return exc.located(f"{ds.name} reference text ({exc.where.strip() or 'unknown line'}): ")


@dataclass(frozen=True, eq=False)
class Scored:
    """A metric's statistics on a dataset and one aggregation's system scores: what the
    significance tests resample.

    Attributes:
        dataset: the dataset.
        metric: the metric bound to the dataset's systems.
        stats: shape (S, N, R, K).
        aggregation: the aggregation.
        system_scores: shape (S,).
    """

    dataset: Dataset
    metric: Metric
    stats: np.ndarray
    aggregation: Aggregation
    system_scores: np.ndarray

    def reaggregate(self, aggregation: Aggregation) -> "Scored":
        """The same statistics under another aggregation (no metric call)."""
        return Scored(self.dataset, self.metric, self.stats, aggregation,
                      np.asarray(aggregation(self.metric, self.stats), dtype=np.float64))


def compare_with_humans(
    dataset: Dataset,
    system_scores: np.ndarray,
    sentence_scores: np.ndarray | None = None,
    window: int | None = None,
    top_ks: Sequence[int] | None = None,
    sentence_variant: str = "seeda",
    epsilon: float | Mapping[str, float] | None = None,
    resolution: float = 0.0,
    kendall_variants: Sequence[str] = (),
) -> dict:
    """Correlations of system scores (and agreement of sentence scores) with the humans.

    Args:
        system_scores: shape (S,).
        sentence_scores: shape (S, N) or None to skip the sentence level.
        window: window size for the window analysis (None: skip; clipped to S).
        top_ks: K values for top-K (None: S down to 4).
        epsilon: the metric-tie threshold of tie-calibrated accuracy (one value, or aspect ->
            value); None = ε*, calibrated on these groups (:mod:`gec_meta.meta.wmt_stats`).
        resolution: the metric's tie tolerance (:attr:`Metric.tie_tolerance`), for acc_eq.
        kendall_variants: mt-metrics-eval's Kendall variants to add at the sentence level
            (:func:`gec_meta.meta.wmt_stats.segment_statistics`); PDP is added for every
            aspect of segment ratings.

    Returns:
        dict with ``system``, and when computed ``sentence``, ``window``, ``top_k``.
    """
    system_scores = np.asarray(system_scores, dtype=np.float64)
    if system_scores.shape != (dataset.num_systems,):
        raise MetricOutputError(
            f"{system_scores.shape[0] if system_scores.ndim else 1} system scores for "
            f"{dataset.num_systems} systems"
        )
    if not np.isfinite(system_scores).all():
        bad = [dataset.systems[i] for i in np.flatnonzero(~np.isfinite(system_scores))]
        raise MetricOutputError(f"non-finite system score for {bad}")
    out: dict = {"system": system_correlations(system_scores, dataset.human)}
    if sentence_scores is not None and (dataset.judgments or dataset.segment_scores):
        from gec_meta.meta.wmt_stats import segment_statistics, sentence_groups, tie_calibrated

        out["sentence"] = {
            aspect: sentence_agreement(sentence_scores, items, dataset.systems, sentence_variant)
            for aspect, items in dataset.judgments.items()
        }
        for aspect, groups in sentence_groups(dataset).items():
            eps = epsilon
            if isinstance(epsilon, Mapping):
                eps = epsilon.get(aspect, epsilon.get("*"))
                if eps is None:
                    raise GecMetaError(f"no metric-tie threshold (epsilon) for judgment aspect {aspect!r}: "
                                       f"given for {sorted(epsilon)}")
            out["sentence"].setdefault(aspect, {}).update(tie_calibrated(groups, sentence_scores, eps, resolution))
            out["sentence"][aspect].update(segment_statistics(groups, sentence_scores, kendall_variants))
    if window:
        w = min(window, dataset.num_systems)
        out["window"] = {
            name: window_analysis(system_scores, h, w) for name, h in dataset.human.items()
        }
    if dataset.num_systems >= 4:
        out["top_k"] = {name: top_k(system_scores, h, top_ks) for name, h in dataset.human.items()}
    return out


# The keys of results.json, in their order; the optional ones are left out when None.
_JSON_KEYS = ("signature", "dataset", "setting", "refset", "metric", "aggregation", "system_scores",
              "diagnostics", "system", "sentence", "window", "top_k", "robustness", "timing", "config_id")
_OPTIONAL = frozenset({"diagnostics", "sentence", "window", "top_k", "robustness", "timing", "config_id"})


@dataclass(frozen=True, eq=False)
class Result:
    """What one :class:`Task` run produced; :meth:`to_json` is the ``results.json`` of a run.

    Attributes:
        signature: what produced it (:func:`gec_meta.meta.signature.result_signature`).
        dataset, setting, refset, metric, aggregation: names (``refset`` None for
            reference-free metrics).
        system_scores: system -> score, in the dataset's system order.
        system: human score name -> ``{"pearson", "spearman", "pairwise_accuracy",
            "pairwise_accuracy_random"}`` (+
            ``"spa"``, soft pairwise accuracy, when permutations are on; + ``"ci"`` with
            bootstrap: ``{"pearson": [low, high], "spearman": [low, high], "samples": B}``).
        diagnostics: the metric's diagnostics (e.g. missing LLM scores), or None.
        sentence: judgment aspect -> ``{"accuracy", "accuracy_random", "kendall", "pairs"}``
            (rankings only), ``{"acc_eq", "acc_eq_random", "tau_eq", "epsilon", "groups"}``
            (tie-calibrated pairwise accuracy, Deutsch et al. 2023, and its chance level), ``pdp``
            (ratings only) and the Kendall variants asked for, or None.
        window: human -> window analysis rows (:func:`gec_meta.meta.evaluation.window_analysis`), or None.
        top_k: human -> top-K rows (:func:`gec_meta.meta.evaluation.top_k`), or None.
        robustness: on a dataset with attack systems, their ranks among all systems and whether
            they fooled the metric (:func:`gec_meta.meta.robustness.assess`), else None.
        timing: seconds per stage (``statistics_s``, ``aggregation_s``, ``meta_eval_s``, and
            ``robustness_s`` with attacks) and ``statistics_parts`` (the seconds of each
            :mod:`gec_meta.stopwatch` part spent inside the statistics stage), or None.
        config_id: the hash of the resolved Hydra config (``gec-meta-run``), or None.
        scored: the bound metric, statistics and system scores behind the numbers (for
            significance tests); not serialised, None after :meth:`from_json`.

    ``result["system"]`` reads the JSON field of that name (as :meth:`to_json` has it).
    """

    signature: str
    dataset: str
    setting: str
    refset: str | None
    metric: str
    aggregation: str
    system_scores: dict[str, float]
    system: dict[str, dict]
    diagnostics: dict | None = None
    sentence: dict | None = None
    window: dict | None = None
    top_k: dict | None = None
    robustness: dict | None = None
    timing: dict | None = None
    config_id: str | None = None
    scored: Scored | None = field(default=None, repr=False)

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        """The JSON-ready dict (key order of ``results.json``, its format version first:
        :mod:`gec_meta.formats`); ``timing=False`` leaves the run-dependent timings out."""
        from gec_meta.formats import results_json

        out = {}
        for key in _JSON_KEYS:
            value = getattr(self, key)
            if key in _OPTIONAL and (value is None or (key == "timing" and not timing)):
                continue
            out[key] = value
        return results_json(out)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Result":
        """The inverse of :meth:`to_json` (without :attr:`scored`).

        Raises:
            ValueError: an unknown field, or a format version other than this one's
                (:data:`gec_meta.formats.RESULTS_VERSION`).
        """
        from gec_meta.formats import RESULTS_VERSION, VERSION_KEY

        data = dict(data)
        version = data.pop(VERSION_KEY, None)
        if version != RESULTS_VERSION:
            raise ValueError(f"a result of format {version or 1}, this gec-meta reads format {RESULTS_VERSION}")
        unknown = set(data) - set(_JSON_KEYS)
        if unknown:
            raise ValueError(f"unknown result field(s) {sorted(unknown)}")
        return cls(**data)

    def replace(self, **changes) -> "Result":
        return dataclasses.replace(self, **changes)

    def __getitem__(self, key: str):
        if key not in _JSON_KEYS or (key in _OPTIONAL and getattr(self, key) is None):
            raise KeyError(key)
        return getattr(self, key)

    def __contains__(self, key: object) -> bool:
        return key in _JSON_KEYS and not (key in _OPTIONAL and getattr(self, key) is None)

    def get(self, key: str, default=None):
        return self[key] if key in self else default


@dataclass(frozen=True, eq=False)
class Task:
    """One meta-evaluation: ``metric`` with ``aggregation`` on ``dataset`` against the humans.

    Attributes:
        dataset: systems, sources and human judgments (a dataset without human scores can be
            scored, :meth:`score`, but not meta-evaluated).
        metric: the (unbound) metric.
        aggregation: statistics -> system scores.
        references: the reference set (None for reference-free metrics).
        window: window size of the window analysis (None: skip; clipped to S).
        top_ks: K values for top-K (None: S down to 4).
        sentence_variant: ``seeda``, ``wmt`` or ``displayed``
            (:func:`gec_meta.meta.evaluation.sentence_agreement`).
        sentence_level: compute the sentence-level agreement.
        bootstrap_samples: 0 (off) or :data:`MIN_BOOTSTRAP_SAMPLES`..:data:`MAX_RESAMPLES` adds percentile 95% confidence intervals to every system-level
            correlation (sentences resampled with replacement, the statistics re-aggregated on
            each sample, ``numpy.random.default_rng(bootstrap_seed)``; see
            :mod:`gec_meta.meta.significance`).
        bootstrap_seed: the seed of that resampling.
        epsilon: fixed metric-tie threshold of tie-calibrated accuracy (one value or aspect ->
            value, e.g. ε* calibrated on another dataset: :func:`calibrate_epsilon`); None = ε*
            of the run's own groups.
        spa_permutations: sign vectors R of the paired permutation tests behind soft pairwise
            accuracy (Thompson et al. 2024 use 1000); 0 = no SPA, else up to :data:`MAX_RESAMPLES`.
        permutation_seed: the seed of those sign vectors (``numpy.random.default_rng``).
        spa_trueskill: SPA's metric p-values under TrueSkill: ``comparisons`` (the sentence-level
            comparisons TrueSkill plays) or ``rerun`` (every game replayed per permutation;
            minutes per metric) (:func:`gec_meta.meta.wmt_stats.metric_pvalues`).
        kendall_variants: mt-metrics-eval's ``KendallVariants`` to add at the sentence level,
            a subset of ``b``, ``c``, ``23``, ``acc23`` (at ε = 0, averaged over items;
            :func:`gec_meta.meta.ties.kendall_variant`).
        use_cache: read and write the statistics cache.
    """

    dataset: Dataset
    metric: Metric
    aggregation: Aggregation
    references: References | None = None
    window: int | None = field(default=4, metadata=valid(integer(zero_or_at_least=2), optional=True))
    top_ks: tuple[int, ...] | None = field(default=None, metadata=valid(integer_list(2), optional=True))
    sentence_variant: str = field(default="seeda", metadata=valid(one_of(*SENTENCE_VARIANTS)))
    sentence_level: bool = field(default=True, metadata=valid(boolean()))
    bootstrap_samples: int = field(default=0, metadata=valid(
        integer(zero_or_at_least=MIN_BOOTSTRAP_SAMPLES, hi=MAX_RESAMPLES)))
    bootstrap_seed: int = field(default=0, metadata=valid(integer(0)))
    epsilon: float | Mapping[str, float] | None = None
    spa_permutations: int = field(default=1000, metadata=valid(
        integer(zero_or_at_least=MIN_PERMUTATIONS, hi=MAX_RESAMPLES)))
    permutation_seed: int = field(default=0, metadata=valid(integer(0)))
    spa_trueskill: str = field(default="comparisons", metadata=valid(one_of(*SPA_TRUESKILL)))
    kendall_variants: tuple[str, ...] = ()
    use_cache: bool = field(default=True, metadata=valid(boolean(), key="cache"))

    def __post_init__(self):
        check_fields(self, "meta_eval")
        from gec_meta.data.multigec import require_texts

        require_texts(self.dataset, self.metric)  # text-free datasets (multigec2025): score-file metrics only
        # the dataset's language reaches the metric (a ConfigError here, before any work, when
        # the metric has no honest implementation for it)
        object.__setattr__(self, "metric", self.metric.for_language(self.dataset.language))
        from gec_meta.meta.ties import KENDALL_VARIANTS

        variants = self.kendall_variants
        if isinstance(variants, str) or not all(isinstance(v, str) for v in variants or ()):
            raise ConfigError(f"meta_eval.kendall_variants must be a list of {list(KENDALL_VARIANTS)}, got {variants!r}")
        bad = [v for v in variants if v not in KENDALL_VARIANTS]
        if bad:
            raise ConfigError(f"meta_eval.kendall_variants: unknown variant(s) {bad}; choose from {list(KENDALL_VARIANTS)}")
        object.__setattr__(self, "kendall_variants", tuple(dict.fromkeys(variants)))
        eps = self.epsilon
        values = list(eps.values()) if isinstance(eps, Mapping) else ([] if eps is None else [eps])
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
                raise ConfigError(f"meta_eval.epsilon must be a number >= 0 (or null: ε* searched), got {eps!r}")
        if self.top_ks is not None:
            systems = len(self.dataset.systems)
            if any(k > systems for k in self.top_ks):
                raise ConfigError(f"meta_eval.top_ks must be K values in 2..{systems} (the dataset's {systems} "
                                  f"systems), got {list(self.top_ks)}")
            object.__setattr__(self, "top_ks", tuple(int(k) for k in self.top_ks))

    def statistics(self) -> tuple[Metric, np.ndarray]:
        """Stage 1: the metric bound to the dataset's systems and its statistics.

        The bound metric both computes the statistics and aggregates them (and is what
        :mod:`gec_meta.meta.significance` re-aggregates on resampled sentences).

        Returns:
            (bound metric, statistics of shape (S, N, R, K)).
        """
        metric, ds = self.metric, self.dataset
        refs = None
        if metric.needs_references:
            if self.references is None:
                raise GecMetaError(f"metric {metric.name} needs a reference set")
            refs = self.references.for_metric(getattr(metric, "reference_kind", "text"))
        from gec_meta.edits.extract import SentenceTooLong, text_origins

        try:
            with text_origins(_text_locator(ds, self.references)):
                bound = metric.bind(ds.sources, ds.hypotheses, refs if metric.needs_references else (),
                                    systems=ds.systems)
                stats = compute_statistics(bound, ds.sources, ds.hypotheses, refs, self.use_cache,
                                           systems=ds.systems, bind=False)
        except SentenceTooLong as exc:  # name the file, system (or reference) and line it came from
            raise _locate(exc, ds, self.references) from None
        return bound, stats

    def score(self) -> Scored:
        """Stages 1 + 2: statistics and system scores (no human judgments needed)."""
        metric, stats = self.statistics()
        return Scored(self.dataset, metric, stats, self.aggregation,
                      np.asarray(self.aggregation(metric, stats), dtype=np.float64))

    def run(self) -> Result:
        """Statistics, system scores and their agreement with the human judgments."""
        ds = self.dataset
        t0, parts_before = time.perf_counter(), Counter(stopwatch.TIMES)
        self.metric.reset_usage()
        metric, stats = self.statistics()
        t1 = time.perf_counter()
        statistics_parts = stopwatch.since(parts_before)
        usage = metric.usage()
        scored = Scored(ds, metric, stats, self.aggregation,
                        np.asarray(self.aggregation(metric, stats), dtype=np.float64))
        sentence_scores = metric.comparable_scores(stats) if self.sentence_level else None
        t2 = time.perf_counter()
        humans = compare_with_humans(ds, scored.system_scores, sentence_scores, self.window, self.top_ks,
                                     self.sentence_variant, self.epsilon, metric.tie_tolerance,
                                     self.kendall_variants)
        self._add_pairwise(scored, humans["system"])
        if self.bootstrap_samples > 0:
            self._add_confidence_intervals(scored, humans["system"])
        t3 = time.perf_counter()
        robustness, timing = None, {"statistics_s": t1 - t0, "aggregation_s": t2 - t1, "meta_eval_s": t3 - t2,
                                    # the parts of gec_meta.stopwatch inside the statistics stage (torch
                                    # may be imported earlier, to resolve encoder.device=auto)
                                    "statistics_parts": statistics_parts}
        if ds.attack_systems:  # ranked with the real systems; the correlations above stay theirs alone
            from gec_meta.meta.robustness import sections

            robustness = sections(self, {"run": self.aggregation})["run"]
            timing["robustness_s"] = time.perf_counter() - t3
        refs = self.references if metric.needs_references else None
        return Result(
            signature=result_signature(ds, refs, metric, self.aggregation, self.sentence_variant,
                                       self.bootstrap_samples, self.bootstrap_seed,
                                       self.spa_permutations, self.permutation_seed, self.epsilon,
                                       self.spa_trueskill if self.aggregation.name == "trueskill" else None,
                                       self.kendall_variants),
            dataset=ds.name,
            setting=ds.setting,
            refset=refs.name if refs is not None else None,
            metric=metric.name,
            aggregation=self.aggregation.name,
            system_scores={s: float(v) for s, v in zip(ds.systems, scored.system_scores)},
            diagnostics=metric.diagnostics(stats, ds.systems) or None,
            robustness=robustness,
            timing={**timing, **({"usage": usage} if usage else {})},
            scored=scored,
            **humans,
        )

    def signs(self) -> np.ndarray | None:
        """The shared sign vectors of the SPA permutation tests, shape (R, N), or None (off)."""
        if self.spa_permutations <= 0:
            return None
        from gec_meta.meta.spa import permutation_signs

        return permutation_signs(np.random.default_rng(self.permutation_seed), self.spa_permutations,
                                 self.dataset.num_sentences)

    def _add_pairwise(self, scored: Scored, system: dict) -> None:
        from gec_meta.meta.wmt_stats import spa_and_pairwise

        for human, values in spa_and_pairwise(self.dataset, scored, self.signs(), self.use_cache,
                                              self.spa_trueskill).items():
            system[human].update(values)

    def _add_confidence_intervals(self, scored: Scored, system: dict) -> None:
        from gec_meta.meta.resampling import bootstrap_indices, confidence_intervals, resampled_system_scores

        if not getattr(scored.metric, "resamplable", True):  # published system scores (multigec_official)
            raise ConfigError(f"meta_eval.bootstrap_samples={self.bootstrap_samples}: metric {scored.metric.name} has "
                              f"published system scores only, which resampling sentences cannot change; set it to 0 "
                              f"(experiments/multilingual_sv.py resamples the human ratings instead)")
        # One set of resamples serves every human score (the system scores do not depend on it).
        rng = np.random.default_rng(self.bootstrap_seed)
        indices = bootstrap_indices(self.dataset.num_sentences, rng, self.bootstrap_samples)
        resampled = resampled_system_scores(scored.metric, scored.stats, self.aggregation, indices)
        for human, values in self.dataset.human.items():
            ci = confidence_intervals(resampled, values)
            system[human]["ci"] = {k: [v["low"], v["high"]] for k, v in ci.items()}
            system[human]["ci"]["samples"] = self.bootstrap_samples


def calibrate_epsilon(task: "Task") -> dict[str, float]:
    """ε* of every judgment aspect of ``task``'s dataset (a development set), to pass as the
    fixed ``epsilon`` of a task on a test set (Deutsch et al. 2023 §5: calibrate on held-out data).

    Returns:
        aspect -> ε*; a dataset with one aspect also maps ``"*"`` to it.
    """
    from gec_meta.meta.wmt_stats import calibrated_epsilons

    metric, stats = task.statistics()
    eps = dict(calibrated_epsilons(task.dataset, metric.comparable_scores(stats), metric.tie_tolerance))
    if len(eps) == 1:
        eps["*"] = next(iter(eps.values()))
    return eps
