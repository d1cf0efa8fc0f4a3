"""The console commands end with their objects frozen (gec_meta/cli/process_end.py): the
interpreter's shutdown then skips its garbage collections over them.  The functions that tests
and library users call in-process leave the garbage collector alone, and a frozen command
still exits normally: its log is flushed and its outputs are whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Runs one command in a fresh interpreter, then prints gc.get_freeze_count() as JSON.
DRIVER = (
    "import gc, json, sys\n"
    "which, argv = sys.argv[1], sys.argv[2:]\n"
    "if which in ('run', 'run-main'):\n"
    "    from gec_meta.cli import run\n"
    "    sys.argv = ['gec-meta-run', *argv]\n"
    "    (run.console_main if which == 'run' else run.main)()\n"
    "elif which == 'gec-meta':\n"
    "    from gec_meta.cli.main import console_main\n"
    "    sys.argv = ['gec-meta', *argv]\n"
    "    assert console_main() == 0\n"
    "else:\n"
    "    from gec_meta.cli.main import main\n"
    "    assert main(argv) == 0\n"
    "print(json.dumps({'frozen': gc.get_freeze_count()}))\n"
)


def _frozen(tmp_path: Path, which: str, *argv: str) -> int:
    env = {**os.environ, "GEC_META_CACHE": str(tmp_path / "cache"),
           "GEC_META_DATA": os.environ.get("GEC_META_DATA", str(REPO / "data"))}
    proc = subprocess.run([sys.executable, "-c", DRIVER, which, *argv], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])["frozen"]


@pytest.mark.parametrize("which", ["run", "run-main"])
def test_gec_meta_run_freezes_only_as_a_console_command(tmp_path, which):
    out = tmp_path / "job"
    frozen = _frozen(tmp_path, which, "dataset=gjg15", "metric=length", f"hydra.run.dir={out}")
    if which == "run":
        assert frozen > 1000  # every object of the run (the imports alone are thousands)
    else:
        assert frozen == 0  # main(), as tests and library users call it: the collector untouched
    # The job is whole either way: its results and its log, flushed at exit, to the last line.
    results = json.loads((out / "results.json").read_text())
    assert results["metric"] == "length"
    assert "system scores:" in (out / "run.log").read_text().splitlines()[-1]


@pytest.mark.parametrize("which", ["gec-meta", "gec-meta-main"])
def test_gec_meta_freezes_only_as_a_console_command(tmp_path, which):
    (tmp_path / "src.txt").write_text("a cat sat .\nit is good .\n")
    (tmp_path / "hyp.txt").write_text("the cat sat .\nit was good .\n")
    frozen = _frozen(tmp_path, which, "score", "--src", "src.txt", "--hyp", "hyp.txt", "--ref", "hyp.txt",
                     "--metric", "length")
    assert (frozen > 1000) if which == "gec-meta" else (frozen == 0)
