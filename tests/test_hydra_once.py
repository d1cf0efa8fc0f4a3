"""gec-meta-run composes each config once (gec_meta/cli/hydra_once.py): Hydra's ``get_mode`` is
skipped only where it could only have answered ``None``, and a sweep's jobs run the configs
composed to validate the sweep, with the same results and folders."""

from __future__ import annotations

import json
import os

import pytest
from omegaconf import OmegaConf

from gec_meta.cli.hydra_once import compose_once, mode_is_default
from gec_meta.config import config_root
from inprocess import run_main


def _same(a, b) -> bool:
    """Equal configs, interpolations unresolved: ``==`` resolves them, and Hydra's
    ``${now:...}`` directories then differ when the two resolutions fall in different seconds."""
    return OmegaConf.to_container(a, resolve=False) == OmegaConf.to_container(b, resolve=False)


@pytest.mark.parametrize("args,default", [
    (["metric=errant", "dataset=gjg15", "hydra.run.dir=out"], True),
    (["-m", "metric=errant,gleu", "hydra.sweep.dir=out", "hydra/launcher=basic"], True),
    (["--multirun", "+refset.missing_annotator=source", "~meta_eval.window"], True),
    (["hydra.mode=MULTIRUN", "metric=errant"], False),
    (["+hydra.mode=RUN"], False),
    (["hydra.searchpath=[file:///my/conf]", "metric=mine"], False),
    (["+experiment=uot_ablations"], False),
    (["experiment=uot_ablations"], False),
    (["--config-dir", "/my/conf"], False),
    (["--config-dir=/my/conf"], False),
    (["-cn", "leaderboard"], False),
    (["--config-name=leaderboard"], False),
])
def test_the_shortcut_is_taken_only_for_the_shipped_configs_and_plain_overrides(args, default):
    assert mode_is_default(args) is default


def test_no_shipped_config_sets_hydra_mode():
    """Every YAML the package ships, read as Hydra would place it: a config in a group sits under
    the group's key unless its header moves it (``@package _global_`` / ``@package hydra``)."""
    root = config_root()
    files = sorted(root.rglob("*.yaml"))
    assert len(files) > 50
    for path in files:
        text = path.read_text(encoding="utf-8")
        node = OmegaConf.load(path)
        header = next((line.split("@package", 1)[1].strip() for line in text.splitlines()
                       if line.startswith("#") and "@package" in line), None)
        primary = path.parent == root
        if header == "_global_" or primary:
            hydra = node.get("hydra") if OmegaConf.is_dict(node) else None
            assert hydra is None or "mode" not in hydra, path
        elif header is not None and header.split(".")[0] == "hydra":
            assert "mode" not in node, path


def test_skipped_get_mode_is_hydras_answer_for_a_shipped_composition():
    """Hydra's own get_mode on the shipped configs (a metric, a dataset, an aggregation, and the
    primary config alone) answers None: what the shortcut answers."""
    from hydra import initialize_config_module
    from hydra._internal.hydra import Hydra
    from hydra.core.global_hydra import GlobalHydra

    from gec_meta.config import CONFIG_MODULE, register_configs

    register_configs()
    with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
        hydra = Hydra(task_name="t", config_loader=GlobalHydra.instance().config_loader())
        for overrides in ([], ["metric=uot_errant", "dataset=gmeg_wiki", "aggregation=trueskill"]):
            assert mode_is_default(overrides)
            assert hydra.get_mode(config_name="config", overrides=overrides) is None
            with compose_once(overrides):
                assert Hydra.get_mode(hydra, "config", overrides) is None
        with compose_once(["hydra.mode=MULTIRUN"]):  # Hydra's own answer where a config or value may set it
            assert Hydra.get_mode(hydra, "config", ["hydra.mode=MULTIRUN"]).name == "MULTIRUN"
        assert Hydra.get_mode(hydra, "config", []) is None  # Hydra's own method again after the block


def test_a_sweep_composes_each_job_once_and_numbers_copies(monkeypatch):
    """Within the block the loader composes a (master config, overrides) once; every caller
    gets its own deep copy, equal to a fresh composition."""
    from hydra import initialize_config_module
    from hydra._internal.config_loader_impl import ConfigLoaderImpl
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode
    from omegaconf import open_dict

    from gec_meta.config import CONFIG_MODULE, register_configs

    register_configs()
    calls = []
    real = ConfigLoaderImpl.load_configuration
    monkeypatch.setattr(ConfigLoaderImpl, "load_configuration",
                        lambda self, *a, **k: calls.append(k.get("overrides")) or real(self, *a, **k))
    with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
        loader = GlobalHydra.instance().config_loader()
        master = loader.load_configuration("config", ["metric=length"], run_mode=RunMode.MULTIRUN)
        fresh = loader.load_sweep_config(master, ["aggregation=trueskill"])
        calls.clear()
        with compose_once(["-m", "aggregation=default,trueskill"]):
            first = loader.load_sweep_config(master, ["aggregation=trueskill"])   # the sweeper's check
            second = loader.load_sweep_config(master, ["aggregation=trueskill"])  # the launcher's run
            other = loader.load_sweep_config(master, ["aggregation=default"])
        assert len(calls) == 2  # trueskill once, default once
        assert _same(first, second) and _same(second, fresh) and first is not second
        assert other.aggregation != first.aggregation
        with open_dict(second):
            second.hydra.job.id = 1  # what the launcher does to its copy
        assert OmegaConf.is_missing(first.hydra.job, "id") and _same(first, fresh)  # the kept one is untouched
        loader.load_sweep_config(master, ["aggregation=trueskill"])
        assert len(calls) == 3  # after the block: Hydra's own method, composing again


def test_a_sweep_in_the_default_folder_runs_each_job_in_it(data_root, tmp_path):
    """Jobs run from the copies land in the sweep's own (timestamped) folder, one subfolder each
    (``hydra.sweep.subdir``: the job's overrides), numbered 0 and 1 in their Hydra configs."""
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / "cache")}
    proc = run_main(["-m", "metric=length", "dataset=seeda", "aggregation=default,average",
                     "meta_eval.spa_permutations=0"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = sorted((tmp_path / "outputs" / "multirun").glob("*/*/results.json"))
    assert len(results) == 2 and results[0].parent.parent == results[1].parent.parent
    by_aggregation = {json.loads(p.read_text())["aggregation"]: p.parent for p in results}
    for aggregation, job_id in (("default", 0), ("average", 1)):
        folder = by_aggregation[aggregation]
        assert folder.name.startswith(f"aggregation={aggregation},")
        assert str(OmegaConf.load(folder / ".hydra" / "hydra.yaml").hydra.job.id) == str(job_id)


def test_hydra_mode_multirun_without_dash_m_still_sweeps(data_root, tmp_path):
    """``hydra.mode=MULTIRUN`` keeps Hydra's own get_mode: two jobs from a comma list, no ``-m``."""
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / "cache")}
    sweep = tmp_path / "sweep"
    proc = run_main(["hydra.mode=MULTIRUN", "metric=length", "dataset=seeda", "aggregation=default,average",
                     "meta_eval.spa_permutations=0", f"hydra.sweep.dir={sweep}"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    aggregations = sorted(json.loads(p.read_text())["aggregation"] for p in sweep.rglob("results.json"))
    assert aggregations == ["average", "default"]


def test_parsed_yaml_once_parses_a_text_once_and_hands_out_copies(tmp_path):
    import io

    from gec_meta.config import parsed_yaml_once

    original = OmegaConf.load
    path = tmp_path / "a.yaml"
    path.write_text("a: 1\nb: [x, y]\n", encoding="utf-8")
    with parsed_yaml_once():
        with parsed_yaml_once():  # nested: the inner block leaves the memo installed
            first = OmegaConf.load(io.StringIO(path.read_text()))
        assert OmegaConf.load is not original
        second = OmegaConf.load(io.StringIO(path.read_text()))
        assert first == second == OmegaConf.create({"a": 1, "b": ["x", "y"]}) and first is not second
        first.a = 2  # a caller's change reaches no other caller
        assert OmegaConf.load(io.StringIO(path.read_text())).a == 1
        path.write_text("a: 3\n", encoding="utf-8")  # another text: parsed again
        assert OmegaConf.load(io.StringIO(path.read_text())) == OmegaConf.create({"a": 3})
        assert OmegaConf.load(path) == OmegaConf.create({"a": 3})  # a path: OmegaConf's own reading
        assert OmegaConf.load(io.BytesIO(b"c: 4\n")).c == 4  # a byte stream (zipped package)
    assert OmegaConf.load is original


def test_a_composition_with_parsed_yaml_once_is_hydras():
    from hydra import compose, initialize_config_module

    from gec_meta.config import CONFIG_MODULE, parsed_yaml_once, register_configs

    register_configs()
    overrides = ["metric=uot_errant", "dataset=gmeg_wiki", "aggregation=trueskill", "encoder=minilm"]
    with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
        plain = compose("config", overrides=overrides, return_hydra_config=True)
        with parsed_yaml_once():
            once = [compose("config", overrides=overrides, return_hydra_config=True) for _ in range(2)]
    assert _same(once[0], plain) and _same(once[1], plain)
    assert OmegaConf.to_yaml(once[1], resolve=False) == OmegaConf.to_yaml(plain, resolve=False)


def test_a_run_that_stops_on_an_error_puts_hydra_and_omegaconf_back(data_root, tmp_path):
    from hydra._internal.config_loader_impl import ConfigLoaderImpl
    from hydra._internal.hydra import Hydra

    before = (Hydra.get_mode, ConfigLoaderImpl.load_sweep_config, OmegaConf.load)
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / "cache")}
    proc = run_main(["metric=length", "meta_eval.window=-3", f"hydra.run.dir={tmp_path / 'run'}"], env, tmp_path)
    assert proc.returncode == 2 and "gec-meta: error:" in proc.stderr
    assert (Hydra.get_mode, ConfigLoaderImpl.load_sweep_config, OmegaConf.load) == before


def test_shared_config_store_copies_no_schema_and_composes_the_same_config():
    """Within ``shared_config_store`` Hydra's per-composition copy of its repository keeps the one
    ConfigStore (no deep copy of every registered schema); the compositions are Hydra's own, and
    a schema registered later is still found (the copy reads the live store); the patch is gone
    after the block, also after nested blocks."""
    import copy
    from dataclasses import dataclass

    from hydra import compose, initialize_config_module
    from hydra.core.config_store import ConfigStore
    from hydra.core.global_hydra import GlobalHydra

    from gec_meta.config import CONFIG_MODULE, _structured_config_source, register_configs, shared_config_store

    StructuredConfigSource = _structured_config_source()  # the class Hydra's compositions use

    register_configs()
    overrides = ["metric=pt_errant", "dataset=gjg15", "aggregation=expected_wins"]
    with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
        plain = compose("config", overrides=overrides, return_hydra_config=True)
        source = GlobalHydra.instance().config_loader().repository.get_schema_source()
        assert copy.deepcopy(source).store is not ConfigStore.instance()  # Hydra 1.3: a copy of the store
        with shared_config_store(), shared_config_store():
            twin = copy.deepcopy(source)
            assert twin is not source and twin.store is ConfigStore.instance()
            assert (twin.provider, twin.path) == (source.provider, source.path)
            shared = compose("config", overrides=overrides, return_hydra_config=True)

            @dataclass
            class Late:
                x: int = 7

            ConfigStore.instance().store(group="late_test_group", name="late", node=Late)
            try:
                late = compose("config", overrides=[*overrides, "+late_test_group=late"])
            finally:
                ConfigStore.instance().repo.pop("late_test_group")
        assert "__deepcopy__" not in vars(StructuredConfigSource)
    assert OmegaConf.to_yaml(shared, resolve=False) == OmegaConf.to_yaml(plain, resolve=False)
    assert late.late_test_group.x == 7


# A fresh interpreter: the block opens before Hydra's plugin scan (as in run.py and in a test
# process), which defines the structured-config source class anew (gec_meta/config.py::
# _structured_config_source). Every deep copy of the ConfigStore is counted.
_FRESH_BLOCK = """
import copy
from hydra.core.config_store import ConfigStore
copies = []
def counted(self, memo):
    copies.append(1)
    twin = copy.copy(self)
    twin.repo = copy.deepcopy(self.repo, memo)
    return twin
ConfigStore.__deepcopy__ = counted
from gec_meta.config import compose, parsed_yaml_once
with parsed_yaml_once():
    compose(("metric=length",))
    compose(("metric=gleu", "dataset=gjg15"))
after = compose(("metric=length", "dataset=gjg15"))
print(len(copies), after.metric._target_)
"""


def test_a_block_opened_before_hydras_plugin_scan_still_shares_the_store():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _FRESH_BLOCK], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    inside, target = proc.stdout.split()
    # compose() opens a block of its own for the third composition: no copy either; the
    # function of the composed config is the metric's
    assert inside == "0" and target.endswith("Length"), proc.stdout


def test_shared_config_store_keeps_a_copy_rule_of_hydras_own(monkeypatch):
    """A Hydra whose structured-config source defines its own ``__deepcopy__`` keeps it: the
    block changes nothing."""
    from gec_meta.config import _structured_config_source, shared_config_store

    StructuredConfigSource = _structured_config_source()  # the class Hydra's compositions use

    def own(self, memo):
        return self

    monkeypatch.setattr(StructuredConfigSource, "__deepcopy__", own, raising=False)
    with shared_config_store():
        assert vars(StructuredConfigSource)["__deepcopy__"] is own
    assert vars(StructuredConfigSource)["__deepcopy__"] is own
