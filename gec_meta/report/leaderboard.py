"""Render the leaderboard (:mod:`gec_meta.meta.board` computes it): Markdown, LaTeX, CSV, PNG.

Every renderer takes the :class:`~gec_meta.meta.board.Board` objects of
:func:`gec_meta.meta.board.build_boards` (or read back from their JSON data or CSV,
:func:`read_csv`) and computes nothing: the HTML page (:mod:`gec_meta.report.html`) draws the
same objects.  The CSV is the long format of :func:`render_csv`; :func:`read_csv` reads it back
into boards (everything but the robustness sets' system counts and the global weights, which the
CSV does not carry).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from gec_meta.meta.board import SHORT, Board, BoardTask

def board_rows(board: Board) -> list[dict]:
    """One row per metric (global-rank order): global rank, average rank, average value and
    every task's value and cluster rank (``<task>`` and ``<task> rank``)."""
    g = board.global_ranking
    rows = []
    for m in board.metrics:
        row = {"metric": board.labels[m], "global rank": board.position(m), "avg rank": g.average_rank[m],
               "avg value": g.average_value[m]}
        for t in board.tasks:
            c = board.cells[(t.name, m)]
            row[t.name] = c.value
            row[f"{t.name} rank"] = c.rank
            if c.epsilon is not None:
                row[f"{t.name} epsilon"] = c.epsilon
        rows.append(row)
    return rows


def _benchmark_table(board: Board, benchmark: str, fmt: str) -> str:
    from gec_meta.report.tables import render

    tasks = [t for t in board.tasks if t.benchmark == benchmark]
    cols = {t.name: (f"{t.target} {SHORT[t.statistic]}" if t.level == "system" else
                     f"{SHORT[t.statistic]} ({t.target})") for t in tasks}
    rows, marks = [], {}
    for i, m in enumerate(board.metrics):
        row = {"metric": board.labels[m]}
        for t in tasks:
            c = board.cells[(t.name, m)]
            row[cols[t.name]] = c.value
            marks[(i, cols[t.name])] = f"[{c.rank}]"
            if t.statistic == "acc_eq":
                row[f"ε* ({t.target})"] = c.epsilon
        rows.append(row)
    columns = ["metric"]
    for t in tasks:
        columns.append(cols[t.name])
        if t.statistic == "acc_eq":
            columns.append(f"ε* ({t.target})")
    return render(rows, columns, fmt, 3, emphasize=[cols[t.name] for t in tasks], marks=marks,
                  mark_legend={"[k]": "significance cluster k (PERM-BOTH, 1 = top)"},
                  caption=f"{benchmark}, aggregation {board.aggregation}.{_chance_note(board, tasks, cols)}")


def _chance_note(board: Board, tasks: Sequence[BoardTask], cols: Mapping[str, str]) -> str:
    """`` Chance: acc_eq (edit) 0.521.``: the chance level of every pairwise-accuracy column
    (the same for every metric unless a metric leaves scores out; the CSV has each cell's)."""
    parts = []
    for t in tasks:
        chances = {board.cells[(t.name, m)].chance for m in board.metrics} - {None}
        if chances:
            low, high = min(chances), max(chances)
            parts.append(f"{cols[t.name]} {low:.3f}" + (f"–{high:.3f}" if f"{high:.3f}" != f"{low:.3f}" else ""))
    return (" Chance level (a metric that ignores the outputs, on the same pairs): " + ", ".join(parts) + "."
            if parts else "")


def _summary_table(board: Board, fmt: str) -> str:
    from gec_meta.report.tables import render

    g = board.global_ranking
    fooled = {f"fooled by ({name})": sections for name, sections in board.robustness.items()}
    rows = [{"#": board.position(m), "metric": board.labels[m], "avg rank": g.average_rank[m],
             "avg value": g.average_value[m],
             **{col: ", ".join(sections[m]["fooled_by"]) or "none" for col, sections in fooled.items()}}
            for m in board.metrics]
    caption = (f"Global ranking over {len(board.tasks)} tasks, aggregation {board.aggregation}: "
               "weighted average of the cluster ranks (#: order by it) and of the values.")
    if fooled:
        caption += (" Fooled by: the adversarial systems (Goto et al. 2025) the metric scores above every real "
                    "system of the robustness set (not part of the ranking).")
    return render(rows, ["#", "metric", "avg rank", "avg value", *fooled], fmt, 3,
                  emphasize=["avg rank", "avg value"], higher_is_better={"avg rank": False, "avg value": True},
                  caption=caption)


def _robustness_table(board: Board, name: str, fmt: str) -> str:
    """Each metric's rank of every attack among all systems of robustness set ``name``."""
    from gec_meta.report.tables import render

    sections = board.robustness[name]
    attacks = list(next(iter(sections.values()))["attacks"]) if sections else []
    rows, marks = [], {}
    for i, m in enumerate(board.metrics):
        sec = sections[m]
        row = {"metric": board.labels[m]}
        for a in attacks:  # (boards read back from a CSV do not know how many systems there were)
            row[a] = f"{sec['attacks'][a]['rank']}" + (f" of {len(sec['system_scores'])}" if "system_scores" in sec
                                                       else "")
            if sec["attacks"][a]["fooled"]:
                marks[(i, a)] = "†"
        rows.append(row)
    return render(rows, ["metric", *attacks], fmt, marks=marks,
                  mark_legend={"†": "fooled: scored above every real system"},
                  caption=f"{name}, aggregation {board.aggregation}: each attack's rank among all systems "
                          "(1 = best; Goto et al. 2025).")


def render_markdown(boards: Sequence[Board], preamble: str = "") -> str:
    parts = [preamble.rstrip() + "\n"] if preamble else []
    for board in boards:
        parts.append(f"## Aggregation: {board.aggregation}\n")
        parts.append(_summary_table(board, "md"))
        for b in board.benchmarks:
            parts.append(f"### {b} ({board.aggregation})\n")
            parts.append(_benchmark_table(board, b, "md"))
        for name in board.robustness:
            parts.append(f"### Robustness: {name} ({board.aggregation})\n")
            parts.append(_robustness_table(board, name, "md"))
    return "\n".join(p.rstrip() + "\n" for p in parts)


def render_latex(boards: Sequence[Board]) -> str:
    parts = []
    for board in boards:
        parts.append(f"% aggregation: {board.aggregation}")
        parts.append(_summary_table(board, "latex"))
        for b in board.benchmarks:
            parts.append(_benchmark_table(board, b, "latex"))
        for name in board.robustness:
            parts.append(_robustness_table(board, name, "latex"))
    return "\n".join(p.rstrip() + "\n" for p in parts)


def render_csv(boards: Sequence[Board]) -> str:
    """Long format: aggregation, metric, label, task, level, statistic, value, cluster, epsilon,
    chance (a pairwise accuracy's chance level), global rank, average rank, average value (full
    precision).  Robustness sets add rows of level ``robustness`` (benchmark = the set, target =
    the attack): statistic ``rank`` (among all systems) and ``fooled`` (1 or 0), with no cluster,
    ε or chance level.  The last column, ``format_version``, names the file's format
    (:data:`gec_meta.formats.LEADERBOARD_VERSION` on every row; CHANGELOG.md)."""
    from gec_meta.formats import versioned_csv

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for board in boards:
        g = board.global_ranking
        for m in board.metrics:
            for t in board.tasks:
                c = board.cells[(t.name, m)]
                w.writerow([board.aggregation, m, board.labels[m], t.benchmark, t.target, t.level, t.statistic,
                            repr(c.value), c.rank, "" if c.epsilon is None else repr(c.epsilon),
                            "" if c.chance is None else repr(c.chance), board.position(m),
                            repr(g.average_rank[m]), repr(g.average_value[m])])
            for name, sections in board.robustness.items():
                for attack, a in sections[m]["attacks"].items():
                    for statistic, value in (("rank", a["rank"]), ("fooled", int(a["fooled"]))):
                        w.writerow([board.aggregation, m, board.labels[m], name, attack, "robustness", statistic,
                                    value, "", "", "", board.position(m), repr(g.average_rank[m]),
                                    repr(g.average_value[m])])
    return versioned_csv(buf.getvalue())


CSV_COLUMNS = ("aggregation", "metric", "label", "benchmark", "target", "level", "statistic", "value", "cluster",
               "epsilon", "chance", "global_rank", "avg_rank", "avg_value")


def read_csv(text: str, name: str = "leaderboard.csv") -> list[Board]:
    """The boards of a :func:`render_csv` text (``render_csv(read_csv(t)) == t``), its columns
    read by name (:func:`gec_meta.formats.leaderboard_rows`).

    The robustness sections get each attack's ``rank`` and ``fooled`` and the ``fooled_by`` list
    (the CSV has no system scores); the global ranking gets no task weights.

    Raises:
        DataError: naming ``name`` and the line, when the text is not such a CSV.
    """
    from gec_meta.errors import DataError
    from gec_meta.meta.board import Cell
    from gec_meta.meta.global_rank import GlobalRanking

    from gec_meta.formats import leaderboard_rows

    boards: dict[str, dict] = {}
    for lineno, r in enumerate(leaderboard_rows(text, name, CSV_COLUMNS), start=2):
        try:
            b = boards.setdefault(r["aggregation"], {"metrics": {}, "tasks": {}, "cells": {}, "robust": {}})
            b["metrics"].setdefault(r["metric"], (r["label"], float(r["avg_rank"]), float(r["avg_value"])))
            if r["level"] == "robustness":
                attacks = b["robust"].setdefault(r["benchmark"], {}).setdefault(r["metric"], {})
                attacks.setdefault(r["target"], {})[r["statistic"]] = int(r["value"])
                continue
            task = BoardTask(r["benchmark"], r["target"], r["level"], r["statistic"])
            b["tasks"].setdefault(task.name, task)
            b["cells"][(task.name, r["metric"])] = Cell(float(r["value"]), int(r["cluster"]),
                                                        float(r["epsilon"]) if r["epsilon"] else None,
                                                        float(r["chance"]) if r["chance"] else None)
        except (ValueError, TypeError) as exc:  # TypeError: a short row's missing cells are None
            raise DataError(f"line {lineno}: not a leaderboard row ({exc})", name) from None
    out = []
    for aggregation, b in boards.items():
        metrics = tuple(b["metrics"])
        tasks = tuple(b["tasks"].values())
        missing = [(t, m) for t in b["tasks"] for m in metrics if (t, m) not in b["cells"]]
        if missing:
            raise DataError(f"aggregation {aggregation}: no row for task {missing[0][0]!r}, metric "
                            f"{missing[0][1]!r}", name)
        ranking = GlobalRanking({m: v[1] for m, v in b["metrics"].items()},
                                {m: v[2] for m, v in b["metrics"].items()}, metrics, {}, ())
        robust = {rs: {m: {"attacks": {a: {"rank": v["rank"], "fooled": bool(v["fooled"])} for a, v in att.items()},
                           "fooled_by": [a for a, v in att.items() if v["fooled"]]}
                       for m, att in per_metric.items()}
                  for rs, per_metric in b["robust"].items()}
        out.append(Board(aggregation, metrics, {m: v[0] for m, v in b["metrics"].items()}, tasks, b["cells"],
                         ranking, robust))
    return out


def read_board_file(path: str | Path) -> tuple[list[Board], dict | None, str]:
    """(boards, config mapping or None, Markdown preamble) of a ``leaderboard.json``
    (:func:`gec_meta.meta.board.board_document`) or a ``leaderboard.csv`` (:func:`read_csv`: no
    config, no preamble).

    Raises:
        DataError: naming the file when it cannot be read or holds no board.
    """
    import json

    from gec_meta.errors import DataError
    from gec_meta.meta.board import boards_from_document

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read the leaderboard data ({type(exc).__name__}: {exc})", path) from None
    if path.suffix.lower() == ".csv":
        boards, config, preamble = read_csv(text, str(path)), None, ""
    else:
        try:
            boards, config, preamble = boards_from_document(json.loads(text))
        except ValueError as exc:
            raise DataError(str(exc), path) from None
    if not boards:
        raise DataError("holds no board (no rows)", path)
    return boards, config, preamble


def plot_board(boards: Sequence[Board], path: str | Path) -> Path:
    """PNG: per aggregation, the metrics in global-rank order (rows) x tasks (columns), each cell
    coloured by its significance cluster (darker = better cluster) and printed with its value."""
    from gec_meta.report.plots import _figure, _save

    n = len(boards)
    width = max(8.0, 0.55 * max(len(b.tasks) for b in boards) + 3)
    height = sum(0.32 * len(b.metrics) + 1.6 for b in boards)
    fig, axes = _figure(n, 1, figsize=(width, height), squeeze=False)
    for ax, board in zip(axes[:, 0], boards):
        ranks = np.array([[board.cells[(t.name, m)].rank for t in board.tasks] for m in board.metrics], float)
        values = np.array([[board.cells[(t.name, m)].value for t in board.tasks] for m in board.metrics])
        rel = (ranks - 1) / max(1.0, ranks.max(axis=0, keepdims=True).max() - 1)
        ax.imshow(rel, cmap="Greens_r", vmin=-0.3, vmax=1.2, aspect="auto")
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=5.5)
        ax.set_yticks(range(len(board.metrics)))
        ax.set_yticklabels([f"{board.position(m)}. {board.labels[m]}" for m in board.metrics], fontsize=7)
        ax.set_xticks(range(len(board.tasks)))
        ax.set_xticklabels([f"{t.benchmark} {t.target} {SHORT[t.statistic]}" for t in board.tasks],
                           rotation=60, ha="right", fontsize=6)
        ax.set_title(f"aggregation: {board.aggregation} — cell shade = significance cluster (dark = top)",
                     fontsize=8)
    return _save(fig, path, dpi=110)
