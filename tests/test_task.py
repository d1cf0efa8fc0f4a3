"""The typed core: one Task, one run(), a Result whose to_json() is today's results.json."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gec_meta.data.datasets import load_seeda
from gec_meta.meta.aggregation import Default, TrueSkillAggregation
from gec_meta.meta.signature import result_signature
from gec_meta.meta.task import Result, Task, compare_with_humans, compute_statistics
from gec_meta.meta.ties import chance_accuracy, system_pairwise_accuracy
from gec_meta.metrics.length import Length
from gec_meta.report.reproduce import Significance, parse_experiment_args

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def seeda(data_root):
    return load_seeda(data_root, "base")


def test_run_equals_the_stages_composed_by_hand(seeda):
    """Task.run() == the pure stages (statistics, aggregation, comparison with the humans,
    signature) put together in results.json's key order."""
    metric, agg = Length(), TrueSkillAggregation()
    result = Task(seeda, metric, agg, window=4, bootstrap_samples=0, spa_permutations=0).run()
    bound = metric.bind(seeda.sources, seeda.hypotheses, (), systems=seeda.systems)
    stats = compute_statistics(bound, seeda.sources, seeda.hypotheses, None, systems=seeda.systems, bind=False)
    scores = agg(bound, stats)
    expected = {
        "format_version": 2,  # gec_meta.formats.RESULTS_VERSION
        "signature": result_signature(seeda, None, bound, agg, "seeda"),
        "dataset": "seeda", "setting": "base", "refset": None, "metric": "length", "aggregation": "trueskill",
        "system_scores": {s: float(v) for s, v in zip(seeda.systems, scores)},
        **compare_with_humans(seeda, scores, bound.sentence_scores(stats), 4, None, "seeda"),
    }
    for human, values in expected["system"].items():  # system-level pairwise accuracy (Kocmi et al. 2021)
        values["pairwise_accuracy"] = system_pairwise_accuracy(seeda.human[human], scores)
        values["pairwise_accuracy_random"] = chance_accuracy(seeda.human[human])
    got = result.to_json(timing=False)
    assert list(got) == list(expected)
    assert json.dumps(got) == json.dumps(expected)
    assert list(result.to_json()) == [*expected, "timing"]
    assert set(result.timing) == {"statistics_s", "aggregation_s", "meta_eval_s", "statistics_parts"}


def test_json_round_trip_and_indexing(seeda):
    result = Task(seeda, Length(), Default(), bootstrap_samples=40, bootstrap_seed=3).run()
    data = result.to_json()
    back = Result.from_json(json.loads(json.dumps(data)))
    assert json.dumps(back.to_json()) == json.dumps(data)
    assert back.scored is None and result.scored is not None
    assert result["system"] is result.system and result["system"]["TS_edit"]["ci"]["samples"] == 40
    assert "sentence" in result and "diagnostics" not in result and result.get("diagnostics") is None
    with pytest.raises(KeyError):
        result["diagnostics"]
    assert result.signature.endswith("|bootstrap:40(seed=3)")
    with_id = result.replace(config_id="abc")
    assert list(with_id.to_json(timing=False))[-1] == "config_id"
    with pytest.raises(ValueError):
        Result.from_json({**data, "unexpected": 1})


def test_front_ends_agree(seeda):
    """api.meta_evaluate and Task.run() are one computation."""
    from gec_meta import meta_evaluate

    task = Task(seeda, Length(), Default(), window=None)
    direct = task.run().to_json(timing=False)
    assert meta_evaluate(seeda, Length(), "default", window=None).to_json(timing=False) == direct


def test_score_needs_no_humans_and_reaggregates(seeda):
    from gec_meta.cli.main import files_dataset

    task = Task(seeda, Length(), Default())
    scored = task.score()
    assert np.array_equal(scored.system_scores, np.array(list(task.run().system_scores.values())))
    ts = scored.reaggregate(TrueSkillAggregation())
    assert np.array_equal(ts.system_scores, dataclasses.replace(task, aggregation=TrueSkillAggregation()).score().system_scores)
    mine = files_dataset(seeda.sources, seeda.systems, seeda.hypotheses)
    assert not mine.human and not mine.judgments
    assert np.array_equal(Task(mine, Length(), Default()).score().system_scores, scored.system_scores)


def test_experiment_arguments_come_from_the_argv_given(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["x", "--out", "/elsewhere", "--significance", "bootstrap"])
    args = parse_experiment_args([], "doc", tmp_path, Significance())
    assert args.out == tmp_path and args.significance == Significance()
    args = parse_experiment_args(["--out", "o", "--significance", "permutation", "--resamples", "9", "--seed", "2"],
                                 "doc", tmp_path, Significance())
    assert args.out == Path("o") and args.significance == Significance("permutation", 9, 2)
    assert parse_experiment_args([], "doc", tmp_path).out == tmp_path
    with pytest.raises(SystemExit):
        parse_experiment_args(["--significance", "nope"], "doc", tmp_path, Significance())
    with pytest.raises(SystemExit):  # no significance options for a script without such tables
        parse_experiment_args(["--seed", "1"], "doc", tmp_path)


def test_importing_the_library_sets_no_process_state():
    """No backend chosen and no pyplot at import; the Hydra edge's thread cap writes no env var."""
    code = (
        "import os, sys, matplotlib\n"
        "before = matplotlib.rcParams._get('backend')\n"
        "import gec_meta.report.plots, gec_meta.report.lambda_search, gec_meta.report.reproduce\n"
        "import gec_meta.cli.uot_align, gec_meta.cli.run, gec_meta.cli.main, gec_meta.api\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'\n"
        "assert matplotlib.rcParams._get('backend') == before, 'backend selected at import'\n"
        "os.environ.pop('GEC_META_THREADS', None)\n"
        "gec_meta.cli.run.cap_process_threads(1)\n"
        "assert 'GEC_META_THREADS' not in os.environ\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
