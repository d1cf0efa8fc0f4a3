"""bench/common.py's ``timed`` reports each child's own peak memory: it read ``RUSAGE_CHILDREN``,
the largest resident set of every child the bench had waited for, so the peer's PT-ERRANT run
was given our earlier run's 1,036 MiB (bench/RESULTS.md, "Session 32")."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# A process whose resident set reaches ~200 MiB: every page of the buffer written.
BIG = "b = bytearray(200 * 2**20)\nb[::4096] = b'x' * len(range(0, len(b), 4096))\nprint('{\"big\": 1}')"


@pytest.fixture
def timed(monkeypatch):
    """``timed``, imported as the bench scripts import it (the bench folder on the path)."""
    monkeypatch.syspath_prepend(str(REPO / "bench"))
    return importlib.import_module("common").timed


def peaks(*codes: str) -> list[float]:
    """``timed``'s peak RSS of ``python -c code`` for each code in turn, called from a fresh small
    Python process as the bench calls it: Linux keeps a forked child's resident set at the fork
    (from before its exec) in its peak, so from a large test process every child would show it."""
    driver = (f"import json, sys; sys.path.insert(0, {str(REPO / 'bench')!r}); from common import timed; "
              f"print(json.dumps([timed([sys.executable, '-c', c])['peak_rss_mib'] for c in {list(codes)!r}]))")
    out = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])


def test_each_child_its_own_peak(timed):
    big, small = peaks(BIG, "print('{\"small\": 1}')")
    assert big >= 200
    assert small < 100  # not the big child's peak
    assert timed([sys.executable, "-c", BIG])["big"] == 1  # the last JSON line of stdout


def test_the_processes_it_waited_for_count():
    """A job's worker processes (reaped by it) are part of its peak: gec-meta's parse workers."""
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {BIG!r}], check=True, capture_output=True)"
    assert peaks(parent)[0] >= 200


def test_failure_and_timeout(timed):
    with pytest.raises(RuntimeError, match="boom"):
        timed([sys.executable, "-c", "import sys; sys.exit('boom')"])
    with pytest.raises(subprocess.TimeoutExpired):
        timed([sys.executable, "-c", "import time; time.sleep(30)"], timeout=1)
