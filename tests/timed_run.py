"""Run pytest with the given arguments and print its wall time and CPU time (``make test-durations``).

    python tests/timed_run.py -q -m "not slow or ci" --durations=25

The CPU time is user + system seconds of pytest and every process it waited for (run.py
subprocesses, worker pools, pytest-xdist workers): unlike the wall time it hardly moves with the
machine's load, so two branches can be compared on a busy machine (README "Set-up").
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time


def main(args: list[str]) -> int:
    t0 = time.perf_counter()
    status = subprocess.call([sys.executable, "-m", "pytest", *args])
    wall = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"test suite: {wall:.0f} s wall, {ru.ru_utime + ru.ru_stime:.0f} s CPU "
          f"(user {ru.ru_utime:.0f} s + sys {ru.ru_stime:.0f} s), exit status {status}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
