"""The benchmarks' machine description names the CPU's generation, not only its (masked) model
name: hosts behind the same "AMD EPYC" differ ~3x in the BLAS speed spaCy's parses depend on
(bench/RESULTS.md, "Session 20")."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def cpu_details(monkeypatch):
    """bench/common.py's ``cpu_details``, imported as the bench scripts import it (the bench
    folder on the path, as tests/test_bench_options.py does)."""
    monkeypatch.syspath_prepend(str(REPO / "bench"))
    return importlib.import_module("common").cpu_details

# Two processors of a /proc/cpuinfo, abridged; only the first one's block is read.
CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 23
model\t\t: 1
model name\t: AMD EPYC
flags\t\t: fpu sse sse2 avx fma avx2 bmi2

processor\t: 1
cpu family\t: 25
model name\t: Something else
flags\t\t: avx512f avx2
"""


def test_names_family_model_and_widest_vector_extension_of_the_first_cpu(cpu_details):
    assert cpu_details(CPUINFO) == "AMD EPYC (family 23, model 1, AVX2)"
    avx512 = CPUINFO.replace("bmi2", "avx512f bmi2")
    assert cpu_details(avx512) == "AMD EPYC (family 23, model 1, AVX-512)"


def test_missing_fields_leave_what_is_known(cpu_details):
    assert cpu_details("model name\t: Some CPU\n") == "Some CPU"
    assert cpu_details("") == "unknown CPU"
    assert cpu_details("cpu family\t: 6\nflags\t: sse2\n") == "unknown CPU (family 6)"


def test_blis_subconfig_is_read_from_its_debug_line(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "bench"))
    blis_subconfig = importlib.import_module("common").blis_subconfig
    assert blis_subconfig("libblis: selecting sub-configuration 'generic'.\n") == "generic"
    assert blis_subconfig("other\nlibblis: selecting sub-configuration 'zen2'.") == "zen2"
    assert blis_subconfig("") is None
