"""Render results: one renderer for text, CSV, Markdown and LaTeX tables.

``python -m gec_meta.report <dir>`` collects every ``results.json`` under a (multi)run folder
into ``summary_system.{csv,md}`` and ``summary_sentence.{csv,md}`` in that folder.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Iterable, Sequence

KEY_COLUMNS = ("dataset", "setting", "refset", "metric", "aggregation")


def atomic_write_text(path: Path, text: str) -> None:
    """Write a text file atomically (temporary file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(tmp, 0o644)  # mkstemp creates 0600; results are meant to be shared
    os.replace(tmp, path)


def fmt_number(x, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        return f"{x:.{digits}f}"
    return str(x)


def render(rows: Sequence[dict], columns: Sequence[str], fmt: str = "md", digits: int = 3) -> str:
    """Render rows (dicts) as a ``md``, ``csv``, ``tsv``, ``latex`` or ``text`` table."""
    cells = [[fmt_number(r.get(c), digits) for c in columns] for r in rows]
    if fmt == "csv" or fmt == "tsv":
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow([repr(v) if isinstance(v, float) else ("" if v is None else v)
                        for v in (r.get(c) for c in columns)])
        return buf.getvalue()
    if fmt == "md":
        lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in cells]
        return "\n".join(lines) + "\n"
    if fmt == "latex":
        lines = [r"\begin{tabular}{" + "l" * len(columns) + "}", r"\toprule",
                 " & ".join(columns) + r" \\", r"\midrule"]
        lines += [" & ".join(c.replace("_", r"\_") for c in row) + r" \\" for row in cells]
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines) + "\n"
    if fmt == "text":
        widths = [max(len(c), *(len(row[i]) for row in cells)) if cells else len(c)
                  for i, c in enumerate(columns)]
        out = ["  ".join(c.ljust(w) for c, w in zip(columns, widths))]
        out += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
        return "\n".join(out) + "\n"
    raise ValueError(f"unknown table format {fmt!r}")


def system_rows(results: Iterable[dict]) -> list[dict]:
    rows = []
    for res in results:
        for human, corr in res.get("system", {}).items():
            rows.append({**{k: res.get(k) for k in KEY_COLUMNS}, "human": human, **corr})
    return rows


def sentence_rows(results: Iterable[dict]) -> list[dict]:
    rows = []
    for res in results:
        for aspect, corr in (res.get("sentence") or {}).items():
            rows.append({**{k: res.get(k) for k in KEY_COLUMNS}, "aspect": aspect, **corr})
    return rows


def single_run_markdown(res: dict) -> str:
    """Markdown report of one run (written next to ``results.json``)."""
    parts = [f"# {res['metric']} on {res['dataset']} ({res['setting']})\n",
             f"`{res['signature']}`\n", "## System level\n"]
    parts.append(render([{"human": h, **c} for h, c in res["system"].items()],
                        ["human", "pearson", "spearman"]))
    if res.get("sentence"):
        parts.append("\n## Sentence level\n")
        parts.append(render([{"aspect": a, **c} for a, c in res["sentence"].items()],
                            ["aspect", "accuracy", "kendall", "pairs"]))
    parts.append("\n## System scores\n")
    ranked = sorted(res["system_scores"].items(), key=lambda kv: -kv[1])
    parts.append(render([{"rank": i + 1, "system": s, "score": v} for i, (s, v) in enumerate(ranked)],
                        ["rank", "system", "score"], digits=4))
    return "".join(parts)


def collect(folder: str | Path) -> list[dict]:
    """Every ``results.json`` under ``folder``, sorted by their key columns."""
    results = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(Path(folder).rglob("results.json"))]
    return sorted(results, key=lambda r: tuple(str(r.get(k)) for k in KEY_COLUMNS))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("folder", help="a run or multirun output folder")
    ap.add_argument("--format", default="md", choices=["md", "csv", "tsv", "latex", "text"],
                    help="format printed to stdout (CSV and Markdown files are always written)")
    args = ap.parse_args(argv)
    folder = Path(args.folder)
    results = collect(folder)
    if not results:
        print(f"no results.json under {folder}")
        return 1
    sys_cols = [*KEY_COLUMNS, "human", "pearson", "spearman"]
    sen_cols = [*KEY_COLUMNS, "aspect", "accuracy", "kendall", "pairs"]
    srows, trows = system_rows(results), sentence_rows(results)
    atomic_write_text(folder / "summary_system.csv", render(srows, sys_cols, "csv"))
    atomic_write_text(folder / "summary_system.md", render(srows, sys_cols, "md"))
    atomic_write_text(folder / "summary_sentence.csv", render(trows, sen_cols, "csv"))
    atomic_write_text(folder / "summary_sentence.md", render(trows, sen_cols, "md"))
    print(render(srows, sys_cols, args.format))
    if trows:
        print(render(trows, sen_cols, args.format))
    print(f"{len(results)} runs; tables written to {folder}/summary_*.{{csv,md}}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
