"""Sealed entries: the file format every cache entry shares, its verification and its writing.

An entry is a magic line, a JSON header (the hash of the key it was written under, the
payload's length and CRC-32 checksum, plus a store's own fields) and the payload
(:func:`_seal`); :func:`_unseal` verifies all of it.  Also here: the process-wide hit/miss
:data:`COUNTERS`, :class:`CacheWarning` with the once-per-entry report of a dropped entry
(:func:`_drop`), and the atomic write every store uses (:func:`_try_write`: an unwritable
cache folder is reported once and the run goes on without storing).
"""

from __future__ import annotations

import json
import math
import warnings
import zlib
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from gec_meta.cache.keys import cache_root, text_hash
from gec_meta.outputs import replace_atomically

#: Process-wide cache accounting: ``{kind}_hit`` / ``{kind}_miss`` for kind in kv, arrays,
#: stats (per-system statistics arrays), parsed, draws; ``kv_put`` / ``arrays_put`` count
#: the values computed and stored (a lookup right after computing counts as a hit).
COUNTERS: Counter = Counter()


class CacheWarning(UserWarning):
    """A cache entry was corrupt (dropped and recomputed) or the cache folder is unusable."""


class CorruptEntry(Exception):
    """Raised by :func:`_unseal` when an entry fails verification (internal)."""


_REPORTED: set[str] = set()


def _report(subject: str, message: str) -> None:
    """Warn once per process about ``subject`` (an entry or a folder)."""
    if subject in _REPORTED:
        return
    _REPORTED.add(subject)
    warnings.warn(f"gec-meta cache: {message}", CacheWarning, stacklevel=3)


def _drop(path: Path, reason: str, *others: Path) -> None:
    """Report the corrupt entry ``path`` once and delete it (and its companion files)."""
    _report(str(path), f"dropped corrupt entry {path} ({reason}); recomputing it")
    COUNTERS["corrupt"] += 1
    for p in (path, *others):
        try:
            p.unlink()
        except OSError:  # gone already, or a read-only folder: it is ignored all the same
            pass


def checksum(data) -> str:
    """The integrity checksum of bytes (or any C-contiguous buffer): ``crc32:<8 hex digits>``."""
    return f"crc32:{zlib.crc32(data) & 0xFFFFFFFF:08x}"


_MAGIC = b"gec-meta-entry-1\n"

# File names of the entries of this format (data only).  Earlier formats used other suffixes
# (:data:`OLD_FORMATS`), so their files are never opened: old entries are simply misses.
KV_SUFFIX = ".kvj"          # key-value shard: JSON values + raw arrays
INDEX_SUFFIX = ".jindex"    # ArrayStore shard index (JSON) beside its .npy buffer
PARSED_SUFFIX = ".pjson"    # a parsed data file (JSON, one encoding per type)
DIGEST_SUFFIX = ".sha256"   # the sha256 of a model file, memoised by its stat (:func:`file_sha256`)
#: Glob patterns (under the cache root) of entries written by earlier versions: pickles,
#: never read (``make cache-info`` counts them, ``make cache-clear`` removes them).
OLD_FORMATS = ("kv/*/*.kvs", "kv/*/*.pkl", "arrays-kv/*/*.index", "parsed/*.parsed")


def _seal(key: str, payload: bytes, **meta) -> bytes:
    """``payload`` with a header holding the key's hash, its length and checksum (+ ``meta``)."""
    header = json.dumps({"key": text_hash(key)[:32], "nbytes": len(payload), "checksum": checksum(payload),
                         **meta}).encode("utf-8")
    return _MAGIC + len(header).to_bytes(4, "little") + header + payload


def _unseal(key: str, blob: bytes) -> tuple[dict, memoryview]:
    """(header, payload) of a :func:`_seal` blob written under ``key``; :class:`CorruptEntry` if
    it is not one, was written under another key, or its payload is not the one checksummed."""
    n = len(_MAGIC)
    if blob[:n] != _MAGIC or len(blob) < n + 4:
        raise CorruptEntry("not a gec-meta cache entry")
    size = int.from_bytes(blob[n:n + 4], "little")
    try:
        header = json.loads(blob[n + 4:n + 4 + size])
    except ValueError:
        raise CorruptEntry("unreadable header") from None
    payload = memoryview(blob)[n + 4 + size:]
    if not isinstance(header, dict) or header.get("key") != text_hash(key)[:32]:
        raise CorruptEntry("written under another key")
    if header.get("nbytes") != len(payload):
        raise CorruptEntry(f"{len(payload)} bytes, expected {header.get('nbytes')} (truncated?)")
    if header.get("checksum") != checksum(payload):
        raise CorruptEntry("checksum mismatch")
    return header, payload


def _size(shape: Sequence[int]) -> int:
    """Number of elements of an array of ``shape`` (its dimensions ints): exact, where numpy's
    int64 ``prod`` of a forged shape can wrap around, and ~20x faster on a short tuple."""
    return math.prod(shape)


def _tally(store, kind: str, found: bool) -> None:
    """Count one lookup of ``store`` (its own counters and :data:`COUNTERS`)."""
    if found:
        store.hits += 1
        COUNTERS[f"{kind}_hit"] += 1
    else:
        store.misses += 1
        COUNTERS[f"{kind}_miss"] += 1


class _LookupCounts:
    """The cache accounting of one store object (timing.json's ``<kind>_hit`` / ``<kind>_miss``):
    each value is one hit (found in the cache) or one miss (computed), whatever order its caller
    looks it up, stores it and reads it back -- ``in``, put, get, or get, put, get."""

    def __init__(self, kind: str):
        self.kind = kind
        self.missed: set[str] = set()  # keys whose lookup was counted as a miss
        self.computed: set[str] = set()  # keys the store was given: reading them back counts nothing

    def lookup(self, store, key: str, found: bool) -> None:
        """A read of ``key`` from ``store``."""
        if key not in self.computed:
            _tally(store, self.kind, found)
            if not found:
                self.missed.add(key)

    def stored(self, store, key: str) -> None:
        """``key`` given to ``store``: computed, so a miss, unless its lookup was counted as one."""
        if key not in self.missed and key not in self.computed:
            _tally(store, self.kind, False)
        self.computed.add(key)


def _write_namespace(folder: Path, namespace: str) -> None:
    """The namespace's name beside its shards (for ``make cache-info``)."""
    if not (folder / "namespace.txt").exists():
        _try_write(folder / "namespace.txt", namespace.encode("utf-8"))



def _try_write(path: Path, data: bytes | Sequence) -> bool:
    """:func:`_atomic_write`, or False (reported once per folder) when the cache folder cannot
    be written: read-only, not a directory, or a full disk.  The caller keeps its value."""
    try:
        _atomic_write(path, data)
    except OSError as exc:
        root = cache_root()
        where = root if root is not None and root in path.parents else path.parent
        _report(f"unwritable:{where}", f"cannot write to {where} ({exc.strerror or exc}); "
                "running without storing results in the cache")
        COUNTERS["write_failed"] += 1
        return False
    return True


def _atomic_write(path: Path, data: bytes | Sequence) -> None:
    """Write ``data`` (bytes, or a sequence of buffers written one after another: a shard's
    header and blocks, never joined in memory) to a temporary file beside ``path``, then rename
    it to ``path`` (atomic on POSIX and on NFS, whose server performs the rename;
    :func:`gec_meta.outputs.replace_atomically`).  The temporary name ends in ``.tmp``, so it
    never matches a shard pattern (``*.kvj``, ``*.jindex``): a job opening the store meanwhile
    neither reads the unfinished file nor deletes it as corrupt."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        replace_atomically(path, data, mode=None)
    else:
        replace_atomically(path, lambda fh: [fh.write(part) for part in data], mode=None)


def _shards(folder: Path | None, pattern: str) -> list[Path]:
    """The shard files of a store folder, sorted (none if it is missing or unreadable)."""
    if folder is None:
        return []
    try:
        return sorted(folder.glob(pattern)) if folder.is_dir() else []
    except OSError:
        return []


def _plain(value: Any) -> Any:
    """``json.dumps``' fallback: numpy scalars as Python numbers; anything else is refused (a
    cached value is data: JSON types and, at the top level of a key-value shard, arrays)."""
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return value.item()
    raise TypeError(f"the cache stores JSON data and numeric arrays, not {type(value).__name__}")


#: Array dtype kinds a cache entry may hold: bool, signed/unsigned int, float, complex.
_NUMERIC = "biufc"

