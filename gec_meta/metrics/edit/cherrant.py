"""ChERRANT's comparison (``compare_m2_for_evaluation.py`` of HillZhang1999/MuCGEC
``scorers/ChERRANT``, commit 39221934): ``metric=errant`` / ``senterrant`` on Chinese.

It is errant_compare's span-based correction matching with three differences that this module
reproduces (tests/test_cherrant.py checks them against the official scripts' output):

* **Edits with multiplicity.**  ChERRANT writes the edits of every distinct cheapest alignment
  under one annotator, and the scorer pools them per (start, end, correction) key with a list of
  types: a hypothesis edit that matches counts ``len(reference list)`` true positives, one that
  does not counts ``len(hypothesis list)`` false positives, a missed reference edit counts
  ``len(reference list)`` false negatives (:func:`cherrant_counts`).
* **Not annotatable.**  A sentence whose only reference is ``无法标注`` (the ``NA`` pseudo-edit)
  counts nothing for any system (:func:`cherrant_statistics`).
* **Rounded F.**  The running-total choice of each sentence's reference compares F_beta rounded
  to 4 decimals, as its ``computeFScore`` returns it
  (:func:`gec_meta.metrics.edit.core.rounded_running_best`, errant_compare's rule as well).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from gec_meta.edits.edit import Edit

#: The key ChERRANT's scorer gives to "no edit" (and to ``NA``).
NOOP_KEY = (-1, -1, "-NONE-")


def _key(e: Edit) -> tuple[int, int, str]:
    """ChERRANT's (start, end, correction) key: the correction without spaces, ``-NONE-`` when
    empty (deletions, noop, NA)."""
    return (e.start, e.end, e.correction.replace(" ", "") or "-NONE-")


def _pooled(edits: Sequence[Edit]) -> dict[tuple[int, int, str], list[str]]:
    """``process_edits``: key -> the types of the edits with that key (a noop when none)."""
    if not edits:
        return {NOOP_KEY: ["noop"]}
    out: dict[tuple[int, int, str], list[str]] = {}
    for e in edits:
        out.setdefault(_key(e), []).append(e.type)
    return out


def cherrant_counts(hyp: Sequence[Edit], ref: Sequence[Edit]) -> tuple[int, int, int]:
    """(TP, FP, FN) of a hypothesis's ChERRANT edits against one reference's (``compareEdits``).

    Args:
        hyp: shape (H,), every alignment's edits, repeats included (``CherrantExtractor``).
        ref: shape (G,), likewise.
    """
    h, r = _pooled(hyp), _pooled(ref)
    tp = fp = fn = 0
    for key, types in h.items():
        if types[0] == "noop":
            continue
        if key in r:
            tp += len(r[key])
        else:
            fp += len(types)
    for key, types in r.items():
        if types[0] != "noop" and key not in h:
            fn += len(types)
    return tp, fp, fn


def _not_annotatable(edits: Sequence[Edit]) -> bool:
    return len(edits) == 1 and edits[0].type == "NA"


def cherrant_statistics(hyp: Sequence[Sequence[Sequence[Edit]]], ref: Sequence[Sequence[Sequence[Edit]]],
                        present=None) -> np.ndarray:
    """(TP, FP, FN) of every (system, sentence, reference).

    Args:
        hyp: shape (S, N) of edit tuples.
        ref: shape (R, N) of edit tuples (stand-ins for absent references included).
        present: shape (R, N), False at a stand-in (None: all present).

    Returns:
        shape (S, N, R, 3); all zeros for a sentence whose one reference is ``无法标注``.
    """
    S, R = len(hyp), len(ref)
    N = len(ref[0]) if R else 0
    out = np.zeros((S, N, R, 3), dtype=np.float64)
    memo: dict[tuple, tuple[int, int, int]] = {}
    for n in range(N):
        real = [r for r in range(R) if present is None or present[r][n]]
        if len(real) == 1 and _not_annotatable(ref[real[0]][n]):
            continue  # the scorer skips the sentence
        for s in range(S):
            for r in range(R):
                key = (hyp[s][n], ref[r][n])
                c = memo.get(key)
                if c is None:
                    c = memo[key] = cherrant_counts(*key)
                out[s, n, r] = c
    return out
