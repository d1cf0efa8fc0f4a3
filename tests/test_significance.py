"""Significance tests: hand-computed Williams statistic, seeded bootstrap/permutation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from gec_meta.significance import bootstrap_correlations, permutation_test, williams_test


def test_williams_hand_value():
    # r12=.9, r13=.8, r23=.85, n=13:
    # |R| = 1 - .81 - .64 - .7225 + 2*.9*.8*.85 = 0.0515
    # denom = 2*12/10*0.0515 + (1.7^2/4)*(0.15^3) = 0.1236 + 0.7225*0.003375 = 0.1260384375
    # t = 0.1 * sqrt(12*1.85) / sqrt(0.12603844) = 0.1*4.711688 / 0.355019 = 1.327166
    t, p = williams_test(0.9, 0.8, 0.85, 13)
    assert t == pytest.approx(0.1 * math.sqrt(22.2) / math.sqrt(0.1260384375), rel=1e-9)
    assert p == pytest.approx(sps.t.sf(t, 10), rel=1e-12)


def test_williams_equal_correlations_and_symmetry():
    t, p = williams_test(0.7, 0.7, 0.5, 10)
    assert t == 0 and p == pytest.approx(0.5)
    t1, p1 = williams_test(0.8, 0.6, 0.5, 10)
    t2, p2 = williams_test(0.6, 0.8, 0.5, 10)
    assert t1 == pytest.approx(-t2) and p1 + p2 == pytest.approx(1.0)


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    rng0 = np.random.default_rng(0)
    stats = rng0.normal(size=(8, 200)) + np.arange(8)[:, None] * 0.2
    human = np.arange(8, dtype=float)
    f = lambda idx: stats[:, idx].mean(axis=1)  # noqa: E731
    a = bootstrap_correlations(f, 200, human, np.random.default_rng(1), samples=200)
    b = bootstrap_correlations(f, 200, human, np.random.default_rng(1), samples=200)
    assert a == b
    full = np.corrcoef(f(np.arange(200)), human)[0, 1]
    assert a["pearson"]["low"] <= full <= a["pearson"]["high"]


def test_permutation_test_detects_a_clearly_better_metric():
    rng = np.random.default_rng(0)
    human = np.arange(12, dtype=float)
    good = human + rng.normal(scale=0.5, size=12)
    bad = rng.normal(size=12)
    out = permutation_test(good, bad, human, np.random.default_rng(2), samples=2000)
    assert out["delta"] > 0 and out["p"] < 0.05
    again = permutation_test(good, bad, human, np.random.default_rng(2), samples=2000)
    assert again == out


def test_bootstrap_through_evaluate_is_seeded_and_in_the_signature(data_root):
    from gec_meta import load_dataset, meta_evaluate
    from gec_meta.metrics.length import Length

    ds = load_dataset("seeda", data_root, setting="base")
    a = meta_evaluate(ds, Length(), "default", bootstrap_samples=50, bootstrap_seed=7, window=None)
    b = meta_evaluate(ds, Length(), "default", bootstrap_samples=50, bootstrap_seed=7, window=None)
    c = meta_evaluate(ds, Length(), "default", bootstrap_samples=50, bootstrap_seed=8, window=None)
    assert a["system"] == b["system"]
    assert a["system"]["TS_edit"]["ci"] != c["system"]["TS_edit"]["ci"]
    lo, hi = a["system"]["TS_edit"]["ci"]["pearson"]
    assert lo <= a["system"]["TS_edit"]["pearson"] <= hi
    assert a["signature"].endswith("|bootstrap:50(seed=7)")
