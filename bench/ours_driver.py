"""One gec-meta meta-evaluation in a fresh process, timed (the counterpart of peer_driver.py).

    python bench/ours_driver.py errant:seeda_base

Prints one JSON line: correlations and stage timings (the peak RSS is measured by the caller,
``common.timed``, which also counts the parse workers).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

t_start = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gec_meta.meta.aggregation import Default  # noqa: E402
from gec_meta.data.datasets import default_root, load_dataset  # noqa: E402
from gec_meta.data.refsets import load_refset  # noqa: E402
from gec_meta.meta.task import Task  # noqa: E402

def env_threads() -> int | None:
    """``GEC_META_THREADS`` as ``gec-meta-run`` reads it (``conf/config.yaml``): a count of
    worker processes for the edit metrics, or None (unset, ``auto``, ``null``: the cores)."""
    from gec_meta.parallel import cap_threads

    value = os.environ.get("GEC_META_THREADS", "").strip()
    return None if value in ("", "null") else cap_threads(value)


def build_metric(name: str):
    """The metric of a bench job, built as a Python user would (the classes behind
    ``conf/metric/*.yaml``; Hydra's compose costs ~0.6 s of a warm run's process).  PT-ERRANT
    composes its encoder/scorer configs through :func:`gec_meta.api.load_metric` (whose config
    reads ``GEC_META_THREADS`` itself); the edit metrics get it here."""
    if name == "errant":
        from gec_meta.metrics.edit.errant import Errant

        return Errant(threads=env_threads())
    if name == "gleu":
        from gec_meta.metrics.ngram.gleu import GLEU

        # gec-metrics' GLEU arithmetic and tokenisation (str.split(" "): an empty sentence has length 1).
        return GLEU(variant="corrected", tokens="space")
    if name == "green":
        from gec_meta.metrics.ngram.green import GREEN

        return GREEN()
    if name == "m2":
        from gec_meta.metrics.edit.m2 import M2

        return M2(threads=env_threads())
    if name == "pt_errant":
        import types

        from gec_meta.api import load_metric
        from gec_meta.metrics.edit.core import EditMetric

        # gec-metrics' PT-ERRANT: BERTScore F with MiniLM layer 6, no idf, no baseline rescaling,
        metric = load_metric("pt_errant", "encoder=minilm")
        # and its corpus-level reference choice, errant_compare's (F, TP, -FP, -FN; gec-meta's
        # PT-ERRANT follows PT-M2's code since 0e1e646, which parts from it where F and TP tie:
        # SEEDA Base's Pearson r by ~3e-5).  Only the corpus rule is swapped (an attribute of
        # this one object): the statistics, their cache keys and the work timed are the same.
        object.__setattr__(metric, "running_best", types.MethodType(EditMetric.running_best, metric))
        return metric
    raise SystemExit(f"unknown metric {name}")


def main(task: str) -> None:
    name, dataset = task.split(":")
    metric = build_metric(name)
    root = default_root()
    # GLEU tokenises with str.split(" ") like gec-metrics: keep the files' spaces as they are.
    opts = {"whitespace": "rstrip"} if name == "gleu" else {}
    if dataset.startswith("seeda"):
        ds = load_dataset("seeda", root, setting=dataset.split("_", 1)[1], **opts)
    else:
        ds = load_dataset(dataset, root, **opts)
    # gec-metrics builds references with annotator 1 missing -> source; M2 semantics for m2.
    refs = load_refset("official", ds, root, "annotator0" if name == "m2" else "source")
    t0 = time.perf_counter()
    # The peer computes Pearson/Spearman (and sentence agreement) only: the same job here, without
    # the issue-18 statistics' permutation tests (SPA), whose own cost RESULTS.md lists apart.
    res = Task(ds, metric, Default(), refs, window=None, spa_permutations=0).run()
    t1 = time.perf_counter()
    print(json.dumps({"system": res.system, "scoring_s": t1 - t0, "process_s": t1 - t_start}))


if __name__ == "__main__":
    main(sys.argv[1])
