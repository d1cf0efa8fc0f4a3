"""CLEME's corpus reference rule, its length weight on very long chunks and its rounding, against
the official code (THUKElab/CLEME v1.0, commit 5fc7617, ``scripts/evaluate.py``'s four
settings), run in a scratch venv on the M2 files these tests write (review of session 23).

Official outputs (F, Acc, P, R, tp, fp, fn, tn as it prints them):

* ``_roundtie``: corpus/dependent 0.5983, 0.6346, 0.8235, 0.2857, 42, 9, 105, 156;
  corpus/independent 0.6069, 0.6506, 0.8235, 0.2958, 42, 9, 100, 161;
  sentence/dependent F 0.4502; sentence/independent F 0.6448.
* ``_long``: corpus (both modes) F 0.0, Acc 0.3636, fp 0.75, fn 1.0, tn 1.0; sentence (both)
  F 0.0, Acc 0.4444 (its ``np.exp`` overflows to inf: the FP weight is clipped to its minimum).
* CLEME's demo files, sentence/independent: F 0.7962, P 0.7688, R 1.0, Acc 0.9212.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gec_meta.cli.main import read_references
from gec_meta.data.m2 import read_hypothesis_m2
from gec_meta.metrics.edit.cleme import CLEME, LengthWeight
from gec_meta.metrics.edit.core import python_round4
from tests.test_cleme_gold import CORPUS_WEIGHTS, SENTENCE_WEIGHTS, _cleme_dir, _corpus_values, _sources


def _block(tokens: list[str], edits: dict[int, list[tuple[int, int, str]]]) -> str:
    """An M2 block: annotator -> [(start, end, correction)]; an empty list is a noop line."""
    lines = ["S " + " ".join(tokens)]
    for ann, spans in edits.items():
        if not spans:
            lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{ann}")
        lines += [f"A {s} {e}|||R:X|||{c}|||REQUIRED|||-NONE-|||{ann}" for s, e, c in spans]
    return "\n".join(lines) + "\n"


def _write(tmp_path: Path, ref_blocks: list[str], hyp_blocks: list[str]):
    ref, hyp = tmp_path / "ref.m2", tmp_path / "hyp.m2"
    ref.write_text("\n".join(ref_blocks), encoding="utf-8")
    hyp.write_text("\n".join(hyp_blocks), encoding="utf-8")
    sources = _sources(tmp_path, ref).read_text(encoding="utf-8").splitlines()
    return sources, read_references([str(ref)], sources).for_metric("m2"), [read_hypothesis_m2(hyp, sources)]


def _roundtie(tmp_path: Path):
    """Sentence 1: both references edit t0, t2, ..., t80, the hypothesis t0, ..., t98 (41 TP, 9 FP).
    Sentence 2: reference 0 edits u0, ..., u10, reference 1 nothing; the hypothesis edits u0:
    running F 0.836653 with reference 0 (42/9/5) and 0.836735 with reference 1 (41/10/0), both
    0.8367 at 4 decimals, so the official rule takes reference 0 (more TP of its own).
    Sentence 3: both references edit 100 tokens, the hypothesis none.  Every chunk has length 1,
    so every weight is 1 (bias 1)."""
    t = [f"t{i}" for i in range(100)]
    u = [f"u{i}" for i in range(12)]
    v = [f"v{i}" for i in range(200)]
    even = lambda toks, stop: [(i, i + 1, toks[i].upper()) for i in range(0, stop, 2)]  # noqa: E731
    refs = [_block(t, {0: even(t, 81), 1: even(t, 81)}), _block(u, {0: even(u, 12), 1: []}),
            _block(v, {0: even(v, 200), 1: even(v, 200)})]
    hyps = [_block(t, {0: even(t, 100)}), _block(u, {0: even(u, 1)}), _block(v, {0: []})]
    return _write(tmp_path, refs, hyps)


@pytest.mark.parametrize("mode, want", [
    ("dependent", {"F": 0.5983, "Acc": 0.6346, "P": 0.8235, "R": 0.2857, "tp": 42, "fp": 9, "fn": 105, "tn": 156}),
    ("independent", {"F": 0.6069, "Acc": 0.6506, "P": 0.8235, "R": 0.2958, "tp": 42, "fp": 9, "fn": 100, "tn": 161}),
])
def test_corpus_rule_compares_f_rounded_to_4_decimals_then_own_counts(tmp_path, mode, want):
    sources, refs, hyps = _roundtie(tmp_path)
    metric = CLEME(mode=mode, level="corpus", reference_edits="gold", **CORPUS_WEIGHTS)
    stats = metric.statistics(sources, hyps, refs)
    assert _corpus_values(metric, stats) == want
    if mode == "dependent":  # the choice itself: reference 0 in sentence 2
        assert metric.corpus_best_reference(stats)[0, 1] == 0


@pytest.mark.parametrize("mode, want", [("dependent", 0.4502), ("independent", 0.6448)])
def test_sentence_level_on_the_same_files(tmp_path, mode, want):
    sources, refs, hyps = _roundtie(tmp_path)
    metric = CLEME(mode=mode, level="sentence", reference_edits="gold", **SENTENCE_WEIGHTS[mode])
    stats = metric.statistics(sources, hyps, refs)
    assert float(np.round(metric.corpus_scores(stats)[0], 4)) == want


@pytest.mark.parametrize("level", ["corpus", "sentence"])
@pytest.mark.parametrize("mode", ["dependent", "independent"])
def test_a_chunk_710_tokens_longer_than_the_bias_weighs_the_minimum(tmp_path, level, mode):
    """The hypothesis rewrites tokens 0-749 of a 760-token sentence as one token, the reference
    edits the last token (bias 1): the reversed FP weight's exp(749) overflows a float; the
    official code clips its weight 0 to the minimum (0.75 corpus, 0.25 sentence)."""
    w = ["w"] * 760
    sources, refs, hyps = _write(tmp_path, [_block(w, {0: [(759, 760, "W")]})], [_block(w, {0: [(0, 750, "x")]})])
    weights = CORPUS_WEIGHTS if level == "corpus" else SENTENCE_WEIGHTS[mode]
    metric = CLEME(mode=mode, level=level, reference_edits="gold", **weights)
    stats = metric.statistics(sources, hyps, refs)
    if level == "corpus":
        assert _corpus_values(metric, stats) == {"F": 0.0, "Acc": 0.3636, "P": 0.0, "R": 0.0,
                                                 "tp": 0.0, "fp": 0.75, "fn": 1.0, "tn": 1.0}
    else:
        _, _, f, acc = metric.prfa(stats[0, 0, 0])
        assert (float(f), float(acc)) == (0.0, 0.4444)


def test_length_weight_beyond_the_float_range():
    assert LengthWeight(10.0, 0.25, 1.0, reverse=True)(10_000, 1.0) == 0.25
    assert LengthWeight(10.0, 2.5, 10.0)(1, 10_000.0) == 2.5  # TP: exp(+9999) in the other direction
    assert LengthWeight(1.0, 0.5, 2.0, reverse=True)(10_000, 1.0) == 1.0  # alpha 1: every length weighs 1
    assert LengthWeight(10.0, 0.25, 1.0, reverse=True)(700, 1.0) == pytest.approx(0.25)


def test_demo_sentence_independent_as_printed(tmp_path):
    """The official sentence scorer prints ``round(np.average(F), 4)`` (numpy's rounding of the
    mean 0.79625: 0.7962); the per-sentence values are rounded as Python floats."""
    d = _cleme_dir()
    sources = _sources(tmp_path, d / "demo.errant").read_text(encoding="utf-8").splitlines()
    refs = read_references([str(d / "demo.errant")], sources).for_metric("m2")
    hyps = [read_hypothesis_m2(d / "demo-AMU.errant", sources)]
    metric = CLEME(mode="independent", level="sentence", reference_edits="gold", **SENTENCE_WEIGHTS["independent"])
    stats = metric.statistics(sources, hyps, refs)
    best = metric.best_reference(stats)
    chosen = np.take_along_axis(stats, best[:, :, None, None], axis=2)[0, :, 0, :]
    got = tuple(float(np.round(x.mean(), 4)) for x in metric.prfa(chosen))
    assert got == (0.7688, 1.0, 0.7962, 0.9212)


def test_python_round4_is_pythons_round():
    """Python's ``round`` of each float, numpy where the two cannot differ (values drawn here and
    the halves that ``np.round`` gets wrong: 0.04375 is 0.0437 for Python, 0.0438 for numpy)."""
    rng = np.random.default_rng(23)
    xs = np.concatenate([rng.random(20_000), (np.arange(20_000) + 0.5) / 1e4,
                         rng.integers(0, 10_000, 20_000) / rng.integers(1, 3_000, 20_000), [0.04375, np.nan, -0.00015]])
    want = np.array([round(float(x), 4) for x in xs])
    got = python_round4(xs)
    assert np.array_equal(got, want, equal_nan=True)
    assert python_round4(np.array([0.04375]))[0] == 0.0437 != np.round(0.04375, 4)
