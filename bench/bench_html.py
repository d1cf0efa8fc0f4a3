"""``python bench/bench_html.py``: the HTML page of the committed leaderboard: its generation time,
its size and the time to first render in headless Chromium (Debian's ``/usr/bin/chromium``
driven by Playwright), written to ``bench/RESULTS_HTML.md``.  Not a timed test.

Generation: ``gec-meta leaderboard --from experiments/results/leaderboard.csv --html`` in a fresh
process (reading the CSV, rendering, writing; the board itself is not recomputed) and in-process
(the rendering alone).  First render: from navigation start to the first contentful paint and to
the leaderboard table being drawn (``performance.now()`` when ``#board-tables table`` exists),
median of ``--repeats`` loads in fresh pages.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "experiments" / "results" / "leaderboard.csv"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--out", default=str(ROOT / "bench" / "RESULTS_HTML.md"))
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from gec_meta.report.html import leaderboard_page
    from gec_meta.report.leaderboard import read_board_file

    tmp = Path(tempfile.mkdtemp(prefix="bench-html-"))
    page_path = tmp / "leaderboard.html"
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gec_meta.cli.main", "leaderboard", "--from", str(CSV), "--html",
                    str(page_path)], check=True, capture_output=True)
    cli_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    boards, config, _ = read_board_file(CSV)
    leaderboard_page(boards, config, "")
    render_s = time.perf_counter() - t0
    size = page_path.stat().st_size
    fcp, drawn = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        version = browser.version
        for _ in range(args.repeats):
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            page.goto(page_path.as_uri())
            page.wait_for_selector("#board-tables table")
            drawn.append(page.evaluate("performance.now()"))
            fcp.append(page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime"))
            page.close()
        browser.close()
    rows = [
        ("page size", f"{size / 1e6:.2f} MB ({size:,} bytes)"),
        ("generation, `gec-meta leaderboard --from leaderboard.csv --html` (fresh process)", f"{cli_s:.2f} s"),
        ("generation, rendering alone (read CSV + page, in-process)", f"{render_s:.3f} s"),
        (f"first contentful paint, headless Chromium {version} (median of {args.repeats})",
         f"{statistics.median(fcp):.0f} ms"),
        (f"leaderboard table drawn (median of {args.repeats})", f"{statistics.median(drawn):.0f} ms"),
    ]
    text = ("# HTML page of the committed leaderboard\n\n"
            f"`python bench/bench_html.py` on {dt.date.today()}, {len(boards)} boards x {len(boards[0].metrics)} "
            f"metrics x {len(boards[0].tasks)} tasks (experiments/results/leaderboard.csv). The machine is shared: "
            "times are indicative.\n\n| what | value |\n|---|---|\n"
            + "".join(f"| {a} | {b} |\n" for a, b in rows))
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
