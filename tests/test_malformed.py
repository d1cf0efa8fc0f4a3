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
    path = corrupt("gjg15/original/official_submissions/AMU", lambda b: b + b"extra line\n")
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
