"""The sweep of issue 8 of 10, cold then warm, with its cache accounting.

    python bench/bench_sweep.py [--jobs 2] [--cache DIR]

Runs, through ``run.py`` (Hydra multirun, one process per sweep),

    metric=pt_m2,uot_errant,errant,gleu  refset=official,bn10,e_minimal,ne_minimal
    aggregation=average,trueskill,expected_wins  encoder=minilm

(48 jobs on SEEDA Base; MiniLM because the papers' encoders cannot be downloaded here) twice
into fresh sweep folders: first with an empty cache folder (cold), then again (warm).  With
``--jobs 2`` the joblib launcher runs 2 jobs at a time with ``threads=1`` each.  Reads every
job's ``timing.json`` (stage times and the cache hit/miss counters of :mod:`gec_meta.cache`)
and prints a Markdown summary (appended to ``bench/RESULTS.md`` with ``--write``).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from common import BENCH, PY, REPO, compile_sources, machine, timed

# Aggregation first: Hydra runs the cartesian product in this order, so the first 16 jobs
# compute the 16 distinct (metric, reference set) statistics -- two different ones at a time
# under the joblib launcher -- and the other 32 find them in the cache.  (With metric first,
# two parallel jobs would compute the same statistics at once.)
SWEEP = ["aggregation=average,trueskill,expected_wins", "metric=pt_m2,uot_errant,errant,gleu",
         "refset=official,bn10,e_minimal,ne_minimal", "encoder=minilm"]


def run_sweep(out: Path, cache: Path, jobs: int) -> dict:
    cmd = [PY, "run.py", "-m", *SWEEP, f"hydra.sweep.dir={out}"]
    if jobs > 1:
        cmd += ["hydra/launcher=joblib", f"hydra.launcher.n_jobs={jobs}", "threads=1"]
    res = timed(cmd, env={"GEC_META_CACHE": str(cache)}, timeout=4 * 3600)
    timings = [json.loads(p.read_text()) for p in sorted(out.glob("*/timing.json"))]
    counters: Counter = Counter()
    stats_s = 0.0
    for t in timings:
        counters.update(t.get("cache", {}))
        stats_s += t.get("statistics_s", 0.0)
    return {"wall_s": res["wall_s"], "peak_rss_mib": res["peak_rss_mib"], "jobs": len(timings),
            "statistics_s": stats_s, "cache": dict(counters),
            "results": len(list(out.glob("*/results.json")))}


def ratio(c: dict, kind: str) -> str:
    hit, miss = c.get(f"{kind}_hit", 0), c.get(f"{kind}_miss", 0)
    return f"{hit}/{hit + miss} ({100 * hit / (hit + miss):.0f}%)" if hit + miss else "–"


def main() -> None:
    from arguments import Parser, count

    ap = Parser()
    ap.add_argument("--jobs", type=count(1), default=1)
    ap.add_argument("--cache", type=Path, default=None, help="cache folder (default: a fresh temporary one)")
    ap.add_argument("--write", action="store_true", help="append the summary to bench/RESULTS.md")
    args = ap.parse_args()
    compile_sources()
    tmp = Path(tempfile.mkdtemp(prefix="gec-meta-sweep-"))
    cache = args.cache or tmp / "cache"
    rows = []
    try:
        for label in ("cold", "warm"):
            t = time.perf_counter()
            r = run_sweep(tmp / label, cache, args.jobs)
            r["label"] = label
            rows.append(r)
            print(f"{label}: {r['jobs']} jobs in {time.perf_counter() - t:.0f} s", flush=True)
    finally:
        if args.cache is None:
            shutil.rmtree(tmp, ignore_errors=True)
    lines = [
        f"\n## The issue-8 sweep (`python bench/bench_sweep.py --jobs {args.jobs}`), "
        f"{dt.date.today().isoformat()}, {machine()}\n",
        "`run.py -m " + " ".join(SWEEP) + "` on SEEDA Base: 48 jobs, 16 distinct (metric, "
        "reference set) statistics; aggregation and meta-evaluation never rescore.\n",
        "| run | jobs | wall (s) | time in statistics (s, summed over jobs) | per-system statistics from cache | "
        "ERRANT edits / small values computed | encoder states computed | peak RSS (MiB) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        c = r["cache"]
        lines.append(f"| {r['label']} | {r['jobs']} | {r['wall_s']:.0f} | {r['statistics_s']:.0f} | "
                     f"{ratio(c, 'stats')} | {c.get('kv_put', 0)} | {c.get('arrays_put', 0)} | "
                     f"{r['peak_rss_mib']:.0f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        with (BENCH / "RESULTS.md").open("a", encoding="utf-8") as fh:
            fh.write(text)


if __name__ == "__main__":
    assert (REPO / "run.py").is_file()
    main()
