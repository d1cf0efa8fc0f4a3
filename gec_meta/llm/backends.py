"""Chat backends of the LLM evaluators, behind one disk cache of every prompt and response.

* :class:`gec_meta.llm.local.TransformersChat` — a local causal LM with a chat template (a hub id in the local Hub
  cache, a folder, a ``.gguf`` file or ``pkg://<package>/<file>.gguf``, resolved by
  :mod:`gec_meta.models.loading`), generating on the CPU;
* :class:`gec_meta.llm.openai.OpenAICompatibleChat` — any server that speaks the OpenAI chat-completions protocol
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
import time
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
