"""Scribendi with a tiny random GPT-2 built here (no download)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from gec_meta.encoders.loading import ModelLoadError
from gec_meta.metrics.neural.scribendi import Scribendi, levenshtein_distance_ratio, token_sort_ratio
from gec_meta.models.causal_lm import CausalLM
from gec_meta.models.loading import resolve

SRCS = ["this sentences contain gramamtical error .", "this is a sentence .", "this is no change ."]
HYPS = ["this sentence contains a grammatical error .",
        "the sentence was corrected into completely different one .", "this is no change ."]


@pytest.fixture(scope="module")
def tiny_lm():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    words = sorted({w for s in SRCS + HYPS for w in s.split()})
    vocab = {"<s>": 0, "[UNK]": 1, **{w: i + 2 for i, w in enumerate(words)}}
    raw = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    raw.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, bos_token="<s>", eos_token="<s>", unk_token="[UNK]")
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=64, n_embd=16, n_layer=2, n_head=2)).eval()
    return model, tok


def _lm(tiny_lm, batch_size=2):
    model, tok = tiny_lm
    return CausalLM("tiny-gpt2", batch_size=batch_size, model_obj=model, tokenizer_obj=tok)


def test_perplexity_equals_direct_computation(tiny_lm):
    model, tok = tiny_lm
    lm = _lm(tiny_lm)
    ppl = lm.perplexity(SRCS + HYPS)
    for text, p in zip(SRCS + HYPS, ppl):
        ids = torch.tensor([[tok.bos_token_id] + tok(text, add_special_tokens=False)["input_ids"]])
        with torch.no_grad():
            loss = model(input_ids=ids, labels=ids).loss  # mean CE of tokens 1..T given the prefix
        assert math.isclose(p, math.exp(float(loss)), rel_tol=1e-5)


def test_batching_changes_no_bit(tiny_lm):
    texts = SRCS + HYPS + ["this is a change .", "this is a sentence ."]
    alone = [_lm(tiny_lm, batch_size=1).mean_nll([t])[0] for t in texts]  # each text alone
    for bs in (1, 2, 8):
        assert _lm(tiny_lm, batch_size=bs).mean_nll(texts).tolist() == alone
        assert _lm(tiny_lm, batch_size=bs).mean_nll(texts[::-1]).tolist() == alone[::-1]


def test_batch_size_is_in_no_signature_or_cache_key(tiny_lm):
    a, b = Scribendi(model="tiny", batch_size=1, lm=_lm(tiny_lm)), Scribendi(model="tiny", batch_size=64, lm=_lm(tiny_lm))
    assert a.signature() == b.signature() and "batch_size" not in a.signature()
    assert a.cache_key() == b.cache_key()


def _levenshtein_sub2(s: str, t: str) -> float:
    d = np.zeros((len(s) + 1, len(t) + 1))
    d[:, 0], d[0, :] = np.arange(len(s) + 1), np.arange(len(t) + 1)
    for i in range(1, len(s) + 1):
        for j in range(1, len(t) + 1):
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + (0 if s[i - 1] == t[j - 1] else 2))
    return 1 - d[-1, -1] / (len(s) + len(t))


def test_surface_ratios():
    assert token_sort_ratio("b a", "a b") == 1.0
    assert token_sort_ratio("A b", "a B") == 1.0  # lower-cased (fuzzywuzzy's processing)
    for s, h in zip(SRCS, HYPS):
        assert math.isclose(levenshtein_distance_ratio(s, h), _levenshtein_sub2(s, h))


def test_scores_follow_the_rules(tiny_lm):
    lm = _lm(tiny_lm)
    metric = Scribendi(model="tiny-gpt2", lm=lm)
    stats = metric.statistics(SRCS, [HYPS, SRCS], [])
    assert stats.shape == (2, 3, 1, 4)
    nll = lm.mean_nll
    expected = []
    for s, h in zip(SRCS, HYPS):
        if s == h:
            expected.append(0)
            continue
        surface = max(token_sort_ratio(s, h), _levenshtein_sub2(s, h))
        better = nll([h])[0] < nll([s])[0]
        expected.append(1 if (better and surface >= 0.8) else -1)
    np.testing.assert_array_equal(metric.sentence_scores(stats)[0], expected)
    np.testing.assert_array_equal(metric.sentence_scores(stats)[1], [0, 0, 0])  # INPUT
    assert metric.corpus_scores(stats)[0] == sum(expected)  # corpus score = sum
    # threshold 1.01: every changed sentence fails the surface test (gec-metrics' 2nd case)
    strict = Scribendi(model="tiny-gpt2", threshold=1.0, lm=lm)
    assert list(strict.sentence_scores(stats)[0]) == [-1, -1, 0]
    assert metric.cache_key() == strict.cache_key()  # threshold is stage 2 only


def test_missing_model_names_the_config_key(tmp_path):
    with pytest.raises(ModelLoadError, match="metric.model"):
        resolve(str(tmp_path / "missing.gguf"), "metric.model")
    with pytest.raises(ModelLoadError, match="metric.model"):
        resolve("pkg://no_such_package_xyz/model.gguf", "metric.model")
