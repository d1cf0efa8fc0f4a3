"""Meta-evaluation statistics against hand-computed values."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from gec_meta.data.judgments import RankingItem
from gec_meta.meta.evaluation import (
    UndefinedCorrelationWarning,
    pearson,
    sentence_agreement,
    spearman,
    system_correlations,
    top_k,
    window_analysis,
)


def test_pearson_spearman_hand_values():
    # x = [1,2,3], y = [1,3,2]: deviations (-1,0,1) and (-1,1,0): cov = 1, var = 2, 2 -> r = 1/2.
    assert pearson([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    assert spearman([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    # Ties get average ranks: x ranks (1.5, 1.5, 3), y ranks (1, 2, 3):
    # cov = 0.5 + 0 + 1 = 1.5, var_x = 1.5, var_y = 2 -> 1.5 / sqrt(3).
    assert spearman([1, 1, 2], [1, 2, 3]) == pytest.approx(1.5 / math.sqrt(3))


def test_constant_input_gives_nan_with_warning():
    with pytest.warns(UndefinedCorrelationWarning):
        assert math.isnan(pearson([1, 1, 1], [1, 2, 3]))
    with pytest.warns(UndefinedCorrelationWarning):
        assert math.isnan(spearman([1, 2, 3], [2, 2, 2]))


def test_non_finite_scores_are_an_error():
    with pytest.raises(ValueError, match="NaN or inf"):
        pearson([1, float("nan"), 3], [1, 2, 3])


def test_correlations_invariant_to_system_order():
    rng = np.random.default_rng(0)
    metric, human = rng.normal(size=9), rng.normal(size=9)
    perm = rng.permutation(9)
    a = system_correlations(metric, {"h": human})
    b = system_correlations(metric[perm], {"h": human[perm]})
    assert a["h"]["pearson"] == pytest.approx(b["h"]["pearson"], abs=1e-12)
    assert a["h"]["spearman"] == pytest.approx(b["h"]["spearman"], abs=1e-12)


def test_window_analysis_hand_values():
    metric = [4, 3, 2, 1, 5]
    human = [5, 4, 3, 2, 1]  # already in human order
    out = window_analysis(metric, human, 3)
    assert [(w["start_rank"], w["end_rank"]) for w in out] == [(1, 3), (2, 4), (3, 5)]
    assert out[0]["pearson"] == pytest.approx(1.0)
    assert out[1]["pearson"] == pytest.approx(1.0)
    # [2,1,5] vs [3,2,1]: deviations (-2/3,-5/3,7/3), (1,0,-1): cov = -3, var_x = 26/3, var_y = 2.
    assert out[2]["pearson"] == pytest.approx(-3 / math.sqrt(26 / 3 * 2))
    # ranks (2,1,3) vs (3,2,1): cov = -1, var = 2, 2.
    assert out[2]["spearman"] == pytest.approx(-0.5)


def test_window_sorts_by_human_score():
    out1 = window_analysis([1, 2, 3, 4], [0.1, 0.4, 0.3, 0.2], 2)
    # human order: systems 1 (0.4), 2 (0.3), 3 (0.2), 0 (0.1): first window = systems 1, 2.
    assert out1[0]["pearson"] == pytest.approx(-1.0)


def test_top_k_takes_best_human_systems():
    metric = [1.0, 2.0, 3.0, 4.0, 0.0]
    human = [0.5, 0.4, 0.3, 0.2, 0.1]
    out = {row["k"]: row for row in top_k(metric, human, [5, 4])}
    assert out[4]["pearson"] == pytest.approx(-1.0)  # metric rises as human falls
    assert out[5]["spearman"] == pytest.approx(spearman(metric, human))


def _items():
    # One sentence judged twice.  item 1: A=1, B=2, C=2 (B/C tie: skipped);
    # item 2: A=2, B=1, C=3.
    return [
        RankingItem(0, "j1", (("A", 1), ("B", 2), ("C", 2))),
        RankingItem(0, "j2", (("A", 2), ("B", 1), ("C", 3))),
    ]


def test_sentence_agreement_seeda_hand_values():
    scores = np.array([[0.5], [0.5], [0.9]])  # A and B tie, C highest
    # order A,B,C.  item 1: (A,B) human A, metric tie -> B wins: discordant;
    # (A,C) human A, metric C: discordant.  item 2: (A,B) human B, tie -> B: concordant;
    # (A,C) human A: discordant; (B,C) human B: discordant.  1 of 5 concordant.
    out = sentence_agreement(scores, _items(), ["A", "B", "C"])
    assert out["pairs"] == 5
    assert out["accuracy"] == pytest.approx(1 / 5)
    assert out["kendall"] == pytest.approx((1 - 4) / 5)


def test_sentence_metric_tie_asymmetry_is_order_dependent():
    # Same data with systems ordered B, A, C: the tie now favours A ("second" system).
    # item 1: (B,A) human A, tie -> A wins: concordant; item 2: (B,A) human B: discordant.
    # The other pairs are as before (C highest: 3 discordant).  1 of 5 concordant again,
    # but a different pair is the concordant one.
    scores_bac = np.array([[0.5], [0.5], [0.9]])
    out = sentence_agreement(scores_bac, _items(), ["B", "A", "C"])
    assert out["accuracy"] == pytest.approx(1 / 5)
    # With only item 1 the difference shows in the number.
    one = _items()[:1]
    a = sentence_agreement(np.array([[0.5], [0.5], [0.9]]), one, ["A", "B", "C"])
    b = sentence_agreement(np.array([[0.5], [0.5], [0.9]]), one, ["B", "A", "C"])
    assert a["accuracy"] == pytest.approx(0.0)
    assert b["accuracy"] == pytest.approx(0.5)


def test_sentence_wmt_variant_counts_ties_as_discordant():
    one = _items()[:1]
    for order in (["A", "B", "C"], ["B", "A", "C"]):
        out = sentence_agreement(np.array([[0.5], [0.5], [0.9]]), one, order, variant="wmt")
        assert out["accuracy"] == pytest.approx(0.0)
        assert out["kendall"] == pytest.approx(-1.0)


def test_no_ranked_pairs_gives_nan():
    items = [RankingItem(0, "j", (("A", 1), ("B", 1)))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCorrelationWarning)
        out = sentence_agreement(np.array([[1.0], [2.0]]), items, ["A", "B"])
    assert math.isnan(out["accuracy"]) and out["pairs"] == 0


def test_displayed_variant_counts_output_pairs_once():
    # One item showing two outputs: group (A, B) ranked 1 and C ranked 2.  Expanded there are
    # two decided pairs (A-C, B-C); displayed there is one.  Metric: A=B=0.5 > C=0.1: concordant.
    item = RankingItem(0, "j", (("A", 1), ("B", 1), ("C", 2)), "1", ((("A", "B"), 1), (("C",), 2)))
    scores = np.array([[0.5], [0.5], [0.1]])
    out = sentence_agreement(scores, [item], ["A", "B", "C"], variant="displayed")
    # Chance level: a constant metric ties the one decided pair (0 under `displayed`), a random
    # order gets it right half the time: max(0.5, 0) = 0.5.
    assert out == {"accuracy": 1.0, "accuracy_random": 0.5, "kendall": 1.0, "pairs": 1}
    # A metric tie on a decided pair stays in the denominator: accuracy 0, kendall 0.
    tie = sentence_agreement(np.array([[0.1], [0.1], [0.1]]), [item], ["A", "B", "C"], variant="displayed")
    assert tie == {"accuracy": 0.0, "accuracy_random": 0.5, "kendall": 0.0, "pairs": 1}
    # A group whose systems are all outside the setting disappears.
    with pytest.warns(UndefinedCorrelationWarning):
        only = sentence_agreement(np.array([[0.5], [0.1]]), [item], ["A", "B"], variant="displayed")
    assert only["pairs"] == 0 and math.isnan(only["accuracy"])
