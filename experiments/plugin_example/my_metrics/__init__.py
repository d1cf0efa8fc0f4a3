"""A worked example of a plugin metric: one class, one YAML, no change to gec-meta.

``UnigramF`` scores a hypothesis by the unigram F1 of its tokens against the best reference.
Its statistics are (matched, hypothesis tokens, reference tokens) per reference, so corpus
scores come from summed counts and sentence scores from each sentence's counts — the
statistics-first interface of ``gec_meta.metrics.base.Metric``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gec_meta.metrics.base import Metric


@dataclass(frozen=True)
class UnigramF(Metric):
    lowercase: bool = False

    name: ClassVar[str] = "unigram_f"
    needs_source: ClassVar[bool] = False
    stat_names: ClassVar[tuple[str, ...]] = ("matched", "hyp_tokens", "ref_tokens")

    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        norm = (lambda s: s.lower()) if self.lowercase else (lambda s: s)
        out = np.zeros((len(hypotheses), len(sources), len(references), 3))
        for s, hyp in enumerate(hypotheses):
            for n, h in enumerate(hyp):
                hc = Counter(norm(h).split())
                for r, ref in enumerate(references):
                    rc = Counter(norm(ref[n]).split())
                    out[s, n, r] = (sum((hc & rc).values()), sum(hc.values()), sum(rc.values()))
        return out

    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        matched, hyp, ref = stats[..., 0], stats[..., 1], stats[..., 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(hyp + ref > 0, 2 * matched / (hyp + ref), 1.0)
        return f

    def corpus_scores(self, stats: np.ndarray) -> np.ndarray:
        best = self.best_reference(stats)
        chosen = np.take_along_axis(stats, best[:, :, None, None], axis=2)[:, :, 0, :]
        return self.score_from_stats(chosen.sum(axis=1))
