"""The pure meta-evaluation task: dataset + references + metric + aggregation -> results.

Three stages meet at plain data (see ``STYLE.md``):

1. :func:`compute_statistics` (expensive): the metric's statistics, shape (S, N, R, K), cached
   on disk per system by content (metric identity + that system's text + the references), so a
   system shared by several settings (SEEDA Base and +Fluency) or sweeps is scored once.
2. aggregation (cheap): statistics -> one score per system.
3. :func:`meta_evaluate` (cheap): system scores and sentence scores vs human judgments.

No Hydra here: ``run.py`` composes configs and calls :func:`evaluate`.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from gec_meta import cache
from gec_meta.meta.aggregation import Aggregation
from gec_meta.data.datasets import Dataset
from gec_meta.data.refsets import References
from gec_meta.errors import GecMetaError
from gec_meta.meta.evaluation import sentence_agreement, system_correlations, top_k, window_analysis
from gec_meta.metrics.base import Metric
from gec_meta.meta.signature import result_signature


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
    if not metric.cacheable:
        return _check_stats(metric, metric.statistics(sources, hypotheses, refs), (len(hypotheses), N, R))
    context = cache.text_hash(metric.cache_key(), *sources, *(repr(tuple(r)) for r in refs))
    keys = [f"stats|{context}|{cache.text_hash(*hyp)}" for hyp in hypotheses]
    arrays: list[np.ndarray | None] = [cache.load_array(k) if use_cache else None for k in keys]
    todo = [s for s, a in enumerate(arrays) if a is None or a.shape != (N, R, len(metric.stat_names))]
    if todo:
        fresh = metric.statistics(sources, [hypotheses[s] for s in todo], refs)
        fresh = _check_stats(metric, fresh, (len(todo), N, R))
        for j, s in enumerate(todo):
            arrays[s] = fresh[j]
            if use_cache:
                cache.save_array(keys[s], fresh[j], about={"metric": metric.cache_key()})
    return np.stack(arrays, axis=0) if arrays else np.zeros((0, N, R, len(metric.stat_names)))


def dataset_statistics(
    dataset: Dataset,
    metric: Metric,
    references: References | None = None,
    use_cache: bool = True,
) -> tuple[Metric, np.ndarray]:
    """Stage 1 on a dataset: the metric bound to the dataset's systems and its statistics.

    The bound metric both computes the statistics and aggregates them (and is what
    :mod:`gec_meta.meta.significance` re-aggregates on resampled sentences).

    Returns:
        (bound metric, statistics of shape (S, N, R, K)).
    """
    refs_for_metric = None
    if metric.needs_references:
        if references is None:
            raise GecMetaError(f"metric {metric.name} needs a reference set")
        refs_for_metric = references.for_metric(getattr(metric, "reference_kind", "text"))
    metric = metric.bind(dataset.sources, dataset.hypotheses,
                         refs_for_metric if metric.needs_references else (), systems=dataset.systems)
    stats = compute_statistics(metric, dataset.sources, dataset.hypotheses, refs_for_metric, use_cache,
                               systems=dataset.systems, bind=False)
    return metric, stats


def meta_evaluate(
    dataset: Dataset,
    system_scores: np.ndarray,
    sentence_scores: np.ndarray | None = None,
    window: int | None = None,
    top_ks: Sequence[int] | None = None,
    sentence_variant: str = "seeda",
) -> dict:
    """Correlations of system scores (and agreement of sentence scores) with the humans.

    Args:
        system_scores: shape (S,).
        sentence_scores: shape (S, N) or None to skip the sentence level.
        window: window size for the window analysis (None: skip; clipped to S).
        top_ks: K values for top-K (None: S down to 4).

    Returns:
        dict with ``system``, ``sentence``, ``window``, ``top_k``.
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
    if sentence_scores is not None and dataset.judgments:
        out["sentence"] = {
            aspect: sentence_agreement(sentence_scores, items, dataset.systems, sentence_variant)
            for aspect, items in dataset.judgments.items()
        }
    if window:
        w = min(window, dataset.num_systems)
        out["window"] = {
            name: window_analysis(system_scores, h, w) for name, h in dataset.human.items()
        }
    if dataset.num_systems >= 4:
        out["top_k"] = {name: top_k(system_scores, h, top_ks) for name, h in dataset.human.items()}
    return out


def evaluate(
    dataset: Dataset,
    metric: Metric,
    aggregation: Aggregation,
    references: References | None = None,
    window: int | None = 4,
    top_ks: Sequence[int] | None = None,
    sentence_variant: str = "seeda",
    sentence_level: bool = True,
    use_cache: bool = True,
    bootstrap_samples: int = 0,
    bootstrap_seed: int = 0,
) -> dict:
    """Run the whole task and return a JSON-ready result.

    ``bootstrap_samples > 0`` adds percentile 95% confidence intervals to every system-level
    correlation (``result["system"][human]["ci"]``), resampling sentences with replacement
    and re-aggregating the metric's statistics on each sample, with a
    ``numpy.random.default_rng(bootstrap_seed)`` generator (see :mod:`gec_meta.meta.significance`).

    Returns:
        ``{"signature", "dataset", "setting", "refset", "metric", "aggregation",
        "system_scores": {system: score}, "system": {human: {pearson, spearman}},
        "sentence": {aspect: {accuracy, kendall, pairs}}, "window", "top_k", "timing"}``.
    """
    t0 = time.perf_counter()
    metric, stats = dataset_statistics(dataset, metric, references, use_cache)
    t1 = time.perf_counter()
    system_scores = aggregation(metric, stats)
    sentence_scores = metric.sentence_scores(stats) if sentence_level else None
    t2 = time.perf_counter()
    result = meta_evaluate(dataset, system_scores, sentence_scores, window, top_ks, sentence_variant)
    if bootstrap_samples > 0:
        from gec_meta.meta.significance import bootstrap_indices, confidence_intervals, resampled_system_scores

        # One set of resamples serves every human score (the system scores do not depend on it).
        indices = bootstrap_indices(dataset.num_sentences, np.random.default_rng(bootstrap_seed), bootstrap_samples)
        resampled = resampled_system_scores(metric, stats, aggregation, indices)
        for human, values in dataset.human.items():
            ci = confidence_intervals(resampled, values)
            result["system"][human]["ci"] = {
                k: [v["low"], v["high"]] for k, v in ci.items()
            }
            result["system"][human]["ci"]["samples"] = bootstrap_samples
    t3 = time.perf_counter()
    return {
        "signature": result_signature(dataset, references if metric.needs_references else None,
                                      metric, aggregation, sentence_variant)
        + (f"|bootstrap:{bootstrap_samples}(seed={bootstrap_seed})" if bootstrap_samples > 0 else ""),
        "dataset": dataset.name,
        "setting": dataset.setting,
        "refset": references.name if (metric.needs_references and references is not None) else None,
        "metric": metric.name,
        "aggregation": aggregation.name,
        "system_scores": {s: float(v) for s, v in zip(dataset.systems, system_scores)},
        **({"diagnostics": diag} if (diag := metric.diagnostics(stats, dataset.systems)) else {}),
        **result,
        "timing": {"statistics_s": t1 - t0, "aggregation_s": t2 - t1, "meta_eval_s": t3 - t2},
    }
