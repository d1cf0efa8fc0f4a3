"""The M2 format (Dahlmeier & Ng 2012): gold edits per annotator.

A block is an ``S <tokenised source>`` line followed by ``A`` lines and a blank line::

    S This are a sentence .
    A 1 2|||SVA|||is|||REQUIRED|||-NONE-|||0
    A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1

``A start end|||type|||correction|||required|||comment|||annotator``: token offsets are
0-based, ``end`` exclusive; ``-1 -1`` with type ``noop`` means "no edit"; alternative
corrections are separated by ``||`` (m2scorer semantics); ``-NONE-`` as correction is a
deletion.  An ``A`` line has exactly six fields and the annotator id is the sixth (m2scorer's
reader); spans lie inside the ``S`` sentence.  :func:`check_sources` checks that the ``S``
lines are the sentences being scored (after :func:`gec_meta.data.io.normalise`).  Errors name
the file and line.

The text is Unicode-normalised like every input (:func:`gec_meta.data.io.clean_unicode`, line
by line).  A token of an ``S`` line made only of format characters (a zero-width space, a
left-to-right mark, ...) disappears then, while the ``A`` lines count their offsets on the raw
tokens: the offsets of that block are moved to the remaining tokens (token i becomes i minus the
removed tokens before it), and an edit that only deleted or inserted format characters (its span
and every correction empty after cleaning) is no edit any more -- its annotator stays present in
the sentence, as with a noop line.  One warning per file names the first such ``S`` line
(:func:`parse_m2`).  Without this every later edit of the sentence would point one token too far
right.

The edits of one annotator in one sentence are a set: an ``A`` line that repeats an earlier one of
the same annotator (same span and corrections) is dropped, with one warning per file naming the
first such line (:func:`drop_duplicate_edits`).  This is this project's own rule (CHANGELOG.md,
2026-11-26): m2scorer and errant_compare both count a repeat twice (errant_compare appends each
line's category to the edit's key and counts a TP or FN per category; in m2scorer a matched repeat
can make precision exceed 1).

**Annotators who skip a sentence.**  An annotator with no ``A`` line in a sentence (not even a
noop) has no annotation there.  m2scorer and errant_compare compare such a sentence only with
the annotators present in it; :func:`annotator_slots` lists, per annotator and sentence,
whose annotation fills the slot under each ``missing_annotator`` rule (``skip``: that rule).

A *hypothesis* M2 file (ERRANT's ``errant_parallel`` output for a system, CLEME's
``conll14-<SYSTEM>.errant``) has one annotator, the system: :func:`read_hypothesis_m2` reads it
as :class:`EditedSentence` s, the corrected sentences that carry the file's edits, so that edit
metrics can score those edits instead of re-extracting them (every other metric reads the text).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Literal, Sequence

import warnings

from gec_meta.errors import DataError, InputWarning
from gec_meta.data.io import DEFAULT_UNICODE, check_unicode_mode, clean_line, clean_unicode, normalise, read_text

NOOP_TYPES = frozenset({"noop"})


@dataclass(frozen=True)
class GoldEdit:
    """One ``A`` line.

    Attributes:
        start, end: token span in the source, ``end`` exclusive (-1, -1 for noop).
        type: the error type (``SVA``, ``R:NOUN``, ``noop``, ...).
        corrections: alternative corrections (usually one; ``''`` is a deletion).
        annotator: annotator id.
        line: 1-based line number in the M2 file.
    """

    start: int
    end: int
    type: str
    corrections: tuple[str, ...]
    annotator: int
    line: int = 0

    @property
    def is_noop(self) -> bool:
        return self.start == -1 or self.type in NOOP_TYPES


@dataclass(frozen=True)
class M2Sentence:
    """One block of an M2 file.

    Attributes:
        source: the normalised tokenised source sentence.
        edits: every ``A`` line of the block, in file order (noops included).
        line: 1-based line number of the ``S`` line.
    """

    source: str
    edits: tuple[GoldEdit, ...]
    line: int = 0

    @property
    def annotators(self) -> tuple[int, ...]:
        """Annotator ids that have at least one ``A`` line (noop included), sorted."""
        return tuple(sorted({e.annotator for e in self.edits}))

    def edits_of(self, annotator: int, include_noop: bool = False) -> tuple[GoldEdit, ...]:
        return tuple(
            e for e in self.edits if e.annotator == annotator and (include_noop or not e.is_noop)
        )


def _parse_a_line(body: str, path: Path, line_no: int, num_tokens: int) -> GoldEdit:
    fields = body.split("|||")
    if len(fields) != 6:
        raise DataError(
            f"malformed A line: expected 6 '|||'-separated fields, got {len(fields)}: {body!r}",
            path, line_no,
        )
    span = fields[0].split()
    if len(span) != 2:
        raise DataError(f"malformed A line: span {fields[0]!r} is not 'start end'", path, line_no)
    try:
        start, end = int(span[0]), int(span[1])
        annotator = int(fields[5].strip())
    except ValueError:
        raise DataError(
            f"malformed A line: non-integer span or annotator id in {body!r}", path, line_no
        ) from None
    etype = fields[1].strip()
    if start == -1 or end == -1:
        if not (start == -1 and end == -1):
            raise DataError(f"malformed A line: span {start} {end}", path, line_no)
    elif not (0 <= start <= end <= num_tokens):
        raise DataError(
            f"edit span {start} {end} outside the source sentence of {num_tokens} tokens",
            path, line_no,
        )
    corrections = tuple(
        "" if c.strip() == "-NONE-" else normalise(c) for c in fields[2].split("||")
    )
    return GoldEdit(start, end, etype, corrections, annotator, line_no)


def parse_m2(text: str, path: str | Path = "<string>", raw: str | None = None) -> tuple[M2Sentence, ...]:
    """Parse M2 text.  See :func:`read_m2`.

    Args:
        text: the M2 text (after :func:`gec_meta.data.io.clean_unicode` in :func:`read_m2`).
        path: the file (for errors).
        raw: the text before cleaning, line for line (None: ``text`` is the raw text).  Where
            an ``S`` line lost tokens to the cleaning, the offsets of its block's ``A`` lines
            are moved to the remaining tokens, and an edit that only deleted or inserted format
            characters becomes a noop (:func:`_parse_m2`); :func:`read_m2` warns about it.
    """
    return _parse_m2(text, path, raw)[0]


#: What cleaning did to a file's edits, for :func:`read_m2`'s warning: (line of the first ``S``
#: line that lost tokens or 0, number of such ``S`` lines, line of the first dropped edit or 0,
#: number of dropped edits); None when nothing.
UnicodeReport = tuple[int, int, int, int] | None


def _removed_tokens(raw_line: str, line: str, path: Path, line_no: int) -> list[int]:
    """Indices (0-based, in the raw ``S`` sentence) of the raw tokens that cleaning removed.

    ``line`` is ``clean_line(raw_line)``.  Cleaning removes format characters and applies NFC,
    neither of which adds, removes or moves whitespace, so the cleaned tokens are the raw tokens
    cleaned one by one, without the empty ones (checked).  Raw tokens before the ``S`` tag (format
    characters at the line start) are not sentence tokens.
    """
    raw_tokens = raw_line.split()
    cleaned = [clean_line(t) for t in raw_tokens]
    if [t for t in cleaned if t] != line.split():  # cannot happen: whitespace is never touched
        raise DataError("Unicode cleaning changed the S line's tokens other than by removing whole "
                        "tokens; give --unicode raw", path, line_no)
    tag = next(k for k, t in enumerate(cleaned) if t)  # the 'S' (line.split()[0])
    return [k - tag - 1 for k in range(tag + 1, len(cleaned)) if not cleaned[k]]


def _raw_edit_is_vacuous(edit: GoldEdit, raw_line: str, line: str) -> bool:
    """Whether the raw ``A`` line (before cleaning) already had an empty span and only empty
    corrections (a file's own vacuous edit, kept as before; cleaning did not make it so)."""
    if edit.start != edit.end:
        return False
    if raw_line == line:
        return True
    fields = raw_line.split("|||")
    return len(fields) == 6 and all(c.strip() in ("", "-NONE-") for c in fields[2].split("||"))


def _parse_m2(text: str, path: str | Path, raw: str | None) -> tuple[tuple[M2Sentence, ...], UnicodeReport]:
    """:func:`parse_m2` and what cleaning did to the edits (:data:`UnicodeReport`).

    An ``A`` line's span is checked against the raw ``S`` tokens, then moved: offset i becomes
    i minus the number of removed tokens before i, so a span of removed tokens only becomes an
    empty span at their place.  An edit whose moved span is empty and whose corrections are all
    empty after cleaning (and were not so in the raw line) changed nothing but invisible
    characters: it becomes a noop of its annotator (present in the sentence, no edit).
    """
    path = Path(path)
    lines = text.split("\n")
    raw_lines = None if raw is None or raw is text else raw.split("\n")
    if raw_lines is not None and len(raw_lines) != len(lines):  # clean_unicode keeps the lines
        raise DataError(f"Unicode cleaning changed the number of lines ({len(raw_lines)} -> {len(lines)})", path)
    sentences: list[M2Sentence] = []
    source: str | None = None
    source_line = 0
    edits: list[GoldEdit] = []
    num_tokens = 0
    removed: list[int] = []  # raw token indices of the current S line that cleaning removed
    first_s = n_s = first_drop = n_drop = 0

    def flush() -> None:
        nonlocal source, edits
        if source is not None:
            sentences.append(M2Sentence(source, tuple(edits), source_line))
        source, edits = None, []

    for line_no, raw_full in enumerate(lines, start=1):
        line = raw_full.rstrip("\r")
        if not line.strip():
            flush()
            continue
        raw_line = line if raw_lines is None else raw_lines[line_no - 1].rstrip("\r")
        tag, _, body = line.partition(" ")
        if tag == "S":
            if source is not None:
                raise DataError(
                    "S line follows another block without a blank separator line", path, line_no
                )
            source, source_line = normalise(body), line_no
            num_tokens = len(source.split())
            removed = []
            if raw_line != line:
                removed = _removed_tokens(raw_line, line, path, line_no)
                num_tokens += len(removed)  # A lines count on the raw tokens
                if removed:
                    first_s, n_s = first_s or line_no, n_s + 1
        elif tag == "A":
            if source is None:
                raise DataError("A line outside a block (no preceding S line)", path, line_no)
            edit = _parse_a_line(body, path, line_no, num_tokens)
            if (removed or raw_line != line) and not edit.is_noop:
                start = edit.start - bisect_left(removed, edit.start)
                end = edit.end - bisect_left(removed, edit.end)
                if start == end and not any(edit.corrections) and not _raw_edit_is_vacuous(edit, raw_line, line):
                    edit = GoldEdit(-1, -1, "noop", edit.corrections, edit.annotator, line_no)
                    first_drop, n_drop = first_drop or line_no, n_drop + 1
                elif (start, end) != (edit.start, edit.end):
                    edit = GoldEdit(start, end, edit.type, edit.corrections, edit.annotator, line_no)
            edits.append(edit)
        else:
            raise DataError(f"line starts with neither 'S ' nor 'A ': {line[:40]!r}", path, line_no)
    flush()
    report = (first_s, n_s, first_drop, n_drop) if n_s or n_drop else None
    return tuple(sentences), report


def read_m2(
    path: str | Path, expected: int | None = None, unicode: str = DEFAULT_UNICODE
) -> tuple[M2Sentence, ...]:
    """Read an M2 file.

    Args:
        path: the file.
        expected: if given, the number of sentences the file must have.
        unicode: ``nfc+cf`` (default) or ``raw`` (:func:`gec_meta.data.io.clean_unicode`).

    Returns:
        one :class:`M2Sentence` per block, shape (num_sentences,), its edits on the cleaned
        tokens (where cleaning removed whole ``S`` tokens, the offsets are moved and edits of
        format characters only become noops: :func:`_parse_m2`; warned once per file), repeated
        edits of an annotator dropped (:func:`drop_duplicate_edits`).
    """
    path = Path(path)
    raw, text = read_text(path)
    cleaned = clean_unicode(text, path, check_unicode_mode(unicode))
    from gec_meta.cache import Codec, cached_parse, source_tag

    # The parse cache holds data only: the blocks (and what cleaning did to the edits, for the
    # warning below) as JSON values, rebuilt by _from_data.  The key hashes the code this reader
    # can run (source_tag: this module's closure, io.py's cleaning included) and the raw bytes;
    # the cleaning mode is in the tag.
    sentences, report = cached_parse(source_tag(__name__, "m2", unicode), raw,
                                     lambda: _parse_m2(cleaned, path, text),
                                     Codec("m2-blocks", _to_data, _from_data))
    if report is not None:
        _warn_moved_edits(path, report)
    if expected is not None and len(sentences) != expected:
        raise DataError(f"has {len(sentences)} sentences, expected {expected}", path)
    return drop_duplicate_edits(sentences, path)


_MOVED_REPORTED: set[str] = set()  # files warned about (once per process)


def _warn_moved_edits(path: Path, report: tuple[int, int, int, int]) -> None:
    """Warn once per file (:class:`~gec_meta.errors.InputWarning`) that cleaning removed whole
    ``S`` tokens (edit offsets moved) or made edits vacuous (dropped), naming the first line."""
    if str(path) in _MOVED_REPORTED:
        return
    _MOVED_REPORTED.add(str(path))
    first_s, n_s, first_drop, n_drop = report
    parts = []
    if n_s:
        parts.append(f"{n_s} S line(s) have tokens made only of format characters, removed by Unicode "
                     "normalisation; the A lines of those blocks are moved to the remaining tokens")
    if n_drop:
        parts.append(f"{n_drop} edit(s) that only deleted or inserted format characters (first: line "
                     f"{first_drop}) are dropped, their annotators still present in the sentence (as a noop)")
    warnings.warn(f"{path}:{first_s or first_drop}: {'; '.join(parts)} (--unicode raw: keep the raw text)",
                  InputWarning, stacklevel=3)


_DUPLICATES_REPORTED: set[str] = set()  # files warned about (once per process)


def drop_duplicate_edits(sentences: Sequence[M2Sentence], path: str | Path) -> tuple[M2Sentence, ...]:
    """The sentences with every repeated edit of an annotator dropped (the first one kept).

    Two ``A`` lines of one annotator in one sentence are the same edit when their span and
    corrections are equal (the type and comment do not matter here); noops are kept as they
    are.  Counting a repeat once is this project's rule (CHANGELOG.md, 2026-11-26): m2scorer and
    errant_compare count it twice, so on a file with repeats their scores differ from ours.
    Warns once per file (:class:`~gec_meta.errors.InputWarning`) naming the first repeated line
    and how many there are.

    Args:
        sentences: shape (N,).
        path: the file they were read from (for the warning).

    Returns:
        shape (N,); the same objects where nothing repeats.
    """
    out = list(sentences)
    dropped: list[tuple[GoldEdit, GoldEdit]] = []  # (repeat, first occurrence)
    for i, sent in enumerate(sentences):
        edits = sent.edits
        if len(edits) < 2 or len({(e.annotator, e.start, e.end) for e in edits}) == len(edits):
            continue  # no two edits of an annotator share a span (almost every sentence)
        seen: dict[tuple, GoldEdit] = {}
        keep = []
        for e in sent.edits:
            key = (e.annotator, e.start, e.end, e.corrections)
            if e.is_noop or key not in seen:
                seen.setdefault(key, e)
                keep.append(e)
            else:
                dropped.append((e, seen[key]))
        if len(keep) < len(sent.edits):
            out[i] = M2Sentence(sent.source, tuple(keep), sent.line)
    if dropped and str(path) not in _DUPLICATES_REPORTED:
        _DUPLICATES_REPORTED.add(str(path))
        e, first = dropped[0]
        warnings.warn(
            f"{path}:{e.line}: repeats the edit of line {first.line} (annotator {e.annotator}, span "
            f"{e.start} {e.end}); {len(dropped)} repeated edit(s) in this file are counted once "
            "(m2scorer and errant_compare count a repeat twice; CHANGELOG.md)",
            InputWarning, stacklevel=3,
        )
    return tuple(out)


def _to_data(parsed: tuple[Sequence[M2Sentence], UnicodeReport]) -> dict:
    """Parsed blocks as JSON values: ``blocks``: ``[source, line, [[start, end, type, corrections,
    annotator, line], ...]]`` per block (every field of :class:`M2Sentence` / :class:`GoldEdit`,
    in order; ``tests/test_cache.py`` checks the list against the dataclasses); ``unicode``: the
    :data:`UnicodeReport` as a list, or None."""
    sentences, report = parsed
    return {"blocks": [[s.source, s.line, [[e.start, e.end, e.type, e.corrections, e.annotator, e.line]
                                           for e in s.edits]] for s in sentences],
            "unicode": None if report is None else list(report)}


def _from_data(data: dict) -> tuple[tuple[M2Sentence, ...], UnicodeReport]:
    sentences = tuple(
        M2Sentence(source, tuple(GoldEdit(start, end, kind, tuple(corrections), annotator, a_line)
                                 for start, end, kind, corrections, annotator, a_line in edits), line)
        for source, line, edits in data["blocks"]
    )
    report = data["unicode"]
    return sentences, None if report is None else tuple(int(x) for x in report)


def check_sources(
    sentences: Sequence[M2Sentence], sources: Sequence[str], path: str | Path,
    lines: Sequence[int] | None = None,
) -> None:
    """Check that an M2 file's ``S`` lines are the sources being scored.

    Args:
        sentences: the M2 file's blocks, shape (num_blocks,).
        sources: the sources, shape (N,) (whitespace-normalised before comparing, so a
            dataset read with ``whitespace=rstrip`` compares like the M2's ``S`` lines).
        path: the M2 file (for the error).
        lines: shape (N,): the block of each source (SEEDA's subset lines of CoNLL-2014);
            default block i for source i, and then the counts must agree.

    Raises:
        DataError: naming the M2 file and the line of the first ``S`` line that differs
            (other sentences, another order, a detokenised source, ...).
    """
    if lines is None:
        if len(sentences) != len(sources):
            raise DataError(f"has {len(sentences)} sentences, the source has {len(sources)}", path)
        lines = range(len(sources))
    for i, block in enumerate(lines):
        if not 0 <= block < len(sentences):
            raise DataError(f"has {len(sentences)} sentences; sentence {block + 1} is needed", path)
        sent = sentences[block]
        if sent.source != sources[i] and sent.source != normalise(sources[i]):
            raise DataError(
                f"S line of sentence {block + 1} is not the source sentence {i + 1} "
                f"({sent.source[:50]!r} vs {sources[i][:50]!r})",
                path, sent.line,
            )


def apply_edits(source: str, edits: Iterable[GoldEdit]) -> str:
    """Apply one annotator's edits (first alternative of each) to a tokenised source.

    Edits are applied in file order with a running offset, the procedure of the usual
    M2-to-text converters.  On BN.m2 as :func:`parse_m2` gives it (every ``A`` line) it reproduces
    BN-10GEC's plain-text references exactly (1,312/1,312 lines for all ten annotators),
    including its few overlapping edits; on :func:`read_m2`'s blocks, whose repeated edits are
    dropped (:func:`drop_duplicate_edits`), BN1 line 333 and BN4 line 904 differ: BN.m2 repeats
    a deletion there (lines 11691/11692 and 29255/29256), which the BN files apply twice (with
    the running offset the second one deletes the token before, "hence" / "spread") and the
    deduplicated blocks once.  Noops are ignored.
    """
    from gec_meta.edits.edit import apply_edits as apply

    return apply(source, [(e.start, e.end, e.corrections[0]) for e in edits if not e.is_noop], order="given")


class EditedSentence(str):
    """A corrected sentence (the text, so any metric can read it) that carries the edits it
    was made with, read from a hypothesis M2 file.

    Attributes:
        edits: shape (E,), the sentence's :class:`GoldEdit` s in file order (noops excluded).
        line: the line of its ``S`` line in the M2 file (0: unknown), for messages.
    """

    edits: tuple[GoldEdit, ...]
    line: int

    def __new__(cls, text: str, edits: Sequence[GoldEdit], line: int = 0) -> "EditedSentence":
        obj = super().__new__(cls, text)
        obj.edits = tuple(edits)
        obj.line = line
        return obj

    def __reduce__(self):  # pickles (worker processes) keep the edits
        return (EditedSentence, (str(self), self.edits, self.line))


def read_hypothesis_m2(
    path: str | Path, sources: Sequence[str], unicode: str = DEFAULT_UNICODE
) -> tuple[EditedSentence, ...]:
    """A system's output as an M2 file of its edits (one annotator), checked against ``sources``.

    Args:
        path: the M2 file; block i must be source i (:func:`check_sources`).
        sources: shape (N,).
        unicode: as :func:`read_m2`.

    Returns:
        shape (N,): each block's edits applied to its source (:func:`apply_edits`), carrying
        the edits (a repeated edit counts once: :func:`drop_duplicate_edits`).

    Raises:
        DataError: naming the file and line: another number of blocks, an ``S`` line that is
            not the source, ``A`` lines of more than one annotator (a system output has one;
            a reference M2 goes to ``--ref``), or an edit that starts before the previous one
            ends (edits are applied in file order).
    """
    path = Path(path)
    sentences = read_m2(path, unicode=unicode)
    check_sources(sentences, sources, path)
    annotator: int | None = None
    out = []
    for sent in sentences:
        for e in sent.edits:
            if annotator is None:
                annotator = e.annotator
            elif e.annotator != annotator:
                raise DataError(
                    f"A line of annotator {e.annotator} after annotator {annotator}'s: a hypothesis "
                    "M2 file has one annotator (the system); give reference M2 files with --ref",
                    path, e.line,
                )
        edits = sent.edits_of(annotator if annotator is not None else 0)
        for prev, e in zip(edits, edits[1:]):
            if e.start < prev.end:
                raise DataError(
                    f"edit {e.start} {e.end} starts before the previous edit {prev.start} {prev.end} "
                    "ends (hypothesis edits must be in order and must not overlap)",
                    path, e.line,
                )
        out.append(EditedSentence(apply_edits(sent.source, edits), edits, sent.line))
    return tuple(out)


MissingAnnotator = Literal["source", "annotator0", "skip"]
MISSING_ANNOTATOR_RULES = ("source", "annotator0", "skip")


def annotator_slots(
    sentences: Sequence[M2Sentence],
    annotators: Sequence[int],
    missing_annotator: MissingAnnotator = "source",
) -> tuple[tuple[int | None, ...], ...]:
    """Whose annotation stands in for each annotator in each sentence.

    An annotator is *present* in a sentence when it has an ``A`` line there (a noop counts).

    Args:
        sentences: shape (N,).
        annotators: annotator ids, shape (R,), e.g. ``(0, 1)`` for CoNLL-2014.
        missing_annotator: what fills the slot of an annotator absent from a sentence:

            * ``source`` -- nothing (None: the unchanged source, no edits), as gec-metrics and
              the papers built on it read the CoNLL-2014 M2;
            * ``annotator0`` -- the first listed annotator's annotation if that one is present,
              else nothing (in the combined CoNLL-2014 M2 an annotator whose annotation equals
              annotator 0's is not listed; m2scorer then sees annotator 0 only);
            * ``skip`` -- the first *present* listed annotator's annotation (nothing when no
              listed annotator is present).  The sentence is then compared with the present
              annotators only, m2scorer's and errant_compare's rule: the stand-in is a copy of
              a present annotator, so it has that annotator's statistics and can never win a
              best-reference choice (max over references, ties to the first) that the present
              annotators would not.

    Returns:
        shape (R, N): an annotator id or None.  Slot (r, n) holds ``annotators[r]`` exactly
        when that annotator is present in sentence n.
    """
    if missing_annotator not in MISSING_ANNOTATOR_RULES:
        raise ValueError(f"missing_annotator must be one of {MISSING_ANNOTATOR_RULES}, got {missing_annotator!r}")
    slots: list[list[int | None]] = [[] for _ in annotators]
    for sent in sentences:
        present = set(sent.annotators)
        first_present = next((a for a in annotators if a in present), None)
        for k, ann in enumerate(annotators):
            if ann in present:
                slots[k].append(ann)
            elif missing_annotator == "annotator0" and annotators[0] in present:
                slots[k].append(annotators[0])
            elif missing_annotator == "skip":
                slots[k].append(first_present)
            else:
                slots[k].append(None)
    return tuple(tuple(col) for col in slots)


def annotator_references(
    sentences: Sequence[M2Sentence],
    annotators: Sequence[int],
    missing_annotator: MissingAnnotator = "source",
) -> tuple[tuple[str, ...], ...]:
    """Plain-text references, one per annotator, by applying each annotator's edits.

    Args:
        sentences: shape (num_sentences,).
        annotators: annotator ids, e.g. ``(0, 1)`` for CoNLL-2014.
        missing_annotator: ``source``, ``annotator0`` or ``skip`` (:func:`annotator_slots`).

    Returns:
        shape (num_annotators, num_sentences).
    """
    slots = annotator_slots(sentences, annotators, missing_annotator)
    return tuple(
        tuple(sent.source if a is None else apply_edits(sent.source, sent.edits_of(a))
              for sent, a in zip(sentences, col))
        for col in slots
    )


def annotator_gold(
    sentences: Sequence[M2Sentence],
    annotators: Sequence[int],
    missing_annotator: MissingAnnotator = "source",
) -> tuple[tuple[tuple[GoldEdit, ...], ...], ...]:
    """Gold edits (noops excluded), one set per annotator, shape (R, N): the edits of the
    annotator in each slot of :func:`annotator_slots` (none for an empty slot)."""
    slots = annotator_slots(sentences, annotators, missing_annotator)
    return tuple(
        tuple(() if a is None else sent.edits_of(a) for sent, a in zip(sentences, col)) for col in slots
    )
