"""The local chat backend: a transformers causal LM (on ``device``) through its chat template, with
JSON-schema-constrained output (see :mod:`gec_meta.llm.backends` for the cache and decoding).

Order independence (issue 33): with ``batch_size: 1`` (the default) an answer is a function of
its prompt, the model and the decoding settings only -- the same bits whatever the process or
the cache answered before it.  Each prompt runs alone (no padding, no companions), and the
key/value cache of the instructions it shares with an earlier prompt is taken from that prompt
(``reuse_prefix``) only where both passes hold at least
:data:`gec_meta.encoders.batching.MIN_TOKENS` tokens: a row's values are then the same bits in
every pass (measured for the encoders, :mod:`gec_meta.encoders.batching`), so the reused part
equals what the prompt's own single pass computes.  On a GPU no such rule holds (a row's bits
depend on the pass's shape: :func:`gec_meta.kernels.pass_rows`), so there exact answers never
reuse a prefix: the instructions' values would be those of whichever prompt the process
answered first.  ``batch_size > 1`` runs prompts together,
left-padded -- more throughput on a GPU, but an answer's probabilities then depend on its
companions in the last float bits (a near-tie can flip), so such answers are cached under their
own identity, never mixed with the exact ones.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from gec_meta.encoders.batching import MIN_TOKENS
from gec_meta.fields import check_fields, integer, valid
from gec_meta.devices import resolve_device, to_device
from gec_meta.kernels import float_kernels, pass_rows
from gec_meta.edits.affixes import common_prefix_length
from gec_meta.llm.backends import (Answer, ChatBackend, Decoding, LLMBackendError, Made, Messages,
                                   integer_object_schema)


def _threads(threads: int | str | None) -> int | None:
    """torch's threads: ``threads`` capped at the cores this process may use; None (or ``auto``):
    torch's default."""
    from gec_meta.parallel import cap_threads

    return cap_threads(threads)


@dataclass(frozen=True)
class Batching:
    """Fields (a ConfigError naming ``llm.<field>`` when out of range):
        batch_size: prompts per forward pass (1 = one prompt at a time)."""

    batch_size: int = field(default=1, metadata=valid(integer(1)))

    def __post_init__(self):
        check_fields(self, "llm")


class TransformersChat(ChatBackend):
    """A local transformers causal LM used through its chat template.

    Args (besides :class:`ChatBackend`'s):
        model: hub id (local Hub cache), folder, ``.gguf`` file or ``pkg://...`` (GGUF files are
            dequantised to float32 by transformers, ``gguf_file=``).
        threads: ``torch.set_num_threads`` (None: torch's default; configs pass the run's ``threads``).
        device: ``auto`` (CUDA, then MPS, then CPU), ``cpu``, ``cuda``, ``cuda:N`` or ``mps``
            (:func:`gec_meta.devices.resolve_device`); :attr:`device` holds the resolved one.  Its
            float kernels (:func:`gec_meta.kernels.float_kernels`) are part of the cache identity.
        structured: constrain answers to the caller's JSON schema (module docstring).
        batch_size: prompts per forward pass.  1 (the default): every prompt alone, its answer a
            function of the prompt only (module docstring).  More: sorted by length and
            left-padded together; answers equal those of one prompt at a time up to
            floating-point rounding (``tests/test_llm_batched.py``) and are cached under their
            own identity (``|batch_size:N``, and ``+batch_size=N`` in the signature).
        reuse_prefix: structured output takes the key/value cache of the tokens a prompt shares
            with the first prompt (or batch) of the process (the chat header and the
            instructions, ~30% of a prompt) instead of recomputing them, where both passes hold
            at least ``MIN_TOKENS`` tokens (module docstring): the same bits either way
            (``tests/test_llm_batched.py``, ``tests/test_llm_http.py``).  Exact answers on a GPU
            never reuse it (module docstring).
        model_obj, tokenizer_obj: already built objects (tests); ``model`` then only names them
            and nothing is cached on disk.
    """

    kind = "transformers"
    answers_made_here = True

    def __init__(self, model: str, temperature: float = 0.0, seed: int = 0, max_new_tokens: int = 128,
                 system_prompt: str | None = None, use_cache: bool = True, flush_every: int = 0,
                 threads: int | None = None, structured: bool = False, reuse_prefix: bool = True,
                 config_key: str = "llm", model_obj=None, tokenizer_obj=None, device: str = "auto",
                 batch_size: int = 1, price_per_1k_input_tokens: float | None = None,
                 price_per_1k_output_tokens: float | None = None):
        super().__init__(model, temperature, seed, max_new_tokens, system_prompt,
                         use_cache and model_obj is None, flush_every, config_key, structured,
                         price_per_1k_input_tokens, price_per_1k_output_tokens)
        from gec_meta.models.loading import model_ref

        self.threads = threads
        self.device = resolve_device(device, f"{config_key}.device")
        self.batch_size = Batching(batch_size).batch_size
        self.reuse_prefix = bool(reuse_prefix)
        self._prefix = None
        self._model = None if model_obj is None else to_device(model_obj, self.device)
        self._tokenizer = tokenizer_obj
        self.ref = model_ref(model, f"{config_key}.model", model_obj)

    def model_identity(self) -> str:
        from gec_meta.models.loading import package_version

        # The batch size moves batched answers' last bits (module docstring), so it names the
        # cache namespace: exact answers (1) never mix with batched ones -- nor with the answers
        # cached before it was named, most of them made 8 prompts a batch (the old default).
        return (f"{self.ref.identity}|transformers:{package_version('transformers')}"
                f"|torch:{package_version('torch')}|batch_size:{self.batch_size}"
                f"|kernels:{float_kernels(self.device)}")  # other kernels, other last bits: other answers

    def signature(self) -> str:
        """:meth:`ChatBackend.signature`, plus ``+batch_size=N`` for batched (not exact) answers."""
        return super().signature() + (f"+batch_size={self.batch_size}" if self.batch_size > 1 else "")

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

    def _prompt_ids(self, messages: Messages) -> list[int]:
        return self._encode(messages)["input_ids"][0].tolist()

    def count_tokens(self, messages: Messages) -> tuple[int, bool]:
        return int(self._encode(messages)["input_ids"].shape[1]), True

    def scheduling(self) -> dict:
        return {"batch_size": self.batch_size, "device": self.device}

    def generate(self, messages: Messages, decoding: Decoding, schema: dict | None = None) -> str | Answer:
        made = next(iter(self.generate_many([(messages, decoding, schema)])))
        return made.answer if schema is not None else made.answer.text

    def generate_many(self, items: Sequence[tuple[Messages, Decoding, dict | None]]) -> Iterator[Made]:
        """Answers ``batch_size`` prompts per forward pass: the prompts sorted by length (least
        padding), left-padded.  Structured answers are batched at any temperature (each row
        samples from its own generator, seeded as alone); free generation is batched when
        greedy, and sampled one prompt at a time (``torch.manual_seed`` as alone)."""
        ids = [self._prompt_ids(messages) for messages, _, _ in items]
        structured = [i for i, (_, _, schema) in enumerate(items) if schema is not None]
        greedy = [i for i, (_, d, schema) in enumerate(items) if schema is None and d.temperature == 0]
        sampled = [i for i, (_, d, schema) in enumerate(items) if schema is None and d.temperature > 0]
        for group, run in ((structured, self._structured_batch),
                           (greedy, self._greedy_batch)):
            # Sorted by length (then by request) and cut into batches; free generation also by token limit.
            order = sorted(group, key=lambda i: (items[i][1].max_new_tokens if run is self._greedy_batch else 0,
                                                 len(ids[i]), i))
            batches, batch = [], []
            for i in order:
                if batch and (len(batch) == self.batch_size or (run is self._greedy_batch and
                              items[i][1].max_new_tokens != items[batch[0]][1].max_new_tokens)):
                    batches.append(batch)
                    batch = []
                batch.append(i)
            if batch:
                batches.append(batch)
            for batch in batches:
                t0 = time.perf_counter()
                answers = run([ids[i] for i in batch], [items[i] for i in batch])
                seconds = (time.perf_counter() - t0) / len(batch)
                for i, (answer, completion_tokens) in zip(batch, answers):
                    yield Made(i, answer, seconds, len(ids[i]), completion_tokens)
        for i in sampled:
            t0 = time.perf_counter()
            answer, completion_tokens = self._greedy_batch([ids[i]], [items[i]])[0]
            yield Made(i, answer, time.perf_counter() - t0, len(ids[i]), completion_tokens)

    def _greedy_batch(self, rows: list[list[int]], items) -> list[tuple[Answer, int]]:
        """Free generation of prompts with one decoding (greedy; one prompt when sampling),
        left-padded."""
        import torch
        from transformers import GenerationConfig

        tok, model = self.tokenizer, self.lm
        decoding = items[0][1]
        eos = model.generation_config.eos_token_id if model.generation_config.eos_token_id is not None \
            else tok.eos_token_id
        pad = tok.pad_token_id if tok.pad_token_id is not None else (eos[0] if isinstance(eos, list) else eos)
        width = max(map(len, rows))
        input_ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows], device=self.device)
        mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=self.device)
        options = {"max_new_tokens": decoding.max_new_tokens, "eos_token_id": eos, "pad_token_id": pad}
        if decoding.temperature > 0:
            options.update(do_sample=True, temperature=decoding.temperature, top_p=1.0, top_k=0)
            torch.manual_seed(decoding.seed)
        else:
            options.update(do_sample=False)
        with torch.no_grad():
            out = model.generate(input_ids=input_ids, attention_mask=mask, generation_config=GenerationConfig(**options))
        stops = set(eos if isinstance(eos, list) else [eos]) | {pad}
        answers = []
        for row in out[:, width:].tolist():
            n = next((k + 1 for k, t in enumerate(row) if t in stops), len(row))  # up to the first stop
            answers.append((Answer(tok.decode(row[:n], skip_special_tokens=True)), n))
        return answers

    def _store_prefix(self, ids: list[int], past, computed: int) -> None:
        """Keep the key/value cache of these tokens (the first prompt or batch of the process).
        Exact answers (``batch_size`` 1) keep it only on the CPU and only if the pass that made it
        held at least ``MIN_TOKENS`` tokens (``computed``; module docstring): a shorter pass's
        values may differ in the last bits from a longer one's, and on a GPU any other pass's may.
        Batched answers are not exact anyway and keep any."""
        import copy

        if self.batch_size == 1 and (computed < MIN_TOKENS or pass_rows(self.device, 1) is not None):
            return
        cache = copy.deepcopy(past)
        _crop(cache, len(ids))
        self._prefix = (ids, cache)

    def _reuse_prefix(self, rows: list[list[int]]):
        """(cache, n): the stored key/value cache cut to the first n tokens that every row of
        ``rows`` shares with the stored prompt (the instructions every prompt of a template
        starts with), or (None, 0) when they share fewer than 32 tokens or, for exact answers
        (``batch_size`` 1), a row would be left with fewer than ``MIN_TOKENS`` tokens to run
        (module docstring)."""
        import copy

        if not self.reuse_prefix or self._prefix is None:
            return None, 0
        stored, cache = self._prefix
        n = min(common_prefix_length(stored, r, len(r) - 1) for r in rows)  # at least one token left to run
        if n < 32 or (self.batch_size == 1 and min(len(r) for r in rows) - n < MIN_TOKENS):
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

    def _step(self, past, **inputs):
        """One forward pass continuing the key/value cache ``past`` (None: from the start).

        Asks for the logits of the last position only where the model takes ``logits_to_keep``
        (transformers >= 4.50; the only position read), and passes and reads the cache as
        ``cache`` where the model names it so (transformers 5 deprecates ``past_key_values``,
        to be removed in 5.40).

        Returns:
            (logits of shape (B, 1 or T, vocabulary), the continued key/value cache)."""
        if self.__dict__.get("_forward_names") is None:
            import inspect

            names = inspect.signature(self.lm.forward).parameters
            self._forward_names = ("cache" if "cache" in names else "past_key_values",
                                   {"logits_to_keep": 1} if "logits_to_keep" in names else {})
        cache_name, keep = self._forward_names
        out = self.lm(**inputs, **{cache_name: past}, use_cache=True, **keep)
        cache = out.get("cache")  # a ModelOutput's keys: no deprecated property is read
        return out.logits, out.get("past_key_values") if cache is None else cache

    def _structured_batch(self, rows: list[list[int]], items) -> list[tuple[Answer, int]]:
        """The JSON objects of the rows' schemas (integer properties only), each value chosen by
        the model, with the model's probability of every allowed value at each choice.

        All rows go through the model together: first the tokens they share (the chat header
        and the instructions: the stored prefix's key/value cache, or one pass over them that
        the first batch stores), then each row's remaining prompt tokens and first key,
        left-padded after the shared part; then, key by key, each row's chosen value and next
        key.  Positions are counted per row and padding is masked, so each row sees exactly
        its own tokens (equal to one row alone up to floating-point rounding).  Rows whose
        answer is complete run along, ignored.
        """
        import torch

        tok = self.tokenizer
        B = len(rows)
        specs = [integer_object_schema(schema) for _, _, schema in items]
        choices = {}
        for _, low, high in specs:
            if (low, high) not in choices:
                candidates = self._value_tokens(low, high)
                choices[(low, high)] = (torch.tensor([t for _, t in candidates]),
                                        [torch.tensor([j for j, (v, _) in enumerate(candidates) if v == value])
                                         for value in range(low, high + 1)])
        generators = [torch.Generator().manual_seed(d.seed) if d.temperature > 0 else None for _, d, _ in items]
        steps = max(len(keys) for keys, _, _ in specs)
        key_tokens = [[tok(("{" if j == 0 else ", ") + json.dumps(keys[min(j, len(keys) - 1)]) + ":",
                           add_special_tokens=False)["input_ids"] for j in range(steps)] for keys, _, _ in specs]
        pad = tok.pad_token_id if tok.pad_token_id is not None else 0
        values = [[] for _ in range(B)]
        probabilities = [{} for _ in range(B)]
        with torch.no_grad():
            past, done = self._reuse_prefix(rows)
            store = self.reuse_prefix and self._prefix is None
            if past is None and B > 1:
                done = min(common_prefix_length(rows[0], r, len(r) - 1) for r in rows)
                if done == 0:  # nothing shared: no unmasked token before the padding; one row at a time
                    return [self._structured_batch([r], [item])[0] for r, item in zip(rows, items)]
                _, past = self._step(None, input_ids=torch.tensor([rows[0][:done]], device=self.device))
                if store and done >= 32:
                    self._store_prefix(rows[0][:done], past, done)
                    store = False
            if past is not None and B > 1:  # a copy already (reused, or stored as a copy): widen it in place
                past.batch_repeat_interleave(B)
            pending = [r[done:] + key_tokens[b][0] for b, r in enumerate(rows)]
            mask = [[1] * done for _ in range(B)]
            position = [done] * B
            for j in range(steps):
                width = max(map(len, pending))
                input_ids, positions = [], []
                for b, p in enumerate(pending):
                    input_ids.append([pad] * (width - len(p)) + p)
                    mask[b] += [0] * (width - len(p)) + [1] * len(p)
                    positions.append([0] * (width - len(p)) + list(range(position[b], position[b] + len(p))))
                    position[b] += len(p)
                logits, past = self._step(past, input_ids=torch.tensor(input_ids, device=self.device),
                                          attention_mask=torch.tensor(mask, device=self.device),
                                          position_ids=torch.tensor(positions, device=self.device))
                if store and B == 1 and j == 0:  # nothing stored yet: this prompt's tokens, from its one pass
                    self._store_prefix(rows[0], past, width)
                    store = False
                last = logits[:, -1].float().cpu()  # the sampling generators are CPU ones
                pending = []
                for b, (keys, low, high) in enumerate(specs):
                    if j + 1 > len(keys):  # complete: runs along, ignored
                        pending.append([pad])
                        continue
                    cand_ids, spellings = choices[(low, high)]
                    logits = last[b][cand_ids]
                    # A value's logit: log-sum-exp over its spellings; P(value) renormalised over the
                    # allowed values. Greedy takes the most probable value, sampling draws one at the
                    # decoding temperature; the token is the value's most probable spelling.
                    value_logits = torch.stack([torch.logsumexp(logits[member], 0) for member in spellings])
                    probabilities[b][keys[j]] = [float(x) for x in torch.softmax(value_logits, -1)]
                    temperature = items[b][1].temperature
                    if generators[b] is None:
                        v = int(torch.argmax(value_logits))
                    else:
                        v = int(torch.multinomial(torch.softmax(value_logits / temperature, -1), 1,
                                                  generator=generators[b]))
                    token = int(cand_ids[spellings[v][int(torch.argmax(logits[spellings[v]]))]])
                    values[b].append(low + v)
                    pending.append([token] + (key_tokens[b][j + 1] if j + 1 < len(keys) else []))
        answers = []
        for b, (keys, _, _) in enumerate(specs):
            text = "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in zip(keys, values[b])) + "}"
            written = sum(len(key_tokens[b][j]) for j in range(len(keys))) + len(keys)  # keys + values
            answers.append((Answer(text, probabilities[b]), written))
        return answers


def _crop(cache, length: int) -> None:
    """Cut a transformers key/value cache to its first ``length`` tokens (a negative argument
    removes tokens in transformers 4 and 5 alike)."""
    extra = cache.get_seq_length() - length
    if extra > 0:
        cache.crop(-extra)
