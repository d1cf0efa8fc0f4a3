"""``make screenshots``: a PNG of each view of the HTML pages, for the README
(``experiments/results/screenshots/``).

Pages: the committed leaderboard (``gec-meta leaderboard --from experiments/results/leaderboard.csv
--html``) and a sweep of ``length`` and ``gleu`` on GJG15 with bootstrap intervals
(``gec-meta-run -m``, minutes cold, seconds with the statistics cache; ``--runs DIR`` reuses a
sweep folder).  Headless Debian chromium driven by Playwright.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "experiments" / "results" / "screenshots"
SWEEP = ["-m", "dataset=gjg15", "metric=length,gleu", "meta_eval.bootstrap_samples=100"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", help="a sweep folder to show (default: run the sweep into a temporary folder)")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="gec-meta-screens-"))
    runs = Path(args.runs) if args.runs else tmp / "sweep"
    if not args.runs:
        subprocess.run([sys.executable, "-m", "gec_meta.cli.run", *SWEEP, f"hydra.sweep.dir={runs}"], check=True)
    board, report = tmp / "leaderboard.html", tmp / "report.html"
    subprocess.run([sys.executable, "-m", "gec_meta.cli.main", "leaderboard", "--from",
                    str(ROOT / "experiments" / "results" / "leaderboard.csv"), "--html", str(board)], check=True)
    subprocess.run([sys.executable, "-m", "gec_meta.cli.main", "report", str(runs), "--html", str(report)], check=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    shots = [(board, "#board", "leaderboard.png", None),
             (board, "#task/default/" + "GJG15%2FEW%2Fpearson", "task_board.png", None),
             (board, "#robustness", "robustness.png", None),
             (report, "#summary", "summary.png", None),
             (report, "#run/0", "task_run.png", None),
             (report, "#sentences/0", "sentences.png", "button.pair")]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        for page_path, hash_, name, click in shots:
            page = browser.new_page(viewport={"width": 1280, "height": 820})
            page.goto(page_path.as_uri() + hash_)
            page.wait_for_selector("main")
            if click:
                page.locator(click).first.click()
                page.locator("#sentence-detail").scroll_into_view_if_needed()
            page.screenshot(path=str(out / name))
            page.close()
            print(out / name)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
