"""The Hydra runner end to end (toy metric, real data) and the report collation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gec_meta.cli.report import main as report_main

REPO = Path(__file__).resolve().parents[1]


def _run(args, data_root, cache):
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(cache)}
    return subprocess.run([sys.executable, "run.py", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)


def _run_here(args, data_root, cache):
    """:func:`_run` in this process (``tests/inprocess.py``): for the runs whose process is not
    what a test checks (a resume repeated after a first run in a real process)."""
    from inprocess import run_main

    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(cache)}
    return run_main(args, env, REPO)


def test_sweep_writes_results_and_resumes(data_root, tmp_path):
    sweep = tmp_path / "sweep"
    args = ["-m", "metric=length", "dataset=seeda,gjg15", "aggregation=default,trueskill",
            f"hydra.sweep.dir={sweep}"]
    first = _run(args, data_root, tmp_path / "cache")
    assert first.returncode == 0, first.stderr[-2000:]
    results = sorted(sweep.rglob("results.json"))
    assert len(results) == 4
    res = {(r["dataset"], r["aggregation"]): r for r in (json.loads(p.read_text()) for p in results)}
    seeda = res[("seeda", "default")]
    # gec-metrics' published Length values (meta_eval/seeda_test.py).
    assert seeda["system"]["TS_edit"]["pearson"] == pytest.approx(0.4834645229702062, rel=1e-6)
    assert seeda["signature"].startswith("data:seeda(setting=base,unicode=nfc+cf)|refs:none|metric:length")
    assert set(seeda) >= {"system", "sentence", "system_scores", "signature", "window", "top_k"}
    assert (results[0].parent / "results.md").is_file()
    # Rerunning the same sweep skips every finished job and changes no result file.
    before = {p: p.read_bytes() for p in results}
    second = _run_here(args, data_root, tmp_path / "cache")  # the first run was a real process
    assert second.returncode == 0
    assert second.stderr.count("skipping") + second.stdout.count("skipping") == 4
    assert all(p.read_bytes() == b for p, b in before.items())
    # Collation (in this process: the resume is what this test runs run.py for; the report CLI
    # as a process is tested in tests/test_output_formats.py and tests/test_job_outputs.py).
    assert report_main([str(sweep)]) == 0
    csv = (sweep / "summary_system.csv").read_text().splitlines()
    assert csv[0] == ("dataset,setting,refset,metric,aggregation,human,pearson,spearman,pairwise_accuracy,"
                      "pairwise_accuracy_random,spa")
    assert len(csv) == 1 + 2 * 2 + 2 * 4  # gjg15: EW, TS; seeda: 4 human scores


def test_unknown_metric_config_is_a_clear_error(data_root, tmp_path):
    out = _run(["metric=no_such_metric"], data_root, tmp_path / "cache")
    assert out.returncode != 0
    assert "no_such_metric" in out.stderr


def test_killed_sweep_resumes_to_identical_tables(data_root, tmp_path):
    """Kill a multirun in the middle; rerunning completes it and the collated tables equal an
    uninterrupted run's byte for byte."""
    import signal
    import time

    # 6 jobs (2 settings x 3 aggregations) without SPA's permutations: resuming is about the
    # job folders, and a kill after 2 of 6 jobs is as sure to land part-way as after 3 of 16.
    # The aggregations are the cheap ones (TrueSkill's resume is test_sweep_writes_results_and_resumes').
    args = ["-m", "metric=length", "dataset=seeda", "dataset.setting=base,+input",
            "aggregation=default,average,expected_wins", "meta_eval.spa_permutations=0"]
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / "cache")}
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "run.py", *args, f"hydra.sweep.dir={killed}"], cwd=REPO,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and len(list(killed.rglob("results.json"))) < 2:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = len(list(killed.rglob("results.json")))
    assert 2 <= finished < 6, "the sweep should have been killed part-way"
    # the killed sweep was a real process; its resume and the clean sweep run in this process
    resumed = _run_here([*args, f"hydra.sweep.dir={killed}"], data_root, tmp_path / "cache")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert (resumed.stderr + resumed.stdout).count("skipping") >= finished
    clean = tmp_path / "clean"
    full = _run_here([*args, f"hydra.sweep.dir={clean}"], data_root, tmp_path / "cache2")
    assert full.returncode == 0
    for folder in (killed, clean):
        assert report_main([str(folder)]) == 0
    for name in ("summary_system.csv", "summary_system.md", "summary_sentence.csv"):
        assert (killed / name).read_bytes() == (clean / name).read_bytes()
    for res in clean.rglob("results.json"):
        twin = killed / res.relative_to(clean)
        assert twin.read_bytes() == res.read_bytes()
