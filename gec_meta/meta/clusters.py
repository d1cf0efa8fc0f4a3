"""Significance clusters of metrics: mt-metrics-eval's PERM-BOTH test and rank assignment.

* :func:`perm_both` / :func:`perm_both_result` -- is metric A's statistic (a correlation, an
  accuracy, ...) significantly better than metric B's?  The PERM-BOTH paired permutation test
  of Deutsch et al. (2021, https://arxiv.org/abs/2104.00054), step for step as
  ``mt_metrics_eval.stats.PermutationSigDiff`` (google-research/mt-metrics-eval).
* :func:`perm_pairs` / :func:`perm_pairs_result` -- the pairwise variant for segment-level
  acc_eq (``stats.PairwisePermutationSigDiff``, which the WMT23-25 tasks use with
  ``perm_test="pairs"``): pair outcomes are swapped, each metric keeps its own epsilon (and tie
  tolerance, ``resolution_a``/``resolution_b``: :func:`gec_meta.meta.ties.metric_ties`), so no
  epsilon* search runs per draw.
* :func:`spa_pvalue` -- soft pairwise accuracy, swapping the two metrics' p-values per system
  pair (any aggregation; see its docstring).
* :func:`significance_matrix` -- the p-values of every ordered pair, in mt-metrics-eval's
  ``data.ComputeSigMatrix`` order.
* :func:`ranks_from_matrix` -- mt-metrics-eval's ``data.AssignRanks``; :func:`assign_ranks`
  sorts metrics as ``data.CompareMetrics`` does and assigns them; :func:`significance_clusters`
  does everything for a mapping metric -> scores.

What PERM-BOTH does (``stats.PermutationSigDiff``):

1. Both metrics' scores are standardised, each over its own scored cells
   (``scipy.stats.zscore``: population sd).  Cells whose human score is missing are dropped
   first (``_ReshapeAndFilter``) -- ``standardize_over="scored"``, the path of every
   correlation function; for ``KendallWithTiesOpt`` mt-metrics-eval standardises and swaps all
   cells instead -- ``standardize_over="all"``.
2. delta = stat(A) - stat(B) on the standardised scores.
3. Each of ``num_permutations`` draws swaps A's and B's score independently in every swappable
   cell with probability 1/2 (``binomial(1, 0.5, n)``, n = number of swappable cells, in C order
   of the arrays); it counts when stat(A-slot) - stat(B-slot) >= delta (exact comparison).
4. p = count / draws.  Early stopping: at every multiple of ``block_size`` draws, stop if the
   running p < ``early_min`` or > ``early_max`` (``PermutationSigDiffParams``: 1000, 0.02, 0.5;
   the WMT ``tasks.Task`` default is ``block_size=100``).

The unit that is swapped is one cell of the score arrays: one system for system-level (S,)
vectors, one (item, system) score for segment-level arrays.  mt-metrics-eval flattens its
segment-level matrices system-major for ``average_by="sys"``/``"none"`` and item-major for
``"item"``: pass (S, I) or (I, S) arrays accordingly to replay its random stream.

Randomness: an explicit generator.  A ``numpy.random.Generator`` in normal use: each block of
draws is one ``rng.integers(0, 2, (draws, cells))`` call (fast).  A legacy
``numpy.random.RandomState`` (or any object with its ``binomial``) is accepted only to replay
mt-metrics-eval's global stream: ``np.random.seed(s)`` followed by ``PermutationSigDiff`` draws
exactly what ``RandomState(s).binomial(1, 0.5, n)`` draws, one call per permutation, as the
replay path does (``PairwisePermutationSigDiff`` likewise, with its (n, n) matrices per row).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from gec_meta.meta.significance import _zscore
from gec_meta.meta.ties import metric_ties

__all__ = ["PermBoth", "perm_both", "perm_both_result", "perm_pairs", "perm_pairs_result", "spa_pvalue",
           "significance_matrix", "ranks_from_matrix", "assign_ranks_lazily",
           "assign_ranks", "Clusters", "significance_clusters", "STANDARDIZE"]

STANDARDIZE = ("scored", "all")
_CHUNK = 100  # draws evaluated together (bounded memory); early-stop checks stay at block_size
Statistic = Callable[..., "float | np.ndarray"]


@dataclass(frozen=True)
class PermBoth:
    """The outcome of one PERM-BOTH test (``PermutationSigDiff``'s return tuple).

    Attributes:
        p: fraction of draws with stat(A') - stat(B') >= delta: the one-sided p-value that A's
            statistic is not better than B's.
        delta: stat(A) - stat(B) on the standardised scores.
        permutations: draws actually made (fewer than asked after early stopping).
        draws: shape (permutations, 2): (stat(A'), stat(B')) per draw.
    """

    p: float
    delta: float
    permutations: int
    draws: np.ndarray


def _standardized(metric_a, metric_b, human, standardize_over: str):
    """Standardised copies of both metrics and the mask of swappable cells.

    Returns:
        (za, zb, swappable): float64 arrays of the metrics' shape; cells outside ``swappable``
        (human missing, with ``standardize_over="scored"``) are NaN in both.
    """
    if standardize_over not in STANDARDIZE:
        raise ValueError(f"unknown standardize_over {standardize_over!r}; choose from {list(STANDARDIZE)}")
    a = np.asarray(metric_a, dtype=np.float64)
    b = np.asarray(metric_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim == 0:
        raise ValueError(f"PERM-BOTH needs two score arrays of one shape, got {a.shape} and {b.shape}")
    swappable = np.ones(a.shape, dtype=bool)
    if human is not None and standardize_over == "scored":
        h = np.asarray(human, dtype=np.float64)
        if h.shape != a.shape:
            raise ValueError(f"human scores of shape {h.shape} do not match metric scores of shape {a.shape}; "
                             "pass human=None and a closure statistic(metric) instead")
        swappable = np.isfinite(h)
    out = []
    for name, x in (("A", a), ("B", b)):
        cells = x[swappable]
        if not np.isfinite(cells).all():
            raise ValueError(f"metric {name} has NaN or inf scores where the human score is present")
        if cells.size < 2 or np.ptp(cells) == 0:
            raise ValueError(f"metric {name} is constant on the scored cells: its z-scores are undefined")
        z = np.full(a.shape, np.nan)
        z[swappable] = _zscore(cells)
        out.append(z)
    return out[0], out[1], swappable


def _evaluator(statistic: Statistic, human, batched: bool) -> Callable[[np.ndarray], np.ndarray]:
    """stat(stack of metric arrays, shape (K, *shape)) -> shape (K,)."""
    args = () if human is None else (np.asarray(human, dtype=np.float64),)
    if batched:
        def evaluate(stack):
            vals = np.asarray(statistic(*args, stack), dtype=np.float64)
            if vals.shape != (len(stack),):
                raise ValueError(f"a batched statistic must return shape ({len(stack)},), got {vals.shape}")
            return vals
    else:
        def evaluate(stack):
            return np.array([float(statistic(*args, m)) for m in stack], dtype=np.float64)
    return evaluate


def _coin_flips(rng, draws: int, cells: int, legacy_cells: int | None = None,
                legacy_pick: np.ndarray | None = None) -> np.ndarray:
    """Fair 0/1 draws, shape (draws, cells), as bool (True = keep, mt-metrics-eval's w1 = 1).

    A ``numpy.random.Generator`` draws them in one call.  Anything else is treated as a legacy
    ``RandomState`` replaying mt-metrics-eval: one ``binomial(1, 0.5, legacy_cells)`` call per
    draw (``legacy_cells`` defaults to ``cells``), of which ``legacy_pick`` selects the cells.
    """
    if isinstance(rng, np.random.Generator):
        return rng.integers(0, 2, (draws, cells), dtype=np.int8).astype(bool)
    n = cells if legacy_cells is None else legacy_cells
    flips = np.stack([rng.binomial(1, 0.5, n) for _ in range(draws)]).astype(bool)
    return flips if legacy_pick is None else flips[:, legacy_pick]


def perm_both_result(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray | None,
    statistic: Statistic,
    rng: np.random.Generator | np.random.RandomState,
    num_permutations: int = 1000,
    *,
    batched: bool = False,
    standardize_over: str = "scored",
    block_size: int = 1000,
    early_min: float = 0.02,
    early_max: float = 0.5,
    tolerance: float = 0.0,
) -> PermBoth:
    """PERM-BOTH test that metric A's statistic is better than metric B's
    (``mt_metrics_eval.stats.PermutationSigDiff(corr1=B, corr2=A, ...)``; see the module
    docstring for the steps).

    Args:
        metric_a, metric_b: scores of one shape: (S,) system scores, (I, S) / (S, I) / (G, S)
            segment or group scores; finite wherever the human score is present.
        human: human scores of the same shape (NaN = missing; those cells are neither
            standardised nor swapped) -- the statistic is called ``statistic(human, metric)``;
            or None: the statistic is a closure ``statistic(metric)`` (e.g. SPA on (I, S)
            segment scores with the system-level humans fixed) and every cell is swapped.
        statistic: higher is better; a float of one metric array; with ``batched=True`` it takes
            a stack (K, *shape) and returns shape (K,) (each row's value must not depend on the
            other rows: the unswapped draw must reproduce delta exactly).
        rng: the random generator (see the module docstring for RandomState).
        num_permutations: draws (mt-metrics-eval's ``k``), >= 1.
        standardize_over: ``scored`` (every correlation function) or ``all``
            (``KendallWithTiesOpt``: standardise and swap every cell, missing humans included).
        block_size, early_min, early_max: early stopping (``PermutationSigDiffParams``); set
            ``block_size=num_permutations`` for none.
        tolerance: a draw counts when stat(A') - stat(B') >= delta - tolerance.  0 is
            mt-metrics-eval's exact comparison, right for scalar statistics (the unswapped draw
            repeats delta bit for bit; so do the rows of
            :func:`~gec_meta.meta.correlation.pearson_rows`, in any batch).  A batched statistic
            whose rows are not the scalar's bits (e.g. :func:`~gec_meta.meta.pdp.pdp_rows`, the
            uncentred form of PDP) needs a small tolerance (1e-12) so that draws equal to the
            observed pair still count as ties.

    Returns:
        :class:`PermBoth`.
    """
    if num_permutations < 1:
        raise ValueError(f"num_permutations must be >= 1, got {num_permutations}")
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1, got {block_size}")
    za, zb, swappable = _standardized(metric_a, metric_b, human, standardize_over)
    evaluate = _evaluator(statistic, human, batched)
    with np.errstate(all="ignore"):
        observed = evaluate(np.stack([za, zb]))
    delta = float(observed[0] - observed[1])
    n = int(swappable.sum())

    def block(size: int) -> np.ndarray:
        keep = _coin_flips(rng, size, n)  # (size, n)
        swap_a = np.broadcast_to(za, (size, *za.shape)).copy()
        swap_b = np.broadcast_to(zb, (size, *zb.shape)).copy()
        # keep=1: each slot keeps its own score (w1 * ms1 + w2 * ms2 with w1 = 1); 0: swapped
        swap_a[:, swappable] = np.where(keep, za[swappable], zb[swappable])
        swap_b[:, swappable] = np.where(keep, zb[swappable], za[swappable])
        with np.errstate(all="ignore"):
            return np.stack([evaluate(swap_a), evaluate(swap_b)], axis=1)

    return _draw_loop(block, delta, num_permutations, block_size, early_min, early_max, tolerance)


def _draw_loop(block: Callable[[int], np.ndarray], delta: float, num_permutations: int, block_size: int,
               early_min: float, early_max: float, tolerance: float = 0.0, stop_on_hit_only: bool = False
               ) -> PermBoth:
    """The counting loop shared by both tests (``PermutationSigDiff``'s ``for i in range(k)``).

    Args:
        block: ``block(size)`` -> shape (size, 2): (stat(A'), stat(B')) of ``size`` new draws.
        stop_on_hit_only: ``PairwisePermutationSigDiff`` checks early stopping only after a
            draw that counted (its check is indented under the ``if``).
    """
    draws: list[np.ndarray] = []
    hits = done = 0
    while done < num_permutations:
        vals = block(min(block_size - done % block_size, num_permutations - done, _CHUNK))
        hit = vals[:, 0] - vals[:, 1] >= delta - tolerance
        draws.append(vals)
        hits += int(hit.sum())
        done += len(vals)
        if (done % block_size == 0 and (hit[-1] or not stop_on_hit_only)
                and not early_min <= hits / done <= early_max):
            break
    return PermBoth(p=hits / done, delta=delta, permutations=done, draws=np.concatenate(draws))


def perm_both(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray | None,
    statistic: Statistic,
    rng: np.random.Generator | np.random.RandomState,
    num_permutations: int = 1000,
    **options,
) -> float:
    """One-sided p-value that metric A's statistic is *not* better than B's: the ``p`` of
    :func:`perm_both_result` (same arguments)."""
    return perm_both_result(metric_a, metric_b, human, statistic, rng, num_permutations, **options).p


def _scored_pairs(human: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of scored cells of every row, as ``PairwisePermutationSigDiff`` lays them out.

    Args:
        human: shape (G, S), NaN = not judged.

    Returns:
        (rows, first, second, draw_position, draws_per_permutation): one entry per pair i < j of
        a row's judged cells (row-major); ``draw_position`` indexes the pair's weight in the
        concatenated (n_g, n_g) binomial draws of all rows with n_g >= 2 judged cells.
    """
    rows, first, second, pos = [], [], [], []
    offset = 0
    for g, row in enumerate(human):
        cells = np.flatnonzero(np.isfinite(row))
        n = len(cells)
        if n < 2:  # mt-metrics-eval divides by C(n, 2) = 0 here; such rows carry no pair
            continue
        i, j = np.triu_indices(n, 1)
        rows.append(np.full(len(i), g))
        first.append(cells[i])
        second.append(cells[j])
        pos.append(offset + i * n + j)
        offset += n * n
    if not rows:
        raise ValueError("no row has two judged cells: no pairs to compare")
    return (np.concatenate(rows), np.concatenate(first), np.concatenate(second), np.concatenate(pos), offset)


def perm_pairs_result(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    epsilon_a: float,
    epsilon_b: float,
    rng: np.random.Generator | np.random.RandomState,
    num_permutations: int = 1000,
    *,
    block_size: int = 1000,
    early_min: float = 0.02,
    early_max: float = 0.5,
    resolution_a: float = 0.0,
    resolution_b: float = 0.0,
) -> PermBoth:
    """Pairwise permutation test that metric A's acc_eq is better than B's
    (``mt_metrics_eval.stats.PairwisePermutationSigDiff(corr1=B, corr2=A, variant="acc23")``,
    the segment-level test of the WMT23-25 tasks: ``perm_test="pairs"``).

    Instead of metric scores, each draw swaps A's and B's *outcome* of every pair of systems in
    a row (group) with probability 1/2, so each metric keeps its own tie threshold and no
    epsilon is re-optimised per draw.  A pair's outcome is the sign of the score difference,
    0 when the metric ties the pair (``PairwiseDiffs``: |difference| <= epsilon); it is correct
    when it equals the sign of the human difference.  The metric's ties are decided by
    :func:`gec_meta.meta.ties.metric_ties` with the metric's ``resolution`` (its tie tolerance),
    the rule :func:`gec_meta.meta.ties.tie_calibrated_accuracy` counts with: with resolution 0
    it is exactly ``|difference| <= epsilon``; with resolution > 0 the |differences| of all the
    test's pairs are merged (values within the resolution of each other) and a pair ties when its
    merged value <= epsilon + resolution / 2.  The test's pairs are every pair of judged cells
    of a row, which, as the metric scores are finite on judged cells, are exactly the pairs
    ``tie_calibrated_accuracy(human, metric, resolution=...)`` counts (over which it merges), so
    with each metric's reported epsilon* and resolution the observed delta is the difference of
    the reported acc_eq.  acc_eq of a row = correct pairs / C(n, 2) (Deutsch et al. 2023's
    acc_23), averaged over rows (``average_by="item"`` on (I, S) rows).  Scores are not
    standardised (the epsilons are on each metric's own scale).

    Random draws (replay path): per draw and row, ``binomial(1, 0.5, (n, n))`` whose upper
    triangle weights the pairs (all rows in one call, the same stream as mt-metrics-eval's
    per-row calls); a Generator draws one flip per pair.

    Early stopping mirrors the official loop, including its indentation: the block check runs
    only on a draw that counted (``c2 - c1 >= delta``) at a multiple of ``block_size``.

    Args:
        metric_a, metric_b, human: shape (G, S); human NaN = not judged (those cells are
            dropped, as ``_ReshapeAndFilter``); metrics finite on judged cells.  Rows with fewer
            than two judged cells are skipped (mt-metrics-eval fails on them).
        epsilon_a, epsilon_b: each metric's tie threshold (>= 0), e.g. its epsilon* (as
            ``tie_calibrated_accuracy`` reports it, rounded when its resolution > 0).
        rng, num_permutations, block_size, early_min, early_max: as :func:`perm_both_result`.
        resolution_a, resolution_b: each metric's tie tolerance (>= 0; the ``resolution``
            its epsilon* was found with); 0 = plain ``|difference| <= epsilon``.

    Returns:
        :class:`PermBoth` (draws = (acc_eq(A'), acc_eq(B'))).
    """
    if num_permutations < 1 or block_size < 1:
        raise ValueError("num_permutations and block_size must be >= 1")
    if epsilon_a < 0 or epsilon_b < 0:
        raise ValueError(f"epsilons must be non-negative, got {epsilon_a}, {epsilon_b}")
    if not (resolution_a >= 0 and resolution_b >= 0):
        raise ValueError(f"resolutions must be non-negative, got {resolution_a}, {resolution_b}")
    h = np.asarray(human, dtype=np.float64)
    a = np.asarray(metric_a, dtype=np.float64)
    b = np.asarray(metric_b, dtype=np.float64)
    if not (h.ndim == 2 and a.shape == b.shape == h.shape):
        raise ValueError(f"pairwise test needs (G, S) arrays of one shape, got {a.shape}, {b.shape}, {h.shape}")
    judged = np.isfinite(h)
    for name, x in (("A", a), ("B", b)):
        if not np.isfinite(x[judged]).all():
            raise ValueError(f"metric {name} has NaN or inf scores where the human score is present")
    rows, first, second, pos, per_draw = _scored_pairs(h)
    human_sign = np.sign(h[rows, first] - h[rows, second])

    def correct(x, eps, resolution):  # (P,) bool: the metric's outcome of each pair is the human's
        d = x[rows, first] - x[rows, second]
        return np.where(metric_ties(np.abs(d), eps, resolution), 0.0, np.sign(d)) == human_sign

    ca, cb = correct(a, epsilon_a, resolution_a), correct(b, epsilon_b, resolution_b)
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])  # pairs are grouped by row
    num_pairs = np.diff(np.r_[starts, len(rows)])

    def acc(counts):  # (K, G) correct pairs per row -> (K,): mean over rows of correct / C(n, 2)
        return (counts / num_pairs).mean(axis=1)

    count_a, count_b = (np.add.reduceat(c.astype(np.int64), starts) for c in (ca, cb))  # (G,)
    observed = acc(np.stack([count_a, count_b]))
    delta = float(observed[0] - observed[1])
    # A swap moves a row's count only through the pairs where A and B disagree: A' counts
    # count_b + sum(keep * (ca - cb)) over those pairs, B' count_a minus the same.  Integer
    # counts, so the draws equal the pair-by-pair recount bit for bit at a fraction of the cost.
    differ = np.flatnonzero(ca != cb)
    gain = ca[differ].astype(np.int64) - cb[differ]  # (D,) of +-1
    row_of = np.searchsorted(starts, differ, side="right") - 1  # each differing pair's row
    moved_rows, moved_starts = np.unique(row_of, return_index=True)

    def block(size: int) -> np.ndarray:
        keep = _coin_flips(rng, size, len(pos), per_draw, pos)  # (size, P)
        count_a2 = np.broadcast_to(count_b, (size, len(starts))).copy()
        count_b2 = np.broadcast_to(count_a, (size, len(starts))).copy()
        if len(differ):
            change = np.add.reduceat(keep[:, differ] * gain, moved_starts, axis=1)  # (size, moved rows)
            count_a2[:, moved_rows] += change
            count_b2[:, moved_rows] -= change
        return np.stack([acc(count_a2), acc(count_b2)], axis=1)

    return _draw_loop(block, delta, num_permutations, block_size, early_min, early_max, stop_on_hit_only=True)


def perm_pairs(metric_a, metric_b, human, epsilon_a: float, epsilon_b: float, rng,
               num_permutations: int = 1000, **options) -> float:
    """One-sided p-value that A's acc_eq is *not* better than B's: the ``p`` of
    :func:`perm_pairs_result` (same arguments)."""
    return perm_pairs_result(metric_a, metric_b, human, epsilon_a, epsilon_b, rng, num_permutations, **options).p


def spa_pvalue(p_human: np.ndarray, p_a: np.ndarray, p_b: np.ndarray, rng: np.random.Generator,
               num_permutations: int = 1000) -> float:
    """One-sided p-value that metric A's soft pairwise accuracy is *not* better than B's.

    The unit swapped is one system pair: each draw gives A the p-value of B for every pair with
    probability 1/2 (and B A's), the pairwise analogue of :func:`perm_pairs` at the system
    level.  SPA is a mean of per-pair terms 1 - |p^h_ij - p^m_ij|, so the swapped difference is
    mean((2 w - 1) (t_a - t_b)) with w the coin flips, counted when >= the observed difference.
    (mt-metrics-eval swaps segment scores and recomputes both p-value matrices per draw; that
    needs segment scores, which corpus-level metrics and TrueSkill do not have.)

    Args:
        p_human, p_a, p_b: shape (S, S), upper triangles filled (:mod:`gec_meta.meta.spa`).
        rng: the generator of the coin flips.

    Returns:
        count / draws.
    """
    if num_permutations < 1:
        raise ValueError(f"num_permutations must be >= 1, got {num_permutations}")
    h, a, b = (np.asarray(x, dtype=np.float64) for x in (p_human, p_a, p_b))
    if not h.shape == a.shape == b.shape or h.ndim != 2 or h.shape[0] != h.shape[1] or h.shape[0] < 2:
        raise ValueError(f"p-value matrices must have one square shape (S >= 2), got {h.shape}, {a.shape}, {b.shape}")
    iu = np.triu_indices(h.shape[0], 1)
    d = (1.0 - np.abs(h[iu] - a[iu])) - (1.0 - np.abs(h[iu] - b[iu]))  # (P,)
    delta = d.mean()
    w = rng.integers(0, 2, size=(num_permutations, d.size))
    null = ((2 * w - 1) * d).mean(axis=1)
    # the identity draw must count: compare with a relative tolerance for the summation order
    return float(np.mean(null >= delta - 1e-12 * max(1.0, np.abs(d).sum())))


# --------------------------------------------------------------------------- ranks
def significance_matrix(metrics: Sequence[str], pvalue: Callable[[str, str], float]) -> np.ndarray:
    """p-values of every pair, best metric first (``data.ComputeSigMatrix``).

    Args:
        metrics: names, sorted best first.
        pvalue: ``pvalue(better, worse)`` -> p-value that ``better`` is not better than
            ``worse`` (e.g. :func:`perm_both` of their scores).  Called for i < j in row-major
            order, as mt-metrics-eval (so a shared generator is consumed in its order).

    Returns:
        shape (M, M): ``[i, j] = pvalue(metrics[i], metrics[j])`` for j > i; NaN elsewhere
        (mt-metrics-eval leaves zeros there; nothing reads them).
    """
    m = len(metrics)
    sig = np.full((m, m), np.nan)
    for i in range(m):
        for j in range(i + 1, m):
            sig[i, j] = pvalue(metrics[i], metrics[j])
    return sig


def ranks_from_matrix(sig: np.ndarray, alpha: float = 0.05) -> list[int]:
    """Cluster ranks from a significance matrix (``data.AssignRanks``).

    Greedy from the top: metric i opens a new cluster (rank + 1) when some metric of the
    current cluster (from its first member up to i - 1) is significantly better than it,
    ``sig[k, i] <= alpha``; otherwise it joins the current cluster.

    Args:
        sig: shape (M, M), rows/columns sorted best first; only ``sig[k, i]``, k < i, is read.
        alpha: significance level (``pval``, 0.05).

    Returns:
        M ranks, 1 = top cluster.
    """
    sig = np.asarray(sig, dtype=np.float64)
    if sig.ndim != 2 or sig.shape[0] != sig.shape[1]:
        raise ValueError(f"a significance matrix must be square, got shape {sig.shape}")
    ranks, rank, start = [], 1, 0
    for i in range(sig.shape[0]):
        if (sig[start:i, i] <= alpha).any():
            rank, start = rank + 1, i
        ranks.append(rank)
    return ranks


def assign_ranks_lazily(values: Mapping[str, float], pvalue: Callable[[str, str], float],
                        alpha: float = 0.05) -> dict[str, int]:
    """:func:`assign_ranks` computing only the p-values the rank rule reads.

    ``data.AssignRanks`` reads, for metric i, the p-values against the members of the current
    cluster (from its first member to i - 1) and only asks whether one is <= alpha: the first
    such p-value decides, and pairs across earlier clusters are never read.  Same ranks as
    :func:`assign_ranks` (tested), with O(M x cluster size) tests instead of M(M - 1)/2 — the
    leaderboard's permutation tests are its expensive part.  The p-value matrix is not formed.
    """
    order = _sorted_metrics(values)
    ranks, rank, start = {}, 1, 0
    for i, m in enumerate(order):
        if any(pvalue(order[k], m) <= alpha for k in range(start, i)):
            rank, start = rank + 1, i
        ranks[m] = rank
    return ranks


def _sorted_metrics(values: Mapping[str, float]) -> list[str]:
    bad = [m for m, v in values.items() if not math.isfinite(v)]
    if bad:
        raise ValueError(f"metrics without a finite value cannot be ranked: {bad}")
    # decreasing value, name as tie-breaker (data.CompareMetrics)
    return sorted(values, key=lambda m: (-values[m], m))


def assign_ranks(values: Mapping[str, float], pvalue: Callable[[str, str], float],
                 alpha: float = 0.05) -> dict[str, int]:
    """metric -> cluster rank (``data.CompareMetrics`` + ``AssignRanks``).

    Metrics are sorted by decreasing value (ties by name), the full :func:`significance_matrix`
    is computed, and :func:`ranks_from_matrix` assigns the ranks.

    Args:
        values: metric -> its statistic (finite; higher is better).
        pvalue: ``pvalue(better, worse)``, see :func:`significance_matrix`.
        alpha: significance level.

    Returns:
        metric -> rank, ordered best first.
    """
    order = _sorted_metrics(values)
    return dict(zip(order, ranks_from_matrix(significance_matrix(order, pvalue), alpha)))


@dataclass(frozen=True)
class Clusters:
    """Significance clusters of a set of metrics.

    Attributes:
        order: metric names, best first.
        values: metric -> statistic on its raw scores.
        ranks: metric -> cluster rank (1 = top).
        pvalues: shape (M, M) in ``order``, see :func:`significance_matrix`.
        alpha: the level used.
    """

    order: list[str]
    values: dict[str, float]
    ranks: dict[str, int]
    pvalues: np.ndarray
    alpha: float


def significance_clusters(
    scores: Mapping[str, np.ndarray],
    human: np.ndarray | None,
    statistic: Statistic,
    rng: np.random.Generator | np.random.RandomState,
    num_permutations: int = 1000,
    alpha: float = 0.05,
    **options,
) -> Clusters:
    """Rank metrics into significance clusters with PERM-BOTH (``data.CompareMetrics`` with
    ``perm_test="scores"``).

    Values are the statistic of each metric's raw scores (as mt-metrics-eval reports them);
    the tests run on standardised scores (:func:`perm_both`), all pairs in
    :func:`significance_matrix` order, drawing from the one ``rng``.

    Args:
        scores: metric -> scores, all of one shape.
        human, statistic, num_permutations, options: as :func:`perm_both_result`.
        alpha: significance level.
    """
    evaluate = _evaluator(statistic, human, options.get("batched", False))
    with np.errstate(all="ignore"):
        values = {m: float(evaluate(np.asarray(s, dtype=np.float64)[None])[0]) for m, s in scores.items()}
    order = _sorted_metrics(values)
    sig = significance_matrix(order, lambda better, worse: perm_both(
        scores[better], scores[worse], human, statistic, rng, num_permutations, **options))
    ranks = dict(zip(order, ranks_from_matrix(sig, alpha)))
    return Clusters(order=order, values={m: values[m] for m in order}, ranks=ranks, pvalues=sig, alpha=alpha)
