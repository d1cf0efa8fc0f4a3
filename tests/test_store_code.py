"""The stores of extracted edits (ERRANT, ChERRANT, the generic extractor) and of encoder states
are keyed by the code version of their module's import closure
(``gec_meta.cache.code.computing_code_version``), not by whole folders: every file of the
statistics code whose functions run while a store's entries are computed is in its key (traced
here), and an edit of another extractor, of the m2scorer lattice or of the test models' builder
leaves the store warm.
"""

from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path

import pytest

from gec_meta.cache import code
from gec_meta.metrics.base import STATISTICS_CODE


def _ran_statistics_code(fn) -> tuple[object, set[Path]]:
    """``fn()`` and the files of the statistics code whose functions ran in it (this process)."""
    inside = tuple(code.PACKAGE_DIR / part for part in STATISTICS_CODE)
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


def test_an_edit_elsewhere_leaves_the_parses_and_the_states_warm(tmp_path, monkeypatch):
    """Before, ERRANT's edits were keyed by all of ``edits/`` and the encoder states by all of
    ``encoders/``: an edit of the m2scorer lattice made every spaCy parse cold, one of the tiny
    test models' builder every encoder state."""
    from gec_meta.edits import cherrant, extract, generic

    package = tmp_path / "gec_meta"
    shutil.copytree(code.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    monkeypatch.setattr(code, "PACKAGE_DIR", package)

    def state():
        for f in (code._relative_paths, code.package_modules, code._imports_of, code._module_level_imports_of,
                  code.module_code_version, extract.extractor_signature, cherrant.extractor_signature):
            f.cache_clear()
        return {"errant": extract.extractor_signature(), "cherrant": cherrant.extractor_signature(),
                "generic": generic.GenericExtractor().namespace(),
                "states": code.computing_code_version("gec_meta.encoders.encoder")}

    before = state()

    def changed_by(*path):
        nonlocal before
        target = package.joinpath(*path)
        target.write_text(target.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
        after = state()
        moved = {k for k in before if after[k] != before[k]}
        before = after
        return moved

    try:
        assert changed_by("edits", "m2scorer.py") == set()
        assert changed_by("edits", "languages.py") == set()
        assert changed_by("edits", "edit_sets.py") == set()
        assert changed_by("encoders", "testing.py") == set()
        assert changed_by("edits", "cherrant.py") == {"cherrant"}
        assert changed_by("edits", "generic.py") == {"generic"}
        assert changed_by("edits", "errant_align.py") == {"errant", "cherrant", "generic"}
        assert changed_by("encoders", "forward.py") == {"states"}
    finally:
        monkeypatch.undo()
        state()
