"""``make bench``: gec-meta vs gec-metrics 0.1.1, side by side, on this machine.

For each job: our cold run (empty cache), our warm run (cache filled), and — where the peer
library does the same job — its cold run (it has no disk cache), each in a fresh process.
Results (wall time, peak memory, ratios, whether the correlations are identical) go to
``bench/RESULTS.md``.  ``python bench/run_all.py errant:seeda_base`` runs one job;
``--repeat N`` runs each job N times (same-run triples) and reports medians: near a target
ratio, one run is not enough (the machine's speed moves by ~10-20% within an hour).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

from common import BENCH, PY, compile_sources, machine, timed

JOBS = [
    # (task, peer task or None)
    ("errant:seeda_base", "errant:seeda_base"),
    ("gleu:seeda_base", "gleu:seeda_base"),
    ("green:seeda_base", "green:seeda_base"),
    ("errant:gjg15", "errant:gjg15"),
    ("gleu:gjg15", "gleu:gjg15"),
    ("m2:gjg15", None),
    ("pt_errant:seeda_base", "pt_errant:seeda_base"),
]


# Neural jobs run float32 encoders: different batch padding (and transformers 4 in the peer's
# venv vs 5 here) moves scores by ~1e-7, so their correlations are compared to 1e-6.
NEURAL = ("pt_errant",)


def tolerance(task: str) -> float:
    return 1e-6 if task.split(":")[0] in NEURAL else 1e-9


def same(a: dict, b: dict, tol: float = 1e-9) -> bool:
    try:
        return all(math.isclose(a[h][k], b[h][k], abs_tol=tol) for h in a for k in ("pearson", "spearman"))
    except KeyError:
        return False


def run_job(task: str, peer_task: str | None) -> dict:
    cache = Path(tempfile.mkdtemp(prefix="gec-meta-bench-cache-"))
    try:
        env = {"GEC_META_CACHE": str(cache)}
        cold = timed([PY, str(BENCH / "ours_driver.py"), task], env=env)
        warm = timed([PY, str(BENCH / "ours_driver.py"), task], env=env)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    row = {"task": task, "cold_s": cold["wall_s"], "warm_s": warm["wall_s"],
           "cold_rss": cold["peak_rss_mib"], "system": cold["system"],
           "warm_equal": same(cold["system"], warm["system"])}
    if peer_task:
        from peer import run_peer

        try:
            peer = run_peer(peer_task)
        except RuntimeError as exc:  # the peer crashed: report it, keep our numbers
            row["peer_error"] = str(exc).strip().splitlines()[-1][:200]
        else:
            row.update(peer_s=peer["wall_s"], peer_rss=peer["peak_rss_mib"],
                       identical=same(cold["system"], peer["system"], tolerance(task)), peer_system=peer["system"])
    print(json.dumps({k: v for k, v in row.items() if not k.endswith("system")}), file=sys.stderr)
    return row


def combine(runs: list[dict]) -> dict:
    """One table row from ``runs`` of one job, each a same-run triple (ours cold, ours warm, the
    peer): the median of each time and of each run's own speed-ups (a ratio of two processes run
    minutes apart, so a slow spell of the machine slows both sides of it), the range of the cold
    speed-ups, and "identical" only if every run was.  One run: that run."""
    import statistics

    if len(runs) == 1:
        return runs[0]

    def median(values):  # peak RSS may be missing (None) on a platform that does not report it
        present = [v for v in values if v is not None]
        return statistics.median(present) if present else None

    row = dict(runs[0])
    for key in ("cold_s", "warm_s", "cold_rss"):
        row[key] = median(r[key] for r in runs)
    row["warm_equal"] = all(r["warm_equal"] for r in runs)
    row["runs"] = len(runs)
    paired = [r for r in runs if r.get("peer_s") is not None]
    if paired:
        cold = [r["peer_s"] / r["cold_s"] for r in paired]
        row.update(peer_s=statistics.median(r["peer_s"] for r in paired),
                   peer_rss=median(r.get("peer_rss") for r in paired),
                   identical=all(r["identical"] for r in paired), cold_ratio=statistics.median(cold),
                   cold_ratio_range=(min(cold), max(cold)),
                   warm_ratio=statistics.median(r["peer_s"] / r["warm_s"] for r in paired))
    errors = [r["peer_error"] for r in runs if "peer_error" in r]
    if errors:
        row["peer_error"] = errors[0]
    return row


def render(rows: list[dict]) -> str:
    lines = [
        "# Benchmarks: gec-meta vs gec-metrics 0.1.1",
        "",
        f"Measured {dt.date.today().isoformat()} by `make bench` on: {machine()}.",
        "Each number is the wall time of a fresh process (imports and model loading included),",
        "default aggregation, meta-evaluation against all human scores of the dataset. Cold: empty",
        "gec-meta cache; warm: the same command again. gec-metrics has no disk cache, so its run is",
        "always cold. Identical: every Pearson/Spearman equal to 1e-9 (1e-6 for the float32 neural",
        "jobs: batch padding moves their scores by ~1e-7).",
        "",
        '"Configured the same way" means: references with a missing annotator-1 line = the source (as',
        "gec-metrics builds them); GLEU with gec-metrics' arithmetic and tokenisation",
        "(`variant=corrected tokens=space`, the files' whitespace kept); PT-ERRANT with MiniLM layer 6,",
        "no idf, no baseline rescaling, BERTScore of two empty texts = 0 (`scorer.empty_pair=bert_score`,",
        "the default) and gec-metrics' corpus-level reference choice (F, TP, -FP, -FN; gec-meta's own",
        "PT-ERRANT follows PT-M2's code, ~3e-5 of r apart on SEEDA Base). The deterministic metrics are",
        "built directly from Python (`bench/ours_driver.py`),",
        "PT-ERRANT through `gec_meta.api.load_metric`. Peak RSS: the largest resident set among a run's",
        "processes (the process and those it waited for, e.g. our parse workers; `os.wait4`), ours cold.",
        "Run this on an otherwise idle machine.",
        "",
        "| job | ours cold (s) | ours warm (s) | gec-metrics (s) | cold speed-up | warm speed-up | identical | peak RSS ours / peer (MiB) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for r in rows:
        peer = r.get("peer_s")
        if "peer_error" in r:
            peer_cells = ["crashed¹", "–", "–", "–"]
            notes.append(f"¹ gec-metrics on {r['task']}: `{r['peer_error']}`")
        elif peer is None:
            peer_cells = ["–", "–", "–", "–"]
        else:
            peer_cells = [f"{peer:.1f}", f"{r.get('cold_ratio', peer / r['cold_s']):.1f}×",
                          f"{r.get('warm_ratio', peer / r['warm_s']):.0f}×", "yes" if r["identical"] else "NO"]
            if r.get("runs", 1) > 1:
                low, high = r["cold_ratio_range"]
                notes.append(f"{r['task']}: medians of {r['runs']} same-run triples; cold speed-ups "
                             f"{low:.1f}-{high:.1f}×")
        lines.append(" | ".join([f"| {r['task']}", f"{r['cold_s']:.1f}", f"{r['warm_s']:.2f}", *peer_cells,
                                 f"{r['cold_rss'] or 0:.0f} / " + (f"{r['peer_rss']:.0f} |" if r.get("peer_rss") else "– |")]))
    return "\n".join(lines + [""] + notes) + "\n"


def main(argv: list[str]) -> None:
    from arguments import Parser, count

    parser = Parser(prog="run_all.py", description="gec-meta vs gec-metrics, side by side")
    parser.add_argument("jobs", nargs="*", help="jobs to run (default: all, and bench/RESULTS.md is rewritten)")
    parser.add_argument("--repeat", type=count(1), default=1,
                        help="same-run triples per job (ours cold, ours warm, the peer); the table "
                             "gives their medians, a note the range of the cold speed-ups")
    args = parser.parse_args(argv)
    unknown = [a for a in args.jobs if a not in {j[0] for j in JOBS}]
    if unknown:  # one line, before anything runs (it ran nothing and wrote an empty table)
        parser.error(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(j[0] for j in JOBS)}")
    jobs = [j for j in JOBS if not args.jobs or j[0] in args.jobs]
    compile_sources()
    rows = [combine([run_job(*j) for _ in range(args.repeat)]) for j in jobs]
    text = render(rows)
    if not args.jobs:
        # Keep every section after this table (written by the other benchmarks and by hand).
        results = BENCH / "RESULTS.md"
        old = results.read_text() if results.is_file() else ""
        keep = old[old.index("\n## "):] if "\n## " in old else ""
        results.write_text(text + keep)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
