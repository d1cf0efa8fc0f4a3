"""Meta-evaluation statistics: pure functions of score vectors and human judgments.

System level: Pearson / Spearman of metric vs human system scores, window analysis
(Kobayashi et al. 2024a, §4.3: correlations over consecutive windows of systems sorted by the
human score) and top-K (the K best systems by human score; PT-M2 paper Figure 2).

Sentence level: pairwise accuracy and Kendall's tau against human rankings, as SEEDA's
``utils/corr_sentence.py`` computes them.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Callable, Mapping, Sequence

import numpy as np

from gec_meta.data.judgments import RankingItem, rank_matrix
from gec_meta.meta.correlation import CORRELATIONS, UndefinedCorrelationWarning, pearson, spearman

Correlations = Mapping[str, Callable[[Sequence[float], Sequence[float]], float]]

__all__ = ["UndefinedCorrelationWarning", "pearson", "spearman", "system_correlations", "window_analysis",
           "top_k", "sentence_agreement", "pairwise_agreement", "human_expected_wins"]


def system_correlations(
    metric_scores: Sequence[float], human: Mapping[str, Sequence[float]],
    correlations: Correlations = CORRELATIONS,
) -> dict[str, dict[str, float]]:
    """Every correlation (default Pearson and Spearman) against every human score.

    Args:
        metric_scores: shape (S,).
        human: name -> shape (S,).
        correlations: correlation name -> function of two (S,) vectors
            (:data:`gec_meta.meta.correlation.CORRELATIONS`).

    Returns:
        ``{name: {"pearson": r, "spearman": rho}}`` (one key per correlation).
    """
    return {name: {kind: corr(metric_scores, h) for kind, corr in correlations.items()}
            for name, h in human.items()}


def _order_by_human(human: np.ndarray) -> np.ndarray:
    # Best first; a stable sort keeps the configured system order among equal human scores.
    return np.argsort(-np.asarray(human, dtype=np.float64), kind="stable")


def window_analysis(
    metric_scores: Sequence[float], human: Sequence[float], window: int,
    correlations: Correlations = CORRELATIONS,
) -> list[dict[str, float]]:
    """Correlations over windows of ``window`` consecutive systems ranked by the human score.

    Args:
        metric_scores, human: shape (S,).
        window: systems per window, 2 <= window <= S (the papers use 4 and 8).
        correlations: name -> function, as :func:`system_correlations`.

    Returns:
        one dict per window start (S - window + 1 of them): ``start_rank`` and ``end_rank``
        (1-based human ranks), ``pearson``, ``spearman``.
    """
    m = np.asarray(metric_scores, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    S = len(m)
    if not 2 <= window <= S:
        raise ValueError(f"window must be between 2 and the number of systems ({S}), got {window}")
    order = _order_by_human(h)
    m, h = m[order], h[order]
    return [
        {"start_rank": i + 1, "end_rank": i + window,
         **{kind: corr(m[i : i + window], h[i : i + window]) for kind, corr in correlations.items()}}
        for i in range(S - window + 1)
    ]


def top_k(
    metric_scores: Sequence[float], human: Sequence[float], ks: Sequence[int] | None = None,
    correlations: Correlations = CORRELATIONS,
) -> list[dict[str, float]]:
    """Correlations (name -> function, as :func:`system_correlations`) over the K best systems
    by human score, for each K (default S down to 4).

    Args:
        metric_scores, human: shape (S,).

    Returns:
        one dict per K: ``k``, ``pearson``, ``spearman``.
    """
    m = np.asarray(metric_scores, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    S = len(m)
    ks = list(range(S, 3, -1)) if ks is None else list(ks)
    order = _order_by_human(h)
    out = []
    for k in ks:
        if not 2 <= k <= S:
            raise ValueError(f"top-K needs 2 <= K <= {S}, got {k}")
        idx = order[:k]
        out.append({"k": k, **{kind: corr(m[idx], h[idx]) for kind, corr in correlations.items()}})
    return out


#: The sentence-level variants of :func:`sentence_agreement` (``meta_eval.sentence_variant``).
SENTENCE_VARIANTS = ("seeda", "wmt", "displayed")


def sentence_agreement(
    sentence_scores: np.ndarray,
    items: Sequence[RankingItem],
    systems: Sequence[str],
    variant: str = "seeda",
) -> dict[str, float]:
    """Pairwise accuracy and Kendall's tau of metric sentence scores vs human rankings.

    For every ranking item and every pair of systems (i, j), i < j in system-index order, that
    the judge ranked differently (pairs the human tied or did not rank are skipped):

    * ``variant="seeda"`` (SEEDA ``corr_sentence.py``; gec-metrics): the metric says
      "i better" iff score_i > score_j; a metric tie counts as j (the second system) winning.
      This asymmetry makes the result depend on the system order whenever the metric ties.
    * ``variant="wmt"`` (WMT DARR Kendall-like, Ma et al. 2018): a metric tie is always a
      discordant pair, independent of the order.
    * ``variant="displayed"``: pairs of the *displayed* outputs of each item (a group of
      systems with one identical output is one output), not of expanded systems — the 5,347
      pairwise judgments of SEEDA that Kobayashi et al. (2024a) count; a metric tie is neither
      concordant nor discordant but stays in the denominator.

    accuracy = concordant / pairs, kendall = (concordant - discordant) / pairs.

    ``accuracy_random`` is the chance level on the same pairs: the better of a random order
    (1/2: the humans tie none of these pairs) and a constant metric (0 for ``wmt`` and
    ``displayed``; for ``seeda`` the share of pairs whose second system the humans preferred,
    since a metric tie counts as the second system winning) -- see
    :func:`gec_meta.meta.ties.chance_accuracy` for why the best of the two is the chance level.

    A pair in which either metric score is NaN (no score, e.g. an LLM evaluator's missing
    answer) is skipped: it counts in neither numerator nor denominator, and the number of such
    human-ranked pairs is returned as ``skipped_missing`` (only when there are any).

    Args:
        sentence_scores: shape (S, N).
        items: ranking items whose ``line`` indexes the N sentences.
        systems: shape (S,), the systems the scores belong to (others in the items are ignored).

    Returns:
        ``{"accuracy": a, "accuracy_random": chance, "kendall": t, "pairs": n}`` (+
        ``"skipped_missing": k`` if k > 0).
    """
    out = _agreement(sentence_scores, items, systems, variant)
    if out["pairs"]:
        constant = np.where(np.isnan(np.asarray(sentence_scores, dtype=np.float64)), np.nan, 0.0)
        out = {"accuracy": out["accuracy"],
               "accuracy_random": max(0.5, _agreement(constant, items, systems, variant)["accuracy"]),
               **{k: v for k, v in out.items() if k != "accuracy"}}
    return out


def _agreement(sentence_scores, items: Sequence[RankingItem], systems: Sequence[str], variant: str) -> dict:
    """:func:`sentence_agreement` without its chance level."""
    if variant not in SENTENCE_VARIANTS:
        raise ValueError(f"sentence-level variant must be 'seeda', 'wmt' or 'displayed', got {variant!r}")
    scores = np.asarray(sentence_scores, dtype=np.float64)
    if variant == "displayed":
        return _displayed_agreement(scores, items, systems)
    valid, concordant, skipped_pairs = _system_pair_outcomes(scores, items, systems, variant)
    skipped = int(skipped_pairs.sum())
    n = int(valid.sum())
    c = int(concordant.sum())
    extra = {"skipped_missing": skipped} if skipped else {}
    if n == 0:
        warnings.warn("no human-ranked system pairs: sentence-level agreement is NaN",
                      UndefinedCorrelationWarning, stacklevel=3)
        return {"accuracy": float("nan"), "kendall": float("nan"), "pairs": 0, **extra}
    return {"accuracy": c / n, "kendall": (2 * c - n) / n, "pairs": n, **extra}


def _system_pair_outcomes(scores: np.ndarray, items: Sequence[RankingItem], systems: Sequence[str],
                          variant: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per ranking item and system pair i < j (``np.triu_indices(S, 1)`` order): whether the
    pair counts, whether the metric agrees (``seeda``/``wmt`` tie rules, see
    :func:`sentence_agreement`), and whether it was skipped for a missing score.

    Args:
        scores: shape (S, N).

    Returns:
        three bool arrays of shape (I, S * (S - 1) / 2).
    """
    ranks = rank_matrix(items, systems)  # (I, S), lower = better
    m = scores[:, [it.line for it in items]].T  # (I, S)
    iu, ju = np.triu_indices(len(systems), k=1)
    hi, hj = ranks[:, iu], ranks[:, ju]
    mi, mj = m[:, iu], m[:, ju]
    ranked = ~np.isnan(hi) & ~np.isnan(hj) & (hi != hj)
    scored = ~np.isnan(mi) & ~np.isnan(mj)
    valid = ranked & scored
    human_i_better = hi < hj
    if variant == "seeda":
        concordant = valid & ((mi > mj) == human_i_better)
    else:
        concordant = valid & (mi != mj) & ((mi > mj) == human_i_better)
    return valid, concordant, ranked & ~scored


def pairwise_agreement(sentence_scores, items: Sequence[RankingItem], systems: Sequence[str],
                       variant: str = "seeda") -> tuple[np.ndarray, np.ndarray]:
    """Sentence-level agreement with the human rankings broken down by system pair (UOT-ERRANT
    Figure 6, extending the sentence-level meta-evaluation of Kobayashi et al. 2024b).

    The pairs and the agreement rule are exactly those of :func:`sentence_agreement`
    (``seeda`` or ``wmt``); summing the upper triangles gives its ``accuracy`` back.

    Args:
        sentence_scores: shape (S, N).
        items: ranking items whose ``line`` indexes the N sentences.
        systems: shape (S,).

    Returns:
        ``(agree, pairs)``: int arrays (S, S), symmetric, zero diagonal: agreeing and judged
        sentence-level comparisons of systems i and j.
    """
    if variant not in ("seeda", "wmt"):
        raise ValueError(f"pairwise_agreement variant must be 'seeda' or 'wmt', got {variant!r}")
    scores = np.asarray(sentence_scores, dtype=np.float64)
    S = len(systems)
    if scores.ndim != 2 or scores.shape[0] != S:
        raise ValueError(f"sentence_scores must have shape ({S}, N), got {scores.shape}")
    valid, ok, _ = _system_pair_outcomes(scores, items, systems, variant)
    iu, ju = np.triu_indices(S, k=1)
    agree = np.zeros((S, S), dtype=np.int64)
    pairs = np.zeros((S, S), dtype=np.int64)
    agree[iu, ju] = ok.sum(axis=0)
    pairs[iu, ju] = valid.sum(axis=0)
    return agree + agree.T, pairs + pairs.T


def _displayed_agreement(scores: np.ndarray, items: Sequence[RankingItem], systems: Sequence[str]) -> dict:
    index = {s: i for i, s in enumerate(systems)}
    c = d = n = skipped = 0
    for item in items:
        groups = []
        for group, rank in item.displayed:
            members = [index[s] for s in group if s in index]
            if members:  # the output stays if any of its systems is in the setting
                groups.append((scores[members[0], item.line], rank))
        for (mi, ri), (mj, rj) in itertools.combinations(groups, 2):
            if ri == rj:
                continue
            if np.isnan(mi) or np.isnan(mj):
                skipped += 1
                continue
            n += 1
            if mi != mj:
                if (mi > mj) == (ri < rj):
                    c += 1
                else:
                    d += 1
    extra = {"skipped_missing": skipped} if skipped else {}
    if n == 0:
        warnings.warn("no human-ranked output pairs: sentence-level agreement is NaN",
                      UndefinedCorrelationWarning, stacklevel=4)
        return {"accuracy": float("nan"), "kendall": float("nan"), "pairs": 0, **extra}
    return {"accuracy": c / n, "kendall": (c - d) / n, "pairs": n, **extra}


def human_expected_wins(items: Sequence[RankingItem], systems: Sequence[str]) -> np.ndarray:
    """Expected Wins of the systems from human rankings (GJG15 §3.2; collapsed groups expanded).

    Returns:
        shape (S,).
    """
    from gec_meta.meta.aggregation import expected_wins_from_wins
    from gec_meta.data.judgments import pairwise_wins

    return expected_wins_from_wins(pairwise_wins(rank_matrix(items, systems)))
