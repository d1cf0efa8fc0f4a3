"""Sentence-level human judgments as groups of systems judged together.

A module of its own, with nothing of the package imported: the significance p-values of the
leaderboard read their judgments through :meth:`Groups.metric`, so this class's code is part of
their cache key (:mod:`gec_meta.meta.board_pvalues`), and the readers that build groups from a
dataset (:func:`gec_meta.meta.wmt_stats.sentence_groups`) are not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Groups:
    """Human judgments as groups of systems judged together.

    Attributes:
        human: shape (G, S), higher = better, NaN = the system was not judged in the group.
        lines: shape (G,), the sentence (index into the dataset's sources) of each group.
        kind: ``ranking`` (judges' rankings of subsets of the systems) or ``rating`` (a
            rating of every system per sentence; one group per sentence, G = N).
        ranks: shape (G, S), lower = better (the judges' ranks, or minus the ratings).
    """

    human: np.ndarray
    lines: np.ndarray
    kind: str = "ranking"

    @property
    def ranks(self) -> np.ndarray:
        return -self.human

    def metric(self, sentence_scores: np.ndarray) -> np.ndarray:
        """The metric's scores arranged like :attr:`human`: shape (G, S) from (S, N); a NaN
        metric score (no score) takes the system out of that group (:mod:`gec_meta.meta.ties`)."""
        return np.asarray(sentence_scores, dtype=np.float64)[:, self.lines].T
