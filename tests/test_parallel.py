"""gec_meta.parallel: the worker pool of the CPU stages.

Every parallelised stage gives the same bits with threads=1, 2 and 3 (the threads=1 path is
the one-process loop that the stage's own tests check against the official tools); errors keep
their type and location; small inputs and cached runs start no pool.
"""

from __future__ import annotations

import logging
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from gec_meta import parallel
from gec_meta.errors import DataError

THREADS = (1, 2, 3)


@pytest.fixture(autouse=True)
def every_thread_count(monkeypatch):
    """threads=3 runs 3 workers here even on a machine with fewer cores: these tests check
    the bits for every worker count; the cap at the cores is tests/test_threads_cap.py's."""
    monkeypatch.setattr(parallel, "cap_threads", parallel._as_threads)


@pytest.fixture
def pools(monkeypatch):
    """Counts the pools started in this process (calls of parallel._pool_map)."""
    calls = []
    real = parallel._pool_map

    def spy(*args, **kwargs):
        calls.append(args[4])  # workers
        return real(*args, **kwargs)

    monkeypatch.setattr(parallel, "_pool_map", spy)
    return calls


@pytest.fixture
def no_pool(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(parallel, "_pool_map", refuse)


@pytest.fixture(scope="module")
def gjg15_head(data_root):
    """The first 40 sentences of GJG15 (13 systems): sources, hypotheses, M2 gold edits and
    reference texts of the two official annotators."""
    from gec_meta import load_dataset, load_refset

    ds = load_dataset("gjg15", root=data_root)
    refs = load_refset("official", ds, root=data_root)
    N = 40
    return (list(ds.sources[:N]), [list(h[:N]) for h in ds.hypotheses],
            [list(r[:N]) for r in refs.for_metric("m2")], [list(r[:N]) for r in refs.for_metric("text")])


def _search_every_time(mp: pytest.MonkeyPatch) -> None:
    """M2's matching searches its lattices at every call, in a pool from the first lattice on:
    no disk store of matches (``gec_meta.edits.m2_matches``), a new empty one per call."""
    from gec_meta.edits import m2_matches
    from gec_meta.metrics.edit import m2 as m2mod

    mp.setenv("GEC_META_CACHE", "off")
    mp.setattr(m2_matches, "MIN_PARALLEL_WORK", 0)
    mp.setattr(m2mod, "m2_match_store", lambda *options: m2_matches.M2MatchStore(*options))


@pytest.fixture
def m2_searches(monkeypatch):
    """:func:`_search_every_time` for one test."""
    _search_every_time(monkeypatch)


@pytest.fixture(scope="module")
def gjg15_head_m2(gjg15_head):
    """M2 statistics of :func:`gjg15_head` in one process (threads=1, the loop that
    tests/test_m2.py checks against the official m2scorer): the reference of the pool tests."""
    from gec_meta.metrics.edit import m2 as m2mod

    sources, hyps, gold, _ = gjg15_head
    with pytest.MonkeyPatch.context() as mp:
        _search_every_time(mp)
        return m2mod.M2(threads=1).statistics(sources, hyps, gold)


# --------------------------------------------------------------------------- the helper
def _square(context, idx):
    return [context[i] ** 2 for i in idx]


def test_results_in_input_order_for_any_threads(pools):
    items = list(range(1000))
    for t in THREADS:
        assert parallel.parallel_map(_square, len(items), items, threads=t, min_work=0) == [i * i for i in items]
    assert pools == [2, 3]  # threads=1 runs in this process


def test_chunk_boundaries_by_hand():
    # total 8 in 2 runs: the first closes where the running total reaches 4 (item 3)
    assert parallel.contiguous_chunks([1, 1, 1, 1, 4], 2) == [[0, 1, 2, 3], [4]]
    # a heavy first item: its run closes at once, the rest share what is left
    assert parallel.contiguous_chunks([9, 1, 1, 1], 3) == [[0], [1], [2, 3]]
    # more parts than items: one item per run
    assert parallel.contiguous_chunks([1, 2], 5) == [[0], [1]]
    # zero work everywhere still covers every item
    assert sum(parallel.contiguous_chunks([0] * 7, 3), []) == list(range(7))


def test_chunk_count_does_not_change_results(monkeypatch, gjg15_head, gjg15_head_m2, m2_searches):
    from gec_meta.metrics.edit import m2 as m2mod

    sources, hyps, gold, _ = gjg15_head
    # the first 12 sentences (a sentence's statistics do not depend on the others): 156 lattices,
    # more than the largest chunk count
    n = 12
    sources, hyps, gold = sources[:n], [h[:n] for h in hyps], [g[:n] for g in gold]
    for chunks in (1, 7, 64):  # the default chunking: test_m2_bit_identical_across_threads
        monkeypatch.setattr(parallel, "MAX_CHUNKS", chunks)
        assert np.array_equal(m2mod.M2(threads=2).statistics(sources, hyps, gold), gjg15_head_m2[:, :n]), chunks


def test_explicit_chunks_must_cover_every_item():
    with pytest.raises(ValueError, match="exactly once"):
        parallel.parallel_map(_square, 3, [1, 2, 3], threads=2, chunks=[[0, 1], [1]])


def _fail_at_17(context, idx):
    for i in idx:
        if i == 17:
            raise DataError("bad token", path="sys.txt", line=i + 1)
    return idx


def test_worker_errors_keep_their_type_and_location():
    with pytest.raises(DataError) as info:
        parallel.parallel_map(_fail_at_17, 40, threads=2, min_work=0)
    assert str(info.value) == "sys.txt:18: bad token"
    assert info.value.path == Path("sys.txt") and info.value.line == 18
    assert "_fail_at_17" in str(info.value.__cause__)  # the worker's traceback


class _Unpicklable(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a}/{b}")


def _raise_unpicklable(context, idx):
    if 5 in idx:
        raise _Unpicklable("x", "y")
    return idx


def test_an_error_that_cannot_be_pickled_is_raised_again_here():
    with pytest.raises(_Unpicklable, match="x/y"):
        parallel.parallel_map(_raise_unpicklable, 40, threads=2, min_work=0)


def _die_in_worker(context, idx):
    if parallel._IN_WORKER and 3 in idx:
        os._exit(3)
    return [i + 1 for i in idx]


def test_a_dead_worker_leaves_its_chunks_to_this_process(caplog):
    with caplog.at_level(logging.WARNING, logger="gec_meta"):
        out = parallel.parallel_map(_die_in_worker, 40, threads=2, min_work=0)
    assert out == list(range(1, 41))
    assert "worker process died" in caplog.text


def _sleep_in_worker(context, idx):
    if parallel._IN_WORKER:
        import time

        time.sleep(60)
    return list(idx)


def test_ctrl_c_stops_the_workers_without_waiting_for_their_chunks():
    """A KeyboardInterrupt in this process while the workers run: parallel_map raises it as soon
    as the workers are stopped, not after their 60-s chunks; no worker is left behind."""
    import signal
    import threading
    import time

    # A real SIGINT to the main thread, as a terminal's Ctrl-C (``_thread.interrupt_main`` would
    # not wake the main thread from its wait for the workers); Python's own handler for it, as in
    # a command (a test process may have another).
    main = threading.main_thread().ident
    timer = threading.Timer(1.0, lambda: signal.pthread_kill(main, signal.SIGINT))
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            parallel.parallel_map(_sleep_in_worker, 4, threads=2, min_work=0, chunks=[[0, 1], [2, 3]])
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, handler)
    assert time.monotonic() - start < 20
    import multiprocessing

    assert not multiprocessing.active_children()


def _worker_threads(context, idx):
    from threadpoolctl import threadpool_info

    blas = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    return [(parallel.default_threads(), max(blas, default=1))] * len(idx)


def test_workers_run_one_blas_thread_and_never_nest():
    from threadpoolctl import threadpool_info

    before = threadpool_info()
    out = parallel.parallel_map(_worker_threads, 8, threads=2, min_work=0)
    assert set(out) == {(1, 1)}
    assert threadpool_info() == before  # this process's own limits are restored


def test_small_inputs_run_in_this_process(no_pool):
    assert parallel.parallel_map(_square, 3, [1, 2, 3], threads=2, min_work=4) == [1, 4, 9]


# --------------------------------------------------------------------------- threads
def test_threads_resolution(monkeypatch, tmp_path):
    assert parallel.resolve_threads(3) == 3  # uncapped here (see every_thread_count)
    assert parallel.resolve_threads("2") == 2  # GEC_META_THREADS=2 through oc.env
    for bad in (0, -1, 1.5, True, "two"):
        with pytest.raises(ValueError, match="positive integer"):
            parallel.resolve_threads(bad)
    monkeypatch.delenv("SLURM_CPUS_PER_TASK", raising=False)
    monkeypatch.delenv("SLURM_CPUS_ON_NODE", raising=False)
    cores = parallel.available_cores()
    assert 1 <= cores <= len(os.sched_getaffinity(0))
    monkeypatch.setenv("SLURM_CPUS_ON_NODE", "1")
    assert parallel.available_cores() == 1
    monkeypatch.setenv("SLURM_CPUS_PER_TASK", "1")  # wins over CPUS_ON_NODE
    monkeypatch.setenv("SLURM_CPUS_ON_NODE", "64")
    assert parallel.available_cores() == 1
    assert parallel.resolve_threads(None) == 1


@pytest.mark.parametrize("files,cores", [
    ({"cpu.max": "150000 100000\n"}, 2),        # cgroup v2: 1.5 CPUs -> 2 cores
    ({"cpu.max": "max 100000\n"}, None),        # no quota
    ({"cpu/cpu.cfs_quota_us": "50000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 1),  # v1: half a CPU
    ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
    ({}, None),
])
def test_cgroup_cpu_limit(tmp_path, files, cores):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert parallel.cgroup_cpu_limit(str(tmp_path)) == cores


def _default_threads(_):
    from gec_meta import parallel as p

    return p.default_threads()


def test_a_joblib_job_gets_its_share_of_the_cores():
    """Hydra's joblib launcher runs jobs in loky workers, which joblib gives cores // n_jobs
    threads (OMP_NUM_THREADS): threads=None there means that share, not every core."""
    from joblib import Parallel, cpu_count, delayed

    got = Parallel(n_jobs=2, backend="loky")(delayed(_default_threads)(i) for i in range(2))
    assert got == [min(parallel.available_cores(), max(cpu_count() // 2, 1))] * 2


# --------------------------------------------------------------------------- the stages
def test_m2_bit_identical_across_threads(monkeypatch, gjg15_head, gjg15_head_m2, pools, m2_searches):
    from gec_meta.metrics.edit import m2 as m2mod

    sources, hyps, gold, _ = gjg15_head
    stats = [gjg15_head_m2, *(m2mod.M2(threads=t).statistics(sources, hyps, gold) for t in THREADS[1:])]
    assert stats[0].shape == (13, 40, 2, 3) and stats[0].sum() > 0
    assert all(np.array_equal(stats[0], s) for s in stats[1:])
    assert pools == [2, 3]


def test_m2_under_spawn(monkeypatch, gjg15_head, m2_searches):
    """Where fork is not the platform's way (macOS, Windows), spawned workers import the
    stage's function and unpickle its context."""
    from gec_meta.metrics.edit import m2 as m2mod

    sources, hyps, gold, _ = gjg15_head
    args = (sources[:8], [h[:8] for h in hyps[:3]], [g[:8] for g in gold])
    one = m2mod.M2(threads=1).statistics(*args)
    monkeypatch.setattr(parallel, "start_method", lambda: "spawn")
    monkeypatch.setattr(parallel, "SPAWN_FACTOR", 1)
    assert np.array_equal(m2mod.M2(threads=2).statistics(*args), one)


def test_lattice_too_large_falls_back_in_the_workers(monkeypatch, gjg15_head, m2_searches):
    """A lattice over the exact budget (LatticeTooLarge) becomes a BoundedLattice inside the
    worker, exactly as in one process."""
    from gec_meta.edits import m2scorer
    from gec_meta.metrics.edit import m2 as m2mod

    sources, hyps, gold, _ = gjg15_head
    # 8 sentences of 3 systems: the fallback is sentence 3's, in whichever worker gets it
    sources, hyps, gold = sources[:8], [h[:8] for h in hyps[:3]], [g[:8] for g in gold]
    real = m2scorer.build_lattice

    def budget(source, hypothesis, *args, **kwargs):
        if source == " ".join(sources[3].split()):
            raise m2scorer.LatticeTooLarge("budget")
        return real(source, hypothesis, *args, **kwargs)

    monkeypatch.setattr(m2scorer, "build_lattice", budget)  # forked workers inherit it
    stats = [m2mod.M2(threads=t).statistics(sources, hyps, gold) for t in (1, 2)]
    assert np.array_equal(stats[0], stats[1])
    src, hyp = " ".join(sources[3].split()), " ".join(hyps[0][3].split())
    gold0 = [(g.start, g.end, g.corrections) for g in gold[0][3] if g.type != "noop" and g.start >= 0]
    res = m2scorer.score_annotator(m2scorer.BoundedLattice(src, hyp), gold0)
    tp = sum(res.hyp_matched)
    assert tuple(stats[1][0, 3, 0]) == (tp, len(res.hyp_edits) - tp, len(gold0) - sum(m is not None for m in res.gold_matched))


def test_errant_extraction_bit_identical_across_threads(monkeypatch, gjg15_head, pools):
    from gec_meta.edits import extract

    sources, hyps, _, _ = gjg15_head
    pairs = [(sources[n], h[n]) for h in hyps[:6] for n in range(len(sources))]
    monkeypatch.setenv("GEC_META_CACHE", "off")  # every extractor computes every pair
    monkeypatch.setattr(extract, "MIN_PARALLEL_PAIRS", 0)
    monkeypatch.setattr(extract, "CHUNK_PAIRS", 20)
    edits = [extract.ErrantExtractor(progress=False).extract(pairs, threads=t) for t in THREADS]
    assert sum(len(e) for e in edits[0]) > 100
    assert edits[0] == edits[1] == edits[2]
    assert pools == [2, 3]


def test_errant_length_guard_names_the_line_with_a_pool(monkeypatch, gjg15_head):
    from gec_meta.edits import edit_sets, extract

    sources, hyps, _, _ = gjg15_head
    monkeypatch.setattr(extract, "MIN_PARALLEL_PAIRS", 0)
    long_row = list(hyps[0])
    long_row[7] = " ".join(["word"] * 600)
    with pytest.raises(extract.SentenceTooLong, match=r"text set #1, sentence #7 \(line 8\): 600 tokens"):
        edit_sets.errant_edit_sets(sources, [hyps[1], long_row], threads=2)
    exc = extract.SentenceTooLong(3, 600, "w", "f.txt", 4, "here: ")
    back = pickle.loads(pickle.dumps(exc))
    assert (type(back), str(back), back.pair, back.line) == (extract.SentenceTooLong, str(exc), 3, 4)


def _vectors(seed: int, count: int, dim: int = 8):
    rng = np.random.default_rng(seed)
    vecs, weights = [], []
    for k in range(count):
        v = rng.normal(size=(int(rng.integers(2, 14)), dim))
        vecs.append(v / np.linalg.norm(v, axis=1, keepdims=True))
        w = np.ones(len(v))
        w[[0, -1]] = 0.0  # [CLS], [SEP]
        if k % 17 == 0:
            w[:] = 0.0  # an empty text
        weights.append(w)
    return vecs, weights


def test_bertscore_greedy_matching_bit_identical_across_threads(monkeypatch, pools):
    from gec_meta.metrics.neural import bertscore

    vecs, weights = _vectors(0, 80)
    rng = np.random.default_rng(1)
    pairs = [(int(a), int(b)) for a, b in rng.integers(0, 80, size=(600, 2))]
    monkeypatch.setattr(bertscore, "MIN_PARALLEL_WORK", 0)
    out = [bertscore._score_grouped(pairs, vecs, weights, 0.0, threads=t) for t in THREADS]
    assert np.array_equal(out[0], out[1]) and np.array_equal(out[0], out[2])
    assert pools == [2, 3]
    # and the grouped products are BERTScore's greedy matching, pair by pair
    for k in (0, 5, 17, 333):
        a, b = pairs[k]
        np.testing.assert_allclose(out[0][k], bertscore.greedy_prf(vecs[a], weights[a], vecs[b], weights[b]),
                                   rtol=0, atol=1e-12)


@pytest.mark.parametrize("name,ref_id", [("gotoscorer", 0), ("gotoscorer", -1), ("gotoscorer_unweighted", 0)])
def test_gotoscorer_bit_identical_across_threads(monkeypatch, gjg15_head, pools, name, ref_id):
    from gec_meta.metrics.edit import gotoscorer
    from gec_meta.metrics.registry import metric_class

    sources, hyps, _, texts = gjg15_head
    monkeypatch.setattr(gotoscorer, "MIN_PARALLEL_WORK", 0)
    cls = metric_class(name)
    stats = []
    for t in THREADS:
        metric = cls(threads=t, ref_id=ref_id).bind(sources, hyps, texts)
        stats.append(metric.statistics(sources, hyps, texts))
    assert stats[0].shape == (13, 40, 2, 4) and stats[0].sum() > 0
    assert all(np.array_equal(stats[0], s) for s in stats[1:])
    if ref_id == 0:  # the scored reference's statistics repeated on the reference axis
        assert np.array_equal(stats[0][:, :, 1], stats[0][:, :, 0])
    assert len(pools) >= 2


@pytest.mark.parametrize("mode", ["independent", "dependent"])
def test_cleme_bit_identical_across_threads(monkeypatch, gjg15_head, pools, mode):
    from gec_meta.metrics.edit import cleme

    sources, hyps, _, texts = gjg15_head
    monkeypatch.setattr(cleme, "MIN_PARALLEL_WORK", 0)
    stats = [cleme.CLEME(mode=mode, threads=t).statistics(sources, hyps, texts) for t in THREADS]
    assert stats[0].shape == (13, 40, 2, 4) and stats[0].sum() > 0
    assert all(np.array_equal(stats[0], s) for s in stats[1:])
    assert pools == [2, 3]


def test_no_pool_for_small_inputs_or_cached_statistics(monkeypatch, gjg15_head, tmp_path):
    from gec_meta.meta.task import compute_statistics
    from gec_meta.metrics.edit.m2 import M2

    sources, hyps, gold, _ = gjg15_head
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path))
    real = parallel._pool_map
    monkeypatch.setattr(parallel, "_pool_map", lambda *a, **k: pytest.fail("pool for 3 sentences"))
    M2(threads=2).statistics(sources[:3], [h[:3] for h in hyps[:2]], [g[:3] for g in gold])
    monkeypatch.setattr(parallel, "_pool_map", real)
    first = compute_statistics(M2(threads=2), sources, hyps, gold)  # cold: fills the cache
    monkeypatch.setattr(parallel, "_pool_map", lambda *a, **k: pytest.fail("pool on a warm run"))
    assert np.array_equal(compute_statistics(M2(threads=2), sources, hyps, gold), first)


def test_threads_is_in_no_signature_or_cache_key(gjg15_head):
    from gec_meta.api import load_metric

    sources, hyps, _, texts = gjg15_head
    for name, overrides in (("m2", ()), ("sentm2", ()), ("cleme_independent", ()), ("pt_m2", ("encoder=minilm",))):
        one, three = (load_metric(name, *overrides, f"threads={t}") for t in (1, 3))
        assert one.signature() == three.signature() and one.cache_key() == three.cache_key(), name
    one, three = (load_metric("gotoscorer", threads=t).bind(sources, hyps, texts) for t in (1, 3))
    assert one.signature() == three.signature() and one.cache_key() == three.cache_key()


@pytest.mark.parametrize("name", ["cleme", "cleme2"])
def test_cleme_with_absent_annotators_bit_identical_across_threads(monkeypatch, gjg15_head, pools, name):
    """A user's M2 whose annotator 1 has no line in every third sentence (missing_annotator=skip,
    :class:`ReferenceRows`): the per-system tasks keep each sentence's present annotators, and
    the stand-ins' rows repeat the first present one, with every threads."""
    from gec_meta.data.refsets import ReferenceRows
    from gec_meta.metrics.edit import cleme, cleme2

    sources, hyps, _, texts = gjg15_head
    present = [[True] * 40, [n % 3 != 0 for n in range(40)]]
    refs = ReferenceRows([texts[0], [t if p else texts[0][n] for n, (t, p) in enumerate(zip(texts[1], present[1]))]],
                         present)
    monkeypatch.setattr(cleme, "MIN_PARALLEL_WORK", 0)
    make = (lambda t: cleme.CLEME(mode="dependent", threads=t)) if name == "cleme" else \
        (lambda t: cleme2.CLEME2(mode="dependent", threads=t))
    stats = [make(t).statistics(sources, hyps, refs) for t in THREADS]
    assert all(np.array_equal(stats[0], s) for s in stats[1:])
    assert pools == [2, 3]
    absent = [n for n in range(40) if not present[1][n]]
    # a stand-in's row repeats the present annotator's: the sentence is scored against it alone
    assert np.array_equal(stats[0][:, absent, 1], stats[0][:, absent, 0])
    alone = make(1).statistics([sources[n] for n in absent], [[h[n] for n in absent] for h in hyps],
                               [[texts[0][n] for n in absent]])
    # CLEME's length bias is a mean over the system's sentences: compare the unweighted CLEME2 counts
    if name == "cleme2":
        assert np.array_equal(stats[0][:, absent, 0], alone[:, :, 0])
