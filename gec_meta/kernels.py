"""Which floating-point kernels a model's numbers come from: part of their identity.

A float32 matrix product, softmax or GELU is computed by a kernel the library picks for the CPU
(PyTorch's ATen and oneDNN, MKL, numpy's OpenBLAS and its SIMD loops), and kernels for other
instruction sets sum in other orders: the same MiniLM token states differ in their last bits
between an AVX2 and an AVX-512 host, which moved BERTScore's GMEG-FCE Spearman rho under TrueSkill
by 9.5e-2 (sentence comparisons flip on exact ties; README "Reproducing the published numbers").
So model outputs computed with other kernels are other values: the cache namespaces and result
signatures of encoder states and of the language models' outputs name the kernels
(:func:`float_kernels`), and a cache shared by hosts of two CPU classes keeps their values
apart instead of mixing them (a run's numbers would otherwise depend on which host filled the
cache first).

:data:`PORTABLE_KERNELS` are environment settings that make every x86-64 CPU with AVX2 and FMA
run the AVX2 kernels (``make reproduce`` sets them): with them a family-25 AMD EPYC host
(AVX-512) gave the MiniLM numbers of a family-23 one (AVX2) bit for bit (BERTScore on SEEDA
Base, 2026-11-29; the committed reports were made on family-23 hosts).  They act when the
libraries start, so they must be in the environment before Python starts; the namespace reads
them from the environment, and :func:`float_kernels` names them.

The deterministic metrics do not depend on any of this: their statistics are integer counts, and
the correlations are computed without BLAS (:mod:`gec_meta.meta.correlation`).
"""

from __future__ import annotations

import functools
import os
import platform

#: Environment variables that select floating-point kernels at library start-up: PyTorch's ATen
#: vector code, oneDNN, MKL, OpenBLAS (numpy's) and numpy's own SIMD dispatch.
KERNEL_ENV = ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR",
              "OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES")

#: The AVX2 kernels on any x86-64 CPU with AVX2 and FMA (numpy's dispatch capped below AVX-512,
#: OpenBLAS's Haswell kernel, ATen's and oneDNN's AVX2 code, MKL's AVX2 path).
PORTABLE_KERNELS = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "MKL_ENABLE_INSTRUCTIONS": "AVX2",
    "OPENBLAS_CORETYPE": "Haswell",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
}


def _cpu_features() -> dict:
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # pragma: no cover - numpy 1.x
        from numpy.core._multiarray_umath import __cpu_features__
    return dict(__cpu_features__)


def _vendor() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


@functools.lru_cache(maxsize=1)
def cpu_class() -> str:
    """The CPU's architecture, vendor and widest vector instruction set, e.g.
    ``x86_64/AuthenticAMD/avx512`` (what the libraries pick their kernels by; the hardware's, not
    capped by :data:`KERNEL_ENV`)."""
    machine = platform.machine().lower() or "unknown"
    if machine not in ("x86_64", "amd64"):
        return machine
    f = _cpu_features()
    if all(f.get(k) for k in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ")):
        isa = "avx512"
    elif f.get("AVX2") and f.get("FMA3"):
        isa = "avx2"
    else:
        isa = "sse"
    return f"{machine}/{_vendor()}/{isa}"


def float_kernels(device: str = "cpu", rows: int | None = None) -> str:
    """The kernels a computation on ``device`` runs with, for cache namespaces and signatures:
    ``cpu=<cpu_class>`` plus every :data:`KERNEL_ENV` variable that is set, e.g.
    ``cpu=x86_64/AuthenticAMD/avx512;ATEN_CPU_CAPABILITY=avx2;...``; a GPU's name for ``cuda``
    devices (``cuda=NVIDIA H200``), ``mps`` for Apple's, each followed by ``;rows=N`` when its
    passes have ``rows`` rows (:func:`pass_rows`: a GPU's kernels depend on the row count)."""
    dev = str(device)
    shape = "" if rows is None else f";rows={rows}"
    if dev.startswith("cuda"):
        import torch

        index = torch.device(dev).index
        name = torch.cuda.get_device_name(index if index is not None else torch.cuda.current_device())
        return f"cuda={name}{shape}"
    if dev.startswith("mps"):
        return f"mps{shape}"
    pins = [f"{k}={os.environ[k]}" for k in KERNEL_ENV if os.environ.get(k)]
    return ";".join([f"cpu={cpu_class()}", *pins])


def pass_rows(device: str, batch_size: int) -> int | None:
    """The row count of every forward pass on ``device``: None on the CPU, ``batch_size`` on a
    GPU or MPS.

    On the CPU any pass of at least :data:`gec_meta.encoders.batching.MIN_TOKENS` tokens gives a
    row the same bits (that module's docstring).  On a GPU no such threshold exists: measured on
    an NVIDIA H200 (torch 2.11 + CUDA 13; float32 BERTs of MiniLM, base and large shape; texts of
    5-300 tokens), a text's states in a pass of 64 equal-length texts differ by ~1e-6 from its
    states in passes of 1-128 rows, with no row count above which they agree (base, 12 tokens:
    equal at 32, 63 and 128 rows, not at 48 or 96: cuBLAS picks its kernels by the matrix shape),
    while in passes of one shape they are bitwise equal whatever the other texts and the text's
    row.  So there every pass has exactly ``batch_size`` rows (filled by repeating the batch's
    texts) and the count is named in the kernels (:func:`float_kernels`): a value is a function
    of the text, the model, the settings and ``batch_size``, whatever else was computed with it.
    MPS is treated like a GPU (not measured).
    """
    return None if str(device).startswith("cpu") else int(batch_size)


def pass_tokens(device: str, batch_size: int, length: int) -> int:
    """The fewest tokens of a forward pass of texts of ``length`` tokens on ``device``, for
    :func:`gec_meta.encoders.batching.fill_rows`: ``MIN_TOKENS`` on the CPU, exactly
    ``batch_size`` rows elsewhere (:func:`pass_rows`)."""
    from gec_meta.encoders.batching import MIN_TOKENS

    rows = pass_rows(device, batch_size)
    return MIN_TOKENS if rows is None else rows * max(1, length)
