"""Review 22 (data loaders), findings 4-6: CRLF MultiGEC results, errors that name the file and
line for the human-score tables (GJG15, Chollampatt & Ng, GMEG) and RevisitCGEC's rows, and an
M2 reference whose first line is blank."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from gec_meta.data.datasets import _gmeg_corpus_scores, load_gjg15
from gec_meta.data.m2 import read_m2
from gec_meta.data.multigec import official_scores, read_results_table
from gec_meta.data.refsets import read_references, reference_format
from gec_meta.data.revisit_cgec import _rows
from gec_meta.errors import DataError

GJG15_TSV = "gjg15/gjg15_table3_human_scores.tsv"
WMT = "gjg15/nusnlp-gecmetrics/scores/system_scores_humans"


# ------------------------------------------------------------------ MultiGEC results with CRLF
def test_multigec_results_with_windows_line_ends(data_root, tmp_path):
    if not (data_root / "multigec" / "results").is_dir():
        pytest.skip("no multigec/results")
    folder = tmp_path / "multigec" / "results"
    folder.mkdir(parents=True)
    for track in ("minimal", "fluency"):
        text = (data_root / "multigec" / "results" / f"test_results_{track}.md").read_text(encoding="utf-8")
        assert "\r" not in text
        (folder / f"test_results_{track}.md").write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    for language in ("sv", "en"):
        got, want = official_scores(tmp_path, language, "all"), official_scores(data_root, language, "all")
        assert got.keys() == want.keys()
        for k in want:
            np.testing.assert_array_equal(got[k], want[k])
    with pytest.raises(DataError, match=r"test_results_minimal\.md: no section '## Klingon'"):
        read_results_table(folder / "test_results_minimal.md", "Klingon")


# ------------------------------------------------------------------ GJG15 human-score tables
def _gjg15_root(data_root: Path, tmp_path: Path, edit=None, wmt_edit=None) -> Path:
    """A data root with the GJG15 score tables only (they are read before anything else);
    ``edit`` changes the TSV's lines, ``wmt_edit`` (name, lines -> lines) a WMT file's."""
    (tmp_path / "gjg15").mkdir()
    lines = (data_root / GJG15_TSV).read_text(encoding="utf-8").splitlines()
    (tmp_path / GJG15_TSV).write_text("\n".join(edit(lines) if edit else lines) + "\n", encoding="utf-8")
    (tmp_path / WMT).mkdir(parents=True)
    for name in ("expected_wins.txt", "trueskill.txt"):
        lines = (data_root / WMT / name).read_text(encoding="utf-8").splitlines()
        if wmt_edit is not None and wmt_edit[0] == name:
            lines = wmt_edit[1](lines)
        (tmp_path / WMT / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_gjg15_table_missing_system(data_root, tmp_path):
    root = _gjg15_root(data_root, tmp_path, edit=lambda ls: [l for l in ls if not l.startswith("CUUI\t")])
    with pytest.raises(DataError, match=r"gjg15_table3_human_scores\.tsv: no human score for system\(s\) \['CUUI'\]"):
        load_gjg15(root)


def test_gjg15_table_repeated_system(data_root, tmp_path):
    # line 3 (RAC) repeated at the end: line 15
    root = _gjg15_root(data_root, tmp_path, edit=lambda ls: ls + [ls[2]])
    with pytest.raises(DataError, match=r"gjg15_table3_human_scores\.tsv:15: system 'RAC' repeats the row of line 3"):
        load_gjg15(root)


def _wmt_line(lines, system):
    return next(k for k, line in enumerate(lines) if line.split()[3] == system)


def test_wmt_scores_missing_system(data_root, tmp_path):
    edit = ("trueskill.txt", lambda ls: [l for l in ls if l.split()[3] != "CUUI"])
    root = _gjg15_root(data_root, tmp_path, wmt_edit=edit)
    with pytest.raises(DataError, match=r"trueskill\.txt: no human score for system\(s\) \['CUUI'\]"):
        load_gjg15(root, human_scores="chollampatt_ng_2018")


def test_wmt_scores_not_a_number(data_root, tmp_path):
    def edit(lines):
        k = _wmt_line(lines, "CAMB")
        return lines[:k] + [lines[k].rsplit("\t", 1)[0] + "\tn/a"] + lines[k + 1:]
    root = _gjg15_root(data_root, tmp_path, wmt_edit=("expected_wins.txt", edit))
    k = _wmt_line((root / WMT / "expected_wins.txt").read_text().splitlines(), "CAMB") + 1
    with pytest.raises(DataError, match=rf"expected_wins\.txt:{k}: score 'n/a' of system 'CAMB' is not a number"):
        load_gjg15(root, human_scores="chollampatt_ng_2018")


def test_wmt_scores_repeated_system(data_root, tmp_path):
    root = _gjg15_root(data_root, tmp_path, wmt_edit=("expected_wins.txt", lambda ls: ls + [ls[0]]))
    n = len((root / WMT / "expected_wins.txt").read_text().splitlines())
    with pytest.raises(DataError, match=rf"expected_wins\.txt:{n}: system 'AMU' repeats the line 1"):
        load_gjg15(root, human_scores="chollampatt_ng_2018")


# ------------------------------------------------------------------ GMEG corpus scores
def test_gmeg_corpus_scores_errors_name_file_and_line(data_root, tmp_path):
    src = data_root / "gmeg" / "test" / "wiki-corpus-scores.csv"
    if not src.is_file():
        pytest.skip("no gmeg/")
    lines = src.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "wiki-corpus-scores.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _gmeg_corpus_scores(path) == _gmeg_corpus_scores(src)
    path.write_text("\n".join(lines + [lines[1]]) + "\n", encoding="utf-8")
    system = lines[1].split(",")[0]
    with pytest.raises(DataError, match=rf"wiki-corpus-scores\.csv:{len(lines) + 1}: system '{system}' repeats the row of line 2"):
        _gmeg_corpus_scores(path)
    path.write_text("\n".join(lines[:2] + [lines[2].split(",")[0] + ",high"] + lines[3:]) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"wiki-corpus-scores\.csv:3: expected columns system,score with a number"):
        _gmeg_corpus_scores(path)
    path.write_text("\n".join(lines[:2] + lines[3:]) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"wiki-corpus-scores\.csv: no human score for \['{lines[2].split(',')[0]}'\]"):
        _gmeg_corpus_scores(path)


# ------------------------------------------------------------------ RevisitCGEC rows
def test_revisit_cgec_rows_repeated_id(data_root, tmp_path):
    src = data_root / "mucgec" / "data" / "MuCGEC" / "MuCGEC_dev.txt"
    if not src.is_file():
        pytest.skip("no mucgec/")
    with open(src, encoding="utf-8") as f:
        head = [next(f).rstrip("\n") for _ in range(5)]
    path = tmp_path / "MuCGEC_dev.txt"
    path.write_text("\n".join(head) + "\n", encoding="utf-8")
    rows = _rows(path)
    assert len(rows) == 5 and rows[1][0] == head[0].split("\t")[1]
    path.write_text("\n".join(head + [head[1]]) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"MuCGEC_dev\.txt:6: id 2 repeats the id of line 2"):
        _rows(path)


# ------------------------------------------------------------------ M2 reference starting blank
def test_m2_reference_whose_first_lines_are_blank(tmp_path):
    """m2scorer and errant read an M2 file that starts with blank lines; so does --ref-format auto."""
    path = tmp_path / "lead.m2"
    path.write_text("\n  \r\nS a b .\nA 0 1|||X|||z|||REQUIRED|||-NONE-|||0\n\n", encoding="utf-8")
    assert reference_format(path) == "m2"
    refs = read_references([path], ["a b ."])
    assert refs.texts == (("z b .",),)
    assert read_m2(path)[0].line == 3
    # named as text: still recognised, the error names the S line
    txt = tmp_path / "lead.txt"
    shutil.copy(path, txt)
    with pytest.raises(DataError, match=r"lead\.txt:3: starts like an M2 file"):
        reference_format(txt)
    # named M2 but not M2 after the blank lines: the error names the first non-blank line
    bad = tmp_path / "bad.m2"
    bad.write_text("\n\nthis is text .\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.m2:3: is named like an M2 file but does not start like one"):
        reference_format(bad)
    # a file of blank lines only named .m2 is left to the reader, as before
    blank = tmp_path / "blank.m2"
    blank.write_text("\n\n", encoding="utf-8")
    assert reference_format(blank) == "m2"
