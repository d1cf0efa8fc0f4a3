"""BARTScore (Yuan et al. 2021) as a metric and as a PT-M2 edit scorer.

score(c | r) = (1/|c|) sum_t log p(c_t | c_<t, r): the mean token log-likelihood of the
candidate c (the decoder target, special tokens included, as ``bart_score.BARTScorer.score``)
given the reference r (the encoder input) under a seq2seq model (``AutoModelForSeq2SeqLM``;
facebook/bart-base / bart-large in Gong et al. 2022, whose §3.1 footnote 2 uses the reference
as input and the hypothesis as output).  Higher is better; an empty candidate still has its
special tokens, so the score is always defined.

Speed: distinct (candidate, reference) pairs only, batched by exact (reference, candidate) token
lengths without padding (so a pair's score never depends on its batch:
:mod:`gec_meta.encoders.batching`), and cached on disk per pair (namespace = model identity +
max_length + library versions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from gec_meta.cache import KeyValueStore, text_hash
from gec_meta.cache.code import computing_code_version
from gec_meta.encoders.batching import fill_rows, length_batches, unique
from gec_meta.encoders.encoder import _library_versions
from gec_meta.encoders.loading import load_pretrained, resolve_model
from gec_meta.devices import resolve_device
from gec_meta.errors import ConfigError
from gec_meta.kernels import float_kernels, pass_rows, pass_tokens
from gec_meta.metrics.neural.pair import PairScoreMetric


class BARTScoreScorer:
    """Mean log-likelihood of candidates given references (pair scorer / edit scorer).

    Args:
        model: hub id, local folder or ``pkg://`` (see :mod:`gec_meta.encoders.loading`);
            e.g. ``facebook/bart-base`` (PT-M2's BART scorer).
        revision: hub revision.
        max_length: tokens per side (bart_score's default 1024).
        batch_size: most pairs per forward pass (changes no value on the CPU: not in the signature
            there; a GPU's passes have exactly this many rows, named with its kernels).
        device: ``auto`` (CUDA, then MPS, then CPU), ``cpu``, ``cuda``, ``cuda:N`` or ``mps``
            (:func:`gec_meta.devices.resolve_device`); its float kernels
            (:func:`gec_meta.kernels.float_kernels`) are part of the signature's cache namespace.
        threads: ``torch.set_num_threads`` (None: torch's choice; configs pass the run's ``threads``).
        cache: use the on-disk cache.
    """

    name: ClassVar[str] = "bartscore"
    unit_weights: ClassVar[bool] = False

    def __init__(self, model: str, revision: str | None = None, max_length: int = 1024,
                 batch_size: int = 16, device: str = "auto", threads: int | None = None,
                 cache: bool = True):
        if batch_size < 1:
            raise ConfigError(f"scorer.batch_size must be >= 1, got {batch_size}")
        self.source = resolve_model(model)
        self.revision = revision
        self.max_length = int(max_length)
        self.batch_size = int(batch_size)
        self.device = resolve_device(device, "scorer.device")
        self.threads = threads
        self.use_cache = cache
        self._model = self._tokenizer = self._store = None

    def signature(self) -> str:
        rev = "local" if self.source.local else (self.revision or "default")
        return (f"bartscore(model={self.source.identity},rev={rev},maxlen={self.max_length},{_library_versions()},"
                f"kernels={float_kernels(self.device, pass_rows(self.device, self.batch_size))},v=2)")  # v=2: unpadded

    @property
    def store(self) -> KeyValueStore:
        """Log-likelihoods on disk, namespace = :meth:`signature` plus the version of this
        module's code (its scoring and batching: an edit of them never reads the old code's
        values, whether or not ``v`` was bumped; not in the signature, which results print)."""
        if self._store is None:
            namespace = f"{self.signature()}|code:{computing_code_version(__name__)}"
            self._store = KeyValueStore(namespace, use_default_root=self.use_cache)
        return self._store

    def _load(self):
        if self._model is None:
            import torch
            from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

            from gec_meta.parallel import cap_threads

            if cap_threads(self.threads):  # at most the cores this process may use
                torch.set_num_threads(cap_threads(self.threads))
            self._tokenizer = load_pretrained(AutoTokenizer, self.source, self.revision, what="tokenizer",
                                              config_key="scorer.model")
            model = load_pretrained(AutoModelForSeq2SeqLM, self.source, self.revision, what="model",
                                    config_key="scorer.model")
            self._model = model.eval().to(self.device)
        return self._model, self._tokenizer

    def score(self, cands: Sequence[str], refs: Sequence[str], idf_sentences=None) -> np.ndarray:
        """Mean token log-likelihood of every candidate given its reference, shape (B,)."""
        if len(cands) != len(refs):
            raise ValueError(f"{len(cands)} candidates but {len(refs)} references")
        pairs, inverse = unique(list(zip(cands, refs)))
        keys = [text_hash(c, r) for c, r in pairs]
        todo = [i for i, k in enumerate(keys) if k not in self.store]
        if todo:
            self._compute([pairs[i] for i in todo], [keys[i] for i in todo])
        values = np.array([self.store.get(k) for k in keys], dtype=np.float64)
        return values[inverse] if len(cands) else np.zeros(0)

    def _compute(self, pairs, keys) -> None:
        import torch

        model, tok = self._load()
        src = tok([r for _, r in pairs], max_length=self.max_length, truncation=True)["input_ids"]
        tgt = tok([c for c, _ in pairs], max_length=self.max_length, truncation=True)["input_ids"]
        # Pairs of one (reference length, candidate length) per batch, unpadded: a pair's score
        # does not depend on the other pairs of its batch (gec_meta.encoders.batching).
        with torch.inference_mode():
            for idx in length_batches([(len(src[i]), len(tgt[i])) for i in range(len(pairs))], self.batch_size):
                n = min(len(src[idx[0]]), len(tgt[idx[0]]))
                rows = fill_rows(idx, n, pass_tokens(self.device, self.batch_size, n))  # >= MIN_TOKENS (repeats)
                input_ids = torch.tensor([src[i] for i in rows], dtype=torch.long, device=self.device)
                labels = torch.tensor([tgt[i] for i in rows], dtype=torch.long, device=self.device)
                out = model(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), labels=labels)
                logp = torch.log_softmax(out.logits.float(), dim=-1)
                mean = logp.gather(-1, labels.unsqueeze(-1)).squeeze(-1).mean(dim=1)  # (B,)
                for i, v in zip(idx, mean.cpu().tolist()):
                    self.store.put(keys[i], float(v))
        self.store.flush()


@dataclass(frozen=True)
class BARTScore(PairScoreMetric):
    """BARTScore r -> h as a sentence-level metric (Gong et al. 2022, Table 4): best reference
    per sentence, corpus = mean.  Statistics shape (S, N, R, 1)."""

    name: ClassVar[str] = "bartscore"
    version: ClassVar[str] = "1"

    def statistics(self, sources, hypotheses, references) -> np.ndarray:
        cands, refs = self.pairs(hypotheses, references)
        return self.scorer.score(cands, refs).reshape(len(hypotheses), len(sources), len(references), 1)
