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

Arithmetic: the same bits on every CPU.  A correlation is computed from sums over one axis in
the order of numpy's summation of a contiguous row (``np.add.reduce``: left to right up to 8
terms, pairwise in blocks beyond; plain C with a fixed association, whatever SIMD the build
dispatches to) and from elementwise IEEE operations
(subtract, multiply, divide, square root: correctly rounded on every CPU) -- never from a BLAS
product.  ``scipy.stats.pearsonr`` and ``np.corrcoef`` call BLAS (``vecdot``, vector norms,
``dot``), whose kernel, and so the last bit of a sum, depends on the CPU: numpy's OpenBLAS runs
a Haswell kernel on AVX2 hosts and a SkylakeX one on AVX-512 hosts, and the same leaderboard
differed in the last bit of 137 of 985 deterministic rows between the two (one tie of a
global rank flipped), so ``make reproduce`` was byte-identical only on one CPU class
(CHANGELOG 2026-11-29).  The one formula, for a matrix of rows and for one pair of vectors
alike (:func:`pearson_rows`; :func:`pearson_r` is its row 0, bit for bit):

    r = sum(xc * yc) / (sqrt(sum(xc * xc)) * sqrt(sum(yc * yc))),  xc = x - sum(x) / n,

clipped to [-1, 1] (and rounded for n = 2, as scipy does: two points are on a line).  It agrees
with scipy to a few units in the last place (``tests/test_correlation.py``: scipy, and exact
rational arithmetic, as the independent references); Spearman is Pearson of the average ranks.
"""

from __future__ import annotations

import math
import warnings
from typing import Callable, Sequence

import numpy as np


class UndefinedCorrelationWarning(UserWarning):
    """A correlation is undefined (constant input); the result is NaN."""


# -------------------------------------------------------------------- the same bits on every CPU
def row_sums(a: np.ndarray) -> np.ndarray:
    """Sum over the last axis in one fixed order whatever the CPU (the module docstring).

    Args:
        a: shape (..., n), float64.

    Returns:
        shape (...): ``np.add.reduce`` of each C-contiguous row (numpy's fixed summation order;
        never BLAS, whose result depends on the CPU's kernel).
    """
    return np.add.reduce(np.ascontiguousarray(a, dtype=np.float64), axis=-1)


def pearson_matrix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of every row of ``x`` with ``y``, in the CPU-independent arithmetic of the
    module docstring; no guards (constant rows give NaN, as 0 / 0).

    Args:
        x: float64, shape (P, n), n >= 2.
        y: float64, shape (n,).

    Returns:
        shape (P,).
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = x.shape[-1]
    xc = x - (row_sums(x) / n)[:, None]
    yc = y - row_sums(y) / n
    num = row_sums(xc * yc)
    den = np.sqrt(row_sums(xc * xc)) * math.sqrt(float(row_sums(yc * yc)))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.clip(num / den, -1.0, 1.0)
    return np.round(r) if n == 2 else r


def pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r of two float64 vectors of length n >= 2 (not constant): row 0 of
    :func:`pearson_matrix`, so the same bits as the vectorised rows and on every CPU.

    Args:
        x, y: shape (n,).
    """
    return float(pearson_matrix(np.asarray(x, dtype=np.float64)[None, :], y)[0])


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
    """Spearman's rho: :func:`pearson_r` of the average ranks (scipy's definition).

    Args:
        x, y: shape (n,), n >= 2, not constant.
    """
    return pearson_r(average_ranks(x), average_ranks(y))


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
pearson.__doc__ = """Pearson's r of two vectors, shape (S,) (the same bits on every CPU); NaN with an
:class:`UndefinedCorrelationWarning` if either input is constant or S < 2."""
spearman = _guarded("Spearman", spearman_rho)
spearman.__name__ = spearman.__qualname__ = "spearman"
spearman.__doc__ = """Spearman's rho of two vectors, shape (S,) (ties get average ranks; the same
bits on every CPU); NaN with an :class:`UndefinedCorrelationWarning` for constant input or S < 2."""


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
    if x.shape[0] == 0:
        return np.zeros(0)
    if x.ndim != 2 or x.shape[1] < 2:  # fewer than two systems: undefined
        return np.full(x.shape[0], np.nan)
    ok = np.isfinite(x).all(axis=1) & (np.ptp(np.where(np.isfinite(x), x, 0.0), axis=1) > 0)
    if h.size < 2 or not np.isfinite(h).all() or np.ptp(h) == 0:
        ok[:] = False
    r = np.full(x.shape[0], np.nan)
    if ok.any():
        r[ok] = pearson_matrix(x[ok], h)
    return r


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
