"""The significance p-values that split a leaderboard task into clusters
(:func:`gec_meta.meta.clusters.assign_ranks_lazily`), cached on disk by content.

A module of its own: a p-value's cache key holds the version of the code that computes it
(:func:`pvalue_code_version`: this module, the permutation tests it calls and the judgment
groups' code), not that of the board's configuration, ranking and rendering
(:mod:`gec_meta.meta.board`), whose edits would otherwise make every cached p-value cold.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from gec_meta.meta.board_inputs import BoardTask, HumanSide, MetricScores


#: Early-stopping block of the PERM-BOTH tests (mt-metrics-eval ``tasks.Task``'s default
#: ``PermutationSigDiffParams(block_size=100)``: stop at a block boundary when p < 0.02 or > 0.5).
BLOCK_SIZE = 100


def _pairwise_accuracy(human, metric) -> float:
    from gec_meta.meta.ties import system_pairwise_accuracy

    return system_pairwise_accuracy(human, metric)


def _rows(kind: str):
    from gec_meta.meta.correlation import ROW_CORRELATIONS

    return lambda h, stack: ROW_CORRELATIONS[kind](stack, h)


# statistic(human, metric) of the system-level PERM-BOTH tests, and whether it is batched
# (rows of a (K, S) stack at once: the vectorised correlations, compared with tolerance 1e-12).
_SYSTEM_STATISTIC = {
    "pearson": (_rows("pearson"), True),
    "spearman": (_rows("spearman"), True),
    "pairwise_accuracy": (_pairwise_accuracy, False),
}


def significance_pvalue(task: BoardTask, aggregation: str, a: MetricScores, b: MetricScores, human: HumanSide,
                        eps_a: float | None, eps_b: float | None, permutations: int,
                        rng: np.random.Generator) -> float:
    """p-value of "metric b is not worse than metric a" on one task (PERM-BOTH,
    :mod:`gec_meta.meta.clusters`): system scores swapped per system for r/ρ/pairwise accuracy;
    SPA's p^m entries swapped per system pair; acc_eq's pairwise outcomes (each metric at its
    own ε* and tie tolerance ``resolution``, the tie rule its reported acc_eq was counted with,
    :func:`gec_meta.meta.ties.metric_ties`) swapped per judged pair, as mt-metrics-eval's
    ``PairwisePermutationSigDiff``; PDP's (item, system) scores swapped per cell
    (``PermutationSigDiff``'s PERM-BOTH, mt-metrics-eval has no PDP test of its own)."""
    from gec_meta.meta import clusters

    if task.statistic == "pdp":  # PERM-BOTH on the (item, system) scores, as every correlation
        from gec_meta.meta.pdp import pdp_rows

        groups = human.groups
        return clusters.perm_both(groups.metric(a.sentence_scores), groups.metric(b.sentence_scores), groups.human,
                                  pdp_rows, rng, permutations, block_size=BLOCK_SIZE, batched=True, tolerance=1e-12)
    if task.level == "sentence":
        return clusters.perm_pairs(human.groups.metric(a.sentence_scores), human.groups.metric(b.sentence_scores),
                                   human.groups.human, eps_a, eps_b, rng, permutations, block_size=BLOCK_SIZE,
                                   resolution_a=a.resolution, resolution_b=b.resolution)
    if task.statistic == "spa":
        return clusters.spa_pvalue(human.pvalues[task.target], a.pvalues[aggregation], b.pvalues[aggregation],
                                   rng, permutations)
    statistic, batched = _SYSTEM_STATISTIC[task.statistic]
    return clusters.perm_both(a.system_scores[aggregation], b.system_scores[aggregation], human.system[task.target],
                              statistic, rng, permutations, block_size=BLOCK_SIZE, batched=batched,
                              tolerance=1e-12 if batched else 0.0)


def _pvalue_inputs(task: BoardTask, aggregation: str, a: MetricScores, b: MetricScores, human: HumanSide) -> list:
    """The arrays a significance p-value depends on (for its cache key)."""
    if task.level == "sentence":
        return [a.sentence_scores, b.sentence_scores, human.groups.human, human.groups.lines]
    if task.statistic == "spa":
        return [a.pvalues[aggregation], b.pvalues[aggregation], human.pvalues[task.target]]
    return [a.system_scores[aggregation], b.system_scores[aggregation], human.system[task.target]]


def cached_pvalue(task: BoardTask, aggregation: str, a: MetricScores, b: MetricScores, human: HumanSide,
                  eps_a, eps_b, permutations: int, seed_words: Sequence[int], use_cache: bool) -> float:
    """:func:`significance_pvalue`, cached on disk by content (the arrays it reads, the test,
    the permutations, the generator's seed, and both metrics' ε and tie tolerance
    ``resolution``): a second leaderboard only reads them."""
    import hashlib

    from gec_meta import cache
    from gec_meta.cache.claims import compute_once

    rng = np.random.default_rng(np.random.SeedSequence(list(seed_words)))
    if not use_cache:
        return significance_pvalue(task, aggregation, a, b, human, eps_a, eps_b, permutations, rng)
    h = hashlib.sha256()
    for x in _pvalue_inputs(task, aggregation, a, b, human):
        x = np.ascontiguousarray(x, dtype=np.float64)
        h.update(repr(x.shape).encode() + x.tobytes())
    key = "cluster-pvalue|" + cache.text_hash(task.level, task.statistic, repr(eps_a), repr(eps_b),
                                              repr(float(a.resolution)), repr(float(b.resolution)),
                                              repr(permutations), repr(list(seed_words)), repr(BLOCK_SIZE),
                                              pvalue_code_version(human), h.hexdigest())
    # computed by one of the leaderboards sharing the cache; the others wait for it and read it
    p = compute_once(key, lambda: np.array([significance_pvalue(task, aggregation, a, b, human, eps_a, eps_b,
                                                                permutations, rng)], dtype=np.float64),
                     kind="pvalues", usable=lambda hit: hit.shape == (1,),
                     about={"what": "leaderboard significance p-value"})
    return float(p[0])


def pvalue_code_version(human: HumanSide) -> str:
    """The version of the code a cached p-value ran (:data:`gec_meta.cache.code.MEASUREMENT_CODE`):
    this module's import closure (the permutation tests of :mod:`gec_meta.meta.clusters`, the
    statistics they permute) and the module of the judgment groups that
    :meth:`~gec_meta.meta.groups.Groups.metric` arranges the sentence scores with."""
    from gec_meta.cache.code import measurement_code_version, object_modules

    return measurement_code_version(frozenset({__name__, *object_modules(human.groups)}))
