"""The one TrueSkill implementation: against the ``trueskill`` package's ``rate_1vs1`` (an
independent value), the vectorised resample sweep against the one-run sweep, the defaults
written once."""

from __future__ import annotations

import itertools
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
import trueskill
import yaml

from gec_meta.meta.aggregation import TrueSkillAggregation, trueskill_scores
from gec_meta.meta.trueskill import TrueSkillParams, comparison_steps, trueskill_mu


def _package_mu(scores: np.ndarray, p: TrueSkillParams = TrueSkillParams()) -> np.ndarray:
    """Game by game with ``trueskill.rate_1vs1`` (the package's factor graph)."""
    env = trueskill.TrueSkill(mu=p.mu, sigma=p.sigma, beta=p.beta, tau=p.tau,
                              draw_probability=p.draw_probability, backend=None)
    S, N = scores.shape
    ratings = [env.create_rating() for _ in range(S)]
    for n, i, j in comparison_steps(N, S, p.order, p.seed):
        a, b = scores[i, n], scores[j, n]
        if np.isnan(a) or np.isnan(b):
            continue
        if a >= b:
            ratings[i], ratings[j] = trueskill.rate_1vs1(ratings[i], ratings[j], drawn=a == b, env=env)
        else:
            ratings[j], ratings[i] = trueskill.rate_1vs1(ratings[j], ratings[i], env=env)
    return np.array([r.mu for r in ratings])


@pytest.mark.parametrize("seed", range(4))
def test_one_run_equals_package_rate_1vs1(seed):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 3, size=(5, 15)).astype(float)  # many draws
    if seed % 2:
        scores[rng.random(scores.shape) < 0.1] = np.nan
    params = TrueSkillParams(order="shuffled", seed=seed) if seed == 3 else TrueSkillParams()
    ours = trueskill_mu(scores, None, params)[0]
    np.testing.assert_allclose(ours, _package_mu(scores, params), rtol=0, atol=1e-12)


def test_nondefault_parameters_equal_package():
    p = TrueSkillParams(mu=25.0, sigma=25 / 3, beta=25 / 6, tau=25 / 300, draw_probability=0.1)
    scores = np.random.default_rng(7).normal(size=(4, 10)).round(0)
    np.testing.assert_allclose(trueskill_mu(scores, None, p)[0], _package_mu(scores, p), rtol=0, atol=1e-9)
    np.testing.assert_allclose(trueskill_mu(scores, np.arange(10)[None], p)[0], _package_mu(scores, p), rtol=0, atol=1e-9)


@pytest.mark.parametrize("order", ["sentence", "shuffled"])
def test_resample_sweep_equals_one_run_on_every_resample(order):
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=(6, 20)), 1)
    x[1, 4] = np.nan
    idx = rng.integers(0, 20, size=(12, 20))
    p = TrueSkillParams(order=order, seed=5)
    got = trueskill_mu(x, idx, p)
    want = np.stack([trueskill_mu(x[:, i], None, p)[0] for i in idx])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_aggregation_and_function_share_the_implementation():
    x = np.random.default_rng(0).integers(0, 4, size=(4, 9)).astype(float)
    stats = x[:, :, None, None]

    class _Identity:
        def sentence_scores(self, s):
            return s[:, :, 0, 0]

    agg = TrueSkillAggregation(order="shuffled", seed=2)
    np.testing.assert_array_equal(agg(_Identity(), stats), trueskill_scores(x, order="shuffled", seed=2))
    idx = np.arange(9)[None]
    np.testing.assert_array_equal(agg.resample(_Identity(), stats, idx), trueskill_mu(x, idx, agg))


def test_defaults_written_once():
    # SEEDA / gec-metrics / "Rethinking" Appendix A
    assert TrueSkillParams() == TrueSkillParams(0.0, 0.5, 0.25, 0.0, 0.25, "sentence", 0)
    agg = TrueSkillAggregation()
    assert {f.name: getattr(agg, f.name) for f in fields(agg)} == {f.name: f.default for f in fields(TrueSkillParams)}
    conf = Path(__file__).resolve().parents[1] / "conf" / "aggregation" / "trueskill.yaml"
    # the YAML only extends the schema generated from the dataclass (tests/test_metric_configs.py)
    assert yaml.safe_load(conf.read_text()) == {"defaults": ["/schema/aggregation/trueskill@_here_", "_self_"]}


def test_comparison_steps_order():
    assert comparison_steps(2, 3) == [(0, 0, 1), (0, 0, 2), (0, 1, 2), (1, 0, 1), (1, 0, 2), (1, 1, 2)]
    shuffled = comparison_steps(2, 3, "shuffled", 1)
    assert sorted(shuffled) == comparison_steps(2, 3) and shuffled == comparison_steps(2, 3, "shuffled", 1)
    assert list(itertools.combinations(range(3), 2)) == [s[1:] for s in comparison_steps(1, 3)]
