"""CLEME: hand-worked chunk partitions, counts and length weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gec_meta.errors import ConfigError
from gec_meta.metrics.edit.cleme import CLEME, LengthWeight, chunk_intervals, merged_intervals, partition, token_map


def test_merge_and_cut_by_hand():
    # (1,2) and an insertion at 2 touch -> one interval; (3,4) stays apart.
    assert merged_intervals([[(1, 2, 1, 2)], [(2, 2, 2, 3), (3, 4, 4, 5)]]) == [(1, 2), (3, 4)]
    assert chunk_intervals(5, [(1, 2), (3, 4)]) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    assert chunk_intervals(2, [(0, 0)]) == [(0, 0), (0, 2)]
    # "a b c" -> "a x c": positions 0..3 map to 0, 1, 2, 3; an insertion shifts the rest by one
    assert token_map(3, [(1, 2, 1, 2)]) == {0: 0, 1: 1, 2: 2, 3: 3}
    assert token_map(3, [(1, 1, 1, 2)]) == {0: 0, 1: 2, 2: 3, 3: 4}


def test_partition_by_hand():
    # hyp edits b -> B; the reference inserts x after b; the touching edits merge into [1, 2],
    # so the reference's chunk there is "b x" and the hypothesis' is "B".
    hyp, ref = partition("a b c d", [("a B c d", [(1, 2, 1, 2)]), ("a b x c d", [(2, 2, 2, 3)])])
    assert [c.tokens for c in hyp] == [("a",), ("B",), ("c", "d")]
    assert [c.tokens for c in ref] == [("a",), ("b", "x"), ("c", "d")]
    assert [c.edited for c in hyp] == [False, True, False] == [c.edited for c in ref]
    assert ref[1].length == 2  # max(|b|, |b x|)


def test_length_weight_by_hand():
    # alpha / (1 + (alpha - 1) * exp(-(l - c))): l = c gives 1 for any alpha
    assert LengthWeight(10, 0, 100)(1, 1.0) == 1.0
    # l = 3, c = 1: 10 / (1 + 9 e^-2) = 4.5085...
    assert math.isclose(LengthWeight(10, 2.5, 10)(3, 1.0), 10 / (1 + 9 * math.exp(-2)))
    # reversed: 10 / (1 + 9 e^2) = 0.1467 -> clipped to 0.25
    assert LengthWeight(10, 0.25, 1.0, reverse=True)(3, 1.0) == 0.25


def _counts(mode):
    m = CLEME(mode=mode)
    # hyp a B c d ; ref0 a B c d ; ref1 a b c D. Chunks: a | b | c | d. Edited reference chunks
    # have length 1, so the bias c = 1 and every length-1 weight is alpha/(1+(alpha-1)) = 1,
    # then clipped: TP -> 2.5 (min), FP -> 1.0, FN -> 1.0.
    parts = partition("a b c d", [("a B c d", [(1, 2, 1, 2)]), ("a B c d", [(1, 2, 1, 2)]),
                                  ("a b c D", [(3, 4, 3, 4)])])
    return m, m._sentence_counts(parts, [0, 1], 2, bias=1.0)


def test_independent_counts_by_hand():
    m, counts = _counts("independent")
    # B matches ref0 -> TP 2.5; d: not every reference edited it -> TN; a, c TN -> TN 3.
    np.testing.assert_allclose(counts, [[2.5, 0, 0, 3], [2.5, 0, 0, 3]])


def test_dependent_counts_by_hand():
    m, counts = _counts("dependent")
    # ref0: TP 2.5, TN 3.  ref1: B vs b -> FP 1; d vs D -> FN 1; a, c -> TN 2.
    np.testing.assert_allclose(counts, [[2.5, 0, 0, 3], [0, 1, 1, 2]])
    stats = counts[None, None]
    assert m.best_reference(stats)[0, 0] == 0
    # ref1 alone: P = 0, R = 0 -> F = 0; ref0: F = 1
    np.testing.assert_allclose(m.score_from_stats(counts), [1.0, 0.0])


def test_config_errors():
    with pytest.raises(ConfigError, match="metric.mode"):
        CLEME(mode="both")
    with pytest.raises(ConfigError, match="metric.level"):
        CLEME(level="doc")


def test_level_and_beta_do_not_change_statistics():
    assert CLEME().cache_key() == CLEME(level="corpus", beta=1.0).cache_key()
    assert CLEME().cache_key() != CLEME(mode="dependent").cache_key()
