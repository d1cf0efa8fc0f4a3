"""A sentence with each edit coloured by its attribution (:mod:`gec_meta.analysis.attribution`).

The source tokens are laid out left to right (wrapped at ``width`` inches); each edit is a box
``original → correction`` (``∅`` for an empty side) over its value, filled from a diverging
colormap centred on 0 (red = the metric rewards the edit, blue = it penalises it; symmetric
limits ±max|attribution|).  Matplotlib object API only (no pyplot state).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from gec_meta.analysis.attribution import Attribution
from gec_meta.outputs import save_figure


def segments(att: Attribution) -> list[tuple[str, int | None]]:
    """The sentence as display pieces, left to right: (text, edit index or None).

    Unchanged source tokens are single pieces; edit i is ``"original → correction"``.  An
    insertion comes before the source token at its position.
    """
    tokens = att.src.split()
    starts: dict[int, list[int]] = {}
    for i, e in enumerate(att.edits):
        starts.setdefault(e.start, []).append(i)
    out: list[tuple[str, int | None]] = []
    pos = 0
    while pos <= len(tokens):
        here = sorted(starts.get(pos, []), key=lambda i: att.edits[i].end)  # insertions first
        for i in here:
            e = att.edits[i]
            out.append((f"{' '.join(tokens[e.start:e.end]) or '∅'} → {e.correction or '∅'}", i))
        end = max((att.edits[i].end for i in here), default=pos)
        if end > pos:
            pos = end
            continue
        if pos < len(tokens):
            out.append((tokens[pos], None))
        pos += 1
    return out


def plot_attribution(att: Attribution, path: str | Path, title: str | None = None,
                     cmap: str = "RdBu_r", width: float = 10.0, dpi: int = 120) -> Path:
    """Write a PNG of the sentence with its edits coloured by their attribution.

    Args:
        att: one sentence's attribution (E edits, values shape (E,)).
        path: the PNG (folders created).
        title: default: method, src_score and sent_score.
        cmap: a diverging matplotlib colormap.
        width: figure width in inches; the sentence wraps to 86% of it (the rest is the colorbar).
    """
    values = np.asarray(att.attribution, dtype=np.float64)
    limit = float(np.max(np.abs(values))) if len(values) and np.any(values) else 1.0
    norm = Normalize(-limit, limit)
    mappable = ScalarMappable(norm=norm, cmap=cmap)
    pieces = segments(att)

    fig = Figure(figsize=(width, 2.0))
    FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    text_width = 0.86 * width  # inches for the sentence; the rest holds the colorbar
    line_height, gap, margin = 0.6, 0.12, 0.05  # inches
    ax = fig.add_axes((0.01, 0.0, 0.86, 1.0))
    ax.set_axis_off()
    x, line, placed = margin, 0, []
    for text, i in pieces:
        label = text if i is None else f"{text}\n{values[i]:+.3g}"
        artist = ax.text(0, 0, label, fontsize=10, ha="left", va="top", multialignment="center")
        if i is not None:
            colour = mappable.to_rgba(values[i])
            dark = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2] < 0.5
            artist.set_bbox({"boxstyle": "round,pad=0.25", "facecolor": colour, "edgecolor": "0.3"})
            artist.set_color("white" if dark else "black")
        w = artist.get_window_extent(renderer).width / fig.dpi + 0.1  # inches, with the box padding
        if x + w > text_width and x > margin:
            x, line = margin, line + 1
        placed.append((artist, x, line))
        x += w + gap
    lines = line + 1
    title_room = 0.45
    height = title_room + lines * line_height + 0.2
    fig.set_size_inches(width, height)
    # Axes in inches: x in [0, text_width], y from the top of the first line downwards.
    ax.set_position((0.01, 0.0, 0.86, 1 - title_room / height))
    ax.set_xlim(0, text_width)
    ax.set_ylim(-(height - title_room), 0)
    for artist, ax_x, ln in placed:
        artist.set_position((ax_x, -ln * line_height - 0.1))
    cax = fig.add_axes((0.89, 0.15, 0.015, max(0.1, 0.8 - title_room / height)))
    fig.colorbar(mappable, cax=cax, label="attribution")
    fig.suptitle(title if title is not None else
                 f"{att.method}{' (sampled)' if att.sampled else ''}: src_score {att.src_score:.4g}"
                 f" → sent_score {att.sent_score:.4g}", fontsize=10, y=0.99)
    return save_figure(fig, path, dpi)
