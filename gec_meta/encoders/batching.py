"""Batching by exact length, and order restoration (after COMET's and bert_score's batching).

Order independence: a batch holds items of one exact length only, so nothing is padded and
every attention mask is all ones, and it has at least :data:`MIN_TOKENS` tokens
(:func:`fill_rows` repeats its rows when it is smaller; the repeats' results are dropped).  A
row's result is then a function of the row alone.  Measured with torch 2.13's CPU build (MKL
sgemm; the layer shapes of MiniLM, BERT-base, BART and SmolLM2): a linear layer's output rows
are bitwise the same for every row count M above a threshold and every position of the row,
but differ at ~1e-6 for some smaller M, never a multiple of 4 (M <= 3 on 1 or 4 threads,
<= 11 on 2 or 8, <= 27 on 16, <= 51 on 32, <= 123 on 64); attention and the element-wise
layers are per row.  Padding, in contrast, changes the width of the matrices and moves float32
results by ~1e-6, which made cached values depend on the order a cache was filled in.
``tests/test_order_independence.py`` checks the result on every run.
"""

from __future__ import annotations

from typing import Hashable, Sequence

import numpy as np

#: Fewest tokens (rows x length) in one forward pass: MKL's GEMM gives a row the same bits for
#: every row count above 123 on up to 64 threads (module docstring).
MIN_TOKENS = 256


def length_batches(lengths: Sequence[Hashable], batch_size: int) -> list[np.ndarray]:
    """Indices of items grouped into batches of *equal* length (longest first), no padding.

    Items of one length (any hashable: an int, or a tuple such as (source length, target
    length) for a seq2seq pair) are cut into batches of at most ``batch_size`` in input order;
    the caller scatters each batch's results back by index, so the output order is the input
    order.

    Args:
        lengths: shape (M,), the length of every item.
        batch_size: most items per batch (>= 1).

    Returns:
        list of int arrays whose concatenation is a permutation of range(M); all items of
        one array have the same length.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    groups: dict = {}
    for i, n in enumerate(lengths):
        groups.setdefault(n, []).append(i)
    out = []
    for n in sorted(groups, reverse=True):
        idx = np.asarray(groups[n], dtype=np.int64)
        out += [idx[i : i + batch_size] for i in range(0, len(idx), batch_size)]
    return out


def fill_rows(idx: np.ndarray, tokens_per_row: int, min_tokens: int = MIN_TOKENS) -> np.ndarray:
    """A batch's indices followed by repeats of them, so that the batch has at least
    ``min_tokens`` tokens (rows x ``tokens_per_row``; unchanged when it has).

    The caller runs the filled batch and keeps the first ``len(idx)`` results: each row's
    result is then the one every batch of >= ``min_tokens`` tokens gives it (module docstring).

    Args:
        idx: shape (B,), the batch (B >= 1).
        tokens_per_row: the batch's common length (>= 1).

    Returns:
        shape (max(B, ceil(min_tokens / tokens_per_row)),), starting with ``idx``.
    """
    rows = max(len(idx), -(-min_tokens // max(1, tokens_per_row)))
    return np.resize(np.asarray(idx), rows)


def unique(items: Sequence) -> tuple[list, np.ndarray]:
    """Distinct items in first-seen order and, for every input item, its index among them.

    Returns:
        (distinct, inverse) with ``distinct[inverse[i]] == items[i]``; inverse has shape (M,).
    """
    index: dict = {}
    inverse = np.empty(len(items), dtype=np.int64)
    for i, x in enumerate(items):
        j = index.get(x)
        if j is None:
            j = index[x] = len(index)
        inverse[i] = j
    return list(index), inverse
