"""Common prefix and suffix of two token sequences.

The edit extractors align only the block between two texts' common prefix and common suffix:
ERRANT's alignment (:mod:`gec_meta.edits.errant_align`) both, ChERRANT's
(:mod:`gec_meta.edits.cherrant`) the suffix; each module's docstring has the argument why the
affixes' tokens always match one to one.  The local LLM backend (:mod:`gec_meta.llm.local`)
reuses the key/value cache of the token-id prefix its prompts share.
"""

from __future__ import annotations

from typing import Sequence


def common_suffix_length(a: Sequence, b: Sequence) -> int:
    """Number of trailing items that ``a`` and ``b`` share (``a[-k:] == b[-k:]``, k largest)."""
    n, m, k = len(a), len(b), 0
    while k < n and k < m and a[n - 1 - k] == b[m - 1 - k]:
        k += 1
    return k


def common_prefix_length(a: Sequence, b: Sequence, limit: int) -> int:
    """Number of leading items that ``a`` and ``b`` share, at most ``limit``."""
    k, limit = 0, min(limit, len(a), len(b))
    while k < limit and a[k] == b[k]:
        k += 1
    return k
