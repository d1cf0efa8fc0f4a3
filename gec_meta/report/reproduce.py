"""Helpers for experiment scripts: run a configuration through the Python API and put our
number next to the published one.

Experiment scripts in ``experiments/`` build :class:`Row`s and call :func:`write_report`; the
Markdown they write states, row by row, our value, the published value and the difference.
:func:`comparison_table` sets metrics side by side (one row per metric, one column per
correlation), bold best / underlined second, and marks the metrics that are not significantly
worse than the best of their column (:mod:`gec_meta.meta.significance`).
"""

from __future__ import annotations

import argparse
import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from gec_meta.data.datasets import load_dataset
from gec_meta.data.refsets import load_refset
from gec_meta.meta.aggregation import load_aggregation
from gec_meta.fields import check_fields, integer, open_interval, valid
from gec_meta.meta.task import MAX_RESAMPLES, Scored, Task
from gec_meta.metrics.base import Metric
from gec_meta.report.tables import Table, atomic_write_text, fmt_number
from gec_meta.meta.correlation import CORRELATIONS
from gec_meta.meta.resampling import bootstrap_indices, confidence_intervals, resampled_system_scores
from gec_meta.meta.significance import compare_with_best, significance_signature


@dataclass
class Row:
    """One reproduced number."""

    label: str
    ours: float
    published: float | None
    tolerance: float | None = None
    note: str = ""

    @property
    def diff(self) -> float | None:
        if self.published is None or self.ours is None or math.isnan(self.ours):
            return None
        return self.ours - self.published

    @property
    def status(self) -> str:
        if self.diff is None or self.tolerance is None:
            return ""
        return "ok" if abs(self.diff) <= self.tolerance + 1e-12 else "DIFF"


@functools.lru_cache(maxsize=None)
def _dataset(root: str, name: str, options: tuple):
    return load_dataset(name, root, **dict(options))


@functools.lru_cache(maxsize=None)
def _refs(root: str, name: str, options: tuple, refset: str, refset_options: tuple):
    return load_refset(refset, _dataset(root, name, options), root, **dict(refset_options))


def task(
    root: str | Path,
    dataset: str,
    metric: Metric,
    aggregation: str = "default",
    refset: str = "official",
    dataset_options: dict | None = None,
    refset_options: dict | None = None,
    aggregation_options: dict | None = None,
    **options,
) -> Task:
    """The :class:`Task` of one configuration given by names, datasets and references loaded
    once per process; ``options`` are :class:`Task` fields (default here: no window analysis and
    no soft pairwise accuracy, which no paper table reports).

    ``task(...).run()`` meta-evaluates (a :class:`Result`); ``task(...).score()`` gives the
    statistics and system scores the significance tests resample (a :class:`Scored`).
    """
    root = str(root)
    dopts = tuple(sorted((dataset_options or {}).items()))
    ropts = tuple(sorted((refset_options or {}).items()))
    ds = _dataset(root, dataset, dopts)
    refs = _refs(root, dataset, dopts, refset, ropts) if metric.needs_references else None
    agg = load_aggregation(aggregation, **(aggregation_options or {}))
    # The paper tables report correlations and agreement: no SPA permutations unless asked for.
    return Task(ds, metric, agg, refs, **{"window": None, "spa_permutations": 0, **options})


@dataclass(frozen=True)
class Column:
    """One column of a :func:`comparison_table`.

    Attributes:
        header: the column header.
        group: the key of the :class:`Scored` run the column reads in every row (e.g. a SEEDA
            setting); all runs of one group share systems and sentences.
        human: the human score name (``TS_edit``, ``EW``, ...).
        kind: ``pearson`` or ``spearman``.
    """

    header: str
    group: str
    human: str
    kind: str = "pearson"


@dataclass(frozen=True)
class Significance:
    """How a :func:`comparison_table` marks metrics that are not significantly worse than the
    best one of their column (WMT style).

    Attributes:
        method: ``williams``, ``permutation`` (over systems) or ``bootstrap`` (paired, over
            sentences): see :func:`gec_meta.meta.significance.compare_with_best`.  The bootstrap
            re-aggregates every metric on every resample: cheap for TrueSkill, Expected Wins and
            means of sentence scores (vectorised), but corpus scores from accumulated counts
            (M2, ERRANT, GLEU) are recomputed per resample (0.05-0.5 s each on GJG15).
        resamples: permutation/bootstrap samples (also the bootstrap CIs).
        seed: seed of the permutations/resamples (``numpy.random.default_rng(seed)``, drawn
            afresh for every column and every group).
        alpha: significance level.
        mark: the symbol appended to the marked cells.
    """

    method: str = "williams"
    resamples: int = field(default=1000, metadata=valid(integer(1, hi=MAX_RESAMPLES), key="--resamples"))
    seed: int = field(default=0, metadata=valid(integer(0), key="--seed"))
    alpha: float = field(default=0.05, metadata=valid(open_interval(0, 1)))
    mark: str = "†"

    def __post_init__(self):
        check_fields(self, "significance")

    def signature(self) -> str:
        return significance_signature(self.method, self.resamples, self.seed, self.alpha)

    def options(self) -> str:
        """The command-line options of an experiment script that select this test."""
        if self.method == "williams":
            return "--significance williams"
        return f"--significance {self.method} --resamples {self.resamples} --seed {self.seed}"

    def describe(self) -> str:
        """The meaning of :attr:`mark`, for the table's legend."""
        if self.method == "williams":
            test = "Williams test (the sample: the systems)"
        elif self.method == "permutation":
            test = (f"paired permutation test over systems (z-scored system scores swapped; "
                    f"{self.resamples} permutations, seed {self.seed})")
        else:
            test = (f"paired bootstrap over sentences (both metrics re-aggregated on the same "
                    f"resamples; {self.resamples} resamples, seed {self.seed})")
        return (f"not significantly worse than the best metric of its column: one-sided {test}, "
                f"p ≥ {self.alpha:g}; on ranks for ρ")


def comparison_table(
    rows: Mapping[str, Mapping[str, Scored]],
    columns: Sequence[Column],
    significance: Significance | None = Significance(),
    ci: bool = False,
    digits: int = 3,
    label: str = "metric",
    caption: str = "",
    clusters: bool = True,
) -> Table:
    """Metrics side by side: one row per metric, one correlation per column.

    The best value of every column is bold and the second underlined; with ``significance``,
    the metrics whose correlation is not significantly lower than the column's best (p ≥ alpha
    against the best; the best itself included) carry ``significance.mark``.  With ``ci``,
    every column is followed by its 95% percentile bootstrap CI (sentences resampled,
    re-aggregated; ``significance.resamples`` resamples, ``significance.seed``).  With
    ``clusters``, every cell also carries its metric's significance cluster ``[k]`` in that
    column (:func:`column_clusters`).

    Args:
        rows: row label -> {column group -> :class:`Scored`}; a row without a column's group
            shows "–" there and takes no part in that column's test.
        columns: the columns.

    Returns:
        a :class:`gec_meta.report.tables.Table` (``.render(fmt)``).
    """
    sig = significance or Significance()
    groups = sorted({c.group for c in columns})
    resampled: dict[str, dict[str, np.ndarray]] = {g: {} for g in groups}
    if ci or (significance and significance.method == "bootstrap"):
        for g in groups:
            runs = {name: r[g] for name, r in rows.items() if g in r}
            if not runs:
                continue
            n = {run.dataset.num_sentences for run in runs.values()}
            if len(n) != 1:
                raise ValueError(f"column group {g!r} mixes datasets of {sorted(n)} sentences")
            indices = bootstrap_indices(n.pop(), np.random.default_rng(sig.seed), sig.resamples)
            resampled[g] = {name: resampled_system_scores(run.metric, run.stats, run.aggregation, indices)
                            for name, run in runs.items()}
    table_rows = [{label: name} for name in rows]
    names = list(rows)
    marks: dict[tuple[int, str], str] = {}
    headers: list[str] = [label]
    for col in columns:
        headers += [col.header, f"{col.header} CI"] if ci else [col.header]
        runs = {name: r[col.group] for name, r in rows.items() if col.group in r}
        if not runs:
            continue
        humans = {run.dataset.human[col.human].tobytes() for run in runs.values()}
        if len(humans) != 1:
            raise ValueError(f"column {col.header!r}: rows were scored against different human scores")
        human = next(iter(runs.values())).dataset.human[col.human]
        scores = {name: run.system_scores for name, run in runs.items()}
        if significance:
            tested = compare_with_best(scores, human, col.kind, significance.method,
                                       rng=np.random.default_rng(significance.seed),
                                       samples=significance.resamples, resampled=resampled[col.group] or None)
            corr = {name: t["corr"] for name, t in tested.items()}
        else:
            corr = {name: CORRELATIONS[col.kind](s, human) for name, s in scores.items()}
        ranks = column_clusters(scores, human, col, corr, sig) if clusters else {}
        for name in runs:
            i = names.index(name)
            table_rows[i][col.header] = corr[name]
            if significance and tested[name]["p"] >= significance.alpha:  # NaN p is never marked
                marks[(i, col.header)] = significance.mark
            if name in ranks:
                marks[(i, col.header)] = marks.get((i, col.header), "") + f"[{ranks[name]}]"
            if ci:
                bounds = confidence_intervals(resampled[col.group][name], human, (col.kind,))[col.kind]
                table_rows[i][f"{col.header} CI"] = (f"[{fmt_number(bounds['low'], digits)}, "
                                                     f"{fmt_number(bounds['high'], digits)}]")
    notes = [caption] if caption else []
    if ci:
        notes.append(f"CI: 95% percentile bootstrap interval (sentences resampled with replacement, "
                     f"scores re-aggregated; {sig.resamples} resamples, seed {sig.seed}).")
    if significance:
        notes.append(f"Significance: {significance.signature()}.")
    legend = {sig.mark: sig.describe()} if significance else {}
    if clusters:
        legend["[k]"] = (f"significance cluster k of its column (mt-metrics-eval's PERM-BOTH test on z-scored "
                         f"system scores, {sig.resamples} permutations, seed {sig.seed}; a new cluster starts "
                         f"where a metric is significantly worse than one above it, p ≤ {sig.alpha:g})")
    return Table(
        rows=table_rows, columns=headers, digits=digits,
        emphasize=[c.header for c in columns],
        marks=marks, mark_legend=legend,
        caption=" ".join(notes),
    )


def column_clusters(scores: Mapping[str, np.ndarray], human: np.ndarray, col: Column, corr: Mapping[str, float],
                    sig: Significance) -> dict[str, int]:
    """Significance clusters of one column's metrics (:mod:`gec_meta.meta.clusters`): every
    pair tested with PERM-BOTH (z-scored system scores swapped per system, the column's
    correlation, ``sig.resamples`` draws, mt-metrics-eval's early stopping in blocks of 100),
    each test with its own generator seeded by (``sig.seed``, column, pair)."""
    import zlib

    from gec_meta.meta.clusters import assign_ranks, perm_both
    from gec_meta.meta.correlation import ROW_CORRELATIONS

    rows = ROW_CORRELATIONS[col.kind]
    values = {n: v for n, v in corr.items() if np.isfinite(v)}

    def pvalue(better: str, worse: str) -> float:
        words = [sig.seed, *(zlib.crc32(x.encode("utf-8")) for x in (col.header, better, worse))]
        return perm_both(scores[better], scores[worse], human, lambda h, st: rows(st, h),
                         np.random.default_rng(np.random.SeedSequence(words)), sig.resamples,
                         batched=True, tolerance=1e-12, block_size=100)

    return assign_ranks(values, pvalue, alpha=sig.alpha) if len(values) > 1 else {n: 1 for n in values}


def render_rows(rows: Sequence[Row], digits: int = 3) -> str:
    lines = ["| | ours | published | diff | tolerance | |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r.label} | {fmt_number(r.ours, digits + 1)} | {fmt_number(r.published, digits)} | "
            f"{'' if r.diff is None else f'{r.diff:+.{digits + 1}f}'} | "
            f"{'' if r.tolerance is None else f'±{r.tolerance:g}'} | {r.status} {r.note} |"
        )
    return "\n".join(lines) + "\n"


@dataclass
class Section:
    title: str
    rows: list[Row] = field(default_factory=list)
    text: str = ""
    command: str = ""


SIGNIFICANCE_METHODS = ("williams", "permutation", "bootstrap")


def data_label(root: str | Path) -> str:
    """How a report names the data folder it read: relative to the working folder when inside it
    (``data`` from a checkout, whether it came from ``$GEC_META_DATA`` or the default), else the
    absolute path -- so ``make reproduce`` writes the same text on every machine."""
    path = Path(root).resolve()
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def experiment_parser(description: str, results: Path,
                      significance: Significance | None = None) -> argparse.ArgumentParser:
    """The command line of an experiment script: ``--out DIR`` (default ``results``, the
    committed ``experiments/results``; ``make reproduce`` passes outputs/reproduce), and with
    a default ``significance`` the test's ``--significance``, ``--resamples``, ``--seed``."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=results, help=f"output folder (default: {results})")
    if significance is not None:
        ap.add_argument("--significance", choices=SIGNIFICANCE_METHODS, default=significance.method,
                        help="how the comparison tables mark metrics not significantly worse than the best")
        ap.add_argument("--resamples", type=int, default=significance.resamples,
                        help="permutation/bootstrap samples")
        ap.add_argument("--seed", type=int, default=significance.seed, help="seed of the resampling")
    return ap


def parse_experiment_args(argv: Sequence[str], description: str, results: Path,
                          significance: Significance | None = None) -> argparse.Namespace:
    """:func:`experiment_parser` applied to ``argv`` (the script passes ``sys.argv[1:]``);
    with ``significance``, ``args.significance`` is the selected :class:`Significance`."""
    parser = experiment_parser(description, results, significance)
    args = parser.parse_args(list(argv))
    if significance is not None:
        from gec_meta.errors import ConfigError

        try:
            args.significance = Significance(args.significance, args.resamples, args.seed,
                                             significance.alpha, significance.mark)
        except ConfigError as exc:  # one usage line, exit 2
            parser.error(str(exc))
    return args


def try_metric(name: str, *overrides: str, **options):
    """``(metric, None)``, or ``(None, reason)`` when it cannot be built here (e.g. no weights)."""
    from gec_meta.api import load_metric

    try:
        metric = load_metric(name, *overrides, **options)
        metric.cache_key()  # encoders load lazily: their signature reads the model config
        return metric, None
    except Exception as exc:  # reported in the table, never silently skipped
        return None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"


def write_report(path: str | Path, title: str, intro: str, sections: Sequence[Section]) -> str:
    parts = [f"# {title}\n\n{intro}\n"]
    for sec in sections:
        parts.append(f"\n## {sec.title}\n\n")
        if sec.command:
            parts.append(f"```\n{sec.command}\n```\n\n")
        if sec.text:
            parts.append(sec.text.rstrip() + "\n\n")
        if sec.rows:
            parts.append(render_rows(sec.rows))
    ok = sum(1 for s in sections for r in s.rows if r.status == "ok")
    bad = {s.title: sum(r.status == "DIFF" for r in s.rows) for s in sections}
    bad = {k: v for k, v in bad.items() if v}
    detail = "; ".join(f"{k}: {v}" for k, v in bad.items())
    parts.append(f"\n**{ok} rows within tolerance; {sum(bad.values())} outside**"
                 f"{' (' + detail + ')' if bad else ''}.\n")
    text = "".join(parts)
    atomic_write_text(Path(path), text)
    return text


def comparison_section(scored: dict, columns, title: str, caption: str, script: str,
                       sig: Significance = Significance()) -> Section:
    """A side-by-side table of metrics (our numbers) with bold best, underlined second and
    significance marks (``sig``: the script's :func:`parse_experiment_args`).

    Args:
        scored: metric label -> :class:`Scored` per column (as :func:`comparison_table` reads).
        script: the experiment script, for the section's command line.
    """
    table = comparison_table(scored, columns, sig, caption=caption)
    return Section(f"{title}: best, second best, not significantly worse than the best",
                   text=table.render("md"), command=f".venv/bin/python experiments/{script} {sig.options()}")
