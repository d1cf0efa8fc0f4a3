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

from gec_meta.cache.code import owner_module, package_modules


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (anywhere in its source)."""
    modules = package_modules()
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
                owner = owner_module(target, modules)
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


def test_the_cache_key_scanner_finds_every_import_ast_finds():
    """gec_meta.cache.code reads imports with a line scanner (fast enough for every run's cache
    keys); in every module of the package it finds at least the imports ast finds here: a
    module it missed would be left out of a statistics cache key."""
    from gec_meta.cache import code

    graph, modules = import_graph(), package_modules()
    assert set(modules) == set(graph)
    for module, path in modules.items():
        missed = graph[module] - code.imported_modules(module, path.read_text(encoding="utf-8"), modules)
        assert not missed, f"{module}: the scanner misses {sorted(missed)}"
