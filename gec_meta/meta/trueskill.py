"""TrueSkill (Herbrich et al. 2006) over sentence-level pairwise comparisons of system scores.

The "Rethinking" paper (Goto et al. 2025, §2.2, Appendix A) aggregates a metric's sentence
scores like SEEDA's human TrueSkill: every sentence is a set of 1-vs-1 games between the
systems, a higher score wins, equal scores draw.  This module is the one implementation, used
by :class:`gec_meta.meta.aggregation.TrueSkillAggregation` (one run) and by its resampling
(bootstrap resamples of the sentences):

* :class:`TrueSkillParams` -- the parameters and their defaults, written once;
* :func:`comparison_steps` -- the order of the games (part of the result);
* :func:`trueskill_mu` -- the final mu of every system on every resample, shape (P, S);
* :func:`trueskill_mu_swapped` -- the final mu of two systems that swap their sentence scores
  on chosen sentences (the paired permutation test of :mod:`gec_meta.meta.spa`).

Only the update of one game exists twice, for speed, with one formula (Herbrich et al. 2006,
Table 1; :func:`_rate_1vs1`):

* one run (P = 1): the closed form on Python floats with the ``trueskill`` package's own
  V/W functions (~11 µs per game; the package's factor-graph ``rate`` costs ~110 µs, and a
  GJG15 aggregation plays 102k games).  These are the system scores of every result file.
* P resamples: the same update on arrays of shape (P,) (:func:`_v_w`: the package's pure-Python
  normal distribution, vectorised with the same constants and operation order).  Its only
  numerical difference is numpy's ``exp`` (SIMD on AVX-512 machines; differs from ``math.exp``
  in the last bit for ~5% of arguments), so resample p equals the one-run scores of the
  sentences ``indices[p]`` to ~1e-16 (``tests/test_trueskill.py`` checks 1e-12), not bit for bit.
  Run at P = 1 it would cost ~114 µs per game (numpy's per-call overhead).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from gec_meta.fields import check_fields, finite, integer, non_negative, open_interval, positive, valid
from gec_meta.errors import ConfigError

ORDERS = ("sentence", "shuffled")


@dataclass(frozen=True)
class TrueSkillParams:
    """TrueSkill parameters and the order of the games.

    Defaults: SEEDA's human TrueSkill, as gec-metrics and "Rethinking" (Appendix A) use them:
    mu 0, sigma 0.5, beta 0.25, tau 0 (no dynamics), draw_probability 0.25.

    order: ``sentence`` (sentence by sentence, within a sentence every pair (i, j), i < j, in
        system-index order: the dataset's configured system order) or ``shuffled`` (the games
        in a random order drawn from ``seed``; a robustness check, not the published setting).
    seed: used only by ``order: shuffled``.

    Valid ranges (a ConfigError naming ``aggregation.<field>`` otherwise): sigma > 0, beta > 0
    (both divide), tau >= 0, 0 < draw_probability < 1 (the draw margin is the normal quantile
    of (draw_probability + 1) / 2), seed an integer >= 0 (numpy's ``default_rng``).
    """

    mu: float = field(default=0.0, metadata=valid(finite()))
    sigma: float = field(default=0.5, metadata=valid(positive()))
    beta: float = field(default=0.25, metadata=valid(positive()))
    tau: float = field(default=0.0, metadata=valid(non_negative()))
    draw_probability: float = field(default=0.25, metadata=valid(open_interval(0, 1)))
    order: str = "sentence"
    seed: int = field(default=0, metadata=valid(integer(0)))

    def __post_init__(self):
        check_fields(self, "aggregation")
        if self.order not in ORDERS:
            raise ConfigError(f"aggregation.order must be 'sentence' or 'shuffled', got {self.order!r}")


def pairwise_outcomes(scores: np.ndarray) -> np.ndarray:
    """Pairwise comparison of the systems' scores on every sentence.

    Args:
        scores: shape (S, N); NaN = no score (the pair is skipped).

    Returns:
        int8 array (N, S, S): +1 where system i scored higher than j, -1 lower, 0 tie,
        and -2 where either score is NaN.
    """
    x = np.asarray(scores, dtype=np.float64).T  # (N, S)
    a, b = x[:, :, None], x[:, None, :]
    out = np.sign(np.nan_to_num(a - b)).astype(np.int8)  # NaN -> 0 here, -2 below (no cast warning)
    out[np.isnan(a) | np.isnan(b)] = -2
    return out


def comparison_steps(num_sentences: int, num_systems: int, order: str = "sentence", seed: int = 0
                     ) -> list[tuple[int, int, int]]:
    """The games ``(k, i, j)`` (sentence position k, systems i < j) in the order they are played.

    ``sentence``: k ascending, then the pairs of ``itertools.combinations``; ``shuffled``: that
    list permuted by ``numpy.random.default_rng(seed).permutation``.
    """
    steps = [(k, i, j) for k in range(num_sentences) for i, j in itertools.combinations(range(num_systems), 2)]
    if order == "shuffled":
        rng = np.random.default_rng(seed)
        steps = [steps[q] for q in rng.permutation(len(steps))]
    return steps


def _trueskill_env(mu, sigma, beta, tau, draw_probability):
    import trueskill

    # A local environment: never trueskill.setup()/make_as_global(), which would change the
    # defaults of every other user of the package in this process.
    return trueskill.TrueSkill(
        mu=mu, sigma=sigma, beta=beta, tau=tau, draw_probability=draw_probability, backend=None
    )


def _env_and_margin(p: TrueSkillParams):
    from trueskill import calc_draw_margin

    env = _trueskill_env(p.mu, p.sigma, p.beta, p.tau, p.draw_probability)
    return env, calc_draw_margin(p.draw_probability, 2, env)


def trueskill_mu(scores: np.ndarray, indices: np.ndarray | None = None,
                 params: TrueSkillParams = TrueSkillParams()) -> np.ndarray:
    """TrueSkill mu of every system on every resample of the sentences.

    Resample p is the sentence sequence ``indices[p]``; its games are
    ``comparison_steps(len(indices[p]), S, params.order, params.seed)`` with sentence position k
    standing for sentence ``indices[p, k]``.

    Args:
        scores: sentence scores, shape (S, N); higher is better; equal scores are draws; a pair
            with a NaN score is skipped.
        indices: shape (P, N'); None = the sentences as they are (one run, P = 1, the exact
            scalar path: see the module docstring).
        params: :class:`TrueSkillParams`.

    Returns:
        shape (P, S): the final mu.
    """
    outcomes = pairwise_outcomes(scores)  # (N, S, S)
    if indices is None:
        return _sweep_one(outcomes, params)[None, :]
    return _sweep_resamples(outcomes, np.asarray(indices), params)


def swap_systems(outcomes: np.ndarray, i: int, j: int) -> np.ndarray:
    """The outcomes (N, S, S) of :func:`pairwise_outcomes` after systems i and j swap their
    scores on every sentence: entry (a, b) becomes (pi(a), pi(b)), pi the transposition (i j)."""
    perm = np.arange(outcomes.shape[1])
    perm[[i, j]] = j, i
    return outcomes[:, perm][:, :, perm]


def trueskill_mu_swapped(scores: np.ndarray, pairs, signs: np.ndarray,
                         params: TrueSkillParams = TrueSkillParams(), max_lanes: int = 8192) -> np.ndarray:
    """TrueSkill mu of systems i and j when they swap their sentence scores on the sentences
    where ``signs[r, n] == -1``, for every pair (i, j) and permutation r.

    Every (pair, permutation) is one lane of :func:`_sweep_resamples` (the vectorised games,
    arrays of shape (lanes,)): its outcome sequence reads sentence n from the unchanged outcomes
    where the sign is +1 and from the swapped ones (:func:`swap_systems`) where it is -1, so the
    games are played in the order of :func:`comparison_steps` exactly as a run on the swapped
    scores would.  Lanes are processed ``max_lanes`` (rounded to whole pairs) at a time.

    Cost: pairs x R x N x C(S, 2) game updates (every game changes: the ratings of i and j
    enter every later game of their opponents), ~3e-7 s each at 8,000 lanes on a shared 2-core
    machine: all 66 pairs of 12 systems at R = 1000 take ~8 min on SEEDA (391 sentences) and
    ~40 min on GJG15 (1,312); use a smaller R (the cost is linear in R) for a leaderboard.

    Args:
        scores: sentence scores, shape (S, N) (as :func:`trueskill_mu`).
        pairs: sequence of (i, j), i != j.
        signs: shape (R, N) of -1/+1.
        params: :class:`TrueSkillParams`.
        max_lanes: lanes per sweep (memory: ~N x 4 bytes per lane for the sentence indices).

    Returns:
        shape (len(pairs), R, 2): mu of system i (column 0) and of system j (column 1).
    """
    outcomes = pairwise_outcomes(scores)  # (N, S, S)
    keep = np.asarray(signs) > 0
    R, N = keep.shape
    pairs = [(int(i), int(j)) for i, j in pairs]
    per_chunk = max(1, int(max_lanes) // R)
    out = np.zeros((len(pairs), R, 2))
    for start in range(0, len(pairs), per_chunk):
        chunk = pairs[start:start + per_chunk]
        extended = np.concatenate([outcomes] + [swap_systems(outcomes, i, j) for i, j in chunk])
        sentence = np.arange(N, dtype=np.int32)
        indices = np.concatenate([np.where(keep, sentence, (q + 1) * N + sentence) for q in range(len(chunk))])
        mu = _sweep_resamples(extended, indices, params).reshape(len(chunk), R, -1)
        for q, (i, j) in enumerate(chunk):
            out[start + q, :, 0], out[start + q, :, 1] = mu[q, :, i], mu[q, :, j]
    return out


def _rate_1vs1(env, m1: float, v1: float, m2: float, v2: float, drawn: bool, draw_margin: float):
    """One TrueSkill game of player 1 (winner, or first of a draw) vs player 2.

    Closed form of the two-player factor graph (Herbrich et al. 2006, Table 1) with the
    environment's own V/W functions, so it agrees with ``env.rate``/``rate_1vs1`` to rounding:

        c^2 = 2 beta^2 + v1 + v2,  t = (m1 - m2) / c,  eps = draw margin / c,
        m1' = m1 + v1/c V(t, eps),  m2' = m2 - v2/c V(t, eps),
        v1' = v1 (1 - v1/c^2 W(t, eps)),  v2' = v2 (1 - v2/c^2 W(t, eps)).

    Args are means and variances (sigma^2) after the dynamics step (tau^2 already added).
    Returns the new (m1, v1, m2, v2).
    """
    c2 = 2 * env.beta ** 2 + v1 + v2
    c = math.sqrt(c2)
    t = (m1 - m2) / c
    eps = draw_margin / c
    if drawn:
        v, w = env.v_draw(t, eps), env.w_draw(t, eps)
    else:
        v, w = env.v_win(t, eps), env.w_win(t, eps)
    m1n = m1 + v1 / c * v
    m2n = m2 - v2 / c * v
    v1n = v1 * (1 - v1 / c2 * w)
    v2n = v2 * (1 - v2 / c2 * w)
    return m1n, v1n, m2n, v2n


def _sweep_one(outcomes: np.ndarray, p: TrueSkillParams) -> np.ndarray:
    """All games of one run on Python floats, shape (S,)."""
    env, draw_margin = _env_and_margin(p)
    N, S = outcomes.shape[:2]
    means = [float(p.mu)] * S
    variances = [float(p.sigma) ** 2] * S
    tau2 = float(p.tau) ** 2
    for n, i, j in comparison_steps(N, S, p.order, p.seed):
        o = outcomes[n, i, j]
        if o == -2:
            continue
        vi, vj = variances[i] + tau2, variances[j] + tau2
        if o >= 0:  # i wins or draw: i is "player 1"
            means[i], variances[i], means[j], variances[j] = _rate_1vs1(
                env, means[i], vi, means[j], vj, o == 0, draw_margin)
        else:
            means[j], variances[j], means[i], variances[i] = _rate_1vs1(
                env, means[j], vj, means[i], vi, False, draw_margin)
    return np.array(means)


# TrueSkill's pure-Python normal distribution (trueskill.backends, backend=None), vectorised with
# the same constants and operation order.  erfc: Numerical Recipes' Chebyshev fit (erfcc,
# Press et al. 1992, §6.2; fractional error < 1.2e-7), as the package.
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
    evaluated once on the three arguments stacked: numpy's per-call overhead dominates).

    Args:
        t, eps, drawn: shape (P,).
    """
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


def _sweep_resamples(outcomes: np.ndarray, indices: np.ndarray, p: TrueSkillParams) -> np.ndarray:
    """All games of P resamples at once (:func:`_rate_1vs1` on arrays), shape (P, S)."""
    env, draw_margin = _env_and_margin(p)
    P, N = indices.shape
    S = outcomes.shape[1]
    means = np.full((S, P), float(p.mu))
    variances = np.full((S, P), float(p.sigma) ** 2)
    tau2, two_beta2 = float(p.tau) ** 2, 2 * env.beta ** 2
    block_k, block = -1, None
    for k, i, j in comparison_steps(N, S, p.order, p.seed):
        if k != block_k:  # consecutive games of one sentence share its outcome block
            block_k, block = k, outcomes[indices[:, k]]  # (P, S, S)
        o = block[:, i, j]
        # sign +1: i is "player 1" (winner or first of a draw), -1: j won.  Negation is exact,
        # so this is the winner/loser form of _rate_1vs1 operation for operation.
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
