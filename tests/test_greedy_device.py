"""BERTScore's greedy matching on a torch device against the float64 numpy reference path.

Expected values come from :func:`gec_meta.metrics.neural.bertscore.greedy_prf` (numpy, one pair
at a time) and, for one hand-sized case, from a calculation written out below.  Here the
device is torch's CPU; ``bench/gpu_device.sh`` runs the same comparison on a GPU."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from gec_meta.encoders import Encoder  # noqa: E402
from gec_meta.encoders.testing import tiny_bert  # noqa: E402
from gec_meta.metrics.neural import bertscore  # noqa: E402
from gec_meta.metrics.neural.bertscore import BERTScoreScorer, greedy_prf  # noqa: E402
from gec_meta.metrics.neural.greedy_device import greedy_prf_device, matching_dtype  # noqa: E402


def _texts(seed=0, n=40, dim=16):
    """Random token states of n texts (2..30 tokens), weight 0 at both ends ([CLS]/[SEP]) and
    idf-like weights inside; text 0 is empty (special tokens only), text 1 has all weights 0."""
    rng = np.random.default_rng(seed)
    vecs, weights = [], []
    for i in range(n):
        T = 2 if i == 0 else int(rng.integers(3, 31))
        vecs.append(rng.normal(size=(T, dim)).astype(np.float32))
        w = rng.uniform(0.5, 3.0, size=T)
        w[[0, -1]] = 0.0
        if i in (0, 1):
            w[:] = 0.0
        weights.append(w)
    vecs[5][3] = 0.0  # a zero vector (its norm is replaced by 1, as the reference path does)
    return vecs, weights


def _reference(pairs, vecs, weights, both_empty):
    unit = []
    for v in vecs:
        v = v.astype(np.float64)
        n = np.linalg.norm(v, axis=1, keepdims=True)
        unit.append(v / np.where(n == 0, 1.0, n))
    return np.array([greedy_prf(unit[a], weights[a], unit[b], weights[b], both_empty) for a, b in pairs])


@pytest.mark.parametrize("both_empty", [0.0, 1.0])
def test_device_matching_equals_numpy_reference(both_empty):
    vecs, weights = _texts()
    rng = np.random.default_rng(1)
    pairs = [tuple(int(x) for x in rng.integers(0, len(vecs), size=2)) for _ in range(300)]
    pairs += [(0, 0), (0, 3), (3, 0), (1, 1), (1, 4), (7, 7)]  # empty sides and identical texts
    expected = _reference(pairs, vecs, weights, both_empty)
    f64 = greedy_prf_device(pairs, vecs, weights, both_empty, "cpu", "float64")
    np.testing.assert_allclose(f64, expected, rtol=0, atol=1e-12)
    f32 = greedy_prf_device(pairs, vecs, weights, both_empty, "cpu", "float32")
    np.testing.assert_allclose(f32, expected, rtol=0, atol=1e-6)
    # the empty-text rules (module docstring of bertscore): both empty -> both_empty, one -> 0
    assert f64[-6].tolist() == [both_empty] * 3 and f64[-3].tolist() == [both_empty] * 3
    assert f64[-5].tolist() == f64[-4].tolist() == f64[-2].tolist() == [0.0, 0.0, 0.0]
    assert np.allclose(f64[-1], 1.0)  # a text against itself: every token's best match is itself


def test_small_chunks_give_the_same_scores(monkeypatch):
    vecs, weights = _texts(seed=2)
    pairs = [(a, b) for a in range(2, 12) for b in range(2, 12)]
    whole = greedy_prf_device(pairs, vecs, weights, 0.0, "cpu", "float64")
    monkeypatch.setattr("gec_meta.metrics.neural.greedy_device.CHUNK_ELEMENTS", 2000)
    chunked = greedy_prf_device(pairs, vecs, weights, 0.0, "cpu", "float64")
    np.testing.assert_allclose(chunked, whole, rtol=0, atol=1e-15)


def test_hand_calculation():
    # candidate x = [CLS] e1 [SEP], reference y = [CLS] e1 e2 [SEP] (unit vectors in 2-D):
    # cos(x1, y1) = 1, cos(x1, y2) = 0; special tokens orthogonal to both (axis 2).
    x = np.array([[0, 0, 1], [1, 0, 0], [0, 0, 1]], dtype=np.float32)
    y = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float32)
    wx, wy = np.array([0, 1.0, 0]), np.array([0, 1.0, 1.0, 0])
    # P = (1 * max(0, 1, 0, 0)) / 1 = 1; R = (1 * 1 + 1 * max(0, 0, 0)) / 2 = 0.5; F = 2/3
    got = greedy_prf_device([(0, 1)], [x, y], [wx, wy], 0.0, "cpu")
    np.testing.assert_allclose(got[0], [1.0, 0.5, 2 / 3], rtol=0, atol=1e-15)


def test_matching_dtype_per_device():
    assert matching_dtype("cuda") == matching_dtype("cuda:1") == matching_dtype("cpu") == "float64"
    assert matching_dtype("mps") == "float32"  # MPS has no float64


def test_scorer_dispatches_to_the_device_path_off_the_cpu(tmp_path, monkeypatch):
    """An encoder on a GPU sends the matching to greedy_prf_device (here run on the CPU), with
    each distinct pair of token sequences scored once; the scores equal the numpy path's."""
    folder = tiny_bert(tmp_path / "bert")
    cands = ["The cat sits on the mat .", "the cat sits on the mat .", "a dog", "", "dogs were playing !"]
    refs = ["the cat sat on the mat .", "the cat sat on the mat .", "the dogs", "", "the dog plays ."]
    enc = Encoder(str(folder), cache=False)
    numpy_path = BERTScoreScorer(enc).prf(cands, refs)
    calls = []

    def on_cpu(pairs, vectors, weights, both_empty, device):
        calls.append((device, len(pairs)))
        return greedy_prf_device(pairs, vectors, weights, both_empty, "cpu")

    monkeypatch.setattr(bertscore, "greedy_prf_device", on_cpu)
    enc.device = "cuda"  # states are already in the encoder's in-memory store: no forward pass
    device_path = BERTScoreScorer(enc).prf(cands, refs)
    assert calls == [("cuda", 4)]  # pairs 0 and 1 tokenise identically (uncased): scored once
    np.testing.assert_allclose(device_path, numpy_path, rtol=0, atol=1e-12)
    assert device_path[0].tolist() == device_path[1].tolist()
