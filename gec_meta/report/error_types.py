"""Edit-level analysis of one system: ERRANT P/R/F per error type (``errant_compare -cat 3``)."""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np

from gec_meta.metrics.base import f_beta
from gec_meta.metrics.edit.errant import Errant


def errant_by_type(
    sources: Sequence[str],
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    beta: float = 0.5,
    level: int = 3,
    reference_edits: str = "extract",
) -> dict[str, dict[str, float]]:
    """Per-type TP/FP/FN and P/R/F of one system, as ``errant_compare -cat {1,2,3}``.

    The reference of each sentence is errant_compare's corpus-level choice (best F of the
    running totals, then TP, -FP, -FN); TP are counted under the reference edit's type, FP under
    the hypothesis edit's type and FN under the reference edit's type.

    Args:
        sources: shape (N,).  hypotheses: shape (N,).
        references: shape (R, N): texts for ``reference_edits="extract"``; M2 gold edits
            (:meth:`gec_meta.data.refsets.References.for_metric` ``("m2")``) for ``"gold"``.
        level: 1 = operation (M/R/U), 2 = type without operation (NOUN, VERB:SVA ...),
            3 = full type (R:NOUN).
        reference_edits: ``extract`` (the references' edits and types re-extracted by ERRANT
            from their texts, as ``metric=errant``'s default) or ``gold`` (an M2 reference
            file's own spans and types, as ``errant_compare -ref REF.m2 -cat`` reads them).

    Returns:
        ``{type: {"tp", "fp", "fn", "p", "r", "f"}}`` plus ``"ALL"``.
    """
    metric = Errant(beta=beta, reference_edits=reference_edits)
    matches = metric.match(sources, [hypotheses], references)  # (1, N, R)
    stats = metric.edit_stats(sources, [hypotheses], references, matches)
    best = metric.corpus_best_reference(stats)[0]

    def cat(t: str) -> str:
        if level == 1:
            return t.split(":", 1)[0]
        if level == 2:
            return t.split(":", 1)[1] if ":" in t else t
        return t

    counts: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(3))
    for n, r in enumerate(best):
        m = matches[0, n, r]
        for e, hit in zip(m.hyp_edits, m.hyp_matched):
            if not hit:
                counts[cat(e.type)][1] += 1
        for e, hit in zip(m.ref_edits, m.ref_matched):
            counts[cat(e.type)][0 if hit else 2] += 1
    out = {}
    total = np.zeros(3)
    for t in sorted(counts):
        tp, fp, fn = counts[t]
        total += counts[t]
        p, r, f = f_beta(tp, fp, fn, beta)
        out[t] = {"tp": int(tp), "fp": int(fp), "fn": int(fn), "p": float(p), "r": float(r), "f": float(f)}
    p, r, f = f_beta(*total, beta)
    out["ALL"] = {"tp": int(total[0]), "fp": int(total[1]), "fn": int(total[2]), "p": float(p), "r": float(r), "f": float(f)}
    return out
