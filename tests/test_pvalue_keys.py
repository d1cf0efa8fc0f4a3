"""The cached p-values (the leaderboard's cluster tests, SPA's metric p-values) are keyed by the
version of the code that computes them (``gec_meta.cache.code.MEASUREMENT_CODE``), not by the
whole ``meta/`` folder: every file whose code runs while a p-value is computed is in its key
(traced here, as ``CodeTrace`` does for the statistics keys in
``tests/test_experiment_configs.py``), and an edit of the leaderboard's configuration, ranking or
rendering code leaves them warm.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from gec_meta.cache import claims, code
from gec_meta.meta import board_pvalues
from gec_meta.meta.board_inputs import BoardTask, HumanSide, MetricScores
from gec_meta.meta.groups import Groups
from gec_meta.metrics.base import STATISTICS_CODE
from package_copy import Moves


class Trace:
    """The package's source files whose functions run inside ``compute_once``'s computation,
    and the roots every ``measurement_code_version`` call of the same time was given."""

    def __init__(self, monkeypatch):
        self.ran: set[Path] = set()
        self.roots: set[str] = set()
        original_version = code.measurement_code_version

        def tracer(frame, event, arg):
            if event == "call":
                path = Path(frame.f_code.co_filename)
                if code.PACKAGE_DIR in path.parents:
                    self.ran.add(path)

        def compute_once(key, compute, **kwargs):
            old = sys.gettrace()
            sys.settrace(tracer)
            threading.settrace(tracer)
            try:
                return compute()
            finally:
                sys.settrace(old)
                threading.settrace(None)

        def measurement_code_version(roots):
            self.roots |= set(roots)
            return original_version(roots)

        monkeypatch.setattr(claims, "compute_once", compute_once)
        monkeypatch.setattr(code, "measurement_code_version", measurement_code_version)

    def unhashed(self, *extra: set[Path]) -> set[str]:
        hashed = set(code.closure_files(self.roots, code.MEASUREMENT_CODE)).union(*extra)
        return {str(p.relative_to(code.PACKAGE_DIR)) for p in self.ran - hashed}


def _side(kind: str) -> tuple[HumanSide, MetricScores, MetricScores]:
    """A benchmark of 5 systems and 12 sentences, its human side (rankings or ratings of every
    sentence) and two metrics' scores."""
    rng = np.random.default_rng(7)
    S, N = 5, 12
    human = rng.normal(size=(N, S))
    if kind == "ranking":
        human[rng.random((N, S)) < 0.2] = np.nan  # systems a judge did not rank
    groups = Groups(human, np.arange(N), kind)
    system = {"h": rng.normal(size=S)}
    pvalues = {"h": np.triu(rng.uniform(size=(S, S)), 1)}

    def metric(shift: float) -> MetricScores:
        sentence = rng.normal(size=(S, N)) + shift
        return MetricScores({"default": sentence.mean(axis=1)}, {"default": np.triu(rng.uniform(size=(S, S)), 1)},
                            sentence, resolution=1e-9)

    return HumanSide(system, pvalues, groups), metric(0.0), metric(0.3)


@pytest.mark.parametrize("level,target,statistic,groups", [
    ("system", "h", "pearson", "ranking"), ("system", "h", "spearman", "ranking"),
    ("system", "h", "pairwise_accuracy", "ranking"), ("system", "h", "spa", "ranking"),
    ("sentence", "edit", "acc_eq", "ranking"), ("sentence", "score", "pdp", "rating"),
])
def test_a_cluster_pvalue_key_hashes_every_file_its_test_runs(monkeypatch, tmp_path, level, target, statistic, groups):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    trace = Trace(monkeypatch)
    human, a, b = _side(groups)
    task = BoardTask("bench", target, level, statistic)
    eps = 0.1 if statistic == "acc_eq" else None
    p = board_pvalues.cached_pvalue(task, "default", a, b, human, eps, eps, 100, [1, 2, 3, 4], True)
    assert 0.0 < p <= 1.0
    assert any(path.name == "clusters.py" for path in trace.ran)  # the permutation test ran, traced
    assert trace.unhashed() == set(), "code ran that the p-value's cache key does not hash"


@pytest.mark.parametrize("aggregation,options", [
    ("default", {}), ("average", {}), ("expected_wins", {}), ("trueskill", {"seed": 3}),
])
def test_an_spa_pvalue_key_hashes_every_file_its_permutations_run(monkeypatch, tmp_path, aggregation, options):
    """SPA's metric p-values rescore permuted statistics with the metric's and the aggregation's
    code (TrueSkill replays its games, ``spa_trueskill=rerun``): the key holds both."""
    from gec_meta.meta.aggregation import load_aggregation
    from gec_meta.meta.task import Scored
    from gec_meta.meta.wmt_stats import metric_pvalues
    from gec_meta.metrics.length import Length

    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    trace = Trace(monkeypatch)
    rng = np.random.default_rng(0)
    stats = rng.uniform(1, 50, size=(4, 10, 1, 1))
    metric, agg = Length(), load_aggregation(aggregation, **options)
    scored = Scored(None, metric, stats, agg, agg(metric, stats))
    signs = np.where(rng.random((20, 10)) < 0.5, -1.0, 1.0)
    p = metric_pvalues(scored, signs, trueskill="rerun")
    assert np.isfinite(p[np.triu_indices(4, 1)]).all()
    assert any(path.name == "spa.py" for path in trace.ran)
    metric_code = set(code.closure_files(code.object_modules(metric), STATISTICS_CODE))
    assert trace.unhashed(metric_code) == set(), "code ran that the p-values' cache key does not hash"


def test_an_edit_of_the_board_or_its_reports_leaves_the_pvalues_warm(package):
    """Before, both keys held the whole ``meta/`` folder: any edit there (a rendering change of
    the board included) made every cached p-value cold, the costliest part of a leaderboard."""
    from gec_meta.meta.aggregation import load_aggregation
    from gec_meta.meta.wmt_stats import spa_code_version

    human = HumanSide({}, {}, Groups(np.zeros((1, 2)), np.zeros(1, dtype=np.int64)))
    average, trueskill = load_aggregation("average"), load_aggregation("trueskill")
    moves = Moves(package, lambda: {"cluster": board_pvalues.pvalue_code_version(human),
                                    "spa average": spa_code_version(average),
                                    "spa trueskill": spa_code_version(trueskill)})
    for unrelated in [("meta", "board.py"), ("meta", "wmt_stats.py"), ("meta", "signature.py"),
                      ("meta", "global_rank.py"), ("meta", "robustness.py"), ("meta", "task.py"),
                      ("report", "leaderboard.py"), ("report", "html.py"), ("cli", "leaderboard.py")]:
        assert moves(*unrelated) == set(), unrelated
    assert moves("meta", "clusters.py") == {"cluster"}
    assert moves("meta", "board_pvalues.py") == {"cluster"}
    assert moves("meta", "groups.py") == {"cluster"}
    assert moves("meta", "spa.py") == {"spa average", "spa trueskill"}
    # every aggregation's class is in aggregation.py, which imports TrueSkill's games
    assert moves("meta", "trueskill.py") == {"spa average", "spa trueskill"}
    assert moves("meta", "aggregation.py") == {"spa average", "spa trueskill"}
    assert moves("meta", "correlation.py") == {"cluster", "spa average", "spa trueskill"}
