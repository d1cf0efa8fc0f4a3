"""Chat backends of the LLM evaluators, behind one disk cache of every prompt and response.

* :class:`gec_meta.llm.local.TransformersChat` — a local causal LM with a chat template (a hub id in the local Hub
  cache, a folder, a ``.gguf`` file or ``pkg://<package>/<file>.gguf``, resolved by
  :mod:`gec_meta.models.loading`), ``batch_size`` prompts per forward pass;
* :class:`gec_meta.llm.vllm.VLLMChat` — vLLM's offline engine;
* :class:`gec_meta.llm.openai.OpenAICompatibleChat` — any server that speaks the OpenAI chat-completions protocol
  (``POST <base_url>/chat/completions``), through ``urllib`` (no client package needed),
  ``concurrency`` requests in flight; the API key is read from the environment variable the
  config names, never from the config itself.

Every answer is cached on disk (:class:`gec_meta.cache.KeyValueStore`) in the namespace of
the backend and model identity, under the hash of the exact messages and the decoding settings
(temperature, seed, token limit), so a rerun or a resumed run makes no model call for what it
has seen.  :meth:`ChatBackend.answer_many` answers a list of requests: the cached ones from the
cache, the others through the backend's :meth:`ChatBackend.generate_many` (batched locally,
many requests in flight remotely), each journaled as it arrives (:mod:`gec_meta.llm.journal`)
and put into the cache in request order.  :attr:`ChatBackend.stats` counts answers made,
cache hits, requests, retries, tokens, model and wall time.

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

import dataclasses
import json
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Iterator, Sequence

from tqdm.auto import tqdm

from gec_meta.cache import KeyValueStore, cache_root, text_hash
from gec_meta.cache.code import computing_code_version
from gec_meta.fields import check_fields, non_negative, valid
from gec_meta.errors import ConfigError, GecMetaError
from gec_meta.llm.journal import AnswerJournal

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
    """What a backend did in this process (since the last :meth:`reset`).

    Attributes:
        calls: answers made by the model (cache misses).
        cache_hits: answers served from the cache.
        seconds: model time of the answers made (per answer: its request's latency remotely, its
            batch's time divided among the batch locally; summed).
        call_seconds: the model time of each answer made, in order of arrival.
        cached_seconds: the recorded model time of the answers served from the cache (what
            they cost when they were made).
        wall_seconds: wall time spent waiting for the model (concurrent requests overlap: this
            is less than ``seconds``).
        requests: requests sent (remote: HTTP requests including retried ones; local: answers).
        retries: requests sent again after a network error, HTTP 429 or 5xx.
        prompt_tokens, completion_tokens: tokens of the answers made (the server's ``usage``
            remotely; the model's tokenizer locally).
    """

    calls: int = 0
    cache_hits: int = 0
    seconds: float = 0.0
    call_seconds: list = field(default_factory=list)
    cached_seconds: float = 0.0
    wall_seconds: float = 0.0
    requests: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def reset(self) -> None:
        for f in dataclasses.fields(self):
            setattr(self, f.name, f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default)

    def as_dict(self) -> dict:
        """The counters (without the per-answer times), JSON-ready."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "call_seconds"}


@dataclass(frozen=True)
class Pricing:
    """Prices for the cost estimate of a dry run and the cost of a run (never part of a result).

    Fields (a ConfigError naming ``llm.<field>`` when out of range):
        price_per_1k_input_tokens: price of 1,000 prompt tokens (any currency; null = unknown).
        price_per_1k_output_tokens: price of 1,000 completion tokens.
    """

    price_per_1k_input_tokens: float | None = field(default=None, metadata=valid(non_negative(), optional=True))
    price_per_1k_output_tokens: float | None = field(default=None, metadata=valid(non_negative(), optional=True))

    def __post_init__(self):
        check_fields(self, "llm")

    @property
    def known(self) -> bool:
        return self.price_per_1k_input_tokens is not None or self.price_per_1k_output_tokens is not None

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * (self.price_per_1k_input_tokens or 0.0)
                + completion_tokens * (self.price_per_1k_output_tokens or 0.0)) / 1000


@dataclass(frozen=True)
class Request:
    """One question to a backend: a prompt and its decoding (None = the backend's default) and,
    for structured output, the JSON schema of the answer."""

    prompt: str
    decoding: Decoding | None = None
    schema: dict | None = None


@dataclass(frozen=True)
class Made:
    """One answer made by the model (what :meth:`ChatBackend.generate_many` yields).

    Attributes:
        index: the position of its request in the list given to ``generate_many``.
        answer: the answer.
        seconds: its model time (module docstring of :class:`CallStats`).
        prompt_tokens, completion_tokens: its token counts (0 = unknown).
    """

    index: int
    answer: Answer
    seconds: float
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatBackend:
    """Base class: message building, the response cache and call accounting.

    Args:
        model: the model name (what the subclass understands).
        temperature, seed, max_new_tokens: the default :class:`Decoding`.
        system_prompt: a system message before the prompt; None = none (the model's chat
            template may add its own default, as SmolLM2's does).
        use_cache: keep answers on disk (``$GEC_META_CACHE``); False = in memory only.
        flush_every: also write the answers to a cache shard every this many answers (0 = only
            at the end of a run; every answer is in the journal, :mod:`gec_meta.llm.journal`,
            as soon as it arrives, so a killed run loses none either way).
        config_key: the config prefix named in errors.
        price_per_1k_input_tokens, price_per_1k_output_tokens: :class:`Pricing`.
    """

    kind = "chat"
    #: The backend counts its requests itself (remote: HTTP requests incl. retries); else every
    #: answer made is one request.
    counts_requests = False
    #: The answers are made by this package's code in this process (a local model), not by a
    #: server: their store is keyed by that code's version too (:attr:`store_namespace`).
    answers_made_here = False

    def __init__(self, model: str, temperature: float = 0.0, seed: int = 0, max_new_tokens: int = 128,
                 system_prompt: str | None = None, use_cache: bool = True, flush_every: int = 0,
                 config_key: str = "llm", structured: bool = False,
                 price_per_1k_input_tokens: float | None = None, price_per_1k_output_tokens: float | None = None):
        if not model:
            raise ConfigError(f"{config_key}.model is empty")
        if not isinstance(flush_every, int) or isinstance(flush_every, bool) or flush_every < 0:
            raise ConfigError(f"{config_key}.flush_every must be an integer >= 0 (0 = at the end of a run), "
                              f"got {flush_every!r}")
        self.model = model
        self.decoding = Decoding(float(temperature), int(seed), int(max_new_tokens))
        self.structured = bool(structured)
        self.system_prompt = system_prompt
        self.use_cache = use_cache
        self.flush_every = flush_every
        self.config_key = config_key
        self.pricing = Pricing(price_per_1k_input_tokens, price_per_1k_output_tokens)
        self.stats = CallStats()
        self._store: KeyValueStore | None = None
        self._journal: AnswerJournal | None = None
        self._unflushed = 0
        #: Set by :meth:`answer_many` while it waits: a backend's worker threads call it with each
        #: :class:`Made` as soon as the answer arrives, so that a killed run loses only the
        #: requests still in flight.
        self._on_arrival = None

    # ----------------------------------------------------------------- subclass API
    def model_identity(self) -> str:
        """Identity of the model behind the backend (enters the cache namespace)."""
        raise NotImplementedError

    def generate(self, messages: Messages, decoding: Decoding, schema: dict | None = None) -> str | Answer:
        """One uncached model call: the assistant's answer to ``messages`` (constrained to
        ``schema`` when given; only passed when :attr:`structured` is on), as text or as an
        :class:`Answer` with the value probabilities."""
        raise NotImplementedError

    def generate_many(self, items: Sequence[tuple[Messages, Decoding, dict | None]]) -> Iterator[Made]:
        """Uncached answers to several requests, yielded as they are made, in any order (each
        :class:`Made` names its request).  Default: one :meth:`generate` call after the other;
        backends that batch (local) or overlap requests (remote) override it.  Every answer
        must equal what :meth:`generate` would give for its request alone."""
        for i, (messages, decoding, schema) in enumerate(items):
            t0 = time.perf_counter()
            out = self.generate(messages, decoding, schema) if schema is not None else self.generate(messages, decoding)
            yield Made(i, out if isinstance(out, Answer) else Answer(out), time.perf_counter() - t0)

    def count_tokens(self, messages: Messages) -> tuple[int, bool]:
        """Prompt tokens of ``messages`` and whether the count is exact (default: an estimate,
        :func:`estimate_tokens`)."""
        return estimate_tokens(messages), False

    def scheduling(self) -> dict:
        """The options that decide how requests are scheduled (concurrency, batch size, rate
        limits): they change no answer and so enter neither the cache key nor the signature
        (except the local backend's ``batch_size``, which moves batched answers' last bits:
        :class:`gec_meta.llm.local.TransformersChat`); :meth:`gec_meta.metrics.llm.LLMEvaluator.usage`
        records them beside the run's usage."""
        return {}

    # ----------------------------------------------------------------- shared
    @property
    def identity(self) -> str:
        return f"llm-chat|{self.kind}|{self.model_identity()}"

    def signature(self) -> str:
        """Short description for result signatures: ``kind:model`` (``+structured``)."""
        return f"{self.kind}:{self.model}" + ("+structured" if self.structured else "")

    @property
    def store_namespace(self) -> str:
        """The namespace of :attr:`store` (and of the journal recovered into it): :attr:`identity`,
        plus, for a backend whose answers this package's code makes (:attr:`answers_made_here`:
        generation, value probabilities), the version of that code -- an edit of it never reads
        the old code's answers.  A remote backend's answers are the server's to the exact
        request, which the key already holds (:meth:`cache_key`): no code version, so editing the
        package never asks a paid API again."""
        if not self.answers_made_here:
            return self.identity
        return f"{self.identity}|code:{computing_code_version(type(self).__module__)}"

    @property
    def store(self) -> KeyValueStore:
        if self._store is None:
            namespace = self.store_namespace
            self._store = KeyValueStore(namespace, use_default_root=self.use_cache)
            root = cache_root() if self.use_cache else None
            self._journal = AnswerJournal(None if root is None or self._store.folder is None else
                                          root / "llm-journal" / text_hash(namespace)[:24])
            entries, files = self._journal.recover()  # answers of a killed run
            if entries:
                for key, value in entries:
                    self._store.put(key, value)
                self._store.flush()
                AnswerJournal.discard(files)
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
        return self.answer_many([Request(prompt, decoding, schema)])[0]

    def answer_many(self, requests: Sequence[Request], desc: str = "LLM requests") -> list[Answer]:
        """The answers to ``requests``, in their order: from the cache, the others made by
        :meth:`generate_many` (batched or concurrent, depending on the backend) and each one
        journaled as it arrives (a killed run resumes without asking again).  Identical
        requests are asked once.  A progress bar (rate, ETA) shows the requests to make.

        Raises:
            LLMBackendError: the backend failed; the answers made until then are kept.
        """
        store = self.store
        keys, todo, found = [], {}, {}
        for r in requests:
            decoding = r.decoding or self.decoding
            messages = self.messages(r.prompt)
            schema = r.schema if self.structured else None
            key = self.cache_key(messages, decoding, schema)
            keys.append(key)
            if key not in todo and key not in found:
                hit = store.get(key)
                if hit is None:
                    todo[key] = (messages, decoding, schema)
                else:
                    found[key] = hit
        made: dict[str, dict] = {}
        if todo:
            todo_keys = list(todo)
            bar = tqdm(total=len(todo_keys), desc=desc, unit="request", leave=False,
                       disable=None if len(todo_keys) >= 20 else True)
            lock = threading.Lock()

            def journal(m: Made) -> dict:
                """Journal an answer once (the backend's threads may call this as it arrives)."""
                key = todo_keys[m.index]
                with lock:
                    if key not in made:
                        made[key] = {"text": m.answer.text, "probabilities": m.answer.probabilities,
                                     "seconds": m.seconds, "decoding": asdict(todo[key][1])}
                        self._journal.append(key, made[key])
                return made[key]

            self._on_arrival = journal
            t0 = time.perf_counter()
            try:
                for m in self.generate_many(list(todo.values())):
                    journal(m)
                    self.stats.calls += 1
                    self.stats.requests += not self.counts_requests
                    self.stats.seconds += m.seconds
                    self.stats.call_seconds.append(m.seconds)
                    self.stats.prompt_tokens += m.prompt_tokens
                    self.stats.completion_tokens += m.completion_tokens
                    bar.update(1)
            finally:
                self._on_arrival = None
                self.stats.wall_seconds += time.perf_counter() - t0
                bar.close()
                for key in todo_keys:  # into the cache in request order, whatever the order of arrival
                    if key in made:
                        store.put(key, made[key])
                self._unflushed += len(made)
                if self.flush_every and self._unflushed >= self.flush_every:
                    self.flush()
        out = []
        for key in keys:
            value = made.get(key)
            if value is None:
                value = found[key]
                self.stats.cache_hits += 1
                self.stats.cached_seconds += float(value.get("seconds", 0.0))
            out.append(Answer(value["text"], value.get("probabilities")))
        return out

    def flush(self) -> None:
        """Write the answers not yet on disk into the cache (one shard) and empty the journal."""
        if self._store is not None:
            self._store.flush()
        if self._journal is not None:
            self._journal.clear()
        self._unflushed = 0

    def with_decoding(self, **changes) -> Decoding:
        """The default decoding with ``changes`` (e.g. a retry's temperature and seed)."""
        return replace(self.decoding, **changes)


#: Characters per token of the estimate for hosted models whose tokenizer is not at hand:
#: "one token generally corresponds to ~4 characters of text for common English text"
#: (OpenAI, "What are tokens and how to count them?", help.openai.com).
CHARS_PER_TOKEN = 4
#: Tokens a chat message adds around its content (role and separators; OpenAI's cookbook
#: "How to count tokens with tiktoken" counts 3 per message plus 3 to prime the reply).
TOKENS_PER_MESSAGE = 4


def estimate_tokens(messages: Messages) -> int:
    """Prompt tokens of ``messages`` without the model's tokenizer: ~4 characters a token
    (:data:`CHARS_PER_TOKEN`) plus :data:`TOKENS_PER_MESSAGE` per message."""
    return sum(len(m["content"]) for m in messages) // CHARS_PER_TOKEN + TOKENS_PER_MESSAGE * len(messages)


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
