"""The content-addressed cache: array store round trips, memory maps, concurrent shards."""

from __future__ import annotations

import numpy as np
import pytest

from gec_meta import cache
from gec_meta.cache import ArrayStore, KeyValueStore


def test_array_store_round_trip_and_reopen(tmp_path):
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=(7, 4)).astype(np.float32)
    store = ArrayStore("ns", root=tmp_path)
    store.put("a", a)
    assert "a" in store and store.get("a") is not None and "b" not in store
    store.flush()
    store.put("b", b)
    store.flush()
    again = ArrayStore("ns", root=tmp_path)
    assert len(again) == 2
    np.testing.assert_array_equal(again.get("a"), a)
    np.testing.assert_array_equal(again.get("b"), b)
    # served from a read-only memory map, not copied into the process
    got = again.get("b")
    assert isinstance(got.base, np.memmap) or isinstance(got, np.memmap)
    with pytest.raises(ValueError):
        got[0, 0] = 1.0
    # another namespace or dtype does not see these arrays
    assert ArrayStore("other", root=tmp_path).get("a") is None
    assert len(ArrayStore("ns", dtype=np.float16, root=tmp_path)) == 0


def test_array_store_casts_and_handles_empty_arrays(tmp_path):
    store = ArrayStore("ns", dtype=np.float16, root=tmp_path)
    store.put("x", np.array([[1.5, 2.25]], dtype=np.float64))
    store.put("empty", np.zeros((0, 2)))
    store.flush()
    again = ArrayStore("ns", dtype=np.float16, root=tmp_path)
    assert again.get("x").dtype == np.float16 and again.get("x").tolist() == [[1.5, 2.25]]
    assert again.get("empty").shape == (0, 2)


def test_concurrent_writers_do_not_clobber_each_other(tmp_path):
    one, two = ArrayStore("ns", root=tmp_path), ArrayStore("ns", root=tmp_path)
    one.put("a", np.ones((2, 2)))
    two.put("b", np.zeros((1, 2)))
    one.flush()
    two.flush()
    merged = ArrayStore("ns", root=tmp_path)
    assert merged.get("a").sum() == 4.0 and merged.get("b").shape == (1, 2)


def test_truncated_index_is_ignored(tmp_path):
    store = ArrayStore("ns", root=tmp_path)
    store.put("a", np.ones(3))
    store.flush()
    (idx,) = list(store.folder.glob("*.jindex"))
    idx.write_bytes(idx.read_bytes()[:5])  # a writer killed mid-way
    assert ArrayStore("ns", root=tmp_path).get("a") is None


def test_counters_record_hits_and_misses(tmp_path):
    """Each value is one hit (found in the cache) or one miss (computed), however its caller looks
    it up: ``in`` then put then get, or get then put, or put then get."""
    def counted(run):
        before = dict(cache.COUNTERS)
        run()
        return (cache.COUNTERS["kv_hit"] - before.get("kv_hit", 0), cache.COUNTERS["kv_miss"] - before.get("kv_miss", 0))

    kv = KeyValueStore("ns", root=tmp_path)
    assert counted(lambda: kv.get("nope") is None) == (0, 1)
    assert counted(lambda: kv.put("nope", 0)) == (0, 0)  # its lookup counted it
    assert counted(lambda: kv.put("k", 1) or kv.get("k")) == (0, 1)  # computed, then read back
    assert counted(lambda: "j" in kv or kv.put("j", 2) or kv.get("j")) == (0, 1)  # `in` is False
    assert kv.peek("k") == 1 and kv.peek("j") == 2
    assert counted(lambda: kv.peek("k")) == (0, 0)
    kv.flush()
    again = KeyValueStore("ns", root=tmp_path)
    assert counted(lambda: [again.get(k) for k in ("k", "j", "nope")]) == (3, 0)


def test_array_counters_count_each_array_once(tmp_path):
    """The encoder states' store counts as the key-value store does: an array computed here is
    one miss (however it was looked up), one found in the cache one hit."""
    def counted(run):
        before = dict(cache.COUNTERS)
        run()
        return (cache.COUNTERS["arrays_hit"] - before.get("arrays_hit", 0),
                cache.COUNTERS["arrays_miss"] - before.get("arrays_miss", 0))

    store = ArrayStore("ns", root=tmp_path)
    # the encoder's order: `in` (uncounted), compute and put a batch, read it back
    assert counted(lambda: "a" in store or store.put_block(["a", "b"], np.ones(5), [(2,), (3,)])
                   or [store.get(k) for k in ("a", "b")]) == (0, 2)

    def look_up_compute_read():  # gec_meta's edit stores' order: a counted lookup first
        assert store.get("c") is None
        store.put("c", np.zeros(2))
        assert store.get("c") is not None

    assert counted(look_up_compute_read) == (0, 1)
    store.flush()
    again = ArrayStore("ns", root=tmp_path)
    assert counted(lambda: [again.get(k) for k in ("a", "b", "c")]) == (3, 0)


def test_put_flushes_when_pending_arrays_get_large(tmp_path):
    store = ArrayStore("ns", root=tmp_path)
    store.flush_bytes = 1000
    store.put("a", np.zeros(200, dtype=np.float32))   # 800 bytes: pending
    assert not list(store.folder.glob("*.npy")) if store.folder.exists() else True
    store.put("b", np.zeros(200, dtype=np.float32))   # 1600 bytes: flushed
    assert len(list(store.folder.glob("*.npy"))) == 1 and store._pending == {}
    assert store.get("a").shape == (200,)


def test_cached_parse_reuses_by_content_and_never_caches_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path))
    calls = []

    def parse(text):
        calls.append(text)
        if text == b"bad":
            raise ValueError("malformed")
        return text.decode().upper()

    assert cache.cached_parse("t", b"abc", lambda: parse(b"abc")) == "ABC"
    assert cache.cached_parse("t", b"abc", lambda: parse(b"abc")) == "ABC"
    assert calls == [b"abc"]                                   # second call: from disk
    assert cache.cached_parse("t", b"abd", lambda: parse(b"abd")) == "ABD"   # new bytes: parsed
    assert cache.cached_parse("t2", b"abc", lambda: parse(b"abc")) == "ABC"  # new parser tag
    assert len(calls) == 3
    for _ in range(2):
        with pytest.raises(ValueError):
            cache.cached_parse("t", b"bad", lambda: parse(b"bad"))
    assert calls.count(b"bad") == 2


def test_read_m2_from_cache_equals_fresh_parse(tmp_path, monkeypatch):
    from gec_meta.data.m2 import parse_m2, read_m2

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "x.m2"
    path.write_text("S A b c .\nA 1 2|||R:NOUN|||B|||REQUIRED|||-NONE-|||0\n\nS d e\n\n", encoding="utf-8")
    first, second = read_m2(path), read_m2(path)
    assert first == second == parse_m2(path.read_text(encoding="utf-8"), path)
    assert first[0].edits[0].corrections == ("B",) and len(first) == 2
