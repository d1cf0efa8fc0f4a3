"""``make test-durations``' per-test CPU report (tests/timed_run.py and the hooks of tests/conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from timed_run import cpu_report

HERE = Path(__file__).resolve().parent


def test_report_sums_modules_and_ranks_tests(tmp_path):
    start = 1.8e9
    (tmp_path / "gw0.json").write_text(json.dumps([["tests/test_a.py::x", 2.5, 3.0, start],
                                                   ["tests/test_b.py::y", 1.0, 1.0, start + 3.0]]))
    (tmp_path / "gw1.json").write_text(json.dumps([["tests/test_a.py::z", 4.0, 2.0, start + 0.5]]))
    lines = cpu_report(tmp_path, total_cpu=10.0).splitlines()
    assert lines[0] == "CPU in tests 8 s; collection, start-up and teardown 2 s"
    assert lines[2].split() == ["6.5", "s", "tests/test_a.py"] and lines[3].split() == ["1.0", "s", "tests/test_b.py"]
    assert lines[5].split()[-1] == "tests/test_a.py::z" and lines[6].split()[-1] == "tests/test_a.py::x"
    # gw0 ran from 0 to 4 s, gw1 from 0.5 s to 2.5 s: gw1 sat idle for the last 1.5 s
    assert lines[9].split() == ["gw0:", "2", "tests,", "0.0", "s", "to", "4.0", "s"]
    assert lines[10].split() == ["gw1:", "1", "tests,", "0.5", "s", "to", "2.5", "s"]
    assert lines[-1].split() == ["4.0", "s", "1.0", "s", "gw0", "tests/test_b.py::y"]


def test_the_hooks_record_a_subprocess_cpu(tmp_path):
    """A test that waits for a process burning CPU is charged that CPU (os.times' children)."""
    (tmp_path / "test_burn.py").write_text(
        "import subprocess, sys\n"
        "def test_burn():\n"
        "    subprocess.run([sys.executable, '-c', 'sum(i * i for i in range(3_000_000))'], check=True)\n")
    (tmp_path / "conftest.py").write_text((HERE / "conftest.py").read_text(encoding="utf-8"))
    out = tmp_path / "cpu"
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}  # not an xdist worker's
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "test_burn.py")],
                   cwd=tmp_path, env={**env, "GEC_META_TEST_CPU_DIR": str(out)}, check=True, capture_output=True)
    ((nodeid, cpu, wall, start),) = json.loads((out / "main.json").read_text())
    assert nodeid.endswith("test_burn.py::test_burn") and cpu > 0.05 and wall > 0 and start > 1.7e9
