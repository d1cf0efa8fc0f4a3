"""bench/bench_gpu.py (``make bench-gpu``) on the CPU: a tiny random BERT, the first sentences of
GJG15 and SEEDA, gec-meta cold and warm against the plain forward-pass script, and the device
check (here CPU against CPU: equal)."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _in_this_process(timed, monkeypatch):
    """bench_gpu.timed, except that the plain script (bench/plain_forward.py) and gec-meta's cold
    job (bench/gpu_job.py) run here, with their command lines, environments and stdout, as
    ``python plain_forward.py ...`` or ``python gpu_job.py ...`` would: each fresh process would
    only import torch and transformers again (~5 s of this test's CPU each).  The warm job stays
    a fresh process: it reads the cold job's statistics from the cache, as the bench does, and
    keeps gpu_job.py's own command line tested in a real process."""
    import runpy
    import time

    from inprocess import as_a_process

    from gec_meta.data import datasets

    def run(cmd, env):
        script = Path(cmd[1]).name
        cold_job = script == "gpu_job.py" and cmd[cmd.index("--") - 1].endswith("-cold.json")
        if script != "plain_forward.py" and not cold_job:
            return timed(cmd, env)  # the warm job
        start = time.perf_counter()
        with monkeypatch.context() as m, as_a_process(cmd[1:], {**os.environ, **env}, REPO) as (out, err):
            for name in ("load_gjg15", "load_seeda"):  # gpu_job --limit wraps them: put them back after
                m.setattr(datasets, name, getattr(datasets, name))
            try:
                runpy.run_path(cmd[1], run_name="__main__")
            except SystemExit as exc:  # as timed() treats a process's exit status
                if exc.code not in (None, 0):
                    raise RuntimeError(f"{script} failed ({exc.code}):\n{err.getvalue()[-4000:]}") from None
        return time.perf_counter() - start, out.getvalue()

    return run


@pytest.mark.slow
# CI runs the PT-M2 job (M2 references, edit weights and the encoder: every step of the bench);
# the BERTScore job repeats the same bench steps with another metric (BERTScore itself:
# tests/test_bertscore.py), so it runs in `make test-all` only.
@pytest.mark.parametrize("jobs", [pytest.param("ptm2", marks=pytest.mark.ci), "bertscore"])
def test_bench_gpu_runs_on_the_cpu(tmp_path, data_root, jobs, monkeypatch, capsys):
    # bench_gpu.py's own steps (the tiny model, the texts the encoder ran, the device check) run in
    # this process, which has imported torch and transformers already (~6 s of CPU a fresh
    # process spends on them); so do the plain script and gec-meta's cold job, each with its
    # command line (_in_this_process), while the warm job is a fresh process, as on the command
    # line. The command line itself (its options and one-line errors) is tested in
    # tests/test_bench_options.py.
    out, js = tmp_path / "RESULTS_GPU.md", tmp_path / "rows.json"
    monkeypatch.setenv("GEC_META_DATA", str(data_root))
    monkeypatch.setenv("GEC_META_THREADS", "1")
    monkeypatch.setenv("GEC_META_CACHE", os.environ["GEC_META_CACHE"])  # the bench points it at its caches
    monkeypatch.syspath_prepend(str(REPO / "bench"))
    monkeypatch.chdir(REPO)
    bench_gpu = importlib.import_module("bench_gpu")
    monkeypatch.setattr(bench_gpu, "timed", _in_this_process(bench_gpu.timed, monkeypatch))
    bench_gpu.main(["--random-init", "tiny", "--limit", "6", "--check-sentences", "4", "--device", "cpu",
                    "--workdir", str(tmp_path / "work"), "--jobs", jobs, "--out", str(out), "--json", str(js)])
    assert "stats / plain fwd" in capsys.readouterr().out  # the table, printed at the end
    report = json.loads(js.read_text())
    assert report["info"]["device"] == "cpu" and "errors" not in report["info"]
    rows = {r["job"]: r for r in report["rows"]}
    assert set(rows) == {jobs}
    for row in rows.values():
        assert row["warm_equal"]  # the warm run reads the cold run's statistics: same system scores
        for part in ("cold", "warm", "plain"):
            assert row[part]["wall_s"] > 0
        assert row["plain"]["forward_s"] > 0 and row["cold"]["statistics_s"] > 0
    assert [c["job"] for c in report["checks"]] == [jobs]
    for check in report["checks"]:  # the same device twice: nothing may differ
        assert check["max_sentence_diff"] == 0.0 and check["max_system_diff"] == 0.0
        assert check["pair_flips"] == 0 and check["pair_outcomes"] > 0
    text = out.read_text()
    assert "stats / plain fwd" in text and "wall / plain wall" in text


def test_wall_split_takes_each_part_out_of_its_own_stage(monkeypatch):
    # A cold job on a CUDA torch: `encoder.device=auto` imports torch (3 s) while the job is
    # built, before the statistics stage; transformers (1 s) and the model (2 s) are loaded inside
    # it.  Start-up 1.5 s, statistics stage 7 s (of which 3 s imports and loading), aggregation
    # 0.25 s, meta-evaluation 0.25 s: a wall of 1.5 + 3 + 7 + 0.5 = 12 s.  (The first version took
    # all 4 s of imports out of the 7 s stage and left the 3 s early import in start-up.)
    monkeypatch.syspath_prepend(str(REPO / "bench"))
    bench_gpu = importlib.import_module("bench_gpu")
    timing = {"statistics_s": 7.0, "aggregation_s": 0.25, "meta_eval_s": 0.25,
              "statistics_parts": {"neural_imports": 1.0, "model_load": 2.0, "encode": 3.0},
              "parts": {"neural_imports": 4.0, "model_load": 2.0, "encode": 3.0}}
    split = bench_gpu.split_wall(12.0, timing)
    assert split["statistics_s"] == pytest.approx(4.0)  # 7 - 1 - 2
    assert split["startup_s"] == pytest.approx(1.5)  # 12 - 7.5 - 3 (the early torch import)
    # a timing.json without statistics_parts (written before it existed): every part inside the stage
    old = {k: v for k, v in timing.items() if k != "statistics_parts"}
    assert bench_gpu.split_wall(12.0, old) == pytest.approx({"statistics_s": 1.0, "startup_s": 4.5})


@pytest.mark.parametrize("gpu_rule", [False, True])
def test_encoder_order_check_finds_the_same_bits_on_the_cpu(tmp_path, data_root, monkeypatch, gpu_rule):
    # The device check of `make bench-gpu` (bench_gpu.encoder_order) on the CPU, with the CPU's rule
    # (passes of >= 256 tokens) and with a GPU's (passes of exactly batch_size rows, patched in):
    # either way a text's states are the same bits alone and in any company here.
    import types

    import gec_meta.kernels as kernels
    from gec_meta.encoders.testing import tiny_bert

    monkeypatch.syspath_prepend(str(REPO / "bench"))
    bench_gpu = importlib.import_module("bench_gpu")
    if gpu_rule:
        monkeypatch.setattr(kernels, "pass_rows", lambda device, batch_size: int(batch_size))
    folder = tiny_bert(tmp_path / "bert", layers=2)
    args = types.SimpleNamespace(device="cpu", data=str(data_root), batch_size=8)
    got = bench_gpu.encoder_order(folder, args, layer=2, n=30, probes=10)
    assert (got["encoder_texts"], got["encoder_company"], got["encoder_other"]) == (10, 90, 60)
    assert got["encoder_company_bitwise"] and got["encoder_other_company_bitwise"] and got["encoder_cpu_rule_bitwise"]
    assert kernels.pass_rows("cpu", 8) == (8 if gpu_rule else None)  # the check put the rule back
