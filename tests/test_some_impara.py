"""SOME and IMPARA with tiny random BERTs built here (no download)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gec_meta.encoders.loading import ModelLoadError
from gec_meta.metrics.neural.impara import IMPARA
from gec_meta.metrics.neural.some import SOME
from gec_meta.models.regressors import MeanPooledSimilarity, SequenceRegressor

SRCS = ["this sentences contain gramamtical error .", "this is a sentence .", "this is no change ."]
HYPS = ["this sentence contains a grammatical error .",
        "the sentence was corrected into completely different one .", "this is no change ."]


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    from transformers import BertTokenizerFast

    words = sorted({w for s in SRCS + HYPS for w in s.split()})
    path = tmp_path_factory.mktemp("vocab") / "vocab.txt"
    path.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n")
    return BertTokenizerFast(vocab_file=str(path), do_lower_case=True)


def _bert(tokenizer, seed, head=True):
    from transformers import BertConfig, BertForSequenceClassification, BertModel

    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, num_labels=1)
    return (BertForSequenceClassification(cfg) if head else BertModel(cfg)).eval()


def _direct_logit(model, tokenizer, a, b=None):
    enc = tokenizer(a, b, return_tensors="pt")
    with torch.no_grad():
        return float(model(**enc).logits[0, 0])


def test_some_is_the_weighted_normalised_sum(tokenizer):
    models = [_bert(tokenizer, k) for k in range(3)]
    regs = tuple(SequenceRegressor(f"tiny-{k}", f"metric.model_{k}", batch_size=2, model_obj=m, tokenizer_obj=tokenizer)
                 for k, m in zip("gfm", models))
    metric = SOME(regressors=regs)
    stats = metric.statistics(SRCS, [HYPS, SRCS], [])
    assert stats.shape == (2, 3, 1, 3)
    for n, (s, h) in enumerate(zip(SRCS, HYPS)):
        g = (_direct_logit(models[0], tokenizer, h) - 1) / 3
        f = (_direct_logit(models[1], tokenizer, h) - 1) / 3
        m = (_direct_logit(models[2], tokenizer, s, h) - 1) / 3
        assert np.isclose(metric.sentence_scores(stats)[0, n], 0.55 * g + 0.43 * f + 0.02 * m, atol=1e-5)
    np.testing.assert_allclose(metric.corpus_scores(stats), metric.sentence_scores(stats).mean(axis=1))
    # weights are stage 2: (0, 1, 0) reads the fluency column alone
    fluency = SOME(weight_g=0, weight_f=1, weight_m=0, regressors=regs)
    np.testing.assert_allclose(fluency.sentence_scores(stats), stats[:, :, 0, 1])


def test_regressor_batching_changes_nothing(tokenizer):
    model = _bert(tokenizer, 5)
    a = SequenceRegressor("t", "k", batch_size=1, model_obj=model, tokenizer_obj=tokenizer).logits(HYPS, SRCS)
    b = SequenceRegressor("t", "k", batch_size=8, model_obj=model, tokenizer_obj=tokenizer).logits(HYPS, SRCS)
    alone = [SequenceRegressor("t", "k", model_obj=model, tokenizer_obj=tokenizer).logits([h], [s])[0]
             for h, s in zip(HYPS, SRCS)]
    assert a.tolist() == b.tolist() == alone  # unpadded equal-length batches: the same bits


def test_impara_threshold_rule(tokenizer):
    qe_model, se_model = _bert(tokenizer, 7), _bert(tokenizer, 8, head=False)
    qe = SequenceRegressor("tiny-qe", "metric.model_qe", model_obj=qe_model, tokenizer_obj=tokenizer)
    se = MeanPooledSimilarity("tiny-se", "metric.model_se", model_obj=se_model, tokenizer_obj=tokenizer)
    stats = IMPARA(models_=(qe, se)).statistics(SRCS, [HYPS], [])
    sig = [1 / (1 + np.exp(-_direct_logit(qe_model, tokenizer, h))) for h in HYPS]
    np.testing.assert_allclose(stats[0, :, 0, 0], sig, atol=1e-5)
    assert np.isclose(stats[0, 2, 0, 1], 1.0, atol=1e-5)  # identical source/hypothesis
    # gec-metrics' case threshold 1.01: every score is 0
    np.testing.assert_array_equal(IMPARA(threshold=1.01, models_=(qe, se)).sentence_scores(stats), [[0, 0, 0]])
    # threshold -1: the QE score itself
    np.testing.assert_allclose(IMPARA(threshold=-1.0, models_=(qe, se)).sentence_scores(stats)[0], sig, atol=1e-5)
    # threshold 0.9: QE where similarity >= 0.9
    expected = np.where(stats[0, :, 0, 1] >= 0.9, sig, 0)
    np.testing.assert_allclose(IMPARA(models_=(qe, se)).sentence_scores(stats)[0], expected, atol=1e-5)


def test_absent_weights_raise_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    with pytest.raises(ModelLoadError, match="metric.model_g"):
        SOME(model_g="gfm-models/grammer-not-here").statistics(SRCS, [HYPS], [])
