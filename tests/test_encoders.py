"""Encoder: layer choice, special-token mask, pooling, cache and batching invariance, errors.

A tiny random BERT is built in a temp folder (no downloads); expected values come from a
direct ``transformers`` forward pass of one text at a time, not from the Encoder."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from gec_meta.encoders import Encoder, ModelLoadError  # noqa: E402
from gec_meta.encoders.batching import length_batches, unique  # noqa: E402
from gec_meta.encoders.testing import tiny_bert  # noqa: E402
from gec_meta.errors import ConfigError  # noqa: E402

TEXTS = [
    "The cat sits on the mat .",
    "a dog",
    "",
    "They play the important role in our life which can not be substituted .",
    "the cat sits on the mat .",  # same tokens as TEXTS[0] under the uncased tokenizer
    "dogs were playing !",
]


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def direct_states(folder, text: str, layer: int) -> tuple[list[int], np.ndarray]:
    """Hidden states of one text straight from transformers (the independent reference)."""
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    ids = tok(text)["input_ids"]
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_hidden_states=True)
    return ids, out.hidden_states[layer][0].numpy()


def test_length_batches_and_unique():
    batches = length_batches([3, 1, 5, 2, 5, 3, 3], 2)
    # one length per batch, longest first, input order within a length, at most 2 per batch
    assert [b.tolist() for b in batches] == [[2, 4], [0, 5], [6], [3], [1]]
    assert [b.tolist() for b in length_batches([(2, 1), (1, 2), (2, 1)], 8)] == [[0, 2], [1]]
    distinct, inv = unique(["b", "a", "b"])
    assert distinct == ["b", "a"] and inv.tolist() == [0, 1, 0]


@pytest.mark.parametrize("layer", [1, 2])
def test_token_embeddings_match_direct_forward(bert_dir, layer):
    enc = Encoder(str(bert_dir), layer=layer, cache=False)
    got = enc.token_embeddings(TEXTS[:2])
    for text, emb in zip(TEXTS[:2], got):
        ids, states = direct_states(bert_dir, text, layer)
        assert emb.ids.tolist() == ids
        assert emb.vectors.dtype == np.float32 and emb.vectors.shape == (len(ids), 32)
        np.testing.assert_allclose(emb.vectors, states, rtol=1e-5, atol=1e-5)
        assert emb.special.tolist() == [True] + [False] * (len(ids) - 2) + [True]


def test_layer_default_is_last_and_range_checked(bert_dir):
    assert Encoder(str(bert_dir)).layer == 2
    assert Encoder(str(bert_dir), layer=-1).layer == 2
    with pytest.raises(ConfigError, match="encoder.layer"):
        _ = Encoder(str(bert_dir), layer=3).layer
    with pytest.raises(ConfigError, match="encoder.pooling"):
        Encoder(str(bert_dir), pooling="max")


def test_batched_equals_one_by_one_and_order_restored(bert_dir):
    batched = Encoder(str(bert_dir), batch_size=4, cache=False).token_embeddings(TEXTS)
    single = Encoder(str(bert_dir), batch_size=1, cache=False)
    for text, b in zip(TEXTS, batched):
        (s,) = single.token_embeddings([text])
        assert b.ids.tolist() == s.ids.tolist()
        np.testing.assert_allclose(b.vectors, s.vectors, rtol=0, atol=2e-6)
    perm = [3, 0, 5, 2, 4, 1]
    shuffled = Encoder(str(bert_dir), batch_size=4, cache=False).token_embeddings([TEXTS[i] for i in perm])
    for j, i in enumerate(perm):
        assert shuffled[j].ids.tolist() == batched[i].ids.tolist()


def test_identical_tokenisation_shares_one_embedding(bert_dir):
    enc = Encoder(str(bert_dir), cache=False)
    out = enc.token_embeddings(TEXTS)
    assert out[0].vectors is out[4].vectors  # "The ..." and "the ..." tokenise identically
    assert enc.stats["requested"] == 6 and enc.stats["distinct"] == 5 and enc.stats["computed"] == 5


def test_cache_hit_equals_miss_bitwise(bert_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path))
    miss_enc = Encoder(str(bert_dir), batch_size=2)
    miss = miss_enc.token_embeddings(TEXTS)
    assert miss_enc.stats["computed"] == 5
    hit_enc = Encoder(str(bert_dir), batch_size=3)  # fresh instance: reads the disk cache
    hit = hit_enc.token_embeddings(TEXTS)
    assert hit_enc.stats["computed"] == 0 and hit_enc._model is None  # no model load at all
    for a, b in zip(miss, hit):
        assert a.vectors.dtype == b.vectors.dtype == np.float32
        assert a.vectors.tobytes() == b.vectors.tobytes()


def test_sentence_embeddings_pooling(bert_dir):
    toks = Encoder(str(bert_dir), cache=False).token_embeddings(TEXTS[:2])
    mean = Encoder(str(bert_dir), pooling="mean", cache=False).sentence_embeddings(TEXTS[:2])
    cls = Encoder(str(bert_dir), pooling="cls", cache=False).sentence_embeddings(TEXTS[:2])
    assert mean.shape == (2, 32)
    for i, t in enumerate(toks):  # mean over all positions, [CLS]/[SEP] included
        np.testing.assert_allclose(mean[i], t.vectors.sum(axis=0) / len(t.ids), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(cls[i], t.vectors[0])


def test_signature_names_model_layer_and_versions(bert_dir):
    sig = Encoder(str(bert_dir), layer=1).signature()
    assert "layer=1" in sig and "transformers:" in sig and "torch:" in sig and bert_dir.name in sig
    assert Encoder(str(bert_dir), layer=1).signature() != Encoder(str(bert_dir), layer=2).signature()


def test_unloadable_model_raises_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    enc = Encoder("no-such-org/no-such-model-xyz")
    with pytest.raises(ModelLoadError, match="no-such-org/no-such-model-xyz") as err:
        enc.token_embeddings(["a"])
    assert "HF_HOME" in str(err.value) and "local folder" in str(err.value)
    with pytest.raises(ModelLoadError, match="not installed"):
        Encoder("pkg://no_such_package_xyz/model")


def test_hub_probe_follows_the_endpoint(monkeypatch):
    """Reachable endpoint -> online; a closed port -> offline without waiting for retries."""
    import socket

    from gec_meta.encoders import loading

    for var in ("HF_HUB_OFFLINE", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
        loading.hub_reachable.cache_clear()
        assert loading.hub_reachable() and not loading.hub_offline()
    finally:
        server.close()
    loading.hub_reachable.cache_clear()
    assert not loading.hub_reachable(timeout=1.0) and loading.hub_offline()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert loading.hub_offline()
    loading.hub_reachable.cache_clear()


def test_ids_and_special_mask_per_text():
    """One np.isin over all texts gives each text the arrays a per-text np.isin gives
    (empty sequences, no special ids, one text)."""
    from gec_meta.encoders.encoder import _ids_and_special

    rng = np.random.default_rng(3)
    seqs = [tuple(int(x) for x in rng.integers(0, 12, size=n)) for n in (5, 0, 1, 7, 0, 3)]
    for special in (frozenset({0, 3, 11}), frozenset()):
        for subset in (seqs, seqs[:1], []):
            ids, masks = _ids_and_special(subset, special)
            assert len(ids) == len(masks) == len(subset)
            for seq, a, m in zip(subset, ids, masks):
                assert a.dtype == np.int64 and a.tolist() == list(seq)
                assert m.dtype == bool and m.tolist() == [x in special for x in seq]


def test_tokenize_gives_the_tokenizers_ids_truncated(bert_dir):
    """Only the ids are asked of the tokenizer: the same ids as its plain call, truncation
    to max_length included."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(bert_dir)
    enc = Encoder(str(bert_dir), layer=1, cache=False, max_length=5)
    assert enc.tokenize(TEXTS) == [tuple(tok(t, truncation=True, max_length=5)["input_ids"]) for t in TEXTS]
