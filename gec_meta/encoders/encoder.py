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
zero), groups them by exact token length, runs batches of at most ``batch_size`` texts of one
length, restores the order and caches each sequence's hidden states on disk
(:class:`gec_meta.cache.ArrayStore`, memory-mapped shards; namespace = :meth:`Encoder.signature`).
The forward pass stops at the layer in use (:mod:`.forward`, exact); the next batch's inputs are
built while the current one runs; the states stay on the device until a chunk of batches is
complete, then move to host memory in one transfer and are written to the cache by a background
thread.

Order independence: batches of one exact length are never padded (attention mask all ones) and
hold at least 256 tokens (:func:`.batching.fill_rows`; on a GPU exactly ``batch_size`` texts, a
setting there, :func:`gec_meta.kernels.pass_rows`), so a text's states are a function of the
text, the model and the settings only -- bit-identical whether it is encoded alone, with any
other texts, in any order or after any cache fill (:mod:`.batching`;
``tests/test_order_independence.py``).  Padded batches (before signature ``v=2``) moved states by
~1e-6 with the other texts of a batch.

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
import itertools
import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gec_meta.cache import ArrayStore, text_hash
from gec_meta.cache.code import computing_code_version
from gec_meta.devices import resolve_device
from gec_meta.errors import ConfigError
from gec_meta.encoders.batching import fill_rows, length_batches, unique
from gec_meta.encoders.forward import LayerForward, batch_inputs, prefetch
from gec_meta.encoders.loading import ModelSource, load_pretrained, resolve_model
from gec_meta.kernels import float_kernels, pass_rows, pass_tokens
from gec_meta.stopwatch import TIMES, timed

POOLINGS = ("mean", "cls")
STORE_DTYPE = np.float32
#: ``encoder.dtype`` values: the dtype the model computes in (states are stored as float32).
DTYPES = ("float32", "bfloat16", "float16")
#: Device-resident states that make one transfer to host memory and one cache shard.
CHUNK_BYTES = 64 * 2**20
#: config.json keys of the layer count and width, read without importing transformers (local
#: models); other model types go through ``AutoConfig``.
_CONFIG_KEYS = {"distilbert": ("n_layers", "dim")}
_DEFAULT_CONFIG_KEYS = ("num_hidden_layers", "hidden_size")


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


def _ids_and_special(seqs: Sequence[Sequence[int]], special: frozenset[int]) -> tuple[list, list]:
    """Each token sequence as an int64 array, shape (T_i,), and its special-token mask, shape
    (T_i,) bool: views of one array each, so one ``np.isin`` serves every text (one call per
    text cost ~0.4 s of the 13,386 distinct texts of a GJG15 run; together ~0.09 s)."""
    if not seqs:
        return [], []
    lengths = np.fromiter(map(len, seqs), np.int64, len(seqs))
    flat = np.fromiter(itertools.chain.from_iterable(seqs), np.int64, int(lengths.sum()))
    mask = np.isin(flat, np.fromiter(special, np.int64, len(special)))
    cuts = np.cumsum(lengths)[:-1]
    return np.split(flat, cuts), np.split(mask, cuts)


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
        batch_size: most texts per forward pass (texts of one token length share a batch); does
            not change any value (no padding), hence not in :meth:`signature`.
        device: ``auto`` (CUDA, then MPS, then CPU), ``cpu``, ``cuda``, ``cuda:N`` or ``mps``
            (:func:`gec_meta.devices.resolve_device`); :attr:`device` holds the resolved one.
            Not part of :meth:`signature` (the cache namespace): states computed on any device
            are served to every device.
        threads: ``torch.set_num_threads``; None = torch's own choice (configs pass the run's
            ``threads``).
        dtype: ``float32`` (default), or ``bfloat16`` / ``float16``: the model's weights and
            computation in half precision (GPU speed; states change at ~1e-3, see README
            "Speed"); named in :meth:`signature`, hence in the cache namespace.
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
        dtype: str = "float32",
    ):
        if pooling not in POOLINGS:
            raise ConfigError(f"encoder.pooling must be one of {POOLINGS}, got {pooling!r}")
        if max_length < 2:
            raise ConfigError(f"encoder.max_length must be >= 2, got {max_length}")
        if batch_size < 1:
            raise ConfigError(f"encoder.batch_size must be >= 1, got {batch_size}")
        if dtype not in DTYPES:
            raise ConfigError(f"encoder.dtype must be one of {DTYPES}, got {dtype!r}")
        self.model_name = model
        self.revision = revision
        self._layer = layer
        self.pooling = pooling
        self.max_length = int(max_length)
        self.batch_size = int(batch_size)
        self.device = resolve_device(device, "encoder.device")
        self.threads = threads
        self.dtype = dtype
        self.tokenizer_options = dict(tokenizer_options or {})
        self.progress = progress
        self.use_cache = cache
        self.source: ModelSource = resolve_model(model)
        self._tokenizer = None
        self._model = None
        self._config = None
        self._config_json: dict | None = None
        self._forward: LayerForward | None = None
        self._store: ArrayStore | None = None
        self.stats = {"requested": 0, "distinct": 0, "computed": 0}

    # ----------------------------------------------------------------- loading
    @property
    def config(self):
        if self._config is None:
            from transformers import AutoConfig

            self._config = load_pretrained(AutoConfig, self.source, self.revision, what="config")
        return self._config

    def _shape_value(self, which: int) -> int:
        """The layer count (0) or width (1) of the model: from a local model's config.json
        without importing transformers (a warm run then never loads torch), else from
        ``AutoConfig``."""
        if self._config is None and self.source.local:
            if self._config_json is None:
                import json
                from pathlib import Path

                try:
                    self._config_json = json.loads((Path(self.source.path) / "config.json").read_text("utf-8"))
                except (OSError, ValueError):
                    self._config_json = {}
            keys = _CONFIG_KEYS.get(self._config_json.get("model_type"), _DEFAULT_CONFIG_KEYS)
            value = self._config_json.get(keys[which])
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        return int(self.config.num_hidden_layers if which == 0 else self.config.hidden_size)

    @property
    def num_layers(self) -> int:
        return self._shape_value(0)

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
        return self._shape_value(1)

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            with timed("neural_imports"):
                from transformers import AutoTokenizer

            with timed("model_load"):
                self._tokenizer = load_pretrained(
                    AutoTokenizer, self.source, self.revision, what="tokenizer", **self.tokenizer_options
                )
        return self._tokenizer

    @property
    def model(self):
        if self._model is None:
            with timed("neural_imports"):
                import torch
                from transformers import AutoModel

            from gec_meta.parallel import cap_threads

            if cap_threads(self.threads):  # at most the cores this process may use
                torch.set_num_threads(cap_threads(self.threads))
            with timed("model_load"):
                model = load_pretrained(AutoModel, self.source, self.revision, what="model").eval()
                self._model = model.to(self.device, getattr(torch, self.dtype))
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
        ``encoder(model=...,rev=...,layer=6,maxlen=512,transformers:5.2|torch:2.13,kernels=cpu=...)``
        (the float kernels of the device, :func:`gec_meta.kernels.float_kernels`: other kernels
        give other last bits).

        Pooling is not part of it: pooled vectors are computed from the (cached) token states.
        """
        if self.source.local:
            rev = "local"
        else:
            rev = self.revision or getattr(self.config, "_commit_hash", None) or "default"
        dtype = "" if self.dtype == "float32" else f"dtype={self.dtype},"  # float32: the signature as before
        return (
            f"encoder(model={self.source.identity},rev={rev},layer={self.layer},"
            f"maxlen={self.max_length},opts={sorted(self.tokenizer_options.items())},{dtype}"
            f"{_library_versions()},kernels={float_kernels(self.device, pass_rows(self.device, self.batch_size))},"
            "v=2)"  # v=2: unpadded equal-length batches
        )

    @property
    def store(self) -> ArrayStore:
        """Token states on disk, memory-mapped (:class:`gec_meta.cache.ArrayStore`): a dataset's
        states are read page by page, never all held in RAM."""
        if self._store is None:
            namespace = f"token-states|code:{computing_code_version(__name__)}|" + self.signature()
            self._store = ArrayStore(namespace, STORE_DTYPE, use_default_root=self.use_cache)
        return self._store

    # ----------------------------------------------------------------- tokenisation
    def tokenize(self, texts: Sequence[str]) -> list[tuple[int, ...]]:
        """Token ids (with special tokens, truncated to ``max_length``) of every text, shape (B,)."""
        if not texts:
            return []
        tokenizer = self.tokenizer
        with timed("tokenize"):
            # only the ids: building each text's attention mask and token types costs ~15% of
            # tokenising (13,386 GJG15 texts, MiniLM's tokenizer: 0.94-1.03 -> 0.82-0.85 s)
            enc = tokenizer(
                [t.strip() for t in texts], add_special_tokens=True, truncation=True,
                max_length=self.max_length, return_attention_mask=False, return_token_type_ids=False,
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
        id_arrays, special = _ids_and_special(distinct, self.special_ids)
        out_distinct = [TokenEmbeddings(*parts) for parts in zip(id_arrays, vectors, special)]
        return [out_distinct[j] for j in inverse]

    def _compute(self, seqs: list[tuple[int, ...]], keys: list[str]) -> None:
        """Hidden states of ``seqs`` into the store under ``keys`` (both shape (M,))."""
        import torch
        from tqdm.auto import tqdm

        model = self.model
        if self._forward is None:
            self._forward = LayerForward(model, self.num_layers, self.layer)
        lengths = [len(s) for s in seqs]
        batches = length_batches(lengths, self.batch_size)
        if self._forward.truncated is None:  # its check runs the first batch twice: the shortest
            batches = batches[-1:] + batches[:-1]
        bar = tqdm(
            total=len(seqs), desc=f"encode {self.source.name} L{self.layer}", unit="text", leave=False,
            disable=True if (not self.progress or len(seqs) < 500) else None,
        )
        self.stats["computed"] += len(seqs)
        device, D = self.device, self.dim
        chunk: list = []  # device tensors (rows, D) of finished batches
        chunk_idx: list[np.ndarray] = []
        chunk_bytes = 0
        start, cache_before = time.perf_counter(), TIMES["cache_write"]
        with torch.inference_mode():
            # at least MIN_TOKENS tokens per pass, or batch_size rows on a GPU (the batch's texts
            # repeated; the repeats dropped)
            fill = lambda idx: fill_rows(  # noqa: E731
                idx, lengths[idx[0]], pass_tokens(device, self.batch_size, lengths[idx[0]]))
            build = lambda idx: batch_inputs([seqs[i] for i in fill(idx)])  # noqa: E731
            for idx, (ids, mask) in prefetch(batches, build):
                states = self._forward(torch.from_numpy(ids).to(device, non_blocking=True),
                                       torch.from_numpy(mask).to(device, non_blocking=True))
                flat = states[: len(idx)].reshape(-1, states.shape[-1])  # (B * T, D), text after text
                chunk.append(flat.to(torch.float32))
                chunk_idx.append(idx)
                chunk_bytes += 4 * D * int(sum(lengths[i] for i in idx))
                if chunk_bytes >= CHUNK_BYTES:
                    self._store_chunk(chunk, chunk_idx, lengths, keys)
                    chunk, chunk_idx, chunk_bytes = [], [], 0
                bar.update(len(idx))
            if chunk:
                self._store_chunk(chunk, chunk_idx, lengths, keys)
        # the forward passes and transfers, without the hand-over to the cache (timed apart)
        TIMES["encode"] += time.perf_counter() - start - (TIMES["cache_write"] - cache_before)
        bar.close()
        with timed("cache_write"):
            self.store.flush()

    def _store_chunk(self, chunk: list, chunk_idx: list[np.ndarray], lengths: list[int], keys: list[str]) -> None:
        """Move a chunk of batches' states to host memory in one transfer and hand them to the
        store as one block (written by a background thread)."""
        import torch

        host = (torch.cat(chunk) if len(chunk) > 1 else chunk[0]).cpu().numpy()  # (rows, D)
        idx = np.concatenate(chunk_idx)
        D = host.shape[1]
        with timed("cache_write"):
            store = self.store
            store.put_block([keys[i] for i in idx], host, [(lengths[i], D) for i in idx])
            store.flush(wait=False)

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
