"""Matplotlib figures (PNG), always with the Agg backend: no display needed."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot_window_analysis(
    curves: Mapping[str, Sequence[dict]],
    path: str | Path,
    title: str,
    published: Mapping[str, Sequence[float]] | None = None,
) -> Path:
    """Window analysis (Kobayashi et al. 2024a; Goto et al. 2025 Figure 2).

    Args:
        curves: label -> rows of :func:`gec_meta.meta_eval.window_analysis` (one per start rank).
        path: PNG file to write.
        published: label -> published values at each start rank, drawn dashed.
    """
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, kind in zip(axes, ("pearson", "spearman")):
        for label, rows in curves.items():
            x = [r["start_rank"] for r in rows]
            ax.plot(x, [r[kind] for r in rows], marker="o", label=label)
        for label, values in (published or {}).items():
            if kind in label.lower():
                ax.plot(range(1, len(values) + 1), values, "k--", alpha=0.6, label=f"{label} (published)")
        ax.set_title(kind.capitalize())
        ax.set_xlabel("start rank of the window (human order)")
        ax.axhline(0, color="grey", lw=0.5)
        ax.grid(alpha=0.3)
        ax.set_ylim(-1.05, 1.05)
    axes[0].set_ylabel("correlation")
    axes[1].legend(fontsize=8, loc="lower left")
    fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_lines(
    x: Sequence[float],
    series: Mapping[str, Sequence[float]],
    path: str | Path,
    title: str,
    xlabel: str,
    ylabel: str,
    invert_x: bool = False,
) -> Path:
    """A labelled line plot (top-K curves, correlation vs lambda, ...)."""
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for label, ys in series.items():
        style = "k--" if "published" in label else "-o"
        ax.plot(x[: len(ys)], ys, style, label=label, markersize=3)
    if invert_x:
        ax.invert_xaxis()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
