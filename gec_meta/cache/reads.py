"""Bounded reads: every cache file is checked before a byte of it is read.

A shared cache folder is writable by everyone who shares it, so an entry may be anything: a
symlink to ``/dev/zero`` (read to the end, it fills the memory of every job that reads it), a
FIFO (opening it blocks for ever), a directory, a link to a file outside the cache, or a
(sparse) file of terabytes.  :func:`open_entry` opens an entry only if it is a regular file
inside the cache root (a symlink is followed only to a regular file inside the root), opened
non-blocking and checked on the open descriptor (so it cannot be swapped in between), whose
size equals what its index records or, for files of no recorded size, is at most the bound
of its kind (:data:`LIMITS`).  Anything else is ignored -- reported once as a
:class:`~gec_meta.cache.entries.CacheWarning` naming it, removed unless it is a directory that is not empty --
and its value is recomputed, as for a corrupt entry.  (A non-empty directory is left where it
is: the value recomputed is then kept in memory, as when the cache cannot be written.)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from gec_meta.cache.entries import COUNTERS, _report

_MiB = 2**20

#: The largest file of each kind that is read (bytes), for files whose size no index records
#: (a sealed entry records its own length, but only inside the file).  Each is far above what
#: the benchmarks produce (a key-value shard holds one run's new values: ERRANT edits of a
#: dataset are a few MB, MiniLM edit vectors of GJG15 ~100 MB; a system's statistics
#: N x R x K float64 are < 10 MB; a digest is 64 hex digits) and far below a machine's memory.
LIMITS: dict[str, int] = {
    "kv": 4096 * _MiB,        # a KeyValueStore shard (.kvj)
    "index": 1024 * _MiB,     # an ArrayStore shard index (.jindex)
    "shard": 2**40,           # an ArrayStore shard (.npy; memory-mapped, its size recorded by its index)
    "array": 2048 * _MiB,     # one array per key (.arr): statistics, p-values, draws
    "parsed": 2048 * _MiB,    # a parsed data file (.pjson)
    "digest": 1 * _MiB,       # a model file's sha256 (.sha256)
    "journal": 1024 * _MiB,   # an LLM answer journal (.jsonl)
    "name": 1 * _MiB,         # a namespace's name (namespace.txt)
    "claim": 64 * 1024,       # a claim on a key being computed (.claim: a small JSON)
    "manifest": 1 * _MiB,     # the file list of a converted GGUF model (gec_meta.models.loading)
    "model_file": 2**40,      # a file of a converted GGUF model (its size recorded by the manifest)
}


class Refused(Exception):
    """Raised inside :func:`open_entry` with the reason an entry is not read (internal)."""


def _ignore(path: Path, reason: str) -> None:
    """Report the unsafe entry ``path`` once and remove it (a link, never its target; a
    directory only if it is empty)."""
    _report(f"unsafe:{path}", f"ignored cache entry {path} ({reason}); recomputing it")
    COUNTERS["unsafe"] += 1
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            os.rmdir(path)  # only if empty (so the recomputed entry can take its name)
        else:
            os.unlink(path)
    except OSError:  # gone, not empty, or a read-only folder: ignored all the same
        pass


def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _inside(path: Path, root: Path) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def open_entry(path: Path, root: Path, kind: str, size: int | None = None) -> BinaryIO | None:
    """``path`` opened for reading (binary, at offset 0), or None: absent (a miss, not
    reported), or refused (reported once, removed unless a directory; see the module docstring).

    Args:
        root: the cache root the entry must lie in (a symlink must resolve inside it).
        kind: the key of :data:`LIMITS` bounding a file of no recorded size.
        size: the size in bytes the entry's index records, if any: the file must have exactly
            this size.
    """
    try:
        lst = os.lstat(path)
    except OSError:
        return None
    fd = None
    try:
        if stat.S_ISLNK(lst.st_mode) and not _inside(path, root):
            raise Refused(f"a link out of the cache, to {os.path.realpath(path)}")
        try:  # non-blocking: opening a FIFO with no writer would wait for one for ever
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == getattr(os, "ENXIO", None):  # a socket or a FIFO that refuses readers
                raise Refused(_kind_of(os.stat(path).st_mode)) from None
            return None  # unreadable (permissions): a miss, as before
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            target = f" (a link to {os.path.realpath(path)})" if stat.S_ISLNK(lst.st_mode) else ""
            raise Refused(_kind_of(st.st_mode) + target)
        if size is not None and st.st_size != size:
            raise Refused(f"{st.st_size} bytes, its index records {size}")
        if st.st_size > LIMITS[kind]:
            raise Refused(f"{st.st_size} bytes, more than the {LIMITS[kind]} bytes such an entry may have")
        os.set_blocking(fd, True)
        fh = os.fdopen(fd, "rb")
        fd = None
        return fh
    except Refused as exc:
        _ignore(path, str(exc))
        return None
    finally:
        if fd is not None:
            os.close(fd)


def read_entry(path: Path, root: Path, kind: str, size: int | None = None) -> bytes | None:
    """The bytes of ``path`` checked by :func:`open_entry` (None: absent or refused); never more
    than the size the file had when it was checked (a file that grows meanwhile is cut there,
    and then fails its checksum)."""
    fh = open_entry(path, root, kind, size)
    if fh is None:
        return None
    with fh:
        try:
            return fh.read(os.fstat(fh.fileno()).st_size)
        except OSError:
            return None
