"""Helpers for experiment scripts: run a configuration through the Python API and put our
number next to the published one.

Experiment scripts in ``experiments/`` build :class:`Row`s and call :func:`write_table`; the
Markdown they write states, row by row, our value, the published value and the difference.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from .aggregation import load_aggregation
from .data.datasets import load_dataset
from .data.refsets import load_refset
from .evaluate import evaluate
from .report import atomic_write_text, fmt_number


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


def run(
    root: str | Path,
    dataset: str,
    metric,
    aggregation: str = "default",
    refset: str = "official",
    dataset_options: dict | None = None,
    refset_options: dict | None = None,
    aggregation_options: dict | None = None,
) -> dict:
    """Evaluate one configuration (datasets and references loaded once per process)."""
    root = str(root)
    dopts = tuple(sorted((dataset_options or {}).items()))
    ropts = tuple(sorted((refset_options or {}).items()))
    ds = _dataset(root, dataset, dopts)
    refs = _refs(root, dataset, dopts, refset, ropts) if metric.needs_references else None
    agg = load_aggregation(aggregation, **(aggregation_options or {}))
    return evaluate(ds, metric, agg, refs, window=None)


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


def output_dir(default: Path) -> Path:
    """``--out DIR`` from the command line (``make reproduce`` passes outputs/reproduce), else
    ``default`` (the committed ``experiments/results``)."""
    import sys

    if "--out" in sys.argv:
        return Path(sys.argv[sys.argv.index("--out") + 1])
    return default


def try_metric(name: str, *overrides: str, **options):
    """``(metric, None)``, or ``(None, reason)`` when it cannot be built here (e.g. no weights)."""
    from .api import load_metric

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
