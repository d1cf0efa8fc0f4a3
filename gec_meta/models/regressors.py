"""BERT-style sentence models for SOME and IMPARA: batched, length-sorted, disk-cached.

* :class:`SequenceRegressor` — ``AutoModelForSequenceClassification`` with one output; the
  raw logit of a sentence or a sentence pair.
* :class:`MeanPooledSimilarity` — ``AutoModel`` last hidden states mean-pooled over the
  attention mask, cosine similarity of two sentences (IMPARA's similarity estimator, Maeda
  et al. 2022 §3.2).

Both take an already built model/tokenizer (tests) or a name resolved by :mod:`.loading`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from gec_meta.cache import text_hash
from gec_meta.encoders.batching import length_batches, unique
from gec_meta.models.cached import CachedModel
from gec_meta.models.loading import load


class _Base(CachedModel):
    auto_class = "AutoModel"

    def __init__(self, model: str, config_key: str, batch_size: int = 32, max_length: int = 128,
                 use_cache: bool = True, model_obj=None, tokenizer_obj=None, device: str = "auto"):
        super().__init__(model, config_key, batch_size, max_length, use_cache, model_obj, tokenizer_obj, device)

    @property
    def kind(self) -> str:
        return type(self).__name__

    def _load(self):
        if self._model is None:
            import transformers

            cls = getattr(transformers, self.auto_class)
            self._tokenizer = load(transformers.AutoTokenizer, self.ref, self.config_key, "tokenizer")
            self._model = load(cls, self.ref, self.config_key, "model").to(self.device)
        self._model.eval()
        return self._model, self._tokenizer

    def _encode(self, tok, first: list[str], second: list[str] | None):
        """The tokenised batch, on :attr:`device`."""
        return tok(first, second, padding=True, truncation=True, max_length=self.max_length,
                   return_tensors="pt").to(self.device)

    def _cached(self, items: Sequence, compute) -> np.ndarray:
        distinct, inverse = unique(list(items))
        keys = [text_hash(*x) if isinstance(x, tuple) else text_hash(x) for x in distinct]
        todo = [i for i, k in enumerate(keys) if k not in self.store]
        if todo:
            for i, v in zip(todo, compute([distinct[i] for i in todo])):
                self.store.put(keys[i], float(v))
            self.store.flush()
        return np.array([self.store.get(k) for k in keys], dtype=np.float64)[inverse]


class SequenceRegressor(_Base):
    """One-output sequence classifier: raw logits of sentences or sentence pairs."""

    auto_class = "AutoModelForSequenceClassification"

    def _compute(self, items: list) -> list[float]:
        import torch

        model, tok = self._load()
        out = [0.0] * len(items)
        lengths = [len(" ".join(x) if isinstance(x, tuple) else x) for x in items]
        for batch in length_batches(lengths, self.batch_size):
            sel = [items[i] for i in batch]
            if isinstance(sel[0], tuple):
                enc = self._encode(tok, [a for a, _ in sel], [b for _, b in sel])
            else:
                enc = self._encode(tok, sel, None)
            with torch.no_grad():
                logits = model(**enc).logits
            if logits.shape[-1] != 1:
                raise ValueError(f"{self.config_key}={self.name!r} has {logits.shape[-1]} outputs; a regressor needs 1")
            for j, i in enumerate(batch):
                out[i] = float(logits[j, 0])
        return out

    def logits(self, texts: Sequence[str], pairs_with: Sequence[str] | None = None) -> np.ndarray:
        """Logit of every text (or of every (pairs_with[i], texts[i]) pair), shape (M,)."""
        items = list(texts) if pairs_with is None else list(zip(pairs_with, texts))
        return self._cached(items, self._compute)


class MeanPooledSimilarity(_Base):
    """Cosine similarity of mean-pooled last hidden states (Maeda et al. 2022, §3.2)."""

    auto_class = "AutoModel"

    def _embed(self, texts: list[str]):
        import torch

        model, tok = self._load()
        out = [None] * len(texts)
        for batch in length_batches([len(t) for t in texts], self.batch_size):
            enc = self._encode(tok, [texts[i] for i in batch], None)
            with torch.no_grad():
                states = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(states.dtype)
            pooled = (states * mask).sum(1) / mask.sum(1)
            for j, i in enumerate(batch):
                out[i] = pooled[j]
        return out

    def _compute(self, pairs: list[tuple[str, str]]) -> list[float]:
        import torch

        texts = sorted({t for p in pairs for t in p})
        emb = dict(zip(texts, self._embed(texts)))
        return [float(torch.nn.functional.cosine_similarity(emb[a], emb[b], dim=0)) for a, b in pairs]

    def similarity(self, first: Sequence[str], second: Sequence[str]) -> np.ndarray:
        """Cosine similarity of every (first[i], second[i]), shape (M,)."""
        return self._cached(list(zip(first, second)), self._compute)
