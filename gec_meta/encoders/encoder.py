"""A small Encoder interface over ``transformers`` (after COMET's ``encoders/base.py``).

An :class:`Encoder` turns texts into the hidden states of one layer of a pretrained
transformer:

* :meth:`Encoder.token_embeddings` - per text an array of shape (T_i, D) plus the token ids and
  a mask of the special positions ([CLS]/[SEP], <s>/</s>);
* :meth:`Encoder.sentence_embeddings` - shape (B, D), pooled over the tokens of that layer
  (``mean`` over all positions *including* special tokens, as UOT-ERRANT's ELECTRA pooling
  does, or ``cls``).

Speed (after bert_score's ``utils.py``): every call tokenises its texts, deduplicates them by
*token-id sequence* (texts that tokenise identically, e.g. differing only in case under an
uncased model, get bitwise identical embeddings, so score differences between them are exactly
zero), sorts them by length, runs batches of ``batch_size``, restores the order and caches
each sequence's hidden states on disk (:class:`gec_meta.cache.ArrayStore`, memory-mapped
shards; namespace = :meth:`Encoder.signature`).

Cache precision: arrays are stored as **float32**, the dtype the CPU forward pass produces,
so a cached run returns exactly what an uncached run computes (cache hit == miss bitwise) and
score differences of near-identical sentences (PT-M2 edit weights are differences of scores
of the order of 1e-3) are not blurred by float16 rounding (relative error 5e-4 per
component).  The price is disk: about 4 * T * D bytes per distinct sentence (~45 kB for a
30-token sentence with MiniLM, D = 384).
"""

from __future__ import annotations

import functools
import importlib.metadata as md
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gec_meta.cache import ArrayStore, code_version, text_hash
from gec_meta.devices import resolve_device
from gec_meta.errors import ConfigError
from gec_meta.encoders.batching import length_batches, unique
from gec_meta.encoders.loading import ModelSource, load_pretrained, resolve_model

POOLINGS = ("mean", "cls")
STORE_DTYPE = np.float32


@dataclass(frozen=True)
class TokenEmbeddings:
    """Hidden states of one text.

    Attributes:
        ids: shape (T,), token ids (with special tokens).
        vectors: shape (T, D), float32 hidden states of the encoder's layer.
        special: shape (T,), True at special positions ([CLS], [SEP], <s>, </s>).
    """

    ids: np.ndarray
    vectors: np.ndarray
    special: np.ndarray


@functools.lru_cache(maxsize=None)
def _library_versions() -> str:
    out = []
    for pkg in ("transformers", "torch", "tokenizers"):
        try:
            out.append(f"{pkg}:{md.version(pkg)}")
        except md.PackageNotFoundError:
            pass
    return "|".join(out)


class Encoder:
    """Hidden states of one layer of a pretrained transformer encoder.

    Args:
        model: hub id, local folder or ``pkg://package/folder`` (:mod:`.loading`).
        revision: hub revision (commit, tag or branch); None = the cached default.
        layer: hidden-state index (0 = embeddings, L = last layer); None = last; negative
            values count from the end (-1 = last).  bert_score's default for bert-base-uncased
            is 9 (Zhang et al. 2020, Appendix / ``model2layers``).
        pooling: ``mean`` (over all positions incl. special tokens) or ``cls``.
        max_length: tokens per text incl. special tokens (longer texts are truncated).
        batch_size: texts per forward pass.
        device: ``auto`` (CUDA, then MPS, then CPU), ``cpu``, ``cuda``, ``cuda:N`` or ``mps``
            (:func:`gec_meta.devices.resolve_device`); :attr:`device` holds the resolved one.
            Not part of :meth:`signature` (the cache namespace): states computed on any device
            are served to every device.
        threads: ``torch.set_num_threads``; None = torch's own choice (configs pass the run's
            ``threads``).
        tokenizer_options: extra ``AutoTokenizer.from_pretrained`` options (e.g.
            ``add_prefix_space`` for RoBERTa, as bert_score does).
        progress: show a tqdm bar for long work.
        cache: use the on-disk cache (``$GEC_META_CACHE``).
    """

    def __init__(
        self,
        model: str,
        revision: str | None = None,
        layer: int | None = None,
        pooling: str = "mean",
        max_length: int = 512,
        batch_size: int = 64,
        device: str = "auto",
        threads: int | None = None,
        tokenizer_options: dict | None = None,
        progress: bool = True,
        cache: bool = True,
    ):
        if pooling not in POOLINGS:
            raise ConfigError(f"encoder.pooling must be one of {POOLINGS}, got {pooling!r}")
        if max_length < 2:
            raise ConfigError(f"encoder.max_length must be >= 2, got {max_length}")
        if batch_size < 1:
            raise ConfigError(f"encoder.batch_size must be >= 1, got {batch_size}")
        self.model_name = model
        self.revision = revision
        self._layer = layer
        self.pooling = pooling
        self.max_length = int(max_length)
        self.batch_size = int(batch_size)
        self.device = resolve_device(device, "encoder.device")
        self.threads = threads
        self.tokenizer_options = dict(tokenizer_options or {})
        self.progress = progress
        self.use_cache = cache
        self.source: ModelSource = resolve_model(model)
        self._tokenizer = None
        self._model = None
        self._config = None
        self._store: ArrayStore | None = None
        self.stats = {"requested": 0, "distinct": 0, "computed": 0}

    # ----------------------------------------------------------------- loading
    @property
    def config(self):
        if self._config is None:
            from transformers import AutoConfig

            self._config = load_pretrained(AutoConfig, self.source, self.revision, what="config")
        return self._config

    @property
    def num_layers(self) -> int:
        return int(self.config.num_hidden_layers)

    @property
    def layer(self) -> int:
        """The resolved hidden-state index (0 .. num_layers)."""
        L = self.num_layers
        layer = L if self._layer is None else int(self._layer)
        if layer < 0:
            layer += L + 1
        if not 0 <= layer <= L:
            raise ConfigError(f"encoder.layer={self._layer} is out of range for {self.model_name} ({L} layers)")
        return layer

    @property
    def dim(self) -> int:
        return int(self.config.hidden_size)

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            from transformers import AutoTokenizer

            self._tokenizer = load_pretrained(
                AutoTokenizer, self.source, self.revision, what="tokenizer", **self.tokenizer_options
            )
        return self._tokenizer

    @property
    def model(self):
        if self._model is None:
            import torch
            from transformers import AutoModel

            if self.threads:
                torch.set_num_threads(int(self.threads))
            model = load_pretrained(AutoModel, self.source, self.revision, what="model")
            model.eval()
            self._model = model.to(self.device)
        return self._model

    @property
    def special_ids(self) -> frozenset[int]:
        """Ids excluded from token matching: CLS/SEP/BOS/EOS/PAD (not UNK, as bert_score)."""
        tok = self.tokenizer
        ids = (tok.cls_token_id, tok.sep_token_id, tok.bos_token_id, tok.eos_token_id, tok.pad_token_id)
        return frozenset(int(i) for i in ids if i is not None)

    # ----------------------------------------------------------------- identity
    def signature(self) -> str:
        """Everything that changes the token embeddings, e.g.
        ``encoder(model=...,rev=...,layer=6,maxlen=512,transformers:5.2|torch:2.13)``.

        Pooling is not part of it: pooled vectors are computed from the (cached) token states.
        """
        rev = self.revision or getattr(self.config, "_commit_hash", None) or "default"
        if self.source.local:
            rev = "local"
        return (
            f"encoder(model={self.source.identity},rev={rev},layer={self.layer},"
            f"maxlen={self.max_length},opts={sorted(self.tokenizer_options.items())},"
            f"{_library_versions()},v=1)"
        )

    @property
    def store(self) -> ArrayStore:
        """Token states on disk, memory-mapped (:class:`gec_meta.cache.ArrayStore`): a dataset's
        states are read page by page, never all held in RAM."""
        if self._store is None:
            namespace = f"token-states|code:{code_version('encoders')}|" + self.signature()
            self._store = ArrayStore(namespace, STORE_DTYPE, use_default_root=self.use_cache)
        return self._store

    # ----------------------------------------------------------------- tokenisation
    def tokenize(self, texts: Sequence[str]) -> list[tuple[int, ...]]:
        """Token ids (with special tokens, truncated to ``max_length``) of every text, shape (B,)."""
        if not texts:
            return []
        enc = self.tokenizer(
            [t.strip() for t in texts], add_special_tokens=True, truncation=True,
            max_length=self.max_length,
        )
        return [tuple(ids) for ids in enc["input_ids"]]

    # ----------------------------------------------------------------- embeddings
    def token_embeddings(self, texts: Sequence[str]) -> list[TokenEmbeddings]:
        """Hidden states of layer :attr:`layer` for every text.

        Args:
            texts: shape (B,).

        Returns:
            shape (B,): per text ids (T_i,), vectors (T_i, D) float32, special mask (T_i,).
            Identical token sequences share one (read-only) array.
        """
        ids = self.tokenize(texts)
        distinct, inverse = unique(ids)
        self.stats["requested"] += len(texts)
        self.stats["distinct"] += len(distinct)
        keys = [text_hash(" ".join(map(str, seq))) for seq in distinct]
        store = self.store
        # get() verifies each stored array: a corrupt one reads as missing and is recomputed.
        vectors = [store.get(k) if k in store else None for k in keys]
        todo = [i for i, v in enumerate(vectors) if v is None]
        if todo:
            self._compute([distinct[i] for i in todo], [keys[i] for i in todo])
            for i in todo:
                vectors[i] = store.get(keys[i])
        special = self.special_ids
        out_distinct = []
        for seq, vec in zip(distinct, vectors):
            arr = np.asarray(seq, dtype=np.int64)
            out_distinct.append(TokenEmbeddings(arr, vec, np.isin(arr, list(special))))
        return [out_distinct[j] for j in inverse]

    def _compute(self, seqs: list[tuple[int, ...]], keys: list[str]) -> None:
        import torch
        from tqdm.auto import tqdm

        model = self.model
        layer = self.layer
        pad = self.tokenizer.pad_token_id or 0
        batches = length_batches([len(s) for s in seqs], self.batch_size)
        bar = tqdm(
            total=len(seqs), desc=f"encode {self.source.name} L{layer}", unit="text", leave=False,
            disable=True if (not self.progress or len(seqs) < 500) else None,
        )
        self.stats["computed"] += len(seqs)
        with torch.inference_mode():
            for idx in batches:
                batch = [seqs[i] for i in idx]
                T = max(len(s) for s in batch)
                input_ids = torch.full((len(batch), T), pad, dtype=torch.long)
                mask = torch.zeros((len(batch), T), dtype=torch.long)
                for b, s in enumerate(batch):
                    input_ids[b, : len(s)] = torch.tensor(s, dtype=torch.long)
                    mask[b, : len(s)] = 1
                out = model(
                    input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device),
                    output_hidden_states=True,
                )
                states = out.hidden_states[layer].to(torch.float32).cpu().numpy()
                for b, i in enumerate(idx):
                    vec = np.ascontiguousarray(states[b, : len(seqs[i])], dtype=STORE_DTYPE)
                    vec.setflags(write=False)
                    self.store.put(keys[i], vec)
                bar.update(len(idx))
        bar.close()
        self.store.flush()

    def sentence_embeddings(self, texts: Sequence[str]) -> np.ndarray:
        """Pooled hidden states, shape (B, D) float32.

        ``mean``: average over all T_i positions, special tokens included (UOT-ERRANT's
        ELECTRA mean pooling, Goto et al. 2025 §4); ``cls``: the first position.
        """
        toks = self.token_embeddings(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(toks):
            out[i] = t.vectors.mean(axis=0) if self.pooling == "mean" else t.vectors[0]
        return out

    def __repr__(self) -> str:
        return f"Encoder({self.model_name!r}, layer={self._layer}, pooling={self.pooling!r})"
