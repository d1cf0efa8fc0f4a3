"""What a leaderboard is built from, as plain data: its tasks, each metric's scores on a
benchmark and the human side of the benchmark (:mod:`gec_meta.meta.board` builds the board).

A module of its own, with nothing of the package imported: the significance p-values read
these objects (:mod:`gec_meta.meta.board_pvalues`), so their code version holds this module and
not the board's configuration, ranking and rendering code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np


@dataclass(frozen=True)
class BoardTask:
    """One task: a statistic of one level against one human score / judgment aspect."""

    benchmark: str
    target: str  # human score (system level) or judgment aspect (sentence level)
    level: str
    statistic: str

    @property
    def name(self) -> str:
        return f"{self.benchmark}/{self.target}/{self.statistic}"


@dataclass(frozen=True)
class MetricScores:
    """What one metric produced on one benchmark.

    Attributes:
        system_scores: aggregation -> shape (S,).
        pvalues: aggregation -> shape (S, S), p(system i beats j) (SPA's p^m), if computed.
        sentence_scores: shape (S, N) (``Metric.comparable_scores``).
        resolution: the metric's tie tolerance (:attr:`gec_meta.metrics.base.Metric.tie_tolerance`).
    """

    system_scores: Mapping[str, np.ndarray]
    pvalues: Mapping[str, np.ndarray]
    sentence_scores: np.ndarray
    resolution: float = 0.0


@dataclass(frozen=True)
class HumanSide:
    """The human side of one benchmark.

    Attributes:
        system: human score name -> shape (S,).
        pvalues: human score name -> shape (S, S) (SPA's p^h).
        groups: the sentence-level judgments (:class:`gec_meta.meta.groups.Groups`), or None.
        systems: shape (S,): the system names, if known (they label the board's
            :attr:`gec_meta.meta.board.Board.system_scores`, which the HTML page plots).
    """

    system: Mapping[str, np.ndarray]
    pvalues: Mapping[str, np.ndarray]
    groups: object | None
    systems: tuple[str, ...] = ()
