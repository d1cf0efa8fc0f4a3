"""The local chat backend: a transformers causal LM (on ``device``) through its chat template, with
JSON-schema-constrained output (see :mod:`gec_meta.llm.backends` for the cache and decoding)."""

from __future__ import annotations

import json

from gec_meta.devices import resolve_device, to_device
from gec_meta.llm.backends import (Answer, ChatBackend, Decoding, LLMBackendError, Messages,
                                   integer_object_schema)


def _threads(threads: int | None) -> int | None:
    return int(threads) if threads else None


class TransformersChat(ChatBackend):
    """A local transformers causal LM used through its chat template.

    Args (besides :class:`ChatBackend`'s):
        model: hub id (local Hub cache), folder, ``.gguf`` file or ``pkg://...`` (GGUF files are
            dequantised to float32 by transformers, ``gguf_file=``).
        threads: ``torch.set_num_threads`` (None: torch's default; configs pass the run's ``threads``).
        device: ``auto`` (CUDA, then MPS, then CPU), ``cpu``, ``cuda``, ``cuda:N`` or ``mps``
            (:func:`gec_meta.devices.resolve_device`); :attr:`device` holds the resolved one. Not
            part of the cache identity: answers are shared across devices.
        structured: constrain answers to the caller's JSON schema (module docstring).
        reuse_prefix: structured output reuses the key/value cache of the tokens a prompt
            shares with the first prompt of the process (the chat header and the instructions,
            ~30% of a prompt) instead of recomputing them; equal up to floating-point rounding
            (``tests/test_llm_http.py`` checks the answers agree).
        model_obj, tokenizer_obj: already built objects (tests); ``model`` then only names them
            and nothing is cached on disk.
    """

    kind = "transformers"

    def __init__(self, model: str, temperature: float = 0.0, seed: int = 0, max_new_tokens: int = 128,
                 system_prompt: str | None = None, use_cache: bool = True, flush_every: int = 10,
                 threads: int | None = None, structured: bool = False, reuse_prefix: bool = True,
                 config_key: str = "llm", model_obj=None, tokenizer_obj=None, device: str = "auto"):
        super().__init__(model, temperature, seed, max_new_tokens, system_prompt,
                         use_cache and model_obj is None, flush_every, config_key, structured)
        from gec_meta.models.loading import model_ref

        self.threads = threads
        self.device = resolve_device(device, f"{config_key}.device")
        self.reuse_prefix = bool(reuse_prefix)
        self._prefix = None
        self._model = None if model_obj is None else to_device(model_obj, self.device)
        self._tokenizer = tokenizer_obj
        self.ref = model_ref(model, f"{config_key}.model", model_obj)

    def model_identity(self) -> str:
        from gec_meta.models.loading import package_version

        return (f"{self.ref.identity}|transformers:{package_version('transformers')}"
                f"|torch:{package_version('torch')}")

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            from transformers import AutoTokenizer

            from gec_meta.models.loading import load

            self._tokenizer = load(AutoTokenizer, self.ref, f"{self.config_key}.model", "tokenizer")
        if not getattr(self._tokenizer, "chat_template", None):
            raise LLMBackendError(f"{self.config_key}.model={self.model!r}: the tokenizer has no chat template "
                                  f"(an instruction-tuned chat model is needed)")
        return self._tokenizer

    @property
    def lm(self):
        if self._model is None:
            import torch
            from transformers import AutoModelForCausalLM

            from gec_meta.models.loading import load

            n = _threads(self.threads)
            if n:
                torch.set_num_threads(n)
            self._model = load(AutoModelForCausalLM, self.ref, f"{self.config_key}.model", "model",
                               dtype=torch.float32)
            self._model.eval().to(self.device)
        return self._model

    def _encode(self, messages: Messages):
        enc = self.tokenizer.apply_chat_template(list(messages), add_generation_prompt=True, return_dict=True,
                                                 return_tensors="pt")
        return {"input_ids": enc["input_ids"].to(self.device), "attention_mask": enc["attention_mask"].to(self.device)}

    def count_tokens(self, messages: Messages) -> tuple[int, bool]:
        return int(self._encode(messages)["input_ids"].shape[1]), True

    def generate(self, messages: Messages, decoding: Decoding, schema: dict | None = None) -> str | Answer:
        if schema is not None:
            return self._generate_structured(messages, decoding, schema)
        import torch
        from transformers import GenerationConfig

        tok, model = self.tokenizer, self.lm
        enc = self._encode(messages)
        eos = model.generation_config.eos_token_id if model.generation_config.eos_token_id is not None \
            else tok.eos_token_id
        pad = tok.pad_token_id if tok.pad_token_id is not None else (eos[0] if isinstance(eos, list) else eos)
        options = {"max_new_tokens": decoding.max_new_tokens, "eos_token_id": eos, "pad_token_id": pad}
        if decoding.temperature > 0:
            options.update(do_sample=True, temperature=decoding.temperature, top_p=1.0, top_k=0)
            torch.manual_seed(decoding.seed)
        else:
            options.update(do_sample=False)
        with torch.no_grad():
            out = model.generate(**enc, generation_config=GenerationConfig(**options))
        return tok.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)


    def _store_prefix(self, ids: list[int], past) -> None:
        """Keep the key/value cache of this prompt's tokens (the first prompt of the process)."""
        import copy

        cache = copy.deepcopy(past)
        _crop(cache, len(ids))
        self._prefix = (ids, cache)

    def _reuse_prefix(self, ids: list[int]):
        """(cache, n): the stored key/value cache cut to the first n tokens ``ids`` shares with
        the stored prompt (the instructions every prompt of a template starts with), or
        (None, 0) when they share fewer than 32 tokens."""
        import copy

        if not self.reuse_prefix or self._prefix is None:
            return None, 0
        stored, cache = self._prefix
        n = 0
        limit = min(len(stored), len(ids) - 1)  # at least one token left to run
        while n < limit and stored[n] == ids[n]:
            n += 1
        if n < 32:
            return None, 0
        reused = copy.deepcopy(cache)
        _crop(reused, n)
        return reused, n

    def _value_tokens(self, low: int, high: int) -> list[tuple[int, int]]:
        """(value, token id) of every single-token spelling of the values ``low``..``high``
        (``4`` and `` 4``: BPE vocabularies usually fold the space into the digit)."""
        out = []
        for value in range(low, high + 1):
            for spelling in (f" {value}", f"{value}"):
                ids = self.tokenizer(spelling, add_special_tokens=False)["input_ids"]
                if len(ids) == 1 and (value, ids[0]) not in out:
                    out.append((value, ids[0]))
        if not {v for v, _ in out} >= set(range(low, high + 1)):
            raise LLMBackendError(f"{self.config_key}.model={self.model!r}: some of the values {low}-{high} are "
                                  f"not single tokens; structured output needs them to be")
        return out

    def _generate_structured(self, messages: Messages, decoding: Decoding, schema: dict) -> Answer:
        """The JSON object of ``schema`` (integer properties only), each value chosen by the model,
        with the model's probability of every allowed value at each choice."""
        import torch

        keys, low, high = integer_object_schema(schema)
        tok, model = self.tokenizer, self.lm
        candidates = self._value_tokens(low, high)
        cand_ids = torch.tensor([t for _, t in candidates])
        spellings = [torch.tensor([j for j, (v, _) in enumerate(candidates) if v == value])
                     for value in range(low, high + 1)]
        generator = torch.Generator().manual_seed(decoding.seed) if decoding.temperature > 0 else None
        prompt_ids = self._encode(messages)["input_ids"][0].tolist()
        values, probabilities = [], {}
        with torch.no_grad():
            past, done = self._reuse_prefix(prompt_ids)
            pending = prompt_ids[done:]
            for i, key in enumerate(keys):
                pending += tok(("{" if i == 0 else ", ") + json.dumps(key) + ":", add_special_tokens=False)["input_ids"]
                out = model(input_ids=torch.tensor([pending], device=self.device), past_key_values=past,
                            use_cache=True)
                past = out.past_key_values
                if self._prefix is None and self.reuse_prefix:
                    self._store_prefix(prompt_ids, past)
                logits = out.logits[0, -1].float().cpu()[cand_ids]  # the sampling generator is a CPU one
                # A value's logit: log-sum-exp over its spellings; P(value) renormalised over the
                # allowed values. Greedy takes the most probable value, sampling draws one at the
                # decoding temperature; the token is the value's most probable spelling.
                value_logits = torch.stack([torch.logsumexp(logits[member], 0) for member in spellings])
                probabilities[key] = [float(x) for x in torch.softmax(value_logits, -1)]
                if generator is None:
                    v = int(torch.argmax(value_logits))
                else:
                    v = int(torch.multinomial(torch.softmax(value_logits / decoding.temperature, -1), 1,
                                              generator=generator))
                token = int(cand_ids[spellings[v][int(torch.argmax(logits[spellings[v]]))]])
                values.append(low + v)
                pending = [token]
        text = "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in zip(keys, values)) + "}"
        return Answer(text, probabilities)


def _crop(cache, length: int) -> None:
    """Cut a transformers key/value cache to its first ``length`` tokens (a negative argument
    removes tokens in transformers 4 and 5 alike)."""
    extra = cache.get_seq_length() - length
    if extra > 0:
        cache.crop(-extra)
