"""Pretrained text encoders (hidden states of one transformer layer), batched and cached.

The public names are imported on first use (the module's ``__getattr__``): the language models,
regressors and chat backends import only :mod:`.batching`, and importing it runs this file; an
import of :mod:`.encoder` here would put the encoder's code into the code versions of their
stores (:mod:`gec_meta.cache.code` counts a package above a module with the imports its
``__init__.py`` executes), so an edit of the encoder would make their cached outputs cold.
"""

__all__ = ["Encoder", "TokenEmbeddings", "ModelLoadError", "resolve_model"]


def __getattr__(name: str):
    if name in ("Encoder", "TokenEmbeddings"):
        from gec_meta.encoders import encoder

        return getattr(encoder, name)
    if name in ("ModelLoadError", "resolve_model"):
        from gec_meta.encoders import loading

        return getattr(loading, name)
    raise AttributeError(f"module 'gec_meta.encoders' has no attribute {name!r}")
