"""Claims: each missing cache entry is computed once when live jobs share a cache.

Two sweeps (or leaderboards) started together on an empty cache need the same statistics.
Before computing an entry a job *claims* its key: it creates ``<cache>/claims/<hash>.claim``
atomically (``O_CREAT | O_EXCL``) holding JSON ``{"pid", "host", "started", "pid_start"}``.
Another job that needs the entry and finds the claim taken does the entries nobody holds first,
then waits for the held ones to appear in the cache and reads them (:func:`fill`).  The owner
stores the entry, then removes its claim.

Never blocking for ever:

* a claim whose owner died (``kill -9`` included) is taken over: on the same host when its pid
  is gone (or is another process now: ``pid_start``, the start time in ``/proc/<pid>/stat``);
  on another host when its file's mtime is older than :data:`STALE_AFTER_S` -- a live owner
  touches its claims every :data:`HEARTBEAT_S` seconds from a background thread.  Over NFS
  this compares the server's mtime with this host's clock (``os.utime`` sets the client's
  time): keep the hosts' clocks in sync (NTP) to within a fraction of :data:`STALE_AFTER_S`;
* a job waits at most ``$GEC_META_CLAIM_WAIT`` seconds (default :data:`MAX_WAIT_S`) for
  entries others hold, then computes them itself (logged), e.g. behind an owner that hangs;
* a claim left by an owner that raised is removed on the way out; its waiters compute.

With the cache off (``GEC_META_CACHE=off``) there are no claims.  A job claims every missing
entry that is free and computes them in one batch (as a job alone would: the same calls, the
same numbers), and only then waits for the ones other jobs hold; so two jobs never compute the
same entry, and jobs that need partly different entries (other systems, another order of
metrics) work side by side.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from gec_meta.cache.arrays import entry_exists, load_array, save_array
from gec_meta.cache.entries import COUNTERS
from gec_meta.cache.keys import cache_root, text_hash
from gec_meta.cache.reads import read_entry

log = logging.getLogger("gec_meta")

#: Seconds between two touches of a live job's claims (their mtime is the heartbeat).
HEARTBEAT_S = 5.0
#: A claim of another host not touched for this long belongs to a dead job.
STALE_AFTER_S = 60.0
#: The longest a job waits for entries other jobs hold before computing them itself
#: (``$GEC_META_CLAIM_WAIT`` overrides it).
MAX_WAIT_S = 1800.0
#: Seconds between two looks at the entries waited for.
POLL_S = 0.25
_HOST = socket.gethostname()


def max_wait() -> float:
    """``$GEC_META_CLAIM_WAIT`` (seconds) or :data:`MAX_WAIT_S`."""
    value = os.environ.get("GEC_META_CLAIM_WAIT")
    try:
        return float(value) if value else MAX_WAIT_S
    except ValueError:
        return MAX_WAIT_S


def _process_start(pid: int) -> str | None:
    """The start time of process ``pid`` (field 22 of ``/proc/<pid>/stat``, clock ticks since
    boot), None where there is no ``/proc`` or no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read(4096).decode("ascii", "replace")
        return stat.rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return None


def _is_pid(value) -> bool:
    """Whether a claim's ``pid`` can name one process: a positive int (``os.kill`` reads 0 and
    negative numbers as process groups, so a claim holding one would look alive for ever)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _alive(pid: int, start: str | None) -> bool:
    """Whether process ``pid`` of this host runs, and is the one that started at ``start``."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: alive
    return start is None or _process_start(pid) in (None, start)


class Claims:
    """The claims one job holds in a cache root, kept alive by a heartbeat thread while it
    holds any (use as a context manager: every claim left is released on exit)."""

    def __init__(self, root: Path):
        self.folder = root / "claims"
        self.root = root
        self._held: dict[str, Path] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._me = {"pid": os.getpid(), "host": _HOST, "pid_start": _process_start(os.getpid())}

    def path(self, key: str) -> Path:
        return self.folder / f"{text_hash(key)[:40]}.claim"

    def take(self, key: str) -> bool:
        """Claim ``key``: True if this job now holds it (free, or taken over from a dead owner),
        False if a live job holds it.  True as well when claims cannot be written (a read-only
        cache, a full disk): the caller then computes without one, as without claims."""
        path = self.path(key)
        for _ in range(3):
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                if not self._take_over(path):
                    return False
                continue
            except OSError:  # an unwritable cache: no claims (the cache reports it when storing)
                return True
            try:
                with os.fdopen(fd, "w") as fh:
                    json.dump({**self._me, "started": time.time()}, fh)
            except OSError:  # a full disk: no claim (computed without one)
                path.unlink(missing_ok=True)
                return True
            with self._lock:
                self._held[key] = path
            self._beat()
            COUNTERS["claims_taken"] += 1
            return True
        return False

    def _take_over(self, path: Path) -> bool:
        """Remove the claim ``path`` if its owner is dead; True if it is gone (or was)."""
        try:
            mtime = os.stat(path).st_mtime
        except FileNotFoundError:
            return True
        except OSError:
            return False
        raw = read_entry(path, self.root, "claim")
        try:
            owner = json.loads(raw) if raw else None
        except ValueError:
            owner = None
        # The owner's pid when it names a process of this host; else (another host, a claim being
        # written, a pid no process can have) the claim is stale only when nobody touched it for long.
        local_pid = (owner["pid"] if isinstance(owner, dict) and owner.get("host") == _HOST
                     and _is_pid(owner.get("pid")) else None)
        if local_pid is None:
            if time.time() - mtime < STALE_AFTER_S:
                return False
        elif _alive(local_pid, owner.get("pid_start")):
            return False
        # Move it aside and check it is the claim judged dead (another waiter may have replaced
        # it by a live one meanwhile); put a live one back.
        aside = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.dead")
        try:
            os.rename(path, aside)
        except OSError:
            return not path.exists()
        if read_entry(aside, self.root, "claim") != raw:
            try:
                os.link(aside, path)
            except OSError:
                pass
            aside.unlink(missing_ok=True)
            return False
        aside.unlink(missing_ok=True)
        COUNTERS["claims_recovered"] += 1
        log.warning("gec-meta cache: took over the claim %s of a dead job (%s)", path,
                    f"pid {local_pid} on {_HOST}" if local_pid is not None
                    else f"not touched for {time.time() - mtime:.0f} s")
        return True

    def release(self, key: str) -> None:
        with self._lock:
            path = self._held.pop(key, None)
        if path is not None:
            try:
                os.unlink(path)
            except OSError:
                pass

    def _beat(self) -> None:
        """Start the heartbeat thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="gec-meta-claims", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            with self._lock:
                paths = list(self._held.values())
            for path in paths:
                try:
                    os.utime(path)
                except OSError:
                    pass

    def __enter__(self) -> "Claims":
        return self

    def __exit__(self, *exc) -> None:
        for key in list(self._held):
            self.release(key)
        self._stop.set()


def fill(keys: Sequence[str], todo: Sequence[int], have: Callable[[int], bool],
         compute: Callable[[list[int]], None], root: Path | None, what: str = "entries") -> None:
    """Make the entries ``todo`` (indices into ``keys``) present, computing each in one live job
    of those sharing the cache.

    Args:
        keys: the cache keys, shape (K,).
        todo: the indices of the entries this job lacks.
        have: ``have(i)`` loads entry i from the cache into the caller's hands, True if it is
            there (called for the entries others computed).
        compute: ``compute(indices)`` computes those entries, stores them in the cache and
            keeps them in the caller's hands.
        root: the cache root; None (cache off) computes everything at once, claiming nothing.
        what: the entries' name in the log line of a wait that timed out.
    """
    todo = list(todo)
    if root is None or not todo:
        if todo:
            compute(todo)
        return
    deadline = time.monotonic() + max_wait()
    with Claims(root) as claims:
        waiting: list[int] = []
        while todo or waiting:
            mine: list[int] = []
            for i in todo:
                if claims.take(keys[i]):
                    if have(i):  # stored between our look and our claim
                        claims.release(keys[i])
                    else:
                        mine.append(i)
                else:
                    waiting.append(i)
            todo = []
            if mine:
                try:
                    compute(mine)
                finally:
                    for i in mine:
                        claims.release(keys[i])
                todo, waiting = waiting, []  # freed meanwhile (an owner died): claimed next round
                continue
            waiting = [i for i in waiting if not have(i)]
            if not waiting:
                break
            if time.monotonic() > deadline:
                log.warning("gec-meta cache: waited %.0f s for %d %s other jobs are computing; computing them here",
                            max_wait(), len(waiting), what)
                COUNTERS["claims_timed_out"] += len(waiting)
                compute(waiting)
                break
            time.sleep(POLL_S)
            todo, waiting = waiting, []


def compute_once(key: str, compute: Callable[[], np.ndarray], *, kind: str, about: dict,
                 usable: Callable[[np.ndarray], bool] = lambda array: True) -> np.ndarray:
    """The array stored under ``key`` (:func:`~gec_meta.cache.arrays.load_array`, counted as
    ``kind``) if it is ``usable``, else ``compute()``, stored under ``key`` -- computed by one of
    the live jobs sharing the cache (:func:`fill`; the cache off: computed here, not stored)."""
    root = cache_root()
    found: list[np.ndarray] = []

    def have(_: int, look: bool = True) -> bool:
        if look and not entry_exists(key, root):
            return False
        array = load_array(key, root, kind=kind) if root is not None else None
        if array is not None and usable(array):
            found.append(array)
            return True
        return False

    def run(_: list[int]) -> None:
        found.append(np.asarray(compute()))
        if root is not None:
            save_array(key, found[-1], root, about=about)

    if not have(0, look=False):
        fill([key], [0], have, run, root, what=about.get("what", "entries"))
    return found[-1]
