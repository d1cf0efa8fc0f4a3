"""The stores of extracted edits (ERRANT, ChERRANT, the generic extractor) and of encoder states
are keyed by the code version of their module's import closure
(``gec_meta.cache.code.computing_code_version``), not by whole folders: every file of the
statistics code whose functions run while a store's entries are computed is in its key (traced
here), and an edit of another extractor, of the m2scorer lattice or of the test models' builder
leaves the store warm.  The same for the parse cache of data files (``PARSING_CODE``).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from gec_meta.cache import code
from gec_meta.metrics.base import STATISTICS_CODE
from package_copy import Moves


def _ran_statistics_code(fn, inside: tuple[Path, ...] = ()) -> tuple[object, set[Path]]:
    """``fn()`` and the files of the statistics code (or of the folders ``inside``) whose
    functions ran in it (this process)."""
    inside = inside or tuple(code.PACKAGE_DIR / part for part in STATISTICS_CODE)
    ran: set[Path] = set()

    def tracer(frame, event, arg):
        if event == "call":
            ran.add(Path(frame.f_code.co_filename))

    old = sys.gettrace()
    sys.settrace(tracer)
    threading.settrace(tracer)
    try:
        out = fn()
    finally:
        sys.settrace(old)
        threading.settrace(None)
    return out, {p for p in ran if any(part == p or part in p.parents for part in inside)}


def _unhashed(ran: set[Path], module: str) -> set[str]:
    hashed = set(code.closure_files({module}, STATISTICS_CODE))
    return {str(p.relative_to(code.PACKAGE_DIR)) for p in ran - hashed}


def test_errant_edits_are_keyed_by_every_file_their_extraction_runs(tmp_path, monkeypatch):
    pytest.importorskip("errant")
    from gec_meta.edits.extract import ErrantExtractor, load_annotator

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    # spaCy's model loaded untraced (seconds under a tracer): extract.py imports what loads it
    # and speeds it up (spacy_speed.py), so that code is in the key by its imports
    load_annotator()
    pairs = [("He go to school .", "He goes to school ."), ("a cat sat", "the cat sat down")]
    edits, ran = _ran_statistics_code(lambda: ErrantExtractor(progress=False).extract(pairs, threads=1))
    assert [e.correction for e in edits[0]] == ["goes"]
    assert any(p.name == "errant_align.py" for p in ran)  # the alignment ran, traced
    assert _unhashed(ran, "gec_meta.edits.extract") == set()


def test_generic_edits_are_keyed_by_every_file_their_extraction_runs(tmp_path, monkeypatch):
    from gec_meta.edits.generic import GenericExtractor

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    pairs = [("en katt satt", "en katt satt där"), ("jag går hem", "jag gick hem")]
    edits, ran = _ran_statistics_code(lambda: GenericExtractor().extract(pairs, threads=1))
    assert [e.correction for e in edits[0]] == ["där"]
    assert any(p.name == "generic.py" for p in ran)
    assert _unhashed(ran, "gec_meta.edits.generic") == set()


def test_cherrant_edits_are_keyed_by_every_file_their_extraction_runs(tmp_path, monkeypatch):
    pytest.importorskip("pypinyin")
    from gec_meta.edits.cherrant import CherrantExtractor

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    res = tmp_path / "data" / "mucgec" / "scorers" / "ChERRANT" / "data"  # the two resources, tiny
    res.mkdir(parents=True)
    (res / "cilin.txt").write_bytes("Aa01A01= 我 们\nBa01A01= 书 饭\n".encode("gbk"))
    (res / "confusion_dict.txt").write_text("们 门 闷\n", encoding="utf-8")
    pairs = [("我们去吃饭", "我们去吃饭了"), ("他看书", "她看书")]
    extractor = CherrantExtractor(tmp_path / "data", progress=False)
    edits, ran = _ran_statistics_code(lambda: extractor.extract(pairs, threads=1))
    assert [e.correction for e in edits[0]] == ["了"]
    assert any(p.name == "cherrant.py" for p in ran)
    assert _unhashed(ran, "gec_meta.edits.cherrant") == set()


def test_encoder_states_are_keyed_by_every_file_their_forward_pass_runs(tmp_path, monkeypatch):
    pytest.importorskip("transformers")
    from gec_meta.encoders import Encoder
    from gec_meta.encoders.testing import tiny_bert

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    encoder = Encoder(model=str(tiny_bert(tmp_path / "bert")), layer=1)
    encoder.model, encoder.tokenizer  # loaded untraced (encoder.py imports loading.py): the forward pass traced
    states, ran = _ran_statistics_code(lambda: encoder.token_embeddings(["the cat sat", "a dog"]))
    assert len(states) == 2
    assert any(p.name == "forward.py" for p in ran)
    assert _unhashed(ran, "gec_meta.encoders.encoder") == set()


def test_an_edit_elsewhere_leaves_the_parses_and_the_states_warm(package):
    """Before, ERRANT's edits were keyed by all of ``edits/`` and the encoder states by all of
    ``encoders/``: an edit of the m2scorer lattice made every spaCy parse cold, one of the tiny
    test models' builder every encoder state.  m2scorer's matches are keyed by the lattice code
    alone: an edit of ERRANT's extraction leaves them warm, and ChERRANT's edits too."""
    from gec_meta.edits import cherrant, extract, generic, m2_matches

    def state():
        extract.extractor_signature.cache_clear()
        cherrant.extractor_signature.cache_clear()
        return {"errant": extract.extractor_signature(), "cherrant": cherrant.extractor_signature(),
                "generic": generic.GenericExtractor().namespace(),
                "m2": m2_matches.M2MatchStore(2, False).namespace(),
                "states": code.computing_code_version("gec_meta.encoders.encoder")}

    try:
        moves = Moves(package, state)
        assert moves("edits", "m2scorer.py") == {"m2"}
        assert moves("edits", "languages.py") == set()
        assert moves("edits", "edit_sets.py") == set()
        assert moves("encoders", "testing.py") == set()
        assert moves("edits", "cherrant.py") == {"cherrant"}
        assert moves("edits", "generic.py") == {"generic"}
        assert moves("edits", "errant_align.py") == {"errant", "generic"}
        assert moves("edits", "extract.py") == {"errant", "generic"}
        assert moves("edits", "stored.py") == {"errant", "cherrant", "generic", "m2"}
        assert moves("encoders", "forward.py") == {"states"}
    finally:  # the real sources' signatures for the tests after this one
        extract.extractor_signature.cache_clear()
        cherrant.extractor_signature.cache_clear()


def test_parsed_data_files_are_keyed_by_every_file_their_reader_runs(tmp_path, monkeypatch):
    """The parse cache's entries (M2 files, judgment XML) are keyed by the code version of the
    reader's closure within ``data/`` and ``edits/``: before, only the reader's own file was
    hashed, so a change of ``data/io.py``'s Unicode cleaning (which ``read_m2`` runs before the
    parse) would have been served the old cleaning's parses."""
    from gec_meta.cache.code import PARSING_CODE
    from gec_meta.data.judgments import read_judgments
    from gec_meta.data.m2 import read_m2

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    m2 = tmp_path / "ref.m2"
    m2.write_text("S He go to school .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n\n"
                  "S A cat\u00a0sat .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    xml = tmp_path / "judgments.xml"
    xml.write_text('<set><ranking-item doc-id="d" src-id="1" id="1" user="A1">'
                   '<translation system="a" rank="1" /><translation system="b" rank="2" /></ranking-item></set>',
                   encoding="utf-8")
    inside = tuple(code.PACKAGE_DIR / part for part in PARSING_CODE)
    for module, read in (("gec_meta.data.m2", lambda: read_m2(m2)),
                         ("gec_meta.data.judgments", lambda: read_judgments(xml, 1))):
        out, ran = _ran_statistics_code(read, inside)
        assert len(out) in (1, 2) and any(p.name == "io.py" for p in ran), module
        hashed = set(code.closure_files({module}, PARSING_CODE))
        assert {str(p.relative_to(code.PACKAGE_DIR)) for p in ran - hashed} == set(), module


def test_an_edit_of_the_cleaning_makes_the_parses_cold(package):
    from gec_meta.cache import source_tag

    moves = Moves(package, lambda: {"m2": source_tag("gec_meta.data.m2", "m2"),
                                    "judgments": source_tag("gec_meta.data.judgments")})
    assert moves("data", "io.py") == {"m2", "judgments"}
    assert moves("edits", "edit.py") == {"m2"}
    assert moves("data", "m2.py") == {"m2"}
    assert moves("data", "datasets.py") == set()
    assert moves("edits", "extract.py") == set()
