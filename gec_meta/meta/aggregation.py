"""Aggregations: sentence-level statistics or scores -> one score per system.

Pure functions of arrays (no metric state, no global state):

* ``default``        the metric's own corpus score (edit/n-gram counts accumulated over the
                     corpus for M2, ERRANT, GLEU; the mean for sentence metrics);
* ``average``        the mean of the sentence scores;
* ``trueskill``      TrueSkill (Herbrich et al. 2006) over sentence-level pairwise comparisons,
                     ties = draws, as the "Rethinking" paper (Goto et al. 2025, §2.2) proposes;
* ``expected_wins``  Expected Wins (Bojar et al. 2013; GJG15 §3) over the same comparisons.
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gec_meta.errors import ConfigError


@dataclass(frozen=True)
class Aggregation:
    """Base class: ``name`` and options enter the result signature."""

    name: ClassVar[str] = "aggregation"

    def options(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items()}

    def signature(self) -> str:
        from gec_meta.meta.signature import component

        return component(self.name, self.options())

    def __call__(self, metric, stats: np.ndarray) -> np.ndarray:
        """System scores, shape (S,), from statistics of shape (S, N, R, K)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Default(Aggregation):
    name: ClassVar[str] = "default"

    def __call__(self, metric, stats):
        return np.asarray(metric.corpus_scores(stats), dtype=np.float64)


@dataclass(frozen=True)
class Average(Aggregation):
    """Mean of the sentence scores; NaN sentence scores (no score, e.g. an LLM evaluator's
    missing answer) are left out of the mean, and a system without any score gets NaN."""

    name: ClassVar[str] = "average"

    def __call__(self, metric, stats):
        scores = np.asarray(metric.sentence_scores(stats), dtype=np.float64)
        if not np.isnan(scores).any():
            return scores.mean(axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN row: NaN, reported downstream
            return np.nanmean(scores, axis=1)


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


def _trueskill_env(mu, sigma, beta, tau, draw_probability):
    import trueskill

    # A local environment: never trueskill.setup()/make_as_global(), which would change the
    # defaults of every other user of the package in this process.
    return trueskill.TrueSkill(
        mu=mu, sigma=sigma, beta=beta, tau=tau, draw_probability=draw_probability, backend=None
    )


def _rate_1vs1(env, m1: float, v1: float, m2: float, v2: float, drawn: bool, draw_margin: float):
    """One TrueSkill update of player 1 (winner, or first of a draw) vs player 2.

    Closed form of the two-player factor graph (Herbrich et al. 2006, Table 1) using the
    environment's own v/w functions, so it agrees with ``env.rate`` to rounding
    (``tests/test_aggregation.py`` checks this on random sequences).  Written out because the
    package's generic factor-graph scheduler costs ~110 µs per comparison, and a GJG15
    TrueSkill aggregation makes 102k comparisons.

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


@dataclass(frozen=True)
class TrueSkillAggregation(Aggregation):
    """TrueSkill over sentence-level pairwise comparisons; the system score is the final mu.

    Order (deterministic, part of the signature): sentence by sentence, and within a sentence
    every pair (i, j), i < j, in system-index order; the result depends on the order of the
    systems, so the dataset's configured order is used (SEEDA alphabetical, GJG15 Table 3).

    Fields (defaults = gec-metrics / "Rethinking" Appendix A, after SEEDA's human TrueSkill):
        mu 0, sigma 0.5, beta 0.25, tau 0, draw_probability 0.25.
        order: ``sentence`` (the above) or ``shuffled`` (the comparisons in a random order
            drawn from ``seed``; a robustness check, not the published setting).
        seed: used only by ``order: shuffled``.
    """

    mu: float = 0.0
    sigma: float = 0.5
    beta: float = 0.25
    tau: float = 0.0
    draw_probability: float = 0.25
    order: str = "sentence"
    seed: int = 0

    name: ClassVar[str] = "trueskill"

    def __post_init__(self):
        if self.order not in ("sentence", "shuffled"):
            raise ConfigError(f"aggregation.order must be 'sentence' or 'shuffled', got {self.order!r}")

    def options(self):
        opts = super().options()
        if self.order == "sentence":
            opts.pop("seed")
        return opts

    def __call__(self, metric, stats):
        return trueskill_scores(
            np.asarray(metric.sentence_scores(stats)), mu=self.mu, sigma=self.sigma, beta=self.beta,
            tau=self.tau, draw_probability=self.draw_probability, order=self.order, seed=self.seed,
        )


def trueskill_scores(
    scores: np.ndarray,
    mu: float = 0.0,
    sigma: float = 0.5,
    beta: float = 0.25,
    tau: float = 0.0,
    draw_probability: float = 0.25,
    order: str = "sentence",
    seed: int = 0,
) -> np.ndarray:
    """TrueSkill mu of every system from sentence scores.

    Args:
        scores: shape (S, N); higher is better; equal scores are draws; NaN pairs skipped.

    Returns:
        shape (S,).
    """
    from trueskill import calc_draw_margin

    env = _trueskill_env(mu, sigma, beta, tau, draw_probability)
    outcomes = pairwise_outcomes(scores)
    S = outcomes.shape[1]
    means = [float(mu)] * S
    variances = [float(sigma) ** 2] * S
    draw_margin = calc_draw_margin(draw_probability, 2, env)
    pairs = [(n, i, j) for n in range(outcomes.shape[0]) for i, j in itertools.combinations(range(S), 2)]
    if order == "shuffled":
        rng = np.random.default_rng(seed)
        pairs = [pairs[k] for k in rng.permutation(len(pairs))]
    tau2 = float(tau) ** 2
    for n, i, j in pairs:
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


def win_matrix(scores: np.ndarray) -> np.ndarray:
    """wins[i, j] = number of sentences where system i scored strictly higher than j.

    Args:
        scores: shape (S, N); NaN never wins.
    """
    x = np.asarray(scores, dtype=np.float64)
    return (x[:, None, :] > x[None, :, :]).sum(axis=2)


def expected_wins_from_wins(wins: np.ndarray) -> np.ndarray:
    """Expected Wins (Bojar et al. 2013; Grundkiewicz et al. 2015, §3.2):

        EW(S_i) = 1/(|S|-1) * sum_{j != i} wins(i,j) / (wins(i,j) + wins(j,i))

    Ties count for neither system.  Guard: a pair that was never decided (no win either way)
    adds 0 to both systems' sums (the denominator stays |S|-1), with a warning, instead of a
    division by zero.

    Args:
        wins: shape (S, S).

    Returns:
        shape (S,).
    """
    wins = np.asarray(wins, dtype=np.float64)
    S = wins.shape[0]
    if S < 2:
        raise ValueError("Expected Wins needs at least two systems")
    total = wins + wins.T
    undecided = (total == 0) & ~np.eye(S, dtype=bool)
    if undecided.any():
        pairs = int(undecided.sum() // 2)
        warnings.warn(f"Expected Wins: {pairs} system pair(s) never decided; they contribute 0", stacklevel=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(total > 0, wins / np.where(total > 0, total, 1), 0.0)
    np.fill_diagonal(ratio, 0.0)
    return ratio.sum(axis=1) / (S - 1)


@dataclass(frozen=True)
class ExpectedWins(Aggregation):
    """Expected Wins over sentence-level pairwise comparisons of the metric's sentence scores."""

    name: ClassVar[str] = "expected_wins"

    def __call__(self, metric, stats):
        return expected_wins_from_wins(win_matrix(np.asarray(metric.sentence_scores(stats))))


AGGREGATIONS = {
    "default": Default,
    "average": Average,
    "trueskill": TrueSkillAggregation,
    "expected_wins": ExpectedWins,
}


def load_aggregation(name: str, **options) -> Aggregation:
    if name not in AGGREGATIONS:
        raise ConfigError(f"unknown aggregation {name!r}; choose from {list(AGGREGATIONS)}")
    return AGGREGATIONS[name](**options)
