"""Edit vectors (Goto et al. 2025, §3.1, Eq. 1).

For a source S (whitespace-tokenised) and its edit set E (ERRANT edits, noop/UNK dropped):

* ``vectorize: remove`` (default, Eq. 1): V(e) = Enc(S_E) - Enc(S_{E minus e}),
  the sentence with all edits minus the sentence with all edits but e (the official code's
  ``ref-remove``);
* ``vectorize: add`` (Table 2 "By adding an edit"): V(e) = Enc(S_{e}) - Enc(S), the source with
  only e applied minus the source (``src-add``).

Enc is :meth:`gec_meta.encoders.Encoder.sentence_embeddings` (ELECTRA-base mean pooling over all
positions incl. special tokens, 128 tokens, in the paper, §4.1 / the official ``embed``).

Speed: :meth:`EditVectorizer.vectors` takes *every* (source, edit set) of a run at once, builds
all the sentences that are not yet known, encodes them in one Encoder call (which deduplicates,
length-batches and caches token states on disk), and stores the finished edit vectors in their
own content-addressed store (namespace = encoder signature + pooling + vectorize), which also
lives in memory for the rest of the process.  A second run (or another lambda of a sweep) reads
the vectors back without touching the encoder at all.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from gec_meta.cache import KeyValueStore, cache_root, text_hash
from gec_meta.cache.code import computing_code_version
from gec_meta.edits.edit import EditKey, apply_edits
from gec_meta.errors import ConfigError

VECTORIZE = ("remove", "add")
VECTOR_DTYPE = np.float32

# One store per (namespace, cache folder) for the whole process (sweeps build a new metric per job).
_STORES: dict[tuple[str, object], KeyValueStore] = {}


def edit_sentences(source: str, edits: Sequence[EditKey], vectorize: str) -> tuple[str, list[str]]:
    """The sentences Eq. 1 encodes for one edit set (edits applied with
    :func:`gec_meta.edits.edit.apply_edits`: left to right, insertions at one position in
    ERRANT's order, as the official code's gecommon ``apply_edits``).

    Returns:
        (base, variants) with len(variants) == len(edits):
        ``remove``: base = S_E, variants[i] = S_{E minus e_i};
        ``add``: base = S, variants[i] = S_{e_i}.
    """
    if vectorize == "remove":
        base = apply_edits(source, edits)
        return base, [apply_edits(source, [e for j, e in enumerate(edits) if j != i]) for i in range(len(edits))]
    if vectorize == "add":
        return " ".join(source.split()), [apply_edits(source, [e]) for e in edits]
    raise ConfigError(f"metric.vectorize must be one of {VECTORIZE}, got {vectorize!r}")


def edit_set_key(source: str, edits: Sequence[EditKey]) -> str:
    """Content key of one (source, edit set)."""
    return text_hash(" ".join(source.split()), *(f"{s}\t{e}\t{c}" for s, e, c in edits))


class EditVectorizer:
    """Edit vectors of many (source, edit set) items with one encoder pass.

    Args:
        encoder: a :class:`gec_meta.encoders.Encoder` (or anything with ``sentence_embeddings``,
            ``signature()``, ``pooling``, ``dim`` and ``use_cache``).
        vectorize: ``remove`` (Eq. 1) or ``add`` (Table 2).
    """

    def __init__(self, encoder, vectorize: str = "remove"):
        if vectorize not in VECTORIZE:
            raise ConfigError(f"metric.vectorize must be one of {VECTORIZE}, got {vectorize!r}")
        if not hasattr(encoder, "sentence_embeddings"):
            raise ConfigError(f"metric.encoder must be an Encoder (encoder=minilm|electra_base|...), got {encoder!r}")
        self.encoder = encoder
        self.vectorize = vectorize
        self.stats = {"requested": 0, "computed_sets": 0, "encoded_sentences": 0}

    def signature(self) -> str:
        """The vector store's namespace: the encoder, the pooling, the vectorisation and the code
        that makes vectors (this module's import closure: an edit of it is never served vectors
        of the old code, whether or not the hand-kept ``v`` was bumped)."""
        # v=2: insertions at one position in ERRANT's order (issue 19.1)
        code = computing_code_version(__name__)
        return (f"uot-edit-vectors|{self.encoder.signature()}|pooling={self.encoder.pooling}"
                f"|vectorize={self.vectorize}|v=2|code:{code}")

    @property
    def store(self) -> KeyValueStore:
        # keyed by the cache folder the process names now (GEC_META_CACHE may change between runs)
        root = cache_root() if getattr(self.encoder, "use_cache", True) else None
        key = (self.signature(), root)
        store = _STORES.get(key)
        if store is None:
            store = _STORES[key] = KeyValueStore(key[0], root, use_default_root=False)
        return store

    def vectors(self, items: Sequence[tuple[str, Sequence[EditKey]]]) -> list[np.ndarray]:
        """Edit vectors of every item.

        Args:
            items: shape (M,), (source, edits) pairs; edits are (start, end, correction).

        Returns:
            shape (M,): float32 arrays of shape (E_m, D), row i = V(edits[i]) (Eq. 1).
            Identical items share one read-only array.
        """
        store = self.store
        keys = [edit_set_key(s, e) for s, e in items]
        self.stats["requested"] += len(items)
        todo: dict[str, tuple[str, tuple[EditKey, ...]]] = {}
        for key, (src, edits) in zip(keys, items):
            if key not in store and key not in todo:
                todo[key] = (src, tuple(edits))
        if todo:
            self._compute(todo)
        return [store.get(k) for k in keys]

    def _compute(self, todo: dict[str, tuple[str, tuple[EditKey, ...]]]) -> None:
        store = self.store
        plans = []
        texts: list[str] = []
        for key, (src, edits) in todo.items():
            if not edits:
                empty = np.zeros((0, self.encoder.dim), dtype=VECTOR_DTYPE)
                empty.setflags(write=False)
                store.put(key, empty)
                continue
            base, variants = edit_sentences(src, edits, self.vectorize)
            plans.append((key, len(texts), len(variants)))
            texts.append(base)
            texts.extend(variants)
        if texts:
            emb = np.asarray(self.encoder.sentence_embeddings(texts), dtype=np.float64)  # (B, D)
            self.stats["encoded_sentences"] += len(texts)
            for key, at, count in plans:
                base = emb[at]
                variants = emb[at + 1: at + 1 + count]
                vec = (base[None, :] - variants) if self.vectorize == "remove" else (variants - base[None, :])
                vec = np.ascontiguousarray(vec, dtype=VECTOR_DTYPE)
                vec.setflags(write=False)
                store.put(key, vec)
        self.stats["computed_sets"] += len(todo)
        store.flush()
