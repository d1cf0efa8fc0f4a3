"""PT-M2 / PT-ERRANT: hand-computable weights, scorer=self invariance, fallback, batching."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from gec_meta.data.m2 import GoldEdit  # noqa: E402
from gec_meta.encoders import Encoder  # noqa: E402
from gec_meta.encoders.testing import tiny_bert  # noqa: E402
from gec_meta.errors import ConfigError  # noqa: E402
from gec_meta.metrics.neural.bertscore import BERTScoreScorer  # noqa: E402
from gec_meta.edits.edit import apply_edits  # noqa: E402
from gec_meta.metrics.edit.errant import Errant  # noqa: E402
from gec_meta.metrics.edit.m2 import M2  # noqa: E402
from gec_meta.metrics.edit.pt import PTErrant, PTM2, SelfScorer, edit_weights  # noqa: E402

SENT = {"level": "sentence"}

SOURCES = ["the cat sit on the mat .", "they play the important role in our life ."]
# annotator 0: "sit" -> "sits"; "the" -> "an"
GOLD = [[
    (GoldEdit(2, 3, "SVA", ("sits",), 0),),
    (GoldEdit(2, 3, "ArtOrDet", ("an",), 0),),
]]
HYPS = [
    ["the cat sits on the mat .", "they play an important role in our life ."],  # both right
    ["the dog sit on the mat .", "they play the important role in our life ."],  # wrong / none
]


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def independent_f(folder, cand: str, ref: str) -> float:
    """BERTScore F from a direct forward pass and numpy greedy matching (last layer)."""
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()

    def states(text):
        ids = tok(text)["input_ids"]
        with torch.no_grad():
            h = model(torch.tensor([ids]), output_hidden_states=True).hidden_states[-1][0].numpy()
        h = h.astype(np.float64) / np.linalg.norm(h, axis=1, keepdims=True)
        return h, np.array([0.0 if t in (tok.cls_token_id, tok.sep_token_id) else 1.0 for t in ids])

    (x, wx), (y, wy) = states(cand), states(ref)
    sim = x @ y.T
    p = (sim.max(1) * wx).sum() / wx.sum()
    r = (sim.max(0) * wy).sum() / wy.sum()
    return 2 * p * r / (p + r)


def test_apply_edit_and_weights():
    assert apply_edits("a b c", [(1, 2, "x y")]) == "a x y c"
    assert apply_edits("a b c", [(1, 1, "x")]) == "a x b c"
    assert apply_edits("a b c", [(0, 2, "")]) == "c"
    np.testing.assert_array_equal(edit_weights([-0.5, 0.25, 0.0], "absolute"), [0.5, 0.25, 0.0])
    np.testing.assert_array_equal(edit_weights([-0.5, 0.25, 0.0], "inverse"), [2.0, 4.0, 0.0])


def test_one_edit_weight_equals_bertscore_difference(bert_dir):
    scorer = BERTScoreScorer(Encoder(str(bert_dir), cache=False))
    stats = PTM2(scorer=scorer).statistics(SOURCES, HYPS, GOLD)
    ref0 = "the cat sits on the mat ."
    w_gold = abs(independent_f(bert_dir, ref0, ref0) - independent_f(bert_dir, SOURCES[0], ref0))
    w_dog = abs(independent_f(bert_dir, "the dog sit on the mat .", ref0) - independent_f(bert_dir, SOURCES[0], ref0))
    assert w_gold > 1e-4 and w_dog > 1e-4
    np.testing.assert_allclose(stats[0, 0, 0], [w_gold, 0, 0], atol=1e-6)  # TP only
    np.testing.assert_allclose(stats[1, 0, 0], [0, w_dog, w_gold], atol=1e-6)  # FP dog, FN sits
    ref1 = "they play an important role in our life ."
    w_an = abs(independent_f(bert_dir, ref1, ref1) - independent_f(bert_dir, SOURCES[1], ref1))
    np.testing.assert_allclose(stats[1, 1, 0], [0, 0, w_an], atol=1e-6)


def test_inverse_weights(bert_dir):
    scorer = BERTScoreScorer(Encoder(str(bert_dir), cache=False))
    absolute = PTM2(scorer=scorer).statistics(SOURCES, HYPS, GOLD)
    inverse = PTM2(scorer=scorer, weights="inverse").statistics(SOURCES, HYPS, GOLD)
    np.testing.assert_allclose(inverse[0, 0, 0, 0], 1 / absolute[0, 0, 0, 0], rtol=1e-12)
    with pytest.raises(ConfigError, match="metric.weights"):
        PTM2(scorer=scorer, weights="squared")


def test_zero_weights_fallback_only_at_sentence_level(bert_dir):
    # "The" vs "the": identical tokens under the uncased tokenizer -> delta exactly 0.
    src = ["The cat sits on the mat ."]
    gold = [[(GoldEdit(0, 1, "ORTH", ("the",), 0),)]]
    hyps = [["the cat sits on the mat ."], ["The cat sits on the mat ."]]
    scorer = BERTScoreScorer(Encoder(str(bert_dir), cache=False))
    corpus = PTM2(scorer=scorer).statistics(src, hyps, gold)
    sent = PTM2(scorer=scorer, **SENT).statistics(src, hyps, gold)
    np.testing.assert_array_equal(corpus[:, 0, 0], [[0, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(sent[:, 0, 0], [[1, 0, 0], [0, 0, 1]])  # 1/|U| with |U| = 1
    np.testing.assert_array_equal(PTM2(scorer=scorer, **SENT).sentence_scores(sent)[:, 0],
                                  M2(**SENT).sentence_scores(M2(**SENT).statistics(src, hyps, gold))[:, 0])


@pytest.mark.parametrize("level", ["corpus", "sentence"])
def test_self_scorer_equals_m2(level):
    a = PTM2(scorer=SelfScorer(), level=level).statistics(SOURCES, HYPS, GOLD)
    b = M2(level=level).statistics(SOURCES, HYPS, GOLD)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(PTM2(scorer=SelfScorer(), level=level).corpus_scores(a), M2(level=level).corpus_scores(b))


@pytest.mark.parametrize("level", ["corpus", "sentence"])
def test_self_scorer_equals_errant(level):
    pytest.importorskip("errant")
    refs = [["the cat sits on the mat .", "they play an important role in our life ."],
            ["the cat sits on a mat .", "they play the important role in their life ."]]
    a = PTErrant(scorer=SelfScorer(), level=level).statistics(SOURCES, HYPS, refs)
    b = Errant(level=level).statistics(SOURCES, HYPS, refs)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(PTErrant(scorer=SelfScorer(), level=level).corpus_scores(a),
                                  Errant(level=level).corpus_scores(b))


def test_one_scorer_call_per_run_and_cache_key(bert_dir):
    enc = Encoder(str(bert_dir), cache=False)
    scorer = BERTScoreScorer(enc)
    calls = []
    original = scorer.score
    scorer.score = lambda *a, **k: calls.append(len(a[0])) or original(*a, **k)
    PTM2(scorer=scorer).statistics(SOURCES, HYPS, GOLD)
    assert len(calls) == 1
    # distinct texts: 2 sources + sits, an, dog variants + 2 references (= sits / an variants)
    assert enc.stats["distinct"] == 5 and enc.stats["computed"] == 5
    assert "bertscore(F" in PTM2(scorer=scorer).cache_key()
    assert PTM2(scorer=scorer).cache_key() != PTM2(scorer=SelfScorer()).cache_key()
    assert PTM2(scorer=scorer, beta=2.0).cache_key() == PTM2(scorer=scorer).cache_key()


def gec_metrics_corpus_f(per_sentence: list[list[tuple[float, float, float]]], beta: float = 0.5) -> float:
    """gec-metrics 0.1.1's ``ERRANT.score_corpus_verbose`` rewritten: per sentence the reference
    whose (running total + its counts) is best by [F, TP, -FP, -FN] (first on ties);
    P = 1 if FP == 0, R = 1 if FN == 0."""

    def key(tp, fp, fn):
        p = 1.0 if fp == 0 else tp / (tp + fp)
        r = 1.0 if fn == 0 else tp / (tp + fn)
        f = (1 + beta**2) * p * r / (beta**2 * p + r) if p + r else 0.0
        return [f, tp, -fp, -fn]

    total = (0.0, 0.0, 0.0)
    for refs in per_sentence:
        best = None
        for c in refs:
            cand = tuple(a + b for a, b in zip(total, c))
            if best is None or key(*best) < key(*cand):
                best = cand
        total = best
    return key(*total)[0]


def test_pt_errant_reproduces_gec_metrics(bert_dir):
    """gec-metrics 0.1.1 PT-ERRANT semantics, computed independently: per reference R, each edit
    e of (hyp edits + ref edits) weighs |F(S_e, R) - F(S, R)| (BERTScore F, no normalisation);
    bert_score gives F = 0 whenever a side is empty, (empty, empty) included, so against an
    empty reference (an annotator deleted the sentence) every weight is 0 and that reference
    counts (0, 0, 0) - not FN = 1 for the delete-everything edit."""
    pytest.importorskip("errant")
    src = ["the cat sit on the mat .", "they play the important role in our life ."]
    hyps = [["the cat sits on the mat .", "they play an important role in their life ."]]
    refs = [["the cat sits on the mat .", "they play an important role in our life ."],
            ["", "they play the important role in our life ."]]  # deleted / unchanged (= source)
    scorer = BERTScoreScorer(Encoder(str(bert_dir), cache=False))
    metric = PTErrant(scorer=scorer)
    stats = metric.statistics(src, hyps, refs)

    def w(n: int, edited: str, ref: str) -> float:
        return abs(independent_f(bert_dir, edited, ref) - independent_f(bert_dir, src[n], ref))

    an, their = "they play an important role in our life .", "they play the important role in their life ."
    expected = [
        [(w(0, refs[0][0], refs[0][0]), 0.0, 0.0), (0.0, 0.0, 0.0)],  # sits: TP | empty ref: all 0
        [(w(1, an, refs[0][1]), w(1, their, refs[0][1]), 0.0),  # an: TP, their: FP
         (0.0, w(1, an, src[1]) + w(1, their, src[1]), 0.0)],  # no ref edits: both FP
    ]
    assert min(expected[0][0][0], expected[1][0][1], expected[1][1][1]) > 1e-4
    np.testing.assert_allclose(stats[0], expected, rtol=0, atol=1e-6)
    assert metric.corpus_scores(stats)[0] == pytest.approx(gec_metrics_corpus_f(expected), abs=1e-6)
    # the other convention for (empty, empty) is still available, and gives the outlier weight 1
    other = PTErrant(scorer=BERTScoreScorer(scorer.encoder, empty_pair="identical")).statistics(src, hyps, refs)
    np.testing.assert_allclose(other[0, 0, 1], [0.0, 0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(other[0, 1], stats[0, 1], atol=1e-12)
