"""ArrayStore blocks (issue 26 item 3): an encoder batch is put as one block, checksummed once,
and a shard is written by a background thread while the caller goes on.

Expected values are the arrays put in; the checksum counts are the number of blocks (one CRC-32
per block) plus one for the sealed index, by the layout described in ``gec_meta/cache/array_store.py``."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

from gec_meta import cache
from gec_meta.cache import ArrayStore, CacheWarning, array_store, entries


def _batch(rng, lengths, dim=4):
    arrays = [rng.normal(size=(n, dim)).astype(np.float32) for n in lengths]
    return arrays, np.concatenate(arrays), [a.shape for a in arrays]


def test_a_block_of_arrays_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    arrays, flat, shapes = _batch(rng, [3, 1, 5, 0])
    store = ArrayStore("ns", root=tmp_path)
    store.put_block(["a", "b", "c", "d"], flat, shapes)
    assert [store.get(k).tolist() for k in "abcd"] == [a.tolist() for a in arrays]  # pending: from memory
    store.flush()
    again = ArrayStore("ns", root=tmp_path)
    for k, a in zip("abcd", arrays):
        got = again.get(k)
        assert got.shape == a.shape and np.array_equal(got, a) and not got.flags.writeable
    with pytest.raises(ValueError):
        store.put_block(["x"], flat, shapes)  # one key for four arrays


def test_one_checksum_per_block_not_per_array(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    store = ArrayStore("ns", root=tmp_path)
    for b in range(2):  # two encoder batches of 64 arrays each
        _, flat, shapes = _batch(rng, [5] * 64)
        store.put_block([f"{b}-{i}" for i in range(64)], flat, shapes)
    calls = []
    real = cache.checksum
    counted = lambda data: calls.append(len(memoryview(data).cast("B"))) or real(data)  # noqa: E731
    monkeypatch.setattr(array_store, "checksum", counted)  # the blocks'
    monkeypatch.setattr(entries, "checksum", counted)      # the index's seal
    store.flush()
    assert len(calls) == 2 + 1  # two blocks + the index's seal
    assert len(list(store.folder.glob("*.npy"))) == 1  # one shard file for both batches
    calls.clear()
    again = ArrayStore("ns", root=tmp_path)
    calls.clear()
    for i in range(64):
        again.get(f"0-{i}")
    assert len(calls) == 1  # the first read of a block verifies it, once


def test_background_flush_keeps_arrays_readable_and_writes_them(tmp_path, monkeypatch):
    rng = np.random.default_rng(2)
    arrays, flat, shapes = _batch(rng, [2, 3])
    store = ArrayStore("ns", root=tmp_path)
    gate = threading.Event()
    real = entries._atomic_write

    def slow_write(path, data):  # the writer thread waits until the test has read meanwhile
        gate.wait(10)
        real(path, data)

    monkeypatch.setattr(entries, "_atomic_write", slow_write)
    store.put_block(["a", "b"], flat, shapes)
    store.flush(wait=False)
    assert not list(store.folder.glob("*.npy")) if store.folder.exists() else True
    assert np.array_equal(store.get("b"), arrays[1]) and len(store) == 2  # served from memory meanwhile
    gate.set()
    store.wait()
    assert len(list(store.folder.glob("*.npy"))) == 1
    assert np.array_equal(ArrayStore("ns", root=tmp_path).get("a"), arrays[0])
    assert store.write_seconds > 0


def test_a_corrupt_block_drops_its_shard(tmp_path):
    cache._REPORTED.clear()
    rng = np.random.default_rng(3)
    arrays, flat, shapes = _batch(rng, [4, 4])
    store = ArrayStore("ns", root=tmp_path)
    store.put_block(["a", "b"], flat, shapes)
    store.flush()
    (npy,) = store.folder.glob("*.npy")
    raw = bytearray(npy.read_bytes())
    raw[-1] ^= 0x01  # a flipped bit in the last array
    npy.write_bytes(bytes(raw))
    again = ArrayStore("ns", root=tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert again.get("a") is None and again.get("b") is None  # never a wrong array
    assert [w for w in caught if issubclass(w.category, CacheWarning)]
    assert not npy.exists()  # dropped: recomputed next time


def _refused_after(tmp_path, forge, message: str) -> None:
    """Store two arrays as one block, rewrite the shard's index with ``forge(index)`` (resealed:
    a valid checksum), and check that opening the store refuses the shard with ``message``:
    dropped, neither array read."""
    import json

    cache._REPORTED.clear()
    arrays, flat, shapes = _batch(np.random.default_rng(5), [4, 4])
    store = ArrayStore("ns", root=tmp_path)
    store.put_block(["a", "b"], flat, shapes)
    store.flush()
    (index_file,) = store.folder.glob("*" + entries.INDEX_SUFFIX)
    _, payload = entries._unseal("ns", index_file.read_bytes())
    index = json.loads(bytes(payload))
    forge(index)
    index_file.write_bytes(entries._seal("ns", json.dumps(index).encode()))
    with pytest.warns(CacheWarning, match=message):
        again = ArrayStore("ns", root=tmp_path)
    assert again.get("a") is None and again.get("b") is None
    assert not index_file.exists()


@pytest.mark.parametrize("shape", [[-4, 4], [2**62, 2**62]], ids=["negative", "wraps-int64"])
def test_a_forged_shape_in_the_index_drops_the_shard(tmp_path, shape):
    """An index entry whose shape has a negative dimension, or one whose element count wraps
    around to 0 in int64 arithmetic, lies outside its block: the shard is dropped, never read
    (before, both passed the bounds check)."""

    def forge(index):
        index["entries"]["b"][1] = shape

    _refused_after(tmp_path, forge, "outside its block")


def test_a_forged_block_before_the_buffer_drops_the_shard(tmp_path):
    """A block with a negative start, its entries inside it and its checksum that of the empty
    slice ``buf[-32:0]`` passed every check, and numpy read ``buf[-32:-16]``: another array's
    values, from the buffer's end.  Blocks must lie within their shard."""

    def forge(index):
        index["blocks"][0] = [-32, 32, entries.checksum(memoryview(b""))]
        index["entries"]["a"][0], index["entries"]["b"][0] = -32, -16

    _refused_after(tmp_path, forge, "outside its shard")


def test_every_index_entry_the_store_accepts_lies_within_its_shard():
    """Property (hypothesis): any shard index of small random integers (negative, zero, huge,
    overlapping blocks, entries anywhere) is either refused with :class:`CorruptEntry` or every
    entry it accepts addresses a slice inside its block, inside the buffer -- so a read can
    neither reach outside its block's checksum nor come back shorter than its shape."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from gec_meta.cache.entries import CorruptEntry, _size

    ints = st.one_of(st.integers(-40, 80), st.sampled_from([2**31, 2**62, -(2**62)]))
    blocks = st.lists(st.tuples(ints, ints), min_size=1, max_size=3)
    shapes = st.lists(ints, min_size=0, max_size=3)

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(size=ints, blocks=blocks,
           entries=st.lists(st.tuples(ints, shapes, st.integers(-2, 3)), min_size=0, max_size=4))
    def check(size, blocks, entries):
        index = {"size": size, "blocks": [[o, n, "crc32:00000000"] for o, n in blocks],
                 "entries": {f"k{i}": [o, s, b] for i, (o, s, b) in enumerate(entries)}}
        try:
            size_, blocks_, parsed = ArrayStore._parse_index(index)
        except (CorruptEntry, IndexError):
            return
        for offset, shape, block in parsed.values():
            start, length, _ = blocks_[block]
            assert 0 <= block and 0 <= start and start + length <= size_
            assert all(d >= 0 for d in shape)
            assert start <= offset and offset + _size(shape) <= start + length

    check()
