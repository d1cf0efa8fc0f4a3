"""Language-independent edit extraction: ERRANT without a parser.

For languages with no spaCy parser on the package index (Swedish: Östling et al. 2024,
MultiGEC-2025), M2/ERRANT-style metrics and CLEME need edits all the same.  This extractor
keeps the parts of ERRANT (Bryant, Felice & Briscoe, ACL 2017; errant 3.0) that read only the
tokens, and drops those that need lemmas or POS tags:

* **Alignment**: ERRANT's Damerau-Levenshtein recurrence (:class:`~gec_meta.edits.errant_align.
  FastAlignment`: same tie order, transpositions of any length where the two windows hold the
  same lower-cased tokens), with the substitution cost reduced to its character term: 0 when
  the tokens are equal ignoring case, else the Indel (insert/delete) normalised character
  distance, in [0, 1].  ERRANT adds 0.499 for different lemmas and 0.25/0.5 for different POS.
* **Merging**: ERRANT's rule merger (``errant/en/merger.py``) without its POS rules: runs of
  deletions only or insertions only merge; transpositions stay single edits; within a run of
  non-matches that contains a substitution, spans are tried from the longest down and
  (1) a case change at the end of the span merges with a first-token insertion/deletion of a
  capitalised word or with a preceding punctuation token, (2) spans equal up to spaces,
  hyphens and apostrophes merge (``acat -> a cat``), (3) on spans of at most two operations,
  two adjacent substitutions split and a substitution at a boundary whose characters are more
  than 75% similar splits; a run that holds any non-punctuation token merges into one edit.
  Dropped: possessive suffixes (tag ``POS``), same-POS and verb-phrase merges, final
  determiner splits, and ERRANT's "content word" test (open-class POS), replaced by
  "not punctuation".
* **Types**: no classifier: ``M:OTHER`` (insertion), ``U:OTHER`` (deletion), ``R:OTHER``
  (replacement or transposition).

Punctuation = a token whose every character is Unicode punctuation (category P*) or in
:data:`string.punctuation` (ERRANT's text test; its POS test needs a tagger).

:class:`GenericExtractor` has the interface of :class:`~gec_meta.edits.extract.ErrantExtractor`
(``extract(pairs, threads)``, edits cached by content in the key-value store, pairs deduplicated);
:func:`generic_extractor` is the process-wide instance and its :attr:`~GenericExtractor.name`
(``generic-align:1``) names it in signatures.  Pure Python, no parser: ~1.4 ms a pair on the
17-token Swedish sentences of ``ostling2024``.  On English (SEEDA Base, 4 systems, 1,115 changed
sentences) its edit sets equal ERRANT's on 93.8% of the sentences (94.8% of its edits are ERRANT's;
``experiments/multilingual_sv.py``).
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from typing import Sequence

import numpy as np
from rapidfuzz.distance import Indel

from gec_meta.cache import text_hash
from gec_meta.cache.code import computing_code_version
from gec_meta.edits.edit import Edit
from gec_meta.edits.errant_align import DocFeatures, FastAlignment
from gec_meta.edits.extract import check_new_lengths
from gec_meta.edits.stored import EditTuple, StoredExtractor

#: Bump when the edits of the same pair change.
VERSION = "1"
#: The extractor's name in signatures.
NAME = f"generic-align:{VERSION}"
#: ERRANT's threshold on the character similarity of a substitution at a span boundary.
SIMILAR_SPLIT = 0.75
_HYPHENS = re.compile("['-]")


def is_punct(token: str) -> bool:
    """Every character is Unicode punctuation or in :data:`string.punctuation`."""
    return bool(token) and all(unicodedata.category(ch).startswith("P") or ch in string.punctuation
                               for ch in token)


def _features(tokens: list[str]) -> DocFeatures:
    """What the alignment reads, from plain tokens (lemma and POS unused: zeros)."""
    lower = [t.lower() for t in tokens]
    zeros = np.zeros(len(tokens), dtype=np.uint64)
    return DocFeatures(orth=list(tokens), lower=lower, texts=list(tokens), lower_ids=np.array(lower, dtype=object),
                       lemma_ids=zeros, pos_ids=zeros, open_pos=np.zeros(len(tokens), dtype=bool))


class GenericAlignment(FastAlignment):
    """ERRANT's alignment of two token lists with the character substitution cost only."""

    def __init__(self, orig: list[str], cor: list[str]):
        super().__init__(orig, cor, False, _features(orig), _features(cor))

    def sub_costs(self, of: DocFeatures, cf: DocFeatures) -> list[list[float]]:
        from rapidfuzz.process import cdist

        if not of.texts or not cf.texts:
            return [[0.0] * len(cf.texts) for _ in of.texts]
        char = cdist(of.texts, cf.texts, scorer=Indel.normalized_distance, dtype=np.float64)
        char[np.array(of.lower, dtype=object)[:, None] == np.array(cf.lower, dtype=object)[None, :]] = 0.0
        return char.tolist()


# An alignment operation: (op, o_start, o_end, c_start, c_end) as ERRANT's align_seq.
Op = tuple


def _merge(seq: Sequence[Op]) -> list[Op]:
    return [("X", seq[0][1], seq[-1][2], seq[0][3], seq[-1][4])] if seq else []


def _similarity(a: str, b: str) -> float:
    return 1.0 - Indel.normalized_distance(a, b)


def process_run(seq: list[Op], orig: list[str], cor: list[str]) -> list[Op]:
    """ERRANT's ``process_seq`` without its POS rules (see module doc) on a run of D/I/S ops."""
    if len(seq) <= 1:
        return list(seq)
    ops = [op[0] for op in seq]
    if set(ops) in ({"D"}, {"I"}):
        return _merge(seq)
    content = False
    combos = sorted(((a, b) for a in range(len(seq)) for b in range(a + 1, len(seq))),
                    key=lambda x: x[1] - x[0], reverse=True)  # stable: errant's order within a length
    for start, end in combos:
        if "S" not in ops[start:end + 1]:
            continue
        o = orig[seq[start][1]:seq[end][2]]
        c = cor[seq[start][3]:seq[end][4]]
        if o[-1].lower() == c[-1].lower():  # case change at the end
            if start == 0 and ((len(o) == 1 and c[0][0].isupper()) or (len(c) == 1 and o[0][0].isupper())):
                return _merge(seq[start:end + 1]) + process_run(seq[end + 1:], orig, cor)
            if (len(o) > 1 and is_punct(o[-2])) or (len(c) > 1 and is_punct(c[-2])):
                return (process_run(seq[:end - 1], orig, cor) + _merge(seq[end - 1:end + 1])
                        + process_run(seq[end + 1:], orig, cor))
        if _HYPHENS.sub("", "".join(o).lower()) == _HYPHENS.sub("", "".join(c).lower()):
            return process_run(seq[:start], orig, cor) + _merge(seq[start:end + 1]) + process_run(seq[end + 1:], orig, cor)
        if end - start < 2:
            if len(o) == len(c) == 2:
                return process_run(seq[:start + 1], orig, cor) + process_run(seq[start + 1:], orig, cor)
            if (ops[start] == "S" and _similarity(o[0], c[0]) > SIMILAR_SPLIT) or \
                    (ops[end] == "S" and _similarity(o[-1], c[-1]) > SIMILAR_SPLIT):
                return process_run(seq[:start + 1], orig, cor) + process_run(seq[start + 1:], orig, cor)
        if not all(is_punct(t) for t in o + c):
            content = True
    return _merge(seq) if content else list(seq)


def _type(o_start: int, o_end: int, c_start: int, c_end: int) -> str:
    if o_start == o_end:
        return "M:OTHER"
    if c_start == c_end:
        return "U:OTHER"
    return "R:OTHER"


def generic_edits(source: str, target: str) -> tuple[EditTuple, ...]:
    """The edits of one pair of whitespace-tokenised texts, as stored tuples
    ``(o_start, o_end, c_start, c_end, o_str, c_str, type)``, left to right."""
    orig, cor = source.split(), target.split()
    if orig == cor:
        return ()
    alignment = GenericAlignment(orig, cor)
    out = []
    run: list[Op] = []

    def flush():
        for op in process_run(run, orig, cor):
            out.append(op)
        run.clear()

    for op in alignment.align_seq:
        if op[0] == "M":
            flush()
        elif op[0].startswith("T"):
            flush()
            out.append(op)
        else:
            run.append(op)
    flush()
    return tuple((os_, oe, cs, ce, " ".join(orig[os_:oe]), " ".join(cor[cs:ce]), _type(os_, oe, cs, ce))
                 for _, os_, oe, cs, ce in out)


class GenericExtractor(StoredExtractor):
    """Batched, deduplicated, disk-cached language-independent edit extraction (the interface of
    :class:`~gec_meta.edits.extract.ErrantExtractor`)."""

    name = NAME

    def __init__(self):
        self._store = None

    def signature(self) -> str:
        """The extractor in result signatures: ``generic-align:1``."""
        return self.name

    def namespace(self) -> str:
        # the code this module can run (its import closure, gec_meta.cache.code), not a hand-kept
        # list of files, which a new import would silently leave out
        return f"{NAME}|code:{computing_code_version(__name__)}"

    def extract(self, pairs: Sequence[tuple[str, str]], threads: int | None = None) -> list[tuple[Edit, ...]]:
        """Edits of every (source, target) pair.

        Args:
            pairs: shape (P,), whitespace-tokenised (source, target) strings.
            threads: accepted for the interface; the extraction runs in this process.

        Returns:
            shape (P,): each pair's edits, left to right (no noop: identical texts have none).
        """
        keys = [text_hash(s, t) for s, t in pairs]
        todo = self._missing(keys, pairs)
        if todo:
            check_new_lengths(todo, pairs)
            store = self.store
            for key, (s, t) in todo.items():
                store.put(key, generic_edits(s, t))
        return self._stored(keys)


@functools.lru_cache(maxsize=1)
def generic_extractor() -> GenericExtractor:
    """The process-wide language-independent extractor (its store opens lazily)."""
    return GenericExtractor()
