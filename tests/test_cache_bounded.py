"""Cache reads are bounded (issue 34 item 1): every cache file is checked before it is read.

A cache file replaced by a FIFO, a symlink to ``/dev/zero``, a symlink out of the cache, a
directory, or a file larger than its index records (or than any entry of its kind) is ignored
with a warning naming it, and its value is recomputed: the result equals a clean run's.  Each
read path is covered: statistics arrays (through ``compute_statistics``), key-value shards,
ArrayStore shards and their indexes, the model-digest memo, parsed data files and LLM answer
journals.  The expected values are computed independently here (sentence lengths counted by
hand, hashlib's sha256, the parser's own result).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from gec_meta import cache
from gec_meta.cache import ArrayStore, CacheWarning, KeyValueStore, reads
from gec_meta.llm.journal import AnswerJournal
from gec_meta.meta.task import compute_statistics
from gec_meta.metrics.base import Metric


@dataclasses.dataclass(frozen=True)
class _Chars(Metric):
    """A cacheable metric: the number of characters of each hypothesis; counts its calls."""

    name: ClassVar[str] = "chars-bounded"
    needs_references: ClassVar[bool] = False
    stat_names: ClassVar[tuple[str, ...]] = ("chars",)
    calls: ClassVar[list] = []

    def statistics(self, sources, hypotheses, references):
        _Chars.calls.append(len(hypotheses))
        return np.array([[[[float(len(h))]] for h in hyp] for hyp in hypotheses], dtype=np.float64)

    def score_from_stats(self, stats):
        return stats[..., 0]


SOURCES = ["a b c", "d e"]
HYPOTHESES = [["a b c", "d e"], ["a  b", "d e f g"], ["x", ""]]
#: (S, N, R=1, K=1): the characters of each hypothesis, counted by hand.
EXPECTED = np.array([[5, 3], [4, 7], [1, 0]], dtype=np.float64).reshape(3, 2, 1, 1)


def _fifo(path: Path, tmp: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path, tmp: Path) -> None:
    os.symlink("/dev/zero", path)


def _directory(path: Path, tmp: Path) -> None:
    path.mkdir()


#: What replaces a cache file, and the reason the warning gives.
HAZARDS = {
    "fifo": (_fifo, "a FIFO"),
    "symlink_to_dev_zero": (_dev_zero, "a link out of the cache, to /dev/zero"),
    "directory": (_directory, "a directory"),
}


def _replace(path: Path, hazard: str, tmp: Path) -> bytes:
    """Replace the cache file ``path`` by ``hazard``; returns its former bytes."""
    data = path.read_bytes()
    path.unlink()
    HAZARDS[hazard][0](path, tmp)
    return data


def _link_out(path: Path, tmp: Path) -> None:
    """A symlink out of the cache, to a copy of the valid entry (its content is fine: only where
    it lies is wrong)."""
    outside = tmp / "outside" / path.name
    outside.parent.mkdir(exist_ok=True)
    outside.write_bytes(path.read_bytes())
    path.unlink()
    os.symlink(outside, path)


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("GEC_META_CACHE", str(root))
    cache._REPORTED.clear()
    _Chars.calls.clear()
    return root


def _stats():
    return compute_statistics(_Chars(), SOURCES, HYPOTHESES, None)


# ------------------------------------------------------------------ statistics (one array per key)

@pytest.mark.parametrize("hazard", list(HAZARDS))
def test_a_statistics_entry_that_is_no_regular_file_is_ignored_and_recomputed(root, tmp_path, hazard):
    np.testing.assert_array_equal(_stats(), EXPECTED)
    files = sorted((root / "arrays").glob("*.arr"))
    assert len(files) == 3
    _replace(files[1], hazard, tmp_path)
    _Chars.calls.clear()
    with pytest.warns(CacheWarning, match=f"ignored cache entry {files[1]} \\({HAZARDS[hazard][1]}"):
        np.testing.assert_array_equal(_stats(), EXPECTED)
    assert _Chars.calls == [1]  # only that system was recomputed
    assert os.path.exists("/dev/zero")  # a link is removed, never its target


def test_a_non_empty_directory_in_place_of_an_entry_is_ignored_every_time(root):
    _stats()
    target = sorted((root / "arrays").glob("*.arr"))[0]
    target.unlink()
    target.mkdir()
    (target / "inside").write_bytes(b"x")  # not ours to delete: it stays
    for run in range(2):
        cache._REPORTED.clear()  # a new process
        _Chars.calls.clear()
        with pytest.warns(CacheWarning, match=f"ignored cache entry {target} \\(a directory\\)"):
            np.testing.assert_array_equal(_stats(), EXPECTED)
        assert _Chars.calls == [1]  # recomputed (it cannot be stored under that name)
    assert (target / "inside").read_bytes() == b"x"


def test_a_statistics_entry_linked_out_of_the_cache_is_ignored(root, tmp_path):
    _stats()
    target = sorted((root / "arrays").glob("*.arr"))[0]
    _link_out(target, tmp_path)
    _Chars.calls.clear()
    with pytest.warns(CacheWarning, match=f"ignored cache entry {target} \\(a link out of the cache, to {tmp_path}"):
        np.testing.assert_array_equal(_stats(), EXPECTED)
    assert _Chars.calls == [1]
    assert target.is_file() and not target.is_symlink()  # recomputed and stored in its place


def test_a_link_inside_the_cache_is_followed(root, tmp_path):
    _stats()
    target = sorted((root / "arrays").glob("*.arr"))[0]
    moved = root / "elsewhere.arr"
    target.rename(moved)
    os.symlink(moved, target)
    _Chars.calls.clear()
    np.testing.assert_array_equal(_stats(), EXPECTED)
    assert _Chars.calls == []  # served through the link


def test_a_huge_statistics_entry_is_not_read(root, tmp_path, monkeypatch):
    _stats()
    target = sorted((root / "arrays").glob("*.arr"))[2]
    monkeypatch.setitem(reads.LIMITS, "array", 1 << 20)
    os.truncate(target, 64 << 20)  # sparse: 64 MiB that would be read whole
    _Chars.calls.clear()
    with pytest.warns(CacheWarning, match=f"ignored cache entry {target} \\(67108864 bytes, more than the 1048576"):
        np.testing.assert_array_equal(_stats(), EXPECTED)
    assert _Chars.calls == [1]


# ------------------------------------------------------------------ key-value shards

@pytest.mark.parametrize("hazard", list(HAZARDS))
def test_a_key_value_shard_that_is_no_regular_file_is_ignored(root, tmp_path, hazard):
    store = KeyValueStore("ns", root)
    store.put("k", {"edits": [1, 2]})
    store.flush()
    (shard,) = store.folder.glob("*.kvj")
    _replace(shard, hazard, tmp_path)
    with pytest.warns(CacheWarning, match=f"ignored cache entry {shard} \\({HAZARDS[hazard][1]}"):
        again = KeyValueStore("ns", root)
    assert again.get("k") is None  # a miss: recomputed by its caller
    again.put("k", {"edits": [1, 2]})
    again.flush()
    assert KeyValueStore("ns", root).get("k") == {"edits": [1, 2]}


def test_a_huge_key_value_shard_is_not_read(root, monkeypatch):
    store = KeyValueStore("ns", root)
    store.put("k", 1)
    store.flush()
    (shard,) = store.folder.glob("*.kvj")
    monkeypatch.setitem(reads.LIMITS, "kv", 1 << 20)
    os.truncate(shard, 8 << 20)
    with pytest.warns(CacheWarning, match=f"ignored cache entry {shard} \\(8388608 bytes, more than"):
        assert KeyValueStore("ns", root).get("k") is None


# ------------------------------------------------------------------ ArrayStore shards and indexes

def _array_store(root):
    store = ArrayStore("states", np.float32, root)
    store.put_block(["a", "b"], np.arange(10, dtype=np.float32), [(2, 2), (3, 2)])
    store.flush()
    return store


@pytest.mark.parametrize("suffix", [".npy", ".jindex"])
@pytest.mark.parametrize("hazard", list(HAZARDS))
def test_an_array_shard_or_index_that_is_no_regular_file_is_ignored(root, tmp_path, hazard, suffix):
    store = _array_store(root)
    (target,) = store.folder.glob("*" + suffix)
    _replace(target, hazard, tmp_path)
    with pytest.warns(CacheWarning, match=f"ignored cache entry {target} \\({HAZARDS[hazard][1]}"):
        again = ArrayStore("states", np.float32, root)
        assert again.get("a") is None and again.get("b") is None
    again.put("a", np.arange(4, dtype=np.float32).reshape(2, 2))
    again.flush()
    np.testing.assert_array_equal(ArrayStore("states", np.float32, root).get("a"), [[0, 1], [2, 3]])


def test_an_array_shard_of_another_size_than_its_index_records_is_not_mapped(root):
    store = _array_store(root)
    (npy,) = store.folder.glob("*.npy")
    expected = npy.stat().st_size
    with open(npy, "ab") as fh:
        fh.truncate(expected + (1 << 30))  # a sparse GiB appended
    with pytest.warns(CacheWarning, match=f"ignored cache entry {npy} \\({expected + (1 << 30)} bytes, its index "
                                          f"records {expected}\\)"):
        assert ArrayStore("states", np.float32, root).get("b") is None


def test_an_array_shard_linked_out_of_the_cache_is_ignored(root, tmp_path):
    store = _array_store(root)
    (npy,) = store.folder.glob("*.npy")
    _link_out(npy, tmp_path)
    with pytest.warns(CacheWarning, match=f"ignored cache entry {npy} \\(a link out of the cache"):
        assert ArrayStore("states", np.float32, root).get("a") is None


# ------------------------------------------------------------------ digests, parsed files, journals

@pytest.mark.parametrize("hazard", list(HAZARDS))
def test_a_digest_memo_that_is_no_regular_file_is_ignored(root, tmp_path, hazard):
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"weights")
    expected = hashlib.sha256(b"weights").hexdigest()
    assert cache.file_sha256(weights) == expected
    (memo,) = (root / "digests").glob("*.sha256")
    _replace(memo, hazard, tmp_path)
    cache._FILE_DIGESTS.clear()  # as in a new process
    with pytest.warns(CacheWarning, match=f"ignored cache entry {memo} \\({HAZARDS[hazard][1]}"):
        assert cache.file_sha256(weights) == expected


@pytest.mark.parametrize("hazard", list(HAZARDS))
def test_a_parsed_entry_that_is_no_regular_file_is_ignored(root, tmp_path, hazard):
    calls = []

    def parse():
        calls.append(1)
        return {"sentences": ["a b", "c"]}

    assert cache.cached_parse("tag", b"a b\nc\n", parse) == {"sentences": ["a b", "c"]}
    (entry,) = (root / "parsed").glob("*.pjson")
    _replace(entry, hazard, tmp_path)
    with pytest.warns(CacheWarning, match=f"ignored cache entry {entry} \\({HAZARDS[hazard][1]}"):
        assert cache.cached_parse("tag", b"a b\nc\n", parse) == {"sentences": ["a b", "c"]}
    assert len(calls) == 2


@pytest.mark.parametrize("hazard", ["fifo", "symlink_to_dev_zero"])
def test_a_journal_that_is_no_regular_file_is_ignored(root, tmp_path, hazard):
    folder = root / "llm-journal" / "ns"
    writer = AnswerJournal(folder)
    writer.append("prompt", {"score": 3})
    writer.close(delete=False)  # a dead run's journal
    live = AnswerJournal(folder)
    assert live.recover()[0] == [("prompt", {"score": 3})]
    (journal,) = folder.glob("*.jsonl")
    _replace(journal, hazard, tmp_path)
    with pytest.warns(CacheWarning, match=f"ignored cache entry {journal} \\({HAZARDS[hazard][1]}"):
        assert AnswerJournal(folder).recover() == ([], [])  # the answer is asked again


def test_cache_info_survives_a_fifo_named_like_a_namespace(root, tmp_path):
    store = KeyValueStore("my namespace", root)
    store.put("k", 1)
    store.flush()
    name = store.folder / "namespace.txt"
    _replace(name, "fifo", tmp_path)
    with pytest.warns(CacheWarning, match=f"ignored cache entry {name} \\(a FIFO"):
        info = cache.cache_info(root)
    assert [ns["shards"] for ns in info["namespaces"]] == [1]
