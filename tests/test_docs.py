"""The documentation stays true to the code: CLI reference, metric table, backend options, links."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from runners.backends import BACKENDS
from tests.conftest import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _gen_cli_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli_docs", REPO / "scripts" / "gen_cli_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_matches_the_commands() -> None:
    generator = _gen_cli_docs()
    assert (REPO / "docs" / "cli.md").read_text(encoding="utf-8") == generator.render(), (
        "docs/cli.md is out of date: run python scripts/gen_cli_docs.py"
    )


def test_cli_reference_has_every_command() -> None:
    from typer.main import get_command

    from k12eval.cli import app

    generator = _gen_cli_docs()
    paths = [" ".join(path) for path, _ in generator.walk(get_command(app)) if path]
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert {"run", "merge", "score", "report", "kg stats", "models pull"} <= set(paths)
    for path in paths:
        assert f"## k12eval {path}\n" in text
        assert f"Usage: k12eval {path} " in text


def _metric_rows(text: str) -> dict[str, list[str]]:
    """Rows of the README's metric table: first cell a `name`, the cells after it."""
    rows: dict[str, list[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 4:
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_readme_lists_every_metric_with_its_direction() -> None:
    from reasoning_metrics.metric_table import DEFAULT_METRICS, METRICS

    section = (REPO / "README.md").read_text(encoding="utf-8").split("## What the scores mean", 1)
    assert len(section) == 2, "README.md has no 'What the scores mean' section"
    rows = _metric_rows(section[1].split("\n## ", 1)[0])
    documented = {name for name in rows if name in METRICS}
    assert documented == set(METRICS), f"undocumented: {set(METRICS) - documented}"
    for name, metric in METRICS.items():
        direction = rows[name][1]
        assert direction.startswith(metric.direction), f"{name}: README says {direction!r}, code {metric.direction}"
        assert ("default" in rows[name][2]) == (name in DEFAULT_METRICS), f"{name}: default set differs"


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_backend_options_are_documented(backend: str) -> None:
    from runners.backends import backend_options

    row = next(
        line
        for line in (REPO / "docs" / "backends.md").read_text(encoding="utf-8").splitlines()
        if line.startswith(f"| `{backend}` |")
    )
    missing = [option for option in backend_options(backend) if f"`{option}`" not in row]
    assert not missing, f"docs/backends.md does not list {backend} options {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_relative_links_resolve(doc: Path) -> None:
    broken = []
    for target in _LINK.findall(doc.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "#", "mailto:")):
            continue
        if not (doc.parent / target.split("#", 1)[0]).exists():
            broken.append(target)
    assert not broken, f"{doc.relative_to(REPO)} links to missing files: {broken}"


def test_the_example_run_config_is_accepted_and_points_at_the_sample() -> None:
    from k12eval.cli._config import load_config
    from k12eval.cli.run import run

    defaults = load_config(REPO / "docs" / "examples" / "run.toml", run, "run")
    assert Path(defaults["data"]).resolve() == (REPO / "data" / "sample").resolve()
    assert defaults["mode"] == "zero-shot-cot" and defaults["max_tokens"] == 320
