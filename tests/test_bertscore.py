"""BERTScore / BARTScore against independent numpy / torch computations with tiny models."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from gec_meta.encoders import Encoder  # noqa: E402
from gec_meta.encoders.testing import tiny_bart, tiny_bert  # noqa: E402
from gec_meta.errors import ConfigError  # noqa: E402
from gec_meta.metrics.neural.bartscore import BARTScore, BARTScoreScorer  # noqa: E402
from gec_meta.metrics.neural.bertscore import BERTScore, BERTScoreScorer, idf_weights, load_baseline  # noqa: E402

PAIRS = [
    ("the cat sits on the mat .", "the cat sat on the mat ."),
    ("a dog", "the dogs were in the mat"),
    ("they play the important role in our life", "they play an important role in our life"),
]


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def reference_bertscore(folder, cand, ref, layer=2, idf=None):
    """Independent BERTScore: direct forward, numpy greedy matching, [CLS]/[SEP] weight 0 but
    kept as match targets (bert_score.utils.greedy_cos_idf)."""
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()

    def states(text):
        ids = tok(text)["input_ids"]
        with torch.no_grad():
            h = model(torch.tensor([ids]), output_hidden_states=True).hidden_states[layer][0].numpy()
        h = h.astype(np.float64) / np.linalg.norm(h, axis=1, keepdims=True)
        w = np.array([0.0 if t in (tok.cls_token_id, tok.sep_token_id) else (1.0 if idf is None else idf(t)) for t in ids])
        return h, w

    x, wx = states(cand)
    y, wy = states(ref)
    P = sum(wx[i] * max(float(x[i] @ y[j]) for j in range(len(y))) for i in range(len(x))) / wx.sum()
    R = sum(wy[j] * max(float(x[i] @ y[j]) for i in range(len(x))) for j in range(len(y))) / wy.sum()
    return P, R, 2 * P * R / (P + R)


def test_prf_matches_independent_greedy_matching(bert_dir):
    scorer = BERTScoreScorer(Encoder(str(bert_dir), cache=False))
    got = scorer.prf([c for c, _ in PAIRS], [r for _, r in PAIRS])
    for (c, r), row in zip(PAIRS, got):
        np.testing.assert_allclose(row, reference_bertscore(bert_dir, c, r), rtol=0, atol=1e-6)
    np.testing.assert_allclose(scorer.score([PAIRS[0][0]], [PAIRS[0][1]]), got[0, 2])


def test_idf_weights_by_hand():
    idf, unseen = idf_weights([[2, 7, 7, 3], [2, 8, 3]])  # M = 2 sentences
    assert idf[7] == pytest.approx(math.log(3 / 2)) and idf[2] == pytest.approx(math.log(3 / 3))
    assert unseen == pytest.approx(math.log(3))


def test_idf_scores_match_independent(bert_dir):
    scorer = BERTScoreScorer(Encoder(str(bert_dir), cache=False), idf=True)
    refs = [r for _, r in PAIRS]
    got = scorer.prf([c for c, _ in PAIRS], refs, idf_sentences=refs)
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(bert_dir)
    docs = [set(tok(r)["input_ids"]) for r in refs]
    idf = lambda t: math.log((len(refs) + 1) / (sum(t in d for d in docs) + 1))  # noqa: E731
    for (c, r), row in zip(PAIRS, got):
        np.testing.assert_allclose(row, reference_bertscore(bert_dir, c, r, idf=idf), rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="idf_sentences"):
        scorer.prf(["a"], ["a"])


def test_baseline_rescaling_values_and_csv(bert_dir, tmp_path):
    b = {"P": 0.35375935, "R": 0.3537393, "F": 0.35219112}  # bert-base-uncased L9 (bert_score)
    raw = BERTScoreScorer(Encoder(str(bert_dir), cache=False)).prf(["a dog"], ["the dog"])[0]
    res = BERTScoreScorer(Encoder(str(bert_dir), cache=False), baseline=b).prf(["a dog"], ["the dog"])[0]
    expected = [(raw[k] - v) / (1 - v) for k, v in enumerate(b.values())]
    np.testing.assert_allclose(res, expected, rtol=0, atol=1e-12)
    csv = tmp_path / "base.tsv"
    csv.write_text("LAYER,P,R,F\n1,0.1,0.2,0.3\n2,0.4,0.5,0.6\n", encoding="utf-8")
    np.testing.assert_array_equal(load_baseline(str(csv), 2), [0.4, 0.5, 0.6])
    with pytest.raises(ConfigError, match="LAYER 9"):
        load_baseline(str(csv), 9)


@pytest.mark.parametrize("empty_pair, both", [(None, 0), ("bert_score", 0), ("identical", 1)])
def test_empty_texts_are_defined(bert_dir, empty_pair, both):
    # bert_score 0.3.13: an empty side gives P = R = 0 and F = 0/0 -> 0, both empty included.
    kw = {} if empty_pair is None else {"empty_pair": empty_pair}
    scorer = BERTScoreScorer(Encoder(str(bert_dir), cache=False), **kw)
    got = scorer.prf(["", "", "a dog", "  "], ["", "a dog", "", ""])
    np.testing.assert_array_equal(got, [[both] * 3, [0, 0, 0], [0, 0, 0], [both] * 3])
    assert f"empty_pair={scorer.empty_pair}" in scorer.signature()
    with pytest.raises(ConfigError, match="scorer.empty_pair"):
        BERTScoreScorer(Encoder(str(bert_dir), cache=False), empty_pair="one")


def test_metric_best_reference_and_mean(bert_dir):
    scorer = BERTScoreScorer(Encoder(str(bert_dir), cache=False))
    metric = BERTScore(scorer=scorer)
    hyps = [["the cat sits on the mat .", "a dog"], ["the cat sat on the mat .", "the dogs"]]
    refs = [["the cat sat on the mat .", "a dog"], ["the mats", "the dogs"]]
    stats = metric.statistics(["x", "y"], hyps, refs)
    assert stats.shape == (2, 2, 2, 3)
    f = np.array([[[reference_bertscore(bert_dir, hyps[s][n], refs[r][n])[2] for r in range(2)]
                   for n in range(2)] for s in range(2)])
    np.testing.assert_allclose(metric.sentence_scores(stats), f.max(axis=2), atol=1e-6)
    np.testing.assert_allclose(metric.corpus_scores(stats), f.max(axis=2).mean(axis=1), atol=1e-6)
    assert stats[1, 0, 0, 2] == pytest.approx(1.0)  # identical texts


def test_cross_check_with_bert_score_package(bert_dir):
    bert_score = pytest.importorskip("bert_score")
    ours = BERTScoreScorer(Encoder(str(bert_dir), layer=2, cache=False)).prf(
        [c for c, _ in PAIRS], [r for _, r in PAIRS])
    P, R, F = bert_score.score([c for c, _ in PAIRS], [r for _, r in PAIRS], model_type=str(bert_dir),
                               num_layers=2, batch_size=2)
    np.testing.assert_allclose(ours, np.stack([P.numpy(), R.numpy(), F.numpy()], 1), atol=1e-5)


def test_bartscore_matches_direct_log_likelihood(tmp_path):
    folder = tiny_bart(tmp_path / "bart")
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSeq2SeqLM.from_pretrained(folder).eval()
    cands = ["the cat sits .", "", "a dog sat on the mat"]
    refs = ["the cat sit .", "a dog", "the cat sat"]
    scorer = BARTScoreScorer(str(folder), batch_size=2, cache=False)
    got = scorer.score(cands, refs)
    for c, r, g in zip(cands, refs, got):
        labels = torch.tensor([tok(c)["input_ids"]])
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([tok(r)["input_ids"]]), labels=labels).logits[0]
        logp = torch.log_softmax(logits.double(), -1)
        expected = float(np.mean([logp[t, labels[0, t]].item() for t in range(labels.shape[1])]))
        assert g == pytest.approx(expected, abs=1e-5)
    metric = BARTScore(scorer=scorer)
    stats = metric.statistics(["s"], [[cands[0]]], [[refs[0]], [cands[0]]])
    assert stats.shape == (1, 1, 2, 1) and stats[0, 0, 0, 0] == pytest.approx(got[0])
