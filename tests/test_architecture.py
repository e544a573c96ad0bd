"""The floor plan: imports run only downward (kg < runners < reasoning_metrics < reports < k12eval), no cycles.

Every import counts, also the lazy ones inside functions: a lazy import is a dependency all the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

REPO = Path(__file__).resolve().parents[1]
LAYERS = ("kg", "runners", "reasoning_metrics", "reports", "k12eval")
"""From the ground floor up: a package may import from its own layer and the ones before it."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for layer in LAYERS for p in sorted((REPO / layer).rglob("*.py"))}


def _imports(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, int]]:
    """``(module, line)`` for each project module that ``path`` imports, relative imports resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # `from a.b import c` imports the module a.b.c when there is one, else a name of a.b
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        found += [(t, node.lineno) for t in targets if t.split(".")[0] in LAYERS]
    return found


def _graph() -> nx.DiGraph:
    modules = _modules()
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        for target, line in _imports(name, path, modules):
            if target != name:
                graph.add_edge(name, target, line=line)
    return graph


def test_no_import_runs_from_a_lower_layer_to_a_higher_one() -> None:
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    upward = [
        f"{source} (line {data['line']}) imports {target}"
        for source, target, data in _graph().edges(data=True)
        if rank[target.split(".")[0]] > rank[source.split(".")[0]]
    ]
    assert upward == []


def test_no_import_cycle() -> None:
    graph = _graph()
    # A package's __init__ re-exports its modules; a module importing a sibling through the package
    # is not a cycle of dependencies, so edges from an __init__ down into its own package are left out.
    for source, target in list(graph.edges):
        if target.startswith(source + "."):
            graph.remove_edge(source, target)
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == []


def test_reports_is_the_package_of_the_report_stage() -> None:
    assert (REPO / "reports" / "__init__.py").is_file()
    assert not (REPO / "k12eval" / "report").exists()
    for moved in ("runs", "scores", "aggregate", "tables", "analyses", "markdown"):
        assert not (REPO / "kg" / f"{moved}.py").exists(), f"kg/{moved}.py belongs to reports/"


def test_the_scan_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    # The scan itself can fail: an upward import inside a function is found.
    modules = {"kg.x": tmp_path / "x.py", "reports.html": tmp_path / "h.py"}
    modules["kg.x"].write_text("def f():\n    from reports.html import page\n    from . import y\n", encoding="utf-8")
    assert _imports("kg.x", modules["kg.x"], modules) == [("reports.html", 2), ("kg", 3)]


def test_the_tests_mirror_the_packages() -> None:
    # tests/<package>/... holds the tests of <package>; only the project-wide ones sit at the top.
    folders = {p.name for p in (REPO / "tests").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == {*LAYERS, "fixtures", "conformance"}  # conformance: other tools' files (#27)
    top = {p.name for p in (REPO / "tests").glob("test_*.py")}
    assert top == {"test_architecture.py", "test_docs.py", "test_doctests.py"}
