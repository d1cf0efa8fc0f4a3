"""``python -m gec_meta.cache [info|clear]`` (``make cache-info``, ``make cache-clear``): the
sizes of the cache's namespaces and arrays, or an empty cache."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from gec_meta.cache.entries import INDEX_SUFFIX, KV_SUFFIX, OLD_FORMATS
from gec_meta.cache.keys import cache_root
from gec_meta.cache.reads import read_entry


def cache_info(root: Path | None = None) -> dict[str, Any]:
    """Sizes of the cache's namespaces and arrays (for ``make cache-info``)."""
    root = cache_root() if root is None else root
    info: dict[str, Any] = {"root": str(root), "namespaces": [], "arrays": 0, "bytes": 0, "old_format": 0,
                            "gguf_models": 0, "gguf_bytes": 0}
    if root is None or not root.is_dir():
        return info
    info["old_format"] = sum(1 for pattern in OLD_FORMATS for _ in root.glob(pattern))
    for kind, pattern in (("kv", "*" + KV_SUFFIX), ("arrays-kv", "*" + INDEX_SUFFIX)):
        for folder in sorted((root / kind).glob("*")):
            size = sum(f.lstat().st_size for f in folder.glob("*"))
            text = read_entry(folder / "namespace.txt", root, "name")
            name = folder.name if text is None else text.decode("utf-8", "replace")
            info["namespaces"].append({"namespace": name, "shards": len(list(folder.glob(pattern))), "bytes": size})
            info["bytes"] += size
    arrays = list((root / "arrays").glob("*.arr"))
    info["arrays"] = len(arrays)
    info["bytes"] += sum(f.lstat().st_size for f in (root / "arrays").glob("*"))
    # converted GGUF models (gec_meta.models.loading): one folder each
    folders = [f for f in (root / "gguf").glob("*") if f.is_dir() and not f.is_symlink()]
    info["gguf_models"] = len(folders)
    info["gguf_bytes"] = sum(f.lstat().st_size for d in folders for f in d.glob("*"))
    info["bytes"] += info["gguf_bytes"]
    return info



def main(argv: list[str] | None = None) -> None:
    """``info`` (default): print :func:`cache_info`; ``clear``: delete the cache folder."""
    argv = sys.argv[1:] if argv is None else argv
    cmd = argv[0] if argv else "info"
    root = cache_root()
    if cmd == "clear":
        if root is not None and root.exists():
            shutil.rmtree(root)
        print(f"cleared {root}")
    else:
        info = cache_info()
        print(f"cache root: {info['root']}  ({info['bytes'] / 1e6:.1f} MB, {info['arrays']} arrays)")
        for ns in info["namespaces"]:
            print(f"  {ns['shards']:4d} shards {ns['bytes'] / 1e6:8.1f} MB  {ns['namespace']}")
        if info.get("gguf_models"):
            print(f"  {info['gguf_models']:4d} converted GGUF models/tokenizers {info['gguf_bytes'] / 1e6:8.1f} MB")
        if info["old_format"]:
            print(f"  {info['old_format']} entries of an earlier format (pickles: never read; "
                  f"`make cache-clear` removes them)")
