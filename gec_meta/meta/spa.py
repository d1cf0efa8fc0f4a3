"""Soft pairwise accuracy (SPA; Thompson et al. 2024) with paired permutation p-values.

SPA compares, for every pair of systems, how confident the humans and the metric are that one
system beats the other:

    SPA = C(S, 2)^-1  sum_{i<j}  (1 - |p^h_ij - p^m_ij|),

where p_ij is the one-sided p-value of a paired permutation test for "system i beats system j"
(mt-metrics-eval ``pce.py``: ``compute_pairwise_p_values`` / ``compute_one_minus_pce``).  The
test flips, per sentence n, which of the two systems each half of the pair gets; R sign vectors
s in {-1, +1}^N are drawn once and shared by every pair and by humans and metric (a paired
design), and

    p_ij = #{r : null_r >= observed} / R     (ties count: the identity permutation gives p >= 1/R).

Three ways to get p_ij:

* :func:`pairwise_pvalues` -- segment scores x (S, N) whose system score is their sum (or
  mean): null_r = sum_n s_rn (x_in - x_jn), observed = sum_n (x_in - x_jn), exactly pce.py.
* :func:`pairwise_pvalues_from_statistics` -- metrics whose system score is *not* a sum of
  sentence scores (corpus-level M2/ERRANT/GLEU from accumulated counts, TrueSkill, Expected
  Wins): for permutation r, system i takes system j's per-sentence statistics on the sentences
  where s_rn = -1 (and j takes i's), the aggregation recomputes both system scores, and
  null_r = score_i - score_j (:meth:`gec_meta.meta.aggregation.Aggregation.swapped_pair_scores`).
  For the average aggregation this is the segment-score definition (scaled by 1/N).
* :func:`human_pairwise_pvalues` -- **the GEC adaptation for human judgments.**  GEC benchmarks
  (GJG15, SEEDA) do not have a human *score* per (system, sentence): a judge ranks a subset of
  (up to five) systems' outputs of one sentence, and a sentence may have several such items or
  none.  We therefore take as the human "segment difference" of pair (i, j) on sentence n

      d_n(i, j) = sum over the items on sentence n that rank both i and j of sign(rank_j - rank_i)

  (+1 per item where i was ranked better, -1 worse, 0 tie; sentences where the two were never
  ranked together give 0), and run the same test on it: null_r = sum_n s_rn d_n,
  observed = sum_n d_n.  Flipping s_rn swaps the roles of i and j in every item of sentence n,
  which is the permutation pce.py applies to a segment score difference.  A pair never ranked
  together has d = 0 everywhere and p = 1 both ways (as pce.py gives two identical systems).
  The items come from :func:`gec_meta.data.judgments.rank_matrix` and the items' ``line``.

Arithmetic: pce.py draws the signs as float32 ``rng.random`` quantised with ``rint`` and computes
in float32.  :func:`permutation_signs` draws exactly those vectors from any
``numpy.random.Generator`` (``default_rng(4)`` is pce.py's), and ``pce_arithmetic=True``
reproduces pce.py's float32 p-values bit for bit; our own default is float64, where a null delta
within :data:`TIE_RTOL` (relative to the magnitude of the scores involved) of the observed one is
a tie (the same sum in another order may round differently; the identity permutation must count).
"""

from __future__ import annotations

import numpy as np

__all__ = ["permutation_signs", "pairwise_pvalues", "human_pairwise_pvalues",
           "pairwise_pvalues_from_statistics", "soft_pairwise_accuracy", "TIE_RTOL"]

#: Null and observed deltas closer than this, relative to the magnitude of the scores they are
#: computed from, are ties (rounding of one sum accumulated in two orders is ~N * 1e-16; metric
#: scores carry no meaning at 1e-9: float32 models' tie tolerance is 1e-6).
TIE_RTOL = 1e-9


def permutation_signs(rng: np.random.Generator, num_permutations: int, num_segments: int) -> np.ndarray:
    """The sign vectors of the paired permutation test, drawn exactly as mt-metrics-eval's
    ``pce.compute_pairwise_p_values`` draws them: ``rng.random((R, N), dtype=float32)`` rounded
    with ``rint`` (>= 0.5 -> 1, ties to even), times 2, minus 1.  With
    ``rng = numpy.random.default_rng(4)`` these are pce.py's vectors.

    Args:
        rng: the random generator (seeded by the caller).
        num_permutations: R >= 1.
        num_segments: N >= 1.

    Returns:
        float64 array (R, N) of -1.0 / +1.0.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if int(num_permutations) < 1 or int(num_segments) < 1:
        raise ValueError(f"need num_permutations >= 1 and num_segments >= 1, got {num_permutations}, {num_segments}")
    u = rng.random(size=(int(num_permutations), int(num_segments)), dtype=np.float32)
    return np.rint(u).astype(np.float64) * 2.0 - 1.0


def _check_signs(signs: np.ndarray, num_segments: int) -> np.ndarray:
    signs = np.asarray(signs)
    if signs.ndim != 2 or signs.shape[1] != num_segments:
        raise ValueError(f"signs must have shape (R, {num_segments}), got {signs.shape}")
    if signs.shape[0] == 0:
        raise ValueError("signs must hold at least one permutation")
    if not np.isin(signs, (-1.0, 1.0)).all():
        raise ValueError("signs must be -1 or +1")
    return signs


def _upper(num_systems: int) -> np.ndarray:
    out = np.empty((num_systems, num_systems))
    out.fill(np.nan)
    return out


def _tail_fraction(null: np.ndarray, observed: np.ndarray, scale: np.ndarray | float) -> np.ndarray:
    """Fraction of permutations with null >= observed (ties within TIE_RTOL * scale count).

    Args:
        null: shape (R, ...); observed, scale: shape (...) or scalars.
    """
    return np.mean(null >= np.asarray(observed) - TIE_RTOL * np.asarray(scale), axis=0)


def pairwise_pvalues(seg_scores: np.ndarray, signs: np.ndarray, pce_arithmetic: bool = False) -> np.ndarray:
    """p-values of "system i beats system j" from segment scores (mt-metrics-eval pce.py).

    Args:
        seg_scores: shape (S, N), higher is better; the system score is their sum (or mean).
        signs: shape (R, N) of -1/+1 (:func:`permutation_signs`), shared by every pair.
        pce_arithmetic: compute as pce.py does (float32, no tie tolerance): bit-identical p-values.
            Default: float64 with :data:`TIE_RTOL` ties.

    Returns:
        shape (S, S): p[i, j] for i < j; NaN on and below the diagonal.
    """
    x = np.asarray(seg_scores, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"seg_scores must have shape (S, N), got {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("seg_scores must be finite (a permutation test needs every segment score)")
    signs = _check_signs(signs, x.shape[1])
    S = x.shape[0]
    p = _upper(S)
    if pce_arithmetic:  # pce.py's operations, in its order and precision
        x32, s32 = x.astype(np.float32), signs.astype(np.float32)
        sys_scores = np.sum(x32, axis=1)
        partial = np.matmul(s32, x32.T)  # (R, S)
        for i in range(S):
            for j in range(i + 1, S):
                p[i, j] = np.sum(partial[:, i] - partial[:, j] >= sys_scores[i] - sys_scores[j]) / signs.shape[0]
        return p
    partial = signs @ x.T  # (R, S)
    sys_scores = x.sum(axis=1)
    magnitude = np.abs(x).sum(axis=1)
    i, j = np.triu_indices(S, 1)
    p[i, j] = _tail_fraction(partial[:, i] - partial[:, j], sys_scores[i] - sys_scores[j],
                             magnitude[i] + magnitude[j])
    return p


def human_rank_differences(ranks: np.ndarray, item_lines: np.ndarray, num_sentences: int) -> np.ndarray:
    """d[n, i, j] = sum over the items on sentence n ranking both i and j of sign(rank_j - rank_i).

    Args:
        ranks: shape (I, S), lower = better, NaN = not ranked in that item.
        item_lines: shape (I,), the sentence index of every item (0 <= line < num_sentences).
        num_sentences: N.

    Returns:
        float64 (N, S, S), antisymmetric in (i, j); integers.
    """
    ranks = np.asarray(ranks, dtype=np.float64)
    lines = np.asarray(item_lines)
    if ranks.ndim != 2:
        raise ValueError(f"ranks must have shape (I, S), got {ranks.shape}")
    if lines.shape != (ranks.shape[0],):
        raise ValueError(f"item_lines must have shape ({ranks.shape[0]},), got {lines.shape}")
    if len(lines) and (not np.issubdtype(lines.dtype, np.integer) or lines.min() < 0 or lines.max() >= num_sentences):
        raise ValueError(f"item_lines must be integer sentence indices in [0, {num_sentences})")
    S = ranks.shape[1]
    item_signs = np.nan_to_num(np.sign(ranks[:, None, :] - ranks[:, :, None]))  # (I, S, S): NaN -> 0
    d = np.zeros((num_sentences, S, S))
    np.add.at(d, lines, item_signs)
    return d


def human_pairwise_pvalues(ranks: np.ndarray, item_lines: np.ndarray, num_sentences: int,
                           signs: np.ndarray) -> np.ndarray:
    """p-values of "system i beats system j" from human partial rankings (the GEC adaptation in
    the module docstring).

    Args:
        ranks: shape (I, S), lower = better, NaN = not ranked
            (:func:`gec_meta.data.judgments.rank_matrix`).
        item_lines: shape (I,), the sentence index of every item.
        num_sentences: N.
        signs: shape (R, N) (:func:`permutation_signs`).

    Returns:
        shape (S, S): p[i, j] for i < j; NaN elsewhere.  Exact integer arithmetic (no tolerance
        needed).
    """
    signs = _check_signs(signs, num_sentences)
    d = human_rank_differences(ranks, item_lines, num_sentences)
    S = d.shape[1]
    i, j = np.triu_indices(S, 1)
    pair_d = d[:, i, j]  # (N, pairs)
    p = _upper(S)
    p[i, j] = np.mean(signs @ pair_d >= pair_d.sum(axis=0), axis=0)
    return p


def pairwise_pvalues_from_statistics(metric, stats: np.ndarray, aggregation, signs: np.ndarray) -> np.ndarray:
    """p-values of "system i beats system j" for any aggregation: per permutation the two systems
    swap their per-sentence statistics where the sign is -1 and the aggregation recomputes their
    scores (:meth:`gec_meta.meta.aggregation.Aggregation.swapped_pairs_scores`).

    Args:
        metric: the bound metric.
        stats: shape (S, N, R_refs, K).
        aggregation: a :class:`gec_meta.meta.aggregation.Aggregation`.
        signs: shape (R, N) (:func:`permutation_signs`).

    Returns:
        shape (S, S): p[i, j] for i < j; NaN elsewhere.  Equals :func:`pairwise_pvalues` of the
        sentence scores for the average aggregation (``tests/test_spa.py``).
    """
    stats = np.asarray(stats)
    if stats.ndim != 4:
        raise ValueError(f"stats must have shape (S, N, R, K), got {stats.shape}")
    S, N = stats.shape[:2]
    signs = _check_signs(signs, N)
    observed = np.asarray(aggregation(metric, stats), dtype=np.float64)
    if not np.isfinite(observed).all():
        bad = np.flatnonzero(~np.isfinite(observed)).tolist()
        raise ValueError(f"system(s) {bad} have no finite score under {aggregation.name}: no permutation test")
    pairs = list(zip(*np.triu_indices(S, 1)))
    p = _upper(S)
    if not pairs:
        return p
    swapped = aggregation.swapped_pairs_scores(metric, stats, pairs, signs)  # (pairs, R, 2)
    for (i, j), lanes in zip(pairs, swapped):
        scale = max(np.abs(lanes).max(), abs(observed[i]), abs(observed[j]))
        p[i, j] = _tail_fraction(lanes[:, 0] - lanes[:, 1], observed[i] - observed[j], scale)
    return p


def soft_pairwise_accuracy(p_human: np.ndarray, p_metric: np.ndarray) -> float:
    """SPA = 1 - PCE = 1 - mean over i < j of |p_human[i, j] - p_metric[i, j]|
    (Thompson et al. 2024; mt-metrics-eval ``pce.compute_one_minus_pce``).

    Args:
        p_human, p_metric: shape (S, S), upper triangles filled (S >= 2).
    """
    h, m = np.asarray(p_human, dtype=np.float64), np.asarray(p_metric, dtype=np.float64)
    if h.shape != m.shape or h.ndim != 2 or h.shape[0] != h.shape[1] or h.shape[0] < 2:
        raise ValueError(f"p-value matrices must both be (S, S) with S >= 2, got {h.shape} and {m.shape}")
    i, j = np.triu_indices(h.shape[0], 1)
    diff = np.abs(h[i, j] - m[i, j])
    if not np.isfinite(diff).all():
        raise ValueError("p-value matrices have NaN in their upper triangle")
    return float(1.0 - diff.mean())
