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


def expected_match(source, hyp, gold):
    """The EditMatch of m2scorer's search for one annotator, built from score_annotator's result:
    path edits as (start, end, correction, type) spans; each gold edit with the alternative a
    hypothesis edit matched, else its first."""
    from gec_meta.edits.edit import Edit
    from gec_meta.edits.m2scorer import make_lattice, score_annotator
    from gec_meta.metrics.edit.core import EditMatch

    gold = [g for g in gold if g.type != "noop" and g.start >= 0]
    res = score_annotator(make_lattice(" ".join(source.split()), " ".join(hyp.split())),
                          [(g.start, g.end, tuple(g.corrections)) for g in gold])
    return EditMatch(tuple(Edit.span(s, e, c, t) for s, e, _, c, t in res.hyp_edits),
                     tuple(Edit.span(g.start, g.end, m if m is not None else g.corrections[0], g.type)
                           for g, m in zip(gold, res.gold_matched)),
                     res.hyp_matched, tuple(m is not None for m in res.gold_matched))


def test_stored_matches_give_the_searched_edit_matches(gjg15_slice, searches):
    """Match by match, searched and then read back from disk: edits, corrections (the matched
    alternative), types and flags, as m2scorer's search gives them; where both annotators gave the
    same edits, one object per item."""
    sources, hyps, gold = gjg15_slice
    metric = M2()
    searched = metric.match(sources, hyps, gold)
    m2_matches.m2_match_store.cache_clear()
    stored = metric.match(sources, hyps, gold)  # from disk: JSON lists turned back into edits
    assert searches and len(searches) == len(set(searches))
    assert stored.shape == searched.shape == (13, 30, 2)
    for s in range(13):
        for n in range(30):
            for r in range(2):
                want = expected_match(sources[n], hyps[s][n], gold[r][n])
                assert searched[s, n, r] == want and stored[s, n, r] == want, (s, n, r)
    shared = [(s, n) for s in range(13) for n in range(30) if gold[0][n] == gold[1][n]]
    assert shared and all(stored[s, n, 0] is stored[s, n, 1] for s, n in shared)


def test_a_later_alternative_matched_is_the_reported_correction(searches):
    """A gold edit with alternatives reports the one a hypothesis edit matched, read back too."""
    from gec_meta.data.m2 import GoldEdit

    gold = [[(GoldEdit(2, 3, "R:VERB", ("sits", "sat"), 0), GoldEdit(3, 3, "M:PUNCT", (".",), 0))]]
    for _ in range(2):  # searched, then read back from disk
        m2_matches.m2_match_store.cache_clear()
        (m,) = M2().match(["the cat sit"], [["the cat sat ."]], gold).flat
        assert m == expected_match("the cat sit", "the cat sat .", gold[0][0])
        assert [e.correction for e in m.ref_edits] == ["sat", "."] and m.ref_matched == (True, True)
    assert len(searches) == 1


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


def test_the_keys_are_the_hashes_of_the_inputs():
    """match_keys (one sha256 of each (source, hypothesis), copied per annotator) gives
    text_hash(source, hypothesis, repr of the gold edits' (start, end, corrections))."""
    from gec_meta.cache import text_hash

    sources = ["a b c", "Ünïcode ok ."]
    golds = [[((0, 1, "R:X", ("A",)),), ()], [((2, 3, "M:Y", ("d", "e")),), ((1, 1, "U", ("",)),)]]
    items = [(0, "A b c"), (1, "Ünïcode ok"), (0, "a b")]
    keys = m2_matches.match_keys(sources, golds, items)
    for (n, hyp), row in zip(items, keys):
        assert row == [text_hash(sources[n], hyp, repr(tuple((s, e, c) for s, e, _, c in g[n]))) for g in golds]
    assert len({k for row in keys for k in row}) == 6


# ----------------------------------------------------------------- cache accounting (timing.json)
def test_a_cold_run_counts_misses_and_a_warm_one_hits(gjg15_slice, searches):
    """Each lookup of the edit layer's stores is one hit or one miss: a cold run's are all misses
    (the values it then computes are not counted again as hits), a warm run's all hits."""
    from gec_meta.cache import COUNTERS
    from gec_meta.edits.generic import GenericExtractor

    def counted(run):
        before = dict(COUNTERS)
        run()
        return {k: COUNTERS[k] - before.get(k, 0) for k in ("kv_hit", "kv_miss")}

    sources, hyps, gold = gjg15_slice
    lookups = len({(n, " ".join(h[n].split())) for h in hyps for n in range(30)}) * 2
    assert counted(lambda: M2().match(sources, hyps, gold)) == {"kv_hit": 0, "kv_miss": lookups}
    m2_matches.m2_match_store.cache_clear()
    assert counted(lambda: M2().match(sources, hyps, gold)) == {"kv_hit": lookups, "kv_miss": 0}
    pairs = [(sources[n], h[n]) for h in hyps[:3] for n in range(30)]
    distinct = len(set(pairs))
    assert counted(lambda: GenericExtractor().extract(pairs)) == {"kv_hit": 0, "kv_miss": distinct}
    assert counted(lambda: GenericExtractor().extract(pairs)) == {"kv_hit": distinct, "kv_miss": 0}
