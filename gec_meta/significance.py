"""Significance of system-level correlations: bootstrap CIs, Williams test, permutation test.

Pure functions with an explicit ``numpy.random.Generator`` (never the global RNG).

* :func:`bootstrap_correlations` — confidence intervals by resampling *sentences* with
  replacement and re-aggregating the metric's system scores from its statistics on each sample
  (the human system scores stay fixed: TrueSkill human scores cannot be recomputed per sample).
* :func:`williams_test` — is metric A's correlation with the humans higher than metric B's,
  given that both are correlated with each other (Williams 1959; used by the WMT metrics tasks
  after Graham & Baldwin 2014).
* :func:`permutation_test` — paired permutation test of the same question (Deutsch et al. 2021):
  swap the (standardised) system scores of A and B system by system.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np
from scipy import stats as sps

from .meta_eval import pearson, spearman

CORRELATIONS: dict[str, Callable] = {"pearson": pearson, "spearman": spearman}


def _corr(kind: str, x, y) -> float:
    if kind == "pearson":
        return float(np.corrcoef(x, y)[0, 1])
    if kind == "spearman":
        return float(sps.spearmanr(x, y)[0])
    raise ValueError(f"unknown correlation {kind!r}")


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
        ``{kind: {"low": l, "high": h, "mean": m}}``; samples with a constant score vector
        are dropped (counted in ``"dropped"``).
    """
    human = np.asarray(human, dtype=np.float64)
    values: dict[str, list[float]] = {k: [] for k in kinds}
    dropped = 0
    for _ in range(samples):
        idx = rng.integers(0, num_sentences, size=num_sentences)
        scores = np.asarray(system_scores_of(idx), dtype=np.float64)
        if np.ptp(scores) == 0 or not np.isfinite(scores).all():
            dropped += 1
            continue
        for k in kinds:
            values[k].append(_corr(k, scores, human))
    out = {}
    for k, v in values.items():
        arr = np.asarray(v)
        out[k] = {
            "low": float(np.quantile(arr, alpha / 2)) if len(arr) else float("nan"),
            "high": float(np.quantile(arr, 1 - alpha / 2)) if len(arr) else float("nan"),
            "mean": float(arr.mean()) if len(arr) else float("nan"),
            "dropped": dropped,
        }
    return out


def williams_test(r12: float, r13: float, r23: float, n: int) -> tuple[float, float]:
    """Williams' test for the difference of two dependent correlations sharing variable 1.

    t = (r12 - r13) sqrt((n-1)(1+r23)) / sqrt(2 (n-1)/(n-3) |R| + (r12+r13)^2/4 (1-r23)^3),
    |R| = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23, with n - 3 degrees of freedom
    (Williams 1959; Steiger 1980 eq. 7; Graham & Baldwin 2014).

    Args:
        r12: correlation of metric A with the humans.
        r13: correlation of metric B with the humans.
        r23: correlation of metric A with metric B.
        n: number of systems (> 3).

    Returns:
        (t, one-sided p) for the hypothesis r12 > r13.
    """
    if n <= 3:
        raise ValueError("Williams' test needs more than 3 systems")
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    denom = 2 * (n - 1) / (n - 3) * det + (r12 + r13) ** 2 / 4 * (1 - r23) ** 3
    if denom <= 0:
        return (math.inf if r12 > r13 else (0.0 if r12 == r13 else -math.inf)), (0.0 if r12 > r13 else (0.5 if r12 == r13 else 1.0))
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(denom)
    return t, float(sps.t.sf(t, n - 3))


def compare_metrics_williams(a: Sequence[float], b: Sequence[float], human: Sequence[float],
                             kind: str = "pearson") -> dict[str, float]:
    """Williams' test that metric A (system scores ``a``) correlates better than B."""
    r12, r13, r23 = _corr(kind, a, human), _corr(kind, b, human), _corr(kind, a, b)
    t, p = williams_test(r12, r13, r23, len(human))
    return {"delta": r12 - r13, "t": t, "p": p}


def permutation_test(
    a: Sequence[float],
    b: Sequence[float],
    human: Sequence[float],
    rng: np.random.Generator,
    samples: int = 10000,
    kind: str = "pearson",
) -> dict[str, float]:
    """Paired permutation test that metric A correlates better with the humans than B.

    Each metric's system scores are standardised (z-scores) so that swapping is meaningful;
    each sample swaps A's and B's score of every system with probability 1/2.

    Returns:
        ``{"delta": corr(A) - corr(B), "p": one-sided p (add-one smoothed)}``.
    """
    za = sps.zscore(np.asarray(a, dtype=np.float64))
    zb = sps.zscore(np.asarray(b, dtype=np.float64))
    h = np.asarray(human, dtype=np.float64)
    observed = _corr(kind, za, h) - _corr(kind, zb, h)
    hits = 0
    for _ in range(samples):
        swap = rng.random(len(h)) < 0.5
        pa, pb = np.where(swap, zb, za), np.where(swap, za, zb)
        if _corr(kind, pa, h) - _corr(kind, pb, h) >= observed - 1e-12:
            hits += 1
    return {"delta": observed, "p": (hits + 1) / (samples + 1)}
