"""The common part of every model wrapper in :mod:`gec_meta.models`: resolution, identity and the
content-addressed result store."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from gec_meta.cache import KeyValueStore, current_store, text_hash
from gec_meta.cache.code import computing_code_version
from gec_meta.devices import resolve_device, to_device
from gec_meta.kernels import float_kernels, pass_rows
from gec_meta.encoders.batching import unique
from gec_meta.models.loading import model_ref, package_version


class CachedModel:
    """A named model whose per-text results are cached under its identity.

    Args:
        model: hub id, local folder, .gguf file or ``pkg://...`` (:mod:`.loading`).
        config_key: the config key named in errors (``metric.model``).
        batch_size: texts per forward pass.
        max_length: tokens kept per text; longer ones are truncated.
        use_cache: keep results on disk (``$GEC_META_CACHE``).
        device: ``auto``, ``cpu``, ``cuda``, ``cuda:N`` or ``mps``
            (:func:`gec_meta.devices.resolve_device`); :attr:`device` holds the resolved one.  Its
            float kernels (:func:`gec_meta.kernels.float_kernels`) are part of :attr:`identity`
            (the cache namespace): other kernels give other last bits, kept apart.
        model_obj, tokenizer_obj: already built objects (tests); ``model`` then only names them
            and nothing is cached on disk.
    """

    kind = "model"  # first field of the identity
    version = "1"  # of the batching code; 1 is left out of the identity (the namespace as before)

    def __init__(self, model: str, config_key: str, batch_size: int, max_length: int,
                 use_cache: bool = True, model_obj=None, tokenizer_obj=None, device: str = "auto"):
        self.name = model
        self.device = resolve_device(device, config_key.rsplit(".", 1)[0] + ".device")
        self.config_key = config_key
        self.batch_size = batch_size
        self.max_length = max_length
        self._model = None if model_obj is None else to_device(model_obj, self.device)
        self._tokenizer = tokenizer_obj
        self.ref = model_ref(model, config_key, model_obj)
        self._use_cache = use_cache and model_obj is None
        self._store: KeyValueStore | None = None

    @property
    def identity(self) -> str:
        """Model identity plus the library versions that can change the numbers."""
        return (f"{self.kind}|{self.ref.identity}|transformers:{package_version('transformers')}"
                f"|torch:{package_version('torch')}|max_length:{self.max_length}"
                + ("" if self.version == "1" else f"|v:{self.version}")
                + f"|kernels:{float_kernels(self.device, pass_rows(self.device, self.batch_size))}")

    @property
    def store_namespace(self) -> str:
        """The namespace of :attr:`store`: :attr:`identity` plus the version of the code that
        computes the stored values (the wrapper's module and what it imports, e.g.
        ``causal_lm.py``'s scoring and the batching), so an edit of that code never reads values
        of the old code, whether or not :attr:`version` was bumped.  Not in :attr:`identity`,
        which names the model in result signatures."""
        return f"{self.identity}|code:{computing_code_version(type(self).__module__)}"

    @property
    def store(self) -> KeyValueStore:
        """The model's score store in the cache folder the process names now (a process-wide
        model, :func:`gec_meta.models.causal_lm.shared_lm`, follows a changed ``GEC_META_CACHE``)."""
        self._store = current_store(self._store, lambda: self.store_namespace, self._use_cache)
        return self._store

    def cached_values(self, items: Sequence, compute: Callable[[list], list], read: Callable[[Any], float] = float
                      ) -> np.ndarray:
        """One float64 value per item, shape (M,): each distinct item's stored result, the missing
        ones computed together by ``compute`` (a list of results, one per item, stored as they are)
        and stored first.

        Args:
            items: shape (M,), texts or tuples of texts (a tuple is keyed by all of its parts).
            compute: distinct items -> their results, in order.
            read: a stored result -> the value returned (e.g. ``lambda r: r[0]``).
        """
        distinct, inverse = unique(list(items))
        keys = [text_hash(*x) if isinstance(x, tuple) else text_hash(x) for x in distinct]
        store = self.store  # one store for the whole call (the property checks the cache folder)
        todo = [i for i, k in enumerate(keys) if k not in store]
        if todo:
            for i, result in zip(todo, compute([distinct[i] for i in todo])):
                store.put(keys[i], result)
            store.flush()
        return np.array([read(store.get(k)) for k in keys], dtype=np.float64)[inverse]
