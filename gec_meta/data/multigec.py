"""MultiGEC-2025 human evaluation: a text-free, system-level meta-evaluation.

The shared task's texts and team outputs are not public (Språkbanken's terms-of-use form); what
is public (data README section 10.4, ``multigec/``):

* ``annotation/{swe_eval,eng_eval}`` (emilia-piotrowska/MultiGEC-2025-annotation): blocks
  ``#ORIGINAL``, ``#LATTICE``, ``#RUMCULL-MIN``, ``#RUMCULL-FLU``, ``#UAM-CSI-MIN``,
  ``#UAM-CSI-FLU``, ``#REFERENCE``, each followed by one line per text
  ``Grammaticality: {1-4} Fluency: {1-4}`` (50 texts each; English: texts 50-59, 150-159, ...
  of its test file).  Four lines of the files misspell a label (``Grammaticlaity``, swe_eval
  109 and eng_eval 310; ``Fleuncy``, swe_eval 167) or end in a space: read as the label meant.
* ``results/test_results_{minimal,fluency}.md`` (spraakbanken/multigec-2025): per language and
  corpus a table ``| Rank | Team | GLEU | Precision | Recall | F0.5 | Scribendi |``.

Systems are the rated team submissions that have official scores: the minimal track's Lattice,
Rum-Cull and UAM-CSI, the fluency track's Rum-Cull and UAM-CSI (``track=all``: the five).  The
rated ORIGINAL and REFERENCE have no official scores (they would need the texts), and the
baseline has scores but no ratings.  So a correlation rests on 2-5 systems.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from gec_meta.data.io import read_text
from gec_meta.errors import ConfigError, DataError

#: language code -> (annotation file, heading of the results' language section, corpus).
MULTIGEC_LANGUAGES = {"sv": ("swe_eval", "Swedish", "SweLL_gold"), "en": ("eng_eval", "English", "Write & Improve 2024")}
MULTIGEC_TRACKS = ("minimal", "fluency", "all")
#: The annotation blocks in file order.
MULTIGEC_BLOCKS = ("ORIGINAL", "LATTICE", "RUMCULL-MIN", "RUMCULL-FLU", "UAM-CSI-MIN", "UAM-CSI-FLU", "REFERENCE")
#: Rated team submissions: block -> (team in the results tables, track).
MULTIGEC_SUBMISSIONS = {
    "LATTICE": ("Lattice", "minimal"), "RUMCULL-MIN": ("Rum-Cull", "minimal"), "UAM-CSI-MIN": ("UAM-CSI", "minimal"),
    "RUMCULL-FLU": ("Rum-Cull", "fluency"), "UAM-CSI-FLU": ("UAM-CSI", "fluency"),
}
MULTIGEC_TEXTS = 50
#: The official metric columns of the results tables: name here -> column header.
MULTIGEC_COLUMNS = {"gleu": "GLEU", "precision": "Precision", "recall": "Recall", "f05": "F0.5",
                    "scribendi": "Scribendi"}
MULTIGEC_ASPECTS = ("grammaticality", "fluency")
#: Why no text-based metric runs on this dataset (one line for the user).
TEXTS_NOT_PUBLIC = ("the MultiGEC-2025 texts and system outputs are not public (Språkbanken's terms-of-use form), "
                    "so only score-file metrics run on dataset=multigec2025: metric=multigec_official "
                    "(metric.column=gleu|precision|recall|f05|scribendi) or metric=from_files")

_LABEL = re.compile(r"(Grammaticality|Grammaticlaity):\s*([1-4])\s+(Fluency|Fleuncy):\s*([1-4])")


def read_multigec_ratings(path: Path) -> dict[str, np.ndarray]:
    """One annotation file: block name -> ratings, shape (2, T) (grammaticality, fluency).

    Raises:
        DataError: a line that is neither a block header nor a rating, a rating before the first
            header, a missing block or blocks of different lengths (naming file and line).
    """
    blocks: dict[str, list[tuple[int, int]]] = {}
    current = None
    for i, line in enumerate(read_text(path)[1].split("\n"), start=1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            current = line[1:].strip()
            if current in blocks:
                raise DataError(f"block #{current} appears twice", path, i)
            blocks[current] = []
            continue
        m = _LABEL.fullmatch(line)
        if m is None or current is None:
            raise DataError(f"expected 'Grammaticality: 1-4 Fluency: 1-4' under a #SYSTEM line, got {line!r}", path, i)
        blocks[current].append((int(m.group(2)), int(m.group(4))))
    missing = [b for b in MULTIGEC_BLOCKS if b not in blocks]
    if missing:
        raise DataError(f"no block #{missing[0]} (expected {', '.join('#' + b for b in MULTIGEC_BLOCKS)})", path)
    sizes = {b: len(v) for b, v in blocks.items()}
    if len(set(sizes.values())) != 1:
        raise DataError(f"blocks rate different numbers of texts: {sizes}", path)
    return {b: np.array(v, dtype=np.float64).T for b, v in blocks.items()}


def read_results_table(path: Path, heading: str) -> dict[str, dict[str, float]]:
    """The table under ``## <heading>`` of an official results file: team -> column -> value
    (markdown bold ``__x__`` removed; keys of :data:`MULTIGEC_COLUMNS`).  Lines are compared
    stripped, so a file with Windows line ends (CRLF) or trailing blanks reads the same."""
    lines = [line.strip() for line in read_text(path)[1].split("\n")]
    try:
        start = lines.index(f"## {heading}")
    except ValueError:
        raise DataError(f"no section '## {heading}'", path) from None
    header, out = None, {}
    for i in range(start + 1, len(lines)):
        line = lines[i].strip()
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            continue
        cells = [c.strip().strip("_") for c in line.strip("|").split("|")]
        if header is None:
            header = cells
            missing = [c for c in ("Team", *MULTIGEC_COLUMNS.values()) if c not in header]
            if missing:
                raise DataError(f"table header {header} has no column {missing[0]!r}", path, i + 1)
            continue
        if set(line) <= set("|- "):
            continue
        if len(cells) != len(header):
            raise DataError(f"expected {len(header)} cells, got {len(cells)}", path, i + 1)
        row = dict(zip(header, cells))
        try:
            out[row["Team"]] = {k: float(row[c]) for k, c in MULTIGEC_COLUMNS.items()}
        except ValueError:
            raise DataError(f"non-numeric score in {line!r}", path, i + 1) from None
    if not out:
        raise DataError(f"no table rows under '## {heading}'", path)
    return out


def _check(language: str, track: str) -> None:
    if language not in MULTIGEC_LANGUAGES:
        raise ConfigError(f"dataset.language={language!r}; choose {' or '.join(MULTIGEC_LANGUAGES)} "
                          f"(the languages MultiGEC-2025 rated)")
    if track not in MULTIGEC_TRACKS:
        raise ConfigError(f"dataset.track={track!r}; choose {', '.join(MULTIGEC_TRACKS)}")


def multigec_systems(track: str) -> tuple[str, ...]:
    """The rated submissions of ``track`` (block names), in file order."""
    return tuple(b for b in MULTIGEC_BLOCKS if b in MULTIGEC_SUBMISSIONS
                 and (track == "all" or MULTIGEC_SUBMISSIONS[b][1] == track))


def official_scores(root: str | Path, language: str = "sv", track: str = "minimal") -> dict[str, np.ndarray]:
    """The official test scores of the rated submissions: column -> shape (S,), systems in
    :func:`multigec_systems` order (each from its own track's table)."""
    _check(language, track)
    _, heading, _ = MULTIGEC_LANGUAGES[language]
    folder = Path(root) / "multigec" / "results"
    tables = {t: read_results_table(folder / f"test_results_{t}.md", heading) for t in ("minimal", "fluency")}
    systems = multigec_systems(track)
    out = {}
    for column in MULTIGEC_COLUMNS:
        values = []
        for b in systems:
            team, tr = MULTIGEC_SUBMISSIONS[b]
            if team not in tables[tr]:
                raise DataError(f"no row for team {team!r} under '## {heading}'", folder / f"test_results_{tr}.md")
            values.append(tables[tr][team][column])
        out[column] = np.array(values)
    return out


def multigec_ratings(root: str | Path, language: str = "sv", track: str = "minimal") -> dict[str, np.ndarray]:
    """aspect -> the per-text ratings of the track's systems, shape (S, T)."""
    _check(language, track)
    path = Path(root) / "multigec" / "annotation" / MULTIGEC_LANGUAGES[language][0]
    blocks = read_multigec_ratings(path)
    systems = multigec_systems(track)
    n = blocks[systems[0]].shape[1]
    if n != MULTIGEC_TEXTS:
        raise DataError(f"rates {n} texts per block, expected {MULTIGEC_TEXTS}", path)
    return {a: np.stack([blocks[s][k] for s in systems]) for k, a in enumerate(MULTIGEC_ASPECTS)}


def load_multigec2025(root: str | Path, language: str = "sv", track: str = "minimal"):
    """MultiGEC-2025's human ratings as a text-free dataset.

    Args:
        root: the data directory (holding ``multigec/``).
        language: ``sv`` (SweLL_gold, 50 texts) or ``en`` (Write & Improve 2024, 50 texts).
        track: ``minimal`` (Lattice, Rum-Cull, UAM-CSI: 3 systems), ``fluency`` (Rum-Cull,
            UAM-CSI: 2) or ``all`` (the 5 submissions).

    Human system scores ``grammaticality`` and ``fluency``: the mean rating over the 50 texts
    (every text rated).  No segment ratings: no metric has per-text scores here.  Sources and
    hypotheses are empty placeholders (shape (T,)); a text-based metric stops
    (:func:`require_texts`); the official scores are the metric ``multigec_official``.
    """
    from gec_meta.data.dataset import Dataset, frozen_mapping, require_dir

    _check(language, track)
    require_dir(Path(root) / "multigec", "MultiGEC-2025 annotation data")
    ratings = multigec_ratings(root, language, track)
    systems = multigec_systems(track)
    official_scores(root, language, track)  # every system has a row: fail at load time, not in the metric
    placeholder = ("",) * MULTIGEC_TEXTS
    return Dataset(
        name="multigec2025",
        setting=track,
        corpus=f"multigec2025_{language}",
        sources=placeholder,
        systems=systems,
        hypotheses=(placeholder,) * len(systems),
        human=frozen_mapping({a: r.mean(axis=1) for a, r in ratings.items()}),
        judgments=frozen_mapping({}),
        corpus_lines=tuple(range(MULTIGEC_TEXTS)),
        options=frozen_mapping({"texts": "none"}),
        language=language,
    )


def require_texts(dataset, metric) -> None:
    """Stop a metric that reads texts on a text-free dataset (``texts=none``), with one line."""
    if dataset.options.get("texts") == "none" and getattr(metric, "reads_texts", True):
        raise ConfigError(f"metric={metric.name}: {TEXTS_NOT_PUBLIC}")
