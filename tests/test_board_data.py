"""The leaderboard as data (gec_meta.meta.board): its JSON and CSV round trips give back the same
renderings, and the committed board's Markdown tables are re-rendered byte for byte from its CSV."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from gec_meta.errors import DataError
from gec_meta.meta.board import (BoardConfig, HumanSide, MetricScores, board_document, boards_from_document,
                                 build_boards)
from gec_meta.meta.robustness import assess
from gec_meta.report.leaderboard import read_board_file, read_csv, render_csv, render_latex, render_markdown

RESULTS = Path(__file__).resolve().parents[1] / "experiments" / "results"


def _toy_boards(progress: bool = False):
    """Two aggregations, two tasks (r and ρ against h on 5 systems), three metrics, a robustness set."""
    cfg = BoardConfig.from_mapping({
        "aggregations": ["default", "other"],
        "metrics": {"m1": {"label": "M1"}, "m2": {"label": "M2"}, "m3": {"label": "M3"}},
        "benchmarks": {"B": {"dataset": "toy", "human": ["h"]}},
        "statistics": {"system": ["pearson", "spearman"], "sentence": []},
        "permutations": 100,
        "robustness": {"R": {"dataset": "toy"}}})
    human = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    scores = {"m1": [1.0, 2.0, 3.0, 4.0, 5.0], "m2": [2.0, 1.0, 3.0, 5.0, 4.0], "m3": [5.0, 4.0, 3.0, 2.0, 1.0]}
    runs = {"B": {m: MetricScores({"default": np.array(v), "other": np.array(v[::-1])}, {}, np.zeros((5, 1)))
                  for m, v in scores.items()}}
    systems = ("A", "B", "C", "X")
    robust = {"R": {m: {a: assess(systems, np.array([1.0, 2.0, 3.0, float(i + 2)]), ("X",)) for a in ("default", "other")}
                    for i, m in enumerate(scores)}}
    boards = build_boards(cfg, runs, {"B": HumanSide({"h": human}, {}, None, ("S1", "S2", "S3", "S4", "S5"))},
                          use_cache=False, robustness=robust, progress=progress)
    return cfg, boards


def test_json_round_trip_renders_the_same_bytes():
    cfg, boards = _toy_boards()
    text = json.dumps(board_document(boards, cfg.to_mapping(), "# preamble"))
    again, config, preamble = boards_from_document(json.loads(text))
    assert preamble == "# preamble" and BoardConfig.from_mapping(config) == cfg
    assert render_markdown(again, preamble) == render_markdown(boards, preamble)
    assert render_latex(again) == render_latex(boards)
    assert render_csv(again) == render_csv(boards)
    # m1 orders the 5 systems as the humans (r = ρ = 1), m3 the reverse (r = ρ = -1) under default
    b = again[0]
    assert b.aggregation == "default" and b.metrics[0] == "m1" and b.metrics[-1] == "m3"
    assert b.cells[("B/h/pearson", "m1")].value == pytest.approx(1.0)
    assert b.cells[("B/h/spearman", "m3")].value == pytest.approx(-1.0)
    # the system scores the page plots: the inputs, labelled; "other" reverses each metric's scores
    assert b.system_scores["B"] == {"systems": ["S1", "S2", "S3", "S4", "S5"], "human": {"h": [1.0, 2.0, 3.0, 4.0, 5.0]},
                                    "metrics": {"m1": [1.0, 2.0, 3.0, 4.0, 5.0], "m2": [2.0, 1.0, 3.0, 5.0, 4.0],
                                                "m3": [5.0, 4.0, 3.0, 2.0, 1.0]}}
    assert again[1].system_scores["B"]["metrics"]["m2"] == [4.0, 5.0, 3.0, 1.0, 2.0]


def test_csv_round_trip_and_errors(tmp_path):
    _, boards = _toy_boards()
    text = render_csv(boards)
    assert render_csv(read_csv(text)) == text
    import csv
    import io

    # every row as wide as the header (robustness rows too: empty cluster, ε and chance)
    assert {len(row) for row in csv.reader(io.StringIO(text))} == {15}  # 14 + format_version
    # the robustness ranks of m3 (X scored 4 > every real system): rank 1, fooled
    sec = read_csv(text)[0].robustness["R"]["m3"]
    assert sec["attacks"]["X"] == {"rank": 1, "fooled": True} and sec["fooled_by"] == ["X"]
    bad = tmp_path / "leaderboard.csv"
    bad.write_text("\n".join(text.splitlines()[:2] + ["default,m1,M1,B,h,system,pearson,x,1,,,1,1.0,1.0,2"]) + "\n")
    with pytest.raises(DataError, match=r"leaderboard.csv.*line 3: not a leaderboard row"):
        read_board_file(bad)
    # columns read by name: the same CSV with its columns reversed gives the same boards
    rows = list(csv.reader(io.StringIO(text)))
    reversed_text = "".join(",".join(reversed(row)) + "\n" for row in rows)
    assert render_csv(read_csv(reversed_text)) == text
    without = "".join(",".join(c for k, c in enumerate(row) if rows[0][k] != "cluster") + "\n" for row in rows)
    with pytest.raises(DataError, match=r"leaderboard.csv:1: has no column 'cluster'"):
        read_csv(without)
    (tmp_path / "x.json").write_text('{"format": "something else"}')
    with pytest.raises(DataError, match="x.json.*not leaderboard data"):
        read_board_file(tmp_path / "x.json")


def test_committed_board_rerenders_from_its_csv():
    """experiments/results/leaderboard.csv read back: the same CSV bytes, and the Markdown tables of
    leaderboard.md (after its preamble) byte for byte, robustness ranks without their "of N"
    (the CSV does not carry the number of systems)."""
    csv_text = (RESULTS / "leaderboard.csv").read_text(encoding="utf-8")
    boards = read_csv(csv_text)
    assert render_csv(boards) == csv_text
    md = (RESULTS / "leaderboard.md").read_text(encoding="utf-8")
    tables = md[md.index("## Aggregation:"):]
    assert render_markdown(boards) == re.sub(r"\| (\d+) of \d+(†?) ", r"| \1\2 ", tables)
    assert [b.aggregation for b in boards] == ["default", "trueskill"] and len(boards[0].metrics) == 17


def test_build_boards_shows_a_bar_of_the_tasks(capsys):
    """``progress=True``: one bar over every (aggregation, task) pair (2 x 2 in the toy), on stderr;
    the same boards as without it."""
    _, boards = _toy_boards()
    capsys.readouterr()
    _, again = _toy_boards(progress=True)
    err = capsys.readouterr().err
    assert "meta-evaluation" in err and "4/4" in err
    assert render_csv(again) == render_csv(boards)
