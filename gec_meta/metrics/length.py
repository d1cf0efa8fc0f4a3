"""A toy metric that pins the pipeline without any model.

Sentence score = number of characters of the hypothesis; corpus score = their sum.  The
gec-metrics library uses the same metric in its meta-evaluation tests, which gives published
correlations to check the data loading and meta-evaluation against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gec_meta.metrics.base import Metric


@dataclass(frozen=True)
class Length(Metric):
    name: ClassVar[str] = "length"
    needs_references: ClassVar[bool] = False
    stat_names: ClassVar[tuple[str, ...]] = ("chars",)

    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        lengths = np.array([[len(h) for h in hyp] for hyp in hypotheses], dtype=np.float64)
        return lengths[:, :, None, None]

    corpus_reduction = "sum"

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        return stats[:, :, 0, 0].sum(axis=1)
