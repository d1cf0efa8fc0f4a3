"""The leaderboard (issue 18): every offline metric x SEEDA-E/-S Base/+Fluency, GJG15 (EW, TS)
and GMEG-Wiki, ranked as the WMT metrics task ranks metrics.

    .venv/bin/python experiments/leaderboard.py [--out experiments/results]

The same as ``gec-meta leaderboard --out DIR`` with the shipped ``conf/leaderboard.yaml``:
writes ``leaderboard.{md,tex,csv,png,json}`` and the page ``leaderboard.html`` (see README
"Leaderboard", "Statistics" and "HTML report").  Seeded: the same config and code give the same
bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gec_meta.cli.leaderboard import main

if __name__ == "__main__":
    argv = sys.argv[1:]
    out = argv[argv.index("--out") + 1] if "--out" in argv else str(Path(__file__).resolve().parent / "results")
    raise SystemExit(main(["--out", out, "--html", str(Path(out) / "leaderboard.html")]))
