"""Run a snippet twice -- as this CPU runs it, and with the kernels of an AVX2 host -- for the
tests that the deterministic statistics give the same bits on every CPU class.

The emulation: numpy's SIMD dispatch capped below AVX-512 (``NPY_DISABLE_CPU_FEATURES``: its
AVX-512 float64 log/exp are numpy's own; below that it calls the C library's) and OpenBLAS's
Haswell kernel (``OPENBLAS_CORETYPE``), the kernels of the family-23 EPYC hosts the committed
reports were made on.  On an AVX2 host both runs take the same kernels, so the check is weaker
there; on a family-25 (AVX-512) host scipy's pearsonr and numpy's log both move under it
(2026-11-29).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from gec_meta.kernels import PORTABLE_KERNELS

#: numpy's and OpenBLAS's part of the package's own AVX2 pin (the deterministic statistics use
#: no torch).
AVX2_KERNELS = {k: PORTABLE_KERNELS[k] for k in ("NPY_DISABLE_CPU_FEATURES", "OPENBLAS_CORETYPE")}


def run_json(script: str, extra_env: dict | None = None):
    """The JSON that ``script`` prints, run in a fresh interpreter with ``extra_env`` added."""
    env = {**os.environ, **(extra_env or {})}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    return json.loads(proc.stdout)


def both_kernels(script: str) -> tuple:
    """(output with this CPU's kernels, output with an AVX2 host's)."""
    return run_json(script), run_json(script, AVX2_KERNELS)
