"""ChERRANT at character level (gec_meta.edits.cherrant, gec_meta.metrics.edit.cherrant) against
the official scripts of HillZhang1999/MuCGEC ``scorers/ChERRANT`` (commit 39221934).

Expected values are the official tool's outputs, not ours: its own char-level demo (the M2 files
in ``mucgec/scorers/ChERRANT/samples`` and the TP 8 / FP 19 / FN 35 / F0.5 0.2649 its README
states), and ``tests/data/cherrant/``: ``parallel_to_m2.py -g char`` and
``compare_m2_for_evaluation.py`` run (in a scratch environment, ltp/torch stubbed: they are
imported but used only at word level; OpenCC by opencc-python-reimplemented) on RevisitCGEC's
six systems against MuCGEC dev and YACLC dev references in the ids files' order.
"""

from __future__ import annotations

import collections
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gec_meta.edits.cherrant import (
    Resources, _operations, alignments, annotate, char_tokens, cheapest_alignments, edit_type, first_alignment,
)
from gec_meta.edits.edit import Edit
from gec_meta.metrics.edit.cherrant import cherrant_counts, cherrant_statistics
from gec_meta.metrics.edit.errant import Errant

FIXTURES = Path(__file__).parent / "data" / "cherrant"
SAMPLES = "mucgec/scorers/ChERRANT/samples"
SYSTEMS = ("bart", "char", "s2e", "spm", "t5", "word")


@pytest.fixture(scope="module")
def resources(data_root):
    if not (data_root / "mucgec").is_dir():
        pytest.skip("the Chinese data (mucgec/) is not in the data directory")
    return Resources(data_root)


def read_cherrant_m2(path: Path) -> list[dict[int, list[Edit]]]:
    """Each block of a ChERRANT M2 file: annotator -> its edits (every alignment's, in file
    order; ``-NONE-`` corrections as ""; the noop line dropped, the NA line kept)."""
    out = []
    for block in path.read_text(encoding="utf-8").strip().split("\n\n"):
        coders: dict[int, list[Edit]] = {}
        for line in block.split("\n"):
            if line.startswith("A "):
                fields = line[2:].split("|||")
                start, end = map(int, fields[0].split())
                coder = int(fields[-1])
                edits = coders.setdefault(coder, [])
                if fields[1] != "noop":
                    cor = "" if fields[2] == "-NONE-" else fields[2]
                    edits.append(Edit(start, end, -1, -1, "", cor, fields[1]))
        out.append(coders)
    return out


def as_multiset(edits) -> collections.Counter:
    return collections.Counter((e.start, e.end, e.correction.replace(" ", ""), edit_type(e)) for e in edits)


def _para(path: Path) -> list[list[str]]:
    return [line.split("\t")[1:] for line in path.read_text(encoding="utf-8").strip().split("\n")]


# ----------------------------------------------------------------------------- tokenisation
def test_char_tokens_split_every_character_but_the_missing_constituent():
    # ChERRANT's split_char: spaces removed, every character a token (Latin letters and digits
    # too), "[缺失成分]" kept whole.
    assert char_tokens("我 有 phone 10个") == ["我", "有", "p", "h", "o", "n", "e", "1", "0", "个"]
    assert char_tokens("他[缺失成分]去") == ["他", "[缺失成分]", "去"]
    assert char_tokens("") == []


def test_special_targets(resources):
    assert annotate("我很好", "没有错误", resources) == ()
    assert annotate("我很好", "我 很 好", resources) == ()
    (na,) = annotate("我很好", "无法标注", resources)
    assert (na.start, na.end, na.type) == (-1, -1, "NA")


def test_traditional_target_is_simplified(resources):
    # ChERRANT converts targets (never sources) with OpenCC t2s: 們 -> 们 is then no edit.
    assert annotate("我们好", "我們好", resources) == ()
    (e,) = annotate("我們好", "我們好", resources)  # the source keeps 們: 們 -> 们 is an edit
    assert (e.start, e.end, e.correction, e.type) == (1, 2, "们", "S")


# ----------------------------------------------------------------------------- ChERRANT's demo
def test_demo_hypothesis_edits_equal_the_official_m2(data_root, resources):
    para = _para(data_root / SAMPLES / "demo.hyp.para")
    official = read_cherrant_m2(data_root / SAMPLES / "demo.hyp.m2.char")
    assert len(para) == len(official) == 20
    for (src, hyp), coders in zip(para, official):
        assert as_multiset(annotate(src, hyp, resources)) == as_multiset(coders.get(0, []))


def _corpus_counts(hyp, ref, present=None):
    """Official-style corpus (TP, FP, FN): ChERRANT counts with the rounded running-total choice."""
    stats = cherrant_statistics(hyp, ref, present)
    metric = Errant(_language="zh")
    return metric.corpus_stats(stats)


def test_demo_scores_as_its_readme(data_root):
    hyp_m2 = read_cherrant_m2(data_root / SAMPLES / "demo.hyp.m2.char")
    ref_m2 = read_cherrant_m2(data_root / SAMPLES / "demo.ref.m2.char")
    R = max(len(c) for c in ref_m2)
    hyp = [[tuple(c.get(0, [])) for c in hyp_m2]]
    ref = [[tuple(c.get(r, c[0])) for c in ref_m2] for r in range(R)]
    present = [[r in c for c in ref_m2] for r in range(R)]
    tp, fp, fn = _corpus_counts(hyp, ref, present)[0]
    assert (tp, fp, fn) == (8, 19, 35)
    p, r = tp / (tp + fp), tp / (tp + fn)
    assert round(1.25 * p * r / (0.25 * p + r), 4) == 0.2649


def test_counts_follow_the_pooled_multiplicities():
    e = Edit(3, 4, -1, -1, "", "x", "S")
    d = Edit(5, 6, -1, -1, "", "", "R")
    # an edit written by two alignments of the reference counts two true positives
    assert cherrant_counts((e,), (e, e)) == (2, 0, 0)
    # ... and two false negatives when missed; a hypothesis edit twice, two false positives
    assert cherrant_counts((d, d), (e, e)) == (0, 2, 2)
    # no edits: a noop, never a true or false positive
    assert cherrant_counts((), (e,)) == (0, 0, 1)
    assert cherrant_counts((e,), ()) == (0, 1, 0)


def test_a_sentence_whose_only_reference_is_not_annotatable_counts_nothing():
    na = (Edit(-1, -1, -1, -1, "", "", "NA"),)
    e = (Edit(0, 1, -1, -1, "", "x", "S"),)
    stats = cherrant_statistics([[e, e]], [[na, e]])
    assert stats[0, 0].tolist() == [[0, 0, 0]]
    assert stats[0, 1].tolist() == [[1, 0, 0]]


# ----------------------------------------------------------------------------- RevisitCGEC
def _official_scores() -> dict[tuple[str, str, str], tuple[int, int, int, float, float, float]]:
    """(system, hypothesis subset, reference set) -> TP, FP, FN, P, R, F0.5 printed by
    compare_m2_for_evaluation.py (tests/data/cherrant/scores.txt)."""
    out, key = {}, None
    for line in (FIXTURES / "scores.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("== "):
            key = tuple(line[3:].split())
        elif line and line[0].isdigit() and key is not None:
            tp, fp, fn, p, r, f = line.split("\t")
            out[key] = (int(tp), int(fp), int(fn), float(p), float(r), float(f))
            key = None
    return out


# yaclc's hypotheses (the same six systems' other 100 sentences) are also checked, through their
# TP/FP/FN, by the scorer test's yaclc cases below: `make test-all` compares their edits one by one.
@pytest.mark.parametrize("subset", ["mucgec", pytest.param("yaclc", marks=pytest.mark.slow)])
def test_revisit_cgec_hypothesis_edits_equal_the_official_m2(data_root, resources, subset):
    from gec_meta.data.datasets import load_dataset

    from gec_meta.edits.cherrant import cherrant_extractor

    ds = load_dataset("revisit_cgec", data_root, subset=subset)
    # through the cached extractor (annotate() of every pair, once per test run): the scorer
    # test's "all" case below reads these hypotheses' edits instead of extracting them again
    pairs = [(ds.sources[n], hyp[n]) for hyp in ds.hypotheses for n in range(ds.num_sentences)]
    edits = iter(cherrant_extractor(data_root).extract(pairs))
    for s, system in enumerate(ds.systems):
        official = read_cherrant_m2(FIXTURES / f"hyp.{system}.{subset}.edits.m2")
        assert len(official) == 100 == ds.num_sentences
        for n, coders in enumerate(official):
            assert as_multiset(next(edits)) == as_multiset(coders.get(0, [])), (system, n)


# mucgec's hypothesis edits are compared one by one above and its references are read by the
# same code as yaclc's and all's: its scorer case (~7 s of reference extraction) is `make test-all`'s.
@pytest.mark.parametrize("subset,refs", [pytest.param("mucgec", "mucgec", marks=pytest.mark.slow),
                                         ("yaclc", "yaclc-minimal"), ("all", "all-minimal"),
                                         ("yaclc", "yaclc-fluency")])
def test_revisit_cgec_errant_equals_the_official_scorer(data_root, subset, refs):
    from gec_meta.data.datasets import load_dataset
    from gec_meta.data.refsets import load_refset
    from gec_meta.meta.task import compute_statistics

    official = _official_scores()
    ds = load_dataset("revisit_cgec", data_root, subset=subset,
                      yaclc_references="fluency" if refs.endswith("fluency") else "minimal")
    references = load_refset("official", ds, data_root)
    metric = Errant().for_language(ds.language)
    stats = compute_statistics(metric, ds.sources, ds.hypotheses, references.for_metric("text"))
    totals = metric.corpus_stats(stats)
    p, r, f = metric.corpus_prf(stats)
    for s, system in enumerate(ds.systems):
        tp, fp, fn, op, orr, of = official[(system, "all" if subset == "all" else subset, refs)]
        assert totals[s].tolist() == [tp, fp, fn], system
        assert (round(float(p[s]), 4), round(float(r[s]), 4), round(float(f[s]), 4)) == (op, orr, of), system


def test_alternative_alignments_are_marked_and_the_first_is_a_partition(resources):
    # Word-order changes, where ChERRANT often finds several equally cheap alignments: the
    # further ones are typed "<type>@k", and the first alignment's edits never overlap.
    for src, tgt in (("我们一起去学校吧", "我们去一起学校吧"), ("他非常很喜欢", "他很非常喜欢"),
                     ("冬阴功对外国人的喜爱不断地增加", "外国人对冬阴功的喜爱不断地增加")):
        edits = annotate(src, tgt, resources)
        first = first_alignment(edits)
        assert first and all("@" not in e.type for e in first)
        spans = sorted((e.start, e.end) for e in first)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


# MuCGEC dev: a source and reference with two distinct cheapest ChERRANT alignments
TWO_WAYS = ("”这就是社会上基本原则。这样一来，整个世界会一起提高社会生活素质。",
            "这就是社会的基本原则。这样一来，整个世界的社会生活质量都会一起提高。")


def test_two_alignments_count_twice_where_they_agree(resources):
    edits = annotate(*TWO_WAYS, resources)
    first = first_alignment(edits)
    assert [(e.start, e.end, e.correction.replace(" ", ""), e.type) for e in first] == [
        (0, 1, "", "R"), (6, 7, "的", "S"), (21, 26, "的", "S"), (30, 32, "质量都会一起提高", "S")]
    assert sorted((e.start, e.end, e.correction.replace(" ", "")) for e in edits if "@" in e.type) == [
        (0, 1, ""), (6, 7, "的"), (21, 26, "的"), (30, 31, ""), (32, 32, "量都会一起提高")]
    # the scorer pools both alignments: the 3 shared edits count twice, the 3 others once
    assert cherrant_counts(edits, edits) == (9, 0, 0)
    assert cherrant_counts(first, edits) == (7, 0, 2)


def test_weighted_variants_read_the_first_alignment(resources, data_root):
    from gec_meta.edits.cherrant import tokenise
    from gec_meta.metrics.edit.pt import PTErrant

    metric = PTErrant().for_language("zh")
    src, ref = tokenise(TWO_WAYS[0]), tokenise(TWO_WAYS[1])
    (row,) = metric.reference_edit_sets([src], [[ref]])
    assert [e.type for e in row[0]] == ["R", "S", "S", "S"]


def _other_resources(root: Path) -> Path:
    """A data directory whose ChERRANT resources are not MuCGEC's (two Cilin lines, one confusion
    line): the substitution costs, hence the cheapest alignments of TWO_WAYS, change."""
    res = root / "mucgec" / "scorers" / "ChERRANT" / "data"
    res.mkdir(parents=True)
    (res / "cilin.txt").write_bytes("Aa01A01= 我 们\nBa01A01= 书 饭\n".encode("gbk"))
    (res / "confusion_dict.txt").write_text("们 门 闷\n", encoding="utf-8")
    return root


def test_the_extractor_follows_the_data_directory(resources, data_root, tmp_path, monkeypatch):
    """Regression (CI of stop 37): the process-wide extractor kept the first data directory it
    saw, so after a test with a tiny data directory the real MuCGEC edits came out with the tiny
    resources.  It is now resolved at every call, and other resources have their own cache
    namespace, statistics keys and signature."""
    from gec_meta.edits.cherrant import cherrant_extractor, tokenise
    from gec_meta.metrics.edit.pt import PTErrant

    other = _other_resources(tmp_path / "other")
    pair = (tokenise(TWO_WAYS[0]), tokenise(TWO_WAYS[1]))
    metric = PTErrant().for_language("zh")
    monkeypatch.setenv("GEC_META_DATA", str(other))
    elsewhere = cherrant_extractor()
    other_key = metric.cache_key()
    other_types = [e.type for e in first_alignment(elsewhere.extract([pair])[0])]
    monkeypatch.setenv("GEC_META_DATA", str(data_root))
    here = cherrant_extractor()
    assert here is not elsewhere and here.root == data_root.resolve()
    assert [e.type for e in first_alignment(here.extract([pair])[0])] == ["R", "S", "S", "S"]
    # the tiny resources align differently: had they shared the entry, one would read the other's
    assert other_types != ["R", "S", "S", "S"]
    assert here.namespace() != elsewhere.namespace() and metric.cache_key() != other_key
    assert here.signature.startswith("cherrant-char:MuCGEC@39221934|")
    assert elsewhere.signature.startswith("cherrant-char:resources@")


def test_a_run_reads_the_resources_of_its_own_data_dir(data_root, tmp_path, monkeypatch):
    """``gec-meta-run data_dir=X`` reads its dataset from X; ChERRANT's Cilin and confusion set
    came from ``$GEC_META_DATA`` instead (the default data directory), so a run on another
    folder mixed that folder's texts with another folder's resources.  Here X is the tiny
    benchmark of test_experiment_configs.py (its own two-line Cilin) while ``$GEC_META_DATA``
    names the real data: the run's signature must name X's resources, not MuCGEC's."""
    import json

    from inprocess import run_main
    from test_experiment_configs import build_tiny_data

    from gec_meta.data.fetch import data_directory, default_data_dir
    from gec_meta.edits.cherrant import cherrant_extractor

    tiny = build_tiny_data(tmp_path / "tiny")
    monkeypatch.setenv("GEC_META_DATA", str(data_root))
    with data_directory(tiny):  # the scope a run's code is called in
        assert default_data_dir() == tiny and cherrant_extractor().root == tiny.resolve()
    assert cherrant_extractor().root == data_root.resolve()  # and nothing is left of it after
    env = {**os.environ, "GEC_META_CACHE": str(tmp_path / "cache")}
    env.pop("HYDRA_FULL_ERROR", None)
    proc = run_main(["dataset=revisit_cgec", "dataset.subset=mucgec", "metric=errant", "meta_eval.spa_permutations=0",
                     f"data_dir={tiny}", f"hydra.run.dir={tmp_path / 'run'}"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    signature = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))["signature"]
    assert "cherrant-char:resources@" in signature and "MuCGEC@39221934" not in signature, signature


# ---------------------------------------------------------------------------- the common suffix
def _full_table_alignments(src, tgt, res):
    return cheapest_alignments(_operations(src, tgt, res))


# a few characters with shared readings, confusion-set and Cilin neighbours, punctuation, and
# repeats (transpositions, several cheapest alignments)
_CHARS = list("我们一起去学校吧他很非常喜欢的地得在再，。")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_CHARS), max_size=10), st.lists(st.sampled_from(_CHARS), max_size=10),
       st.lists(st.sampled_from(_CHARS), max_size=6), st.lists(st.sampled_from(_CHARS), max_size=14))
def test_alignments_without_the_common_suffix_equal_the_whole_table(resources, head_src, head_tgt, tail, long):
    # the common suffix explicitly (random pairs rarely share one), also after a length
    # difference beyond ALL_PATHS_MAX_DIFF (one path only)
    for src, tgt in ((head_src + tail, head_tgt + tail), (head_src + tail, long + head_tgt + tail),
                     (head_src, head_tgt), (tail, head_tgt + tail)):
        assert alignments(src, tgt, resources) == _full_table_alignments(src, tgt, resources), (src, tgt)


def test_alignments_of_real_pairs_without_the_common_suffix(data_root, resources):
    from gec_meta.data.datasets import load_dataset

    ds = load_dataset("revisit_cgec", data_root, subset="mucgec")
    checked = 0
    for hyp in ds.hypotheses[:2]:
        for source, target in zip(ds.sources[:25], hyp[:25]):
            src, tgt = char_tokens(source), char_tokens("".join(target.split()))
            if src != tgt:
                assert alignments(src, tgt, resources) == _full_table_alignments(src, tgt, resources)
                checked += 1
    assert checked > 25
