"""The code version of one component: the source of the package modules it can run.

Hashing whole folders (``edits/``, as the keys did until 2026-11-29) makes every entry of a
component cold at an edit anywhere in them.  :func:`module_code_version` hashes only the
modules a component can run: the import closure of its root modules (every import statement of
a module, at module level or inside a function, followed through the package; the
``__init__.py`` of every package on the way, which Python runs, with the imports it executes:
not those inside its functions, such as ``gec_meta``'s lazy public API), restricted to the
folders that may compute the entry.  So an edit of CLEME's module leaves ERRANT's statistics warm, while an
edit of the edit-metric core or of ERRANT's alignment makes both cold.

Components built from configs (``_target_: gec_meta.encoders.Encoder``, an edit scorer, a chat
backend) are found through the objects themselves (:func:`object_modules`), not through the
imports of the metric's module.

The imports are read with a line scanner, not :mod:`ast`: parsing every module of a closure
costs ~0.1 s a process (a warm run is ~0.5 s); reading and scanning the ~70 files of a metric's
closure ~15 ms, about what hashing the whole folders cost.  The scanner reads every import
statement that starts a line (``import a.b as c, d``; ``from .x import (y, z)`` over several
lines), which is how this package writes them; ``tests/test_import_graph.py`` checks that it
finds every import :mod:`ast` finds in every module of the package.  An import-looking line in a
docstring only adds a module (a key that changes more often than needed, never a stale one).
Only a package ``__init__.py`` reached as a parent is read with :mod:`ast` (to tell its
module-level imports from those in its functions): a few small files, ~0.5 ms in all.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import types
from collections.abc import Iterable
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # gec_meta/
PACKAGE = PACKAGE_DIR.name

#: The code that computes statistics and scores: the metrics and everything they compute with
#: (package folders and files; :meth:`gec_meta.metrics.base.Metric.code_version` hashes the part a
#: metric can run, :func:`computing_code_version` the part a store of intermediate values can).
STATISTICS_CODE = ("metrics", "edits", "encoders", "models", "llm", "parallel.py")

# `from <module> import <names>` (names: to the end of the line, several lines in parentheses
# or after backslashes) or `import <modules>`, each at the start of a line (any indentation).
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<base>\.*[\w.]*)(?:[ \t]|\\\n)+import[ \t]+"
    r"(?P<names>\([^)]*\)|(?:[^\n\\]*\\\n)*[^\n]*)"
    r"|import[ \t]+(?P<modules>(?:[^\n\\]*\\\n)*[^\n]*))",
    re.MULTILINE,
)


@functools.lru_cache(maxsize=None)
def package_modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its ``__init__.py``)."""
    return {module: PACKAGE_DIR / relative for module, relative in _relative_paths().items()}


@functools.lru_cache(maxsize=None)
def _relative_paths() -> dict[str, str]:
    """Module -> its file relative to the package folder (``edits/extract.py``): os.walk and
    strings, ~4x faster than ``Path.rglob`` on the ~140 files a run's cache keys look at."""
    out = {}
    for folder, dirs, files in os.walk(PACKAGE_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        relative = os.path.relpath(folder, PACKAGE_DIR).replace(os.sep, "/")
        prefix = "" if relative == "." else relative + "/"
        for name in files:
            if name.endswith(".py"):
                parts = [PACKAGE, *(prefix + name[:-3]).split("/")]
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                out[".".join(parts)] = prefix + name
    return out


def owner_module(name: str, modules: dict[str, Path]) -> str | None:
    """The package module that ``import name`` loads last: the longest prefix of ``name`` that
    is a module of the package (``gec_meta.edits.extract.ErrantExtractor`` ->
    ``gec_meta.edits.extract``), or None outside the package."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _names(text: str) -> list[str]:
    """The names of an import list: ``(a as b,\\n c)  # note`` -> ``["a", "c"]``."""
    out = []
    for line in text.replace("\\\n", " ").splitlines():
        line = line.split("#", 1)[0].replace("(", " ").replace(")", " ")
        for item in line.split(","):
            words = item.split()
            if words:
                out.append(words[0])
    return out


def _statements(source: str):
    """The matches of :data:`_IMPORT` in ``source``, tried only at the lines that hold the word
    ``import`` (found by ``str.find``; trying the pattern at every line costs ~4x more), a
    backslash-continued ``from x \\`` line from the line where it starts."""
    tried: set[int] = set()
    i = source.find("import")
    while i != -1:
        start = source.rfind("\n", 0, i) + 1
        while start >= 2 and source[start - 2] == "\\":
            start = source.rfind("\n", 0, start - 2) + 1
        if start not in tried:
            tried.add(start)
            match = _IMPORT.match(source, start)
            if match is not None:
                yield match
        i = source.find("import", i + 6)


def imported_modules(module: str, source: str, modules: dict[str, Path] | None = None) -> set[str]:
    """The package modules that the source of ``module`` imports anywhere (not itself).

    ``from a.b import c`` imports the module ``a.b.c`` where that is a module, else ``a.b``;
    relative imports are resolved against ``module``'s package."""
    modules = package_modules() if modules is None else modules
    is_package = modules.get(module, Path()).name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for match in _statements(source):
        if match.group("modules") is not None:
            if PACKAGE not in match.group("modules"):
                continue  # import numpy as np
            targets = _names(match.group("modules"))
        else:
            base = match.group("base")
            if not (base.startswith(".") or base == PACKAGE or base.startswith(PACKAGE + ".")):
                continue  # from numpy import ...
            level = len(base) - len(base.lstrip("."))
            base = base[level:]
            if level:
                parts = package.split(".")
                parts = parts[: len(parts) - level + 1]
                base = ".".join(parts + ([base] if base else []))
            targets = [f"{base}.{name}" if f"{base}.{name}" in modules else base
                       for name in _names(match.group("names"))]
        for target in targets:
            owner = owner_module(target, modules)
            if owner is not None and owner != module:
                found.add(owner)
    return found


@functools.lru_cache(maxsize=None)
def _imports_of(module: str) -> frozenset[str]:
    modules = package_modules()
    return frozenset(imported_modules(module, modules[module].read_text(encoding="utf-8"), modules))


@functools.lru_cache(maxsize=None)
def _module_level_imports_of(module: str) -> frozenset[str]:
    """The package modules that ``module`` imports when it is executed: its import statements
    outside function bodies (module level, class bodies, ``if``/``try`` blocks), read with
    ``ast`` (only package ``__init__`` files reached as parents come here: a few small files)."""
    import ast

    source = package_modules()[module].read_text(encoding="utf-8")
    eager: list[str] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue  # runs only when called (e.g. a lazy ``__getattr__``)
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                eager.append(ast.get_source_segment(source, child) or "")
            else:
                visit(child)

    visit(ast.parse(source))
    return frozenset(imported_modules(module, "\n".join(eager), package_modules()))


def import_closure(roots: Iterable[str]) -> frozenset[str]:
    """``roots`` (package modules) with every package module they import, directly or not, and
    the packages above each.

    A module imported by name counts with every import it holds, also inside its functions
    (they may run).  A package that is only *above* an imported module counts with the imports
    its ``__init__.py`` executes (module level): importing ``gec_meta.models.causal_lm`` runs
    ``gec_meta/__init__.py`` but not its lazy ``__getattr__``, which imports the public API
    (and through it data readers, the signature code and ERRANT's extractor) only when
    ``gec_meta.load_metric`` and the like are read, so a language model's code version does
    not hold ERRANT's extraction (tests/test_code_version.py)."""
    modules = package_modules()
    seen: set[tuple[str, bool]] = set()  # (module, imported by name)
    stack = [(m, True) for m in roots if m in modules]
    while stack:
        module, by_name = stack.pop()
        if (module, by_name) in seen or (module, True) in seen:
            continue
        seen.add((module, by_name))
        imports = _imports_of(module) if by_name else _module_level_imports_of(module)
        stack.extend((m, True) for m in imports)
        parent = module.rpartition(".")[0]
        if parent in modules:
            stack.append((parent, False))
    return frozenset(m for m, _ in seen)


def object_modules(obj: object, max_items: int = 256) -> set[str]:
    """The package modules of the classes and functions reachable from ``obj``: its class (and
    bases), the attributes of every package object it holds (e.g. a metric's edit scorer and
    its encoder, built from a config's ``_target_``), through lists, tuples, sets and dicts of
    at most ``max_items`` items (a bound metric's texts are not walked), functions and
    ``functools.partial`` objects.  Objects of other libraries are not entered."""
    prefix = PACKAGE + "."
    found: set[str] = set()
    seen: set[int] = set()
    stack = [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen or isinstance(o, (str, bytes, int, float, complex, type(None))):
            continue
        seen.add(id(o))
        if isinstance(o, (list, tuple, set, frozenset)):
            if len(o) <= max_items:
                stack.extend(o)
            continue
        if isinstance(o, dict):
            if len(o) <= max_items:
                stack.extend(o.keys())
                stack.extend(o.values())
            continue
        if isinstance(o, functools.partial):
            stack.extend((o.func, *o.args, *o.keywords.values()))
            continue
        if isinstance(o, (types.FunctionType, types.MethodType, types.BuiltinFunctionType)):
            module = getattr(o, "__module__", None) or ""
            if module.startswith(prefix):
                found.add(module)
            if isinstance(o, types.MethodType):
                stack.append(o.__self__)
            continue
        kinds = o.__mro__ if isinstance(o, type) else type(o).__mro__
        ours = [k.__module__ for k in kinds if k.__module__.startswith(prefix)]
        found.update(ours)
        if ours and not isinstance(o, type):
            stack.extend(getattr(o, "__dict__", {}).values())
            for klass in type(o).__mro__:
                for slot in getattr(klass, "__slots__", ()):
                    if isinstance(slot, str) and hasattr(o, slot):
                        stack.append(getattr(o, slot))
    return found


def _closure_relative(roots: Iterable[str], within: tuple[str, ...]) -> list[str]:
    """:func:`closure_files` relative to the package folder (``edits/extract.py``), sorted."""
    relative = _relative_paths()
    return sorted(r for r in (relative[m] for m in import_closure(roots)) if _inside(r, within))


def closure_files(roots: Iterable[str], within: tuple[str, ...]) -> list[Path]:
    """The source files of the import closure of ``roots`` (:func:`import_closure`) that lie in
    the package folders or files ``within`` (``("metrics", "edits", "parallel.py")``), sorted."""
    return [PACKAGE_DIR / r for r in _closure_relative(roots, within)]


def _inside(relative: str, within: tuple[str, ...]) -> bool:
    return any(relative == part or relative.startswith(part + "/") for part in within)


@functools.lru_cache(maxsize=None)
def module_code_version(roots: frozenset[str], within: tuple[str, ...]) -> str:
    """sha256 (16 hex digits) of :func:`closure_files`: the code version of a component whose
    entries only code in ``within`` can compute, and of that only what ``roots`` can run.

    Each file is hashed with its path (moving code between modules changes the version) and a
    prefix that the earlier hashes of whole folders did not start with."""
    h = hashlib.sha256(b"closure\0")
    for relative in _closure_relative(roots, within):
        h.update(relative.encode("utf-8") + b"\0")
        h.update((PACKAGE_DIR / relative).read_bytes())
    return h.hexdigest()[:16]


def computing_code_version(module: str) -> str:
    """:func:`module_code_version` of one module within :data:`STATISTICS_CODE`: the version of
    the code that computes the entries of a store of intermediate values (encoder-free model
    outputs, edit vectors, reference draws), for its namespace.  A store keyed by it never serves
    entries computed by older code, whether or not its hand-kept version was bumped."""
    return module_code_version(frozenset({module}), STATISTICS_CODE)


#: The code that computes the meta-evaluation's cached values from metric statistics and human
#: judgments (the permutation p-values of SPA and of the leaderboard's clusters): a value's key
#: holds the part of it that the value's code can run (:func:`measurement_code_version`), beside
#: the metric's own :meth:`~gec_meta.metrics.base.Metric.code_version` where the metric's code
#: rescores permuted statistics.
MEASUREMENT_CODE = ("meta",)


def measurement_code_version(roots: frozenset[str]) -> str:
    """:func:`module_code_version` of ``roots`` (modules, e.g. the p-value code and the
    aggregation's classes, :func:`object_modules`) within :data:`MEASUREMENT_CODE`: an edit of
    the leaderboard's rendering or of a report leaves the cached p-values warm."""
    return module_code_version(roots, MEASUREMENT_CODE)


#: The code that parses data files into what the parse cache stores (:func:`gec_meta.cache.cached_parse`):
#: the readers of ``data/`` and the edit type they build.
PARSING_CODE = ("data", "edits")


def parsing_code_version(module: str) -> str:
    """:func:`module_code_version` of a reader module within :data:`PARSING_CODE`: an edit of any
    code its parse can run (``data/io.py``'s cleaning, ``edits/edit.py``) makes its parses cold."""
    return module_code_version(frozenset({module}), PARSING_CODE)


@functools.lru_cache(maxsize=1)
def package_code_version() -> str:
    """sha256 (16 hex digits) of every Python file of the package, with its path: the code a
    finished job ran (``inputs.json``, :mod:`gec_meta.cli.resume`).  A job folder is reused only
    under the same code, so a newer gec-meta never keeps a result of older code (whose numbers a
    fix may have moved, CHANGELOG.md); re-running it reads every statistic whose own key did not
    change from the cache.  ~10 ms once a process (~150 files)."""
    h = hashlib.sha256(b"package\0")
    for relative in sorted(_relative_paths().values()):
        h.update(relative.encode("utf-8") + b"\0")
        h.update((PACKAGE_DIR / relative).read_bytes())
    return h.hexdigest()[:16]
