"""UOT-ERRANT (Goto et al. 2025): transport vs direct POT and a hand-written Sinkhorn, the
large-lambda limit, empty edit sets, edit vectors vs a direct forward pass, lambda-sweep reuse."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
ot = pytest.importorskip("ot")

from gec_meta.encoders import Encoder  # noqa: E402
from gec_meta.encoders.testing import tiny_bert  # noqa: E402
from gec_meta.errors import ConfigError  # noqa: E402
from gec_meta.metrics.base import f_beta  # noqa: E402
from gec_meta.metrics.edit.uot import UOTErrant  # noqa: E402
from gec_meta.metrics.edit.uot_transport import (  # noqa: E402
    UOTSettings, cost_matrix, edit_masses, transport_counts, transport_plan,
)
from gec_meta.edits.edit import apply_edits  # noqa: E402
from gec_meta.metrics.edit.uot_vectors import edit_sentences  # noqa: E402
from gec_meta.report.lambda_search import LAMBDAS, LambdaResult, select_lambda  # noqa: E402

SRC = "the cat sit on the mat ."
ONE_EDIT = "the cat sits on the mat ."                  # R:VERB:SVA
TWO_EDITS = "the cat sits on a mat ."                   # + R:DET
OTHER = "the dog sit on the mats ."


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("tiny-bert-uot"))


@pytest.fixture()
def encoder(bert_dir):
    return Encoder(str(bert_dir), layer=None, pooling="mean", max_length=64, batch_size=4, progress=False)


def direct_embedding(folder, text: str) -> np.ndarray:
    """Mean over all positions (special tokens included) of the last layer, shape (D,)."""
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    with torch.no_grad():
        h = model(torch.tensor([tok(text)["input_ids"]]), output_hidden_states=True).hidden_states[-1][0]
    return h.numpy().astype(np.float64).mean(axis=0)


def kl_sinkhorn(a, b, C, eps, lam, iters=20000):
    """Generalised Sinkhorn for Eq. 4 with the entropic term KL(P || a b^T) (Chizat et al. 2018,
    Alg. 2, unstabilised): u = (a / K v)^(lam / (lam + eps)), v = (b / K^T u)^(...), T = u K v."""
    K = np.exp(-C / eps) * np.outer(a, b)
    u, v = np.ones(len(a)), np.ones(len(b))
    fi = lam / (lam + eps)
    for _ in range(iters):
        u = (a / (K @ v)) ** fi
        v = (b / (K.T @ u)) ** fi
    return u[:, None] * K * v[None, :]


# ----------------------------------------------------------------- transport
def test_two_by_two_plan_matches_pot_and_hand_sinkhorn():
    a = np.array([0.9, 0.4])
    b = np.array([0.7, 0.5])
    C = np.array([[0.15, 0.8], [0.6, 0.05]])
    s = UOTSettings(reg=0.1, reg_m=0.5, reg_type="kl", stop_thr=1e-12, max_iter=100000)
    T = transport_plan(a, b, C, s)
    direct = ot.unbalanced.sinkhorn_stabilized_unbalanced(a, b, C, reg=0.1, reg_m=0.5, reg_type="kl",
                                                          numItermax=100000, stopThr=1e-12)
    np.testing.assert_allclose(T, direct, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(T, kl_sinkhorn(a, b, C, 0.1, 0.5), rtol=1e-6, atol=1e-10)
    tp, fp, fn = transport_counts(T, a, b)
    assert tp == pytest.approx(T[0, 0] + T[0, 1] + T[1, 0] + T[1, 1])
    assert fp == pytest.approx(1.3 - tp) and fn == pytest.approx(1.2 - tp)
    # cheap diagonal: most mass goes i -> i
    assert T[0, 0] > T[0, 1] and T[1, 1] > T[1, 0]


def test_masses_and_costs_by_hand():
    V = np.array([[3.0, 4.0], [0.0, 0.0]])
    W = np.array([[0.0, 1.0]])
    np.testing.assert_allclose(edit_masses(V, "norm"), [5.0, 0.0])
    np.testing.assert_allclose(edit_masses(V, "uniform"), [0.5, 0.5])
    np.testing.assert_allclose(cost_matrix(V, W, "euclidean"), [[np.sqrt(9 + 9)], [1.0]])  # not squared
    np.testing.assert_allclose(cost_matrix(V, W, "cosine"), [[1 - 4 / 5], [1.0]])  # zero vector: 1
    with pytest.raises(ConfigError, match="metric.cost"):
        cost_matrix(V, W, "manhattan")


def test_zero_mass_edit_gets_empty_row_and_rest_equals_pot():
    a = np.array([0.8, 0.0, 0.3])
    b = np.array([0.5, 0.6])
    C = np.array([[0.1, 0.9], [0.2, 0.2], [0.7, 0.1]])
    s = UOTSettings(reg=0.1, reg_m=0.3)
    T = transport_plan(a, b, C, s)
    assert np.all(T[1] == 0)
    direct = ot.unbalanced.sinkhorn_stabilized_unbalanced(a[[0, 2]], b, C[[0, 2]], reg=0.1, reg_m=0.3, reg_type="kl")
    np.testing.assert_allclose(T[[0, 2]], direct, rtol=1e-12)


def test_identical_edit_sets_converge_to_perfect_score():
    rng = np.random.default_rng(0)
    V = rng.normal(size=(4, 8)) * 0.3
    a = edit_masses(V, "norm")
    C = cost_matrix(V, V, "euclidean")
    fs = []
    for lam in (0.1, 1.0, 10.0, 100.0):
        T = transport_plan(a, a, C, UOTSettings(reg=0.1, reg_m=lam, max_iter=50000, stop_thr=1e-10))
        p, r, f = f_beta(*transport_counts(T, a, a), 0.5)
        fs.append(float(f))
    assert fs[0] < 0.99
    assert all(x <= y + 1e-9 for x, y in zip(fs, fs[1:])), fs  # monotone in lambda
    assert abs(fs[-1] - 1.0) < 1e-3, fs
    # the gap shrinks roughly like 1/lambda
    assert (1 - fs[-1]) < (1 - fs[-2]) / 5


def test_empty_sides_no_nan():
    s = UOTSettings()
    for H, G in ((0, 0), (0, 2), (3, 0)):
        a, b = np.full(H, 0.5), np.full(G, 0.25)
        T = transport_plan(a, b, np.zeros((H, G)), s)
        assert T.shape == (H, G)
        tp, fp, fn = transport_counts(T, a, b)
        assert (tp, fp, fn) == (0.0, 0.5 * H, 0.25 * G)
    assert edit_masses(np.zeros((0, 4)), "uniform").shape == (0,)


def test_settings_errors_name_config_key():
    for kw, key in (({"mass": "l1"}, "metric.mass"), ({"reg_type": "x"}, "metric.reg_type"),
                    ({"reg_m": 0}, "metric.reg_m"), ({"reg": -1}, "metric.reg")):
        with pytest.raises(ConfigError, match=key):
            UOTSettings(**kw)


# ----------------------------------------------------------------- edit vectors
def test_apply_edits_and_sentences():
    edits = [(2, 3, "sits"), (4, 5, "a"), (1, 1, "big")]
    assert apply_edits(SRC, edits) == "the big cat sits on a mat ."
    assert apply_edits("a b c", [(1, 1, "x"), (1, 2, "y")]) == "a x y c"
    base, variants = edit_sentences(SRC, edits[:2], "remove")
    assert base == TWO_EDITS and variants == ["the cat sit on a mat .", ONE_EDIT]
    base, variants = edit_sentences(SRC, edits[:2], "add")
    assert base == SRC and variants == [ONE_EDIT, "the cat sit on a mat ."]


def test_one_edit_vector_add_equals_remove_equals_direct(encoder, bert_dir):
    expected = direct_embedding(bert_dir, ONE_EDIT) - direct_embedding(bert_dir, SRC)
    for vectorize in ("remove", "add"):
        m = UOTErrant(encoder=encoder, vectorize=vectorize)
        al = m.align(SRC, ONE_EDIT, OTHER)
        assert [e.key for e in al.hyp_edits] == [(2, 3, "sits")]
        np.testing.assert_allclose(al.hyp_vectors[0], expected, rtol=1e-4, atol=1e-5)
        assert al.a[0] == pytest.approx(np.linalg.norm(expected), rel=1e-4)


def test_two_edit_vectors_remove_vs_add(encoder, bert_dir):
    e = {t: direct_embedding(bert_dir, t) for t in (SRC, TWO_EDITS, ONE_EDIT, "the cat sit on a mat .")}
    rem = UOTErrant(encoder=encoder, vectorize="remove").align(SRC, TWO_EDITS, SRC).hyp_vectors
    add = UOTErrant(encoder=encoder, vectorize="add").align(SRC, TWO_EDITS, SRC).hyp_vectors
    # edits in order [2,3,sits], [4,5,a]
    np.testing.assert_allclose(rem[0], e[TWO_EDITS] - e["the cat sit on a mat ."], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(rem[1], e[TWO_EDITS] - e[ONE_EDIT], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(add[0], e[ONE_EDIT] - e[SRC], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(add[1], e["the cat sit on a mat ."] - e[SRC], rtol=1e-4, atol=1e-5)


# ----------------------------------------------------------------- the metric
def test_metric_empty_edit_sets_and_identity(encoder):
    m = UOTErrant(encoder=encoder, reg_m=200.0, max_iter=50000, stop_thr=1e-10, solver="batched")
    hyps = [[SRC, SRC, TWO_EDITS, TWO_EDITS]]
    refs = [[SRC, TWO_EDITS, SRC, TWO_EDITS]]
    st = m.statistics([SRC] * 4, hyps, refs)
    assert st.shape == (1, 4, 1, 3) and np.isfinite(st).all()
    al = m.align(SRC, TWO_EDITS, TWO_EDITS)
    mass = float(al.a.sum())
    assert mass > 0
    np.testing.assert_array_equal(st[0, 0, 0], [0, 0, 0])        # no edits anywhere
    np.testing.assert_allclose(st[0, 1, 0], [0, 0, mass], rtol=1e-6)   # hypothesis has none
    np.testing.assert_allclose(st[0, 2, 0], [0, mass, 0], rtol=1e-6)   # reference has none
    f = m.sentence_scores(st)[0]
    assert f[0] == 1.0 and f[1] == 0.0 and f[2] == 0.0
    assert f[3] == pytest.approx(1.0, abs=1e-3)                  # identical edits, large lambda
    assert np.isfinite(m.corpus_scores(st)).all()


def test_lambda_sweep_reuses_vectors(bert_dir):
    enc = Encoder(str(bert_dir), layer=None, max_length=64, progress=False)
    m = UOTErrant(encoder=enc, reg_m=0.1)
    srcs = [SRC, "they play the important role in our life ."]
    hyps = [[TWO_EDITS, "they play an important role in our life ."], [OTHER, srcs[1]]]
    refs = [[ONE_EDIT, "they play an important role in our life ."], [TWO_EDITS, "he plays the important role in life ."]]
    first = m.statistics(srcs, hyps, refs)
    computed = enc.stats["computed"]
    requested = enc.stats["requested"]
    assert computed > 0
    second = dataclasses.replace(m, reg_m=0.7).statistics(srcs, hyps, refs)
    assert enc.stats["computed"] == computed and enc.stats["requested"] == requested  # no forward pass
    assert not np.allclose(first, second)
    # a fresh Encoder (new process state for the encoder) reads the vector store: no forward pass
    enc2 = Encoder(str(bert_dir), layer=None, max_length=64, progress=False)
    third = dataclasses.replace(m, encoder=enc2, reg_m=0.3).statistics(srcs, hyps, refs)
    assert enc2.stats["computed"] == 0 and np.isfinite(third).all()


def test_metric_config_errors(encoder):
    with pytest.raises(ConfigError, match="metric.encoder"):
        UOTErrant()
    with pytest.raises(ConfigError, match="metric.vectorize"):
        UOTErrant(encoder=encoder, vectorize="swap")


# ----------------------------------------------------------------- lambda search
def test_lambda_grid_and_selection_rule():
    assert len(LAMBDAS) == 50 and LAMBDAS[0] == 0.02 and LAMBDAS[-1] == 1.0 and 0.1 in LAMBDAS
    res = [LambdaResult(0.02, {"TS": {"pearson": 0.9001, "spearman": 0.80}}),
           LambdaResult(0.04, {"TS": {"pearson": 0.8996, "spearman": 0.85}}),  # ties at 3 decimals
           LambdaResult(0.06, {"TS": {"pearson": 0.8900, "spearman": 0.99}})]
    assert select_lambda(res, "TS").reg_m == 0.04
    assert select_lambda(res, "TS", decimals=None).reg_m == 0.02


def test_sweep_config_composes():
    from hydra import compose, initialize_config_module

    from gec_meta.config import CONFIG_MODULE, register_configs

    register_configs()  # the schemas the configs extend (else the test depends on an earlier one)
    with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
        cfg = compose("config", overrides=["experiment=uot_lambda_search"], return_hydra_config=True)
    grid = [float(x) for x in str(cfg.hydra.sweeper.params["metric.reg_m"]).split(",")]
    assert grid == list(LAMBDAS)
    assert cfg.metric._target_.endswith("UOTErrant") and cfg.dataset._target_.endswith("load_gjg15")
    with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
        cfg = compose("config", overrides=["experiment=uot_ablations", "uot_setting=fluency_ne_fluency"])
    assert cfg.dataset.setting == "fluency" and cfg.refset.name == "ne_fluency"


def test_batched_solver_equals_pot_per_problem():
    from gec_meta.metrics.edit.uot_transport import transport_plans_batched

    # Every shape from 0 x 0 to 4 x 4 (empty edit sets included), twice with random masses and
    # costs, and once more with a zero mass where there are two or more hypothesis edits.
    rng = np.random.default_rng(3)
    problems = []
    for H in range(5):
        for G in range(5):
            for zero in (False, False, H > 1):
                a, b = rng.random(H) * 1.5, rng.random(G) * 1.5
                if zero:
                    a[0] = 0.0
                problems.append((a, b, rng.random((H, G)) * 2))
    for lam in (0.02, 0.3, 5.0):
        s = UOTSettings(reg=0.1, reg_m=lam)
        got = transport_plans_batched(problems, s)
        for (a, b, C), T in zip(problems, got):
            want = transport_plan(a, b, C, s)
            assert T.shape == want.shape
            np.testing.assert_allclose(T, want, rtol=1e-9, atol=1e-15)


def test_metric_solvers_agree(encoder):
    m = UOTErrant(encoder=encoder, reg_m=0.4)
    srcs = [SRC, SRC]
    hyps = [[TWO_EDITS, ONE_EDIT], [OTHER, SRC]]
    refs = [[ONE_EDIT, TWO_EDITS], [OTHER, OTHER]]
    np.testing.assert_allclose(m.statistics(srcs, hyps, refs),
                               dataclasses.replace(m, solver="batched").statistics(srcs, hyps, refs), rtol=1e-9)
    with pytest.raises(ConfigError, match="metric.solver"):
        dataclasses.replace(m, solver="gpu")
