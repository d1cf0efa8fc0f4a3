"""The one edit type, the one edit-application function and the one ERRANT extractor."""

from __future__ import annotations

import random

import pytest

from gec_meta.edits.edit import Edit, apply_edits
from gec_meta.edits.edit_sets import errant_edit_sets
from gec_meta.edits.extract import ErrantExtractor, errant_extractor, extractor_signature


def _pt_apply_edit(source, edit):
    """PT's former single-edit application (metrics/edit/pt.py before the merge)."""
    tokens = source.split()
    start, end, correction = edit
    tokens[start:end] = correction.split()
    return " ".join(tokens)


def _random_edit(rng, n):
    start = rng.randint(0, n)
    end = rng.randint(start, min(n, start + 3))
    return (start, end, " ".join(rng.choice(["x", "y z", "", "w"]) for _ in range(rng.randint(0, 2))).strip())


def test_single_edit_equals_pt_apply_edit_on_random_inputs():
    rng = random.Random(0)
    for _ in range(2000):
        source = " ".join(f"t{i}" for i in range(rng.randint(0, 8)))
        edit = _random_edit(rng, len(source.split()))
        assert apply_edits(source, [edit]) == _pt_apply_edit(source, edit)


def test_apply_edits_left_to_right_keeps_insertion_order():
    assert apply_edits("a b c", [(1, 1, "x"), (1, 2, "y")]) == "a x y c"
    assert apply_edits("a b c", [(2, 3, "C"), (0, 1, "A")]) == "A b C"
    # Issue 19.1: two insertions at one position keep their input (ERRANT's) order.
    assert apply_edits("a b", [(1, 1, "x"), (1, 1, "y")]) == "a x y b"
    assert apply_edits("a b", [Edit.span(1, 1, "x")]) == "a x b"  # Edits are read by key
    with pytest.raises(ValueError, match="outside"):
        apply_edits("a b", [(2, 3, "x")])


def test_edit_fields_are_erants_stored_tuple():
    stored = (1, 2, 1, 3, "cat", "big cat", "R:NOUN")
    e = Edit._make(stored)
    assert e == stored and tuple(e) == stored  # positional readers keep working
    assert (e.start, e.end, e.c_start, e.c_end, e.original, e.correction, e.type) == stored
    assert e.key == (1, 2, "big cat") and not e.ignored
    assert Edit._make((-1, -1, -1, -1, "", "", "noop")).ignored
    m2 = Edit.span(0, 1, "A", "ArtOrDet")
    assert m2.key == (0, 1, "A") and (m2.c_start, m2.c_end, m2.original) == (-1, -1, "")


def test_one_process_wide_extractor():
    assert errant_extractor() is errant_extractor()


def test_extractor_namespace_is_unchanged():
    # The on-disk edit cache lives under this namespace: same string as before the move.
    sig = extractor_signature()
    assert sig.startswith("errant-edits|errant:") and "|merge:rules|lev:False" in sig


def test_extract_returns_edits_and_stores_plain_lists(tmp_path, monkeypatch):
    pytest.importorskip("errant")
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path))
    extractor = ErrantExtractor(progress=False)
    pairs = [("the cat sit on mat .", "the cat sits on the mat ."), ("a b", "a b")]
    edits = extractor.extract(pairs, threads=1)
    assert edits[1] == ()
    assert all(type(e) is Edit for e in edits[0])
    assert {e.key for e in edits[0]} >= {(2, 3, "sits"), (4, 4, "the")}
    from gec_meta.cache import KeyValueStore, text_hash

    reopened = KeyValueStore(extractor_signature(), tmp_path)  # what a later process reads
    value = reopened.get(text_hash(*pairs[0]))
    assert value and all(type(e) is list and len(e) == 7 for e in value)  # 7-field JSON lists on disk


def test_errant_edit_sets_drop_noop_and_keep_shape():
    pytest.importorskip("errant")
    sources = ["the cat sit .", "a b"]
    sets = errant_edit_sets(sources, [["the cat sits .", "a b"], ["the cats sit .", "a c"]], threads=1)
    assert len(sets) == 2 and all(len(row) == 2 for row in sets)
    assert sets[0][1] == ()  # identical text: no edits (the noop is dropped)
    assert [e.key for e in sets[0][0]] == [(2, 3, "sits")]


def test_the_process_wide_extractor_follows_the_cache_folder(tmp_path, monkeypatch):
    """A process that points GEC_META_CACHE elsewhere (or turns it off) after a first extraction
    gets its edits stored there (before, the store opened first kept receiving them)."""
    from gec_meta.cache import KeyValueStore, text_hash
    from gec_meta.edits.generic import generic_extractor

    extractor = generic_extractor()
    pair = ("en katt satt", "en katt satt där")
    key = text_hash(*pair)
    for name in ("a", "b"):
        monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / name))
        (edits,) = extractor.extract([pair])
        assert [e.correction for e in edits] == ["där"]
        assert KeyValueStore(extractor.namespace(), tmp_path / name).get(key) is not None, name
    monkeypatch.setenv("GEC_META_CACHE", "off")
    assert extractor.extract([pair])[0] == edits and extractor.store.root is None
    assert not (tmp_path / "off").exists()
