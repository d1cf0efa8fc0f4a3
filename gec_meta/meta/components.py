"""One component of a signature: ``name(k1=v1,k2=v2)`` (a metric, a dataset, an aggregation).

Apart from :mod:`.signature` (which also names the libraries' versions and the edit extractor)
because metrics format their own components: a module a metric imports counts in its
statistics' code version (:mod:`gec_meta.cache.code`), and this one imports nothing.
"""

from __future__ import annotations


def component(name: str, options: dict) -> str:
    """``name(k1=v1,k2=v2)`` with keys sorted; ``name`` alone without options."""
    if not options:
        return name
    return f"{name}(" + ",".join(f"{k}={v}" for k, v in sorted(options.items())) + ")"
