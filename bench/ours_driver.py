"""One gec-meta meta-evaluation in a fresh process, timed (the counterpart of peer_driver.py).

    python bench/ours_driver.py errant:seeda_base

Prints one JSON line: correlations, stage timings and the peak RSS of this process.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

t_start = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gec_meta.aggregation import Default  # noqa: E402
from gec_meta.data.datasets import default_root, load_dataset  # noqa: E402
from gec_meta.data.refsets import load_refset  # noqa: E402
from gec_meta.evaluate import evaluate  # noqa: E402

METRICS = {  # bench name -> (conf/metric config, Hydra overrides)
    "errant": ("errant", ()),
    # gec-metrics' GLEU arithmetic, and its length of an empty sentence (1, len("".split(" "))).
    "gleu": ("gleu_corrected", ("metric.empty_length=1",)),
    "green": ("green", ()),
    "m2": ("m2", ()),
    # gec-metrics' PT-ERRANT: BERTScore F with MiniLM layer 6, no idf, no baseline rescaling.
    "pt_errant": ("pt_errant", ("encoder=minilm",)),
}


def main(task: str) -> None:
    name, dataset = task.split(":")
    from gec_meta.api import load_metric

    config, overrides = METRICS[name]
    metric = load_metric(config, *overrides)
    root = default_root()
    if dataset.startswith("seeda"):
        ds = load_dataset("seeda", root, setting=dataset.split("_", 1)[1])
    else:
        ds = load_dataset(dataset, root)
    # gec-metrics builds references with annotator 1 missing -> source; M2 semantics for m2.
    refs = load_refset("official", ds, root, "annotator0" if name == "m2" else "source")
    t0 = time.perf_counter()
    res = evaluate(ds, metric, Default(), refs, window=None)
    t1 = time.perf_counter()
    print(json.dumps({"system": res["system"], "scoring_s": t1 - t0, "process_s": t1 - t_start,
                      "self_peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main(sys.argv[1])
