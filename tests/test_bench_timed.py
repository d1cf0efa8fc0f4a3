"""bench/common.py's ``timed`` reports each child's own peak memory: it read ``RUSAGE_CHILDREN``,
the largest resident set of every child the bench had waited for, so the peer's PT-ERRANT run
was given our earlier run's 1,036 MiB (bench/RESULTS.md, "Session 32")."""

from __future__ import annotations

import importlib
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


def test_each_child_its_own_peak(timed):
    big = timed([sys.executable, "-c", BIG])
    small = timed([sys.executable, "-c", "print('{\"small\": 1}')"])
    assert big["big"] == 1 and small["small"] == 1  # the last JSON line of stdout
    assert big["peak_rss_mib"] >= 200
    assert small["peak_rss_mib"] < 100  # not the big child's peak


def test_the_processes_it_waited_for_count(timed):
    """A job's worker processes (reaped by it) are part of its peak: gec-meta's parse workers."""
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {BIG!r}], check=True, capture_output=True)"
    assert timed([sys.executable, "-c", parent])["peak_rss_mib"] >= 200


def test_failure_and_timeout(timed):
    with pytest.raises(RuntimeError, match="boom"):
        timed([sys.executable, "-c", "import sys; sys.exit('boom')"])
    with pytest.raises(subprocess.TimeoutExpired):
        timed([sys.executable, "-c", "import time; time.sleep(30)"], timeout=1)
