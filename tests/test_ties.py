"""Tie-calibrated pairwise accuracy (gec_meta.meta.ties).

Expected values come from mt-metrics-eval's own tests (google-research/mt-metrics-eval,
``mt_metrics_eval/stats_test.py`` and ``tau_optimization_test.py``; each is named in a
comment), from hand counting written out below, and from brute force.  Inputs are given in our
convention: rows are groups (mt-metrics-eval's rows of ``tau_optimization``, or the one row of
``average_by='none'``), NaN where mt-metrics-eval has ``None``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gec_meta.meta.ties import (
    calibrate_epsilon,
    epsilon_sweep,
    system_pairwise_accuracy,
    system_pairwise_agreement,
    tie_calibrated_accuracy,
    tie_counts,
)

TOL = 1e-9
N = np.nan


def _counts_tuple(c, g=0):
    return (int(c.concordant[g]), int(c.discordant[g]), int(c.ties_human[g]),
            int(c.ties_metric[g]), int(c.ties_both[g]))


# --------------------------------------------------------------------- stats_test.py vectors
# CorrelationTest: Correlation(1, gold=[1, 2, 2, 3, 4], metric=[2, 1, 1.5, 5, 3]), average 'none'.
# Hand count at eps = 0 (pairs of indices; h = gold, m = metric):
#   (0,1) h 1<2, m 2>1   D      (0,2) h 1<2, m 2>1.5 D      (0,3) 1<3, 2<5 C   (0,4) 1<4, 2<3 C
#   (1,2) h 2=2, m 1!=1.5 T_h   (1,3) 2<3, 1<5 C           (1,4) 2<4, 1<3 C   (2,3) 2<3, 1.5<5 C
#   (2,4) 2<4, 1.5<3 C          (3,4) h 3<4, m 5>3 D
#   C=6 D=3 T_h=1 T_m=0 T_hm=0 -> acc_eq = 6/10 = 0.6, tau_eq = (6-3-1)/10 = 0.2.
# At eps = 2: |dm| = 1, 0.5, 3, 1, 0.5, 4, 2, 3.5, 1.5, 2 -> tied unless |dm| > 2:
#   (0,3) C, (1,3) C, (2,3) C stay; (1,2) T_hm; the other six T_m -> acc_eq = (3+1)/10 = 0.4.
GOLD5, METRIC5 = [1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3]


def test_stats_test_kendall_variants_23_and_acc23():
    # stats_test.py CorrelationTest.testKendallVariants: variant='23' -> 0.2, 'acc23' -> 0.6,
    # 'acc23' with epsilon=2 -> 0.4.
    r = tie_calibrated_accuracy(GOLD5, METRIC5, epsilon=0.0, average="none")
    assert r.tau_eq == pytest.approx(0.2, abs=TOL)
    assert r.acc_eq == pytest.approx(0.6, abs=TOL)
    assert _counts_tuple(r.counts) == (6, 3, 1, 0, 0)
    r2 = tie_calibrated_accuracy(GOLD5, METRIC5, epsilon=2.0, average="none")
    assert r2.acc_eq == pytest.approx(0.4, abs=TOL)
    assert _counts_tuple(r2.counts) == (3, 0, 0, 6, 1)


def test_stats_test_kendall_with_ties_opt():
    # stats_test.py CorrelationTest.testKendallWithTiesOpt: acc23 optimised -> 0.7.
    # Hand: |dm| per pair: (0,1) 1 D, (0,2) 0.5 D, (0,3) 3 C, (0,4) 1 C, (1,2) 0.5 T_h,
    #   (1,3) 4 C, (1,4) 2 C, (2,3) 3.5 C, (2,4) 1.5 C, (3,4) 2 D.
    #   eps 0.5: (0,2) D -> T_m (+0), (1,2) T_h -> T_hm (+1): (6+1)/10 = 0.7.
    #   eps 1: also (0,1) D -> T_m (+0), (0,4) C -> T_m (-1): 0.6; larger eps only lose C.
    r = tie_calibrated_accuracy(GOLD5, METRIC5, average="none")
    assert r.acc_eq == pytest.approx(0.7, abs=TOL)
    assert r.epsilon == 0.5
    assert r.calibrated


def test_stats_test_kendall_variants_23_seven_items():
    # stats_test.py CorrelationFunctionsTest.testKendallVariants_23: gold x, metric y,
    # num_pairs 21, ties in x 4, ties in y 3, ties in both 1, discordant 2, concordant 13:
    # tau_23 = (13 + 1 - 2 - 3 - 2)/21 = 7/21, acc_23 = (13 + 1)/21.
    x, y = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    r = tie_calibrated_accuracy(x, y, epsilon=0.0, average="none")
    assert r.tau_eq == pytest.approx(7 / 21, abs=TOL)
    assert r.acc_eq == pytest.approx(14 / 21, abs=TOL)
    assert _counts_tuple(r.counts) == (13, 2, 3, 2, 1)


def test_stats_test_kendall_variants_positive_epsilon():
    # stats_test.py CorrelationFunctionsTest.testKendallVariantsWithPositiveEpsilon:
    # epsilon 0.1 -> (14 - 7)/21; epsilon 1 -> (C + T_hm - D - T_x - T_y)/21 with the test's
    # counts C=7, T_hm=3, D=1, T_x only=10, T_y only=0: (7 + 3 - 1 - 10 - 0)/21 = -1/21.
    # (The test's comment calls x the eps-tied side, but KendallVariants(x, y) ties the metric
    # y.  Our hand count with y tied at |dy| <= 1: pairs (0,1) (0,2) (1,2) are tied in both,
    # (3,4) human only (y 2 vs 4), (0,4) (0,5) (0,6) (1,4) (1,5) (1,6) (2,4) concordant, the
    # other 10 metric only: C=7 D=0 T_h=1 T_m=10 T_hm=3 -> (7 + 3 - 0 - 1 - 10)/21 = -1/21.)
    x, y = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    r = tie_calibrated_accuracy(x, y, epsilon=0.1, average="none")
    assert r.tau_eq == pytest.approx((14 - 7) / 21, abs=TOL)
    r1 = tie_calibrated_accuracy(x, y, epsilon=1.0, average="none")
    assert r1.tau_eq == pytest.approx(-1 / 21, abs=TOL)
    assert _counts_tuple(r1.counts) == (7, 0, 1, 10, 3)


def test_stats_test_agreement():
    # stats_test.py CorrelationFunctionsTest.testAgreement: gold [1,2,3,3,4], metric
    # [1,1,2,1,2] -> agree 5 of 10 pairs.  Hand: sign(dh) == sign(dm) for
    #   (0,2) (0,4) (1,2) (1,4) [all -,-] and ... (0,1) h-, m0 no; (0,3) -,0 no; (1,3) -,0 no;
    #   (2,3) h0, m+ no; (2,4) -,0 no; (3,4) -,- yes -> 5.
    assert system_pairwise_agreement([1, 2, 3, 3, 4], [1, 1, 2, 1, 2]) == (5, 10)
    assert system_pairwise_accuracy([1, 2, 3, 3, 4], [1, 1, 2, 1, 2]) == pytest.approx(0.5, abs=TOL)


# ------------------------------------------------------------ tau_optimization_test.py vectors
def test_tau_optimization_zero_threshold_is_best():
    # tau_optimization_test.py test_zero_threshold_is_best.
    s = epsilon_sweep([1, 2, 3, 4], [0, 2, 6, 8], average="none")
    np.testing.assert_array_equal(s.thresholds, [0, 2, 4, 6, 8])
    np.testing.assert_allclose(s.acc_eq, [6 / 6, 4 / 6, 3 / 6, 1 / 6, 0 / 6], rtol=0, atol=TOL)
    r = tie_calibrated_accuracy([1, 2, 3, 4], [0, 2, 6, 8])
    assert r.epsilon == 0 and r.acc_eq == pytest.approx(1.0, abs=TOL)


def test_tau_optimization_nonzero_threshold_is_best():
    # tau_optimization_test.py test_nonzero_threshold_is_best.
    s = epsilon_sweep([1, 1, 1, 4], [0, 2, 6, 8], average="none")
    np.testing.assert_array_equal(s.thresholds, [0, 2, 4, 6, 8])
    np.testing.assert_allclose(s.acc_eq, [3 / 6, 3 / 6, 4 / 6, 4 / 6, 3 / 6], rtol=0, atol=TOL)
    r = tie_calibrated_accuracy([1, 1, 1, 4], [0, 2, 6, 8])
    assert r.epsilon == 4 and r.acc_eq == pytest.approx(4 / 6, abs=TOL)


REG_METRIC = [[0, 5, 2, 3, 2], [N, 2, 1, 5, 3], [9, 1, 5, 3, 8], [9, 3, 4, 4, 1], [N, N, N, N, N]]
REG_HUMAN = [[1, 5, 2, 1, 1], [4, 2, 2, 1, 4], [5, 9, 2, 8, 7], [7, 6, N, 3, 2], [N, N, N, N, N]]


def test_tau_optimization_regression_example():
    # tau_optimization_test.py test_regression_example (rows = groups, None -> NaN; the macro
    # average is over the 4 groups that have pairs).
    s = epsilon_sweep(REG_HUMAN, REG_METRIC, average="item")
    np.testing.assert_array_equal(s.thresholds, [0, 1, 2, 3, 4, 5, 6, 7, 8])
    expected = [0.4666666666666667, 0.4916666666666668, 0.38333333333333347, 0.29166666666666674,
                0.2666666666666667, 0.2, 0.15833333333333335, 0.15833333333333335,
                0.1166666666666667]
    np.testing.assert_allclose(s.acc_eq, expected, rtol=0, atol=TOL)
    r = tie_calibrated_accuracy(REG_HUMAN, REG_METRIC)
    assert r.epsilon == 1
    assert r.acc_eq == pytest.approx(0.4916666666666668, abs=TOL)
    assert r.groups == 4


def test_regression_example_fixed_epsilon_matches_sweep():
    s = epsilon_sweep(REG_HUMAN, REG_METRIC)
    for eps, acc, tau in zip(s.thresholds, s.acc_eq, s.tau_eq):
        r = tie_calibrated_accuracy(REG_HUMAN, REG_METRIC, epsilon=eps)
        assert r.acc_eq == pytest.approx(acc, abs=1e-12)
        assert r.tau_eq == pytest.approx(tau, abs=1e-12)


# ------------------------------------------------------------------------- hand-computed toys
def test_toy_two_groups_macro_and_micro():
    # Group 0: h = [3, 2, 1], m = [0.9, 0.5, 0.5]
    #   (0,1) h>, m> C; (0,2) h>, m> C; (1,2) h>, m= T_m        -> acc 2/3, tau (2-1)/3 = 1/3
    # Group 1: h = [1, 1, NaN], m = [0.2, 0.4, 0.0] -> only (0,1): h=, m!= T_h -> acc 0, tau -1
    # Group 2: h = [NaN, 5, NaN] -> no pair, not averaged.
    # item: acc (2/3 + 0)/2 = 1/3, tau (1/3 - 1)/2 = -1/3; none: acc 2/4, tau (2-2)/4 = 0.
    h = [[3, 2, 1], [1, 1, N], [N, 5, N]]
    m = [[0.9, 0.5, 0.5], [0.2, 0.4, 0.0], [0.1, 0.2, 0.3]]
    c = tie_counts(h, m, 0.0)
    np.testing.assert_array_equal(c.concordant, [2, 0, 0])
    np.testing.assert_array_equal(c.ties_metric, [1, 0, 0])
    np.testing.assert_array_equal(c.ties_human, [0, 1, 0])
    np.testing.assert_array_equal(c.pairs, [3, 1, 0])
    r = tie_calibrated_accuracy(h, m, epsilon=0.0)
    assert (r.acc_eq, r.tau_eq, r.pairs, r.groups) == (pytest.approx(1 / 3), pytest.approx(-1 / 3), 4, 2)
    r = tie_calibrated_accuracy(h, m, epsilon=0.0, average="none")
    assert (r.acc_eq, r.tau_eq) == (pytest.approx(0.5), pytest.approx(0.0))
    # eps = 0.2 also ties group 1's pair (|0.2-0.4| = 0.2): T_h -> T_hm, acc 1; group 0 is
    # unchanged (|dm| 0.4, 0.4, 0) -> item acc (2/3 + 1)/2 = 5/6, the best: eps* = 0.2.
    # (0.2 is the float |0.2 - 0.4|, which the search takes from the data.)
    r = tie_calibrated_accuracy(h, m)
    assert r.acc_eq == pytest.approx(5 / 6, abs=TOL)
    assert r.epsilon == abs(0.2 - 0.4)
    assert calibrate_epsilon(h, m) == r.epsilon


def test_metric_nan_drops_the_system_from_the_group():
    # m NaN for system 2 in group 0: pairs (0,2), (1,2) are not counted; (0,1) h>, m> C.
    r = tie_calibrated_accuracy([[3, 2, 1]], [[0.9, 0.5, N]], epsilon=0.0)
    assert (r.acc_eq, r.pairs) == (1.0, 1)


def test_human_ties_false_drops_human_tied_pairs():
    # GOLD5/METRIC5 at eps 0 without (1,2) (the one human tie): C=6 D=3 T_m=0 -> 6/9.
    r = tie_calibrated_accuracy(GOLD5, METRIC5, epsilon=0.0, average="none", human_ties=False)
    assert r.acc_eq == pytest.approx(6 / 9, abs=TOL)
    assert r.pairs == 9 and int(r.counts.ties_human.sum() + r.counts.ties_both.sum()) == 0


def test_system_agreement_ignores_unjudged_systems():
    # System 2 unjudged (its pairs are not counted).
    # m = [2, 1, _, 5]: (0,1) h 3>1, m 2>1 agree; (0,3) h 3>1, m 2<5 disagree;
    #   (1,3) h 1=1, m 1!=5 disagree (one-sided tie) -> (1, 3).
    # m = [2, 1, _, 1]: (0,1) agree; (0,3) h>, m 2>1 agree; (1,3) h=, m= agree -> (3, 3).
    assert system_pairwise_agreement([3, 1, N, 1], [2, 1, 9, 5]) == (1, 3)
    assert system_pairwise_agreement([3, 1, N, 1], [2, 1, 9, 1]) == (3, 3)


# ------------------------------------------------------------------------------ properties
def _brute_counts(h, m, eps, human_ties=True):
    c = d = th = tm = thm = 0
    for i, j in itertools.combinations(range(len(h)), 2):
        if np.isnan(h[i]) or np.isnan(h[j]) or np.isnan(m[i]) or np.isnan(m[j]):
            continue
        ht, mt = h[i] == h[j], abs(m[i] - m[j]) <= eps
        if ht and not human_ties:
            continue
        if ht and mt:
            thm += 1
        elif ht:
            th += 1
        elif mt:
            tm += 1
        elif (h[i] - h[j]) * (m[i] - m[j]) > 0:
            c += 1
        else:
            d += 1
    return c, d, th, tm, thm


def _brute_acc(H, M, eps, average):
    rows = [_brute_counts(h, m, eps) for h, m in zip(H, M)]
    rows = [r for r in rows if sum(r)]
    if average == "none":
        tot = np.sum(rows, axis=0)
        return (tot[0] + tot[4]) / tot.sum()
    return float(np.mean([(r[0] + r[4]) / sum(r) for r in rows]))


def _random_case(rng):
    G, S = rng.integers(1, 7), rng.integers(2, 7)
    H = rng.integers(0, 3, size=(G, S)).astype(float)
    H[rng.random((G, S)) < 0.2] = np.nan
    M = np.round(rng.random((G, S)) * 4) / 4  # quarter steps: many equal |dm|
    return H, M


@pytest.mark.parametrize("average", ["item", "none"])
def test_search_equals_brute_force(average):
    rng = np.random.default_rng(20230523)
    for _ in range(60):
        H, M = _random_case(rng)
        try:
            r = tie_calibrated_accuracy(H, M, average=average)
        except ValueError:
            continue  # no countable pair
        cands = sorted({0.0} | {abs(M[g, i] - M[g, j]) for g in range(len(H))
                                for i, j in itertools.combinations(range(H.shape[1]), 2)
                                if not np.isnan(H[g, i] + H[g, j])})
        accs = [_brute_acc(H, M, e, average) for e in cands]
        best = max(accs)
        assert r.acc_eq == pytest.approx(best, abs=1e-12)
        assert r.epsilon == cands[next(k for k, a in enumerate(accs) if a >= best - 1e-12)]
        c = tie_counts(H, M, r.epsilon)
        for g in range(len(H)):
            assert _counts_tuple(c, g) == _brute_counts(H[g], M[g], r.epsilon)


def test_eps0_without_human_ties_is_c_over_c_d_tm():
    rng = np.random.default_rng(7)
    for _ in range(40):
        H, M = _random_case(rng)
        try:
            r = tie_calibrated_accuracy(H, M, epsilon=0.0, average="none", human_ties=False)
        except ValueError:
            continue
        c, d, tm = (sum(_brute_counts(h, m, 0.0, False)[k] for h, m in zip(H, M)) for k in (0, 1, 3))
        assert r.acc_eq == pytest.approx(c / (c + d + tm), abs=1e-12)


def test_reordering_systems_changes_nothing():
    rng = np.random.default_rng(3)
    H, M = _random_case(rng)
    perm = rng.permutation(H.shape[1])
    a = tie_calibrated_accuracy(H, M)
    b = tie_calibrated_accuracy(H[:, perm], M[:, perm])
    assert (a.acc_eq, a.tau_eq, a.epsilon) == pytest.approx((b.acc_eq, b.tau_eq, b.epsilon), abs=1e-12)


def test_seeda_sized_search_is_fast():
    import time

    rng = np.random.default_rng(0)
    H = rng.integers(0, 5, size=(5000, 15)).astype(float)
    H[rng.random(H.shape) < 0.3] = np.nan
    M = rng.random((5000, 15))
    t = time.perf_counter()
    tie_calibrated_accuracy(H, M)
    assert time.perf_counter() - t < 2.0  # ~0.3 s alone; shared machine: generous bound


# ---------------------------------------------------------------------------------- errors
def test_errors_name_shapes():
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(2, 4\)"):
        tie_calibrated_accuracy(np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"no pair.*\(2, 3\)"):
        tie_calibrated_accuracy(np.full((2, 3), np.nan), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="epsilon"):
        tie_calibrated_accuracy([1, 2], [1, 2], epsilon=-0.1)
    with pytest.raises(ValueError, match="average"):
        tie_calibrated_accuracy([1, 2], [1, 2], average="sys")
    with pytest.raises(ValueError, match=r"\(3,\)"):
        system_pairwise_accuracy([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="no metric score"):
        system_pairwise_accuracy([1, 2, 3], [1, N, 2])


# ------------------------------------------------------------------------ real data (SEEDA)
@pytest.mark.slow
@pytest.mark.ci
@pytest.mark.parametrize("setting", ["base", "fluency"])
def test_seeda_eps0_without_human_ties_equals_wmt_sentence_variant(data_root, setting):
    from gec_meta.data.datasets import load_dataset
    from gec_meta.data.judgments import rank_matrix
    from gec_meta.meta.evaluation import sentence_agreement
    from gec_meta.metrics.length import Length

    ds = load_dataset("seeda", data_root, setting=setting)
    metric = Length()
    scores = metric.sentence_scores(metric.statistics(ds.sources, ds.hypotheses, ()))  # (S, N)
    for aspect, items in ds.judgments.items():
        human = -rank_matrix(items, ds.systems)  # (I, S), higher = better
        m = scores[:, [it.line for it in items]].T  # (I, S)
        wmt = sentence_agreement(scores, items, ds.systems, variant="wmt")
        r = tie_calibrated_accuracy(human, m, epsilon=0.0, average="none", human_ties=False)
        assert r.pairs == wmt["pairs"], aspect
        assert r.acc_eq == pytest.approx(wmt["accuracy"], abs=1e-12), aspect
        # and the search runs on the real data, reporting a candidate |dm| of the data
        opt = tie_calibrated_accuracy(human, m)
        assert opt.acc_eq >= tie_calibrated_accuracy(human, m, epsilon=0.0).acc_eq


def test_epsilon_calibrated_on_dev_applied_to_test():
    # Dev: h = [2, 2, 1], m = [0.5, 0.4, 0.0]: (0,1) human tie, |dm| 0.1; (0,2) C, |dm| 0.5;
    #   (1,2) C, |dm| 0.4.  eps 0: T_h, C, C -> 2/3; eps 0.1: T_hm, C, C -> 1 (best);
    #   eps 0.4: T_hm, C, T_m -> 2/3; eps 0.5: T_hm, T_m, T_m -> 1/3.  eps* = |0.5 - 0.4|.
    eps = calibrate_epsilon([[2, 2, 1]], [[0.5, 0.4, 0.0]])
    assert eps == abs(0.5 - 0.4)
    # Test: h = [1, 1, 3], m = [0.30, 0.25, 0.9]: (0,1) human tie, |dm| 0.05 <= eps -> T_hm;
    #   (0,2) h<, m< C; (1,2) C -> acc_eq 3/3 = 1, tau_eq 1 (at eps 0 it would be 2/3).
    r = tie_calibrated_accuracy([[1, 1, 3]], [[0.30, 0.25, 0.9]], epsilon=eps)
    assert (r.acc_eq, r.tau_eq, r.epsilon, r.calibrated) == (1.0, 1.0, eps, False)
    assert tie_calibrated_accuracy([[1, 1, 3]], [[0.30, 0.25, 0.9]], epsilon=0).acc_eq == pytest.approx(2 / 3)


def test_tau_eq_objective():
    # GOLD5/METRIC5 (|dm| per pair listed in test_stats_test_kendall_with_ties_opt):
    #   eps 0:   C6 D3 T_h1        -> tau_eq (6 - 3 - 1)/10 = 0.2
    #   eps 0.5: C6 D2 T_m1 T_hm1  -> (6 + 1 - 2 - 1)/10 = 0.4   (best)
    #   eps 1:   C5 D1 T_m3 T_hm1  -> (5 + 1 - 1 - 3)/10 = 0.2; larger eps only turn C into T_m.
    r = tie_calibrated_accuracy(GOLD5, METRIC5, average="none", objective="tau_eq")
    assert (r.epsilon, r.tau_eq, r.acc_eq) == (0.5, pytest.approx(0.4), pytest.approx(0.7))
