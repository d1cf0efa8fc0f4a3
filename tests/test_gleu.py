"""Unit tests of GLEU (gec_meta/metrics/ngram/gleu.py).

Expected values are worked out by hand from the formula (comments show the counts), or taken
from gec-metrics 0.1.1's own test file (``metrics/gleu_test.py``), an independent golden.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gec_meta.metrics.ngram.gleu import GLEU, sample_reference_indices

OFF = GLEU(variant="official")
COR = GLEU(variant="corrected")


def sent_gleu(metric: GLEU, src: str, hyp: str, refs: list[str]) -> float:
    stats = metric.statistics([src], [[hyp]], [[r] for r in refs])
    return float(metric.sentence_scores(stats)[0, 0])


def corpus_gleu(metric: GLEU, srcs, hyps, refs) -> float:
    stats = metric.statistics(srcs, [hyps], refs)
    return float(metric.corpus_scores(stats)[0])


# --------------------------------------------------------------------------- hand-worked
def test_no_quirk_both_variants_agree():
    # S = a b c d e, H = a b c d f, R = a b c d g; |H| = |R| = 5 -> BP = 1.
    # n=1: matches a b c d = 4, f not in S -> no penalty: 4/5
    # n=2: ab bc cd match, df no: 3/4;  n=3: 2/3;  n=4: 1/2
    # GLEU = (4/5 * 3/4 * 2/3 * 1/2) ** (1/4) = (1/5) ** (1/4)
    expected = 0.2 ** 0.25
    for m in (OFF, COR):
        stats = m.statistics(["a b c d e"], [["a b c d f"]], [["a b c d g"]])
        assert stats.shape == (1, 1, 1, 10)
        np.testing.assert_array_equal(stats[0, 0, 0], [5, 5, 4, 5, 3, 4, 2, 3, 1, 2])
        assert math.isclose(float(m.sentence_scores(stats)[0, 0]), expected, rel_tol=1e-12)
        assert math.isclose(float(m.corpus_scores(stats)[0]), expected, rel_tol=1e-12)


def test_source_ngram_missing_from_reference_is_penalised():
    # S = H = a b c d e f g, R = a b c d e f x.  Every order: one H n-gram ending in g is in
    # S but not in R -> penalty 1.  n=1: (6-1)/7, n=2: (5-1)/6, n=3: (4-1)/5, n=4: (3-1)/4
    # GLEU = (5/7 * 4/6 * 3/5 * 2/4) ** (1/4) = (1/7) ** (1/4)
    for m in (OFF, COR):
        got = sent_gleu(m, "a b c d e f g", "a b c d e f g", ["a b c d e f x"])
        assert math.isclose(got, (1 / 7) ** 0.25, rel_tol=1e-12)


def test_brevity_penalty():
    # S = a b c d e f, H = a b c d (deleted e f), R = a b c d e f.
    # All H n-grams match, no penalty: p_n = 1.  BP = exp(1 - |R|/|H|) = exp(1 - 6/4)
    for m in (OFF, COR):
        got = sent_gleu(m, "a b c d e f", "a b c d", ["a b c d e f"])
        assert math.isclose(got, math.exp(-0.5), rel_tol=1e-12)


def test_space_tokens_reproduce_gec_metrics_lengths():
    # Corpus of two sentences, one reference each (no sampling):
    #   1: S = x y,   H = "" (deleted everything), R = x y
    #   2: S = a b c, H = a b c,                    R = a b c
    # n-grams: only sentence 2 contributes, all match: p_n = 1.
    # Lengths: c = |H1| + |H2|, r = 2 + 3 = 5.
    #   split (official): |""| = 0 -> c = 3 -> BP = exp(1 - 5/3)
    #   space (gec-metrics, len("".split(" ")) = 1): c = 4 -> BP = exp(1 - 5/4)
    srcs, hyps, refs = ["x y", "a b c"], ["", "a b c"], [["x y", "a b c"]]
    assert math.isclose(corpus_gleu(COR, srcs, hyps, refs), math.exp(1 - 5 / 3), rel_tol=1e-12)
    compat = GLEU(variant="corrected", tokens="space")
    assert math.isclose(corpus_gleu(compat, srcs, hyps, refs), math.exp(1 - 5 / 4), rel_tol=1e-12)
    assert compat.cache_key() != COR.cache_key()
    with pytest.raises(ValueError, match="tokens"):
        GLEU(tokens="bpe")


def test_space_tokens_keep_an_empty_token_for_a_leading_space():
    # S = R = "a b", H = " a b" (a leading space, as 3 NTHU lines of GJG15 have).
    # split: H = a b = R -> every p_n = 1 (orders with no n-gram count as 1), BP = 1 -> 1.
    # space: H = ['', a, b]; unigrams '', a, b -> 2 of 3 match; bigrams ('', a), (a, b) -> 1 of 2;
    # the trigram ('', a, b) does not match -> p_3 = 0 -> sentence GLEU 0.
    assert sent_gleu(COR, "a b", " a b", ["a b"]) == 1.0
    assert sent_gleu(GLEU(variant="corrected", tokens="space"), "a b", " a b", ["a b"]) == 0.0


def test_q1_set_difference_ignores_counts():
    # S = H = a a b c d e, R = a b c d e (one 'a' deleted).  |H| = 6 > |R| = 5 -> BP = 1.
    # n=1: match = min(2,1) + 4 = 5.  corrected penalty for 'a': min(h,s) - min(h,r) = 2-1 = 1;
    #      official: 'a' occurs in R -> removed from S\R -> no penalty.  den 6.
    # n=2: aa is in S, not in R -> penalty 1 (both): (4-1)/5
    # n=3: aab -> (3-1)/4;  n=4: aabc -> (2-1)/3
    # corrected: (4/6 * 3/5 * 2/4 * 1/3) ** 0.25 = (1/15) ** 0.25
    # official:  (5/6 * 3/5 * 2/4 * 1/3) ** 0.25 = (1/12) ** 0.25
    args = ("a a b c d e", "a a b c d e", ["a b c d e"])
    assert math.isclose(sent_gleu(COR, *args), (1 / 15) ** 0.25, rel_tol=1e-12)
    assert math.isclose(sent_gleu(OFF, *args), (1 / 12) ** 0.25, rel_tol=1e-12)
    s_off = OFF.statistics([args[0]], [[args[1]]], [args[2]])
    s_cor = COR.statistics([args[0]], [[args[1]]], [args[2]])
    # They differ exactly in num_1 (the only order with an n-gram in S and R, s > r, h > r).
    diff = np.nonzero(s_off[0, 0, 0] != s_cor[0, 0, 0])[0]
    assert list(diff) == [OFF.stat_names.index("num_1")]


def test_q2_per_sentence_clipping():
    # Sentence 1: S = H = a b c d e f g, R = a b c d e f x: num (5,4,3,2), den (7,6,5,4)
    # Sentence 2: S = H = p q, R = p r: n=1: match p, penalty q -> 0; n=2: match 0, penalty
    #   pq -> -1 (official clips to 0); den (2, 1, 0, 0).  Lengths: c = r = 9 -> BP = 1.
    # corrected: (5/9 * 3/7 * 3/5 * 2/4) ** 0.25 = (1/14) ** 0.25
    # official:  (5/9 * 4/7 * 3/5 * 2/4) ** 0.25 = (2/21) ** 0.25
    srcs = ["a b c d e f g", "p q"]
    hyps = ["a b c d e f g", "p q"]
    refs = [["a b c d e f x", "p r"]]
    assert math.isclose(corpus_gleu(COR, srcs, hyps, refs), (1 / 14) ** 0.25, rel_tol=1e-12)
    assert math.isclose(corpus_gleu(OFF, srcs, hyps, refs), (2 / 21) ** 0.25, rel_tol=1e-12)
    s_cor = COR.statistics(srcs, [hyps], refs)
    s_off = OFF.statistics(srcs, [hyps], refs)
    np.testing.assert_array_equal(s_cor[0, 1, 0], [2, 2, 0, 2, -1, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(s_off[0, 1, 0], [2, 2, 0, 2, 0, 1, 0, 0, 0, 0])
    assert np.array_equal(s_cor[0, 0], s_off[0, 0])  # sentence 1 has no quirk


def test_q3_q6_short_and_zero_orders():
    # S = a b c d, H = a b x d, R = a b y d.  n=1: 3/4, n=2: ab -> 1/3, n=3: 0/2, n=4: 0/1.
    # corrected: p_3 = 0 -> 0.  official corpus (unsmoothed): a zero statistic -> 0.
    # official sentence (smooth=True, Q6): zeros -> 1: (3/4 * 1/3 * 1/2 * 1/1) ** 0.25 = 8**-0.25
    args = ("a b c d", "a b x d", ["a b y d"])
    assert sent_gleu(COR, *args) == 0.0
    assert corpus_gleu(OFF, [args[0]], [args[1]], [args[2]]) == 0.0
    assert math.isclose(sent_gleu(OFF, *args), 8 ** -0.25, rel_tol=1e-12)
    # Q3: hypothesis shorter than 4 tokens, equal to the reference: orders 3, 4 have 0/0.
    # corrected: p_n = 1 when nothing is wrong (0/0 included) -> 1.
    # official: den_3 = den_4 = 0 -> gleu() returns 0 (unsmoothed corpus score).
    args = ("a b", "a c", ["a c"])
    assert sent_gleu(COR, *args) == 1.0
    assert corpus_gleu(OFF, [args[0]], [args[1]], [args[2]]) == 0.0


def test_sentence_level_is_mean_over_references():
    # H = a b c d f against R1 = H (GLEU 1: all matched, no S\R n-gram in H) and
    # R2 = a b c d g (GLEU (1/5) ** 0.25, see test_no_quirk_both_variants_agree).
    for m in (OFF, COR):
        got = sent_gleu(m, "a b c d e", "a b c d f", ["a b c d f", "a b c d g"])
        assert math.isclose(got, (1 + 0.2 ** 0.25) / 2, rel_tol=1e-12)


def test_q4_official_order_is_four():
    with pytest.raises(ValueError, match="order"):
        GLEU(variant="official", max_n=3)
    # corrected accepts other orders: S = a b c d e, H = a b c d f, R = a b c d g, n <= 2:
    # (4/5 * 3/4) ** (1/2) = sqrt(3/5)
    got = sent_gleu(GLEU(variant="corrected", max_n=2), "a b c d e", "a b c d f", ["a b c d g"])
    assert math.isclose(got, math.sqrt(0.6), rel_tol=1e-12)


# --------------------------------------------------------------------------- sampling
def _stdlib_draws(iterations: int, n: int, r: int, py2: bool) -> np.ndarray:
    out = np.zeros((iterations, n), dtype=int)
    for j in range(iterations):
        rng = random.Random(101 * j)
        # Python 2's randrange(0, r) is int(random() * r); Python 3's randint is the stdlib's.
        out[j] = [int(rng.random() * r) if py2 else rng.randint(0, r - 1) for _ in range(n)]
    return out


@pytest.mark.parametrize("sampling,py2", [("python2", True), ("python3", False)])
def test_q5_reference_sampling_matches_stdlib(sampling, py2):
    for r in (2, 3, 5):
        got = sample_reference_indices(20, 30, r, 0, sampling)
        np.testing.assert_array_equal(got, _stdlib_draws(20, 30, r, py2))
    # python2 and python3 draws differ (Q5).
    assert not np.array_equal(
        sample_reference_indices(20, 30, 2, 0, "python2"), sample_reference_indices(20, 30, 2, 0, "python3")
    )
    # Known first value of Python's MT19937 seeded with 0: random() = 0.8444218515250481.
    assert sample_reference_indices(1, 1, 2, 0, "python2")[0, 0] == int(0.8444218515250481 * 2)


def test_corpus_score_is_mean_over_sampled_iterations():
    # One sentence, two references: iteration j scores 1 if it draws R1 (= H) and
    # (1/5) ** 0.25 if it draws R2; the corpus score is the mean over iterations.
    srcs, hyps, refs = ["a b c d e"], ["a b c d f"], [["a b c d f"], ["a b c d g"]]
    for sampling, py2 in (("python2", True), ("python3", False)):
        m = GLEU(variant="corrected", iterations=50, sampling=sampling)
        frac_r1 = float(np.mean(_stdlib_draws(50, 1, 2, py2)[:, 0] == 0))
        expected = frac_r1 * 1.0 + (1 - frac_r1) * 0.2 ** 0.25
        assert math.isclose(corpus_gleu(m, srcs, hyps, refs), expected, rel_tol=1e-12)


def test_seeded_determinism():
    srcs = ["a b c d e", "p q r s t u"]
    hyps = ["a b c d f", "p q r s t v"]
    refs = [["a b c d f", "p q r s x u"], ["a b c d g", "p q r s t v"]]
    a = corpus_gleu(GLEU(variant="corrected", seed=0), srcs, hyps, refs)
    b = corpus_gleu(GLEU(variant="corrected", seed=0), srcs, hyps, refs)
    assert a == b
    state = random.getstate()
    corpus_gleu(GLEU(variant="corrected", seed=7), srcs, hyps, refs)
    assert random.getstate() == state  # the global RNG is never used


# --------------------------------------------------------------------------- golden (peer)
# gec-metrics 0.1.1 metrics/gleu_test.py (its corpus values; the sampling there is Python 3's).
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
        "This sentence contains a grammatical error .",
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


def test_peer_golden_values():
    stats = COR.statistics(PEER_SRCS, [PEER_HYPS], PEER_REFS)
    assert math.isclose(float(COR.corpus_scores(stats)[0]), 0.2913773302697463, abs_tol=1e-9)
    np.testing.assert_allclose(COR.sentence_scores(stats)[0], [0.5, 0.0, 1.0, 0.2578313459119911], atol=1e-9)
    off = GLEU(variant="official", sampling="python3")
    stats = off.statistics(PEER_SRCS, [PEER_HYPS], PEER_REFS)
    assert math.isclose(float(off.corpus_scores(stats)[0]), 0.369131, abs_tol=1e-6)


# --------------------------------------------------------------------------- structure
def test_dedupe_and_shapes():
    srcs = ["a b c", "d e f g"]
    hyps = [["a b c", "d e f h"], ["a b c", "d e f h"], ["a x c", "d e f g"]]
    refs = [["a b d", "d e f h"], ["a b c", "d e g"]]
    stats = COR.statistics(srcs, hyps, refs)
    assert stats.shape == (3, 2, 2, 10)
    np.testing.assert_array_equal(stats[0], stats[1])
    single = COR.statistics([srcs[1]], [[hyps[2][1]]], [[refs[0][1]], [refs[1][1]]])
    np.testing.assert_array_equal(stats[2, 1], single[0, 0])
    assert COR.corpus_scores(stats).shape == (3,)
    assert COR.sentence_scores(stats).shape == (3, 2)


def test_bad_input():
    with pytest.raises(ValueError, match="system 0 has 1 hypotheses"):
        COR.statistics(["a", "b"], [["a"]], [["a", "b"]])
    with pytest.raises(ValueError, match="reference set 1"):
        COR.statistics(["a"], [["a"]], [["a"], ["a", "b"]])
    with pytest.raises(ValueError, match="references"):
        COR.statistics(["a"], [["a"]], [])
    with pytest.raises(ValueError, match="string"):
        COR.statistics(["a"], ["a"], [["a"]])
    with pytest.raises(ValueError, match="variant"):
        GLEU(variant="fixed")
    with pytest.raises(ValueError, match="sampling"):
        GLEU(sampling="numpy")
    with pytest.raises(ValueError, match="iterations"):
        GLEU(iterations=0)


def test_options_and_cache_key():
    assert OFF.sampling == "python2" and COR.sampling == "python3"
    assert "variant=official" in OFF.signature() and "sampling=python2" in OFF.signature()
    # stage-2-only options do not change the statistics cache key
    assert GLEU(iterations=10, seed=3).cache_key() == OFF.cache_key()
    assert OFF.cache_key() != COR.cache_key()


# --------------------------------------------------------------------------- properties
sentences = st.lists(st.sampled_from("abcde"), min_size=0, max_size=9).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(src=sentences, hyp=sentences, ref=sentences)
def test_property_official_numerator_dominates_and_identity(src, hyp, ref):
    s_off = OFF.statistics([src], [[hyp]], [[ref]])[0, 0, 0]
    s_cor = COR.statistics([src], [[hyp]], [[ref]])[0, 0, 0]
    # official penalty <= corrected penalty (Q1) and official clips at 0 (Q2)
    assert np.all(s_off[2::2] >= s_cor[2::2])
    np.testing.assert_array_equal(s_off[[0, 1]], s_cor[[0, 1]])
    np.testing.assert_array_equal(s_off[3::2], s_cor[3::2])
    # hypothesis == reference (non-empty): corrected GLEU is maximal (1)
    if hyp:
        assert sent_gleu(COR, src, hyp, [hyp]) == 1.0
    score = sent_gleu(COR, src, hyp, [ref])
    assert 0.0 <= score <= 1.0


@pytest.mark.parametrize("variant", ["official", "corrected"])
def test_swapped_pairs_corpus_scores_equal_rescoring_the_swapped_corpus(variant):
    # The SPA permutations move the corpus counts by products instead of rescoring: per
    # permutation, systems i and j exchange their sentences where the sign is -1, and both are
    # rescored with corpus_scores from scratch here.  Integer counts: the sums are exact, so only
    # the order of the mean over iterations may differ (the last ulp).
    rng = random.Random(7)
    vocab = "a b c d e f".split()

    def sent():
        return " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 7)))

    N, S = 9, 3
    srcs = [sent() for _ in range(N)]
    refs = [[sent() for _ in range(N)] for _ in range(3)]
    hyps = [[s if rng.random() < 0.3 else sent() for s in srcs] for _ in range(S)]
    metric = GLEU(variant=variant, iterations=40)
    stats = metric.statistics(srcs, hyps, refs)
    signs = np.where(np.random.default_rng(3).random((12, N)) < 0.5, -1.0, 1.0)
    signs[0] = 1.0  # the identity permutation
    pairs = [(0, 1), (0, 2), (2, 1)]
    got = metric.swapped_pairs_corpus_scores(stats, pairs, signs)
    assert got.shape == (len(pairs), len(signs), 2)
    for q, (i, j) in enumerate(pairs):
        for r, sign in enumerate(signs):
            swap = sign < 0
            si, sj = stats[i].copy(), stats[j].copy()
            si[swap], sj[swap] = stats[j][swap], stats[i][swap]
            both = metric.corpus_scores(np.stack([si, sj]))
            # corpus_scores averages the iterations along another axis: allow the last ulp
            assert got[q, r, 0] == pytest.approx(both[0], rel=1e-15, abs=0)
            assert got[q, r, 1] == pytest.approx(both[1], rel=1e-15, abs=0)
