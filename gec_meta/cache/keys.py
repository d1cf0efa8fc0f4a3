"""Cache keys: where the cache is, and the hashes that name its entries.

:func:`cache_root` (``$GEC_META_CACHE``; ``off`` disables the cache), :func:`text_hash` (sha256
of text parts, length-prefixed) and :func:`source_tag` (a parser's identity for
:func:`gec_meta.cache.parsed.cached_parse`).  The code version in every key (a hash of the source
of the code that computes an entry) is :mod:`gec_meta.cache.code`'s.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def cache_root() -> Path | None:
    """The cache folder, or None when caching is disabled."""
    env = os.environ.get("GEC_META_CACHE")
    if env is not None and env.lower() in ("off", "0", "none", ""):
        return None
    return Path(env) if env else Path.home() / ".cache" / "gec-meta"


def text_hash(*parts: str) -> str:
    """sha256 of text parts joined unambiguously (length-prefixed)."""
    h = hashlib.sha256()
    for p in parts:
        b = p.encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def source_tag(module: str, *parts: str) -> str:
    """A parser's identity for :func:`cached_parse`: the parser's module (``__name__``), the code
    version of what it can run (:data:`gec_meta.cache.code.PARSING_CODE`: the module's import
    closure, e.g. the Unicode cleaning of ``data/io.py`` that ``data/m2.py`` calls, not only the
    module's own file), plus ``parts``."""
    from gec_meta.cache.code import parsing_code_version

    return "|".join((module, parsing_code_version(module), *parts))


# sha256 of the files this process hashed, by their stat identity (see file_sha256).
