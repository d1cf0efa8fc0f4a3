"""Significance tests: hand-computed Williams statistic, seeded bootstrap/permutation, the
resampled re-aggregation (equal to aggregating every resample), the paired bootstrap test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from gec_meta.meta.aggregation import Average, Default, ExpectedWins, TrueSkillAggregation, trueskill_scores
from gec_meta.metrics.base import Metric
from gec_meta.meta.correlation import row_correlations
from gec_meta.meta.resampling import (bootstrap_correlations, bootstrap_indices, confidence_intervals,
                                      resampled_system_scores)
from gec_meta.meta.significance import (compare_with_best, paired_bootstrap_test, permutation_test,
                                        significance_signature, williams_test)
from gec_meta.meta.trueskill import TrueSkillParams, trueskill_mu


def test_williams_hand_value():
    # r12=.9, r13=.8, r23=.85, n=13:
    # |R| = 1 - .81 - .64 - .7225 + 2*.9*.8*.85 = 0.0515
    # denom = 2*12/10*0.0515 + (1.7^2/4)*(0.15^3) = 0.1236 + 0.7225*0.003375 = 0.1260384375
    # t = 0.1 * sqrt(12*1.85) / sqrt(0.12603844) = 0.1*4.711688 / 0.355019 = 1.327166
    t, p = williams_test(0.9, 0.8, 0.85, 13)
    assert t == pytest.approx(0.1 * math.sqrt(22.2) / math.sqrt(0.1260384375), rel=1e-9)
    assert p == pytest.approx(sps.t.sf(t, 10), rel=1e-12)


def test_williams_equal_correlations_and_symmetry():
    t, p = williams_test(0.7, 0.7, 0.5, 10)
    assert t == 0 and p == pytest.approx(0.5)
    t1, p1 = williams_test(0.8, 0.6, 0.5, 10)
    t2, p2 = williams_test(0.6, 0.8, 0.5, 10)
    assert t1 == pytest.approx(-t2) and p1 + p2 == pytest.approx(1.0)


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    rng0 = np.random.default_rng(0)
    stats = rng0.normal(size=(8, 200)) + np.arange(8)[:, None] * 0.2
    human = np.arange(8, dtype=float)
    f = lambda idx: stats[:, idx].mean(axis=1)  # noqa: E731
    a = bootstrap_correlations(f, 200, human, np.random.default_rng(1), samples=200)
    b = bootstrap_correlations(f, 200, human, np.random.default_rng(1), samples=200)
    assert a == b
    full = np.corrcoef(f(np.arange(200)), human)[0, 1]
    assert a["pearson"]["low"] <= full <= a["pearson"]["high"]


def test_permutation_test_detects_a_clearly_better_metric():
    rng = np.random.default_rng(0)
    human = np.arange(12, dtype=float)
    good = human + rng.normal(scale=0.5, size=12)
    bad = rng.normal(size=12)
    out = permutation_test(good, bad, human, np.random.default_rng(2), samples=2000)
    assert out["delta"] > 0 and out["p"] < 0.05
    again = permutation_test(good, bad, human, np.random.default_rng(2), samples=2000)
    assert again == out


def test_bootstrap_through_evaluate_is_seeded_and_in_the_signature(data_root):
    from gec_meta import load_dataset, meta_evaluate
    from gec_meta.metrics.length import Length

    ds = load_dataset("seeda", data_root, setting="base")
    a = meta_evaluate(ds, Length(), "default", bootstrap_samples=50, bootstrap_seed=7, window=None)
    b = meta_evaluate(ds, Length(), "default", bootstrap_samples=50, bootstrap_seed=7, window=None)
    c = meta_evaluate(ds, Length(), "default", bootstrap_samples=50, bootstrap_seed=8, window=None)
    assert a["system"] == b["system"]
    assert a["system"]["TS_edit"]["ci"] != c["system"]["TS_edit"]["ci"]
    lo, hi = a["system"]["TS_edit"]["ci"]["pearson"]
    assert lo <= a["system"]["TS_edit"]["pearson"] <= hi
    assert a["signature"].endswith("|bootstrap:50(seed=7)")


# ---------------------------------------------------------------------------- resampling

class _Ratio(Metric):
    """Toy metric with statistics (a, b): sentence score a/b, corpus score sum(a)/sum(b) (a
    corpus statistic, not a mean of sentence scores)."""

    name = "ratio"
    stat_names = ("a", "b")
    corpus_reduction = None  # a ratio of sums: recomputed on every resample
    needs_references = False

    def statistics(self, sources, hypotheses, references):  # pragma: no cover - not used
        raise NotImplementedError

    def score_from_stats(self, stats):
        return stats[..., 0] / stats[..., 1]

    def corpus_scores(self, stats):
        return stats[:, :, 0, 0].sum(axis=1) / stats[:, :, 0, 1].sum(axis=1)


class _Mean(_Ratio):
    def corpus_scores(self, stats):
        return self.sentence_scores(stats).mean(axis=1)


def _stats(S=6, N=25, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, size=(S, N, 1)).astype(float) + np.arange(S)[:, None, None] * 0.3
    b = rng.integers(1, 6, size=(S, N, 1)).astype(float)
    return np.stack([a, b], axis=-1)  # (S, N, 1, 2)


def test_trueskill_resampled_equals_trueskill_on_every_resample():
    rng = np.random.default_rng(0)
    x = np.round(rng.normal(size=(5, 12)), 1)  # rounding makes ties (draws)
    x[2, 3] = np.nan  # a missing score: its pairs are skipped
    idx = bootstrap_indices(12, np.random.default_rng(1), 15)
    idx[0] = np.arange(12)
    for order in ("sentence", "shuffled"):
        got = trueskill_mu(x, idx, TrueSkillParams(order=order, seed=4))
        want = np.stack([trueskill_scores(x[:, i], order=order, seed=4) for i in idx])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("metric,aggregation", [
    (_Ratio(), Default()), (_Mean(), Default()), (_Ratio(), Average()), (_Ratio(), ExpectedWins()),
    (_Ratio(), TrueSkillAggregation(order="shuffled", seed=3)),
])
def test_resampled_system_scores_re_aggregate_every_resample(metric, aggregation):
    stats = _stats()
    idx = bootstrap_indices(stats.shape[1], np.random.default_rng(5), 20)
    got = resampled_system_scores(metric, stats, aggregation, idx)
    want = np.stack([aggregation(metric, stats[:, i]) for i in idx])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_bootstrap_indices_are_the_sequential_draws():
    a = bootstrap_indices(30, np.random.default_rng(9), 4)
    rng = np.random.default_rng(9)
    b = np.stack([rng.integers(0, 30, size=30) for _ in range(4)])
    assert (a == b).all()


def test_row_correlations_and_confidence_intervals_by_hand():
    human = np.array([1.0, 2.0, 3.0, 4.0])
    rows = np.array([[1, 2, 3, 4], [4, 3, 2, 1], [1, 2, 4, 3], [5, 5, 5, 5]], dtype=float)
    # [1,2,4,3] vs [1,2,3,4]: centred (-1.5,-.5,1.5,.5).(-1.5,-.5,.5,1.5) = 2.25+.25+.75+.75 = 4, /5 = 0.8
    np.testing.assert_allclose(row_correlations(rows[:3], human), [1.0, -1.0, 0.8])
    assert math.isnan(row_correlations(rows, human)[3])
    # Spearman of [10, 20, 40, 30] = Pearson of its ranks [1, 2, 4, 3] = 0.8.
    assert row_correlations(np.array([[10.0, 20.0, 40.0, 30.0]]), human, "spearman")[0] == pytest.approx(0.8)
    ci = confidence_intervals(rows, human, ("pearson",))["pearson"]
    assert ci["dropped"] == 1  # the constant row
    assert ci["low"] == pytest.approx(np.quantile([1.0, -1.0, 0.8], 0.025))
    assert ci["high"] == pytest.approx(np.quantile([1.0, -1.0, 0.8], 0.975))


def test_paired_bootstrap_test_by_hand():
    human = [1.0, 2.0, 3.0, 4.0]
    a = np.array([[1, 2, 3, 4], [1, 2, 3, 4], [4, 3, 2, 1], [1, 2, 3, 4]], dtype=float)  # r = 1, 1, -1, 1
    b = np.array([[1, 2, 4, 3], [1, 2, 4, 3], [1, 2, 3, 4], [1, 1, 1, 1]], dtype=float)  # r = .8, .8, 1, undefined
    # A wins on resamples 0 and 1 only (an undefined correlation is not a win):
    # p = (1 + 4 - 2) / (1 + 4) = 0.6.
    out = paired_bootstrap_test(a, b, human)
    assert out == {"p": pytest.approx(0.6), "wins": 0.5}


def _permutation_by_loop(a, b, human, rng, samples):
    """The permutation test written out sample by sample (the vectorised one must agree)."""
    za, zb = sps.zscore(a), sps.zscore(b)
    obs = np.corrcoef(za, human)[0, 1] - np.corrcoef(zb, human)[0, 1]
    hits = 0
    for _ in range(samples):
        swap = rng.random(len(human)) < 0.5
        d = np.corrcoef(np.where(swap, zb, za), human)[0, 1] - np.corrcoef(np.where(swap, za, zb), human)[0, 1]
        hits += d >= obs - 1e-12
    return (hits + 1) / (samples + 1)


def test_compare_with_best_williams_and_permutation():
    human = np.array([0.1, 0.5, 0.2, 0.9, 0.7, 0.4, 0.8, 0.3])
    scores = {
        "good": human + np.array([0.05, -0.1, 0.1, 0.0, -0.05, 0.1, 0.0, -0.1]),
        "fair": human + np.array([0.3, -0.2, 0.25, -0.3, 0.1, 0.2, -0.25, 0.1]),
        "same": human + np.array([0.05, -0.1, 0.1, 0.0, -0.05, 0.1, 0.0, -0.1]),  # = good
    }
    out = compare_with_best(scores, human, "pearson", "williams")
    assert out["good"]["best"] == "good" and out["good"]["p"] == 1.0 and out["good"]["delta"] == 0.0
    r = {k: np.corrcoef(v, human)[0, 1] for k, v in scores.items()}
    r23 = np.corrcoef(scores["good"], scores["fair"])[0, 1]
    assert out["fair"]["p"] == pytest.approx(williams_test(r["good"], r["fair"], r23, 8)[1], rel=1e-9)
    assert out["fair"]["delta"] == pytest.approx(r["good"] - r["fair"])
    assert out["same"]["p"] == pytest.approx(0.5)  # a tie with the best: t = 0
    perm = compare_with_best(scores, human, "pearson", "permutation", rng=np.random.default_rng(3), samples=300)
    want = _permutation_by_loop(scores["good"], scores["fair"], human, np.random.default_rng(3), 300)
    assert perm["fair"]["p"] == pytest.approx(want)
    with pytest.raises(ValueError, match="resampled"):
        compare_with_best(scores, human, method="bootstrap")
    assert significance_signature("bootstrap", 1000, 7) == (
        "sig:bootstrap(alpha=0.05,resamples=1000,seed=7,tail=one-sided,unit=sentences)")
