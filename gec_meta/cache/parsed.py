"""Parsed data files, memoised: :func:`cached_parse` stores a parser's result (the CoNLL-2014
M2, SEEDA's judgment XML) as data in an explicit JSON encoding per type (:class:`Codec`), so a
warm job decodes it instead of parsing again.
"""

from __future__ import annotations

import gc
import hashlib
import json
from contextlib import contextmanager
from typing import Any, Callable, NamedTuple

from gec_meta.cache.entries import COUNTERS, PARSED_SUFFIX, _drop, _plain, _seal, _try_write, _unseal
from gec_meta.cache.keys import cache_root
from gec_meta.cache.reads import read_entry


class Codec(NamedTuple):
    """How :func:`cached_parse` stores a parser's result as data.

    Attributes:
        name: names the encoding (part of the entry's key).
        encode: the result -> JSON values (lists, dicts with string keys, str, numbers, None).
        decode: those JSON values -> the result, rebuilt by code (the types it creates are the
            decoder's, never named by the entry).
    """

    name: str
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]


#: Results that are JSON values already (a tuple comes back as a list).
JSON_VALUES = Codec("json", lambda value: value, lambda value: value)


@contextmanager
def _gc_paused():
    """Pause the cyclic garbage collector while many small objects are built (a decoded data
    file is acyclic; without the pause, collections triggered by the allocations double the
    time of decoding a parsed M2 file)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def cached_parse(tag: str, data: bytes, parse: Callable[[], Any], codec: Codec = JSON_VALUES) -> Any:
    """``parse()``, memoised on disk by the sha256 of ``tag`` and the raw bytes it parses.

    For data files that are re-read by every job (the CoNLL-2014 M2, SEEDA's judgment XML):
    a warm job decodes the stored data (``codec``) instead of parsing again.  ``tag`` names the
    parser and everything else its result depends on (:func:`gec_meta.cache.source_tag`: the code
    version of what the parser can run, so editing it invalidates the entries).  Errors are never
    cached.
    An entry that does not decode (altered, truncated, swapped, of another structure) is
    dropped, reported once and parsed again.
    """
    root = cache_root()
    if root is None:
        return parse()
    key = hashlib.sha256(f"{tag}\0{codec.name}\0".encode("utf-8") + data).hexdigest()
    path = root / "parsed" / f"{key[:40]}{PARSED_SUFFIX}"
    blob = read_entry(path, root, "parsed")
    if blob is None:  # not there yet (an unreadable folder, an unsafe file): parse
        COUNTERS["parsed_miss"] += 1
    else:
        try:
            with _gc_paused():
                value = codec.decode(json.loads(bytes(_unseal(key, blob)[1])))
        except Exception as exc:  # altered, truncated or swapped: parse again
            _drop(path, str(exc) or type(exc).__name__)
            COUNTERS["parsed_miss"] += 1
        else:
            COUNTERS["parsed_hit"] += 1
            return value
    value = parse()
    payload = json.dumps(codec.encode(value), separators=(",", ":"), default=_plain).encode("utf-8")
    _try_write(path, _seal(key, payload))
    return value
