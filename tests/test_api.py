"""User-facing entry points: plugin metrics, score files, the scoring CLI, the Python API."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gec_meta import load_dataset, load_metric, meta_evaluate
from gec_meta.report.error_types import errant_by_type
from gec_meta.cli.main import main as cli_main
from gec_meta.errors import DataError, MissingDataError
from gec_meta.metrics.from_files import FromFiles, write_score_files

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("dataset", ["seeda", "gjg15"])
def test_plugin_metric_through_run_py(data_root, tmp_path, dataset):
    plugin = tmp_path / "plugin"
    shutil.copytree(REPO / "experiments" / "plugin_example", plugin)
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / "cache"),
           "PYTHONPATH": str(plugin)}
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "run.py", "metric=unigram_f", f"dataset={dataset}", f"hydra.run.dir={out}",
         f"hydra.searchpath=[file://{plugin / 'conf'}]"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    res = json.loads((out / "results.json").read_text())
    assert res["metric"] == "unigram_f" and "unigram_f(lowercase=False" in res["signature"]
    human = "TS_edit" if dataset == "seeda" else "TS"
    assert -1 <= res["system"][human]["pearson"] <= 1


def test_score_files_round_trip_gives_identical_correlations(data_root, tmp_path):
    ds = load_dataset("seeda", data_root, setting="base")
    metric = load_metric("gleu_corrected")
    # Without SPA: the comparison below drops it (score files cannot give it), and GLEU's SPA
    # recomputes the corpus score for every swapped pair (most of this test's time); GLEU's
    # swapped-pair scores: tests/test_gleu.py::test_swapped_pairs_corpus_scores_equal_rescoring_the_swapped_corpus.
    direct = meta_evaluate(ds, metric, "default", "official", root=data_root, spa_permutations=0)
    direct_ts = meta_evaluate(ds, metric, "trueskill", "official", root=data_root, spa_permutations=0)
    # Export: the sentence scores and the metric's own system scores.
    from gec_meta.data.refsets import load_refset
    from gec_meta.meta.task import compute_statistics

    refs = load_refset("official", ds, data_root)
    stats = compute_statistics(metric, ds.sources, ds.hypotheses, refs.texts)
    write_score_files(tmp_path / "gleu", ds.systems, metric.sentence_scores(stats), metric.corpus_scores(stats))
    ff = FromFiles(str(tmp_path / "gleu"))
    via_files = meta_evaluate(ds, ff, "default")
    via_files_ts = meta_evaluate(ds, ff, "trueskill")
    # System scores read from files cannot be recomputed on permuted sentences: no SPA there
    # (Metric.permutable); everything else is identical.
    assert all("spa" not in v for v in via_files.system.values())
    assert via_files.system == {h: {k: x for k, x in v.items() if k != "spa"} for h, v in direct.system.items()}
    assert via_files.sentence == direct.sentence
    assert via_files_ts.system == {h: {k: x for k, x in v.items() if k != "spa"} for h, v in direct_ts.system.items()}


def test_score_files_errors_name_the_file(data_root, tmp_path):
    ds = load_dataset("seeda", data_root, setting="base")
    write_score_files(tmp_path, ds.systems, np.zeros((ds.num_systems, ds.num_sentences)))
    bad = tmp_path / f"{ds.systems[1]}.seg.score"
    lines = bad.read_text().splitlines()
    lines[4] = "abc"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=rf"{bad.name}:5: not a number"):
        meta_evaluate(ds, FromFiles(str(tmp_path)), "default")
    bad.write_text("0.5\n")
    with pytest.raises(DataError, match="has 1 scores, the dataset has 391"):
        meta_evaluate(ds, FromFiles(str(tmp_path)), "default")
    bad.unlink()
    with pytest.raises(MissingDataError, match="no segment scores for system"):
        meta_evaluate(ds, FromFiles(str(tmp_path)), "default")


@pytest.mark.slow
@pytest.mark.ci
def test_cli_score_amu_m2_prints_official_f(data_root, capsys):
    subs = data_root / "gjg15" / "original" / "official_submissions"
    code = cli_main(["score", "--src", str(data_root / "conll14" / "conll14st-test.tok.src"),
                     "--hyp", str(subs / "AMU"), "--ref", str(data_root / "conll14" / "conll14st-test.m2"),
                     "--metric", "m2", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    # The official CoNLL-2014 F0.5 of AMU (m2scorer; GJG15 Table 3a).
    assert round(out["systems"]["AMU"]["f"], 4) == 0.3501
    assert round(out["systems"]["AMU"]["default"], 4) == 0.3501


def test_cli_rank_and_errors(tmp_path, capsys):
    src = tmp_path / "src.txt"
    src.write_text("He go to school .\nShe like cats .\n")
    (tmp_path / "good.txt").write_text("He goes to school .\nShe likes cats .\n")
    (tmp_path / "bad.txt").write_text("He go to school .\nShe like cats .\n")
    ref = tmp_path / "ref.txt"
    ref.write_text("He goes to school .\nShe likes cats .\n")
    code = cli_main(["rank", "--src", str(src), "--hyp", str(tmp_path / "good.txt"), str(tmp_path / "bad.txt"),
                     "--ref", str(ref), "--metric", "gleu_corrected", "--aggregation", "default", "trueskill"])
    assert code == 0
    out = capsys.readouterr().out
    assert "default: good > bad" in out and "trueskill: good > bad" in out
    (tmp_path / "short.txt").write_text("He goes to school .\n")
    code = cli_main(["score", "--src", str(src), "--hyp", str(tmp_path / "short.txt"), "--ref", str(ref)])
    assert code == 2
    assert "mismatched number of lines" in capsys.readouterr().err


def test_errant_by_type_hand_example():
    src = ["He go to school .", "She like cats ."]
    hyp = ["He goes to school .", "She like dogs ."]
    ref = [["He goes to school .", "She likes cats ."]]
    out = errant_by_type(src, hyp, ref)
    # sentence 1: R:VERB:SVA matched; sentence 2: hypothesis R:NOUN (fp), reference R:VERB:SVA (fn).
    assert out["R:VERB:SVA"]["tp"] == 1 and out["R:VERB:SVA"]["fn"] == 1
    assert out["R:NOUN"]["fp"] == 1
    assert (out["ALL"]["tp"], out["ALL"]["fp"], out["ALL"]["fn"]) == (1, 1, 1)
    assert out["ALL"]["p"] == pytest.approx(0.5) and out["ALL"]["r"] == pytest.approx(0.5)


def test_cli_uot_align_delegates(monkeypatch):
    import gec_meta.cli.uot_align as inspect

    seen = {}
    monkeypatch.setattr(inspect, "main", lambda argv: (seen.__setitem__("argv", argv), 0)[1])
    assert cli_main(["uot-align", "--system", "T5", "--sentence", "3"]) == 0
    assert seen["argv"] == ["--system", "T5", "--sentence", "3"]
