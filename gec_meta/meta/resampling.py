"""Bootstrap resampling of the sentences and percentile confidence intervals.

The human system scores stay fixed (TrueSkill human scores cannot be recomputed per sample);
a metric's system scores are re-aggregated on every resample of the sentences:

* :func:`bootstrap_indices` -- the resamples, shape (P, N), drawn once and shared by every metric
  of a table (a *paired* design; Koehn 2004);
* :func:`resampled_system_scores` -- a metric's system scores on every resample, shape (P, S):
  ``aggregation.resample`` (each aggregation owns its vectorised form,
  :meth:`gec_meta.meta.aggregation.Aggregation.resample`);
* :func:`confidence_intervals` / :func:`bootstrap_correlations` -- percentile CIs (Efron &
  Tibshirani 1993, §13.3) of the system-level correlations.

Pure functions with an explicit ``numpy.random.Generator`` (never the global RNG).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from gec_meta.meta.correlation import row_correlations


def bootstrap_indices(num_sentences: int, rng: np.random.Generator, samples: int) -> np.ndarray:
    """Bootstrap resamples of the sentences (with replacement), shape (samples, num_sentences).

    Row p equals the p-th ``rng.integers(0, N, size=N)`` drawn one after another.
    """
    return rng.integers(0, num_sentences, size=(samples, num_sentences))


def sentence_counts(indices: np.ndarray, num_sentences: int) -> np.ndarray:
    """How often every sentence occurs in every resample.

    Args:
        indices: shape (P, N').
        num_sentences: N.

    Returns:
        float64, shape (P, N): a resample's sum of per-sentence values x is ``counts @ x``.
    """
    indices = np.asarray(indices)
    P = indices.shape[0]
    flat = (indices + num_sentences * np.arange(P)[:, None]).ravel()
    return np.bincount(flat, minlength=P * num_sentences).reshape(P, num_sentences).astype(np.float64)


def resampled_system_scores(metric, stats: np.ndarray, aggregation, indices: np.ndarray) -> np.ndarray:
    """The system scores ``aggregation(metric, stats[:, idx])`` of every resample ``idx``.

    Args:
        metric: the bound metric.
        stats: shape (S, N, R, K).
        aggregation: a :class:`gec_meta.meta.aggregation.Aggregation`.
        indices: shape (P, N) from :func:`bootstrap_indices`.

    Returns:
        shape (P, S) (``aggregation.resample``).
    """
    return aggregation.resample(metric, stats, np.asarray(indices))


def confidence_intervals(resampled: np.ndarray, human: Sequence[float],
                         kinds: Sequence[str] = ("pearson", "spearman"),
                         alpha: float = 0.05) -> dict[str, dict[str, float]]:
    """Percentile bootstrap CIs of the correlations of resampled system scores with ``human``.

    Args:
        resampled: shape (P, S) (:func:`resampled_system_scores`).
        human: shape (S,).
        kinds: correlation names (:data:`gec_meta.meta.correlation.ROW_CORRELATIONS`).
        alpha: 1 - confidence level.

    Returns:
        ``{kind: {"low", "high", "mean", "dropped"}}``; resamples whose scores are constant or
        not finite (undefined correlation) are dropped and counted.
    """
    x = np.asarray(resampled, dtype=np.float64)
    ok = np.isfinite(x).all(axis=1) & (np.ptp(np.where(np.isfinite(x), x, 0.0), axis=1) > 0)
    dropped = int((~ok).sum())
    out = {}
    for k in kinds:
        arr = row_correlations(x[ok], human, k) if ok.any() else np.zeros(0)
        out[k] = {
            "low": float(np.quantile(arr, alpha / 2)) if len(arr) else float("nan"),
            "high": float(np.quantile(arr, 1 - alpha / 2)) if len(arr) else float("nan"),
            "mean": float(arr.mean()) if len(arr) else float("nan"),
            "dropped": dropped,
        }
    return out


def bootstrap_correlations(
    system_scores_of: Callable[[np.ndarray], np.ndarray],
    num_sentences: int,
    human: Sequence[float],
    rng: np.random.Generator,
    samples: int = 1000,
    kinds: Sequence[str] = ("pearson", "spearman"),
    alpha: float = 0.05,
) -> dict[str, dict[str, float]]:
    """Percentile bootstrap CIs of system-level correlations.

    Args:
        system_scores_of: maps sentence indices, shape (N,), to system scores, shape (S,)
            (e.g. ``lambda idx: aggregation(metric, stats[:, idx])``).
        num_sentences: N.
        human: shape (S,).
        rng: the random generator (seeded by the caller).
        samples: bootstrap samples (1000 as in WMT).
        alpha: 1 - confidence level.

    Returns:
        as :func:`confidence_intervals`.
    """
    indices = bootstrap_indices(num_sentences, rng, samples)
    resampled = np.stack([np.asarray(system_scores_of(idx), dtype=np.float64) for idx in indices])
    return confidence_intervals(resampled, human, kinds, alpha)
