"""One numpy array per key (a metric's statistics of one system on a dataset, SPA and cluster
p-values), each entry a sealed file holding its dtype and shape (:func:`load_array`,
:func:`save_array`)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from gec_meta.cache.entries import COUNTERS, CorruptEntry, _drop, _seal, _size, _try_write, _unseal
from gec_meta.cache.keys import cache_root, text_hash
from gec_meta.cache.reads import read_entry


def _array_path(key: str, root: Path) -> Path:
    return root / "arrays" / f"{text_hash(key)[:40]}.arr"


def entry_exists(key: str, root: Path | None = None) -> bool:
    """Whether something is stored under ``key`` (not read, not verified, not counted)."""
    root = cache_root() if root is None else root
    return root is not None and os.path.lexists(_array_path(key, root))


def load_array(key: str, root: Path | None = None, kind: str = "stats") -> np.ndarray | None:
    """The array stored under ``key``, or None (counted as ``{kind}_hit`` / ``{kind}_miss``).

    The entry is verified (key, checksum, dtype and shape of :func:`save_array`); a corrupt one
    is dropped, reported once and read as a miss, so the caller recomputes it."""
    root = cache_root() if root is None else root
    if root is None:
        return None
    path = _array_path(key, root)
    blob = read_entry(path, root, "array")
    if blob is None:
        COUNTERS[f"{kind}_miss"] += 1
        return None
    try:
        header, payload = _unseal(key, blob)
        dtype, shape = np.dtype(header["dtype"]), tuple(header["shape"])
        if dtype.hasobject or len(payload) != dtype.itemsize * _size(shape):
            raise CorruptEntry(f"{len(payload)} bytes for {dtype} of shape {shape}")
        out = np.frombuffer(payload, dtype=dtype).reshape(shape).copy()
    except Exception as exc:
        _drop(path, str(exc) or type(exc).__name__)
        COUNTERS[f"{kind}_miss"] += 1
        return None
    COUNTERS[f"{kind}_hit"] += 1
    return out


def drop_array(key: str, reason: str, root: Path | None = None) -> None:
    """Drop the entry of ``key`` that its reader found wrong (e.g. non-finite statistics),
    reported once like any corrupt entry."""
    root = cache_root() if root is None else root
    if root is not None:
        _drop(_array_path(key, root), reason)


def save_array(key: str, array: np.ndarray, root: Path | None = None, about: dict | None = None) -> None:
    """Store ``array`` under ``key`` atomically, with its checksum, dtype, shape and ``about``
    (a description for people reading the cache) in the entry's header."""
    root = cache_root() if root is None else root
    if root is None:
        return
    arr = np.ascontiguousarray(array)
    if arr.dtype.hasobject:
        raise TypeError("save_array stores numeric arrays only")
    _try_write(_array_path(key, root), _seal(key, arr.tobytes(), dtype=arr.dtype.str, shape=list(arr.shape),
                                             about=about or {}))
