"""Parallel jobs share one cache folder (one machine, or a network file system under SLURM): a
job that opens a store while another job is half-way through writing a shard must neither read
nor delete the other job's unfinished file.

The race is made deterministic: the writer's temporary file is created, and before a byte is
written into it a second "job" opens the same store (as a job starting at that moment would).
Before the fix the temporary file's name matched the shard pattern (``.tmp-XXXX.kvs``), so the
reader took the empty file for a corrupt shard, warned and deleted it, and the writer's rename
then failed: it reported an unwritable cache and stopped storing for the rest of its run.
"""

from __future__ import annotations

import tempfile
import warnings

import numpy as np

import gec_meta.cache as cache
from gec_meta.cache import ArrayStore, KeyValueStore


def _open_during_writes(monkeypatch, open_store):
    """Every temporary file the cache creates triggers ``open_store()`` (another job's reader)
    right after it exists, while it is still empty."""
    real = tempfile.mkstemp
    readers = []

    def mkstemp(*args, **kwargs):
        fd, name = real(*args, **kwargs)
        readers.append(open_store())
        return fd, name

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    return readers


def test_a_reader_never_touches_a_key_value_shard_being_written(tmp_path, monkeypatch):
    readers = _open_during_writes(monkeypatch, lambda: KeyValueStore("ns", tmp_path))
    writer = KeyValueStore("ns", tmp_path)
    writer.put("k", {"edits": [1, 2]})
    failed = cache.COUNTERS["write_failed"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.flush()
    assert readers and not [w for w in caught if issubclass(w.category, cache.CacheWarning)]
    assert cache.COUNTERS["write_failed"] == failed
    assert writer.folder is not None  # still storing
    assert KeyValueStore("ns", tmp_path).get("k") == {"edits": [1, 2]}


def test_a_reader_never_touches_an_array_shard_being_written(tmp_path, monkeypatch):
    readers = _open_during_writes(monkeypatch, lambda: ArrayStore("states", np.float32, tmp_path))
    writer = ArrayStore("states", np.float32, tmp_path)
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    writer.put("k", value)
    failed = cache.COUNTERS["write_failed"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.flush()
    assert len(readers) >= 2 and not [w for w in caught if issubclass(w.category, cache.CacheWarning)]
    assert cache.COUNTERS["write_failed"] == failed
    assert writer.folder is not None
    np.testing.assert_array_equal(ArrayStore("states", np.float32, tmp_path).get("k"), value)
