"""Soft pairwise accuracy (gec_meta.meta.spa) against mt-metrics-eval and hand enumerations.

Reference values:
* mt-metrics-eval ``stats_test.py::CorrelationTest.testPairwiseConfidenceError``:
  ``Correlation(2, gold=[1, 2, 3, 2, 3, 4], metric=[2, 2, 4, 1, 3, 5]).PairwiseConfidenceError()``
  is 0.872 (asserted there to 3 places; the official ``pce.py`` run gives 0.872 exactly, since
  a p-value from 1000 permutations is a multiple of 1/1000).  ``pce_test.py`` itself only tests
  determinism.
* official ``pce.compute_pairwise_p_values`` output (mt-metrics-eval ``pce.py``, run unmodified
  from the checkout with numpy 2.4.6) on the two deterministic 4 x 50 score matrices of
  :func:`_pce_inputs`, seed 4, 1000 permutations, written below.
* the worked example in ``pce.py``'s docstring (10 sign vectors, p = 1/10).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gec_meta.meta.aggregation import Aggregation, Average, Default, ExpectedWins, TrueSkillAggregation
from gec_meta.meta.spa import (
    human_pairwise_pvalues,
    pairwise_pvalues,
    pairwise_pvalues_from_statistics,
    permutation_signs,
    soft_pairwise_accuracy,
)
from gec_meta.meta.trueskill import TrueSkillParams, trueskill_mu, trueskill_mu_swapped
from gec_meta.metrics.edit.m2 import M2
from gec_meta.metrics.length import Length


# ---------------------------------------------------------------------------- mt-metrics-eval values
def _pce_inputs():
    """Two deterministic (4, 50) score matrices (no RNG, so the values below are portable)."""
    x = ((np.arange(200).reshape(4, 50) * 7919) % 101) / 101.0
    x[1] += 0.02
    x[2] -= 0.01
    y = ((np.arange(200).reshape(4, 50) * 104729) % 97) / 97.0
    return x, y


# pce.compute_pairwise_p_values(x, num_permutations=1000, seed=4), upper triangles (official run)
PCE_X = {(0, 1): 0.715, (0, 2): 0.432, (0, 3): 0.747, (1, 2): 0.224, (1, 3): 0.487, (2, 3): 0.769}
PCE_Y = {(0, 1): 0.495, (0, 2): 0.55, (0, 3): 0.494, (1, 2): 0.499, (1, 3): 0.541, (2, 3): 0.492}
PCE_ONE_MINUS = 0.8005  # pce.compute_one_minus_pce(p_x, p_y), official run


@pytest.mark.parametrize("pce_arithmetic", [True, False])
def test_pce_py_official_pvalues(pce_arithmetic):
    x, y = _pce_inputs()
    signs = permutation_signs(np.random.default_rng(4), 1000, 50)  # pce.py's default seed
    px = pairwise_pvalues(x, signs, pce_arithmetic=pce_arithmetic)
    py = pairwise_pvalues(y, signs, pce_arithmetic=pce_arithmetic)
    for (i, j), want in PCE_X.items():
        assert abs(px[i, j] - want) < 1e-9
    for (i, j), want in PCE_Y.items():
        assert abs(py[i, j] - want) < 1e-9
    assert np.isnan(px[np.tril_indices(4)]).all()
    assert abs(soft_pairwise_accuracy(px, py) - PCE_ONE_MINUS) < 1e-9


@pytest.mark.parametrize("pce_arithmetic", [True, False])
def test_mt_metrics_eval_stats_test_value(pce_arithmetic):
    # Correlation(num_sys=2, gold, metric): rows = systems, 3 segments each.
    gold = np.array([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]])
    metric = np.array([[2.0, 2.0, 4.0], [1.0, 3.0, 5.0]])
    signs = permutation_signs(np.random.default_rng(4), 1000, 3)
    ph = pairwise_pvalues(gold, signs, pce_arithmetic=pce_arithmetic)
    pm = pairwise_pvalues(metric, signs, pce_arithmetic=pce_arithmetic)
    # gold: d = [-1, -1, -1], observed -3 = the minimum of s.d: every permutation counts, p = 1.
    assert ph[0, 1] == 1.0
    # metric: d = [1, -1, -1], observed -1; only s = (-1, +1, +1) gives s.d = -3 < -1, so
    # p = 1 - #{r: s_r = (-1, 1, 1)} / 1000; pce.py gives 0.872 (128 of the 1000 draws).
    assert abs(pm[0, 1] - 0.872) < 1e-9
    assert np.sum((signs == [-1, 1, 1]).all(axis=1)) == 128
    assert abs(soft_pairwise_accuracy(ph, pm) - 0.872) < 1e-9


def test_pce_docstring_example():
    # pce.py docstring: scoresA, scoresB and 10 sign vectors (the A-side column; its B-side
    # column has a typo in the last row, the products shown use the A-side one); null deltas
    # -0.6, 0.6, 0.6, -0.6, 1.8, -0.6, 3.0, 0.6, 0.6, -1.8 vs test delta 3.0 -> p = 1/10.
    a = [0.8, 0.9, 0.7, 1.0, 0.6]
    b = [0.2, 0.3, 0.1, 0.4, 0.0]
    signs = np.array([
        [1, 1, -1, -1, -1], [1, -1, 1, -1, 1], [1, -1, 1, 1, -1], [-1, 1, -1, -1, 1],
        [1, 1, 1, -1, 1], [-1, 1, -1, 1, -1], [1, 1, 1, 1, 1], [1, -1, 1, -1, 1],
        [1, 1, -1, -1, 1], [-1, 1, -1, -1, -1]], dtype=float)
    assert pairwise_pvalues(np.array([a, b]), signs)[0, 1] == pytest.approx(0.1, abs=1e-12)
    assert pairwise_pvalues(np.array([a, b]), signs, pce_arithmetic=True)[0, 1] == pytest.approx(0.1, abs=1e-12)


def test_permutation_signs_are_pce_draws():
    # pce.py: rng.random((R, N), float32) -> rint -> *2 - 1.  Values >= 0.5 become +1.
    u = np.random.default_rng(7).random((5, 9), dtype=np.float32)
    signs = permutation_signs(np.random.default_rng(7), 5, 9)
    np.testing.assert_array_equal(signs, np.where(u > 0.5, 1.0, -1.0))
    with pytest.raises(TypeError):
        permutation_signs(7, 5, 9)


# ---------------------------------------------------------------------------- hand enumerations
ALL_SIGNS_3 = np.array(list(itertools.product([1.0, -1.0], repeat=3)))  # the 8 vectors of N=3


def test_segment_pvalues_all_eight_sign_vectors():
    # Systems 0, 1, 2 on 3 segments.  Pair (0,1): d = [2, -1, 0], observed 1.
    #   s.d over (+++, ++-, +-+, +--, -++, -+-, --+, ---) = 1, 1, 3, 3, -3, -3, -1, -1
    #   >= 1: 4 of 8 -> 0.5.
    # Pair (0,2): d = [1, 1, 1], observed 3: only +++ reaches 3 -> 1/8.
    # Pair (1,2): d = [-1, 2, 1], observed 2:
    #   s.d = 2, 0, -2, -4, 4, 2, 0, -2 -> >= 2: +++, -++, -+- -> 3/8.
    x = np.array([[3.0, 1.0, 2.0], [1.0, 2.0, 2.0], [2.0, 0.0, 1.0]])
    p = pairwise_pvalues(x, ALL_SIGNS_3)
    assert p[0, 1] == 0.5 and p[0, 2] == 1 / 8 and p[1, 2] == 3 / 8
    assert np.isnan(p[1, 0]) and np.isnan(p[0, 0])


def test_human_pvalues_all_eight_sign_vectors():
    # 3 systems A, B, C; 3 sentences; items (ranks, lower = better, NaN = not shown):
    #   sentence 0: A1 B2 C3      and   A2 B1 (C not shown)
    #   sentence 1: A1 B3 C2
    #   sentence 2: B1 C1 (A not shown)
    # d_n(i, j) = sum of sign(rank_j - rank_i) over the items on n ranking both:
    #   (A,B): n0: +1 - 1 = 0, n1: +1, n2: 0            -> d = [0, 1, 0], observed 1
    #   (A,C): n0: +1,         n1: +1, n2: 0            -> d = [1, 1, 0], observed 2
    #   (B,C): n0: +1,         n1: -1, n2: 0 (tie)      -> d = [1, -1, 0], observed 0
    # With the 8 vectors (+++, ++-, +-+, +--, -++, -+-, --+, ---):
    #   (A,B): s.d = 1, 1, -1, -1, 1, 1, -1, -1 -> >= 1: 4/8
    #   (A,C): s.d = 2, 2, 0, 0, 0, 0, -2, -2   -> >= 2: 2/8
    #   (B,C): s.d = 0, 0, 2, 2, -2, -2, 0, 0   -> >= 0: 6/8
    nan = np.nan
    ranks = np.array([[1, 2, 3], [2, 1, nan], [1, 3, 2], [nan, 1, 1]], dtype=float)
    lines = np.array([0, 0, 1, 2])
    p = human_pairwise_pvalues(ranks, lines, 3, ALL_SIGNS_3)
    assert (p[0, 1], p[0, 2], p[1, 2]) == (0.5, 0.25, 0.75)
    # reversed system order gives the other direction: (C,B), (C,A), (B,A)
    q = human_pairwise_pvalues(ranks[:, ::-1], lines, 3, ALL_SIGNS_3)
    # (C,B): d = [-1, 1, 0], observed 0: s.d = 0, 0, -2, -2, 2, 2, 0, 0 -> 6/8
    # (B,A): d = [0, -1, 0], observed -1: always >= -1 -> 8/8
    # (C,A): d = [-1, -1, 0], observed -2: s.d >= -2 except never below -2 -> 8/8
    assert (q[0, 1], q[0, 2], q[1, 2]) == (0.75, 1.0, 1.0)


def test_human_pair_never_ranked_together_has_p_one():
    ranks = np.array([[1, 2, np.nan], [np.nan, 1, 2]])
    p = human_pairwise_pvalues(ranks, np.array([0, 1]), 2, ALL_SIGNS_3[:, :2])
    assert p[0, 2] == 1.0  # d = 0 everywhere: null == observed for every permutation


def test_soft_pairwise_accuracy_hand_value():
    # |0.1 - 0.3| = 0.2, |0.5 - 0.5| = 0, |0.9 - 0.5| = 0.4 -> 1 - 0.6/3 = 0.8
    h = np.full((3, 3), np.nan)
    m = np.full((3, 3), np.nan)
    h[0, 1], h[0, 2], h[1, 2] = 0.1, 0.5, 0.9
    m[0, 1], m[0, 2], m[1, 2] = 0.3, 0.5, 0.5
    assert soft_pairwise_accuracy(h, m) == pytest.approx(0.8, abs=1e-12)
    with pytest.raises(ValueError):
        soft_pairwise_accuracy(h, m[:2, :2])


def test_input_errors():
    with pytest.raises(ValueError, match="signs"):
        pairwise_pvalues(np.zeros((2, 3)), np.zeros((4, 3)))
    with pytest.raises(ValueError, match="shape"):
        pairwise_pvalues(np.zeros((2, 3)), np.ones((4, 2)))
    stats = np.ones((2, 3, 1, 1))
    stats[1] = np.nan
    with pytest.raises(ValueError, match=r"\[1\]"):
        pairwise_pvalues_from_statistics(Length(), stats, Average(), np.ones((4, 3)))
    with pytest.raises(ValueError, match="item_lines"):
        human_pairwise_pvalues(np.ones((2, 2)), np.array([0, 5]), 3, np.ones((4, 3)))


# ---------------------------------------------------------------------------- statistics path
def _length_stats(rng, S, N):
    """Length statistics (S, N, 1, 1) of random integer 'lengths' with many ties."""
    return rng.integers(0, 4, size=(S, N, 1, 1)).astype(np.float64)


def test_statistics_path_equals_segment_path_for_average():
    # Average of sentence scores: swapping sentences of i and j and re-averaging gives
    # null = (1/N) s.d, observed = (1/N) sum d: the segment-score test scaled by 1/N.
    rng = np.random.default_rng(11)
    S, N = 6, 40
    stats = rng.random((S, N, 1, 1))
    stats[:, ::3] = np.round(stats[:, ::3], 1)  # exact ties between systems on some sentences
    signs = permutation_signs(np.random.default_rng(3), 500, N)
    seg = pairwise_pvalues(stats[:, :, 0, 0], signs)
    for agg in (Average(), Default()):  # Length-like sentence metric: default = sum
        got = pairwise_pvalues_from_statistics(Length(), stats, agg, signs)
        np.testing.assert_array_equal(got, seg)
    # integer scores with ties: the identity and tie permutations count exactly
    istats = _length_stats(rng, S, N)
    np.testing.assert_array_equal(pairwise_pvalues_from_statistics(Length(), istats, Average(), signs),
                                  pairwise_pvalues(istats[:, :, 0, 0], signs))


def _prf_stats(rng, S, N, R):
    """Random (tp, fp, fn) counts of S systems, N sentences, R references."""
    return rng.integers(0, 3, size=(S, N, R, 3)).astype(np.float64)


@pytest.mark.parametrize("agg,metric,stats_of", [
    (Default(), M2(), lambda rng: _prf_stats(rng, 4, 12, 2)),          # corpus M2: references as chosen
    (Default(), M2(level="sentence"), lambda rng: _prf_stats(rng, 4, 12, 2)),
    (Average(), M2(), lambda rng: _prf_stats(rng, 4, 12, 2)),
    (Average(), Length(), lambda rng: np.where(rng.random((4, 12, 1, 1)) < 0.2, np.nan, _length_stats(rng, 4, 12))),
    (ExpectedWins(), Length(), lambda rng: _length_stats(rng, 5, 12)),
    (TrueSkillAggregation(), Length(), lambda rng: _length_stats(rng, 4, 7)),
    (TrueSkillAggregation(order="shuffled", seed=3), Length(), lambda rng: _length_stats(rng, 4, 7)),
])
def test_fast_swapped_scores_equal_recomputation(agg, metric, stats_of):
    # Aggregation.swapped_pairs_scores (the base class) swaps the statistics and recomputes the
    # whole aggregation on every permutation; every override must agree with it.
    rng = np.random.default_rng(5)
    stats = stats_of(rng)
    S, N = stats.shape[:2]
    signs = permutation_signs(np.random.default_rng(1), 16, N)
    pairs = list(itertools.combinations(range(S), 2))
    fast = agg.swapped_pairs_scores(metric, stats, pairs, signs)
    if isinstance(agg, Default) and metric.corpus_reduction is None:
        # Corpus-level edit metrics swap each sentence's counts against the reference the
        # corpus rule chose in the real run (PRFMetric.chosen_reference_stats): recomputing
        # everything on those single-reference statistics is the definition being tested.
        stats = metric.chosen_reference_stats(stats)
    slow = Aggregation.swapped_pairs_scores(agg, metric, stats, pairs, signs)
    assert fast.shape == (len(pairs), 16, 2)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)
    np.testing.assert_allclose(agg.swapped_pair_scores(metric, stats, 1, 3, signs), slow[pairs.index((1, 3))],
                               rtol=0, atol=1e-12)


def test_trueskill_swapped_identity_lane_is_the_plain_run():
    # all signs +1 = no swap: every lane is trueskill_mu of the scores themselves; all -1 =
    # i and j exchanged everywhere.
    rng = np.random.default_rng(2)
    x = rng.integers(0, 3, size=(4, 9)).astype(float)
    signs = np.array([[1.0] * 9, [-1.0] * 9])
    got = trueskill_mu_swapped(x, [(0, 2), (1, 3)], signs, TrueSkillParams(), max_lanes=2)
    plain = trueskill_mu(x)[0]
    np.testing.assert_allclose(got[:, 0], plain[[[0, 2], [1, 3]]], atol=1e-12)
    swapped = x.copy()
    swapped[[0, 2]] = x[[2, 0]]
    np.testing.assert_allclose(got[0, 1], trueskill_mu(swapped)[0][[0, 2]], atol=1e-12)


def test_pvalues_from_statistics_trueskill_small():
    # TrueSkill SPA path end to end on a toy: p-values in [0, 1], upper triangle only, and a
    # system that wins every sentence against another gets the smallest attainable p for it.
    x = np.array([[3.0] * 6, [1.0] * 6, [2.0, 0, 2, 0, 2, 0]])
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=6)))  # all 2^6 vectors
    p = pairwise_pvalues_from_statistics(Length(), x[:, :, None, None], TrueSkillAggregation(), signs)
    assert np.isnan(p[np.tril_indices(3)]).all()
    # (0,1): 0 beats 1 on every sentence; every swapped sentence turns one of 0's wins into a
    # loss, so only the all-(+1) vector (no swap) reaches the observed mu difference: p is the
    # fraction of all-(+1) vectors, 1 of the 64.
    assert p[0, 1] == 1 / 64


# ---------------------------------------------------------------------------- real data
@pytest.mark.slow
@pytest.mark.ci
def test_seeda_human_pvalues_match_exact_sign_flip_distribution(data_root):
    # The human statistic is an integer sum_n s_n d_n with independent fair signs, so its exact
    # null distribution is the convolution of the two-point laws {-d_n, +d_n}: an independent
    # computation of p = P(null >= observed).  The Monte Carlo estimate from R = 1000 shared
    # sign vectors must be within its binomial error: |p_hat - p| <= 5 sqrt(p (1-p) / R) + 1/R.
    from gec_meta.data.datasets import load_dataset
    from gec_meta.data.judgments import rank_matrix

    ds = load_dataset("seeda", data_root, setting="base")
    items = ds.judgments["sent"]
    ranks = rank_matrix(items, ds.systems)
    lines = np.array([it.line for it in items])
    R, N, S = 1000, ds.num_sentences, ds.num_systems
    signs = permutation_signs(np.random.default_rng(0), R, N)
    p = human_pairwise_pvalues(ranks, lines, N, signs)
    checked = 0
    for i, j in itertools.combinations(range(S), 2):
        d = np.zeros(N, dtype=np.int64)
        for row, n in zip(ranks, lines):
            if not (np.isnan(row[i]) or np.isnan(row[j])):
                d[n] += int(np.sign(row[j] - row[i]))
        offset = int(np.abs(d).sum())
        dist = np.zeros(2 * offset + 1)
        dist[offset] = 1.0
        for v in np.abs(d[d != 0]):
            dist = 0.5 * (np.roll(dist, v) + np.roll(dist, -v))  # no wrap: support stays in range
        exact = dist[offset + int(d.sum()):].sum()
        assert abs(p[i, j] - exact) <= 5 * np.sqrt(exact * (1 - exact) / R) + 1 / R, (ds.systems[i], ds.systems[j])
        checked += 1
    assert checked == S * (S - 1) // 2
