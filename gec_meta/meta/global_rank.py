"""Global ranking of metrics across meta-evaluation tasks (mt-metrics-eval ``tasks.py``).

A task is one meta-evaluation (dataset × setting × human score × level, with one correlation
or accuracy); for each task every metric has a value and a rank (the rank of its significance
cluster, 1 = top, computed elsewhere; or, failing that, its rank by value).  Across tasks,
as ``TaskSetResults`` does:

* average rank of a metric = Σ_t w_t · rank_t (``AverageRanks``), ascending;
* average value = Σ_t w_t · (value_t - lo_t) / (hi_t - lo_t) (``AverageCorrs``): each task's
  value is first mapped from its range [lo_t, hi_t] to [0, 1] -- [-1, 1] for correlations,
  [0, 1] for accuracies (``TaskResults.range``) -- so that the two kinds can be averaged;
* only metrics present in every task are averaged; the others are listed in ``excluded``
  (``AverageRanks``/``AverageCorrs`` silently drop them).

Weights are normalised to sum to 1 (mt-metrics-eval's ``AssignWeights`` returns weights that
sum to ``total_wt = 1``, and its default is 1/len(tasks)); :func:`hierarchical_weights`
reproduces ``AssignWeights``: the weight is split evenly over the values of the first
attribute, then recursively within each value over the next attribute.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

__all__ = ["CORRELATION_RANGE", "ACCURACY_RANGE", "GlobalRanking", "value_ranks",
           "normalise_weights", "hierarchical_weights", "global_ranking"]

CORRELATION_RANGE = (-1.0, 1.0)  # Pearson, Spearman, Kendall, tau_eq (TaskResults.range)
ACCURACY_RANGE = (0.0, 1.0)  # pairwise accuracy, acc_eq


@dataclass(frozen=True)
class GlobalRanking:
    """Metrics ranked across tasks.

    Attributes:
        average_rank: metric -> Σ w_t rank_t, in ``order``.
        average_value: metric -> Σ w_t (value_t rescaled to [0, 1]), in ``order``.
        order: metrics by ascending average rank, then descending average value, then name.
        weights: task -> normalised weight (sums to 1).
        excluded: metrics missing from at least one task (not ranked), sorted.
    """

    average_rank: dict[str, float]
    average_value: dict[str, float]
    order: tuple[str, ...]
    weights: dict[str, float]
    excluded: tuple[str, ...]


def value_ranks(values: Mapping[str, float]) -> dict[str, int]:
    """Rank by value, higher = better; equal values share a rank, and ranks are consecutive
    (1, 1, 2, ...), as ``data.AssignRanks`` numbers clusters; with distinct values this is
    1..n, mt-metrics-eval's ranks without a significance test (k=0).

    Args:
        values: metric -> value (finite).

    Returns:
        metric -> rank (1 = best).
    """
    distinct = sorted(set(values.values()), reverse=True)
    position = {v: i + 1 for i, v in enumerate(distinct)}
    return {m: position[v] for m, v in values.items()}


def normalise_weights(tasks: Sequence[str], weights: Mapping[str, float] | None = None) -> dict[str, float]:
    """Task weights scaled to sum to 1.

    Args:
        tasks: task names.
        weights: task -> weight (>= 0); a task not listed gets 1; None = all 1.

    Raises:
        ValueError: a weight is negative or not finite, all are zero, or a weight names an
            unknown task.
    """
    weights = dict(weights or {})
    unknown = sorted(set(weights) - set(tasks))
    if unknown:
        raise ValueError(f"weights given for unknown tasks {unknown}; tasks are {list(tasks)}")
    raw = {t: float(weights.get(t, 1.0)) for t in tasks}
    bad = {t: w for t, w in raw.items() if not (math.isfinite(w) and w >= 0)}
    if bad:
        raise ValueError(f"task weights must be finite and non-negative, got {bad}")
    total = sum(raw.values())
    if total == 0:
        raise ValueError(f"task weights are all zero (tasks {list(tasks)})")
    return {t: w / total for t, w in raw.items()}


def hierarchical_weights(attributes: Mapping[str, Mapping[str, str]], attrs: Sequence[str],
                         total: float = 1.0) -> dict[str, float]:
    """mt-metrics-eval's ``TaskSetResults.AssignWeights``: split ``total`` evenly over the
    values of ``attrs[0]`` (in order of first appearance), then recurse on ``attrs[1:]``
    within each value; with no attributes left, split evenly over the tasks.

    Args:
        attributes: task -> {attribute: value}, e.g. ``{"dataset": "seeda", "level": "sys"}``.
        attrs: the attributes to split by, outermost first.
        total: the weight to distribute.

    Returns:
        task -> weight, in the order of ``attributes``; sums to ``total``.

    Raises:
        ValueError: no tasks, or a task lacks one of ``attrs``.
    """
    tasks = list(attributes)
    if not tasks:
        raise ValueError("no tasks to weight")
    if not attrs:
        return {t: total / len(tasks) for t in tasks}
    attr = attrs[0]
    missing = [t for t in tasks if attr not in attributes[t]]
    if missing:
        raise ValueError(f"tasks {missing} have no attribute {attr!r}")
    subsets: dict[str, dict[str, Mapping[str, str]]] = {}
    for t in tasks:
        subsets.setdefault(attributes[t][attr], {})[t] = attributes[t]
    out: dict[str, float] = {}
    for subset in subsets.values():
        out.update(hierarchical_weights(subset, attrs[1:], total / len(subsets)))
    return {t: out[t] for t in tasks}


def global_ranking(
    values: Mapping[str, Mapping[str, float]],
    ranks: Mapping[str, Mapping[str, int]] | None = None,
    weights: Mapping[str, float] | None = None,
    ranges: Mapping[str, tuple[float, float]] | None = None,
) -> GlobalRanking:
    """Weighted average rank and average rescaled value of each metric over tasks.

    Args:
        values: task -> {metric: value} (correlation or accuracy; finite).
        ranks: task -> {metric: cluster rank}, 1 = top; a task not listed here is ranked by
            :func:`value_ranks`.  Must cover the same metrics as ``values`` for that task.
        weights: task -> weight (see :func:`normalise_weights`; default uniform).
        ranges: task -> (lo, hi) of the value (default :data:`CORRELATION_RANGE`; use
            :data:`ACCURACY_RANGE` for accuracies).

    Returns:
        :class:`GlobalRanking`.

    Raises:
        ValueError: no tasks, a non-finite value, ranks that do not match the values, a bad
            range or bad weights, or no metric present in every task.
    """
    tasks = list(values)
    if not tasks:
        raise ValueError("no tasks to rank metrics over")
    ranks = dict(ranks or {})
    ranges = dict(ranges or {})
    unknown = sorted((set(ranks) | set(ranges)) - set(tasks))
    if unknown:
        raise ValueError(f"ranks/ranges given for unknown tasks {unknown}; tasks are {tasks}")
    w = normalise_weights(tasks, weights)

    task_ranks: dict[str, Mapping[str, int]] = {}
    scale: dict[str, tuple[float, float]] = {}
    for t in tasks:
        bad = {m: v for m, v in values[t].items() if not math.isfinite(v)}
        if bad:
            raise ValueError(f"task {t!r}: non-finite values {bad}")
        task_ranks[t] = ranks[t] if t in ranks else value_ranks(values[t])
        if set(task_ranks[t]) != set(values[t]):
            raise ValueError(f"task {t!r}: ranks are given for metrics {sorted(task_ranks[t])} "
                             f"but values for {sorted(values[t])}")
        lo, hi = ranges.get(t, CORRELATION_RANGE)
        if not hi > lo:
            raise ValueError(f"task {t!r}: range must have lo < hi, got ({lo}, {hi})")
        scale[t] = (lo, hi)

    seen = dict.fromkeys(m for t in tasks for m in values[t])
    common = [m for m in seen if all(m in values[t] for t in tasks)]
    excluded = tuple(sorted(m for m in seen if m not in common))
    if not common:
        raise ValueError(f"no metric is present in every task (tasks {tasks})")

    avg_rank = {m: sum(w[t] * task_ranks[t][m] for t in tasks) for m in common}
    avg_value = {m: sum(w[t] * (values[t][m] - scale[t][0]) / (scale[t][1] - scale[t][0])
                        for t in tasks) for m in common}
    order = tuple(sorted(common, key=lambda m: (avg_rank[m], -avg_value[m], m)))
    return GlobalRanking(average_rank={m: avg_rank[m] for m in order},
                         average_value={m: avg_value[m] for m in order},
                         order=order, weights=w, excluded=excluded)
