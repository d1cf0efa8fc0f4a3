"""IMPARA (Maeda, Kaneko & Okazaki, COLING 2022, "IMPARA: Impact-based Metric for GEC using
Parallel Data").

A quality-estimation (QE) model scores the hypothesis, sigmoid(logit); a similarity
estimator (BERT mean-pooled last hidden states, cosine) checks meaning preservation between
source and hypothesis.  The sentence score is the QE score when the similarity is at least the
threshold and 0 otherwise (Maeda et al. 2022, Eq. 4; threshold 0.9 as in the "Rethinking" and
UOT-ERRANT papers; gec-metrics 0.1.1 zeroes scores with similarity < threshold).  Corpus
score: mean of the sentence scores.

No official QE weights exist; the papers use ``gotutiyan/IMPARA-QE`` (BertForSequenceClassification
on bert-base-cased) and ``bert-base-cased`` as the similarity model.  Users provide both.

Statistics: shape (S, N, 1, 2), last axis (qe, similarity) with qe = sigmoid(logit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.fields import integer, valid
from gec_meta.devices import resolve_device
from gec_meta.metrics.neural.pair import MAX_BATCH_SIZE
from gec_meta.errors import ConfigError
from gec_meta.metrics.base import Metric

#: Similarity threshold (Maeda et al. 2022; Goto et al. 2025 Appendix A).
DEFAULT_THRESHOLD = 0.9


@dataclass(frozen=True)
class IMPARA(Metric):
    """IMPARA (reference-free).

    Fields:
        model_qe: quality-estimation regressor (``gotutiyan/IMPARA-QE``).
        model_se: similarity encoder (``bert-base-cased``).
        threshold: 0.9.  Stage 2 only.
        batch_size, max_length: 32, 128.
        device: where both models run (``auto``: CUDA, then MPS, then CPU; see
            :func:`gec_meta.devices.resolve_device`); in the signature, not in the cache key.
        models_: already built ``(qe, se)`` (:class:`SequenceRegressor`, :class:`MeanPooledSimilarity`)
            for tests.
    """

    model_qe: str = "gotutiyan/IMPARA-QE"
    model_se: str = "bert-base-cased"
    threshold: float = DEFAULT_THRESHOLD
    # texts of one token length per forward pass, unpadded: changes no value on the CPU, so in no
    # signature there (a GPU's passes have exactly batch_size rows, named: gec_meta.kernels.pass_rows)
    batch_size: int = field(default=32, repr=False, metadata=valid(integer(1, hi=MAX_BATCH_SIZE)))
    max_length: int = 128
    models_: tuple | None = field(default=None, repr=False, compare=False)
    device: str = field(default="auto", repr=False, compare=False, kw_only=True)

    name: ClassVar[str] = "impara"
    language_note: ClassVar[str] = "IMPARA's quality estimator is trained on English"
    # 2: model batches of one token length, unpadded (values independent of batch_size and order)
    version: ClassVar[str] = "2"
    needs_references: ClassVar[bool] = False
    stat_names: ClassVar[tuple[str, ...]] = ("qe", "similarity")

    def __post_init__(self):
        super().__post_init__()
        if not -1.0 <= self.threshold <= 1.01:
            raise ConfigError(f"metric.threshold must be a cosine similarity threshold, got {self.threshold!r}")
        object.__setattr__(self, "device", resolve_device(self.device, "metric.device"))  # fails here, not mid-run

    def models(self):
        if self.models_ is not None:
            return self.models_
        from gec_meta.models.regressors import MeanPooledSimilarity, SequenceRegressor

        return (SequenceRegressor(self.model_qe, "metric.model_qe", self.batch_size, self.max_length,
                                  device=self.device),
                MeanPooledSimilarity(self.model_se, "metric.model_se", self.batch_size, self.max_length,
                                     device=self.device))

    def stats_options(self) -> dict[str, object]:
        qe, se = self.models()
        return {"model_qe": qe.identity, "model_se": se.identity}

    def statistics(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]], references=()) -> np.ndarray:
        """(qe, similarity) of every (system, sentence), shape (S, N, 1, 2).

        Args:
            sources: shape (N,).
            hypotheses: shape (S, N).
        """
        N, S = len(sources), len(hypotheses)
        qe, se = self.models()
        flat = [h[n] for h in hypotheses for n in range(N)]
        flat_src = [sources[n] for _ in hypotheses for n in range(N)]
        q = 1.0 / (1.0 + np.exp(-qe.logits(flat)))
        sim = se.similarity(flat_src, flat)
        return np.stack([q, sim], axis=-1).reshape(S, N, 1, 2)

    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        return np.where(stats[..., 1] >= self.threshold, stats[..., 0], 0.0)
