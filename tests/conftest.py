"""Shared fixtures: the real data directory and an isolated cache per test session."""

from __future__ import annotations

import gc
import os
import signal
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _data_root() -> Path:
    env = os.environ.get("GEC_META_DATA")
    if env:
        return Path(env)
    if (REPO / "data" / "seeda").is_dir():
        return REPO / "data"
    return REPO.parent / "shared" / "data"


# Two xdist workers share the machine's cores: a BLAS or OpenMP pool of one thread per core in
# each worker (numpy/scipy's OpenBLAS, torch's intra-op pool) puts two spinning threads on every
# core, and the spinning costs ~12% of the suite's CPU (make test: 543 s -> 478 s of CPU, 5 min
# 0 s -> 4 min 41 s).  One thread per pool unless the caller asked otherwise; the tests of the
# `threads` option set their counts explicitly (threadpoolctl / torch.set_num_threads), which
# overrides these, and run.py subprocesses inherit them like any environment.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


# A shell without job control starts background commands (`make test &`) with SIGINT ignored,
# and an ignored signal stays ignored across exec: the Ctrl-C tests' subprocesses would then
# never see their SIGINT. A handler (not SIG_IGN) is reset to the default at exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# The garbage collector in a test process.  A worker imports torch, transformers, spaCy, scipy and
# matplotlib and keeps them, so each full (generation-2) collection walks millions of objects that
# will never be garbage: measured on six modules in one process, 5.9 s of 64 s of CPU went to the
# collector, 4.6 s of it in 17 full collections.  After each full collection everything still
# alive moves to the permanent generation (gc.freeze: the next full collection walks only what came
# since), and the young generation is collected every 10,000 allocations instead of 700: the
# collector's share 1.9 s, the six modules 56 s of CPU.  Cyclic garbage made of objects that had
# survived a full collection is then never freed, which a test process (minutes, one session) can
# afford; gec-meta's own processes keep Python's defaults.
def _freeze_survivors(phase: str, info: dict) -> None:
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()


def pytest_configure(config):
    gc.set_threshold(10_000, 20, 20)
    if _freeze_survivors not in gc.callbacks:
        gc.callbacks.append(_freeze_survivors)


# ``make test-durations`` (tests/timed_run.py) sets GEC_META_TEST_CPU_DIR: every pytest process
# (each xdist worker) then writes the CPU seconds of each of its tests there, its own plus those
# of the processes it waited for (run.py subprocesses, worker pools, chromium), and timed_run.py
# prints the modules and tests that cost most, and when each worker ran out of tests (a core left
# idle at the end).  The wall time of --durations hides a test's subprocesses and the time it
# waits; the CPU is what two workers on two cores share.
_CPU_ROWS: list[tuple[str, float, float, float]] = []  # test, CPU s, wall s, start (epoch s)


def _cpu_now() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not os.environ.get("GEC_META_TEST_CPU_DIR"):
        yield
        return
    import time

    cpu, wall, start = _cpu_now(), time.perf_counter(), time.time()
    yield
    _CPU_ROWS.append((item.nodeid, _cpu_now() - cpu, time.perf_counter() - wall, start))


def pytest_sessionfinish(session):
    folder = os.environ.get("GEC_META_TEST_CPU_DIR")
    if folder and _CPU_ROWS:
        import json

        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        (Path(folder) / f"{name}.json").write_text(json.dumps(_CPU_ROWS), encoding="utf-8")


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A copy of the package's sources that :mod:`gec_meta.cache.code` reads instead, for tests
    that edit it (``tests/package_copy.py``); the real sources and fresh memos afterwards."""
    from package_copy import clear_memos, copy_package

    yield copy_package(tmp_path, monkeypatch)
    monkeypatch.undo()
    clear_memos()


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The benchmark data (``make data``); real-data tests skip when it is absent."""
    root = _data_root()
    if not (root / "seeda").is_dir():
        pytest.skip(f"benchmark data not found in {root} (run `make data`)")
    return root


@pytest.fixture(scope="session", autouse=True)
def isolated_cache(tmp_path_factory):
    """Every test session gets its own on-disk cache, so tests never see a user's cache. The
    pytest-xdist workers of one run share it (their base folders' common parent is that run's):
    what one worker stored (parses, statistics, encoder states) the other reads instead of
    computing it again; a worker needing statistics or parses that the other is computing waits
    for its claim (gec_meta.cache.claims; encoder batches have no claims, so two workers may still
    encode the same texts at the same moment)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        path = tmp_path_factory.getbasetemp().parent / "gec-meta-cache"
        path.mkdir(exist_ok=True)
    else:
        path = tmp_path_factory.mktemp("gec-meta-cache")
    old = os.environ.get("GEC_META_CACHE")
    os.environ["GEC_META_CACHE"] = str(path)
    yield path
    if old is None:
        os.environ.pop("GEC_META_CACHE", None)
    else:
        os.environ["GEC_META_CACHE"] = old


@pytest.fixture(autouse=True)
def yaml_parsed_once(request):
    """Every test composes configs with the YAML memo that gec-meta-run and the Python API's
    ``compose`` use (gec_meta.config.parsed_yaml_once: each distinct config text parsed once per
    process, deep copies handed out; a composition ~27% cheaper), so the tests' own Hydra
    compositions cost what a user's do. tests/test_hydra_once.py tests the memo itself: it
    installs and removes it there."""
    if request.node.module.__name__.endswith("test_hydra_once"):
        yield
        return
    from gec_meta.config import parsed_yaml_once

    with parsed_yaml_once():
        yield


@pytest.fixture(scope="session")
def gjg15_m2_official(data_root):
    """M2 on GJG15 with its default official references (``annotator0``), system level only,
    computed once per test session: m2scorer's lattices of 13 systems x 1,312 sentences are
    the costliest real-data run that several CI tests check (the official CoNLL-2014 scores)."""
    from gec_meta.data.datasets import load_gjg15
    from gec_meta.data.refsets import load_refset
    from gec_meta.meta.aggregation import Default
    from gec_meta.meta.task import Task
    from gec_meta.metrics.edit.m2 import M2

    ds = load_gjg15(data_root)
    refs = load_refset("official", ds, data_root)  # missing_annotator unset: GJG15's protocol
    return Task(ds, M2(), Default(), refs, window=None, sentence_level=False, spa_permutations=0).run()
