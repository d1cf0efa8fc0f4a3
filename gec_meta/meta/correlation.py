"""Pearson's r and Spearman's rho with scipy's arithmetic, without importing scipy.stats.

``scipy.stats`` takes about a second to import (it loads every distribution), which was most
of a warm (fully cached) meta-evaluation.  These two functions repeat the arithmetic of
``scipy.stats.pearsonr`` and ``scipy.stats.spearmanr`` (scipy 1.17) step for step -- centre,
scale by the largest deviation, vector norms, ``vecdot``, clip; Spearman = ``np.corrcoef`` of
average ranks -- so they return the same floats (``tests/test_correlation.py`` compares them
bit for bit on random and tied inputs).  Callers handle constant input (NaN) themselves.
"""

from __future__ import annotations

import numpy as np


def pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r of two float64 vectors of length n >= 2 (not constant).

    Args:
        x, y: shape (n,).
    """
    xm = x - np.mean(x)
    ym = y - np.mean(y)
    xmax = np.max(np.abs(xm))
    ymax = np.max(np.abs(ym))
    normxm = xmax * np.linalg.vector_norm(xm / xmax)
    normym = ymax * np.linalg.vector_norm(ym / ymax)
    r = float(np.clip(np.vecdot(xm / normxm, ym / normym), -1.0, 1.0))
    return float(np.round(r)) if len(x) == 2 else r


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties sharing their average rank (``scipy.stats.rankdata``'s default).

    Args:
        x: shape (n,).

    Returns:
        float64, shape (n,).
    """
    x = np.asarray(x)
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    new = np.r_[True, xs[1:] != xs[:-1]]
    dense = np.cumsum(new)                       # 1-based group of each sorted element
    bounds = np.r_[np.nonzero(new)[0], len(x)]   # first index of each group, then n
    avg = 0.5 * (bounds[1:] + bounds[:-1] + 1)   # mean of the 1-based ranks first+1 .. last+1
    out = np.empty(len(x), dtype=np.float64)
    out[order] = avg[dense - 1]
    return out


def spearman_rho(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho: Pearson (``np.corrcoef``, as scipy) of the average ranks.

    Args:
        x, y: shape (n,), n >= 2, not constant.
    """
    # [1, 0] as scipy: corrcoef divides the two off-diagonal cells in different orders
    return float(np.corrcoef(average_ranks(x), average_ranks(y))[1, 0])
