"""The benchmark scripts check their options as gec-meta-run checks its keys (issue 34 item 3):
a count out of range, an unknown device or job is one line and exit status 2 before anything
runs; a negative ``--limit`` ran the whole GPU benchmark, an unknown ``--device`` ended in a
traceback."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("script, args, message", [
    ("bench_gpu.py", ["--limit", "-5"], "argument --limit: must be an integer >= 1, got '-5'"),
    ("bench_gpu.py", ["--limit", "0"], "argument --limit: must be an integer >= 1, got '0'"),
    ("bench_gpu.py", ["--device", "gpu"], "argument --device: expected one of auto, cpu, cuda, cuda:N, mps"),
    ("bench_gpu.py", ["--check-sentences", "-1"], "argument --check-sentences: must be an integer >= 0, got '-1'"),
    ("bench_gpu.py", ["--jobs", "ptm2,nosuch"], "argument --jobs: unknown 'nosuch'; choose from ptm2, bertscore"),
    ("bench_gpu.py", ["--batch-size", "0"], "argument --batch-size: must be an integer >= 1 and <= 4096, got '0'"),
    ("bench_gpu.py", ["--budget-s", "-3"], "argument --budget-s: must be a number of seconds > 0, got '-3'"),
    ("bench_llm_local.py", ["--batch-sizes", "1,,8"], "argument --batch-sizes: must be a comma-separated list of "
                                                      "integers >= 1, got '1,,8'"),
    ("bench_llm_local.py", ["--device", "cuda:x"], "argument --device: expected one of auto, cpu, cuda, cuda:N, mps"),
    ("bench_sweep.py", ["--jobs", "-2"], "argument --jobs: must be an integer >= 1, got '-2'"),
    ("bench_threads.py", ["--reps", "0"], "argument --reps: must be an integer >= 1, got '0'"),
    ("bench_uot.py", ["--lambdas", "abc"], "argument --lambdas: must be an integer >= 1, got 'abc'"),
    ("run_all.py", ["nosuch"], "unknown benchmark 'nosuch'; choose from errant:seeda_base, gleu:seeda_base, "
                              "green:seeda_base, errant:gjg15, gleu:gjg15, m2:gjg15, pt_errant:seeda_base"),
    ("run_all.py", ["--repeat", "0", "errant:gjg15"], "argument --repeat: must be an integer >= 1, got '0'"),
    ("plain_forward.py", ["--model", "m", "--texts", "t", "--layer", "-1"],
     "argument --layer: must be an integer >= 0, got '-1'"),
])
def test_bad_options_are_one_line(script, args, message):
    proc = subprocess.run([sys.executable, str(REPO / "bench" / script), *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == f"{script}: error: {message}\n"
    assert proc.stdout == ""


def test_a_device_this_machine_lacks_is_one_line(monkeypatch, capsys):
    # in this process, which has torch already (a fresh one spends ~2 s importing it to check the
    # device); the options' one-line errors as a process: test_bad_options_are_one_line above
    pytest.importorskip("torch")
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    monkeypatch.setattr(sys, "argv", [str(REPO / "bench" / "bench_gpu.py")])  # argparse's program name
    monkeypatch.syspath_prepend(str(REPO / "bench"))
    bench_gpu = importlib.import_module("bench_gpu")
    with pytest.raises(SystemExit) as stop:
        bench_gpu.main(["--device", "cuda:3"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1
    assert err.startswith("bench_gpu.py: error: argument --device: torch sees no CUDA GPU here")


@pytest.mark.parametrize("value, threads", [("1", 1), ("100000", "cores"), ("auto", None), ("null", None), (None, None)])
def test_ours_driver_gives_the_edit_metrics_gec_meta_threads(monkeypatch, value, threads):
    """bench/ours_driver.py builds its metrics from Python, where the config's GEC_META_THREADS
    does not reach them: it passes the variable on (GEC_META_THREADS=1 ran two workers before)."""
    monkeypatch.syspath_prepend(str(REPO / "bench"))
    if value is None:
        monkeypatch.delenv("GEC_META_THREADS", raising=False)
    else:
        monkeypatch.setenv("GEC_META_THREADS", value)
    import ours_driver

    from gec_meta.parallel import available_cores

    threads = available_cores() if threads == "cores" else threads  # capped at the cores, as in a run
    assert ours_driver.build_metric("errant").threads == threads
    assert ours_driver.build_metric("m2").threads == threads


def test_run_all_reports_the_medians_of_same_run_triples(monkeypatch):
    """``run_all.py --repeat N``: each speed-up is one run's own pair (ours and the peer minutes
    apart), the table gives the medians, a note their range; one differing run makes it "NO"."""
    monkeypatch.syspath_prepend(str(REPO / "bench"))
    import run_all

    def run(cold, warm, peer, identical=True):
        return {"task": "errant:gjg15", "cold_s": cold, "warm_s": warm, "cold_rss": 100.0, "warm_equal": True,
                "system": {}, "peer_s": peer, "peer_rss": 500.0, "identical": identical, "peer_system": {}}

    runs = [run(2.0, 0.5, 20.0), run(4.0, 0.4, 36.0), run(3.0, 0.6, 33.0)]
    row = run_all.combine(runs)
    # per run: cold 20/2 = 10, 36/4 = 9, 33/3 = 11; warm 20/0.5 = 40, 36/0.4 = 90, 33/0.6 = 55
    assert (row["cold_s"], row["warm_s"], row["peer_s"]) == (3.0, 0.5, 33.0)
    assert row["cold_ratio"] == 10.0 and row["cold_ratio_range"] == (9.0, 11.0)
    assert row["warm_ratio"] == 55.0 and row["identical"]
    text = run_all.render([row])
    assert "| errant:gjg15 | 3.0 | 0.50 | 33.0 | 10.0× | 55× | yes |" in text
    assert "errant:gjg15: medians of 3 same-run triples; cold speed-ups 9.0-11.0×" in text
    assert not run_all.combine([*runs[:2], run(3.0, 0.6, 33.0, identical=False)])["identical"]
    assert run_all.combine(runs[:1]) is runs[0]
