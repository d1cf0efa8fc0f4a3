"""Corpus-level PT-ERRANT chooses each sentence's reference as PT-M2's code does
(pygongnlp/PT-M2 ``errant_score.batch_multi_pre_rec_f1_errant``: F of the running totals, then
TP, then the smaller proposed + beta^2 gold), not errant_compare's (F, TP, -FP, -FN).

Independent value: PT-M2's ``PTM2.compute_errant`` (commit 67ef575) run in a scratch venv on the
files below, its ``get_plm_scorer`` replaced by the same stand-in scorer as here (token-LCS F1:
deterministic, no model): 0.5333333333333334 (review of session 23).  Sentence 0 matches
nothing; against reference A its weighted (tp, fp, fn) is (0, 0.0625, 0.5), against B
(0, 0.125, 0.125): F and TP tie at 0, proposed + G/4 is 0.1875 vs 0.15625, so PT-M2 takes B
(errant_compare's rule took A, the smaller FP: 0.487805).
"""

from __future__ import annotations

import numpy as np
import pytest

from gec_meta.metrics.edit.pt import PTErrant

SOURCES = ["I like the red car very much .", "He go to school every day ."]
HYPOTHESIS = ["I like the blue car very much .", "He goes to school every day ."]
REF_A = ["I like the red car very much , and I drive it to work with my friends every single day of the week .",
         "He goes to school every day ."]
REF_B = ["I like the red car very much !", "He goes to school every day ."]


def _lcs_f1(c: str, r: str) -> float:
    a, b = c.split(), r.split()
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a)):
        for j in range(len(b)):
            dp[i + 1][j + 1] = dp[i][j] + 1 if a[i] == b[j] else max(dp[i][j + 1], dp[i + 1][j])
    return 2 * dp[-1][-1] / (len(a) + len(b)) if a or b else 0.0


class LCSScorer:
    """A deterministic stand-in for BERTScore F (the scorer interface PT weighting calls)."""

    name = "lcsf"

    def signature(self) -> str:
        return "lcsf"

    def score(self, cands, refs, idf_sentences=None):
        return np.array([_lcs_f1(c, r) for c, r in zip(cands, refs)])


@pytest.fixture(scope="module")
def stats():
    return PTErrant(scorer=LCSScorer(), level="corpus").statistics(SOURCES, [HYPOTHESIS], [REF_A, REF_B])


def test_sentence_0_weights(stats):
    assert stats[0, 0, 0].tolist() == pytest.approx([0.0, 0.0625, 0.5])
    assert stats[0, 0, 1].tolist() == pytest.approx([0.0, 0.125, 0.125])


def test_corpus_choice_is_pt_m2s(stats):
    metric = PTErrant(scorer=LCSScorer(), level="corpus")
    assert metric.corpus_best_reference(stats)[0].tolist() == [1, 0]
    assert float(metric.corpus_scores(stats)[0]) == pytest.approx(0.5333333333333334, abs=1e-12)
