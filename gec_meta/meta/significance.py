"""Significance of system-level correlations: Williams test, permutation test, paired
bootstrap test, and WMT-style "not significantly worse than the best" marks.

Comparing two metrics on the same systems (every correlation from
:mod:`gec_meta.meta.correlation`, chosen by name):

* :func:`williams_test` -- Williams (1959) test for dependent correlations, as the WMT metrics
  tasks use it (Graham & Baldwin 2014); the sample is the S systems; its three correlations are
  the scalar ones (:data:`~gec_meta.meta.correlation.CORRELATIONS`), the values the tables print.
* :func:`permutation_test` -- paired permutation test over systems (Deutsch et al. 2021; WMT's
  ``PermutationSigDiff`` at the system level): swap A's and B's standardised system scores;
  observed and permuted correlations alike from the row functions
  (:data:`~gec_meta.meta.correlation.ROW_CORRELATIONS`).
* :func:`paired_bootstrap_test` -- does metric A correlate better than B on shared sentence
  resamples (Koehn 2004's paired bootstrap, applied to correlations)?

:func:`compare_with_best` runs one of the three tests of every metric of a table column against
the column's best metric; :func:`significance_signature` names the test for captions.
Resampling (bootstrap indices, re-aggregation, CIs) lives in :mod:`gec_meta.meta.resampling`.

Pure functions with an explicit ``numpy.random.Generator`` (never the global RNG).
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from gec_meta.meta.correlation import correlation, row_correlations

__all__ = ["METHODS", "williams_test", "compare_metrics_williams", "permutation_test", "paired_bootstrap_test",
           "compare_with_best", "significance_signature"]

METHODS = ("williams", "permutation", "bootstrap")


# --------------------------------------------------------------------------- paired tests
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
    from scipy import stats as sps  # ~1 s to import: only when a Williams test runs

    return t, float(sps.t.sf(t, n - 3))


def compare_metrics_williams(a: Sequence[float], b: Sequence[float], human: Sequence[float],
                             kind: str = "pearson") -> dict[str, float]:
    """Williams' test that metric A (system scores ``a``, shape (S,)) correlates better than B
    with ``human``; ``kind`` names the correlation (Williams on Spearman = Williams on ranks)."""
    corr = correlation(kind)
    r12, r13, r23 = corr(a, human), corr(b, human), corr(a, b)
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
    """Paired permutation test over systems that metric A correlates better with the humans.

    Each metric's system scores are standardised (z-scores, population sd, as
    ``scipy.stats.zscore``) so that swapping is meaningful; each sample swaps A's and B's score
    of every system with probability 1/2 (all samples are drawn at once:
    ``rng.random((samples, S))``).  Observed and permuted differences come from the same row
    correlation, so the unpermuted sample reproduces the observed value exactly.

    Args:
        a, b, human: shape (S,).
        rng: the random generator (seeded by the caller).
        samples: permutations.
        kind: correlation name.

    Returns:
        ``{"delta": corr(A) - corr(B), "p": one-sided p (add-one smoothed)}``.
    """
    za, zb = _zscore(a), _zscore(b)
    h = np.asarray(human, dtype=np.float64)
    observed = float(np.subtract(*row_correlations(np.stack([za, zb]), h, kind)))
    swap = rng.random((samples, len(h))) < 0.5
    delta = (row_correlations(np.where(swap, zb, za), h, kind)
             - row_correlations(np.where(swap, za, zb), h, kind))
    hits = int((delta >= observed - 1e-12).sum())
    return {"delta": observed, "p": (hits + 1) / (samples + 1)}


def _zscore(x: Sequence[float]) -> np.ndarray:
    """``scipy.stats.zscore(x)``: (x - mean) / population standard deviation, shape (S,)."""
    x = np.asarray(x, dtype=np.float64)
    return (x - x.mean()) / x.std()


def paired_bootstrap_test(a_resampled: np.ndarray, b_resampled: np.ndarray, human: Sequence[float],
                          kind: str = "pearson") -> dict[str, float]:
    """Paired bootstrap test over sentences that metric A correlates better than B (Koehn 2004).

    Both metrics are re-aggregated on the *same* resamples of the sentences; A is better at
    level p when it correlates better than B on all but a fraction p of the resamples.

    Args:
        a_resampled, b_resampled: shape (P, S), from :func:`resampled_system_scores` with the
            same ``indices``.
        human: shape (S,).

    Returns:
        ``{"p": (1 + #resamples where corr(A) <= corr(B) or either is undefined) / (1 + P),
        "wins": fraction of resamples where corr(A) > corr(B)}``.
    """
    a_resampled, b_resampled = np.asarray(a_resampled), np.asarray(b_resampled)
    if a_resampled.shape != b_resampled.shape:
        raise ValueError(f"resamples of different shapes: {a_resampled.shape} vs {b_resampled.shape}")
    P = a_resampled.shape[0]
    with np.errstate(invalid="ignore"):
        wins = int((row_correlations(a_resampled, human, kind) > row_correlations(b_resampled, human, kind)).sum())
    return {"p": (1 + P - wins) / (1 + P), "wins": wins / P if P else float("nan")}


def compare_with_best(
    system_scores: Mapping[str, Sequence[float]],
    human: Sequence[float],
    kind: str = "pearson",
    method: str = "williams",
    rng: np.random.Generator | None = None,
    samples: int = 1000,
    resampled: Mapping[str, np.ndarray] | None = None,
) -> dict[str, dict[str, float | str]]:
    """Is each metric's correlation significantly lower than the best metric's (WMT style)?

    The best metric is the one with the highest correlation (the first one on ties); every
    other metric is tested with the one-sided hypothesis corr(best) > corr(metric).

    Args:
        system_scores: metric label -> system scores, shape (S,), all on the same systems.
        human: shape (S,).
        kind: ``pearson`` or ``spearman`` (Williams on Spearman = Williams on the ranks).
        method: ``williams`` (:func:`williams_test`), ``permutation`` (:func:`permutation_test`
            over systems, ``samples`` draws from ``rng``, metrics tested in the given order) or
            ``bootstrap`` (:func:`paired_bootstrap_test`; needs ``resampled``: label -> shape
            (P, S) on shared sentence resamples).

    Returns:
        label -> ``{"corr", "best", "delta" (corr(best) - corr), "p"}``; the best metric has
        delta 0 and p 1; a metric with an undefined (NaN) correlation gets p NaN.
    """
    if method not in METHODS:
        raise ValueError(f"unknown significance method {method!r}; choose from {list(METHODS)}")
    if method == "permutation" and rng is None:
        raise ValueError("the permutation test needs a random generator (rng)")
    if method == "bootstrap" and resampled is None:
        raise ValueError("the paired bootstrap test needs the resampled system scores (resampled)")
    human = np.asarray(human, dtype=np.float64)
    corr_fcn = correlation(kind)
    corr = {label: corr_fcn(np.asarray(s, dtype=np.float64), human) for label, s in system_scores.items()}
    defined = [label for label, r in corr.items() if not math.isnan(r)]
    out: dict[str, dict[str, float | str]] = {}
    if not defined:
        return {label: {"corr": r, "best": "", "delta": float("nan"), "p": float("nan")} for label, r in corr.items()}
    best = max(defined, key=lambda label: corr[label])  # max keeps the first of equal values
    for label, r in corr.items():
        if math.isnan(r):
            p = float("nan")
        elif label == best:
            p = 1.0
        elif method == "williams":
            p = compare_metrics_williams(system_scores[best], system_scores[label], human, kind)["p"]
        elif method == "permutation":
            p = permutation_test(system_scores[best], system_scores[label], human, rng, samples, kind)["p"]
        else:
            p = paired_bootstrap_test(resampled[best], resampled[label], human, kind)["p"]
        out[label] = {"corr": r, "best": best, "delta": corr[best] - r, "p": p}
    return out


def significance_signature(method: str, samples: int | None = None, seed: int | None = None,
                           alpha: float = 0.05) -> str:
    """``sig:<method>(...)`` naming the test, its unit, resamples and seed (for captions)."""
    from gec_meta.meta.components import component

    opts: dict[str, object] = {"alpha": alpha, "tail": "one-sided"}
    if method == "permutation":
        opts.update(unit="systems", resamples=samples, seed=seed)
    elif method == "bootstrap":
        opts.update(unit="sentences", resamples=samples, seed=seed)
    elif method != "williams":
        raise ValueError(f"unknown significance method {method!r}; choose from {list(METHODS)}")
    return "sig:" + component(method, opts)
