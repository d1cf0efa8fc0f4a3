"""The cache holds data only (issue 24 item 5a): nothing read from it is unpickled or evaluated.

A forged entry -- a pickle that would create a file when loaded, sealed with a valid key and
CRC-32 -- placed where the earlier format kept its entries (``parsed/*.parsed``, ``kv/*.kvs``
and ``*.pkl``, ``arrays-kv/*.index``) or under the current names is never executed, and the
number computed through it is the right one.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import subprocess
import sys
import warnings
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from gec_meta import cache
from gec_meta.cache import ArrayStore, CacheWarning, KeyValueStore

REPO = Path(__file__).resolve().parents[1]


class _CreatesFile:
    """Pickles to a call of ``open(marker, "w")``: loading the pickle creates ``marker``."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return open, (str(self.marker), "w")


def _forged(marker: Path) -> bytes:
    payload = pickle.dumps({"k": _CreatesFile(marker)})
    pickle.loads(payload)["k"].close()  # the payload works: loading it creates the marker ...
    assert marker.exists()
    marker.unlink()  # ... which is removed again before the cache gets to read it
    return payload


# Two sentences, one SVA error each; the hypothesis corrects the first only.
SRC = "This are a sentence .\nHe go home .\n"
HYP = "This is a sentence .\nHe go home .\n"
REF_M2 = ("S This are a sentence .\nA 1 2|||SVA|||is|||REQUIRED|||-NONE-|||0\n\n"
          "S He go home .\nA 1 2|||SVA|||goes|||REQUIRED|||-NONE-|||0\n\n")


def test_forged_parse_entries_never_run_and_the_score_is_right(tmp_path):
    """``gec-meta score --metric m2`` with forged parse entries for its reference M2 under the
    old name (``<key>.parsed``, the key of the earlier format) and the current one."""
    from gec_meta.cache import source_tag
    from gec_meta.data import m2 as m2_module

    files = {"src.txt": SRC, "sys.txt": HYP, "ref.m2": REF_M2}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    root, marker = tmp_path / "cache", tmp_path / "pwned"
    payload = _forged(marker)
    raw = REF_M2.encode("utf-8")
    tag = source_tag(m2_module.__name__, "m2", m2_module.DEFAULT_UNICODE)  # the tag read_m2 uses
    old_key = hashlib.sha256(tag.encode("utf-8") + b"\0" + raw).hexdigest()  # the earlier format's key
    new_key = hashlib.sha256(f"{tag}\0m2-blocks\0".encode("utf-8") + raw).hexdigest()
    (root / "parsed").mkdir(parents=True)
    (root / "parsed" / f"{old_key[:40]}.parsed").write_bytes(cache._seal(old_key, payload))
    (root / "parsed" / f"{new_key[:40]}{cache.PARSED_SUFFIX}").write_bytes(cache._seal(new_key, payload))
    proc = subprocess.run(
        [sys.executable, "-m", "gec_meta.cli.main", "score", "--src", "src.txt", "--hyp", "sys.txt",
         "--ref", "ref.m2", "--metric", "m2", "--json"],
        cwd=tmp_path, env={**os.environ, "GEC_META_CACHE": str(root), "PYTHONPATH": str(REPO)},
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not marker.exists()
    # The current-format entry holds no JSON: dropped as corrupt, reported once, parsed again.
    assert "dropped corrupt entry" in proc.stderr and f"{new_key[:40]}{cache.PARSED_SUFFIX}" in proc.stderr
    got = json.loads(proc.stdout)["systems"]["sys"]
    # By hand: TP 1 (is), FP 0, FN 1 (goes): P = 1, R = 1/2, F0.5 = 1.25 * 1 * 0.5 / (0.25 * 1 + 0.5) = 5/6.
    assert (got["precision"], got["recall"]) == (1.0, 0.5) and got["f"] == pytest.approx(5 / 6, abs=1e-12)


def test_forged_store_shards_of_the_earlier_format_are_never_opened(tmp_path):
    marker = tmp_path / "pwned"
    payload = _forged(marker)
    cache._REPORTED.clear()
    kv = KeyValueStore("ns", root=tmp_path)
    kv.folder.mkdir(parents=True)
    (kv.folder / "0123.kvs").write_bytes(cache._seal("ns", payload))       # sealed pickle shard
    (kv.folder / "4567.pkl").write_bytes(payload)                           # unchecked pickle shard
    arrays = ArrayStore("ns", root=tmp_path)
    arrays.folder.mkdir(parents=True)
    np.save(arrays.folder / "89ab.npy", np.zeros(3, dtype=np.float32))
    (arrays.folder / "89ab.index").write_bytes(cache._seal("ns", payload))  # pickled index
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even reported: simply not entries of this format
        assert KeyValueStore("ns", root=tmp_path).get("k") is None
        assert ArrayStore("ns", root=tmp_path).get("k") is None
    assert not marker.exists()
    assert cache.cache_info(tmp_path)["old_format"] == 3  # make cache-info counts them


@pytest.mark.parametrize("suffix", [cache.KV_SUFFIX, cache.INDEX_SUFFIX])
def test_a_pickle_under_a_current_name_is_dropped_not_loaded(tmp_path, suffix):
    marker = tmp_path / "pwned"
    payload = _forged(marker)
    cache._REPORTED.clear()
    store = (KeyValueStore if suffix == cache.KV_SUFFIX else ArrayStore)("ns", root=tmp_path)
    store.folder.mkdir(parents=True)
    shard = store.folder / f"0123{suffix}"
    shard.write_bytes(cache._seal("ns", payload))  # right key and checksum, pickle inside
    if suffix == cache.INDEX_SUFFIX:
        np.save(store.folder / "0123.npy", np.zeros(3, dtype=np.float32))
    with pytest.warns(CacheWarning, match="dropped corrupt entry"):
        again = type(store)("ns", root=tmp_path)
    assert again.get("k") is None and not marker.exists() and not shard.exists()


def test_key_value_values_are_json_and_numeric_arrays(tmp_path):
    kv = KeyValueStore("ns", root=tmp_path)
    vec = np.arange(6, dtype=np.float32).reshape(2, 3)
    values = {"edits": ((1, 2, -1, -1, "a", "b", "R:NOUN"),), "nll": (2.5, 7), "answer": {"text": "x", "p": None},
              "vec": vec, "empty": np.zeros((0, 4), dtype=np.float32), "float32": np.float32(0.25), "nan": float("nan")}
    for k, v in values.items():
        kv.put(k, v)
    kv.flush()
    again = KeyValueStore("ns", root=tmp_path)
    assert again.get("edits") == [[1, 2, -1, -1, "a", "b", "R:NOUN"]]  # tuples come back as JSON lists
    assert again.get("nll") == [2.5, 7] and again.get("answer") == {"text": "x", "p": None}
    got = again.get("vec")
    assert got.dtype == np.float32 and not got.flags.writeable
    np.testing.assert_array_equal(got, vec)
    assert again.get("empty").shape == (0, 4) and again.get("float32") == 0.25
    assert np.isnan(again.get("nan"))
    bad = KeyValueStore("ns2", root=tmp_path)
    bad.put("k", {1, 2})  # a set is no JSON value
    with pytest.raises(TypeError, match="JSON data and numeric arrays"):
        bad.flush()
    bad._pending.clear()
    bad.put("k", np.array(["a"], dtype=object))
    with pytest.raises(TypeError, match="numeric arrays only"):
        bad.flush()


@pytest.mark.parametrize("shape", [[1000], [2**62, 2**62]], ids=["too-long", "wraps-int64"])
def test_an_array_outside_its_shard_is_corrupt(tmp_path, shape):
    """More values than the shard holds, or a shape whose count wraps around to 0 in int64."""
    cache._REPORTED.clear()
    kv = KeyValueStore("ns", root=tmp_path)
    kv.put("v", np.ones(4, dtype=np.float64))
    kv.flush()
    (shard,) = kv.folder.glob(f"*{cache.KV_SUFFIX}")
    header, payload = cache._unseal("ns", shard.read_bytes())
    size = int.from_bytes(payload[:8], "little")
    doc = json.loads(bytes(payload[8:8 + size]))
    doc["arrays"]["v"][1] = shape
    text = json.dumps(doc).encode()
    shard.write_bytes(cache._seal("ns", len(text).to_bytes(8, "little") + text + bytes(payload[8 + size:])))
    with pytest.warns(CacheWarning, match="outside the shard"):
        assert KeyValueStore("ns", root=tmp_path).get("v") is None


def test_parsed_data_files_round_trip_through_their_encodings(data_root, tmp_path, monkeypatch):
    """Every field of the cached types is encoded (a field added to a dataclass without its
    encoding fails here), and a warm read equals a fresh parse on the real files."""
    from gec_meta.data import judgments, m2

    assert [f.name for f in fields(m2.M2Sentence)] == ["source", "edits", "line"]
    assert [f.name for f in fields(m2.GoldEdit)] == ["start", "end", "type", "corrections", "annotator", "line"]
    assert [f.name for f in fields(judgments.RankingItem)] == ["line", "annotator", "ranks", "item_id", "displayed"]
    monkeypatch.setenv("GEC_META_CACHE", str(tmp_path))
    for path in (data_root / "conll14/conll14st-test.m2", data_root / "bn10gec/BN.m2"):
        cold, warm = m2.read_m2(path), m2.read_m2(path)
        # read_m2 = parse, then repeated edits dropped (BN.m2 repeats two A lines)
        assert cold == warm == m2.drop_duplicate_edits(m2.parse_m2(path.read_text(encoding="utf-8"), path), path)
        edited = next(s for s in warm if s.edits)
        assert type(edited.edits) is tuple and type(edited.edits[0].corrections) is tuple
    for path, base in ((data_root / "seeda/data/judgments_sent.xml", 1), (data_root / "gjg15/judgments.xml", 0)):
        cold, warm = judgments.read_judgments(path, base), judgments.read_judgments(path, base)
        assert cold == warm == judgments._parse_judgments(path.read_bytes(), path, base)
        assert all(type(i.ranks) is tuple and all(type(p) is tuple for p in i.ranks) for i in warm)
    assert len(list((tmp_path / "parsed").glob(f"*{cache.PARSED_SUFFIX}"))) == 4


# What loads code from bytes: pickle (and libraries built on it), eval/exec, unsafe YAML.
_CODE_LOADERS = re.compile(
    r"\bpickle\.loads?\(|\bUnpickler\b|allow_pickle\s*=\s*True|\btorch\.load\(|\bjoblib\.load\(|\bdill\b"
    r"|\bshelve\b|\bmarshal\.loads?\(|yaml\.(unsafe_)?load\(|(?<![.\w])(eval|exec)\(")


def test_the_package_loads_no_code_from_files():
    """Nothing in the package turns bytes into code: the cache, data files and result files are
    read as JSON, text and numeric arrays only (models load through transformers)."""
    hits = []
    for path in sorted((REPO / "gec_meta").rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _CODE_LOADERS.search(line.split("#")[0]):
                hits.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not hits, hits
