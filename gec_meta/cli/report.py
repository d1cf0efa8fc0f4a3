"""``gec-meta report DIR`` / ``python -m gec_meta.report DIR``: collate the runs under DIR into
summary tables (:mod:`gec_meta.report.tables`) or one HTML page (:mod:`gec_meta.report.html`).

The command line lives here, not in ``report/tables.py``, so that the table renderers import
neither the HTML page nor the leaderboard (no import circle: ``tests/test_import_graph.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from gec_meta.errors import GecMetaError
from gec_meta.report.tables import FORMATS, atomic_write_text, collect, sentence_rows, summary_tables


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gec-meta report", description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="a run or multirun output folder")
    ap.add_argument("--format", default="md", choices=list(FORMATS),
                    help="format printed to stdout (CSV and Markdown files are always written)")
    ap.add_argument("--html", metavar="FILE",
                    help="write one self-contained interactive page of the folder instead (gec_meta.report.html)")
    args = ap.parse_args(argv)
    folder = Path(args.folder)
    if args.html:
        return _write_page(folder, Path(args.html))
    try:
        results = collect(folder)
    except GecMetaError as exc:
        print(f"gec-meta: error: {exc}", file=sys.stderr)
        return 2
    if not results:
        print(f"no results.json under {folder}")
        return 1
    try:
        return _write_summaries(folder, results, args.format)
    except GecMetaError as exc:  # a full disk or ulimit -f: one line naming the file
        print(f"gec-meta: error: {exc}", file=sys.stderr)
        return 2


def _write_page(folder: Path, path: Path) -> int:
    """``--html FILE``: the page of ``folder``; what is missing or unreadable is listed on it."""
    from gec_meta.report.html import report_page

    try:
        atomic_write_text(path, report_page(folder))
    except GecMetaError as exc:
        print(f"gec-meta: error: {exc}", file=sys.stderr)
        return 2
    print(f"page of {folder} written to {path}")
    return 0


def _write_summaries(folder: Path, results: list[dict], fmt: str) -> int:
    for ext in ("csv", "md"):
        for name, text in summary_tables(results, ext).items():
            atomic_write_text(folder / f"summary_{name}.{ext}", text)
    shown = summary_tables(results, fmt)
    print(shown["system"])
    if sentence_rows(results):
        print(shown["sentence"])
    if "robustness" in shown:
        print(shown["robustness"])
    print(f"{len(results)} runs; tables written to {folder}/summary_*.{{csv,md}}")
    return 0

