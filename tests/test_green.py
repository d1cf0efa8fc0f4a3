"""Unit tests of GREEN (gec_meta/metrics/ngram/green.py).

Expected values are worked out by hand from the GREEN definition (comments show the TP/FP/FN
counts), or taken from gec-metrics 0.1.1's own test file (``metrics/green_test.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gec_meta.metrics.ngram.green import GREEN


def scores(metric: GREEN, srcs, hyps, refs):
    stats = metric.statistics(srcs, [hyps], refs)
    return metric.sentence_scores(stats)[0], float(metric.corpus_scores(stats)[0])


def test_wrong_correction_counts():
    # S = a b c, H = a x c, R = a y c.
    # n=1: a, c: TK (tp 2); b: s=1, h=r=0 -> TD (tp 1); x: OI (fp 1); y: UI (fn 1)
    #      -> tp 3, fp 1, fn 1 -> p1 = r1 = 3/4
    # n=2: ab, bc: TD (tp 2); ax, xc: OI (fp 2); ay, yc: UI (fn 2) -> p2 = r2 = 1/2
    # n=3: abc TD, axc OI, ayc UI -> p3 = r3 = 1/2;  n=4: nothing -> p4 = r4 = 1
    # P = R = (3/4 * 1/2 * 1/2 * 1) ** (1/4) = (3/16) ** (1/4), and F_beta(P, P) = P.
    m = GREEN()
    stats = m.statistics(["a b c"], [["a x c"]], [["a y c"]])
    np.testing.assert_array_equal(stats[0, 0, 0], [3, 1, 1, 2, 2, 2, 1, 1, 1, 0, 0, 0])
    sent, corp = scores(m, ["a b c"], ["a x c"], [["a y c"]])
    assert math.isclose(sent[0], (3 / 16) ** 0.25, rel_tol=1e-12)
    assert math.isclose(corp, (3 / 16) ** 0.25, rel_tol=1e-12)
    # n <= 2: P = R = sqrt(3/4 * 1/2) = sqrt(3/8)
    sent, _ = scores(GREEN(max_n=2), ["a b c"], ["a x c"], [["a y c"]])
    assert math.isclose(sent[0], math.sqrt(3 / 8), rel_tol=1e-12)


def test_beta_and_missed_correction():
    # S = H = a b, R = a c (n = 1 only).
    # a: TK (tp 1); b: s=h=1, r=0 -> UD (fn 1); c: UI (fn 1) -> tp 1, fp 0, fn 2
    # P = 1 (no FP), R = 1/3.
    # F2   = 5 * 1 * (1/3) / (4 * 1 + 1/3)    = 5/13
    # F0.5 = 1.25 * (1/3) / (0.25 * 1 + 1/3) = 5/7
    sent, _ = scores(GREEN(max_n=1), ["a b"], ["a b"], [["a c"]])
    assert math.isclose(sent[0], 5 / 13, rel_tol=1e-12)
    sent, _ = scores(GREEN(max_n=1, beta=0.5), ["a b"], ["a b"], [["a c"]])
    assert math.isclose(sent[0], 5 / 7, rel_tol=1e-12)
    # n=2: ab UD (fn), ac UI (fn), tp 0 -> r2 = 0 -> geometric mean R = 0 -> F = 0
    sent, _ = scores(GREEN(max_n=2), ["a b"], ["a b"], [["a c"]])
    assert sent[0] == 0.0


def test_over_deletion_is_a_false_positive():
    # S = a b, H = a, R = a b (n = 1): a TK (tp 1); b: s=r=1, h=0 -> OD (fp 1).
    # P = 1/2, R = 1 (no FN); F2 = 5 * 1/2 * 1 / (4 * 1/2 + 1) = 5/6
    sent, _ = scores(GREEN(max_n=1), ["a b"], ["a"], [["a b"]])
    assert math.isclose(sent[0], 5 / 6, rel_tol=1e-12)


def test_corpus_accumulates_counts():
    # n = 1.  Sentence 1 (S a b c, H a x c, R a y c): tp 3, fp 1, fn 1 -> F2 = 3/4.
    # Sentence 2 (S = H = a b, R = a c): tp 1, fp 0, fn 2 -> F2 = 5/13.
    # Corpus: tp 4, fp 1, fn 3 -> P = 4/5, R = 4/7,
    #   F2 = 5 * (4/5)(4/7) / (4 * 4/5 + 4/7) = (16/7) / (132/35) = 20/33  (not the mean).
    m = GREEN(max_n=1)
    sent, corp = scores(m, ["a b c", "a b"], ["a x c", "a b"], [["a y c", "a c"]])
    np.testing.assert_allclose(sent, [3 / 4, 5 / 13], rtol=1e-12)
    assert math.isclose(corp, 20 / 33, rel_tol=1e-12)


def test_best_reference_per_sentence():
    # n = 1, second reference set R2.
    # Sentence 1 vs R2 = a b c: a, c TK (tp 2); b: s=r=1, h=0 -> OD (fp 1); x: OI (fp 1)
    #   -> P = 1/2, R = 1 -> F2 = 5/6 > 3/4 (R1), so R2 is chosen.
    # Sentence 2 vs R2 = a b (= H): a, b TK (tp 2), nothing else -> F = 1 > 5/13 (R1): R2.
    # Corpus: tp 2 + 2 = 4, fp 2 + 0 = 2, fn 0 -> P = 2/3, R = 1 -> F2 = 5*(2/3)/(4*2/3+1) = 10/11
    m = GREEN(max_n=1)
    refs = [["a y c", "a c"], ["a b c", "a b"]]
    stats = m.statistics(["a b c", "a b"], [["a x c", "a b"]], refs)
    np.testing.assert_array_equal(m.best_reference(stats), [[1, 1]])
    np.testing.assert_allclose(m.sentence_scores(stats)[0], [5 / 6, 1.0], rtol=1e-12)
    assert math.isclose(float(m.corpus_scores(stats)[0]), 10 / 11, rel_tol=1e-12)
    # ties go to the lowest reference index
    stats = m.statistics(["a b"], [["a b"]], [["a c"], ["a c"]])
    assert m.best_reference(stats)[0, 0] == 0


# gec-metrics 0.1.1 metrics/green_test.py (its golden corpus and sentence values, x100).
PEER_SRCS = [
    "This sentences contain gramamtical error .",
    "This is a sentence .",
    "This is no change .",
    "I bought a pen to write a letter to a friend .",
]
PEER_HYPS = [
    "This sentence contains a grammatical error .",
    "the sentence was corrected into completely different one .",
    "This is no change .",
    "I bought a pen to write a letter to a friend .",
]
PEER_REFS = [
    [
        "This sentence contains a gramamtical error .",
        "dummy sentence .",
        "This is no change .",
        "I bought a pen to write a letter to the friend .",
    ],
    [
        "These sentences contain grammatical errors .",
        "another dummy sentence .",
        "This is no change .",
        "I bought a pen to write the letter to the friend .",
    ],
]


@pytest.mark.parametrize(
    "beta,corpus,sentence",
    [
        (0.5, 67.353281938837, [67.080694940041, 34.099683242425, 100.0, 89.496113939418]),
        (2.0, 71.852523831581, [74.467815149281, 60.992075408949, 100.0, 68.051848160668]),
    ],
)
def test_peer_golden_values(beta, corpus, sentence):
    sent, corp = scores(GREEN(beta=beta), PEER_SRCS, PEER_HYPS, PEER_REFS)
    assert math.isclose(100 * corp, corpus, abs_tol=1e-9)
    np.testing.assert_allclose(100 * sent, sentence, atol=1e-9)


def test_stats_layout_and_cache_key():
    m = GREEN()
    assert m.stat_names[:3] == ("tp_1", "fp_1", "fn_1") and len(m.stat_names) == 12
    assert GREEN(beta=0.5).cache_key() == m.cache_key()  # beta is stage 2 only
    assert GREEN(max_n=3).cache_key() != m.cache_key()
    stats = m.statistics(["a b", "c"], [["a b", "c"], ["a b", "d"]], [["a c", "c"]])
    assert stats.shape == (2, 2, 1, 12)
    np.testing.assert_array_equal(stats[0, 0], stats[1, 0])  # deduplicated triple


def test_bad_input():
    m = GREEN()
    with pytest.raises(ValueError, match="system 1 has 1 hypotheses"):
        m.statistics(["a", "b"], [["a", "b"], ["a"]], [["a", "b"]])
    with pytest.raises(ValueError, match="reference set 0"):
        m.statistics(["a"], [["a"]], [["a", "b"]])
    with pytest.raises(ValueError, match="beta"):
        GREEN(beta=0)
    with pytest.raises(ValueError, match="max_n"):
        GREEN(max_n=0)
    with pytest.raises(ValueError, match="columns"):
        m.score_from_stats(np.zeros((2, 5)))


sentences = st.lists(st.sampled_from("abcde"), min_size=0, max_size=9).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(src=sentences, hyp=sentences, ref=sentences, beta=st.sampled_from([0.5, 1.0, 2.0]))
def test_property_hypothesis_equal_reference_is_maximal(src, hyp, ref, beta):
    m = GREEN(beta=beta)
    stats = m.statistics([src], [[hyp], [ref]], [[ref]])
    sent = m.sentence_scores(stats)[:, 0]
    # the system that outputs the reference gets the maximal score 1, no system exceeds it
    assert sent[1] == 1.0
    assert 0.0 <= sent[0] <= 1.0
    # no FP and no FN at all when H == R
    assert np.all(stats[1, 0, 0].reshape(-1, 3)[:, 1:] == 0)


def _seven_counts(src: str, hyp: str, ref: str, max_n: int) -> list[int]:
    """(tp, fp, fn) per order written out from Koyama et al.'s seven counts, one n-gram at a
    time: TK + TI + TD, OI + OD, UI + UD."""
    from collections import Counter

    def grams(text, n):
        toks = text.split()
        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))

    out = []
    for n in range(1, max_n + 1):
        cs, ch, cr = grams(src, n), grams(hyp, n), grams(ref, n)
        tk = ti = td = oi = od = ui = ud = 0
        for g in set(cs) | set(ch) | set(cr):
            s, h, r = cs[g], ch[g], cr[g]
            tk += min(s, h, r)
            ti += max(min(r, h) - s, 0)
            td += max(s - max(r, h), 0)
            oi += max(h - max(s, r), 0)
            od += max(min(s, r) - h, 0)
            ui += max(r - max(s, h), 0)
            ud += max(min(s, h) - r, 0)
        out += [tk + ti + td, oi + od, ui + ud]
    return out


# Repeated tokens from a 3-word vocabulary: n-grams kept, inserted, deleted, over- and
# under-corrected several times over, so both shortcuts of the statistics (an n-gram kept as in
# the source, s == h; one right in the source already, s == r) and the general case run.
repeated = st.lists(st.sampled_from("abc"), min_size=0, max_size=14).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(src=repeated, hyp=repeated, ref=repeated, max_n=st.integers(1, 4))
def test_statistics_are_the_seven_counts(src, hyp, ref, max_n):
    stats = GREEN(max_n=max_n).statistics([src], [[hyp]], [[ref]])
    assert stats[0, 0, 0].tolist() == _seven_counts(src, hyp, ref, max_n)


_SAME_BITS_SCRIPT = """
import json, math, numpy as np
from gec_meta.metrics.ngram.green import GREEN
rng = np.random.default_rng(3)
stats = rng.integers(0, 40, size=(3000, 12)).astype(float)
print(json.dumps([float(v).hex() for v in GREEN().score_from_stats(stats)]))
"""


def test_scores_have_the_same_bits_whatever_the_cpus_kernels():
    # numpy's AVX-512 float64 log/exp differ from the C library's in the last bit for some
    # arguments: GREEN's SEEDA-E Base epsilon* moved by 1.1e-16 between a family-23 (AVX2) and a
    # family-25 (AVX-512) host (2026-11-29).  GREEN takes the C library's on every CPU.
    from tests.cpu_kernels import both_kernels

    plain, avx2 = both_kernels(_SAME_BITS_SCRIPT)
    assert plain == avx2


@pytest.mark.parametrize("scale", [30, 5000])  # sentence counts (dense table) and corpus totals
def test_geometric_mean_is_gec_metrics_formula(scale):
    # gec-metrics: math.exp(sum(math.log(p) for p in ps) / len(ps)) over the precisions
    # tp / (tp + fp) (1 where fp = 0; 0 for the mean where any is 0); numpy sums four terms left to
    # right too, so the same float.
    from gec_meta.metrics.ngram.green import _geometric_mean_of_ratios

    rng = np.random.default_rng(8)
    tp = rng.integers(0, scale, size=(400, 4)).astype(float)
    fp = rng.integers(0, 4, size=(400, 4)).astype(float)
    for t, f, got in zip(tp, fp, _geometric_mean_of_ratios(tp, fp)):
        ps = [a / (a + b) if b else 1.0 for a, b in zip(t, f)]
        want = 0.0 if min(ps) == 0 else math.exp(sum(math.log(p) for p in ps) / len(ps))
        assert got == want
