"""The one edit type of the package and the one way to apply edits to a source.

An :class:`Edit` replaces the source tokens [start, end) by the tokens of ``correction``.  Its
fields are ERRANT's (Bryant et al. 2017) ``o_start, o_end, c_start, c_end, o_str, c_str,
type``, in that order, so the 7-tuples the edit cache stores on disk
(:mod:`gec_meta.edits.extract`) are read back with ``Edit._make`` and positional readers keep
working.  Edits that do not come from ERRANT (m2scorer's hypothesis path, M2 gold edits) have
no target span: :meth:`Edit.span` fills ``c_start = c_end = -1`` and ``original = ""``.

Matching (errant_compare, m2scorer) compares :attr:`Edit.key` = (start, end, correction); the
other fields are informative.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

#: Edit types that are not edits: ERRANT's noop and UNK (errant_compare drops them) and
#: ChERRANT's NA (a reference that could not be annotated).
IGNORED_TYPES = frozenset({"noop", "UNK", "NA"})

#: (start, end, correction): what edit matching compares.
EditKey = tuple[int, int, str]


class Edit(NamedTuple):
    """A token-span edit of a tokenised source.

    Fields:
        start, end: the source span [start, end) (ERRANT's o_start, o_end; insertions have
            start == end).
        c_start, c_end: the span of the correction in the target (-1 when unknown).
        original: the source tokens of the span (ERRANT's o_str).
        correction: what replaces them (ERRANT's c_str; "" deletes).
        type: ERRANT's error type or the M2 gold type; informative only.
    """

    start: int
    end: int
    c_start: int
    c_end: int
    original: str
    correction: str
    type: str

    @classmethod
    def span(cls, start: int, end: int, correction: str, type: str = "") -> "Edit":
        """An edit known only by its source span and correction (M2 edits)."""
        return cls(start, end, -1, -1, "", correction, type)

    @property
    def key(self) -> EditKey:
        return (self.start, self.end, self.correction)

    @property
    def ignored(self) -> bool:
        """True for ERRANT's noop / UNK pseudo-edits."""
        return self.type in IGNORED_TYPES


def apply_edits(source: str, edits: Sequence[EditKey], order: str = "span") -> str:
    """The source with edits applied (``Correct(S, e)`` of PT-M2's Algorithm 1, Gong et al.
    2022; S_E of UOT-ERRANT's Eq. 1, Goto et al. 2025).  The one edit-application function of
    the package (PT-M2's single edits, UOT-ERRANT's edit sets and their leave-one-out subsets).

    Edits are applied left to right with a running offset (the tokens the edits so far added
    minus those they removed), the procedure of gecommon's ``apply_edits`` that the official
    UOT-ERRANT code uses.  They are first put in (start, end) order by a *stable* sort, so edits
    with the same span keep their input order: ERRANT's two separate insertions
    (14, 14, "or"), (14, 14, "her") give "... his or her own", and an insertion at i comes
    before a replacement of [i, j) (ERRANT emits them in that order).  For ERRANT's edit lists,
    which are already in this order, the result is gecommon's.

    ``order="given"`` applies the edits in the order given, overlaps allowed, with the same
    running offset: the procedure of the usual M2-to-text converters, which reads an M2
    annotator's edits in file order (:func:`gec_meta.data.m2.apply_edits`; it reproduces
    BN-10GEC's plain-text references, overlapping edits included).  For edits in span order
    without overlaps the two orders give the same text.

    Args:
        source: whitespace-tokenised sentence.
        edits: shape (E,), non-overlapping (start, end, correction) token spans of the source
            (or :class:`Edit`s, read through their key); insertions have start == end.
        order: ``span`` (stable sort by (start, end); overlaps are an error) or ``given``.

    Returns:
        The edited sentence, tokens joined by single spaces.

    Raises:
        ValueError: an edit outside the source, or (``span``) two edits that overlap (one
            starts inside another's span).
    """
    tokens = source.split()
    n = len(tokens)
    keys = [e.key if isinstance(e, Edit) else tuple(e) for e in edits]
    if order == "span":
        keys = sorted(keys, key=lambda e: (e[0], e[1]))
        done = 0
        for start, end, correction in keys:
            if not 0 <= start <= end <= n:
                raise ValueError(f"edit {(start, end, correction)!r} outside a {n}-token source: {source!r}")
            if start < done:
                raise ValueError(f"edit {(start, end, correction)!r} overlaps an earlier edit ending at {done}: {source!r}")
            done = end
    elif order != "given":
        raise ValueError(f"order must be 'span' or 'given', got {order!r}")
    offset = 0  # tokens the edits so far added minus those they removed
    for start, end, correction in keys:
        cor = correction.split()
        tokens[start + offset:end + offset] = cor
        offset += len(cor) - (end - start)
    return " ".join(tokens)
