"""Missing sentence scores (NaN, e.g. an LLM evaluator's missing answer) in the aggregations
and the sentence-level meta-evaluation: pairs with a missing score are skipped, never scored.
Expected values are counted by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gec_meta.meta.aggregation import Average, ExpectedWins, TrueSkillAggregation, trueskill_scores
from gec_meta.data.judgments import RankingItem
from gec_meta.meta.evaluation import sentence_agreement

NAN = float("nan")
SYSTEMS = ("A", "B", "C")


class Scores:
    """A stand-in metric whose statistics are its sentence scores (S, N, 1, 1)."""

    def sentence_scores(self, stats):
        return stats[:, :, 0, 0]


def stats_of(scores) -> np.ndarray:
    return np.asarray(scores, dtype=np.float64)[:, :, None, None]


def test_average_skips_missing_scores():
    scores = [[1.0, NAN, 3.0], [2.0, 2.0, 2.0], [NAN, NAN, NAN]]
    out = Average()(Scores(), stats_of(scores))
    assert out[0] == 2.0 and out[1] == 2.0 and math.isnan(out[2])


def test_trueskill_skips_pairs_with_a_missing_score():
    # Reference: trueskill's own rate_1vs1 over the comparisons that remain, in the
    # aggregation's order (sentence by sentence, pairs i < j); B's sentence-1 score is missing,
    # so sentence 1 compares only A and C.  Equal scores are draws.
    import trueskill

    scores = np.array([[3.0, 2.0, 5.0], [1.0, NAN, 4.0], [2.0, 1.0, 1.0]])  # (S, N)
    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=0.25, tau=0.0, draw_probability=0.25, backend=None)
    ratings = [env.create_rating() for _ in range(3)]
    for n in range(3):
        for i, j in ((0, 1), (0, 2), (1, 2)):
            a, b = scores[i, n], scores[j, n]
            if math.isnan(a) or math.isnan(b):
                continue
            (ratings[i],), (ratings[j],) = env.rate([(ratings[i],), (ratings[j],)],
                                                    ranks=[0, 0 if a == b else (1 if a > b else -1)])
    ours = TrueSkillAggregation()(Scores(), stats_of(scores))
    np.testing.assert_allclose(ours, [r.mu for r in ratings], atol=1e-9)


def test_trueskill_nan_pairs_equal_absent_pairs():
    # Two systems only: a sentence with a missing score is exactly a sentence that is absent.
    scores = np.array([[3.0, NAN, 1.0, 2.0], [2.0, 5.0, 4.0, 2.0]])
    np.testing.assert_allclose(trueskill_scores(scores), trueskill_scores(scores[:, [0, 2, 3]]))


def test_expected_wins_skip_missing():
    scores = np.array([[3.0, NAN, 1.0], [2.0, 5.0, 4.0]])
    np.testing.assert_allclose(ExpectedWins()(Scores(), stats_of(scores)),
                               ExpectedWins()(Scores(), stats_of(scores[:, [0, 2]])))


ITEMS = (
    # sentence 0: A > B > C
    RankingItem(0, "j1", (("A", 1), ("B", 2), ("C", 3)), "1", ((("A",), 1), (("B",), 2), (("C",), 3))),
    # sentence 1: C > A, B tied with A
    RankingItem(1, "j1", (("A", 2), ("B", 2), ("C", 1)), "2", ((("A", "B"), 2), (("C",), 1))),
)


@pytest.mark.parametrize("variant", ["seeda", "wmt", "displayed"])
def test_sentence_agreement_skips_pairs_with_a_missing_score(variant):
    # Metric: sentence 0 A=3, B=NaN, C=1 -> only (A, C) counts, concordant.
    #         sentence 1 A=1, B=1, C=2 -> (A, C) and (B, C) [seeda/wmt] or (AB, C) [displayed]: concordant.
    scores = np.array([[3.0, 1.0], [NAN, 1.0], [1.0, 2.0]])
    out = sentence_agreement(scores, ITEMS, SYSTEMS, variant)
    expected_pairs = {"seeda": 3, "wmt": 3, "displayed": 2}[variant]
    assert out["pairs"] == expected_pairs and out["accuracy"] == 1.0 and out["kendall"] == 1.0
    assert out["skipped_missing"] == 2  # (A, B) and (B, C) of sentence 0
    full = sentence_agreement(np.nan_to_num(scores, nan=2.0), ITEMS, SYSTEMS, variant)
    assert "skipped_missing" not in full and full["pairs"] == expected_pairs + 2


def test_all_missing_is_nan_not_a_score():
    scores = np.full((3, 2), NAN)
    with pytest.warns(UserWarning):
        out = sentence_agreement(scores, ITEMS, SYSTEMS, "seeda")
    assert math.isnan(out["accuracy"]) and out["pairs"] == 0 and out["skipped_missing"] == 5

