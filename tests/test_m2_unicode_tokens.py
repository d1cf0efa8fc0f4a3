"""M2 tokens made only of format characters (review 22, finding 1).

Unicode cleaning (``nfc+cf``) removes such a token from an ``S`` line, while the ``A`` lines
count their offsets on the raw tokens: :func:`gec_meta.data.m2.read_m2` moves the offsets of
that block to the remaining tokens (i -> i minus the removed tokens before i) and turns an edit
that only deleted or inserted format characters into a noop (the annotator stays present).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from gec_meta.cli.main import main
from gec_meta.data import m2 as m2_module
from gec_meta.data.io import clean_unicode
from gec_meta.data.m2 import GoldEdit, annotator_references, parse_m2, read_hypothesis_m2, read_m2
from gec_meta.errors import DataError, InputWarning

ZW, LRM, BOM, SHY, WJ = "\u200b", "\u200e", "\ufeff", "\u00ad", "\u2060"
_A = "|||REQUIRED|||-NONE-|||"


def _read(tmp_path: Path, text: str, name: str = "ref.m2", **kw):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    m2_module._MOVED_REPORTED.discard(str(path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sents = read_m2(path, **kw)
    moved = [str(w.message) for w in caught if issubclass(w.category, InputWarning)
             and "format characters" in str(w.message)]
    return sents, moved


def _spans(sent, annotator=0):
    return [(e.start, e.end, e.corrections) for e in sent.edits_of(annotator)]


def test_the_repro_edit_after_a_removed_token_moves_left(tmp_path):
    """The review's repro: ``A 3 4`` replaces "a" (raw token 3, after the ZWSP): after cleaning
    "a" is token 2, and the reference is "This is the test ."."""
    (sent, second), moved = _read(tmp_path, f"S This is {ZW} a test .\nA 3 4|||ArtOrDet|||the{_A}0\n\n"
                                            f"S He go home .\nA 1 2|||SVA|||goes{_A}0\n\n")
    assert sent.source == "This is a test ."
    assert _spans(sent) == [(2, 3, ("the",))]
    assert _spans(second) == [(1, 2, ("goes",))]  # another block: untouched
    assert annotator_references((sent, second), (0,), "source") == (("This is the test .", "He goes home ."),)
    assert len(moved) == 1 and moved[0].startswith(f"{tmp_path / 'ref.m2'}:1: 1 S line(s)")


def test_insertions_at_the_removed_token(tmp_path):
    """An insertion before (1 1) and after (2 2) the ZWSP token: both land between "a" and "b"."""
    (sent,), _ = _read(tmp_path, f"S a {ZW} b\nA 1 1|||M|||x{_A}0\nA 2 2|||M|||y{_A}0\nA 3 3|||M|||z{_A}0\n\n")
    assert _spans(sent) == [(1, 1, ("x",)), (1, 1, ("y",)), (2, 2, ("z",))]
    assert annotator_references((sent,), (0,))[0][0] == "a x y b z"


def test_deleting_only_the_removed_token_is_a_noop_with_presence(tmp_path):
    """``A 1 2 -NONE-`` deleted the ZWSP alone: no edit any more, but annotator 1 stays present
    (as with a noop line), so it is not filled in as absent."""
    text = f"S a {ZW} b\nA 0 1|||R|||c{_A}0\nA 1 2|||U|||-NONE-{_A}1\n\n"
    (sent,), moved = _read(tmp_path, text)
    assert sent.annotators == (0, 1)
    assert sent.edits_of(1) == ()
    assert sent.edits_of(1, include_noop=True) == (GoldEdit(-1, -1, "noop", ("",), 1, 3),)
    assert _spans(sent, 0) == [(0, 1, ("c",))]
    assert "1 edit(s) that only deleted or inserted format characters (first: line 3)" in moved[0]


def test_replacement_spanning_the_removed_token(tmp_path):
    (sent,), _ = _read(tmp_path, f"S a {ZW} b c\nA 0 3|||R|||x y{_A}0\nA 1 2|||R|||w{_A}1\n\n")
    assert _spans(sent, 0) == [(0, 2, ("x y",))]
    assert _spans(sent, 1) == [(1, 1, ("w",))]  # replacing the invisible token by "w": an insertion
    assert annotator_references((sent,), (0, 1)) == (("x y c",), ("a w b c",))


def test_two_removed_tokens(tmp_path):
    """Raw tokens: a ZW b LRM+BOM c . -- offsets after both removed tokens move by two."""
    text = (f"S a {ZW} b {LRM}{BOM} c .\nA 4 5|||R|||C{_A}0\nA 2 4|||R|||B{_A}0\nA 5 5|||M|||!{_A}0\n"
            f"A 1 4|||U|||-NONE-{_A}1\nA 3 4|||R|||{WJ}||{SHY}{_A}2\n\n")
    (sent,), moved = _read(tmp_path, text)
    assert sent.source == "a b c ."
    assert _spans(sent, 0) == [(2, 3, ("C",)), (1, 2, ("B",)), (3, 3, ("!",))]
    assert _spans(sent, 1) == [(1, 2, ("",))]  # deletes "b" (and two invisible tokens)
    assert sent.edits_of(2) == () and 2 in sent.annotators  # every alternative invisible: a noop
    assert "1 edit(s)" in moved[0]


def test_inserting_an_invisible_character_is_no_edit(tmp_path):
    """No token removed, but the edit inserts a ZWSP only: after cleaning it changes nothing."""
    (sent,), moved = _read(tmp_path, f"S a b\nA 1 1|||M|||{ZW}{_A}0\nA 1 1|||M|||x{_A}0\n\n")
    assert _spans(sent) == [(1, 1, ("x",))] and sent.annotators == (0,)
    assert moved[0].startswith(f"{tmp_path / 'ref.m2'}:2: 1 edit(s)")


def test_a_files_own_vacuous_edit_and_noops_are_kept(tmp_path):
    """An edit that was vacuous in the raw file (empty span, -NONE-) stays as it was; noops stay."""
    (sent,), _ = _read(tmp_path, f"S a {ZW} b\nA 3 3|||X|||-NONE-{_A}0\nA -1 -1|||noop|||-NONE-{_A}1\n\n")
    assert _spans(sent) == [(2, 2, ("",))]
    assert sent.edits_of(1, include_noop=True)[0].start == -1


def test_raw_mode_keeps_the_raw_tokens_and_offsets(tmp_path):
    (sent,), moved = _read(tmp_path, f"S This is {ZW} a test .\nA 3 4|||ArtOrDet|||the{_A}0\n\n", unicode="raw")
    assert sent.source == f"This is {ZW} a test ." and _spans(sent) == [(3, 4, ("the",))] and not moved
    # parse_m2 without the raw text parses as given
    assert parse_m2("S a b\nA 1 2|||R|||c|||REQUIRED|||-NONE-|||0\n")[0].edits[0].start == 1


def test_spans_are_checked_on_the_raw_tokens(tmp_path):
    path = tmp_path / "bad.m2"
    path.write_text(f"S a {ZW} b\nA 2 4|||R|||x{_A}0\n\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.m2:2: edit span 2 4 outside the source sentence of 3 tokens"), \
            pytest.warns(InputWarning, match="changed by Unicode normalisation"):
        read_m2(path)


def test_cleaning_keeps_the_lines_and_format_characters_at_the_line_start(tmp_path):
    """clean_unicode keeps the number of lines (the offsets are moved line by line); a format
    character before the ``S`` tag is not a sentence token."""
    text = f"{LRM}S {ZW} a b\nA 1 2|||R|||c{_A}0\n{ZW}\nS d\n\n"
    with pytest.warns(InputWarning, match="changed by Unicode normalisation"):
        assert len(clean_unicode(text, tmp_path / "x.m2").split("\n")) == len(text.split("\n"))
    (first, second), _ = _read(tmp_path, text)
    assert first.source == "a b" and _spans(first) == [(0, 1, ("c",))] and second.source == "d"


def test_warned_once_per_file_and_again_from_the_cache(tmp_path, monkeypatch):
    """The warning names the file and the first S line that lost tokens; a warm read (from the
    parse cache) gives the same blocks and still warns."""
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    text = f"S a b\n\nS c {ZW} d\nA 2 3|||R|||e{_A}0\n\nS f {SHY} g\nA 2 3|||R|||h{_A}0\n\n"
    cold, moved = _read(tmp_path, text)
    assert len(moved) == 1 and moved[0].startswith(f"{tmp_path / 'ref.m2'}:3: 2 S line(s)")
    with warnings.catch_warnings(record=True) as caught:  # same process, same file: not again
        warnings.simplefilter("always")
        assert read_m2(tmp_path / "ref.m2") == cold
    assert not [w for w in caught if "format characters" in str(w.message)]
    warm, moved_warm = _read(tmp_path, text)  # reported set cleared: from the cache, warns again
    assert warm == cold and moved_warm == moved
    assert list((tmp_path / "cache" / "parsed").iterdir())
    assert _spans(cold[1]) == [(1, 2, ("e",))] and _spans(cold[2]) == [(1, 2, ("h",))]


def test_hypothesis_m2_edits_move_too(tmp_path):
    path = tmp_path / "sys.m2"
    path.write_text(f"S This is {ZW} a test .\nA 3 4|||R:DET|||the{_A}0\nA 2 3|||U|||-NONE-{_A}0\n\n",
                    encoding="utf-8")
    with pytest.warns(InputWarning):
        (hyp,) = read_hypothesis_m2(path, ["This is a test ."])
    # the ZWSP deletion (listed after, at the raw span 2 3) is a noop now, so file order stays valid
    assert str(hyp) == "This is the test ." and [(e.start, e.end) for e in hyp.edits] == [(2, 3)]


# ------------------------------------------------------------------ end to end (the CLI's API)
def _score(capsys, tmp_path: Path, *argv: str) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        assert main(["score", "--src", str(tmp_path / "src.txt"), *argv, "--ref", str(tmp_path / "ref.m2"),
                     "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def repro(tmp_path, monkeypatch):
    """/tmp/review22_data/zw: m2scorer and ``--unicode raw`` give P = R = F0.5 = 1."""
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    (tmp_path / "src.txt").write_text(f"This is {ZW} a test .\nHe go home .\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text(f"This is {ZW} the test .\nHe goes home .\n", encoding="utf-8")
    (tmp_path / "ref.m2").write_text(f"S This is {ZW} a test .\nA 3 4|||ArtOrDet|||the{_A}0\n\n"
                                     f"S He go home .\nA 1 2|||SVA|||goes{_A}0\n\n", encoding="utf-8")
    (tmp_path / "hyp.m2").write_text(f"S This is {ZW} a test .\nA 3 4|||R:DET|||the{_A}0\n\n"
                                     f"S He go home .\nA 1 2|||R:VERB:SVA|||goes{_A}0\n\n", encoding="utf-8")
    return tmp_path


def _prf(out: dict, system: str) -> tuple:
    v = out["systems"][system]
    return v["precision"], v["recall"], v["f"]


def test_cli_m2_scores_the_repro_perfectly(repro, capsys):
    assert _prf(_score(capsys, repro, "--hyp", str(repro / "hyp.txt"), "--metric", "m2"), "hyp") == (1.0, 1.0, 1.0)
    raw = _score(capsys, repro, "--hyp", str(repro / "hyp.txt"), "--metric", "m2", "--unicode", "raw")
    assert _prf(raw, "hyp") == (1.0, 1.0, 1.0)


def test_cli_errant_with_gold_reference_edits_scores_the_repro_perfectly(repro, capsys):
    out = _score(capsys, repro, "--hyp", str(repro / "hyp.txt"), "--metric", "errant", "-m", "reference_edits=gold")
    assert _prf(out, "hyp") == (1.0, 1.0, 1.0)
    out = _score(capsys, repro, "--hyp-m2", str(repro / "hyp.m2"), "--metric", "errant", "-m", "reference_edits=gold")
    assert _prf(out, "hyp") == (1.0, 1.0, 1.0)
