"""Run pytest with the given arguments and print its wall time and CPU time (``make test-durations``).

    python tests/timed_run.py -q -m "not slow or ci" --durations=25

The CPU time is user + system seconds of pytest and every process it waited for (run.py
subprocesses, worker pools, pytest-xdist workers): unlike the wall time it hardly moves with the
machine's load, so two branches can be compared on a busy machine (README "Set-up").  Then the
test modules and the tests that cost most CPU (each test's own and its subprocesses', recorded by
``tests/conftest.py``), what the tests leave to collection and start-up, and when each worker
ran out of tests.
``GEC_META_TEST_CPU_KEEP=folder`` copies the per-test rows there (one JSON file per process).
"""

from __future__ import annotations

import collections
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOP = 15


def worker_report(rows_by_worker: dict[str, list]) -> list[str]:
    """When each worker started its first test and finished its last (seconds from the first
    test's start) and the tests that ended last: a worker that runs out of tests while the other
    still runs a long one leaves a core idle (rows: test, CPU s, wall s, start in epoch s)."""
    t0 = min(row[3] for rows in rows_by_worker.values() for row in rows)
    out = ["workers (seconds from the first test's start):"]
    for worker, rows in sorted(rows_by_worker.items()):
        out.append(f"  {worker}: {len(rows)} tests, {min(r[3] for r in rows) - t0:.1f} s to "
                   f"{max(r[3] + r[2] for r in rows) - t0:.1f} s")
    ends = sorted((r[3] + r[2], r[2], worker, r[0]) for worker, rows in rows_by_worker.items() for r in rows)
    out.append("tests that ended last (end, wall, worker):")
    out += [f"  {end - t0:6.1f} s  {wall:5.1f} s  {worker}  {nodeid}" for end, wall, worker, nodeid in ends[-5:]]
    return out


def cpu_report(folder: Path, total_cpu: float) -> str:
    """The test modules and tests with most CPU, from the files tests/conftest.py wrote, and each
    worker's span."""
    by_worker = {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.json"))}
    rows = [row for worker_rows in by_worker.values() for row in worker_rows]
    if not rows:
        return "no per-test CPU recorded"
    by_module: collections.Counter = collections.Counter()
    for nodeid, cpu, _, _ in rows:
        by_module[nodeid.split("::")[0]] += cpu
    in_tests = sum(row[1] for row in rows)
    out = [f"CPU in tests {in_tests:.0f} s; collection, start-up and teardown {total_cpu - in_tests:.0f} s",
           f"test modules with most CPU (of {len(by_module)}):"]
    out += [f"  {cpu:6.1f} s  {module}" for module, cpu in by_module.most_common(TOP)]
    out.append(f"tests with most CPU (of {len(rows)}; wall beside it):")
    out += [f"  {cpu:6.1f} s  {wall:6.1f} s  {nodeid}" for nodeid, cpu, wall, _ in sorted(rows, key=lambda r: -r[1])[:TOP]]
    return "\n".join(out + worker_report(by_worker))


def main(args: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="gec-meta-test-cpu-") as folder:
        t0 = time.perf_counter()
        status = subprocess.call([sys.executable, "-m", "pytest", *args],
                                 env={**os.environ, "GEC_META_TEST_CPU_DIR": folder})
        wall = time.perf_counter() - t0
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = ru.ru_utime + ru.ru_stime
        print(f"test suite: {wall:.0f} s wall, {cpu:.0f} s CPU "
              f"(user {ru.ru_utime:.0f} s + sys {ru.ru_stime:.0f} s), exit status {status}", flush=True)
        print(cpu_report(Path(folder), cpu), flush=True)
        keep = os.environ.get("GEC_META_TEST_CPU_KEEP")  # a folder to copy the per-test rows into
        if keep:
            shutil.copytree(folder, keep, dirs_exist_ok=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
