"""The disk store shared by the edit layer's expensive per-pair results: ERRANT's, ChERRANT's and
the generic extractor's edits, m2scorer's lattice matches (:mod:`gec_meta.edits.m2_matches`).

Each keeps its values in a :class:`~gec_meta.cache.KeyValueStore` whose namespace names what
computed them (the tool, its options, the code version of the modules it can run), keyed by the
hash of their inputs.  Values are plain data (JSON), never a pickle.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from gec_meta.cache import KeyValueStore, current_store, entry_exists, save_array, text_hash
from gec_meta.cache.claims import fill
from gec_meta.edits.edit import Edit

# (o_start, o_end, c_start, c_end, o_str, c_str, type): the stored form of an edit.
EditTuple = tuple[int, int, int, int, str, str, str]


class StoredExtractor:
    """An edit extractor's disk store (:class:`~gec_meta.cache.KeyValueStore`), opened lazily in
    the namespace :meth:`namespace` (the extractor's identity), in the cache folder the process
    names *now*: a process that changes ``GEC_META_CACHE`` (or turns the cache off) after a first
    extraction gets a store there, never keeps writing into the first folder."""

    _store: KeyValueStore | None = None

    def namespace(self) -> str:
        raise NotImplementedError

    @property
    def store(self) -> KeyValueStore:
        self._store = current_store(self._store, self.namespace)
        return self._store

    def reset(self) -> None:
        """Forget the open edit store (the next call reopens it, e.g. in a new cache folder)."""
        self._store = None

    def _missing(self, keys: Sequence[str], pairs: Sequence) -> dict[str, object]:
        """The items whose values are not stored yet, each key once (first occurrence), in order."""
        store, todo = self.store, {}
        for key, pair in zip(keys, pairs):
            if key not in store and key not in todo:
                todo[key] = pair
        return todo

    def _compute_once(self, todo: Sequence[str], compute: Callable[[], None], label: str, what: str) -> None:
        """``compute()`` (which stores a value under every key of ``todo``) -- unless another live
        job sharing the cache is computing the same keys (two metrics of one family on one
        dataset, started together): then wait for its values and read them
        (:func:`gec_meta.cache.claims.fill`; the batch's claim key is the keys', its marker a
        tiny array ``label|<hash>`` saved once the values are in the store).

        Args:
            todo: the keys ``compute`` stores.
            label: the marker's prefix, e.g. ``errant-edits-parsed``.
            what: the batches' name in the log line of a wait that timed out.
        """
        store = self.store
        marker = f"{label}|" + text_hash(store.namespace, *sorted(todo))

        def have(_: int) -> bool:
            if not entry_exists(marker, store.root):
                return False
            store.reload()  # the other job's new shard
            return all(k in store for k in todo)

        def run(_: list[int]) -> None:
            compute()
            store.flush()
            save_array(marker, np.zeros(0, dtype=np.int8), store.root, about={"what": f"{what}: values in the store"})

        fill([marker], [0], have, run, store.root if store.folder is not None else None, what=what)

    def _stored(self, keys: Sequence[str]) -> list[tuple[Edit, ...]]:
        """The stored edits of every key, shape (P,) (flushed first; one tuple per distinct key)."""
        store = self.store
        store.flush()
        as_edits: dict[str, tuple[Edit, ...]] = {}
        out = []
        for k in keys:
            edits = as_edits.get(k)
            if edits is None:
                edits = as_edits[k] = tuple(Edit._make(e) for e in store.get(k))
            out.append(edits)
        return out
