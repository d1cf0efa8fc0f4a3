"""CLEME2.0 (Ye et al., ACL 2025): hand-worked chunk classes, rates, reference choices and
similarity weights, and the official code's output on CLEME's example files.

Independent values: hand calculations written out below, and the output of the official code
(THUKElab/CLEME, commit e90abead75a9d766595b1b0ff4473647af0c86e9, "CLEME2.0 released", v1.1)
run in a scratch venv (see OFFICIAL).
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from gec_meta.data.m2 import EditedSentence, GoldEdit
from gec_meta.errors import ConfigError
from gec_meta.metrics.edit.cleme import partition
from gec_meta.metrics.edit.cleme2 import (
    CLEME2, FN, FP_NE, FP_UN, MAIN_PY_FACTORS, TN, TP, applied_alone, classify, rates,
)
from gec_meta.metrics.edit.core import lexicographic_best


def _gold(start, end, cor, annotator=0):
    return GoldEdit(start, end, "R:X", (cor,), annotator)


# ----------------------------------------------------------------------------- a worked example
# Source S = "the dog sit on mat ." (tokens 0..5).
#   R1 = "the dog sits on the mat !"  (sit -> sits at 2, insert "the" at 4, . -> ! at 5)
#   R2 = "a dog sit on mat ."         (the -> a at 0)
#   H  = "a dog sat on the mat ."     (the -> a at 0, sit -> sat at 2, insert "the" at 4)
# Merged intervals (0,1) (2,3) (4,4) (5,6): chunks [0,1) [1,2) [2,3) [3,4) [4,4) [4,5) [5,6),
# i.e. 0 "the" | 1 "dog" | 2 "sit" | 3 "on" | 4 "" (insertion point) | 5 "mat" | 6 ".".
SOURCE = "the dog sit on mat ."
R1 = (_gold(2, 3, "sits"), _gold(4, 4, "the"), _gold(5, 6, "!"))
R2 = (_gold(0, 1, "a", annotator=1),)
HYP = EditedSentence("a dog sat on the mat .", (_gold(0, 1, "a"), _gold(2, 3, "sat"), _gold(4, 4, "the")))

# Dependent, against R1: chunk 0 "a" edited, R1 unedited -> FPun; 2 "sat" vs "sits" (R1 edited)
# -> FPne; 4 "the" = "the" -> TP; 6 unedited, R1 "!" -> FN; 1, 3, 5 -> TN.
DEP_R1 = {TP: 1, FP_NE: 1, FP_UN: 1, FN: 1, TN: 3}
# Dependent, against R2: 0 "a" = "a" -> TP; 2 "sat" vs unedited "sit" -> FPun; 4 "the" vs R2's
# empty unedited chunk -> FPun; 1, 3, 5, 6 -> TN.
DEP_R2 = {TP: 1, FP_NE: 0, FP_UN: 2, FN: 0, TN: 4}
# Independent: 0 "a" equals R2's -> TP; 2 "sat" matches neither, R1 edited it -> FPne; 4 "the"
# equals R1's -> TP; 6 unedited, not every reference edited it -> TN; 1, 3, 5 -> TN.
IND = {TP: 2, FP_NE: 1, FP_UN: 0, FN: 0, TN: 4}


def _row(counts):
    return [counts[c] for c in (TP, FP_NE, FP_UN, FN, TN)]


def _stats(mode, **kw):
    metric = CLEME2(mode=mode, reference_edits="gold", **kw)
    return metric, metric.statistics([SOURCE], [[HYP]], ((R1,), (R2,)))


def test_classes_by_hand():
    chunks = partition(SOURCE, [(str(HYP), [(0, 1, 0, 1), (2, 3, 2, 3), (4, 4, 4, 5)]),
                                ("the dog sits on the mat !", [(2, 3, 2, 3), (4, 4, 4, 5), (5, 6, 6, 7)]),
                                ("a dog sit on mat .", [(0, 1, 0, 1)])])
    assert [c.tokens for c in chunks[0]] == [("a",), ("dog",), ("sat",), ("on",), ("the",), ("mat",), (".",)]
    dep = classify(chunks, "dependent")
    assert dep[0] == [(FP_UN, 0), (TN, 1), (FP_NE, 2), (TN, 3), (TP, 4), (TN, 5), (FN, 6)]
    assert dep[1] == [(TP, 0), (TN, 1), (FP_UN, 2), (TN, 3), (FP_UN, 4), (TN, 5), (TN, 6)]
    ind = classify(chunks, "independent")
    assert ind[0] == ind[1] == [(TP, 0), (TN, 1), (FP_NE, 2), (TN, 3), (TP, 4), (TN, 5), (TN, 6)]


def test_statistics_by_hand():
    _, dep = _stats("dependent")
    np.testing.assert_array_equal(dep[0, 0], [_row(DEP_R1), _row(DEP_R2)])
    _, ind = _stats("independent")
    np.testing.assert_array_equal(ind[0, 0], [_row(IND), _row(IND)])


def test_rates_and_score_by_hand():
    """R1 (dependent): NE = TP + FPne + FN = 3, hit = wrong = under = 1/3, over = FPun / (TP +
    FPne + FPun) = 1/3; sentence factors (0.35, 0.25, 0.20, 0.20): 0.35/3 + (0.25 + 0.2 + 0.2)
    * 2/3 = 0.55.  R2: NE = 1, hit = 1, wrong = under = 0, over = 2/3: 0.35 + 0.25 + 0.2 +
    0.2/3 = 0.8666...  Corpus factors (0.45, 0.35, 0.15, 0.05) on R1: 0.45/3 + 0.55 * 2/3."""
    hit, wrong, under, over, score = rates(np.array([_row(DEP_R1), _row(DEP_R2)], float), MAIN_PY_FACTORS["sentence"])
    np.testing.assert_allclose(hit, [1 / 3, 1.0])
    np.testing.assert_allclose(wrong, [1 / 3, 0.0])
    np.testing.assert_allclose(under, [1 / 3, 0.0])
    np.testing.assert_allclose(over, [1 / 3, 2 / 3])
    np.testing.assert_allclose(score, [0.55, 0.35 + 0.25 + 0.2 + 0.2 / 3])
    corpus = rates(np.array(_row(DEP_R1), float), MAIN_PY_FACTORS["corpus"])[4]
    assert math.isclose(corpus, 0.45 / 3 + 0.55 * 2 / 3)


def test_empty_denominators():
    """Nothing to correct, nothing proposed: every rate is 0 (the official ``if ne else 0.0``),
    so the score is a2 + a3 + a4 = 0.65 at sentence level, 0.55 at corpus level.  Only FPun:
    NE = 0, over = 1 -> a2 + a3 = 0.45."""
    out = rates(np.array([[0, 0, 0, 0, 5], [0, 0, 2, 0, 3]], float), MAIN_PY_FACTORS["sentence"])
    np.testing.assert_allclose(np.array(out)[:, 0], [0, 0, 0, 0, 0.65])
    np.testing.assert_allclose(np.array(out)[:, 1], [0, 0, 0, 1, 0.45])
    assert math.isclose(rates(np.zeros(5), MAIN_PY_FACTORS["corpus"])[4], 0.55)


def test_main_py_weights():
    """THUKElab/CLEME main.py (e90abea) lines 58-64: DEFAULT_HEUO_SCORER_CORPUS = HEUOEditScorer(
    factor_hit=0.45, factor_err=0.35, factor_und=0.15, factor_ove=0.05, ...),
    DEFAULT_HEUO_SCORER_SENTENCE = HEUOEditScorer(factor_hit=0.35, factor_err=0.25,
    factor_und=0.20, factor_ove=0.20, ...) -- not the class defaults (0.50, 0.40, 0.05, 0.05)."""
    assert CLEME2(level="corpus").factors == (0.45, 0.35, 0.15, 0.05)
    assert CLEME2().factors == (0.35, 0.25, 0.20, 0.20)
    assert CLEME2(factor_hit=0.5, factor_wrong=0.4, factor_under=0.05, factor_over=0.05).factors == (0.5, 0.4, 0.05, 0.05)
    with pytest.raises(ConfigError, match="must be 1"):
        CLEME2(factor_hit=0.5)
    with pytest.raises(ConfigError, match="metric.factor_over must be a number >= 0"):
        CLEME2(factor_over=-0.1)


def test_sentence_reference_choice_by_hand():
    """Per sentence the highest (score, hit, -wrong, -under, -over) (official score_sentence):
    R2 (0.8667) over R1 (0.55); the system's score is that sentence's."""
    metric, stats = _stats("dependent")
    assert metric.best_reference(stats).tolist() == [[1]]
    assert math.isclose(metric.corpus_scores(stats)[0], 0.35 + 0.25 + 0.2 + 0.2 / 3)
    comp = metric.corpus_components(stats)
    assert math.isclose(comp["over"][0], 2 / 3) and comp["fp_un"][0] == 2 and comp["tn"][0] == 4
    # a score tie is broken by hit: (score, hit) = (0.5, 0.2) beats (0.5, 0.1); a full tie: the first
    assert lexicographic_best([np.array([0.5, 0.5, 0.4]), np.array([0.1, 0.2, 0.9])]) == 1
    assert lexicographic_best([np.array([[1.0, 1.0]]), np.array([[2.0, 2.0]])]).tolist() == [0]


def test_corpus_reference_choice_by_hand():
    """Official score_corpus: the reference maximising the score of the running totals plus its
    counts, ties broken by its own TP, -FP, -FN, TN.  Two sentences, corpus factors
    (0.45, 0.35, 0.15, 0.05); counts (TP, FPne, FPun, FN, TN).

    Sentence 1: a = (3, 0, 0, 1, 0): NE 4, hit .75, under .25: 0.3375 + 0.35 + 0.1125 + 0.05 =
      0.85; b = (0, 0, 0, 0, 4): 0.35 + 0.15 + 0.05 = 0.55 -> a; totals (3, 0, 0, 1, 0).
    Sentence 2: c = (0, 1, 0, 1, 0) alone: NE 2, wrong .5, under .5: 0.175 + 0.075 + 0.05 = 0.30;
      d = (0, 1, 0, 0, 0) alone: wrong 1: 0.15 + 0.05 = 0.20 -- the sentence rule takes c.
      With the totals: c -> (3, 1, 0, 2): NE 6, hit .5, wrong 1/6, under 1/3: 0.225 + 0.35*5/6
      + 0.15*2/3 + 0.05 = 0.6667; d -> (3, 1, 0, 1): NE 5, hit .6, wrong .2, under .2: 0.27 +
      0.28 + 0.12 + 0.05 = 0.72 -- the corpus rule takes d, and the corpus score is 0.72."""
    metric = CLEME2(level="corpus")
    stats = np.array([[[[3, 0, 0, 1, 0], [0, 0, 0, 0, 4]], [[0, 1, 0, 1, 0], [0, 1, 0, 0, 0]]]], float)
    assert metric.corpus_best_reference(stats).tolist() == [[0, 1]]
    assert metric.best_reference(stats).tolist() == [[0, 0]]
    assert math.isclose(metric.corpus_scores(stats)[0], 0.72)
    comp = metric.corpus_components(stats)
    assert [comp[k][0] for k in ("tp", "fp_ne", "fp_un", "fn", "tn")] == [3, 1, 0, 1, 0]
    assert np.allclose([comp[k][0] for k in ("hit", "wrong", "under", "over")], [0.6, 0.2, 0.2, 0.0])
    # equal running scores: the reference with more TP, then fewer FP, fewer FN, more TN
    tie = np.array([[[[0, 0, 0, 0, 1], [0, 0, 0, 0, 3]]]], float)
    assert metric.corpus_best_reference(tie).tolist() == [[1]]


def test_identity_cache_and_signature():
    base = CLEME2()
    assert base.name == "cleme2" and base.stat_names == ("tp", "fp_ne", "fp_un", "fn", "tn")
    # level and factors only enter stage 2: one cached statistics for all of them
    assert base.cache_key() == CLEME2(level="corpus").cache_key() == \
        CLEME2(factor_hit=0.5, factor_wrong=0.4, factor_under=0.05, factor_over=0.05).cache_key()
    assert base.cache_key() != CLEME2(mode="independent").cache_key()
    sig = base.signature()
    assert "factor_hit=0.35" in sig and "level=sentence" in sig and "weigher=none" in sig
    assert "beta" not in sig and "scorer" not in sig and "reference_edits" not in sig
    assert "factor_hit=0.45" in CLEME2(level="corpus").signature()
    with pytest.raises(ConfigError, match="metric.mode"):
        CLEME2(mode="both")
    with pytest.raises(ConfigError, match="metric.weigher"):
        CLEME2(weigher="length")
    with pytest.raises(ConfigError, match="weigher=similarity needs a model scorer"):
        CLEME2(weigher="similarity")
    from gec_meta.metrics.edit.pt import SelfScorer

    with pytest.raises(ConfigError, match="weigher=similarity needs a model scorer"):
        CLEME2(weigher="similarity", scorer=SelfScorer())
    assert CLEME2(scorer=SelfScorer()).scorer is None  # unused without similarity: not held


def test_configs_and_registry():
    from gec_meta.api import load_metric

    for mode in ("dependent", "independent"):
        sent, corp = load_metric(f"cleme2_{mode}"), load_metric(f"cleme2_{mode}_corpus")
        assert (sent.mode, sent.level, sent.factors) == (mode, "sentence", MAIN_PY_FACTORS["sentence"])
        assert (corp.mode, corp.level, corp.factors) == (mode, "corpus", MAIN_PY_FACTORS["corpus"])
        assert sent.weigher == "none" and sent.scorer is None
    m = load_metric("cleme2_dependent", factor_hit=0.45, factor_wrong=0.35, factor_under=0.15, factor_over=0.05)
    assert m.factors == MAIN_PY_FACTORS["corpus"] and m.level == "sentence"
    with pytest.raises(ConfigError, match="tp_alpha"):
        load_metric("cleme2_dependent", tp_alpha=3)


# ----------------------------------------------------------------------------- similarity weights
def test_applied_alone_by_hand():
    chunks = partition(SOURCE, [(str(HYP), [(0, 1, 0, 1), (2, 3, 2, 3), (4, 4, 4, 5)])])[0]
    assert applied_alone(SOURCE.split(), chunks, 4) == "the dog sit on the mat ."
    assert applied_alone(SOURCE.split(), chunks, 2) == "the dog sat on mat ."
    assert applied_alone(SOURCE.split(), chunks, 0) == "a dog sit on mat ."


@pytest.fixture(scope="module")
def tiny_scorer(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from gec_meta.encoders import Encoder
    from gec_meta.encoders.testing import tiny_bert
    from gec_meta.metrics.neural.bertscore import BERTScoreScorer

    return BERTScoreScorer(Encoder(str(tiny_bert(tmp_path_factory.mktemp("tiny-bert"))), cache=False))


def test_similarity_weights_by_hand(tiny_scorer):
    """The official SimilarityWeigher.get_weights_batch: w = |F(S, R_k) - F(S_chunk, R_k)| with F
    = BERTScore F1; S_chunk = the source with only that chunk applied (the hypothesis' chunk for
    TP/FP, the reference's for FN); TN weighs 1.  The pseudo-hypotheses are written out here."""
    F = lambda cand, ref: float(tiny_scorer.score([cand], [ref])[0])  # noqa: E731
    r1, r2 = "the dog sits on the mat !", "a dog sit on mat ."
    w = lambda cand, ref: abs(F(SOURCE, ref) - F(cand, ref))  # noqa: E731
    ins_the, sat, a, bang = "the dog sit on the mat .", "the dog sat on mat .", "a dog sit on mat .", "the dog sit on mat !"
    metric, stats = _stats("dependent", weigher="similarity", scorer=tiny_scorer)
    expected_r1 = [w(ins_the, r1), w(sat, r1), w(a, r1), w(bang, r1), 3]  # TP 4, FPne 2, FPun 0, FN 6 (R1's "!")
    expected_r2 = [w(a, r2), 0.0, w(sat, r2) + w(ins_the, r2), 0.0, 4]  # TP 0, FPun 2 and 4
    np.testing.assert_allclose(stats[0, 0], [expected_r1, expected_r2], rtol=0, atol=1e-12)
    assert min(expected_r1[:4] + expected_r2[:1]) > 0  # every weight is a real difference here
    _, ind = _stats("independent", weigher="similarity", scorer=tiny_scorer)
    # independent: the same classes for both references (TP 0 and 4, FPne 2), weighed against each
    np.testing.assert_allclose(ind[0, 0], [[w(a, r1) + w(ins_the, r1), w(sat, r1), 0, 0, 4],
                                           [w(a, r2) + w(ins_the, r2), w(sat, r2), 0, 0, 4]], rtol=0, atol=1e-12)
    assert "scorer=bertscore(F" in metric.signature() and metric.tie_tolerance > 0
    assert metric.cache_key() != CLEME2(mode="dependent", reference_edits="gold").cache_key()
