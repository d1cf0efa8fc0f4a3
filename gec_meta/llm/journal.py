"""An append-only journal of the answers a backend received but has not yet written to the
answer cache, so that a killed run keeps every answer it was given.

The answer cache (:class:`gec_meta.cache.KeyValueStore`) writes a new shard file per flush: cheap
every few hundred answers, not per answer.  Between flushes each answer is appended to the
journal as one line of JSON (``{"key", "value", "crc"}``, the CRC-32 of the key and value
serialised with sorted keys), written through to the operating system at once (a process
killed right after still leaves it on disk).  A flush of the cache empties the journal.

A run that died leaves its journal behind; the next backend of the same namespace reads it
(:meth:`AnswerJournal.recover`), puts its answers into the cache, flushes and deletes it.  A
journal is held under an exclusive ``flock`` by its writer for its whole life, so a journal
that can be locked belongs to a dead process and one that cannot is being written (and is left
alone).  A torn last line (killed mid-write) or a damaged line fails its CRC and is skipped:
that answer is asked again.  Values must be JSON data (text, numbers, lists, dicts).
"""

from __future__ import annotations

import json
import os
import uuid
import zlib
from pathlib import Path

from gec_meta.cache.reads import open_entry

try:  # POSIX; elsewhere journals of other processes are never recovered (only deleted by their own writer)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None


def _line(key: str, value) -> bytes:
    body = json.dumps([key, value], ensure_ascii=False, sort_keys=True, allow_nan=True)
    return (json.dumps({"key": key, "value": value, "crc": zlib.crc32(body.encode("utf-8"))},
                       ensure_ascii=False, allow_nan=True) + "\n").encode("utf-8")


def _parse(raw: bytes) -> tuple[str, object] | None:
    try:
        entry = json.loads(raw.decode("utf-8"))
        key, value = entry["key"], entry["value"]
        if not isinstance(key, str):  # a cache key is text; a list here would stop the run unhashable
            return None
        body = json.dumps([key, value], ensure_ascii=False, sort_keys=True, allow_nan=True)
        if zlib.crc32(body.encode("utf-8")) != entry["crc"]:
            return None
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    return key, value


class AnswerJournal:
    """The journal files of one cache namespace, in ``folder`` (None: no journal at all).

    Args:
        folder: ``<cache root>/llm-journal/<namespace hash>``; created on the first append.
            A journal file is read only if it lies in the cache root, two folders up
            (:func:`gec_meta.cache.reads.open_entry`).
    """

    def __init__(self, folder: Path | None):
        self.folder = folder
        self._file = None
        self._path: Path | None = None

    def append(self, key: str, value) -> None:
        """Record one answer (written through to the OS before returning)."""
        if self.folder is None:
            return
        if self._file is None and not self._open():
            return
        try:
            self._file.write(_line(key, value))
            self._file.flush()
        except OSError:  # a full disk: the answers stay in memory until the cache's flush
            self.close(delete=False)
            self.folder = None

    def _open(self) -> bool:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._path = self.folder / f"{uuid.uuid4().hex}.jsonl"
            self._file = open(self._path, "ab", buffering=0)
            if fcntl is not None:
                fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:  # an unwritable cache: the cache itself reports it once
            self._file = None
            self.folder = None
            return False

    def clear(self) -> None:
        """Forget the journaled answers (called after they were flushed into the cache)."""
        self.close(delete=True)

    def close(self, delete: bool = True) -> None:
        if self._file is None:
            return
        try:
            if delete and self._path is not None:
                self._path.unlink(missing_ok=True)
            self._file.close()  # releases the lock
        except OSError:
            pass
        self._file = None
        self._path = None

    def recover(self) -> tuple[list[tuple[str, object]], list[Path]]:
        """(key, value) entries of the journals left by dead processes, in file and line order,
        and those files (delete them with :meth:`discard` once the entries are in the cache)."""
        entries: list[tuple[str, object]] = []
        files: list[Path] = []
        if self.folder is None or fcntl is None or not self.folder.is_dir():
            return entries, files
        for path in sorted(self.folder.glob("*.jsonl")):
            if path == self._path:
                continue
            # a regular file inside the cache of bounded size (never a FIFO, a device, a link out)
            handle = open_entry(path, self.folder.parent.parent, "journal")
            if handle is None:
                continue
            try:
                with handle:
                    try:
                        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except OSError:
                        continue  # its writer is alive
                    data = handle.read(os.fstat(handle.fileno()).st_size)
            except OSError:
                continue
            entries.extend(e for e in map(_parse, data.splitlines()) if e is not None)
            files.append(path)
        return entries, files

    @staticmethod
    def discard(files) -> None:
        for path in files:
            try:
                os.unlink(path)
            except OSError:
                pass
