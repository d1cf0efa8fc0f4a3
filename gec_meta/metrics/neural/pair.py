"""Metrics that score every (hypothesis, reference) pair with a pretrained pair scorer
(BERTScore, BARTScore): one base for the shared plumbing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

from gec_meta.errors import ConfigError

#: The largest ``metric.batch_size`` of the neural metrics: texts per forward pass (memory grows
#: with it; an extra digit would end in an out-of-memory error after the model loaded).
MAX_BATCH_SIZE = 4096
from gec_meta.metrics.base import ANY_LANGUAGE, Metric


@dataclass(frozen=True)
class PairScoreMetric(Metric):
    """Best reference per sentence, corpus = mean of sentence scores (Metric's defaults).

    Fields:
        scorer: the pair scorer (``conf/scorer``), whose signature identifies the statistics.
    """

    scorer: object = None

    needs_source: ClassVar[bool] = False
    reference_kind: ClassVar[str] = "text"
    #: any language its scorer's model covers (:func:`gec_meta.metrics.languages.model_language_problem`)
    languages: ClassVar[tuple[str, ...] | str] = ANY_LANGUAGE

    def __post_init__(self):
        super().__post_init__()
        if self.scorer is None:
            raise ConfigError(f"metric.scorer is required for {self.name} (e.g. scorer={self.name})")

    def options(self) -> dict[str, object]:
        return {"scorer": self.scorer.signature(), **({"lang": self._language} if self._language != "en" else {})}

    @staticmethod
    def pairs(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]]):
        """Candidates and references of every (system, sentence, reference), flattened in that
        order: two lists of length S * N * R."""
        S, N, R = len(hypotheses), len(hypotheses[0]) if hypotheses else 0, len(references)
        cands = [hypotheses[s][n] for s in range(S) for n in range(N) for _ in range(R)]
        refs = [references[r][n] for _ in range(S) for n in range(N) for r in range(R)]
        return cands, refs
