"""A corpus of malformed inputs: each gives a clear error naming the file, line or config key —
or, where the input is legitimate (identical scores), a documented result (NaN + warning)."""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from gec_meta.meta.aggregation import Default, TrueSkillAggregation, expected_wins_from_wins, load_aggregation
from gec_meta.data.datasets import load_gjg15, load_gmeg_wiki, load_seeda
from gec_meta.data.io import read_lines
from gec_meta.data.judgments import read_judgments
from gec_meta.data.m2 import parse_m2, read_m2
from gec_meta.data.refsets import load_refset
from gec_meta.errors import ConfigError, DataError, GecMetaError, MissingDataError
from gec_meta.meta.task import MetricOutputError, Task
from gec_meta.meta.evaluation import UndefinedCorrelationWarning, system_correlations, window_analysis
from gec_meta.metrics.base import Metric


@pytest.fixture(scope="module")
def fake_root(tmp_path_factory, data_root):
    """A private copy of SEEDA, GJG15 and CoNLL-2014 that the tests may corrupt."""
    root = tmp_path_factory.mktemp("data")
    for sub in ("seeda", "gjg15", "conll14", "gmeg"):
        shutil.copytree(data_root / sub, root / sub)
    return root


def _corrupt(path: Path, transform) -> bytes:
    original = path.read_bytes()
    path.write_bytes(transform(original))
    return original


@pytest.fixture
def corrupt(fake_root):
    saved: list[tuple[Path, bytes]] = []

    def apply(rel: str, transform):
        path = fake_root / rel
        saved.append((path, _corrupt(path, transform)))
        return path

    yield apply
    for path, data in saved:
        path.write_bytes(data)


# ----------------------------------------------------------------- plain text files
def test_01_line_count_mismatch_in_system_output(fake_root, corrupt):
    path = corrupt("seeda/outputs/subset/T5.txt", lambda b: b.rsplit(b"\n", 1)[0])
    with pytest.raises(DataError, match=rf"{path}: has 390 lines, expected 391"):
        load_seeda(fake_root)


def test_02_gjg15_submission_too_long(fake_root, corrupt):
    corrupt("gjg15/original/official_submissions/AMU", lambda b: b + b"extra line\n")
    with pytest.raises(DataError, match=r"AMU: has 1313 lines, expected 1312"):
        load_gjg15(fake_root)


def test_03_non_utf8_bytes_name_the_line(fake_root, corrupt):
    path = corrupt("seeda/outputs/subset/PIE.txt", lambda b: b.replace(b"\n", b"\n\xff\xfe", 1))
    with pytest.raises(DataError, match=rf"{path}:2: not valid UTF-8"):
        load_seeda(fake_root)


def test_04_crlf_and_trailing_whitespace_are_legitimate(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"a b  \r\n c\r\n")
    assert read_lines(p) == ("a b", "c")


def test_05_empty_lines_are_kept_as_empty_sentences(tmp_path):
    p = tmp_path / "f"
    p.write_text("a\n\nb\n")
    assert read_lines(p, expected=3) == ("a", "", "b")


def test_06_empty_file_with_expected_count(tmp_path):
    p = tmp_path / "empty.txt"
    p.write_text("")
    with pytest.raises(DataError, match="empty.txt: has 0 lines, expected 2"):
        read_lines(p, expected=2)


def test_07_missing_file(tmp_path):
    with pytest.raises(MissingDataError, match="no such file"):
        read_lines(tmp_path / "nope.txt")


def test_08_missing_data_directory(tmp_path):
    with pytest.raises(MissingDataError, match="make data"):
        load_gjg15(tmp_path / "nowhere")


# ----------------------------------------------------------------- M2
M2_CASES = [
    ("S a b c\nA 0 1|||R|||x|||REQUIRED|||-NONE-\n", 2, "expected 6"),
    ("S a b c\nA 0 9|||R|||x|||REQUIRED|||-NONE-|||0\n", 2, "outside the source"),
    ("S a b c\nA 2 1|||R|||x|||REQUIRED|||-NONE-|||0\n", 2, "outside the source"),
    ("S a b c\nA -1 2|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n", 2, "malformed A line: span"),
    ("S a b c\nA x 1|||R|||x|||REQUIRED|||-NONE-|||0\n", 2, "non-integer"),
    ("S a b c\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||zero\n", 2, "non-integer"),
    ("S a b\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\nS c d\n", 3, "without a blank"),
    ("S a b\n\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n", 3, "outside a block"),
    ("S a b\nB 0 1\n", 2, "neither"),
    ("S a b\nA 0|||R|||x|||REQUIRED|||-NONE-|||0\n", 2, "is not 'start end'"),
]


@pytest.mark.parametrize("text, line, message", M2_CASES)
def test_09_to_18_malformed_m2(text, line, message):
    with pytest.raises(DataError, match=rf"bad.m2:{line}: .*{message}"):
        parse_m2(text, "bad.m2")


def test_19_m2_sentence_count_mismatch(tmp_path):
    p = tmp_path / "x.m2"
    p.write_text("S a\n\nS b\n")
    with pytest.raises(DataError, match="x.m2: has 2 sentences, expected 3"):
        read_m2(p, expected=3)


# ----------------------------------------------------------------- judgments XML
XML_CASES = [
    ("<set><ranking-item src-id='1'><translation rank='1' system='A'></set>", "malformed XML"),
    ("<set></set>", "no <ranking-item>"),
    ("<set><ranking-item id='7'><translation rank='1' system='A'/></ranking-item></set>", "id=7> has no src-id"),
    ("<set><ranking-item id='7' src-id='x'><translation rank='1' system='A'/></ranking-item></set>", "non-integer src-id"),
    ("<set><ranking-item id='7' src-id='1'><translation rank='best' system='A'/></ranking-item></set>", "without integer rank"),
    ("<set><ranking-item id='7' src-id='1'><translation rank='1' system='A'/><translation rank='2' system='A B'/></ranking-item></set>", "ranks A twice"),
]


@pytest.mark.parametrize("xml, message", XML_CASES)
def test_20_to_25_malformed_judgments(tmp_path, xml, message):
    p = tmp_path / "j.xml"
    p.write_text(xml)
    with pytest.raises(DataError, match=rf"j.xml.*{message}"):
        read_judgments(p, index_base=1)


def test_26_judgment_of_unknown_system(fake_root, corrupt):
    corrupt("seeda/data/judgments_edit.xml", lambda b: b.replace(b'system="BART"', b'system="BARTX"', 1))
    with pytest.raises(DataError, match="judgments_edit.xml.*unknown system 'BARTX'"):
        load_seeda(fake_root)


def test_27_judgment_outside_the_dataset(fake_root, corrupt):
    corrupt("gjg15/judgments.xml", lambda b: b.replace(b'src-id="135"', b'src-id="5000"', 1))
    with pytest.raises(DataError, match="judgments.xml.*corpus line 5000, which is not in the dataset"):
        load_gjg15(fake_root)


# ----------------------------------------------------------------- human score files
def test_28_human_score_not_a_number(fake_root, corrupt):
    path = corrupt("seeda/scores/human/TS_edit.txt", lambda b: b.replace(b"0.064", b"0.o64", 1))
    with pytest.raises(DataError, match=rf"{path}:2: not a number"):
        load_seeda(fake_root)


def test_29_human_score_file_wrong_count(fake_root, corrupt):
    path = corrupt("seeda/scores/human/EW_sent.txt", lambda b: b + b"\n0.5")
    with pytest.raises(DataError, match=rf"{path}: has 16 scores, expected 15"):
        load_seeda(fake_root)


def test_30_gjg15_table_bad_row(fake_root, corrupt):
    path = corrupt("gjg15/gjg15_table3_human_scores.tsv", lambda b: b.replace(b"AMU\t0.628", b"AMU\t0.628\t9", 1))
    with pytest.raises(DataError, match=rf"{path}:2: expected 7 columns"):
        load_gjg15(fake_root)


def test_31_gmeg_missing_human_score(fake_root, corrupt):
    path = corrupt("gmeg/test/wiki-corpus-scores.csv", lambda b: b"\n".join(l for l in b.split(b"\n") if not l.startswith(b"nus,")))
    with pytest.raises(DataError, match=rf"{path}: no human score for \['nus'\]"):
        load_gmeg_wiki(fake_root)


# ----------------------------------------------------------------- configuration
def test_32_unknown_setting_refset_aggregation(fake_root):
    with pytest.raises(ConfigError, match="dataset.setting='plus'"):
        load_seeda(fake_root, "plus")
    ds = load_seeda(fake_root)
    with pytest.raises(ConfigError, match="unknown refset 'nucle'"):
        load_refset("nucle", ds, fake_root)
    with pytest.raises(ConfigError, match="refset.missing_annotator"):
        load_refset("official", ds, fake_root, missing_annotator="first")
    with pytest.raises(ConfigError, match="unknown aggregation 'median'"):
        load_aggregation("median")
    with pytest.raises(ConfigError, match="aggregation.order"):
        TrueSkillAggregation(order="random")
    with pytest.raises(ConfigError, match="dataset.systems must be a permutation"):
        load_gjg15(fake_root, systems=["AMU"])


def test_33_reference_set_of_another_corpus(fake_root):
    with pytest.raises(ConfigError, match="refset=bn10 applies to CoNLL-2014 datasets"):
        load_refset("bn10", load_gmeg_wiki(fake_root), fake_root)


# ----------------------------------------------------------------- metric output
@dataclass(frozen=True)
class _Broken(Metric):
    mode: str = "nan"
    name: ClassVar[str] = "broken"
    needs_references: ClassVar[bool] = False
    cacheable: ClassVar[bool] = False

    def statistics(self, sources, hypotheses, references):
        x = np.ones((len(hypotheses), len(sources), 1, 1))
        if self.mode == "nan":
            x[1, 3, 0, 0] = np.nan
        elif self.mode == "inf":
            x[0, 0, 0, 0] = np.inf
        elif self.mode == "shape":
            x = x[:, :-1]
        elif self.mode == "constant":
            pass
        return x


def test_34_metric_returns_nan(fake_root):
    with pytest.raises(MetricOutputError, match=r"non-finite statistic \(nan\) for system #1, sentence #3 \(line 4\)"):
        Task(load_seeda(fake_root), _Broken("nan"), Default()).run()


def test_35_metric_returns_inf(fake_root):
    with pytest.raises(MetricOutputError, match="non-finite statistic"):
        Task(load_seeda(fake_root), _Broken("inf"), Default()).run()


def test_36_metric_returns_wrong_number_of_scores(fake_root):
    with pytest.raises(MetricOutputError, match=r"statistics of shape \(12, 390, 1, 1\), expected \(12, 391, 1, 1\)"):
        Task(load_seeda(fake_root), _Broken("shape"), Default()).run()


def test_37_identical_scores_give_nan_with_warning(fake_root):
    with pytest.warns(UndefinedCorrelationWarning):
        res = Task(load_seeda(fake_root), _Broken("constant"), Default(), window=None).run()
    assert math.isnan(res["system"]["TS_edit"]["pearson"])
    assert math.isnan(res["system"]["TS_edit"]["spearman"])


def test_38_bad_meta_evaluation_arguments():
    with pytest.raises(ValueError, match="window must be between 2 and the number of systems"):
        window_analysis([1, 2, 3], [1, 2, 3], 5)
    with pytest.raises(ValueError, match="one length"):
        system_correlations([1, 2, 3], {"h": [1, 2]})
    with pytest.raises(ValueError, match="at least two systems"):
        expected_wins_from_wins(np.zeros((1, 1)))


def test_39_errors_are_gec_meta_errors():
    # One base class lets callers catch every input problem of the harness at once.
    assert issubclass(DataError, GecMetaError) and issubclass(MissingDataError, GecMetaError)
    assert issubclass(ConfigError, GecMetaError) and issubclass(MetricOutputError, GecMetaError)


# =================================================================================================
# Inputs, CLI and resume (issue 17 items 1, 2, 5a-b, 7): cases test_100 ... test_199.
# Every case asserts the outcome a user sees: a DataError/ConfigError naming the file and line or
# the key, or (through the CLI and run.py) one line "gec-meta: error: ..." and exit status 2.
# =================================================================================================
import json as _json
import re
import os as _os
import subprocess as _subprocess
import sys as _sys

from gec_meta.cli import resume as _resume
from gec_meta.cli.errors import error_line
from gec_meta.cli.main import main as _cli_main
from gec_meta.data.io import check_nonempty, read_text, recording_inputs
from gec_meta.data.m2 import check_sources
from gec_meta.metrics.from_files import read_score_files, write_score_files
from gec_meta.cli.report import main as _report_main

_REPO = Path(__file__).resolve().parents[1]
_A = "|||REQUIRED|||-NONE-|||"
_M2_TWO = f"S This are a sentence .\nA 1 2|||SVA|||is{_A}0\n\nS He go home .\nA 1 2|||SVA|||goes{_A}0\n\n"
_SRC_TWO = ("This are a sentence .", "He go home .")


# ----------------------------------------------------------------- item 1: A lines
@pytest.mark.parametrize("body, got", [
    ("A 1 2|||SVA|||is|||REQUIRED|||-NONE-", 5),
    ("A 1 2|||SVA|||is|||REQUIRED|||-NONE-|||0|||extra", 7),
    ("A 1 2|||SVA|||is|||REQUIRED|||-NONE-|||0|||1|||2", 8),
    ("A 1 2|||SVA", 2),
])
def test_100_to_103_a_line_needs_exactly_six_fields(body, got):
    with pytest.raises(DataError, match=rf"bad.m2:2: malformed A line: expected 6 .*got {got}"):
        parse_m2(f"S This are a sentence .\n{body}\n", "bad.m2")


def test_104_annotator_id_is_field_six():
    (sent,) = parse_m2(f"S a b c\nA 0 1|||R:NOUN|||x{_A}3\n", "ok.m2")
    assert sent.edits[0].annotator == 3 and sent.annotators == (3,)


# ----------------------------------------------------------------- item 1: S lines vs the source
@pytest.mark.parametrize("sources, line, message", [
    (("He go home .", "This are a sentence ."), 1, "S line of sentence 1 is not the source sentence 1"),  # other order
    (("This are a sentence.", "He go home ."), 1, "is not the source sentence 1"),                      # detokenised
    (("This are a sentence .", "She went home ."), 4, "sentence 2 is not the source sentence 2"),      # other sentences
    (("This are", "He go home ."), 1, "is not the source sentence 1"),                                 # shorter than the spans
])
def test_105_to_108_m2_s_lines_must_be_the_source(sources, line, message):
    sents = parse_m2(_M2_TWO, "refs.m2")
    with pytest.raises(DataError, match=rf"refs.m2:{line}: .*{message}"):
        check_sources(sents, sources, "refs.m2")


def test_109_m2_with_more_sentences_than_the_source():
    with pytest.raises(DataError, match="refs.m2: has 2 sentences, the source has 1"):
        check_sources(parse_m2(_M2_TWO, "refs.m2"), _SRC_TWO[:1], "refs.m2")


def test_110_s_line_check_is_whitespace_normalised():
    # A dataset read with whitespace=rstrip keeps doubled spaces; the S line is normalised.
    check_sources(parse_m2(_M2_TWO), ("This  are a sentence .", " He go home ."), "refs.m2")


def test_111_seeda_subset_mapping_checks_the_mapped_lines():
    sents = parse_m2(_M2_TWO, "refs.m2")
    check_sources(sents, ("He go home .",), "refs.m2", lines=[1])
    with pytest.raises(DataError, match="refs.m2:1: S line of sentence 1 is not the source sentence 1"):
        check_sources(sents, ("He go home .",), "refs.m2", lines=[0])
    with pytest.raises(DataError, match="refs.m2: has 2 sentences; sentence 3 is needed"):
        check_sources(sents, ("He go home .",), "refs.m2", lines=[2])


def test_112_official_refset_of_a_reordered_conll_m2(fake_root, corrupt):
    # Swap the first two blocks of the CoNLL-2014 M2: every score would silently change.
    def swap(b):
        blocks = b.split(b"\n\n")
        blocks[0], blocks[1] = blocks[1], blocks[0]
        return b"\n\n".join(blocks)

    path = corrupt("conll14/conll14st-test.m2", swap)
    with pytest.raises(DataError, match=rf"{path}:1: S line of sentence 1 is not the source sentence 1"):
        load_refset("official", load_gjg15(fake_root), fake_root)


def test_113_official_refset_of_a_detokenised_seeda_line(fake_root, corrupt):
    # SEEDA's first judged sentence, detokenised in the M2 (its last two tokens joined).
    ds = load_seeda(fake_root)
    first = ds.corpus_lines[0]

    def detokenise(b):
        blocks = b.split(b"\n\n")
        s_line, _, rest = blocks[first].partition(b"\n")
        head, _, last = s_line.rpartition(b" ")
        blocks[first] = head + last + (b"\n" + rest if rest else b"")
        return b"\n\n".join(blocks)

    path = corrupt("conll14/conll14st-test.m2", detokenise)
    with pytest.raises(DataError, match=rf"{path}:\d+: S line of sentence {first + 1} is not the source sentence 1"):
        load_refset("official", ds, fake_root)


# ----------------------------------------------------------------- item 5: encodings, NULs, directories, empty corpora
@pytest.mark.parametrize("encode, message", [
    (lambda t: t.encode("utf-16-le"), "looks like UTF-16 without a byte-order mark"),
    (lambda t: t.encode("utf-16-be"), "looks like UTF-16 without a byte-order mark"),
    (lambda t: t.encode("utf-16"), r"is UTF-16 \(byte-order mark\)"),
    (lambda t: t.encode("utf-32-le"), "UTF-16|NUL byte"),
    (lambda t: t.encode() + b"\0\n", "contains a NUL byte"),
])
def test_114_to_118_not_utf8_text_is_named(tmp_path, encode, message):
    p = tmp_path / "sys.txt"
    p.write_bytes(encode("This are a sentence .\nHe go home .\n"))
    with pytest.raises(DataError, match=rf"{p}:\d+: .*({message})"):
        read_lines(p)


def test_119_utf16_m2_is_named(tmp_path):
    p = tmp_path / "refs.m2"
    p.write_bytes(_M2_TWO.encode("utf-16-le"))
    with pytest.raises(DataError, match=rf"{p}:1: looks like UTF-16"):
        read_m2(p)


def test_120_bom_prefixed_m2_reads_like_the_plain_one(tmp_path):
    plain, bom = tmp_path / "a.m2", tmp_path / "b.m2"
    plain.write_text(_M2_TWO, encoding="utf-8")
    bom.write_bytes(b"\xef\xbb\xbf" + _M2_TWO.encode())
    assert read_m2(bom) == read_m2(plain)


@pytest.mark.parametrize("reader", [
    lambda p: read_lines(p), lambda p: read_m2(p), lambda p: read_judgments(p, 1), lambda p: read_text(p),
])
def test_121_to_124_directory_given_as_a_file(tmp_path, reader):
    d = tmp_path / "INPUT.txt"
    d.mkdir()
    with pytest.raises(DataError, match=rf"{d}: is a directory, expected a file"):
        reader(d)


@pytest.mark.parametrize("content, message", [(b"", "has no lines"), (b"\n\n  \n", r"has only blank lines \(3\)")])
def test_125_126_empty_corpus_is_an_error(tmp_path, content, message):
    p = tmp_path / "src.txt"
    p.write_bytes(content)
    with pytest.raises(DataError, match=rf"{p}: {message}: an empty corpus cannot be scored"):
        check_nonempty(read_lines(p), p)


def test_127_empty_gmeg_source(fake_root, corrupt):
    path = corrupt("gmeg/test/wiki/source", lambda b: b"")
    with pytest.raises(DataError, match=rf"{path}: has no lines"):
        load_gmeg_wiki(fake_root)


# ----------------------------------------------------------------- score files (metric=from_files)
def test_128_non_utf8_score_file(tmp_path):
    write_score_files(tmp_path, ["A"], np.zeros((1, 3)))
    (tmp_path / "A.seg.score").write_bytes(b"0.1\n0.2\n\xff0.3\n")
    with pytest.raises(DataError, match=r"A.seg.score:3: not valid UTF-8"):
        read_score_files(tmp_path, ["A"], 3)


def test_129_utf16_score_file(tmp_path):
    (tmp_path / "A.seg.score").write_bytes("0.1\n0.2\n0.3\n".encode("utf-16-le"))
    with pytest.raises(DataError, match=r"A.seg.score:1: looks like UTF-16"):
        read_score_files(tmp_path, ["A"], 3)


def test_130_directory_named_like_a_score_file(tmp_path):
    from gec_meta.metrics.from_files import FromFiles

    write_score_files(tmp_path, ["A"], np.zeros((1, 3)))
    (tmp_path / "B.seg.score").mkdir()
    with pytest.raises(DataError, match=r"B.seg.score: is a directory"):
        FromFiles(str(tmp_path)).bind(["s"] * 3, None, None, systems=["A", "B"])
    with pytest.raises(DataError, match=r"B.seg.score: is a directory"):
        read_score_files(tmp_path, ["A", "B"], 3)


def test_131_score_file_with_crlf_is_read_and_digested_as_before(tmp_path):
    from gec_meta.cache import text_hash
    from gec_meta.metrics.from_files import FromFiles

    (tmp_path / "A.seg.score").write_bytes(b"0.5\r\n0.25\r\n")
    seg, _ = read_score_files(tmp_path, ["A"], 2)
    assert seg.tolist() == [[0.5, 0.25]]
    bound = FromFiles(str(tmp_path)).bind(["s"] * 2, None, None, systems=["A"])
    assert bound.options()["content"] == text_hash((tmp_path / "A.seg.score").read_text(encoding="utf-8"))[:20]


# ----------------------------------------------------------------- item 7: the gec-meta CLI
def _cli(argv, capsys):
    status = _cli_main([str(a) for a in argv])
    err = capsys.readouterr().err
    return status, err


@pytest.fixture
def tiny(tmp_path):
    (tmp_path / "src.txt").write_text("\n".join(_SRC_TWO) + "\n")
    (tmp_path / "A.txt").write_text("This is a sentence .\nHe goes home .\n")
    (tmp_path / "B.txt").write_text("\n".join(_SRC_TWO) + "\n")
    (tmp_path / "refs.m2").write_text(_M2_TWO)
    return tmp_path


CLI_CASES = {
    "m_without_equals": (["-m", "beta"], r"-m 'beta': expected a metric field as KEY=VALUE"),
    "m_empty_key": (["-m", "=1"], r"-m '=1': expected a metric field"),
    "m_misspelled_field": (["-m", "betta=1"], r"metric m2 has no field 'betta'; fields: beta"),
    "c_without_equals": (["-c", "encoder"], r"-c 'encoder': expected a Hydra override KEY=VALUE"),
    "c_empty_key": (["-c", "=x"], r"-c '=x': expected a Hydra override"),
    "c_unknown_encoder": (["--metric", "pt_m2", "-c", "encoder=nosuch"], r"-c encoder=nosuch: unknown encoder 'nosuch'; available: .*minilm"),
    "c_unknown_key": (["-c", "foo=bar"], r"Could not override 'foo'"),
    "unknown_metric": (["--metric", "nosuch"], r"unknown metric 'nosuch'"),
    "expected_wins_one_system": (["--aggregation", "expected_wins"], r"--aggregation expected_wins compares systems pairwise"),
    "trueskill_one_system": (["--aggregation", "trueskill"], r"--aggregation trueskill compares systems pairwise"),
    "unknown_aggregation": (["--aggregation", "median"], r"unknown aggregation 'median'"),
}


@pytest.mark.parametrize("extra, message", CLI_CASES.values(), ids=CLI_CASES.keys())
def test_132_to_142_cli_option_errors_are_one_line(tiny, capsys, extra, message):
    status, err = _cli(["score", "--src", tiny / "src.txt", "--hyp", tiny / "A.txt", "--ref", tiny / "refs.m2", *extra], capsys)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("gec-meta: error: "), err
    assert re.search(message, err), err


def _files_case(tiny, name):
    src, a, b, ref = tiny / "src.txt", tiny / "A.txt", tiny / "B.txt", tiny / "refs.m2"
    if name == "src_is_directory":
        return ["--src", tiny, "--hyp", a, "--ref", ref], rf"{tiny}: is a directory, expected a file"
    if name == "hyp_missing":
        return ["--src", src, "--hyp", tiny / "C.txt", "--ref", ref], r"C.txt: no such file"
    if name == "empty_src":
        src.write_text("")
        return ["--src", src, "--hyp", a, "--ref", ref], r"src.txt: has no lines: an empty corpus"
    if name == "m2_of_other_sentences":
        ref.write_text(_M2_TWO.replace("He go home", "She go home"))
        return ["--src", src, "--hyp", a, b, "--ref", ref], r"refs.m2:4: S line of sentence 2 is not the source sentence 2"
    if name == "m2_in_other_order":
        blocks = _M2_TWO.strip("\n").split("\n\n")
        ref.write_text(blocks[1] + "\n\n" + blocks[0] + "\n\n")
        return ["--src", src, "--hyp", a, b, "--ref", ref], r"refs.m2:1: S line of sentence 1 is not the source"
    if name == "m2_and_text_refs":
        return ["--src", src, "--hyp", a, "--ref", ref, b], r"--ref: give either one M2 file"
    if name == "same_system_name":
        (tiny / "x").mkdir()
        (tiny / "x" / "A.txt").write_text(a.read_text())
        return ["--src", src, "--hyp", a, tiny / "x" / "A.txt", "--ref", ref], r"two systems share a file name"
    if name == "utf16_hypothesis":
        b.write_bytes(b.read_text().encode("utf-16-le"))
        return ["--src", src, "--hyp", a, b, "--ref", ref], r"B.txt:1: looks like UTF-16"
    if name == "hyp_too_short":
        b.write_text(_SRC_TWO[0] + "\n")
        return ["--src", src, "--hyp", a, b, "--ref", ref], r"mismatched number of lines"
    raise AssertionError(name)


FILE_CASES = ["src_is_directory", "hyp_missing", "empty_src", "m2_of_other_sentences", "m2_in_other_order",
              "m2_and_text_refs", "same_system_name", "utf16_hypothesis", "hyp_too_short"]


@pytest.mark.parametrize("name", FILE_CASES)
def test_143_to_151_cli_file_errors_name_the_file(tiny, capsys, name):
    argv, message = _files_case(tiny, name)
    status, err = _cli(["score", *argv], capsys)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("gec-meta: error: "), err
    assert re.search(message, err), err


@pytest.mark.parametrize("suffix", [".M2", ".m2", ".M2".lower().upper()])
def test_152_m2_suffix_in_any_case(tiny, capsys, suffix):
    ref = tiny / f"gold{suffix}"
    ref.write_text(_M2_TWO)
    status = _cli_main(["score", "--src", str(tiny / "src.txt"), "--hyp", str(tiny / "A.txt"), str(tiny / "B.txt"),
                        "--ref", str(ref), "--json"])
    out = _json.loads(capsys.readouterr().out)
    assert status == 0 and out["systems"]["A"]["f"] == 1.0 and out["systems"]["B"]["f"] == 0.0


def test_153_cli_bom_prefixed_m2_scores_like_the_plain_one(tiny, capsys):
    (tiny / "bom.m2").write_bytes(b"\xef\xbb\xbf" + _M2_TWO.encode())
    runs = []
    for ref in ("refs.m2", "bom.m2"):
        assert _cli_main(["score", "--src", str(tiny / "src.txt"), "--hyp", str(tiny / "A.txt"), str(tiny / "B.txt"),
                          "--ref", str(tiny / ref), "--json"]) == 0
        runs.append(_json.loads(capsys.readouterr().out)["systems"])
    assert runs[0] == runs[1]


@pytest.mark.parametrize("argv, message", [
    (["--system", "NOSUCH", "--sentence", "3"], r"--system 'NOSUCH' is not a system of seeda"),
    (["--system", "T5", "--sentence", "391"], r"--sentence 391 out of range 0..390"),
    (["--system", "T5", "--sentence", "-1"], r"--sentence -1 out of range"),
])
def test_154_to_156_uot_align_unknown_system_or_sentence(fake_root, capsys, argv, message):
    status, err = _cli(["uot-align", "--data", fake_root, "--sentences", "subset", *argv], capsys)
    assert status == 2 and err.count("\n") == 1 and re.search(message, err), err


def test_157_error_line_unwraps_hydra_instantiation_exception():
    from hydra.errors import InstantiationException

    try:
        try:
            raise ConfigError("dataset.setting='x' is not a SEEDA setting")
        except ConfigError as inner:
            raise InstantiationException("Error in call to target 'load_seeda':\nConfigError(...)\nfull_key: dataset") from inner
    except InstantiationException as exc:
        assert error_line(exc) == "dataset.setting='x' is not a SEEDA setting"
    assert error_line(KeyError("bug")) is None  # a bug keeps its traceback


# ----------------------------------------------------------------- item 7: run.py / gec-meta-run
def _run_env(data_root, cache) -> dict:
    env = {**_os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(cache)}
    env.pop("HYDRA_FULL_ERROR", None)
    return env


def _run_py(args, data_root, cache, cwd=_REPO):
    return _subprocess.run([_sys.executable, str(_REPO / "run.py"), *args], cwd=cwd, env=_run_env(data_root, cache),
                           capture_output=True, text=True, timeout=300)


def _run_main(args, data_root, cache, cwd=_REPO):
    """``run.py`` in this process (tests/inprocess.py)."""
    from inprocess import run_main

    return run_main(args, _run_env(data_root, cache), cwd)


RUN_CASES = {
    "misspelled_field": (["metric=m2", "metric.betta=1"], r"Could not override 'metric.betta'.*Key 'betta'"),
    "unknown_metric": (["metric=nosuch"], r"metric=nosuch: unknown metric 'nosuch'; available: .*errant"),
    "malformed_override": (["metric=[a"], r"no viable alternative at input '\[a'"),
    "wrapped_config_error": (["metric=length", "dataset.setting=plus"], r"dataset.setting='plus' is not a SEEDA setting"),
    "unknown_group_key": (["foo=bar"], r"Could not override 'foo'"),
}


@pytest.mark.parametrize("case", RUN_CASES)
def test_158_to_162_run_py_errors_are_one_line(fake_root, tmp_path, case):
    # One case in a real process (its exit status and stderr are the process's); the others call
    # run.py's main() in this one, ~1 s of CPU less each (tests/inprocess.py).
    args, message = RUN_CASES[case]
    run = _run_py if case == "unknown_metric" else _run_main
    proc = run([*args, f"hydra.run.dir={tmp_path / 'run'}"], fake_root, tmp_path / "cache")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("gec-meta: error: "), proc.stderr
    assert re.search(message, lines[0]), lines[0]


def test_163_run_py_data_error_names_file_and_line(fake_root, corrupt, tmp_path):
    path = corrupt("gmeg/test/wiki/amu", lambda b: b.replace(b"\n", b"\n\xff", 1))
    proc = _run_main(["dataset=gmeg_wiki", "metric=length", f"hydra.run.dir={tmp_path / 'run'}"], fake_root, tmp_path / "c")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert re.fullmatch(rf"gec-meta: error: {path}:2: not valid UTF-8 \(invalid start byte at byte \d+\)", proc.stderr.strip())


# ----------------------------------------------------------------- item 7: python -m gec_meta.report
@pytest.mark.parametrize("content, message", [
    (b'{"dataset": "seeda", "system": {', "cannot read this result file"),
    (b"[1, 2]", "is not a result file"),
    (b"\xff\xfe{}", "cannot read this result file"),
])
def test_164_to_166_report_names_the_unreadable_result(tmp_path, capsys, content, message):
    bad = tmp_path / "job3" / "results.json"
    bad.parent.mkdir()
    bad.write_bytes(content)
    assert _report_main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}: {message}" in err, err


def test_167_report_of_a_missing_folder(tmp_path, capsys):
    assert _report_main([str(tmp_path / "nowhere")]) == 2
    assert "nowhere: is not a folder of runs" in capsys.readouterr().err


# ----------------------------------------------------------------- item 2: resume (fault injection)
def test_168_reads_are_recorded_with_their_digest(tmp_path):
    import hashlib

    p = tmp_path / "a.txt"
    p.write_text("x y\n")
    read_lines(p)  # outside a recording scope: nothing to record, nothing kept
    with recording_inputs() as rec:
        read_lines(p)
    assert rec == {str(p.absolute()): hashlib.sha256(b"x y\n").hexdigest()}


def _finished_job(tmp_path, inputs, config_id="cfg", metric="m(v=1)"):
    out = tmp_path / "job"
    digests = {str(p): _resume.file_digest(p) for p in inputs}
    _resume.publish(out, {"results.json": _json.dumps({"format_version": 2, "config_id": config_id, "system": {}}),
                          "results.md": "# a result\n"}, config_id, metric, digests)
    return out


@pytest.mark.parametrize("fault, reason", [
    ("none", None),
    ("changed_input", r"input .*data.txt changed \(sha256"),
    ("deleted_input", r"input .*data.txt is gone"),
    ("truncated_results", r"results.json is unreadable or truncated"),
    ("results_not_object", r"results.json is not a JSON object"),
    ("missing_sidecar", r"no record of the inputs it read"),
    ("corrupt_sidecar", r"no record of the inputs it read .*inputs.json is unreadable"),
    ("other_config", r"the config changed"),
    ("other_metric", r"the metric changed \(m\(v=1\) -> m\(v=2\)\)"),
    ("sidecar_of_another_run", r"inputs.json belongs to another run"),
])
def test_169_to_178_resume_reruns_a_job_whose_inputs_changed(tmp_path, fault, reason):
    data = tmp_path / "data.txt"
    data.write_text("a b\n")
    out = _finished_job(tmp_path, [data])
    config_id, metric = "cfg", "m(v=1)"
    if fault == "changed_input":
        data.write_text("a c\n")
        _os.utime(data, ns=(1, 1))
    elif fault == "deleted_input":
        data.unlink()
    elif fault == "truncated_results":
        (out / "results.json").write_bytes((out / "results.json").read_bytes()[:10])
    elif fault == "results_not_object":
        (out / "results.json").write_text("[]")
    elif fault == "missing_sidecar":
        (out / "inputs.json").unlink()
    elif fault == "corrupt_sidecar":
        (out / "inputs.json").write_text("{")
    elif fault == "other_config":
        config_id = "cfg2"
    elif fault == "other_metric":
        metric = "m(v=2)"
    elif fault == "sidecar_of_another_run":
        (out / "inputs.json").write_text(_resume.inputs_record("old", metric, {}))
    previous, why = _resume.stale_reason(out, config_id, lambda: metric)
    if reason is None:
        assert why is None and previous == {"format_version": 2, "config_id": "cfg", "system": {}}
    else:
        assert previous is None and re.search(reason, why), why


def _sweep_job(fake_root, tmp_path, args):
    # in this process: resuming reads the job folder and the inputs from disk, as a new process
    # does (the real-process resume: tests/test_run.py::test_sweep_writes_results_and_resumes)
    proc = _run_main([*args, f"hydra.run.dir={tmp_path / 'job'}"], fake_root, tmp_path / "cache")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stderr + proc.stdout


def test_179_run_py_resume_skips_unchanged_and_reruns_changed_data(fake_root, corrupt, tmp_path):
    args = ["dataset=gmeg_wiki", "metric=length", "aggregation=default"]
    _sweep_job(fake_root, tmp_path, args)
    result = tmp_path / "job" / "results.json"
    first = result.read_bytes()
    record = _json.loads((tmp_path / "job" / "inputs.json").read_text())
    assert str((fake_root / "gmeg/test/wiki/amu").absolute()) in record["inputs"]
    assert "skipping" in _sweep_job(fake_root, tmp_path, args)
    # A changed system output: the job reruns, the log names the file, and the number moves.
    path = corrupt("gmeg/test/wiki/amu", lambda b: b.replace(b" ", b"  ").replace(b"\n", b" extra words\n", 5))
    log = _sweep_job(fake_root, tmp_path, args)
    assert f"input {path.absolute()} changed" in log and "skipping" not in log
    assert result.read_bytes() != first
    # A truncated results.json is named and recomputed.
    result.write_bytes(result.read_bytes()[:100])
    log = _sweep_job(fake_root, tmp_path, args)
    assert f"{result} is unreadable or truncated" in log
    assert _json.loads(result.read_text())["dataset"] == "gmeg_wiki"


def test_180_run_py_resume_reruns_when_a_score_file_changed(fake_root, tmp_path):
    ds = load_gmeg_wiki(fake_root)
    scores = tmp_path / "scores"
    write_score_files(scores, ds.systems, np.arange(len(ds.systems) * ds.num_sentences, dtype=float).reshape(len(ds.systems), -1))
    args = ["dataset=gmeg_wiki", "metric=from_files", f"metric.dir={scores}", "aggregation=default"]
    _sweep_job(fake_root, tmp_path, args)
    first = (tmp_path / "job" / "results.json").read_bytes()
    assert "skipping" in _sweep_job(fake_root, tmp_path, args)
    seg = scores / "amu.seg.score"
    seg.write_text("".join(f"{-float(k)!r}\n" for k in range(ds.num_sentences)))
    log = _sweep_job(fake_root, tmp_path, args)
    assert f"input {seg.absolute()} changed" in log
    assert (tmp_path / "job" / "results.json").read_bytes() != first


def test_181_judgments_xml_with_an_unknown_encoding(tmp_path):
    # Found by tests/test_readers_property.py: expat raised a bare LookupError.
    p = tmp_path / "j.xml"
    p.write_bytes(b"<?xml version='1.0' encoding='nosuch'?><set/>")
    with pytest.raises(DataError, match=rf"{p}:1: unreadable XML: unknown encoding"):
        read_judgments(p, index_base=1)


@pytest.mark.parametrize("value", [b"nan", b"inf", b"-Infinity"])
def test_182_to_184_non_finite_human_score(fake_root, corrupt, value):
    # One reader of one-number-a-line files (gec_meta.data.io.read_floats) for human and metric scores.
    path = corrupt("seeda/scores/human/TS_edit.txt", lambda b: b.replace(b"0.064", value, 1))
    with pytest.raises(DataError, match=rf"{path}:2: non-finite score"):
        load_seeda(fake_root)


# =================================================================================================
# Part "cache, numbers, settings" (issue 17 items 3, 4, 5, 6, 8): cases 200-299.
# =================================================================================================
import errno  # noqa: E402
import tempfile  # noqa: E402
import warnings  # noqa: E402

from gec_meta import cache  # noqa: E402
from gec_meta.cache import ArrayStore, CacheWarning, KeyValueStore  # noqa: E402
from gec_meta.meta.task import MAX_RESAMPLES, MIN_BOOTSTRAP_SAMPLES  # noqa: E402


@dataclass(frozen=True)
class _Counting(Metric):
    """A cacheable metric that counts the systems it scores (the sentence length, a float)."""

    name: ClassVar[str] = "counting"
    needs_references: ClassVar[bool] = False
    calls: ClassVar[list] = []

    def statistics(self, sources, hypotheses, references):
        _Counting.calls.append(len(hypotheses))
        return np.array([[[[len(h) / 7.0]] for h in hyp] for hyp in hypotheses], dtype=np.float64)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("GEC_META_CACHE", str(root))
    cache._REPORTED.clear()
    _Counting.calls.clear()
    return root


@pytest.fixture(scope="module")
def seeda_small(fake_root):
    return load_seeda(fake_root)


def _scores(ds):
    return Task(ds, _Counting(), Default()).score().system_scores


def _stat_files(root):
    return sorted((root / "arrays").glob("*.arr"))


def _flip_bit(b: bytes) -> bytes:
    x = bytearray(b)
    x[-3] ^= 0x10
    return bytes(x)


def _scale_last_float(b: bytes) -> bytes:
    x = np.frombuffer(b[-8:], dtype=np.float64) * 2
    return b[:-8] + x.tobytes()


STAT_FAULTS = {
    "altered_value": _scale_last_float,
    "flipped_bit": _flip_bit,
    "truncated": lambda b: b[: len(b) // 2],
    "empty": lambda b: b"",
    "garbage": lambda b: b"\x93NUMPY garbage" * 10,
    "header_only": lambda b: b[:40],
}


@pytest.mark.parametrize("fault", list(STAT_FAULTS))
def test_200_to_205_corrupt_statistics_entry_is_recomputed(seeda_small, cache_dir, fault):
    fresh = _scores(seeda_small)
    files = _stat_files(cache_dir)
    assert len(files) == seeda_small.num_systems
    files[3].write_bytes(STAT_FAULTS[fault](files[3].read_bytes()))
    _Counting.calls.clear()
    with pytest.warns(CacheWarning, match=f"dropped corrupt entry {files[3]}"):
        again = _scores(seeda_small)
    np.testing.assert_array_equal(again, fresh)
    assert _Counting.calls == [1]  # only the bad entry was recomputed


def test_206_two_statistics_files_swapped(seeda_small, cache_dir):
    fresh = _scores(seeda_small)
    a, b = _stat_files(cache_dir)[:2]
    da, db = a.read_bytes(), b.read_bytes()
    a.write_bytes(db)
    b.write_bytes(da)
    with pytest.warns(CacheWarning, match="written under another key"):
        again = _scores(seeda_small)
    np.testing.assert_array_equal(again, fresh)
    assert _Counting.calls[-1] == 2


def test_207_nan_in_a_valid_cache_entry_is_recomputed(seeda_small, cache_dir):
    fresh = _scores(seeda_small)
    f = _stat_files(cache_dir)[0]
    # Rewrite the entry through the cache itself (valid checksum) with a NaN in it.
    key = next(k for k in _all_stat_keys(seeda_small) if cache._array_path(k, cache_dir) == f)
    arr = cache.load_array(key)
    arr[0, 0, 0] = np.nan
    cache.save_array(key, arr)
    with pytest.warns(CacheWarning, match="non-finite"):
        again = _scores(seeda_small)
    np.testing.assert_array_equal(again, fresh)


def _all_stat_keys(ds):
    m = _Counting()
    context = cache.text_hash(m.cache_key(), m.code_version(), *ds.sources)
    return [f"stats|{context}|{cache.text_hash(*h)}" for h in ds.hypotheses]


def test_208_metric_nan_is_a_metric_output_error_in_score_and_run(seeda_small, cache_dir):
    # Task.score is the CLI's path (gec-meta score), Task.run the one of run.py.
    for call in (lambda t: t.score(), lambda t: t.run()):
        with pytest.raises(MetricOutputError, match="non-finite statistic"):
            call(Task(seeda_small, _Broken("nan"), Default()))
    assert not (cache_dir / "arrays").exists() or not _stat_files(cache_dir)


# ----------------------------------------------------------------- encoder shards (ArrayStore)
def _shard_store(root, n=2):
    rng = np.random.default_rng(0)
    values = {}
    for s in range(n):
        store = ArrayStore("token-states|t", root=root)
        for k in range(3):
            key = f"s{s}k{k}"
            values[key] = rng.normal(size=(4 + k, 5)).astype(np.float32)
            store.put(key, values[key])
        store.flush()
    return values


def _npys(root):
    return sorted((root / "arrays-kv").rglob("*.npy"))


SHARD_FAULTS = {
    "flipped_bit": lambda p: p.write_bytes(_flip_bit(p.read_bytes())),
    "altered_value": lambda p: p.write_bytes(p.read_bytes()[:-4] + np.float32(7.0).tobytes()),
    "truncated": lambda p: p.write_bytes(p.read_bytes()[:200]),
    "rewritten": lambda p: np.save(p, np.zeros(5, dtype=np.float32)),
    "deleted": lambda p: p.unlink(),
}


@pytest.mark.parametrize("fault", list(SHARD_FAULTS))
def test_209_to_213_corrupt_encoder_shard_reads_as_missing(tmp_path, fault):
    cache._REPORTED.clear()
    values = _shard_store(tmp_path)
    npy = _npys(tmp_path)[0]
    SHARD_FAULTS[fault](npy)
    store = ArrayStore("token-states|t", root=tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = {k: store.get(k) for k in values}
    bad = [k for k, v in got.items() if v is None]
    assert bad  # the corrupt array (and, once its shard is dropped, the shard's later ones)
    for k, v in got.items():
        if v is not None:
            np.testing.assert_array_equal(v, values[k])  # never a wrong array
    if fault != "deleted":
        assert len([w for w in caught if issubclass(w.category, CacheWarning)]) == 1
        assert str(npy) in str(caught[0].message)
    for k in bad:  # recomputed and stored again
        store.put(k, values[k])
    store.flush()
    again = ArrayStore("token-states|t", root=tmp_path)
    for k in values:  # the recomputed ones are back; the rest of a dropped shard is recomputed when needed
        v = again.get(k)
        assert (v is not None if k in bad else True) and (v is None or np.array_equal(v, values[k]))


def test_214_two_encoder_shards_swapped(tmp_path):
    cache._REPORTED.clear()
    values = _shard_store(tmp_path)
    a, b = _npys(tmp_path)
    da, db = a.read_bytes(), b.read_bytes()
    a.write_bytes(db)
    b.write_bytes(da)
    store = ArrayStore("token-states|t", root=tmp_path)
    with pytest.warns(CacheWarning):
        got = {k: store.get(k) for k in values}
    assert all(v is None or np.array_equal(v, values[k]) for k, v in got.items())


def test_215_altered_shard_index(tmp_path):
    cache._REPORTED.clear()
    values = _shard_store(tmp_path, n=1)
    (idx,) = (tmp_path / "arrays-kv").rglob("*.jindex")
    idx.write_bytes(_flip_bit(idx.read_bytes()))
    with pytest.warns(CacheWarning, match="checksum mismatch"):
        store = ArrayStore("token-states|t", root=tmp_path)
    assert all(store.get(k) is None for k in values)


def test_216_encoder_recomputes_a_corrupt_shard(tmp_path, monkeypatch):
    from gec_meta.encoders import Encoder
    from gec_meta.encoders.testing import tiny_bert

    model = tiny_bert(tmp_path / "bert")
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    cache._REPORTED.clear()
    texts = ["the cat sat on the mat .", "dogs play in the mat ."]
    fresh = [e.vectors.copy() for e in Encoder(str(model), layer=2).token_embeddings(texts)]
    (npy,) = (tmp_path / "cache" / "arrays-kv").rglob("*.npy")
    npy.write_bytes(_flip_bit(npy.read_bytes()))
    with pytest.warns(CacheWarning, match="dropped corrupt entry"):
        again = [e.vectors for e in Encoder(str(model), layer=2).token_embeddings(texts)]
    for x, y in zip(fresh, again):
        np.testing.assert_array_equal(x, y)


# ----------------------------------------------------------------- key-value shards and parses
KV_FAULTS = {
    "flipped_bit": _flip_bit,
    "truncated": lambda b: b[:30],
    "plain_pickle": lambda b: __import__("pickle").dumps({"k": 666}),
}


@pytest.mark.parametrize("fault", list(KV_FAULTS))
def test_217_to_219_corrupt_key_value_shard(tmp_path, fault):
    cache._REPORTED.clear()
    kv = KeyValueStore("ns", root=tmp_path)
    kv.put("k", (1, 2, 3))
    kv.flush()
    (shard,) = (tmp_path / "kv").rglob("*.kvj")
    shard.write_bytes(KV_FAULTS[fault](shard.read_bytes()))
    with pytest.warns(CacheWarning, match=str(shard.name)):
        again = KeyValueStore("ns", root=tmp_path)
    assert again.get("k") is None


def test_220_key_value_shard_of_another_namespace(tmp_path):
    cache._REPORTED.clear()
    for ns, value in (("a", 1), ("b", 2)):
        kv = KeyValueStore(ns, root=tmp_path)
        kv.put("k", value)
        kv.flush()
    (sa,), (sb,) = KeyValueStore("a", root=tmp_path).folder.glob("*.kvj"), KeyValueStore("b", root=tmp_path).folder.glob("*.kvj")
    sa.write_bytes(sb.read_bytes())
    with pytest.warns(CacheWarning, match="written under another key"):
        assert KeyValueStore("a", root=tmp_path).get("k") is None


@pytest.mark.parametrize("fault", ["flipped_bit", "truncated", "swapped"])
def test_221_to_223_corrupt_parsed_file_is_parsed_again(tmp_path, monkeypatch, fault):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path))
    cache._REPORTED.clear()
    assert cache.cached_parse("t", b"one", lambda: [1]) == [1]
    assert cache.cached_parse("t", b"two", lambda: [2]) == [2]
    one, two = sorted((tmp_path / "parsed").glob("*.pjson"), key=lambda p: p.stat().st_mtime_ns)
    if fault == "swapped":
        d1, d2 = one.read_bytes(), two.read_bytes()
        one.write_bytes(d2)
        two.write_bytes(d1)
    else:
        one.write_bytes(KV_FAULTS[fault](one.read_bytes()))
    with pytest.warns(CacheWarning, match="dropped corrupt entry"):
        assert cache.cached_parse("t", b"one", lambda: [1]) == [1]


# ----------------------------------------------------------------- unusable cache folders
def _unwritable(monkeypatch, err):
    def fail(*args, **kwargs):
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(tempfile, "mkstemp", fail)


import os  # noqa: E402


@pytest.mark.parametrize("kind", ["read_only", "full_disk", "path_is_a_file"])
def test_224_to_226_unusable_cache_folder_warns_once_and_runs(seeda_small, cache_dir, monkeypatch, kind):
    fresh = Task(seeda_small, _Counting(), Default(), use_cache=False).score().system_scores
    if kind == "read_only":
        _unwritable(monkeypatch, errno.EROFS)
    elif kind == "full_disk":
        _unwritable(monkeypatch, errno.ENOSPC)
    else:
        cache_dir.write_text("not a folder")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = _scores(seeda_small)
        got2 = _scores(seeda_small)
    np.testing.assert_array_equal(got, fresh)
    np.testing.assert_array_equal(got2, fresh)
    msgs = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert len(msgs) == 1 and "running without storing" in msgs[0], msgs


def test_227_unwritable_array_store_keeps_its_arrays(tmp_path, monkeypatch):
    cache._REPORTED.clear()
    _unwritable(monkeypatch, errno.ENOSPC)
    store = ArrayStore("ns", root=tmp_path)
    store.put("a", np.ones(3))
    with pytest.warns(CacheWarning):
        store.flush()
    np.testing.assert_array_equal(store.get("a"), np.ones(3, dtype=np.float32))  # not lost


# ----------------------------------------------------------------- invalid settings (item 6)
def _m2(**kw):
    from gec_meta.metrics.edit.m2 import M2

    return M2(**kw)


def _errant(**kw):
    from gec_meta.metrics.edit.errant import Errant

    return Errant(**kw)


SETTINGS = [
    (lambda: _m2(max_unchanged_words=-1), r"metric.max_unchanged_words must be an integer >= 0, got -1"),
    (lambda: _m2(max_unchanged_words=1.5), r"metric.max_unchanged_words must be an integer >= 0"),
    (lambda: _m2(beta=0), r"metric.beta must be a number > 0, got 0"),
    (lambda: _m2(beta=-0.5), r"metric.beta must be a number > 0"),
    (lambda: _errant(beta=0.0), r"metric.beta must be a number > 0"),
    (lambda: _errant(beta=float("nan")), r"metric.beta must be a number > 0"),
    (lambda: TrueSkillAggregation(sigma=0), r"aggregation.sigma must be a number > 0, got 0"),
    (lambda: TrueSkillAggregation(beta=0), r"aggregation.beta must be a number > 0"),
    (lambda: TrueSkillAggregation(draw_probability=0), r"aggregation.draw_probability must be a number in \(0, 1\)"),
    (lambda: TrueSkillAggregation(draw_probability=1), r"aggregation.draw_probability must be a number in \(0, 1\)"),
    (lambda: TrueSkillAggregation(draw_probability=1.5), r"aggregation.draw_probability"),
    (lambda: TrueSkillAggregation(tau=-1), r"aggregation.tau must be a number >= 0"),
    (lambda: TrueSkillAggregation(order="shuffled", seed=-3), r"aggregation.seed must be an integer >= 0, got -3"),
    (lambda: TrueSkillAggregation(order="shuffled", seed=0.5), r"aggregation.seed must be an integer >= 0"),
    (lambda: load_aggregation("trueskill", sigma=-1.0), r"aggregation.sigma"),
]


@pytest.mark.parametrize("build,message", SETTINGS, ids=[f"s{i}" for i in range(len(SETTINGS))])
def test_228_to_242_invalid_settings_are_config_errors(build, message):
    with pytest.raises(ConfigError, match=message):
        build()


TASK_SETTINGS = [
    (dict(window=2.5), r"meta_eval.window must be an integer: 0 \(off\) or >= 2 or null, got 2.5"),
    (dict(window=1), r"meta_eval.window"),
    (dict(window=-4), r"meta_eval.window"),
    (dict(bootstrap_samples=1), rf"meta_eval.bootstrap_samples must be an integer: 0 \(off\) or >= {MIN_BOOTSTRAP_SAMPLES} and <= {MAX_RESAMPLES}, got 1"),
    (dict(bootstrap_samples=-5), r"meta_eval.bootstrap_samples"),
    (dict(bootstrap_samples=100.0), r"meta_eval.bootstrap_samples"),
    (dict(bootstrap_seed=-1), r"meta_eval.bootstrap_seed must be an integer >= 0, got -1"),
]


@pytest.mark.parametrize("options,message", TASK_SETTINGS, ids=[f"t{i}" for i in range(len(TASK_SETTINGS))])
def test_243_to_249_invalid_meta_evaluation_settings(seeda_small, options, message):
    with pytest.raises(ConfigError, match=message):
        Task(seeda_small, _Counting(), Default(), **options)


def test_250_valid_boundaries_are_accepted(seeda_small):
    TrueSkillAggregation(draw_probability=0.999, sigma=1e-9, tau=0.0)
    _m2(max_unchanged_words=0, beta=1e-3)
    Task(seeda_small, _Counting(), Default(), window=None, bootstrap_samples=MIN_BOOTSTRAP_SAMPLES)
    Task(seeda_small, _Counting(), Default(), window=0, bootstrap_samples=0)


def test_251_invalid_setting_through_hydra_config():
    from gec_meta.api import load_metric

    with pytest.raises(Exception) as info:
        load_metric("m2", max_unchanged_words=-2)
    chain, e = [], info.value
    while e is not None:
        chain.append(e)
        e = e.__cause__ or e.__context__
    assert any(isinstance(x, ConfigError) and "metric.max_unchanged_words" in str(x) for x in chain)


# ----------------------------------------------------------------- ERRANT merger guard (item 5)
def test_252_errant_guard_names_the_system_and_line(seeda_small, cache_dir):
    from gec_meta.metrics.edit.errant import Errant

    hyps = [list(h) for h in seeda_small.hypotheses]
    hyps[2][6] = " ".join(["a"] * 900)
    ds = dataclasses_replace(seeda_small, hypotheses=tuple(tuple(h) for h in hyps))
    refs = load_refset("official", seeda_small, seeda_small_root(seeda_small))
    name = seeda_small.systems[2]
    with pytest.raises(DataError, match=rf"outputs/subset/{name}\.txt:7: seeda system {name!r}: 900 tokens: "
                                        "longer than ERRANT's limit of 512"):
        Task(ds, Errant(), Default(), refs).statistics()
    # without the file (a dataset built in Python): the system and line
    with pytest.raises(DataError, match=rf"seeda system {name!r}, line 7: 900 tokens"):
        Task(dataclasses_replace(ds, files={}), Errant(), Default(), refs).statistics()


def dataclasses_replace(obj, **kw):
    import dataclasses

    return dataclasses.replace(obj, **kw)


def seeda_small_root(ds):
    return _FAKE_ROOT[0]


_FAKE_ROOT: list = []


@pytest.fixture(autouse=True)
def _remember_fake_root(fake_root):
    _FAKE_ROOT[:] = [fake_root]


def test_253_errant_guard_in_edit_sets_names_the_line():
    from gec_meta.edits.edit_sets import errant_edit_sets
    from gec_meta.edits.extract import MAX_TOKENS, SentenceTooLong

    with pytest.raises(SentenceTooLong, match=r"text set #1, sentence #0 \(line 1\): 513 tokens"):
        errant_edit_sets(["a b", "c d"], [["a b", "c d"], [" ".join(["x"] * (MAX_TOKENS + 1)), "c d"]])
    assert issubclass(SentenceTooLong, DataError)


@pytest.mark.slow
@pytest.mark.ci
def test_254_no_benchmark_sentence_reaches_the_errant_limit(data_root):
    from gec_meta.data.datasets import load_dataset
    from gec_meta.edits.extract import MAX_TOKENS, check_lengths

    longest = 0
    for name, opts in (("seeda", {"setting": "base"}), ("seeda", {"setting": "fluency"}), ("gjg15", {}), ("gmeg_wiki", {})):
        ds = load_dataset(name, data_root, **opts)
        texts = [list(h) for h in ds.hypotheses] + [list(r) for r in load_refset("official", ds, data_root).for_metric("text")]
        pairs = [(s, t[n]) for t in texts for n, s in enumerate(ds.sources)]
        check_lengths(pairs)
        longest = max(longest, max(max(len(s.split()), len(t.split())) for s, t in pairs))
    assert longest <= MAX_TOKENS and longest == 408


# ----------------------------------------------------------------- cache histories (item 8)
def test_255_one_config_under_two_cache_histories_gives_identical_results(fake_root, tmp_path, monkeypatch):
    import json

    def results(cache_root, fill_first):
        monkeypatch.setenv("GEC_META_CACHE", str(cache_root))
        if fill_first:  # another setting (sharing most systems) and aggregation fill the cache first
            Task(load_seeda(fake_root, "fluency"), _Counting(), Default()).run()
        res = Task(load_seeda(fake_root), _Counting(), TrueSkillAggregation(), window=4).run()
        return json.dumps(res.to_json(timing=False), sort_keys=False)

    assert results(tmp_path / "a", False) == results(tmp_path / "b", True) == results(tmp_path / "b", False)


def test_256_cache_key_carries_the_code_version(seeda_small, cache_dir, monkeypatch):
    from gec_meta.cache import code

    _scores(seeda_small)
    assert _Counting.calls == [seeda_small.num_systems]
    _scores(seeda_small)
    assert _Counting.calls == [seeda_small.num_systems]  # served from the cache
    monkeypatch.setattr(code, "module_code_version", lambda *args: "other-code")
    _scores(seeda_small)
    assert _Counting.calls == [seeda_small.num_systems] * 2  # other code: recomputed


@dataclass(frozen=True)
class _Noisy(Metric):
    """Sentence scores on a coarse grid (many exact ties between systems) plus float32-like
    noise that differs on every computation, as an encoder's states do between batchings."""

    name: ClassVar[str] = "noisy"
    needs_references: ClassVar[bool] = False
    tie_tolerance: ClassVar[float] = 1e-5
    draws: ClassVar[list] = [0]

    def statistics(self, sources, hypotheses, references):
        _Noisy.draws[0] += 1
        rng = np.random.default_rng(_Noisy.draws[0])
        base = np.array([[min(len(h.split()), 30) / 8.0 for h in hyp] for hyp in hypotheses])
        return (base + rng.uniform(-1e-6, 1e-6, size=base.shape))[:, :, None, None]


@pytest.mark.parametrize("aggregation", ["trueskill", "expected_wins"])
def test_257_258_float32_noise_across_cache_histories_does_not_move_results(fake_root, tmp_path, monkeypatch,
                                                                            aggregation):
    import json

    def results(cache_root, fill_first, tolerance):
        monkeypatch.setattr(_Noisy, "tie_tolerance", tolerance)
        monkeypatch.setenv("GEC_META_CACHE", str(cache_root))
        if fill_first:  # +Fluency scores the shared systems first (with other noise)
            Task(load_seeda(fake_root, "fluency"), _Noisy(), Default()).score()
        res = Task(load_seeda(fake_root), _Noisy(), load_aggregation(aggregation)).run()
        out = res.to_json(timing=False)
        out.pop("signature")
        return json.dumps(out)

    assert results(tmp_path / "a", False, 1e-5) == results(tmp_path / "b", True, 1e-5)
    # Without the tolerance the same two histories disagree: the test can see the defect.
    assert results(tmp_path / "c", False, 0.0) != results(tmp_path / "d", True, 0.0)


def test_259_tie_tolerance_is_in_the_signature_and_zero_for_exact_metrics():
    from gec_meta.api import load_metric
    from gec_meta.metrics.edit.m2 import M2
    from gec_meta.metrics.edit.pt import PT_TIE_TOLERANCE

    assert M2().tie_tolerance == 0.0 and "ties" not in M2().signature()
    assert load_metric("pt_m2", "scorer=self").tie_tolerance == 0.0
    assert _Noisy().signature() == "noisy(ties=1e-05,v=1)"
    assert PT_TIE_TOLERANCE == 1e-5


# ----------------------------------------------------------------- property-based (hypothesis)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402

from gec_meta.metrics.base import merge_near_ties  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(grid=arrays(np.int64, st.tuples(st.integers(1, 8), st.integers(1, 6)), elements=st.integers(0, 5)),
       noise=st.integers(0, 2**32 - 1))
def test_260_near_ties_merge_noise_and_keep_real_order(grid, noise):
    # Real scores on a 1e-3 grid, noise below half the tolerance: outcomes equal the noiseless ones.
    exact = grid * 1e-3
    noisy = exact + np.random.default_rng(noise).uniform(-4e-6, 4e-6, size=exact.shape)
    merged = merge_near_ties(noisy, 1e-5)
    sign = lambda x: np.sign(x[:, None, :] - x[None, :, :])  # noqa: E731
    np.testing.assert_array_equal(sign(merged), sign(exact))
    assert merge_near_ties(noisy, 0.0) is noisy


@settings(max_examples=100, deadline=None)
@given(blob=st.binary(max_size=300), key=st.text(max_size=20))
def test_261_random_bytes_as_cache_entries_never_give_a_value(tmp_path_factory, blob, key):
    # Any bytes in place of an entry: a miss (recomputed), never a value, never a crash.
    root = tmp_path_factory.mktemp("c")
    cache.save_array(key, np.arange(3.0), root=root)
    cache._array_path(key, root).write_bytes(blob)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CacheWarning)
        assert cache.load_array(key, root=root) is None


# ================================================================================================
# Library-level checks shared by the CLI and the Python API (integration of issue 17).
# ================================================================================================
def test_300_unknown_gmeg_split_is_a_config_error(data_root):
    with pytest.raises(ConfigError, match=r"dataset.split must be one of \['test', 'dev'\], got 'train'"):
        load_gmeg_wiki(data_root, split="train")


def test_301_api_names_an_unknown_encoder_not_the_metric():
    from gec_meta import load_metric

    with pytest.raises(ConfigError, match=r"^encoder=nosuch: unknown encoder 'nosuch'; available: .*minilm"):
        load_metric("pt_m2", "encoder=nosuch")


def test_302_api_names_a_misspelled_metric_field():
    from gec_meta import load_metric

    with pytest.raises(ConfigError, match=r"metric m2 has no field 'betta'; fields: beta, "):
        load_metric("m2", betta=1.0)

