"""Issue 18 wired into runs: the WMT statistics in every result (acc_eq / tau_eq / ε per
judgment aspect, pairwise accuracy and SPA per human score), GMEG-Wiki's segment ratings as
judgments, ``sentence_scores.tsv``, ε calibrated on another dataset, and the leaderboard.

The statistics themselves are checked against mt-metrics-eval in test_ties / test_spa /
test_clusters / test_global_rank; here every value is recomputed independently from the data
files or by hand."""

from __future__ import annotations

import csv
import io
import itertools

import numpy as np
import pytest

from gec_meta.data.datasets import load_gmeg_wiki, load_seeda
from gec_meta.data.judgments import rank_matrix
from gec_meta.meta.aggregation import Average, Default
from gec_meta.meta.task import Task, calibrate_epsilon
from gec_meta.meta.ties import tie_calibrated_accuracy
from gec_meta.meta.wmt_stats import aspect_of, sentence_groups
from gec_meta.metrics.length import Length


@pytest.fixture(scope="module")
def seeda(data_root):
    return load_seeda(data_root, "base")


def test_gmeg_segment_ratings_average_to_the_published_system_scores(data_root):
    ds = load_gmeg_wiki(data_root)
    seg = ds.segment_scores["score"]  # (S, N)
    assert seg.shape == (8, 992)
    unrated = np.isnan(seg).all(axis=0)
    assert unrated.sum() == 12  # the 12 empty rows of wiki-segment-scores.csv
    # wiki-corpus-scores.csv, read here with the csv module: the mean rating of each system
    with open(data_root / "gmeg" / "test" / "wiki-corpus-scores.csv", encoding="utf-8") as fh:
        published = {r["system"]: float(r["score"]) for r in csv.DictReader(fh)}
    for s, name in enumerate(ds.systems):
        assert np.nanmean(seg[s]) == pytest.approx(published[name], abs=1e-9)
    # the segment ratings travel with select()
    sub = ds.select(["nus", "amu"])
    np.testing.assert_array_equal(sub.segment_scores["score"], seg[[ds.systems.index("nus"), ds.systems.index("amu")]])


def test_aspects_of_human_scores(seeda, data_root):
    assert aspect_of(seeda, "TS_edit") == "edit" and aspect_of(seeda, "EW_sent") == "sent"
    gmeg = load_gmeg_wiki(data_root)
    assert aspect_of(gmeg, "score") == "score"
    assert sentence_groups(gmeg)["score"].kind == "rating"


def test_result_has_the_wmt_statistics_and_they_recompute(seeda):
    """Length (a sentence score = the hypothesis' character length; the system score = their
    sum) on SEEDA Base: every new field recomputed from the judgments by hand-level code."""
    res = Task(seeda, Length(), Average(), spa_permutations=200, permutation_seed=5).run()
    scores = np.array([[len(h) for h in hyp] for hyp in seeda.hypotheses], dtype=float)  # (S, N)
    means = scores.mean(axis=1)
    for human, values in seeda.human.items():
        # pairwise accuracy: the share of system pairs ordered alike (no ties in these values)
        pairs = list(itertools.combinations(range(len(means)), 2))
        agree = sum((means[i] - means[j]) * (values[i] - values[j]) > 0 for i, j in pairs)
        assert res.system[human]["pairwise_accuracy"] == pytest.approx(agree / len(pairs), abs=1e-12)
    # SPA from its definition: sign vectors drawn as pce.py draws them, one-sided p-values of the
    # summed differences, the human side from the rank differences of the judged pairs
    rng = np.random.default_rng(5)
    signs = 2 * np.rint(rng.random(size=(200, seeda.num_sentences), dtype=np.float32)).astype(float) - 1
    S = len(seeda.systems)
    for aspect in ("edit", "sent"):
        items = seeda.judgments[aspect]
        ranks = rank_matrix(items, seeda.systems)
        d_h = np.zeros((seeda.num_sentences, S, S))
        for k, it in enumerate(items):
            r = ranks[k]
            for i, j in itertools.combinations(range(S), 2):
                if not (np.isnan(r[i]) or np.isnan(r[j])):
                    d_h[it.line, i, j] += np.sign(r[j] - r[i])
        total = 0.0
        for i, j in itertools.combinations(range(S), 2):
            dm = scores[i] - scores[j]
            pm = np.mean(signs @ dm >= dm.sum() - 1e-9)
            ph = np.mean(signs @ d_h[:, i, j] >= d_h[:, i, j].sum())
            total += 1 - abs(ph - pm)
        spa = total / (S * (S - 1) / 2)
        assert res.system[f"TS_{aspect}"]["spa"] == pytest.approx(spa, abs=1e-12)
        assert res.system[f"EW_{aspect}"]["spa"] == res.system[f"TS_{aspect}"]["spa"]  # same judgments
        # acc_eq at its ε*, recomputed with the pure function on the judged items
        h = -ranks
        m = scores[:, [it.line for it in items]].T
        ref = tie_calibrated_accuracy(h, m)
        assert res.sentence[aspect]["acc_eq"] == ref.acc_eq and res.sentence[aspect]["epsilon"] == ref.epsilon
    assert res.signature.endswith("|perm:200(seed=5)")


def test_acc_eq_with_a_tie_tolerance_ignores_noise_below_it():
    # Two groups of three systems; the metric's differences are 0.125 up to float32-like noise.
    # Humans: A > B = C in both groups.  Metric: A - B = 0.125 (+noise), B - C = 0.125 (+noise),
    # A - C = 0.25.  With ε* covering the 0.125 differences, B/C is a correctly predicted tie.
    human = np.array([[2.0, 1.0, 1.0], [2.0, 1.0, 1.0]])
    clean = np.array([[0.5, 0.375, 0.25], [0.5, 0.375, 0.25]])
    noisy = clean + np.array([[2e-7, -1e-7, 0.0], [-3e-7, 1e-7, 2e-7]])
    a = tie_calibrated_accuracy(human, clean, resolution=1e-5)
    b = tie_calibrated_accuracy(human, noisy, resolution=1e-5)
    assert (a.acc_eq, a.tau_eq, a.epsilon) == (b.acc_eq, b.tau_eq, b.epsilon)
    # by hand: at ε = 0.125 each group has A>B tied by the metric only (T_m), B=C tied by both
    # (T_hm) and A>C concordant: acc_eq = (1 + 1) / 3; at ε = 0 it is 2/3 as well (C: A>B, A>C;
    # B=C a human-only tie), so the smallest maximiser, 0, is ε*.
    assert a.acc_eq == pytest.approx(2 / 3) and a.epsilon == 0.0


def test_epsilon_from_a_dev_set_is_used_fixed(seeda, data_root):
    from gec_meta.data.datasets import load_gjg15

    dev = load_gjg15(data_root)
    eps = calibrate_epsilon(Task(dev, Length(), Default(), spa_permutations=0))
    groups = sentence_groups(dev)["ranking"]
    scores = np.array([[len(h) for h in hyp] for hyp in dev.hypotheses], dtype=float)
    assert eps["ranking"] == eps["*"] == tie_calibrated_accuracy(groups.human, groups.metric(scores)).epsilon
    res = Task(seeda, Length(), Default(), spa_permutations=0, epsilon=eps).run()
    assert "|eps:" in res.signature
    for aspect, out in res.sentence.items():
        assert out["epsilon"] == eps["*"]


def test_run_writes_sentence_scores_tsv(tmp_path, data_root):
    import subprocess
    import sys

    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "gec_meta.cli.run", "dataset=seeda", "metric=length",
                           f"data_dir={data_root}", f"hydra.run.dir={out}", "meta_eval.spa_permutations=100"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO((out / "sentence_scores.tsv").read_text()), delimiter="\t"))
    ds = load_seeda(data_root, "base")
    assert len(rows) == ds.num_systems * ds.num_sentences
    for row in rows[:: 97]:
        s, n = ds.systems.index(row["system"]), int(row["sentence"])
        assert float(row["score"]) == len(ds.hypotheses[s][n])  # Length's sentence score
        assert int(row["line"]) == ds.corpus_lines[n] + 1


def test_leaderboard_is_seeded_and_consistent(tmp_path, data_root):
    """A small board twice: the same bytes; every cell's value equals the run's own result, and
    cluster 1 holds the best value of each column."""
    import json

    from gec_meta.cli.leaderboard import main

    cfg = tmp_path / "board.yaml"
    # GLEU with 50 sampling iterations (not 500): a third metric for the clusters at a tenth of
    # its SPA's cost (its swapped-pair scores: tests/test_gleu.py)
    cfg.write_text(
        "seed: 3\npermutations: 200\naggregations: [default, trueskill]\n"
        "metrics: {length: {label: Length}, green: {label: GREEN},\n"
        "          gleu: {label: GLEU, overrides: [metric.iterations=50]}}\n"
        "benchmarks:\n  SEEDA-E Base: {dataset: seeda, overrides: [dataset.setting=base], human: [TS_edit], sentence: edit}\n",
        encoding="utf-8")
    outs = []
    for k in range(2):
        out = tmp_path / f"b{k}"
        assert main(["--config", str(cfg), "--out", str(out), "-c", f"data_dir={data_root}"]) == 0
        outs.append({f: (out / f).read_bytes() for f in ("leaderboard.md", "leaderboard.tex", "leaderboard.csv",
                                                          "leaderboard.png")})
    assert outs[0] == outs[1]
    rows = list(csv.DictReader(io.StringIO(outs[0]["leaderboard.csv"].decode())))
    ds = load_seeda(data_root, "base")
    from gec_meta.api import load_metric, meta_evaluate

    for name in ("length", "green"):
        for agg in ("default", "trueskill"):
            res = meta_evaluate(ds, load_metric(name), agg, spa_permutations=0)
            got = {r["statistic"]: float(r["value"]) for r in rows
                   if r["metric"] == name and r["aggregation"] == agg and r["level"] == "system"}
            assert got["pearson"] == pytest.approx(res.system["TS_edit"]["pearson"], abs=1e-12)
            assert got["spearman"] == pytest.approx(res.system["TS_edit"]["spearman"], abs=1e-12)
    for (agg, stat), group in itertools.groupby(sorted(rows, key=lambda r: (r["aggregation"], r["statistic"])),
                                                key=lambda r: (r["aggregation"], r["statistic"])):
        group = list(group)
        best = max(float(r["value"]) for r in group)
        assert all(r["cluster"] == "1" for r in group if float(r["value"]) == best)
        assert {int(r["cluster"]) for r in group} == set(range(1, max(int(r["cluster"]) for r in group) + 1))
    json.dumps(rows)


@pytest.mark.parametrize("options,message", [
    ({"epsilon": -1.0}, "meta_eval.epsilon must be a number >= 0"),
    ({"epsilon": {"edit": float("nan")}}, "meta_eval.epsilon must be a number >= 0"),
    ({"spa_permutations": 50}, "meta_eval.spa_permutations"),
    ({"spa_trueskill": "games"}, "meta_eval.spa_trueskill must be one of"),
])
def test_bad_settings_name_their_key(seeda, options, message):
    from gec_meta.errors import ConfigError

    with pytest.raises(ConfigError, match=message):
        Task(seeda, Length(), Default(), **options)


def test_leaderboard_config_errors_name_the_key():
    from gec_meta.cli.leaderboard import _subset
    from gec_meta.errors import ConfigError
    from gec_meta.meta.board import BoardConfig, load_board_config

    cfg = load_board_config()
    with pytest.raises(ConfigError, match="unknown metric"):
        _subset(cfg, "m2,nosuch", None)
    with pytest.raises(ConfigError, match="unknown benchmark"):
        _subset(cfg, None, "GJG15,Nope")
    with pytest.raises(ConfigError, match="statistics.system: unknown"):
        BoardConfig.from_mapping({"statistics": {"system": ["kendall"]}})
    with pytest.raises(ConfigError, match="weights for unknown task"):
        BoardConfig.from_mapping({"benchmarks": {"B": {"dataset": "seeda", "human": ["TS_edit"]}},
                                  "weights": {"B/TS_edit/nope": 2}}).tasks()
    assert _subset(cfg, "m2,errant", "GJG15").tasks()[0].name == "GJG15/EW/pearson"
