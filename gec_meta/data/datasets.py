"""Meta-evaluation datasets as immutable typed containers.

Every loader takes an explicit data root (never globs), normalises Unicode and whitespace
through :func:`gec_meta.data.io.read_lines` and checks line counts.  See ``shared/data/README.md`` for
the files, index bases and whitespace traps handled here.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np

from gec_meta.errors import ConfigError, DataError, MissingDataError
from gec_meta.data.io import DEFAULT_UNICODE, check_nonempty, check_unicode_mode, read_floats, read_lines, read_text
from gec_meta.data.judgments import RankingItem, read_judgments

CONLL14_SIZE = 1312

# SEEDA's alphabetical system order: the order of its human score files and the order used
# by the published TrueSkill-aggregated numbers (Goto et al. 2025).
SEEDA_SYSTEMS = (
    "BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic", "PIE",
    "REF-F", "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS",
)
# SEEDA system sets (SEEDA utils/corr_system.py; gec-metrics MetaEvalSEEDA).
SEEDA_SETTINGS = {
    "base": ("INPUT", "REF-F", "GPT-3.5"),
    "fluency": ("INPUT",),
    "+input": ("REF-F", "GPT-3.5"),
    "all": (),
}
SEEDA_HUMAN = ("EW_edit", "EW_sent", "TS_edit", "TS_sent")

# GJG15 Table 3 order (Grundkiewicz et al. 2015), the order of the published numbers.
GJG15_SYSTEMS = (
    "AMU", "RAC", "CAMB", "CUUI", "POST", "UFC", "PKU", "UMC", "IITB", "SJTU", "INPUT", "NTHU", "IPN",
)


@dataclass(frozen=True)
class Dataset:
    """A benchmark: system outputs, human system scores and human sentence rankings.

    Attributes:
        name, setting: e.g. ``seeda`` / ``base``.
        corpus: the corpus the sentences come from (``conll14``, ``gmeg_wiki_test``), which
            decides which reference sets apply.
        sources: shape (N,).
        systems: shape (S,), in the configured order.
        hypotheses: shape (S, N).
        human: human score name -> array of shape (S,).
        judgments: aspect -> ranking items whose ``line`` is an index into ``sources``.
        corpus_lines: shape (N,): the 0-based line of ``corpus`` of each sentence (refsets
            map their references through it).
        references: references shipped with the dataset (GMEG), shape (R, N), else empty.
        options: loader options (enter the signature).
        segment_scores: human sentence ratings, name -> shape (S, N) (GMEG-Wiki ``score``:
            the mean rating of every system's output of every sentence), else empty.
        files: system (or reference name) -> the file its text was read from (line n + 1 is
            sentence n of a text file), for messages only; empty when unknown.
    """

    name: str
    setting: str
    corpus: str
    sources: tuple[str, ...]
    systems: tuple[str, ...]
    hypotheses: tuple[tuple[str, ...], ...]
    human: Mapping[str, np.ndarray]
    judgments: Mapping[str, tuple[RankingItem, ...]]
    corpus_lines: tuple[int, ...]
    references: tuple[tuple[str, ...], ...] = ()
    reference_names: tuple[str, ...] = ()
    options: Mapping[str, object] = field(default_factory=dict)
    segment_scores: Mapping[str, np.ndarray] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def num_systems(self) -> int:
        return len(self.systems)

    @property
    def num_sentences(self) -> int:
        return len(self.sources)

    def signature(self) -> str:
        from gec_meta.meta.signature import component

        return component(self.name, {**({"setting": self.setting} if self.setting else {}), **self.options})

    def select(self, systems: Sequence[str]) -> "Dataset":
        """The same dataset restricted to (and reordered as) ``systems``."""
        unknown = [s for s in systems if s not in self.systems]
        if unknown:
            raise ConfigError(
                f"unknown system(s) {unknown} for dataset {self.name}; known: {list(self.systems)}"
            )
        idx = [self.systems.index(s) for s in systems]
        return Dataset(
            self.name, self.setting, self.corpus, self.sources, tuple(systems),
            tuple(self.hypotheses[i] for i in idx),
            MappingProxyType({k: v[idx] for k, v in self.human.items()}),
            self.judgments, self.corpus_lines, self.references, self.reference_names,
            MappingProxyType({**self.options, "systems": ",".join(systems)}),
            MappingProxyType({k: v[idx] for k, v in self.segment_scores.items()}),
            self.files,
        )


def _frozen(d: dict) -> Mapping:
    return MappingProxyType(dict(d))


def _require_dir(path: Path, what: str) -> Path:
    if not path.is_dir():
        raise MissingDataError(
            f"{path}: {what} not found. Run `make data` (or `make data MIRROR=...`) or set "
            f"GEC_META_DATA to the data directory."
        )
    return path


def _read_floats(path: Path, expected: int) -> np.ndarray:
    values = read_floats(path)
    if len(values) != expected:
        raise DataError(f"has {len(values)} scores, expected {expected}", path)
    return np.array(values)


def _to_sentence_index(items: Sequence[RankingItem], line_to_index: Mapping[int, int], path: Path):
    out = []
    for item in items:
        idx = line_to_index.get(item.line)
        if idx is None:
            raise DataError(
                f"<ranking-item id={item.item_id}> judges corpus line {item.line}, which is not "
                f"in the dataset", path,
            )
        out.append(RankingItem(idx, item.annotator, item.ranks, item.item_id, item.displayed))
    return tuple(out)


def _check_systems(items: Sequence[RankingItem], known: Sequence[str], path: Path) -> None:
    known_set = set(known)
    for item in items:
        for system, _ in item.ranks:
            if system not in known_set:
                raise DataError(
                    f"<ranking-item id={item.item_id}> ranks unknown system {system!r}", path
                )


def load_seeda(
    root: str | Path,
    setting: str = "base",
    systems: Sequence[str] | None = None,
    whitespace: str = "normalise",
    sentences: str = "subset",
    unicode: str = DEFAULT_UNICODE,
) -> Dataset:
    """SEEDA (Kobayashi et al. 2024): the 391 human-evaluated CoNLL-2014 test sentences.

    Args:
        root: the data directory (holding ``seeda/``).
        setting: ``base`` (12 systems: all but INPUT, REF-F, GPT-3.5), ``fluency`` (14: all
            but INPUT; "+Fluency"), ``+input`` or ``all``.
        systems: the full system order; default SEEDA's alphabetical order (the order of its
            human score files).  The setting's systems are taken from it in this order.
        whitespace: ``normalise`` or ``rstrip`` (see :func:`gec_meta.data.io.read_lines`).
        sentences: ``subset`` (the 391 judged sentences, ``outputs/subset``: the setting of
            SEEDA's meta-evaluation) or ``all`` (the full 1,312-sentence test set,
            ``outputs/all``: the setting of the metric scores in SEEDA's README table).
        unicode: ``nfc+cf`` (format characters removed, NFC) or ``raw`` (see
            :func:`gec_meta.data.io.clean_unicode`; no benchmark file changes).

    Human scores: EW_edit, EW_sent, TS_edit, TS_sent (``seeda/scores/human``, alphabetical
    order).  Judgments: ``edit`` (SEEDA-E) and ``sent`` (SEEDA-S), ``src-id`` 1-based.
    """
    root = Path(root)
    base = _require_dir(root / "seeda", "SEEDA data")
    if setting not in SEEDA_SETTINGS:
        raise ConfigError(
            f"dataset.setting={setting!r} is not a SEEDA setting; choose from {list(SEEDA_SETTINGS)}"
        )
    order = tuple(systems) if systems is not None else SEEDA_SYSTEMS
    if sorted(order) != sorted(SEEDA_SYSTEMS):
        raise ConfigError(f"dataset.systems must be a permutation of {list(SEEDA_SYSTEMS)}, got {list(order)}")
    judgments_raw = {
        aspect: read_judgments(base / "data" / f"judgments_{aspect}.xml", index_base=1)
        for aspect in ("edit", "sent")
    }
    for aspect, items in judgments_raw.items():
        _check_systems(items, SEEDA_SYSTEMS, base / "data" / f"judgments_{aspect}.xml")
    if sentences == "subset":
        lines = sorted({item.line for item in judgments_raw["edit"]})
    elif sentences == "all":
        lines = list(range(CONLL14_SIZE))
    else:
        raise ConfigError(f"dataset.sentences={sentences!r}; choose 'subset' or 'all'")
    folder = base / "outputs" / sentences
    n = len(lines)
    check_unicode_mode(unicode)
    sources = read_lines(folder / "INPUT.txt", expected=n, whitespace=whitespace, unicode=unicode)
    hyps = {s: read_lines(folder / f"{s}.txt", expected=n, whitespace=whitespace, unicode=unicode)
            for s in SEEDA_SYSTEMS}
    human_all = {
        name: _read_floats(base / "scores" / "human" / f"{name}.txt", len(SEEDA_SYSTEMS))
        for name in SEEDA_HUMAN
    }
    alpha = {s: i for i, s in enumerate(SEEDA_SYSTEMS)}
    chosen = tuple(s for s in order if s not in SEEDA_SETTINGS[setting])
    line_to_index = {line: i for i, line in enumerate(lines)}
    judgments = {
        aspect: _to_sentence_index(items, line_to_index, base / "data" / f"judgments_{aspect}.xml")
        for aspect, items in judgments_raw.items()
    }
    return Dataset(
        name="seeda",
        setting=setting,
        corpus="conll14",
        sources=sources,
        systems=chosen,
        hypotheses=tuple(hyps[s] for s in chosen),
        human=_frozen({k: v[[alpha[s] for s in chosen]] for k, v in human_all.items()}),
        judgments=_frozen(judgments),
        corpus_lines=tuple(lines),
        options=_frozen(_options(systems, order, whitespace, unicode,
                                 **({} if sentences == "subset" else {"sentences": sentences}))),
        files=_frozen({s: str(folder / f"{s}.txt") for s in chosen}),
    )


def _options(systems, order, whitespace, unicode, **extra) -> dict:
    opts = dict(extra)
    if systems is not None:
        opts["systems"] = ",".join(order)
    if whitespace != "normalise":
        opts["whitespace"] = whitespace
    opts["unicode"] = unicode  # always named: it can change numbers of users' files
    return opts


def _read_gjg15_table(path: Path) -> dict[str, dict[str, float]]:
    rows = read_lines(path)
    if not rows:
        raise DataError("empty file", path)
    header = rows[0].split()
    out: dict[str, dict[str, float]] = {}
    for i, row in enumerate(rows[1:], start=2):
        cells = row.split()
        if len(cells) != len(header):
            raise DataError(f"expected {len(header)} columns, got {len(cells)}", path, i)
        rec = dict(zip(header, cells))
        try:
            out[rec["system"]] = {"EW": float(rec["EW"]), "TS": float(rec["TS"])}
        except (KeyError, ValueError):
            raise DataError(f"bad row {row!r}", path, i) from None
    return out


def _read_wmt_scores(path: Path) -> dict[str, float]:
    out = {}
    for i, row in enumerate(read_lines(path), start=1):
        cells = row.split()
        if len(cells) != 5:
            raise DataError(f"expected 5 columns (human src-trg testset SYSTEM score), got {row!r}", path, i)
        out[cells[3]] = float(cells[4])
    return out


def load_gjg15(
    root: str | Path,
    human_scores: str = "paper",
    systems: Sequence[str] | None = None,
    whitespace: str = "normalise",
    unicode: str = DEFAULT_UNICODE,
) -> Dataset:
    """GJG15 (Grundkiewicz et al. 2015): the 13 CoNLL-2014 systems incl. INPUT, 1,312 sentences.

    Args:
        root: the data directory (holding ``gjg15/``).
        human_scores: ``paper`` (GJG15 Table 3, ``gjg15/gjg15_table3_human_scores.tsv``, what
            the PT-M2 paper and gec-metrics use) or ``chollampatt_ng_2018`` (the re-run in
            ``gjg15/nusnlp-gecmetrics``: EW equal except INPUT, TS differs in the third decimal).
        systems: system order; default GJG15 Table 3 order (matters for TrueSkill).
        whitespace: ``normalise`` or ``rstrip`` (see :func:`gec_meta.data.io.read_lines`).
        unicode: ``nfc+cf`` or ``raw`` (see :func:`gec_meta.data.io.clean_unicode`).

    Human scores: EW, TS.  Judgments: ``ranking`` (``judgments.xml``, ``src-id`` 0-based).
    """
    root = Path(root)
    base = _require_dir(root / "gjg15", "GJG15 data")
    order = tuple(systems) if systems is not None else GJG15_SYSTEMS
    if sorted(order) != sorted(GJG15_SYSTEMS):
        raise ConfigError(f"dataset.systems must be a permutation of {list(GJG15_SYSTEMS)}, got {list(order)}")
    if human_scores == "paper":
        table = _read_gjg15_table(base / "gjg15_table3_human_scores.tsv")
        human = {k: np.array([table[s][k] for s in order]) for k in ("EW", "TS")}
    elif human_scores == "chollampatt_ng_2018":
        folder = base / "nusnlp-gecmetrics" / "scores" / "system_scores_humans"
        ew = _read_wmt_scores(folder / "expected_wins.txt")
        ts = _read_wmt_scores(folder / "trueskill.txt")
        human = {"EW": np.array([ew[s] for s in order]), "TS": np.array([ts[s] for s in order])}
    else:
        raise ConfigError(
            f"dataset.human_scores={human_scores!r}; choose 'paper' or 'chollampatt_ng_2018'"
        )
    subs = base / "original" / "official_submissions"
    check_unicode_mode(unicode)
    hyps = {s: read_lines(subs / s, expected=CONLL14_SIZE, whitespace=whitespace, unicode=unicode)
            for s in GJG15_SYSTEMS}
    sources = read_lines(root / "conll14" / "conll14st-test.tok.src", expected=CONLL14_SIZE,
                         whitespace=whitespace, unicode=unicode)
    items = read_judgments(base / "judgments.xml", index_base=0)
    _check_systems(items, GJG15_SYSTEMS, base / "judgments.xml")
    judgments = _to_sentence_index(items, {i: i for i in range(CONLL14_SIZE)}, base / "judgments.xml")
    opts = _options(systems, order, whitespace, unicode, human_scores=human_scores)
    return Dataset(
        name="gjg15",
        setting="default",
        corpus="conll14",
        sources=sources,
        systems=order,
        hypotheses=tuple(hyps[s] for s in order),
        human=_frozen(human),
        judgments=_frozen({"ranking": judgments}),
        corpus_lines=tuple(range(CONLL14_SIZE)),
        options=_frozen(opts),
        files=_frozen({s: str(subs / s) for s in order}),
    )


GMEG_SYSTEMS = ("amu", "lstm", "lstm-r", "marian", "nus", "transformer", "ref", "source")


#: The splits of GMEG-Data Wiki (Napoles et al. 2019).
GMEG_SPLITS = ("test", "dev")


def load_gmeg_wiki(root: str | Path, split: str = "test", unicode: str = DEFAULT_UNICODE) -> Dataset:
    """GMEG-Data Wiki (Napoles et al. 2019), as used by UOT-ERRANT (Goto et al. 2025).

    Systems amu, lstm, lstm-r, marian, nus, transformer, ``ref`` (the file ``ref0``) and
    ``source``; references ref1-ref3; human scores = mean ratings of ``wiki-corpus-scores.csv``
    (``score``).  Caveat: the rated "ref" output is not always ``ref0`` (see the data README,
    section 6); it is used as ref0 here, as UOT-ERRANT does.  No sentence rankings.
    ``unicode``: as :func:`load_seeda`.
    """
    if split not in GMEG_SPLITS:
        raise ConfigError(f"dataset.split must be one of {list(GMEG_SPLITS)}, got {split!r}")
    check_unicode_mode(unicode)
    root = Path(root)
    base = _require_dir(root / "gmeg" / split, f"GMEG {split} data")
    wiki = base / "wiki"
    sources = read_lines(wiki / "source", unicode=unicode)
    check_nonempty(sources, wiki / "source")
    n = len(sources)
    files = {s: ("ref0" if s == "ref" else s) for s in GMEG_SYSTEMS}
    hyps = {s: read_lines(wiki / f, expected=n, unicode=unicode) for s, f in files.items()}
    refs = tuple(read_lines(wiki / f"ref{k}", expected=n, unicode=unicode) for k in (1, 2, 3))
    scores_path = base / "wiki-corpus-scores.csv"
    rows = list(csv.DictReader(io.StringIO(read_text(scores_path)[1])))
    try:
        table = {r["system"].strip(): float(r["score"]) for r in rows}
    except (KeyError, ValueError, TypeError, AttributeError):
        raise DataError("expected columns system,score", scores_path) from None
    missing = [s for s in GMEG_SYSTEMS if s not in table]
    if missing:
        raise DataError(f"no human score for {missing}", scores_path)
    segment = _gmeg_segment_scores(base / "wiki-segment-scores.csv", n)
    return Dataset(
        name="gmeg_wiki",
        setting=split,
        corpus=f"gmeg_wiki_{split}",
        sources=sources,
        systems=GMEG_SYSTEMS,
        hypotheses=tuple(hyps[s] for s in GMEG_SYSTEMS),
        human=_frozen({"score": np.array([table[s] for s in GMEG_SYSTEMS])}),
        judgments=_frozen({}),
        corpus_lines=tuple(range(n)),
        references=refs,
        reference_names=("ref1", "ref2", "ref3"),
        options=_frozen({"unicode": unicode}),
        segment_scores=_frozen({"score": segment}),
        files=_frozen({**{s: str(wiki / f) for s, f in files.items()},
                       **{f"ref{k}": str(wiki / f"ref{k}") for k in (1, 2, 3)}}),
    )


def _gmeg_segment_scores(path: Path, n: int) -> np.ndarray:
    """``wiki-segment-scores.csv``: the mean rating of every system's output of each of the
    ``n`` sentences (one row per sentence, one column per system), shape (S, n) in
    :data:`GMEG_SYSTEMS` order; NaN for the sentences nobody rated (an empty row)."""
    rows = list(csv.reader(io.StringIO(read_text(path)[1])))
    if not rows:
        raise DataError("empty file: expected a header row of system names", path)
    header, body = [c.strip() for c in rows[0]], [r for r in rows[1:] if r]
    missing = [s for s in GMEG_SYSTEMS if s not in header]
    if missing:
        raise DataError(f"no column for system(s) {missing} in header {header}", path, 1)
    if len(body) != n:
        raise DataError(f"{len(body)} rows of segment scores for {n} sentences", path)
    out = np.empty((len(GMEG_SYSTEMS), n))
    cols = [header.index(s) for s in GMEG_SYSTEMS]
    for k, row in enumerate(body):
        if not any(c.strip() for c in row):  # a sentence nobody rated (12 of 992 in each split)
            out[:, k] = np.nan
            continue
        try:
            out[:, k] = [float(row[c]) for c in cols]
        except (ValueError, IndexError):
            raise DataError(f"expected {len(header)} numbers, got {row!r}", path, k + 2) from None
    rated = ~np.isnan(out).all(axis=0)
    if not np.isfinite(out[:, rated]).all():
        k = int(np.flatnonzero(rated)[np.argwhere(~np.isfinite(out[:, rated]))[0][1]])
        raise DataError("non-finite segment score", path, k + 2)
    return out


LOADERS = {"seeda": load_seeda, "gjg15": load_gjg15, "gmeg_wiki": load_gmeg_wiki}


def load_dataset(name: str, root: str | Path | None = None, **options) -> Dataset:
    """Load a dataset by name (``seeda``, ``gjg15``, ``gmeg_wiki``).

    Args:
        name: dataset name.
        root: data directory; default ``$GEC_META_DATA`` or ``data/``.
        options: loader options (``setting=`` for SEEDA, ...).
    """
    if name not in LOADERS:
        raise ConfigError(f"unknown dataset {name!r}; choose from {list(LOADERS)}")
    return LOADERS[name](default_root() if root is None else root, **options)


def default_root() -> Path:
    """``$GEC_META_DATA``, else ``data/`` in the project checkout, else ``./data``."""
    from gec_meta.data.fetch import default_data_dir

    return default_data_dir()
