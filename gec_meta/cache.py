"""Content-addressed on-disk cache shared by every expensive stage.

Two kinds of entries, both keyed by *what produced them* (a component signature: tool,
model and versions) plus a hash of the input text, so an entry can never be served for
different input or a different tool:

* :class:`KeyValueStore` — many small values (spaCy parses reduced to ERRANT edits, edit
  vectors, LM log-likelihoods, LLM answers).  A namespace is a folder of immutable shard files; new
  entries are written as a new shard via a temporary file and ``os.replace`` (atomic on POSIX),
  so concurrent writers (parallel sweep jobs) never corrupt each other: at worst two jobs
  compute and store the same value twice.  Temporary files (``.<name>.XXXX.tmp``) never match
  a shard pattern, so a job opening a store never reads or drops another job's unfinished one.
* :class:`ArrayStore` — many arrays of one dtype (encoder token states), put one encoder
  batch (*block*) at a time.  Each flush writes one shard: a flat ``.npy`` buffer of blocks plus
  a small JSON index (key -> offset, shape, block; a CRC-32 per block), streamed to disk,
  optionally by a background thread while the encoder goes on.  Shards are opened
  memory-mapped, so a job touches only the pages of the arrays it reads and the OS can evict
  them: encoder outputs of a dataset never have to fit in RAM at once.
* :func:`load_array` / :func:`save_array` — one numpy array per key (a metric's statistics of
  a whole dataset), written atomically the same way.

* :func:`file_sha256` — the sha256 of a model file, memoised by its stat (``digests/``): what
  identifies a local model in cache keys and signatures.

:data:`COUNTERS` counts hits and misses of every store in this process (``run.py`` writes
them to ``timing.json``, so a sweep can report how much of it the cache served).

The root is ``$GEC_META_CACHE`` or ``~/.cache/gec-meta``; ``GEC_META_CACHE=off`` disables it.

Integrity: every entry carries a checksum of its content written with it (:func:`checksum`,
CRC-32 -- it detects every flipped bit and, with probability 1 - 2^-32, any other change) and
the key it was written under; arrays also carry their shape and dtype (encoder states: one
checksum per block of one batch's arrays, not one per array).  Entries are verified on
read: a bad one (altered, truncated, swapped with another file, written under another key) is
dropped, recomputed and reported once as a :class:`CacheWarning` naming it.  A cache folder that
cannot be written (read-only, a file, a full disk) is reported once; the run goes on without
storing, and the values it computed are kept in memory (no finished work is thrown away).
Verification reads only the entries (blocks) a run uses (CRC-32 runs at ~1.2 GB/s; < 1% of a
warm run).

Data only: the cache never holds or runs code.  Entries are JSON, raw numeric arrays (dtype
and shape in a JSON header, read with ``np.frombuffer`` / ``np.load(allow_pickle=False)``) and
parsed data files in an explicit JSON encoding per type (:func:`cached_parse`); nothing read
from the cache is unpickled or evaluated, so whoever can write a shared cache folder can at
worst change numbers (as with any shared data), never run code in the jobs that read it.
Entries of earlier formats (pickles: ``*.kvs``, ``*.pkl``, ``*.index``, ``*.parsed``) are never
opened: they are misses, recomputed in the current format (``make cache-info`` counts them,
``make cache-clear`` removes them).
"""

from __future__ import annotations

import functools
import gc
import hashlib
import io
import json
import os
import shutil
import threading
import time
import warnings
import zlib
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple, Sequence

import numpy as np

from gec_meta.outputs import replace_atomically
from gec_meta.stopwatch import TIMES

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
    """Number of elements of an array of ``shape``."""
    return int(np.prod(shape, dtype=np.int64))


def _tally(store, kind: str, found: bool) -> None:
    """Count one lookup of ``store`` (its own counters and :data:`COUNTERS`)."""
    if found:
        store.hits += 1
        COUNTERS[f"{kind}_hit"] += 1
    else:
        store.misses += 1
        COUNTERS[f"{kind}_miss"] += 1


def _write_namespace(folder: Path, namespace: str) -> None:
    """The namespace's name beside its shards (for ``make cache-info``)."""
    if not (folder / "namespace.txt").exists():
        _try_write(folder / "namespace.txt", namespace.encode("utf-8"))


def cache_root() -> Path | None:
    """The cache folder, or None when caching is disabled."""
    env = os.environ.get("GEC_META_CACHE")
    if env is not None and env.lower() in ("off", "0", "none", ""):
        return None
    return Path(env) if env else Path.home() / ".cache" / "gec-meta"


def text_hash(*parts: str) -> str:
    """sha256 of text parts joined unambiguously (length-prefixed)."""
    h = hashlib.sha256()
    for p in parts:
        b = p.encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


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
        count = int(np.prod(shape, dtype=np.int64))
        if (dtype.kind not in _NUMERIC or min(shape, default=0) < 0 or not isinstance(offset, int)
                or not 0 <= offset <= len(region) - count * dtype.itemsize):
            raise CorruptEntry(f"array {key[:16]}... ({dtype}, {shape}) outside the shard")
        values[key] = np.frombuffer(region, dtype=dtype, count=count, offset=offset).reshape(shape)
    return values


def _read_kv_shard(namespace: str, shard: Path) -> dict:
    """The values of one :class:`KeyValueStore` shard; {} if it is unreadable, and {} (shard
    dropped and reported) if it is altered, truncated or of another namespace."""
    try:
        _, payload = _unseal(namespace, shard.read_bytes())
        entries = _unpack_values(payload)
    except OSError:
        return {}
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
        self.folder = None if root is None else root / "kv" / text_hash(namespace)[:24]
        self._data: dict[str, Any] = {}
        self._pending: dict[str, Any] = {}
        self.hits = 0
        self.misses = 0
        for shard in _shards(self.folder, "*" + KV_SUFFIX):
            self._data.update(_read_kv_shard(namespace, shard))

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str) -> Any | None:
        value = self._data.get(key)
        _tally(self, "kv", value is not None)
        return value

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def missing(self, keys: Iterable[str]) -> list[str]:
        """The keys not in the store, in order, without duplicates."""
        seen: set[str] = set()
        out = []
        for k in keys:
            if k not in self._data and k not in seen:
                seen.add(k)
                out.append(k)
        return out

    def put(self, key: str, value: Any) -> None:
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
        self._pending.clear()


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
        self.hits = 0
        self.misses = 0
        for idx_file in _shards(self.folder, "*" + INDEX_SUFFIX):
            npy = idx_file.with_suffix(".npy")
            try:
                _, payload = _unseal(namespace, idx_file.read_bytes())
                index = json.loads(bytes(payload))  # data only: never unpickled
                if index.get("format") != self.INDEX_FORMAT or index.get("dtype") != self.dtype.str:
                    continue
                parsed = self._parse_index(index)
            except OSError:
                continue
            except Exception as exc:  # altered, truncated or foreign index: recompute its arrays
                _drop(idx_file, str(exc) or type(exc).__name__, npy)
                continue
            if not npy.is_file():
                continue  # deleted by hand: a miss
            self._register(npy, parsed)

    @staticmethod
    def _parse_index(index: dict) -> tuple[int, list, dict]:
        """A shard index (JSON) as (size, blocks, entries) of checked types; raises on anything
        else (a forged or damaged index), and on an entry outside its block."""
        size = int(index["size"])
        blocks = [(int(o), int(n), str(c)) for o, n, c in index["blocks"]]
        entries = {}
        for key, (offset, shape, block) in index["entries"].items():
            offset, shape, block = int(offset), tuple(int(d) for d in shape), int(block)
            start, length, _ = blocks[block]
            if block < 0 or offset < start or offset + _size(shape) > start + length or start + length > size:
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

    def _map(self, shard: int) -> np.ndarray | None:
        """The flat buffer of a shard, memory-mapped (None, shard dropped, if it is unreadable,
        truncated or of another size than its index says)."""
        buf = self._maps.get(shard)
        if buf is None:
            path = self._shards[shard]
            try:
                buf = np.load(path, mmap_mode="r", allow_pickle=False)
                if buf.dtype != self.dtype or buf.ndim != 1 or buf.size != self._expected[shard]:
                    raise CorruptEntry(f"{buf.size} {buf.dtype} values, expected {self._expected[shard]} "
                                       f"{self.dtype}")
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
        _tally(self, "arrays", value is not None)
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
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(
            header, {"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False, "shape": (at,)})
        ok = _try_write(npy, [header.getvalue(), *blocks]) and \
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


class Codec(NamedTuple):
    """How :func:`cached_parse` stores a parser's result as data.

    Attributes:
        name: names the encoding (part of the entry's key).
        encode: the result -> JSON values (lists, dicts with string keys, str, numbers, None).
        decode: those JSON values -> the result, rebuilt by code (the types it creates are the
            decoder's, never named by the entry).
    """

    name: str
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]


#: Results that are JSON values already (a tuple comes back as a list).
JSON_VALUES = Codec("json", lambda value: value, lambda value: value)


@contextmanager
def _gc_paused():
    """Pause the cyclic garbage collector while many small objects are built (a decoded data
    file is acyclic; without the pause, collections triggered by the allocations double the
    time of decoding a parsed M2 file)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def cached_parse(tag: str, data: bytes, parse: Callable[[], Any], codec: Codec = JSON_VALUES) -> Any:
    """``parse()``, memoised on disk by the sha256 of ``tag`` and the raw bytes it parses.

    For data files that are re-read by every job (the CoNLL-2014 M2, SEEDA's judgment XML):
    a warm job decodes the stored data (``codec``) instead of parsing again.  ``tag`` names the
    parser and everything else its result depends on (callers include a hash of the parser's
    own source file, so editing the parser invalidates the entries).  Errors are never cached.
    An entry that does not decode (altered, truncated, swapped, of another structure) is
    dropped, reported once and parsed again.
    """
    root = cache_root()
    if root is None:
        return parse()
    key = hashlib.sha256(f"{tag}\0{codec.name}\0".encode("utf-8") + data).hexdigest()
    path = root / "parsed" / f"{key[:40]}{PARSED_SUFFIX}"
    try:
        blob = path.read_bytes()
    except OSError:  # not there yet (or an unreadable folder): parse
        COUNTERS["parsed_miss"] += 1
    else:
        try:
            with _gc_paused():
                value = codec.decode(json.loads(bytes(_unseal(key, blob)[1])))
        except Exception as exc:  # altered, truncated or swapped: parse again
            _drop(path, str(exc) or type(exc).__name__)
            COUNTERS["parsed_miss"] += 1
        else:
            COUNTERS["parsed_hit"] += 1
            return value
    value = parse()
    payload = json.dumps(codec.encode(value), separators=(",", ":"), default=_plain).encode("utf-8")
    _try_write(path, _seal(key, payload))
    return value


@functools.lru_cache(maxsize=None)
def code_version(*parts: str) -> str:
    """The code version of a cached component: sha256 (16 hex digits) of the source files of
    the ``gec_meta`` subpackages or modules ``parts`` (``"metrics"``, ``"edits/extract.py"``).

    Part of every cache key and namespace next to the component's declared versions, so an
    entry computed by other code is never served, even when nobody bumped a version: the
    committed PT-ERRANT/PT-M2 TrueSkill rows of issue 17 item 8 came from such entries."""
    base = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for part in parts:
        path = base / part
        for f in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            h.update(f.relative_to(base).as_posix().encode("utf-8") + b"\0")
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def source_tag(module_file: str, *parts: str) -> str:
    """A parser's identity for :func:`cached_parse`: its module file's hash plus ``parts``."""
    return "|".join((Path(module_file).name, hashlib.sha256(Path(module_file).read_bytes()).hexdigest()[:16], *parts))


# sha256 of the files this process hashed, by their stat identity (see file_sha256).
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
    if memo is not None:
        try:
            digest = bytes(_unseal(key, memo.read_bytes())[1]).decode("ascii")
            if len(digest) != 64 or digest.strip("0123456789abcdef"):
                raise CorruptEntry("not a sha256")
            COUNTERS["digest_hit"] += 1
        except OSError:  # not memoised yet
            digest = None
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


def _array_path(key: str, root: Path) -> Path:
    return root / "arrays" / f"{text_hash(key)[:40]}.arr"


def load_array(key: str, root: Path | None = None, kind: str = "stats") -> np.ndarray | None:
    """The array stored under ``key``, or None (counted as ``{kind}_hit`` / ``{kind}_miss``).

    The entry is verified (key, checksum, dtype and shape of :func:`save_array`); a corrupt one
    is dropped, reported once and read as a miss, so the caller recomputes it."""
    root = cache_root() if root is None else root
    if root is None:
        return None
    path = _array_path(key, root)
    try:
        blob = path.read_bytes()
    except OSError:
        COUNTERS[f"{kind}_miss"] += 1
        return None
    try:
        header, payload = _unseal(key, blob)
        dtype, shape = np.dtype(header["dtype"]), tuple(header["shape"])
        if dtype.hasobject or len(payload) != dtype.itemsize * int(np.prod(shape, dtype=np.int64)):
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


def cache_info(root: Path | None = None) -> dict[str, Any]:
    """Sizes of the cache's namespaces and arrays (for ``make cache-info``)."""
    root = cache_root() if root is None else root
    info: dict[str, Any] = {"root": str(root), "namespaces": [], "arrays": 0, "bytes": 0, "old_format": 0}
    if root is None or not root.is_dir():
        return info
    info["old_format"] = sum(1 for pattern in OLD_FORMATS for _ in root.glob(pattern))
    for kind, pattern in (("kv", "*" + KV_SUFFIX), ("arrays-kv", "*" + INDEX_SUFFIX)):
        for folder in sorted((root / kind).glob("*")):
            size = sum(f.stat().st_size for f in folder.glob("*"))
            name = (folder / "namespace.txt").read_text() if (folder / "namespace.txt").exists() else folder.name
            info["namespaces"].append({"namespace": name, "shards": len(list(folder.glob(pattern))), "bytes": size})
            info["bytes"] += size
    arrays = list((root / "arrays").glob("*.arr"))
    info["arrays"] = len(arrays)
    info["bytes"] += sum(f.stat().st_size for f in (root / "arrays").glob("*"))
    return info


if __name__ == "__main__":  # python -m gec_meta.cache [info|clear]
    import sys

    cmd = sys.argv[1] if len(sys.argv) > 1 else "info"
    root = cache_root()
    if cmd == "clear":
        if root is not None and root.exists():
            shutil.rmtree(root)
        print(f"cleared {root}")
    else:
        info = cache_info()
        print(f"cache root: {info['root']}  ({info['bytes'] / 1e6:.1f} MB, {info['arrays']} arrays)")
        for ns in info["namespaces"]:
            print(f"  {ns['shards']:4d} shards {ns['bytes'] / 1e6:8.1f} MB  {ns['namespace']}")
        if info["old_format"]:
            print(f"  {info['old_format']} entries of an earlier format (pickles: never read; "
                  f"`make cache-clear` removes them)")
