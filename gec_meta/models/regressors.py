"""BERT-style sentence models for SOME and IMPARA: batched by exact token length (unpadded,
so a value never depends on its batch), disk-cached.

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

from gec_meta.encoders.batching import fill_rows, length_batches
from gec_meta.kernels import pass_tokens
from gec_meta.models.cached import CachedModel
from gec_meta.models.loading import load


class _Base(CachedModel):
    auto_class = "AutoModel"
    version = "2"  # 2: unpadded equal-length batches (order-independent values)

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

    def _batches(self, tok, first: list[str], second: list[str] | None):
        """``(indices, inputs)`` of batches of items of one token length, unpadded (attention
        masks all ones) and filled to at least MIN_TOKENS tokens by repeating rows (the outputs
        of row ``j < len(indices)`` belong to ``indices[j]``), so an item's output does not depend on the other items of its batch
        (:mod:`gec_meta.encoders.batching`); inputs are tensors on :attr:`device`."""
        import torch

        enc = tok(first, second, truncation=True, max_length=self.max_length)
        names = [k for k in ("input_ids", "token_type_ids", "attention_mask") if k in enc]
        for batch in length_batches([len(x) for x in enc["input_ids"]], self.batch_size):
            n = len(enc["input_ids"][batch[0]])
            rows = fill_rows(batch, n, pass_tokens(self.device, self.batch_size, n))  # >= MIN_TOKENS tokens (repeats)
            yield batch, {k: torch.tensor([enc[k][i] for i in rows], dtype=torch.long, device=self.device)
                          for k in names}


class SequenceRegressor(_Base):
    """One-output sequence classifier: raw logits of sentences or sentence pairs."""

    auto_class = "AutoModelForSequenceClassification"

    def _compute(self, items: list) -> list[float]:
        import torch

        model, tok = self._load()
        out = [0.0] * len(items)
        pairs = bool(items) and isinstance(items[0], tuple)
        first = [x[0] for x in items] if pairs else list(items)
        second = [x[1] for x in items] if pairs else None
        for batch, enc in self._batches(tok, first, second):
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
        return self.cached_values(items, self._compute)


class MeanPooledSimilarity(_Base):
    """Cosine similarity of mean-pooled last hidden states (Maeda et al. 2022, §3.2)."""

    auto_class = "AutoModel"

    def _embed(self, texts: list[str]):
        import torch

        model, tok = self._load()
        out = [None] * len(texts)
        for batch, enc in self._batches(tok, texts, None):
            with torch.no_grad():
                states = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).last_hidden_state
            pooled = states.mean(1)  # no padding: the mean over the attention mask is the plain mean
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
        return self.cached_values(list(zip(first, second)), self._compute)
