"""Tie-calibrated accuracy with a tie tolerance (``resolution`` > 0) and the pairwise
permutation test: one tie rule (``ties.metric_ties``) for the ε* search, the reported counts
and ``clusters.perm_pairs_result`` (Deutsch et al. 2023, acc_eq; review 22, findings 1-3).

Expected values are worked out by hand (comments) or by the small independent reference
implementation below (plain loops), never copied from the code under test.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gec_meta.meta import board, board_pvalues, clusters, ties
from gec_meta.meta.groups import Groups

PT_TOL = 1e-5  # PT-M2 / PT-ERRANT's tie tolerance (float32 model scores)


# --------------------------------------------------------------------------- reference
def _ref_merge(values: list[float], res: float) -> list[float]:
    """Every value replaced by the largest of its chain of sorted neighbours <= res apart."""
    if res <= 0:
        return list(values)
    order = sorted(range(len(values)), key=lambda k: values[k])
    out = [0.0] * len(values)
    run = [order[0]]
    for prev, cur in zip(order, order[1:]):
        if values[cur] - values[prev] <= res:
            run.append(cur)
        else:
            for k in run:
                out[k] = values[run[-1]]
            run = [cur]
    for k in run:
        out[k] = values[run[-1]]
    return out


def _ref_pairs(human, metric):
    """(group, Δh, Δm) of every counted pair, loops only."""
    out = []
    for g, (hr, mr) in enumerate(zip(human, metric)):
        for i, j in itertools.combinations(range(len(hr)), 2):
            if np.isnan(hr[i]) or np.isnan(hr[j]) or np.isnan(mr[i]) or np.isnan(mr[j]):
                continue
            out.append((g, hr[i] - hr[j], mr[i] - mr[j]))
    return out


def _ref_acc_eq(human, metric, eps: float, res: float) -> float:
    """Item-averaged acc_eq with the metric tying merged |Δm| <= eps + res/2 (eps alone at res 0)."""
    pairs = _ref_pairs(human, metric)
    merged = _ref_merge([abs(dm) for _, _, dm in pairs], res)
    limit = eps + res / 2 if res > 0 else eps
    good, total = {}, {}
    for (g, dh, dm), adm in zip(pairs, merged):
        tie = adm <= limit
        ok = (dh == 0) if tie else (dh != 0 and np.sign(dh) == np.sign(dm))
        good[g] = good.get(g, 0) + ok
        total[g] = total.get(g, 0) + 1
    return float(np.mean([good[g] / total[g] for g in total]))


def _ref_best(human, metric, res: float) -> float:
    """max over every candidate ε (0 and every merged |Δm|) of the reference acc_eq."""
    pairs = _ref_pairs(human, metric)
    cands = {0.0, *_ref_merge([abs(dm) for _, _, dm in pairs], res)}
    return max(_ref_acc_eq(human, metric, t, res) for t in cands)


# --------------------------------------------------------------------------- metric_ties
def test_metric_ties_resolution_zero_is_plain_threshold():
    d = np.array([0.0, 0.1, 0.2, 0.30000001, 0.3])
    assert ties.metric_ties(d, 0.3).tolist() == [True, True, True, False, True]
    assert ties.metric_ties(d, 0.0).tolist() == [True, False, False, False, False]


def test_metric_ties_merges_over_all_given_pairs():
    # 0.1249998 alone: 0.1249998 <= 0.125 + 5e-6 -> tie.  With 0.1250080 (8.2e-6 away, within
    # 1e-5) both become 0.1250080 > 0.125005 -> neither ties; 0.3 never does.
    assert ties.metric_ties([0.1249998], 0.125, PT_TOL).tolist() == [True]
    assert ties.metric_ties([0.1249998, 0.1250080, 0.3], 0.125, PT_TOL).tolist() == [False, False, False]
    # ε = 0 with a tolerance: 4e-6 <= 0 + 5e-6 ties; next to 6e-6 (2e-6 apart, one run) both
    # become 6e-6 > 5e-6 and neither ties.
    assert ties.metric_ties([4e-6], 0.0, PT_TOL).tolist() == [True]
    assert ties.metric_ties([4e-6, 6e-6], 0.0, PT_TOL).tolist() == [False, False]


@pytest.mark.parametrize("bad", [dict(epsilon=-1.0), dict(epsilon=float("nan")), dict(resolution=-1e-5),
                                 dict(resolution=float("nan"))])
def test_metric_ties_rejects_bad_arguments(bad):
    kwargs = {"epsilon": 0.1, "resolution": 0.0, **bad}
    with pytest.raises(ValueError):
        ties.metric_ties(np.array([0.1]), **kwargs)
    with pytest.raises(ValueError):
        ties.metric_ties(np.array([[0.1]]), 0.1)
    with pytest.raises(ValueError):
        ties.metric_ties(np.array([np.nan]), 0.1)


# --------------------------------------------------------------------------- finding 1
def test_repro_pairs_eps2_observed_delta_is_difference_of_reported_acc_eq():
    human = np.array([[0., 0.], [1., 0.]])  # humans tie in group 0
    A = np.array([[0.0312343, 0.], [0.3, 0.]])
    B = np.array([[0., 0.], [1., 0.]])
    ra = ties.tie_calibrated_accuracy(human, A, resolution=PT_TOL)
    rb = ties.tie_calibrated_accuracy(human, B, resolution=PT_TOL)
    # A: at ε = 0.0312343 group 0 is a tie of both (1/1) and group 1 (0.3) is concordant (1/1):
    # acc_eq 1.0, ε* reported to 5 decimals = 0.03123.  B: ε* = 0 ties group 0 exactly: 1.0.
    assert (ra.acc_eq, ra.epsilon) == (1.0, 0.03123)
    assert (rb.acc_eq, rb.epsilon) == (1.0, 0.0)
    res = clusters.perm_pairs_result(A, B, human, ra.epsilon, rb.epsilon, np.random.default_rng(0), 1000,
                                     resolution_a=PT_TOL, resolution_b=PT_TOL)
    assert res.delta == 0.0
    # both metrics get every pair right: no draw moves anything, every draw counts
    assert res.p == 1.0
    # without the tolerance 0.0312343 > 0.03123 is untied in group 0 (acc 0.5): the old mismatch
    old = clusters.perm_pairs_result(A, B, human, ra.epsilon, rb.epsilon, np.random.default_rng(0), 1000)
    assert old.delta == -0.5


def test_repro_pairs_eps_merging_run_counts_in_the_test():
    human = np.array([[0., 0.], [0., 0.], [1., 0.]])  # humans tie in groups 0 and 1
    A = np.array([[0.1250004, 0.], [0.1249998, 0.], [0.3, 0.]])
    B = np.array([[0., 0.], [0., 0.], [1., 0.]])
    ra = ties.tie_calibrated_accuracy(human, A, resolution=PT_TOL)
    rb = ties.tie_calibrated_accuracy(human, B, resolution=PT_TOL)
    # 0.1250004 and 0.1249998 are one run (6e-7 apart): ε* = 0.125 ties groups 0 and 1, group 2
    # concordant: acc_eq 1.0 for both metrics.
    assert (ra.acc_eq, ra.epsilon, rb.acc_eq) == (1.0, 0.125, 1.0)
    res = clusters.perm_pairs_result(A, B, human, ra.epsilon, rb.epsilon, np.random.default_rng(0), 100,
                                     resolution_a=PT_TOL, resolution_b=PT_TOL)
    assert res.delta == 0.0


def _near_tie_case(rng, G, S, grid):
    """Scores on a coarse grid plus float32-like noise (~1e-6): many |Δm| equal up to noise."""
    human = rng.integers(0, 3, (G, S)).astype(float)
    human[rng.random((G, S)) < 0.15] = np.nan  # not judged
    metric = np.round(rng.random((G, S)) / grid) * grid + rng.normal(scale=1e-6, size=(G, S))
    metric[np.isnan(human)] = rng.normal(size=np.isnan(human).sum()) * 50  # ignored cells
    return human, metric


def test_perm_pairs_delta_equals_reported_acc_eq_difference_random_near_ties():
    rng = np.random.default_rng(2023)
    mismatched_without_resolution = 0
    for case in range(60):
        G, S = int(rng.integers(2, 9)), int(rng.integers(2, 6))
        human, a = _near_tie_case(rng, G, S, 0.125)
        _, b = _near_tie_case(rng, G, S, 0.05)
        res_a, res_b = [(PT_TOL, PT_TOL), (PT_TOL, 0.0), (0.0, 1e-3), (0.0, 0.0)][case % 4]
        try:
            ra = ties.tie_calibrated_accuracy(human, a, resolution=res_a)
        except ValueError:  # no countable pair
            continue
        rb = ties.tie_calibrated_accuracy(human, b, resolution=res_b)
        # the reported values are the searched maxima (independent reference recount)
        assert ra.acc_eq == pytest.approx(_ref_best(human, a, res_a), abs=1e-12)
        assert rb.acc_eq == pytest.approx(_ref_best(human, b, res_b), abs=1e-12)
        assert ra.acc_eq == pytest.approx(_ref_acc_eq(human, a, ra.epsilon, res_a), abs=1e-12)
        out = clusters.perm_pairs_result(a, b, human, ra.epsilon, rb.epsilon, np.random.default_rng(case), 50,
                                         block_size=50, resolution_a=res_a, resolution_b=res_b)
        assert out.delta == pytest.approx(ra.acc_eq - rb.acc_eq, abs=1e-12)
        plain = clusters.perm_pairs_result(a, b, human, ra.epsilon, rb.epsilon, np.random.default_rng(case), 1,
                                           block_size=1)
        mismatched_without_resolution += abs(plain.delta - (ra.acc_eq - rb.acc_eq)) > 1e-9
    assert mismatched_without_resolution > 0  # the data does exercise the rounding / merging


def test_perm_pairs_resolution_zero_unchanged():
    rng = np.random.default_rng(5)
    human, a = _near_tie_case(rng, 6, 4, 0.125)
    _, b = _near_tie_case(rng, 6, 4, 0.05)
    r1 = clusters.perm_pairs_result(a, b, human, 0.12, 0.05, np.random.default_rng(1), 300, block_size=100)
    r2 = clusters.perm_pairs_result(a, b, human, 0.12, 0.05, np.random.default_rng(1), 300, block_size=100,
                                    resolution_a=0.0, resolution_b=0.0)
    assert (r1.p, r1.delta, r1.permutations) == (r2.p, r2.delta, r2.permutations)
    assert np.array_equal(r1.draws, r2.draws)
    # and it is plain |d| <= ε: reference recount of A's and B's acc_eq at those ε
    assert r1.delta == pytest.approx(_ref_acc_eq(human, a, 0.12, 0.0) - _ref_acc_eq(human, b, 0.05, 0.0), abs=1e-12)
    with pytest.raises(ValueError):
        clusters.perm_pairs_result(a, b, human, 0.1, 0.1, np.random.default_rng(1), 10, resolution_a=-1.0)


# --------------------------------------------------------------------------- finding 2
def test_repro_res_reported_acc_eq_is_the_searched_maximum():
    h = np.array([[2., 1., 0.]])  # humans: 0 > 1 > 2, no ties
    m = np.array([[1.0, 1.0 - 3e-7, 0.5]])
    r = ties.tie_calibrated_accuracy(h, m, resolution=1e-6)
    # |Δm| = 3e-7, 0.5, 0.4999997; with tolerance 1e-6 the last two are one value (0.5) and
    # 3e-7 <= 0 + 5e-7 is a metric tie at every ε (the scores are equal to the tolerance).
    # ε = 0 (or 3e-7): pair (0,1) wrong (T_m), (0,2), (1,2) concordant -> 2/3;  ε = 0.5: all
    # metric ties -> 0.  Maximum 2/3 at the smallest ε, 0.
    assert r.epsilon == 0.0
    assert r.acc_eq == pytest.approx(2 / 3, abs=1e-15)
    assert (r.counts.concordant.tolist(), r.counts.ties_metric.tolist()) == ([2], [1])
    sweep = ties.epsilon_sweep(h, m, resolution=1e-6)
    np.testing.assert_allclose(sweep.thresholds, [0.0, 3e-7, 0.5], rtol=1e-9, atol=0)
    np.testing.assert_allclose(sweep.acc_eq, [2 / 3, 2 / 3, 0.0], atol=1e-15)
    assert r.acc_eq == pytest.approx(sweep.acc_eq.max(), abs=1e-15)
    # the production path (scores made comparable with the same tolerance: the two within 1e-6
    # become equal) gives the same value
    comparable = np.array([[1.0 - 3e-7, 1.0 - 3e-7, 0.5]])
    assert ties.tie_calibrated_accuracy(h, comparable, resolution=1e-6).acc_eq == pytest.approx(2 / 3, abs=1e-15)
    # without a tolerance the metric is exact and gets every pair right
    assert ties.tie_calibrated_accuracy(h, m).acc_eq == 1.0


@pytest.mark.parametrize("objective", ["acc_eq", "tau_eq"])
@pytest.mark.parametrize("average", ["item", "none"])
def test_sweep_and_report_agree_with_resolution(objective, average):
    rng = np.random.default_rng(7)
    for _ in range(40):
        G, S = int(rng.integers(1, 6)), int(rng.integers(2, 6))
        h = rng.integers(0, 3, (G, S)).astype(float)
        m = np.round(rng.random((G, S)), 1) + rng.normal(scale=3e-6, size=(G, S))  # |noise| mostly < 5e-6
        for res in (1e-5, 1e-4):
            r = ties.tie_calibrated_accuracy(h, m, average=average, objective=objective, resolution=res)
            sw = ties.epsilon_sweep(h, m, average=average, resolution=res)
            best = (sw.acc_eq if objective == "acc_eq" else sw.tau_eq).max()
            got = r.acc_eq if objective == "acc_eq" else r.tau_eq
            assert got == pytest.approx(best, abs=1e-12)
            again = ties.tie_calibrated_accuracy(h, m, epsilon=r.epsilon, average=average, resolution=res)
            assert (again.acc_eq, again.tau_eq) == (r.acc_eq, r.tau_eq)
            if average == "item" and objective == "acc_eq":
                assert got == pytest.approx(_ref_best(h, m, res), abs=1e-12)


def test_resolution_zero_sweep_unchanged_by_the_new_argument():
    rng = np.random.default_rng(11)
    h = rng.integers(0, 4, (7, 5)).astype(float)
    m = np.round(rng.random((7, 5)), 2)
    s1, s2 = ties.epsilon_sweep(h, m), ties.epsilon_sweep(h, m, resolution=0.0)
    for f in ("thresholds", "acc_eq", "tau_eq"):
        assert np.array_equal(getattr(s1, f), getattr(s2, f))
    r = ties.tie_calibrated_accuracy(h, m)
    assert r.acc_eq == pytest.approx(_ref_best(h, m, 0.0), abs=1e-12)
    assert r.acc_eq == pytest.approx(_ref_acc_eq(h, m, r.epsilon, 0.0), abs=1e-12)


# --------------------------------------------------------------------------- finding 3
def test_average_none_pools_within_group_pairs_only():
    h = np.array([[1., 0.], [3., 2.]])  # (items, systems)
    m = np.array([[0.9, 0.8], [0.2, 0.1]])
    # ours: the two within-item pairs, both concordant at ε = 0 -> 1.0
    assert ties.tie_calibrated_accuracy(h, m, average="none").acc_eq == 1.0
    # mt-metrics-eval's average_by='none' flattens the 4 scores into one row (6 pairs, across
    # items too); its best acc_eq over ε is 1/3 -- a different statistic
    hf, mf = h.reshape(-1), m.reshape(-1)
    ds = [(hf[i] - hf[j], mf[i] - mf[j]) for i, j in itertools.combinations(range(4), 2)]
    flat = max(np.mean([(dh == 0) if abs(dm) <= t else (dh != 0 and np.sign(dh) == np.sign(dm)) for dh, dm in ds])
               for t in {0.0, *(abs(dm) for _, dm in ds)})
    assert flat == pytest.approx(1 / 3)
    assert "across items" in ties.tie_calibrated_accuracy.__doc__
    assert "across" in ties.__doc__ and "average_by='none'" in ties.__doc__


# --------------------------------------------------------------------------- board
def _board_inputs():
    human = np.array([[0., 0.], [1., 0.]])
    A = np.array([[0.0312343, 0.], [0.3, 0.]])
    B = np.array([[0., 0.], [1., 0.]])
    groups = Groups(human, np.array([0, 1]))
    task = board.BoardTask("bench", "edit", "sentence", "acc_eq")
    side = board.HumanSide({}, {}, groups)
    ma = board.MetricScores({}, {}, A.T.copy(), resolution=PT_TOL)  # (S, N)
    mb = board.MetricScores({}, {}, B.T.copy(), resolution=PT_TOL)
    return task, side, ma, mb


def test_board_pvalue_uses_each_metrics_resolution():
    task, side, ma, mb = _board_inputs()
    values = board.task_values(task, "default", {"a": ma, "b": mb}, side)
    assert values["a"]["value"] == values["b"]["value"] == 1.0
    eps_a, eps_b = values["a"]["epsilon"], values["b"]["epsilon"]
    # "B better than A?": with the tolerance both get every pair right -> delta 0, nothing
    # moves, p = 1.  Without it A would lose group 0 (delta 0.5, p well below 1).
    p = board_pvalues.significance_pvalue(task, "default", mb, ma, side, eps_b, eps_a, 200, np.random.default_rng(3))
    assert p == 1.0
    plain = clusters.perm_pairs(side.groups.metric(mb.sentence_scores), side.groups.metric(ma.sentence_scores),
                                side.groups.human, eps_b, eps_a, np.random.default_rng(3), 200,
                                block_size=board_pvalues.BLOCK_SIZE)
    assert plain < 1.0


def test_board_pvalue_cache_key_includes_resolutions(monkeypatch):
    import dataclasses

    from gec_meta.cache import claims

    keys = []

    def fake_compute_once(key, compute, **kwargs):
        keys.append(key)
        return np.array([0.5])

    monkeypatch.setattr(claims, "compute_once", fake_compute_once)
    task, side, ma, mb = _board_inputs()
    for res in (PT_TOL, PT_TOL, 0.0):
        a = dataclasses.replace(ma, resolution=res)
        assert board_pvalues.cached_pvalue(task, "default", a, mb, side, 0.03123, 0.0, 10, [1, 2, 3, 4], True) == 0.5
    assert keys[0] == keys[1] != keys[2]
