"""Property-based tests of every reader (issue 17): random bytes and random M2 / XML / score-file
structures go in; the outcome is always the correct result or a DataError/ConfigError (or a
MissingDataError) whose message names the file — never another exception."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gec_meta.data.io import clean_line, normalise, read_lines
from gec_meta.data.judgments import read_judgments
from gec_meta.data.m2 import parse_m2, read_m2
from gec_meta.errors import ConfigError, DataError, MissingDataError
from gec_meta.metrics.from_files import read_score_files

FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EXPECTED = (DataError, ConfigError, MissingDataError)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A scratch folder, with the parsed-file cache off (random inputs would fill it)."""
    path = tmp_path_factory.mktemp("prop")
    old = os.environ.get("GEC_META_CACHE")
    os.environ["GEC_META_CACHE"] = "off"
    yield path
    if old is None:
        os.environ.pop("GEC_META_CACHE", None)
    else:
        os.environ["GEC_META_CACHE"] = old


def _names_the_file(exc: Exception, path: Path) -> bool:
    return str(path) in str(exc)


# Bytes that stress the decoders: text, UTF-8 multibyte, BOMs, NULs, CR, separators.
CHUNKS = st.sampled_from([
    b"a", b"b c", b" ", b"\t", b"\n", b"\r\n", b"\r", b"\x00", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff",
    b"\xc3\xa9", b"\xe2\x80\xa8", b"\x0b", b"\xff", b"\xc3", b"1.5", b"-2e3", b"nan", b"inf", b"|||", b"S ", b"A ",
])
RANDOM_BYTES = st.one_of(st.binary(max_size=200), st.lists(CHUNKS, max_size=40).map(b"".join))


@FAST
@given(raw=RANDOM_BYTES)
def test_read_lines_random_bytes(folder, raw):
    path = folder / "lines.txt"
    path.write_bytes(raw)
    try:
        lines = read_lines(path)
    except EXPECTED as exc:
        assert _names_the_file(exc, path), exc
        return
    text = raw.decode("utf-8").removeprefix("\ufeff")
    expected = text.split("\n")
    if expected[-1] == "":
        expected.pop()
    assert lines == tuple(normalise(clean_line(l.removesuffix("\r"))) for l in expected)
    assert read_lines(path, unicode="raw") == tuple(normalise(l.removesuffix("\r")) for l in expected)
    assert b"\x00" not in raw  # NUL bytes never pass as text


@FAST
@given(raw=RANDOM_BYTES)
def test_read_m2_random_bytes(folder, raw):
    path = folder / "random.m2"
    path.write_bytes(raw)
    try:
        sentences = read_m2(path)
    except EXPECTED as exc:
        assert _names_the_file(exc, path), exc
        return
    for s in sentences:
        n = len(s.source.split())
        assert all(e.is_noop or 0 <= e.start <= e.end <= n for e in s.edits)


TOKEN = st.sampled_from(["This", "are", "a", "sentence", ".", ",", "é", "go"])


@st.composite
def m2_blocks(draw):
    """A valid M2 file (as text) and the blocks it encodes: (tokens, [(start, end, type, cor, ann)])."""
    blocks = []
    for _ in range(draw(st.integers(0, 4))):
        tokens = draw(st.lists(TOKEN, min_size=1, max_size=8))
        edits = []
        for _ in range(draw(st.integers(0, 3))):
            if draw(st.booleans()):
                edits.append((-1, -1, "noop", "-NONE-", draw(st.integers(0, 3))))
            else:
                start = draw(st.integers(0, len(tokens)))
                end = draw(st.integers(start, len(tokens)))
                cor = " ".join(draw(st.lists(TOKEN, max_size=3))) or "-NONE-"
                edits.append((start, end, draw(st.sampled_from(["R:VERB", "M:DET", "U:PUNCT"])), cor,
                              draw(st.integers(0, 3))))
        blocks.append((tokens, edits))
    text = "".join(
        "S " + " ".join(t) + "\n"
        + "".join(f"A {s} {e}|||{ty}|||{c}|||REQUIRED|||-NONE-|||{a}\n" for s, e, ty, c, a in edits) + "\n"
        for t, edits in blocks
    )
    return text, blocks


MUTATIONS = st.sampled_from(["none", "drop_char", "dup_line", "swap_fields", "big_span", "extra_field", "no_blank"])


def _mutate(text: str, how: str, k: int) -> str:
    lines = text.split("\n")
    if not text or how == "none":
        return text
    i = k % len(lines)
    if how == "drop_char" and lines[i]:
        lines[i] = lines[i][: k % len(lines[i])] + lines[i][k % len(lines[i]) + 1 :]
    elif how == "dup_line":
        lines.insert(i, lines[i])
    elif how == "swap_fields" and "|||" in lines[i]:
        f = lines[i].split("|||")
        f[0], f[-1] = f[-1], f[0]
        lines[i] = "|||".join(f)
    elif how == "big_span" and lines[i].startswith("A "):
        lines[i] = "A 0 99" + lines[i][lines[i].index("|||"):]
    elif how == "extra_field" and lines[i].startswith("A "):
        lines[i] += "|||x"
    elif how == "no_blank":
        lines = [l for l in lines if l]
    return "\n".join(lines)


@FAST
@given(m2=m2_blocks(), how=MUTATIONS, k=st.integers(0, 1000))
def test_parse_m2_random_structures(m2, how, k):
    text, blocks = m2
    mutated = _mutate(text, how, k)
    try:
        sentences = parse_m2(mutated, "gen.m2")
    except EXPECTED as exc:
        assert re.match(r"gen\.m2(:\d+)?: ", str(exc)), exc
        return
    if mutated == text:  # unmutated: exactly what was generated
        assert [s.source.split() for s in sentences] == [t for t, _ in blocks]
        got = [[(e.start, e.end, e.type, e.corrections[0] or "-NONE-", e.annotator) for e in s.edits]
               for s in sentences]
        assert got == [[(s, e, ty, "-NONE-" if ty == "noop" else c, a) for s, e, ty, c, a in ed]
                       for _, ed in blocks]
    for s in sentences:
        n = len(s.source.split())
        assert all(e.is_noop or 0 <= e.start <= e.end <= n for e in s.edits)


XML_PIECES = st.sampled_from([
    "<set>", "</set>", "<ranking-item id='1' src-id='1' user='u'>", "<ranking-item src-id='x'>",
    "<ranking-item id='2' src-id='3'>", "</ranking-item>", "<translation rank='1' system='A'/>",
    "<translation rank='2' system='B C'/>", "<translation rank='x' system='D'/>", "<translation system='A'/>",
    "<?xml version='1.0' encoding='utf-8'?>", "<?xml version='1.0' encoding='nosuch'?>", "&bogus;", "<", "é",
])


@FAST
@given(raw=st.one_of(RANDOM_BYTES, st.lists(XML_PIECES, max_size=12).map(lambda p: "".join(p).encode())),
       base=st.sampled_from([0, 1]))
def test_read_judgments_random_xml(folder, raw, base):
    path = folder / "judgments.xml"
    path.write_bytes(raw)
    try:
        items = read_judgments(path, index_base=base)
    except EXPECTED as exc:
        assert _names_the_file(exc, path), exc
        return
    assert items and all(isinstance(i.line, int) for i in items)
    for item in items:
        systems = [s for s, _ in item.ranks]
        assert len(systems) == len(set(systems))


@FAST
@given(seg=st.one_of(RANDOM_BYTES, st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=5)
                     .map(lambda xs: "".join(f"{x!r}\n" for x in xs).encode())),
       n=st.integers(0, 5))
def test_read_score_files_random_bytes(folder, seg, n):
    scores = folder / "scores"
    scores.mkdir(exist_ok=True)
    path = scores / "A.seg.score"
    path.write_bytes(seg)
    try:
        values, system = read_score_files(scores, ["A"], n)
    except EXPECTED as exc:
        assert _names_the_file(exc, path) or _names_the_file(exc, scores), exc
        return
    assert values.shape == (1, n) and system is None and np.isfinite(values).all()
    expected = [float(line) for line in seg.decode("utf-8").removeprefix("\ufeff").split("\n") if line.strip()]
    assert values[0].tolist() == expected
