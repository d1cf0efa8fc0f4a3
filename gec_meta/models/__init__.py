"""Pretrained models used by the neural baselines (Scribendi, SOME, IMPARA).

* :mod:`.loading` — model name (hub id, local folder, ``pkg://``, GGUF file) -> transformers
  objects, with errors naming the config key.
* :mod:`.causal_lm` — batched, disk-cached sentence log-likelihoods / perplexities.
* :mod:`.regressors` — batched, disk-cached BERT sequence regressors and mean-pooled
  sentence similarity.
"""
