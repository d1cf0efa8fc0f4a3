"""Reading plain-text, line-aligned corpora.

Every loader goes through :func:`read_lines`, which normalises whitespace the way the data
README prescribes (``' '.join(line.split())``: CRLF endings, trailing blanks and doubled
spaces in the CoNLL-2014 submissions disappear), tolerates a missing final newline (SEEDA's
files have none) and reports non-UTF-8 bytes with file and line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from gec_meta.errors import DataError, MissingDataError


def normalise(line: str) -> str:
    """Collapse all whitespace runs to one space and strip the ends."""
    return " ".join(line.split())


WHITESPACE_MODES = ("normalise", "rstrip")


def read_text(path: str | Path) -> tuple[bytes, str]:
    """The bytes of a data file and their UTF-8 text.

    Raises:
        MissingDataError: the file does not exist.
        DataError: non-UTF-8 bytes, naming the line.
    """
    path = Path(path)
    if not path.is_file():
        raise MissingDataError(f"{path}: no such file (run `make data` or set GEC_META_DATA)")
    raw = path.read_bytes()
    try:
        return raw, raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_no = raw[: exc.start].count(b"\n") + 1
        raise DataError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", path, line_no) from None


def read_lines(
    path: str | Path, expected: int | None = None, whitespace: str = "normalise"
) -> tuple[str, ...]:
    """Read a tokenised corpus: one sentence a line, whitespace-normalised.

    Args:
        path: the file.
        expected: if given, the number of lines the file must have.
        whitespace: ``normalise`` (``' '.join(line.split())``, the default) or ``rstrip``
            (strip line ends only, keeping leading or doubled spaces: how gec-metrics reads
            files; NTHU's GJG15 output has 3 lines with a leading space, which changes
            character-level numbers such as the ``length`` metric's).

    Returns:
        tuple of num_lines strings.  An empty line stays an empty string.

    Raises:
        MissingDataError: the file does not exist.
        DataError: non-UTF-8 bytes (names the line) or a wrong line count.
    """
    path = Path(path)
    text = read_text(path)[1]
    if text.startswith("\ufeff"):
        text = text[1:]
    if text == "":
        lines: list[str] = []
    else:
        # Split on \n only: str.splitlines() would also split on \x0b, \x1c, U+2028 ... which
        # occur inside sentences of some corpora and would shift every following line.
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()  # final newline
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if whitespace == "normalise":
        out = tuple(normalise(line) for line in lines)
    elif whitespace == "rstrip":
        out = tuple(line.rstrip() for line in lines)
    else:
        raise ValueError(f"whitespace must be one of {WHITESPACE_MODES}, got {whitespace!r}")
    if expected is not None and len(out) != expected:
        raise DataError(f"has {len(out)} lines, expected {expected}", path)
    return out


def check_same_length(named: dict[str, Sequence[str]], what: str = "lines") -> int:
    """Check that all named sequences have one length; return it.

    Raises:
        DataError: naming every sequence and its length when they differ.
    """
    lengths = {name: len(seq) for name, seq in named.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{name}: {n}" for name, n in lengths.items())
        raise DataError(f"mismatched number of {what} ({detail})")
    return next(iter(lengths.values()), 0)
