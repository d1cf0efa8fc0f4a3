"""Issue 19.2: UOT-ERRANT's ``precision: float32`` reproduces the official code's float32
arithmetic (for cross-checks); zero-mass edits are dropped, where the official code's POT call
fails at iteration 0."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

ot = pytest.importorskip("ot")

from gec_meta.errors import ConfigError  # noqa: E402
from gec_meta.metrics.edit.uot_transport import (  # noqa: E402
    UOTSettings, cost_matrix, edit_masses, transport_counts, transport_plan,
)

F32 = UOTSettings(precision="float32")


# ----------------------------------------------------------------- pieces, by hand
def test_float32_masses_and_costs():
    V = np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32)
    W = np.array([[0.0, 1.0]], dtype=np.float32)
    m = edit_masses(V, "norm", "float32")
    assert m.dtype == np.float32 and m.tolist() == [5.0, 0.0]
    # uniform masses are float64 in the official code too (np.full(E, 1 / E))
    assert edit_masses(V, "uniform", "float32").dtype == np.float64
    C = cost_matrix(V, W, "euclidean", "float32")
    assert C.dtype == np.float32
    # POT's form sqrt(|x|^2 + |y|^2 - 2 x.y): (25 + 1 - 8) = 18 and (0 + 1 - 0) = 1
    np.testing.assert_array_equal(C, np.sqrt(np.array([[18.0], [1.0]], dtype=np.float32)))
    assert cost_matrix(V, W, "cosine", "float32").dtype == np.float64  # scipy, as the official code
    assert cost_matrix(V[:0], W, "euclidean", "float32").shape == (0, 1)


def test_float32_euclidean_cost_keeps_pot_cancellation():
    # Two equal vectors: the exact distance is 0; float32 |x|^2 + |y|^2 - 2 x.y leaves rounding
    # noise (or 0 when it cancels exactly) -- never more than sqrt(3 * eps32) * |x| here.
    x = np.array([[0.1234567, -0.0765432, 0.0333333]], dtype=np.float32)
    c32 = float(cost_matrix(x, x, "euclidean", "float32")[0, 0])
    assert cost_matrix(x, x, "euclidean")[0, 0] == 0.0
    assert 0.0 <= c32 <= np.sqrt(3 * np.finfo(np.float32).eps) * float(np.linalg.norm(x))


def test_float32_plan_is_pot_on_float32_arrays():
    a = np.array([0.9, 0.4], dtype=np.float32)
    b = np.array([0.7, 0.5], dtype=np.float32)
    C = np.array([[0.15, 0.8], [0.6, 0.05]], dtype=np.float32)
    T = transport_plan(a, b, C, F32)
    direct = ot.unbalanced.sinkhorn_stabilized_unbalanced(a, b, C, reg=0.1, reg_m=0.1)
    assert T.dtype == np.float32 == direct.dtype
    np.testing.assert_array_equal(T, direct)
    T64 = transport_plan(a, b, C, UOTSettings())
    assert T64.dtype == np.float64
    assert 0 < np.abs(T64 - T).max() < 1e-5  # float32 rounding, nothing more


def test_float32_counts_are_per_edit_sums():
    T = np.array([[0.25, 0.125], [0.0, 0.5]], dtype=np.float32)
    a = np.array([0.5, 0.75], dtype=np.float32)
    b = np.array([0.25, 1.0], dtype=np.float32)
    # rows 0.375, 0.5; columns 0.25, 0.625: TP 0.875, FP 0.125 + 0.25, FN 0 + 0.375
    assert transport_counts(T, a, b, "float32") == (0.875, 0.375, 0.375)
    assert transport_counts(np.zeros((2, 0), np.float32), a, b[:0], "float32") == (0.0, 1.25, 0.0)


def test_zero_mass_reference_edit_breaks_pot_at_iteration_0():
    """What the official code gets for a zero-mass edit: POT's ``kl`` term has log(b_j) = -inf,
    column j of K is 0, K^T u has a 0 -> "numerical errors at iteration 0", u = v = 1, and the
    plan returned is the un-iterated K = a b^T exp(-C / reg).  We drop the edit instead."""
    a = np.array([0.3, 0.5])
    b = np.array([0.4, 0.0])
    C = np.array([[0.2, 0.9], [0.8, 0.1]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        official = ot.unbalanced.sinkhorn_stabilized_unbalanced(a, b, C, reg=0.1, reg_m=0.1)
    # by hand: 0.3 * 0.4 * e^-2 = 0.0162402, 0.5 * 0.4 * e^-8 = 6.7093e-05, column 1 zero
    np.testing.assert_allclose(official, [[0.12 * np.exp(-2), 0.0], [0.2 * np.exp(-8), 0.0]], rtol=1e-12)
    ours = transport_plan(a, b, C, UOTSettings())
    assert np.all(ours[:, 1] == 0)
    solved = ot.unbalanced.sinkhorn_stabilized_unbalanced(a, b[:1], C[:, :1], reg=0.1, reg_m=0.1)
    np.testing.assert_allclose(ours[:, :1], solved, rtol=1e-12)
    assert ours.sum() > 8 * official.sum()  # the un-iterated plan transports far too little here


def test_precision_validation():
    with pytest.raises(ConfigError, match="metric.precision"):
        UOTSettings(precision="float16")


# ----------------------------------------------------------------- metric
def _tiny_metric(tmp_path, **kw):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from gec_meta.encoders import Encoder
    from gec_meta.encoders.testing import tiny_bert
    from gec_meta.metrics.edit.uot import UOTErrant

    enc = Encoder(str(tiny_bert(tmp_path)), layer=None, pooling="mean", max_length=64, batch_size=4, progress=False)
    return UOTErrant(encoder=enc, **kw)


def test_metric_precision_signature_and_solver(tmp_path):
    m = _tiny_metric(tmp_path)
    assert "precision=" not in m.signature() and "precision:" not in m.cache_key()
    m32 = dataclasses.replace(m, precision="float32")
    assert "precision=float32" in m32.signature() and "precision:float32" in m32.cache_key()
    with pytest.raises(ConfigError, match="solver=pot"):
        dataclasses.replace(m, precision="float32", solver="batched")
    srcs = ["the cat sit on the mat ."]
    hyps = [["the cat sits on a mat ."]]
    refs = [["the cat sits on the mat ."]]
    s64 = m.statistics(srcs, hyps, refs)
    s32 = m32.statistics(srcs, hyps, refs)
    assert np.isfinite(s32).all() and np.abs(s32 - s64).max() < 1e-4
