"""m2scorer's matches on disk (gec_meta.edits.m2_matches): every metric of the M2 family, at any
beta and level, reads the lattices one of them searched, and gets the statistics a search gives."""

from __future__ import annotations

import numpy as np
import pytest

from gec_meta.edits import m2_matches
from gec_meta.metrics.edit.m2 import M2
from gec_meta.metrics.edit.pt import PTM2, SelfScorer


@pytest.fixture(scope="module")
def gjg15_slice(data_root):
    """30 sentences of GJG15 (13 systems), both official annotators' gold edits."""
    from gec_meta import load_dataset, load_refset

    ds = load_dataset("gjg15", root=data_root)
    refs = load_refset("official", ds, root=data_root)
    lines = slice(100, 130)
    return (list(ds.sources[lines]), [list(h[lines]) for h in ds.hypotheses],
            [list(r[lines]) for r in refs.for_metric("m2")])


@pytest.fixture
def searches(tmp_path, monkeypatch):
    """A fresh cache folder, fresh stores, and a count of the lattices searched (in this process:
    the slices are far below the pool's threshold)."""
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    m2_matches.m2_match_store.cache_clear()
    count = []
    real = m2_matches.make_lattice

    def counting(*args, **kwargs):
        count.append(args[:2])
        return real(*args, **kwargs)

    monkeypatch.setattr(m2_matches, "make_lattice", counting)
    yield count
    m2_matches.m2_match_store.cache_clear()


def searched_afresh(metric, sources, hyps, gold, monkeypatch):
    """The statistics of a search without any store (cache off, a new store)."""
    with monkeypatch.context() as mp:
        mp.setenv("GEC_META_CACHE", "off")
        mp.setattr("gec_meta.metrics.edit.m2.m2_match_store", lambda *options: m2_matches.M2MatchStore(*options))
        return metric.statistics(sources, hyps, gold)


def test_the_m2_family_searches_each_lattice_once(gjg15_slice, searches, monkeypatch):
    sources, hyps, gold = gjg15_slice
    first = M2().statistics(sources, hyps, gold)
    distinct = {(n, " ".join(h[n].split())) for h in hyps for n in range(len(sources))}
    assert len(searches) == len(distinct) > 100  # each (sentence, hypothesis) once, across systems
    searches.clear()
    # Another beta, the sentence level, PT-M2 with unit weights (statistics exactly M2's):
    # the matches come from the store, read back from disk by a new store object.
    m2_matches.m2_match_store.cache_clear()
    for metric in (M2(beta=1.0), M2(level="sentence"), PTM2(level="sentence", scorer=SelfScorer())):
        assert np.array_equal(metric.statistics(sources, hyps, gold), first), metric
    assert searches == []
    assert np.array_equal(first, searched_afresh(M2(), sources, hyps, gold, monkeypatch))


def test_stored_matches_give_the_searched_edit_matches(gjg15_slice, searches, monkeypatch):
    """Match by match: edits, corrections, types and flags, also where an annotator has no edit
    or where both annotators gave the same edits (one object per item then)."""
    sources, hyps, gold = gjg15_slice
    metric = M2()
    metric.match(sources, hyps, gold)
    m2_matches.m2_match_store.cache_clear()
    stored = metric.match(sources, hyps, gold)  # from disk: JSON lists turned back into edits
    assert searches and len(searches) == len(set(searches))
    with monkeypatch.context() as mp:
        mp.setenv("GEC_META_CACHE", "off")
        mp.setattr("gec_meta.metrics.edit.m2.m2_match_store", lambda *options: m2_matches.M2MatchStore(*options))
        fresh = metric.match(sources, hyps, gold)
    assert stored.shape == fresh.shape == (13, 30, 2)
    for got, want in zip(stored.flat, fresh.flat):
        assert got == want
    shared = [(s, n) for s in range(13) for n in range(30) if gold[0][n] == gold[1][n]]
    assert shared and all(stored[s, n, 0] is stored[s, n, 1] for s, n in shared)


def test_the_options_have_their_own_matches(gjg15_slice, searches, monkeypatch):
    sources, hyps, gold = gjg15_slice
    M2().statistics(sources, hyps, gold)
    searched = len(searches)
    for options in ({"max_unchanged_words": 0}, {"ignore_whitespace_casing": True}):
        searches.clear()
        got = M2(**options).statistics(sources, hyps, gold)
        assert len(searches) == searched, options  # not served the default options' matches
        assert np.array_equal(got, searched_afresh(M2(**options), sources, hyps, gold, monkeypatch))


def test_a_malformed_entry_is_searched_again(gjg15_slice, searches, monkeypatch):
    """An entry of the wrong shape (written by other code under the same key) is not read."""
    sources, hyps, gold = gjg15_slice
    want = M2().statistics(sources, hyps, gold)
    store = m2_matches.m2_match_store(2, False).store
    key = next(iter(store._data))
    store.put(key, [[[0, 1, "x", "R:X"]], [], [None]])  # a matched flag short
    store.flush()
    searches.clear()
    m2_matches.m2_match_store.cache_clear()
    assert np.array_equal(M2(beta=2.0).statistics(sources, hyps, gold), want)
    assert len(searches) == 1
