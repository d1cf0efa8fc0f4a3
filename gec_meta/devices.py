"""Where the neural components run: one function turns a ``device`` option into a torch device.

Every neural component (:class:`gec_meta.encoders.Encoder`, the BARTScore scorer, the causal
LM of Scribendi, the regressors of SOME and IMPARA, the local LLM chat backend) takes a
``device`` option and resolves it here:

* ``auto`` (the default): ``cuda`` when torch sees a CUDA GPU, else ``mps`` (Apple silicon),
  else ``cpu``;
* ``cpu``, ``cuda``, ``cuda:N`` or ``mps``: that device, or a :class:`ConfigError` naming the
  config key when this machine does not have it.

The *resolved* device enters result signatures (``device=cpu``; :func:`devices_of` finds it
in a metric); it never enters a cache key: a model's float32 outputs on another device differ
only by rounding (the PT metrics' tie tolerance absorbs that), so a CPU-filled cache serves a
GPU run and vice versa.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import re
import sys

from gec_meta.errors import ConfigError

#: The values a ``device`` option accepts.
DEVICE_FORMS = ("auto", "cpu", "cuda", "cuda:N", "mps")
_DEVICE = re.compile(r"(auto|cpu|mps|cuda(?::(\d+))?)")

#: The attributes through which :func:`devices_of` reaches a component's sub-components.
_PARTS = ("encoder", "scorer", "llm")


def resolve_device(device: str | None = "auto", config_key: str = "encoder.device") -> str:
    """The torch device a component runs on.

    Args:
        device: ``auto`` (None means the same), ``cpu``, ``cuda``, ``cuda:N`` or ``mps``.
        config_key: the option's config key, named in errors.

    Returns:
        ``cpu``, ``cuda``, ``cuda:N`` or ``mps`` (``auto``: CUDA, then MPS, then CPU).

    Raises:
        ConfigError: an unknown form, or a device this machine does not have.
    """
    name = "auto" if device is None else str(device).strip().lower()
    match = _DEVICE.fullmatch(name)
    if match is None:
        raise ConfigError(f"{config_key}={device!r}: expected one of {', '.join(DEVICE_FORMS)}")
    if name == "cpu" or (name == "auto" and "torch" not in sys.modules and _cpu_only_torch()):
        return "cpu"
    torch = _torch()
    cuda = torch is not None and torch.cuda.is_available()
    mps = torch is not None and _mps_available(torch)
    if name == "auto":
        return "cuda" if cuda else "mps" if mps else "cpu"
    if name == "mps":
        if not mps:
            raise ConfigError(f"{config_key}=mps: this machine has no MPS device (Apple silicon with a "
                              f"torch built for it); use {config_key}=auto or cpu")
        return "mps"
    if not cuda:
        raise ConfigError(f"{config_key}={name}: torch sees no CUDA GPU here "
                          f"({'torch is not installed' if torch is None else 'torch ' + torch.__version__}); "
                          f"use {config_key}=auto or cpu")
    if match.group(2) is not None:
        count = torch.cuda.device_count()
        if int(match.group(2)) >= count:
            raise ConfigError(f"{config_key}={name}: torch sees {count} CUDA device(s) "
                              f"(cuda:0..cuda:{count - 1})")
    return name


def devices_of(component) -> tuple[str, ...]:
    """The resolved devices of a component and of the components it holds (its ``encoder``,
    ``scorer`` and ``llm`` attributes, recursively), distinct and sorted: ``()`` for a
    component without a model (ERRANT, GLEU, a remote LLM), ``("cpu",)`` for BERTScore on
    the CPU.  Components hold ``device`` as a string (resolved or not; it is resolved here)."""
    found: set[str] = set()
    stack, seen = [component], set()
    while stack:
        obj = stack.pop()
        if obj is None or id(obj) in seen:
            continue
        seen.add(id(obj))
        device = getattr(obj, "device", None)
        if isinstance(device, str):
            found.add(resolve_device(device, "device"))
        stack.extend(getattr(obj, part, None) for part in _PARTS)
    return tuple(sorted(found))


def to_device(model, device: str):
    """``model`` moved to ``device`` (a torch ``nn.Module`` moves in place); anything else (a
    test double) is returned as it is."""
    return model.to(device) if hasattr(model, "to") else model


def _torch():
    """torch, or None when it is not installed (then only the CPU exists)."""
    if importlib.util.find_spec("torch") is None:
        return None
    from gec_meta.stopwatch import timed

    with timed("neural_imports"):
        import torch

    return torch


@functools.lru_cache(maxsize=1)
def _cpu_only_torch() -> bool:
    """Whether the installed torch is a CPU-only build (local version ``+cpu``, Linux/Windows
    wheels; macOS wheels carry no tag and may have MPS): then ``auto`` is the CPU, known without
    importing torch (seconds), so a run whose statistics are cached never loads it."""
    try:
        version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return importlib.util.find_spec("torch") is None
    return version.endswith("+cpu") and sys.platform != "darwin"


def _mps_available(torch) -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())
