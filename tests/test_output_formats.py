"""Output formats name their version (issue 33 item 5): ``results.json`` (a first key
``format_version``), ``sentence_scores.tsv`` and ``leaderboard.csv`` (a last column
``format_version``); the package's readers read by name and stop with one line on a file of
another version (CHANGELOG.md lists each change)."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gec_meta import formats
from gec_meta.errors import DataError

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def job(data_root, tmp_path_factory):
    """One gec-meta-run job: Length (sentence score = characters of the hypothesis) on SEEDA."""
    tmp = tmp_path_factory.mktemp("formats")
    out = tmp / "sweep" / "job"
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp / "cache")}
    proc = subprocess.run([sys.executable, "run.py", "metric=length", "dataset=seeda", "meta_eval.spa_permutations=0",
                           f"hydra.run.dir={out}"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


def test_results_json_names_its_version_first(job):
    text = (job / "results.json").read_text()
    assert text.startswith('{\n "format_version": 2,\n "signature": ')
    res = formats.read_results(job / "results.json")
    assert res["metric"] == "length" and res["format_version"] == 2


def test_sentence_scores_tsv_names_its_version_and_reads_by_name(job, data_root):
    from gec_meta import load_dataset

    path = job / "sentence_scores.tsv"
    lines = path.read_text().splitlines()
    assert lines[0] == "system\tsentence\tline\tscore\tformat_version"
    assert all(line.endswith("\t2") for line in lines[1:])
    ds = load_dataset("seeda", data_root)
    rows = formats.read_sentence_scores(path)
    assert len(rows) == ds.num_systems * ds.num_sentences
    for row in rows[::97]:  # Length: the hypothesis' characters, counted here
        assert row.score == len(ds.hypotheses[ds.systems.index(row.system)][row.sentence])
        assert row.line == ds.corpus_lines[row.sentence] + 1
    # the same file with its columns in another order reads the same (by name)
    table = list(csv.reader(lines, delimiter="\t"))
    order = [3, 4, 0, 2, 1]
    shuffled = path.parent / "shuffled.tsv"
    shuffled.write_text("\n".join("\t".join(r[k] for k in order) for r in table) + "\n")
    assert formats.read_sentence_scores(shuffled) == rows
    # pandas reads it without options; the old columns keep their positions
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(path, sep="\t")
    assert list(frame.columns[:4]) == ["system", "sentence", "line", "score"]


@pytest.mark.parametrize("edit, message", [
    (lambda r: r.pop("format_version"), "a result file written by an older gec-meta (format 1: no 'format_version'; "
                                        "this gec-meta reads format 2, CHANGELOG.md); rerun its job (its statistics "
                                        "come from the cache)"),
    (lambda r: r.update(format_version=3), "a result file of format 3, newer than this gec-meta reads (format 2, "
                                           "CHANGELOG.md); upgrade gec-meta to read it"),
])
def test_report_on_a_result_of_another_version_is_one_line(job, tmp_path, edit, message):
    res = json.loads((job / "results.json").read_text())
    edit(res)
    folder = tmp_path / "old" / "job"
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps(res))
    rep = subprocess.run([sys.executable, "-m", "gec_meta.report", str(tmp_path / "old")], cwd=REPO,
                         capture_output=True, text=True, timeout=120)
    assert rep.returncode == 2
    assert rep.stderr == f"gec-meta: error: {folder / 'results.json'}: {message}\n"


def test_a_job_of_an_older_format_reruns(job, tmp_path):
    import shutil

    from gec_meta.cli import resume

    copy = tmp_path / "job"
    shutil.copytree(job, copy)
    res = json.loads((copy / "results.json").read_text())
    del res["format_version"]
    (copy / "results.json").write_text(json.dumps(res))
    assert resume.stale_reason(copy, res["config_id"], lambda: "")[1] == (
        f"{copy / 'results.json'} is of format 1, this gec-meta writes format 2")


def test_sentence_scores_of_format_1_or_with_a_bad_row(tmp_path):
    old = tmp_path / "old.tsv"
    old.write_text("system\tsentence\tscore\nA\t0\t0.5\n")  # before the line column (2026-11-24)
    with pytest.raises(DataError, match=r"old.tsv: a sentence-score file written by an older gec-meta \(format 1"):
        formats.read_sentence_scores(old)
    bad = tmp_path / "bad.tsv"
    bad.write_text("system\tsentence\tline\tscore\tformat_version\nA\t0\t1\t0.5\t2\nA\t1\t2\tabc\t2\n")
    with pytest.raises(DataError, match=r"bad.tsv:3: not a sentence-score row"):
        formats.read_sentence_scores(bad)


def test_committed_leaderboard_csv_names_its_version():
    path = REPO / "experiments" / "results" / "leaderboard.csv"
    lines = path.read_text().splitlines()
    assert lines[0] == ("aggregation,metric,label,benchmark,target,level,statistic,value,cluster,epsilon,chance,"
                        "global_rank,avg_rank,avg_value,format_version")
    assert all(line.endswith(",2") for line in lines[1:])


def test_committed_leaderboard_csv_reads_by_name():
    rows = formats.read_leaderboard(REPO / "experiments" / "results" / "leaderboard.csv")
    assert rows and {r["format_version"] for r in rows} == {"2"}


def test_versioned_csv_keeps_the_other_columns_byte_for_byte(tmp_path):
    text = 'a,b\n1,"x, y"\n0.1000000000000000055511151231257827,\n'
    out = formats.versioned_csv(text)
    assert out == 'a,b,format_version\n1,"x, y",2\n0.1000000000000000055511151231257827,,2\n'
    assert [r[:2] for r in csv.reader(io.StringIO(out))] == list(csv.reader(io.StringIO(text)))
    (tmp_path / "old.csv").write_text(text)
    with pytest.raises(DataError, match="a leaderboard file written by an older gec-meta"):
        formats.read_leaderboard(tmp_path / "old.csv")
