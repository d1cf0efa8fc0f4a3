"""Global ranking of metrics across tasks (gec_meta.meta.global_rank).

Expected values: mt-metrics-eval's ``tasks_test.py`` (TaskSetResultsTest.testAssignWeights)
and hand calculation written out in the comments.
"""

from __future__ import annotations

import pytest

from gec_meta.meta.global_rank import (
    ACCURACY_RANGE,
    global_ranking,
    hierarchical_weights,
    normalise_weights,
    value_ranks,
)

# mt-metrics-eval tasks.Attributes(): the Task fields in declaration order.
MTME_ATTRS = ["test_set", "lang", "domain", "level", "human", "avg_by", "corr_fcn", "k", "gold",
              "refs", "close_refs", "use_outliers", "primary", "pval", "block_size", "early_min",
              "early_max", "replace_nans_with_zeros", "perm_test", "corr_fcn_args"]


def _mtme_task_set():
    # tasks_test.py TaskSetResultsTest.Results(): one accuracy task over all three language
    # pairs, then pearson for en-de, en-ru, zh-en, then kendall for en-de, en-ru; every other
    # attribute has one value (constant here).
    specs = [("en-de,en-ru,zh-en", "accuracy"), ("en-de", "pearson"), ("en-ru", "pearson"),
             ("zh-en", "pearson"), ("en-de", "kendall"), ("en-ru", "kendall")]
    out = {}
    for k, (lang, corr) in enumerate(specs):
        attrs = {a: "x" for a in MTME_ATTRS}
        attrs.update(lang=lang, corr_fcn=corr)
        out[f"task{k}"] = attrs
    return out


def test_mtme_assign_weights():
    # tasks_test.py TaskSetResultsTest.testAssignWeights.
    tasks = _mtme_task_set()
    cases = [
        (MTME_ATTRS, [1 / 4, 1 / 8, 1 / 8, 1 / 4, 1 / 8, 1 / 8]),
        (["corr_fcn"], [1 / 3, 1 / 9, 1 / 9, 1 / 9, 1 / 6, 1 / 6]),
        (["test_set"], [1 / 6] * 6),
        ([], [1 / 6] * 6),
    ]
    for attrs, expected in cases:
        got = hierarchical_weights(tasks, attrs)
        assert list(got) == list(tasks)
        assert list(got.values()) == pytest.approx(expected, abs=1e-12), attrs


def test_hand_computed_ranking():
    # t1 (correlation, range [-1, 1]), weight 3 -> 0.75: A 0.8 rank 1, B 0.6 rank 1, C 0.6 rank 2
    # t2 (accuracy, range [0, 1]), weight 1 -> 0.25: B 0.9, A 0.7, D 0.5, no ranks -> by value
    #   B 1, A 2, D 3.
    # Only A and B are in both tasks (C, D excluded, as AverageRanks/AverageCorrs drop them).
    # avg rank A = 0.75*1 + 0.25*2 = 1.25;  B = 0.75*1 + 0.25*1 = 1.0
    # avg value A = 0.75*(0.8+1)/2 + 0.25*0.7 = 0.675 + 0.175 = 0.85
    #           B = 0.75*(0.6+1)/2 + 0.25*0.9 = 0.6 + 0.225 = 0.825
    g = global_ranking(
        {"t1": {"A": 0.8, "B": 0.6, "C": 0.6}, "t2": {"A": 0.7, "B": 0.9, "D": 0.5}},
        ranks={"t1": {"A": 1, "B": 1, "C": 2}},
        weights={"t1": 3, "t2": 1},
        ranges={"t2": ACCURACY_RANGE},
    )
    assert g.order == ("B", "A")
    assert g.average_rank == pytest.approx({"B": 1.0, "A": 1.25}, abs=1e-12)
    assert g.average_value == pytest.approx({"A": 0.85, "B": 0.825}, abs=1e-12)
    assert g.weights == pytest.approx({"t1": 0.75, "t2": 0.25})
    assert g.excluded == ("C", "D")


def test_equal_rank_is_broken_by_value_then_name():
    # Two correlation tasks, uniform weights; both in the top cluster of both tasks.
    # X: ((0.2+1)/2 + (0.4+1)/2)/2 = (0.6 + 0.7)/2 = 0.65;  Y: (0.7 + 0.6)/2 = 0.65 too;
    # Z: (0.5 + 0.5)/2 = 0.5, rank 2 in both.  X and Y tie on rank and value: name order.
    g = global_ranking({"a": {"Y": 0.4, "X": 0.2, "Z": 0.0}, "b": {"Y": 0.2, "X": 0.4, "Z": 0.0}},
                       ranks={"a": {"X": 1, "Y": 1, "Z": 2}, "b": {"X": 1, "Y": 1, "Z": 2}})
    assert g.order == ("X", "Y", "Z")
    assert g.average_value["X"] == pytest.approx(0.65) and g.average_value["Z"] == pytest.approx(0.5)


def test_value_ranks_share_ties_consecutively():
    # b 0.7 -> 1; a, c 0.5 -> 2; d 0.1 -> 3 (clusters are numbered 1, 2, 3 as AssignRanks does)
    assert value_ranks({"a": 0.5, "b": 0.7, "c": 0.5, "d": 0.1}) == {"a": 2, "b": 1, "c": 2, "d": 3}


def test_default_weights_are_uniform():
    g = global_ranking({"a": {"M": 1.0, "N": 0.0}, "b": {"M": 0.0, "N": 1.0}, "c": {"M": 1.0, "N": 0.0}})
    # ranks by value: M 1, 2, 1 -> 4/3; N 2, 1, 2 -> 5/3.
    assert g.average_rank == pytest.approx({"M": 4 / 3, "N": 5 / 3})
    assert g.weights == pytest.approx({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3})


def test_weight_validation():
    with pytest.raises(ValueError, match="non-negative"):
        normalise_weights(["a", "b"], {"a": -1})
    with pytest.raises(ValueError, match="all zero"):
        normalise_weights(["a", "b"], {"a": 0, "b": 0})
    with pytest.raises(ValueError, match="unknown tasks"):
        normalise_weights(["a"], {"z": 1})
    assert normalise_weights(["a", "b"], {"a": 0}) == {"a": 0.0, "b": 1.0}


def test_input_errors():
    with pytest.raises(ValueError, match="no tasks"):
        global_ranking({})
    with pytest.raises(ValueError, match="no metric is present in every task"):
        global_ranking({"a": {"M": 0.1}, "b": {"N": 0.2}})
    with pytest.raises(ValueError, match="non-finite"):
        global_ranking({"a": {"M": float("nan")}})
    with pytest.raises(ValueError, match="ranks are given"):
        global_ranking({"a": {"M": 0.1, "N": 0.2}}, ranks={"a": {"M": 1}})
    with pytest.raises(ValueError, match="lo < hi"):
        global_ranking({"a": {"M": 0.1}}, ranges={"a": (1.0, 0.0)})
    with pytest.raises(ValueError, match="no attribute 'level'"):
        hierarchical_weights({"t": {"dataset": "seeda"}}, ["level"])
