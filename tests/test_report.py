"""The table renderer: bold best / underlined second per column, marks and their legend, in
every format; the expected cells are worked out by hand below."""

from __future__ import annotations

import math

import pytest

from gec_meta.report.tables import Table, emphasis_ranks, render

# Hand-worked example.  Column r (higher is better), shown with 3 decimals:
#   A 0.900, B 0.800, C 0.9004 -> "0.900" (ties with A as printed), D 0.850
#   -> best A and C, second D.
# Column err (lower is better): A 0.5, B 0.7, C missing, D 0.7 -> best A, second B and D.
# Column n (ints, higher is better): A 3, B 7, C 7, D nan -> best B and C, second A.
ROWS = [
    {"metric": "A", "r": 0.9, "err": 0.5, "n": 3},
    {"metric": "B", "r": 0.8, "err": 0.7, "n": 7},
    {"metric": "C", "r": 0.9004, "err": None, "n": 7},
    {"metric": "D", "r": 0.85, "err": 0.7, "n": math.nan},
]
COLS = ["metric", "r", "err", "n"]
HIB = {"r": True, "err": False, "n": True}


def test_ranks_compare_displayed_values_and_share_ties():
    ranks = emphasis_ranks(ROWS, ["r", "err", "n"], HIB)
    assert ranks == {
        (0, "r"): 1, (2, "r"): 1, (3, "r"): 2,
        (0, "err"): 1, (1, "err"): 2, (3, "err"): 2,
        (1, "n"): 1, (2, "n"): 1, (0, "n"): 2,
    }
    # With 4 decimals C (0.9004) alone is best and A second.
    assert {k: v for k, v in emphasis_ranks(ROWS, ["r"], digits=4).items()} == {(2, "r"): 1, (0, "r"): 2}
    # One direction for all columns: err is then ranked higher-is-better.
    assert emphasis_ranks(ROWS, ["err"], True) == {(1, "err"): 1, (3, "err"): 1, (0, "err"): 2}


def test_markdown_bold_best_underline_second_marks_and_legend():
    out = render(ROWS, COLS, "md", emphasize=["r", "err", "n"], higher_is_better=HIB,
                 marks={(1, "r"): "†", (0, "r"): "†"}, mark_legend={"†": "not significantly worse"},
                 caption="Seed 0.")
    assert out == (
        "| metric | r | err | n |\n"
        "|---|---|---|---|\n"
        "| A | **0.900**† | **0.500** | <u>3</u> |\n"
        "| B | 0.800† | <u>0.700</u> | **7** |\n"
        "| C | **0.900** | – | **7** |\n"
        "| D | <u>0.850</u> | <u>0.700</u> | nan |\n"
        "\n"
        "**Bold**: best value of its column; <u>underlined</u>: second best; †: not significantly worse. Seed 0.\n"
    )


def test_latex_textbf_underline_dagger_and_escaping():
    rows = [{"metric": "GLEU_plus & co", "EW_r": 0.7}, {"metric": "M2", "EW_r": 0.6}, {"metric": "x", "EW_r": 0.1}]
    out = render(rows, ["metric", "EW_r"], "latex", emphasize=["EW_r"], marks={(1, "EW_r"): "†"},
                 mark_legend={"†": "p >= 5%"})
    assert out.splitlines() == [
        r"\begin{table}",
        r"\centering",
        r"\begin{tabular}{ll}",
        r"\toprule",
        r"metric & EW\_r \\",
        r"\midrule",
        r"GLEU\_plus \& co & \textbf{0.700} \\",
        r"M2 & \underline{0.600}$^{\dagger}$ \\",
        r"x & 0.100 \\",
        r"\bottomrule",
        r"\end{tabular}",
        r"\caption{\textbf{Bold}: best value of its column; \underline{underlined}: second best; "
        r"$^{\dagger}$: p >= 5\%.}",
        r"\end{table}",
    ]


def test_csv_and_text_put_ranks_and_marks_into_a_mark_column():
    csv = render(ROWS, COLS, "csv", emphasize=["r"], marks={(1, "r"): "†", (3, "n"): "*"})
    assert csv.splitlines() == [
        "metric,r,r mark,err,n,n mark",
        "A,0.9,best,0.5,3,",
        "B,0.8,†,0.7,7,",
        "C,0.9004,best,,7,",
        "D,0.85,second,0.7,nan,*",
    ]
    text = render(ROWS, ["metric", "r"], "text", emphasize=["r"], marks={(0, "r"): "†"})
    assert text.splitlines()[:5] == [
        "metric  r      r mark",
        "A       0.900  best †",
        "B       0.800",
        "C       0.900  best",
        "D       0.850  second",
    ]
    assert "best: best value of its column; second: second best." in text


def test_plain_tables_are_unchanged_without_emphasis():
    rows = [{"a": "x", "b": 0.5}, {"a": "y", "b": None}]
    assert render(rows, ["a", "b"], "md") == "| a | b |\n|---|---|\n| x | 0.500 |\n| y | – |\n"
    assert render(rows, ["a", "b"], "csv") == "a,b\nx,0.5\ny,\n"
    assert render(rows, ["a", "b"], "latex").startswith("\\begin{tabular}{ll}\n")
    with pytest.raises(ValueError, match="unknown table format"):
        render(rows, ["a", "b"], "html")


def test_table_object_renders_every_format_from_one_ranking():
    table = Table(rows=ROWS, columns=["metric", "r"], emphasize=["r"], marks={(3, "r"): "†"})
    md, tex, csv = table.render("md"), table.render("latex"), table.render("csv")
    assert "| D | <u>0.850</u>† |" in md
    assert r"D & \underline{0.850}$^{\dagger}$ \\" in tex
    assert "D,0.85,second †" in csv


def test_single_run_report_states_missing_scores():
    from gec_meta.report.tables import single_run_markdown

    res = {"metric": "llm_s", "dataset": "seeda", "setting": "base", "signature": "sig",
           "system": {"TS_sent": {"pearson": 0.5, "spearman": 0.4}},
           "system_scores": {"A": 3.0, "B": 2.5}}
    assert "missing" not in single_run_markdown(res)
    res["diagnostics"] = {"missing": {"cells": 3, "of": 20, "per_system": {"A": 1, "B": 2}}}
    text = single_run_markdown(res)
    assert "**3 of 20 (system, sentence) scores are missing** (A 1, B 2)" in text
    assert text.index("missing") < text.index("## System level")
