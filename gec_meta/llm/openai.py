"""The remote chat backend: any OpenAI-compatible chat-completions endpoint through ``urllib``
(see :mod:`gec_meta.llm.backends` for the cache and decoding)."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request

from gec_meta.errors import ConfigError
from gec_meta.llm.backends import ChatBackend, Decoding, LLMBackendError, Messages


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
