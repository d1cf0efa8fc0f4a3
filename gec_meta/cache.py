"""Content-addressed on-disk cache shared by every expensive stage.

Two kinds of entries, both keyed by *what produced them* (a component signature: tool,
model and versions) plus a hash of the input text, so an entry can never be served for
different input or a different tool:

* :class:`KeyValueStore` — many small values (spaCy parses reduced to ERRANT edits, encoder
  outputs, per-sentence statistics).  A namespace is a folder of immutable shard files; new
  entries are written as a new shard via a temporary file and ``os.replace`` (atomic on POSIX),
  so concurrent writers (parallel sweep jobs) never corrupt each other: at worst two jobs
  compute and store the same value twice.
* :class:`ArrayStore` — many arrays of one dtype (encoder token states).  Each flush writes
  one shard: a flat ``.npy`` buffer plus a small index (key -> offset, shape).  Shards are
  opened memory-mapped, so a job touches only the pages of the arrays it reads and the OS
  can evict them: encoder outputs of a dataset never have to fit in RAM at once.
* :func:`load_array` / :func:`save_array` — one numpy array per key (a metric's statistics of
  a whole dataset), written atomically the same way.

:data:`COUNTERS` counts hits and misses of every store in this process (``run.py`` writes
them to ``timing.json``, so a sweep can report how much of it the cache served).

The root is ``$GEC_META_CACHE`` or ``~/.cache/gec-meta``; ``GEC_META_CACHE=off`` disables it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

#: Process-wide cache accounting: ``{kind}_hit`` / ``{kind}_miss`` for kind in kv, arrays,
#: stats (per-system statistics arrays), parsed, draws; ``kv_put`` / ``arrays_put`` count
#: the values computed and stored (a lookup right after computing counts as a hit).
COUNTERS: Counter = Counter()


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
        _atomic_write(folder / "namespace.txt", namespace.encode("utf-8"))


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


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


class KeyValueStore:
    """A namespace of small cached values (see module docstring).

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
        if self.folder is not None and self.folder.is_dir():
            for shard in sorted(self.folder.glob("*.pkl")):
                try:
                    self._data.update(pickle.loads(shard.read_bytes()))
                except Exception:  # a truncated shard from a killed writer: ignore it
                    continue

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
        payload = pickle.dumps(self._pending, protocol=pickle.HIGHEST_PROTOCOL)
        _write_namespace(self.folder, self.namespace)
        _atomic_write(self.folder / f"{hashlib.sha256(payload).hexdigest()[:32]}.pkl", payload)
        self._pending.clear()


class ArrayStore:
    """Arrays of one dtype under string keys, in memory-mapped shards (see module docstring).

    Args:
        namespace: the component signature (e.g. ``token-states|<encoder signature>``).
        dtype: the dtype of every array (values are cast on :meth:`put`).
        root: cache root; None (with ``use_default_root=False`` or caching off) keeps the
            arrays in memory only.

    ``get`` returns read-only arrays; those of flushed shards are views of a memory map.
    """

    def __init__(self, namespace: str, dtype: Any = np.float32, root: Path | None = None, *,
                 use_default_root: bool = True):
        if root is None and use_default_root:
            root = cache_root()
        self.namespace = namespace
        self.dtype = np.dtype(dtype)
        self.folder = None if root is None else root / "arrays-kv" / text_hash(namespace)[:24]
        self._index: dict[str, tuple[int, int, tuple[int, ...]]] = {}  # key -> (shard, offset, shape)
        self._shards: list[Path] = []
        self._maps: dict[int, np.ndarray] = {}
        self._pending: dict[str, np.ndarray] = {}
        self._pending_bytes = 0
        self.hits = 0
        self.misses = 0
        if self.folder is not None and self.folder.is_dir():
            for idx_file in sorted(self.folder.glob("*.idx")):
                npy = idx_file.with_suffix(".npy")
                try:
                    index = pickle.loads(idx_file.read_bytes())
                except Exception:  # a truncated index from a killed writer: ignore the shard
                    continue
                if not npy.is_file() or index.get("dtype") != self.dtype.str:
                    continue
                shard = len(self._shards)
                self._shards.append(npy)
                for key, (offset, shape) in index["entries"].items():
                    self._index[key] = (shard, offset, tuple(shape))

    def __len__(self) -> int:
        return len(self._index.keys() | self._pending.keys())

    def __contains__(self, key: str) -> bool:
        return key in self._pending or key in self._index

    def _map(self, shard: int) -> np.ndarray:
        buf = self._maps.get(shard)
        if buf is None:
            buf = self._maps[shard] = np.load(self._shards[shard], mmap_mode="r", allow_pickle=False)
        return buf

    def get(self, key: str) -> np.ndarray | None:
        value = self._pending.get(key)
        if value is None and key in self._index:
            shard, offset, shape = self._index[key]
            size = int(np.prod(shape, dtype=np.int64))
            value = self._map(shard)[offset: offset + size].reshape(shape)
        _tally(self, "arrays", value is not None)
        return value

    #: Pending bytes that trigger a flush from :meth:`put` (so a cold run over a large
    #: dataset never holds more than this much of fresh arrays in memory).
    flush_bytes: int = 256 * 2**20

    def put(self, key: str, value: np.ndarray) -> None:
        arr = np.ascontiguousarray(value, dtype=self.dtype)
        arr.setflags(write=False)
        self._pending[key] = arr
        COUNTERS["arrays_put"] += 1
        self._pending_bytes += arr.nbytes
        if self.folder is not None and self._pending_bytes >= self.flush_bytes:
            self.flush()

    def flush(self) -> None:
        """Write pending arrays as one new shard (``.npy`` first, then its index: a shard
        without an index is never read)."""
        if self.folder is None or not self._pending:
            return
        entries, offset = {}, 0
        for key, arr in self._pending.items():
            entries[key] = (offset, arr.shape)
            offset += arr.size
        flat = np.concatenate([a.reshape(-1) for a in self._pending.values()]) if offset else \
            np.zeros(0, dtype=self.dtype)
        buf = io.BytesIO()
        np.save(buf, flat, allow_pickle=False)
        payload = buf.getvalue()
        name = hashlib.sha256(payload).hexdigest()[:32]
        _write_namespace(self.folder, self.namespace)
        npy = self.folder / f"{name}.npy"
        _atomic_write(npy, payload)
        index = {"dtype": self.dtype.str, "entries": entries}
        _atomic_write(npy.with_suffix(".idx"), pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL))
        shard = len(self._shards)
        self._shards.append(npy)
        for key, (off, shape) in entries.items():
            self._index[key] = (shard, off, tuple(shape))
        self._pending.clear()
        self._pending_bytes = 0

    def import_key_value_store(self, namespace: str) -> int:
        """Move the arrays of a :class:`KeyValueStore` namespace (the format encoder states
        had before this store existed) into this store, one shard at a time, then delete the
        old folder.  Returns the number of arrays moved (0 if there was nothing to move)."""
        if self.folder is None:
            return 0
        # Shard by shard (a KeyValueStore would read them all into memory at once).
        folder = self.folder.parent.parent / "kv" / text_hash(namespace)[:24]
        if not folder.is_dir():
            return 0
        moved = 0
        for shard in sorted(folder.glob("*.pkl")):
            try:
                entries = pickle.loads(shard.read_bytes())
            except Exception:
                continue
            for key, value in entries.items():
                if key not in self:
                    self.put(key, value)
                    moved += 1
            self.flush()
        shutil.rmtree(folder, ignore_errors=True)
        return moved


def cached_parse(tag: str, data: bytes, parse: Callable[[], Any]) -> Any:
    """``parse()``, memoised on disk by the sha256 of ``tag`` and the raw bytes it parses.

    For data files that are re-read by every job (the CoNLL-2014 M2, SEEDA's judgment XML):
    a warm job unpickles the parsed objects instead of parsing again.  ``tag`` names the parser
    and everything else its result depends on (callers include a hash of the parser's own
    source file, so editing the parser invalidates the entries).  Errors are never cached.
    """
    root = cache_root()
    if root is None:
        return parse()
    key = hashlib.sha256(tag.encode("utf-8") + b"\0" + data).hexdigest()
    path = root / "parsed" / f"{key[:40]}.pkl"
    try:
        value = pickle.loads(path.read_bytes())
    except Exception:  # not there yet, or truncated by a killed writer: parse again
        COUNTERS["parsed_miss"] += 1
    else:
        COUNTERS["parsed_hit"] += 1
        return value
    value = parse()
    _atomic_write(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    return value


def source_tag(module_file: str, *parts: str) -> str:
    """A parser's identity for :func:`cached_parse`: its module file's hash plus ``parts``."""
    return "|".join((Path(module_file).name, hashlib.sha256(Path(module_file).read_bytes()).hexdigest()[:16], *parts))


def _array_path(key: str, root: Path) -> Path:
    return root / "arrays" / f"{text_hash(key)[:40]}.npy"


def load_array(key: str, root: Path | None = None, kind: str = "stats") -> np.ndarray | None:
    """The array stored under ``key``, or None (counted as ``{kind}_hit`` / ``{kind}_miss``)."""
    root = cache_root() if root is None else root
    if root is None:
        return None
    path = _array_path(key, root)
    if not path.is_file():
        COUNTERS[f"{kind}_miss"] += 1
        return None
    try:
        out = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError):
        COUNTERS[f"{kind}_miss"] += 1
        return None
    COUNTERS[f"{kind}_hit"] += 1
    return out


def save_array(key: str, array: np.ndarray, root: Path | None = None, about: dict | None = None) -> None:
    """Store ``array`` under ``key`` atomically (with a JSON sidecar describing it)."""
    root = cache_root() if root is None else root
    if root is None:
        return
    path = _array_path(key, root)
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array), allow_pickle=False)
    _atomic_write(path, buf.getvalue())
    meta = {"key": key, "shape": list(array.shape), **(about or {})}
    _atomic_write(path.with_suffix(".json"), json.dumps(meta, indent=1).encode("utf-8"))


def cache_info(root: Path | None = None) -> dict[str, Any]:
    """Sizes of the cache's namespaces and arrays (for ``make cache-info``)."""
    root = cache_root() if root is None else root
    info: dict[str, Any] = {"root": str(root), "namespaces": [], "arrays": 0, "bytes": 0}
    if root is None or not root.is_dir():
        return info
    for kind, pattern in (("kv", "*.pkl"), ("arrays-kv", "*.npy")):
        for folder in sorted((root / kind).glob("*")):
            size = sum(f.stat().st_size for f in folder.glob("*"))
            name = (folder / "namespace.txt").read_text() if (folder / "namespace.txt").exists() else folder.name
            info["namespaces"].append({"namespace": name, "shards": len(list(folder.glob(pattern))), "bytes": size})
            info["bytes"] += size
    arrays = list((root / "arrays").glob("*.npy"))
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
