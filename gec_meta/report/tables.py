"""Render results: one renderer for text, CSV, Markdown and LaTeX tables.

``python -m gec_meta.report <dir>`` (or ``gec-meta report <dir>``) collects every
``results.json`` under a (multi)run folder into ``summary_system.{csv,md}`` and
``summary_sentence.{csv,md}`` in that folder; with ``--html FILE`` it writes one interactive
page of the folder instead (:mod:`gec_meta.report.html`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from gec_meta.errors import DataError
from gec_meta.outputs import write_output

KEY_COLUMNS = ("dataset", "setting", "refset", "metric", "aggregation")


def atomic_write_text(path: Path, text: str) -> None:
    """Write a text file atomically (temporary file + rename); a full disk or ``ulimit -f`` is
    one :class:`gec_meta.outputs.OutputError` naming the file (:func:`gec_meta.outputs.write_output`)."""
    write_output(path, text)


def fmt_number(x, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        return f"{x:.{digits}f}"
    return str(x)


# Emphasis of the best and second best value of a column, as the papers print their tables.
RANK_STYLES = {
    "md": {1: "**{}**", 2: "<u>{}</u>"},
    "latex": {1: "\\textbf{{{}}}", 2: "\\underline{{{}}}"},
}
RANK_WORDS = {1: "best", 2: "second"}
# Marks (e.g. significance) in LaTeX; other marks are set as escaped superscript text.
LATEX_MARKS = {"†": r"$^{\dagger}$", "‡": r"$^{\ddagger}$", "*": r"$^{*}$"}
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
FORMATS = ("md", "csv", "tsv", "latex", "text")


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _latex_mark(mark: str) -> str:
    return "".join(LATEX_MARKS.get(ch, r"\textsuperscript{" + latex_escape(ch) + "}") for ch in mark)


def emphasis_ranks(
    rows: Sequence[dict],
    columns: Sequence[str],
    higher_is_better: bool | Mapping[str, bool] = True,
    digits: int = 3,
) -> dict[tuple[int, str], int]:
    """Rank 1 (best) and 2 (second best) of the values of each column.

    Values are compared as displayed (rounded to ``digits`` like :func:`fmt_number`), so cells
    that print the same share their rank; the second best is the next distinct value.  Missing
    values, NaN and non-numbers are never ranked.

    Args:
        rows: the table rows (dicts).
        columns: the columns to rank.
        higher_is_better: one direction for all columns or column -> direction.

    Returns:
        ``{(row index, column): 1 | 2}``.
    """
    out: dict[tuple[int, str], int] = {}
    for col in columns:
        hib = higher_is_better[col] if isinstance(higher_is_better, Mapping) else higher_is_better
        shown: dict[int, float] = {}
        for i, row in enumerate(rows):
            v = row.get(col)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                continue
            shown[i] = float(fmt_number(v, digits))
        for rank, value in enumerate(sorted(set(shown.values()), reverse=hib)[:2], start=1):
            out.update({(i, col): rank for i, v in shown.items() if v == value})
    return out


def legend(fmt: str, emphasis: bool = True, mark_legend: Mapping[str, str] | None = None,
           caption: str | None = None) -> str:
    """The caption of a table in ``fmt``: what bold/underline and each mark mean, then
    ``caption``."""
    parts = []
    if emphasis:
        if fmt in RANK_STYLES:
            best, second = (RANK_STYLES[fmt][k].format(w) for k, w in ((1, "Bold"), (2, "underlined")))
        else:
            best, second = "best", "second"
        parts.append(f"{best}: best value of its column; {second}: second best")
    for mark, meaning in (mark_legend or {}).items():
        parts.append(f"{_latex_mark(mark) if fmt == 'latex' else mark}: "
                     f"{latex_escape(meaning) if fmt == 'latex' else meaning}")
    text = "; ".join(parts) + ("." if parts else "")
    if caption:
        text += (" " if text else "") + (latex_escape(caption) if fmt == "latex" else caption)
    return text


def render(
    rows: Sequence[dict],
    columns: Sequence[str],
    fmt: str = "md",
    digits: int = 3,
    *,
    emphasize: Sequence[str] = (),
    higher_is_better: bool | Mapping[str, bool] = True,
    marks: Mapping[tuple[int, str], str] | None = None,
    mark_legend: Mapping[str, str] | None = None,
    caption: str | None = None,
) -> str:
    """Render rows (dicts) as a ``md``, ``csv``, ``tsv``, ``latex`` or ``text`` table.

    Args:
        rows, columns: the cells (``row.get(column)``; floats shown with ``digits`` decimals,
            CSV/TSV keep full precision).
        emphasize: columns whose best value is set in bold and second best underlined
            (Markdown ``**x**`` / ``<u>x</u>``, LaTeX ``\\textbf`` / ``\\underline``), ranked by
            :func:`emphasis_ranks` with ``higher_is_better``.
        marks: ``{(row index, column): symbols}`` appended to a cell (e.g. a significance mark).
        mark_legend: symbol -> meaning, for the caption.
        caption: text after the legend (e.g. the test's signature).

    CSV, TSV and text tables put ranks and marks into a ``<column> mark`` column after each
    emphasised or marked column ("best", "second", then the marks).  Markdown, LaTeX and text
    tables end with a caption (legend + ``caption``) when there is anything to explain; CSV and
    TSV stay pure data.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown table format {fmt!r}; choose from {list(FORMATS)}")
    marks = dict(marks or {})
    ranks = emphasis_ranks(rows, emphasize, higher_is_better, digits)
    marked_cols = set(emphasize) | {c for _, c in marks}
    cap = legend(fmt, bool(emphasize), mark_legend, caption) if (emphasize or mark_legend or caption) else ""

    def annotation(i: int, col: str) -> str:
        return " ".join(x for x in (RANK_WORDS.get(ranks.get((i, col))), marks.get((i, col))) if x)

    if fmt in ("csv", "tsv", "text"):
        out_cols: list[str] = []
        for c in columns:
            out_cols += [c, f"{c} mark"] if c in marked_cols else [c]
    if fmt in ("csv", "tsv"):
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        w.writerow(out_cols)
        for i, r in enumerate(rows):
            cells = []
            for c in columns:
                v = r.get(c)
                cells.append(repr(v) if isinstance(v, float) else ("" if v is None else v))
                if c in marked_cols:
                    cells.append(annotation(i, c))
            w.writerow(cells)
        return buf.getvalue()
    if fmt == "text":
        cells = []
        for i, r in enumerate(rows):
            row = []
            for c in columns:
                row.append(fmt_number(r.get(c), digits))
                if c in marked_cols:
                    row.append(annotation(i, c))
            cells.append(row)
        widths = [max(len(c), *(len(row[k]) for row in cells)) if cells else len(c)
                  for k, c in enumerate(out_cols)]
        out = ["  ".join(c.ljust(w) for c, w in zip(out_cols, widths)).rstrip()]
        out += ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells]
        return "\n".join(out) + "\n" + (f"\n{cap}\n" if cap else "")

    def cell(i: int, col: str) -> str:
        text = fmt_number(rows[i].get(col), digits)
        if fmt == "latex":
            text = latex_escape(text)
        rank = ranks.get((i, col))
        if rank:
            text = RANK_STYLES[fmt][rank].format(text)
        mark = marks.get((i, col), "")
        return text + (_latex_mark(mark) if fmt == "latex" and mark else mark)

    body = [[cell(i, c) for c in columns] for i in range(len(rows))]
    if fmt == "md":
        lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines) + "\n" + (f"\n{cap}\n" if cap else "")
    lines = [r"\begin{tabular}{" + "l" * len(columns) + "}", r"\toprule",
             " & ".join(latex_escape(c) for c in columns) + r" \\", r"\midrule"]
    lines += [" & ".join(row) + r" \\" for row in body]
    lines += [r"\bottomrule", r"\end{tabular}"]
    if cap:
        lines = [r"\begin{table}", r"\centering", *lines, r"\caption{" + cap + "}", r"\end{table}"]
    return "\n".join(lines) + "\n"


@dataclass
class Table:
    """A table with everything :func:`render` needs, rendered in any format by :meth:`render`.

    Attributes:
        rows, columns, digits: the cells.
        emphasize, higher_is_better: the columns whose best/second best value is emphasised.
        marks: ``{(row index, column): symbols}``; mark_legend: symbol -> meaning.
        caption: text after the legend.
    """

    rows: list[dict]
    columns: list[str]
    digits: int = 3
    emphasize: list[str] = field(default_factory=list)
    higher_is_better: bool | dict[str, bool] = True
    marks: dict[tuple[int, str], str] = field(default_factory=dict)
    mark_legend: dict[str, str] = field(default_factory=dict)
    caption: str = ""

    def render(self, fmt: str = "md") -> str:
        return render(self.rows, self.columns, fmt, self.digits, emphasize=self.emphasize,
                      higher_is_better=self.higher_is_better, marks=self.marks,
                      mark_legend=self.mark_legend, caption=self.caption or None)


def with_cluster_column(
    rows: Sequence[dict],
    columns: Sequence[str],
    column: str,
    ranks: Mapping[str, int],
    key: str = "metric",
) -> tuple[list[dict], list[str]]:
    """Add the significance-cluster rank of ``column`` as a new column ``<column> cluster``,
    placed right after ``column`` (the clusters of :func:`gec_meta.meta.clusters.assign_ranks`,
    1 = top cluster, as the WMT metrics tables print them).

    Args:
        rows, columns: the table (rows are not modified: new dicts are returned).
        column: the column the clusters were computed for (e.g. ``pearson``, ``acc_eq``).
        ranks: ``row[key]`` -> cluster rank; rows without a rank get an empty cell.
        key: the column naming each row's metric.

    Returns:
        (rows, columns) to pass to :func:`render` / :class:`Table`.
    """
    if column not in columns:
        raise ValueError(f"no column {column!r} to add clusters to; columns are {list(columns)}")
    name = f"{column} cluster"
    out_rows = [{**row, name: ranks.get(row.get(key))} for row in rows]
    out_cols = list(columns)
    out_cols.insert(out_cols.index(column) + 1, name)
    return out_rows, out_cols


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


def robustness_rows(results: Iterable[dict]) -> list[dict]:
    """One row per (run, attack system) of the runs with a robustness section
    (:func:`gec_meta.meta.robustness.assess`): its score, rank among all systems, how many of the
    real systems it outranks and whether it fooled the metric."""
    rows = []
    for res in results:
        section = res.get("robustness") or {}
        for name, a in (section.get("attacks") or {}).items():
            rows.append({**{k: res.get(k) for k in KEY_COLUMNS}, "attack": name, "score": a["score"],
                         "rank": a["rank"], "systems": len(section["system_scores"]), "outranks": a["outranks"],
                         "real_systems": section["real_systems"], "fooled": "yes" if a["fooled"] else "no"})
    return rows


#: The system- and sentence-level statistics of a result, in their column order (a chance level
#: ``*_random`` beside every pairwise accuracy; columns that no result has are left out).
SYSTEM_STATISTICS = ("pearson", "spearman", "pairwise_accuracy", "pairwise_accuracy_random", "spa")
SENTENCE_STATISTICS = ("accuracy", "accuracy_random", "kendall", "pairs", "acc_eq", "acc_eq_random", "tau_eq",
                       "epsilon", "pdp", "tau_b", "tau_c", "tau_23", "acc_23", "acc_23_random")


def single_run_markdown(res: dict, usage: dict | None = None) -> str:
    """Markdown report of one run (written next to ``results.json``), with what computing the
    statistics cost when the metric reports it (``usage``: LLM requests, tokens, ...)."""
    parts = [f"# {res['metric']} on {res['dataset']} ({res['setting']})\n",
             f"`{res['signature']}`\n"]
    missing = (res.get("diagnostics") or {}).get("missing")
    if missing and missing["cells"]:
        per_system = ", ".join(f"{s} {k}" for s, k in missing["per_system"].items())
        parts.append(f"\n**{missing['cells']} of {missing['of']} (system, sentence) scores are missing** "
                     f"({per_system}); those systems are scored over fewer sentences.\n\n")
    parts.append("## System level\n")
    sys_rows = [{"human": h, **c} for h, c in res["system"].items()]
    if not sys_rows:  # a robustness set without human judgments (bea19_dev_attack)
        parts.append("No human scores: nothing to correlate with.\n")
    else:
        parts.append(render(sys_rows, [c for c in ("human", *SYSTEM_STATISTICS)
                                       if c in ("human", "pearson", "spearman") or any(c in r for r in sys_rows)]))
    if res.get("sentence"):
        parts.append("\n## Sentence level\n")
        sen_rows = [{"aspect": a, **c} for a, c in res["sentence"].items()]
        parts.append(render(sen_rows, [c for c in ("aspect", *SENTENCE_STATISTICS)
                                       if any(c in r for r in sen_rows) or c == "aspect"]))
    if res.get("robustness"):
        parts.append(robustness_markdown(res["robustness"]))
    parts.append("\n## System scores\n")
    ranked = sorted(res["system_scores"].items(), key=lambda kv: -kv[1])
    parts.append(render([{"rank": i + 1, "system": s, "score": v} for i, (s, v) in enumerate(ranked)],
                        ["rank", "system", "score"], digits=4))
    if usage:
        parts.append("\n## Cost of the statistics (this run)\n")
        parts.append(render([{"what": k, "value": "–" if v is None else str(v)} for k, v in usage.items()],
                            ["what", "value"]))
    return "".join(parts)


def robustness_markdown(section: dict) -> str:
    """The robustness section of ``results.md`` (:func:`gec_meta.meta.robustness.assess`)."""
    rows = [{"attack": name, "score": a["score"], "rank": f"{a['rank']} of {len(section['system_scores'])}",
             "outranks": f"{a['outranks']} of {section['real_systems']}", "fooled": "yes" if a["fooled"] else "no",
             "above the human-best system": ", ".join(h for h, v in a.get("above_human_best", {}).items() if v)
             or "none"}
            for name, a in section["attacks"].items()]
    humans = any("above_human_best" in a for a in section["attacks"].values())
    fooled = ", ".join(section["fooled_by"]) or "none"
    return ("\n## Robustness to adversarial systems\n\n"
            f"Fooled by: {fooled} ({section['definition']}; Goto et al. 2025).\n\n"
            + render(rows, ["attack", "score", "rank", "outranks", "fooled",
                            *(["above the human-best system"] if humans else [])], digits=4))


def read_result(path: Path) -> dict:
    """One ``results.json`` (:func:`gec_meta.formats.read_results`).

    Raises:
        DataError: naming the file when it cannot be read, is not a result (truncated by a
            killed job, edited by hand, a directory) or is of another format version.
    """
    from gec_meta.formats import read_results

    return read_results(path)


def collect(folder: str | Path) -> list[dict]:
    """Every ``results.json`` under ``folder``, sorted by their key columns."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError("is not a folder of runs", folder)
    results = [read_result(p) for p in sorted(folder.rglob("results.json"))]
    return sorted(results, key=lambda r: tuple(str(r.get(k)) for k in KEY_COLUMNS))


def summary_tables(results: list[dict], fmt: str) -> dict[str, str]:
    """``system``, ``sentence`` and (where a run has a robustness section) ``robustness``: the
    summary tables of ``results`` in ``fmt``."""
    srows, trows = system_rows(results), sentence_rows(results)
    # Columns that no run has (results written before a statistic existed, or with it off) are left out.
    sys_cols = [c for c in (*KEY_COLUMNS, "human", *SYSTEM_STATISTICS) if c in KEY_COLUMNS or any(c in r for r in srows)]
    sen_cols = [c for c in (*KEY_COLUMNS, "aspect", *SENTENCE_STATISTICS)
                if c in KEY_COLUMNS or any(c in r for r in trows)]
    out = {"system": render(srows, sys_cols, fmt), "sentence": render(trows, sen_cols, fmt)}
    rrows = robustness_rows(results)
    if rrows:  # runs on a dataset with adversarial systems (seeda_attack, bea19_dev_attack, attacks=true)
        out["robustness"] = render(rrows, [*KEY_COLUMNS, "attack", "score", "rank", "systems", "outranks",
                                           "real_systems", "fooled"], fmt)
    return out
