"""``gec-meta-run`` (and the checkout's ``run.py``): the Hydra edge.  Compose the config, build
the objects, call the pure task.

    gec-meta-run dataset=seeda dataset.setting=base metric=errant aggregation=trueskill
    gec-meta-run -m metric=errant,length aggregation=average,trueskill
    python -m gec_meta.report outputs/multirun/<date>

The configs come from the installed package (``pkg://gec_meta.conf``); add your own config
folders with ``hydra.searchpath=[file://my_conf]``.

Each job writes ``results.json`` (with its signature), ``results.md``, ``sentence_scores.tsv``
(``meta_eval.sentence_scores``), the resolved config and ``inputs.json`` (the sha256 of every
file it read and wrote) into its Hydra output folder, as one unit (:mod:`gec_meta.cli.resume`).
A job whose folder already holds a result for the same config, the same input
files and the same metric identity is not recomputed, so rerunning an interrupted sweep with
the same ``hydra.sweep.dir`` completes it; a changed input, or a corrupt ``results.json``,
reruns the job and the log says why.

Errors a user can fix (bad data, bad config values, unknown options, malformed overrides) print
one line ``gec-meta: error: ...`` naming the file and line or the config key, and exit with
status 2 (:mod:`gec_meta.cli.errors`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import sys
from collections import Counter
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

import gec_meta.cache as gm_cache
import gec_meta.stopwatch as gm_stopwatch
from gec_meta.cache import text_hash
from gec_meta.cli import errors as cli_errors
from gec_meta.cli.hydra_once import compose_once
from gec_meta.cli.process_end import freeze_heap
from gec_meta.cli.resume import RESULTS_FILE, publish, stale_reason
from gec_meta.config import (CONFIG_MODULE, CONFIG_PATH, auto_threads_as_null, check_choices, check_instance,
                             check_override_options, group_options, instantiate_as, metrics_chosen,
                             register_configs)
from gec_meta.fields import Valid, boolean, check_fields, check_values, integer, one_of, valid
from gec_meta.data.io import recording_inputs
from gec_meta.errors import ConfigError
from gec_meta.meta.task import Task, calibrate_epsilon
from gec_meta.metrics.base import Metric
from gec_meta.parallel import cap_process_threads
from gec_meta.report.tables import single_run_markdown

log = logging.getLogger("gec_meta")


#: The ``meta_eval`` keys that are :class:`Task` fields (checked there); the others are the job's
#: own (:class:`RunKeys`).
TASK_KEYS = ("window", "top_ks", "sentence_variant", "sentence_level", "bootstrap_samples", "bootstrap_seed",
             "epsilon", "spa_permutations", "permutation_seed", "spa_trueskill", "kendall_variants")


@dataclasses.dataclass(frozen=True)
class RunKeys:
    """The root config's own keys (``conf/config.yaml``, where their defaults are written) and
    the ``meta_eval`` keys that are not :class:`Task` fields, with their valid values: checked
    by :func:`check_config` with the Task's fields, before anything is loaded."""

    data_dir: str = dataclasses.field(metadata=valid(Valid(lambda x: isinstance(x, str) and bool(x), "a folder")))
    cache: bool = dataclasses.field(metadata=valid(boolean()))
    threads: int | str | None = dataclasses.field(metadata=valid(Valid(
        lambda x: x == "auto" or integer(1).test(x), "an integer >= 1 or auto"), optional=True))
    sentence_scores: bool = dataclasses.field(metadata=valid(boolean(), key="meta_eval.sentence_scores"))
    epsilon_from: str | None = dataclasses.field(metadata=valid(
        one_of(*group_options("dataset")), optional=True, key="meta_eval.epsilon_from"))


def check_config(cfg: DictConfig) -> dict:
    """Check the type and range of every top-level and ``meta_eval`` key of a composed config
    (one :class:`gec_meta.errors.ConfigError` naming the first bad key) and return the
    :class:`Task` options of ``meta_eval``."""
    meta = OmegaConf.to_container(cfg.meta_eval, resolve=True)
    unknown = [k for k in meta if k not in TASK_KEYS and k not in ("sentence_scores", "epsilon_from")]
    if unknown:
        keys = ", ".join([*TASK_KEYS, "sentence_scores", "epsilon_from"])
        raise ConfigError(f"meta_eval has no key {unknown[0]!r}; keys: {keys}")
    check_fields(RunKeys(cfg.data_dir, cfg.cache, cfg.threads, meta.get("sentence_scores", False),
                         meta.get("epsilon_from")), "")
    options = {k: meta[k] for k in TASK_KEYS if k in meta}
    for k in ("bootstrap_samples", "spa_permutations"):  # configs without them: off
        options.setdefault(k, 0)
    options["kendall_variants"] = _kendall_variants(options.get("kendall_variants"))
    check_values(Task, options, "meta_eval")
    if options.get("epsilon") is not None and meta.get("epsilon_from") is not None:
        raise ConfigError("set meta_eval.epsilon or meta_eval.epsilon_from, not both")
    return options


def build_task(cfg: DictConfig) -> Task:
    """The :class:`Task` of a composed config (dataset, refset, metric, aggregation, meta_eval)."""
    from gec_meta.data.datasets import Dataset
    from gec_meta.data.refsets import References
    from gec_meta.meta.aggregation import Aggregation

    options = check_config(cfg)
    data_dir = Path(cfg.data_dir)
    dataset = instantiate_as(cfg.dataset, Dataset, "dataset", root=data_dir)
    metric = instantiate_as(cfg.metric, Metric, "metric")
    references = None
    if metric.needs_references:
        # _partial_: passing the Dataset object through instantiate would turn it into a config.
        references = check_instance(instantiate(cfg.refset, _partial_=True)(dataset=dataset, root=data_dir),
                                    References, "refset", cfg.refset)
    aggregation = instantiate_as(cfg.aggregation, Aggregation, "aggregation")
    dev = cfg.meta_eval.get("epsilon_from")
    if dev is not None:
        dev_dataset = instantiate_as(dataset_config(dev), Dataset, "meta_eval.epsilon_from", root=data_dir)
        dev_refs = None
        if metric.needs_references:
            dev_refs = check_instance(instantiate(cfg.refset, _partial_=True)(dataset=dev_dataset, root=data_dir),
                                      References, "refset", cfg.refset)
        options["epsilon"] = calibrate_epsilon(Task(dev_dataset, metric, aggregation, dev_refs, use_cache=cfg.cache,
                                                    spa_permutations=0))
        log.info("epsilon calibrated on %s: %s", dev, options["epsilon"])
    return Task(dataset, metric, aggregation, references, **options, use_cache=cfg.cache)


def _kendall_variants(value) -> tuple:
    """``meta_eval.kendall_variants`` as a tuple (a list, a comma-separated string, or null);
    the values are checked by :class:`Task`."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if OmegaConf.is_list(value) or isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value)
    raise ConfigError(f"meta_eval.kendall_variants must be a list such as [b,c,23,acc23], got {value!r}")


def dataset_config(name: str) -> DictConfig:
    """The shipped config of dataset ``name`` (``conf/dataset/<name>.yaml``), for
    ``meta_eval.epsilon_from``: a name of the ``dataset`` group, never a path (a path would
    compose, and instantiate, any YAML)."""
    from importlib.resources import files

    if name not in group_options("dataset"):
        raise ConfigError(f"meta_eval.epsilon_from={name}: unknown dataset {name!r}; "
                          f"available: {', '.join(group_options('dataset'))}")
    return OmegaConf.create(files(CONFIG_MODULE).joinpath("dataset", f"{name}.yaml").read_text(encoding="utf-8"))


def sentence_scores_text(result) -> str:
    """``sentence_scores.tsv``: every system's sentence scores as the meta-evaluation compared
    them (columns ``system``, ``sentence`` (0-based index into the dataset's sentences), ``line``
    (1-based line of the corpus file), ``score`` (``nan`` = no score), ``format_version``;
    :func:`gec_meta.formats.sentence_scores_tsv`), so that any statistic can be recomputed
    outside gec-meta."""
    from gec_meta.formats import sentence_scores_tsv

    scored = result.scored
    scores = scored.metric.comparable_scores(scored.stats)  # (S, N)
    return sentence_scores_tsv(scored.dataset.systems, scores, scored.dataset.corpus_lines)


# Set by main(): the user asked for Hydra's full tracebacks (HYDRA_FULL_ERROR=1).
_TRACEBACKS = False


def _exit_on_user_error(exc: Exception) -> None:
    """Exit 2 after one line for a user error (unless the user asked for tracebacks); return
    for anything else (a bug: the caller re-raises it)."""
    status = None if _TRACEBACKS else cli_errors.report(exc)
    if status is not None:
        raise SystemExit(status) from None


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="config")
def task(cfg: DictConfig) -> dict:
    """One job.  A user error prints one line and exits 2 (SystemExit passes through Hydra's
    job runner, which would otherwise print the overrides and a traceback first)."""
    from gec_meta.data.fetch import data_directory

    data_dir = cfg.get("data_dir")  # checked by run_job (a non-empty string)
    try:
        with data_directory(data_dir if isinstance(data_dir, str) and data_dir else None):
            return run_job(cfg)
    except Exception as exc:
        _exit_on_user_error(exc)
        raise


def run_job(cfg: DictConfig) -> dict:
    """Run (or resume) the job of a composed config in Hydra's output folder; returns the payload
    of its ``results.json``."""
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    # Before anything is instantiated: group options are names, every key has its type and range.
    check_choices(HydraConfig.get().runtime.choices)
    check_config(cfg)
    auto_threads_as_null(cfg)
    config_yaml = OmegaConf.to_yaml(cfg, resolve=True)
    config_id = text_hash(config_yaml)
    done = out_dir / RESULTS_FILE
    if done.exists():
        previous, reason = stale_reason(out_dir, config_id, lambda: instantiate_as(cfg.metric, Metric, "metric").signature())
        if reason is None:
            log.info("result already in %s (same config and inputs); skipping", done)
            return previous
        log.warning("recomputing %s: %s", done, reason)
    if cfg.threads is not None:
        # process state, so only here at the Hydra edge; the metrics and encoders read their own
        # ``threads: ${threads}`` config option (no environment side channel)
        cap_process_threads(cfg.threads)
    # gm_cache.COUNTERS, not a name imported into this module: the joblib launcher pickles
    # this function by value (with copies of the globals it names).
    cache_before = Counter(gm_cache.COUNTERS)
    times_before = Counter(gm_stopwatch.TIMES)
    with recording_inputs() as inputs:
        job = build_task(cfg)
        try:
            result = job.run().replace(config_id=config_id)
        except Exception as exc:
            # metric.dry_run=true (LLM evaluators): plan printed, no result.  Only a run that
            # built an LLM evaluator has imported its module (it is not imported at start-up).
            llm = sys.modules.get("gec_meta.metrics.llm")
            if llm is None or not isinstance(exc, llm.DryRunFinished):
                raise
            log.info("%s", exc)
            return {}
    # Timings vary from run to run: they go to their own file so that results.json of two
    # runs of the same config are byte-identical.
    timing = dict(result.timing)
    timing["cache"] = dict(gm_cache.COUNTERS - cache_before)  # this job's hits/misses (bench/bench_sweep.py)
    timing["parts"] = gm_stopwatch.since(times_before)  # bench/bench_gpu.py
    payload = result.to_json(timing=False)
    files = {
        "timing.json": json.dumps(timing, indent=1) + "\n",
        "config.yaml": config_yaml,
        "results.md": single_run_markdown(payload, timing.get("usage")),
        RESULTS_FILE: json.dumps(payload, indent=1, sort_keys=False) + "\n",
    }
    if cfg.meta_eval.get("sentence_scores", False):
        files["sentence_scores.tsv"] = sentence_scores_text(result)
    # One unit: staged, then renamed into place with results.json last (gec_meta.cli.resume).
    publish(out_dir, files, config_id, instantiate_as(cfg.metric, Metric, "metric").signature(), inputs)
    summary = ", ".join(f"{h}: r={c['pearson']:.3f} ρ={c['spearman']:.3f}" for h, c in result.system.items())
    log.info("%s", result.signature)
    if job.references is not None and job.references.provenance:  # e.g. missing_annotator=annotator0 (gjg15 default)
        log.info("refs: %s %s", job.references.name, job.references.provenance)
    log.info("%s/%s %s %s: %s", result.dataset, result.setting, result.metric, result.aggregation, summary)
    log.info("system scores: %s", ", ".join(f"{s} {v:.4f}" for s, v in result.system_scores.items()))
    return payload


def main() -> None:
    """Console entry ``gec-meta-run``: Hydra parses ``sys.argv`` (overrides, ``-m``, ``--cfg``).

    A user error (:func:`gec_meta.cli.errors.error_line`) prints one line and exits 2.  Hydra
    prints its errors itself over several lines and exits 1 unless ``HYDRA_FULL_ERROR=1``,
    which makes it raise them to us; a user who set it gets Hydra's full traceback.
    """
    global _TRACEBACKS
    chosen = metrics_chosen(sys.argv[1:])  # None: all (an experiment config names its metric)
    register_configs(chosen)
    cli_errors.install_warning_format()
    _TRACEBACKS = os.environ.get("HYDRA_FULL_ERROR") == "1"
    os.environ["HYDRA_FULL_ERROR"] = "1"
    with cli_errors.reliable_ctrl_c():  # a Ctrl-C that falls on an import's callback is not lost
        _main(chosen)


def console_main() -> None:
    """Console entry ``gec-meta-run`` (and the checkout's ``run.py``): :func:`main`, then the
    process's objects frozen for a quick exit (:func:`gec_meta.cli.process_end.freeze_heap`)."""
    main()
    freeze_heap()


def _main(chosen) -> None:
    """:func:`main` after its set-up: the job or sweep, a Ctrl-C's line, a user error's line."""
    try:
        # Group options are names, not paths (hydra/job_logging=../x would be configured before any job runs).
        check_override_options([a for a in sys.argv[1:] if "=" in a and not a.startswith("-")])
        try:
            with compose_once(sys.argv[1:]):
                task()
        except Exception as exc:
            # A config from elsewhere (a plugin's metric YAML on hydra.searchpath) extending
            # a shipped metric's schema that the overrides did not name: register all, again.
            if chosen is None or "schema/metric" not in str(exc):
                raise
            from hydra.core.global_hydra import GlobalHydra

            GlobalHydra.instance().clear()
            register_configs()
            task()
    except KeyboardInterrupt:  # Ctrl-C: one line, exit 130 (Hydra passes it through)
        sweep = any(a in ("-m", "--multirun") for a in sys.argv[1:])
        kept = ("the jobs of the sweep that finished keep their results: the same command with the same "
                "hydra.sweep.dir completes it" if sweep else
                "the job's folder keeps its previous result, if any (a job's files are written together, at its end)")
        raise SystemExit(cli_errors.interrupted("gec-meta-run", kept)) from None
    except Exception as exc:
        _exit_on_user_error(exc)
        raise


if __name__ == "__main__":
    console_main()
