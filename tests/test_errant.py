"""ERRANT / SentERRANT: a hand-worked example and the published "Rethinking" rows."""

from __future__ import annotations

import numpy as np
import pytest

from gec_meta.aggregation import Default, TrueSkillAggregation
from gec_meta.data.datasets import load_seeda
from gec_meta.data.refsets import load_refset
from gec_meta.evaluate import compute_statistics, evaluate
from gec_meta.metrics.errant import Errant, SentErrant


def test_errant_hand_example():
    src = ["This are a sentence ."]
    hyps = [["This is a sentence ."], ["This are a sentence ."]]
    refs = [["This is a sentence ."], ["This are the sentence ."]]
    stats = Errant().statistics(src, hyps, refs)
    # system 0: edit (1,2,'is'): ref 0 has it (tp 1); ref 1 has (2,3,'the') instead (fp 1, fn 1).
    np.testing.assert_array_equal(stats[0, 0], [[1, 0, 0], [0, 1, 1]])
    # system 1 (no edits): ref 0 -> fn 1, ref 1 -> fn 1.
    np.testing.assert_array_equal(stats[1, 0], [[0, 0, 1], [0, 0, 1]])
    np.testing.assert_allclose(Errant().sentence_scores(stats), [[1.0], [0.0]])


def test_insertion_at_sentence_start_and_cache_equivalence(isolated_cache):
    src = ["cat sat on mat ."]
    hyps = [["The cat sat on the mat ."]]
    refs = [["The cat sat on the mat ."]]
    a = compute_statistics(Errant(), src, hyps, refs)
    b = compute_statistics(Errant(), src, hyps, refs)  # from the on-disk cache
    np.testing.assert_array_equal(a, b)
    assert a[0, 0, 0].tolist() == [2, 0, 0]


def test_senterrant_is_mean_of_sentence_f():
    stats = np.array([[[[1, 0, 0]], [[0, 1, 0]]]], dtype=float)  # F = 1 and F = 0
    assert SentErrant().corpus_scores(stats)[0] == pytest.approx(0.5)


# Goto et al. 2025 ("Rethinking"), Table 1, ERRANT rows, TS human scores, refset official with
# missing_annotator=source: (SEEDA-S r, rho, SEEDA-E r, rho).
RETHINKING_TRUESKILL = {"base": (0.763, 0.706, 0.881, 0.895), "fluency": (-0.463, 0.095, -0.374, 0.231)}
RETHINKING_DEFAULT = {"base": (0.545, 0.343, 0.689, 0.643), "fluency": (-0.591, -0.156, -0.507, 0.033)}


@pytest.mark.slow
@pytest.mark.ci
@pytest.mark.parametrize("setting", ["base", "fluency"])
def test_errant_reproduces_rethinking_table1(data_root, setting):
    ds = load_seeda(data_root, setting)
    refs = load_refset("official", ds, data_root, "source")
    ts = evaluate(ds, Errant(), TrueSkillAggregation(), refs)["system"]
    got = (ts["TS_sent"]["pearson"], ts["TS_sent"]["spearman"], ts["TS_edit"]["pearson"], ts["TS_edit"]["spearman"])
    np.testing.assert_allclose(got, RETHINKING_TRUESKILL[setting], atol=0.002)
    df = evaluate(ds, Errant(), Default(), refs)["system"]
    got = (df["TS_sent"]["pearson"], df["TS_sent"]["spearman"], df["TS_edit"]["pearson"], df["TS_edit"]["spearman"])
    # Corpus-level counts are sensitive to the spaCy model version (spaCy 3.8 here, 3.x in the
    # paper): +-0.01, residual reported in experiments/rethinking_table1.md.
    np.testing.assert_allclose(got, RETHINKING_DEFAULT[setting], atol=0.01)
