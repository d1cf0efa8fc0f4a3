"""Seeded table pipeline: TrueSkill with ``order=shuffled seed=K``, bootstrap CIs, permutation and
paired-bootstrap significance, and the renderer.  Two runs with the same seeds give byte-identical
Markdown, CSV and LaTeX (also in a fresh process with another hash seed); changing a seed changes
exactly the numbers that depend on it."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from gec_meta.meta.aggregation import Default, TrueSkillAggregation, trueskill_scores
from gec_meta.data.datasets import Dataset
from gec_meta.data.refsets import References
from gec_meta.metrics.ngram.green import GREEN
from gec_meta.metrics.length import Length
from gec_meta.meta.task import Task
from gec_meta.report.reproduce import Column, Significance, comparison_table

REPO = Path(__file__).resolve().parents[1]
FORMATS = ("md", "csv", "latex")
SOURCES = ("the cat sit on the mat .", "he play an important role .", "dogs is in the mat .",
           "it can not be substituted .", "they was in the mat .", "a cats is important .") * 2
REFS = (("the cat sits on the mat .", "he plays an important role .", "dogs are on the mat .",
         "it can not be substituted .", "they were in the mat .", "a cat is important .") * 2,
        ("the cat sat on the mat .", "he plays a important role .", "dogs are in the mat .",
         "it can not be replaced .", "they were on the mat .", "the cats are important .") * 2)


def tiny_dataset() -> tuple[Dataset, References]:
    """6 systems x 12 sentences: system s takes reference s % 2 on the lines where
    (line + s) % 7 < s + 1 and copies the source elsewhere (system quality grows with s)."""
    systems = tuple(f"sys{s}" for s in range(6))
    hyps = tuple(tuple(REFS[s % 2][n] if (n + s) % 7 < s + 1 else SOURCES[n] for n in range(len(SOURCES)))
                 for s in range(6))
    human = {"H": np.array([0.1, 0.3, 0.2, 0.6, 0.5, 0.9])}
    ds = Dataset("tiny", "test", "tiny", SOURCES, systems, hyps, MappingProxyType(human),
                 MappingProxyType({}), tuple(range(len(SOURCES))))
    return ds, References("tiny", ("r0", "r1"), REFS)


def pipeline(trueskill_seed: int, seed: int, method: str, resamples: int = 200) -> dict[str, str]:
    """The rendered comparison table of Length and GREEN, corpus score and shuffled TrueSkill."""
    ds, refs = tiny_dataset()
    rows = {}
    for name, metric in (("Length", Length()), ("GREEN", GREEN())):
        for agg_name, agg in (("corpus", Default()),
                              ("TrueSkill", TrueSkillAggregation(order="shuffled", seed=trueskill_seed))):
            rows[f"{name} {agg_name}"] = {"tiny": Task(ds, metric, agg, refs, use_cache=False).score()}
    columns = [Column("H r", "tiny", "H", "pearson"), Column("H ρ", "tiny", "H", "spearman")]
    table = comparison_table(rows, columns, Significance(method, resamples, seed), ci=True)
    return {fmt: table.render(fmt) for fmt in FORMATS}


def _csv(text: str) -> dict[str, dict[str, str]]:
    return {row["metric"]: row for row in csv.DictReader(io.StringIO(text))}


def test_same_seeds_give_byte_identical_tables():
    for method in ("permutation", "bootstrap"):
        first, second = pipeline(3, 11, method), pipeline(3, 11, method)
        for fmt in FORMATS:
            assert first[fmt].encode("utf-8") == second[fmt].encode("utf-8"), (method, fmt)
        assert "seed=11" in first["md"] and "resamples=200" in first["md"]


def test_a_fresh_process_with_another_hash_seed_gives_the_same_bytes():
    code = ("import importlib.util, json, sys; "
            f"spec = importlib.util.spec_from_file_location('t', {str(Path(__file__))!r}); "
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); "
            "print(json.dumps(m.pipeline(3, 11, 'permutation')))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == pipeline(3, 11, "permutation")


def test_changing_a_seed_changes_only_what_depends_on_it():
    base = _csv(pipeline(3, 11, "bootstrap")["csv"])
    # The TrueSkill order seed moves the TrueSkill rows' correlations, not the corpus rows.
    other_order = _csv(pipeline(4, 11, "bootstrap")["csv"])
    for name in ("Length corpus", "GREEN corpus"):
        assert other_order[name] == base[name]
    assert any(other_order[name]["H r"] != base[name]["H r"] for name in ("Length TrueSkill", "GREEN TrueSkill"))
    # The resampling seed moves the bootstrap CIs, never a correlation.
    other_seed = _csv(pipeline(3, 12, "bootstrap")["csv"])
    for name, row in base.items():
        assert other_seed[name]["H r"] == row["H r"] and other_seed[name]["H ρ"] == row["H ρ"]
    assert any(other_seed[name]["H r CI"] != row["H r CI"] for name, row in base.items())


def test_bold_and_marks_follow_the_hand_checked_ranking():
    """Which cell is bold is decided from the correlations alone, recomputed here with numpy."""
    ds, refs = tiny_dataset()
    table = _csv(pipeline(3, 11, "permutation")["csv"])
    r = {}
    for name, metric in (("Length", Length()), ("GREEN", GREEN())):
        run = Task(ds, metric, Default(), refs, use_cache=False).score()
        r[f"{name} corpus"] = np.corrcoef(run.system_scores, ds.human["H"])[0, 1]
        shuffled = trueskill_scores(run.metric.sentence_scores(run.stats), order="shuffled", seed=3)
        r[f"{name} TrueSkill"] = np.corrcoef(shuffled, ds.human["H"])[0, 1]
    for name, value in r.items():
        assert float(table[name]["H r"]) == pytest.approx(value, abs=1e-12)
    best = max(r, key=r.get)
    assert table[best]["H r mark"].startswith("best")
    assert "†" in table[best]["H r mark"]  # the best is never significantly worse than itself
    assert table[best]["H r mark"].endswith("[1]")  # ... and is in the top significance cluster
    second = max((k for k in r if round(r[k], 3) != round(r[best], 3)), key=r.get)
    assert table[second]["H r mark"].startswith("second")


def test_make_reproduce_command_line_checks_its_names(capsys, monkeypatch):
    """``experiments/reproduce_all.py --help`` started the whole reproduction (its options were
    read by hand, unknown ones ignored) and a misspelled name ran nothing; both now stop with
    argparse's usage, exit status 0 and 2, before any experiment runs."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("reproduce_all", REPO / "experiments" / "reproduce_all.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module.subprocess, "run", lambda *a, **k: pytest.fail("an experiment was started"))
    for argv, status in ((["--help"], 0), (["multilingul"], 2), (["--bogus"], 2), (["--significance", "x"], 2)):
        with pytest.raises(SystemExit) as info:
            module.main(argv)
        assert info.value.code == status, argv
    assert "unknown experiment 'multilingul'; choose from foundation, " in capsys.readouterr().err
    args = module.parse_args(["ptm2_tables", "--significance", "permutation", "--seed", "3", "--out", "o"])
    assert args.names == ["ptm2_tables"] and str(args.out) == "o"
    assert args.forwarded == ["--significance", "permutation", "--seed", "3"]


def test_reports_name_the_data_folder_the_same_way_wherever_it_was_given(tmp_path, monkeypatch):
    """foundation.md and baselines.md name the data folder they read: ``data`` from a checkout
    whether ``$GEC_META_DATA`` held its absolute path or was unset (the committed reports said
    ``/work/main/data``, so `make reproduce` on another machine differed in that line)."""
    from gec_meta.report.reproduce import data_label

    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    assert data_label(tmp_path / "data") == data_label("data") == "data"
    elsewhere = tmp_path.parent / "elsewhere"
    assert data_label(elsewhere) == str(elsewhere.resolve())  # outside the working folder: absolute
