"""Many requests in flight (``llm.concurrency``), their retries and rate limits, and a killed
run that resumes without asking again — against the project's loopback server
(:class:`gec_meta.llm.serve.ChatCompletionsServer`) made slow with its ``delay`` option.

The server answers with a stub model (no weights): each target's score is a hash of the
target text (and of the seed when sampling), so every answer depends on its request alone.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from gec_meta.cache import text_hash
from gec_meta.errors import ConfigError
from gec_meta.llm.backends import ChatBackend, Decoding, Request
from gec_meta.llm.journal import AnswerJournal
from gec_meta.llm.openai import OpenAICompatibleChat, RateLimiter, retry_after_seconds
from gec_meta.llm.serve import ChatCompletionsServer
from gec_meta.metrics.llm import DryRunFinished, LLMSentence

REPO = Path(__file__).resolve().parents[1]
SENTENCES = 30  # SEEDA Base's first sentences


class HashJudge(ChatBackend):
    """A stub model: score = 1 + hash(target) mod 5 for every target of the prompt."""

    kind = "stub"

    def model_identity(self) -> str:
        return self.model

    def generate(self, messages, decoding: Decoding, schema=None) -> str:
        block = messages[-1]["content"].split("# targets\n", 1)[1].split("\n\n# output format", 1)[0]
        salt = f"|{decoding.seed}" if decoding.temperature > 0 else ""
        scores = [1 + int(text_hash(t + salt)[:8], 16) % 5 for t in block.split("\n")]
        return json.dumps({f"target{i}_score": s for i, s in enumerate(scores, 1)})


def seeda_subset(data_root):
    from gec_meta.data.datasets import load_seeda

    ds = load_seeda(data_root, "base")
    return ds.sources[:SENTENCES], [h[:SENTENCES] for h in ds.hypotheses]


def prompt_count(hyps) -> int:
    """Prompts of a run: per sentence, its distinct outputs in groups of at most 5 (App. A)."""
    return sum(math.ceil(len({h[n] for h in hyps}) / 5) for n in range(len(hyps[0])))


def client(url: str, **options) -> OpenAICompatibleChat:
    return OpenAICompatibleChat("stub", url, api_key_env=None, timeout=30, **options)


#: Seconds the loopback server takes a request: long beside a request's own ~1-5 ms, so the
#: timings below measure the overlap, short enough for a fast test.
DELAY = 0.05


@pytest.fixture()
def slow_server():
    with ChatCompletionsServer(HashJudge("stub"), delay=DELAY) as server:
        yield server


def test_concurrent_requests_equal_sequential_ones_in_a_third_of_the_time(slow_server, data_root, tmp_path,
                                                                         monkeypatch):
    sources, hyps = seeda_subset(data_root)
    runs = {}
    for concurrency in (1, 16):
        monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / f"cache-{concurrency}"))
        metric = LLMSentence(llm=client(slow_server.url, concurrency=concurrency)).bind(sources, hyps, ())
        before = slow_server.requests
        t0 = time.perf_counter()
        stats = metric.statistics(sources, hyps)
        runs[concurrency] = (stats, time.perf_counter() - t0, slow_server.requests - before, metric.usage())
    prompts = prompt_count(hyps)
    (seq, t_seq, n_seq, _), (conc, t_conc, n_conc, usage) = runs[1], runs[16]
    np.testing.assert_array_equal(seq, conc)
    assert n_seq == n_conc == prompts
    assert set(slow_server.bodies.values()) == {2}  # every request once per run, none repeated
    # requests of DELAY s: one after the other at least DELAY s each, 16 at a time ~1/16 of that.
    assert t_seq >= DELAY * prompts and t_conc <= 0.3 * t_seq, (t_seq, t_conc)
    assert usage["requests"] == usage["answers_made"] == prompts and usage["concurrency"] == 16
    assert usage["cache_hits"] == 0 and usage["request_retries"] == 0 and usage["prompt_tokens"] > 0


CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    from gec_meta.data.datasets import load_seeda
    from gec_meta.llm.openai import OpenAICompatibleChat
    from gec_meta.metrics.llm import LLMSentence
    ds = load_seeda(sys.argv[1], "base")
    sources, hyps = ds.sources[:{n}], [h[:{n}] for h in ds.hypotheses]
    llm = OpenAICompatibleChat("stub", sys.argv[2], api_key_env=None, timeout=30, concurrency=4)
    stats = LLMSentence(llm=llm).bind(sources, hyps, ()).statistics(sources, hyps)
    np.save(sys.argv[3], stats)
""").format(n=SENTENCES)


def run_child(data_root, url, out, env, kill_at=None, sig=None, server=None):
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(data_root), url, str(out)], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if kill_at is not None:
        deadline = time.monotonic() + 120
        while server.requests < kill_at and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_a_killed_run_resumes_without_asking_again(data_root, tmp_path, sig):
    """Killed halfway and rerun, the run asks no question twice (Ctrl-C: the requests in flight
    are awaited and kept; kill -9: only those in flight, at most ``concurrency``, are lost), and
    its statistics equal an uninterrupted run's."""
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / "cache"),
           "PYTHONPATH": str(REPO)}
    prompts = prompt_count(seeda_subset(data_root)[1])
    with ChatCompletionsServer(HashJudge("stub"), delay=2 * DELAY) as server:
        code, err = run_child(data_root, server.url, tmp_path / "a.npy", env, kill_at=prompts // 2, sig=sig,
                              server=server)
        assert code != 0 and not (tmp_path / "a.npy").exists(), err[-2000:]
        assert prompts // 2 <= server.requests < prompts
        code, err = run_child(data_root, server.url, tmp_path / "a.npy", env)
        assert code == 0, err[-2000:]
        repeated = sum(n - 1 for n in server.bodies.values())
        assert len(server.bodies) == prompts
        if sig == signal.SIGINT:
            assert repeated == 0 and server.requests == prompts
        else:
            assert repeated <= 4  # in flight when killed
    journals = list((tmp_path / "cache" / "llm-journal").rglob("*.jsonl"))
    assert journals == []  # recovered into the cache and removed
    with ChatCompletionsServer(HashJudge("stub")) as fresh:
        env["GEC_META_CACHE"] = str(tmp_path / "cache-fresh")
        assert run_child(data_root, fresh.url, tmp_path / "b.npy", env)[0] == 0
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), np.load(tmp_path / "b.npy"))


# --------------------------------------------------------------------------- retries
class Flaky(BaseHTTPRequestHandler):
    """Answers 429 (``Retry-After: 0.3``) or 503 (no header) to the first request of each body,
    then a fixed valid answer."""

    seen: set = set()
    status = 429

    def log_message(self, *args):
        pass

    def do_POST(self):  # noqa: N802 - http.server API
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if body not in Flaky.seen:
            Flaky.seen.add(body)
            self.send_response(Flaky.status)
            if Flaky.status == 429:
                self.send_header("Retry-After", "0.3")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")
            return
        out = json.dumps({"choices": [{"message": {"content": '{"target1_score": 3}'}}],
                          "usage": {"prompt_tokens": 11, "completion_tokens": 7}}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


@pytest.mark.parametrize("status, least", [(429, 0.3), (503, 1.0)])
def test_429_and_5xx_are_retried_after_the_delay_asked_or_backing_off(status, least):
    Flaky.seen, Flaky.status = set(), status
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        chat = client(f"http://127.0.0.1:{httpd.server_address[1]}/v1", use_cache=False, http_retries=1)
        t0 = time.perf_counter()
        assert chat.complete("one prompt") == '{"target1_score": 3}'
        elapsed = time.perf_counter() - t0
    finally:
        httpd.shutdown()
        httpd.server_close()
    # 429: Retry-After 0.3 s honoured; 503 without it: the first back-off step, 2**0 = 1 s.
    assert least <= elapsed < least + 1.0
    assert (chat.stats.requests, chat.stats.retries, chat.stats.calls) == (2, 1, 1)
    assert (chat.stats.prompt_tokens, chat.stats.completion_tokens) == (11, 7)


def test_retry_after_header_forms():
    # RFC 9110 §10.2.3: delay-seconds or an HTTP-date; OpenAI also sends retry-after-ms.
    assert retry_after_seconds({"Retry-After": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "1500", "Retry-After": "9"}) == 1.5
    now = 1_700_000_000.0  # Tue, 14 Nov 2023 22:13:20 GMT
    assert retry_after_seconds({"Retry-After": "Tue, 14 Nov 2023 22:13:50 GMT"}, now=now) == 30.0
    assert retry_after_seconds({"Retry-After": "soon"}) is None and retry_after_seconds({}) is None


def test_rate_limits_hold_requests_to_a_sliding_minute():
    clock = [0.0]
    slept = []

    def sleep(s):
        slept.append(s)
        clock[0] += s

    limiter = RateLimiter(2, None, clock=lambda: clock[0], sleep=sleep)
    for _ in range(3):
        limiter.acquire(10)
    assert slept == [60.0]  # the third request waits until the first leaves the window
    clock[0], slept[:] = 200.0, []
    tokens = RateLimiter(None, 100, clock=lambda: clock[0], sleep=sleep)
    tokens.acquire(60)
    clock[0] += 10
    tokens.acquire(30)
    tokens.acquire(30)  # 60 + 30 + 30 > 100: waits until the first (60) leaves, 50 s later
    assert slept == [50.0]
    tokens.acquire(500)  # larger than the limit: waits for an empty window (the last one left at 260 + 60)
    assert clock[0] == 200 + 10 + 50 + 60


@pytest.mark.parametrize("key, value, text", [
    ("concurrency", 0, "llm.concurrency must be an integer >= 1, got 0"),
    ("max_requests_per_minute", -5, "llm.max_requests_per_minute must be a number > 0 or null, got -5"),
    ("max_tokens_per_minute", 0, "llm.max_tokens_per_minute must be a number > 0 or null, got 0"),
    ("http_retries", -1, "llm.http_retries must be an integer >= 0, got -1"),
    ("price_per_1k_input_tokens", -0.01, "llm.price_per_1k_input_tokens must be a number >= 0 or null"),
    ("flush_every", -1, "llm.flush_every must be an integer >= 0"),
])
def test_scheduling_options_are_range_checked(key, value, text):
    with pytest.raises(ConfigError, match=text.replace(".", r"\.")):
        client("http://127.0.0.1:9/v1", **{key: value})


def test_scheduling_options_change_neither_cache_key_nor_signature():
    a = client("http://127.0.0.1:9/v1")
    b = client("http://127.0.0.1:9/v1", concurrency=64, max_requests_per_minute=500, max_tokens_per_minute=9e4,
               price_per_1k_input_tokens=0.01)
    assert a.identity == b.identity and a.signature() == b.signature()
    messages = a.messages("x")
    assert a.cache_key(messages, a.decoding) == b.cache_key(messages, b.decoding)


def test_dry_run_prices_the_calls(capsys):
    chat = client("http://127.0.0.1:9/v1", price_per_1k_input_tokens=0.01, price_per_1k_output_tokens=0.03,
                  max_new_tokens=100)
    metric = LLMSentence(llm=chat, context=None, dry_run=True, dry_run_show=0)
    sources, hyps = ["a b c ."], [["a b c ."], ["a b d ."]]
    with pytest.raises(DryRunFinished):
        metric.bind(sources, hyps, ()).statistics(sources, hyps)
    out = capsys.readouterr().out
    prompt = metric.plan(sources, hyps)[0].prompt
    tokens = len(prompt) // 4 + 4  # ~4 characters a token + 4 for the one message
    price = (tokens * 0.01 + 100 * 0.03) / 1000
    assert f"prompt tokens of those calls: {tokens} (estimate: ~4 characters a token" in out
    assert f"answer tokens: at most 100 (100 per call)\nprice: at most {price:.4f}" in out


# --------------------------------------------------------------------------- the journal
def test_journal_of_a_dead_run_is_recovered_and_a_live_one_left_alone(tmp_path):
    folder = tmp_path / "j"
    dead = AnswerJournal(folder)
    dead.append("k1", {"text": "a", "seconds": 1.0})
    dead.append("k2", {"text": "b", "probabilities": {"t": [0.25, 0.75]}})
    dead._file.write(b'{"key": "k3", "value": {"text": "torn')  # killed mid-line
    dead._file.close()  # the process died: its lock is gone, the file stays
    live = AnswerJournal(folder)
    live.append("k4", {"text": "d"})
    entries, files = AnswerJournal(folder).recover()
    assert entries == [("k1", {"text": "a", "seconds": 1.0}), ("k2", {"text": "b", "probabilities": {"t": [0.25, 0.75]}})]
    assert files == [dead._path]
    AnswerJournal.discard(files)
    assert list(folder.glob("*.jsonl")) == [live._path]
    live.clear()
    assert list(folder.glob("*.jsonl")) == []


def test_a_journal_line_whose_key_is_not_text_is_skipped(tmp_path):
    """A line with a valid CRC but a key that is no string (forged, or another program's) is
    skipped like a damaged one: recovering it would put an unhashable key into the store."""
    import json
    import zlib

    folder = tmp_path / "j"
    dead = AnswerJournal(folder)
    dead.append("k1", {"text": "a"})
    for key in (["k", 2], 7, None, {"k": 1}):
        body = json.dumps([key, {"text": "x"}], ensure_ascii=False, sort_keys=True, allow_nan=True)
        line = {"key": key, "value": {"text": "x"}, "crc": zlib.crc32(body.encode("utf-8"))}
        dead._file.write((json.dumps(line) + "\n").encode("utf-8"))
    dead.append("k2", {"text": "b"})
    dead._file.close()
    entries, _ = AnswerJournal(folder).recover()
    assert entries == [("k1", {"text": "a"}), ("k2", {"text": "b"})]


def test_backend_recovers_a_journal_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path))
    calls = []

    class Counting(HashJudge):
        def generate(self, messages, decoding, schema=None):
            calls.append(messages[-1]["content"])
            return "x"

    first = Counting("journal-test")
    first.answer_many([Request("# targets\nA\n\n# output format"), Request("# targets\nB\n\n# output format")])
    first._journal._file.close()  # killed before the cache was written
    assert calls and not list((tmp_path / "kv").rglob("*.kvs"))
    second = Counting("journal-test")
    second.answer_many([Request("# targets\nA\n\n# output format"), Request("# targets\nB\n\n# output format")])
    assert len(calls) == 2 and second.stats.cache_hits == 2


# --------------------------------------------------------------------------- the whole CLI run
def run_cli(args, data_root, cache, **popen):
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(cache)}
    return subprocess.Popen([sys.executable, "run.py", *args], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, **popen)


@pytest.mark.slow
def test_llm_s_on_seeda_base_with_16_requests_in_flight(data_root, tmp_path):
    """LLM-S on SEEDA Base (588 prompts) against the server slowed to 0.25 s a request:
    ``llm.concurrency=16`` takes at most 0.3x the time of one request after the other, with
    byte-identical sentence_scores.tsv and results.json (but the config hash); a run stopped
    halfway with Ctrl-C and rerun asks no question twice (counted at the server)."""
    with ChatCompletionsServer(HashJudge("stub"), delay=0.25) as server:
        common = ["metric=llm_s", "llm=openai", f"llm.base_url={server.url}", "llm.model=stub",
                  "llm.api_key_env=null", "aggregation=trueskill", "meta_eval.sentence_variant=displayed"]
        out = {}
        for c in (1, 16):
            proc = run_cli([*common, f"llm.concurrency={c}", f"hydra.run.dir={tmp_path / f'run{c}'}"], data_root,
                           tmp_path / f"cache{c}")
            assert proc.wait(timeout=900) == 0, proc.stderr.read()[-3000:]
            out[c] = tmp_path / f"run{c}"
        assert len(server.bodies) == 588 and set(server.bodies.values()) == {2}
        assert (out[1] / "sentence_scores.tsv").read_bytes() == (out[16] / "sentence_scores.tsv").read_bytes()
        results = [json.loads((out[c] / "results.json").read_text()) for c in (1, 16)]
        assert results[0].pop("config_id") != results[1].pop("config_id")  # the config names the concurrency
        assert results[0] == results[1]
        timing = {c: json.loads((out[c] / "timing.json").read_text()) for c in (1, 16)}
        assert timing[16]["statistics_s"] <= 0.3 * timing[1]["statistics_s"], timing
        usage = timing[16]["usage"]
        assert (usage["prompts"], usage["answers_made"], usage["requests"], usage["concurrency"]) == (588, 588, 588, 16)
        assert "## Cost of the statistics (this run)" in (out[16] / "results.md").read_text()
        # Stopped halfway (Ctrl-C), then rerun: every question asked once more in all.
        args = [*common, "llm.concurrency=16", f"hydra.run.dir={tmp_path / 'killed'}"]
        proc = run_cli(args, data_root, tmp_path / "cache-killed")
        deadline = time.monotonic() + 600
        while server.requests < 2 * 588 + 294 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=120) != 0 and not (tmp_path / "killed" / "results.json").exists()
        assert server.requests < 3 * 588
        proc = run_cli(args, data_root, tmp_path / "cache-killed")
        assert proc.wait(timeout=900) == 0, proc.stderr.read()[-3000:]
        assert set(server.bodies.values()) == {3} and server.requests == 3 * 588
        assert (tmp_path / "killed" / "sentence_scores.tsv").read_bytes() == (out[1] / "sentence_scores.tsv").read_bytes()
