"""Cold runs with threads=1 and threads=N (gec_meta.parallel's worker processes), interleaved.

    python bench/bench_threads.py [--reps 5] [--threads 2] [JOB ...]

A JOB is a comma-separated list of ``run.py`` overrides; the default jobs are M2 on GJG15
(issue 26's acceptance: threads=2 at most 0.65x the wall time of threads=1 on 2 cores),
ERRANT on GJG15 and SEEDA Base, GoToScorer and CLEME-independent on GJG15.  Every run is a
fresh process with an empty cache folder; the variants alternate (1, N, N, 1, ...) so that a
change in the machine's load hits both.  Prints the median wall time, CPU time (the process
and its workers) and statistics time of each, and whether ``results.json`` (minus the
config's hash, which names ``threads``) and ``sentence_scores.tsv`` are identical.

Run it on an otherwise idle machine: while other jobs keep every core busy, Linux's
scheduler (autogroup) shares the CPU between sessions, not processes, and extra workers
cannot get more of it.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from common import PY, REPO, compile_sources, data_dir, machine

JOBS = ["dataset=gjg15,metric=m2", "dataset=gjg15,metric=errant", "dataset=seeda,dataset.setting=base,metric=errant",
        "dataset=gjg15,metric=gotoscorer", "dataset=gjg15,metric=cleme_independent"]


def run(job: list[str], threads: int) -> tuple[float, float, float, tuple]:
    cache, out = Path(tempfile.mkdtemp(prefix="gec-meta-cache-")), Path(tempfile.mkdtemp(prefix="gec-meta-run-"))
    env = {k: v for k, v in os.environ.items() if k != "GEC_META_THREADS"}
    env.update(GEC_META_CACHE=str(cache), GEC_META_DATA=str(data_dir()))
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        proc = subprocess.run([PY, "run.py", *job, f"threads={threads}", f"hydra.run.dir={out}"], cwd=REPO,
                              env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(job)} threads={threads} failed:\n{proc.stderr[-3000:]}")
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        result = json.loads((out / "results.json").read_text())
        result.pop("config_id")
        stats_s = json.loads((out / "timing.json").read_text())["statistics_s"]
        return wall, cpu, stats_s, (result, (out / "sentence_scores.tsv").read_text())
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    from arguments import Parser, count

    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=count(1), default=5)
    ap.add_argument("--threads", type=count(1), default=2)
    ap.add_argument("jobs", nargs="*", default=JOBS)
    args = ap.parse_args()
    compile_sources()
    print(f"{machine()}; threads=1 vs threads={args.threads}, {args.reps} cold runs each, interleaved\n")
    print("| job | wall 1 (s) | wall N (s) | N / 1 | CPU 1 (s) | CPU N (s) | statistics 1 (s) | statistics N (s) | identical |")
    print("|---|---|---|---|---|---|---|---|---|")
    for spec in args.jobs:
        job = spec.split(",")
        runs: dict[int, list] = {1: [], args.threads: []}
        for rep in range(args.reps):
            for t in ((1, args.threads) if rep % 2 == 0 else (args.threads, 1)):
                runs[t].append(run(job, t))
        med = {t: [statistics.median(r[i] for r in rs) for i in range(3)] for t, rs in runs.items()}
        same = len({json.dumps(r[3], sort_keys=True) for rs in runs.values() for r in rs}) == 1
        (w1, c1, s1), (wn, cn, sn) = med[1], med[args.threads]
        print(f"| {' '.join(job)} | {w1:.2f} | {wn:.2f} | {wn / w1:.2f} | {c1:.2f} | {cn:.2f} | {s1:.2f} | {sn:.2f} | "
              f"{'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
