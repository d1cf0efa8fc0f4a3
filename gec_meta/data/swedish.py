"""Östling et al. (LREC-COLING 2024), "Evaluation of Really Good Grammatical Error Correction":
Swedish learner sentences (SweLL, CEFR levels A, B, C; 64 per level) corrected by GEC systems and
humans, each output rated by one annotator for grammaticality, fluency and meaning preservation.

Files (data README section 10.3, ``ostling/``; repository ``robertostling/gec-evaluation``):

* ``annotations/balanced_<L>/katarina.json``: ``{"data": [{original, reference, systems: {name:
  {output, annotators: {katarina: {Grammaticality, Fluency, Meaning Preservation, corrected}}}}}]}``;
  item k is line k + 1 of the level's text files.  The repository README: "Only Katarina's
  annotations from those files are used in the paper" (Robert's cover 11 A items only).
  Ratings are 1-4; **0 means "other"** (no rating): the paper's means leave it out
  (``annotator/analyze_annotations.py`` ``summarize``), here it is NaN.
* ``data/balanced_test/Nyberg.CEFR_<L>.balanced_test.<x>``: ``orig.txt`` (source), ``corr.txt``
  (SweLL's minimal correction: the reference, equal to the json ``reference`` on every line) and
  the outputs ``granska``, ``mt``, ``mt-large``, ``s2`` (GPT-3), ``mm``, ``mw`` (human fluent and
  free rewrites).  ``mt-large`` was not rated (not in the json), so it is no system here.

The json ``output`` is the text the annotator rated, tokenised by the annotation tool; the
files hold the systems' own output: GPT-3's (``s2``) is untokenised ("Nu saknar jag den."), and
a few ``mm``/``mw`` lines differ in spacing or a token (``text=rated|files`` chooses; see
:func:`text_mismatches`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gec_meta.data.io import DEFAULT_UNICODE, check_unicode_mode, clean_lines, normalise, read_lines, read_text
from gec_meta.errors import ConfigError, DataError

OSTLING_LEVELS = ("A", "B", "C")
#: The rated systems in the order of the paper's Table 4 (Granska, MT, GPT-3, human fluent,
#: human free): the file suffix and json key of each.
OSTLING_SYSTEMS = ("granska", "mt", "s2", "mm", "mw")
#: The output files of the balanced test set that no annotator rated.
OSTLING_UNRATED = ("mt-large",)
#: Human aspect name here -> the json key (Östling et al. 2024, section 4.2).
OSTLING_ASPECTS = {"grammaticality": "Grammaticality", "fluency": "Fluency", "meaning": "Meaning Preservation"}
OSTLING_ANNOTATOR = "katarina"
OSTLING_SIZE = 64  # sentences per level
OSTLING_TEXTS = ("rated", "files")


def ostling_text_file(root: str | Path, level: str, suffix: str) -> Path:
    return Path(root) / "ostling" / "data" / "balanced_test" / f"Nyberg.CEFR_{level}.balanced_test.{suffix}"


def ostling_annotation_file(root: str | Path, level: str) -> Path:
    return Path(root) / "ostling" / "annotations" / f"balanced_{level}" / f"{OSTLING_ANNOTATOR}.json"


def read_ostling_annotations(path: Path, unicode: str = DEFAULT_UNICODE) -> tuple[tuple[str, ...], tuple[str, ...],
                                                                                   dict[str, tuple[str, ...]],
                                                                                   dict[str, np.ndarray]]:
    """One level's annotation json.

    Returns:
        (originals (N,), references (N,), system -> rated outputs (N,), aspect -> ratings (S, N)
        in :data:`OSTLING_SYSTEMS` order, NaN where the rating is 0 ("other")).

    Raises:
        DataError: not the json described in the module doc (naming the file and the item).
    """
    try:
        data = json.loads(read_text(path)[1])["data"]
        if not isinstance(data, list):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise DataError('expected a json object {"data": [...]} (an Östling et al. annotation file)', path) from None
    originals, references, outputs = [], [], {s: [] for s in OSTLING_SYSTEMS}
    ratings = {a: np.full((len(OSTLING_SYSTEMS), len(data)), np.nan) for a in OSTLING_ASPECTS}
    for k, item in enumerate(data):
        try:
            originals.append(item["original"])
            references.append(item["reference"])
            for i, system in enumerate(OSTLING_SYSTEMS):
                entry = item["systems"][system]
                outputs[system].append(entry["output"])
                marks = entry["annotators"][OSTLING_ANNOTATOR]
                for aspect, key in OSTLING_ASPECTS.items():
                    value = marks[key]
                    if isinstance(value, bool) or value not in (0, 1, 2, 3, 4):
                        raise DataError(f"item {k}: {system} {key} = {value!r}, expected 0-4", path)
                    if value:
                        ratings[aspect][i, k] = float(value)
        except (KeyError, TypeError) as exc:
            raise DataError(f"item {k}: no {exc} (expected original, reference and systems "
                            f"{list(OSTLING_SYSTEMS)} rated by {OSTLING_ANNOTATOR})", path) from None

    def clean(lines):
        return tuple(normalise(x) for x in clean_lines(list(lines), path, unicode))

    return clean(originals), clean(references), {s: clean(v) for s, v in outputs.items()}, ratings


def _levels(level: str) -> tuple[str, ...]:
    if level == "all":
        return OSTLING_LEVELS
    if level not in OSTLING_LEVELS:
        raise ConfigError(f"dataset.level={level!r}; choose all, A, B or C (CEFR level)")
    return (level,)


def text_mismatches(root: str | Path, level: str, unicode: str = DEFAULT_UNICODE) -> dict[str, list[int]]:
    """Where the json's texts differ from the balanced-test files of one level (after the same
    Unicode and whitespace normalisation): name (``orig.txt``, ``corr.txt`` or a system) -> the
    1-based lines that differ."""
    if level not in OSTLING_LEVELS:
        raise ConfigError(f"level={level!r}; choose A, B or C (one CEFR level)")
    originals, references, outputs, _r = read_ostling_annotations(ostling_annotation_file(root, level), unicode)
    out = {}
    for name, texts in (("orig.txt", originals), ("corr.txt", references), *outputs.items()):
        lines = read_lines(ostling_text_file(root, level, name), expected=OSTLING_SIZE, unicode=unicode)
        out[name] = [k + 1 for k, (a, b) in enumerate(zip(texts, lines)) if a != b]
    return out


def load_ostling2024(root: str | Path, level: str = "all", text: str = "rated",
                     unicode: str = DEFAULT_UNICODE):
    """Östling et al. (2024): the balanced test set, rated by Katarina (the paper's annotator).

    Args:
        root: the data directory (holding ``ostling/``).
        level: ``all`` (A, B, C in this order: 192 sentences) or one CEFR level (64).
        text: ``rated`` (the json's outputs: what the annotator rated; default) or ``files``
            (the balanced-test output files; GPT-3's is untokenised).
        unicode: ``nfc+cf`` or ``raw`` (see :func:`gec_meta.data.io.clean_unicode`).

    Systems :data:`OSTLING_SYSTEMS`; reference ``corr`` (``corr.txt``); human system scores
    ``grammaticality``, ``fluency``, ``meaning``: the mean rating over the sentences with a rating
    (the paper's Table 4); segment ratings of the same names, shape (S, N), NaN for "other" (0).
    Sources and reference are checked equal to the json's ``original`` and ``reference``.
    """
    from gec_meta.data.dataset import Dataset, frozen_mapping, require_dir

    levels = _levels(level)
    if text not in OSTLING_TEXTS:
        raise ConfigError(f"dataset.text={text!r}; choose {' or '.join(OSTLING_TEXTS)}")
    check_unicode_mode(unicode)
    require_dir(Path(root) / "ostling", "Östling et al. 2024 data")
    sources, refs, hyps = [], [], {s: [] for s in OSTLING_SYSTEMS}
    segment = {a: [] for a in OSTLING_ASPECTS}
    for lv in levels:
        jpath = ostling_annotation_file(root, lv)
        originals, references, outputs, ratings = read_ostling_annotations(jpath, unicode)
        if len(originals) != OSTLING_SIZE:
            raise DataError(f"has {len(originals)} items, expected {OSTLING_SIZE}", jpath)
        src = read_lines(ostling_text_file(root, lv, "orig.txt"), expected=OSTLING_SIZE, unicode=unicode)
        ref = read_lines(ostling_text_file(root, lv, "corr.txt"), expected=OSTLING_SIZE, unicode=unicode)
        for name, mine, theirs in (("orig.txt", src, originals), ("corr.txt", ref, references)):
            bad = [k for k in range(OSTLING_SIZE) if mine[k] != theirs[k]]
            if bad:
                raise DataError(f"line {bad[0] + 1} differs from item {bad[0]} of {jpath} (the json and the "
                                f"text files are not the same sentences)", ostling_text_file(root, lv, name))
        sources += src
        refs += ref
        for s in OSTLING_SYSTEMS:
            hyps[s] += outputs[s] if text == "rated" else read_lines(
                ostling_text_file(root, lv, s), expected=OSTLING_SIZE, unicode=unicode)
        for a in OSTLING_ASPECTS:
            segment[a].append(ratings[a])
    seg = {a: np.concatenate(v, axis=1) for a, v in segment.items()}
    human = {a: np.nanmean(v, axis=1) for a, v in seg.items()}
    single = len(levels) == 1
    files = {}
    if single:
        files = {"corr": str(ostling_text_file(root, levels[0], "corr.txt"))}
        if text == "files":
            files.update({s: str(ostling_text_file(root, levels[0], s)) for s in OSTLING_SYSTEMS})
    n = len(sources)
    return Dataset(
        name="ostling2024",
        setting=level,
        corpus=f"ostling2024_{level}",
        sources=tuple(sources),
        systems=OSTLING_SYSTEMS,
        hypotheses=tuple(tuple(hyps[s]) for s in OSTLING_SYSTEMS),
        human=frozen_mapping(human),
        judgments=frozen_mapping({}),
        corpus_lines=tuple(range(n)),
        references=(tuple(refs),),
        reference_names=("corr",),
        options=frozen_mapping({**({} if text == "rated" else {"text": text}), "annotator": OSTLING_ANNOTATOR,
                         "unicode": unicode}),
        segment_scores=frozen_mapping(seg),
        files=frozen_mapping(files),
        language="sv",
    )
