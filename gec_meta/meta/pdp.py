"""Pairwise Difference Pearson (PDP): WMT24's segment-level statistic.

PDP (Freitag et al. 2024, WMT24 metrics-task findings; google-research/mt-metrics-eval
``stats.Correlation.Pearson(average_by='item', pdp=True)``) is Pearson's r between the human
and the metric *differences* of every pair of systems within an item, pooled over all items.
It asks whether a metric's score gaps within a segment follow the human score gaps, so it
needs human segment *scores* (here GMEG's segment ratings).  At the system level it equals
Pearson's r (one item), so it adds nothing there.

mt-metrics-eval's arithmetic (``AverageCorrelation._enumerate_pairwise_diffs``): per item, the
S x S matrix d[a, b] = x[b] - x[a] of both the human and the metric scores (the diagonal and
both orders included), flattened item by item; entries whose human difference is missing (a
system without a human score in that item: gold ``None``) are dropped
(``filter_gold_nones``), and ``scipy.stats.pearsonr`` of the rest.  The pooled differences are
antisymmetric, so their mean is 0 and r is the uncentred cosine of the differences over the
unordered pairs i < j; :func:`pdp_rows` computes that form for many metric arrays at once.

Ours differs in two places: a metric without a score (NaN) takes the system out of that item's
pairs, as in :mod:`gec_meta.meta.ties` (mt-metrics-eval's metric scores are never missing); and
an undefined PDP (constant differences) is NaN with a warning, as every correlation here, where
``AverageCorrelation`` returns 0 when its one value is NaN.

Rankings (SEEDA, GJG15) have no PDP here: a judge's rank difference (1..4 within a five-way
ranking, shifted by how ties are numbered and by how many outputs the item showed) is a
position, not a difference in quality, so Pearson on it would measure the display, not the
judges; the ordinal content of a ranking is what acc_eq already measures.
"""

from __future__ import annotations

import numpy as np

from gec_meta.meta.correlation import pearson

__all__ = ["pairwise_differences", "pairwise_difference_pearson", "pdp_rows"]


def _matrices(human, metric) -> tuple[np.ndarray, np.ndarray]:
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    if h.shape != m.shape or h.ndim != 2:
        raise ValueError(f"PDP needs human and metric scores of one shape (items, systems), got {h.shape} and {m.shape}")
    if h.shape[1] < 2:
        raise ValueError(f"PDP needs at least two systems, got {h.shape[1]}")
    return h, m


def pairwise_differences(human, metric) -> tuple[np.ndarray, np.ndarray]:
    """The pooled within-item differences, in mt-metrics-eval's order and with its filtering.

    Args:
        human, metric: shape (G, S): G items, S systems; NaN = no score.

    Returns:
        (human differences, metric differences), both shape (P,): for every item g and every
        ordered pair (a, b), x[g, b] - x[g, a], item-major, a-major, b-minor, where both
        differences are defined.
    """
    h, m = _matrices(human, metric)
    dh = (h[:, None, :] - h[:, :, None]).reshape(-1)
    dm = (m[:, None, :] - m[:, :, None]).reshape(-1)
    keep = ~np.isnan(dh) & ~np.isnan(dm)
    return dh[keep], dm[keep]


def pairwise_difference_pearson(human, metric) -> float:
    """PDP of one metric: Pearson's r (:func:`~gec_meta.meta.correlation.pearson`) of :func:`pairwise_differences`.

    Args:
        human, metric: shape (G, S); NaN = no score.

    Returns:
        r; NaN with an :class:`~gec_meta.meta.correlation.UndefinedCorrelationWarning` when the
        differences are constant (e.g. a metric that scores every system alike in every item).
    """
    dh, dm = pairwise_differences(human, metric)
    return pearson(dh, dm)


def pdp_rows(human, metrics) -> np.ndarray:
    """PDP of every metric array of a stack, vectorised (the uncentred form, see the module
    docstring; equal to :func:`pairwise_difference_pearson` to ~1e-15): the statistic of the
    PERM-BOTH significance test (:func:`gec_meta.meta.clusters.perm_both`, ``batched=True``).

    Args:
        human: shape (G, S).
        metrics: shape (K, G, S).

    Returns:
        shape (K,); NaN for a row whose differences are all zero.
    """
    h = np.asarray(human, dtype=np.float64)
    x = np.asarray(metrics, dtype=np.float64)
    iu, ju = np.triu_indices(h.shape[1], k=1)
    dh = h[:, ju] - h[:, iu]  # (G, P)
    dm = x[:, :, ju] - x[:, :, iu]  # (K, G, P)
    valid = ~np.isnan(dh)[None] & ~np.isnan(dm)
    dh = np.where(valid, dh[None], 0.0)
    dm = np.where(valid, dm, 0.0)
    num = (dh * dm).sum(axis=(1, 2))
    den = np.sqrt((dh * dh).sum(axis=(1, 2)) * (dm * dm).sum(axis=(1, 2)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
