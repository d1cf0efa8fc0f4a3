"""The encoder's forward pass: stopped at the layer in use, fed by a background thread.

* :func:`stop_at_layer` drops the transformer layers above the one whose hidden states are used
  (bert_score does the same: ``model.encoder.layer = model.encoder.layer[:num_layers]``), so
  PT-M2's bert-base encoder at layer 9 computes 9 of 12 layers.  The truncated model's last
  hidden state equals the full model's ``hidden_states[layer]`` bit for bit when nothing follows
  the layer stack (post-LN BERT, RoBERTa, ELECTRA, DistilBERT, MiniLM); a model with a final
  normalisation would differ, so :class:`LayerForward` checks the equality on the first batch
  and keeps the full forward pass if it fails.
* :func:`batch_inputs` builds a batch's ``input_ids`` / ``attention_mask`` (texts of one length,
  no padding); :func:`prefetch` builds the next batch in a thread while the current one runs.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

import numpy as np

log = logging.getLogger("gec_meta")
T = TypeVar("T")
R = TypeVar("R")


def layer_stack(model, num_layers: int):
    """``(parent module, attribute name)`` of the model's list of ``num_layers`` transformer
    layers (``encoder.layer`` of BERT, ``transformer.layer`` of DistilBERT, ...), or None when
    there is not exactly one such list."""
    import torch

    found = [(name, module) for name, module in model.named_modules()
             if isinstance(module, torch.nn.ModuleList) and len(module) == num_layers
             and name.rsplit(".", 1)[-1] in ("layer", "layers")]
    if len(found) != 1:
        return None
    parent_name, _, attr = found[0][0].rpartition(".")
    return (model.get_submodule(parent_name) if parent_name else model), attr


def stop_at_layer(model, num_layers: int, layer: int) -> Callable[[], None] | None:
    """Keep only the first ``layer`` transformer layers of ``model`` (in place).

    Returns:
        a function that puts the dropped layers back, or None when the layer list was not
        found (the model is left as it is).
    """
    import torch

    where = layer_stack(model, num_layers)
    if where is None:
        return None
    parent, attr = where
    full = getattr(parent, attr)
    setattr(parent, attr, torch.nn.ModuleList(list(full)[:layer]))
    return lambda: setattr(parent, attr, full)


class LayerForward:
    """``states(input_ids, attention_mask)`` -> hidden states of layer ``layer``, shape (B, T, D),
    equal bit for bit to ``model(..., output_hidden_states=True).hidden_states[layer]``.

    The first call runs the full model and the truncated one (:func:`stop_at_layer`) on the same
    batch and keeps the truncated model only if both agree exactly; either way it returns the
    full model's states, so no value ever comes from an unchecked path.
    """

    def __init__(self, model, num_layers: int, layer: int):
        self.model = model
        self.num_layers = num_layers
        self.layer = layer
        self.truncated: bool | None = None  # None until the first batch decides

    def _full(self, input_ids, attention_mask):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True)
        return out.hidden_states[self.layer]

    def _short(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    def __call__(self, input_ids, attention_mask):
        if self.truncated is True:
            return self._short(input_ids, attention_mask)
        if self.truncated is False:
            return self._full(input_ids, attention_mask)
        import torch

        reference = self._full(input_ids, attention_mask)
        restore = stop_at_layer(self.model, self.num_layers, self.layer)
        try:
            same = torch.equal(self._short(input_ids, attention_mask), reference)
        except Exception as exc:  # an architecture that does not run with fewer layers
            log.info("encoder: forward pass stopped at layer %d failed (%s); computing all layers",
                     self.layer, type(exc).__name__)
            same = False
        if not same and restore is not None:
            restore()
        self.truncated = same
        log.debug("encoder: forward pass %s at layer %d of %d", "stops" if same else "does not stop",
                  self.layer, self.num_layers)
        return reference


def batch_inputs(seqs: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Inputs of one batch of equal-length texts (:func:`gec_meta.encoders.batching.length_batches`).

    Args:
        seqs: shape (B,), token ids, T of them each.

    Returns:
        (input_ids, attention_mask) int64 of shape (B, T); the mask is all ones (no padding,
        so a text's states do not depend on the other texts of its batch).

    Raises:
        ValueError: texts of different lengths.
    """
    if len({len(s) for s in seqs}) != 1:
        raise ValueError(f"batch_inputs needs texts of one length, got lengths {sorted({len(s) for s in seqs})}")
    ids = np.asarray(seqs, dtype=np.int64)
    return ids, np.ones_like(ids)


def prefetch(items: Iterable[T], build: Callable[[T], R]) -> Iterator[tuple[T, R]]:
    """``(item, build(item))`` for every item, building the next one in a background thread
    while the caller works on the current one (the GPU computes while the CPU prepares)."""
    with ThreadPoolExecutor(1, thread_name_prefix="gec-meta-prefetch") as pool:
        it = iter(items)
        try:
            current = next(it)
        except StopIteration:
            return
        job = pool.submit(build, current)
        for following in it:
            nxt = pool.submit(build, following)
            yield current, job.result()
            current, job = following, nxt
        yield current, job.result()
