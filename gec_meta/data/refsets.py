"""Reference sets.

A reference set provides, for the sentences of a dataset, R references both as plain text
(for metrics that extract edits themselves: ERRANT, GLEU, ...) and, where an M2 file exists, as
gold edits (for M2 and PT-M2).  CoNLL-2014-based sets map onto a dataset's sentences through
``Dataset.corpus_lines`` (SEEDA's 391 subset lines).

Sets (``conf/refset/``):

* ``official``  — the two CoNLL-2014 annotators, built by applying each annotator's edits of the
  official M2 (not ``conll14/refs/*.trg*``, which differ on 11+ lines).  ``missing_annotator``
  decides the 88 sentences without an annotator-1 line: ``source`` (unchanged source, as
  gec-metrics and the "Rethinking"/UOT-ERRANT papers built on it) or ``annotator0`` (M2
  semantics: m2scorer only sees annotator 0 there; PT-M2; on this file ``skip`` is the same,
  since annotator 0 has a line in every sentence that has any).  It moves TrueSkill
  correlations by about 0.02.  Unset (None), it is the dataset's published protocol,
  :data:`DEFAULT_MISSING_ANNOTATOR`.  For GMEG, ``official`` is its ref1-ref3; for BEA-2019 dev
  (``bea19_dev_attack``), the one annotator of the Pillars-of-GEC ``bea-dev.m2``.
* ``bn10``      — Bryant & Ng (2015) 10 references (``bn10gec/BN.m2``; ids 0-9 = BN1, BN10, BN2..BN9).
* ``e_minimal``, ``e_fluency`` — Sakaguchi et al. (2016) expert sets, annotator B only (A's
  corrections are SEEDA systems REF-M and REF-F); ``ne_minimal``, ``ne_fluency`` — crowd sets
  A and B.  Plain text from ``sakaguchi16/annotations`` (no gold edits: see ``load_refset``).

Users' own references (``gec-meta score --ref``, :func:`read_references`): plain-text files, one
per annotator, or one M2 file whose annotators may skip sentences: ``missing_annotator=skip``
(m2scorer's and errant_compare's rule, :func:`gec_meta.data.m2.annotator_slots`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from gec_meta.errors import ConfigError, DataError
from gec_meta.data.datasets import BEA19_DEV_SIZE, CONLL14_SIZE, PILLARS_M2, Dataset, default_root
from gec_meta.data.io import DEFAULT_UNICODE, check_unicode_mode, read_lines
from gec_meta.data.m2 import (MISSING_ANNOTATOR_RULES, GoldEdit, M2Sentence, annotator_gold, annotator_references,
                              annotator_slots, read_m2)
from gec_meta.data import m2 as m2_format


#: The published protocol of each CoNLL-2014-based dataset for the 88 official-M2 sentences
#: without an annotator-1 line (``refset.missing_annotator`` unset):
#:
#: * ``gjg15``: ``annotator0`` -- the official CoNLL-2014 scores are m2scorer's (Ng et al. 2014,
#:   Table 4, e.g. SJTU F0.5 = 15.19; the M2 scores of Grundkiewicz et al. 2015 and of
#:   nusnlp/gecmetrics ``m2score.txt``), and PT-M2 (Gong et al. 2022, Table 4) scores GJG15 so.
#: * ``seeda``: ``source`` -- gec-metrics' references, on which the SEEDA meta-evaluations of
#:   Goto et al. (2025, "Rethinking" and UOT-ERRANT) were computed.
DEFAULT_MISSING_ANNOTATOR = {"gjg15": "annotator0", "seeda": "source"}
MISSING_ANNOTATOR_CHOICES = MISSING_ANNOTATOR_RULES  # source, annotator0, skip


def missing_annotator_choice(dataset: str, requested: str | None) -> tuple[str, str]:
    """The ``missing_annotator`` a run uses and why.

    Args:
        dataset: the dataset name (``gjg15``, ``seeda``, ...).
        requested: ``refset.missing_annotator``: ``source``, ``annotator0``, ``skip`` or None
            (the dataset's default, :data:`DEFAULT_MISSING_ANNOTATOR`; ``source`` for other
            datasets).

    Returns:
        (value, reason), e.g. ``("annotator0", "gjg15 default")`` or
        ``("source", "refset.missing_annotator override; gjg15 default: annotator0")``.
    """
    default = DEFAULT_MISSING_ANNOTATOR.get(dataset, "source")
    if requested is None:
        return default, f"{dataset} default"
    if requested not in MISSING_ANNOTATOR_CHOICES:
        raise ConfigError(
            f"refset.missing_annotator must be one of {', '.join(MISSING_ANNOTATOR_CHOICES)} (or null: "
            f"the dataset's default), got {requested!r}"
        )
    return requested, f"refset.missing_annotator override; {dataset} default: {default}"


@dataclass(frozen=True)
class References:
    """R references of the N sentences of a dataset.

    Attributes:
        name: the reference set.
        names: shape (R,), one name per reference (annotator).
        texts: shape (R, N).
        gold: shape (R, N) of gold-edit tuples (noops excluded), or None when the set has no M2.
        options: options that shaped the set (enter the signature).
        sources: shape (N,), the dataset's sources, for sets without an M2 file: M2-based
            metrics then get gold edits extracted from the texts by ERRANT (see
            :meth:`for_metric`).
        provenance: why the options are what they are (``missing_annotator=annotator0 (gjg15
            default)``), for the run's log; not part of the signature (it changes no number).
        present: shape (R, N) under ``missing_annotator=skip``: False where an M2 annotator has
            no line in a sentence; its slot then holds a stand-in, a copy of the first present
            annotator's annotation (:func:`gec_meta.data.m2.annotator_slots`).  A best-reference
            choice needs nothing more; metrics that combine the references of a sentence (CLEME's
            chunks, counts and length bias) leave the stand-ins out through
            :attr:`ReferenceRows.present`.  None: every slot is a reference (other rules, text
            files, or no annotator skips a sentence).
        files: shape (R,), the file each reference was read from ("" or empty: unknown), and
        lines: shape (N,), the line of each sentence in them (an M2 file's ``S`` lines; empty:
            line n + 1), both for messages only.
        language: ISO 639-1 code of the texts: gold edits extracted from them come from its
            extractor (:func:`gec_meta.edits.languages.edit_extractor`).
    """

    name: str
    names: tuple[str, ...]
    texts: tuple[tuple[str, ...], ...]
    gold: tuple[tuple[tuple[GoldEdit, ...], ...], ...] | None = None
    options: Mapping[str, object] = field(default_factory=dict)
    sources: tuple[str, ...] | None = field(default=None, repr=False)
    provenance: str = field(default="", compare=False)
    present: tuple[tuple[bool, ...], ...] | None = field(default=None, repr=False)
    files: tuple[str, ...] = field(default=(), repr=False, compare=False)
    lines: tuple[int, ...] = field(default=(), repr=False, compare=False)
    language: str = field(default="en", repr=False)

    def where(self, r: int, n: int) -> str:
        """Where reference r's sentence n came from: ``file:line`` (plus the annotator when
        several references share the file) when known, else ``refs <set> <reference>, line L``."""
        line = self.lines[n] if self.lines else n + 1
        if r < len(self.files) and self.files[r]:
            shared = self.files.count(self.files[r]) > 1
            return f"{self.files[r]}:{line}" + (f" ({self.names[r]})" if shared else "")
        return f"refs {self.name} {self.names[r]}, line {line}"

    def signature(self) -> str:
        from gec_meta.meta.components import component

        return component(self.name, {**self.options, "nrefs": len(self.names)})

    def for_metric(self, kind: str):
        """The references in the form a metric reads: ``text`` or ``m2`` (gold edits), shape
        (R, N) (a :class:`ReferenceRows` carrying :attr:`present` when some slot is a stand-in),
        or ``any``: the texts with every form at hand (:class:`ReferenceForms`, for a metric whose
        parts read different forms: ``metric=ensemble``)."""
        if kind == "any":
            return ReferenceForms(self)
        if kind == "text":
            rows = self.texts
        elif kind == "m2":
            if self.gold is not None:
                rows = self.gold
            elif self.sources is None:
                raise ConfigError(f"refset={self.name} has no M2 gold edits; this metric needs them")
            else:
                rows = self._extracted_gold
        else:
            raise ValueError(f"unknown reference kind {kind!r}")
        return rows if self.present is None else ReferenceRows(rows, self.present)

    @functools.cached_property
    def _extracted_gold(self):
        """ERRANT gold edits of the texts (sets without an M2), computed on first use."""
        return extracted_gold_edits(self.sources, self.texts, self.language)


class ReferenceRows(tuple):
    """References in the form a metric reads, shape (R, N), that know which slots are stand-ins
    for annotators absent from a sentence (:attr:`References.present`).

    Attributes:
        present: shape (R, N), False at a stand-in.
    """

    present: tuple[tuple[bool, ...], ...]

    def __new__(cls, rows, present) -> "ReferenceRows":
        obj = super().__new__(cls, rows)
        obj.present = tuple(tuple(bool(x) for x in col) for col in present)
        return obj

    def __reduce__(self):  # pickles (worker processes) keep the mask
        return (ReferenceRows, (tuple(self), self.present))

    def sentences(self, idx: Sequence[int]) -> "ReferenceRows":
        """The same references of the sentences ``idx`` only, shape (R, len(idx))."""
        return ReferenceRows([[row[i] for i in idx] for row in self], [[col[i] for i in idx] for col in self.present])


class ReferenceForms(tuple):
    """The reference texts, shape (R, N) (a tuple, so it counts and hashes like ``text``
    references), that also give every other form: ``form("m2")``."""

    def __new__(cls, references: "References"):
        obj = super().__new__(cls, references.texts)
        obj._references = references
        return obj

    def form(self, kind: str):
        """:meth:`References.for_metric` of ``kind``."""
        return self._references.for_metric(kind)


def extracted_gold_edits(
    sources: Sequence[str], texts: Sequence[Sequence[str]], language: str = "en"
) -> tuple[tuple[tuple[GoldEdit, ...], ...], ...]:
    """Gold edits of plain-text references, extracted by ERRANT (batched and disk-cached).

    For reference sets that have no usable M2 (Sakaguchi et al. 2016: the M2 versions of
    Napoles et al. 2016 have spans past the ends of their sentences), M2-based metrics score
    against ERRANT's edits from source to reference, one alternative each (noop/UNK dropped).

    Args:
        sources: shape (N,).
        texts: shape (R, N).
        language: the texts' language; Chinese gets ChERRANT's edits (every cheapest
            alignment's, each edit once: what m2scorer reads from ChERRANT's M2 file).

    Returns:
        shape (R, N) of gold-edit tuples.
    """
    from gec_meta.edits.edit_sets import errant_edit_sets

    edit_sets = errant_edit_sets(sources, texts, unique=True, language=language)  # noop/UNK dropped, each edit once
    return tuple(
        tuple(tuple(GoldEdit(e.start, e.end, e.type, (e.correction,), r) for e in sent) for sent in col)
        for r, col in enumerate(edit_sets)
    )


def _stand_ins(texts: Sequence[Sequence[str]]):
    """References with a varying number per sentence (RevisitCGEC's 1-11), shape (R, N), where
    "" marks an absent one: the absent slots filled with a copy of the sentence's first
    reference (a stand-in, as for M2 annotators absent from a sentence) and the mask
    :attr:`References.present`, or the texts and None when every slot holds a reference."""
    texts = tuple(tuple(col) for col in texts)
    if all(t for col in texts for t in col):
        return texts, None
    present = tuple(tuple(bool(t) for t in col) for col in texts)
    first = [next((col[n] for col in texts if col[n]), "") for n in range(len(texts[0]))]
    return tuple(tuple(t if t else first[n] for n, t in enumerate(col)) for col in texts), present


def _presence(sentences: Sequence[M2Sentence], annotators: Sequence[int]) -> tuple[tuple[bool, ...], ...] | None:
    """Shape (R, N): whether each annotator has a line in each sentence; None if all have."""
    slots = annotator_slots(sentences, annotators, "source")
    present = tuple(tuple(a == ann for a in col) for ann, col in zip(annotators, slots))
    return None if all(all(col) for col in present) else present


def _select(columns, lines):
    return tuple(tuple(col[i] for i in lines) for col in columns)


def _from_m2(
    name: str, dataset: Dataset, path: Path, annotators: Sequence[int], names: Sequence[str],
    missing_annotator: str, texts: Sequence[Sequence[str]] | None = None, options=None, provenance: str = "",
    files: Sequence[Path] = (), size: int = CONLL14_SIZE,
) -> References:
    sentences = read_m2(path, expected=size, unicode=_unicode_of(dataset))
    m2_format.check_sources(sentences, dataset.sources, path, dataset.corpus_lines)
    lines = dataset.corpus_lines
    if texts is None:
        texts = annotator_references(sentences, annotators, missing_annotator)
        files, file_lines = [str(path)] * len(annotators), tuple(sentences[i].line for i in lines)
    else:
        file_lines = tuple(i + 1 for i in lines)
    gold = annotator_gold(sentences, annotators, missing_annotator)
    present = _presence([sentences[i] for i in lines], annotators) if missing_annotator == "skip" else None
    return References(name, tuple(names), _select(texts, lines), _select(gold, lines), dict(options or {}),
                      provenance=provenance, present=present, files=tuple(str(f) for f in files),
                      lines=file_lines)


def _unicode_of(dataset: Dataset) -> str:
    """The Unicode normalisation the dataset was read with (its references are read alike)."""
    return str(dataset.options.get("unicode", DEFAULT_UNICODE))


SAKAGUCHI = {
    # name: (folder, file stem, M2 file, annotators used)
    "e_minimal": ("expert_annotations/expert_minimal", "expert_minimal", "EXPMIN.m2", ("B",)),
    "e_fluency": ("expert_annotations/expert_fluency", "expert_fluency", "EXPFLUENCY.m2", ("B",)),
    "ne_minimal": ("turker_annotations/turkers_minimal", "turker_minimal", "TURKMIN.m2", ("A", "B")),
    "ne_fluency": ("turker_annotations/turkers_fluency", "turker_fluency", "TURKFLUENCY.m2", ("A", "B")),
}
BN10_FILES = ("BN1", "BN10", "BN2", "BN3", "BN4", "BN5", "BN6", "BN7", "BN8", "BN9")  # ids 0..9


def load_refset(
    name: str, dataset: Dataset, root: str | Path | None = None, missing_annotator: str | None = None
) -> References:
    """Build reference set ``name`` for ``dataset``.

    Args:
        name: ``official``, ``bn10``, ``e_minimal``, ``e_fluency``, ``ne_minimal``, ``ne_fluency``.
        dataset: the dataset whose sentences the references align with.
        root: the data directory (None: :func:`gec_meta.data.datasets.default_root`).
        missing_annotator: ``source``, ``annotator0`` or None = the dataset's published protocol
            (:data:`DEFAULT_MISSING_ANNOTATOR`: GJG15 ``annotator0``, SEEDA ``source``);
            ``official`` on CoNLL-2014 datasets only (see module doc).
    """
    if dataset.options.get("texts") == "none":  # multigec2025: no text, no references
        from gec_meta.data.multigec import TEXTS_NOT_PUBLIC

        raise ConfigError(f"refset={name}: {TEXTS_NOT_PUBLIC}")
    root = Path(root) if root is not None else default_root()
    missing_annotator, why = missing_annotator_choice(dataset.name, missing_annotator)
    unicode = _unicode_of(dataset)
    if dataset.corpus == "bea19_dev":
        if name != "official":
            raise ConfigError(f"refset={name} applies to CoNLL-2014 datasets, not {dataset.name}")
        return _from_m2("official", dataset, root / PILLARS_M2, (0,), ("annotator0",), "source", size=BEA19_DEV_SIZE)
    if dataset.corpus != "conll14":
        if name != "official":
            raise ConfigError(f"refset={name} applies to CoNLL-2014 datasets, not {dataset.name}")
        if not dataset.references:
            raise ConfigError(f"dataset {dataset.name} ships no references")
        # Text only (GMEG-Wiki's ref1-ref3): M2-based metrics get gold edits extracted by ERRANT,
        # as for the Sakaguchi sets (named in the signature: gold_edits=errant), or by the
        # language's extractor (gold_edits=cherrant-char for Chinese).
        from gec_meta.edits.languages import extractor_name

        texts, present = _stand_ins(dataset.references)
        return References("official", dataset.reference_names, texts, None,
                          {"gold_edits": extractor_name(dataset.language)}, sources=tuple(dataset.sources),
                          files=tuple(dataset.files.get(r, "") for r in dataset.reference_names),
                          present=present, language=dataset.language)
    if name == "official":
        return _from_m2(
            "official", dataset, root / "conll14" / "conll14st-test.m2", (0, 1),
            ("annotator0", "annotator1"), missing_annotator,
            options={"missing_annotator": missing_annotator},
            provenance=f"missing_annotator={missing_annotator} ({why})",
        )
    if name == "bn10":
        folder = root / "bn10gec"
        texts = [read_lines(folder / f, expected=CONLL14_SIZE, unicode=unicode) for f in BN10_FILES]
        return _from_m2("bn10", dataset, folder / "BN.m2", tuple(range(10)), BN10_FILES, "source", texts,
                        files=[folder / f for f in BN10_FILES])
    if name in SAKAGUCHI:
        sub, stem, m2file, used = SAKAGUCHI[name]
        folder = root / "sakaguchi16" / "annotations" / sub
        texts = [read_lines(folder / f"{stem}{a}", expected=CONLL14_SIZE, unicode=unicode) for a in used]
        # Text only: the Napoles et al. (2016) M2 versions in sakaguchi16/m2 have edit spans past
        # the end of their sentences (e.g. EXPMIN.m2 line 2182) and re-apply to the texts on only
        # 83-93% of lines, so M2-based metrics get gold edits extracted from these texts by
        # ERRANT instead (References.for_metric("m2")).
        return References(name, tuple(f"{stem}{a}" for a in used),
                          _select(texts, dataset.corpus_lines), None, {"gold_edits": "errant"},
                          sources=tuple(dataset.sources), files=tuple(str(folder / f"{stem}{a}") for a in used),
                          lines=tuple(i + 1 for i in dataset.corpus_lines))
    raise ConfigError(
        f"unknown refset {name!r}; choose from official, bn10, {', '.join(SAKAGUCHI)}"
    )


# ----------------------------------------------------------------- users' own reference files
#: Reference file formats: ``auto`` decides by the file name (:data:`M2_SUFFIXES`: M2, else text).
REF_FORMATS = ("auto", "m2", "text")
#: Names of M2 files: ``.m2`` and ERRANT's / CLEME's ``.errant`` (any case).
M2_SUFFIXES = (".m2", ".errant")


def _m2_head(path: str | Path) -> tuple[bool, int]:
    """Whether the file starts like an M2 file, and the line of its first non-blank line (1 for
    an empty or unreadable file).

    Starting like M2: after any blank lines (m2scorer's and errant's readers skip them too), an
    ``S`` line, then an ``A start end|||`` line or a blank line and another ``S`` line.  (A
    plain-text corpus whose first sentence starts with ``S`` has no such second line.)"""
    import re

    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            first, line_no = "", 0
            for line_no, raw in enumerate(f, start=1):
                first = raw.lstrip("\ufeff").rstrip("\r\n") if line_no == 1 else raw.rstrip("\r\n")
                if first.strip():
                    break
            head = [first] + [f.readline().rstrip("\r\n") for _ in range(2)]
    except OSError:
        return False, 1
    line_no = max(line_no, 1)
    if not head[0].startswith("S "):
        return False, line_no
    return (bool(re.match(r"A -?\d+ -?\d+\|\|\|", head[1]))
            or (not head[1].strip() and head[2].startswith("S "))), line_no


def reference_format(path: str | Path, ref_format: str = "auto") -> str:
    """``m2`` or ``text``: the format of a reference file.

    Args:
        path: the file.
        ref_format: ``m2`` or ``text`` (as given), or ``auto``: by the file name (M2 when it
            ends in ``.m2`` or ``.errant``, any case; else plain text).

    Raises:
        ConfigError: an unknown ``ref_format``.
        DataError: ``auto`` and a file named as text that starts like an M2 file, or one named
            as M2 that does not (naming the file and the option that says otherwise).
    """
    if ref_format not in REF_FORMATS:
        raise ConfigError(f"--ref-format must be one of {', '.join(REF_FORMATS)}, got {ref_format!r}")
    if ref_format != "auto":
        return ref_format
    named_m2 = Path(path).suffix.lower() in M2_SUFFIXES
    if not Path(path).is_file():
        return "m2" if named_m2 else "text"  # the reader reports the missing file
    looks, line = _m2_head(path)
    if named_m2 and not looks and not _is_blank(path):
        raise DataError("is named like an M2 file but does not start like one (an 'S ' line, then 'A ' lines); "
                        "give --ref-format text to read it as plain text", path, line)
    if not named_m2 and looks:
        raise DataError("starts like an M2 file ('S ' and 'A ' lines) but is not named *.m2 or *.errant; "
                        "give --ref-format m2 to read it as M2, or --ref-format text to read it as plain text",
                        path, line)
    return "m2" if named_m2 else "text"


def _is_blank(path: str | Path) -> bool:
    try:
        with open(path, "rb") as f:
            return not f.read(4096).strip()
    except OSError:
        return False


def read_references(
    paths: Sequence[str | Path], sources: Sequence[str], ref_format: str = "auto",
    unicode: str = DEFAULT_UNICODE,
) -> References:
    """Users' references: plain-text files (one per annotator) or one M2 file, shape (R, N).

    An M2 file gives every annotator that has a line in it one reference (ids in increasing
    order), its gold edits and its texts; its ``S`` lines must be the sources
    (:func:`gec_meta.data.m2.check_sources`).  An annotator without a line in a sentence is left
    out of that sentence (``missing_annotator=skip``, m2scorer's and errant_compare's rule:
    :func:`gec_meta.data.m2.annotator_slots`), and the signature says so.  Plain-text
    references give M2-based metrics gold edits extracted by ERRANT (``gold_edits=errant``).

    Args:
        paths: the files, shape (R,) (text) or (1,) (M2).
        sources: shape (N,).
        ref_format: ``auto`` (by the file names, :func:`reference_format`), ``m2`` or ``text``.
        unicode: ``nfc+cf`` (default) or ``raw`` (:func:`gec_meta.data.io.clean_unicode`).

    Raises:
        ConfigError: several files of which one is M2, or no file.
        DataError: naming the file and line (wrong line count, malformed M2, ...).
    """
    check_unicode_mode(unicode, "--unicode")
    if not paths:
        raise ConfigError("--ref: give one M2 file or plain-text reference files")
    formats = [reference_format(p, ref_format) for p in paths]
    num_sentences = len(sources)
    if formats == ["m2"]:
        path = paths[0]
        sents = read_m2(path, expected=num_sentences, unicode=unicode)
        m2_format.check_sources(sents, sources, path)
        annotators = tuple(sorted({a for s in sents for a in s.annotators})) or (0,)
        names = tuple(f"annotator{a}" for a in annotators)
        return References(
            Path(path).name, names, annotator_references(sents, annotators, "skip"),
            annotator_gold(sents, annotators, "skip"), {"missing_annotator": "skip"},
            present=_presence(sents, annotators), files=(str(path),) * len(annotators),
            lines=tuple(s.line for s in sents),
        )
    if "m2" in formats:
        raise ConfigError("--ref: give either one M2 file or plain-text reference files, not both")
    texts = tuple(read_lines(p, expected=num_sentences, unicode=unicode) for p in paths)
    # Plain-text references: M2-based metrics get their gold edits extracted by ERRANT.
    return References("files", tuple(Path(p).name for p in paths), texts, None,
                      {"gold_edits": "errant"}, sources=tuple(sources), files=tuple(str(p) for p in paths))
