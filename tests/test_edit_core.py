"""The shared edit-metric core: P/R/F conventions and reference selection (no spaCy)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gec_meta.metrics.base import f_beta
from gec_meta.metrics.edit.core import Edit, EditMetric, match_by_key


@dataclass(frozen=True)
class _StatsOnly(EditMetric):
    corpus_name: ClassVar[str] = "stats_only"

    def match(self, sources, hypotheses, references):  # pragma: no cover - not used
        raise NotImplementedError


def test_f_beta_conventions():
    p, r, f = f_beta(0, 0, 0, 0.5)
    assert (p, r, f) == (1.0, 1.0, 1.0)  # nothing proposed, nothing to find
    p, r, f = f_beta(0, 2, 0, 0.5)
    assert (p, r, f) == (0.0, 1.0, 0.0)
    p, r, f = f_beta(1, 1, 3, 0.5)
    # P = 1/2, R = 1/4, F0.5 = 1.25 * 1/8 / (0.25 * 1/2 + 1/4) = 0.15625 / 0.375
    assert (p, r) == (0.5, 0.25)
    assert f == pytest.approx(0.15625 / 0.375)


def test_match_by_key_counts():
    h = (Edit.span(0, 1, "A"), Edit.span(3, 3, "the"))
    r = (Edit.span(0, 1, "A"), Edit.span(5, 6, ""))
    m = match_by_key(h, r)
    assert m.counts() == (1.0, 1.0, 1.0)


def test_sentence_best_reference_tie_break_prefers_more_tp():
    metric = _StatsOnly()
    stats = np.array([[[[0, 0, 0], [1, 0, 0]]]], dtype=float)  # both F = 1
    assert metric.best_reference(stats)[0, 0] == 1


def test_corpus_selection_uses_running_totals():
    # sentence 0: both refs (0,0,3); sentence 1: ref0 (0,0,0) F=1, ref1 (1,1,1) F=.5.
    # Per sentence ref0 wins; against the running total (0,0,3), ref1 gives (1,1,4):
    # P=.5, R=.2, F0.5 = 1.25*.1/(.125+.2) = .3846 > F(0,0,3) = 0, so the corpus picks ref1.
    stats = np.array([[[[0, 0, 3], [0, 0, 3]], [[0, 0, 0], [1, 1, 1]]]], dtype=float)
    metric = _StatsOnly()
    assert metric.best_reference(stats).tolist() == [[0, 0]]
    assert metric.corpus_best_reference(stats).tolist() == [[0, 1]]
    np.testing.assert_allclose(metric.corpus_stats(stats), [[1, 1, 4]])
    assert metric.corpus_scores(stats)[0] == pytest.approx(0.125 / 0.325)
    np.testing.assert_allclose(metric.sentence_scores(stats), [[0.0, 1.0]])


def _errant_compare_choice(stats, beta=0.5):
    """errant_compare's corpus-level loop, one system and one sentence at a time (its
    ``max(..., key=(F, TP, -FP, -FN))`` over references, first one on a full tie)."""
    S, N, R, _ = stats.shape
    out = np.zeros((S, N), dtype=np.int64)
    for s in range(S):
        total = np.zeros(3)
        for n in range(N):
            best_key, best_j = None, 0
            for j in range(R):
                tp, fp, fn = total + stats[s, n, j]
                f = float(f_beta(tp, fp, fn, beta)[2])
                key = (f, tp, -fp, -fn)
                if best_key is None or key > best_key:
                    best_key, best_j = key, j
            out[s, n] = best_j
            total = total + stats[s, n, best_j]
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 8), st.integers(1, 4), st.integers(0, 2**31 - 1))
def test_vectorised_reference_choice_equals_the_per_system_loop(S, N, R, seed):
    # small counts -> many exact ties in F, TP, FP and FN
    stats = np.random.default_rng(seed).integers(0, 3, size=(S, N, R, 3)).astype(float)
    metric = _StatsOnly()
    np.testing.assert_array_equal(metric.corpus_best_reference(stats), _errant_compare_choice(stats))
    per_sentence = np.array([[_errant_compare_choice(stats[s:s + 1, n:n + 1])[0, 0] for n in range(N)]
                             for s in range(S)])
    np.testing.assert_array_equal(metric.best_reference(stats), per_sentence)
