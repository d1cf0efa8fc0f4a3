"""The HTML page's data (gec_meta.report.html, gec_meta.report.run_data), without a browser:
sentence scores read by column name, the disagreeing pairs of a hand-made dataset, what a page
says about missing parts, and the one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gec_meta.data.datasets import Dataset
from gec_meta.formats import SENTENCE_SCORES_VERSION
from gec_meta.report.run_data import disagreements, folder_data, read_sentence_scores

REPO = Path(__file__).resolve().parents[1]


def page_data(html: str) -> dict:
    """The JSON inside a page (the tests read back what the page draws)."""
    m = re.search(r'<script type="application/json" id="gm-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def test_sentence_scores_by_column_name(tmp_path):
    """The page reads sentence_scores.tsv through gec_meta.formats: columns in another order are
    read by name, a missing column or another format version is an error naming the file."""
    tsv = tmp_path / "sentence_scores.tsv"
    v = SENTENCE_SCORES_VERSION
    tsv.write_text(f"format_version\tscore\tline\tsentence\tsystem\n{v}\t0.5\t1\t0\tA\n{v}\t0.25\t2\t1\tA\n"
                   f"{v}\tnan\t1\t0\tB\n{v}\t1.0\t2\t1\tB\n")
    systems, scores = read_sentence_scores(tsv)
    assert systems == ["A", "B"]
    np.testing.assert_array_equal(scores, [[0.5, 0.25], [np.nan, 1.0]])
    tsv.write_text("format_version\tsystem\tsentence\tline\n")
    with pytest.raises(Exception, match=r"sentence_scores.tsv:1: has no column 'score'"):
        read_sentence_scores(tsv)
    tsv.write_text(f"format_version\tsystem\tsentence\tline\tscore\n{v + 1}\tA\t0\t1\t0.5\n")
    with pytest.raises(Exception, match=rf"sentence_scores.tsv:2: a sentence-score file of format {v + 1}, newer"):
        read_sentence_scores(tsv)


def test_disagreements_of_a_hand_made_rating():
    """3 systems rated on 2 sentences; the metric agrees on sentence 0 and on sentence 1 reverses
    the humans' A > B (margin 0.5) and A > C (margin 0.125): those two pairs, largest first."""
    ratings = np.array([[3.0, 3.0], [2.0, 2.0], [1.0, 1.0]])  # (S, N)
    ds = Dataset("toy", "default", "toy", ("s0", "s1"), ("A", "B", "C"), (("a0", "a1"), ("b0", "b1"), ("c0", "c1")),
                 {"score": ratings.mean(axis=1)}, {}, (0, 1), segment_scores={"score": ratings})
    metric = np.array([[0.9, 0.5], [0.5, 1.0], [0.1, 0.625]])  # (S, N), systems as ds
    got = disagreements(ds, ["A", "B", "C"], metric)["score"]
    assert [(p["sentence"], p["better"], p["worse"]) for p in got] == [(1, "A", "B"), (1, "A", "C")]
    assert got[0]["metric"] == [0.5, 1.0] and got[0]["human"] == [3.0, 2.0]
    # the systems of sentence_scores.tsv in another order give the same pairs
    again = disagreements(ds, ["C", "A", "B"], metric[[2, 0, 1]])["score"]
    assert again == got


def _result(metric="length", pearson=0.25):
    return {"format_version": 2, "signature": f"data:toy|metric:{metric}", "dataset": "toy", "setting": "default", "refset": "none",
            "metric": metric, "aggregation": "default", "system_scores": {"A": 1.0, "B": 2.0},
            "system": {"h": {"pearson": pearson, "spearman": float("nan")}}, "sentence": {}}


def test_folder_with_missing_parts(tmp_path):
    """A good run (no config.yaml, no tsv), a failed run, a truncated results.json and an older
    result without system scores: the page lists each, nothing raises."""
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "results.json").write_text(json.dumps(_result()))
    (tmp_path / "failed").mkdir()
    (tmp_path / "failed" / "run.log").write_text("Traceback ...\n")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "results.json").write_text('{"system": {')
    (tmp_path / "old").mkdir()
    old = _result("gleu", 0.5)
    del old["system_scores"]
    (tmp_path / "old" / "results.json").write_text(json.dumps(old))
    (tmp_path / "v1").mkdir()  # written before output formats had a version
    v1 = _result("m2", 0.5)
    del v1["format_version"]
    (tmp_path / "v1" / "results.json").write_text(json.dumps(v1))
    data = folder_data(tmp_path)
    assert [r["path"] for r in data["runs"]] == ["ok", "old"]
    text = "\n".join(data["problems"])
    assert "failed: no results.json" in text and "broken/results.json: cannot read this result file" in text
    assert "v1/results.json: " in text and "format 1" in text
    assert any("no 'system_scores'" in n for n in data["runs"][1]["notes"])
    assert any("no config.yaml" in n for n in data["runs"][0]["notes"])
    from gec_meta.report.html import report_page

    shown = page_data(report_page(tmp_path))
    assert shown["runs"][0]["result"]["system"]["h"] == {"pearson": 0.25, "spearman": "nan"}  # NaN as text


def test_empty_sweep_and_not_a_folder(tmp_path):
    out = tmp_path / "page.html"
    (tmp_path / "sweep").mkdir()
    proc = subprocess.run([sys.executable, "-m", "gec_meta.cli.main", "report", str(tmp_path / "sweep"), "--html",
                           str(out)], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert "no readable results.json under this folder (an empty sweep?)" in "".join(page_data(out.read_text())["problems"])
    proc = subprocess.run([sys.executable, "-m", "gec_meta.report", str(tmp_path / "nope"), "--html", str(out)],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines() == [
        f"gec-meta: error: {tmp_path / 'nope'}: is not a folder of runs"]


def test_leaderboard_page_from_the_committed_csv(tmp_path):
    """``--from leaderboard.csv --html``: the page's boards are the CSV's, with the preamble of the
    leaderboard.md beside it; a page of a few hundred kB."""
    from gec_meta.cli.leaderboard import main
    from gec_meta.report.leaderboard import read_csv, render_csv

    csv_path = REPO / "experiments" / "results" / "leaderboard.csv"
    out = tmp_path / "board.html"
    assert main(["--from", str(csv_path), "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    data = page_data(html)
    from gec_meta.meta.board import Board

    assert render_csv([Board.from_dict(b) for b in data["boards"]]) == csv_path.read_text(encoding="utf-8")
    assert data["csv"]["leaderboard.csv"] == render_csv(read_csv(csv_path.read_text(encoding="utf-8")))
    assert data["preamble"].startswith("# Leaderboard: GEC metrics ranked")
    assert len(html.encode()) < 1_000_000 and "http://" not in html.replace("http://www.w3.org/2000/svg", "")


def test_a_report_builds_only_gec_meta_data_loaders(tmp_path):
    """A folder's config.yaml names what the report instantiates: anything but gec-meta's own data
    loaders is refused (shown on the page, never called)."""
    from gec_meta.errors import ConfigError
    from gec_meta.report.run_data import load_dataset

    with pytest.raises(ConfigError, match="'os.system' is not one of gec-meta's data loaders"):
        load_dataset("dataset: {_target_: os.system, command: touch " + str(tmp_path / "x") + "}\n")
    assert not (tmp_path / "x").exists()
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results.json").write_text(json.dumps(_result()))
    (tmp_path / "run" / "config.yaml").write_text("dataset: [unclosed\n")
    data = folder_data(tmp_path)
    (entry,) = data["datasets"].values()
    assert entry["error"].startswith("run/config.yaml: ParserError")
