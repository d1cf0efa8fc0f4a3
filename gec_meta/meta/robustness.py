"""Robustness to adversarial systems (Goto, Sakai & Watanabe, Findings of EMNLP 2025).

An adversarial ("attack") system outputs text built to get a high score from one metric without
correcting anything: the same fluent sentence on every line (against SOME), the source with one
token swapped to lower an LM's perplexity (Scribendi), a retrieved unrelated sentence (IMPARA), a
prompt injection (LLM-S/LLM-E).  The attack paper's benchmarks (``experiments/benchmark/``)
score the attacks together with real systems and ask where the metric ranks them; it has no
human judgments of the attacks.

Here, for one metric and aggregation, every system of a dataset (the real ones, then the
attacks: :meth:`gec_meta.data.datasets.Dataset.with_attacks`) is scored together, as the
paper's ``rank_systems`` does, and for each attack :func:`assess` reports:

* ``rank``: its place among all systems, 1 = best (competition ranking: tied systems share the
  better place, the next place is skipped);
* ``outranks``: how many real systems it scores strictly higher than;
* ``fooled``: it scores strictly higher than **every** real system -- the metric prefers it to
  every system the benchmark has, on SEEDA and GJG15 every system with human scores (including
  SEEDA's human references REF-F and REF-M), on the judgment-free BEA-2019 dev set all ten
  Pillars-of-GEC systems.  This is the strictest reading of "the metric was fooled" (the paper's
  abstract: the adversarial systems "outperform the current state-of-the-art"); a tie with the
  best real system is not counted;
* ``above_human_best`` (datasets with human system scores): per human score, whether it scores
  strictly higher than the system the humans rank first (a weaker reading).

The correlations of a run on a dataset with attacks stay those of the real systems alone: the
attacks have no human scores, and the real systems are meta-evaluated exactly as without them
(:class:`gec_meta.meta.task.Task` scores the joint set only for this section).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

#: The definition printed with every robustness section.
FOOLED_DEFINITION = ("fooled = the attack's system score is strictly higher than that of every real "
                     "(non-attack) system; rank = 1 + the number of systems scored strictly higher")


def assess(systems: Sequence[str], scores: np.ndarray, attacks: Sequence[str],
           human: Mapping[str, np.ndarray] | None = None) -> dict:
    """The robustness section of one metric and aggregation.

    Args:
        systems: shape (S,): every system, real ones and attacks.
        scores: shape (S,): their system scores (higher = better), all finite.
        attacks: the attack systems, a subset of ``systems``; the rest are the real systems.
        human: human score name -> shape (R,) over the real systems in ``systems`` order
            (optional; gives ``above_human_best``).

    Returns:
        ``{"definition", "system_scores": {system: score} (all S), "attacks": {attack: {"score",
        "rank", "outranks", "fooled"[, "above_human_best"]}}, "real_systems": R, "fooled_by":
        [attacks that fooled the metric]}``.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape != (len(systems),):
        raise ValueError(f"{scores.shape} scores for {len(systems)} systems")
    if not np.isfinite(scores).all():
        raise ValueError("system scores must be finite")
    unknown = [a for a in attacks if a not in systems]
    if unknown or not attacks:
        raise ValueError(f"attacks {list(attacks)} must be a non-empty subset of the systems {list(systems)}")
    is_attack = np.array([s in set(attacks) for s in systems])
    real = scores[~is_attack]
    if real.size == 0:
        raise ValueError("no real system to compare the attacks with")
    best = {}
    for name, values in (human or {}).items():
        values = np.asarray(values, dtype=np.float64)
        if values.shape != real.shape:
            raise ValueError(f"human score {name!r} has {values.shape[0]} values for {real.size} real systems")
        best[name] = real[int(np.argmax(values))]  # the metric's score of the human-best system
    out = {}
    for a in attacks:
        v = scores[list(systems).index(a)]
        row = {"score": float(v), "rank": int(1 + np.sum(scores > v)), "outranks": int(np.sum(v > real)),
               "fooled": bool(np.all(v > real))}
        if best:
            row["above_human_best"] = {name: bool(v > b) for name, b in best.items()}
        out[a] = row
    return {"definition": FOOLED_DEFINITION,
            "system_scores": {s: float(v) for s, v in zip(systems, scores)},
            "attacks": out,
            "real_systems": int(real.size),
            "fooled_by": [a for a in attacks if out[a]["fooled"]]}


def joint_statistics(task):
    """The metric bound to every system of ``task``'s dataset together with its attacks, and
    their statistics (shape (S + A, N, R, K)), as :meth:`gec_meta.meta.task.Task.statistics`
    computes them (per-system cache: the real systems' statistics are shared with the run
    without attacks unless the metric depends on the system set, as GoToScorer and the LLM
    evaluators do)."""
    import dataclasses

    return dataclasses.replace(task, dataset=task.dataset.with_attacks()).statistics()


def sections(task, aggregations: Mapping[str, object]) -> dict[str, dict]:
    """:func:`assess` of ``task`` (a :class:`gec_meta.meta.task.Task` on a dataset with attacks)
    under each of ``aggregations`` (name -> :class:`gec_meta.meta.aggregation.Aggregation`),
    from one computation of the joint statistics."""
    ds = task.dataset
    metric, stats = joint_statistics(task)
    return {name: assess(ds.systems + ds.attack_systems, np.asarray(agg(metric, stats), dtype=np.float64),
                         ds.attack_systems, ds.human)
            for name, agg in aggregations.items()}
