"""Pretrained text encoders (hidden states of one transformer layer), batched and cached."""

from .encoder import Encoder, TokenEmbeddings
from .loading import ModelLoadError, resolve_model

__all__ = ["Encoder", "TokenEmbeddings", "ModelLoadError", "resolve_model"]
