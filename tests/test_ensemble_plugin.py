"""A plugin metric (a config folder on ``hydra.searchpath``, its class on ``PYTHONPATH``) can be a
member of ``metric=ensemble`` (issue 34 item 6): members are looked up where the run looks up
its metric, in ``gec-meta-run`` and in the Python API; it used to be "unknown metric"."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import rankdata

from inprocess import run_main

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """experiments/plugin_example (UnigramF, conf/metric/unigram_f.yaml) in a folder whose name
    has a space and a quote, importable here."""
    folder = tmp_path / "my plugin's"
    shutil.copytree(REPO / "experiments" / "plugin_example", folder)
    monkeypatch.syspath_prepend(str(folder))
    return folder


def _member_scores(data_root, plugin):
    """The system scores of unigram_f and length on SEEDA (default aggregation), each run alone."""
    from gec_meta import load_dataset, load_metric, meta_evaluate

    ds = load_dataset("seeda", data_root)
    searchpath = "hydra.searchpath=['file://" + str(plugin / "conf").replace("'", "\\'") + "']"
    alone = [meta_evaluate(ds, load_metric(name, searchpath), "default", spa_permutations=0).system_scores
             for name in ("unigram_f", "length")]
    return ds, searchpath, alone


def _rank_average(ds, alone):
    """attack-gec-metrics' rank average by hand: minus each member's rank (1 = best, ties share
    their mean rank), averaged over the members."""
    ranks = [rankdata([-a[s] for s in ds.systems], method="average") for a in alone]
    return dict(zip(ds.systems, -np.mean(ranks, axis=0)))


def test_python_api_ensemble_with_a_plugin_member(data_root, plugin):
    from gec_meta import load_metric, meta_evaluate

    ds, searchpath, alone = _member_scores(data_root, plugin)
    ens = load_metric("ensemble", searchpath, members=["unigram_f", "length"])
    assert [m.name for m in ens.metrics] == ["unigram_f", "length"]
    got = meta_evaluate(ds, ens, "default", spa_permutations=0).system_scores
    assert got == pytest.approx(_rank_average(ds, alone), abs=1e-12)


def test_gec_meta_run_ensemble_with_a_plugin_member(data_root, plugin, tmp_path):
    ds, searchpath, alone = _member_scores(data_root, plugin)
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / "cache"),
           "PYTHONPATH": str(plugin)}
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "run.py", "metric=ensemble", "metric.members=[unigram_f,length]",
                           searchpath, "meta_eval.spa_permutations=0", f"hydra.run.dir={out}"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    res = json.loads((out / "results.json").read_text())
    assert "members=[unigram_f(lowercase=False" in res["signature"]
    assert res["system_scores"] == pytest.approx(_rank_average(ds, alone), abs=1e-12)
    # without the search path the member is unknown, in one line
    # a run that stops at a check: in this process (tests/inprocess.py), same status and lines
    bad = run_main(["metric=ensemble", "metric.members=[unigram_f,length]", f"hydra.run.dir={tmp_path / 'bad'}"],
                   env, REPO)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "gec-meta: error: metric.members: unknown metric 'unigram_f'" in bad.stderr
