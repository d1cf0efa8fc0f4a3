"""LLM evaluators over HTTP: a connection cut in the middle of a reply (``IncompleteRead``) or
closed without one is retried like a 5xx, then ends in one line naming the URL, and the answers
that arrived before are kept (issue 34 item 4; it was a traceback)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gec_meta.cli import errors as cli_errors
from gec_meta.llm.backends import LLMBackendError, Request
from gec_meta.llm.openai import OpenAICompatibleChat

GOOD = json.dumps({"choices": [{"message": {"content": '{"target1_score": 3}'}}],
                   "usage": {"prompt_tokens": 11, "completion_tokens": 7}}).encode()


class Cutting(BaseHTTPRequestHandler):
    """Cuts the first ``cuts`` requests (every request whose prompt holds ``poison``): ``cut`` =
    a 200 reply that announces 200 bytes and stops after 20; ``close`` = no reply at all.
    Then answers ``GOOD``."""

    mode = "cut"
    cuts = 0
    poison = "\x00never"
    requests = 0
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def do_POST(self):  # noqa: N802 - http.server API
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with Cutting.lock:
            Cutting.requests += 1
            cut = Cutting.cuts > 0 or Cutting.poison.encode() in body
            Cutting.cuts -= Cutting.cuts > 0
        self.close_connection = True
        if cut and Cutting.mode == "close":
            return  # the server closes the connection without a status line
        self.send_response(200)
        self.send_header("Content-Length", str(len(GOOD) if not cut else 200))
        self.end_headers()
        self.wfile.write(GOOD if not cut else GOOD[:20])
        self.wfile.flush()


@pytest.fixture
def server(monkeypatch):
    # The first back-off step (2**0 = 1 s) shortened: these tests count requests and read the
    # error; the back-off's length is tests/test_llm_concurrency.py's (the 503 case).
    monkeypatch.setattr("gec_meta.llm.openai.MAX_BACKOFF_S", 0.05)
    Cutting.mode, Cutting.cuts, Cutting.poison, Cutting.requests = "cut", 0, "\x00never", 0
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Cutting)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def client(url: str, **options) -> OpenAICompatibleChat:
    return OpenAICompatibleChat("stub", url, api_key_env=None, timeout=10, **options)


@pytest.mark.parametrize("mode", ["cut", "close"])
def test_a_cut_reply_is_retried(server, mode):
    Cutting.mode, Cutting.cuts = mode, 1
    chat = client(server, use_cache=False, http_retries=2)
    assert chat.complete("one prompt") == '{"target1_score": 3}'
    assert (chat.stats.requests, chat.stats.retries, Cutting.requests) == (2, 1, 2)


@pytest.mark.parametrize("mode, what", [
    ("cut", "the connection was cut in the middle of the reply (20 bytes read, 180 more expected)"),
    ("close", "the server closed the connection without replying"),
])
def test_a_reply_cut_every_time_ends_in_one_line_naming_the_url(server, mode, what, capsys):
    Cutting.mode, Cutting.cuts = mode, 10
    chat = client(server, use_cache=False, http_retries=1)
    with pytest.raises(LLMBackendError) as info:
        chat.complete("one prompt")
    assert Cutting.requests == 2  # the request and its one retry
    assert cli_errors.report(info.value) == 2
    err = capsys.readouterr().err
    assert err == (f"gec-meta: error: {server}/chat/completions: {what}, 2 time(s) (llm.base_url, "
                   f"llm.http_retries); the answers that arrived are kept\n")


def test_answers_that_arrived_before_the_cut_are_kept(server, tmp_path, monkeypatch):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    Cutting.poison = "prompt 2"  # this one is cut every time
    prompts = [Request(f"prompt {k}") for k in range(4)]
    with pytest.raises(LLMBackendError, match="cut in the middle of the reply"):
        client(server, http_retries=0, concurrency=1).answer_many(prompts)
    assert Cutting.requests == 3  # prompts 0, 1 answered; 2 cut; 3 never sent
    Cutting.poison, Cutting.requests = "\x00never", 0
    again = client(server, http_retries=0, concurrency=1)
    assert [a.text for a in again.answer_many(prompts)] == ['{"target1_score": 3}'] * 4
    assert Cutting.requests == 2  # only prompts 2 and 3 are asked again
    assert again.stats.cache_hits == 2
