"""The data-shaping helpers of ``gec_meta.report.plots`` against hand-computed values, and the new
plotting functions writing readable PNGs."""

from __future__ import annotations

import numpy as np
import pytest

from gec_meta.data.judgments import RankingItem
from gec_meta.meta.evaluation import pairwise_agreement, sentence_agreement
from gec_meta.report.plots import (
    agreement_rate,
    fit_line,
    plot_grouped_bars,
    plot_line_panels,
    plot_pair_heatmaps,
    plot_system_scatter,
)

SYSTEMS = ("A", "B", "C")
# Sentence scores, shape (S, N) = (3, 2).
SCORES = np.array([[0.9, 0.1],
                   [0.5, 0.5],
                   [0.5, 0.2]])
ITEMS = (
    # line 0: A > B > C.  Metric: A .9, B .5, C .5 -> AB agree, AC agree, BC metric tie.
    RankingItem(0, "j1", (("A", 1), ("B", 2), ("C", 3))),
    # line 1: B > A, C unranked.  Metric: A .1 < B .5 -> AB agree.
    RankingItem(1, "j1", (("A", 2), ("B", 1))),
    # line 0 again: A = C > B.  AB agree (.9 > .5); AC human tie (skipped); BC: C better, metric tie.
    RankingItem(0, "j2", (("A", 1), ("B", 2), ("C", 1))),
)


def _png_ok(path) -> None:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image as mpimg

    img = mpimg.imread(path)
    assert img.shape[0] > 200 and img.shape[1] > 200


def test_fit_line_hand_values():
    assert fit_line([0, 1, 2], [1, 3, 5]) == pytest.approx((2.0, 1.0))
    # mean x = mean y = 2.5; sum xc*yc = 3, sum xc^2 = 5 -> slope .6, intercept 2.5 - .6*2.5 = 1.
    assert fit_line([1, 2, 3, 4], [2, 1, 4, 3]) == pytest.approx((0.6, 1.0))
    with pytest.raises(ValueError):
        fit_line([1, 1, 1], [1, 2, 3])


def test_pairwise_agreement_seeda_hand_values():
    agree, pairs = pairwise_agreement(SCORES, ITEMS, SYSTEMS, "seeda")
    # AB: 3 judged, 3 agree.  AC: 1 judged (line 0, j1), agrees.  BC: 2 judged; j1 (B > C)
    # with a metric tie counts as C (the second system) winning -> disagree; j2 (C > B) with
    # a metric tie -> agree.
    assert pairs.tolist() == [[0, 3, 1], [3, 0, 2], [1, 2, 0]]
    assert agree.tolist() == [[0, 3, 1], [3, 0, 1], [1, 1, 0]]
    rate = agreement_rate(agree, pairs)
    assert rate[0, 1] == 1.0 and rate[1, 2] == 0.5 and rate[2, 1] == 0.5
    assert np.isnan(np.diag(rate)).all()


def test_pairwise_agreement_wmt_counts_ties_as_disagreement():
    agree, pairs = pairwise_agreement(SCORES, ITEMS, SYSTEMS, "wmt")
    assert pairs.tolist() == [[0, 3, 1], [3, 0, 2], [1, 2, 0]]
    assert agree.tolist() == [[0, 3, 1], [3, 0, 0], [1, 0, 0]]


@pytest.mark.parametrize("variant", ["seeda", "wmt"])
def test_pairwise_agreement_sums_to_sentence_agreement(variant):
    agree, pairs = pairwise_agreement(SCORES, ITEMS, SYSTEMS, variant)
    total = sentence_agreement(SCORES, ITEMS, SYSTEMS, variant)
    iu = np.triu_indices(len(SYSTEMS), k=1)
    assert pairs[iu].sum() == total["pairs"] == 6
    assert agree[iu].sum() / pairs[iu].sum() == pytest.approx(total["accuracy"])


def test_pairwise_agreement_wmt_is_order_independent():
    perm = [2, 0, 1]
    a, p = pairwise_agreement(SCORES, ITEMS, SYSTEMS, "wmt")
    a2, p2 = pairwise_agreement(SCORES[perm], ITEMS, [SYSTEMS[i] for i in perm], "wmt")
    assert np.array_equal(a[np.ix_(perm, perm)], a2) and np.array_equal(p[np.ix_(perm, perm)], p2)


def test_pairwise_agreement_skips_missing_scores():
    scores = SCORES.copy()
    scores[2, 0] = np.nan  # C has no score on line 0: its two judged comparisons there drop out
    agree, pairs = pairwise_agreement(scores, ITEMS, SYSTEMS, "seeda")
    assert pairs.tolist() == [[0, 3, 0], [3, 0, 0], [0, 0, 0]]
    assert agree.tolist() == [[0, 3, 0], [3, 0, 0], [0, 0, 0]]
    assert np.isnan(agreement_rate(agree, pairs)[0, 2])


def test_pairwise_agreement_rejects_bad_input():
    with pytest.raises(ValueError):
        pairwise_agreement(SCORES, ITEMS, SYSTEMS, "displayed")
    with pytest.raises(ValueError):
        pairwise_agreement(SCORES[:2], ITEMS, SYSTEMS)


def test_plots_write_pngs(tmp_path):
    panels = [{"title": "m1", "systems": list(SYSTEMS), "human": [0.1, 0.5, 0.9], "metric": [1.0, 2.0, 2.5]},
              {"title": "m2", "systems": list(SYSTEMS), "human": [0.1, 0.5, 0.9], "metric": [3.0, 1.0, 2.0], "r": -0.5}]
    _png_ok(plot_system_scatter(panels, tmp_path / "s.png", "scatter", "human", "metric", highlight=("B",)))
    _png_ok(plot_grouped_bars(["EW r", "TS r"], {"a": [0.5, 0.6], "b": [-0.1, 0.2]}, tmp_path / "b.png",
                              "bars", "r", published={"a": [0.55, None]}))
    _png_ok(plot_line_panels([0.5, 1, 2], {"EW r": {"a": [0.1, 0.2, 0.3]}, "TS r": {"a": [0.3, 0.2, 0.1]}},
                             tmp_path / "l.png", "lines", "β", "r"))
    agree, pairs = pairwise_agreement(SCORES, ITEMS, SYSTEMS)
    rate = agreement_rate(agree, pairs)
    _png_ok(plot_pair_heatmaps({"abs": rate, "diff": rate - 0.5}, SYSTEMS, tmp_path / "h.png", "heat"))
