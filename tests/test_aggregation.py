"""Aggregations against hand calculations and the trueskill package."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import trueskill
from scipy.stats import norm

from gec_meta.meta.aggregation import (
    Average,
    Default,
    ExpectedWins,
    TrueSkillAggregation,
    expected_wins_from_wins,
    trueskill_scores,
    win_matrix,
)
from gec_meta.data.judgments import RankingItem
from gec_meta.meta.evaluation import human_expected_wins
from gec_meta.metrics.length import Length


def test_expected_wins_from_judgments_hand_values():
    # 3 systems, 2 judged sentences: s1 ranks A>B>C, s2 ranks C>A (B not shown).
    # wins(A,B)=1/1, (A,C)=1/2, (B,C)=1/1 -> EW = [(1+.5)/2, (0+1)/2, (.5+0)/2].
    items = [
        RankingItem(0, "j", (("A", 1), ("B", 2), ("C", 3))),
        RankingItem(1, "j", (("C", 1), ("A", 2))),
    ]
    ew = human_expected_wins(items, ["A", "B", "C"])
    np.testing.assert_allclose(ew, [0.75, 0.50, 0.25])


def test_expected_wins_from_sentence_scores_ties_count_for_neither():
    # s1: A=3 B=2 C=1, s2: A=2 B=2 C=3.  A-B: 1 win, 1 tie -> 1; A-C: 1-1 -> .5; B-C: 1-1 -> .5.
    scores = np.array([[3.0, 2.0], [2.0, 2.0], [1.0, 3.0]])
    ew = expected_wins_from_wins(win_matrix(scores))
    np.testing.assert_allclose(ew, [0.75, 0.25, 0.50])


def test_expected_wins_guard_for_undecided_pair():
    wins = np.array([[0, 0, 2], [0, 0, 1], [0, 1, 0]])  # A-B never decided
    with pytest.warns(UserWarning, match="never decided"):
        ew = expected_wins_from_wins(wins)
    # A: (0 + 2/2)/2, B: (0 + 1/2)/2, C: (0/2 + 1/2)/2
    np.testing.assert_allclose(ew, [0.5, 0.25, 0.25])


def test_trueskill_single_win_matches_closed_form():
    # Herbrich et al. (2006): winner mean += sigma^2/c * v(t, eps), c^2 = 2 beta^2 + 2 sigma^2,
    # t = 0 (equal means), eps = draw margin / c, draw margin = Phi^-1((p+1)/2) sqrt(2) beta.
    sigma, beta, p = 0.5, 0.25, 0.25
    c = math.sqrt(2 * beta**2 + 2 * sigma**2)
    eps = norm.ppf((p + 1) / 2) * math.sqrt(2) * beta / c
    v = norm.pdf(-eps) / norm.cdf(-eps)
    expected = sigma**2 / c * v
    mu = trueskill_scores(np.array([[1.0], [0.0]]))
    assert mu[0] == pytest.approx(expected, abs=1e-6)  # the package's erfc is an approximation
    assert mu[1] == pytest.approx(-expected, abs=1e-6)


def test_trueskill_draw_keeps_equal_means():
    mu = trueskill_scores(np.array([[1.0], [1.0]]))
    np.testing.assert_allclose(mu, [0.0, 0.0], atol=1e-12)


def test_trueskill_equals_package_rate_on_random_tables():
    rng = np.random.default_rng(1)
    scores = rng.integers(0, 3, size=(6, 40)).astype(float)
    ours = trueskill_scores(scores)
    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=0.25, tau=0.0, draw_probability=0.25)
    ratings = [env.create_rating() for _ in range(6)]
    for n in range(scores.shape[1]):
        for i, j in itertools.combinations(range(6), 2):
            a, b = scores[i, n], scores[j, n]
            ranks = [0, 1] if a > b else ([1, 0] if a < b else [0, 0])
            (ratings[i],), (ratings[j],) = env.rate([(ratings[i],), (ratings[j],)], ranks=ranks)
    np.testing.assert_allclose(ours, [r.mu for r in ratings], atol=1e-12)


def test_trueskill_is_order_dependent_and_seeded():
    rng = np.random.default_rng(2)
    scores = rng.normal(size=(5, 30))
    a = trueskill_scores(scores, order="shuffled", seed=3)
    b = trueskill_scores(scores, order="shuffled", seed=3)
    c = trueskill_scores(scores, order="shuffled", seed=4)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    assert "seed" not in TrueSkillAggregation().signature()
    assert "seed=4" in TrueSkillAggregation(order="shuffled", seed=4).signature()


def test_aggregations_on_length_metric():
    stats = Length().statistics(["x", "y"], [["ab", "c"], ["abc", "de"]], [])
    np.testing.assert_allclose(Default()(Length(), stats), [3, 5])
    np.testing.assert_allclose(Average()(Length(), stats), [1.5, 2.5])
    np.testing.assert_allclose(ExpectedWins()(Length(), stats), [0.0, 1.0])


# ---------------------------------------------------------------------------- resampling owned by the aggregation
class _Counting(Length):
    """Length with a declared corpus reduction, counting corpus_scores calls."""

    def __init__(self, how):
        object.__setattr__(self, "_how", how)
        object.__setattr__(self, "calls", 0)

    @property
    def corpus_reduction(self):
        return self._how

    def corpus_scores(self, stats):
        object.__setattr__(self, "calls", self.calls + 1)
        return super().corpus_scores(stats)


@pytest.mark.parametrize("how", ["sum", None])
def test_default_resample_follows_corpus_reduction(how):
    rng = np.random.default_rng(0)
    stats = rng.integers(1, 9, size=(4, 30)).astype(float)[:, :, None, None]
    idx = rng.integers(0, 30, size=(25, 30))
    metric = _Counting(how)
    got = Default().resample(metric, stats, idx)
    assert metric.calls == (0 if how == "sum" else 25)  # declared sum: vectorised, no recomputation
    want = np.stack([Default()(Length(), stats[:, i]) for i in idx])
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_resample_recomputes_on_missing_scores():
    stats = np.array([[1.0, np.nan, 3.0], [2.0, 2.0, 2.0]])[:, :, None, None]
    idx = np.array([[0, 1, 2], [2, 2, 0]])
    got = Average().resample(Length(), stats, idx)
    want = np.stack([Average()(Length(), stats[:, i]) for i in idx])
    np.testing.assert_array_equal(got, want)
