"""Reading plain-text, line-aligned corpora.

Every loader goes through :func:`read_lines`, which normalises whitespace the way the data
README prescribes (``' '.join(line.split())``: CRLF endings, trailing blanks and doubled
spaces in the CoNLL-2014 submissions disappear), tolerates a missing final newline (SEEDA's
files have none) and reports non-UTF-8 bytes with file and line.

Every data file goes through :func:`read_text`, which also rejects what is not UTF-8 text
(UTF-16 with or without a byte-order mark, NUL bytes, a directory), drops a UTF-8 byte-order
mark, and tells :func:`recording_inputs` which files a job read (their sha256): resuming a
sweep reruns a job whose inputs changed (:mod:`gec_meta.cli.run`).

Every text that is scored (plain-text corpora through :func:`read_lines`, M2 files through
:func:`gec_meta.data.m2.read_m2`) then goes through :func:`clean_lines` line by line, after the
lines are split and before whitespace is normalised (``unicode="nfc+cf"``, the default): Unicode format characters (category Cf: right-to-left marks, zero-width spaces
and joiners, a byte-order mark inside a file, soft hyphens, ...) are removed and the text is put
in Normalisation Form C, so the same words always have the same code points -- otherwise a
right-to-left mark at each line start or NFD accents change every token they touch, and the
score with them, without a visible difference.  The changed lines are counted and reported
once per file (:class:`~gec_meta.errors.InputWarning` naming the first one); ``unicode="raw"``
keeps the text as it is.  No file of the benchmarks changes (tested).  Pure-ASCII files and
lines are passed through untouched, so the check costs nothing measurable on a warm run.
"""

from __future__ import annotations

import hashlib
import math
import os
import unicodedata
import warnings
from contextlib import contextmanager
from pathlib import Path
from stat import S_ISREG
from typing import Iterator, Sequence

from gec_meta.errors import ConfigError, DataError, InputWarning, MissingDataError


def normalise(line: str) -> str:
    """Collapse all whitespace runs to one space and strip the ends."""
    return " ".join(line.split())


WHITESPACE_MODES = ("normalise", "rstrip")

#: ``nfc+cf``: format characters (Unicode category Cf) removed, then NFC; ``raw``: unchanged.
UNICODE_MODES = ("nfc+cf", "raw")
DEFAULT_UNICODE = "nfc+cf"


def check_unicode_mode(mode: str, key: str = "dataset.unicode") -> str:
    """``mode`` if it is one of :data:`UNICODE_MODES`.

    Raises:
        ConfigError: naming ``key``.
    """
    if mode not in UNICODE_MODES:
        raise ConfigError(f"{key} must be one of {list(UNICODE_MODES)}, got {mode!r}")
    return mode


def clean_line(line: str) -> str:
    """One line without format characters (category Cf), in NFC.

    Format characters go first, so that a mark between a letter and its combining accent
    cannot keep them apart.  Pure-ASCII lines (almost all) are returned as they are.
    """
    if line.isascii():
        return line
    if any(unicodedata.category(ch) == "Cf" for ch in line if ord(ch) > 0x7F):
        line = "".join(ch for ch in line if ord(ch) <= 0x7F or unicodedata.category(ch) != "Cf")
    return unicodedata.normalize("NFC", line)


_UNICODE_REPORTED: set[tuple[str, str]] = set()  # (file, mode): warned once per process


def clean_lines(lines: list[str], path: str | Path, mode: str = DEFAULT_UNICODE) -> list[str]:
    """The lines of a file after :func:`clean_line` (``mode="nfc+cf"``), else as they are.

    When a line changed, warns once per file and process (:class:`~gec_meta.errors.InputWarning`)
    with the number of changed lines, the first one (``lines[k]`` is line k + 1) and what
    changed.

    Args:
        lines: the file's lines (the list is changed in place and returned).
        path: the file (for the warning).
        mode: one of :data:`UNICODE_MODES`.
    """
    check_unicode_mode(mode)
    if mode == "raw":
        return lines
    changed, first, removed, nfc = 0, 0, {}, 0
    for k, line in enumerate(lines):
        if line.isascii():
            continue
        new = clean_line(line)
        if new != line:
            changed += 1
            first = first or k + 1
            for ch in line:
                if ord(ch) > 0x7F and unicodedata.category(ch) == "Cf":
                    removed[ch] = removed.get(ch, 0) + 1
            nfc += unicodedata.normalize("NFC", line) != line
            lines[k] = new
    key = (str(path), mode)
    if changed and key not in _UNICODE_REPORTED:
        _UNICODE_REPORTED.add(key)
        names = [f"U+{ord(c):04X} {unicodedata.name(c, '?')} x{n}" for c, n in removed.items()]
        what = [f"removed {', '.join(names[:4])}{', ...' if len(names) > 4 else ''}"] if names else []
        what += [f"{nfc} line(s) not in NFC"] if nfc else []
        warnings.warn(
            f"{path}:{first}: {changed} line(s) changed by Unicode normalisation ({'; '.join(what)}); "
            "scored as normalised (dataset.unicode=raw, gec-meta --unicode raw: keep the raw text)",
            InputWarning, stacklevel=3,
        )
    return lines


def clean_unicode(text: str, path: str | Path, mode: str = DEFAULT_UNICODE) -> str:
    """A file's text with :func:`clean_lines` applied to its lines (split on ``\\n`` only,
    so line numbers stay the file's)."""
    if check_unicode_mode(mode) == "raw" or text.isascii():
        return text
    return "\n".join(clean_lines(text.split("\n"), path, mode))


_RECORDERS: list[dict[str, str]] = []  # open recording_inputs() scopes of this process


@contextmanager
def recording_inputs() -> Iterator[dict[str, str]]:
    """Record the data files read inside the ``with`` block: {absolute path: sha256 of the bytes}.

    The hook is :func:`record_input`, which :func:`read_text` (and so every reader of this
    package) calls; outside a recording scope it costs nothing.
    """
    record: dict[str, str] = {}
    _RECORDERS.append(record)
    try:
        yield record
    finally:
        _RECORDERS.remove(record)


# sha256 of the files this process read or checked: {absolute path: (size, mtime_ns, sha256)}.
# A sweep reads the same data files in every job; each version of a file is hashed once.
_DIGESTS: dict[str, tuple[int, int, str]] = {}


def _digest(key: str, raw: bytes, stat: os.stat_result | None) -> str:
    if stat is not None:
        known = _DIGESTS.get(key)
        if known is not None and known[:2] == (stat.st_size, stat.st_mtime_ns) and len(raw) == stat.st_size:
            return known[2]
    digest = hashlib.sha256(raw).hexdigest()
    if stat is not None and len(raw) == stat.st_size:
        _DIGESTS[key] = (stat.st_size, stat.st_mtime_ns, digest)
    return digest


def record_input(path: str | Path, raw: bytes, stat: os.stat_result | None = None) -> None:
    """Tell open :func:`recording_inputs` scopes that ``raw`` was read from ``path``.

    Args:
        stat: the file's ``os.stat`` taken before reading it (lets a process hash each
            version of a file once).
    """
    if _RECORDERS:
        key = str(Path(path).absolute())
        digest = _digest(key, raw, stat)
        for record in _RECORDERS:
            record[key] = digest


def file_digest(path: str | Path) -> str | None:
    """sha256 of a file's bytes now, or None when it is not a readable file (memoised per
    process and file version, like the digests of :func:`record_input`)."""
    key = str(Path(path).absolute())
    try:
        stat = os.stat(key)
        if not S_ISREG(stat.st_mode):  # a FIFO would block, /dev/zero never end
            return None
        known = _DIGESTS.get(key)
        if known is not None and known[:2] == (stat.st_size, stat.st_mtime_ns):
            return known[2]
        raw = Path(key).read_bytes()
    except OSError:
        return None
    return _digest(key, raw, stat)


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a data file (recorded for :func:`recording_inputs`).

    Raises:
        MissingDataError: the file does not exist.
        DataError: the path is a directory, not a regular file (a FIFO, a device such as a
            symlink to /dev/zero: reading it would block or never end) or cannot be read.
    """
    path = Path(path)
    if path.is_dir():
        raise DataError("is a directory, expected a file", path)
    if not path.is_file():
        if not path.exists():
            raise MissingDataError(f"{path}: no such file (run `make data` or set GEC_META_DATA)")
        raise DataError("not a regular file (a FIFO, socket or device), expected a file", path)
    try:
        stat = path.stat()
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot be read ({exc.strerror or exc})", path) from None
    record_input(path, raw, stat)
    return raw


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def decode_utf8(raw: bytes, path: str | Path) -> str:
    """UTF-8 text of a data file's bytes, without a byte-order mark.

    Raises:
        DataError: UTF-16 (with a byte-order mark, or without one: NUL bytes between ASCII
            bytes), other NUL bytes, or non-UTF-8 bytes; naming the line.
    """
    if raw.startswith(_UTF16_BOMS):
        raise DataError("is UTF-16 (byte-order mark), not UTF-8: convert it (iconv -f UTF-16 -t UTF-8)", path, 1)
    nul = raw.find(b"\0")
    if nul >= 0:
        line_no = raw[:nul].count(b"\n") + 1
        start = nul - nul % 2
        sample = raw[max(0, start - 256) : start + 256]
        even, odd = sample[0::2].count(0), sample[1::2].count(0)
        # UTF-16 of mostly ASCII text: NULs at one parity of byte positions only.
        if max(even, odd) >= len(sample) // 8 and min(even, odd) <= max(even, odd) // 8:
            raise DataError(
                "looks like UTF-16 without a byte-order mark (NUL bytes between ASCII bytes), "
                "not UTF-8: convert it (iconv -f UTF-16LE or UTF-16BE -t UTF-8)", path, line_no,
            )
        raise DataError(f"contains a NUL byte (at byte {nul}): not a text file", path, line_no)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_no = raw[: exc.start].count(b"\n") + 1
        raise DataError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", path, line_no) from None
    return text[1:] if text.startswith("\ufeff") else text


def read_text(path: str | Path) -> tuple[bytes, str]:
    """The bytes of a data file and their UTF-8 text (byte-order mark dropped).

    Raises:
        MissingDataError: the file does not exist.
        DataError: a directory, UTF-16, NUL bytes or non-UTF-8 bytes (naming the line).
    """
    raw = read_bytes(path)
    return raw, decode_utf8(raw, path)


def read_lines(
    path: str | Path, expected: int | None = None, whitespace: str = "normalise",
    unicode: str = DEFAULT_UNICODE,
) -> tuple[str, ...]:
    """Read a tokenised corpus: one sentence a line, Unicode- and whitespace-normalised.

    Args:
        path: the file.
        expected: if given, the number of lines the file must have.
        whitespace: ``normalise`` (``' '.join(line.split())``, the default) or ``rstrip``
            (strip line ends only, keeping leading or doubled spaces: how gec-metrics reads
            files; NTHU's GJG15 output has 3 lines with a leading space, which changes
            character-level numbers such as the ``length`` metric's).
        unicode: ``nfc+cf`` (format characters removed, NFC: :func:`clean_unicode`, the
            default) or ``raw``.

    Returns:
        tuple of num_lines strings.  An empty line stays an empty string.

    Raises:
        MissingDataError: the file does not exist.
        DataError: non-UTF-8 bytes (names the line) or a wrong line count.
    """
    path = Path(path)
    check_unicode_mode(unicode)
    text = read_text(path)[1]
    if text == "":
        lines: list[str] = []
    else:
        # Split on \n only: str.splitlines() would also split on \x0b, \x1c, U+2028 ... which
        # occur inside sentences of some corpora and would shift every following line.
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()  # final newline
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
        if not text.isascii():
            lines = clean_lines(lines, path, unicode)
    if whitespace == "normalise":
        out = tuple(normalise(line) for line in lines)
    elif whitespace == "rstrip":
        out = tuple(line.rstrip() for line in lines)
    else:
        raise ValueError(f"whitespace must be one of {WHITESPACE_MODES}, got {whitespace!r}")
    if expected is not None and len(out) != expected:
        raise DataError(f"has {len(out)} lines, expected {expected}", path)
    return out


def read_floats(path: str | Path) -> list[float]:
    """One finite number a line (human score files, score files of ``metric=from_files``).

    Raises:
        DataError: a line that is not a number, or NaN/inf, naming the file and line.
    """
    out = []
    for k, line in enumerate(read_lines(path), start=1):
        try:
            x = float(line)
        except ValueError:
            raise DataError(f"not a number: {line[:40]!r}", path, k) from None
        if not math.isfinite(x):
            raise DataError(f"non-finite score {line!r}", path, k)
        out.append(x)
    return out


def check_nonempty(sentences: Sequence[str], path: str | Path) -> None:
    """Reject a corpus without sentences (every metric would score it perfect: P = R = F = 1).

    Raises:
        DataError: naming the file, when it has no lines or only blank ones.
    """
    if not any(sentences):
        what = "no lines" if not sentences else f"only blank lines ({len(sentences)})"
        raise DataError(f"has {what}: an empty corpus cannot be scored", path)


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
