"""Writing files whole: a temporary file beside the target, renamed into place.

Every file gec-meta writes (result files, reports, tables, figures, cache entries) goes through
:func:`replace_atomically`, so a reader sees the old file or the new one, never a half-written
one, and a failed write leaves nothing behind: the temporary (``.<name>.XXXX.tmp``) is removed
before the error propagates.  :func:`write_output` is the form for results: a full disk, a
file past ``ulimit -f`` or a read-only folder becomes one :class:`OutputError` naming the file
(``<path>: no space left on device``) instead of a bare ``[Errno 28]`` traceback.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable

from gec_meta.errors import GecMetaError


class OutputError(GecMetaError, OSError):
    """A result file could not be written; the message names the file and why."""


# Python ignores SIGXFSZ, so a file past `ulimit -f` is an OSError (EFBIG) like a full disk.
_REASONS = {
    errno.ENOSPC: "no space left on device",
    errno.EFBIG: "file too large (ulimit -f)",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
}


def output_error(path: str | Path, exc: OSError) -> OutputError:
    """The :class:`OutputError` of ``exc`` raised while writing ``path``."""
    reason = _REASONS.get(exc.errno) or f"cannot write it ({exc.strerror or exc})"
    return OutputError(f"{path}: {reason}")


def replace_atomically(path: Path, data: bytes | Callable[[BinaryIO], None], mode: int | None = 0o644) -> None:
    """Write ``data`` (bytes, or a function writing to a binary file) to a temporary file in
    ``path``'s folder, then rename it to ``path`` (atomic on POSIX and NFS).

    Args:
        mode: permissions of the new file (``mkstemp`` creates 0600; results are meant to be
            shared); None keeps 0600.

    Raises:
        OSError: as raised; the temporary file is gone by then.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            if callable(data):
                data(fh)
            else:
                fh.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_output(path: str | Path, data: str | bytes | Callable[[BinaryIO], None], *,
                 named: str | Path | None = None) -> None:
    """Write a result file atomically (text is UTF-8).

    Args:
        named: the path the error names, when ``path`` is a staging copy of it.

    Raises:
        OutputError: naming the file, when it cannot be written (full disk, ``ulimit -f``,
            read-only or missing permissions).
    """
    path = Path(path)
    try:
        replace_atomically(path, data.encode("utf-8") if isinstance(data, str) else data)
    except OSError as exc:
        raise output_error(path if named is None else named, exc) from None


def save_figure(fig, path: str | Path, dpi: int) -> Path:
    """``fig.savefig`` as PNG through :func:`write_output` (atomic; one error naming the file)."""
    path = Path(path)
    write_output(path, lambda fh: fig.savefig(fh, format="png", dpi=dpi))
    return path
