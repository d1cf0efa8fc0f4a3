"""Claims (issue 33 item 2): jobs sharing a cache compute each missing statistic once.

Real processes share one empty cache folder and score a slow metric (``time.sleep`` per
system; its statistic is the number of characters of each hypothesis, counted by hand below).
Every process appends the systems it computed to a log file, so the test counts the work done
across processes: each system once, however many jobs need it, and the same statistics in
every job.  A job killed with ``kill -9`` while it holds claims is recovered, a claim of a live
job that never finishes is waited for only ``GEC_META_CLAIM_WAIT`` seconds, and with the cache
off nothing is claimed.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from gec_meta.cache import claims
from gec_meta.meta.task import compute_statistics
from gec_meta.metrics.base import Metric

SOURCES = ["a b c", "d e"]
HYPOTHESES = [["a b c", "d e"], ["a  b", "d e f g"], ["x", ""], ["a b", "d"], ["abc", "de"], ["b c", "e"]]
#: (S, N): the characters of each hypothesis, counted by hand.
EXPECTED = np.array([[5, 3], [4, 7], [1, 0], [3, 1], [3, 2], [3, 1]], dtype=np.float64)

JOB = textwrap.dedent('''
    import dataclasses, json, os, sys, time
    from typing import ClassVar
    import numpy as np
    from gec_meta.meta.task import compute_statistics
    from gec_meta.metrics.base import Metric

    LOG, DELAY, ORDER, FIRST = sys.argv[1], float(sys.argv[2]), sys.argv[3], int(sys.argv[4])

    @dataclasses.dataclass(frozen=True)
    class SlowChars(Metric):
        name: ClassVar[str] = "slow-chars"
        needs_references: ClassVar[bool] = False

        def statistics(self, sources, hypotheses, references):
            with open(LOG, "a") as fh:  # which systems this process computes, before it does
                fh.write(json.dumps({"pid": os.getpid(), "systems": [h[0] for h in hypotheses]}) + "\\n")
            time.sleep(DELAY * len(hypotheses))
            return np.array([[[[float(len(h))]] for h in hyp] for hyp in hypotheses])

        def score_from_stats(self, stats):
            return stats[..., 0]

    hyps = json.loads(os.environ["HYPS"])[:FIRST]
    if ORDER == "reversed":
        hyps = hyps[::-1]
    stats = compute_statistics(SlowChars(), json.loads(os.environ["SRCS"]), hyps, None)
    out = {h[0]: stats[s, :, 0, 0].tolist() for s, h in enumerate(hyps)}
    print("RESULT " + json.dumps(out, sort_keys=True), flush=True)
''')


def _start(tmp_path: Path, delay: float, order: str = "given", first: int = len(HYPOTHESES), **env) -> subprocess.Popen:
    """A job scoring the first ``first`` systems (in ``order``), ``delay`` seconds per system."""
    script = tmp_path / "job.py"
    script.write_text(JOB)
    environ = {**os.environ, "GEC_META_CACHE": str(tmp_path / "cache"), "HYPS": json.dumps(HYPOTHESES),
               "SRCS": json.dumps(SOURCES), "GEC_META_THREADS": "1", **env}
    return subprocess.Popen([sys.executable, str(script), str(tmp_path / "log.jsonl"), str(delay), order, str(first)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ)


def _result(proc: subprocess.Popen, timeout: float = 120) -> tuple[dict, str]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    line = next(x for x in out.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT "):]), err


def _computed(tmp_path: Path) -> list[str]:
    """Every system any process computed, in log order (a system twice = work done twice)."""
    log = tmp_path / "log.jsonl"
    return [s for line in log.read_text().splitlines() for s in json.loads(line)["systems"]] if log.exists() else []


def _expected_by_first_sentence(first: int = len(HYPOTHESES)) -> dict:
    return {h[0]: EXPECTED[s].tolist() for s, h in enumerate(HYPOTHESES[:first])}


@pytest.mark.parametrize("order", ["given", "reversed"])
def test_two_jobs_on_an_empty_cache_compute_each_system_once(tmp_path, order):
    one = _start(tmp_path, 0.4)
    two = _start(tmp_path, 0.4, order)
    (a, _), (b, _) = _result(one), _result(two)
    assert a == b == _expected_by_first_sentence()
    computed = _computed(tmp_path)
    assert sorted(computed) == sorted(h[0] for h in HYPOTHESES)  # each of the 6 systems once
    assert not list((tmp_path / "cache" / "claims").glob("*.claim"))  # every claim released


def test_jobs_needing_partly_other_systems_split_the_work(tmp_path):
    first = _start(tmp_path, 1.0, first=3)  # systems 0-2, 3 s of work
    deadline = time.monotonic() + 60
    while not (tmp_path / "log.jsonl").exists() and time.monotonic() < deadline:
        time.sleep(0.05)  # it holds its claims
    second = _start(tmp_path, 1.0, "reversed")  # all six, in the other order
    (a, _), (b, _) = _result(first), _result(second)
    assert a == _expected_by_first_sentence(3) and b == _expected_by_first_sentence()
    by_pid: dict[int, list[str]] = {}
    for line in (tmp_path / "log.jsonl").read_text().splitlines():
        entry = json.loads(line)
        by_pid.setdefault(entry["pid"], []).extend(entry["systems"])
    assert sorted(by_pid[first.pid]) == sorted(h[0] for h in HYPOTHESES[:3])
    assert sorted(by_pid[second.pid]) == sorted(h[0] for h in HYPOTHESES[3:])  # only what nobody held


def test_a_job_killed_with_sigkill_leaves_claims_that_are_taken_over(tmp_path):
    owner = _start(tmp_path, 60.0)  # claims a chunk, then "computes" for minutes
    claims_dir = tmp_path / "cache" / "claims"
    deadline = time.monotonic() + 60

    def written() -> list[Path]:  # a claim file is created empty, then its JSON is written
        return [p for p in claims_dir.glob("*.claim") if p.read_text().endswith("}")]

    while not written() and time.monotonic() < deadline:
        time.sleep(0.05)
    held = written()
    assert held and json.loads(held[0].read_text())["pid"] == owner.pid
    waiter = _start(tmp_path, 0.0)
    time.sleep(1.0)  # the waiter finds the claims held by a live job
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait()
    result, err = _result(waiter, timeout=60)
    assert result == _expected_by_first_sentence()
    assert "took over the claim" in err and f"pid {owner.pid}" in err
    assert not list(claims_dir.glob("*.claim"))


def _hold(root: Path, key: str, owner: dict, age: float = 0.0) -> Path:
    path = claims.Claims(root).path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(owner))
    if age:
        os.utime(path, (time.time() - age,) * 2)
    return path


def _fill_one(root: Path, key: str) -> list[list[int]]:
    done: list[list[int]] = []
    claims.fill([key], [0], lambda i: False, done.append, root, what="test entries")
    return done


def test_a_live_owner_that_never_finishes_is_waited_for_only_the_maximum_wait(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("GEC_META_CLAIM_WAIT", "1")
    me = {"pid": os.getpid(), "host": socket.gethostname(), "pid_start": claims._process_start(os.getpid())}
    _hold(tmp_path, "k", me)  # alive: this very process, which will never store "k"
    t = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="gec_meta"):
        assert _fill_one(tmp_path, "k") == [[0]]  # computed here in the end
    assert 1.0 <= time.monotonic() - t < 10
    assert "waited 1 s for 1 test entries other jobs are computing; computing them here" in caplog.text


def test_a_claim_of_another_host_is_stale_when_nobody_touched_it(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("GEC_META_CLAIM_WAIT", "1")
    other = {"pid": 1, "host": "another-node", "started": 0}
    path = _hold(tmp_path, "k", other, age=claims.STALE_AFTER_S + 5)
    t = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="gec_meta"):
        assert _fill_one(tmp_path, "k") == [[0]]
    assert time.monotonic() - t < 1.0  # taken over at once, no wait
    assert f"took over the claim {path}" in caplog.text
    # A recently touched claim of another host is a live job: waited for (here, until the wait ends).
    _hold(tmp_path, "k2", other)
    t = time.monotonic()
    assert _fill_one(tmp_path, "k2") == [[0]]
    assert time.monotonic() - t >= 1.0


def test_a_dead_pid_of_this_host_is_taken_over_at_once(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()  # a pid that no longer runs
    _hold(tmp_path, "k", {"pid": proc.pid, "host": socket.gethostname(), "pid_start": "1"})
    t = time.monotonic()
    assert _fill_one(tmp_path, "k") == [[0]]
    assert time.monotonic() - t < 1.0


@pytest.mark.parametrize("pid", [0, -1, True], ids=["zero", "negative", "bool"])
def test_a_claim_whose_pid_names_no_process_is_stale_when_nobody_touched_it(tmp_path, monkeypatch, pid):
    """``os.kill(0, 0)`` (and -1, and True == 1 read as a pid) succeed: such a claim of this host
    looked alive for ever, and its waiters waited the maximum wait (30 min by default).  It is
    judged like another host's claim instead: stale once nobody touched it for a minute."""
    monkeypatch.setenv("GEC_META_CLAIM_WAIT", "5")  # a regression fails in seconds, not 30 min
    _hold(tmp_path, "k", {"pid": pid, "host": socket.gethostname(), "pid_start": None},
          age=claims.STALE_AFTER_S + 5)
    t = time.monotonic()
    assert _fill_one(tmp_path, "k") == [[0]]
    assert time.monotonic() - t < 1.0


@dataclasses.dataclass(frozen=True)
class _Chars(Metric):
    """The characters of each hypothesis, at once (the job script's metric without the sleep)."""

    name: ClassVar[str] = "chars-claims"
    needs_references: ClassVar[bool] = False

    def statistics(self, sources, hypotheses, references):
        return np.array([[[[float(len(h))]] for h in hyp] for hyp in hypotheses])


def test_no_claims_with_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("GEC_META_CACHE", "off")
    monkeypatch.setenv("HOME", str(tmp_path))  # not the default cache folder either
    monkeypatch.chdir(tmp_path)
    stats = compute_statistics(_Chars(), SOURCES, HYPOTHESES, None)
    np.testing.assert_array_equal(stats[:, :, 0, 0], EXPECTED)
    assert not list(tmp_path.rglob("*.claim")) and not list(tmp_path.rglob("claims"))


def test_compute_once_reads_what_the_live_owner_stores_instead_of_computing(tmp_path, monkeypatch):
    import threading

    from gec_meta import cache

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path))
    me = {"pid": os.getpid(), "host": socket.gethostname(), "pid_start": claims._process_start(os.getpid())}
    path = _hold(tmp_path, "p-values", me)  # a live owner (another thread here) computing them
    owners = np.array([[0.0, 0.25], [0.75, 0.0]])

    def owner():
        time.sleep(0.5)
        cache.save_array("p-values", owners)  # stores, then releases its claim
        path.unlink()

    threading.Thread(target=owner).start()
    computed = []
    got = claims.compute_once("p-values", lambda: computed.append(1) or np.zeros((2, 2)), kind="pvalues",
                              about={"what": "test p-values"}, usable=lambda a: a.shape == (2, 2))
    np.testing.assert_array_equal(got, owners)
    assert computed == []  # waited and read, never computed here
    # stored: a later call reads it at once
    assert claims.compute_once("p-values", lambda: pytest.fail("recomputed"), kind="pvalues",
                               about={"what": "test p-values"}).tolist() == owners.tolist()


EXTRACT_JOB = textwrap.dedent('''
    import json, os, sys, time
    from gec_meta.edits import extract

    LOG = sys.argv[1]

    def slow_parse(self, todo, threads=None):  # stands in for spaCy + ERRANT: logs, sleeps, stores
        with open(LOG, "a") as fh:
            fh.write(json.dumps({"pid": os.getpid(), "pairs": len(todo)}) + "\\n")
        time.sleep(2.0)
        for key, (s, t) in todo.items():
            self.store.put(key, [[0, 1, 0, 1, s.split()[0], t.split()[0], "R:OTHER"]])

    extract.ErrantExtractor._compute = slow_parse
    pairs = [("a b", "x b"), ("c d", "y d"), ("e f", "z f")]
    edits = extract.errant_extractor().extract(pairs)
    print("RESULT " + json.dumps([[list(e) for e in es] for es in edits]), flush=True)
''')


def _two_jobs(tmp_path, job: str) -> tuple[list, list[dict]]:
    """Run the script ``job`` twice at once on one empty cache: both results and the log lines
    its jobs wrote (the script's first argument)."""
    script = tmp_path / "job.py"
    script.write_text(job)
    env = {**os.environ, "GEC_META_CACHE": str(tmp_path / "cache")}
    procs = [subprocess.Popen([sys.executable, str(script), str(tmp_path / "log.jsonl")], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    results = [_result(p)[0] for p in procs]
    return results, [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]


def test_two_jobs_parsing_the_same_pairs_parse_them_once(tmp_path):
    results, parses = _two_jobs(tmp_path, EXTRACT_JOB)
    expected = [[[0, 1, 0, 1, w, x, "R:OTHER"]] for w, x in (("a", "x"), ("c", "y"), ("e", "z"))]
    assert results[0] == results[1] == expected
    assert [p["pairs"] for p in parses] == [3]  # one job parsed, the other waited and read its edits


M2_JOB = textwrap.dedent('''
    import json, os, sys, time
    from gec_meta.data.m2 import GoldEdit
    from gec_meta.edits import m2_matches
    from gec_meta.metrics.edit.m2 import M2

    LOG = sys.argv[1]
    search = m2_matches._match_items

    def slow_search(context, ks):  # m2scorer's search, logged and slowed down
        with open(LOG, "a") as fh:
            fh.write(json.dumps({"pid": os.getpid(), "items": len(ks)}) + "\\n")
        time.sleep(2.0)
        return search(context, ks)

    m2_matches._match_items = slow_search
    gold = [[(GoldEdit(2, 3, "R:VERB", ("sat",), 0),), ()]]
    stats = M2().statistics(["the cat sit", "a dog ."], [["the cat sat", "a dog ."], ["the cats sit", "a dog"]], gold)
    print("RESULT " + json.dumps(stats.tolist()), flush=True)
''')


def test_two_jobs_searching_the_same_m2_lattices_search_them_once(tmp_path):
    """Two metrics of the M2 family started together on an empty cache: one searches the lattices,
    the other waits for its claim and reads the stored matches."""
    results, searches = _two_jobs(tmp_path, M2_JOB)
    # (tp, fp, fn): system 0's "sat" is the gold edit; system 1's "cats" is not, and misses it;
    # sentence 2 is unchanged by system 0, and system 1 deletes "." (no gold edit there)
    assert results[0] == results[1] == [[[[1, 0, 0]], [[0, 0, 0]]], [[[0, 1, 1]], [[0, 1, 0]]]]
    assert [s["items"] for s in searches] == [4]  # one job searched, the other waited and read
