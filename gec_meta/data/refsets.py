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
  semantics: m2scorer only sees annotator 0 there; PT-M2).  It moves TrueSkill correlations by
  about 0.02.  Unset (None), it is the dataset's published protocol,
  :data:`DEFAULT_MISSING_ANNOTATOR`.  For GMEG, ``official`` is its ref1-ref3; for BEA-2019 dev
  (``bea19_dev_attack``), the one annotator of the Pillars-of-GEC ``bea-dev.m2``.
* ``bn10``      — Bryant & Ng (2015) 10 references (``bn10gec/BN.m2``; ids 0-9 = BN1, BN10, BN2..BN9).
* ``e_minimal``, ``e_fluency`` — Sakaguchi et al. (2016) expert sets, annotator B only (A's
  corrections are SEEDA systems REF-M and REF-F); ``ne_minimal``, ``ne_fluency`` — crowd sets
  A and B.  Plain text from ``sakaguchi16/annotations`` (no gold edits: see ``load_refset``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from gec_meta.errors import ConfigError, DataError
from gec_meta.data.datasets import BEA19_DEV_SIZE, CONLL14_SIZE, PILLARS_M2, Dataset, default_root
from gec_meta.data.io import read_lines
from gec_meta.data.m2 import GoldEdit, M2Sentence, annotator_references, read_m2
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
MISSING_ANNOTATOR_CHOICES = ("source", "annotator0")


def missing_annotator_choice(dataset: str, requested: str | None) -> tuple[str, str]:
    """The ``missing_annotator`` a run uses and why.

    Args:
        dataset: the dataset name (``gjg15``, ``seeda``, ...).
        requested: ``refset.missing_annotator``: ``source``, ``annotator0`` or None (the
            dataset's default, :data:`DEFAULT_MISSING_ANNOTATOR`; ``source`` for other datasets).

    Returns:
        (value, reason), e.g. ``("annotator0", "gjg15 default")`` or
        ``("source", "refset.missing_annotator override; gjg15 default: annotator0")``.
    """
    default = DEFAULT_MISSING_ANNOTATOR.get(dataset, "source")
    if requested is None:
        return default, f"{dataset} default"
    if requested not in MISSING_ANNOTATOR_CHOICES:
        raise ConfigError(
            f"refset.missing_annotator must be 'source' or 'annotator0' (or null: the dataset's "
            f"default), got {requested!r}"
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
    """

    name: str
    names: tuple[str, ...]
    texts: tuple[tuple[str, ...], ...]
    gold: tuple[tuple[tuple[GoldEdit, ...], ...], ...] | None = None
    options: Mapping[str, object] = field(default_factory=dict)
    sources: tuple[str, ...] | None = field(default=None, repr=False)
    provenance: str = field(default="", compare=False)

    def signature(self) -> str:
        from gec_meta.meta.signature import component

        return component(self.name, {**self.options, "nrefs": len(self.names)})

    def for_metric(self, kind: str):
        """The references in the form a metric reads: ``text`` or ``m2`` (gold edits)."""
        if kind == "text":
            return self.texts
        if kind == "m2":
            if self.gold is not None:
                return self.gold
            if self.sources is None:
                raise ConfigError(f"refset={self.name} has no M2 gold edits; this metric needs them")
            return self._extracted_gold
        raise ValueError(f"unknown reference kind {kind!r}")

    @functools.cached_property
    def _extracted_gold(self):
        """ERRANT gold edits of the texts (sets without an M2), computed on first use."""
        return extracted_gold_edits(self.sources, self.texts)


def extracted_gold_edits(
    sources: Sequence[str], texts: Sequence[Sequence[str]]
) -> tuple[tuple[tuple[GoldEdit, ...], ...], ...]:
    """Gold edits of plain-text references, extracted by ERRANT (batched and disk-cached).

    For reference sets that have no usable M2 (Sakaguchi et al. 2016: the M2 versions of
    Napoles et al. 2016 have spans past the ends of their sentences), M2-based metrics score
    against ERRANT's edits from source to reference, one alternative each (noop/UNK dropped).

    Args:
        sources: shape (N,).
        texts: shape (R, N).

    Returns:
        shape (R, N) of gold-edit tuples.
    """
    from gec_meta.edits.extract import errant_extractor
    from gec_meta.edits.edit import IGNORED_TYPES

    N = len(sources)
    flat = errant_extractor().extract([(sources[n], ref[n]) for ref in texts for n in range(N)])
    return tuple(
        tuple(
            tuple(GoldEdit(e[0], e[1], e[6], (e[5],), r) for e in flat[r * N + n] if e[6] not in IGNORED_TYPES)
            for n in range(N)
        )
        for r in range(len(texts))
    )


def _gold_edits(
    sentences: Sequence[M2Sentence], annotators: Sequence[int], fallback_first: bool
) -> tuple[tuple[tuple[GoldEdit, ...], ...], ...]:
    out = []
    for ann in annotators:
        col = []
        for sent in sentences:
            if ann in sent.annotators:
                col.append(sent.edits_of(ann))
            elif fallback_first and annotators[0] in sent.annotators:
                col.append(sent.edits_of(annotators[0]))
            else:
                col.append(())
        out.append(tuple(col))
    return tuple(out)


def _select(columns, lines):
    return tuple(tuple(col[i] for i in lines) for col in columns)


def _from_m2(
    name: str, dataset: Dataset, path: Path, annotators: Sequence[int], names: Sequence[str],
    missing_annotator: str, texts: Sequence[Sequence[str]] | None = None, options=None, provenance: str = "",
    size: int = CONLL14_SIZE,
) -> References:
    sentences = read_m2(path, expected=size)
    m2_format.check_sources(sentences, dataset.sources, path, dataset.corpus_lines)
    if texts is None:
        texts = annotator_references(sentences, annotators, missing_annotator)
    gold = _gold_edits(sentences, annotators, fallback_first=missing_annotator == "annotator0")
    lines = dataset.corpus_lines
    return References(name, tuple(names), _select(texts, lines), _select(gold, lines), dict(options or {}),
                      provenance=provenance)


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
    root = Path(root) if root is not None else default_root()
    missing_annotator, why = missing_annotator_choice(dataset.name, missing_annotator)
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
        # as for the Sakaguchi sets (named in the signature: gold_edits=errant).
        return References("official", dataset.reference_names, dataset.references, None,
                          {"gold_edits": "errant"}, sources=tuple(dataset.sources))
    if name == "official":
        return _from_m2(
            "official", dataset, root / "conll14" / "conll14st-test.m2", (0, 1),
            ("annotator0", "annotator1"), missing_annotator,
            options={"missing_annotator": missing_annotator},
            provenance=f"missing_annotator={missing_annotator} ({why})",
        )
    if name == "bn10":
        folder = root / "bn10gec"
        texts = [read_lines(folder / f, expected=CONLL14_SIZE) for f in BN10_FILES]
        return _from_m2("bn10", dataset, folder / "BN.m2", tuple(range(10)), BN10_FILES, "source", texts)
    if name in SAKAGUCHI:
        sub, stem, m2file, used = SAKAGUCHI[name]
        folder = root / "sakaguchi16" / "annotations" / sub
        texts = [read_lines(folder / f"{stem}{a}", expected=CONLL14_SIZE) for a in used]
        # Text only: the Napoles et al. (2016) M2 versions in sakaguchi16/m2 have edit spans past
        # the end of their sentences (e.g. EXPMIN.m2 line 2182) and re-apply to the texts on only
        # 83-93% of lines, so M2-based metrics get gold edits extracted from these texts by
        # ERRANT instead (References.for_metric("m2")).
        return References(name, tuple(f"{stem}{a}" for a in used),
                          _select(texts, dataset.corpus_lines), None, {"gold_edits": "errant"},
                          sources=tuple(dataset.sources))
    raise ConfigError(
        f"unknown refset {name!r}; choose from official, bn10, {', '.join(SAKAGUCHI)}"
    )
