"""A two-job sweep through ``hydra/launcher=submitit_local`` (the code path of
``submitit_slurm``: the same launcher class pickles the task and the Hydra state for jobs run
in other processes; only the executor differs) writes the same result files, byte for byte,
as the basic launcher (issue 19 item 10).

The two jobs are the cheapest metric under two aggregations (``length``; GREEN's statistics
took 2.4 s a sweep and test nothing of the launcher) so CI stays fast; each sweep has its own
empty cache, so both compute every statistic.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
JOBS = ("aggregation=average,dataset=seeda,metric=length,threads=1",
        "aggregation=trueskill,dataset=seeda,metric=length,threads=1")
FILES = ("results.json", "config.yaml", "inputs.json", "results.md")


def _sweep(tmp_path: Path, data_root: Path, name: str, *launcher: str) -> Path:
    sweep = tmp_path / name
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / f"cache-{name}")}
    out = subprocess.run(
        [sys.executable, "run.py", "-m", "metric=length", "aggregation=average,trueskill", "dataset=seeda", "threads=1",
         f"hydra.sweep.dir={sweep}", *launcher],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=240,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return sweep


@pytest.mark.slow
@pytest.mark.ci
def test_submitit_local_sweep_equals_the_basic_launcher(data_root, tmp_path):
    if importlib.util.find_spec("hydra_plugins.hydra_submitit_launcher") is None:
        pytest.skip("needs hydra-submitit-launcher")
    submitit = _sweep(tmp_path, data_root, "submitit", "hydra/launcher=submitit_local",
                      "hydra.launcher.timeout_min=5")
    basic = _sweep(tmp_path, data_root, "basic")
    # The jobs really ran through submitit: one job folder with a pickled result per job.
    results = sorted((submitit / ".submitit").glob("*/*_result.pkl"))
    assert len(results) == len(JOBS)
    for job in JOBS:
        for name in FILES:
            assert (submitit / job / name).read_bytes() == (basic / job / name).read_bytes(), (job, name)
