"""Chat backends of the LLM evaluators, behind one disk cache of every prompt and response.

* :class:`TransformersChat` — a local causal LM with a chat template (a hub id in the local Hub
  cache, a folder, a ``.gguf`` file or ``pkg://<package>/<file>.gguf``, resolved by
  :mod:`gec_meta.models.loading`), generating on the CPU;
* :class:`OpenAICompatibleChat` — any server that speaks the OpenAI chat-completions protocol
  (``POST <base_url>/chat/completions``), through ``urllib`` (no client package needed); the API
  key is read from the environment variable the config names, never from the config itself.

Every answer is cached on disk (:class:`gec_meta.cache.KeyValueStore`) in the namespace of
the backend and model identity, under the hash of the exact messages and the decoding settings
(temperature, seed, token limit), so a rerun or a resumed run makes no model call for what it
has seen.  :attr:`ChatBackend.stats` counts model calls, cache hits and model time.

Decoding: greedy by default (``temperature: 0``); a positive temperature samples with the
given seed (``torch.manual_seed`` locally; the ``seed`` request field remotely, which servers
honour on a best-effort basis).

Structured output (``structured: true``): the answer is constrained to the JSON schema the
caller passes (:func:`gec_meta.llm.parsing.answer_schema`).  Remotely this is the
``response_format: {type: json_schema}`` request field (OpenAI structured outputs, vLLM guided
decoding).  Locally the schema leaves the model one free choice per target, its score, so
:meth:`TransformersChat.generate` writes the JSON text itself and lets the model pick each
score among the allowed values after its key (``{"target1_score":`` → the most probable of
``1``–``5``; sampled at the decoding temperature) — JSON-schema-constrained decoding as
outlines does it, which the gec-metrics reimplementation of these evaluators uses for local
models.  Without it a 135M model does not produce the format at all.  The paper (GPT-4, 2023)
used free generation, the default.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field, replace
from typing import Sequence

from gec_meta.cache import KeyValueStore, text_hash
from gec_meta.errors import ConfigError, GecMetaError

Messages = Sequence[dict]


class LLMBackendError(GecMetaError, RuntimeError):
    """The backend could not produce an answer (unreachable server, HTTP error, no chat template)."""


@dataclass(frozen=True)
class Decoding:
    """Decoding settings of one call (part of the cache key).

    Attributes:
        temperature: 0 = greedy decoding; > 0 = sampling at this temperature (top-p 1, no top-k).
        seed: the sampling seed (ignored by greedy decoding, but still part of the key).
        max_new_tokens: the answer's token limit.
    """

    temperature: float = 0.0
    seed: int = 0
    max_new_tokens: int = 128

    def __post_init__(self):
        if self.temperature < 0:
            raise ConfigError(f"llm.temperature must be >= 0 (0 = greedy), got {self.temperature}")
        if self.max_new_tokens < 1:
            raise ConfigError(f"llm.max_new_tokens must be >= 1, got {self.max_new_tokens}")

    def describe(self) -> str:
        return "greedy" if self.temperature == 0 else f"t={self.temperature:g},seed={self.seed}"


@dataclass(frozen=True)
class Answer:
    """One answer.

    Attributes:
        text: the assistant's message.
        probabilities: structured local output only: for every schema key, the model's
            probability of each allowed value (low..high), renormalised over those values, at
            the point where it chose the value (None otherwise).
    """

    text: str
    probabilities: dict | None = None


@dataclass
class CallStats:
    """What a backend did in this process.

    Attributes:
        calls: model calls (cache misses).
        cache_hits: answers served from the cache.
        seconds: wall time of the model calls.
        call_seconds: wall time of each model call, in order.
        cached_seconds: the recorded model time of the answers served from the cache (what
            they cost when they were made).
    """

    calls: int = 0
    cache_hits: int = 0
    seconds: float = 0.0
    call_seconds: list = field(default_factory=list)
    cached_seconds: float = 0.0

    def reset(self) -> None:
        self.calls = self.cache_hits = 0
        self.seconds = self.cached_seconds = 0.0
        self.call_seconds = []


class ChatBackend:
    """Base class: message building, the response cache and call accounting.

    Args:
        model: the model name (what the subclass understands).
        temperature, seed, max_new_tokens: the default :class:`Decoding`.
        system_prompt: a system message before the prompt; None = none (the model's chat
            template may add its own default, as SmolLM2's does).
        use_cache: keep answers on disk (``$GEC_META_CACHE``); False = in memory only.
        flush_every: write the new answers to disk every this many model calls (a killed run
            loses at most that many).
        config_key: the config prefix named in errors.
    """

    kind = "chat"

    def __init__(self, model: str, temperature: float = 0.0, seed: int = 0, max_new_tokens: int = 128,
                 system_prompt: str | None = None, use_cache: bool = True, flush_every: int = 10,
                 config_key: str = "llm", structured: bool = False):
        if not model:
            raise ConfigError(f"{config_key}.model is empty")
        self.model = model
        self.decoding = Decoding(float(temperature), int(seed), int(max_new_tokens))
        self.structured = bool(structured)
        self.system_prompt = system_prompt
        self.use_cache = use_cache
        self.flush_every = max(1, int(flush_every))
        self.config_key = config_key
        self.stats = CallStats()
        self._store: KeyValueStore | None = None
        self._unflushed = 0

    # ----------------------------------------------------------------- subclass API
    def model_identity(self) -> str:
        """Identity of the model behind the backend (enters the cache namespace)."""
        raise NotImplementedError

    def generate(self, messages: Messages, decoding: Decoding, schema: dict | None = None) -> str | Answer:
        """One uncached model call: the assistant's answer to ``messages`` (constrained to
        ``schema`` when given; only passed when :attr:`structured` is on), as text or as an
        :class:`Answer` with the value probabilities."""
        raise NotImplementedError

    def count_tokens(self, messages: Messages) -> tuple[int, bool]:
        """Prompt tokens of ``messages`` and whether the count is exact (default: ~4 chars/token)."""
        return sum(len(m["content"]) for m in messages) // 4 + 4 * len(messages), False

    # ----------------------------------------------------------------- shared
    @property
    def identity(self) -> str:
        return f"llm-chat|{self.kind}|{self.model_identity()}"

    def signature(self) -> str:
        """Short description for result signatures: ``kind:model`` (``+structured``)."""
        return f"{self.kind}:{self.model}" + ("+structured" if self.structured else "")

    @property
    def store(self) -> KeyValueStore:
        if self._store is None:
            self._store = KeyValueStore(self.identity, use_default_root=self.use_cache)
        return self._store

    def messages(self, prompt: str) -> list[dict]:
        """The chat messages of one prompt."""
        out = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return out + [{"role": "user", "content": prompt}]

    def cache_key(self, messages: Messages, decoding: Decoding, schema: dict | None = None) -> str:
        """Hash of the exact messages, the decoding settings and (structured output) the schema."""
        parts = [json.dumps(list(messages), ensure_ascii=False, sort_keys=True),
                 json.dumps(asdict(decoding), sort_keys=True)]
        if self.structured:
            parts.append("structured:" + json.dumps(schema, sort_keys=True))
        return text_hash(*parts)

    def is_cached(self, prompt: str, decoding: Decoding | None = None, schema: dict | None = None) -> bool:
        return self.cache_key(self.messages(prompt), decoding or self.decoding, schema) in self.store

    def complete(self, prompt: str, decoding: Decoding | None = None, schema: dict | None = None) -> str:
        """The text of :meth:`answer`."""
        return self.answer(prompt, decoding, schema).text

    def answer(self, prompt: str, decoding: Decoding | None = None, schema: dict | None = None) -> Answer:
        """The answer to ``prompt`` (from the cache, or one model call that is then cached).

        Args:
            schema: the JSON schema the answer must satisfy; it constrains the answer only when
                :attr:`structured` is on (otherwise the prompt alone asks for the format).
        """
        decoding = decoding or self.decoding
        messages = self.messages(prompt)
        schema = schema if self.structured else None
        key = self.cache_key(messages, decoding, schema)
        hit = self.store.get(key)
        if hit is not None:
            self.stats.cache_hits += 1
            self.stats.cached_seconds += float(hit.get("seconds", 0.0))
            return Answer(hit["text"], hit.get("probabilities"))
        t0 = time.perf_counter()
        out = self.generate(messages, decoding, schema) if schema is not None else self.generate(messages, decoding)
        answer = out if isinstance(out, Answer) else Answer(out)
        dt = time.perf_counter() - t0
        self.stats.calls += 1
        self.stats.seconds += dt
        self.stats.call_seconds.append(dt)
        self.store.put(key, {"text": answer.text, "probabilities": answer.probabilities, "seconds": dt,
                             "decoding": asdict(decoding)})
        self._unflushed += 1
        if self._unflushed >= self.flush_every:
            self.flush()
        return answer

    def flush(self) -> None:
        """Write the answers not yet on disk."""
        if self._store is not None:
            self._store.flush()
        self._unflushed = 0

    def with_decoding(self, **changes) -> Decoding:
        """The default decoding with ``changes`` (e.g. a retry's temperature and seed)."""
        return replace(self.decoding, **changes)


def _threads(threads: int | None) -> int | None:
    return int(threads) if threads else None


class TransformersChat(ChatBackend):
    """A local transformers causal LM used through its chat template.

    Args (besides :class:`ChatBackend`'s):
        model: hub id (local Hub cache), folder, ``.gguf`` file or ``pkg://...`` (GGUF files are
            dequantised to float32 by transformers, ``gguf_file=``).
        threads: ``torch.set_num_threads`` (None: torch's default; configs pass the run's ``threads``).
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
                 config_key: str = "llm", model_obj=None, tokenizer_obj=None):
        super().__init__(model, temperature, seed, max_new_tokens, system_prompt,
                         use_cache and model_obj is None, flush_every, config_key, structured)
        from gec_meta.models.loading import ModelRef, resolve

        self.threads = threads
        self.reuse_prefix = bool(reuse_prefix)
        self._prefix = None
        self._model, self._tokenizer = model_obj, tokenizer_obj
        if model_obj is not None:
            self.ref = ModelRef(model, model, None, True, f"{model}@object{id(model_obj)}")
        else:
            self.ref = resolve(model, f"{config_key}.model")

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
            self._model.eval()
        return self._model

    def _encode(self, messages: Messages):
        enc = self.tokenizer.apply_chat_template(list(messages), add_generation_prompt=True, return_dict=True,
                                                 return_tensors="pt")
        return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}

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
                out = model(input_ids=torch.tensor([pending]), past_key_values=past, use_cache=True)
                past = out.past_key_values
                if self._prefix is None and self.reuse_prefix:
                    self._store_prefix(prompt_ids, past)
                logits = out.logits[0, -1, cand_ids].float()
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


def integer_object_schema(schema: dict) -> tuple[list[str], int, int]:
    """(keys, low, high) of a schema for an object of required integer properties with one
    common 1-digit range and no other properties (what local structured output supports)."""
    props = schema.get("properties", {})
    keys = list(schema.get("required", []))
    ranges = {(p.get("minimum"), p.get("maximum")) for p in props.values()}
    ok = (schema.get("type") == "object" and schema.get("additionalProperties") is False and keys
          and sorted(keys) == sorted(props) and all(p.get("type") == "integer" for p in props.values())
          and len(ranges) == 1)
    low, high = next(iter(ranges)) if ok else (None, None)
    if not ok or low is None or high is None or not 0 <= low <= high <= 9:
        raise LLMBackendError(f"structured output supports objects of required 1-digit integer properties; got {schema}")
    return keys, int(low), int(high)


class OpenAICompatibleChat(ChatBackend):
    """Any OpenAI-compatible chat-completions endpoint.

    Args (besides :class:`ChatBackend`'s):
        model: the model name the server knows (``gpt-4-1106-preview`` in the paper).
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1``; requests go to
            ``<base_url>/chat/completions``.
        api_key_env: the environment variable holding the API key (sent as a bearer token);
            unset = no ``Authorization`` header (local servers).
        timeout: seconds per HTTP request.
        http_retries: retries of a request that failed with a network error, HTTP 429 or 5xx
            (waits 1, 2, 4, … s, at most 30); other HTTP errors fail at once.
    """

    kind = "openai-compatible"

    def __init__(self, model: str, base_url: str, api_key_env: str | None = "OPENAI_API_KEY",
                 temperature: float = 0.0, seed: int = 0, max_new_tokens: int = 128,
                 system_prompt: str | None = None, timeout: float = 120.0, http_retries: int = 3,
                 structured: bool = False, use_cache: bool = True, flush_every: int = 10, config_key: str = "llm"):
        super().__init__(model, temperature, seed, max_new_tokens, system_prompt, use_cache, flush_every,
                         config_key, structured)
        if not base_url or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"{config_key}.base_url must be an http(s) URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.timeout = float(timeout)
        self.http_retries = int(http_retries)

    def model_identity(self) -> str:
        return f"{self.base_url}|{self.model}"

    def _request(self, body: dict) -> dict:
        url = f"{self.base_url}/chat/completions"
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        data = json.dumps(body).encode("utf-8")
        for attempt in range(self.http_retries + 1):
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode("utf-8", "replace")[:300]
                if exc.code == 401:
                    raise LLMBackendError(f"{url}: HTTP 401 unauthorised; set the API key in the environment "
                                          f"variable {self.api_key_env!r} ({self.config_key}.api_key_env)") from None
                if exc.code != 429 and exc.code < 500 or attempt == self.http_retries:
                    raise LLMBackendError(f"{url}: HTTP {exc.code}: {detail}") from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt == self.http_retries:
                    raise LLMBackendError(f"{url}: {exc} ({self.config_key}.base_url)") from None
            except json.JSONDecodeError as exc:
                raise LLMBackendError(f"{url}: the response is not JSON ({exc})") from None
            time.sleep(min(2 ** attempt, 30))
        raise AssertionError("unreachable")  # pragma: no cover

    def generate(self, messages: Messages, decoding: Decoding, schema: dict | None = None) -> str:
        body = {"model": self.model, "messages": list(messages), "temperature": decoding.temperature,
                "seed": decoding.seed, "max_tokens": decoding.max_new_tokens}
        if schema is not None:
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "scores", "schema": schema}}
        data = self._request(body)
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMBackendError(f"{self.base_url}/chat/completions: no choices[0].message.content in "
                                  f"{json.dumps(data)[:300]}") from None
        return "" if content is None else str(content)
