"""The modules of gec_meta import each other without circles (issue 34 item 7).

The graph holds every import a module makes, at module level and inside functions alike (a
function-level import is still a dependency: it only runs later), read from the source with
``ast``; ``from gec_meta.x import y`` points at the module ``gec_meta.x.y`` when that is a module,
else at ``gec_meta.x``.  A circle (``cli.main`` -> ``cli.attribute`` -> ``cli.main``, or
``config`` -> ``meta.aggregation`` -> ``meta.trueskill`` -> ``config``) is reported with its
modules.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import gec_meta

PACKAGE = Path(gec_meta.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ["gec_meta", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _owner(name: str, modules: dict[str, Path]) -> str | None:
    """The package module that ``import name`` loads last (``gec_meta.a.b.c`` -> the longest
    prefix that is a module of the package)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (anywhere in its source)."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in targets:
                owner = _owner(target, modules)
                if owner is not None and owner != module:
                    graph[module].add(owner)
    return graph


def test_the_graph_sees_imports_at_every_level():
    graph = import_graph()
    # module level (cli/run.py imports the task at the top) and inside a function
    # (cli/main.py imports the attribute subcommand only when it is asked for)
    assert "gec_meta.meta.task" in graph["gec_meta.cli.run"]
    assert "gec_meta.cli.attribute" in graph["gec_meta.cli.main"]
    assert "gec_meta.meta.trueskill" in graph["gec_meta.meta.aggregation"]


def test_no_import_circles():
    graph = import_graph()
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        raise AssertionError(f"an import circle: {' -> '.join(exc.args[1])}") from None


def test_a_circle_would_be_found():
    graph = import_graph()
    graph["gec_meta.fields"].add("gec_meta.config")  # config imports fields: a circle of two
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        assert set(exc.args[1]) == {"gec_meta.fields", "gec_meta.config"}
    else:
        raise AssertionError("the circle config <-> fields was not found")
