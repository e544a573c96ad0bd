"""The floor plan: imports run only downward (kg < runners < reasoning_metrics < reports < k12eval), no cycles.

Every import counts, also the lazy ones inside functions: a lazy import is a dependency all the same, and so
does a module named in a name table (``"runners.backends.vllm:VLLMBackend"``, ``"kg.importers.ck12"``), which
is imported by name when asked for. A package's ``__init__`` (its face) is a module like any other: a module
that imports its own package's face while that face imports it back is a cycle.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

REPO = Path(__file__).resolve().parents[1]
LAYERS = ("kg", "runners", "reasoning_metrics", "reports", "k12eval")
"""From the ground floor up: a package may import from its own layer and the ones before it."""

METRIC_FLOORS: tuple[tuple[str, ...], ...] = (
    (
        "reasoning_metrics",  # the face: checked by the cycle test, not by the floors
        "reasoning_metrics.functional",
        "reasoning_metrics.metric_table",
        "reasoning_metrics.split",
        "reasoning_metrics.records",
        "reasoning_metrics.protocols",
        "reasoning_metrics.cache",
        "reasoning_metrics.batching",
        "reasoning_metrics.step_detail",
        "reasoning_metrics.chainfile",
        "reasoning_metrics.guard",
        "reasoning_metrics.scales",
        "reasoning_metrics.step_thresholds",
        "reasoning_metrics.flag_evidence",
        "reasoning_metrics.reasons",
    ),
    ("reasoning_metrics.models", "reasoning_metrics.slots", "reasoning_metrics.permetric"),
    ("reasoning_metrics.scoring", "reasoning_metrics.chain_inputs"),
    ("reasoning_metrics.verify",),
    ("reasoning_metrics.combine",),
    ("reasoning_metrics.run_scoring", "reasoning_metrics.score_store", "reasoning_metrics.work_files"),
    ("reasoning_metrics.metaeval", "reasoning_metrics.diagnostics"),
)
"""The floors inside ``reasoning_metrics``, from the ground up: core (the pure formulas, the metric table, the
sentence splitter, the records) < model adapters < scoring < detectors (verify) < the learned combiner <
the score job (runs, store) < meta-evaluation and the diagnostic sets. A module sits on the floor of the
longest prefix named here; it imports from its floor and the ones below."""

LIBRARY_FACES = ("k12eval.api", "k12eval.meta_jobs", "k12eval.models", "k12eval.banks")
"""The library parts of ``k12eval``: they may be called without the CLI, so they never import it."""


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
        elif isinstance(node, ast.Dict):
            # a name table: {"vllm": "runners.backends.vllm:VLLMBackend", "ck12": "kg.importers.ck12"}
            targets = [_named_module(v.value, modules) for v in node.values if isinstance(v, ast.Constant)]
        else:
            continue
        found += [(t, node.lineno) for t in targets if t and t.split(".")[0] in LAYERS]
    return found


def _named_module(value: object, modules: dict[str, Path] | set[str]) -> str | None:
    """The project module a table names, ``"pkg.mod"`` or ``"pkg.mod:Name"``, else None."""
    if not isinstance(value, str):
        return None
    module = value.partition(":")[0]
    return module if module in modules else None


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
    # Every edge counts, also a face re-exporting its modules: a module that imports its own package's
    # face (``from reasoning_metrics import x`` inside reasoning_metrics) closes a loop through it.
    graph = _graph()
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == []


def _metric_floor(module: str) -> int:
    best, floor = "", -1
    for i, names in enumerate(METRIC_FLOORS):
        for name in names:
            below = name != "reasoning_metrics" and module.startswith(name + ".")  # the face names itself only
            if (module == name or below) and len(name) > len(best):
                best, floor = name, i
    return floor


def test_reasoning_metrics_floors() -> None:
    graph = _graph()
    inside = [n for n in graph if n.split(".")[0] == "reasoning_metrics"]
    unplaced = [n for n in inside if _metric_floor(n) < 0]
    assert unplaced == [], "give each reasoning_metrics module a floor in METRIC_FLOORS"
    upward = [
        f"{source} (line {data['line']}) imports {target}"
        for source, target, data in graph.subgraph(inside).edges(data=True)
        if source != "reasoning_metrics" and _metric_floor(target) > _metric_floor(source)
    ]
    assert upward == []


def test_the_docs_floor_table_lists_every_floor_as_the_test_does() -> None:
    """docs/architecture.md's table of the floors inside reasoning_metrics names the modules METRIC_FLOORS does."""
    doc = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("## Floors inside `reasoning_metrics`", 1)[1].split("\n## ", 1)[0]
    documented: dict[int, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].isdigit():
            names = re.findall(r"`([a-z_/]+)`", cells[1])
            documented[int(cells[0]) - 1] = {"reasoning_metrics." + n.rstrip("/") for n in names}
    expected = {i: {n for n in names if n != "reasoning_metrics"} for i, names in enumerate(METRIC_FLOORS)}
    assert documented == expected


def test_no_library_module_imports_the_cli() -> None:
    graph = _graph()
    library = [n for n in graph if n.split(".")[0] != "k12eval" or n.startswith(LIBRARY_FACES)]
    into_cli = [
        f"{source} (line {data['line']}) imports {target}"
        for source in library
        for target, data in graph[source].items()
        if target.startswith("k12eval.cli")
    ]
    assert into_cli == []


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


def test_the_scan_sees_name_tables_and_faces(tmp_path: Path) -> None:
    # A "module:Class" string in a table is an edge; a face importing its module that imports the face is a cycle.
    modules = {"runners.b": tmp_path / "b.py", "runners.b.v": tmp_path / "v.py", "kg.f": tmp_path / "f.py"}
    modules["runners.b"].write_text('T = {"v": "runners.b.v:V", "f": "kg.f", "x": "not.a:Mod"}\n', encoding="utf-8")
    modules["runners.b.v"].write_text("from runners.b import T\n", encoding="utf-8")
    assert _imports("runners.b", modules["runners.b"], modules) == [("runners.b.v", 1), ("kg.f", 1)]
    assert _imports("runners.b.v", modules["runners.b.v"], modules) == [("runners.b", 1)]
    assert _metric_floor("reasoning_metrics.models.prm_model") < _metric_floor("reasoning_metrics.verify.rules.prm")
    assert _metric_floor("reasoning_metrics.metaeval.detectors") > _metric_floor("reasoning_metrics.run_scoring")


def test_the_tests_mirror_the_packages() -> None:
    # tests/<package>/... holds the tests of <package>; only the project-wide ones sit at the top, with
    # the shared fixtures and the conformance corpus (other tools' real files, replayed end to end, #27)
    folders = {p.name for p in (REPO / "tests").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == {*LAYERS, "fixtures", "conformance"}
    top = {p.name for p in (REPO / "tests").glob("test_*.py")}
    assert top == {"test_architecture.py", "test_docs.py", "test_doctests.py"}


FLAG = re.compile(r"(?<![\w-])(?:--[a-z][a-z0-9-]*|-[A-Za-z](?= ))")
"""A long option, or a short one followed by its value (``-b replay``)."""
WHOLE_COMMAND = re.compile(r"\bk12eval [a-z][a-z-]*( [a-z][a-z-]*)? ")
"""A message may show a whole command to run (``k12eval models pull X --offline``): that is a command, not a
setting named by its flag."""


def _cli_flags() -> set[str]:
    """Every option of every ``k12eval`` command (``--backend``, ``-b``), from the command line itself."""
    import typer

    from k12eval.cli import app

    flags: set[str] = set()

    def walk(command: object) -> None:
        for param in getattr(command, "params", []):
            flags.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("-"))
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(typer.main.get_command(app))
    return flags - {"--help", "-h"}


def _flag_words(path: Path, flags: set[str], root: Path = REPO) -> list[str]:
    """The texts of ``path`` (its string literals and f-strings, not its docstrings, nor a program's own
    ``add_argument`` options) that name a ``k12eval`` flag outside a whole command line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr):  # a docstring, a field's docstring
            skipped.add(id(node.value))
        elif isinstance(node, ast.JoinedStr):  # read whole, below
            skipped.update(id(part) for part in node.values)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
            skipped.update(id(arg) for arg in node.args)
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(p.value if isinstance(p, ast.Constant) else "{}" for p in node.values)
        else:
            continue
        named = [word for word in FLAG.findall(text) if word in flags]
        if named and not WHOLE_COMMAND.search(text):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {', '.join(named)} in {text[:80]!r}")
    return found


def test_the_library_names_settings_not_flags() -> None:
    # The library's errors, warnings and stored texts name a setting as the Python API does (kg.errors.SettingError,
    # kg.errors.Worded); the command line words them with its flags (k12eval.cli._wording.FLAGS), so an API user
    # is never told to "pass --data" (#35 item 1).
    flags = _cli_flags()
    library = [
        path
        for layer in LAYERS
        for path in sorted((REPO / layer).rglob("*.py"))
        if path.relative_to(REPO).parts[:2] != ("k12eval", "cli")
    ]
    assert [said for path in library for said in _flag_words(path, flags)] == []


def test_the_flag_scan_sees_messages_not_docs(tmp_path: Path) -> None:
    # The scan itself can fail: a flag in a message (plain or f-string) is found; docs, whole commands and
    # another program's flags are not.
    module = tmp_path / "probe.py"
    module.write_text(
        '"""``score --combiner`` in a docstring is documentation."""\n'
        "def f(x):\n"
        '    """``--data`` here too."""\n'
        '    hint = f"choose another --out than {x}"\n'
        '    ok = "fetch it: k12eval models pull x --offline"\n'
        '    foreign = "pip install --no-deps x"\n'
        '    raise ValueError("pass --format")\n'
        '    short = "replay them with -b replay"\n',
        encoding="utf-8",
    )
    found = _flag_words(module, {"--combiner", "--data", "--out", "--offline", "--format", "-b"}, tmp_path)
    assert sorted(found) == [
        "probe.py:4: --out in 'choose another --out than {}'",
        "probe.py:7: --format in 'pass --format'",
        "probe.py:8: -b in 'replay them with -b replay'",
    ]
