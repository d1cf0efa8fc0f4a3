"""Length-sorted batching with order restoration (after COMET's and bert_score's batching)."""

from __future__ import annotations

from typing import Sequence

import numpy as np


def length_batches(lengths: Sequence[int], batch_size: int) -> list[np.ndarray]:
    """Indices of items grouped into batches of similar length (longest first).

    Sorting by length keeps padding (wasted compute) small; the caller scatters each batch's
    results back by index, so the output order is the input order.

    Args:
        lengths: shape (M,), the length of every item.
        batch_size: most items per batch (>= 1).

    Returns:
        list of int arrays whose concatenation is a permutation of range(M).
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    order = np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


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
