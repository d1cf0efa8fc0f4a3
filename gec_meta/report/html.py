"""One self-contained interactive HTML page of a leaderboard or of a run / sweep folder.

The page is one file: the data (JSON), the script and the styles are inline
(``report/assets/page.js`` and ``page.css``, package data), nothing is fetched, and it opens from
``file://``.  The plots are SVG drawn by that hand-written script from the data in the page: no
plotting library to ship or license, a leaderboard page of a few hundred kB, and every value also
printed as text (README "HTML report" says why).

* :func:`leaderboard_page`: the :class:`~gec_meta.meta.board.Board` objects that
  :mod:`gec_meta.report.leaderboard` renders as Markdown, LaTeX, CSV and PNG, plus that CSV.
* :func:`report_page`: every run under a folder (:func:`gec_meta.report.run_data.folder_data`:
  ``results.json``, ``config.yaml``, ``sentence_scores.tsv`` and the dataset's texts), and
  the ``summary_*.csv`` tables of :mod:`gec_meta.report.tables`.
"""

from __future__ import annotations

import json
import math
from importlib.resources import files
from pathlib import Path
from typing import Mapping, Sequence

from gec_meta.meta.board import Board

#: ``format`` of the data inside a page (the tests and other tools read it back).
PAGE_FORMAT = "gec-meta page 1"


def _finite(x):
    """JSON has no NaN or infinity: they travel as the strings ``"nan"``, ``"inf"``, ``"-inf"``
    (the page prints them as such)."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def _asset(name: str) -> str:
    return files("gec_meta.report").joinpath("assets", name).read_text(encoding="utf-8")


def page(data: Mapping, title: str) -> str:
    """The HTML text of a page showing ``data`` (``kind``: ``leaderboard`` or ``report``)."""
    from html import escape

    payload = json.dumps(_finite({"format": PAGE_FORMAT, **data}), ensure_ascii=False, allow_nan=False)
    # Inside <script>, "</" could close the element: JSON allows "\/" for "/".
    payload = payload.replace("</", "<\\/").replace("<!--", "<\\!--")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            # No request may leave the file: no network source for anything.
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src data:\">\n"
            f"<title>{escape(title)}</title>\n<style>\n{_asset('page.css')}</style>\n</head>\n<body>\n"
            "<noscript>This page draws its tables with JavaScript; the same numbers are in the CSV, "
            "Markdown and LaTeX files beside it.</noscript>\n"
            "<div id=\"app\"></div>\n"
            f"<script type=\"application/json\" id=\"gm-data\">{payload}</script>\n"
            f"<script>\n{_asset('page.js')}</script>\n</body>\n</html>\n")


def leaderboard_page(boards: Sequence[Board], config: Mapping | None = None, preamble: str = "") -> str:
    """The page of a leaderboard: every board (one per aggregation), the config and preamble
    that produced it (:func:`gec_meta.meta.board.board_document`) and its CSV."""
    from gec_meta.meta.board import board_document
    from gec_meta.report.leaderboard import render_csv

    doc = board_document(boards, config, preamble)
    return page({"kind": "leaderboard", "title": "gec-meta leaderboard", "config": doc["config"],
                 "preamble": doc["preamble"], "boards": doc["boards"],
                 "csv": {"leaderboard.csv": render_csv(boards)}}, "gec-meta leaderboard")


def report_page(folder: str | Path) -> str:
    """The page of a run or sweep folder (what is missing or unreadable is listed on it)."""
    from gec_meta.report.run_data import folder_data

    data = folder_data(Path(folder))
    return page({"kind": "report", "title": f"gec-meta report: {Path(folder).name}", **data},
                f"gec-meta report: {Path(folder).name}")
