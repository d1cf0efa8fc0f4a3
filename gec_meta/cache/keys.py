"""Cache keys: where the cache is, and the hashes that name its entries.

:func:`cache_root` (``$GEC_META_CACHE``; ``off`` disables the cache), :func:`text_hash` (sha256
of text parts, length-prefixed), :func:`code_version` (a hash of the source of the code that
computes an entry, part of every key) and :func:`source_tag` (a parser's identity for
:func:`gec_meta.cache.parsed.cached_parse`).
"""

from __future__ import annotations

import functools
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


@functools.lru_cache(maxsize=None)
def code_version(*parts: str) -> str:
    """The code version of a cached component: sha256 (16 hex digits) of the source files of
    the ``gec_meta`` subpackages or modules ``parts`` (``"metrics"``, ``"edits/extract.py"``).

    Part of every cache key and namespace next to the component's declared versions, so an
    entry computed by other code is never served, even when nobody bumped a version: the
    committed PT-ERRANT/PT-M2 TrueSkill rows of issue 17 item 8 came from such entries."""
    base = Path(__file__).resolve().parent.parent  # the gec_meta package
    h = hashlib.sha256()
    for part in parts:
        path = base / part
        for f in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            h.update(f.relative_to(base).as_posix().encode("utf-8") + b"\0")
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def source_tag(module_file: str, *parts: str) -> str:
    """A parser's identity for :func:`cached_parse`: its module file's hash plus ``parts``."""
    return "|".join((Path(module_file).name, hashlib.sha256(Path(module_file).read_bytes()).hexdigest()[:16], *parts))


# sha256 of the files this process hashed, by their stat identity (see file_sha256).
