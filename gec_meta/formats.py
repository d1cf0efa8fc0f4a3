"""The versions of gec-meta's output formats, and their readers (CHANGELOG.md lists each change).

* ``results.json`` (one job): a top-level ``"format_version": 2`` (its first key);
* ``sentence_scores.tsv`` (one job): columns ``system``, ``sentence``, ``line``, ``score``,
  ``format_version`` (``2`` on every row);
* ``leaderboard.csv`` (``gec-meta leaderboard``): its columns, then ``format_version`` (``2``).

Format 1 is every file written before the version was named (2026-11-27); a reader that meets
it, or a version newer than it knows, stops with one line naming the file and what to do.  In
the TSV and CSV files the version is a last column rather than a leading ``#`` line, so that
readers by name (``pandas.read_csv``, ``csv.DictReader``, R's ``read.delim``) and by the position
of the other columns read them as before, without a ``comment`` option.

Readers read columns and keys by name: :func:`read_results`, :func:`read_sentence_scores`,
:func:`read_leaderboard`.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import NamedTuple, Sequence

from gec_meta.errors import DataError

#: The key (``results.json``) and the column (TSV/CSV) that name a file's format version.
VERSION_KEY = "format_version"
RESULTS_VERSION = 2
SENTENCE_SCORES_VERSION = 2
LEADERBOARD_VERSION = 2
SENTENCE_SCORES_COLUMNS = ("system", "sentence", "line", "score", VERSION_KEY)


def check_version(found, expected: int, path, what: str) -> None:
    """Stop with one line naming ``path`` unless ``found`` (a file's ``format_version``; None when
    it has none, i.e. format 1) is ``expected``."""
    if found is None:
        raise DataError(f"{what} written by an older gec-meta (format 1: no {VERSION_KEY!r}; this gec-meta reads "
                        f"format {expected}, CHANGELOG.md); rerun its job (its statistics come from the cache)", path)
    if isinstance(found, bool) or not isinstance(found, int) and not (isinstance(found, str) and found.isdigit()):
        raise DataError(f"{what} with {VERSION_KEY} {found!r}, not a format version (this gec-meta reads format "
                        f"{expected})", path)
    if int(found) != expected:
        newer = int(found) > expected
        raise DataError(f"{what} of format {int(found)}, {'newer' if newer else 'older'} than this gec-meta reads "
                        f"(format {expected}, CHANGELOG.md); "
                        + ("upgrade gec-meta to read it" if newer else "rerun its job"), path)


# --------------------------------------------------------------------------- results.json
def results_json(payload: dict) -> dict:
    """``payload`` (a :meth:`gec_meta.meta.task.Result.to_json`) with its format version first."""
    return {VERSION_KEY: RESULTS_VERSION, **{k: v for k, v in payload.items() if k != VERSION_KEY}}


def read_results(path: str | Path) -> dict:
    """One ``results.json``: the dict as written (``format_version`` included).

    Raises:
        DataError: naming the file, when it cannot be read, is not a result (truncated by a
            killed job, edited by hand, a directory), or is of another format version.
    """
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"cannot read this result file ({type(exc).__name__}: {exc}); rerun its job "
                        f"or delete it", path) from None
    if not isinstance(value, dict) or not all(
        isinstance(value.get(k) or {}, dict) for k in ("system", "sentence")
    ):
        raise DataError("is not a result file (a JSON object with 'system' and 'sentence' tables)", path)
    check_version(value.get(VERSION_KEY), RESULTS_VERSION, path, "a result file")
    return value


# --------------------------------------------------------------------------- sentence_scores.tsv
def sentence_scores_tsv(systems, scores, lines) -> str:
    """``sentence_scores.tsv``: one row per (system, sentence).

    Args:
        systems: shape (S,), the system names.
        scores: shape (S, N), the sentence scores the meta-evaluation compared (NaN = none).
        lines: shape (N,), the 0-based line of each sentence in the corpus file.

    Returns:
        the file's text: columns :data:`SENTENCE_SCORES_COLUMNS` (``sentence`` 0-based, ``line``
        1-based, ``score`` as Python's ``repr`` of the float, so it reads back bit for bit).
    """
    rows = ["\t".join(SENTENCE_SCORES_COLUMNS)]
    for s, system in enumerate(systems):
        rows.extend(f"{system}\t{n}\t{lines[n] + 1}\t{float(v)!r}\t{SENTENCE_SCORES_VERSION}"
                    for n, v in enumerate(scores[s]))
    return "\n".join(rows) + "\n"


class SentenceScore(NamedTuple):
    """One row of ``sentence_scores.tsv``."""

    system: str
    sentence: int  # 0-based index into the dataset's sentences
    line: int  # 1-based line of the corpus file
    score: float  # NaN = no score


def _check_header(header, version: int, columns: Sequence[str], path, what: str) -> None:
    """A table's header names the format-version column (else the file is of format 1) and
    every column in ``columns``.

    Raises:
        DataError: naming ``path`` (line 1 for a missing column).
    """
    header = header or []
    if VERSION_KEY not in header:
        check_version(None, version, path, what)
    missing = [c for c in columns if c not in header]
    if missing:
        raise DataError(f"has no column {missing[0]!r} (columns: {', '.join(header)})", path, 1)


def read_sentence_scores(path: str | Path) -> list[SentenceScore]:
    """The rows of a ``sentence_scores.tsv``, read by column name.

    Raises:
        DataError: naming the file and line, when a column is missing, a value is not a number,
            or the file is of another format version.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read this sentence-score file ({type(exc).__name__}: {exc})", path) from None
    reader = csv.DictReader(text.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE)
    _check_header(reader.fieldnames, SENTENCE_SCORES_VERSION, SENTENCE_SCORES_COLUMNS, path, "a sentence-score file")
    out = []
    for k, row in enumerate(reader, start=2):
        check_version(row[VERSION_KEY], SENTENCE_SCORES_VERSION, f"{path}:{k}", "a sentence-score file")
        try:
            score = float(row["score"])
            out.append(SentenceScore(row["system"], int(row["sentence"]), int(row["line"]), score))
        except (TypeError, ValueError):
            raise DataError(f"not a sentence-score row: {row}", path, k) from None
        if math.isinf(score):
            raise DataError(f"non-finite score {row['score']!r}", path, k)
    return out


# --------------------------------------------------------------------------- leaderboard.csv
def versioned_csv(text: str, version: int = LEADERBOARD_VERSION) -> str:
    """A CSV's text (a header, one record a line, none spanning lines) with the column
    ``format_version`` added last: ``version`` on every row.  The other columns are kept byte
    for byte."""
    lines = text.splitlines()
    if not lines:
        return text
    if any(line.count('"') % 2 for line in lines):
        raise ValueError("a CSV record spans lines: the version column cannot be appended line by line")
    out = [f"{lines[0]},{VERSION_KEY}", *(f"{line},{version}" for line in lines[1:])]
    return "\n".join(out) + "\n"


def leaderboard_rows(text: str, name: str | Path, columns: Sequence[str] = ()) -> list[dict[str, str]]:
    """The rows of a ``leaderboard.csv`` text (dicts by column name, ``format_version``
    included), its format version checked on every row.

    Args:
        text: the file's text; name: the file named in errors.
        columns: the columns the caller reads (each must be present, in any order).

    Raises:
        DataError: naming ``name`` (and the line) for another format version or a missing column.
    """
    reader = csv.DictReader(io.StringIO(text))
    _check_header(reader.fieldnames, LEADERBOARD_VERSION, columns, name, "a leaderboard file")
    rows = list(reader)
    for k, row in enumerate(rows, start=2):
        check_version(row[VERSION_KEY], LEADERBOARD_VERSION, f"{name}:{k}", "a leaderboard file")
    return rows


def read_leaderboard(path: str | Path) -> list[dict[str, str]]:
    """The rows of a ``leaderboard.csv`` file (:func:`leaderboard_rows`).

    Raises:
        DataError: naming the file, when it cannot be read or is of another format version.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read this leaderboard file ({type(exc).__name__}: {exc})", path) from None
    return leaderboard_rows(text, path)
