"""Worker processes for the CPU stages of the statistics: one pure function over chunks of
items, results in input order, bit-identical for every ``threads``.

m2scorer's lattices and best paths, ERRANT's parsing and alignment, BERTScore's greedy matching,
GoToScorer's and CLEME's chunk matching are pure Python/numpy loops over sentences (or
reference groups, or systems).  :func:`parallel_map` runs such a loop in ``threads`` worker
processes:

* **Items are indices into a context** (the inputs: texts, edits, vectors).  The workers are
  forked after the context is built, so they inherit it without a copy (spawned workers, where
  ``fork`` is not the platform's way, unpickle it once each); a task sends only its chunk
  number and returns the chunk's results.
* **Bit-identical for every ``threads``.**  The chunks depend on the items and their work
  estimates only, never on the number of workers; the function runs on the same chunks whether
  one process or sixteen do the work, and the results are put back in input order.  So
  ``threads=1, 2, 3`` give the same bits (``tests/test_parallel.py``, one test per stage).
* **No pool for small inputs.**  Below a stage's measured ``min_work`` (where forking and
  collecting results cost more than they save), and inside a worker process (no nesting),
  everything runs in this process.
* **No oversubscription.**  ``threads`` is at most the cores this process may use
  (:func:`cap_threads`: ``threads=100000`` becomes them, said once in the log), and each
  worker runs its BLAS/OpenMP (and torch, if loaded) on ``threads // workers`` threads
  (threadpoolctl, torch in the worker initializer), so workers x threads <= ``threads``.
  Work done in this process (no pool) runs its BLAS on at most ``threads`` threads
  (:func:`blas_within`).  The native thread caps of the package are all here:
  :func:`blas_within` for a block of work, :func:`cap_process_threads` for a whole process
  (a ``gec-meta-run`` job, a spawned worker).
* **Errors** raised in a worker reach the caller as the same exception (type, message,
  attributes such as a :class:`~gec_meta.errors.DataError`'s file and line; its ``__cause__``
  holds the worker's traceback).  One that cannot cross a process boundary (pickling) is
  raised again by running its chunk in this process.  A worker that dies (killed for memory,
  or a spawned worker that cannot import the user's ``__main__``) leaves its chunks to this
  process, with a warning.
* **A progress bar** (tqdm, on a terminal or in a notebook) for work that lasts over a second.

``threads=None`` (or ``"auto"``) means :func:`default_threads`: the cores this job may use; an
explicit ``threads`` above them is capped there (:func:`cap_threads`, logged once).

Built on :class:`concurrent.futures.ProcessPoolExecutor` rather than joblib: joblib's loky
workers are started once and reused, so every call would pickle its context to them (GJG15's
texts and edits, BERTScore's token vectors; the spaCy model would be loaded in each), where a
pool forked per call with the context in its initializer shares all of it for free.

Only the standard library is imported here; ``multiprocessing``, threadpoolctl and tqdm when a
pool starts.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sys
from typing import Any, Callable, Iterator, Sequence

log = logging.getLogger("gec_meta")

#: The most chunks one call is cut into: enough to keep 16 workers busy to the end (a
#: worker that finishes early takes the next chunk) and to move the progress bar, few enough
#: that the per-task cost (~1 ms) stays negligible.  A constant, not a function of the worker
#: count, so every ``threads`` runs the function on the same chunks.
MAX_CHUNKS = 64

#: Spawned workers (macOS, Windows) start Python again, import numpy and gec_meta and unpickle
#: the context: ~0.3-0.5 s each instead of ~10 ms to fork, so the work must be this many times
#: a stage's ``min_work`` before such a pool starts.
SPAWN_FACTOR = 30

_IN_WORKER = False  # True in a worker of parallel_map: a nested call runs in-process


def start_method() -> str:
    """``fork`` on Linux (workers inherit the loaded models and the context, no copy), else
    ``spawn`` (macOS's and Windows' default: forking a process that has initialised the
    system's frameworks is unsafe there)."""
    return "fork" if sys.platform.startswith("linux") else "spawn"


# --------------------------------------------------------------------------- how many cores
def _positive_int(text: str | None) -> int | None:
    try:
        value = int(str(text).strip().split("(")[0])  # SLURM may write e.g. "4(x2)"
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


def cgroup_cpu_limit(root: str = "/sys/fs/cgroup", proc_cgroup: str = "/proc/self/cgroup") -> int | None:
    """The CPU quota of this process's cgroup, rounded up to whole cores, or None (none).

    cgroup v2 ``cpu.max`` (``"<quota> <period>"`` or ``"max <period>"``), else v1
    ``cpu/cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (quota -1 = none), read in the process's own
    cgroup (``proc_cgroup``: ``0::/system.slice/job_42`` for v2, ``N:cpu,cpuacct:/...`` for v1)
    and in every cgroup above it up to ``root``; the smallest quota wins.  Docker's ``--cpus``,
    Kubernetes' CPU limits and SLURM's cgroup plugin (a job's step below its job) set them.
    """
    def read(path: str) -> str | None:
        try:
            with open(path, encoding="ascii") as fh:
                return fh.read().strip()
        except (OSError, UnicodeDecodeError):
            return None

    def ancestry(path: str) -> list[str]:  # "/a/b" -> ["a/b", "a", ""]
        parts = [p for p in path.split("/") if p and p not in (".", "..")]
        return ["/".join(parts[:k]) for k in range(len(parts), -1, -1)]

    own_v2, own_v1 = "", ""
    for line in (read(proc_cgroup) or "").splitlines():
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hierarchy == "0" and controllers == "":
            own_v2 = path
        elif "cpu" in controllers.split(","):
            own_v1 = path
    limits = []
    for sub in ancestry(own_v2):
        v2 = read(os.path.join(root, sub, "cpu.max"))
        if v2 is not None:
            quota, period = (v2.split() + ["", ""])[:2]
            limits.append((_positive_int(quota), _positive_int(period)))
    if not limits:  # cgroup v1
        for sub in ancestry(own_v1):
            base = os.path.join(root, "cpu", sub)
            limits.append((_positive_int(read(os.path.join(base, "cpu.cfs_quota_us")) or ""),
                           _positive_int(read(os.path.join(base, "cpu.cfs_period_us")) or "")))
    cores = [max(1, math.ceil(q / p)) for q, p in limits if q is not None and p is not None]
    return min(cores) if cores else None


def available_cores() -> int:
    """The CPU cores this job may use: the process's CPU affinity (``os.sched_getaffinity``,
    which SLURM and ``taskset`` set), capped by SLURM's allocation (``SLURM_CPUS_PER_TASK``,
    else ``SLURM_CPUS_ON_NODE``) and by the cgroup CPU quota (:func:`cgroup_cpu_limit`)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS, Windows
        cores = os.cpu_count() or 1
    slurm = _positive_int(os.environ.get("SLURM_CPUS_PER_TASK")) or _positive_int(os.environ.get("SLURM_CPUS_ON_NODE"))
    if slurm:
        cores = min(cores, slurm)
    quota = cgroup_cpu_limit()
    if quota:
        cores = min(cores, quota)
    return max(1, cores)


def default_threads() -> int:
    """``threads=None``: :func:`available_cores`, except in a worker of another process pool
    (``multiprocessing.parent_process()`` is set: a job of Hydra's joblib launcher, a user's
    ``Pool``), which gets the thread budget that pool gave it -- joblib sets
    ``OMP_NUM_THREADS`` to cores // n_jobs in its workers -- or one core.  So a joblib sweep
    never oversubscribes the machine, even without ``threads=1``."""
    cores = available_cores()
    if _IN_WORKER:
        return 1
    import multiprocessing

    if multiprocessing.parent_process() is not None:
        return min(cores, _positive_int(os.environ.get("OMP_NUM_THREADS")) or 1)
    return cores


def core_limits() -> dict[str, int]:
    """What bounds the cores of this process: ``{"CPU affinity": n, "SLURM_CPUS_PER_TASK": n,
    "cgroup CPU quota": n}`` (the limits that are set)."""
    try:
        limits = {"CPU affinity": len(os.sched_getaffinity(0))}
    except (AttributeError, OSError):  # macOS, Windows
        limits = {"CPU count": os.cpu_count() or 1}
    for var in ("SLURM_CPUS_PER_TASK", "SLURM_CPUS_ON_NODE"):
        n = _positive_int(os.environ.get(var))
        if n:
            limits[var] = n
            break
    quota = cgroup_cpu_limit()
    if quota:
        limits["cgroup CPU quota"] = quota
    return limits


_CAPPED: set[tuple[int, int]] = set()  # (asked, cores) already reported in this process


def cap_threads(threads: int | str | None) -> int | None:
    """An explicit ``threads`` capped at :func:`available_cores`, or None for ``None``/``"auto"``
    (the caller's default).  ``threads=100000`` would start thousands of BLAS/torch threads
    in every worker process: a count above the cores this process may use becomes that count,
    and the log says so once per process.

    Raises:
        ValueError: ``threads`` is not a positive integer, ``"auto"`` or None.
    """
    n = _as_threads(threads)
    if n is None:
        return None
    cores = available_cores()
    if n <= cores:
        return n
    if (n, cores) not in _CAPPED:
        _CAPPED.add((n, cores))
        limits = ", ".join(f"{k} {v}" for k, v in core_limits().items())
        log.warning("threads=%d is more than the %d core(s) this process may use (%s); using %d", n, cores,
                    limits, cores)
    return cores


def resolve_threads(threads: int | str | None) -> int:
    """The number of threads a stage may use: ``threads`` capped at the cores this process may
    use (:func:`cap_threads`), or :func:`default_threads` for None or ``"auto"``.

    A string of digits counts as its number (an environment variable read by the config's
    ``oc.env`` reaches the metrics as ``"2"``).

    Raises:
        ValueError: ``threads`` is not a positive integer, ``"auto"`` or None (``threads=0``,
            ``-1``, ``1.5``).
    """
    n = cap_threads(threads)
    return default_threads() if n is None else n


def _as_threads(threads) -> int | None:
    value = threads
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if value is None or (isinstance(value, str) and value.strip() == "auto"):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value or value < 1:
        raise ValueError(f"threads must be a positive integer, auto or null, got {threads!r}")
    return int(value)


# --------------------------------------------------------------------------- chunks
def contiguous_chunks(work: Sequence[float], parts: int) -> list[list[int]]:
    """Cut items 0..len(work)-1 into at most ``parts`` runs of consecutive items of similar
    total work (each run ends where the running total first reaches its share).

    Args:
        work: shape (I,), a non-negative work estimate of every item.
        parts: the number of runs wanted (>= 1).

    Returns:
        the runs, in order, none empty; together they are 0..I-1.
    """
    n = len(work)
    parts = max(1, min(parts, n))
    total = float(sum(work))
    chunks: list[list[int]] = []
    start, acc = 0, 0.0
    for i, w in enumerate(work):
        acc += float(w)
        to_open, left = parts - 1 - len(chunks), n - (i + 1)  # runs still to start, items after i
        # close the run at its share of the total (k-th run: k/parts of it), or when every item
        # left must start a run of its own
        if to_open > 0 and left >= to_open and (acc >= total * (len(chunks) + 1) / parts or left == to_open):
            chunks.append(list(range(start, i + 1)))
            start = i + 1
    if start < n:
        chunks.append(list(range(start, n)))
    return chunks


# --------------------------------------------------------------------------- workers
_WORKER_STATE: tuple | None = None  # (fn, context, chunks) in a worker


class _Unpicklable(Exception):
    """A worker's exception that cannot be pickled back: the parent reruns chunk ``k``."""

    def __init__(self, k: int, text: str):
        super().__init__(k, text)
        self.k, self.text = k, text


def _init_worker(fn, context, chunks, threads_each: int, forked: bool) -> None:
    """Pool initializer: keep the work; cap the native thread pools at ``threads_each``: all of
    them in a spawned worker, torch's (if loaded) in a forked one, which inherits the BLAS and
    OpenMP caps set around the fork (:func:`_thread_caps`)."""
    global _WORKER_STATE, _IN_WORKER
    import signal

    _WORKER_STATE = (fn, context, chunks)
    _IN_WORKER = True
    # Ctrl-C reaches every process of the terminal's group: the workers leave it to this
    # process, which stops the pool (its running chunks end, the others are cancelled) and
    # reports it in one line, instead of each worker printing a KeyboardInterrupt traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not forked:
        cap_process_threads(threads_each)
    elif "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads_each)


@contextlib.contextmanager
def blas_within(threads: int, *, always: bool = False) -> Iterator[None]:
    """This process's BLAS (numpy's; every BLAS threadpoolctl finds) on at most ``threads``
    threads inside the block, restored after: for work a stage runs in this process.

    BLAS starts a thread per core by default, so a job limited below its cores (``threads=1``
    on a 2-core machine) would otherwise use them all: ERRANT's parse in this process, which
    multiplies through numpy's OpenBLAS (:func:`gec_meta.edits.spacy_speed.use_numpy_blas`),
    took 5.9-6.4 s of CPU for 3.7-3.9 s of wall with ``threads=1`` (cold SEEDA Base, 2 cores,
    2026-11-30).  The cap costs a threadpoolctl scan (~10 ms), so a job on all its cores, and a
    worker of :func:`parallel_map` (capped at its share when it started), skip it.

    Args:
        threads: the most BLAS threads.
        always: cap even on all the cores: a stage whose numbers must not depend on BLAS
            threading (BERTScore's greedy matching runs on one thread wherever it runs).
    """
    if not always and (_IN_WORKER or threads >= available_cores()):
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(threads, user_api="blas"):
        yield


def cap_process_threads(threads: int | str | None) -> None:
    """Cap this process's native thread pools -- BLAS and OpenMP (threadpoolctl) and torch's, if
    loaded -- at ``threads`` (itself capped at the cores, :func:`cap_threads`) for the rest of
    its life; nothing for None or ``"auto"``.  Process state: for the edge that owns the
    process (``gec-meta-run``'s job: parallel sweeps share the cores), never for a library
    call.  An encoder loaded later caps torch's threads from its own ``threads`` option."""
    n = cap_threads(threads)
    if n is not None:
        _thread_caps(n).__enter__()


@contextlib.contextmanager
def _gc_frozen():
    """This process's objects out of the garbage collector's reach while the workers fork:
    a worker's collections then never write to the pages it shares with this process (no
    copy-on-write of the whole heap; Python's ``gc.freeze`` advice for fork without exec)."""
    import gc

    if gc.get_freeze_count():  # someone froze objects on purpose: leave their state alone
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class _thread_caps:
    """Context: BLAS/OpenMP (threadpoolctl) and torch (if loaded) on ``n`` threads, restored
    on exit.  Around the fork, so the workers start capped: one library scan (~10 ms) in this
    process instead of one per worker."""

    def __init__(self, n: int):
        self.n = n

    def __enter__(self):
        from threadpoolctl import threadpool_limits

        self._limits = threadpool_limits(self.n)  # BLAS and OpenMP
        self._torch = sys.modules.get("torch")
        if self._torch is not None:
            self._torch_threads = self._torch.get_num_threads()
            self._torch.set_num_threads(self.n)
        return self

    def __exit__(self, *exc):
        self._limits.restore_original_limits()
        if self._torch is not None:
            self._torch.set_num_threads(self._torch_threads)
        return False


def _run_chunk(k: int) -> list:
    fn, context, chunks = _WORKER_STATE
    try:
        return list(fn(context, chunks[k]))
    except BaseException as exc:
        import copy
        import pickle

        # Will the parent rebuild it? dumps checks its state; copy.copy rebuilds it through
        # __reduce_ex__ as unpickling would (without unpickling anything: see the cache's rule).
        try:
            pickle.dumps(exc)
            copy.copy(exc)
        except Exception:
            raise _Unpicklable(k, f"{type(exc).__name__}: {exc}") from None
        raise


def parallel_map(
    fn: Callable[[Any, list[int]], Sequence],
    count: int,
    context: Any = None,
    *,
    threads: int | None = None,
    work: Sequence[float] | None = None,
    min_work: float = 0.0,
    chunks: Sequence[Sequence[int]] | None = None,
    desc: str = "",
    unit: str = "item",
    progress: bool = True,
    blas_threads: int | None = None,
) -> list:
    """``fn(context, indices)`` over chunks of the items 0..count-1, in up to ``threads``
    processes; the results in item order.

    Args:
        fn: a pure module-level function (picklable: spawned workers import it) that returns
            one result per index, in the order of ``indices``.
        count: the number of items I.
        context: what ``fn`` reads (inherited by forked workers, pickled once per spawned one).
        threads: the most processes (None: :func:`default_threads`).
        work: shape (I,), work estimates (e.g. tokens); None = 1 per item.  They balance the
            chunks and decide, against ``min_work``, whether a pool is worth starting.
        min_work: the total work below which everything runs in one call in this process
            (measured per stage: process start-up and moving results cost ~10-50 ms).
        chunks: the chunks to use instead of cutting runs of consecutive items (e.g. ERRANT's
            pairs grouped by source sentence); together they must hold every index once.
            They must not depend on ``threads``.
        desc, unit: the progress bar's label and unit.
        progress: show a progress bar (on a terminal or in a notebook) once the work has
            lasted a second.
        blas_threads: BLAS/OpenMP/torch threads of each worker (None: its share, threads // workers;
            1 for a stage whose numbers must not depend on BLAS threading), and BLAS threads of
            the work if it runs in this process (None: at most ``threads``; :func:`blas_within`).

    Returns:
        shape (I,): ``fn``'s result of every item.

    Raises:
        whatever ``fn`` raises, as the same exception type.
    """
    threads = _as_threads(threads)
    if count == 0:
        return []
    weights = [1.0] * count if work is None else [float(w) for w in work]
    if len(weights) != count:
        raise ValueError(f"work has {len(weights)} estimates for {count} items")
    total = sum(weights)
    if total < min_work:
        with blas_within(blas_threads or resolve_threads(threads), always=blas_threads is not None):
            return _checked(fn(context, list(range(count))), count)
    if chunks is None:
        chunk_list = contiguous_chunks(weights, MAX_CHUNKS)
    else:
        chunk_list = [list(c) for c in chunks if len(c)]
        if sorted(i for c in chunk_list for i in c) != list(range(count)):
            raise ValueError("chunks must hold every item index exactly once")
    allowed = resolve_threads(threads)
    workers = min(allowed, len(chunk_list))
    method = start_method()
    if method != "fork" and total < min_work * SPAWN_FACTOR:
        workers = 1
    if workers > 1 and (_IN_WORKER or _daemonic()):
        workers = 1  # no nested pools; a daemonic process may not have children
    results: list = [None] * count
    bar = _bar(count, desc, unit, workers) if progress else None
    try:
        if workers == 1:
            with blas_within(blas_threads or allowed, always=blas_threads is not None):
                for c in chunk_list:
                    _place(results, c, fn(context, c))
                    if bar is not None:
                        bar.update(len(c))
        else:
            log.debug("%s: %d items in %d chunks, %d %s workers", desc or fn.__name__, count, len(chunk_list),
                      workers, method)
            _pool_map(fn, context, chunk_list, results, workers, blas_threads or allowed // workers, method, bar)
    finally:
        if bar is not None:
            bar.close()
    return results


def _checked(out: Sequence, count: int) -> list:
    out = list(out)
    if len(out) != count:
        raise ValueError(f"the parallel function returned {len(out)} results for {count} items")
    return out


def _place(results: list, chunk: Sequence[int], out: Sequence) -> None:
    out = list(out)
    if len(out) != len(chunk):
        raise ValueError(f"the parallel function returned {len(out)} results for {len(chunk)} items")
    for i, r in zip(chunk, out):
        results[i] = r


def _daemonic() -> bool:
    import multiprocessing

    return bool(multiprocessing.current_process().daemon)


def _bar(count: int, desc: str, unit: str, workers: int):
    """A tqdm bar on a terminal or in a notebook, shown once the work has taken a second; None
    elsewhere (logs, batch jobs: tqdm is not even imported)."""
    stderr = sys.stderr
    if "ipykernel" not in sys.modules and not (stderr is not None and hasattr(stderr, "isatty") and stderr.isatty()):
        return None
    from tqdm.auto import tqdm

    label = f"{desc} ({workers} workers)" if workers > 1 else desc
    return tqdm(total=count, desc=label or None, unit=unit, disable=None, leave=False, delay=1.0)


def _stop_workers(pool) -> None:
    """Terminate the pool's worker processes now (their chunks are dropped), instead of waiting
    for the chunks they run: the workers ignore SIGINT (:func:`_init_worker`), so after a Ctrl-C
    ``shutdown`` would wait for every running chunk (a second or more of parsing each) before the
    command could end.  ``terminate_workers`` is the public method from Python 3.14 on; before
    it, the executor's own table of its processes."""
    stop = getattr(pool, "terminate_workers", None)
    if stop is not None:
        stop()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            process.terminate()
        except (OSError, ValueError):  # already gone
            pass


def _pool_map(fn, context, chunk_list, results, workers, threads_each, method, bar) -> None:
    import multiprocessing as mp
    import warnings
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    done: set[int] = set()
    with warnings.catch_warnings():
        # Python >= 3.12 warns when forking a process that has threads (BLAS, torch, tqdm's
        # monitor).  The workers run only the pure function on inherited data; they take no
        # lock those threads could hold.
        warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
        forked = method == "fork"
        pool = ProcessPoolExecutor(workers, mp_context=mp.get_context(method), initializer=_init_worker,
                                   initargs=(fn, context, chunk_list, threads_each, forked))
        try:
            if forked:  # the workers are forked at the first submit and inherit the caps
                with _thread_caps(threads_each), _gc_frozen():
                    futures = {pool.submit(_run_chunk, 0): 0}
            else:
                futures = {pool.submit(_run_chunk, 0): 0}
            futures.update({pool.submit(_run_chunk, k): k for k in range(1, len(chunk_list))})
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    k = futures[fut]
                    try:
                        out = fut.result()
                    except _Unpicklable as exc:
                        fn(context, chunk_list[exc.k])  # raises the original error here
                        raise RuntimeError(f"a worker failed on chunk {exc.k}: {exc.text}") from None
                    except BrokenProcessPool:
                        continue  # finished below, in this process
                    _place(results, chunk_list[k], out)
                    done.add(k)
                    if bar is not None:
                        bar.update(len(chunk_list[k]))
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                _stop_workers(pool)  # Ctrl-C: the chunks running now are dropped anyway
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
    left = [k for k in range(len(chunk_list)) if k not in done]
    if left:
        log.warning("a worker process died (out of memory?); computing %d of %d chunks in this process",
                    len(left), len(chunk_list))
        for k in left:
            _place(results, chunk_list[k], fn(context, chunk_list[k]))
            if bar is not None:
                bar.update(len(chunk_list[k]))
