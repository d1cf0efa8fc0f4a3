"""A copy of the package's sources that :mod:`gec_meta.cache.code` reads instead of the real ones,
for the tests of what an edit of one file moves (the code versions in cache keys and in a job's
``inputs.json``): the ``package`` fixture of ``conftest.py`` makes it, :class:`Moves` edits it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

from gec_meta.cache import code


def clear_memos() -> None:
    """Forget every memo of :mod:`gec_meta.cache.code` that read the package's files."""
    for memo in (code._relative_paths, code.package_modules, code._imports_of, code._module_level_imports_of,
                 code.module_code_version, code.package_code_version):
        memo.cache_clear()


def copy_package(folder: Path, monkeypatch) -> Path:
    """``folder/gec_meta``: the package's sources, read by :mod:`gec_meta.cache.code` from now on."""
    copy = folder / "gec_meta"
    shutil.copytree(code.PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    monkeypatch.setattr(code, "PACKAGE_DIR", copy)
    clear_memos()
    return copy


def append(path: Path, text: str = "\n# edited\n") -> None:
    """Edit a source file (a comment at its end: new bytes, the same behaviour)."""
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


class Moves:
    """What an edit of one file of the copy moves: ``moves("meta", "spa.py")`` appends to that
    file and returns the names whose value in ``state()`` (a dict, computed after
    :func:`clear_memos`) changed since the last edit."""

    def __init__(self, package: Path, state: Callable[[], dict]):
        self.package, self._state = package, state
        self.before = self.state()

    def state(self) -> dict:
        clear_memos()
        return self._state()

    def __call__(self, *path: str) -> set[str]:
        append(self.package.joinpath(*path))
        after = self.state()
        moved = {name for name in self.before if after[name] != self.before[name]}
        self.before = after
        return moved
