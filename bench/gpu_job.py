"""One gec-meta job as ``bench/bench_gpu.py`` times it: ``gec-meta-run`` itself, in this process.

    python bench/gpu_job.py [--limit N] OUT.json -- dataset=gjg15 metric=sent_pt_m2 ...

Runs :func:`gec_meta.cli.run.main` with the overrides (exactly what the ``gec-meta-run`` console
script does), then writes OUT.json: seconds to import gec-meta's CLI, the job's ``timing.json``
(statistics, aggregation and meta-evaluation seconds, the parts of :mod:`gec_meta.stopwatch`),
the encoder's forward-pass mode, the system scores and correlations (``results.json``).

``--limit N`` keeps the first N sentences of the dataset (a quick run of the benchmark): the
dataset loaders are wrapped here, before Hydra instantiates them.
"""

from __future__ import annotations

import time

START = time.perf_counter()

import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402


def first_sentences(dataset, n: int):
    """The dataset restricted to its first ``n`` sentences (judgments of other sentences dropped)."""
    import dataclasses
    from types import MappingProxyType

    if n >= dataset.num_sentences:
        return dataset
    judgments = {aspect: tuple(i for i in items if i.line < n) for aspect, items in dataset.judgments.items()}
    return dataclasses.replace(
        dataset, sources=dataset.sources[:n], hypotheses=tuple(h[:n] for h in dataset.hypotheses),
        judgments=MappingProxyType(judgments), corpus_lines=dataset.corpus_lines[:n],
        references=tuple(r[:n] for r in dataset.references),
        options=MappingProxyType({**dataset.options, "first_sentences": n}),
        segment_scores=MappingProxyType({k: v[:, :n] for k, v in dataset.segment_scores.items()}),
    )


def limit_datasets(n: int) -> None:
    """Make the dataset loaders return their first ``n`` sentences."""
    from gec_meta.data import datasets

    for name in ("load_gjg15", "load_seeda"):
        real = getattr(datasets, name)
        setattr(datasets, name, lambda *a, _real=real, **k: first_sentences(_real(*a, **k), n))


def main() -> None:
    argv = sys.argv[1:]
    limit = None
    if argv[0] == "--limit":
        limit, argv = int(argv[1]), argv[2:]
    out, overrides = Path(argv[0]), argv[argv.index("--") + 1:]
    import gec_meta.cli.run as run

    t_import = time.perf_counter() - START
    if limit:
        limit_datasets(limit)
    sys.argv = ["gec-meta-run", *overrides]
    run.main()
    run_dir = Path(next(o.split("=", 1)[1] for o in overrides if o.startswith("hydra.run.dir=")))
    timing = json.loads((run_dir / "timing.json").read_text())
    results = json.loads((run_dir / "results.json").read_text())
    out.write_text(json.dumps({
        "import_cli_s": t_import, "inside_s": time.perf_counter() - START, "timing": timing,
        "system": results.get("system"), "system_scores": results.get("system_scores"),
        "signature": results.get("signature"),
    }))


if __name__ == "__main__":
    main()
