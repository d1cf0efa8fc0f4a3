"""BERTScore's greedy token matching (Zhang et al. 2020, Eq. 1-2) on a torch device.

The reference path is float64 numpy on the CPU (:func:`gec_meta.metrics.neural.bertscore.greedy_prf`
and its grouped form).  When the encoder runs on a GPU, :func:`greedy_prf_device` scores all
pairs there instead: the token states go to the device once, pairs are sorted by their lengths
and scored in padded chunks with batched matrix products (bmm), and the (P, R, F) of every pair
come back in one transfer.

Precision: ``float64`` (the default on CUDA and on the CPU) follows the reference arithmetic
(states normalised in float64, float64 products, the same weight sums), so scores differ from
it only by summation order, ~1e-16.  Apple's MPS has no float64; there ``float32`` is used, and
scores differ by up to ~1e-7 (``tests/test_bertscore.py`` bounds both).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

#: Elements of the largest tensor of one chunk: the (pairs, T_x, T_y) similarities and the
#: (pairs, T_x + T_y, D) gathered token states (256 MB each in float64).
CHUNK_ELEMENTS = 32 * 2**20


def matching_dtype(device: str) -> str:
    """``float64`` where the device has it (CUDA, CPU), else ``float32`` (MPS)."""
    return "float32" if str(device).startswith("mps") else "float64"


def greedy_prf_device(
    pairs: Sequence[tuple[int, int]], vectors: Sequence[np.ndarray], weights: Sequence[np.ndarray],
    both_empty: float = 0.0, device: str = "cpu", dtype: str | None = None,
) -> np.ndarray:
    """Raw (P, R, F) of pairs of text indices, shape (B, 3), computed on ``device``.

    Same definition and empty-text rules as :func:`gec_meta.metrics.neural.bertscore.greedy_prf`
    (special tokens: weight 0 but match targets; one side empty: 0; both: ``both_empty``).

    Args:
        pairs: shape (B,), (candidate text, reference text) indices into ``vectors``.
        vectors: per text shape (T_i, D), raw (not normalised) token states.
        weights: per text shape (T_i,), the token weights (0 for special tokens).
        both_empty: P = R = F of a pair of two empty texts.
        device: a torch device.
        dtype: ``float64`` or ``float32``; None = :func:`matching_dtype`.
    """
    import torch

    out = np.zeros((len(pairs), 3))
    if not len(pairs):
        return out
    dt = getattr(torch, dtype or matching_dtype(device))
    lengths = np.array([len(v) for v in vectors], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    wsum = np.array([float(w.sum()) for w in weights])
    pa = np.array([a for a, _ in pairs], dtype=np.int64)
    pb = np.array([b for _, b in pairs], dtype=np.int64)
    sx, sy = wsum[pa], wsum[pb]
    both = (sx == 0.0) & (sy == 0.0)
    out[both] = both_empty
    normal = np.flatnonzero((sx != 0.0) & (sy != 0.0))  # the rest (one side empty) stays 0
    if not len(normal):
        return out
    flat = np.concatenate([np.asarray(v, dtype=np.float32) for v in vectors])  # (sum T, D)
    dim = flat.shape[1]
    X = _put(flat, device).to(dt)  # float32 over the bus, widened on the device
    norms = torch.linalg.vector_norm(X, dim=1, keepdim=True)
    X = X / torch.where(norms == 0, torch.ones_like(norms), norms)
    W = _put(np.concatenate(weights), device, dt)
    # chunks of pairs of similar lengths (sorted), each tensor at most CHUNK_ELEMENTS
    order = normal[np.lexsort((lengths[pb[normal]], lengths[pa[normal]]))]
    results = []
    start = 0
    while start < len(order):
        tx = ty = 0
        stop = start
        while stop < len(order):
            ntx, nty = max(tx, lengths[pa[order[stop]]]), max(ty, lengths[pb[order[stop]]])
            if stop > start and (stop - start + 1) * max(ntx * nty, (ntx + nty) * dim) > CHUNK_ELEMENTS:
                break
            tx, ty, stop = ntx, nty, stop + 1
        chunk = order[start:stop]
        results.append(_score_chunk(X, W, offsets, lengths, pa[chunk], pb[chunk], sx[chunk], sy[chunk],
                                    int(tx), int(ty), device))
        start = stop
    prf = torch.cat(results).cpu().numpy().astype(np.float64)  # one transfer
    out[order] = prf
    return out


def _put(arr: np.ndarray, device: str, dtype=None):
    """``arr`` on the device, cast to ``dtype`` first on the CPU (MPS holds no float64)."""
    import torch

    t = torch.from_numpy(np.ascontiguousarray(arr))
    return (t if dtype is None else t.to(dtype)).to(device)


def _gather(offsets: np.ndarray, lengths: np.ndarray, texts: np.ndarray, T: int):
    """Flat row indices (n, T) of the texts' tokens (padding -> row 0) and the valid mask."""
    pos = np.arange(T)[None, :]
    valid = pos < lengths[texts][:, None]
    return np.where(valid, offsets[texts][:, None] + pos, 0), valid


def _score_chunk(X, W, offsets, lengths, a, b, sx, sy, tx: int, ty: int, device: str):
    """(P, R, F) of one chunk of pairs, shape (n, 3), on the device (X: (sum T, D) unit token
    states, W: (sum T,) weights; a, b: the chunk's candidate and reference text indices)."""
    import torch

    n = len(a)
    ix, mx = _gather(offsets, lengths, a, tx)
    iy, my = _gather(offsets, lengths, b, ty)
    ix, mx, iy, my = (_put(t, device) for t in (ix, mx, iy, my))
    x = X.index_select(0, ix.reshape(-1)).reshape(n, tx, -1)
    y = X.index_select(0, iy.reshape(-1)).reshape(n, ty, -1)
    sim = torch.bmm(x, y.transpose(1, 2))  # (n, T_x, T_y)
    neg = torch.tensor(float("-inf"), dtype=sim.dtype, device=sim.device)
    zero = torch.zeros((), dtype=sim.dtype, device=sim.device)
    row_max = torch.where(my[:, None, :], sim, neg).amax(dim=2)  # (n, T_x): best reference token
    col_max = torch.where(mx[:, :, None], sim, neg).amax(dim=1)  # (n, T_y): best candidate token
    wx = torch.where(mx, W[ix], zero)
    wy = torch.where(my, W[iy], zero)
    p = (torch.where(mx, row_max, zero) * wx).sum(dim=1) / _put(sx, device, sim.dtype)
    r = (torch.where(my, col_max, zero) * wy).sum(dim=1) / _put(sy, device, sim.dtype)
    f = torch.where(p + r != 0, 2 * p * r / (p + r), zero)
    return torch.stack([p, r, f], dim=1)
