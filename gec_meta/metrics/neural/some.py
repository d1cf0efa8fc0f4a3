"""SOME (Yoshimura, Kaneko, Kajiwara & Komachi, COLING 2020, "SOME: Reference-less
Sub-Metrics Optimized for Manual Evaluations of Grammatical Error Correction").

Three BERT regressors fine-tuned on human ratings: grammaticality and fluency read the
hypothesis, meaning preservation reads the (source, hypothesis) pair.  Each raw output is
min-max normalised from the 1-4 rating scale, (x - 1) / 3 (gec-metrics 0.1.1), and the
sentence score is

    SOME = 0.55 * grammaticality + 0.43 * fluency + 0.02 * meaning

(weights tuned for sentence-level evaluation by Yoshimura et al. 2020, the setting of the
"Rethinking" and UOT-ERRANT papers).  Corpus score: mean of the sentence scores.

Weights: the official models (kokeman/SOME, ``gfm-models/{grammer,fluency,meaning}``) must be
provided by the user as local folders (or hub ids in the local Hub cache); none ship here.

Statistics: shape (S, N, 1, 3), last axis (grammaticality, fluency, meaning), normalised.
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

#: Rating scale of the SOME training data (1-4), used for min-max normalisation.
RATING_MIN, RATING_MAX = 1.0, 4.0


@dataclass(frozen=True)
class SOME(Metric):
    """SOME (reference-free).

    Fields:
        model_g, model_f, model_m: the grammaticality, fluency and meaning regressors.
        weight_g, weight_f, weight_m: 0.55, 0.43, 0.02 (Yoshimura et al. 2020).  Stage 2 only.
        batch_size, max_length: 32, 128 (the official scorer's max length).
        device: where the regressors run (``auto``: CUDA, then MPS, then CPU; see
            :func:`gec_meta.devices.resolve_device`); in the signature, not in the cache key.
        regressors: already built ``(g, f, m)`` :class:`gec_meta.models.regressors.SequenceRegressor`
            (tests).
    """

    model_g: str = "gfm-models/grammer"
    model_f: str = "gfm-models/fluency"
    model_m: str = "gfm-models/meaning"
    weight_g: float = 0.55
    weight_f: float = 0.43
    weight_m: float = 0.02
    # texts of one token length per forward pass, unpadded: changes no value on the CPU, so in no
    # signature there (a GPU's passes have exactly batch_size rows, named: gec_meta.kernels.pass_rows)
    batch_size: int = field(default=32, repr=False, metadata=valid(integer(1, hi=MAX_BATCH_SIZE)))
    max_length: int = 128
    regressors: tuple | None = field(default=None, repr=False, compare=False)
    device: str = field(default="auto", repr=False, compare=False, kw_only=True)

    name: ClassVar[str] = "some"
    language_note: ClassVar[str] = "SOME's regressors are fine-tuned on English GEC ratings"
    # 2: model batches of one token length, unpadded (values independent of batch_size and order)
    version: ClassVar[str] = "2"
    needs_references: ClassVar[bool] = False
    stat_names: ClassVar[tuple[str, ...]] = ("grammaticality", "fluency", "meaning")

    def __post_init__(self):
        super().__post_init__()
        for k in ("weight_g", "weight_f", "weight_m"):
            if getattr(self, k) < 0:
                raise ConfigError(f"metric.{k} must be >= 0, got {getattr(self, k)!r}")
        object.__setattr__(self, "device", resolve_device(self.device, "metric.device"))  # fails here, not mid-run

    def models(self):
        if self.regressors is not None:
            return self.regressors
        from gec_meta.models.regressors import SequenceRegressor

        return tuple(SequenceRegressor(getattr(self, f"model_{k}"), f"metric.model_{k}", self.batch_size, self.max_length,
                                       device=self.device) for k in "gfm")

    def stats_options(self) -> dict[str, object]:
        return {f"model_{k}": m.identity for k, m in zip("gfm", self.models())}

    def statistics(self, sources: Sequence[str], hypotheses: Sequence[Sequence[str]], references=()) -> np.ndarray:
        """Normalised sub-scores, shape (S, N, 1, 3).

        Args:
            sources: shape (N,).
            hypotheses: shape (S, N).
        """
        N, S = len(sources), len(hypotheses)
        g, f, m = self.models()
        flat = [h[n] for h in hypotheses for n in range(N)]
        flat_src = [sources[n] for _ in hypotheses for n in range(N)]
        cols = [g.logits(flat), f.logits(flat), m.logits(flat, pairs_with=flat_src)]
        stats = (np.stack(cols, axis=-1) - RATING_MIN) / (RATING_MAX - RATING_MIN)
        return stats.reshape(S, N, 1, 3)

    def score_from_stats(self, stats: np.ndarray) -> np.ndarray:
        w = np.array([self.weight_g, self.weight_f, self.weight_m])
        return stats @ w
