"""Shared helpers for the benchmarks: timed subprocesses, machine description, results file."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORK = BENCH / ".work"
PY = sys.executable


def cpu_details(cpuinfo: str) -> str:
    """``model name`` of the first CPU of a ``/proc/cpuinfo`` text, with its family, model and
    widest vector extension: ``"AMD EPYC (family 23, model 1, AVX2)"``.

    Cloud machines mask the model name ("AMD EPYC" on every host of these sessions) while hosts of
    different generations sit behind it: on one, numpy's OpenBLAS multiplied spaCy's tok2vec
    matrices ~3x faster than blis, on another (family 23, AVX2) no faster (bench/RESULTS.md,
    "Session 20"), so a result row names the generation too."""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        if not line.strip():
            break  # the first processor's block
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    name = fields.get("model name", "unknown CPU")
    flags = set(fields.get("flags", "").split())
    vector = next((label for flag, label in (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("avx", "AVX")) if flag in flags), None)
    extra = [f"{label} {fields[key]}" for key, label in (("cpu family", "family"), ("model", "model")) if key in fields]
    extra += [vector] if vector else []
    return f"{name} ({', '.join(extra)})" if extra else name


def blis_subconfig(stderr: str) -> str | None:
    """The sub-configuration BLIS reports choosing (``BLIS_ARCH_DEBUG=1``: ``libblis: selecting
    sub-configuration 'zen2'.``), or None where it printed none."""
    for line in stderr.splitlines():
        if "selecting sub-configuration" in line and line.count("'") >= 2:
            return line.split("'")[1]
    return None


def blis_kernel() -> str | None:
    """The kernel set spaCy's blis (cython-blis) picks on this CPU, from a fresh process (BLIS
    chooses once, at its first call).  spaCy's parser multiplies with blis whatever thinc's ops
    use: cython-blis 1.3 knows AMD families up to zen2 and runs its portable reference kernels
    ('generic') on newer ones (family 25, 2026-11-29), so the parser's cost depends on it."""
    code = "import numpy, blis.py; a = numpy.ones((2, 2), dtype='f'); blis.py.gemm(a, a)"
    try:
        proc = subprocess.run([PY, "-c", code], env={**os.environ, "BLIS_ARCH_DEBUG": "1"},
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return blis_subconfig(proc.stderr) if proc.returncode == 0 else None


def machine() -> str:
    try:
        cpu = cpu_details(Path("/proc/cpuinfo").read_text())
    except OSError:
        cpu = "unknown CPU"
    try:  # the kernel numpy's OpenBLAS picked for this CPU (DYNAMIC_ARCH), e.g. Haswell, SkylakeX
        from threadpoolctl import threadpool_info

        import numpy  # noqa: F401  (loads its BLAS, which threadpoolctl then reports)

        blas = [i for i in threadpool_info() if i.get("user_api") == "blas" and i.get("architecture")]
        # numpy's wheel ships its own OpenBLAS (site-packages/numpy.libs), named first even when
        # another library loaded its BLAS before; a numpy built against a system BLAS has no such
        # file, and then the first BLAS threadpoolctl lists is named
        blas.sort(key=lambda i: "numpy" not in os.path.dirname(i.get("filepath") or ""))
        if blas:
            cpu += f", numpy BLAS {blas[0]['internal_api']} {blas[0]['architecture']}"
    except ImportError:
        pass
    kernel = blis_kernel()
    if kernel:
        cpu += f", spaCy's blis {kernel}"
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, Python {platform.python_version()}, {platform.system()}"


def compile_sources() -> None:
    """Byte-compile gec_meta once, as any first run leaves it.

    An editable install has no ``.pyc`` files until a first import writes them, and with
    ``PYTHONDONTWRITEBYTECODE`` set (as on the project machines) every benchmark process would
    compile our ~20 modules from source again (~35 ms, 10% of a warm run), while the peer's
    pip-installed package ships compiled.  ``compileall`` writes them regardless of that flag.
    """
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "gec_meta")], check=True,
                   capture_output=True)


def timed(cmd: list[str], env: dict | None = None, cwd: Path = REPO, timeout: float = 3600) -> dict:
    """Run ``cmd``; return its wall time, its peak RSS (MiB) and its stdout's last JSON line.

    The peak RSS is this child's own: ``os.wait4`` reaps it with its resource usage, whose
    ``ru_maxrss`` is the largest resident set of the child and of the processes it waited for
    (gec-meta's parse workers, a sweep's job processes).  ``RUSAGE_CHILDREN``, read before,
    is the maximum over every child this process has waited for, so a job measured after a
    bigger one was given the bigger one's peak (the peer's PT-ERRANT run showed ours, 1,036 MiB,
    bench/RESULTS.md "Session 32").
    Linux counts a forked child's resident set at the fork (before its exec) in that peak, so
    call this from a small process, as the bench scripts are.

    Raises:
        subprocess.TimeoutExpired: ``cmd`` ran past ``timeout`` seconds (it is killed).
        RuntimeError: ``cmd`` failed (the end of its stderr in the message).
    """
    import tempfile
    import threading

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env={**os.environ, **(env or {})}, stdout=out, stderr=err,
                                text=True)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if wall >= timeout and proc.returncode < 0:
        raise subprocess.TimeoutExpired(cmd, timeout, output=stdout, stderr=stderr)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} failed:\n{stderr[-3000:]}")
    payload = {}
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            payload = json.loads(line)
            break
    # ru_maxrss is in KiB on Linux (bytes on macOS, where these benchmarks have not been run).
    return {"wall_s": wall, "peak_rss_mib": usage.ru_maxrss / 1024, **payload}


def data_dir() -> Path:
    env = os.environ.get("GEC_META_DATA")
    return Path(env) if env else REPO / "data"
