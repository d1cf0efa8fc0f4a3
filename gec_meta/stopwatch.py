"""Process-wide wall-time accounting of the expensive parts of a run (after :data:`gec_meta.cache.COUNTERS`).

:data:`TIMES` sums the seconds spent in each part; ``gec-meta-run`` writes a job's share to
``timing.json`` (``parts``), and ``bench/bench_gpu.py`` splits a job's time with it.  Parts:

* ``edit_matching``: an edit metric's edits and their matching (:meth:`gec_meta.metrics.edit.core.
  EditMetric.statistics`' ``match``): M2's lattices; for the ERRANT family the edit extraction too
  (spaCy's parses, when the edit store lacks them), worker processes included;
* ``neural_imports``: importing torch and transformers;
* ``model_load``: loading a model's weights and moving them to the device;
* ``tokenize``: tokenising an encoder's texts;
* ``encode``: the encoder's forward passes, up to the states being in host memory;
* ``cache_write``: the encoder handing states to the cache and waiting for the last shard;
* ``cache_shards``: checksumming and writing encoder cache shards, mostly in a background
  thread while the forward passes go on (:attr:`gec_meta.cache.ArrayStore.write_seconds`);
* ``token_matching``: BERTScore's greedy matching of token states;
* ``pt_weights``: PT-M2/PT-ERRANT's edit weights (everything after the edit matching).
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter

#: Seconds per part in this process.
TIMES: Counter = Counter()


@contextlib.contextmanager
def timed(part: str):
    """Add the wall time of the ``with`` block to ``TIMES[part]``."""
    start = time.perf_counter()
    try:
        yield
    finally:
        TIMES[part] += time.perf_counter() - start


def since(before: Counter) -> dict[str, float]:
    """The seconds of each part spent since ``before`` (a copy of :data:`TIMES`), to the
    microsecond: a job's ``parts`` and its statistics stage's ``statistics_parts`` in
    ``timing.json``."""
    return {k: round(v, 6) for k, v in (TIMES - before).items()}
