"""Significance of system-level correlations: bootstrap CIs, Williams test, permutation test,
paired bootstrap test, and WMT-style "not significantly worse than the best" marks.

Pure functions with an explicit ``numpy.random.Generator`` (never the global RNG).

Resampling sentences (the human system scores stay fixed: TrueSkill human scores cannot be
recomputed per sample):

* :func:`bootstrap_indices` — the resamples, shape (P, N), drawn once and shared by every metric
  of a table (a *paired* design).
* :func:`resampled_system_scores` — a metric's system scores on every resample, re-aggregated
  from its statistics, shape (P, S); exact for every aggregation, vectorised over the resamples
  where the aggregation allows it (TrueSkill, Expected Wins, means of sentence scores).
* :func:`confidence_intervals` / :func:`bootstrap_correlations` — percentile CIs.
* :func:`paired_bootstrap_test` — does metric A correlate better than B on the resamples
  (Koehn 2004's paired bootstrap, applied to correlations)?

Comparing two metrics on the same systems:

* :func:`williams_test` — Williams (1959) test for dependent correlations, as the WMT metrics
  tasks use it (Graham & Baldwin 2014); the sample is the S systems.
* :func:`permutation_test` — paired permutation test over systems (Deutsch et al. 2021; WMT's
  ``PermutationSigDiff`` at the system level): swap A's and B's standardised system scores.

:func:`compare_with_best` runs one of the three tests of every metric of a table column against
the column's best metric; :func:`significance_signature` names the test for captions.
"""

from __future__ import annotations

import itertools
import math
from typing import Callable, Mapping, Sequence

import numpy as np
from scipy import stats as sps

from gec_meta.meta.evaluation import pearson, spearman

CORRELATIONS: dict[str, Callable] = {"pearson": pearson, "spearman": spearman}
METHODS = ("williams", "permutation", "bootstrap")


def _corr(kind: str, x, y) -> float:
    if kind == "pearson":
        return float(np.corrcoef(x, y)[0, 1])
    if kind == "spearman":
        return float(sps.spearmanr(x, y)[0])
    raise ValueError(f"unknown correlation {kind!r}")


# --------------------------------------------------------------------------- correlations
def row_correlations(scores: np.ndarray, human: Sequence[float], kind: str = "pearson") -> np.ndarray:
    """The correlation of every row of ``scores`` with ``human``, vectorised.

    Args:
        scores: shape (P, S).
        human: shape (S,).
        kind: ``pearson`` or ``spearman`` (Pearson of average ranks, as scipy).

    Returns:
        shape (P,); NaN for a row that is constant or not finite.
    """
    x = np.asarray(scores, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    if kind == "spearman":
        finite = np.isfinite(x).all(axis=1)
        x = np.where(finite[:, None], sps.rankdata(np.where(np.isfinite(x), x, 0.0), axis=1), np.nan)
        h = sps.rankdata(h)
    elif kind != "pearson":
        raise ValueError(f"unknown correlation {kind!r}")
    xc = x - x.mean(axis=1, keepdims=True)
    hc = h - h.mean()
    num = xc @ hc
    den = np.sqrt((xc * xc).sum(axis=1)) * math.sqrt(float(hc @ hc))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return np.clip(r, -1.0, 1.0)


# --------------------------------------------------------------------------- resampling sentences
def bootstrap_indices(num_sentences: int, rng: np.random.Generator, samples: int) -> np.ndarray:
    """Bootstrap resamples of the sentences (with replacement), shape (samples, num_sentences).

    Row p equals the p-th ``rng.integers(0, N, size=N)`` drawn one after another.
    """
    return rng.integers(0, num_sentences, size=(samples, num_sentences))


def _counts(indices: np.ndarray, num_sentences: int) -> np.ndarray:
    """How often every sentence occurs in every resample, shape (P, N)."""
    P = indices.shape[0]
    flat = (indices + num_sentences * np.arange(P)[:, None]).ravel()
    return np.bincount(flat, minlength=P * num_sentences).reshape(P, num_sentences).astype(np.float64)


# TrueSkill's pure-Python normal distribution (trueskill.backends, backend=None), vectorised with
# the same constants and operation order so that the resampled scores equal trueskill_scores.
_SQRT2 = math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _erfc(x: np.ndarray) -> np.ndarray:
    z = np.abs(x)
    t = 1. / (1. + z / 2.)
    r = t * np.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (
        0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (
            0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
                -0.82215223 + t * 0.17087277)))))))))
    return np.where(x < 0, 2. - r, r)


def _cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * _erfc(-x / _SQRT2)


def _pdf(x: np.ndarray) -> np.ndarray:
    return _INV_SQRT_2PI * np.exp(-(x ** 2 / 2))


def _v_w(t: np.ndarray, eps: np.ndarray, drawn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TrueSkill's V and W functions (Herbrich et al. 2006, Table 1) for wins and draws, as
    ``trueskill.TrueSkill.v_win/w_win/v_draw/w_draw`` compute them (the normal distribution is
    evaluated once on the three arguments stacked: numpy's per-call overhead dominates)."""
    P = len(t)
    abs_t = np.abs(t)
    args = np.concatenate([t - eps, eps - abs_t, -eps - abs_t])  # x (win), a and b (draw)
    cdf, pdf = _cdf(args), _pdf(args)
    x, a, b = args[:P], args[P:2 * P], args[2 * P:]
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = cdf[:P]
        v_win = np.where(denom != 0, pdf[:P] / denom, -x)
        w_win = v_win * (v_win + x)
        if not drawn.any():
            return v_win, w_win
        denom_d = cdf[P:2 * P] - cdf[2 * P:]
        v_abs = np.where(denom_d != 0, (pdf[2 * P:] - pdf[P:2 * P]) / denom_d, a)
        v_draw = v_abs * np.where(t < 0, -1., 1.)
        w_draw = v_abs ** 2 + (a * pdf[P:2 * P] - b * pdf[2 * P:]) / denom_d
    return np.where(drawn, v_draw, v_win), np.where(drawn, w_draw, w_win)


def trueskill_resampled(scores: np.ndarray, indices: np.ndarray, mu: float = 0.0, sigma: float = 0.5,
                        beta: float = 0.25, tau: float = 0.0, draw_probability: float = 0.25,
                        order: str = "sentence", seed: int = 0) -> np.ndarray:
    """:func:`gec_meta.meta.aggregation.trueskill_scores` of every resample at once.

    Resample p is the sentence sequence ``indices[p]``; its comparisons run in the order
    ``trueskill_scores`` uses for a dataset of those sentences (sentence by sentence, pairs
    i < j; ``order="shuffled"`` permutes them with ``seed``).  The sequential updates are
    vectorised over the P resamples; they equal ``trueskill_scores`` to rounding.

    Args:
        scores: sentence scores, shape (S, N); equal scores are draws; NaN pairs skipped.
        indices: shape (P, N').

    Returns:
        shape (P, S): the final mu of every system on every resample.
    """
    from trueskill import calc_draw_margin

    from gec_meta.meta.aggregation import _trueskill_env, pairwise_outcomes

    env = _trueskill_env(mu, sigma, beta, tau, draw_probability)
    draw_margin = calc_draw_margin(draw_probability, 2, env)
    outcomes = pairwise_outcomes(scores)  # (N, S, S)
    indices = np.asarray(indices)
    P, N = indices.shape
    S = outcomes.shape[1]
    combos = list(itertools.combinations(range(S), 2))
    steps = [(k, i, j) for k in range(N) for i, j in combos]
    if order == "shuffled":
        rng = np.random.default_rng(seed)
        steps = [steps[q] for q in rng.permutation(len(steps))]
    means = np.full((S, P), float(mu))
    variances = np.full((S, P), float(sigma) ** 2)
    tau2, two_beta2 = float(tau) ** 2, 2 * env.beta ** 2
    block_k, block = -1, None
    for k, i, j in steps:
        if k != block_k:  # consecutive steps of one sentence share its outcome block
            block_k, block = k, outcomes[indices[:, k]]  # (P, S, S)
        o = block[:, i, j]
        # sign +1: i is "player 1" (winner or first of a draw), -1: j won.  Negation is exact,
        # so this equals the winner/loser form of aggregation._rate_1vs1 bit for bit.
        sign = np.where(o < 0, -1., 1.)
        mi, mj = means[i], means[j]
        vi, vj = (variances[i] + tau2, variances[j] + tau2) if tau2 else (variances[i], variances[j])
        c2 = two_beta2 + np.where(o < 0, vj, vi) + np.where(o < 0, vi, vj)
        c = np.sqrt(c2)
        v, w = _v_w(sign * (mi - mj) / c, draw_margin / c, o == 0)
        new = (mi + sign * (vi / c * v), mj - sign * (vj / c * v), vi * (1 - vi / c2 * w), vj * (1 - vj / c2 * w))
        valid = o != -2
        if valid.all():
            means[i], means[j], variances[i], variances[j] = new
        else:
            means[i] = np.where(valid, new[0], mi)
            means[j] = np.where(valid, new[1], mj)
            variances[i] = np.where(valid, new[2], variances[i])
            variances[j] = np.where(valid, new[3], variances[j])
    return means.T.copy()


def _sentence_decomposition(metric, stats: np.ndarray, sentence: np.ndarray, probe: np.ndarray) -> str | None:
    """``"mean"`` or ``"sum"`` if the metric's corpus score is the mean (sum) of its sentence
    scores — checked on the full data and on the resample ``probe`` — else None."""
    full = np.asarray(metric.corpus_scores(stats), dtype=np.float64)
    sub = np.asarray(metric.corpus_scores(stats[:, probe]), dtype=np.float64)
    for name, reduce in (("mean", np.mean), ("sum", np.sum)):
        if (np.allclose(full, reduce(sentence, axis=1), rtol=1e-10, atol=1e-12)
                and np.allclose(sub, reduce(sentence[:, probe], axis=1), rtol=1e-10, atol=1e-12)):
            return name
    return None


def resampled_system_scores(metric, stats: np.ndarray, aggregation, indices: np.ndarray) -> np.ndarray:
    """The system scores ``aggregation(metric, stats[:, idx])`` of every resample ``idx``.

    Vectorised where the aggregation is a function of the sentence scores (a sentence's score
    does not depend on the other sentences): TrueSkill (:func:`trueskill_resampled`), Expected
    Wins and the average; also the ``default`` aggregation of metrics whose corpus score is the
    mean or the sum of their sentence scores (SentM2, BERTScore, Scribendi, ...).  Corpus scores
    from statistics accumulated over the corpus (M2, ERRANT, GLEU, GREEN: edit or n-gram counts)
    are recomputed on every resample.

    Args:
        metric: the bound metric.
        stats: shape (S, N, R, K).
        aggregation: a :class:`gec_meta.meta.aggregation.Aggregation`.
        indices: shape (P, N) from :func:`bootstrap_indices`.

    Returns:
        shape (P, S).
    """
    from gec_meta.meta.aggregation import Average, Default, ExpectedWins, TrueSkillAggregation, expected_wins_from_wins

    indices = np.asarray(indices)
    N = stats.shape[1]
    if isinstance(aggregation, TrueSkillAggregation):
        opts = {k: getattr(aggregation, k) for k in ("mu", "sigma", "beta", "tau", "draw_probability", "order", "seed")}
        return trueskill_resampled(np.asarray(metric.sentence_scores(stats), dtype=np.float64), indices, **opts)
    if isinstance(aggregation, ExpectedWins):
        x = np.asarray(metric.sentence_scores(stats), dtype=np.float64)
        beats = (x[:, None, :] > x[None, :, :]).astype(np.float64)  # (S, S, N)
        S = x.shape[0]
        wins = (_counts(indices, N) @ beats.reshape(S * S, N).T).reshape(-1, S, S)
        return np.stack([expected_wins_from_wins(w) for w in wins])
    if isinstance(aggregation, (Average, Default)):
        sentence = np.asarray(metric.sentence_scores(stats), dtype=np.float64)
        if not np.isfinite(sentence).all() or not len(indices):  # NaN-aware means: recompute
            how = None
        elif isinstance(aggregation, Average):
            how = "mean"
        else:
            how = _sentence_decomposition(metric, stats, sentence, indices[0])
        if how is not None:
            total = _counts(indices, N) @ sentence.T
            return total / indices.shape[1] if how == "mean" else total
    return np.stack([np.asarray(aggregation(metric, stats[:, idx]), dtype=np.float64) for idx in indices])


def confidence_intervals(resampled: np.ndarray, human: Sequence[float],
                         kinds: Sequence[str] = ("pearson", "spearman"),
                         alpha: float = 0.05) -> dict[str, dict[str, float]]:
    """Percentile bootstrap CIs of the correlations of resampled system scores with ``human``.

    Args:
        resampled: shape (P, S) (:func:`resampled_system_scores`).
        human: shape (S,).
        alpha: 1 - confidence level.

    Returns:
        ``{kind: {"low", "high", "mean", "dropped"}}``; resamples whose scores are constant or
        not finite (undefined correlation) are dropped and counted.
    """
    x = np.asarray(resampled, dtype=np.float64)
    ok = np.isfinite(x).all(axis=1) & (np.ptp(np.where(np.isfinite(x), x, 0.0), axis=1) > 0)
    dropped = int((~ok).sum())
    out = {}
    for k in kinds:
        arr = row_correlations(x[ok], human, k) if ok.any() else np.zeros(0)
        out[k] = {
            "low": float(np.quantile(arr, alpha / 2)) if len(arr) else float("nan"),
            "high": float(np.quantile(arr, 1 - alpha / 2)) if len(arr) else float("nan"),
            "mean": float(arr.mean()) if len(arr) else float("nan"),
            "dropped": dropped,
        }
    return out


def bootstrap_correlations(
    system_scores_of: Callable[[np.ndarray], np.ndarray],
    num_sentences: int,
    human: Sequence[float],
    rng: np.random.Generator,
    samples: int = 1000,
    kinds: Sequence[str] = ("pearson", "spearman"),
    alpha: float = 0.05,
) -> dict[str, dict[str, float]]:
    """Percentile bootstrap CIs of system-level correlations.

    Args:
        system_scores_of: maps sentence indices, shape (N,), to system scores, shape (S,)
            (e.g. ``lambda idx: aggregation(metric, stats[:, idx])``).
        num_sentences: N.
        human: shape (S,).
        rng: the random generator (seeded by the caller).
        samples: bootstrap samples (1000 as in WMT).
        alpha: 1 - confidence level.

    Returns:
        as :func:`confidence_intervals`.
    """
    indices = bootstrap_indices(num_sentences, rng, samples)
    resampled = np.stack([np.asarray(system_scores_of(idx), dtype=np.float64) for idx in indices])
    return confidence_intervals(resampled, human, kinds, alpha)


# --------------------------------------------------------------------------- paired tests
def williams_test(r12: float, r13: float, r23: float, n: int) -> tuple[float, float]:
    """Williams' test for the difference of two dependent correlations sharing variable 1.

    t = (r12 - r13) sqrt((n-1)(1+r23)) / sqrt(2 (n-1)/(n-3) |R| + (r12+r13)^2/4 (1-r23)^3),
    |R| = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23, with n - 3 degrees of freedom
    (Williams 1959; Steiger 1980 eq. 7; Graham & Baldwin 2014).

    Args:
        r12: correlation of metric A with the humans.
        r13: correlation of metric B with the humans.
        r23: correlation of metric A with metric B.
        n: number of systems (> 3).

    Returns:
        (t, one-sided p) for the hypothesis r12 > r13.
    """
    if n <= 3:
        raise ValueError("Williams' test needs more than 3 systems")
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    denom = 2 * (n - 1) / (n - 3) * det + (r12 + r13) ** 2 / 4 * (1 - r23) ** 3
    if denom <= 0:
        return (math.inf if r12 > r13 else (0.0 if r12 == r13 else -math.inf)), (0.0 if r12 > r13 else (0.5 if r12 == r13 else 1.0))
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(denom)
    return t, float(sps.t.sf(t, n - 3))


def compare_metrics_williams(a: Sequence[float], b: Sequence[float], human: Sequence[float],
                             kind: str = "pearson") -> dict[str, float]:
    """Williams' test that metric A (system scores ``a``) correlates better than B."""
    r12, r13, r23 = _corr(kind, a, human), _corr(kind, b, human), _corr(kind, a, b)
    t, p = williams_test(r12, r13, r23, len(human))
    return {"delta": r12 - r13, "t": t, "p": p}


def permutation_test(
    a: Sequence[float],
    b: Sequence[float],
    human: Sequence[float],
    rng: np.random.Generator,
    samples: int = 10000,
    kind: str = "pearson",
) -> dict[str, float]:
    """Paired permutation test over systems that metric A correlates better with the humans.

    Each metric's system scores are standardised (z-scores) so that swapping is meaningful;
    each sample swaps A's and B's score of every system with probability 1/2 (all samples are
    drawn at once: ``rng.random((samples, S))``).

    Returns:
        ``{"delta": corr(A) - corr(B), "p": one-sided p (add-one smoothed)}``.
    """
    za = sps.zscore(np.asarray(a, dtype=np.float64))
    zb = sps.zscore(np.asarray(b, dtype=np.float64))
    h = np.asarray(human, dtype=np.float64)
    observed = _corr(kind, za, h) - _corr(kind, zb, h)
    swap = rng.random((samples, len(h))) < 0.5
    delta = (row_correlations(np.where(swap, zb, za), h, kind)
             - row_correlations(np.where(swap, za, zb), h, kind))
    hits = int((delta >= observed - 1e-12).sum())
    return {"delta": observed, "p": (hits + 1) / (samples + 1)}


def paired_bootstrap_test(a_resampled: np.ndarray, b_resampled: np.ndarray, human: Sequence[float],
                          kind: str = "pearson") -> dict[str, float]:
    """Paired bootstrap test over sentences that metric A correlates better than B (Koehn 2004).

    Both metrics are re-aggregated on the *same* resamples of the sentences; A is better at
    level p when it correlates better than B on all but a fraction p of the resamples.

    Args:
        a_resampled, b_resampled: shape (P, S), from :func:`resampled_system_scores` with the
            same ``indices``.
        human: shape (S,).

    Returns:
        ``{"p": (1 + #resamples where corr(A) <= corr(B) or either is undefined) / (1 + P),
        "wins": fraction of resamples where corr(A) > corr(B)}``.
    """
    a_resampled, b_resampled = np.asarray(a_resampled), np.asarray(b_resampled)
    if a_resampled.shape != b_resampled.shape:
        raise ValueError(f"resamples of different shapes: {a_resampled.shape} vs {b_resampled.shape}")
    P = a_resampled.shape[0]
    with np.errstate(invalid="ignore"):
        wins = int((row_correlations(a_resampled, human, kind) > row_correlations(b_resampled, human, kind)).sum())
    return {"p": (1 + P - wins) / (1 + P), "wins": wins / P if P else float("nan")}


def compare_with_best(
    system_scores: Mapping[str, Sequence[float]],
    human: Sequence[float],
    kind: str = "pearson",
    method: str = "williams",
    rng: np.random.Generator | None = None,
    samples: int = 1000,
    resampled: Mapping[str, np.ndarray] | None = None,
) -> dict[str, dict[str, float | str]]:
    """Is each metric's correlation significantly lower than the best metric's (WMT style)?

    The best metric is the one with the highest correlation (the first one on ties); every
    other metric is tested with the one-sided hypothesis corr(best) > corr(metric).

    Args:
        system_scores: metric label -> system scores, shape (S,), all on the same systems.
        human: shape (S,).
        kind: ``pearson`` or ``spearman`` (Williams on Spearman = Williams on the ranks).
        method: ``williams`` (:func:`williams_test`), ``permutation`` (:func:`permutation_test`
            over systems, ``samples`` draws from ``rng``, metrics tested in the given order) or
            ``bootstrap`` (:func:`paired_bootstrap_test`; needs ``resampled``: label -> shape
            (P, S) on shared sentence resamples).

    Returns:
        label -> ``{"corr", "best", "delta" (corr(best) - corr), "p"}``; the best metric has
        delta 0 and p 1; a metric with an undefined (NaN) correlation gets p NaN.
    """
    if method not in METHODS:
        raise ValueError(f"unknown significance method {method!r}; choose from {list(METHODS)}")
    if method == "permutation" and rng is None:
        raise ValueError("the permutation test needs a random generator (rng)")
    if method == "bootstrap" and resampled is None:
        raise ValueError("the paired bootstrap test needs the resampled system scores (resampled)")
    human = np.asarray(human, dtype=np.float64)
    corr = {label: CORRELATIONS[kind](np.asarray(s, dtype=np.float64), human) for label, s in system_scores.items()}
    defined = [label for label, r in corr.items() if not math.isnan(r)]
    out: dict[str, dict[str, float | str]] = {}
    if not defined:
        return {label: {"corr": r, "best": "", "delta": float("nan"), "p": float("nan")} for label, r in corr.items()}
    best = max(defined, key=lambda label: corr[label])  # max keeps the first of equal values
    for label, r in corr.items():
        if math.isnan(r):
            p = float("nan")
        elif label == best:
            p = 1.0
        elif method == "williams":
            p = compare_metrics_williams(system_scores[best], system_scores[label], human, kind)["p"]
        elif method == "permutation":
            p = permutation_test(system_scores[best], system_scores[label], human, rng, samples, kind)["p"]
        else:
            p = paired_bootstrap_test(resampled[best], resampled[label], human, kind)["p"]
        out[label] = {"corr": r, "best": best, "delta": corr[best] - r, "p": p}
    return out


def significance_signature(method: str, samples: int | None = None, seed: int | None = None,
                           alpha: float = 0.05) -> str:
    """``sig:<method>(...)`` naming the test, its unit, resamples and seed (for captions)."""
    from gec_meta.meta.signature import component

    opts: dict[str, object] = {"alpha": alpha, "tail": "one-sided"}
    if method == "permutation":
        opts.update(unit="systems", resamples=samples, seed=seed)
    elif method == "bootstrap":
        opts.update(unit="sentences", resamples=samples, seed=seed)
    elif method != "williams":
        raise ValueError(f"unknown significance method {method!r}; choose from {list(METHODS)}")
    return "sig:" + component(method, opts)
