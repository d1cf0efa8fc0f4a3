"""The WMT metrics-task statistics of one run, on GEC human judgments.

The statistics themselves are pure functions elsewhere: tie-calibrated pairwise accuracy
(:mod:`gec_meta.meta.ties`, Deutsch et al. 2023), soft pairwise accuracy
(:mod:`gec_meta.meta.spa`, Thompson et al. 2024) and system-level pairwise accuracy (Kocmi et
al. 2021).  This module connects them to a :class:`~gec_meta.data.datasets.Dataset`:

* **Groups** (sentence level).  A group is one judged item: a judge's ranking of the systems'
  outputs for one source sentence (GJG15, SEEDA; human score = minus the rank, systems the
  judge did not rank take no part), or one sentence with a human rating of every system
  (GMEG-Wiki segment scores).  Shape (G, S), higher = better.
* **Which judgments go with which human system score.**  A human system score is aggregated
  from one kind of judgment: SEEDA's ``*_edit`` scores from the ``edit`` rankings, ``*_sent``
  from ``sent``, GJG15's EW/TS from its one ``ranking`` file, GMEG's ``score`` from its segment
  ratings (:func:`aspect_of`).  SPA compares p-values derived from those judgments, so the
  EW and TS scores of one aspect share their human p-values (and their SPA).
"""

from __future__ import annotations

import functools
import re
from typing import Mapping

import numpy as np

from gec_meta.data.datasets import Dataset
from gec_meta.data.judgments import rank_matrix
from gec_meta.meta.groups import Groups


def sentence_groups(dataset: Dataset) -> dict[str, Groups]:
    """aspect -> :class:`Groups`: the ranking items of every judgment aspect (SEEDA ``edit`` /
    ``sent``, GJG15 ``ranking``) and the segment ratings of every rated human score (GMEG-Wiki
    ``score``)."""
    out = {}
    for aspect, items in dataset.judgments.items():
        ranks = rank_matrix(items, dataset.systems)
        out[aspect] = Groups(-ranks, np.array([it.line for it in items], dtype=np.int64))
    for name, ratings in dataset.segment_scores.items():
        ratings = np.asarray(ratings, dtype=np.float64)  # (S, N)
        out[name] = Groups(ratings.T.copy(), np.arange(ratings.shape[1], dtype=np.int64), "rating")
    return out


def aspect_of(dataset: Dataset, human_name: str) -> str | None:
    """The judgment aspect a human system score was aggregated from (see module doc), or None.

    ``TS_edit`` -> ``edit``; a name that is itself an aspect (GMEG ``score``) -> itself; a
    dataset with one aspect (GJG15 ``ranking``) -> that aspect.
    """
    aspects = list(dataset.judgments) + list(dataset.segment_scores)
    if human_name in aspects:
        return human_name
    m = re.search(r"_([A-Za-z]+)$", human_name)
    if m and m.group(1) in aspects:
        return m.group(1)
    return aspects[0] if len(aspects) == 1 else None


def tie_calibrated(groups: Groups, sentence_scores: np.ndarray, epsilon: float | None = None,
                   resolution: float = 0.0) -> dict:
    """acc_eq, tau_eq and ε (ε* when ``epsilon`` is None) of the metric's sentence scores
    (shape (S, N)) against one aspect's groups (Deutsch et al. 2023; :mod:`gec_meta.meta.ties`).
    ``resolution``: the metric's tie tolerance (float32 model scores; see
    :func:`gec_meta.meta.ties.tie_calibrated_accuracy`).

    Returns:
        ``{"acc_eq", "acc_eq_random", "tau_eq", "epsilon", "groups"}`` (groups with at least
        one pair; ``acc_eq_random``: the chance level on the same pairs,
        :func:`gec_meta.meta.ties.chance_accuracy`).
    """
    from gec_meta.meta.ties import chance_accuracy, tie_calibrated_accuracy

    metric = groups.metric(sentence_scores)
    res = tie_calibrated_accuracy(groups.human, metric, epsilon=epsilon, resolution=resolution)
    return {"acc_eq": float(res.acc_eq), "acc_eq_random": chance_accuracy(groups.human, metric),
            "tau_eq": float(res.tau_eq), "epsilon": float(res.epsilon), "groups": int(res.groups)}


#: The names of the Kendall variants in results (``meta_eval.kendall_variants``).
KENDALL_KEYS = {"b": "tau_b", "c": "tau_c", "23": "tau_23", "acc23": "acc_23"}


def segment_statistics(groups: Groups, sentence_scores: np.ndarray, kendall_variants=()) -> dict:
    """The other segment-level statistics of mt-metrics-eval on one aspect's groups:
    Pairwise Difference Pearson (``pdp``, only for ratings: :mod:`gec_meta.meta.pdp` says why
    not for rankings) and the Kendall variants asked for (``tau_b``, ``tau_c``, ``tau_23``,
    ``acc_23``: ``stats.KendallVariants`` at ε = 0, averaged over items,
    :func:`gec_meta.meta.ties.kendall_variant`; ``acc_23`` with its chance level
    ``acc_23_random``).

    Args:
        sentence_scores: shape (S, N).
        kendall_variants: a subset of :data:`gec_meta.meta.ties.KENDALL_VARIANTS`.
    """
    from gec_meta.meta.pdp import pairwise_difference_pearson
    from gec_meta.meta.ties import chance_accuracy, kendall_variant

    metric = groups.metric(sentence_scores)
    out = {}
    if groups.kind == "rating":
        out["pdp"] = float(pairwise_difference_pearson(groups.human, metric))
    for v in kendall_variants:
        out[KENDALL_KEYS[v]] = kendall_variant(groups.human, metric, v)
        if v == "acc23":
            out["acc_23_random"] = chance_accuracy(groups.human, metric)
    return out


def human_pvalues(dataset: Dataset, groups: Groups, signs: np.ndarray) -> np.ndarray:
    """p^h: shape (S, S), upper triangle p(system i beats system j) from one aspect's
    judgments with the shared sign vectors ``signs`` (R, N) (:mod:`gec_meta.meta.spa`).

    Ratings are segment scores, the published SPA's input (Thompson et al. 2024): the paired
    permutation test of their sums (an unrated sentence adds 0 to every system).  Rankings of
    subsets of the systems are the GEC adaptation (:func:`gec_meta.meta.spa.human_pairwise_pvalues`)."""
    from gec_meta.meta.spa import human_pairwise_pvalues, pairwise_pvalues

    if groups.kind == "rating":
        return pairwise_pvalues(np.nan_to_num(groups.human.T, nan=0.0), signs)
    return human_pairwise_pvalues(groups.ranks, groups.lines, dataset.num_sentences, signs)


def spa_and_pairwise(dataset: Dataset, scored, signs: np.ndarray | None, use_cache: bool = True,
                     trueskill: str = "comparisons") -> dict[str, dict]:
    """Per human system score: system-level pairwise accuracy (Kocmi et al. 2021) and, when
    ``signs`` (R, N) is given, soft pairwise accuracy (Thompson et al. 2024).

    Args:
        scored: :class:`gec_meta.meta.task.Scored` (the bound metric, statistics (S, N, R, K),
            aggregation and system scores (S,)).
        trueskill: SPA under TrueSkill, see :func:`metric_pvalues`.

    Returns:
        human name -> ``{"pairwise_accuracy": a, "pairwise_accuracy_random": chance}`` (+
        ``"spa": s``); chance: :func:`gec_meta.meta.ties.chance_accuracy`.
    """
    from gec_meta.meta.spa import soft_pairwise_accuracy
    from gec_meta.meta.ties import chance_accuracy, system_pairwise_accuracy

    out: dict[str, dict] = {}
    groups = sentence_groups(dataset) if signs is not None else {}
    p_metric = None
    p_human: dict[str, np.ndarray] = {}
    for name, h in dataset.human.items():
        row = {"pairwise_accuracy": float(system_pairwise_accuracy(h, scored.system_scores)),
               "pairwise_accuracy_random": chance_accuracy(h)}
        aspect = aspect_of(dataset, name) if signs is not None and scored.metric.permutable else None
        if aspect is not None:
            if p_metric is None:
                p_metric = metric_pvalues(scored, signs, use_cache, trueskill)
            if aspect not in p_human:
                p_human[aspect] = human_pvalues(dataset, groups[aspect], signs)
            row["spa"] = float(soft_pairwise_accuracy(p_human[aspect], p_metric))
        out[name] = row
    return out


#: How SPA's metric p-values are computed under TrueSkill (``meta_eval.spa_trueskill``).
SPA_TRUESKILL = ("comparisons", "rerun")


def metric_pvalues(scored, signs: np.ndarray, use_cache: bool = True, trueskill: str = "comparisons") -> np.ndarray:
    """p^m: shape (S, S), upper triangle p(system i beats system j) under the metric and its
    aggregation, permuting the two systems' per-sentence statistics with the sign vectors
    ``signs`` (R, N) (:func:`gec_meta.meta.spa.pairwise_pvalues_from_statistics`).

    TrueSkill (``trueskill``): ``rerun`` replays every game of every permutation (exact, but
    pairs x R x N x C(S, 2) games: ~5 min per metric on SEEDA and ~20-40 min on GJG15 at
    R = 1000 on 2 cores); ``comparisons`` (default) tests the sentence-level comparisons that
    TrueSkill plays, d_n = sign(m_i,n - m_j,n), with the same sign flips, exactly as the human
    p-values test the judges' comparisons (:func:`gec_meta.meta.spa.human_pairwise_pvalues`).

    Cached on disk by content (the statistics, the metric's identity and code version, the
    aggregation, the signs and the p-value code's version, :func:`spa_code_version`): the
    TrueSkill permutations are the expensive part of a leaderboard, and a second run gets them
    for free.
    """
    import hashlib

    from gec_meta import cache
    from gec_meta.cache.claims import compute_once
    from gec_meta.meta.spa import pairwise_pvalues_from_statistics

    if trueskill not in SPA_TRUESKILL:
        raise ValueError(f"spa_trueskill must be one of {SPA_TRUESKILL}, got {trueskill!r}")
    if trueskill == "comparisons" and scored.aggregation.name == "trueskill":
        from gec_meta.meta.spa import human_pairwise_pvalues

        m = np.asarray(scored.metric.comparable_scores(scored.stats), dtype=np.float64)  # (S, N)
        N = m.shape[1]
        return human_pairwise_pvalues(-m.T, np.arange(N), N, signs)
    stats = np.ascontiguousarray(scored.stats, dtype=np.float64)
    key = "spa-pvalues|" + cache.text_hash(
        # the signature, not only the cache key: errant and senterrant share statistics (and
        # cache key) but not their corpus scores
        scored.metric.signature(), scored.metric.cache_key(), scored.aggregation.signature(),
        # the metric's own code scores the permuted statistics (e.g. a corpus-level reference
        # choice): its version too, not only the p-value code's (2026-11-28: a changed PT-ERRANT
        # corpus rule was served the p-values of the old one)
        spa_code_version(scored.aggregation), scored.metric.code_version(),
        repr(stats.shape), hashlib.sha256(stats.tobytes()).hexdigest(),
        repr(signs.shape), hashlib.sha256(np.ascontiguousarray(signs, dtype=np.float64).tobytes()).hexdigest())
    # (S, S) float64; the function itself, not a wrapper here: only code the key hashes computes it
    compute = functools.partial(pairwise_pvalues_from_statistics, scored.metric, stats, scored.aggregation, signs)

    if not use_cache:
        return compute()
    # computed by one of the jobs sharing the cache; the others wait for it and read it
    return compute_once(key, compute, kind="pvalues", usable=lambda hit: hit.shape == (stats.shape[0],) * 2,
                        about={"what": "SPA metric p-values", "metric": scored.metric.cache_key()})


def spa_code_version(aggregation) -> str:
    """The version of the code that computes SPA's metric p-values, apart from the metric's
    (:data:`gec_meta.cache.code.MEASUREMENT_CODE`): the permutation code of
    :mod:`gec_meta.meta.spa` and the aggregation's classes (:func:`gec_meta.cache.code.object_modules`:
    TrueSkill replays its games).  Not this module, whose readers and rendering of the results do
    not compute them."""
    from gec_meta.cache.code import measurement_code_version, object_modules

    return measurement_code_version(frozenset({"gec_meta.meta.spa", *object_modules(aggregation)}))


def calibrated_epsilons(dataset: Dataset, sentence_scores: np.ndarray, resolution: float = 0.0) -> Mapping[str, float]:
    """ε* of every aspect of a development dataset (to be passed as the fixed ε of a test
    dataset: ``meta_eval.epsilon_from``)."""
    return {aspect: tie_calibrated(g, sentence_scores, None, resolution)["epsilon"]
            for aspect, g in sentence_groups(dataset).items()}
