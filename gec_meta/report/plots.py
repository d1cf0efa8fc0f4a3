"""Matplotlib figures (PNG) through the object API (:class:`matplotlib.figure.Figure` +
``savefig``): no pyplot, no backend selected, no display needed, nothing set at import."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from gec_meta.outputs import save_figure


def _figure(nrows: int = 1, ncols: int = 1, **kwargs):
    """A new figure and its axes, as ``pyplot.subplots`` returns them (``figsize`` goes to the figure)."""
    fig = Figure(figsize=kwargs.pop("figsize", None))
    return fig, fig.subplots(nrows, ncols, **kwargs)


def _save(fig, path: str | Path, suptitle: str | None = None, dpi: int = 120) -> Path:
    """Title (optional), tight layout, PNG written to ``path`` (folders created)."""
    if suptitle is not None:
        fig.suptitle(suptitle)
    fig.tight_layout()
    return save_figure(fig, path, dpi)


def plot_window_analysis(
    curves: Mapping[str, Sequence[dict]],
    path: str | Path,
    title: str,
    published: Mapping[str, Sequence[float]] | None = None,
) -> Path:
    """Window analysis (Kobayashi et al. 2024a; Goto et al. 2025 Figure 2).

    Args:
        curves: label -> rows of :func:`gec_meta.meta.evaluation.window_analysis` (one per start rank).
        path: PNG file to write.
        published: label -> published values at each start rank, drawn dashed.
    """
    fig, axes = _figure(1, 2, figsize=(10, 3.8), sharey=True)
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
    return _save(fig, path, title)


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
    fig, ax = _figure(figsize=(6, 3.8))
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
    return _save(fig, path)


# --------------------------------------------------------------------------------------------
# Scatter of system scores, grouped bars, line panels and per-system-pair heatmaps
# (PT-M2 Figure 3 and β sweep; UOT-ERRANT Figures 3 and 6).


def fit_line(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Least-squares line y = slope * x + intercept (the fitted line of a scatter plot).

    Args:
        x, y: shape (S,), S >= 2, x not constant.

    Returns:
        ``(slope, intercept)``.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2 or np.ptp(x) == 0:
        raise ValueError(f"fit_line needs two vectors of one length >= 2 with non-constant x, got {x.shape}, {y.shape}")
    xc = x - x.mean()
    slope = float((xc * (y - y.mean())).sum() / (xc * xc).sum())
    return slope, float(y.mean() - slope * x.mean())


def _label_points(ax, x: np.ndarray, y: np.ndarray, names: Sequence[str], highlight: np.ndarray) -> None:
    """Label each point, moving a label to another side of its point when it would sit on a
    label already placed (a greedy check in axes-fraction units; highlighted labels first)."""
    x0, x1 = x.min(), x.max()
    y0, y1 = y.min(), y.max()
    fx = (x - x0) / (x1 - x0 or 1.0)
    fy = (y - y0) / (y1 - y0 or 1.0)
    # (dx, dy) in points and horizontal alignment; the label's anchor moves by ~(dx, dy)/200
    sides = [(4, 3, "left"), (4, -9, "left"), (-4, 3, "right"), (-4, -9, "right"), (4, 11, "left"),
             (-4, 11, "right"), (4, -17, "left"), (-4, -17, "right")]
    placed: list[tuple[float, float, str]] = []
    for k in sorted(range(len(x)), key=lambda k: (not highlight[k], -fy[k])):
        order = sorted(sides, key=lambda t: t[2] == "left") if fx[k] > 0.85 else sides  # right edge: left of the point
        for dx, dy, ha in order:
            ax_x = fx[k] + dx / 250
            ax_y = fy[k] + dy / 200
            if all(abs(ax_y - py) > 0.05 or (ph != ha and abs(ax_x - px) > 0.02) or abs(ax_x - px) > 0.22
                   for px, py, ph in placed):
                break
        placed.append((ax_x, ax_y, ha))
        h = bool(highlight[k])
        ax.annotate(names[k], (x[k], y[k]), xytext=(dx, dy), textcoords="offset points", ha=ha,
                    fontsize=8 if h else 6.5, color="tab:red" if h else "0.25",
                    fontweight="bold" if h else "normal")


def plot_system_scatter(
    panels: Sequence[Mapping],
    path: str | Path,
    title: str,
    xlabel: str,
    ylabel: str,
    highlight: Sequence[str] = (),
    ncols: int = 3,
) -> Path:
    """Human vs metric system scores, one panel per metric (UOT-ERRANT Figure 3).

    Every point is labelled with its system; systems in ``highlight`` are drawn in red and
    bold.  Each panel has the least-squares line (:func:`fit_line`) and Pearson r in its legend.

    Args:
        panels: one mapping per panel with ``title``, ``systems`` (shape (S,)), ``human`` and
            ``metric`` (shape (S,) each) and optionally ``r`` (Pearson; computed if absent).
        path: PNG file to write.
    """
    from gec_meta.meta.evaluation import pearson

    n = len(panels)
    ncols = max(1, min(ncols, n))
    nrows = (n + ncols - 1) // ncols
    fig, axes = _figure(nrows, ncols, figsize=(5.2 * ncols, 4.4 * nrows), squeeze=False)
    for ax, panel in zip(axes.flat, panels):
        x = np.asarray(panel["human"], dtype=np.float64)
        y = np.asarray(panel["metric"], dtype=np.float64)
        r = panel.get("r")
        r = pearson(x, y) if r is None else r
        hl = np.array([s in highlight for s in panel["systems"]])
        ax.scatter(x[~hl], y[~hl], s=22, color="tab:blue", zorder=3)
        ax.scatter(x[hl], y[hl], s=40, color="tab:red", marker="D", zorder=4)
        ax.margins(x=0.12, y=0.12)
        _label_points(ax, x, y, panel["systems"], hl)
        slope, intercept = fit_line(x, y)
        xs = np.linspace(x.min(), x.max(), 2)
        ax.plot(xs, slope * xs + intercept, "k--", lw=1, label=f"least-squares fit, r = {r:.3f}")
        ax.set_title(panel["title"], fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    return _save(fig, path, title)


def plot_grouped_bars(
    categories: Sequence[str],
    series: Mapping[str, Sequence[float]],
    path: str | Path,
    title: str,
    ylabel: str,
    published: Mapping[str, Sequence[float | None]] | None = None,
    published_label: str = "published",
) -> Path:
    """Grouped bars: one group per category, one bar per series, each bar annotated with its
    value; ``published[label]`` (same length as the categories, None = not published) is drawn
    as a black marker on the bar of series ``label`` (PT-M2 Figure 3).
    """
    labels = list(series)
    k = len(labels)
    width = 0.8 / max(k, 1)
    x = np.arange(len(categories))
    fig, ax = _figure(figsize=(max(6.0, 1.6 * len(categories) * max(k, 2) / 2), 4.8))
    marked = False
    for i, label in enumerate(labels):
        pos = x - 0.4 + width * (i + 0.5)
        vals = np.asarray(series[label], dtype=np.float64)
        bars = ax.bar(pos, vals, width, label=label)
        for b, v in zip(bars, vals):  # the value inside the bar, clear of published markers
            ax.text(b.get_x() + b.get_width() / 2, v / 2, f"{v:.3f}", ha="center", va="center",
                    fontsize=8, rotation=90, color="white")
        for p, v in zip(pos, (published or {}).get(label, ())):
            if v is not None:
                ax.plot([p - width / 2, p + width / 2], [v, v], color="k", lw=2,
                        label=None if marked else published_label)
                marked = True
    ax.set_xticks(x, categories)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.axhline(0, color="grey", lw=0.5)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=min(k + 1, 4), frameon=False)
    return _save(fig, path)


def plot_line_panels(
    x: Sequence[float],
    panels: Mapping[str, Mapping[str, Sequence[float]]],
    path: str | Path,
    title: str,
    xlabel: str,
    ylabel: str,
    ncols: int = 2,
) -> Path:
    """Several labelled line plots sharing x (e.g. correlation vs β, one panel per human score)."""
    n = len(panels)
    ncols = max(1, min(ncols, n))
    nrows = (n + ncols - 1) // ncols
    fig, axes = _figure(nrows, ncols, figsize=(5.0 * ncols, 3.6 * nrows), squeeze=False, sharex=True)
    for ax, (name, series) in zip(axes.flat, panels.items()):
        for label, ys in series.items():
            ax.plot(list(x)[: len(ys)], ys, "-o", markersize=4, label=label)
        ax.set_title(name)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    return _save(fig, path, title)


def agreement_rate(agree, pairs):
    """``agree / pairs`` elementwise, NaN where no pair was judged (and on the diagonal)."""
    agree = np.asarray(agree, dtype=np.float64)
    pairs = np.asarray(pairs, dtype=np.float64)
    out = np.full(agree.shape, np.nan)
    np.divide(agree, pairs, out=out, where=pairs > 0)
    return out


def plot_pair_heatmaps(
    panels: Mapping[str, object],
    systems: Sequence[str],
    path: str | Path,
    title: str,
    difference: Sequence[bool] | None = None,
    scale: float = 100.0,
    unit: str = "%",
) -> Path:
    """Lower-triangle heatmaps of per-system-pair values (UOT-ERRANT Figure 6).

    Row i, column j (i > j) shows the value of the pair (systems[i], systems[j]); the empty
    first row and last column of the triangle are not drawn.

    Args:
        panels: panel title -> array (S, S), symmetric; NaN cells stay blank.
        systems: shape (S,), the row/column order.
        difference: per panel, True for a difference (diverging colours centred on 0, one scale
            for all difference panels), False for an absolute rate (colours over the data's
            range); default: only the first panel is absolute.
        scale: cell annotations show value * scale, rounded (100: percent / points).
    """
    names = list(panels)
    difference = list(difference) if difference is not None else [i > 0 for i in range(len(names))]
    S = len(systems)
    lower = np.tril(np.ones((S, S), dtype=bool), k=-1)
    mats = {k: np.where(lower, np.asarray(panels[k], dtype=np.float64), np.nan) for k in names}
    diffs = [mats[k] for k, d in zip(names, difference) if d and np.isfinite(mats[k]).any()]
    vmax = max([np.nanmax(np.abs(m)) for m in diffs] + [1e-9])
    side = 0.5 * (S - 1) + 2.0
    fig, axes = _figure(1, len(names), figsize=(side * len(names), side), squeeze=False)
    for ax, name, diff in zip(axes[0], names, difference):
        m = mats[name][1:, :-1]  # rows systems[1:], columns systems[:-1]
        if diff:
            im = ax.imshow(m * scale, cmap="RdBu", vmin=-vmax * scale, vmax=vmax * scale)
            lo, hi = -vmax, vmax
        else:
            lo = np.floor(np.nanmin(m) * 10) / 10 if np.isfinite(m).any() else 0.0
            hi = np.ceil(np.nanmax(m) * 10) / 10 if np.isfinite(m).any() else 1.0
            im = ax.imshow(m * scale, cmap="viridis", vmin=lo * scale, vmax=max(hi, lo + 0.1) * scale)
        for i, j in zip(*np.nonzero(np.isfinite(m))):
            v = m[i, j]
            txt = f"{round(v * scale):+d}" if diff else f"{round(v * scale)}"
            dark = (abs(v) > 0.6 * vmax) if diff else (v < lo + 0.5 * (hi - lo))
            ax.text(j, i, txt, ha="center", va="center", fontsize=7, color="white" if dark else "black")
        ax.set_xticks(range(S - 1), list(systems)[:-1], rotation=90, fontsize=8)
        ax.set_yticks(range(S - 1), list(systems)[1:], fontsize=8)
        ax.set_title(name, fontsize=10)
        cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        cb.set_label(f"difference ({unit} points)" if diff else f"agreement ({unit})", fontsize=8)
    return _save(fig, path, title)
