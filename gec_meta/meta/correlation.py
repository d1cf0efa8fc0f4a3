"""The one home of system-level correlations: Pearson's r and Spearman's rho.

Every correlation in the meta-evaluation comes from here, passed around as a value (as
google-research/mt-metrics-eval passes ``corr_fcn`` through its averaging and significance code):

* :func:`pearson`, :func:`spearman` -- one pair of vectors, shape (S,); NaN with an
  :class:`UndefinedCorrelationWarning` on constant input.  The system-level tables, window
  analysis, top-K and the inputs of Williams' test use these.
* :func:`pearson_rows`, :func:`spearman_rows` -- every row of a (P, S) matrix against one
  vector, vectorised; NaN for a constant or non-finite row.  Bootstrap CIs, the paired
  bootstrap test and the permutation test (observed and permuted values alike) use these.
* :data:`CORRELATIONS` / :data:`ROW_CORRELATIONS` -- name (``pearson``, ``spearman``) ->
  function; :func:`row_correlations` looks a name up.

Arithmetic.  :func:`pearson_r` and :func:`spearman_rho` repeat ``scipy.stats.pearsonr`` and
``scipy.stats.spearmanr`` (scipy 1.17) step for step -- centre, scale by the largest deviation,
vector norms, ``vecdot``, clip; Spearman = ``np.corrcoef`` of average ranks -- so they return
the same floats (``tests/test_correlation.py`` compares them bit for bit), without importing
``scipy.stats`` (about a second: most of a warm, fully cached meta-evaluation).  The row
versions use the textbook form (centred dot product over the product of the norms) in one
matrix product; they agree with the scalar ones to 1e-12 (``tests/test_correlation.py``) but not
always in the last bit, which is why the choice of path per caller is fixed as listed above.
"""

from __future__ import annotations

import math
import warnings
from typing import Callable, Sequence

import numpy as np


class UndefinedCorrelationWarning(UserWarning):
    """A correlation is undefined (constant input); the result is NaN."""


# --------------------------------------------------------------------------- scipy's arithmetic
def pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r of two float64 vectors of length n >= 2 (not constant), as scipy.

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
    return average_ranks_rows(np.asarray(x)[None, :])[0]


def average_ranks_rows(x: np.ndarray) -> np.ndarray:
    """:func:`average_ranks` of every row (``scipy.stats.rankdata(x, axis=1)``).

    Ranks are sums of small integers halved, exact in float64, so any correct computation
    gives the same floats as scipy.

    Args:
        x: shape (P, n).

    Returns:
        float64, shape (P, n).
    """
    x = np.asarray(x)
    P, n = x.shape
    order = np.argsort(x, axis=1, kind="mergesort")
    xs = np.take_along_axis(x, order, axis=1)
    new = np.ones((P, n), dtype=bool)
    new[:, 1:] = xs[:, 1:] != xs[:, :-1]                   # first element of a group of ties
    pos = np.arange(n)
    first = np.maximum.accumulate(np.where(new, pos, 0), axis=1)          # group start
    last = np.minimum.accumulate(np.where(np.roll(new, -1, axis=1) | (pos == n - 1), pos, n)[:, ::-1],
                                 axis=1)[:, ::-1]                          # group end
    out = np.empty((P, n), dtype=np.float64)
    np.put_along_axis(out, order, 0.5 * (first + last + 2), axis=1)  # mean of 1-based first..last
    return out


def spearman_rho(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho: Pearson (``np.corrcoef``, as scipy) of the average ranks.

    Args:
        x, y: shape (n,), n >= 2, not constant.
    """
    # [1, 0] as scipy: corrcoef divides the two off-diagonal cells in different orders
    return float(np.corrcoef(average_ranks(x), average_ranks(y))[1, 0])


# --------------------------------------------------------------------------- scalar, guarded
def _check_vectors(x, y) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"correlation needs two vectors of one length, got shapes {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("correlation input contains NaN or inf (a metric returned a non-finite score)")
    return x, y


def _guarded(name: str, exact: Callable[[np.ndarray, np.ndarray], float]) -> Callable[..., float]:
    def corr(x: Sequence[float], y: Sequence[float]) -> float:
        x, y = _check_vectors(x, y)
        if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
            warnings.warn(f"{name} correlation undefined for constant input (or < 2 systems): NaN",
                          UndefinedCorrelationWarning, stacklevel=2)
            return float("nan")
        return exact(x, y)
    return corr


pearson = _guarded("Pearson", pearson_r)
pearson.__name__ = pearson.__qualname__ = "pearson"
pearson.__doc__ = """Pearson's r of two vectors, shape (S,) (scipy's floats); NaN with an
:class:`UndefinedCorrelationWarning` if either input is constant or S < 2."""
spearman = _guarded("Spearman", spearman_rho)
spearman.__name__ = spearman.__qualname__ = "spearman"
spearman.__doc__ = """Spearman's rho of two vectors, shape (S,) (ties get average ranks; scipy's
floats); NaN with an :class:`UndefinedCorrelationWarning` for constant input or S < 2."""


# --------------------------------------------------------------------------- rows, vectorised
def pearson_rows(scores: np.ndarray, human: Sequence[float]) -> np.ndarray:
    """Pearson's r of every row of ``scores`` with ``human``.

    Args:
        scores: shape (P, S).
        human: shape (S,).

    Returns:
        shape (P,); NaN for a row that is constant or not finite.
    """
    x = np.asarray(scores, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    xc = x - x.mean(axis=1, keepdims=True)
    hc = h - h.mean()
    num = xc @ hc
    den = np.sqrt((xc * xc).sum(axis=1)) * math.sqrt(float(hc @ hc))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return np.clip(r, -1.0, 1.0)


def spearman_rows(scores: np.ndarray, human: Sequence[float]) -> np.ndarray:
    """Spearman's rho of every row of ``scores`` with ``human``: :func:`pearson_rows` of the
    average ranks.

    Args:
        scores: shape (P, S).
        human: shape (S,).

    Returns:
        shape (P,); NaN for a row that is constant or not finite.
    """
    x = np.asarray(scores, dtype=np.float64)
    finite = np.isfinite(x).all(axis=1)
    ranks = np.where(finite[:, None], average_ranks_rows(np.where(np.isfinite(x), x, 0.0)), np.nan)
    return pearson_rows(ranks, average_ranks(np.asarray(human, dtype=np.float64)))


CORRELATIONS: dict[str, Callable[[Sequence[float], Sequence[float]], float]] = {
    "pearson": pearson, "spearman": spearman}
ROW_CORRELATIONS: dict[str, Callable[[np.ndarray, Sequence[float]], np.ndarray]] = {
    "pearson": pearson_rows, "spearman": spearman_rows}


def _lookup(registry: dict, kind: str):
    try:
        return registry[kind]
    except KeyError:
        raise ValueError(f"unknown correlation {kind!r}; choose from {list(registry)}") from None


def correlation(kind: str) -> Callable[[Sequence[float], Sequence[float]], float]:
    """The scalar correlation function named ``kind`` (``pearson`` or ``spearman``)."""
    return _lookup(CORRELATIONS, kind)


def row_correlations(scores: np.ndarray, human: Sequence[float], kind: str = "pearson") -> np.ndarray:
    """The correlation ``kind`` of every row of ``scores``, shape (P, S), with ``human``, shape
    (S,); shape (P,), NaN for a constant or non-finite row."""
    return _lookup(ROW_CORRELATIONS, kind)(scores, human)
