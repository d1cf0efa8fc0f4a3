"""RevisitCGEC (Chinese): human rankings of 6 CGEC systems on 100 MuCGEC dev and 100 YACLC dev
sentences (wang136906578/RevisitCGEC; data README section 10.1).

Files (relative to the data directory):

* ``revisitcgec/judgments.xml``: Appraise rankings (GJG15's format), 1,000 items = 200 sentences x
  5 annotators; ``doc-id`` ``mucgec`` or ``yaclc``; ``src-id`` = MuCGEC id - 1 (``MuCGEC_dev.txt``
  ids start at 1) or the YACLC id (column 1 of ``yaclc-*_dev.para``, from 0).
* ``revisitcgec/system corrections/<system>.<subset>.txt`` (100 lines each) in the order of
  ``revisitcgec/sentence ids/<subset>_ids.txt`` (MuCGEC's 1-based ids; YACLC's 0-based ids).
* sources and references: ``mucgec/data/MuCGEC/MuCGEC_dev.txt`` (id, source, 1-4 references) and
  ``cltc/datasets/track3/dev/yaclc-{minimal,fluency}_dev.para`` (id, source, references).

Sentences: MuCGEC's 100 first, then YACLC's, each in its ids file's order (ChERRANT's corpus-level
reference choice depends on the order).  Texts are held as ChERRANT's space-separated characters
(:func:`gec_meta.edits.cherrant.tokenise`).  References: every one of a sentence, absent slots ""
(the reference set fills them with stand-ins).  MuCGEC's reference ``没有错误`` ("no error": 3 of
the 100 sentences) becomes the source itself: ChERRANT writes the same "no edit" block for both,
and for text metrics (GLEU, GREEN, ...) the source is what the annotator asked for.  ``无法标注``
("cannot be annotated": MuCGEC id 1077, sentence 25) is kept: ChERRANT's scorer skips that sentence;
text metrics compare with the literal.

Human scores (the GJG15 protocol, on the same code as GJG15's sentence rankings): Expected Wins
(:func:`gec_meta.meta.evaluation.human_expected_wins`) and TrueSkill mu of the systems playing every
item's ranking as one game per pair (:func:`gec_meta.meta.aggregation.trueskill_scores` on the
negated ranks, items in file order), since the repository publishes no system scores.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from gec_meta.data.dataset import Dataset, frozen_mapping, require_dir
from gec_meta.data.io import read_lines
from gec_meta.data.judgments import RankingItem, rank_matrix, read_judgments
from gec_meta.edits.cherrant import NO_ERROR, tokenise
from gec_meta.errors import ConfigError, DataError

SYSTEMS = ("bart", "char", "s2e", "spm", "t5", "word")
SUBSETS = ("mucgec", "yaclc")
SUBSET_CHOICES = ("all",) + SUBSETS
YACLC_REFERENCES = ("minimal", "fluency")
SUBSET_SIZE = 100
MUCGEC_DEV = "mucgec/data/MuCGEC/MuCGEC_dev.txt"
YACLC_DEV = "cltc/datasets/track3/dev/yaclc-{}_dev.para"


def _rows(path: Path) -> dict[int, list[str]]:
    """id -> [source, reference, ...] of a tab-separated file (id, source, references).

    Raises:
        DataError: naming the file and line: fewer than three fields, a non-integer id, an id
            that repeats an earlier line's (the later row would silently replace it).
    """
    out: dict[int, list[str]] = {}
    where: dict[int, int] = {}
    for k, line in enumerate(read_lines(path, unicode="raw", whitespace="rstrip"), start=1):
        fields = line.split("\t")
        if len(fields) < 3:
            raise DataError(f"expected id, source and at least one reference separated by tabs, got {len(fields)} field(s)",
                            path, k)
        try:
            key = int(fields[0])
        except ValueError:
            raise DataError(f"non-integer id {fields[0]!r}", path, k) from None
        if key in where:
            raise DataError(f"id {key} repeats the id of line {where[key]}", path, k)
        out[key], where[key] = fields[1:], k
    return out


def _ids(path: Path) -> list[int]:
    lines = read_lines(path, expected=SUBSET_SIZE, unicode="raw")
    try:
        return [int(x) for x in lines]
    except ValueError as exc:
        raise DataError(f"non-integer sentence id ({exc})", path) from None


def _doc_ids(path: Path) -> list[str]:
    """The ``doc-id`` of every ``ranking-item``, in file order (the judgments reader keeps src-id only)."""
    return [e.get("doc-id", "") for e in ET.parse(path).getroot().iter("ranking-item")]


def load_revisit_cgec(root: str | Path, subset: str = "all", yaclc_references: str = "minimal") -> Dataset:
    """RevisitCGEC: 6 systems (``bart char s2e spm t5 word``), 200 (or 100) sentences, language ``zh``.

    Args:
        root: the data directory (``revisitcgec/``, ``mucgec/``, ``cltc/``).
        subset: ``all`` (MuCGEC's 100, then YACLC's 100), ``mucgec`` or ``yaclc``.
        yaclc_references: YACLC's ``minimal`` or ``fluency`` references (the paper does not say
            which it used).

    Human scores: EW, TS.  Judgments: ``ranking``.
    """
    if subset not in SUBSET_CHOICES:
        raise ConfigError(f"dataset.subset must be one of {', '.join(SUBSET_CHOICES)}, got {subset!r}")
    if yaclc_references not in YACLC_REFERENCES:
        raise ConfigError(f"dataset.yaclc_references must be minimal or fluency, got {yaclc_references!r}")
    root = Path(root)
    base = require_dir(root / "revisitcgec", "RevisitCGEC data")
    subsets = SUBSETS if subset == "all" else (subset,)
    sources: list[str] = []
    references: list[list[str]] = []
    hyps: dict[str, list[str]] = {s: [] for s in SYSTEMS}
    index: dict[tuple[str, int], int] = {}  # (doc-id, src-id) -> sentence
    for sub in subsets:
        ids = _ids(base / "sentence ids" / f"{sub}_ids.txt")
        path = root / (MUCGEC_DEV if sub == "mucgec" else YACLC_DEV.format(yaclc_references))
        rows = _rows(path)
        for k, i in enumerate(ids):
            if i not in rows:
                raise DataError(f"sentence id {i} (line {k + 1} of {sub}_ids.txt) is not in {path}", path)
            src, *refs = rows[i]
            index[(sub, i - 1 if sub == "mucgec" else i)] = len(sources)
            sources.append(tokenise(src))
            references.append([tokenise(src if r == NO_ERROR else r) for r in refs])
        for system in SYSTEMS:
            hyps[system] += [tokenise(t) for t in read_lines(base / "system corrections" / f"{system}.{sub}.txt",
                                                              expected=SUBSET_SIZE, unicode="raw", whitespace="rstrip")]
    xml = base / "judgments.xml"
    items = read_judgments(xml, index_base=0)
    docs = _doc_ids(xml)
    judged: list[RankingItem] = []
    for item, doc in zip(items, docs):
        if doc not in SUBSETS:
            raise DataError(f"<ranking-item id={item.item_id}> has doc-id {doc!r}, expected mucgec or yaclc", xml)
        if doc not in subsets:
            continue
        n = index.get((doc, item.line))
        if n is None:
            raise DataError(f"<ranking-item id={item.item_id}> judges {doc} src-id {item.line}, not in the ids file", xml)
        unknown = [s for s, _ in item.ranks if s not in SYSTEMS]
        if unknown:
            raise DataError(f"<ranking-item id={item.item_id}> ranks unknown system {unknown[0]!r}", xml)
        judged.append(RankingItem(n, item.annotator, item.ranks, item.item_id, item.displayed))
    from gec_meta.meta.aggregation import trueskill_scores
    from gec_meta.meta.evaluation import human_expected_wins

    ranks = rank_matrix(judged, SYSTEMS)  # (items, S)
    human = {"EW": human_expected_wins(judged, SYSTEMS), "TS": trueskill_scores(-ranks.T)}
    R = max(len(r) for r in references)
    refs = tuple(tuple(r[k] if k < len(r) else "" for r in references) for k in range(R))
    names = tuple(f"ref{k}" for k in range(R))
    files = {s: ",".join(str(base / "system corrections" / f"{s}.{sub}.txt") for sub in subsets) for s in SYSTEMS}
    return Dataset(
        name="revisit_cgec",
        setting=subset,
        corpus="revisit_cgec",
        sources=tuple(sources),
        systems=SYSTEMS,
        hypotheses=tuple(tuple(hyps[s]) for s in SYSTEMS),
        human=frozen_mapping({k: np.asarray(v, dtype=np.float64) for k, v in human.items()}),
        judgments=frozen_mapping({"ranking": tuple(judged)}),
        corpus_lines=tuple(range(len(sources))),
        references=refs,
        reference_names=names,
        options=frozen_mapping({"yaclc_references": yaclc_references} if "yaclc" in subsets else {}),
        files=frozen_mapping(files),
        language="zh",
    )
