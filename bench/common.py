"""Shared helpers for the benchmarks: timed subprocesses, machine description, results file."""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORK = BENCH / ".work"
PY = sys.executable


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, Python {platform.python_version()}, {platform.system()}"


def compile_sources() -> None:
    """Byte-compile gec_meta once, as any first run leaves it.

    An editable install has no ``.pyc`` files until a first import writes them, and with
    ``PYTHONDONTWRITEBYTECODE`` set (as on the project machines) every benchmark process would
    compile our ~20 modules from source again (~35 ms, 10% of a warm run), while the peer's
    pip-installed package ships compiled.  ``compileall`` writes them regardless of that flag.
    """
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "gec_meta")], check=True,
                   capture_output=True)


def timed(cmd: list[str], env: dict | None = None, cwd: Path = REPO, timeout: float = 3600) -> dict:
    """Run ``cmd``; return wall time, peak RSS of the child (MiB) and its stdout's last JSON line."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True,
                          text=True, timeout=timeout)
    wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} failed:\n{proc.stderr[-3000:]}")
    payload = {}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            payload = json.loads(line)
            break
    # ru_maxrss of RUSAGE_CHILDREN is the max over all waited-for children (KiB on Linux);
    # it only tells this child's peak if it exceeds the previous ones, hence also the
    # child's own report where available.
    return {"wall_s": wall, "peak_rss_mib": max(peak, before) / 1024, **payload}


def data_dir() -> Path:
    env = os.environ.get("GEC_META_DATA")
    return Path(env) if env else REPO / "data"
