"""The leaderboard as data: GEC metrics ranked as the WMT metrics task ranks MT metrics.

This module computes the board; :mod:`gec_meta.report.leaderboard` renders it (Markdown, LaTeX,
CSV, PNG) and :mod:`gec_meta.report.html` draws the same :class:`Board` objects in one page.

For every benchmark (dataset x setting x the human scores it is compared with) and every metric
the board takes the metric's system scores (per aggregation) and sentence scores, and builds
the *tasks* of the WMT23/24 metrics task (Freitag et al. 2023, 2024; google-research
mt-metrics-eval ``tasks.py``):

* system level, per human score: Pearson r, Spearman ρ and soft pairwise accuracy (SPA,
  Thompson et al. 2024);
* sentence level, per benchmark: tie-calibrated pairwise accuracy acc_eq at each metric's own
  ε* (Deutsch et al. 2023) and, where the humans gave segment scores (GMEG's ratings), Pairwise
  Difference Pearson (PDP, WMT24; :mod:`gec_meta.meta.pdp`).

Every pairwise accuracy (acc_eq, system-level pairwise accuracy) carries its chance level
(:func:`gec_meta.meta.ties.chance_accuracy`).

Within a task the metrics are grouped into significance clusters (:mod:`gec_meta.meta.clusters`:
PERM-BOTH, a new cluster starts where a metric is significantly worse than one above it,
p <= alpha), and across tasks they get mt-metrics-eval's global ranking (weighted average of
cluster ranks and of values, :mod:`gec_meta.meta.global_rank`).  Beside the ranking, each
robustness set (a dataset with the adversarial systems of Goto et al. 2025) gives every metric
a "fooled by" entry: the attacks it scores above every real system
(:mod:`gec_meta.meta.robustness`); it does not enter the global ranking.

Pure: the runs come in as plain arrays (:class:`MetricScores`, with :class:`BoardTask` and
:class:`HumanSide` in :mod:`gec_meta.meta.board_inputs`); :mod:`gec_meta.cli.leaderboard` runs the
metrics.  The cached cluster p-values are computed in :mod:`gec_meta.meta.board_pvalues`, whose
cache key holds that module's code and not this one's.  Every permutation test draws from its
own ``numpy.random.Generator`` seeded by (seed, task, metric pair), so the board regenerates
byte-identically.  :func:`build_boards`
returns one :class:`Board` per aggregation; :meth:`Board.to_dict` / :meth:`Board.from_dict`
turn it into JSON-ready data and back exactly (floats keep every bit).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from gec_meta.config import check_fields, integer, non_negative, one_of, open_interval, valid
from gec_meta.errors import ConfigError
from gec_meta.meta.board_inputs import BoardTask, HumanSide, MetricScores
from gec_meta.meta.board_pvalues import cached_pvalue
from gec_meta.meta.task import MAX_RESAMPLES, MIN_PERMUTATIONS
from gec_meta.meta.wmt_stats import SPA_TRUESKILL

SYSTEM_STATISTICS = ("pearson", "spearman", "spa", "pairwise_accuracy")
SENTENCE_STATISTICS = ("acc_eq", "pdp")
SHORT = {"pearson": "r", "spearman": "ρ", "spa": "SPA", "pairwise_accuracy": "PA", "acc_eq": "acc_eq", "pdp": "PDP"}
#: Statistics that are correlations (range [-1, 1] in the global ranking's average value).
CORRELATIONS = ("pearson", "spearman", "pdp")


# --------------------------------------------------------------------------- configuration
@dataclass(frozen=True)
class Benchmark:
    """One benchmark of the leaderboard.

    Attributes:
        name: e.g. ``SEEDA-E Base``.
        dataset: the dataset config (``seeda``, ``gjg15``, ``gmeg_wiki``).
        overrides: further Hydra overrides (``dataset.setting=base``).
        human: the human system scores compared with (``TS_edit``).
        sentence: the judgments of the sentence level (``edit``), or None.
    """

    name: str
    dataset: str
    overrides: tuple[str, ...] = ()
    human: tuple[str, ...] = ()
    sentence: str | None = None


@dataclass(frozen=True)
class RobustnessSet:
    """A dataset with attack systems (``dataset.attacks=true``, ``bea19_dev_attack``): each
    metric's "fooled by" entry.

    Attributes:
        name: e.g. ``SEEDA+attacks``.
        dataset, overrides: as :class:`Benchmark`.
    """

    name: str
    dataset: str
    overrides: tuple[str, ...] = ()


@dataclass(frozen=True)
class BoardConfig:
    """``conf/leaderboard.yaml`` (see its comments)."""

    seed: int = field(default=0, metadata=valid(integer(0)))
    permutations: int = field(default=1000, metadata=valid(integer(MIN_PERMUTATIONS, hi=MAX_RESAMPLES)))
    alpha: float = field(default=0.05, metadata=valid(open_interval(0, 1)))
    aggregations: tuple[str, ...] = ("default", "trueskill")
    metrics: Mapping[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)  # name -> (label, overrides)
    benchmarks: tuple[Benchmark, ...] = ()
    system_statistics: tuple[str, ...] = ("pearson", "spearman", "spa")
    sentence_statistics: tuple[str, ...] = ("acc_eq",)
    weights: Mapping[str, float] = field(default_factory=dict)
    spa_trueskill: str = field(default="comparisons", metadata=valid(one_of(*SPA_TRUESKILL)))
    robustness: tuple[RobustnessSet, ...] = ()

    def __post_init__(self):
        check_fields(self, "leaderboard")

    @classmethod
    def from_mapping(cls, d: Mapping) -> "BoardConfig":
        """Validate and convert the YAML mapping (errors name the key)."""
        known = {"seed", "permutations", "alpha", "aggregations", "metrics", "benchmarks", "statistics", "weights",
                 "spa_trueskill", "robustness"}
        unknown = set(d) - known
        if unknown:
            raise ConfigError(f"leaderboard config: unknown key(s) {sorted(unknown)}; known: {sorted(known)}")
        metrics = {}
        for name, spec in (d.get("metrics") or {}).items():
            spec = spec or {}
            metrics[str(name)] = (str(spec.get("label", name)), tuple(str(o) for o in spec.get("overrides") or ()))
        benchmarks = []
        for name, spec in (d.get("benchmarks") or {}).items():
            if "dataset" not in spec:
                raise ConfigError(f"leaderboard config: benchmarks.{name} needs a dataset")
            benchmarks.append(Benchmark(str(name), str(spec["dataset"]), tuple(spec.get("overrides") or ()),
                                        tuple(spec.get("human") or ()), spec.get("sentence")))
        robustness = []
        for name, spec in (d.get("robustness") or {}).items():
            if not isinstance(spec, Mapping) or "dataset" not in spec:
                raise ConfigError(f"leaderboard config: robustness.{name} needs a dataset")
            robustness.append(RobustnessSet(str(name), str(spec["dataset"]), tuple(spec.get("overrides") or ())))
        clash = {r.name for r in robustness} & {b.name for b in benchmarks}
        if clash:
            raise ConfigError(f"leaderboard config: robustness set(s) {sorted(clash)} named like a benchmark")
        stats = d.get("statistics") or {}
        system = tuple(stats.get("system", cls.system_statistics))
        sentence = tuple(stats.get("sentence", cls.sentence_statistics))
        for level, names, allowed in (("system", system, SYSTEM_STATISTICS), ("sentence", sentence, SENTENCE_STATISTICS)):
            bad = [s for s in names if s not in allowed]
            if bad:
                raise ConfigError(f"leaderboard config: statistics.{level}: unknown {bad}; known: {list(allowed)}")
        weights = {str(k): v for k, v in (d.get("weights") or {}).items()}
        bad = {k: v for k, v in weights.items() if not non_negative().test(v)}
        if bad:
            raise ConfigError(f"leaderboard config: weights must be numbers >= 0, got {bad}")
        return cls(d.get("seed", 0), d.get("permutations", 1000), d.get("alpha", 0.05),
                   tuple(d.get("aggregations") or cls.aggregations), metrics, tuple(benchmarks), system, sentence,
                   weights, d.get("spa_trueskill", "comparisons"), tuple(robustness))

    def to_mapping(self) -> dict:
        """The YAML-shaped mapping of this config (``from_mapping(c.to_mapping()) == c``), JSON-ready."""
        return {"seed": self.seed, "permutations": self.permutations, "alpha": self.alpha,
                "aggregations": list(self.aggregations), "spa_trueskill": self.spa_trueskill,
                "metrics": {n: {"label": label, "overrides": list(o)} for n, (label, o) in self.metrics.items()},
                "benchmarks": {b.name: {"dataset": b.dataset, "overrides": list(b.overrides), "human": list(b.human),
                                        "sentence": b.sentence} for b in self.benchmarks},
                "statistics": {"system": list(self.system_statistics), "sentence": list(self.sentence_statistics)},
                "weights": dict(self.weights),
                "robustness": {r.name: {"dataset": r.dataset, "overrides": list(r.overrides)} for r in self.robustness}}

    def tasks(self) -> list["BoardTask"]:
        out = []
        for b in self.benchmarks:
            for h in b.human:
                out += [BoardTask(b.name, h, "system", s) for s in self.system_statistics]
            if b.sentence is not None:
                out += [BoardTask(b.name, b.sentence, "sentence", s) for s in self.sentence_statistics]
        if not out:
            raise ConfigError("leaderboard config: no benchmark with human scores to rank the metrics on"
                              + (" (robustness sets only give the 'fooled by' column)" if self.robustness else ""))
        unknown = set(self.weights) - {t.name for t in out}
        if unknown:
            raise ConfigError(f"leaderboard config: weights for unknown task(s) {sorted(unknown)}")
        return out

    def weight(self, task: "BoardTask") -> float:
        return self.weights.get(task.name, 1.0)


def load_board_config(path: str | Path | None = None) -> BoardConfig:
    """A leaderboard config file, or the shipped ``conf/leaderboard.yaml`` (package data)."""
    from importlib.resources import files

    from omegaconf import OmegaConf

    from gec_meta.config import CONFIG_MODULE
    from gec_meta.data.io import read_text

    if path is None:
        text = files(CONFIG_MODULE).joinpath("leaderboard.yaml").read_text(encoding="utf-8")
    else:
        text = read_text(Path(path))[1]
    return BoardConfig.from_mapping(OmegaConf.to_container(OmegaConf.create(text), resolve=True))


# --------------------------------------------------------------------------- the board
@dataclass(frozen=True)
class Cell:
    value: float
    rank: int  # significance cluster, 1 = top
    epsilon: float | None = None  # acc_eq's ε*
    chance: float | None = None  # a pairwise accuracy's chance level on the same pairs


@dataclass(frozen=True)
class Board:
    """One aggregation's leaderboard.

    Attributes:
        aggregation: e.g. ``default``.
        metrics: metric names in global-rank order.
        labels: name -> display label.
        tasks: the tasks, shape (T,).
        cells: (task name, metric) -> :class:`Cell`.
        global_ranking: :class:`gec_meta.meta.global_rank.GlobalRanking`.
        robustness: robustness set -> metric -> its section under this aggregation
            (:func:`gec_meta.meta.robustness.assess`).
        benchmarks: the benchmark names in config order (one table each; default: in the
            order of ``tasks``).
        system_scores: benchmark -> ``{"systems": S names, "human": {name: S values},
            "metrics": {metric: S values under this aggregation}}``, for the benchmarks whose
            system names are known (:attr:`HumanSide.systems`); no table shows them, the HTML
            page plots them.
    """

    aggregation: str
    metrics: tuple[str, ...]
    labels: Mapping[str, str]
    tasks: tuple[BoardTask, ...]
    cells: Mapping[tuple[str, str], Cell]
    global_ranking: object
    robustness: Mapping[str, Mapping[str, dict]] = field(default_factory=dict)
    benchmarks: tuple[str, ...] = ()
    system_scores: Mapping[str, dict] = field(default_factory=dict)

    def __post_init__(self):
        if not self.benchmarks:
            object.__setattr__(self, "benchmarks", tuple(dict.fromkeys(t.benchmark for t in self.tasks)))

    def position(self, metric: str) -> int:
        """1-based place in the global ranking."""
        return self.metrics.index(metric) + 1

    def to_dict(self) -> dict:
        """JSON-ready data (``json.dumps`` writes each float's shortest round-trip repr, so
        :meth:`from_dict` gives back the same bits)."""
        g = self.global_ranking
        return {
            "aggregation": self.aggregation,
            "metrics": list(self.metrics),
            "labels": {m: self.labels[m] for m in self.metrics},
            "benchmarks": list(self.benchmarks),
            "tasks": [{"benchmark": t.benchmark, "target": t.target, "level": t.level, "statistic": t.statistic}
                      for t in self.tasks],
            "cells": [{"task": t.name, "metric": m, "value": c.value, "cluster": c.rank, "epsilon": c.epsilon,
                       "chance": c.chance}
                      for t in self.tasks for m in self.metrics for c in [self.cells[(t.name, m)]]],
            "global_ranking": {"average_rank": dict(g.average_rank), "average_value": dict(g.average_value),
                               "order": list(g.order), "weights": dict(g.weights), "excluded": list(g.excluded)},
            "robustness": {name: dict(sections) for name, sections in self.robustness.items()},
            "system_scores": dict(self.system_scores),
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> "Board":
        """The inverse of :meth:`to_dict`.

        Raises:
            KeyError, TypeError, ValueError: ``d`` is not a board's data (callers name the file).
        """
        from gec_meta.meta.global_rank import GlobalRanking

        tasks = tuple(BoardTask(str(t["benchmark"]), str(t["target"]), str(t["level"]), str(t["statistic"]))
                      for t in d["tasks"])
        cells = {(str(c["task"]), str(c["metric"])): Cell(float(c["value"]), int(c["cluster"]),
                                                          None if c.get("epsilon") is None else float(c["epsilon"]),
                                                          None if c.get("chance") is None else float(c["chance"]))
                 for c in d["cells"]}
        metrics = tuple(str(m) for m in d["metrics"])
        missing = [(t.name, m) for t in tasks for m in metrics if (t.name, m) not in cells]
        if missing:
            raise ValueError(f"no cell for task {missing[0][0]!r}, metric {missing[0][1]!r}")
        g = d["global_ranking"]
        ranking = GlobalRanking({str(k): float(v) for k, v in g["average_rank"].items()},
                                {str(k): float(v) for k, v in g["average_value"].items()},
                                tuple(g.get("order") or metrics), {str(k): float(v) for k, v in
                                                                   (g.get("weights") or {}).items()},
                                tuple(g.get("excluded") or ()))
        return cls(str(d["aggregation"]), metrics, {m: str(d["labels"][m]) for m in metrics}, tasks, cells, ranking,
                   {str(k): dict(v) for k, v in (d.get("robustness") or {}).items()},
                   tuple(str(b) for b in d.get("benchmarks") or ()),
                   {str(k): dict(v) for k, v in (d.get("system_scores") or {}).items()})


def _seed_words(seed: int, task: BoardTask, a: str, b: str) -> list[int]:
    """The seed of one permutation test: (seed, task, metric pair) — independent of the order
    in which tests run, so the board regenerates byte-identically."""
    return [seed, *(zlib.crc32(x.encode("utf-8")) for x in (task.name, a, b))]


def task_values(task: BoardTask, aggregation: str, runs: Mapping[str, MetricScores], human: HumanSide,
                sentence_memo: dict | None = None) -> dict[str, dict]:
    """metric -> ``{"value": v, ...}`` of one task (acc_eq also gives ``epsilon``; acc_eq and
    pairwise accuracy ``chance``).

    ``sentence_memo``: (task, metric) -> the sentence-level result, shared by the boards of
    every aggregation (sentence scores, hence acc_eq, ε* and PDP, do not depend on it)."""
    from gec_meta.meta.correlation import pearson, spearman
    from gec_meta.meta.pdp import pairwise_difference_pearson
    from gec_meta.meta.spa import soft_pairwise_accuracy
    from gec_meta.meta.ties import chance_accuracy, system_pairwise_accuracy
    from gec_meta.meta.wmt_stats import tie_calibrated

    out = {}
    for name, run in runs.items():
        if task.level == "sentence":
            memo = {} if sentence_memo is None else sentence_memo
            if (task.name, name) not in memo:
                if task.statistic == "pdp":
                    groups = human.groups
                    memo[(task.name, name)] = {"value": float(pairwise_difference_pearson(
                        groups.human, groups.metric(run.sentence_scores)))}
                else:
                    res = tie_calibrated(human.groups, run.sentence_scores, None, run.resolution)
                    memo[(task.name, name)] = {"value": res["acc_eq"], "epsilon": res["epsilon"],
                                               "chance": res["acc_eq_random"]}
            out[name] = memo[(task.name, name)]
            continue
        m, h = run.system_scores[aggregation], human.system[task.target]
        extra = {}
        if task.statistic == "pearson":
            v = pearson(m, h)
        elif task.statistic == "spearman":
            v = spearman(m, h)
        elif task.statistic == "pairwise_accuracy":
            v = system_pairwise_accuracy(h, m)
            extra["chance"] = chance_accuracy(h)
        else:
            v = soft_pairwise_accuracy(human.pvalues[task.target], run.pvalues[aggregation])
        out[name] = {"value": float(v), **extra}
    return out


def defined(task: BoardTask, human: HumanSide) -> bool:
    """Whether a task exists on its benchmark: PDP needs segment scores (ratings), not rankings
    (:mod:`gec_meta.meta.pdp`)."""
    return task.statistic != "pdp" or getattr(human.groups, "kind", None) == "rating"


def build_board(config: BoardConfig, aggregation: str, runs: Mapping[str, Mapping[str, MetricScores]],
                humans: Mapping[str, HumanSide], use_cache: bool = True, sentence_memo: dict | None = None,
                robustness: Mapping[str, Mapping[str, Mapping[str, dict]]] | None = None, bar=None) -> Board:
    """One aggregation's leaderboard.

    Args:
        runs: benchmark name -> metric -> :class:`MetricScores` (metrics in config order).
        humans: benchmark name -> :class:`HumanSide`.
        robustness: robustness set -> metric -> aggregation -> section
            (:func:`gec_meta.meta.robustness.assess`), for the "fooled by" column.
        bar: a tqdm progress bar advanced by one for each task, or None.
    """
    from gec_meta.meta.clusters import assign_ranks_lazily
    from gec_meta.meta.global_rank import ACCURACY_RANGE, CORRELATION_RANGE, global_ranking

    tasks = [t for t in config.tasks() if defined(t, humans[t.benchmark])]
    cells: dict[tuple[str, str], Cell] = {}
    values_by_task, ranks_by_task = {}, {}
    metrics = [m for m in config.metrics if all(m in runs[t.benchmark] for t in tasks)]
    for task in tasks:
        if bar is not None:
            bar.set_postfix_str(f"{aggregation}: {task.name}")
        bench_runs = {m: runs[task.benchmark][m] for m in metrics}
        values = task_values(task, aggregation, bench_runs, humans[task.benchmark], sentence_memo)
        _check_rankable(task, aggregation, values, bench_runs, config)
        order = sorted(metrics, key=lambda m: (-_sortable(values[m]["value"]), m))
        eps = {m: values[m].get("epsilon") for m in metrics}

        def pvalue(upper: str, lower: str, task=task, bench_runs=bench_runs, eps=eps) -> float:
            # p-value of "lower is not worse than upper"
            return cached_pvalue(task, aggregation, bench_runs[upper], bench_runs[lower], humans[task.benchmark],
                                 eps[upper], eps[lower], config.permutations,
                                 _seed_words(config.seed, task, upper, lower), use_cache)

        ranks = assign_ranks_lazily({m: values[m]["value"] for m in order}, pvalue, alpha=config.alpha)
        for m in metrics:
            cells[(task.name, m)] = Cell(values[m]["value"], int(ranks[m]), eps[m], values[m].get("chance"))
        values_by_task[task.name] = {m: values[m]["value"] for m in metrics}
        ranks_by_task[task.name] = {m: int(ranks[m]) for m in metrics}
        if bar is not None:
            bar.update(1)
    weights = {t.name: config.weight(t) for t in tasks}
    ranges = {t.name: CORRELATION_RANGE if t.statistic in CORRELATIONS else ACCURACY_RANGE
              for t in tasks}
    ranking = global_ranking(values_by_task, ranks_by_task, weights, ranges)
    robust = {r.name: {m: robustness[r.name][m][aggregation] for m in metrics}
              for r in config.robustness if robustness and r.name in robustness}
    system_scores = {b.name: {"systems": list(humans[b.name].systems),
                              "human": {h: [float(v) for v in humans[b.name].system[h]] for h in b.human},
                              "metrics": {m: [float(v) for v in runs[b.name][m].system_scores[aggregation]]
                                          for m in metrics}}
                     for b in config.benchmarks if humans[b.name].systems}
    return Board(aggregation, tuple(ranking.order), {m: config.metrics[m][0] for m in metrics}, tuple(tasks),
                 cells, ranking, robust, tuple(b.name for b in config.benchmarks), system_scores)


def build_boards(config: BoardConfig, runs: Mapping[str, Mapping[str, MetricScores]],
                 humans: Mapping[str, HumanSide], use_cache: bool = True,
                 robustness: Mapping[str, Mapping[str, Mapping[str, dict]]] | None = None,
                 progress: bool = False) -> list[Board]:
    """The leaderboard as data: one :class:`Board` per aggregation of ``config`` (arguments as
    :func:`build_board`); the sentence-level results (acc_eq, ε*, PDP) are computed once and
    shared, as they do not depend on the aggregation.  ``progress`` shows a bar of the
    (aggregation, task) pairs: from a cold cache the significance tests take minutes."""
    from tqdm.auto import tqdm

    sentence_memo: dict = {}
    tasks = sum(defined(t, humans[t.benchmark]) for t in config.tasks())
    with tqdm(total=len(config.aggregations) * tasks, desc="meta-evaluation", unit="task",
              disable=not progress) as bar:
        return [build_board(config, a, runs, humans, use_cache, sentence_memo, robustness, bar)
                for a in config.aggregations]


def _check_rankable(task: BoardTask, aggregation: str, values: Mapping[str, dict],
                    runs: Mapping[str, MetricScores], config: BoardConfig) -> None:
    """A metric whose statistic is undefined on a task (NaN: a correlation of system scores
    that are all equal) has no place in that task's clusters or the global ranking.  A single
    run reports such a correlation as NaN with an ``UndefinedCorrelationWarning``; a
    leaderboard stops with one line naming the metric and the task.

    Raises:
        GecMetaError: the first metric with a non-finite value.
    """
    from gec_meta.errors import GecMetaError

    for m, v in values.items():
        if np.isfinite(v["value"]):
            continue
        scores = np.asarray(runs[m].system_scores[aggregation], dtype=np.float64)
        why = (f"its {aggregation} system scores are all {scores[0]:g}" if np.ptp(scores) == 0
               else "its scores leave the statistic undefined")
        raise GecMetaError(f"leaderboard: metric {m!r} ({config.metrics[m][0]}) has no {task.statistic} on "
                           f"{task.name} ({why}), so it cannot be ranked; leave it out (--metrics) or check its "
                           "scores (`gec-meta-run` reports such a run with NaN and a warning)")


def _sortable(v: float) -> float:
    return -np.inf if not np.isfinite(v) else float(v)




#: ``format`` of the board's JSON data (``leaderboard.json``).
BOARD_FORMAT = "gec-meta leaderboard 1"


def board_document(boards: Sequence[Board], config: Mapping | None = None, preamble: str = "") -> dict:
    """The leaderboard's JSON data: its boards, the config that produced them
    (:meth:`BoardConfig.to_mapping`) and the Markdown preamble (command, seed, versions), so
    every rendering can be redone without recomputing."""
    return {"format": BOARD_FORMAT, "config": None if config is None else dict(config),
            "preamble": preamble, "boards": [b.to_dict() for b in boards]}


def boards_from_document(d: Mapping) -> tuple[list[Board], dict | None, str]:
    """(boards, config mapping or None, preamble) of :func:`board_document`'s data.

    Raises:
        ValueError: not such data (callers name the file).
    """
    if not isinstance(d, Mapping) or d.get("format") != BOARD_FORMAT:
        raise ValueError(f"not leaderboard data (no \"format\": \"{BOARD_FORMAT}\")")
    try:
        return [Board.from_dict(b) for b in d["boards"]], d.get("config"), str(d.get("preamble") or "")
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not leaderboard data ({type(exc).__name__}: {exc})") from None
