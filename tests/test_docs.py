"""The documentation stays true to the code: CLI reference, metric table, backend options, links, and every
`k12eval ...` command the README and docs/ show (a user copies those lines first: a renamed flag left in a doc fails
them before anything runs)."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from runners.backends import BACKENDS
from tests.conftest import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_PROSE = [doc for doc in DOCS if doc.name != "cli.md"]
"""The docs written by hand (docs/cli.md is generated from the commands themselves)."""


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


_FENCE = re.compile(r"^```(?:bash|sh|shell|console)\s*\n(.*?)^```", re.M | re.S)
_INLINE = re.compile(r"(?<!`)`((?:[\w./]*/)?k12eval [a-z][^`]*)`")
_PREFIX = re.compile(r"^(?:\$ |nice -n \d+ |/usr/bin/time -v |time |[A-Z_]+=\S+ |(?:[\w.~-]*/)*(?=k12eval ))+")


def doc_commands(text: str) -> list[list[str]]:
    """The `k12eval` command lines of a Markdown text's shell blocks and inline code, as argument lists (after
    `k12eval`).

    Continued lines are joined, comments and a leading `$ `, `nice -n 19`, `VAR=value` or `.venv/bin/` dropped; a
    line piping or chaining into another command keeps only its first part.
    """
    lines = [line for block in _FENCE.findall(text) for line in block.replace("\\\n", " ").splitlines()]
    lines += [span.replace("\\|", "|") for span in _INLINE.findall(text)]
    commands = []
    for line in lines:
        line = _PREFIX.sub("", line.strip())
        if line.startswith("k12eval "):
            words = shlex.split(line, comments=True)
            for i, word in enumerate(words):
                if word in ("|", "&&", ";", "||", ">", "2>", "&>", ">>", "&"):
                    words = words[:i]
                    break
            commands.append(words[1:])
    return commands


def _cli() -> Any:
    from typer.main import get_command

    from k12eval.cli import app

    return get_command(app)


def _option_names(command: Any) -> set[str]:
    names = {"--help", "-h"}
    for param in command.params:
        if param.param_type_name == "option":
            names.update(param.opts)
            names.update(param.secondary_opts)
    return names


def unknown_words(args: list[str], root: Any) -> list[str]:
    """The subcommand or option names of ``args`` the command line does not have (typer's vendored click: duck-typed)."""
    command = root
    args = list(args)
    while hasattr(command, "commands") and args and not args[0].startswith("-"):
        sub = command.commands.get(args[0])
        if sub is None and getattr(command, "invoke_without_command", False):
            break  # a group that is a command of its own (report): the word is its argument
        if sub is None:
            return [args[0]]
        command, args = sub, args[1:]
    known = _option_names(command)
    named = [name for a in args if a.startswith("-") and a != "-" for name in a.split("=", 1)[0].split("/")]
    return [name for name in named if name not in known]  # `--embedder/--nli` in prose names two options


def test_unknown_words_names_a_missing_flag_and_command() -> None:
    root = _cli()
    assert unknown_words(["run", "data/sample", "--no-such-flag", "-m", "x"], root) == ["--no-such-flag"]
    assert unknown_words(["kg", "nosuch"], root) == ["nosuch"]
    assert unknown_words(["kg", "stats", "data/sample", "--json"], root) == []


def test_doc_commands_joins_continued_lines_and_drops_comments() -> None:
    text = "```bash\nk12eval run data/sample -m m \\\n    --limit 4   # four\necho k12eval x\n```\n"
    assert doc_commands(text) == [["run", "data/sample", "-m", "m", "--limit", "4"]]


@pytest.mark.parametrize("doc", _PROSE, ids=lambda p: p.name)
def test_every_documented_command_exists(doc: Path) -> None:
    root = _cli()
    wrong = {
        " ".join(args): bad
        for args in doc_commands(doc.read_text(encoding="utf-8"))
        if (bad := unknown_words(args, root))
    }
    assert not wrong, f"{doc.name}: commands with names the CLI lacks: {wrong}"


_FIGURE = re.compile(r"(\d[\d,]*) ([\w-]+)")


def commented_commands(text: str) -> list[tuple[list[str], str]]:
    """The `k12eval` lines of a Markdown text's shell blocks with the comment beside each (`# 63 questions`), as
    (arguments after `k12eval`, comment); continued lines are joined, prefixes dropped as in :func:`doc_commands`."""
    found = []
    for block in _FENCE.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            line = _PREFIX.sub("", line.strip())
            if line.startswith("k12eval "):
                command, _, comment = line.partition(" #")
                found.append((shlex.split(command)[1:], comment.strip()))
    return found


def test_commented_commands_keep_the_comment_and_join_lines() -> None:
    text = "```bash\n$ k12eval kg stats a.csv \\\n    --mapping m.toml   # 5 questions, 1 subject\n```\n"
    assert commented_commands(text) == [(["kg", "stats", "a.csv", "--mapping", "m.toml"], "5 questions, 1 subject")]
    assert _FIGURE.findall("5 questions, 1 subject") == [("5", "questions"), ("1", "subject")]


def _runnable_here(args: list[str]) -> bool:
    """A `kg` command whose every file argument is a path of the checkout (not a placeholder such as PATH)."""
    paths = [a for a in args[2:] if not a.startswith("-") and ("/" in a or "." in a)]
    inside = [(REPO / p).resolve() for p in paths]
    return args[:1] == ["kg"] and bool(paths) and all(p.exists() and p.is_relative_to(REPO) for p in inside)


_RUNNABLE = [
    pytest.param(args, comment, id=f"{doc.name}:{' '.join(args)}")
    for doc in _PROSE
    for args, comment in commented_commands(doc.read_text(encoding="utf-8"))
    if _runnable_here(args)
]


def test_the_readme_has_runnable_kg_commands() -> None:
    assert len(_RUNNABLE) >= 4, [p.id for p in _RUNNABLE]  # kg stats / show of data/sample and of the mapped example


@pytest.mark.parametrize(("args", "comment"), _RUNNABLE)
def test_a_documented_kg_command_runs_and_prints_the_figures_beside_it(
    args: list[str], comment: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `kg` line of a doc on the checkout's own files runs as written, and each figure its comment quotes
    (`# 63 questions, 9 subjects, 26 level-1 and 40 level-2 points`) is what it prints."""
    from typer.testing import CliRunner

    from k12eval.cli import app

    monkeypatch.chdir(REPO)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    for number, word in _FIGURE.findall(comment):
        assert f"{number.replace(',', '')} {word}" in result.stdout, (comment, result.stdout)
