"""The key-value store: many small values (ERRANT edits, edit vectors, LM log-likelihoods, LLM
answers) in a namespace folder of immutable shard files.

New entries are written as a new shard via a temporary file and ``os.replace`` (atomic on
POSIX), so concurrent writers (parallel sweep jobs) never corrupt each other: at worst two jobs
compute and store the same value twice.  Temporary files (``.<name>.XXXX.tmp``) never match the
shard pattern, so a job opening a store never reads or drops another job's unfinished one.  A
shard's payload is JSON values plus raw numeric arrays (:func:`_pack_values`), never a pickle.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable

import numpy as np

from gec_meta.cache.entries import (
    COUNTERS, KV_SUFFIX, _NUMERIC, CorruptEntry, _drop, _LookupCounts, _plain, _seal, _shards, _size, _try_write,
    _unseal, _write_namespace,
)
from gec_meta.cache.keys import cache_root, text_hash
from gec_meta.cache.reads import read_entry


def _pack_values(values: dict[str, Any]) -> bytes:
    """The payload of a key-value shard: an 8-byte length, a JSON document
    ``{"values": {key: JSON value}, "arrays": {key: [dtype, shape, offset]}}`` and the arrays'
    bytes (C order, each at an 8-byte aligned offset of the region after the JSON)."""
    plain: dict[str, Any] = {}
    arrays: dict[str, list] = {}
    chunks: list[bytes] = []
    offset = 0
    for key, value in values.items():
        if isinstance(value, np.ndarray):
            arr = np.ascontiguousarray(value)
            if arr.dtype.kind not in _NUMERIC:
                raise TypeError(f"the cache stores numeric arrays only, not {arr.dtype}")
            arrays[key] = [arr.dtype.str, list(arr.shape), offset]
            chunks.append(arr.tobytes() + b"\0" * (-arr.nbytes % 8))
            offset += arr.nbytes + (-arr.nbytes % 8)
        else:
            plain[key] = value
    doc = json.dumps({"values": plain, "arrays": arrays}, separators=(",", ":"), default=_plain).encode("utf-8")
    return len(doc).to_bytes(8, "little") + doc + b"".join(chunks)


def _unpack_values(payload: memoryview) -> dict[str, Any]:
    """The values of a :func:`_pack_values` payload (JSON values, read-only arrays);
    :class:`CorruptEntry` if it is not one."""
    size = int.from_bytes(payload[:8], "little")
    doc = json.loads(bytes(payload[8:8 + size]))
    if not isinstance(doc, dict) or not isinstance(doc.get("values"), dict) or not isinstance(doc.get("arrays"), dict):
        raise CorruptEntry("not a shard of values")
    values = doc["values"]
    region = payload[8 + size:]
    for key, (dtype, shape, offset) in doc["arrays"].items():
        dtype, shape = np.dtype(str(dtype)), tuple(int(n) for n in shape)
        count = _size(shape)
        if (dtype.kind not in _NUMERIC or min(shape, default=0) < 0 or not isinstance(offset, int)
                or not 0 <= offset <= len(region) - count * dtype.itemsize):
            raise CorruptEntry(f"array {key[:16]}... ({dtype}, {shape}) outside the shard")
        values[key] = np.frombuffer(region, dtype=dtype, count=count, offset=offset).reshape(shape)
    return values


def _read_kv_shard(namespace: str, shard: Path, root: Path) -> dict:
    """The values of one :class:`KeyValueStore` shard; {} if it is unreadable or not a bounded
    regular file (:func:`~gec_meta.cache.reads.read_entry`), and {} (shard dropped and
    reported) if it is altered, truncated or of another namespace."""
    blob = read_entry(shard, root, "kv")
    if blob is None:
        return {}
    try:
        _, payload = _unseal(namespace, blob)
        entries = _unpack_values(payload)
    except Exception as exc:
        _drop(shard, str(exc) or type(exc).__name__)
        return {}
    return entries


class KeyValueStore:
    """A namespace of small cached values (see module docstring).

    Values are data: JSON values (numbers, strings, None, lists, dicts with string keys) or
    numeric numpy arrays.  A value read back from disk has JSON's types (a tuple comes back as
    a list) and arrays come back read-only.

    Args:
        namespace: the component signature, e.g. ``errant-edits|errant:3.0.2|spacy:3.8.7|...``.
        root: cache root; None disables persistence (the store is then in-memory only).
    """

    def __init__(self, namespace: str, root: Path | None = None, *, use_default_root: bool = True):
        if root is None and use_default_root:
            root = cache_root()
        self.namespace = namespace
        self.root = root
        self.folder = None if root is None else root / "kv" / text_hash(namespace)[:24]
        self._data: dict[str, Any] = {}
        self._pending: dict[str, Any] = {}
        self._read: set[str] = set()  # the shards read so far
        self._counts = _LookupCounts("kv")  # timing.json's kv_hit / kv_miss
        self.hits = 0
        self.misses = 0
        self.reload()

    def reload(self) -> None:
        """Read the shards not read yet (those other jobs wrote since this store was opened)."""
        for shard in _shards(self.folder, "*" + KV_SUFFIX):
            if shard.name not in self._read:
                self._read.add(shard.name)
                self._data.update(_read_kv_shard(self.namespace, shard, self.root))

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str) -> Any | None:
        """The value of ``key`` (None: absent), counted as a cache hit or miss -- unless this object
        stored it (:meth:`put` counted it)."""
        value = self._data.get(key)
        self._counts.lookup(self, key, value is not None)
        return value

    def peek(self, key: str) -> Any | None:
        """:meth:`get` without counting a hit or a miss."""
        return self._data.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` (written at the next :meth:`flush`); a computed value is a cache miss,
        counted here unless its lookup was."""
        self._counts.stored(self, key)
        self._data[key] = value
        self._pending[key] = value
        COUNTERS["kv_put"] += 1

    def flush(self) -> None:
        """Write pending entries as one new shard (atomic)."""
        if self.folder is None or not self._pending:
            self._pending.clear()
            return
        payload = _pack_values(self._pending)
        _write_namespace(self.folder, self.namespace)
        name = f"{hashlib.sha256(payload).hexdigest()[:32]}{KV_SUFFIX}"
        if not _try_write(self.folder / name, _seal(self.namespace, payload)):
            self.folder = None  # the values stay in memory; no further attempts
        else:
            self._read.add(name)  # ours: never read back
        self._pending.clear()


def current_store(store: KeyValueStore | None, namespace: Callable[[], str], use_cache: bool = True) -> KeyValueStore:
    """``store`` if it is open in the cache folder the process names now (``$GEC_META_CACHE``;
    none, i.e. in memory, when ``use_cache`` is false), else a new store of ``namespace()`` there.

    For the stores of process-wide objects (the edit extractors, a shared language model): a
    process that points ``GEC_META_CACHE`` elsewhere, or turns it off, after their first use
    gets their values stored there, never in the first folder.  ``namespace`` is called only
    when a store is opened.
    """
    root = cache_root() if use_cache else None
    if store is None or store.root != root:
        store = KeyValueStore(namespace(), root, use_default_root=False)
    return store
