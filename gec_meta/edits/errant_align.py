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

Two further exact savings: a token's attributes are read once per *text* (:class:`DocFeatures`;
a source sentence is aligned with every system's output), and the transposition search is
skipped where no transposition can end: the two windows can only hold the same words if
``orig[i]`` occurs in ``cor[:j+1]`` and ``cor[j]`` in ``orig[:i+1]``.  The search has no other
effect, so the matrices stay the same.

Savings in what is computed: the texts' common suffix.  Equal tokens are always a match
(``M``, ERRANT's first test in every cell), so ERRANT's backtrace from the bottom-right cell walks
the common suffix of ``orig`` and ``cor`` diagonally, one ``M`` a token, and then continues exactly
as the backtrace of the two texts without that suffix; and no cell of the remaining top-left block
reads a cell outside it (the recurrence, including the transposition search, only looks up and
left).  So :class:`FastAlignment` fills only that block and appends the suffix's matches: the same
``align_seq``, the same edits.  A GEC hypothesis usually shares a long tail with its source (on
GJG15 the block is 54% of the cells).  :meth:`FastAlignment.align` still returns ERRANT's whole
matrices.

And the common prefix of ``p`` tokens.  Every cell (a, b) with a <= p or b <= p costs exactly
|a - b|: a path to it makes |a - b| more insertions than deletions (or the reverse) at cost 1
each, and the prefix's diagonal of matches followed by those insertions (deletions) costs just
that.  So the border of the block after the prefix -- ERRANT's row p and column p -- holds the
values of a fresh matrix's row and column 0 (i and j), and every cell inside the block gets
ERRANT's value and operation from the same neighbours.  A transposition search never leaves the
block either: walking back along a diagonal it stops where two consecutive cells are equal, and
the border cell and the cell beyond it (both in the |a - b| region, on one diagonal) are.  What
can differ is the operation *on* the border, which only the end of the backtrace reads: in
ERRANT's cell (p, p + x) the insertion (cost x) ties with the substitution from (p - 1, p + x - 1)
(cost x + sub) exactly when ``orig[p - 1]`` and ``cor[p + x - 1]`` are equal up to case (sub = 0;
a match if equal), and ERRANT takes the substitution (or match) first; deletions on column p
likewise.  :class:`FastAlignment` checks the border cells its backtrace ends on and, in that
rare case, fills the block without the prefix instead.  ``tests/test_errant_align.py`` compares
both with ERRANT's own matrices and ``align_seq`` on random texts with repeats, case-only
changes and transpositions next to the prefix.

No library provides this: ERRANT has no vectorised alignment, and the recurrence (its
transposition search walks back along the diagonal of the partially filled matrix) does not
map onto rapidfuzz's fixed-cost distances.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from errant.alignment import Alignment
from rapidfuzz.distance import Indel

from gec_meta.edits.affixes import common_prefix_length, common_suffix_length

INF = float("inf")


@dataclass(frozen=True)
class DocFeatures:
    """What the alignment reads from a parsed text, read once (arrays have shape (T,)).

    Fields: ``orth``/``lower`` (lists of ids), ``texts``, ``lower_ids``/``lemma_ids`` (uint64),
    ``pos_ids`` (uint64), ``open_pos`` (bool: ADJ, ADV, NOUN or VERB); ``first`` (lower id ->
    first position) is derived from ``lower`` when first read.
    """

    orth: list
    lower: list
    texts: list
    lower_ids: np.ndarray
    lemma_ids: np.ndarray
    pos_ids: np.ndarray
    open_pos: np.ndarray

    @functools.cached_property
    def first(self) -> dict:
        """Lower-case id -> its first position in the text."""
        first: dict = {}
        for i, x in enumerate(self.lower):
            first.setdefault(x, i)
        return first

    @classmethod
    def of(cls, doc, open_pos=Alignment._open_pos) -> "DocFeatures":
        # One C call (Doc.to_array) instead of a Token object per token.
        arr = doc.to_array(["ORTH", "LOWER", "LEMMA", "POS"]).reshape(len(doc), 4)
        orth, lower, pos = arr[:, 0].tolist(), arr[:, 1].tolist(), arr[:, 3].tolist()
        strings = doc.vocab.strings
        return cls(
            orth=orth, lower=lower, texts=[strings[x] for x in orth],
            lower_ids=arr[:, 1], lemma_ids=arr[:, 2], pos_ids=arr[:, 3],
            open_pos=np.array([p in open_pos for p in pos], dtype=bool),
        )

    def part(self, start: int, end: int) -> "DocFeatures":
        """The features of the text's tokens ``start:end``."""
        if start == 0 and end == len(self.orth):
            return self
        return DocFeatures(
            orth=self.orth[start:end], lower=self.lower[start:end], texts=self.texts[start:end],
            lower_ids=self.lower_ids[start:end], lemma_ids=self.lemma_ids[start:end],
            pos_ids=self.pos_ids[start:end], open_pos=self.open_pos[start:end],
        )


class FastAlignment(Alignment):
    """:class:`errant.alignment.Alignment` computed on lists: the same ``align_seq`` (and so the
    same edits).  ``cost_matrix``/``op_matrix`` hold the block of ERRANT's matrices between the
    texts' common prefix of ``head`` tokens and common suffix of ``tail`` tokens (module doc),
    shape (|orig| - head - tail + 1, |cor| - head - tail + 1): row and column 0 are the block's
    border (insertions / deletions), the other cells equal ERRANT's cells
    ``[head + 1:, head + 1:]`` of its matrices without the suffix. :meth:`align` returns ERRANT's
    whole matrices.

    ``o_feat``/``c_feat``: :class:`DocFeatures` of ``orig``/``cor`` if already computed.
    """

    def __init__(self, orig, cor, lev=False, o_feat: DocFeatures | None = None,
                 c_feat: DocFeatures | None = None):
        # Not Alignment.__init__: the matrices of the block between the texts' common prefix and
        # suffix (module docstring), ERRANT's backtrace of that block, one match per prefix and
        # suffix token.
        self.orig, self.cor = orig, cor
        self._o_feat = of = o_feat if o_feat is not None else DocFeatures.of(orig, self._open_pos)
        self._c_feat = cf = c_feat if c_feat is not None else DocFeatures.of(cor, self._open_pos)
        o_len, c_len = len(of.orth), len(cf.orth)
        tail = common_suffix_length(of.orth, cf.orth)
        o_end, c_end = o_len - tail, c_len - tail
        head = common_prefix_length(of.orth, cf.orth, min(o_end, c_end))
        self.cost_matrix, self.op_matrix = self._fill(lev, o_end, c_end, head)
        seq = self.get_cheapest_align_seq()
        if head and not self._border_is_errants(seq, head):
            head = 0  # rare (module doc): ERRANT's path leaves the border; fill the whole block
            self.cost_matrix, self.op_matrix = self._fill(lev, o_end, c_end, 0)
            seq = self.get_cheapest_align_seq()
        self.head, self.tail = head, tail
        self.align_seq = [("M", i, i + 1, i, i + 1) for i in range(head)]
        self.align_seq += [(op, i0 + head, i1 + head, j0 + head, j1 + head) for op, i0, i1, j0, j1 in seq]
        self.align_seq += [("M", i, i + 1, j, j + 1) for i, j in zip(range(o_end, o_len), range(c_end, c_len))]

    def _border_is_errants(self, seq, head: int) -> bool:
        """Whether the block's backtrace ``seq`` (block coordinates) is ERRANT's where it runs
        along the block's border: ERRANT's cell (head, head + x) (x >= 1) holds an insertion
        unless ``orig[head - 1]`` and ``cor[head + x - 1]`` are equal up to case (a match or a
        free substitution ties with the insertion and comes first); likewise its cell
        (head + y, head) a deletion (module doc)."""
        o_low, c_low = self._o_feat.lower, self._c_feat.lower
        o_last, c_last = o_low[head - 1], c_low[head - 1]
        for op, i0, i1, j0, j1 in seq:
            if i1 == 0 and op == "I":  # cell (0, j1) of the block: ERRANT's (head, head + j1)
                if c_low[head + j1 - 1] == o_last:
                    return False
            elif j1 == 0 and op == "D":  # cell (i1, 0): ERRANT's (head + i1, head)
                if o_low[head + i1 - 1] == c_last:
                    return False
            else:
                break  # the path has left the border (it runs along it only at its start)
        return True

    def align(self, lev):
        """ERRANT's whole cost and operation matrices, shape (|orig| + 1, |cor| + 1)."""
        return self._fill(lev, len(self._o_feat.orth), len(self._c_feat.orth))

    def _fill(self, lev, o_end: int, c_end: int, start: int = 0):
        """ERRANT's cost and operation matrices for ``orig[start:o_end]`` and
        ``cor[start:c_end]``, shape (o_end - start + 1, c_end - start + 1): with ``start`` = 0
        the same cells as the top-left block of the whole matrices; with a common prefix of
        ``start`` tokens the same cells but the border (module doc)."""
        of, cf = self._o_feat, self._c_feat
        o_len, c_len = o_end - start, c_end - start
        o_orth, c_orth = of.orth[start:o_end], cf.orth[start:c_end]
        o_low, c_low = of.lower[start:o_end], cf.lower[start:c_end]
        if not lev:
            sub_matrix = self.sub_costs(of.part(start, o_end), cf.part(start, c_end))  # (o_len, c_len)
            # Transposition possible at (i, j) only if j >= c_first[i] and i >= o_first[j]
            # (first positions in the whole texts, shifted to the block: a necessary condition).
            c_first = [cf.first.get(x, len(cf.orth)) - start for x in o_low]
            o_first = [of.first.get(x, len(of.orth)) - start for x in c_low]
        cost_matrix = [[0.0] * (c_len + 1) for _ in range(o_len + 1)]
        op_matrix = [["O"] * (c_len + 1) for _ in range(o_len + 1)]
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
                j_min = c_first[i]
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
                    sub_cost = prev[j] + sub_row[j]
                    if j >= j_min and i >= o_first[j]:
                        k = 1
                        while i - k >= 0 and j - k >= 0 and \
                                cost_matrix[i - k + 1][j - k + 1] != cost_matrix[i - k][j - k]:
                            if sorted(o_low[i - k:i + 1]) == sorted(c_low[j - k:j + 1]):
                                trans_cost = cost_matrix[i - k][j - k] + k
                                break
                            k += 1
                # errant: costs.index(min(costs)) over [trans, sub, ins, del], i.e. the first
                # of the cheapest; strict "<" keeps the earlier one on ties.
                best, op = trans_cost, 0
                if sub_cost < best:
                    best, op = sub_cost, 1
                if ins_cost < best:
                    best, op = ins_cost, 2
                if del_cost < best:
                    best, op = del_cost, 3
                row[j + 1] = best
                if op == 0:
                    ops[j + 1] = "T" + str(k + 1)
                elif op == 1:
                    ops[j + 1] = "S"
                elif op == 2:
                    ops[j + 1] = "I"
                else:
                    ops[j + 1] = "D"
        return cost_matrix, op_matrix

    def sub_costs(self, of: DocFeatures, cf: DocFeatures) -> list[list[float]]:
        """The substitution cost of every token pair, shape (|orig|, |cor|): ERRANT's
        linguistic cost (:func:`_sub_costs`); :mod:`gec_meta.edits.generic` drops its lemma and
        POS terms."""
        return _sub_costs(of, cf)


def _sub_costs(of: DocFeatures, cf: DocFeatures) -> list[list[float]]:
    """``Alignment.get_sub_cost(o, c)`` for every token pair, shape (|orig|, |cor|).

    Same arithmetic as errant: ``lemma_cost + pos_cost + char_cost`` added left to right in
    float64 (numpy's elementwise addition is IEEE like Python's), 0 where only case differs;
    the character costs come from rapidfuzz's ``cdist`` with errant's own scorer
    (``Indel.normalized_distance``) in one C call.
    """
    from rapidfuzz.process import cdist

    if not of.orth or not cf.orth:
        return [[0.0] * len(cf.orth) for _ in of.orth]
    lemma = np.where(of.lemma_ids[:, None] == cf.lemma_ids[None, :], 0.0, 0.499)
    both_open = of.open_pos[:, None] & cf.open_pos[None, :]
    pos = np.where(of.pos_ids[:, None] == cf.pos_ids[None, :], 0.0, np.where(both_open, 0.25, 0.5))
    char = cdist(of.texts, cf.texts, scorer=Indel.normalized_distance, dtype=np.float64)
    sub = (lemma + pos) + char
    sub[of.lower_ids[:, None] == cf.lower_ids[None, :]] = 0.0
    return sub.tolist()


def annotate(annotator, orig, cor, lev: bool = False, merging: str = "rules",
             o_feat: DocFeatures | None = None, c_feat: DocFeatures | None = None):
    """``annotator.annotate(orig, cor)`` (errant 3.0) with :class:`FastAlignment`."""
    alignment = FastAlignment(orig, cor, lev, o_feat, c_feat)
    edits = annotator.merge(alignment, merging)
    for edit in edits:
        annotator.classify(edit)
    return edits
