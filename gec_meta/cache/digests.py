"""The sha256 of model files, memoised by their stat in ``<cache>/digests``: what identifies a
local model in cache keys and signatures (:func:`file_sha256`)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from gec_meta.cache.entries import COUNTERS, DIGEST_SUFFIX, CorruptEntry, _drop, _seal, _try_write, _unseal
from gec_meta.cache.keys import cache_root, text_hash
from gec_meta.cache.reads import read_entry

_FILE_DIGESTS: dict[tuple, str] = {}


def file_sha256(path: str | Path) -> str:
    """The sha256 of a file's bytes, memoised by the file's identity on disk.

    What identifies a local model (its weights, tokenizer and config files) in cache keys and
    signatures, so two checkpoints that differ only in their weights never share an entry.  The
    memo is keyed by (real path, device, inode, size, mtime_ns, ctime_ns) -- ctime changes with
    every write and cannot be set back -- and kept in this process and on disk
    (``<cache>/digests``, one small entry per file version), so a warm run pays one ``stat``
    and one small read per file instead of reading the weights (~0.1 s per 100 MB cold).

    Raises:
        OSError: the file cannot be read.
    """
    real = os.path.realpath(path)
    st = os.stat(real)
    stamp = (real, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _FILE_DIGESTS.get(stamp)
    if known is not None:
        return known
    key = "file-sha256|" + "|".join(map(str, stamp))
    root = cache_root()
    memo = None if root is None else root / "digests" / f"{text_hash(key)[:40]}{DIGEST_SUFFIX}"
    digest = None
    blob = None if memo is None else read_entry(memo, root, "digest")
    if blob is not None:  # None: not memoised yet (or an unsafe file, ignored)
        try:
            digest = bytes(_unseal(key, blob)[1]).decode("ascii")
            if len(digest) != 64 or digest.strip("0123456789abcdef"):
                raise CorruptEntry("not a sha256")
            COUNTERS["digest_hit"] += 1
        except Exception as exc:
            _drop(memo, str(exc) or type(exc).__name__)
            digest = None
    if digest is None:
        COUNTERS["digest_miss"] += 1
        with open(real, "rb") as fh:
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
        after = os.stat(real)
        if (after.st_size, after.st_mtime_ns, after.st_ctime_ns) != stamp[3:]:
            return digest  # changed while it was read: not memoised
        if memo is not None:
            _try_write(memo, _seal(key, digest.encode("ascii")))
    _FILE_DIGESTS[stamp] = digest
    return digest

