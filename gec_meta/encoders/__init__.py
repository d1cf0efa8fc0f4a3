"""Pretrained text encoders (hidden states of one transformer layer), batched and cached."""

from gec_meta.encoders.encoder import Encoder, TokenEmbeddings
from gec_meta.encoders.loading import ModelLoadError, resolve_model

__all__ = ["Encoder", "TokenEmbeddings", "ModelLoadError", "resolve_model"]
