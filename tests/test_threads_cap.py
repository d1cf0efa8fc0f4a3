"""``threads`` is bounded by the machine (issue 34 item 2): ``threads=100000`` is capped at the
cores this process may use, said once in the log, and every worker process runs its BLAS and
torch on its share of them; ``threads=auto`` is the default (the cores this job may use)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gec_meta import parallel

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)
    monkeypatch.setattr(parallel, "_CAPPED", set())


def _native_threads(context, idx):
    from threadpoolctl import threadpool_info

    blas = max([i["num_threads"] for i in threadpool_info() if i["user_api"] in ("blas", "openmp")], default=1)
    torch = sys.modules.get("torch")
    return [(os.getpid(), blas, torch.get_num_threads() if torch is not None else 1)] * len(idx)


def test_a_huge_threads_is_capped_at_the_cores_and_said_once(two_cores, caplog):
    pytest.importorskip("torch")
    import torch  # noqa: F401  (loaded: the workers must cap its threads too)

    with caplog.at_level(logging.WARNING, logger="gec_meta"):
        first = parallel.parallel_map(_native_threads, 64, threads=100000, min_work=0)
        second = parallel.parallel_map(_native_threads, 64, threads=100000, min_work=0)
    # 2 cores: at most 2 worker processes, each with 2 // 2 = 1 BLAS/OpenMP and 1 torch thread
    # (uncapped: min(100000, 64 chunks) = 64 workers with 100000 // 64 = 1562 threads each)
    for out in (first, second):
        assert len({pid for pid, _, _ in out}) <= 2
        assert {(blas, torch_threads) for _, blas, torch_threads in out} == {(1, 1)}
    lines = [r.getMessage() for r in caplog.records if "threads=100000" in r.getMessage()]
    assert len(lines) == 1
    assert lines[0].startswith("threads=100000 is more than the 2 core(s) this process may use (")
    assert lines[0].endswith("; using 2")


def test_auto_and_null_are_the_cores_and_counts_within_them_are_kept(two_cores):
    assert parallel.resolve_threads("auto") == parallel.resolve_threads(None) == 2
    assert parallel.resolve_threads(1) == 1 and parallel.resolve_threads(2) == 2
    assert parallel.resolve_threads(3) == 2 and parallel.cap_threads(100000) == 2
    assert parallel.cap_threads("auto") is None  # torch keeps its own default, as with null
    with pytest.raises(ValueError, match="threads must be a positive integer, auto or null, got 'many'"):
        parallel.resolve_threads("many")


def test_cgroup_quota_of_the_process_own_cgroup(tmp_path):
    """cgroup v2 with the process in a nested cgroup (a SLURM step below its job, a container
    below its pod): the smallest quota from its own cgroup up to the root counts."""
    own = tmp_path / "system.slice" / "job_42" / "step_0"
    own.mkdir(parents=True)
    (tmp_path / "cpu.max").write_text("max 100000\n")
    (tmp_path / "system.slice" / "job_42" / "cpu.max").write_text("300000 100000\n")  # 3 CPUs for the job
    (own / "cpu.max").write_text("max 100000\n")  # the step sets none of its own
    proc = tmp_path / "cgroup"
    proc.write_text("0::/system.slice/job_42/step_0\n")
    assert parallel.cgroup_cpu_limit(str(tmp_path), str(proc)) == 3
    (own / "cpu.max").write_text("150000 100000\n")  # 1.5 CPUs for the step: 2 cores
    assert parallel.cgroup_cpu_limit(str(tmp_path), str(proc)) == 2
    v1 = tmp_path / "v1"
    (v1 / "cpu" / "docker" / "abc").mkdir(parents=True)
    (v1 / "cpu" / "docker" / "abc" / "cpu.cfs_quota_us").write_text("50000\n")
    (v1 / "cpu" / "docker" / "abc" / "cpu.cfs_period_us").write_text("100000\n")
    proc.write_text("4:cpu,cpuacct:/docker/abc\n1:memory:/docker/abc\n")
    assert parallel.cgroup_cpu_limit(str(v1), str(proc)) == 1


def test_run_py_accepts_auto_and_caps_a_huge_threads(data_root, tmp_path):
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / "cache")}
    results = {}
    for threads in ("auto", "100000"):
        out = tmp_path / threads
        # GLEU on SEEDA Base (12 systems x 391 sentences): the same options, a fifth of GJG15's work
        proc = subprocess.run([sys.executable, "run.py", "dataset=seeda", "metric=gleu", "meta_eval.spa_permutations=0",
                               f"threads={threads}", f"hydra.run.dir={out}"],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        results[threads] = json.loads((out / "results.json").read_text())
        capped = [line for line in (proc.stdout + proc.stderr).splitlines() if "threads=100000 is more than" in line]
        assert len(capped) == (1 if threads == "100000" else 0)
    assert results["auto"]["system"] == results["100000"]["system"]


def _blas_threads_seen(context, idx):
    from threadpoolctl import threadpool_info

    return [max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")] * len(idx)


def test_work_done_in_this_process_keeps_its_blas_within_threads(monkeypatch):
    """No pool (one thread allowed, or work below ``min_work``): the stage's BLAS runs on at
    most ``threads`` threads here too, on ``blas_threads`` where the stage asks for it, and
    the caller's setting is given back; a job on all its cores is left alone."""
    pytest.importorskip("threadpoolctl")
    from threadpoolctl import threadpool_limits

    monkeypatch.setattr(parallel, "available_cores", lambda: 4)  # a job on 4 cores
    seen = []
    with threadpool_limits(3, user_api="blas"):
        for kwargs in (dict(threads=1), dict(threads=2, min_work=1e9), dict(threads=None, blas_threads=1),
                       dict(threads=4, min_work=1e9), dict(threads=None, min_work=1e9)):
            seen.append(parallel.parallel_map(_blas_threads_seen, 5, **kwargs)[0])
        after = _blas_threads_seen(None, [0])[0]
    # threads=1 and 2 capped; blas_threads=1 capped on all the cores too; 4 = all cores and None
    # (= the cores) left at the caller's 3
    assert (seen, after) == ([1, 2, 1, 3, 3], 3)
