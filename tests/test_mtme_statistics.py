"""mt-metrics-eval's further statistics: Pairwise Difference Pearson, the Kendall variants and
the chance level of every pairwise accuracy (gec_meta.meta.pdp, gec_meta.meta.ties).

Expected values: mt-metrics-eval's own test vectors (google-research/mt-metrics-eval @ 68a481a,
``mt_metrics_eval/stats_test.py``; each test names its source), scipy's Kendall tau, hand
calculations written out below, and -- on real data -- mt-metrics-eval's code run on
gec-meta's ``sentence_scores.tsv`` in a scratch venv (the script's output is quoted).  Inputs
are in our convention: rows are items (mt-metrics-eval's columns under ``average_by='item'``),
NaN where mt-metrics-eval has ``None``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats

from gec_meta.meta.correlation import UndefinedCorrelationWarning
from gec_meta.meta.pdp import pairwise_difference_pearson, pairwise_differences, pdp_rows
from gec_meta.meta.ties import chance_accuracy, kendall_variant, tie_calibrated_accuracy

N = np.nan


# --------------------------------------------------------------------- PDP: stats_test.py vectors
def _items(gold, metric, num_sys):
    """mt-metrics-eval's system-major packed vectors -> our (items, systems) matrices."""
    g = np.array([N if v is None else v for v in gold], dtype=float).reshape(num_sys, -1).T
    m = np.array(metric, dtype=float).reshape(num_sys, -1).T
    return g, m


def test_stats_test_pearson_pdp():
    # stats_test.py CorrelationTest.testPearsonPdp: Correlation(2, [1..6], [2, 1, 4, 3, 3, 7]):
    # Pearson(average_by='item', pdp=True) 0.926, 'none' 0.776, 'sys' 0.766 (places=3).
    # Ours takes (items, systems): 'item' = the columns as items, 'none' = one item holding all
    # six scores, 'sys' = the two systems' rows as items.
    g, m = _items([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7], 2)
    assert pairwise_difference_pearson(g, m) == pytest.approx(0.926, abs=5e-4)
    assert pairwise_difference_pearson(g.T.reshape(1, -1), m.T.reshape(1, -1)) == pytest.approx(0.776, abs=5e-4)
    assert pairwise_difference_pearson(g.T, m.T) == pytest.approx(0.766, abs=5e-4)
    # By hand for 'item': per item the one difference pair (system 2 - system 1):
    # human (3, 3, 3), metric (1, 2, 3); with both orders and the zero diagonal the vectors are
    # h = (0, 3, -3, 0) x 3 and m = (0,1,-1,0, 0,2,-2,0, 0,3,-3,0): mean 0, so
    # r = sum(h m) / sqrt(sum h^2 sum m^2) = 2*3*(1+2+3) / sqrt(2*27 * 2*14) = 36 / sqrt(1512).
    assert pairwise_difference_pearson(g, m) == pytest.approx(36 / math.sqrt(1512), abs=1e-15)


def test_stats_test_pdp_with_averaging_and_nones():
    # stats_test.py AverageCorrelationTest.testPdpWithAveragingAndNones: g = [1, 5, None, 10, 2, 12],
    # m = [3, 15, 1, 20, 4, 24], num_sys=2: 'item' -> 0.968, 'none' -> 0.975 (places=3); the
    # item with a missing human score (system 1 of item 3) has no pair.
    g, m = _items([1, 5, None, 10, 2, 12], [3, 15, 1, 20, 4, 24], 2)
    assert pairwise_difference_pearson(g, m) == pytest.approx(0.968, abs=5e-4)
    assert pairwise_difference_pearson(g.T.reshape(1, -1), m.T.reshape(1, -1)) == pytest.approx(0.975, abs=5e-4)
    # mt-metrics-eval's own float (its code run in a scratch venv): 0.9682773237093575
    assert pairwise_difference_pearson(g, m) == pytest.approx(0.9682773237093575, abs=1e-15)


def test_stats_test_enumerate_pairwise_diffs():
    # stats_test.py AverageCorrelationTest.testEnumeratePairwiseDiffs, single segment:
    # g [[1, 2, 3, 4]], m [[2, 1, 8, 3]] -> the 16 listed differences, in its order.
    dh, dm = pairwise_differences([[1, 2, 3, 4]], [[2, 1, 8, 3]])
    assert dh.tolist() == [0.0, 1.0, 2.0, 3.0, -1.0, 0.0, 1.0, 2.0, -2.0, -1.0, 0.0, 1.0, -3.0, -2.0, -1.0, 0.0]
    assert dm.tolist() == [0.0, -1.0, 6.0, 1.0, 1.0, 0.0, 7.0, 2.0, -6.0, -7.0, 0.0, -5.0, -1.0, -2.0, 5.0, 0.0]
    # With missing human scores: g [[1, 2, None], [4, None, 6]], m [[2, 1, 8], [3, 5, 6]]: its
    # human_pairs [[0, 1, None, -1, 0, None, None, None, None], [0, None, 2, None, None, None,
    # -2, None, 0]] and metric_pairs [[0, -1, 6, 1, 0, 7, -6, -7, 0], [0, 2, 3, -2, 0, 1, -3, -1,
    # 0]]; filter_gold_nones keeps the entries whose human difference is not None.
    dh, dm = pairwise_differences([[1, 2, N], [4, N, 6]], [[2, 1, 8], [3, 5, 6]])
    assert dh.tolist() == [0, 1, -1, 0, 0, 2, -2, 0]
    assert dm.tolist() == [0, -1, 1, 0, 0, 3, -3, 0]


def test_pdp_needs_two_systems_and_one_shape():
    # stats_test.py testPDPLessThanTwoSystems: fewer than two systems is an error.
    with pytest.raises(ValueError, match="two systems"):
        pairwise_difference_pearson([[1.0], [2.0]], [[1.0], [2.0]])
    with pytest.raises(ValueError, match="one shape"):
        pairwise_difference_pearson([[1.0, 2.0]], [[1.0, 2.0, 3.0]])


def test_pdp_metric_nan_drops_that_system_and_constant_is_nan():
    g = np.array([[1.0, 2.0, 4.0], [3.0, 1.0, 2.0]])
    m = np.array([[0.1, N, 0.5], [0.2, 0.3, 0.1]])
    # item 1 keeps only the pair (0, 2); same as giving the human no score there
    g_missing = g.copy()
    g_missing[0, 1] = N
    assert pairwise_difference_pearson(g, m) == pairwise_difference_pearson(g_missing, np.nan_to_num(m))
    with pytest.warns(UndefinedCorrelationWarning):
        assert math.isnan(pairwise_difference_pearson(g, np.ones_like(g)))


def test_pdp_rows_equal_the_scalar_form():
    rng = np.random.default_rng(5)
    g = rng.normal(size=(30, 6))
    g[rng.random(g.shape) < 0.1] = N
    stack = rng.normal(size=(4, 30, 6))
    rows = pdp_rows(g, stack)
    for k in range(4):
        assert rows[k] == pytest.approx(pairwise_difference_pearson(g, stack[k]), abs=1e-14)


def test_pdp_is_pearson_at_system_level():
    # One item = the system level: PDP equals Pearson's r (the module docstring's claim).
    h, m = np.array([0.3, 0.1, 0.7, 0.4]), np.array([10.0, 7.0, 12.0, 13.0])
    assert pairwise_difference_pearson(h[None], m[None]) == pytest.approx(scipy.stats.pearsonr(h, m)[0], abs=1e-15)


# --------------------------------------------------------------------- Kendall variants
GOLD5, METRIC5 = [1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3]


def test_stats_test_kendall_variants():
    # stats_test.py CorrelationTest.testKendallVariants: Correlation(1, [1, 2, 2, 3, 4],
    # [2, 1, 1.5, 5, 3]): b 0.316227766, c 0.32, 23 0.2, acc23 0.6, acc23 at epsilon=2 0.4.
    assert kendall_variant(GOLD5, METRIC5, "b") == pytest.approx(0.316227766, abs=1e-9)
    assert kendall_variant(GOLD5, METRIC5, "c") == pytest.approx(0.32, abs=1e-15)
    assert kendall_variant(GOLD5, METRIC5, "23") == pytest.approx(0.2, abs=1e-15)
    assert kendall_variant(GOLD5, METRIC5, "acc23") == pytest.approx(0.6, abs=1e-15)
    assert kendall_variant(GOLD5, METRIC5, "acc23", epsilon=2.0) == pytest.approx(0.4, abs=1e-15)
    # By hand (tests/test_ties.py counts C=6 D=3 T_h=1, n=5): b = (6-3)/sqrt(10*9) = 1/sqrt(10);
    # c with k = min(5 distinct metric, 4 distinct human) = 4: 2*3 / (25 * 3/4) = 0.32.
    assert kendall_variant(GOLD5, METRIC5, "b") == pytest.approx(1 / math.sqrt(10), abs=1e-15)


def test_stats_test_kendall_b_and_c_equal_scipy():
    # stats_test.py CorrelationFunctionsTest.testKendallVariants_b_and_c: on these vectors
    # KendallVariants equals scipy.stats.kendalltau (variant b and c).
    gold, metric = [7, 1, 2, 7, 4, 3, 2], [4, 1, 3, 6, 1, 5, 6]
    for v in ("b", "c"):
        assert kendall_variant(gold, metric, v) == pytest.approx(scipy.stats.kendalltau(gold, metric, variant=v)[0],
                                                                abs=1e-15)


def test_stats_test_kendall_variants_23_seven_items():
    # stats_test.py CorrelationFunctionsTest.testKendallVariants_23 (x = metric, y = gold):
    # 21 pairs, D 2, ties x-only 3, y-only 2, both 1, C = 21-2-3-2-1 = 13 -> 23: (13+1-2-3-2)/21
    # = 7/21 (its "(14 - 7) / 21"), acc23: (13+1)/21.
    x, y = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    assert kendall_variant(y, x, "23") == pytest.approx(7 / 21, abs=1e-15)
    assert kendall_variant(y, x, "acc23") == pytest.approx(14 / 21, abs=1e-15)
    # testKendallVariantsWithPositiveEpsilon: epsilon 0.1 adds no tie; epsilon 1 -> C 7, D 1,
    # x-only 10, y-only 0, both 3 -> (7 + 3 - 1 - 10) / 21.
    assert kendall_variant(y, x, "23", epsilon=0.1) == pytest.approx(7 / 21, abs=1e-15)
    assert kendall_variant(y, x, "23", epsilon=1.0) == pytest.approx(-1 / 21, abs=1e-15)


def test_kendall_variants_average_over_items_and_drop_nan_items():
    # Two items: item 1 is GOLD5/METRIC5; item 2 has a constant metric, so tau-b and tau-c are
    # NaN there and left out of the mean (AverageCorrelation drops NaN), while 23/acc23 count it.
    # Item 2 by hand: human (3, 1, 2), metric all 0: T_m = 3 pairs -> 23 = -1, acc23 = 0.
    g = np.array([GOLD5, [3, 1, 2, N, N]], dtype=float)
    m = np.array([METRIC5, [0, 0, 0, 5, 5]], dtype=float)
    assert kendall_variant(g, m, "b") == pytest.approx(1 / math.sqrt(10), abs=1e-15)
    assert kendall_variant(g, m, "c") == pytest.approx(0.32, abs=1e-15)
    assert kendall_variant(g, m, "23") == pytest.approx((0.2 - 1) / 2, abs=1e-15)
    assert kendall_variant(g, m, "acc23") == pytest.approx((0.6 + 0) / 2, abs=1e-15)
    with pytest.raises(ValueError, match="tau-c"):
        kendall_variant(g, m, "c", epsilon=0.5)
    with pytest.raises(ValueError, match="variant"):
        kendall_variant(g, m, "d")


def test_acc23_and_23_equal_acc_eq_and_tau_eq_at_the_same_epsilon():
    rng = np.random.default_rng(1)
    g = rng.integers(1, 4, size=(40, 5)).astype(float)
    m = np.round(rng.normal(size=(40, 5)), 1)
    for eps in (0.0, 0.2):
        r = tie_calibrated_accuracy(g, m, epsilon=eps)
        assert kendall_variant(g, m, "acc23", eps) == pytest.approx(r.acc_eq, abs=1e-15)
        assert kendall_variant(g, m, "23", eps) == pytest.approx(r.tau_eq, abs=1e-15)


# --------------------------------------------------------------------- chance level
def test_chance_accuracy_by_hand():
    # One item, human (1, 2, 2, 3, 4): 10 pairs, 1 tied by the humans.
    # Random order: 9 untied pairs right half the time -> 9 / 20 = 0.45; constant metric: the
    # one human tie -> 1 / 10.  Chance = max(0.45, 0.1) = 0.45.
    assert chance_accuracy(GOLD5) == pytest.approx(0.45, abs=1e-15)
    # Human (1, 1, 1, 2): 6 pairs, 3 tied -> random 3/12 = 0.25, constant 3/6 = 0.5 -> 0.5.
    assert chance_accuracy([1, 1, 1, 2]) == pytest.approx(0.5, abs=1e-15)
    # No human ties: 1/2 (the system-level case of GEC's TrueSkill / EW scores).
    assert chance_accuracy([0.3, 0.1, 0.2]) == 0.5
    # Averaged over items as acc_eq averages: items (1,2,2,3,4) and (1,1,1,2):
    # random (0.45 + 0.25) / 2 = 0.35, constant (0.1 + 0.5) / 2 = 0.3 -> 0.35.
    g = np.array([[1, 2, 2, 3, 4], [1, 1, 1, 2, N]], dtype=float)
    assert chance_accuracy(g) == pytest.approx(0.35, abs=1e-15)
    # Pooled ('none'): 16 pairs, 4 tied: random 12/32 = 0.375, constant 4/16 = 0.25.
    assert chance_accuracy(g, average="none") == pytest.approx(0.375, abs=1e-15)
    # A metric without a score takes the system out of the pairs: item 1 without system 0
    # (human 2, 2, 3, 4: 6 pairs, 1 tied): random 5/12, constant 1/6; item 2 unchanged
    # (0.25, 0.5).  Averages: random (5/12 + 3/12) / 2 = 1/3, constant (1/6 + 1/2) / 2 = 1/3.
    m = np.zeros_like(g)
    m[0, 0] = N
    assert chance_accuracy(g, m) == pytest.approx(1 / 3, abs=1e-15)


def test_constant_metric_reaches_the_chance_level_when_humans_tie_a_third_or_more():
    # acc_eq of a constant metric is T (every pair a metric tie at eps* = 0).
    g = np.array([[1, 1, 1, 2], [2, 2, 1, 1]], dtype=float)  # tie shares 1/2 and 1/3
    r = tie_calibrated_accuracy(g, np.zeros_like(g))
    assert r.acc_eq == pytest.approx((0.5 + 1 / 3) / 2, abs=1e-15)
    assert chance_accuracy(g) == pytest.approx(r.acc_eq, abs=1e-15)


def test_random_metrics_under_tie_calibration_land_on_the_chance_level():
    # Monte Carlo: i.i.d. normal metric scores (WMT23's Random-sysname idea), each calibrated
    # with eps* as acc_eq is; with many pairs their acc_eq concentrates on max(R, T) and
    # eps* only fits noise above it.  Two regimes: few human ties (R wins), many (T wins).
    # eps* = the largest |dm| ties every pair, so a calibrated metric never falls below T.
    rng = np.random.default_rng(0)
    for levels, t_wins in ((50, False), (2, True)):
        g = rng.integers(0, levels, size=(400, 5)).astype(float)
        chance = chance_accuracy(g)
        got = [tie_calibrated_accuracy(g, rng.normal(size=g.shape)).acc_eq for _ in range(5)]
        assert abs(np.mean(got) - chance) < 0.02 and max(got) <= chance + 0.03, (levels, chance, got)
        if t_wins:
            assert chance == pytest.approx(tie_calibrated_accuracy(g, np.zeros_like(g)).acc_eq, abs=1e-15)
            assert min(got) >= chance - 1e-12


# --------------------------------------------------------------------- real data, official code
# mt-metrics-eval @ 68a481a (stats.Correlation.Pearson(average_by='item', pdp=True),
# KendallVariants(average_by='item', variant=...), KendallWithTiesOpt(..., 'acc23', num_sys,
# 'item', sample_rate=1.0)) run in a scratch venv (numpy 2.4.6, scipy 1.17.1) on the
# sentence_scores.tsv of `gec-meta-run metric=green dataset=gmeg_wiki` and `dataset=seeda`
# (Base), reading the human scores from the benchmark files itself
# (gmeg/test/wiki-segment-scores.csv, rows without ratings -> None; seeda/data/judgments_*.xml,
# -rank per (item, annotator), None for systems not in the item).  Its printed output:
OFFICIAL = {
    ("gmeg_wiki", "score"): {"pdp": 0.35263112663964596, "tau_b": 0.2851206640795153,
                             "tau_c": 0.22106337742980559, "tau_23": 0.43170553935860073,
                             "acc_23": 0.7158527696793009, "acc_eq": 0.7158527696793009, "epsilon": 0.0},
    ("seeda", "edit"): {"tau_b": 0.22051770357668685, "tau_c": 0.20491838619129485, "tau_23": 0.2645848965848966,
                        "acc_23": 0.6322924482924484, "acc_eq": 0.6347922077922075,
                        "epsilon": 0.01754164905430522},
    ("seeda", "sent"): {"tau_b": 0.26150476612345225, "tau_c": 0.23251291471370678, "tau_23": 0.3314874939874938,
                        "acc_23": 0.665743746993747, "acc_eq": 0.6665838143338144,
                        "epsilon": 0.0009169379746708506},
}
# The same script scored 20 random metrics (numpy default_rng(0) normal scores, one per
# (system, item)) with the official KendallWithTiesOpt: SEEDA-E min 0.5206380471380437, mean
# 0.5207526154401132; SEEDA-S min 0.46173003848003497, mean 0.46187060485810394 -- the chance
# level computed here without sampling is their floor:
OFFICIAL_RANDOM_MIN = {("seeda", "edit"): 0.5206380471380437, ("seeda", "sent"): 0.46173003848003497}


@pytest.mark.slow
@pytest.mark.ci
@pytest.mark.parametrize("dataset", ["gmeg_wiki", "seeda"])
def test_official_mt_metrics_eval_on_real_sentence_scores(data_root, dataset):
    from gec_meta.api import load_metric, meta_evaluate
    from gec_meta.data.datasets import load_dataset

    ds = load_dataset(dataset, data_root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCorrelationWarning)
        res = meta_evaluate(ds, load_metric("green"), spa_permutations=0, window=None,
                            kendall_variants=("b", "c", "23", "acc23"))
    assert res.signature.endswith("|kendall:b+c+23+acc23")
    for (name, aspect), expected in OFFICIAL.items():
        if name != dataset:
            continue
        got = res.sentence[aspect]
        for key, value in expected.items():
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-14), (aspect, key)
        assert got["acc_23_random"] == got["acc_eq_random"]
        if (name, aspect) in OFFICIAL_RANDOM_MIN:
            assert got["acc_eq_random"] == pytest.approx(OFFICIAL_RANDOM_MIN[(name, aspect)], abs=1e-12)
        assert ("pdp" in got) == (dataset == "gmeg_wiki")  # PDP only for segment ratings


# --------------------------------------------------------------------- configuration
def test_kendall_variants_option_is_validated_and_signed(data_root):
    from gec_meta.data.datasets import load_dataset
    from gec_meta.errors import ConfigError
    from gec_meta.meta.aggregation import Default
    from gec_meta.meta.task import Task
    from gec_meta.metrics.length import Length

    ds = load_dataset("seeda", data_root)
    with pytest.raises(ConfigError, match=r"meta_eval.kendall_variants: unknown variant\(s\) \['d'\]"):
        Task(ds, Length(), Default(), kendall_variants=("b", "d"))
    with pytest.raises(ConfigError, match="meta_eval.kendall_variants must be a list"):
        Task(ds, Length(), Default(), kendall_variants="b")
    res = Task(ds, Length(), Default(), spa_permutations=0, kendall_variants=("c", "acc23")).run()
    assert res.signature.endswith("|kendall:c+acc23")
    assert {"tau_c", "acc_23", "acc_23_random"} <= set(res.sentence["edit"]) and "tau_b" not in res.sentence["edit"]
    plain = Task(ds, Length(), Default(), spa_permutations=0).run()
    assert "kendall:" not in plain.signature and "acc_23" not in plain.sentence["edit"]
    # every pairwise accuracy has its chance level beside it
    assert set(plain.system["TS_edit"]) >= {"pairwise_accuracy", "pairwise_accuracy_random"}
    assert set(plain.sentence["edit"]) >= {"accuracy", "accuracy_random", "acc_eq", "acc_eq_random"}


def test_cli_kendall_variants_bad_value_is_one_line(tmp_path, data_root):
    import os

    from inprocess import run_main  # gec-meta-run's main() in this process: the run stops at its config check

    proc = run_main(["metric=length", "meta_eval.kendall_variants=[b,x]", f"hydra.run.dir={tmp_path}"],
                    {**os.environ, "GEC_META_DATA": str(data_root)}, tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith("gec-meta: error: ")
    assert "meta_eval.kendall_variants" in proc.stderr and "Traceback" not in proc.stderr


# --------------------------------------------------------------------- leaderboard
@pytest.mark.slow
@pytest.mark.ci
def test_leaderboard_has_pdp_where_defined_and_chance_levels(tmp_path, data_root):
    import csv
    import io

    from gec_meta.api import load_metric, meta_evaluate
    from gec_meta.cli.leaderboard import main
    from gec_meta.data.datasets import load_dataset

    cfg = tmp_path / "board.yaml"
    cfg.write_text(
        "seed: 1\npermutations: 200\naggregations: [default]\n"
        "metrics: {length: {label: Length}, green: {label: GREEN}}\n"
        "statistics: {system: [pearson, pairwise_accuracy], sentence: [acc_eq, pdp]}\n"
        "benchmarks:\n  GMEG-Wiki: {dataset: gmeg_wiki, human: [score], sentence: score}\n"
        "  SEEDA-E Base: {dataset: seeda, overrides: [dataset.setting=base], human: [TS_edit], sentence: edit}\n",
        encoding="utf-8")
    out = tmp_path / "b"
    assert main(["--config", str(cfg), "--out", str(out), "-c", f"data_dir={data_root}"]) == 0
    rows = list(csv.DictReader(io.StringIO((out / "leaderboard.csv").read_text())))
    pdp = {r["metric"]: r for r in rows if r["statistic"] == "pdp"}
    assert set(pdp) == {"length", "green"} and {r["benchmark"] for r in pdp.values()} == {"GMEG-Wiki"}
    md = (out / "leaderboard.md").read_text()
    assert "PDP (score)" in md and "PDP (edit)" not in md and "Chance level" in md
    for name in ("length", "green"):
        for ds_name, aspect, human in (("gmeg_wiki", "score", "score"), ("seeda", "edit", "TS_edit")):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedCorrelationWarning)
                res = meta_evaluate(load_dataset(ds_name, data_root), load_metric(name), spa_permutations=0)
            bench = "GMEG-Wiki" if ds_name == "gmeg_wiki" else "SEEDA-E Base"
            cell = {r["statistic"]: r for r in rows if r["metric"] == name and r["benchmark"] == bench}
            assert float(cell["acc_eq"]["value"]) == res.sentence[aspect]["acc_eq"]
            assert float(cell["acc_eq"]["chance"]) == res.sentence[aspect]["acc_eq_random"]
            assert float(cell["pairwise_accuracy"]["chance"]) == res.system[human]["pairwise_accuracy_random"]
            assert cell["pearson"]["chance"] == ""
            if ds_name == "gmeg_wiki":
                assert float(cell["pdp"]["value"]) == res.sentence[aspect]["pdp"]
