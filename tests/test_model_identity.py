"""A local model is identified by the content of its files (issue 24 item 7).

Two checkpoints with different weights in ``a/model`` and ``b/model`` used to get one identity
(folder name, bytes of files under 5 MB, only the *size* of larger ones), and model B was
served model A's cached embeddings.  The identity now hashes every file (memoised by its stat).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from gec_meta import cache


def _identity_before_the_fix(folder: Path) -> str:
    """The rule this issue replaces (encoders/loading.py before issue 24), for the record."""
    h = hashlib.sha256()
    for f in sorted(p for p in folder.iterdir() if p.is_file()):
        h.update(f.name.encode())
        size = f.stat().st_size
        h.update(f.read_bytes() if size < 5_000_000 else str(size).encode())
    return f"{folder.name}@{h.hexdigest()[:12]}"


@pytest.fixture(scope="module")
def two_checkpoints(tmp_path_factory):
    """Two random BERTs of one architecture (weights ~9.6 MB, over the old 5 MB line), same
    folder name, same config and tokenizer files, different weights."""
    pytest.importorskip("transformers")
    from gec_meta.encoders.testing import tiny_bert

    root = tmp_path_factory.mktemp("checkpoints")
    a = tiny_bert(root / "a" / "model", seed=0, hidden=384)
    b = tiny_bert(root / "b" / "model", seed=1, hidden=384)
    return a, b


def test_two_checkpoints_that_differ_only_in_weights_get_two_identities(two_checkpoints, tmp_path, monkeypatch):
    from gec_meta.encoders import Encoder
    from gec_meta.encoders.loading import resolve_model

    a, b = two_checkpoints
    weights = [f.name for f in a.iterdir() if f.stat().st_size >= 5_000_000]
    assert weights, "the weights must be past the old 5 MB line"
    for f in a.iterdir():  # everything equal but the weights' bytes
        twin = b / f.name
        assert twin.stat().st_size == f.stat().st_size
        assert (twin.read_bytes() == f.read_bytes()) == (f.name not in weights)
    assert _identity_before_the_fix(a) == _identity_before_the_fix(b)  # the collision of the issue
    assert resolve_model(str(a)).identity != resolve_model(str(b)).identity
    # Model B, run after model A on the same cache, gets its own embeddings (not A's).
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    texts = ["the cat sat on the mat .", "dogs play in the mat ."]
    emb_a = [e.vectors.copy() for e in Encoder(str(a), layer=2).token_embeddings(texts)]
    emb_b = [e.vectors.copy() for e in Encoder(str(b), layer=2).token_embeddings(texts)]
    fresh_b = [e.vectors for e in Encoder(str(b), layer=2, cache=False).token_embeddings(texts)]
    for x, y, z in zip(emb_a, emb_b, fresh_b):
        np.testing.assert_array_equal(y, z)
        assert not np.allclose(x, y)


def test_a_gguf_file_is_identified_by_all_its_bytes(tmp_path):
    from gec_meta.models.loading import resolve

    mib = 1 << 20
    first, last = os.urandom(mib), os.urandom(mib)
    for name, middle in (("a", b"\0" * mib), ("b", b"\1" * mib)):  # same size, same first and last MiB
        (tmp_path / name).mkdir()
        (tmp_path / name / "lm.gguf").write_bytes(first + middle + last)
    ids = {resolve(str(tmp_path / n / "lm.gguf"), "llm.model").identity for n in "ab"}
    assert len(ids) == 2
    digest = hashlib.sha256((tmp_path / "a" / "lm.gguf").read_bytes()).hexdigest()
    assert f"lm.gguf:{3 * mib}@{digest[:12]}" in ids  # name, size, sha256 (hashlib on the bytes)


def test_file_digests_are_memoised_by_stat_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "weights.bin"
    f.write_bytes(b"weights one")
    assert cache.file_sha256(f) == hashlib.sha256(b"weights one").hexdigest()
    # A new process (empty in-process memo) reads the digest from the cache, not the file.
    cache._FILE_DIGESTS.clear()
    monkeypatch.setattr(cache.digests.hashlib, "file_digest", lambda *a: pytest.fail("the file was hashed again"))
    hits = cache.COUNTERS["digest_hit"]
    assert cache.file_sha256(f) == hashlib.sha256(b"weights one").hexdigest()
    assert cache.COUNTERS["digest_hit"] == hits + 1
    monkeypatch.undo()
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / "cache"))
    # Same size, mtime set back: the change time still tells the new bytes apart.
    stat = f.stat()
    f.write_bytes(b"weights two")
    os.utime(f, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert cache.file_sha256(f) == hashlib.sha256(b"weights two").hexdigest()
    # A corrupt memo entry is dropped and the file hashed again.
    cache._FILE_DIGESTS.clear()
    cache._REPORTED.clear()
    for memo in (tmp_path / "cache" / "digests").glob(f"*{cache.DIGEST_SUFFIX}"):
        memo.write_bytes(memo.read_bytes()[:-4] + b"beef")
    with pytest.warns(cache.CacheWarning, match="dropped corrupt entry"):
        assert cache.file_sha256(f) == hashlib.sha256(b"weights two").hexdigest()


def test_a_shared_model_store_follows_the_cache_folder(tmp_path, monkeypatch):
    """A process-wide model (``shared_lm``) opened its score store once, in the cache folder of
    its first use; it now follows GEC_META_CACHE, and turning the cache off keeps nothing on disk."""
    pytest.importorskip("transformers")
    from gec_meta.encoders.testing import tiny_bert
    from gec_meta.models.cached import CachedModel

    model = CachedModel(str(tiny_bert(tmp_path / "bert")), "metric.model", batch_size=2, max_length=16, device="cpu")
    for name in ("a", "b"):
        monkeypatch.setenv("GEC_META_CACHE", str(tmp_path / name))
        model.store.put("k", [1.0])
        model.store.flush()
        assert model.store.root == tmp_path / name and (tmp_path / name / "kv").is_dir()
    monkeypatch.setenv("GEC_META_CACHE", "off")
    assert model.store.root is None and model.store.get("k") is None
