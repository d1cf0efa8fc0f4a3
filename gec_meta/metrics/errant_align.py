"""ERRANT's token alignment, computed on plain Python lists (same numbers, ~4x faster).

ERRANT 3 (Bryant et al. 2017; ``errant.alignment.Alignment.align``) fills a linguistically
weighted Damerau-Levenshtein matrix (substitution cost = lemma 0.499 + POS 0.25/0.5 + Indel
character distance; transpositions of any length) by reading spaCy ``Token`` attributes inside
the O(|orig| x |cor|) loop.  Every ``doc[i]`` builds a new ``Token`` object, and on real GEC
corpora that loop costs as much as spaCy's parsing itself.  :class:`FastAlignment` overrides
only :meth:`align`: it reads each token's attributes once into lists and then runs the same
recurrence, operation for operation (same float additions in the same order, same tie order
``[transposition, substitution, insertion, deletion]``), so the cost and operation matrices --
and therefore ERRANT's edits -- are identical.  ``tests/test_errant_align.py`` checks this
against ``errant.alignment.Alignment`` on random and real sentences.

No library provides this: ERRANT has no vectorised alignment, and the recurrence (its
transposition search walks back along the diagonal of the partially filled matrix) does not
map onto rapidfuzz's fixed-cost distances.
"""

from __future__ import annotations

from errant.alignment import Alignment
from rapidfuzz.distance import Indel

INF = float("inf")


class FastAlignment(Alignment):
    """:class:`errant.alignment.Alignment` with a list-based :meth:`align` (identical output)."""

    def align(self, lev):
        orig, cor = self.orig, self.cor
        o_len, c_len = len(orig), len(cor)
        o_toks, c_toks = list(orig), list(cor)
        o_orth = [t.orth for t in o_toks]
        c_orth = [t.orth for t in c_toks]
        o_low = [t.lower for t in o_toks]
        c_low = [t.lower for t in c_toks]
        if not lev:
            sub_matrix = _sub_costs(o_toks, c_toks, self._open_pos)
        cost_matrix = [[0.0 for _ in range(c_len + 1)] for _ in range(o_len + 1)]
        op_matrix = [["O" for _ in range(c_len + 1)] for _ in range(o_len + 1)]
        for i in range(1, o_len + 1):
            cost_matrix[i][0] = cost_matrix[i - 1][0] + 1
            op_matrix[i][0] = "D"
        for j in range(1, c_len + 1):
            cost_matrix[0][j] = cost_matrix[0][j - 1] + 1
            op_matrix[0][j] = "I"
        for i in range(o_len):
            prev, row, ops = cost_matrix[i], cost_matrix[i + 1], op_matrix[i + 1]
            oi = o_orth[i]
            if not lev:
                sub_row = sub_matrix[i]
            for j in range(c_len):
                if oi == c_orth[j]:
                    row[j + 1] = prev[j]
                    ops[j + 1] = "M"
                    continue
                del_cost = prev[j + 1] + 1
                ins_cost = row[j] + 1
                trans_cost = INF
                if lev:
                    sub_cost = prev[j] + 1
                else:
                    sub = sub_row[j]
                    sub_cost = prev[j] + sub
                    k = 1
                    while i - k >= 0 and j - k >= 0 and \
                            cost_matrix[i - k + 1][j - k + 1] != cost_matrix[i - k][j - k]:
                        if sorted(o_low[i - k:i + 1]) == sorted(c_low[j - k:j + 1]):
                            trans_cost = cost_matrix[i - k][j - k] + k
                            break
                        k += 1
                costs = [trans_cost, sub_cost, ins_cost, del_cost]
                best = costs.index(min(costs))
                row[j + 1] = costs[best]
                if best == 0:
                    ops[j + 1] = "T" + str(k + 1)
                elif best == 1:
                    ops[j + 1] = "S"
                elif best == 2:
                    ops[j + 1] = "I"
                else:
                    ops[j + 1] = "D"
        return cost_matrix, op_matrix


def _sub_costs(o_toks, c_toks, open_pos) -> list[list[float]]:
    """``Alignment.get_sub_cost(o, c)`` for every token pair, shape (|orig|, |cor|).

    Same arithmetic as errant: ``lemma_cost + pos_cost + char_cost`` added left to right in
    float64 (numpy's elementwise addition is IEEE like Python's), 0 where only case differs;
    the character costs come from rapidfuzz's ``cdist`` with errant's own scorer
    (``Indel.normalized_distance``) in one C call.
    """
    import numpy as np
    from rapidfuzz.process import cdist

    if not o_toks or not c_toks:
        return [[0.0] * len(c_toks) for _ in o_toks]
    o_low = np.array([t.lower for t in o_toks], dtype=np.uint64)
    c_low = np.array([t.lower for t in c_toks], dtype=np.uint64)
    o_lemma = np.array([t.lemma for t in o_toks], dtype=np.uint64)
    c_lemma = np.array([t.lemma for t in c_toks], dtype=np.uint64)
    o_pos = np.array([t.pos for t in o_toks], dtype=np.int64)
    c_pos = np.array([t.pos for t in c_toks], dtype=np.int64)
    lemma = np.where(o_lemma[:, None] == c_lemma[None, :], 0.0, 0.499)
    opens = np.array(sorted(open_pos), dtype=np.int64)
    both_open = np.isin(o_pos, opens)[:, None] & np.isin(c_pos, opens)[None, :]
    pos = np.where(o_pos[:, None] == c_pos[None, :], 0.0, np.where(both_open, 0.25, 0.5))
    char = cdist([t.text for t in o_toks], [t.text for t in c_toks], scorer=Indel.normalized_distance,
                 dtype=np.float64)
    sub = (lemma + pos) + char
    sub[o_low[:, None] == c_low[None, :]] = 0.0
    return sub.tolist()


def annotate(annotator, orig, cor, lev: bool = False, merging: str = "rules"):
    """``annotator.annotate(orig, cor)`` (errant 3.0) with :class:`FastAlignment`."""
    alignment = FastAlignment(orig, cor, lev)
    edits = annotator.merge(alignment, merging)
    for edit in edits:
        annotator.classify(edit)
    return edits
