"""Benchmark of our m2scorer re-implementation (M2).

1. The full GJG15 run: 13 CoNLL-2014 outputs (12 teams + INPUT) x 1,312 sentences against the
   2-annotator official M2, with threads=1 and threads = the machine's cores (same bits).
2. GMEG-Wiki test (992 sentences): every system file of ``gmeg/test/wiki`` against gold edits
   of ref0..ref3.  GMEG has no M2, so the gold edits of ref k are *m2scorer's own edits of the
   reference*: the best path of the (source, ref k) lattice with no gold edits (merged
   minimal-cost edits, exactly what m2scorer would propose for that reference).  Prints total
   wall time and the slowest sentence.
3. For the slowest GMEG sentence, an estimate of what m2scorer's own procedure would cost:
   its transitive_arcs is a V^3 triple loop and best_edit_seq_bf is (|V|-1) sweeps over E.
   We time a faithful Bellman-Ford over our (identical) arc list with a time cap and
   extrapolate; for lattices past our exact budget we time the steps per second on a smaller
   lattice and extrapolate from V and the arc count.

Run:  .venv/bin/python bench/bench_m2.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gec_meta.data.io import read_lines  # noqa: E402
from gec_meta.data.m2 import GoldEdit, read_m2  # noqa: E402
from gec_meta.metrics.edit.m2 import M2  # noqa: E402
from gec_meta.parallel import available_cores  # noqa: E402
from gec_meta.edits.m2scorer import (  # noqa: E402
    BoundedLattice, Lattice, build_lattice, make_lattice, path_edits,
    score_annotator,
)

DATA = Path(os.environ.get("GEC_META_DATA") or ROOT.parent / "shared" / "data")
SYSTEMS = ["AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC"]


def bench_gjg15() -> None:
    """GJG15 statistics with threads=1 and with every core (gec_meta.parallel), same bits, each
    searching every lattice (an empty cache folder each); then another metric of the M2 family
    (SentM2) reading the matches the last run stored (gec_meta.edits.m2_matches)."""
    import tempfile

    from gec_meta.edits.m2_matches import m2_match_store

    sents = read_m2(DATA / "conll14" / "conll14st-test.m2", expected=1312)
    refs = [[s.edits_of(a) if a in s.annotators else s.edits_of(0) for s in sents] for a in (0, 1)]
    hyps = [read_lines(DATA / "gjg15/original/official_submissions" / x, expected=1312) for x in SYSTEMS]
    sources = [s.source for s in sents]
    cores = available_cores()
    runs = {}
    before = os.environ.get("GEC_META_CACHE")
    with tempfile.TemporaryDirectory(prefix="bench-m2-") as cache:
        for threads in sorted({1, cores}):
            os.environ["GEC_META_CACHE"] = f"{cache}/{threads}"  # an empty store: every lattice searched
            metric = M2(threads=threads)
            t = time.perf_counter()
            stats = metric.statistics(sources, hyps, refs)
            runs[threads] = (time.perf_counter() - t, stats)
        m2_match_store.cache_clear()  # a new store object: the matches read back from disk
        t = time.perf_counter()
        sent = M2(level="sentence", threads=cores).statistics(sources, hyps, refs)
        stored = time.perf_counter() - t
    if before is None:  # the rest of the bench uses the cache it was started with
        os.environ.pop("GEC_META_CACHE", None)
    else:
        os.environ["GEC_META_CACHE"] = before
    one, stats = runs[1]
    same = all(np.array_equal(stats, s) for _, s in runs.values()) and np.array_equal(stats, sent)
    print("GJG15 M2: 13 systems x 1312 sentences: "
          + ", ".join(f"threads={t}: {w:.1f} s" for t, (w, _) in runs.items())
          + (f" ({runs[cores][0] / one:.2f}x)" if cores > 1 else "")
          + f"; SentM2 from the stored matches: {stored:.2f} s; identical: {'yes' if same else 'NO'}")
    p, r, f = metric.corpus_prf(stats)
    for x, pp, rr, ff in zip(SYSTEMS, p, r, f):
        print(f"  {x:6s} P {pp:.4f} R {rr:.4f} F0.5 {ff:.4f}")


def ref_gold(source: str, ref: str, k: int) -> tuple[GoldEdit, ...]:
    """m2scorer's own edits of a plain-text reference (best path with no gold)."""
    return tuple(
        GoldEdit(s, e, t, (c,), k) for s, e, _, c, t in path_edits(make_lattice(source, ref), [])
    )


def bench_gmeg() -> tuple[int, str]:
    wiki = DATA / "gmeg" / "test" / "wiki"
    names = sorted(p.name for p in wiki.iterdir() if p.name not in ("source",))
    systems = [n for n in names if not n.startswith("ref")]
    src = read_lines(wiki / "source", expected=992)
    refs = [read_lines(wiki / f"ref{k}", expected=992) for k in range(4)]
    hyps = {n: read_lines(wiki / n, expected=992) for n in systems}
    t0 = time.perf_counter()
    golds = [[ref_gold(src[i], refs[k][i], k) for i in range(len(src))] for k in range(4)]
    t_gold = time.perf_counter() - t0
    per_sent = []
    metric = M2(threads=1)  # one sentence per call: no pool
    t0 = time.perf_counter()
    for i in range(len(src)):
        t = time.perf_counter()
        metric.statistics([src[i]], [[hyps[n][i]] for n in systems], [[golds[k][i]] for k in range(4)])
        per_sent.append((time.perf_counter() - t, i))
    wall = time.perf_counter() - t0
    per_sent.sort(reverse=True)
    print(f"GMEG-Wiki test: gold edits of ref0..3 extracted in {t_gold:.1f} s; "
          f"{len(systems)} systems x 992 sentences x 4 refs scored in {wall:.1f} s")
    print("  slowest sentences (1-based line, seconds for all systems and refs):",
          ", ".join(f"{i + 1}: {s:.3f}" for s, i in per_sent[:5]))
    # slowest single (sentence, system)
    i = per_sent[0][1]
    worst = (0.0, "")
    for n in systems:
        t = time.perf_counter()
        lat = make_lattice(src[i], hyps[n][i])
        for k in range(4):
            score_annotator(lat, [(g.start, g.end, g.corrections) for g in golds[k][i]])
        worst = max(worst, (time.perf_counter() - t, n))
    print(f"  max per-sentence time (one system, 4 refs): {worst[0]:.3f} s (line {i + 1}, {worst[1]})")
    return i, worst[1]


def _bf_seconds(lat: Lattice, cap: float = 5.0) -> tuple[float, int, int]:
    """Time Bellman-Ford sweeps over the arc list (m2scorer's best_edit_seq_bf), capped."""
    V = len(lat.verts)
    w = [lat.base_weight[a] for a in lat.order]
    src_, dst_ = lat.arc_src, lat.arc_dst
    edges = [(src_[a], dst_[a], w[p]) for p, a in enumerate(lat.order)]
    dist = [float("inf")] * V
    dist[0] = 0
    t = time.perf_counter()
    rounds = 0
    while rounds < V - 1 and time.perf_counter() - t < cap:
        for u, v, c in edges:
            if dist[u] + c < dist[v]:
                dist[v] = dist[u] + c
        rounds += 1
    per_round = (time.perf_counter() - t) / max(rounds, 1)
    return per_round * (V - 1), rounds, V


def _fw_step_seconds() -> float:
    """Seconds per innermost step of m2scorer's transitive_arcs (a dict lookup that misses)."""
    d = {(i, i + 1): 1 for i in range(1000)}
    t = time.perf_counter()
    n = 0
    for k in range(200):
        for j in range(1000):
            try:
                d[(k, j)]
            except KeyError:
                n += 1
    return (time.perf_counter() - t) / 200_000


def estimate_m2scorer(line: int, system: str) -> None:
    wiki = DATA / "gmeg" / "test" / "wiki"
    source = read_lines(wiki / "source")[line]
    hyp = read_lines(wiki / system)[line]
    fw_step = _fw_step_seconds()
    lat = make_lattice(source, hyp)
    if isinstance(lat, BoundedLattice):
        V = len(lat.verts)
        print(f"  slowest pair is past the exact budget: V = {V} (bounded search used)")
        # exact arc count, counted without keeping the arcs would itself take ~1 min; we use
        # the count measured once: 8,430,865 entries in E for line 694 / marian.
        E = 8_430_865 if (line, system) == (693, "marian") else 10 * V
        ref_lat = build_lattice(read_lines(wiki / "source")[179], read_lines(wiki / "marian")[179])
        bf_ref, _, vref = _bf_seconds(ref_lat, cap=2.0)
        per_relax = bf_ref / ((vref - 1) * len(ref_lat.order))
        bf = per_relax * (V - 1) * E
    else:
        V = len(lat.verts)
        E = len(lat.order)
        bf, rounds, _ = _bf_seconds(lat)
    fw = fw_step * V ** 3
    print(f"  m2scorer estimate for line {line + 1} ({system}): V = {V}, |E| = {E}: "
          f"transitive_arcs ~{fw:,.0f} s ({fw / 86400:,.1f} days), Bellman-Ford ~{bf:,.0f} s "
          f"({bf / 3600:,.1f} h)")


if __name__ == "__main__":
    if not DATA.is_dir():
        sys.exit(f"{DATA} is absent")
    bench_gjg15()
    line, system = bench_gmeg()
    estimate_m2scorer(line, system)
