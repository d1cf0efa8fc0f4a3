"""``gec-meta-run`` (and the checkout's ``run.py``): the Hydra edge.  Compose the config, build
the objects, call the pure task.

    gec-meta-run dataset=seeda dataset.setting=base metric=errant aggregation=trueskill
    gec-meta-run -m metric=errant,length aggregation=average,trueskill
    python -m gec_meta.report outputs/multirun/<date>

The configs come from the installed package (``pkg://gec_meta.conf``); add your own config
folders with ``hydra.searchpath=[file://my_conf]``.

Each job writes ``results.json`` (with its signature), ``results.md``, ``sentence_scores.tsv``
(``meta_eval.sentence_scores``), the resolved config and ``inputs.json`` (the sha256 of every file it read, :mod:`gec_meta.cli.resume`) into its Hydra
output folder.  A job whose folder already holds a result for the same config, the same input
files and the same metric identity is not recomputed, so rerunning an interrupted sweep with
the same ``hydra.sweep.dir`` completes it; a changed input, or a corrupt ``results.json``,
reruns the job and the log says why.

Errors a user can fix (bad data, bad config values, unknown options, malformed overrides) print
one line ``gec-meta: error: ...`` naming the file and line or the config key, and exit with
status 2 (:mod:`gec_meta.cli.errors`).
"""

from __future__ import annotations

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
from gec_meta.cli.resume import INPUTS_FILE, inputs_record, stale_reason
from gec_meta.config import CONFIG_MODULE, CONFIG_PATH, group_options, register_configs
from gec_meta.data.io import recording_inputs
from gec_meta.errors import ConfigError
from gec_meta.meta.task import Task, calibrate_epsilon
from gec_meta.report.tables import atomic_write_text, single_run_markdown

log = logging.getLogger("gec_meta")


def limit_threads(n: int) -> None:
    """Cap torch and BLAS/OpenMP threads of this job (parallel sweeps share the cores).

    Process state, so only here at the Hydra edge; the metrics and encoders read their own
    ``threads: ${threads}`` config option (no environment side channel)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=n)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(n)


def build_task(cfg: DictConfig) -> Task:
    """The :class:`Task` of a composed config (dataset, refset, metric, aggregation, meta_eval)."""
    data_dir = Path(cfg.data_dir)
    dataset = instantiate(cfg.dataset, root=data_dir)
    metric = instantiate(cfg.metric)
    references = None
    if metric.needs_references:
        # _partial_: passing the Dataset object through instantiate would turn it into a config.
        references = instantiate(cfg.refset, _partial_=True)(dataset=dataset, root=data_dir)
    top_ks = cfg.meta_eval.top_ks
    aggregation = instantiate(cfg.aggregation)
    epsilon = cfg.meta_eval.get("epsilon")
    dev = cfg.meta_eval.get("epsilon_from")
    if dev is not None:
        if epsilon is not None:
            raise ConfigError("set meta_eval.epsilon or meta_eval.epsilon_from, not both")
        dev_dataset = instantiate(dataset_config(dev), root=data_dir)
        dev_refs = None
        if metric.needs_references:
            dev_refs = instantiate(cfg.refset, _partial_=True)(dataset=dev_dataset, root=data_dir)
        epsilon = calibrate_epsilon(Task(dev_dataset, metric, aggregation, dev_refs, use_cache=cfg.cache,
                                         spa_permutations=0))
        log.info("epsilon calibrated on %s: %s", dev, epsilon)
    return Task(
        dataset, metric, aggregation, references,
        window=cfg.meta_eval.window,
        top_ks=None if top_ks is None else tuple(top_ks),
        sentence_variant=cfg.meta_eval.sentence_variant,
        sentence_level=cfg.meta_eval.sentence_level,
        bootstrap_samples=cfg.meta_eval.get("bootstrap_samples", 0),
        bootstrap_seed=cfg.meta_eval.get("bootstrap_seed", 0),
        epsilon=epsilon,
        spa_permutations=cfg.meta_eval.get("spa_permutations", 0),
        permutation_seed=cfg.meta_eval.get("permutation_seed", 0),
        spa_trueskill=cfg.meta_eval.get("spa_trueskill", "comparisons"),
        use_cache=cfg.cache,
    )


def dataset_config(name: str) -> DictConfig:
    """The shipped config of dataset ``name`` (``conf/dataset/<name>.yaml``), for
    ``meta_eval.epsilon_from``."""
    from importlib.resources import files

    path = files(CONFIG_MODULE).joinpath("dataset", f"{name}.yaml")
    if not path.is_file():
        raise ConfigError(f"meta_eval.epsilon_from: unknown dataset {name!r}; available: {group_options('dataset')}")
    return OmegaConf.create(path.read_text(encoding="utf-8"))


def write_sentence_scores(path: Path, result) -> None:
    """``sentence_scores.tsv``: every system's sentence scores as the meta-evaluation compared
    them (columns ``system``, ``sentence`` (0-based index into the dataset's sentences), ``line``
    (1-based line of the corpus file), ``score``; ``nan`` = no score), so that any statistic can
    be recomputed outside gec-meta."""
    scored = result.scored
    scores = scored.metric.comparable_scores(scored.stats)  # (S, N)
    lines = scored.dataset.corpus_lines
    rows = ["system\tsentence\tline\tscore"]
    for s, system in enumerate(scored.dataset.systems):
        rows.extend(f"{system}\t{n}\t{lines[n] + 1}\t{float(v)!r}" for n, v in enumerate(scores[s]))
    atomic_write_text(path, "\n".join(rows) + "\n")


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
    try:
        return run_job(cfg)
    except Exception as exc:
        _exit_on_user_error(exc)
        raise


def run_job(cfg: DictConfig) -> dict:
    """Run (or resume) the job of a composed config in Hydra's output folder; returns the payload
    of its ``results.json``."""
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    config_yaml = OmegaConf.to_yaml(cfg, resolve=True)
    config_id = text_hash(config_yaml)
    done = out_dir / "results.json"
    if done.exists():
        previous, reason = stale_reason(out_dir, config_id, lambda: instantiate(cfg.metric).signature())
        if reason is None:
            log.info("result already in %s (same config and inputs); skipping", done)
            return previous
        log.warning("recomputing %s: %s", done, reason)
    if cfg.get("threads"):
        limit_threads(int(cfg.threads))
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
    timing["parts"] = {k: round(v, 6) for k, v in (gm_stopwatch.TIMES - times_before).items()}  # bench/bench_gpu.py
    payload = result.to_json(timing=False)
    atomic_write_text(out_dir / "timing.json", json.dumps(timing, indent=1) + "\n")
    atomic_write_text(out_dir / "config.yaml", config_yaml)
    atomic_write_text(out_dir / "results.md", single_run_markdown(payload))
    if cfg.meta_eval.get("sentence_scores", False):
        write_sentence_scores(out_dir / "sentence_scores.tsv", result)
    # Before results.json: a results.json always has the record of the inputs it was computed from.
    atomic_write_text(out_dir / INPUTS_FILE,
                      inputs_record(config_id, instantiate(cfg.metric).signature(), inputs))
    atomic_write_text(done, json.dumps(payload, indent=1, sort_keys=False) + "\n")
    summary = ", ".join(f"{h}: r={c['pearson']:.3f} ρ={c['spearman']:.3f}" for h, c in result.system.items())
    log.info("%s", result.signature)
    if job.references is not None and job.references.provenance:  # e.g. missing_annotator=annotator0 (gjg15 default)
        log.info("refs: %s %s", job.references.name, job.references.provenance)
    log.info("%s/%s %s %s: %s", result.dataset, result.setting, result.metric, result.aggregation, summary)
    return payload


def main() -> None:
    """Console entry ``gec-meta-run``: Hydra parses ``sys.argv`` (overrides, ``-m``, ``--cfg``).

    A user error (:func:`gec_meta.cli.errors.error_line`) prints one line and exits 2.  Hydra
    prints its errors itself over several lines and exits 1 unless ``HYDRA_FULL_ERROR=1``,
    which makes it raise them to us; a user who set it gets Hydra's full traceback.
    """
    global _TRACEBACKS
    register_configs()
    cli_errors.install_warning_format()
    _TRACEBACKS = os.environ.get("HYDRA_FULL_ERROR") == "1"
    os.environ["HYDRA_FULL_ERROR"] = "1"
    try:
        task()
    except Exception as exc:
        _exit_on_user_error(exc)
        raise


if __name__ == "__main__":
    main()
