"""The float kernels are part of the identity of model outputs (gec_meta/kernels.py), and
``make reproduce`` pins the AVX2 ones where the CPU runs them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from gec_meta.kernels import KERNEL_ENV, PORTABLE_KERNELS, cpu_class, float_kernels


@pytest.fixture
def clean_env(monkeypatch):
    for key in KERNEL_ENV:
        monkeypatch.delenv(key, raising=False)
    return monkeypatch


def test_float_kernels_name_the_cpu_and_every_pin(clean_env):
    native = float_kernels()
    assert native == f"cpu={cpu_class()}"
    clean_env.setenv("ATEN_CPU_CAPABILITY", "avx2")
    clean_env.setenv("OPENBLAS_CORETYPE", "Haswell")
    assert float_kernels() == f"cpu={cpu_class()};ATEN_CPU_CAPABILITY=avx2;OPENBLAS_CORETYPE=Haswell"
    assert float_kernels("mps") == "mps"
    assert set(PORTABLE_KERNELS) <= set(KERNEL_ENV)


def test_encoder_states_of_other_kernels_live_apart(clean_env, tmp_path):
    # A cache shared by an AVX2 and an AVX-512 host (or by a pinned and a native run) keeps their
    # states apart: the namespace of the token states and the signature name the kernels.
    from gec_meta.encoders.encoder import Encoder
    from gec_meta.encoders.testing import tiny_bert

    enc = Encoder(str(tiny_bert(tmp_path / "bert")), cache=False)
    native_sig, native_ns = enc.signature(), enc.store.namespace
    assert f"kernels={float_kernels()}" in native_sig
    for key, value in PORTABLE_KERNELS.items():
        clean_env.setenv(key, value)
    pinned = Encoder(str(tmp_path / "bert"), cache=False)
    assert pinned.signature() != native_sig and pinned.store.namespace != native_ns
    assert "ATEN_CPU_CAPABILITY=avx2" in pinned.signature()


def test_reproduce_pins_the_avx2_kernels_unless_asked_not_to(clean_env):
    spec = importlib.util.spec_from_file_location(
        "reproduce_all", Path(__file__).resolve().parents[1] / "experiments" / "reproduce_all.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    clean_env.setenv("OPENBLAS_CORETYPE", "Zen")  # the user's own setting wins
    env, native = mod.experiment_env(False), mod.experiment_env(True)
    assert env["OPENBLAS_CORETYPE"] == "Zen" and native["OPENBLAS_CORETYPE"] == "Zen"
    assert all(key not in native for key in PORTABLE_KERNELS if key != "OPENBLAS_CORETYPE")
    if cpu_class().endswith(("/avx2", "/avx512")):
        assert all(env[key] == value for key, value in PORTABLE_KERNELS.items() if key != "OPENBLAS_CORETYPE")
    else:  # no AVX2 kernels to pin on this CPU
        assert env == native
