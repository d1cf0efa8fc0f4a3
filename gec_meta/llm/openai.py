"""The remote chat backend: any OpenAI-compatible chat-completions endpoint (hosted APIs, vLLM's or
SGLang's servers, :mod:`gec_meta.llm.serve`), with many requests in flight (see
:mod:`gec_meta.llm.backends` for the cache and decoding).

**Concurrency.** ``concurrency`` requests are in flight at once, each in a thread of a
``concurrent.futures`` pool doing one blocking ``urllib`` request.  Standard-library threads, not
a client package (``openai``, ``httpx``): a request spends its time waiting for the server, which
a blocked thread does for free, so 64 threads saturate a vLLM server as well as an asyncio
client would; and the backend keeps needing nothing beyond the standard library.  Every
request is independent of the others (its own messages, decoding and seed), so the answers equal
those of one request after the other; they are returned and cached in request order, and each
is journaled as it arrives (:mod:`gec_meta.llm.journal`): a run killed halfway resumes without
asking again.  On Ctrl-C no new request starts and the requests in flight are awaited and kept
(they are paid for); a second Ctrl-C stops at once.

**Retries.** A network error (a connection refused, reset or cut in the middle of the reply, a
timeout), HTTP 429 or 5xx is retried up to ``http_retries`` times, after
the delay the server asks for (``retry-after-ms`` or ``Retry-After``, in seconds or as an HTTP
date, as the ``openai`` client honours them), else an exponential back-off of 1, 2, 4, ... s
(at most 60 s) without jitter, so a run's schedule does not depend on a random draw.  Other
HTTP errors fail at once (401 names the API-key variable).

**Rate limits.** ``max_requests_per_minute`` and ``max_tokens_per_minute`` (prompt tokens
estimated at ~4 characters a token plus ``max_tokens``, as providers count a request against a
token limit) hold requests back so that no 60-second window exceeds them.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from gec_meta.fields import check_fields, integer, positive, valid
from gec_meta.errors import ConfigError
from gec_meta.llm.backends import (Answer, ChatBackend, Decoding, LLMBackendError, Made, Messages,
                                   estimate_tokens)

#: Longest back-off without a ``Retry-After`` (seconds) and longest ``Retry-After`` honoured.
MAX_BACKOFF_S = 60.0
MAX_RETRY_AFTER_S = 600.0


@dataclass(frozen=True)
class RequestLimits:
    """How requests are scheduled (none of it changes an answer; none enters the cache key).

    Fields (a ConfigError naming ``llm.<field>`` when out of range):
        concurrency: requests in flight at once (1 = one after the other).
        max_requests_per_minute: at most this many requests start in any 60 s (null = no limit).
        max_tokens_per_minute: at most this many tokens (prompt estimate + max_tokens) in any 60 s.
        http_retries: retries of a request after a network error, HTTP 429 or 5xx.
        timeout: seconds per HTTP request.
    """

    concurrency: int = field(default=8, metadata=valid(integer(1)))
    max_requests_per_minute: float | None = field(default=None, metadata=valid(positive(), optional=True))
    max_tokens_per_minute: float | None = field(default=None, metadata=valid(positive(), optional=True))
    http_retries: int = field(default=3, metadata=valid(integer(0)))
    timeout: float = field(default=120.0, metadata=valid(positive()))

    def __post_init__(self):
        check_fields(self, "llm")


class RateLimiter:
    """Requests and tokens per sliding 60-second window, shared by the request threads.

    Args:
        requests_per_minute, tokens_per_minute: the limits (None = none).
        clock, sleep: time source and sleeper (tests pass a fake clock).
    """

    WINDOW_S = 60.0

    def __init__(self, requests_per_minute: float | None, tokens_per_minute: float | None,
                 clock=time.monotonic, sleep=time.sleep):
        self.rpm, self.tpm = requests_per_minute, tokens_per_minute
        self.clock, self.sleep = clock, sleep
        self._events: deque[tuple[float, int]] = deque()  # (start time, tokens) in the window
        self._tokens = 0
        self._lock = threading.Lock()

    def _wait_needed(self, now: float, tokens: int) -> float:
        while self._events and self._events[0][0] <= now - self.WINDOW_S:
            self._tokens -= self._events.popleft()[1]
        wait_s = 0.0
        if self.rpm is not None and len(self._events) + 1 > self.rpm:
            k = len(self._events) - int(self.rpm)  # the event that must leave the window first
            wait_s = max(wait_s, self._events[max(k, 0)][0] + self.WINDOW_S - now)
        if self.tpm is not None and self._events and self._tokens + tokens > self.tpm:
            left = self._tokens
            for start, n in self._events:  # until enough tokens have left the window
                left -= n
                if left + tokens <= self.tpm:
                    wait_s = max(wait_s, start + self.WINDOW_S - now)
                    break
            else:  # larger than the limit: until the window is empty
                wait_s = max(wait_s, self._events[-1][0] + self.WINDOW_S - now)
        return wait_s

    def acquire(self, tokens: int, stop: threading.Event | None = None) -> None:
        """Block until a request of ``tokens`` fits in the window, then count it (a request
        larger than the token limit goes alone into an empty window)."""
        while stop is None or not stop.is_set():
            with self._lock:
                now = self.clock()
                wait_s = self._wait_needed(now, tokens)
                if wait_s <= 0:
                    self._events.append((now, tokens))
                    self._tokens += tokens
                    return
            self.sleep(min(wait_s, 1.0) if stop is not None else wait_s)


def retry_after_seconds(headers, now: float | None = None) -> float | None:
    """The delay a 429/5xx response asks for: ``retry-after-ms`` (milliseconds, OpenAI) or
    ``Retry-After`` (seconds or an HTTP date, RFC 9110 §10.2.3); None if absent or unreadable."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _network_error(exc: BaseException) -> str:
    """What went wrong on the network, in words (one line)."""
    if isinstance(exc, http.client.IncompleteRead):
        return (f"the connection was cut in the middle of the reply ({len(exc.partial)} bytes read"
                + (f", {exc.expected} more expected)" if exc.expected is not None else ")"))
    if isinstance(exc, http.client.RemoteDisconnected):
        return "the server closed the connection without replying"
    if isinstance(exc, ConnectionResetError):
        return "the connection was reset by the server"
    if isinstance(exc, http.client.HTTPException):
        return f"a malformed HTTP reply ({type(exc).__name__}: {exc})"
    if isinstance(exc, urllib.error.URLError) and not isinstance(exc.reason, str):
        return f"{exc.reason}"
    return f"{exc}"


class OpenAICompatibleChat(ChatBackend):
    """Any OpenAI-compatible chat-completions endpoint.

    Args (besides :class:`ChatBackend`'s):
        model: the model name the server knows (``gpt-4-1106-preview`` in the paper).
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1``; requests go to
            ``<base_url>/chat/completions``.
        api_key_env: the environment variable holding the API key (sent as a bearer token);
            unset = no ``Authorization`` header (local servers).
        concurrency, max_requests_per_minute, max_tokens_per_minute, http_retries, timeout:
            :class:`RequestLimits` (module docstring).
    """

    kind = "openai-compatible"
    counts_requests = True

    def __init__(self, model: str, base_url: str, api_key_env: str | None = "OPENAI_API_KEY",
                 temperature: float = 0.0, seed: int = 0, max_new_tokens: int = 128,
                 system_prompt: str | None = None, timeout: float = 120.0, http_retries: int = 3,
                 structured: bool = False, use_cache: bool = True, flush_every: int = 0, config_key: str = "llm",
                 concurrency: int = 8, max_requests_per_minute: float | None = None,
                 max_tokens_per_minute: float | None = None, price_per_1k_input_tokens: float | None = None,
                 price_per_1k_output_tokens: float | None = None):
        super().__init__(model, temperature, seed, max_new_tokens, system_prompt, use_cache, flush_every,
                         config_key, structured, price_per_1k_input_tokens, price_per_1k_output_tokens)
        if not base_url or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"{config_key}.base_url must be an http(s) URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.limits = RequestLimits(concurrency, max_requests_per_minute, max_tokens_per_minute, http_retries,
                                    timeout)
        self.timeout = float(self.limits.timeout)
        self.http_retries = self.limits.http_retries
        self._limiter = RateLimiter(self.limits.max_requests_per_minute, self.limits.max_tokens_per_minute)
        self._stop = threading.Event()
        self._stats_lock = threading.Lock()

    def model_identity(self) -> str:
        return f"{self.base_url}|{self.model}"

    def scheduling(self) -> dict:
        return {"concurrency": self.limits.concurrency, "max_requests_per_minute": self.limits.max_requests_per_minute,
                "max_tokens_per_minute": self.limits.max_tokens_per_minute, "http_retries": self.http_retries}

    def _count(self, retry: bool) -> None:
        with self._stats_lock:
            self.stats.requests += 1
            self.stats.retries += int(retry)

    def _request(self, body: dict, tokens: int = 0) -> dict:
        url = f"{self.base_url}/chat/completions"
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        data = json.dumps(body).encode("utf-8")
        for attempt in range(self.http_retries + 1):
            self._limiter.acquire(tokens, self._stop)
            if self._stop.is_set():
                raise LLMBackendError(f"{url}: stopped before the request was sent")
            self._count(retry=attempt > 0)
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            asked = None
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
                asked = retry_after_seconds(exc.headers)
            except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
                # A connection refused or reset, a timeout, or one cut in the middle of the reply
                # (http.client.IncompleteRead, RemoteDisconnected, BadStatusLine): retried as a 5xx.
                if attempt == self.http_retries:
                    raise LLMBackendError(f"{url}: {_network_error(exc)}, {attempt + 1} time(s) "
                                          f"({self.config_key}.base_url, {self.config_key}.http_retries); "
                                          f"the answers that arrived are kept") from None
            except json.JSONDecodeError as exc:
                raise LLMBackendError(f"{url}: the response is not JSON ({exc})") from None
            delay = min(asked, MAX_RETRY_AFTER_S) if asked is not None else min(2.0 ** attempt, MAX_BACKOFF_S)
            if self._stop.wait(delay):
                raise LLMBackendError(f"{url}: stopped while waiting to retry")
        raise AssertionError("unreachable")  # pragma: no cover

    def _body(self, messages: Messages, decoding: Decoding, schema: dict | None) -> dict:
        body = {"model": self.model, "messages": list(messages), "temperature": decoding.temperature,
                "seed": decoding.seed, "max_tokens": decoding.max_new_tokens}
        if schema is not None:
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "scores", "schema": schema}}
        return body

    def _complete(self, index: int, messages: Messages, decoding: Decoding, schema: dict | None) -> Made:
        """One request (with its retries), timed."""
        t0 = time.perf_counter()
        data = self._request(self._body(messages, decoding, schema),
                             estimate_tokens(messages) + decoding.max_new_tokens)
        seconds = time.perf_counter() - t0
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMBackendError(f"{self.base_url}/chat/completions: no choices[0].message.content in "
                                  f"{json.dumps(data)[:300]}") from None
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        made = Made(index, Answer("" if content is None else str(content)), seconds,
                    int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
        arrival = self._on_arrival
        if arrival is not None:
            arrival(made)  # journaled now, from this thread
        return made

    def generate(self, messages: Messages, decoding: Decoding, schema: dict | None = None) -> str:
        return self._complete(0, messages, decoding, schema).answer.text

    def generate_many(self, items: Sequence[tuple[Messages, Decoding, dict | None]]) -> Iterator[Made]:
        """The answers as they arrive, ``concurrency`` requests in flight (module docstring)."""
        self._stop.clear()
        if self.limits.concurrency == 1 or len(items) == 1:
            for i, item in enumerate(items):
                yield self._complete(i, *item)
            return
        pool = ThreadPoolExecutor(max_workers=min(self.limits.concurrency, len(items)),
                                  thread_name_prefix="gec-meta-llm")
        # Submitted in request order: the pool starts them first come, first served.
        pending = {pool.submit(self._complete, i, *item): i for i, item in enumerate(items)}
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=pending.get):
                    del pending[future]
                    yield future.result()  # an LLMBackendError stops the run (below)
        except GeneratorExit:
            self._stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        except BaseException:
            # An error or Ctrl-C: start no new request; the ones in flight finish without
            # retrying and their answers are kept (a second Ctrl-C stops at once).
            self._stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            for future in sorted(pending, key=pending.get):
                if future.cancelled():
                    continue
                try:
                    made = future.result()
                except Exception:
                    continue
                yield made
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
