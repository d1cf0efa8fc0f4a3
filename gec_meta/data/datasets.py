"""Meta-evaluation datasets as immutable typed containers.

Every loader takes an explicit data root (never globs), normalises Unicode and whitespace
through :func:`gec_meta.data.io.read_lines` and checks line counts.  See ``shared/data/README.md`` for
the files, index bases and whitespace traps handled here.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from gec_meta.errors import ConfigError, DataError, MissingDataError
from gec_meta.data.io import DEFAULT_UNICODE, check_nonempty, check_unicode_mode, read_floats, read_lines, read_text
from gec_meta.data.dataset import Dataset, frozen_mapping as _frozen, require_dir as _require_dir
from gec_meta.data.judgments import RankingItem, read_judgments
from gec_meta.data.multigec import load_multigec2025
from gec_meta.data.revisit_cgec import load_revisit_cgec
from gec_meta.data.swedish import load_ostling2024

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
    attacks: bool = False,
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
        attacks: add the adversarial outputs of Goto et al. (2025) (:func:`attack_outputs`)
            as unjudged systems; ``seeda_attack`` is the paper's setting (``fluency``, ``all``).
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
        options=_frozen(_options(systems, order, whitespace, unicode, attacks,
                                 **({} if sentences == "subset" else {"sentences": sentences}))),
        files=_frozen({s: str(folder / f"{s}.txt") for s in chosen}),
        **_attack_fields(root, "conll14", lines, whitespace, attacks, unicode),
    )


def _options(systems, order, whitespace, unicode, attacks=False, **extra) -> dict:
    opts = dict(extra)
    if systems is not None:
        opts["systems"] = ",".join(order)
    if whitespace != "normalise":
        opts["whitespace"] = whitespace
    if attacks:
        opts["attacks"] = ATTACK_SET
    opts["unicode"] = unicode  # always named: it can change numbers of users' files
    return opts


#: The adversarial outputs of Goto, Sakai & Watanabe (Findings of EMNLP 2025), in the order and
#: with the names of their benchmarks (``BenchmarkSEEDA``/``BenchmarkPillars.load_name``):
#: system name -> file stem of ``attack/experiments/attack_results/<corpus>-<stem>.txt``.
ATTACKS = (("Attack-SOME", "some"), ("Attack-Scribendi", "scribendi"), ("Attack-IMPARA", "impara"),
           ("Attack-LLM", "llmsent"))
#: The attack set's name in the dataset signature (``attacks=goto2025``).
ATTACK_SET = "goto2025"
BEA19_DEV_SIZE = 4384
#: The corpora the attacks were made for and their sizes (data README section 8).
ATTACK_CORPORA = {"conll14": CONLL14_SIZE, "bea19-dev": BEA19_DEV_SIZE}


def attack_outputs(root: str | Path, corpus: str = "conll14", lines: Sequence[int] | None = None,
                   whitespace: str = "normalise", unicode: str = DEFAULT_UNICODE) -> dict[str, tuple[str, ...]]:
    """The attack outputs on the sentences ``lines`` (0-based lines of ``corpus``; None = all).

    Line k of ``attack_results/conll14-*.txt`` is CoNLL-2014 test sentence k, and of
    ``bea19-dev-*.txt`` BEA-2019 dev sentence k (data README section 8; the files have no final
    newline).

    Args:
        corpus: ``conll14`` (1,312 lines) or ``bea19-dev`` (4,384 lines).

    Returns:
        attack name -> shape (len(lines),), in :data:`ATTACKS` order.
    """
    size = ATTACK_CORPORA[corpus]
    folder = Path(root) / "attack" / "experiments" / "attack_results"
    out = {}
    for name, stem in ATTACKS:
        text = read_lines(folder / f"{corpus}-{stem}.txt", expected=size, whitespace=whitespace, unicode=unicode)
        out[name] = text if lines is None else tuple(text[i] for i in lines)
    return out


def _attack_fields(root, corpus: str, lines, whitespace: str, attacks: bool, unicode: str = DEFAULT_UNICODE) -> dict:
    """The ``attack_systems``/``attack_hypotheses`` of a dataset (empty unless ``attacks``)."""
    if not isinstance(attacks, bool):
        raise ConfigError(f"dataset.attacks must be true or false, got {attacks!r}")
    if not attacks:
        return {}
    outputs = attack_outputs(root, corpus, lines, whitespace, unicode)
    return {"attack_systems": tuple(outputs), "attack_hypotheses": tuple(outputs.values())}


def _read_gjg15_table(path: Path) -> dict[str, dict[str, float]]:
    """``gjg15_table3_human_scores.tsv``: system -> {"EW", "TS"}.

    Raises:
        DataError: naming the file and line: a row with another number of columns, a non-number,
            a system whose row repeats an earlier one (it would silently replace it).
    """
    rows = read_lines(path)
    if not rows:
        raise DataError("empty file", path)
    header = rows[0].split()
    out: dict[str, dict[str, float]] = {}
    where: dict[str, int] = {}
    for i, row in enumerate(rows[1:], start=2):
        cells = row.split()
        if len(cells) != len(header):
            raise DataError(f"expected {len(header)} columns, got {len(cells)}", path, i)
        rec = dict(zip(header, cells))
        try:
            system, scores = rec["system"], {"EW": float(rec["EW"]), "TS": float(rec["TS"])}
        except (KeyError, ValueError):
            raise DataError(f"bad row {row!r}", path, i) from None
        if system in where:
            raise DataError(f"system {system!r} repeats the row of line {where[system]}", path, i)
        out[system], where[system] = scores, i
    return out


def _read_wmt_scores(path: Path) -> dict[str, float]:
    """A WMT-style system score file (``human src-trg testset SYSTEM score`` per line):
    system -> score.

    Raises:
        DataError: naming the file and line: another number of columns, a score that is not a
            number, a system whose line repeats an earlier one (it would silently replace it).
    """
    out: dict[str, float] = {}
    where: dict[str, int] = {}
    for i, row in enumerate(read_lines(path), start=1):
        cells = row.split()
        if len(cells) != 5:
            raise DataError(f"expected 5 columns (human src-trg testset SYSTEM score), got {row!r}", path, i)
        system = cells[3]
        try:
            score = float(cells[4])
        except ValueError:
            raise DataError(f"score {cells[4]!r} of system {system!r} is not a number", path, i) from None
        if system in where:
            raise DataError(f"system {system!r} repeats the line {where[system]}", path, i)
        out[system], where[system] = score, i
    return out


def _scores_of(table: dict, systems: Sequence[str], path: Path) -> list:
    """``table[s]`` for each system, in order.

    Raises:
        DataError: naming the file and the systems it has no score for.
    """
    missing = [s for s in systems if s not in table]
    if missing:
        raise DataError(f"no human score for system(s) {missing} (the file has {sorted(table)})", path)
    return [table[s] for s in systems]


def load_gjg15(
    root: str | Path,
    human_scores: str = "paper",
    systems: Sequence[str] | None = None,
    whitespace: str = "normalise",
    attacks: bool = False,
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
        attacks: add the adversarial outputs of Goto et al. (2025) as unjudged systems.
        unicode: ``nfc+cf`` or ``raw`` (see :func:`gec_meta.data.io.clean_unicode`).

    Human scores: EW, TS.  Judgments: ``ranking`` (``judgments.xml``, ``src-id`` 0-based).
    """
    root = Path(root)
    base = _require_dir(root / "gjg15", "GJG15 data")
    order = tuple(systems) if systems is not None else GJG15_SYSTEMS
    if sorted(order) != sorted(GJG15_SYSTEMS):
        raise ConfigError(f"dataset.systems must be a permutation of {list(GJG15_SYSTEMS)}, got {list(order)}")
    if human_scores == "paper":
        path = base / "gjg15_table3_human_scores.tsv"
        rows = _scores_of(_read_gjg15_table(path), order, path)
        human = {k: np.array([row[k] for row in rows]) for k in ("EW", "TS")}
    elif human_scores == "chollampatt_ng_2018":
        folder = base / "nusnlp-gecmetrics" / "scores" / "system_scores_humans"
        human = {k: np.array(_scores_of(_read_wmt_scores(folder / name), order, folder / name))
                 for k, name in (("EW", "expected_wins.txt"), ("TS", "trueskill.txt"))}
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
    opts = _options(systems, order, whitespace, unicode, attacks, human_scores=human_scores)
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
        **_attack_fields(root, "conll14", None, whitespace, attacks, unicode),
    )


GMEG_SYSTEMS = ("amu", "lstm", "lstm-r", "marian", "nus", "transformer", "ref", "source")


#: The splits and domains of GMEG-Data (Napoles et al. 2019).
GMEG_SPLITS = ("test", "dev")
GMEG_DOMAINS = ("wiki", "fce", "yahoo")
#: The text files of one GMEG split and domain (``gmeg/<split>/<domain>/``): the rated systems
#: (``ref`` = the file ``ref0``) and the references ref1-ref3.
GMEG_FILES = ("source", "amu", "lstm", "lstm-r", "marian", "nus", "transformer", "ref0", "ref1", "ref2", "ref3")
#: How to obtain the Yahoo text (the GMEG README, quoted in the data README section 6).
GMEG_YAHOO_TERMS = (
    "the GMEG Yahoo text is not public: request the Yahoo! Answers L6 corpus (free for research, "
    "webscope.sandbox.yahoo.com), forward its acknowledgment with your affiliation and intended use to "
    "Grammarly (peng.wang@grammarly.com) as the GMEG README says, then put the files it sends "
    f"({', '.join(GMEG_FILES)}) in this folder or set dataset.yahoo_dir=/path/to/them"
)


def load_gmeg(root: str | Path, domain: str = "wiki", split: str = "test",
              yahoo_dir: str | Path | None = None, unicode: str = DEFAULT_UNICODE) -> Dataset:
    """GMEG-Data (Napoles, Nădejde & Tetreault, TACL 2019): one domain and split.

    Args:
        root: the data directory (holding ``gmeg/``).
        domain: ``wiki`` (Wikipedia edits), ``fce`` (learner essays, FCE; non-commercial research
            use) or ``yahoo`` (Yahoo! Answers: only its ratings are public).
        split: ``test`` or ``dev``.
        yahoo_dir: the folder of the Yahoo text files of ``split`` (named as the other domains':
            :data:`GMEG_FILES`), obtained from Grammarly; default ``gmeg/<split>/yahoo`` of the
            data directory.  Every file must have one line per row of the ratings.
        unicode: ``nfc+cf`` or ``raw`` (see :func:`gec_meta.data.io.clean_unicode`).

    Systems amu, lstm, lstm-r, marian, nus, transformer, ``ref`` (the file ``ref0``) and
    ``source``; references ref1-ref3; human score ``score`` = the mean rating per system of
    ``<domain>-corpus-scores.csv`` (= the mean of the rated rows of the segment scores; data
    README section 6); segment ratings ``score`` from ``<domain>-segment-scores.csv`` (NaN for
    the unrated rows).  Caveat: the rated "ref" output is not always ``ref0`` (data README
    section 6); it is used as ref0 here, as UOT-ERRANT does.  No sentence rankings.
    """
    if domain not in GMEG_DOMAINS:
        raise ConfigError(f"dataset.domain must be one of {list(GMEG_DOMAINS)}, got {domain!r}")
    return _load_gmeg(root, domain, split, "gmeg", {"domain": domain}, yahoo_dir, unicode)


def load_gmeg_wiki(root: str | Path, split: str = "test", unicode: str = DEFAULT_UNICODE) -> Dataset:
    """GMEG-Data Wiki (Napoles et al. 2019), as used by UOT-ERRANT (Goto et al. 2025): the
    alias of ``load_gmeg(root, "wiki", split)`` that keeps its name (``gmeg_wiki``), so its
    results stay those published before the other domains existed.  ``unicode``: as
    :func:`load_seeda`."""
    return _load_gmeg(root, "wiki", split, "gmeg_wiki", {}, None, unicode)


def _load_gmeg(root, domain: str, split: str, name: str, options: dict, yahoo_dir,
               unicode: str = DEFAULT_UNICODE) -> Dataset:
    if split not in GMEG_SPLITS:
        raise ConfigError(f"dataset.split must be one of {list(GMEG_SPLITS)}, got {split!r}")
    if yahoo_dir is not None and domain != "yahoo":
        raise ConfigError(f"dataset.yahoo_dir applies to dataset.domain=yahoo, not {domain!r}")
    check_unicode_mode(unicode)
    root = Path(root)
    base = _require_dir(root / "gmeg" / split, f"GMEG {split} data")
    segment_path = base / f"{domain}-segment-scores.csv"
    if domain == "yahoo":
        folder = Path(yahoo_dir).expanduser() if yahoo_dir is not None else base / "yahoo"
        if not (folder / "source").is_file():
            raise MissingDataError(f"{folder}: {GMEG_YAHOO_TERMS}")
        n = _gmeg_rows(segment_path)  # the text has no other line count to check against
        sources = read_lines(folder / "source", expected=n, unicode=unicode)
    else:
        folder = base / domain
        sources = read_lines(folder / "source", unicode=unicode)
        check_nonempty(sources, folder / "source")
        n = len(sources)
    files = {s: ("ref0" if s == "ref" else s) for s in GMEG_SYSTEMS}
    hyps = {s: read_lines(folder / f, expected=n, unicode=unicode) for s, f in files.items()}
    refs = tuple(read_lines(folder / f"ref{k}", expected=n, unicode=unicode) for k in (1, 2, 3))
    table = _gmeg_corpus_scores(base / f"{domain}-corpus-scores.csv")
    segment = _gmeg_segment_scores(segment_path, n)
    return Dataset(
        name=name,
        setting=split,
        corpus=f"gmeg_{domain}_{split}",
        sources=sources,
        systems=GMEG_SYSTEMS,
        hypotheses=tuple(hyps[s] for s in GMEG_SYSTEMS),
        human=_frozen({"score": np.array([table[s] for s in GMEG_SYSTEMS])}),
        judgments=_frozen({}),
        corpus_lines=tuple(range(n)),
        references=refs,
        reference_names=("ref1", "ref2", "ref3"),
        options=_frozen({**options, "unicode": unicode}),
        segment_scores=_frozen({"score": segment}),
        files=_frozen({**{s: str(folder / f) for s, f in files.items()},
                       **{f"ref{k}": str(folder / f"ref{k}") for k in (1, 2, 3)}}),
    )


def _gmeg_corpus_scores(path: Path) -> dict[str, float]:
    """``<domain>-corpus-scores.csv`` (``system,score``): system -> the published mean rating.

    Raises:
        DataError: naming the file and line: no ``system``/``score`` column, a score that is not
            a number, a system whose row repeats an earlier one (it would silently replace it);
            naming the file: a system of :data:`GMEG_SYSTEMS` without a row.
    """
    reader = csv.DictReader(io.StringIO(read_text(path)[1]))
    table: dict[str, float] = {}
    where: dict[str, int] = {}
    for r in reader:
        try:
            system, score = r["system"].strip(), float(r["score"])
        except (KeyError, ValueError, TypeError, AttributeError):
            raise DataError(f"expected columns system,score with a number, got {r}", path, reader.line_num) from None
        if system in where:
            raise DataError(f"system {system!r} repeats the row of line {where[system]}", path, reader.line_num)
        table[system], where[system] = score, reader.line_num
    missing = [s for s in GMEG_SYSTEMS if s not in table]
    if missing:
        raise DataError(f"no human score for {missing}", path)
    return table


def _gmeg_segment_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    # read_text names a missing file ("no such file (run make data ...)") and a FIFO or device
    rows = list(csv.reader(io.StringIO(read_text(path)[1])))
    if not rows:
        raise DataError("empty file: expected a header row of system names", path)
    return [c.strip() for c in rows[0]], [r for r in rows[1:] if r]


def _gmeg_rows(path: Path) -> int:
    """The number of sentences (rows below the header) of a segment-scores CSV."""
    return len(_gmeg_segment_rows(path)[1])


def _gmeg_segment_scores(path: Path, n: int) -> np.ndarray:
    """``<domain>-segment-scores.csv``: the mean rating of every system's output of each of the
    ``n`` sentences (one row per sentence, one column per system), shape (S, n) in
    :data:`GMEG_SYSTEMS` order; NaN for the sentences nobody rated (an empty row)."""
    header, body = _gmeg_segment_rows(path)
    missing = [s for s in GMEG_SYSTEMS if s not in header]
    if missing:
        raise DataError(f"no column for system(s) {missing} in header {header}", path, 1)
    if len(body) != n:
        raise DataError(f"{len(body)} rows of segment scores for {n} sentences", path)
    out = np.empty((len(GMEG_SYSTEMS), n))
    cols = [header.index(s) for s in GMEG_SYSTEMS]
    for k, row in enumerate(body):
        if not any(c.strip() for c in row):  # a sentence nobody rated (data README section 6)
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


#: The systems of the attack paper's ``BenchmarkPillars`` (Goto et al. 2025, "Table 1"), in its
#: order and with its names: name -> file stem under ``pillars/data/system_preds/`` (Omelianchuk
#: et al. 2024, grammarly/pillars-of-gec): the 7 single systems in path order, then 3 ensembles.
PILLARS_SYSTEMS = (
    ("CTC-Copy", "single_systems/CTC-Copy"),
    ("Chat-LLaMa-2-13B-FT", "single_systems/Chat-LLaMa-2-13B-FT"),
    ("Chat-LLaMa-2-7B-FT", "single_systems/Chat-LLaMa-2-7B-FT"),
    ("EditScorer", "single_systems/EditScorer"),
    ("GECToR-2024", "single_systems/GECToR-2024"),
    ("T5-11B", "single_systems/T5-11B"),
    ("UL2-20B", "single_systems/UL2-20B"),
    ("ENS-Voting", "ensemble_systems/ens_m7"),
    ("ENS-GRECO", "ensemble_systems/ens_greco_on_m7"),
    ("ENS-ENS", "ensemble_systems/ens_m9_with_greco_and_gpt"),
)
PILLARS_SOURCE = "pillars/data/evaluation_sets/bea-dev.txt"
PILLARS_M2 = "pillars/data/evaluation_sets/bea-dev.m2"
#: The first sentences of BEA-2019 dev that the attack paper gives the LLM evaluators
#: (``BenchmarkPillars.subsetalize``: ``range(400)``).
BEA19_DEV_LLM_SUBSET = 400


def pillars_files() -> tuple[str, ...]:
    """The data-relative paths of the Pillars-of-GEC files ``bea19_dev_attack`` reads."""
    return (PILLARS_SOURCE, PILLARS_M2,
            *(f"pillars/data/system_preds/{stem}___bea-dev.txt" for _, stem in PILLARS_SYSTEMS))


def require_pillars(root: str | Path) -> None:
    """One line naming the missing Pillars-of-GEC files (they are optional data: not in every
    mirror) and how to get them."""
    missing = [f for f in pillars_files() if not (Path(root) / f).is_file()]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise MissingDataError(
            f"{Path(root) / missing[0]}{more}: missing; dataset=bea19_dev_attack needs the Pillars-of-GEC "
            f"system outputs (grammarly/pillars-of-gec, optional data not in every mirror): run `gec-meta data` "
            f"where github.com is reachable")


def load_bea19_dev_attack(root: str | Path, sentences: str = "all", whitespace: str = "normalise",
                          unicode: str = DEFAULT_UNICODE) -> Dataset:
    """BEA-2019 dev with the Pillars-of-GEC systems and the attacks (Goto et al. 2025, the
    repository's ``BenchmarkPillars``): a robustness set without human judgments.

    Args:
        root: the data directory (holding ``pillars/`` and ``attack/``).
        sentences: ``all`` (4,384: the paper's protocol for SOME, Scribendi, IMPARA) or
            ``subset`` (the first 400: its protocol for the LLM evaluators).
        whitespace: ``normalise`` or ``rstrip`` (see :func:`gec_meta.data.io.read_lines`).
        unicode: ``nfc+cf`` or ``raw`` (see :func:`gec_meta.data.io.clean_unicode`).

    Systems :data:`PILLARS_SYSTEMS` (Omelianchuk et al. 2024); unjudged attack systems
    :data:`ATTACKS`; sources ``bea-dev.txt`` (the source side of its ``bea-dev.m2``, which is
    the ``official`` reference set); no human scores.
    """
    if sentences not in ("all", "subset"):
        raise ConfigError(f"dataset.sentences={sentences!r}; choose 'all' or 'subset' (the first "
                          f"{BEA19_DEV_LLM_SUBSET}: the LLM protocol)")
    check_unicode_mode(unicode)
    root = Path(root)
    require_pillars(root)
    n = BEA19_DEV_SIZE if sentences == "all" else BEA19_DEV_LLM_SUBSET
    lines = tuple(range(n))
    sources = read_lines(root / PILLARS_SOURCE, expected=BEA19_DEV_SIZE, whitespace=whitespace,
                         unicode=unicode)[:n]
    names = tuple(name for name, _ in PILLARS_SYSTEMS)
    hyps = tuple(
        read_lines(root / f"pillars/data/system_preds/{stem}___bea-dev.txt", expected=BEA19_DEV_SIZE,
                   whitespace=whitespace, unicode=unicode)[:n]
        for _, stem in PILLARS_SYSTEMS
    )
    return Dataset(
        name="bea19_dev_attack",
        setting="default",
        corpus="bea19_dev",
        sources=sources,
        systems=names,
        hypotheses=hyps,
        human=_frozen({}),
        judgments=_frozen({}),
        corpus_lines=lines,
        options=_frozen(_options(None, names, whitespace, unicode, True,
                                 **({} if sentences == "all" else {"sentences": sentences}))),
        files=_frozen({name: str(root / f"pillars/data/system_preds/{stem}___bea-dev.txt")
                       for name, stem in PILLARS_SYSTEMS}),
        **_attack_fields(root, "bea19-dev", lines, whitespace, True, unicode),
    )


LOADERS = {"seeda": load_seeda, "gjg15": load_gjg15, "gmeg": load_gmeg, "gmeg_wiki": load_gmeg_wiki,
           "bea19_dev_attack": load_bea19_dev_attack, "revisit_cgec": load_revisit_cgec}
# Swedish (Östling et al. 2024) and MultiGEC-2025 (text-free): gec_meta/data/{swedish,multigec}.py
LOADERS.update({"ostling2024": load_ostling2024, "multigec2025": load_multigec2025})


def load_dataset(name: str, root: str | Path | None = None, **options) -> Dataset:
    """Load a dataset by name (``seeda``, ``gjg15``, ``gmeg``, ``gmeg_wiki``, ``bea19_dev_attack``).

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
