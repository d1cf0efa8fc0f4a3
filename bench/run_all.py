"""``make bench``: gec-meta vs gec-metrics 0.1.1, side by side, on this machine.

For each job: our cold run (empty cache), our warm run (cache filled), and — where the peer
library does the same job — its cold run (it has no disk cache), each in a fresh process.
Results (wall time, peak memory, ratios, whether the correlations are identical) go to
``bench/RESULTS.md``.  ``python bench/run_all.py errant:seeda_base`` runs one job.
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
           "cold_rss": cold.get("self_peak_rss_mib"), "system": cold["system"],
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
        "PT-ERRANT through `gec_meta.api.load_metric`. Run this on an otherwise idle machine.",
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
            peer_cells = [f"{peer:.1f}", f"{peer / r['cold_s']:.1f}×", f"{peer / r['warm_s']:.0f}×",
                          "yes" if r["identical"] else "NO"]
        lines.append(" | ".join([f"| {r['task']}", f"{r['cold_s']:.1f}", f"{r['warm_s']:.2f}", *peer_cells,
                                 f"{r['cold_rss'] or 0:.0f} / " + (f"{r['peer_rss']:.0f} |" if r.get("peer_rss") else "– |")]))
    return "\n".join(lines + [""] + notes) + "\n"


def main(argv: list[str]) -> None:
    unknown = [a for a in argv if a not in {j[0] for j in JOBS}]
    if unknown:  # one line, before anything runs (it ran nothing and wrote an empty table)
        print(f"run_all.py: error: unknown benchmark {unknown[0]!r}; choose from {', '.join(j[0] for j in JOBS)}",
              file=sys.stderr)
        raise SystemExit(2)
    jobs = [j for j in JOBS if not argv or j[0] in argv]
    compile_sources()
    rows = [run_job(*j) for j in jobs]
    text = render(rows)
    if not argv:
        # Keep every section after this table (written by the other benchmarks and by hand).
        results = BENCH / "RESULTS.md"
        old = results.read_text() if results.is_file() else ""
        keep = old[old.index("\n## "):] if "\n## " in old else ""
        results.write_text(text + keep)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
