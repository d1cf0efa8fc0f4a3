"""Our Pearson/Spearman return scipy's floats exactly (scipy is the independent reference)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from gec_meta.meta.correlation import average_ranks, pearson_r, spearman_rho


def _vectors(seed: int, n: int, ties: bool):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=n), rng.normal(size=n) * 1e3 + 5
    if ties:
        x, y = np.round(x, 0), np.round(y / 500, 0)
    return x, y


@pytest.mark.parametrize("n", [2, 3, 5, 12, 15, 391])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_bitwise_equal_to_scipy(n, ties, seed):
    x, y = _vectors(seed, n, ties)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        pytest.skip("constant input: callers return NaN before calling these")
    assert pearson_r(x, y) == float(sps.pearsonr(x, y)[0])
    assert spearman_rho(x, y) == float(sps.spearmanr(x, y)[0])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=30))
def test_average_ranks_equal_rankdata(values):
    np.testing.assert_array_equal(average_ranks(np.array(values, dtype=float)), sps.rankdata(values))


def test_hand_example():
    # x = 1 2 3, y = 1 3 2: rho = 1 - 6*sum(d^2)/(n(n^2-1)) = 1 - 6*2/24 = 0.5
    assert spearman_rho(np.array([1.0, 2, 3]), np.array([1.0, 3, 2])) == pytest.approx(0.5, abs=1e-15)
    # ties: x = 1 1 2 -> ranks 1.5 1.5 3
    assert average_ranks(np.array([1.0, 1, 2])).tolist() == [1.5, 1.5, 3.0]


# ---------------------------------------------------------------------------- one module, two paths
import math  # noqa: E402
import warnings  # noqa: E402

from gec_meta.meta.correlation import (CORRELATIONS, ROW_CORRELATIONS, UndefinedCorrelationWarning,  # noqa: E402
                                       average_ranks_rows, pearson, row_correlations, spearman)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(-2, 2), min_size=5, max_size=5), min_size=1, max_size=6))
def test_average_ranks_rows_equal_rankdata(rows):
    x = np.array(rows, dtype=float)
    np.testing.assert_array_equal(average_ranks_rows(x), sps.rankdata(x, axis=1))


@pytest.mark.parametrize("kind", ["pearson", "spearman"])
@pytest.mark.parametrize("ties", [False, True])
def test_rows_agree_with_scalar_to_1e12(kind, ties):
    rng = np.random.default_rng(11)
    human = rng.normal(size=14)
    rows = rng.normal(size=(300, 14)) * 7 + 3
    if ties:
        rows, human = np.round(rows / 5), np.round(human)
    got = row_correlations(rows, human, kind)
    for r, g in zip(rows, got):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedCorrelationWarning)
            want = CORRELATIONS[kind](r, human)
        assert (math.isnan(g) and math.isnan(want)) or abs(g - want) <= 1e-12
    assert ROW_CORRELATIONS[kind] is not CORRELATIONS[kind]


def test_constant_input_is_nan_with_warning():
    for corr in (pearson, spearman):
        with pytest.warns(UndefinedCorrelationWarning):
            assert math.isnan(corr([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))
    assert np.isnan(row_correlations(np.array([[2.0, 2.0, 2.0], [1.0, np.nan, 2.0]]), [1.0, 2.0, 3.0])).all()
    with pytest.raises(ValueError, match="unknown correlation"):
        row_correlations(np.zeros((1, 3)), [1.0, 2.0, 3.0], "kendall")


def test_scalar_wrappers_are_the_exact_functions():
    x, y = _vectors(1, 12, False)
    assert pearson(x, y) == pearson_r(x, y) == float(sps.pearsonr(x, y)[0])
    assert spearman(x, y) == spearman_rho(x, y)
