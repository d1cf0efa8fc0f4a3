"""Two identical sweeps (or leaderboards) started together on one empty cache (issue 33 item 2):
CPU time and outputs.

    python bench/bench_shared_cache.py [--write] [--sweep 'metric=errant,gleu dataset=seeda']
    python bench/bench_shared_cache.py --leaderboard '--metrics errant,gleu,m2 --benchmarks GJG15'

Runs the ``run.py -m`` sweep (default: ``metric=errant,gleu,m2 dataset=seeda threads=1``, a
few minutes of CPU) three times, each in a fresh process tree:

1. alone, on an empty cache folder;
2. twice at once, both on one other empty cache folder.

CPU time is user + system of each sweep's whole process tree (``os.wait4``: the process and
every worker it waited for).  Without claims (:mod:`gec_meta.cache.claims`) the two sweeps of
(2) compute every statistic twice (2x the CPU of (1)); with them each statistic is computed
once and the other sweep waits and reads it.  The ``results.json`` of every job of the three
sweeps are compared (without their timing): they must be identical.  With ``--leaderboard ARGS``
the job is ``gec-meta leaderboard --out DIR ARGS`` instead (the shipped ``conf/leaderboard.yaml``,
``--metrics``/``--benchmarks`` subsets it), and the three folders' ``leaderboard.{csv,md,json}``
must be byte-identical.  The machine is shared, so
the load average is printed next to the figures.  Prints a Markdown section (appended to
``bench/RESULTS.md`` with ``--write``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from common import BENCH, PY, REPO, compile_sources, machine

SWEEP = "metric=errant,gleu,m2 dataset=seeda threads=1"


def start(sweep: str, out: Path, cache: Path, leaderboard: str | None = None) -> subprocess.Popen:
    if leaderboard is None:
        cmd = [PY, "run.py", "-m", *shlex.split(sweep), f"hydra.sweep.dir={out}"]
    else:
        cmd = [PY, "-c", "from gec_meta.cli.main import console_main; console_main()", "leaderboard",
               "--out", str(out), *shlex.split(leaderboard)]
    env = {**os.environ, "GEC_META_CACHE": str(cache)}
    log = open(out.with_suffix(".log"), "w")
    return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)


def finish(proc: subprocess.Popen) -> dict:
    """Wait for ``proc``; its wall time and the CPU seconds of its process tree."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"sweep failed ({proc.returncode}); see {proc.args[-1]}")
    return {"cpu_s": usage.ru_utime + usage.ru_stime}


def results(out: Path) -> dict[str, dict]:
    """Every job's results.json, by job folder, without the fields that time the run; for a
    leaderboard folder its CSV, Markdown and JSON files' texts."""
    found = {}
    for name in ("leaderboard.csv", "leaderboard.md", "leaderboard.json"):
        if (out / name).is_file():
            found[name] = (out / name).read_text(encoding="utf-8")
    for path in sorted(out.glob("*/results.json")):
        data = json.loads(path.read_text())
        for key in [k for k in data if "timing" in k or k.endswith("_s")]:
            del data[key]
        found[path.parent.name] = data
    return found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", default=SWEEP, help="the run.py -m overrides (default: %(default)s)")
    ap.add_argument("--leaderboard", metavar="ARGS", default=None,
                    help="time `gec-meta leaderboard --out DIR ARGS` instead of a sweep (e.g. "
                         "'--metrics errant,gleu --benchmarks GJG15')")
    ap.add_argument("--write", action="store_true", help="append the summary to bench/RESULTS.md")
    args = ap.parse_args()
    compile_sources()
    tmp = Path(tempfile.mkdtemp(prefix="gec-meta-shared-"))
    try:
        load = [os.getloadavg()[0]]
        t = time.perf_counter()
        alone = finish(start(args.sweep, tmp / "alone", tmp / "cache-alone", args.leaderboard))
        alone["wall_s"] = time.perf_counter() - t
        load.append(os.getloadavg()[0])
        t = time.perf_counter()
        procs = [start(args.sweep, tmp / f"together{i}", tmp / "cache-shared", args.leaderboard) for i in (1, 2)]
        together = [finish(p) for p in procs]
        wall_together = time.perf_counter() - t
        load.append(os.getloadavg()[0])
        outs = [results(tmp / "alone"), results(tmp / "together1"), results(tmp / "together2")]
        identical = bool(outs[0]) and outs[0] == outs[1] == outs[2]
        claims = list((tmp / "cache-shared" / "claims").glob("*.claim")) if (tmp / "cache-shared" / "claims").exists() else []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    cpu_two = sum(r["cpu_s"] for r in together)
    kind = "sweep" if args.leaderboard is None else "leaderboard"
    flag = ("" if args.leaderboard is None else f' --leaderboard "{args.leaderboard}"' if '"' not in args.leaderboard
            else f" --leaderboard {shlex.quote(args.leaderboard)}")
    lines = [
        f"\n## Two identical {kind}s on one empty cache (`python bench/bench_shared_cache.py{flag}`), "
        f"{dt.date.today().isoformat()}\n",
        f"Machine: {machine()}; load average (1 min) before / between / after: "
        + " / ".join(f"{x:.1f}" for x in load) + ".\n",
        (f"Sweep: `run.py -m {args.sweep}` ({len(outs[0])} jobs).\n" if args.leaderboard is None else
         f"Leaderboard: `gec-meta leaderboard --out DIR {args.leaderboard}`.\n"),
        "| | CPU (user+sys, whole process tree) | wall |",
        "|---|---|---|",
        f"| one {kind} alone, empty cache | {alone['cpu_s']:.1f} s | {alone['wall_s']:.1f} s |",
        f"| two {kind}s started together, one empty cache | {together[0]['cpu_s']:.1f} s + {together[1]['cpu_s']:.1f} s "
        f"= {cpu_two:.1f} s (**{cpu_two / alone['cpu_s']:.2f}x** one {kind}) | {wall_together:.1f} s |",
        "",
        (f"results.json of every job identical in the three sweeps (timing left out): {identical}; "
         if args.leaderboard is None else
         f"leaderboard.csv, .md and .json byte-identical in the three folders: {identical}; ")
        + f"claims left behind: {len(claims)}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        with open(BENCH / "RESULTS.md", "a", encoding="utf-8") as fh:
            fh.write(text)
    if not identical:
        raise SystemExit("outputs differ")


if __name__ == "__main__":
    main()
