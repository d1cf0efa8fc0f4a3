"""Content-addressed on-disk cache shared by every expensive stage.

Every entry is keyed by *what produced it* (a component signature: tool, model and versions,
plus the code version) and a hash of the input text, so an entry can never be served for
different input or a different tool.  One job per module:

* :mod:`~gec_meta.cache.keys` — the cache root (``$GEC_META_CACHE`` or ``~/.cache/gec-meta``;
  ``GEC_META_CACHE=off`` disables it) and the hashes that make keys (:func:`text_hash`,
  :func:`source_tag`).
* :mod:`~gec_meta.cache.code` — :func:`module_code_version`: the code version of one component
  in every key, the source of the package modules it can run (its import closure), not of whole
  folders.
* :mod:`~gec_meta.cache.entries` — the sealed entry format every store writes (key hash,
  length, CRC-32 checksum in a JSON header), its verification, :data:`COUNTERS` of hits and
  misses (``run.py`` writes them to ``timing.json``), :class:`CacheWarning`, atomic writes.
* :mod:`~gec_meta.cache.reads` — bounded reads: a file is read only if it is a regular file
  inside the cache of the size its index records (or a bound per kind); anything else (a FIFO,
  a link to ``/dev/zero`` or out of the cache, a directory, a huge file) is ignored with a
  warning naming it, and recomputed.
* :mod:`~gec_meta.cache.kv` — :class:`KeyValueStore`: many small values (spaCy parses reduced
  to ERRANT edits, edit vectors, LM log-likelihoods, LLM answers) in immutable shards;
  :func:`current_store`: a process-wide object's store, in the cache folder named now.
* :mod:`~gec_meta.cache.array_store` — :class:`ArrayStore`: many arrays of one dtype (encoder
  token states), one block per encoder batch, in memory-mapped shards.
* :mod:`~gec_meta.cache.arrays` — :func:`load_array` / :func:`save_array`: one numpy array per
  key (a metric's statistics of one system, p-values).
* :mod:`~gec_meta.cache.claims` — claims: jobs sharing a cache compute each missing entry
  once (a lock file per key being computed; the others wait for it and read it).
* :mod:`~gec_meta.cache.parsed` — :func:`cached_parse`: parsed data files as JSON data.
* :mod:`~gec_meta.cache.digests` — :func:`file_sha256`: the sha256 of a model file, memoised by
  its stat (``digests/``): what identifies a local model in cache keys and signatures.
* :mod:`~gec_meta.cache.info` — ``python -m gec_meta.cache [info|clear]``.

Integrity: every entry carries a checksum of its content written with it (CRC-32 -- it detects
every flipped bit and, with probability 1 - 2^-32, any other change) and the key it was written
under; arrays also carry their shape and dtype (encoder states: one checksum per block of one
batch's arrays, not one per array).  Entries are verified on read: a bad one (altered,
truncated, swapped with another file, written under another key) is dropped, recomputed and
reported once as a :class:`CacheWarning` naming it.  A cache folder that cannot be written
(read-only, a file, a full disk) is reported once; the run goes on without storing, and the
values it computed are kept in memory (no finished work is thrown away).  Verification reads
only the entries (blocks) a run uses (CRC-32 runs at ~1.2 GB/s; < 1% of a warm run).

Data only: the cache never holds or runs code.  Entries are JSON, raw numeric arrays (dtype
and shape in a JSON header, read with ``np.frombuffer`` / ``np.load(allow_pickle=False)``) and
parsed data files in an explicit JSON encoding per type; nothing read from the cache is
unpickled or evaluated, so whoever can write a shared cache folder can at worst change numbers
(as with any shared data), never run code in the jobs that read it.  Entries of earlier formats
(pickles: ``*.kvs``, ``*.pkl``, ``*.index``, ``*.parsed``) are never opened: they are misses,
recomputed in the current format (``make cache-info`` counts them, ``make cache-clear`` removes
them).

This package re-exports the public names (``from gec_meta.cache import KeyValueStore``), and
the few internals the tests inject faults through.
"""

from gec_meta.cache.array_store import ArrayStore
from gec_meta.cache.code import module_code_version, object_modules
from gec_meta.cache.arrays import _array_path, drop_array, entry_exists, load_array, save_array
from gec_meta.cache.digests import _FILE_DIGESTS, file_sha256
from gec_meta.cache.entries import (
    COUNTERS, DIGEST_SUFFIX, INDEX_SUFFIX, KV_SUFFIX, OLD_FORMATS, PARSED_SUFFIX, _REPORTED, CacheWarning,
    CorruptEntry, _seal, _unseal, checksum,
)
from gec_meta.cache.info import cache_info
from gec_meta.cache.keys import cache_root, source_tag, text_hash
from gec_meta.cache.kv import KeyValueStore, current_store
from gec_meta.cache.parsed import JSON_VALUES, Codec, cached_parse

__all__ = [
    "ArrayStore", "CacheWarning", "Codec", "COUNTERS", "CorruptEntry", "DIGEST_SUFFIX", "INDEX_SUFFIX",
    "JSON_VALUES", "KV_SUFFIX", "KeyValueStore", "OLD_FORMATS", "PARSED_SUFFIX", "cache_info", "cache_root",
    "cached_parse", "checksum", "current_store", "drop_array", "entry_exists", "file_sha256",
    "load_array", "module_code_version", "object_modules", "save_array", "source_tag", "text_hash",
]
