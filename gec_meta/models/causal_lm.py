"""Sentence log-likelihoods under a causal LM: batched by exact length (unpadded), disk-cached.

The score of a sentence w_1..w_T (LM subword tokens) is the mean token negative
log-likelihood with the LM's BOS token as context,

    nll = -(1/T) * sum_t log p(w_t | BOS, w_<t),     perplexity = exp(nll),

what Scribendi's GPT-2 perplexity is (Islam & Magnani 2021, §3; gec-metrics 0.1.1 prepends
``bos_token`` to the text and averages the token losses the same way).  Every distinct text
is scored once per model and cached under the model's identity (:class:`gec_meta.cache.KeyValueStore`),
so reruns and other systems with the same outputs cost nothing.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from gec_meta.encoders.batching import fill_rows, length_batches
from gec_meta.kernels import pass_tokens
from gec_meta.models.cached import CachedModel
from gec_meta.models.loading import load


class CausalLM(CachedModel):
    """A causal LM that scores sentences.

    Args:
        model: hub id, local folder, .gguf file or ``pkg://...`` (:mod:`.loading`).
        batch_size: most sentences per forward pass (sentences of one token length share a
            batch, unpadded, so on the CPU it changes no value and is not in :attr:`identity`;
            a GPU's passes have exactly this many rows, named with its kernels).
        max_length: LM tokens kept per sentence (BOS included); longer ones are truncated.
        config_key: the config key named in errors (``metric.model``).
        use_cache: keep results on disk (``$GEC_META_CACHE``).
        model_obj, tokenizer_obj: already built objects (tests); ``model`` then only names them.
        device: where the LM runs (:class:`~gec_meta.models.cached.CachedModel`; default ``auto``).
    """

    kind = "causal-lm"
    version = "2"  # 2: unpadded equal-length batches (order-independent values)

    def __init__(self, model: str, batch_size: int = 16, max_length: int = 512,
                 config_key: str = "metric.model", use_cache: bool = True,
                 model_obj=None, tokenizer_obj=None, device: str = "auto"):
        super().__init__(model, config_key, batch_size, max_length, use_cache, model_obj, tokenizer_obj, device)

    def _load(self):
        if self._model is None:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            self._tokenizer = load(AutoTokenizer, self.ref, self.config_key, "tokenizer")
            self._model = load(AutoModelForCausalLM, self.ref, self.config_key, "model",
                               dtype=torch.float32)
            self._model.eval().to(self.device)
        return self._model, self._tokenizer

    def bos_id(self, tokenizer) -> int:
        """The context token: BOS, else EOS (GPT-2 has both as ``<|endoftext|>``)."""
        for tid in (tokenizer.bos_token_id, tokenizer.eos_token_id):
            if tid is not None:
                return int(tid)
        raise ValueError(f"{self.config_key}={self.name!r}: the tokenizer has neither a BOS nor an EOS token")

    def _compute(self, texts: Sequence[str]) -> list[tuple[float, int]]:
        import torch

        model, tok = self._load()
        bos = self.bos_id(tok)
        ids = [[bos] + tok(t, add_special_tokens=False)["input_ids"][: self.max_length - 1] for t in texts]
        out: list[tuple[float, int]] = [(0.0, 0)] * len(texts)
        # Texts of one token length per batch, unpadded: a text's NLL does not depend on the
        # other texts of its batch (gec_meta.encoders.batching); on the CPU batch_size changes no
        # value, on a GPU every pass has batch_size rows (gec_meta.kernels.pass_rows).
        for batch in length_batches([len(x) for x in ids], self.batch_size):
            n = len(ids[batch[0]])
            rows = fill_rows(batch, n, pass_tokens(self.device, self.batch_size, n))  # >= MIN_TOKENS; repeats dropped
            input_ids = torch.tensor([ids[i] for i in rows], dtype=torch.long, device=self.device)
            with torch.no_grad():
                logits = model(input_ids=input_ids, attention_mask=torch.ones_like(input_ids)).logits.float()
            logp = torch.log_softmax(logits[:, :-1], dim=-1)
            token_lp = logp.gather(-1, input_ids[:, 1:].unsqueeze(-1)).squeeze(-1)  # (B, T - 1)
            n = input_ids.shape[1] - 1
            for j, i in enumerate(batch):
                out[i] = (float(-token_lp[j].sum() / n) if n else 0.0, n)
        return out

    def mean_nll(self, texts: Sequence[str]) -> np.ndarray:
        """Mean token negative log-likelihood of every text, shape (M,).

        An empty text (no LM token) gets 0 (perplexity 1).
        """
        return self.cached_values(texts, self._compute, read=lambda stored: stored[0])  # stored: (NLL, tokens)

    def perplexity(self, texts: Sequence[str]) -> np.ndarray:
        """exp(mean token NLL) of every text, shape (M,)."""
        return np.exp(self.mean_nll(texts))


@functools.lru_cache(maxsize=4)
def shared_lm(model: str, batch_size: int, max_length: int, config_key: str, device: str = "auto") -> CausalLM:
    """One :class:`CausalLM` per configuration per process (the model loads once)."""
    return CausalLM(model, batch_size, max_length, config_key, device=device)
