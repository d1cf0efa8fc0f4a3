"""The array store: many arrays of one dtype (encoder token states), put one encoder batch
(*block*) at a time, in memory-mapped shards.

Each flush writes one shard: a flat ``.npy`` buffer of blocks plus a small sealed JSON index
(``.jindex``: key -> offset, shape, block; a CRC-32 per block), streamed to disk, optionally by
a background thread while the encoder goes on.  Shards are opened memory-mapped, so a job
touches only the pages of the arrays it reads and the OS can evict them: encoder outputs of a
dataset never have to fit in RAM at once.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from gec_meta.cache.entries import (
    COUNTERS, INDEX_SUFFIX, CorruptEntry, _drop, _LookupCounts, _seal, _shards, _size, _try_write, _unseal,
    _write_namespace, checksum,
)
from gec_meta.cache.keys import cache_root, text_hash
from gec_meta.cache.reads import open_entry, read_entry
from gec_meta.stopwatch import TIMES


class ArrayStore:
    """Arrays of one dtype under string keys, in memory-mapped shards (see module docstring).

    Args:
        namespace: the component signature (e.g. ``token-states|<encoder signature>``).
        dtype: the dtype of every array (values are cast on :meth:`put`).
        root: cache root; None (with ``use_default_root=False`` or caching off) keeps the
            arrays in memory only.

    Arrays arrive one at a time (:meth:`put`) or as a *block*, many arrays laid out one after
    another in one buffer (:meth:`put_block`: an encoder batch).  A shard is a flat ``.npy``
    buffer of blocks plus an index (key -> offset, shape, block; block -> offset, size,
    CRC-32): one checksum per block, computed once when the shard is written and verified the
    first time a block is read in a process.  :meth:`flush` writes the pending blocks as one
    shard, streamed to disk (no copy of the buffer), optionally in a background thread so the
    caller (the encoder's forward passes) goes on meanwhile.

    ``get`` returns read-only arrays; those of flushed shards are views of a memory map.
    """

    #: Version of the shard index layout; shards of another layout are skipped (not corrupt).
    INDEX_FORMAT = 2

    def __init__(self, namespace: str, dtype: Any = np.float32, root: Path | None = None, *,
                 use_default_root: bool = True):
        if root is None and use_default_root:
            root = cache_root()
        self.namespace = namespace
        self.dtype = np.dtype(dtype)
        self.root = root
        self.folder = None if root is None else root / "arrays-kv" / text_hash(namespace)[:24]
        self._index: dict[str, tuple[int, int, tuple[int, ...], int]] = {}  # key -> (shard, offset, shape, block)
        self._shards: list[Path] = []
        self._blocks: list[list[tuple[int, int, str]]] = []  # per shard: (offset, size, checksum) per block
        self._verified: set[tuple[int, int]] = set()  # (shard, block) checked in this process
        self._maps: dict[int, np.ndarray] = {}
        self._expected: list[int] = []  # elements of every shard's flat buffer
        # not yet on disk: key -> (block, offset in it, shape); blocks are flat read-only arrays
        self._pending: dict[str, tuple[np.ndarray, int, tuple[int, ...]]] = {}
        self._pending_blocks: list[np.ndarray] = []
        self._pending_bytes = 0
        self._writing: dict[str, tuple[np.ndarray, int, tuple[int, ...]]] = {}  # handed to the writer
        self._lock = threading.Lock()
        self._writer = None  # a one-thread executor, created by the first background flush
        self._jobs: list = []
        self.write_seconds = 0.0  # time spent checksumming and writing shards (any thread)
        self._counts = _LookupCounts("arrays")  # timing.json's arrays_hit / arrays_miss
        self.hits = 0
        self.misses = 0
        for idx_file in _shards(self.folder, "*" + INDEX_SUFFIX):
            npy = idx_file.with_suffix(".npy")
            blob = read_entry(idx_file, root, "index")
            if blob is None:
                continue
            try:
                _, payload = _unseal(namespace, blob)
                index = json.loads(bytes(payload))  # data only: never unpickled
                if index.get("format") != self.INDEX_FORMAT or index.get("dtype") != self.dtype.str:
                    continue
                parsed = self._parse_index(index)
            except Exception as exc:  # altered, truncated or foreign index: recompute its arrays
                _drop(idx_file, str(exc) or type(exc).__name__, npy)
                continue
            if not os.path.lexists(npy):
                continue  # deleted by hand: a miss (anything else there is checked when it is read)
            self._register(npy, parsed)

    @staticmethod
    def _parse_index(index: dict) -> tuple[int, list, dict]:
        """A shard index (JSON) as (size, blocks, entries) of checked types; raises on anything
        else (a forged or damaged index), and on an entry outside its block."""
        size = int(index["size"])
        blocks = [(int(o), int(n), str(c)) for o, n, c in index["blocks"]]
        if any(o < 0 or n < 0 or o + n > size for o, n, _ in blocks):
            raise CorruptEntry("a block lies outside its shard")
        entries = {}
        for key, (offset, shape, block) in index["entries"].items():
            offset, shape, block = int(offset), tuple(map(int, shape)), int(block)
            start, length, _ = blocks[block]
            if (block < 0 or offset < start or min(shape, default=0) < 0 or offset + _size(shape) > start + length
                    or start + length > size):
                raise CorruptEntry(f"array {str(key)[:16]}... lies outside its block")
            entries[str(key)] = (offset, shape, block)
        return size, blocks, entries

    def _register(self, npy: Path, parsed: tuple[int, list, dict]) -> int:
        """Make the arrays of a shard (its ``.npy`` and its parsed index) readable; returns its number."""
        size, blocks, entries = parsed
        shard = len(self._shards)
        self._shards.append(npy)
        self._expected.append(size)
        self._blocks.append(blocks)
        for key, (offset, shape, block) in entries.items():
            self._index[key] = (shard, offset, shape, block)
        return shard

    def __len__(self) -> int:
        with self._lock:
            return len(self._index.keys() | self._pending.keys() | self._writing.keys())

    def __contains__(self, key: str) -> bool:
        return key in self._pending or key in self._writing or key in self._index

    def _header(self, size: int) -> bytes:
        """The ``.npy`` header of a shard of ``size`` values (format 1.0: what :meth:`flush`
        writes, and what :meth:`_map` expects byte for byte)."""
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(
            header, {"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False, "shape": (size,)})
        return header.getvalue()

    def _map(self, shard: int) -> np.ndarray | None:
        """The flat buffer of a shard, memory-mapped (None if it is absent or not a regular file
        of exactly the size its index records: ignored, :func:`~gec_meta.cache.reads.open_entry`;
        None, shard dropped, if its header is not the one its index implies)."""
        buf = self._maps.get(shard)
        if buf is None:
            path = self._shards[shard]
            header = self._header(self._expected[shard])
            fh = open_entry(path, self.root, "shard", len(header) + self._expected[shard] * self.dtype.itemsize)
            if fh is None:  # its arrays are recomputed (into a new shard)
                self._forget_shard(shard)
                return None
            try:
                with fh:
                    if fh.read(len(header)) != header:
                        raise CorruptEntry(f"not a .npy buffer of {self._expected[shard]} {self.dtype} values")
                    buf = np.memmap(fh, dtype=self.dtype, mode="r", offset=len(header), shape=(self._expected[shard],))
            except Exception as exc:
                _drop(path, str(exc) or type(exc).__name__, path.with_suffix(INDEX_SUFFIX))
                self._forget_shard(shard)
                return None
            self._maps[shard] = buf
        return buf

    def _forget_shard(self, shard: int) -> None:
        with self._lock:
            for key in [k for k, v in self._index.items() if v[0] == shard]:
                del self._index[key]

    def _block_ok(self, shard: int, block: int, buf: np.ndarray) -> bool:
        """Whether a block of a mapped shard matches its checksum (checked once per process)."""
        if (shard, block) in self._verified:
            return True
        offset, size, crc = self._blocks[shard][block]
        if checksum(buf[offset: offset + size]) != crc:
            return False
        self._verified.add((shard, block))
        return True

    def get(self, key: str) -> np.ndarray | None:
        """The array under ``key`` (its block verified against its checksum), or None: never
        stored, or stored but corrupt (then its shard is dropped and reported, and the caller
        recomputes)."""
        value = None
        with self._lock:
            loc = self._pending.get(key) or self._writing.get(key)
            where = self._index.get(key) if loc is None else None
        if loc is not None:
            block, offset, shape = loc
            value = block[offset: offset + _size(shape)].reshape(shape)
        elif where is not None:
            shard, offset, shape, block = where
            buf = self._map(shard)
            if buf is not None:
                if self._block_ok(shard, block, buf):
                    value = buf[offset: offset + _size(shape)].reshape(shape)
                else:
                    path = self._shards[shard]
                    _drop(path, f"checksum mismatch of the block of array {key[:16]}...", path.with_suffix(INDEX_SUFFIX))
                    self._forget_shard(shard)
        self._counts.lookup(self, key, value is not None)
        return value

    #: Pending bytes that trigger a flush from :meth:`put` (so a cold run over a large
    #: dataset never holds more than this much of fresh arrays in memory).
    flush_bytes: int = 256 * 2**20

    def put(self, key: str, value: np.ndarray) -> None:
        """Store one array (a block of its own)."""
        arr = np.asarray(value)
        self.put_block([key], arr.reshape(-1), [arr.shape])

    def put_block(self, keys: Sequence[str], flat: np.ndarray, shapes: Sequence[tuple[int, ...]]) -> None:
        """Store ``len(keys)`` arrays laid out one after another in ``flat``: key i gets the next
        ``prod(shapes[i])`` values, reshaped to ``shapes[i]`` (an encoder batch: each text's
        (T_i, D) states, rows concatenated).  One block: one checksum when it is written.

        Args:
            keys: shape (K,).
            flat: any shape with ``sum(prod(shapes))`` elements (cast to the store's dtype).
            shapes: shape (K,), every array's shape.
        """
        block = np.ascontiguousarray(flat, dtype=self.dtype).reshape(-1)
        sizes = [_size(s) for s in shapes]
        if len(keys) != len(shapes) or sum(sizes) != block.size:
            raise ValueError(f"{len(keys)} keys, {len(shapes)} shapes of {sum(sizes)} values, block of {block.size}")
        block.setflags(write=False)
        offset = 0
        with self._lock:
            for key, shape, size in zip(keys, shapes, sizes):
                self._pending[key] = (block, offset, tuple(shape))
                offset += size
        self._pending_blocks.append(block)
        COUNTERS["arrays_put"] += len(keys)
        for key in keys:
            self._counts.stored(self, key)
        self._pending_bytes += block.nbytes
        if self.folder is not None and self._pending_bytes >= self.flush_bytes:
            self.flush()

    def flush(self, wait: bool = True) -> None:
        """Write the pending blocks as one new shard (``.npy`` first, then its index: a shard
        without an index is never read).  ``wait=False`` writes it in a background thread (the
        arrays stay readable from memory meanwhile); :meth:`wait` or any later ``flush()``
        waits for every shard handed to it."""
        if self.folder is not None and self._pending_blocks:
            with self._lock:
                entries, self._pending = self._pending, {}
                self._writing.update(entries)
            blocks, self._pending_blocks, self._pending_bytes = self._pending_blocks, [], 0
            if wait:
                self.wait()
                self._write_shard(blocks, entries)
            else:
                if self._writer is None:
                    from concurrent.futures import ThreadPoolExecutor

                    self._writer = ThreadPoolExecutor(1, thread_name_prefix="gec-meta-cache-writer")
                self._jobs.append(self._writer.submit(self._write_shard, blocks, entries))
        if wait:
            self.wait()

    def wait(self) -> None:
        """Wait until every shard handed to the background writer is on disk (re-raising its
        errors: a failure to write is reported and handled inside)."""
        jobs, self._jobs = self._jobs, []
        for job in jobs:
            job.result()

    def _write_shard(self, blocks: list[np.ndarray], entries: dict) -> None:
        t = time.perf_counter()
        spans, at = {}, 0
        block_table = []
        for b, block in enumerate(blocks):
            spans[id(block)] = (b, at)
            block_table.append((at, int(block.size), checksum(block)))
            at += int(block.size)
        index = {"format": self.INDEX_FORMAT, "dtype": self.dtype.str, "size": at, "blocks": block_table,
                 "entries": {}}
        for key, (block, offset, shape) in entries.items():
            b, start = spans[id(block)]
            index["entries"][key] = [start + offset, list(shape), b]
        raw = json.dumps(index, separators=(",", ":")).encode("utf-8")
        name = hashlib.sha256(raw).hexdigest()[:32]  # the index names every block's checksum
        _write_namespace(self.folder, self.namespace)
        npy = self.folder / f"{name}.npy"
        ok = _try_write(npy, [self._header(at), *blocks]) and \
            _try_write(npy.with_suffix(INDEX_SUFFIX), _seal(self.namespace, raw))
        with self._lock:
            if not ok:
                self.folder = None  # keep the arrays in memory (self._writing) and stop trying
            else:
                shard = self._register(npy, self._parse_index(index))
                self._verified.update((shard, b) for b in range(len(blocks)))  # checksummed from memory
                for key, loc in entries.items():
                    if self._writing.get(key) is loc:
                        del self._writing[key]
        seconds = time.perf_counter() - t
        self.write_seconds += seconds
        TIMES["cache_shards"] += seconds
